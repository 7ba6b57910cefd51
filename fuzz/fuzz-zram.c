/* SPDX-License-Identifier: MIT */
/* zram's mm_stat: outputs untouched on failure; at least four numbers on
 * success. */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cgoom/parse.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct cgoom_zram_mm m, sentinel;
	memset(&sentinel, 0xa5, sizeof(sentinel));
	m = sentinel;
	int r = cgoom_parse_zram_mm_stat((const char *)data, size, &m);
	if (r < 0) {
		if (r != -EBADMSG && r != -ERANGE)
			abort();
		if (memcmp(&m, &sentinel, sizeof(m)) != 0)
			abort();
		return 0;
	}
	if (r != 0 || m.n_fields < 4)
		abort();
	if (m.n_fields < 8 && m.huge_pages != 0)
		abort();
	return 0;
}
