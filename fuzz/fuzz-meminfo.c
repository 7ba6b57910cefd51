/* SPDX-License-Identifier: MIT */
/* /proc/meminfo: outputs untouched on failure; on success MemTotal is
 * present, figures are whole kB (or saturated) and absent keys read 0.
 * The one-pass read gives what the token parse of every line gives
 * (cgoom_parse_meminfo_lines). The daemon's read (cgoom_parse_meminfo_again),
 * its layout from the input's head (its first byte says how long),
 * then on the rest: where the whole parse reads the rest, the same
 * figures (or fewer: keys the layout had not seen); where it refuses,
 * the same error, or figures read at the layout. One line read by its
 * key (cgoom_parse_meminfo_key): check_key. */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cgoom/parse.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_figures(const struct cgoom_meminfo *mi)
{
	if (!(mi->present & CGOOM_MEMINFO_MEM_TOTAL) || (mi->present & ~0x7ffu))
		abort();
	const uint64_t *v = &mi->mem_total;
	for (unsigned i = 0; i < CGOOM_MEMINFO_N_KEYS; i++) {
		if (!(mi->present & (1u << i)) && v[i] != 0)
			abort();
		if (v[i] % 1024 != 0 && v[i] != UINT64_MAX)
			abort();
	}
}

static void check_again(const uint8_t *data, size_t size)
{
	if (size == 0)
		return;
	size_t head = data[0] % size;
	const char *a = (const char *)data + 1, *b = a + head;
	size_t na = head, nb = size - 1 - head;
	struct cgoom_meminfo_layout lay = { 0 };
	struct cgoom_meminfo mi, whole, sentinel;
	memset(&sentinel, 0xa5, sizeof(sentinel));
	(void)cgoom_parse_meminfo_again(a, na, &lay, CGOOM_MEMINFO_ALL, &mi);
	mi = sentinel;
	int rw = cgoom_parse_meminfo(b, nb, &whole);
	int ra = cgoom_parse_meminfo_again(b, nb, &lay, CGOOM_MEMINFO_ALL, &mi);
	if (ra < 0) {
		if (ra != rw || memcmp(&mi, &sentinel, sizeof(mi)) != 0 || lay.len != 0)
			abort();
		return;
	}
	check_figures(&mi);
	if (rw == 0) {
		const uint64_t *va = &mi.mem_total, *vw = &whole.mem_total;
		if ((mi.present & whole.present) != mi.present)
			abort();
		for (unsigned i = 0; i < CGOOM_MEMINFO_N_KEYS; i++)
			if ((mi.present & (1u << i)) && va[i] != vw[i])
				abort();
	} else if (lay.since_whole == 0) {
		abort(); /* a whole parse that read what the whole parse refuses */
	}
}

/* One line by its key (cgoom_parse_meminfo_key): whole kB or saturated,
 * untouched on failure; where the whole parse read the file, MemTotal
 * read alone is the same figure. */
static void check_key(const uint8_t *data, size_t size, const struct cgoom_meminfo *whole, int rw)
{
	static const char *const keys[] = { "Zswap", "Zswapped", "MemTotal" };
	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
		uint64_t v = 77;
		int r = cgoom_parse_meminfo_key((const char *)data, size, keys[i], &v);
		if (r < 0 && (v != 77 || (r != -EBADMSG && r != -ERANGE && r != -ENOENT)))
			abort();
		if (r == 0 && v % 1024 != 0 && v != UINT64_MAX)
			abort();
		if (i == 2 && rw == 0 && (r != 0 || v != whole->mem_total))
			abort();
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct cgoom_meminfo mi, ref, sentinel;
	memset(&sentinel, 0xa5, sizeof(sentinel));
	mi = ref = sentinel;
	int r = cgoom_parse_meminfo((const char *)data, size, &mi);
	if (cgoom_parse_meminfo_lines((const char *)data, size, false, &ref) != r ||
	    memcmp(&mi, &ref, sizeof(mi)) != 0)
		abort();
	check_again(data, size);
	check_key(data, size, &mi, r);
	if (r < 0) {
		if (r != -EBADMSG && r != -ERANGE && r != -ENOENT)
			abort();
		if (memcmp(&mi, &sentinel, sizeof(mi)) != 0)
			abort();
		return 0;
	}
	if (r != 0)
		abort();
	check_figures(&mi);
	return 0;
}
