/* SPDX-License-Identifier: MIT */
/* The single-value parsers on the same input, cross-checked: results in
 * range, outputs untouched on failure, u64/limit/int agreeing. */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cgoom/parse.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define SENT64 0xa5a5a5a5a5a5a5a5ull

static void check_err(int r)
{
	if (r != -EBADMSG && r != -ERANGE)
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *buf = (const char *)data;
	static const int64_t ranges[][2] = {
		{ -1000, 1000 }, { 0, 1 }, { INT64_MIN, INT64_MAX }, { 0, INT64_MAX }, { 5, 5 },
	};
	int64_t wide = 0;
	int rw = -1;
	for (unsigned i = 0; i < sizeof(ranges) / sizeof(ranges[0]); i++) {
		int64_t v = (int64_t)SENT64;
		int r = cgoom_parse_int(buf, size, ranges[i][0], ranges[i][1], &v);
		if (r < 0) {
			check_err(r);
			if (v != (int64_t)SENT64)
				abort();
		} else if (r != 0 || v < ranges[i][0] || v > ranges[i][1])
			abort();
		if (i == 2) {
			rw = r;
			wide = v;
		}
	}
	int64_t dummy;
	if (cgoom_parse_int(buf, size, 1, 0, &dummy) != -EINVAL)
		abort();

	uint64_t u = SENT64, l = SENT64;
	int ru = cgoom_parse_u64(buf, size, &u);
	int rl = cgoom_parse_limit(buf, size, &l);
	if (ru < 0) {
		check_err(ru);
		if (u != SENT64)
			abort();
	}
	if (rl < 0) {
		check_err(rl);
		if (l != SENT64)
			abort();
	}
	/* every u64 is a limit, with the same value */
	if (ru == 0 && (rl != 0 || l != u))
		abort();
	/* a u64 that fits in int64 is the same number as an int */
	if (ru == 0 && u <= INT64_MAX && !memchr(buf, '\0', size) && (rw != 0 || (uint64_t)wide != u))
		abort();
	if (rl == 0 && ru != 0 && l != UINT64_MAX)
		abort();

	bool b = false, b2;
	int rb = cgoom_parse_bool(buf, size, &b);
	if (rb < 0 && rb != -EBADMSG)
		abort();
	/* "1" and "0" agree with parse_int */
	if (rw == 0 && (size == 1 || (size == 2 && buf[1] == '\n')) && (wide == 0 || wide == 1) &&
	    (rb != 0 || b != (wide == 1)))
		abort();

	static const char *const names[] = { "memory", "cpu", "io", "pids", "x" };
	for (unsigned i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		unsigned char s = 0xa5;
		memcpy(&b2, &s, 1);
		int r = cgoom_parse_has_controller(buf, size, names[i], &b2);
		if (r < 0) {
			unsigned char after;
			memcpy(&after, &b2, 1);
			if (r != -EBADMSG || after != 0xa5)
				abort();
		} else if (r != 0 || (b2 && !memmem(buf, size, names[i], strlen(names[i]))))
			abort();
	}
	if (cgoom_parse_has_controller(buf, size, "", &b2) != -EINVAL)
		abort();
	return 0;
}
