/* SPDX-License-Identifier: MIT */
/*
 * cgroup v2 files: memory.stat, memory.events, cgroup.events and the PSI files
 * (memory.pressure and /proc/pressure/ share one format).
 */
#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "cgoom/parse.h"
#include "lib/parse-internal.h"

/* The kernel's line, "key value\n": one ' ' after a key without blanks,
 * 1-19 digits (no overflow), read with memchr: true with the key, the
 * value and *pos past the line; false for anything else, which the token
 * parse reads. Where this reads a line, the token parse reads it with
 * the same key and value (tests/unit/test-parse-flat compares them). */
static bool flat_line_fast(const char **pos, const char *end, const char **ret_key,
			   size_t *ret_key_len, uint64_t *ret_v)
{
	const char *line = *pos;
	const char *nl = memchr(line, '\n', (size_t)(end - line));
	if (!nl)
		return false;
	const char *sp = memchr(line, ' ', (size_t)(nl - line));
	if (!sp || sp == line || memchr(line, '\t', (size_t)(sp - line)))
		return false;
	const char *p = sp + 1, *d = p;
	uint64_t v = 0;
	while (p < nl && parse_is_digit(*p))
		v = v * 10 + (unsigned)(*p++ - '0'); /* wraps past 19 digits: refused below */
	if (p != nl || p == d || p - d > 19)
		return false;
	*ret_key = line;
	*ret_key_len = (size_t)(sp - line);
	*ret_v = v;
	*pos = nl + 1;
	return true;
}

/* Which of keys the line's key is. lens and firsts have a bit for each
 * key's length and first byte (its low 5 bits), so most lines of a file
 * of many keys are passed over at two tests. */
static const struct flat_key *flat_find(const struct flat_key *keys, size_t n_keys, uint64_t lens,
					uint32_t firsts, const char *key, size_t key_len)
{
	if ((key_len < 64 && !((lens >> key_len) & 1)) || !((firsts >> (key[0] & 31)) & 1))
		return NULL;
	for (size_t i = 0; i < n_keys; i++)
		if (keys[i].len == key_len && keys[i].name[0] == key[0] &&
		    memcmp(key, keys[i].name, key_len) == 0)
			return &keys[i];
	return NULL;
}

int parse_flat_keyed_lines(const char *buf, size_t len, const struct flat_key *keys, size_t n_keys,
			   void *out, unsigned *ret_present, bool fast)
{
	const char *end = parse_end(buf, len), *pos = buf, *line;
	size_t n;
	unsigned present = 0;
	uint64_t lens = 0;
	uint32_t firsts = 0;
	for (size_t i = 0; i < n_keys; i++) {
		if (keys[i].len < 64) /* a longer key is never filtered by length */
			lens |= 1ull << keys[i].len;
		firsts |= 1u << (keys[i].name[0] & 31);
	}

	while (pos && pos < end) {
		const char *key;
		size_t key_len;
		uint64_t v;
		if (!fast || !flat_line_fast(&pos, end, &key, &key_len, &v)) {
			if (!parse_next_line(&pos, end, &line, &n))
				break;
			const char *p = line, *lend = line + n, *val, *extra;
			size_t val_len, extra_len;
			if (!parse_next_token(&p, lend, &key, &key_len) ||
			    !parse_next_token(&p, lend, &val, &val_len) ||
			    parse_next_token(&p, lend, &extra, &extra_len))
				return -EBADMSG;
			int r = parse_digits_u64(val, val_len, &v);
			if (r < 0)
				return r;
		}
		const struct flat_key *k = NULL;
		if (fast) {
			k = flat_find(keys, n_keys, lens, firsts, key, key_len);
		} else { /* the reference: every key of the table, by its string */
			for (size_t i = 0; i < n_keys && !k; i++)
				if (parse_span_eq(key, key_len, keys[i].name))
					k = &keys[i];
		}
		if (!k)
			continue;
		if (present & k->bit)
			return -EBADMSG;
		present |= k->bit;
		memcpy((char *)out + k->offset, &v, sizeof(v));
	}
	*ret_present = present;
	return 0;
}

int parse_flat_keyed(const char *buf, size_t len, const struct flat_key *keys, size_t n_keys,
		     void *out, unsigned *ret_present)
{
	return parse_flat_keyed_lines(buf, len, keys, n_keys, out, ret_present, true);
}

#define MEMSTAT_KEY(name, bit) FLAT_KEY(#name, bit, offsetof(struct cgoom_memstat, name))
static const struct flat_key memstat_keys[] = {
	MEMSTAT_KEY(anon, CGOOM_MEMSTAT_ANON),
	MEMSTAT_KEY(file, CGOOM_MEMSTAT_FILE),
	MEMSTAT_KEY(kernel_stack, CGOOM_MEMSTAT_KERNEL_STACK),
	MEMSTAT_KEY(sock, CGOOM_MEMSTAT_SOCK),
	MEMSTAT_KEY(slab_unreclaimable, CGOOM_MEMSTAT_SLAB_UNRECLAIMABLE),
	MEMSTAT_KEY(active_anon, CGOOM_MEMSTAT_ACTIVE_ANON),
	MEMSTAT_KEY(inactive_anon, CGOOM_MEMSTAT_INACTIVE_ANON),
	MEMSTAT_KEY(unevictable, CGOOM_MEMSTAT_UNEVICTABLE),
	MEMSTAT_KEY(shmem, CGOOM_MEMSTAT_SHMEM),
	MEMSTAT_KEY(pagetables, CGOOM_MEMSTAT_PAGETABLES),
	MEMSTAT_KEY(file_mapped, CGOOM_MEMSTAT_FILE_MAPPED),
};

int cgoom_parse_memstat_keys(const char *buf, size_t len, struct cgoom_memstat *ret)
{
	if (!buf && len)
		return -EINVAL;
	struct cgoom_memstat m = { 0 };
	int r = parse_flat_keyed(buf, len, memstat_keys,
				 sizeof(memstat_keys) / sizeof(memstat_keys[0]), &m, &m.present);
	if (r < 0)
		return r;
	*ret = m;
	return 0;
}

int cgoom_parse_memstat(const char *buf, size_t len, struct cgoom_memstat *ret)
{
	struct cgoom_memstat m;
	int r = cgoom_parse_memstat_keys(buf, len, &m);
	if (r < 0)
		return r;
	if ((m.present & CGOOM_MEMSTAT_FOOTPRINT_KEYS) != CGOOM_MEMSTAT_FOOTPRINT_KEYS)
		return -ENOENT;
	*ret = m;
	return 0;
}

#define MEMEVENTS_KEY(name, bit) FLAT_KEY(#name, bit, offsetof(struct cgoom_memevents, name))
static const struct flat_key memevents_keys[] = {
	MEMEVENTS_KEY(low, CGOOM_MEMEVENTS_LOW),
	MEMEVENTS_KEY(high, CGOOM_MEMEVENTS_HIGH),
	MEMEVENTS_KEY(max, CGOOM_MEMEVENTS_MAX),
	MEMEVENTS_KEY(oom, CGOOM_MEMEVENTS_OOM),
	MEMEVENTS_KEY(oom_kill, CGOOM_MEMEVENTS_OOM_KILL),
	MEMEVENTS_KEY(oom_group_kill, CGOOM_MEMEVENTS_OOM_GROUP_KILL),
};

int cgoom_parse_memevents(const char *buf, size_t len, struct cgoom_memevents *ret)
{
	if (!buf && len)
		return -EINVAL;
	struct cgoom_memevents e = { 0 };
	int r = parse_flat_keyed(buf, len, memevents_keys,
				 sizeof(memevents_keys) / sizeof(memevents_keys[0]), &e, &e.present);
	if (r < 0)
		return r;
	*ret = e;
	return 0;
}

/* The value of the one key of a flat keyed file the caller needs;
 * -ENOENT without it. */
static int parse_one_key(const char *buf, size_t len, const struct flat_key *key, uint64_t *ret)
{
	if (!buf && len)
		return -EINVAL;
	uint64_t v = 0;
	unsigned present;
	int r = parse_flat_keyed(buf, len, key, 1, &v, &present);
	if (r < 0)
		return r;
	if (!(present & key->bit))
		return -ENOENT;
	*ret = v;
	return 0;
}

/* cgroup.events: "populated 0|1" (any process in the subtree), "frozen
 * 0|1" (not needed). */
static const struct flat_key cgevents_key = FLAT_KEY("populated", 1u, 0);

int cgoom_parse_cgroup_events(const char *buf, size_t len, bool *ret_populated)
{
	uint64_t populated;
	int r = parse_one_key(buf, len, &cgevents_key, &populated);
	if (r < 0)
		return r;
	if (populated > 1)
		return -EBADMSG;
	*ret_populated = populated == 1;
	return 0;
}

/* cgroup.stat: "nr_descendants N" (nr_dying_descendants not needed). */
static const struct flat_key cgstat_key = FLAT_KEY("nr_descendants", 1u, 0);

int cgoom_parse_cgroup_descendants(const char *buf, size_t len, uint64_t *ret)
{
	return parse_one_key(buf, len, &cgstat_key, ret);
}

/* "12.34" -> 1234: the kernel prints "%lu.%02lu"; one fraction digit is
 * accepted too ("1.5" -> 150), nothing finer. */
static int parse_psi_avg(const char *s, size_t n, uint32_t *ret)
{
	const char *dot = memchr(s, '.', n);
	size_t int_len = dot ? (size_t)(dot - s) : n;
	uint64_t ip, fp = 0;
	int r = parse_digits_u64(s, int_len, &ip);
	if (r < 0)
		return r;
	if (dot) {
		size_t frac_len = n - int_len - 1;
		if (frac_len < 1 || frac_len > 2)
			return -EBADMSG;
		r = parse_digits_u64(dot + 1, frac_len, &fp);
		if (r < 0)
			return r;
		if (frac_len == 1)
			fp *= 10;
	}
	if (ip > (UINT32_MAX - fp) / 100)
		return -ERANGE;
	*ret = (uint32_t)(ip * 100 + fp);
	return 0;
}

/* "avg10=0.12 avg60=0.00 avg300=0.00 total=12345": all four fields, each
 * once, nothing else. */
static int parse_psi_fields(const char *p, const char *end, struct cgoom_psi_line *ret)
{
	struct cgoom_psi_line l = { .present = true };
	unsigned seen = 0;
	const char *tok;
	size_t n;

	while (parse_next_token(&p, end, &tok, &n)) {
		const char *eq = memchr(tok, '=', n);
		if (!eq)
			return -EBADMSG;
		size_t key_len = (size_t)(eq - tok), val_len = n - key_len - 1;
		const char *val = eq + 1;
		unsigned bit;
		int r;
		if (parse_span_eq(tok, key_len, "avg10")) {
			bit = 1;
			r = parse_psi_avg(val, val_len, &l.avg10);
		} else if (parse_span_eq(tok, key_len, "avg60")) {
			bit = 2;
			r = parse_psi_avg(val, val_len, &l.avg60);
		} else if (parse_span_eq(tok, key_len, "avg300")) {
			bit = 4;
			r = parse_psi_avg(val, val_len, &l.avg300);
		} else if (parse_span_eq(tok, key_len, "total")) {
			bit = 8;
			r = parse_digits_u64(val, val_len, &l.total_us);
		} else
			return -EBADMSG;
		if (r < 0)
			return r;
		if (seen & bit)
			return -EBADMSG;
		seen |= bit;
	}
	if (seen != 15)
		return -EBADMSG;
	*ret = l;
	return 0;
}

int cgoom_parse_pressure(const char *buf, size_t len, struct cgoom_pressure *ret)
{
	if (!buf && len)
		return -EINVAL;
	struct cgoom_pressure pr = { 0 };
	const char *end = parse_end(buf, len), *pos = buf, *line;
	size_t n;

	while (parse_next_line(&pos, end, &line, &n)) {
		const char *p = line, *lend = line + n, *kind;
		size_t kind_len;
		struct cgoom_psi_line *dst;
		if (!parse_next_token(&p, lend, &kind, &kind_len))
			return -EBADMSG;
		if (parse_span_eq(kind, kind_len, "some"))
			dst = &pr.some;
		else if (parse_span_eq(kind, kind_len, "full"))
			dst = &pr.full;
		else
			return -EBADMSG;
		if (dst->present)
			return -EBADMSG;
		int r = parse_psi_fields(p, lend, dst);
		if (r < 0)
			return r;
	}
	if (!pr.some.present)
		return -ENOENT;
	*ret = pr;
	return 0;
}
