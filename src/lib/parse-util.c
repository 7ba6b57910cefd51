/* SPDX-License-Identifier: MIT */
/*
 * Single-value files and xattrs: integers, limits, booleans, PID lists and
 * controller lists.
 */
#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "cgoom/parse.h"
#include "lib/parse-internal.h"

/* Strips surrounding whitespace, and also trailing NULs when allow_nul
 * (xattr values are often stored with their terminator). */
static void trim(const char **s, size_t *n, bool allow_nul)
{
	const char *p = *s;
	size_t l = *n;
	while (l > 0 && (parse_is_space(p[l - 1]) || (allow_nul && p[l - 1] == '\0')))
		l--;
	while (l > 0 && parse_is_space(*p)) {
		p++;
		l--;
	}
	*s = p;
	*n = l;
}

int cgoom_parse_int(const char *buf, size_t len, int64_t min, int64_t max, int64_t *ret)
{
	if (!buf && len)
		return -EINVAL;
	if (min > max)
		return -EINVAL;
	trim(&buf, &len, true);
	int64_t v;
	int r = parse_digits_i64(buf, len, &v);
	if (r < 0)
		return r;
	if (v < min || v > max)
		return -ERANGE;
	*ret = v;
	return 0;
}

int cgoom_parse_u64(const char *buf, size_t len, uint64_t *ret)
{
	if (!buf && len)
		return -EINVAL;
	trim(&buf, &len, false);
	/* "-5" is a well-formed number, just not one a u64 can hold: never
	 * let it wrap the way strtoull() would. */
	if (len > 1 && buf[0] == '-') {
		uint64_t mag = 0;
		int r = parse_digits_u64(buf + 1, len - 1, &mag);
		if (r == -EBADMSG)
			return r;
		if (r < 0 || mag != 0)
			return -ERANGE;
		*ret = 0;
		return 0;
	}
	uint64_t v;
	int r = parse_digits_u64(buf, len, &v);
	if (r < 0)
		return r;
	*ret = v;
	return 0;
}

int cgoom_parse_limit(const char *buf, size_t len, uint64_t *ret)
{
	if (!buf && len)
		return -EINVAL;
	const char *s = buf;
	size_t n = len;
	trim(&s, &n, false);
	if (parse_span_eq(s, n, "max")) {
		*ret = UINT64_MAX;
		return 0;
	}
	return cgoom_parse_u64(buf, len, ret);
}

static bool span_eq_nocase(const char *s, size_t n, const char *lit)
{
	if (n != strlen(lit))
		return false;
	for (size_t i = 0; i < n; i++) {
		char c = s[i];
		if (c >= 'A' && c <= 'Z')
			c = (char)(c - 'A' + 'a');
		if (c != lit[i])
			return false;
	}
	return true;
}

int cgoom_parse_bool(const char *buf, size_t len, bool *ret)
{
	static const char *const yes[] = { "1", "yes", "true", "on" };
	static const char *const no[] = { "0", "no", "false", "off" };

	if (!buf && len)
		return -EINVAL;
	trim(&buf, &len, true);
	for (size_t i = 0; i < sizeof(yes) / sizeof(yes[0]); i++) {
		if (span_eq_nocase(buf, len, yes[i])) {
			*ret = true;
			return 0;
		}
		if (span_eq_nocase(buf, len, no[i])) {
			*ret = false;
			return 0;
		}
	}
	return -EBADMSG;
}

/* One cgroup.procs line as a PID. A sign or blanks make it malformed
 * (the kernel prints "%d\n"); a number outside 1..PID_MAX is -ERANGE. */
static int parse_pid_line(const char *s, size_t n, int *ret)
{
	if (n > 1 && s[0] == '-') {
		uint64_t ignored;
		int r = parse_digits_u64(s + 1, n - 1, &ignored);
		return r == -EBADMSG ? r : -ERANGE;
	}
	uint64_t v;
	int r = parse_digits_range(s, n, 1, PARSE_PID_MAX, &v);
	if (r < 0)
		return r;
	*ret = (int)v;
	return 0;
}

int cgoom_parse_pids(const char *buf, size_t len, int *ret, size_t cap)
{
	if ((!buf && len) || (!ret && cap))
		return -EINVAL;

	/* Validate everything before writing anything: on failure the
	 * caller's array must be untouched. */
	const char *end = parse_end(buf, len), *pos = buf, *line;
	size_t n, count = 0;
	while (parse_next_line(&pos, end, &line, &n)) {
		int pid;
		int r = parse_pid_line(line, n, &pid);
		if (r < 0)
			return r;
		if (count == INT_MAX)
			return -ERANGE;
		count++;
	}

	pos = buf;
	size_t i = 0;
	while (i < cap && parse_next_line(&pos, end, &line, &n)) {
		int pid = 0;
		(void)parse_pid_line(line, n, &pid);
		ret[i++] = pid;
	}
	return (int)count;
}

int cgoom_parse_has_controller(const char *buf, size_t len, const char *name, bool *ret)
{
	if ((!buf && len) || !name)
		return -EINVAL;
	size_t name_len = strlen(name);
	if (name_len == 0)
		return -EINVAL;
	for (size_t i = 0; i < name_len; i++)
		if (parse_is_space(name[i]))
			return -EINVAL;

	bool found = false;
	const char *p = buf, *end = parse_end(buf, len);
	while (p < end) {
		while (p < end && parse_is_space(*p))
			p++;
		const char *t = p;
		while (p < end && !parse_is_space(*p)) {
			/* controller names are printable; NULs and control
			 * bytes mean this is not a controller list */
			if ((unsigned char)*p < 0x20 || *p == 0x7f)
				return -EBADMSG;
			p++;
		}
		if (p > t && parse_span_eq(t, (size_t)(p - t), name))
			found = true;
	}
	*ret = found;
	return 0;
}
