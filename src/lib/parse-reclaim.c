/* SPDX-License-Identifier: MIT */
/*
 * What the thrashing triggers read besides memory: the reclaim and
 * refault counters of /proc/vmstat and memory.stat, zram's mm_stat and
 * /proc/swaps.
 */
#include <errno.h>
#include <stddef.h>
#include <string.h>

#include "cgoom/parse.h"
#include "lib/parse-internal.h"

#define RECLAIM_KEY(key, field, bit) FLAT_KEY(key, bit, offsetof(struct cgoom_reclaim, field))
static const struct flat_key reclaim_keys[] = {
	RECLAIM_KEY("workingset_refault_anon", refault_anon, CGOOM_RECLAIM_REFAULT_ANON),
	RECLAIM_KEY("workingset_refault_file", refault_file, CGOOM_RECLAIM_REFAULT_FILE),
	RECLAIM_KEY("workingset_refault", refault, CGOOM_RECLAIM_REFAULT),
	RECLAIM_KEY("workingset_activate_anon", activate_anon, CGOOM_RECLAIM_ACTIVATE_ANON),
	RECLAIM_KEY("workingset_activate_file", activate_file, CGOOM_RECLAIM_ACTIVATE_FILE),
	RECLAIM_KEY("workingset_activate", activate, CGOOM_RECLAIM_ACTIVATE),
	RECLAIM_KEY("workingset_restore_anon", restore_anon, CGOOM_RECLAIM_RESTORE_ANON),
	RECLAIM_KEY("workingset_restore_file", restore_file, CGOOM_RECLAIM_RESTORE_FILE),
	RECLAIM_KEY("pgscan_kswapd", pgscan_kswapd, CGOOM_RECLAIM_PGSCAN_KSWAPD),
	RECLAIM_KEY("pgscan_direct", pgscan_direct, CGOOM_RECLAIM_PGSCAN_DIRECT),
	RECLAIM_KEY("pgscan_khugepaged", pgscan_khugepaged, CGOOM_RECLAIM_PGSCAN_KHUGEPAGED),
	RECLAIM_KEY("pgsteal_kswapd", pgsteal_kswapd, CGOOM_RECLAIM_PGSTEAL_KSWAPD),
	RECLAIM_KEY("pgsteal_direct", pgsteal_direct, CGOOM_RECLAIM_PGSTEAL_DIRECT),
	RECLAIM_KEY("pgsteal_khugepaged", pgsteal_khugepaged, CGOOM_RECLAIM_PGSTEAL_KHUGEPAGED),
	RECLAIM_KEY("pswpin", pswpin, CGOOM_RECLAIM_PSWPIN),
	RECLAIM_KEY("pswpout", pswpout, CGOOM_RECLAIM_PSWPOUT),
	RECLAIM_KEY("pgmajfault", pgmajfault, CGOOM_RECLAIM_PGMAJFAULT),
	RECLAIM_KEY("allocstall_dma", allocstall_dma, CGOOM_RECLAIM_ALLOCSTALL_DMA),
	RECLAIM_KEY("allocstall_dma32", allocstall_dma32, CGOOM_RECLAIM_ALLOCSTALL_DMA32),
	RECLAIM_KEY("allocstall_normal", allocstall_normal, CGOOM_RECLAIM_ALLOCSTALL_NORMAL),
	RECLAIM_KEY("allocstall_movable", allocstall_movable, CGOOM_RECLAIM_ALLOCSTALL_MOVABLE),
	RECLAIM_KEY("allocstall_device", allocstall_device, CGOOM_RECLAIM_ALLOCSTALL_DEVICE),
	RECLAIM_KEY("oom_kill", oom_kill, CGOOM_RECLAIM_OOM_KILL),
};

int cgoom_parse_reclaim(const char *buf, size_t len, struct cgoom_reclaim *ret)
{
	if (!buf && len)
		return -EINVAL;
	struct cgoom_reclaim r = { 0 };
	int e = parse_flat_keyed(buf, len, reclaim_keys, sizeof(reclaim_keys) / sizeof(reclaim_keys[0]),
				 &r, &r.present);
	if (e < 0)
		return e;
	*ret = r;
	return 0;
}

uint64_t cgoom_reclaim_refaults(const struct cgoom_reclaim *r)
{
	if (r->present & (CGOOM_RECLAIM_REFAULT_ANON | CGOOM_RECLAIM_REFAULT_FILE))
		return parse_sat_add(r->refault_anon, r->refault_file);
	return r->refault;
}

uint64_t cgoom_reclaim_activations(const struct cgoom_reclaim *r)
{
	if (r->present & (CGOOM_RECLAIM_ACTIVATE_ANON | CGOOM_RECLAIM_ACTIVATE_FILE))
		return parse_sat_add(r->activate_anon, r->activate_file);
	return r->activate;
}

uint64_t cgoom_reclaim_scanned(const struct cgoom_reclaim *r)
{
	return parse_sat_add(parse_sat_add(r->pgscan_kswapd, r->pgscan_direct), r->pgscan_khugepaged);
}

uint64_t cgoom_reclaim_stolen(const struct cgoom_reclaim *r)
{
	return parse_sat_add(parse_sat_add(r->pgsteal_kswapd, r->pgsteal_direct),
			     r->pgsteal_khugepaged);
}

uint64_t cgoom_reclaim_allocstalls(const struct cgoom_reclaim *r)
{
	uint64_t s = parse_sat_add(r->allocstall_dma, r->allocstall_dma32);
	s = parse_sat_add(s, r->allocstall_normal);
	s = parse_sat_add(s, r->allocstall_movable);
	return parse_sat_add(s, r->allocstall_device);
}

int cgoom_parse_zram_mm_stat(const char *buf, size_t len, struct cgoom_zram_mm *ret)
{
	if (!buf && len)
		return -EINVAL;
	const char *end = parse_end(buf, len), *pos = buf, *line, *p, *tok;
	size_t n, tn;
	if (!parse_next_line(&pos, end, &line, &n))
		return -EBADMSG;
	const char *rest;
	size_t rn;
	if (parse_next_line(&pos, end, &rest, &rn))
		return -EBADMSG; /* one line only */
	uint64_t v[8] = { 0 };
	unsigned k = 0;
	p = line;
	while (parse_next_token(&p, line + n, &tok, &tn)) {
		uint64_t x;
		int r = parse_digits_u64(tok, tn, &x);
		if (r < 0)
			return r;
		if (k < 8)
			v[k] = x;
		k++;
	}
	if (k < 4)
		return -EBADMSG;
	*ret = (struct cgoom_zram_mm){ .orig_data_size = v[0], .compr_data_size = v[1],
				       .mem_used_total = v[2], .mem_limit = v[3],
				       .mem_used_max = v[4], .same_pages = v[5],
				       .pages_compacted = v[6], .huge_pages = v[7],
				       .n_fields = k };
	return 0;
}

/* N of "/dev/zramN", else -1. */
static int zram_index(const char *s, size_t n)
{
	static const char pfx[] = "/dev/zram";
	size_t pl = sizeof(pfx) - 1;
	uint64_t v;
	if (n <= pl || memcmp(s, pfx, pl) != 0 || n - pl > 6)
		return -1;
	if (parse_digits_u64(s + pl, n - pl, &v) < 0)
		return -1;
	return (int)v;
}

/* One area line: NAME TYPE SIZE USED PRIO. */
static int swap_line(const char *line, size_t n, struct cgoom_swap_area *ret)
{
	const char *p = line, *lend = line + n, *t[6];
	size_t tl[6];
	unsigned k = 0;
	while (k < 6 && parse_next_token(&p, lend, &t[k], &tl[k]))
		k++;
	if (k != 5)
		return -EBADMSG;
	uint64_t size, used;
	int64_t prio;
	int r = parse_digits_u64(t[2], tl[2], &size);
	if (r == 0)
		r = parse_digits_u64(t[3], tl[3], &used);
	if (r == 0)
		r = parse_digits_i64(t[4], tl[4], &prio);
	if (r < 0)
		return r;
	if (prio < -32768 || prio > 32767)
		return -ERANGE;
	parse_copy_trunc(ret->name, sizeof(ret->name), t[0], tl[0]);
	ret->is_file = parse_span_eq(t[1], tl[1], "file");
	ret->zram = zram_index(t[0], tl[0]);
	ret->size = parse_kb_to_bytes(size);
	ret->used = parse_kb_to_bytes(used);
	ret->priority = (int)prio;
	return 0;
}

int cgoom_parse_swaps(const char *buf, size_t len, struct cgoom_swap_area *ret, size_t cap)
{
	if ((!buf && len) || (!ret && cap))
		return -EINVAL;
	const char *end = parse_end(buf, len), *pos = buf, *line, *tok;
	size_t n, tn, count = 0;
	if (!parse_next_line(&pos, end, &line, &n))
		return -EBADMSG;
	const char *after_header = pos;
	if (!parse_next_token(&line, line + n, &tok, &tn) || !parse_span_eq(tok, tn, "Filename"))
		return -EBADMSG;
	/* validate everything before writing anything: on failure the
	 * caller's array is untouched */
	while (parse_next_line(&pos, end, &line, &n)) {
		struct cgoom_swap_area a;
		int r = swap_line(line, n, &a);
		if (r < 0)
			return r;
		if (count == (size_t)INT32_MAX)
			return -ERANGE;
		count++;
	}
	pos = after_header;
	for (size_t i = 0; i < cap && parse_next_line(&pos, end, &line, &n); i++)
		(void)swap_line(line, n, &ret[i]);
	return (int)count;
}
