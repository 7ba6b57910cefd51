/* SPDX-License-Identifier: MIT */
/* The guard band's record (trusted.cgoom.guard): the output untouched
 * on failure; on success a record that formats and parses back to
 * itself, and a judgement in range whatever memory.high holds. */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cgoom/guard.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct cgoom_guard_record r, sentinel;
	memset(&sentinel, 0xa5, sizeof(sentinel));
	memcpy(&r, &sentinel, sizeof(r));
	int rc = cgoom_guard_record_parse((const char *)data, size, &r);
	if (rc < 0) {
		if ((rc != -EBADMSG && rc != -EPROTONOSUPPORT) || memcmp(&r, &sentinel, sizeof(r)) != 0)
			abort();
		return 0;
	}
	if (r.pid <= 0 || r.ours == UINT64_MAX)
		abort();
	char buf[CGOOM_GUARD_RECORD_MAX];
	int n = cgoom_guard_record_format(&r, buf, sizeof(buf));
	struct cgoom_guard_record back;
	if (n <= 0 || cgoom_guard_record_parse(buf, (size_t)n, &back) != 0)
		abort();
	if (back.pid != r.pid || back.start != r.start || back.old != r.old ||
	    back.ours != r.ours || back.prev != r.prev)
		abort();
	const uint64_t highs[] = { 0, r.ours, r.prev, r.old, UINT64_MAX };
	for (size_t i = 0; i < sizeof(highs) / sizeof(highs[0]); i++)
		for (int alive = 0; alive < 2; alive++) {
			enum cgoom_guard_found f = cgoom_guard_judge(&r, false, highs[i], alive);
			if (f != CGOOM_GUARD_LEFT && f != CGOOM_GUARD_LIVE && f != CGOOM_GUARD_STALE)
				abort();
			if (alive && f != CGOOM_GUARD_LIVE)
				abort();
		}
	return 0;
}
