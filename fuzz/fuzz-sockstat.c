/* SPDX-License-Identifier: MIT */
/* /proc/net/sockstat: outputs untouched on failure. */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cgoom/parse.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct cgoom_sockstat ss, sentinel;
	memset(&sentinel, 0xa5, sizeof(sentinel));
	ss = sentinel;
	int r = cgoom_parse_sockstat((const char *)data, size, &ss);
	if (r < 0) {
		if (r != -EBADMSG && r != -ERANGE)
			abort();
		if (memcmp(&ss, &sentinel, sizeof(ss)) != 0)
			abort();
		return 0;
	}
	if (r != 0)
		abort();
	/* without a TCP: line the TCP figure is 0 */
	if (ss.tcp_mem_pages != 0 && !memmem(data, size, "TCP:", 4))
		abort();
	if (ss.udp_mem_pages != 0 && !memmem(data, size, "UDP:", 4))
		abort();
	return 0;
}
