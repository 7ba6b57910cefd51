/* SPDX-License-Identifier: MIT */
/* /proc/vmstat pgalloc_* sum: output untouched on failure; on success
 * the sum of every pgalloc_ value, each of which the input holds. The
 * head parse (one read's worth): known errors only, output untouched. */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cgoom/budget.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint64_t v = 0xa5a5a5a5a5a5a5a5ULL;
	/* the head parse: known errors only, the output untouched on them;
	 * a sum only where pgalloc_ lines are */
	uint64_t h = 0x5a5a5a5a5a5a5a5aULL;
	int rh = cgoom_parse_vmstat_pgalloc_head((const char *)data, size, &h);
	if (rh < 0 && ((rh != -EAGAIN && rh != -ENOENT && rh != -EBADMSG && rh != -EOVERFLOW) ||
		       h != 0x5a5a5a5a5a5a5a5aULL))
		abort();
	if (rh == 0 && !memmem(data, size, "pgalloc_", 8))
		abort();
	int r = cgoom_parse_vmstat_pgalloc((const char *)data, size, &v);
	if (r < 0) {
		if ((r != -ENOENT && r != -EBADMSG && r != -EOVERFLOW) || v != 0xa5a5a5a5a5a5a5a5ULL)
			abort();
		return 0;
	}
	if (r != 0 || !memmem(data, size, "pgalloc_", 8))
		abort();
	/* where the input holds its pgalloc_ lines in one block, the head
	 * parse (when it answers) says the same sum: never an under-count */
	if (rh == 0 && cgoom_vmstat_pgalloc_one_block((const char *)data, size) && h != v)
		abort();
	/* the head size the tick learns: within the input, and the head
	 * parse of that much answers as the head parse of it all */
	size_t hl = cgoom_vmstat_pgalloc_head_len((const char *)data, size);
	if (hl > size)
		abort();
	if (hl) {
		uint64_t h2 = 0;
		if (cgoom_parse_vmstat_pgalloc_head((const char *)data, hl, &h2) != rh ||
		    (rh == 0 && h2 != h))
			abort();
	}
	/* deterministic */
	uint64_t w = 0;
	if (cgoom_parse_vmstat_pgalloc((const char *)data, size, &w) != 0 || w != v)
		abort();
	return 0;
}
