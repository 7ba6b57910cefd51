/* SPDX-License-Identifier: MIT */
/* /proc/PID/stat: outputs untouched on failure; on success comm is
 * NUL-terminated, shorter than 64 bytes and a prefix of what lies between
 * the first '(' and the last ')'. */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cgoom/parse.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct cgoom_pid_stat ps, sentinel;
	memset(&sentinel, 0xa5, sizeof(sentinel));
	ps = sentinel;
	int r = cgoom_parse_pid_stat((const char *)data, size, &ps);
	if (r < 0) {
		if (r != -EBADMSG && r != -ERANGE)
			abort();
		if (memcmp(&ps, &sentinel, sizeof(ps)) != 0)
			abort();
		return 0;
	}
	if (r != 0)
		abort();
	const char *nul = memchr(ps.comm, '\0', sizeof(ps.comm));
	if (!nul || strlen(ps.comm) >= 64)
		abort();
	if (ps.pid < 1 || ps.pid > 4194304 || ps.ppid < 0 || ps.ppid > 4194304)
		abort();
	if (!((ps.state >= 'A' && ps.state <= 'Z') || (ps.state >= 'a' && ps.state <= 'z')))
		abort();
	const uint8_t *open = memchr(data, '(', size), *close = data + size;
	while (close > data && close[-1] != ')')
		close--;
	if (!open || close <= open + 1)
		abort();
	size_t inner = (size_t)(close - 1 - (open + 1)), cl = strlen(ps.comm);
	if (cl != (inner < 63 ? inner : 63) || memcmp(ps.comm, open + 1, cl) != 0)
		abort();
	return 0;
}
