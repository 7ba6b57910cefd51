/* SPDX-License-Identifier: MIT */
/* Values in the configuration file: sizes, shares, durations, booleans,
 * biases and cgroup paths. */
#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "cgoom/config.h"
#include "config-internal.h"

/* ---- values ---------------------------------------------------------- */

/* Leading decimal digits of *s (at least one), advancing *s past all of
 * them. *overflow is set when they do not fit; the caller decides syntax
 * first, so "99999999999999999999x" is bad syntax rather than a range. */
static int parse_digits(const char **s, uint64_t *ret, bool *overflow)
{
	const char *p = *s;
	uint64_t v = 0;
	bool of = false;

	if (*p < '0' || *p > '9')
		return -EINVAL;
	for (; *p >= '0' && *p <= '9'; p++) {
		unsigned d = (unsigned)(*p - '0');
		if (v > (UINT64_MAX - d) / 10)
			of = true;
		else
			v = v * 10 + d;
	}
	*s = p;
	*ret = v;
	*overflow = of;
	return 0;
}

int cgoom_parse_size(const char *s, uint64_t *ret)
{
	static const char units[] = "kmgtpe";
	const char *p = s;
	unsigned shift = 0;
	uint64_t v;
	bool of;

	if (!s || parse_digits(&p, &v, &of) < 0)
		return -EINVAL;
	const char *u = *p ? strchr(units, ascii_lower(*p)) : NULL;
	if (u) {
		shift = 10 * (unsigned)(u - units + 1);
		p++;
		if (ascii_lower(p[0]) == 'i' && ascii_lower(p[1]) == 'b')
			p += 2;
		else if (ascii_lower(p[0]) == 'b')
			p++;
	} else if (ascii_lower(*p) == 'b')
		p++;
	if (*p)
		return -EINVAL;
	if (of || (shift && v > (UINT64_MAX >> shift)))
		return -ERANGE;
	*ret = v << shift;
	return 0;
}

int cgoom_parse_share(const char *s, struct cgoom_share *ret)
{
	if (!s)
		return -EINVAL;
	size_t n = strlen(s);
	if (n == 0 || s[n - 1] != '%') {
		uint64_t bytes;
		int r = cgoom_parse_size(s, &bytes);
		/* a bare number could be bytes or a percentage: refused, but
		 * for 0, which is the same either way (SPEC 7: "sizes as
		 * 64M/1G, shares as 5%") */
		bool bare = n > 0 && s[n - 1] >= '0' && s[n - 1] <= '9';
		if (bare && (r == -ERANGE || (r == 0 && bytes != 0)))
			return -EDOM;
		if (r < 0)
			return r;
		*ret = (struct cgoom_share){ .is_percent = false, .value = bytes };
		return 0;
	}

	/* INT[.D[D]]% in hundredths of a percent */
	const char *p = s;
	uint64_t whole, frac = 0;
	bool of;
	if (parse_digits(&p, &whole, &of) < 0)
		return -EINVAL;
	if (*p == '.') {
		p++;
		if (*p < '0' || *p > '9')
			return -EINVAL;
		frac = (uint64_t)(*p++ - '0') * 10;
		if (*p >= '0' && *p <= '9')
			frac += (uint64_t)(*p++ - '0');
	}
	if (p != s + n - 1)
		return -EINVAL;
	if (of || whole > 100 || whole * 100 + frac > 10000)
		return -ERANGE;
	*ret = (struct cgoom_share){ .is_percent = true, .value = whole * 100 + frac };
	return 0;
}

int cgoom_parse_duration_us(const char *s, uint64_t *ret)
{
	static const struct {
		const char *suffix;
		uint64_t us;
	} units[] = {
		{ "us", 1 },
		{ "ms", USEC_PER_MSEC },
		{ "s", USEC_PER_SEC },
		{ "m", 60 * USEC_PER_SEC },
		{ "h", 3600 * USEC_PER_SEC },
	};
	const char *p = s;
	uint64_t v;
	bool of;

	if (!s || parse_digits(&p, &v, &of) < 0)
		return -EINVAL;
	for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
		if (strcmp(p, units[i].suffix) != 0)
			continue;
		if (of || v > UINT64_MAX / units[i].us)
			return -ERANGE;
		*ret = v * units[i].us;
		return 0;
	}
	return -EINVAL; /* no unit, or an unknown one: "10" could mean anything */
}

uint64_t cgoom_share_of(const struct cgoom_share *s, uint64_t total)
{
	if (!s->is_percent)
		return s->value;
	if (s->value >= 10000)
		return total;
	/* floor(total * value / 10000) without a 128-bit intermediate */
	return total / 10000 * s->value + total % 10000 * s->value / 10000;
}

int config_parse_bool(const char *s, bool *ret)
{
	static const char *const yes[] = { "yes", "true", "on", "1" };
	static const char *const no[] = { "no", "false", "off", "0" };

	for (size_t i = 0; i < sizeof(yes) / sizeof(yes[0]); i++) {
		if (ascii_strcaseeq(s, yes[i])) {
			*ret = true;
			return 0;
		}
		if (ascii_strcaseeq(s, no[i])) {
			*ret = false;
			return 0;
		}
	}
	return -EINVAL;
}

int config_parse_bias(const char *s, int *ret)
{
	const char *p = s;
	bool neg = false, of;
	uint64_t v;

	if (*p == '-' || *p == '+')
		neg = *p++ == '-';
	if (parse_digits(&p, &v, &of) < 0 || *p || of || v > CGOOM_BIAS_MAX)
		return -EINVAL;
	*ret = neg ? -(int)v : (int)v;
	return 0;
}

/* ---- paths ----------------------------------------------------------- */


static bool is_bad_byte(char ch)
{
	return (unsigned char)ch < 0x20 || ch == 0x7f;
}

/* Validates in a first pass and writes in a second, so out is untouched
 * on failure. */
enum path_err config_normalize(const char *in, char *out, size_t cap)
{
	size_t need = 0;

	if (!in || !*in)
		return PATH_EMPTY;
	if (in[0] != '/')
		return PATH_RELATIVE;
	for (const char *c = in; *c;) {
		while (*c == '/')
			c++;
		if (!*c)
			break;
		const char *e = c;
		for (; *e && *e != '/'; e++)
			if (is_bad_byte(*e))
				return PATH_BAD_BYTE;
		size_t l = (size_t)(e - c);
		if ((l == 1 && c[0] == '.') || (l == 2 && c[0] == '.' && c[1] == '.'))
			return PATH_DOT;
		need += l + 1;
		c = e;
	}
	if (need == 0)
		need = 1; /* "/" */
	if (!out || cap < need + 1)
		return PATH_TOO_LONG;

	char *o = out;
	for (const char *c = in; *c;) {
		while (*c == '/')
			c++;
		if (!*c)
			break;
		*o++ = '/';
		while (*c && *c != '/')
			*o++ = *c++;
	}
	if (o == out)
		*o++ = '/';
	*o = '\0';
	return PATH_OK;
}

int cgoom_path_normalize(const char *in, char *ret, size_t cap)
{
	switch (config_normalize(in, ret, cap)) {
	case PATH_OK:
		return 0;
	case PATH_TOO_LONG:
		return -ENOBUFS;
	default:
		return -EINVAL;
	}
}


/* ---- patterns -------------------------------------------------------- */

/* One component: '*' matches any run of bytes (also none). The classic
 * iterative matcher: on a mismatch, let the last '*' eat one more byte;
 * linear in practice, O(pn * sn) at worst. */
static bool component_match(const char *p, size_t pn, const char *s, size_t sn)
{
	size_t pi = 0, si = 0, star = SIZE_MAX, mark = 0;

	while (si < sn) {
		if (pi < pn && p[pi] == '*') {
			star = pi++;
			mark = si;
		} else if (pi < pn && p[pi] == s[si]) {
			pi++;
			si++;
		} else if (star != SIZE_MAX) {
			pi = star + 1;
			si = ++mark;
		} else
			return false;
	}
	while (pi < pn && p[pi] == '*')
		pi++;
	return pi == pn;
}

unsigned cgoom_path_depth(const char *path)
{
	unsigned depth = 0;
	for (const char *q = path; *q; q++)
		depth += *q == '/' && q[1] && q[1] != '/';
	return depth;
}

bool cgoom_path_match(const char *pattern, const char *path)
{
	if (!pattern || !path)
		return false;
	if (!strchr(pattern, '*'))
		return strcmp(pattern, path) == 0;
	const char *p = pattern, *s = path;
	for (;;) {
		while (*p == '/')
			p++;
		while (*s == '/')
			s++;
		if (!*p || !*s)
			return !*p && !*s; /* as many components */
		size_t pn = strcspn(p, "/"), sn = strcspn(s, "/");
		if (!component_match(p, pn, s, sn))
			return false;
		p += pn;
		s += sn;
	}
}

bool cgoom_conf_has(const struct cgoom_cgroup_conf *g, enum cgoom_conf_key k)
{
	switch (k) {
	case CGOOM_CONF_POLICY:
		return g->has_policy;
	case CGOOM_CONF_PREF:
		return g->has_pref;
	case CGOOM_CONF_BIAS:
		return g->has_bias;
	case CGOOM_CONF_DELEGATE:
		return g->has_delegate;
	case CGOOM_CONF_MARGIN:
		return g->has_margin;
	case CGOOM_CONF_GUARD_BAND:
		return g->has_guard_band;
	case CGOOM_CONF_KILL_STORM:
		return g->has_kill_storm;
	case CGOOM_CONF_KEY_MAX:
		break;
	}
	return false;
}

int cgoom_conf_line(const struct cgoom_cgroup_conf *g, enum cgoom_conf_key k)
{
	if (!cgoom_conf_has(g, k))
		return 0;
	switch (k) {
	case CGOOM_CONF_POLICY:
		return g->policy_line;
	case CGOOM_CONF_PREF:
		return g->pref_line;
	case CGOOM_CONF_BIAS:
		return g->bias_line;
	case CGOOM_CONF_DELEGATE:
		return g->delegate_line;
	case CGOOM_CONF_MARGIN:
		return g->margin_line;
	case CGOOM_CONF_GUARD_BAND:
		return g->guard_band_line;
	case CGOOM_CONF_KILL_STORM:
		return g->kill_storm_line;
	case CGOOM_CONF_KEY_MAX:
		break;
	}
	return 0;
}

/* Whether a is more specific than b (SPEC 7 as documented in config.h);
 * sections are in file order, so an earlier one wins a full tie. */
static bool more_specific(const struct cgoom_cgroup_conf *a, const struct cgoom_cgroup_conf *b)
{
	if (a->n_literal != b->n_literal)
		return a->n_literal > b->n_literal;
	if (a->n_stars != b->n_stars)
		return a->n_stars < b->n_stars;
	return a < b;
}

/* Whether section g applies to path, of depth components: as many as
 * the section has (a cheap filter), then matched byte by byte. */
static bool section_matches(const struct cgoom_cgroup_conf *g, const char *path, unsigned depth)
{
	return g->depth == depth && cgoom_path_match(g->path, path);
}

void cgoom_config_match(const struct cgoom_config *c, const char *path, struct cgoom_conf_match *ret)
{
	*ret = (struct cgoom_conf_match){ 0 };
	if (!c || !path)
		return;
	unsigned depth = cgoom_path_depth(path);
	for (size_t i = 0; i < c->n_cgroups; i++) {
		const struct cgoom_cgroup_conf *g = &c->cgroups[i];
		if (!section_matches(g, path, depth))
			continue;
		for (int k = 0; k < CGOOM_CONF_KEY_MAX; k++) {
			const struct cgoom_cgroup_conf **best = &ret->by_key[k];
			if (cgoom_conf_has(g, (enum cgoom_conf_key)k) && (!*best || more_specific(g, *best)))
				*best = g;
		}
	}
}

const char *cgoom_config_past_mount(const char *path, const char *mount)
{
	size_t n = mount ? strlen(mount) : 0;
	while (n > 1 && mount[n - 1] == '/')
		n--;
	if (n > 1 && strncmp(path, mount, n) == 0 && (path[n] == '/' || !path[n]))
		return path[n] ? path + n : "/";
	return NULL;
}

void cgoom_config_mark_matches(const struct cgoom_config *c, const char *path, bool *hit)
{
	if (!c || !path || !hit)
		return;
	unsigned depth = cgoom_path_depth(path);
	for (size_t i = 0; i < c->n_cgroups; i++)
		if (!hit[i] && section_matches(&c->cgroups[i], path, depth))
			hit[i] = true;
}

const struct cgoom_cgroup_conf *cgoom_config_lookup(const struct cgoom_config *c, const char *path,
						    enum cgoom_conf_key key)
{
	struct cgoom_conf_match m;

	if ((unsigned)key >= CGOOM_CONF_KEY_MAX)
		return NULL;
	cgoom_config_match(c, path, &m);
	return m.by_key[key];
}
