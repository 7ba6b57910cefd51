/* SPDX-License-Identifier: MIT */
/* /proc/stat CPU count: output untouched on failure, at least 1 and no
 * more than the lines there are on success. */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cgoom/parse.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	unsigned n = 0xa5a5a5a5u;
	int r = cgoom_parse_cpu_count((const char *)data, size, &n);
	if (r < 0) {
		if (r != -EBADMSG || n != 0xa5a5a5a5u)
			abort();
		return 0;
	}
	if (r != 0 || n == 0)
		abort();
	size_t lines = 1;
	for (size_t i = 0; i < size; i++)
		lines += data[i] == '\n';
	if (n > lines)
		abort();
	return 0;
}
