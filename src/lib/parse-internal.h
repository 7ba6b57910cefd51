/* SPDX-License-Identifier: MIT */
#pragma once

/*
 * Helpers shared by the parsers in src/lib/parse-*.c. Everything works on
 * (pointer, length) spans and never reads outside them; nothing assumes a
 * NUL terminator. All static inline, so this header adds no symbols.
 */

#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* PID_MAX_LIMIT on 64-bit kernels: no PID is ever larger. */
#define PARSE_PID_MAX 4194304

/* One past the end of (buf, len), without forming NULL + 0. */
static inline const char *parse_end(const char *buf, size_t len)
{
	return len ? buf + len : buf;
}

/* The next '\n'-terminated line at *pos (a final line without '\n'
 * counts; a buffer ending in '\n' has no empty line after it). */
static inline bool parse_next_line(const char **pos, const char *end, const char **ret_line,
				   size_t *ret_len)
{
	const char *p = *pos;
	if (!p || p >= end)
		return false;
	const char *nl = memchr(p, '\n', (size_t)(end - p));
	*ret_line = p;
	*ret_len = (size_t)((nl ? nl : end) - p);
	*pos = nl ? nl + 1 : end;
	return true;
}

/* The end of (buf, len) cut back to its last whole ('\n'-terminated)
 * line: what one read of part of a file holds for sure. */
static inline const char *parse_whole_lines_end(const char *buf, size_t len)
{
	const char *end = buf ? parse_end(buf, len) : NULL;
	while (end > buf && end[-1] != '\n')
		end--;
	return end;
}

static inline bool parse_is_blank(char c)
{
	return c == ' ' || c == '\t';
}

static inline bool parse_is_space(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f';
}

static inline bool parse_is_digit(char c)
{
	return c >= '0' && c <= '9';
}

/* The next run of non-blank bytes (blank: space or tab) in [*pos, end). */
static inline bool parse_next_token(const char **pos, const char *end, const char **ret_tok,
				    size_t *ret_len)
{
	const char *p = *pos;
	while (p < end && parse_is_blank(*p))
		p++;
	if (p >= end) {
		*pos = p;
		return false;
	}
	const char *t = p;
	while (p < end && !parse_is_blank(*p))
		p++;
	*ret_tok = t;
	*ret_len = (size_t)(p - t);
	*pos = p;
	return true;
}

/* Whether the span is exactly the C string lit. */
static inline bool parse_span_eq(const char *s, size_t n, const char *lit)
{
	size_t l = strlen(lit);
	return n == l && memcmp(s, lit, l) == 0;
}

/* A span of decimal digits only (no sign, no blanks) as a u64.
 * -EBADMSG if empty or not all digits, -ERANGE if it overflows. */
static inline int parse_digits_u64(const char *s, size_t n, uint64_t *ret)
{
	if (n == 0)
		return -EBADMSG;
	if (n <= 19) { /* under 10^19: cannot overflow, one pass */
		uint64_t v = 0;
		for (size_t i = 0; i < n; i++) {
			if (!parse_is_digit(s[i]))
				return -EBADMSG;
			v = v * 10 + (unsigned)(s[i] - '0');
		}
		*ret = v;
		return 0;
	}
	for (size_t i = 0; i < n; i++)
		if (!parse_is_digit(s[i]))
			return -EBADMSG;
	uint64_t v = 0;
	for (size_t i = 0; i < n; i++) {
		unsigned d = (unsigned)(s[i] - '0');
		if (v > (UINT64_MAX - d) / 10)
			return -ERANGE;
		v = v * 10 + d;
	}
	*ret = v;
	return 0;
}

/* An optionally signed ('+' or '-') decimal span as an int64.
 * -EBADMSG if malformed, -ERANGE if it does not fit. */
static inline int parse_digits_i64(const char *s, size_t n, int64_t *ret)
{
	bool neg = false;
	if (n > 0 && (s[0] == '-' || s[0] == '+')) {
		neg = s[0] == '-';
		s++;
		n--;
	}
	uint64_t mag;
	int r = parse_digits_u64(s, n, &mag);
	if (r < 0)
		return r;
	if (neg) {
		if (mag > (uint64_t)INT64_MAX + 1)
			return -ERANGE;
		*ret = mag == (uint64_t)INT64_MAX + 1 ? INT64_MIN : -(int64_t)mag;
	} else {
		if (mag > (uint64_t)INT64_MAX)
			return -ERANGE;
		*ret = (int64_t)mag;
	}
	return 0;
}

/* A span of digits as a number in [min, max]; -ERANGE outside. */
static inline int parse_digits_range(const char *s, size_t n, uint64_t min, uint64_t max,
				     uint64_t *ret)
{
	uint64_t v;
	int r = parse_digits_u64(s, n, &v);
	if (r < 0)
		return r;
	if (v < min || v > max)
		return -ERANGE;
	*ret = v;
	return 0;
}

/* a + b, saturating at UINT64_MAX. */
static inline uint64_t parse_sat_add(uint64_t a, uint64_t b)
{
	return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

/* kB -> bytes, saturating at UINT64_MAX. */
static inline uint64_t parse_kb_to_bytes(uint64_t kb)
{
	return kb > UINT64_MAX / 1024 ? UINT64_MAX : kb * 1024;
}

/* Copies the span into dst (cap >= 1) as a NUL-terminated string,
 * truncated to cap - 1 bytes. */
static inline void parse_copy_trunc(char *dst, size_t cap, const char *s, size_t n)
{
	if (n > cap - 1)
		n = cap - 1;
	memcpy(dst, s, n);
	dst[n] = '\0';
}

/*
 * The "key value\n" format of memory.stat, memory.events and /proc/vmstat:
 * every line has exactly two blank-separated tokens and a decimal u64
 * value, known keys are stored (a repeated one is -EBADMSG: two values for
 * one counter mean the buffer is not what the kernel wrote), unknown keys
 * skipped. Each key's bit is set in *ret_present; out is written as the
 * lines are read (callers parse into a local and copy on success).
 */
struct flat_key {
	const char *name;
	size_t len; /* strlen(name): a line's key is compared by length first */
	unsigned bit;
	size_t offset; /* of a uint64_t in the output struct */
};
#define FLAT_KEY(lit, bit, offset) { lit, sizeof(lit) - 1, bit, offset }
int parse_flat_keyed(const char *buf, size_t len, const struct flat_key *keys, size_t n_keys,
		     void *out, unsigned *ret_present);
/* The same with the kernel's lines read by memchr and keys found through
 * the length and first-byte filter (fast), or every line token by token
 * and every key compared by its string (the reference the tests compare
 * the fast read to). */
int parse_flat_keyed_lines(const char *buf, size_t len, const struct flat_key *keys, size_t n_keys,
			   void *out, unsigned *ret_present, bool fast);
