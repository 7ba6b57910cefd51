/* SPDX-License-Identifier: MIT */
/* memory.events: outputs untouched on failure; on success an absent key
 * reads as 0. */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cgoom/parse.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct cgoom_memevents e, sentinel;
	memset(&sentinel, 0xa5, sizeof(sentinel));
	e = sentinel;
	int r = cgoom_parse_memevents((const char *)data, size, &e);
	if (r < 0) {
		if (r != -EBADMSG && r != -ERANGE)
			abort();
		if (memcmp(&e, &sentinel, sizeof(e)) != 0)
			abort();
		return 0;
	}
	if (r != 0)
		abort();
	if (e.present & ~0x3fu)
		abort();
	const uint64_t v[] = { e.low, e.high, e.max, e.oom, e.oom_kill, e.oom_group_kill };
	for (unsigned i = 0; i < 6; i++)
		if (!(e.present & (1u << i)) && v[i] != 0)
			abort();
	return 0;
}
