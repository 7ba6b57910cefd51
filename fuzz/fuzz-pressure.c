/* SPDX-License-Identifier: MIT */
/* PSI files: outputs untouched on failure; on success "some" is present
 * and an absent "full" is all zero. */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cgoom/parse.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct cgoom_pressure p, sentinel;
	memset(&sentinel, 0xa5, sizeof(sentinel));
	p = sentinel;
	int r = cgoom_parse_pressure((const char *)data, size, &p);
	if (r < 0) {
		if (r != -EBADMSG && r != -ERANGE && r != -ENOENT)
			abort();
		if (memcmp(&p, &sentinel, sizeof(p)) != 0)
			abort();
		return 0;
	}
	if (r != 0 || !p.some.present)
		abort();
	if (!p.full.present &&
	    (p.full.avg10 || p.full.avg60 || p.full.avg300 || p.full.total_us))
		abort();
	return 0;
}
