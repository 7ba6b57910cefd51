/* SPDX-License-Identifier: MIT */
/* /proc/meminfo: outputs untouched on failure; on success MemTotal is
 * present, figures are whole kB (or saturated) and absent keys read 0. */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cgoom/parse.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct cgoom_meminfo mi, sentinel;
	memset(&sentinel, 0xa5, sizeof(sentinel));
	mi = sentinel;
	int r = cgoom_parse_meminfo((const char *)data, size, &mi);
	if (r < 0) {
		if (r != -EBADMSG && r != -ERANGE && r != -ENOENT)
			abort();
		if (memcmp(&mi, &sentinel, sizeof(mi)) != 0)
			abort();
		return 0;
	}
	if (r != 0 || !(mi.present & CGOOM_MEMINFO_MEM_TOTAL) || (mi.present & ~0x7ffu))
		abort();
	const uint64_t v[] = { mi.mem_total,   mi.mem_free,      mi.mem_available,
			       mi.swap_total,  mi.swap_free,     mi.active_anon,
			       mi.inactive_anon, mi.sunreclaim, mi.kernel_stack, mi.shmem,
			       mi.mapped };
	for (unsigned i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
		if (!(mi.present & (1u << i)) && v[i] != 0)
			abort();
		if (v[i] % 1024 != 0 && v[i] != UINT64_MAX)
			abort();
	}
	return 0;
}
