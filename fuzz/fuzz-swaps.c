/* SPDX-License-Identifier: MIT */
/* /proc/swaps: the array untouched on failure; on success the count of
 * areas, names NUL-terminated, zram indexes only for /dev/zramN. */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cgoom/parse.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct cgoom_swap_area a[4], sentinel[4];
	memset(sentinel, 0xa5, sizeof(sentinel));
	memcpy(a, sentinel, sizeof(a));
	int r = cgoom_parse_swaps((const char *)data, size, a, 4);
	if (r < 0) {
		if (r != -EBADMSG && r != -ERANGE)
			abort();
		if (memcmp(a, sentinel, sizeof(a)) != 0)
			abort();
		return 0;
	}
	for (int i = 0; i < r && i < 4; i++) {
		if (memchr(a[i].name, '\0', sizeof(a[i].name)) == NULL)
			abort();
		if (a[i].zram >= 0 && strncmp(a[i].name, "/dev/zram", 9) != 0)
			abort();
	}
	for (int i = r; i < 4; i++)
		if (memcmp(&a[i], &sentinel[i], sizeof(a[i])) != 0)
			abort();
	return 0;
}
