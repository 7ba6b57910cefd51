/* SPDX-License-Identifier: MIT */
#pragma once

/*
 * A tiny TAP test runner. Each test is a function; a failed CHECK marks
 * the current test failed and returns from it. Output is TAP 13, which
 * .ci/run and meson (protocol: 'tap') both count.
 *
 *   static void test_foo(void) { CHECK(1 + 1 == 2); }
 *   int main(void) { return tap_run((struct tap_test[]){ TAP(test_foo), {0} }); }
 */

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct tap_test {
	const char *name;
	void (*fn)(void);
};
#define TAP(fn) { #fn, fn }

static int tap_failed_;
static const char *tap_skip_;

#define CHECK(cond)                                                                     \
	do {                                                                            \
		if (!(cond)) {                                                          \
			printf("# %s:%d: CHECK(%s) failed\n", __FILE__, __LINE__, #cond); \
			tap_failed_ = 1;                                                \
			return;                                                         \
		}                                                                       \
	} while (0)

#define CHECK_EQ_INT(a, b)                                                                   \
	do {                                                                                 \
		long long a_ = (long long)(a), b_ = (long long)(b);                          \
		if (a_ != b_) {                                                              \
			printf("# %s:%d: %s == %lld, expected %s == %lld\n", __FILE__, __LINE__, \
			       #a, a_, #b, b_);                                              \
			tap_failed_ = 1;                                                     \
			return;                                                              \
		}                                                                            \
	} while (0)

#define CHECK_EQ_U64(a, b)                                                                      \
	do {                                                                                    \
		uint64_t a_ = (uint64_t)(a), b_ = (uint64_t)(b);                                \
		if (a_ != b_) {                                                                 \
			printf("# %s:%d: %s == %" PRIu64 ", expected %" PRIu64 "\n", __FILE__,  \
			       __LINE__, #a, a_, b_);                                           \
			tap_failed_ = 1;                                                        \
			return;                                                                 \
		}                                                                               \
	} while (0)

#define CHECK_STREQ(a, b)                                                                    \
	do {                                                                                 \
		const char *a_ = (a), *b_ = (b);                                             \
		if (!a_ || !b_ || strcmp(a_, b_) != 0) {                                     \
			printf("# %s:%d: %s == \"%s\", expected \"%s\"\n", __FILE__, __LINE__, \
			       #a, a_ ? a_ : "(null)", b_ ? b_ : "(null)");                  \
			tap_failed_ = 1;                                                     \
			return;                                                              \
		}                                                                            \
	} while (0)

/* Skip the current test with a reason (then return from it). */
#define SKIP(reason)               \
	do {                       \
		tap_skip_ = (reason); \
		return;            \
	} while (0)

static inline int tap_run(const struct tap_test *tests)
{
	int n = 0, failed = 0;
	for (const struct tap_test *t = tests; t->name; t++)
		n++;
	printf("TAP version 13\n1..%d\n", n);
	int i = 0;
	for (const struct tap_test *t = tests; t->name; t++) {
		tap_failed_ = 0;
		tap_skip_ = NULL;
		t->fn();
		i++;
		if (tap_skip_)
			printf("ok %d - %s # SKIP %s\n", i, t->name, tap_skip_);
		else if (tap_failed_) {
			printf("not ok %d - %s\n", i, t->name);
			failed++;
		} else
			printf("ok %d - %s\n", i, t->name);
		fflush(stdout);
	}
	return failed ? 1 : 0;
}
