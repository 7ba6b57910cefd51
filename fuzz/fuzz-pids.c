/* SPDX-License-Identifier: MIT */
/* cgroup.procs: the count does not depend on cap, only min(count, cap)
 * entries are written (none on failure), and every PID is in range. */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cgoom/parse.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define CAP 1024

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static int all[CAP + 1], part[CAP + 1], sentinel[CAP + 1];
	memset(sentinel, 0xa5, sizeof(sentinel));
	memcpy(all, sentinel, sizeof(all));
	int n = cgoom_parse_pids((const char *)data, size, all, CAP);
	if (memcmp(&all[CAP], &sentinel[CAP], sizeof(int)) != 0)
		abort();
	if (n < 0) {
		if (n != -EBADMSG && n != -ERANGE)
			abort();
		if (memcmp(all, sentinel, sizeof(all)) != 0)
			abort();
	}
	if (cgoom_parse_pids((const char *)data, size, NULL, 0) != n)
		abort();
	size_t stored = n > 0 ? ((size_t)n < CAP ? (size_t)n : CAP) : 0;
	for (size_t i = 0; i < stored; i++)
		if (all[i] < 1 || all[i] > 4194304)
			abort();
	if (n >= 0 && memcmp(&all[stored], &sentinel[stored], (CAP - stored) * sizeof(int)) != 0)
		abort();
	if (n <= 0)
		return 0;
	size_t cap = (size_t)n / 2; /* a partial buffer, never past part[] */
	if (cap > CAP)
		cap = CAP;
	memcpy(part, sentinel, sizeof(part));
	if (cgoom_parse_pids((const char *)data, size, cap ? part : NULL, cap) != n)
		abort();
	if (cap > stored)
		cap = stored;
	if (memcmp(part, all, cap * sizeof(int)) != 0 ||
	    memcmp(&part[cap], &sentinel[cap], sizeof(int)) != 0)
		abort();
	return 0;
}
