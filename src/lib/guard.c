/* SPDX-License-Identifier: MIT */
/* The guard band's record: see cgoom/guard.h. */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "cgoom/guard.h"
#include "lib/parse-internal.h"

#define GUARD_FIELDS_MIN 5
#define GUARD_FIELDS_MAX 6

/* A field "max" (allow_max) or a decimal u64 (UINT64_MAX itself only as
 * "max", so "no PREV" and "max" cannot be told apart from a number). */
static int field(const char *s, size_t n, bool allow_max, uint64_t *ret)
{
	if (n == 3 && memcmp(s, "max", 3) == 0) {
		if (!allow_max)
			return -EBADMSG;
		*ret = UINT64_MAX;
		return 0;
	}
	uint64_t v;
	if (parse_digits_u64(s, n, &v) < 0 || v == UINT64_MAX)
		return -EBADMSG;
	*ret = v;
	return 0;
}

/* A record of a format version other than 1 (one a later cgoom writes):
 * VERSION a decimal number >= 2 without leading zero, then nothing or a
 * space and printable text. What follows is not read: only its writer
 * knows it, and a daemon that removed it would strand its band. */
static bool other_version(const char *buf, size_t len)
{
	size_t v = 0;
	while (v < len && buf[v] >= '0' && buf[v] <= '9')
		v++;
	uint64_t version;
	if (v == 0 || buf[0] == '0' || (v < len && buf[v] != ' ') ||
	    parse_digits_u64(buf, v, &version) < 0 || version < 2)
		return false;
	for (size_t i = v; i < len; i++)
		if ((unsigned char)buf[i] < 0x20 || (unsigned char)buf[i] > 0x7e)
			return false;
	return true;
}

int cgoom_guard_record_parse(const char *buf, size_t len, struct cgoom_guard_record *ret)
{
	if (!buf && len)
		return -EINVAL;
	/* an xattr value may carry its terminator, a file-like one a newline */
	if (len > 0 && buf[len - 1] == '\0')
		len--;
	if (len > 0 && buf[len - 1] == '\n')
		len--;
	if (other_version(buf, len))
		return -EPROTONOSUPPORT;
	const char *f[GUARD_FIELDS_MAX];
	size_t fl[GUARD_FIELDS_MAX], n = 0, start = 0;
	for (size_t i = 0; i <= len; i++) {
		if (i < len && buf[i] != ' ')
			continue;
		/* fields are separated by one space: an empty one is malformed */
		if (i == start || n == GUARD_FIELDS_MAX)
			return -EBADMSG;
		f[n] = buf + start;
		fl[n++] = i - start;
		start = i + 1;
	}
	if (n < GUARD_FIELDS_MIN || fl[0] != 1 || f[0][0] != '1')
		return -EBADMSG;
	struct cgoom_guard_record rec = { .prev = UINT64_MAX };
	uint64_t pid;
	if (field(f[1], fl[1], false, &pid) < 0 || pid == 0 || pid > INT_MAX ||
	    field(f[2], fl[2], false, &rec.start) < 0 || field(f[3], fl[3], true, &rec.old) < 0 ||
	    field(f[4], fl[4], false, &rec.ours) < 0 ||
	    (n == 6 && field(f[5], fl[5], false, &rec.prev) < 0))
		return -EBADMSG;
	rec.pid = (int)pid;
	*ret = rec;
	return 0;
}

int cgoom_guard_record_format(const struct cgoom_guard_record *rec, char *buf, size_t size)
{
	char old[24];
	if (rec->old == UINT64_MAX)
		memcpy(old, "max", 4);
	else
		snprintf(old, sizeof(old), "%llu", (unsigned long long)rec->old);
	int n;
	if (rec->prev == UINT64_MAX)
		n = snprintf(buf, size, "1 %d %llu %s %llu", rec->pid, (unsigned long long)rec->start,
			     old, (unsigned long long)rec->ours);
	else
		n = snprintf(buf, size, "1 %d %llu %s %llu %llu", rec->pid,
			     (unsigned long long)rec->start, old, (unsigned long long)rec->ours,
			     (unsigned long long)rec->prev);
	if (n < 0 || (size_t)n >= size)
		return -ENOSPC;
	return n;
}

enum cgoom_guard_found cgoom_guard_judge(const struct cgoom_guard_record *rec, bool malformed,
					 uint64_t high, bool writer_alive)
{
	if (malformed)
		return CGOOM_GUARD_MALFORMED;
	if (!rec)
		return CGOOM_GUARD_ABSENT;
	/* a daemon still running owns its record, whatever memory.high
	 * holds now: it restores (or leaves) it when it exits */
	if (writer_alive)
		return CGOOM_GUARD_LIVE;
	/* "max" is never a band (OURS and PREV are numbers) */
	bool ours = high != UINT64_MAX && (high == rec->ours || high == rec->prev);
	return ours ? CGOOM_GUARD_LEFT : CGOOM_GUARD_STALE;
}

uint64_t cgoom_guard_high_value(uint64_t bytes, uint64_t page_size)
{
	if (bytes == UINT64_MAX || page_size == 0)
		return bytes;
	return bytes & ~(page_size - 1);
}
