/* SPDX-License-Identifier: MIT */
#pragma once
/* A fast parse held to its reference: a tally of inputs both were given,
 * every one-byte edit of a file, and a small deterministic random source.
 * The caller's compare function parses one input both ways and calls
 * diff_count. */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "tap.h"

struct tally {
	unsigned cases, ok, errors, differ;
};

typedef void (*diff_compare_fn)(struct tally *t, const char *s, size_t n);

/* Counts one input (ra: the fast parse's result); same: whether both
 * parses agreed. The first disagreement is printed as a TAP comment. */
static inline void diff_count(struct tally *t, int ra, int rb, bool same, const char *s, size_t n)
{
	t->cases++;
	if (ra == 0)
		t->ok++;
	else
		t->errors++;
	if (same)
		return;
	if (t->differ++ == 0) {
		printf("# first difference: fast %d, reference %d, on \"", ra, rb);
		for (size_t i = 0; i < n; i++)
			printf(s[i] >= ' ' && s[i] < 127 && s[i] != '"' ? "%c" : "\\x%02x",
			       (unsigned char)s[i]);
		printf("\"\n");
	}
}

/* s itself, every cut of it, every byte replaced by each of bytes,
 * deleted and doubled (s shorter than 4 KiB) */
static inline void diff_edits(struct tally *t, diff_compare_fn cmp, const char *s, const char *bytes,
			      size_t n_bytes)
{
	char buf[4096];
	size_t n = strlen(s);
	CHECK(n + 1 < sizeof(buf));
	if (n + 1 >= sizeof(buf))
		return;
	cmp(t, s, n);
	for (size_t i = 0; i < n; i++) {
		cmp(t, s, i);
		memcpy(buf, s, n);
		for (size_t b = 0; b < n_bytes; b++) {
			buf[i] = bytes[b];
			cmp(t, buf, n);
		}
		memcpy(buf, s, i);
		memcpy(buf + i, s + i + 1, n - i - 1);
		cmp(t, buf, n - 1);
		memcpy(buf, s, i + 1);
		memcpy(buf + i + 1, s + i, n - i);
		cmp(t, buf, n + 1);
	}
}

/* The tally's verdict: no disagreement, and at least min inputs read
 * and min refused (so neither kind went untried). */
static inline void diff_check(const struct tally *t, unsigned min)
{
	printf("# %u inputs: %u read, %u refused\n", t->cases, t->ok, t->errors);
	CHECK_EQ_INT(t->differ, 0);
	CHECK(t->ok > min && t->errors > min);
}

static inline uint64_t diff_rand(uint64_t *x)
{
	*x ^= *x << 13;
	*x ^= *x >> 7;
	*x ^= *x << 17;
	return *x;
}
