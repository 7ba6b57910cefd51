/* SPDX-License-Identifier: MIT */
/* The "key value" files (memory.stat, memory.events, /proc/vmstat): the
 * kernel's lines read by memchr give what the token parse of every line
 * gives (parse_flat_keyed_lines, fast on and off): the same result, and
 * on success the same keys and figures; the reference finds keys by
 * their strings, the fast read through its filter. The table has keys of
 * one length and first byte, first bytes alike in their low 5 bits, a
 * byte over 0x7f and a key of 64 bytes and more. */
#include <stdlib.h>
#include <string.h>

#include "lib/parse-internal.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

struct out {
	uint64_t v[9];
};

#define K(lit, i) FLAT_KEY(lit, 1u << (i), offsetof(struct out, v[i]))
static const struct flat_key keys[] = {
	K("pgscan_kswapd", 0), K("pgscan_direct", 1), K("anon", 2),
	K("oom_kill", 3),      K("a", 4),             K("workingset_refault_file", 5),
	K("A", 6),             K("\xe9t\xe9", 7),
	K("k_0123456789_0123456789_0123456789_0123456789_0123456789_0123456789", 8),
};
#define N_KEYS (sizeof(keys) / sizeof(keys[0]))

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct out a, b;
	unsigned pa = 0, pb = 0;
	memset(&a, 0, sizeof(a));
	memset(&b, 0, sizeof(b));
	int ra = parse_flat_keyed_lines((const char *)data, size, keys, N_KEYS, &a, &pa, true);
	int rb = parse_flat_keyed_lines((const char *)data, size, keys, N_KEYS, &b, &pb, false);
	if (ra != rb)
		abort();
	if (ra == 0 && (pa != pb || memcmp(&a, &b, sizeof(a)) != 0))
		abort();
	return 0;
}
