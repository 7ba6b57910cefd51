/* SPDX-License-Identifier: MIT */
/* memory.stat: outputs untouched on failure; on success every footprint
 * key is present and an absent key reads as 0. */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cgoom/parse.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct cgoom_memstat m, sentinel;
	memset(&sentinel, 0xa5, sizeof(sentinel));
	m = sentinel;
	int r = cgoom_parse_memstat((const char *)data, size, &m);
	if (r < 0) {
		if (r != -EBADMSG && r != -ERANGE && r != -ENOENT)
			abort();
		if (memcmp(&m, &sentinel, sizeof(m)) != 0)
			abort();
		return 0;
	}
	if (r != 0)
		abort();
	if ((m.present & CGOOM_MEMSTAT_FOOTPRINT_KEYS) != CGOOM_MEMSTAT_FOOTPRINT_KEYS)
		abort();
	if (m.present & ~0x7ffu)
		abort();
	if ((!(m.present & CGOOM_MEMSTAT_ANON) && m.anon) ||
	    (!(m.present & CGOOM_MEMSTAT_FILE) && m.file) ||
	    (!(m.present & CGOOM_MEMSTAT_UNEVICTABLE) && m.unevictable) ||
	    (!(m.present & CGOOM_MEMSTAT_SHMEM) && m.shmem) ||
	    (!(m.present & CGOOM_MEMSTAT_PAGETABLES) && m.pagetables) ||
	    (!(m.present & CGOOM_MEMSTAT_FILE_MAPPED) && m.file_mapped))
		abort();
	/* the one parser: requiring no key gives the same fields */
	struct cgoom_memstat k;
	if (cgoom_parse_memstat_keys((const char *)data, size, &k) != 0 || memcmp(&m, &k, sizeof(m)))
		abort();
	/* deterministic */
	struct cgoom_memstat m2;
	if (cgoom_parse_memstat((const char *)data, size, &m2) != 0 || memcmp(&m, &m2, sizeof(m)))
		abort();
	return 0;
}
