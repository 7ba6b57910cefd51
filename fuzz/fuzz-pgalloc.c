/* SPDX-License-Identifier: MIT */
/* /proc/vmstat pgalloc_* sum: output untouched on failure; on success
 * the sum of every pgalloc_ value, each of which the input holds. */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cgoom/budget.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint64_t v = 0xa5a5a5a5a5a5a5a5ULL;
	int r = cgoom_parse_vmstat_pgalloc((const char *)data, size, &v);
	if (r < 0) {
		if ((r != -ENOENT && r != -EBADMSG && r != -EOVERFLOW) || v != 0xa5a5a5a5a5a5a5a5ULL)
			abort();
		return 0;
	}
	if (r != 0 || !memmem(data, size, "pgalloc_", 8))
		abort();
	/* deterministic */
	uint64_t w = 0;
	if (cgoom_parse_vmstat_pgalloc((const char *)data, size, &w) != 0 || w != v)
		abort();
	return 0;
}
