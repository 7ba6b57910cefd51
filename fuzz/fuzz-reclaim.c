/* SPDX-License-Identifier: MIT */
/* /proc/vmstat and memory.stat reclaim counters: outputs untouched on
 * failure; on success an absent key reads as 0 and the sums saturate.
 * /proc/vmstat's oom_kill from the head of the file (what the quiet
 * system reads once a second): known errors only, output untouched on
 * them, and where it answers, the whole file's value. */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cgoom/parse.h"
#include "cgoom/trigger.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void oom_kill_head(const char *data, size_t size)
{
	uint64_t w = 0xa5a5a5a5a5a5a5a5ULL, h = 0x5a5a5a5a5a5a5a5aULL;
	int rw = cgoom_parse_vmstat_oom_kill(data, size, &w);
	if (rw < 0 && ((rw != -ENOENT && rw != -EBADMSG && rw != -ERANGE) ||
		       w != 0xa5a5a5a5a5a5a5a5ULL))
		abort();
	int rh = cgoom_parse_vmstat_oom_kill_head(data, size, &h);
	if (rh < 0 && ((rh != -EAGAIN && rh != -EBADMSG && rh != -ERANGE) ||
		       h != 0x5a5a5a5a5a5a5a5aULL))
		abort();
	/* the head answers as the whole file, or sends to it */
	if (rh == 0 && (rw != 0 || h != w))
		abort();
	/* the head size learned: within the input, and that much of it
	 * answers as the whole */
	size_t hl = cgoom_vmstat_oom_kill_head_len(data, size);
	if (hl > size)
		abort();
	if (hl) {
		uint64_t h2 = 0;
		int r2 = cgoom_parse_vmstat_oom_kill_head(data, hl, &h2);
		if (r2 != rw || (rw == 0 && h2 != w))
			abort();
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	oom_kill_head((const char *)data, size);
	struct cgoom_reclaim r, sentinel;
	memset(&sentinel, 0xa5, sizeof(sentinel));
	r = sentinel;
	int e = cgoom_parse_reclaim((const char *)data, size, &r);
	if (e < 0) {
		if (e != -EBADMSG && e != -ERANGE)
			abort();
		if (memcmp(&r, &sentinel, sizeof(r)) != 0)
			abort();
		return 0;
	}
	if (e != 0 || (r.present & ~((1u << 23) - 1)))
		abort();
	if (!(r.present & CGOOM_RECLAIM_PSWPIN) && r.pswpin != 0)
		abort();
	if (cgoom_reclaim_scanned(&r) < r.pgscan_direct || cgoom_reclaim_stolen(&r) < r.pgsteal_kswapd)
		abort();
	if (cgoom_reclaim_allocstalls(&r) < r.allocstall_normal)
		abort();
	uint64_t ref = cgoom_reclaim_refaults(&r);
	if ((r.present & CGOOM_RECLAIM_REFAULT_ANON) && ref < r.refault_anon)
		abort();
	(void)cgoom_reclaim_activations(&r);
	return 0;
}
