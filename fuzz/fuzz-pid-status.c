/* SPDX-License-Identifier: MIT */
/* /proc/PID/status: outputs untouched on failure; on success the name is
 * NUL-terminated, the state a letter, and no mm means no Vm figures. */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cgoom/parse.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct cgoom_pid_status st, sentinel;
	memset(&sentinel, 0xa5, sizeof(sentinel));
	st = sentinel;
	int r = cgoom_parse_pid_status((const char *)data, size, &st);
	if (r < 0) {
		if (r != -EBADMSG && r != -ERANGE && r != -ENOENT)
			abort();
		if (memcmp(&st, &sentinel, sizeof(st)) != 0)
			abort();
		return 0;
	}
	if (r != 0)
		abort();
	if (!memchr(st.name, '\0', sizeof(st.name)))
		abort();
	if (!((st.state >= 'A' && st.state <= 'Z') || (st.state >= 'a' && st.state <= 'z')))
		abort();
	if (st.tgid < 1 || st.tgid > 4194304 || st.pid < 0 || st.pid > 4194304 || st.ppid < 0 ||
	    st.ppid > 4194304)
		abort();
	if (st.kthread < -1 || st.kthread > 1)
		abort();
	if (!st.has_mm && st.vm_rss != 0)
		abort();
	/* the name is a substring of the input */
	size_t nl = strlen(st.name);
	if (nl > 0 && !memmem(data, size, st.name, nl))
		abort();
	return 0;
}
