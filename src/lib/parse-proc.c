/* SPDX-License-Identifier: MIT */
/*
 * procfs files: /proc/meminfo, /proc/net/sockstat and the per-process
 * status, stat and cgroup files.
 */
#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "cgoom/parse.h"
#include "lib/parse-internal.h"

/* Splits "Key:value" at the first ':'. false if there is none or the key
 * is empty. */
static bool split_colon(const char *line, size_t n, const char **ret_key, size_t *ret_key_len,
			const char **ret_val, size_t *ret_val_len)
{
	const char *colon = memchr(line, ':', n);
	if (!colon || colon == line)
		return false;
	*ret_key = line;
	*ret_key_len = (size_t)(colon - line);
	*ret_val = colon + 1;
	*ret_val_len = n - *ret_key_len - 1;
	return true;
}

/* "   1234 kB" -> bytes; with need_unit false a bare number is accepted
 * (and returned unscaled, as for HugePages_Total). */
static int parse_kb_value(const char *s, size_t n, bool need_unit, uint64_t *ret)
{
	const char *p = s, *end = s + n, *num, *unit, *extra;
	size_t num_len, unit_len, extra_len;
	uint64_t v;
	/* the kernel's own layout first, "<blanks><digits> kB", read from
	 * the end (every line of /proc/meminfo is checked at each of the
	 * system's samples): what it accepts, the token parse below accepts
	 * too, with the same value or error */
	if (n >= 4 && end[-1] == 'B' && end[-2] == 'k' && end[-3] == ' ') {
		const char *u = end - 3, *d = u;
		while (d > s && parse_is_digit(d[-1]))
			d--;
		const char *b = s;
		while (b < d && parse_is_blank(*b))
			b++;
		if (b == d && d < u) {
			int r = parse_digits_u64(d, (size_t)(u - d), &v);
			if (r < 0)
				return r;
			*ret = parse_kb_to_bytes(v);
			return 0;
		}
	}
	if (!parse_next_token(&p, end, &num, &num_len))
		return -EBADMSG;
	bool has_unit = parse_next_token(&p, end, &unit, &unit_len);
	if (has_unit && (!parse_span_eq(unit, unit_len, "kB") ||
			 parse_next_token(&p, end, &extra, &extra_len)))
		return -EBADMSG;
	if (!has_unit && need_unit)
		return -EBADMSG;
	int r = parse_digits_u64(num, num_len, &v);
	if (r < 0)
		return r;
	*ret = has_unit ? parse_kb_to_bytes(v) : v;
	return 0;
}

struct meminfo_key {
	const char *name;
	size_t len; /* strlen(name): the key's length is compared first */
	unsigned bit;
	size_t offset;
};

#define MEMINFO_KEY(name, field, bit) { name, sizeof(name) - 1, bit, offsetof(struct cgoom_meminfo, field) }
static const struct meminfo_key meminfo_keys[] = {
	MEMINFO_KEY("MemTotal", mem_total, CGOOM_MEMINFO_MEM_TOTAL),
	MEMINFO_KEY("MemFree", mem_free, CGOOM_MEMINFO_MEM_FREE),
	MEMINFO_KEY("MemAvailable", mem_available, CGOOM_MEMINFO_MEM_AVAILABLE),
	MEMINFO_KEY("SwapTotal", swap_total, CGOOM_MEMINFO_SWAP_TOTAL),
	MEMINFO_KEY("SwapFree", swap_free, CGOOM_MEMINFO_SWAP_FREE),
	MEMINFO_KEY("Active(anon)", active_anon, CGOOM_MEMINFO_ACTIVE_ANON),
	MEMINFO_KEY("Inactive(anon)", inactive_anon, CGOOM_MEMINFO_INACTIVE_ANON),
	MEMINFO_KEY("SUnreclaim", sunreclaim, CGOOM_MEMINFO_SUNRECLAIM),
	MEMINFO_KEY("KernelStack", kernel_stack, CGOOM_MEMINFO_KERNEL_STACK),
	MEMINFO_KEY("Shmem", shmem, CGOOM_MEMINFO_SHMEM),
	MEMINFO_KEY("Mapped", mapped, CGOOM_MEMINFO_MAPPED),
};

/* The line's key among meminfo_keys, by a hash of its length and first
 * and last bytes (key_len >= 1): one candidate to compare (-1: no key
 * cgoom uses hashes there). The token parse looks the key up in the
 * table itself, so test-parse-meminfo, reading the kernel's file both
 * ways, holds every slot to it. */
#define MEMINFO_SLOT(key, len) (((len) * 5 + (unsigned char)(key)[0] + (unsigned char)(key)[(len) - 1]) % 16)
static const signed char meminfo_slots[16] = { 4, 0, 7, -1, -1, 1, 5, -1, 6, 9, -1, -1, 3, 8, 2, 10 };

static const struct meminfo_key *meminfo_key_hashed(const char *key, size_t key_len)
{
	int i = meminfo_slots[MEMINFO_SLOT(key, key_len)];
	if (i < 0 || key_len != meminfo_keys[i].len || memcmp(key, meminfo_keys[i].name, key_len) != 0)
		return NULL;
	return &meminfo_keys[i];
}

/* The kernel's figure, "<blanks><digits>" or "<blanks><digits> kB" (at
 * most 19 digits: no overflow), and the line's '\n', at p; a '\n' lies
 * between p and end, so every scan stops at one. The kernel's blank
 * padding goes 8 bytes a compare. The next line, or NULL. */
static const char *meminfo_value(const char *p, const char *end, uint64_t *ret_v, bool *ret_kb)
{
	while (end - p >= 8 && memcmp(p, "        ", 8) == 0)
		p += 8;
	while (parse_is_blank(*p))
		p++;
	const char *d = p;
	uint64_t v = 0;
	while (parse_is_digit(*p))
		v = v * 10 + (unsigned)(*p++ - '0'); /* wraps past 19 digits: refused below */
	if (p == d || p - d > 19)
		return NULL;
	/* each byte read only after the one before it matched: none past the '\n' */
	*ret_kb = p[0] == ' ' && p[1] == 'k' && p[2] == 'B';
	if (*ret_kb)
		p += 3;
	if (*p != '\n')
		return NULL;
	*ret_v = *ret_kb ? parse_kb_to_bytes(v) : v;
	return p + 1;
}

/* The kernel's own line, "Key:" and its figure (meminfo_value), ended by
 * '\n', read in one pass from *pos: true with the key, the value (bytes,
 * or the bare number) and *pos past the line. false for anything else,
 * which the token parse below reads. Every line of /proc/meminfo is
 * checked at each whole parse: the line's end and its ':' are found by
 * memchr. Where this reads a line, the token parse reads it with the
 * same key and value (test-parse-meminfo and fuzz-meminfo compare them). */
static bool meminfo_line_fast(const char **pos, const char *end, const char **ret_key,
			      size_t *ret_key_len, uint64_t *ret_v, bool *ret_kb)
{
	const char *line = *pos;
	const char *nl = memchr(line, '\n', (size_t)(end - line));
	if (!nl)
		return false;
	const char *colon = memchr(line, ':', (size_t)(nl - line));
	if (!colon || colon == line)
		return false;
	const char *next = meminfo_value(colon + 1, end, ret_v, ret_kb);
	if (!next)
		return false;
	*ret_key = line;
	*ret_key_len = (size_t)(colon - line);
	*pos = next; /* nl + 1: the value's scans stop at the first '\n' */
	return true;
}

static const struct meminfo_key *meminfo_key_find(const char *key, size_t key_len)
{
	for (size_t i = 0; i < sizeof(meminfo_keys) / sizeof(meminfo_keys[0]); i++)
		if (key_len == meminfo_keys[i].len && memcmp(key, meminfo_keys[i].name, key_len) == 0)
			return &meminfo_keys[i];
	return NULL;
}

#define MEMINFO_N_KEYS (sizeof(meminfo_keys) / sizeof(meminfo_keys[0]))
_Static_assert(MEMINFO_N_KEYS == CGOOM_MEMINFO_N_KEYS, "struct cgoom_meminfo_layout's off[]");

/* Every line is "Key: NUMBER [kB]"; the keys cgoom uses must carry kB.
 * fast: the kernel's lines read in one pass (meminfo_line_fast); without
 * it every line goes through the token parse, the reference the tests
 * hold the one-pass read to. off (or NULL): where each key read starts
 * its line. */
static int parse_meminfo(const char *buf, size_t len, bool fast, struct cgoom_meminfo *ret,
			 size_t *off)
{
	if (!buf && len)
		return -EINVAL;
	struct cgoom_meminfo mi = { 0 };
	const char *end = parse_end(buf, len), *pos = buf, *line;
	size_t n;

	while (pos && pos < end) {
		const char *key, *val;
		size_t key_len, val_len;
		const struct meminfo_key *k;
		uint64_t v;
		bool kb;
		const char *start = pos;
		bool done = false;
		if (fast && meminfo_line_fast(&pos, end, &key, &key_len, &v, &kb)) {
			k = meminfo_key_hashed(key, key_len);
			done = kb || !k;
			if (!done)
				pos = start; /* a key cgoom uses, without kB: the token parse says why */
		}
		if (!done) {
			if (!parse_next_line(&pos, end, &line, &n))
				break;
			if (!split_colon(line, n, &key, &key_len, &val, &val_len))
				return -EBADMSG;
			k = meminfo_key_find(key, key_len);
			int r = parse_kb_value(val, val_len, k != NULL, &v);
			if (r < 0)
				return r;
		}
		if (!k)
			continue;
		if (mi.present & k->bit)
			return -EBADMSG;
		mi.present |= k->bit;
		memcpy((char *)&mi + k->offset, &v, sizeof(v));
		if (off)
			off[k - meminfo_keys] = (size_t)(start - buf);
	}
	if (!(mi.present & CGOOM_MEMINFO_MEM_TOTAL))
		return -ENOENT;
	*ret = mi;
	return 0;
}

int cgoom_parse_meminfo_lines(const char *buf, size_t len, bool fast, struct cgoom_meminfo *ret)
{
	return parse_meminfo(buf, len, fast, ret, NULL);
}

int cgoom_parse_meminfo(const char *buf, size_t len, struct cgoom_meminfo *ret)
{
	return parse_meminfo(buf, len, true, ret, NULL);
}

int cgoom_parse_meminfo_key(const char *buf, size_t len, const char *key, uint64_t *ret)
{
	if ((!buf && len) || !key || !*key)
		return -EINVAL;
	const char *end = parse_end(buf, len), *pos = buf, *line;
	size_t n, klen = strlen(key);
	bool found = false;
	uint64_t v = 0;
	while (parse_next_line(&pos, end, &line, &n)) {
		const char *k, *val;
		size_t k_len, val_len;
		if (n <= klen || memcmp(line, key, klen) != 0 || line[klen] != ':')
			continue;
		if (found || !split_colon(line, n, &k, &k_len, &val, &val_len))
			return -EBADMSG;
		int r = parse_kb_value(val, val_len, true, &v);
		if (r < 0)
			return r;
		found = true;
	}
	if (!found)
		return -ENOENT;
	*ret = v;
	return 0;
}

/* The wanted lines of the last whole parse, each where it was: its key
 * at the start of a line, its ':', its figure and " kB" up to the line's
 * end, all read in full (meminfo_value), as the whole parse reads that
 * line. false when any is not (a figure gained or lost a digit before
 * it, the file ends without '\n', it is another file): the caller parses
 * it whole. */
static bool meminfo_read_at(const char *buf, size_t len, const struct cgoom_meminfo_layout *lay,
			    unsigned want, struct cgoom_meminfo *ret)
{
	struct cgoom_meminfo mi = { .present = lay->present & want };
	const char *end = buf + len;
	if (end[-1] != '\n')
		return false; /* so every scan below stops at a '\n' */
	for (size_t i = 0; i < MEMINFO_N_KEYS; i++) {
		const struct meminfo_key *k = &meminfo_keys[i];
		if (!(mi.present & k->bit))
			continue;
		const char *p = buf + lay->off[i];
		uint64_t v;
		bool kb;
		/* the key (no ':' or '\n' in it) and its ':': the line's first */
		if ((p > buf && p[-1] != '\n') || (size_t)(end - p) <= k->len ||
		    memcmp(p, k->name, k->len) != 0 || p[k->len] != ':' ||
		    !meminfo_value(p + k->len + 1, end, &v, &kb) || !kb)
			return false;
		memcpy((char *)&mi + k->offset, &v, sizeof(v));
	}
	*ret = mi;
	return true;
}

int cgoom_parse_meminfo_again(const char *buf, size_t len, struct cgoom_meminfo_layout *lay,
			      unsigned want, struct cgoom_meminfo *ret)
{
	if (buf && lay->len == len && len > 0 && lay->since_whole + 1 < CGOOM_MEMINFO_WHOLE_EVERY &&
	    meminfo_read_at(buf, len, lay, want, ret)) {
		lay->since_whole++;
		return 0;
	}
	size_t off[MEMINFO_N_KEYS];
	struct cgoom_meminfo mi;
	int r = parse_meminfo(buf, len, true, &mi, off);
	*lay = (struct cgoom_meminfo_layout){ 0 };
	if (r < 0)
		return r;
	lay->len = len;
	lay->present = mi.present;
	for (size_t i = 0; i < MEMINFO_N_KEYS; i++) {
		const struct meminfo_key *k = &meminfo_keys[i];
		lay->off[i] = mi.present & k->bit ? off[i] : 0;
		if (!(want & k->bit))
			memset((char *)&mi + k->offset, 0, sizeof(uint64_t));
	}
	mi.present &= want;
	*ret = mi;
	return 0;
}

/* "TCP: inuse 3 orphan 0 tw 0 alloc 5 mem 2": name/value pairs, of which
 * "mem" is required, once. */
static int parse_sockstat_mem(const char *p, const char *end, uint64_t *ret)
{
	const char *name, *val;
	size_t name_len, val_len;
	bool found = false;
	uint64_t mem = 0;

	while (parse_next_token(&p, end, &name, &name_len)) {
		if (!parse_next_token(&p, end, &val, &val_len))
			return -EBADMSG;
		uint64_t v;
		int r = parse_digits_u64(val, val_len, &v);
		if (r < 0)
			return r;
		if (parse_span_eq(name, name_len, "mem")) {
			if (found)
				return -EBADMSG;
			found = true;
			mem = v;
		}
	}
	if (!found)
		return -EBADMSG;
	*ret = mem;
	return 0;
}

/* Only the TCP: and UDP: lines are read; the others (sockets:, RAW:,
 * UDPLITE:, FRAG:, ...) have no bearing on the result. */
int cgoom_parse_sockstat(const char *buf, size_t len, struct cgoom_sockstat *ret)
{
	if (!buf && len)
		return -EINVAL;
	struct cgoom_sockstat ss = { 0 };
	bool seen_tcp = false, seen_udp = false;
	const char *end = parse_end(buf, len), *pos = buf, *line;
	size_t n;

	while (parse_next_line(&pos, end, &line, &n)) {
		const char *p = line, *lend = line + n, *kind;
		size_t kind_len;
		uint64_t *dst;
		bool *seen;
		if (!parse_next_token(&p, lend, &kind, &kind_len))
			continue;
		if (parse_span_eq(kind, kind_len, "TCP:")) {
			dst = &ss.tcp_mem_pages;
			seen = &seen_tcp;
		} else if (parse_span_eq(kind, kind_len, "UDP:")) {
			dst = &ss.udp_mem_pages;
			seen = &seen_udp;
		} else
			continue;
		if (*seen)
			return -EBADMSG;
		*seen = true;
		int r = parse_sockstat_mem(p, lend, dst);
		if (r < 0)
			return r;
	}
	*ret = ss;
	return 0;
}

/* A value span trimmed of blanks (status values follow a tab). */
static void trim_blanks(const char **s, size_t *n)
{
	while (*n > 0 && parse_is_blank(**s)) {
		(*s)++;
		(*n)--;
	}
	while (*n > 0 && parse_is_blank((*s)[*n - 1]))
		(*n)--;
}

static bool is_state_letter(char c)
{
	return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z');
}

enum {
	ST_NAME = 1u << 0,
	ST_STATE = 1u << 1,
	ST_TGID = 1u << 2,
	ST_PID = 1u << 3,
	ST_PPID = 1u << 4,
	ST_UID = 1u << 5,
	ST_VMRSS = 1u << 6,
	ST_VMSWAP = 1u << 7,
	ST_VMPTE = 1u << 8,
	ST_KTHREAD = 1u << 9,
	ST_RSSSHMEM = 1u << 10,
};

static const struct {
	const char *name;
	unsigned bit;
} status_keys[] = {
	{ "Name", ST_NAME },   { "State", ST_STATE }, { "Tgid", ST_TGID },
	{ "Pid", ST_PID },     { "PPid", ST_PPID },   { "Uid", ST_UID },
	{ "VmRSS", ST_VMRSS }, { "VmSwap", ST_VMSWAP }, { "VmPTE", ST_VMPTE },
	{ "Kthread", ST_KTHREAD }, { "RssShmem", ST_RSSSHMEM },
};

static int parse_status_field(unsigned bit, const char *val, size_t n,
			      struct cgoom_pid_status *st)
{
	uint64_t v;
	int r;

	switch (bit) {
	case ST_NAME:
		/* "Name:\t%s": the name itself may begin with a space, so
		 * only the tab is separator. The kernel escapes control
		 * bytes; a NUL cannot come from it. */
		if (n > 0 && val[0] == '\t') {
			val++;
			n--;
		}
		if (memchr(val, '\0', n))
			return -EBADMSG;
		parse_copy_trunc(st->name, sizeof(st->name), val, n);
		return 0;
	case ST_STATE:
		/* "S (sleeping)" */
		trim_blanks(&val, &n);
		if (n == 0 || !is_state_letter(val[0]) || (n > 1 && !parse_is_blank(val[1])))
			return -EBADMSG;
		st->state = val[0];
		return 0;
	case ST_TGID:
	case ST_PID:
	case ST_PPID:
		trim_blanks(&val, &n);
		r = parse_digits_range(val, n, bit == ST_PPID ? 0 : 1, PARSE_PID_MAX, &v);
		if (r < 0)
			return r;
		*(bit == ST_TGID ? &st->tgid : bit == ST_PID ? &st->pid : &st->ppid) = (int)v;
		return 0;
	case ST_UID: {
		/* "Uid:\treal\teffective\tsaved\tfs" */
		const char *p = val, *tok;
		size_t tok_len;
		if (!parse_next_token(&p, val + n, &tok, &tok_len))
			return -EBADMSG;
		r = parse_digits_range(tok, tok_len, 0, UINT32_MAX, &v);
		if (r < 0)
			return r;
		st->uid = (uint32_t)v;
		return 0;
	}
	case ST_VMRSS:
	case ST_VMSWAP:
	case ST_VMPTE:
	case ST_RSSSHMEM:
		r = parse_kb_value(val, n, true, &v);
		if (r < 0)
			return r;
		*(bit == ST_VMRSS    ? &st->vm_rss
		  : bit == ST_VMSWAP ? &st->vm_swap
		  : bit == ST_VMPTE  ? &st->vm_pte
				     : &st->rss_shmem) = v;
		return 0;
	case ST_KTHREAD:
		trim_blanks(&val, &n);
		r = parse_digits_range(val, n, 0, 1, &v);
		if (r < 0)
			return r == -ERANGE ? -EBADMSG : r;
		st->kthread = (int)v;
		return 0;
	}
	return -EBADMSG;
}

/* Lines cgoom does not use are skipped unread; the ones it uses are
 * strict, and a repeated one is -EBADMSG. */
int cgoom_parse_pid_status(const char *buf, size_t len, struct cgoom_pid_status *ret)
{
	if (!buf && len)
		return -EINVAL;
	struct cgoom_pid_status st = { .kthread = -1 };
	unsigned seen = 0;
	const char *end = parse_end(buf, len), *pos = buf, *line;
	size_t n;

	while (parse_next_line(&pos, end, &line, &n)) {
		const char *key, *val;
		size_t key_len, val_len;
		if (!split_colon(line, n, &key, &key_len, &val, &val_len))
			continue;
		unsigned bit = 0;
		for (size_t i = 0; i < sizeof(status_keys) / sizeof(status_keys[0]); i++)
			if (parse_span_eq(key, key_len, status_keys[i].name)) {
				bit = status_keys[i].bit;
				break;
			}
		if (!bit)
			continue;
		if (seen & bit)
			return -EBADMSG;
		seen |= bit;
		int r = parse_status_field(bit, val, val_len, &st);
		if (r < 0)
			return r;
	}
	if ((seen & (ST_NAME | ST_STATE | ST_TGID)) != (ST_NAME | ST_STATE | ST_TGID))
		return -ENOENT;
	st.has_mm = (seen & ST_VMRSS) != 0;
	st.has_rss_shmem = (seen & ST_RSSSHMEM) != 0;
	*ret = st;
	return 0;
}

/* An optionally negative decimal field: syntax only. */
static bool is_decimal_field(const char *s, size_t n)
{
	if (n > 0 && s[0] == '-') {
		s++;
		n--;
	}
	if (n == 0)
		return false;
	for (size_t i = 0; i < n; i++)
		if (!parse_is_digit(s[i]))
			return false;
	return true;
}

/*
 * "PID (COMM) S PPID ... \n". COMM is raw (spaces, parentheses and
 * newlines included) and at most 64 bytes, so it runs from the first '('
 * to the last ')'. After it come single-space separated decimal fields;
 * every one is checked, the ones cgoom uses are stored.
 */
int cgoom_parse_pid_stat(const char *buf, size_t len, struct cgoom_pid_stat *ret)
{
	if (!buf && len)
		return -EINVAL;
	if (len == 0)
		return -EBADMSG;
	struct cgoom_pid_stat ps = { 0 };
	const char *end = buf + len;

	const char *open = memchr(buf, '(', len);
	if (!open || open - buf < 2 || open[-1] != ' ')
		return -EBADMSG;
	uint64_t v;
	int r = parse_digits_range(buf, (size_t)(open - 1 - buf), 1, PARSE_PID_MAX, &v);
	if (r < 0)
		return r;
	ps.pid = (int)v;

	const char *close = end;
	while (close > open && close[-1] != ')')
		close--;
	if (close == open)
		return -EBADMSG;
	close--; /* at the last ')' */
	const char *comm = open + 1;
	size_t comm_len = (size_t)(close - comm);
	if (memchr(comm, '\0', comm_len))
		return -EBADMSG;
	parse_copy_trunc(ps.comm, sizeof(ps.comm), comm, comm_len);

	/* fields from 3 on; one trailing newline ends the line */
	const char *p = close + 1;
	if (end > p && end[-1] == '\n')
		end--;
	int field = 2;
	while (p < end) {
		if (*p != ' ')
			return -EBADMSG;
		p++;
		const char *sp = memchr(p, ' ', (size_t)(end - p));
		const char *f = p, *fend = sp ? sp : end;
		size_t flen = (size_t)(fend - f);
		field++;
		p = fend;
		if (field == 3) {
			if (flen != 1 || !is_state_letter(f[0]))
				return -EBADMSG;
			ps.state = f[0];
			continue;
		}
		if (!is_decimal_field(f, flen))
			return -EBADMSG;
		int64_t sv;
		switch (field) {
		case 4:
			r = parse_digits_range(f, flen, 0, PARSE_PID_MAX, &v);
			if (r < 0)
				return f[0] == '-' ? -ERANGE : r;
			ps.ppid = (int)v;
			break;
		case 9:
			r = parse_digits_range(f, flen, 0, UINT32_MAX, &v);
			if (r < 0)
				return f[0] == '-' ? -ERANGE : r;
			ps.flags = (uint32_t)v;
			break;
		case 20:
			/* only a hint (0: unknown), so never a reason to refuse */
			if (parse_digits_range(f, flen, 0, INT_MAX, &v) == 0)
				ps.num_threads = (int)v;
			break;
		case 22:
			r = parse_digits_u64(f, flen, &ps.starttime);
			if (r < 0)
				return f[0] == '-' ? -ERANGE : r;
			break;
		case 24:
			r = parse_digits_i64(f, flen, &sv);
			if (r < 0)
				return r;
			ps.rss_pages = sv;
			break;
		}
	}
	if (field < 24)
		return -EBADMSG;
	*ret = ps;
	return 0;
}

/*
 * "ID:CONTROLLERS:PATH" lines; the v2 one is "0::PATH". PATH is taken
 * byte-exact up to the newline (a dead cgroup's " (deleted)" suffix
 * included), so a name with spaces or colons survives.
 */
int cgoom_parse_pid_cgroup(const char *buf, size_t len, char *ret, size_t cap)
{
	if ((!buf && len) || (!ret && cap))
		return -EINVAL;
	const char *end = parse_end(buf, len), *pos = buf, *line, *path = NULL;
	size_t n, path_len = 0;

	while (parse_next_line(&pos, end, &line, &n)) {
		const char *c1 = memchr(line, ':', n);
		if (!c1)
			return -EBADMSG;
		uint64_t id;
		int r = parse_digits_u64(line, (size_t)(c1 - line), &id);
		if (r < 0)
			return -EBADMSG;
		size_t rest = n - (size_t)(c1 + 1 - line);
		const char *c2 = memchr(c1 + 1, ':', rest);
		if (!c2)
			return -EBADMSG;
		if (id != 0 || c2 != c1 + 1)
			continue; /* a v1 hierarchy */
		if (path)
			return -EBADMSG;
		path = c2 + 1;
		path_len = (size_t)(line + n - path);
		if (path_len == 0 || path[0] != '/' || memchr(path, '\0', path_len))
			return -EBADMSG;
	}
	if (!path)
		return -ENOENT;
	if (path_len >= cap)
		return -ENAMETOOLONG;
	memcpy(ret, path, path_len);
	ret[path_len] = '\0';
	return 0;
}

/*
 * /proc/stat lists one "cpuN user nice ..." line per online CPU after
 * the aggregate "cpu  ..." line (show_stat() walks for_each_online_cpu).
 * Only the names are looked at; the counters are not needed.
 */
int cgoom_parse_cpu_count(const char *buf, size_t len, unsigned *ret)
{
	if (!buf && len)
		return -EINVAL;
	const char *end = parse_end(buf, len), *pos = buf, *line;
	size_t n;
	unsigned cpus = 0;

	while (parse_next_line(&pos, end, &line, &n)) {
		if (n < 4 || memcmp(line, "cpu", 3) != 0)
			continue;
		size_t k = 3;
		while (k < n && line[k] >= '0' && line[k] <= '9')
			k++;
		if (k == 3)
			continue; /* the aggregate line */
		if (k == n || (line[k] != ' ' && line[k] != '\t'))
			return -EBADMSG;
		if (cpus == UINT_MAX)
			return -EBADMSG;
		cpus++;
	}
	if (cpus == 0)
		return -EBADMSG;
	*ret = cpus;
	return 0;
}
