/* SPDX-License-Identifier: MIT */
/* memory.stat for the daemon's unreclaimable sum (cgoom_parse_unreclaim,
 * through cgoom_parse_memstat_keys, the reader's parser):
 * outputs untouched on failure; on success the sum never wraps, shrinks
 * as the swap room grows, and never counts below the non-anon parts.
 * The last 16 bytes also drive the growth-rate estimate and the sample
 * delay, which must stay within their bounds. */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cgoom/trigger.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static uint64_t take(const uint8_t *p)
{
	uint64_t v;
	memcpy(&v, p, sizeof(v));
	return v;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct cgoom_unreclaim u, sentinel;
	memset(&sentinel, 0xa5, sizeof(sentinel));
	u = sentinel;
	int r = cgoom_parse_unreclaim((const char *)data, size, &u);
	if (r < 0) {
		if (r != -EBADMSG && r != -ERANGE && r != -ENOENT)
			abort();
		if (memcmp(&u, &sentinel, sizeof(u)) != 0)
			abort();
	} else {
		uint64_t all = cgoom_unreclaimable(&u, 0);
		uint64_t some = cgoom_unreclaimable(&u, u.anon_lru / 2);
		uint64_t none = cgoom_unreclaimable(&u, UINT64_MAX);
		if (some > all || none > some)
			abort();
		if (all < u.anon_lru || none < u.sock || none < u.unevictable)
			abort();
		/* computed from the one memory.stat parser's result */
		struct cgoom_memstat m;
		struct cgoom_unreclaim v;
		if (cgoom_parse_memstat_keys((const char *)data, size, &m) != 0 ||
		    cgoom_unreclaim_from_memstat(&m, &v) != 0 || memcmp(&u, &v, sizeof(u)))
			abort();
	}
	if (size >= 16) {
		uint64_t a = take(data + size - 16), b = take(data + size - 8);
		struct cgoom_rate rt = { 0 };
		cgoom_rate_update(&rt, a, b >> 20);
		cgoom_rate_update(&rt, b, (b >> 20) + (a & 0xffff));
		cgoom_rate_update(&rt, a ^ b, (b >> 20) + (a & 0xffffff));
		uint64_t t = cgoom_next_sample_us(a, rt.bytes_per_s, b);
		if (t < CGOOM_SAMPLE_FLOOR_US || t > CGOOM_POLL_MAX_US)
			abort();
	}
	return 0;
}
