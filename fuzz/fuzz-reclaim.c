/* SPDX-License-Identifier: MIT */
/* /proc/vmstat and memory.stat reclaim counters: outputs untouched on
 * failure; on success an absent key reads as 0 and the sums saturate. */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cgoom/parse.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
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
