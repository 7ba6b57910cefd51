/* SPDX-License-Identifier: MIT */
/* /proc/PID/cgroup, at several capacities: nothing past cap is written,
 * nothing at all on failure, and the result does not depend on cap except
 * for -ENAMETOOLONG exactly when the path does not fit. */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cgoom/parse.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define BIG 8192

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static char big[BIG + 1], small[BIG + 1], sentinel[BIG + 1];
	memset(sentinel, 0xa5, sizeof(sentinel));
	memcpy(big, sentinel, sizeof(big));
	int r = cgoom_parse_pid_cgroup((const char *)data, size, big, BIG);
	if (big[BIG] != sentinel[BIG])
		abort();
	if (r < 0) {
		if (r != -EBADMSG && r != -ENOENT && r != -ENAMETOOLONG)
			abort();
		if (memcmp(big, sentinel, BIG) != 0)
			abort();
	} else {
		if (r != 0)
			abort();
		const char *nul = memchr(big, '\0', BIG);
		if (!nul || big[0] != '/')
			abort();
		if (!memmem(data, size, big, (size_t)(nul - big)))
			abort();
	}
	size_t len = r == 0 ? strlen(big) : 0;
	const size_t caps[] = { 0, 1, 2, len, len + 1, 64 };
	for (unsigned i = 0; i < sizeof(caps) / sizeof(caps[0]); i++) {
		size_t cap = caps[i];
		memcpy(small, sentinel, sizeof(small));
		int r2 = cgoom_parse_pid_cgroup((const char *)data, size, cap ? small : NULL, cap);
		if (small[cap] != sentinel[cap])
			abort();
		if (r == 0) {
			if (cap > len) {
				if (r2 != 0 || strcmp(small, big) != 0)
					abort();
			} else if (r2 != -ENAMETOOLONG)
				abort();
		} else if (r2 != r && !(r == -ENAMETOOLONG && r2 == -ENAMETOOLONG))
			abort();
		if (r2 < 0 && memcmp(small, sentinel, cap) != 0)
			abort();
	}
	return 0;
}
