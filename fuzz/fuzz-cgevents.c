/* SPDX-License-Identifier: MIT */
/* cgroup.events and cgroup.stat: the output untouched on failure, and
 * only the errors the parsers document. */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cgoom/parse.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint64_t n = 0xa5a5a5a5a5a5a5a5ull;
	int rs = cgoom_parse_cgroup_descendants((const char *)data, size, &n);
	if (rs < 0 && ((rs != -EBADMSG && rs != -ERANGE && rs != -ENOENT) ||
		       n != 0xa5a5a5a5a5a5a5a5ull))
		abort();
	unsigned char sentinel = 0xa5, v = sentinel;
	bool populated;
	memcpy(&populated, &v, 1);
	int r = cgoom_parse_cgroup_events((const char *)data, size, &populated);
	memcpy(&v, &populated, 1);
	if (r < 0) {
		if (r != -EBADMSG && r != -ERANGE && r != -ENOENT)
			abort();
		if (v != sentinel)
			abort();
		return 0;
	}
	if (r != 0 || (v != 0 && v != 1))
		abort();
	return 0;
}
