/* SPDX-License-Identifier: MIT */
/*
 * The configuration file (SPEC 7): one pass over (buf, len), a line at a
 * time; the first error stops the parse, so an operator fixes one thing,
 * reruns, and never sees a cascade caused by an earlier mistake. A config
 * decides who gets killed, so anything ambiguous (a repeated key, a key
 * cgoom does not know, a stray byte) is refused rather than guessed at.
 */
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cgoom/config.h"
#include "cgoom/select.h"
#include "cgoom/thrash.h"
#include "config-internal.h"

/* How much user text an error message quotes before eliding it. */
#define SHOW_MAX 64


/* The kernel refuses PSI triggers with windows outside 500ms..10s. */
#define PSI_WINDOW_MIN_US (500 * USEC_PER_MSEC)
#define PSI_WINDOW_MAX_US (10 * USEC_PER_SEC)

/* Keys by section; a key's index is its enum value. */
enum daemon_key { DK_MEM_AVAILABLE_MIN, DK_SWAP_FREE_MIN, DK_PSI_FULL, DK_MARGIN, DK_GUARD_BAND,
		  DK_KILL_WAIT, DK_TERM_GRACE, DK_PRE_KILL_HOOK, DK_POST_KILL_HOOK, DK_EVENT_LOG, DK_METRICS_FILE,
		  DK_SWAP_STALL_MAX, DK_THRASH_FOR, DK_THRASH_REFAULTS, DK_KILL_STORM, N_DK };
static const char *const daemon_keys[N_DK] = {
	"mem_available_min", "swap_free_min", "psi_full", "margin", "guard_band",
	"kill_wait", "term_grace", "pre_kill_hook", "post_kill_hook", "event_log", "metrics_file",
	"swap_stall_max", "thrash_for", "thrash_refaults", "kill_storm",
};

enum cgroup_key { CK_OOM_POLICY, CK_PREFERENCE, CK_BIAS, CK_DELEGATE, CK_MARGIN, CK_GUARD_BAND,
		  CK_KILL_STORM, N_CK };
static const char *const cgroup_keys[N_CK] = {
	"oom_policy", "preference", "bias", "delegate", "margin", "guard_band", "kill_storm",
};

enum section { SEC_NONE, SEC_DAEMON, SEC_CGROUP };

struct parser {
	struct cgoom_config *c;
	struct cgoom_config_error *err;
	int line;
	enum section sec;
	size_t cg; /* index into c->cgroups while sec == SEC_CGROUP */
	/* Line each key was set on (0 = not yet), to refuse repeats even
	 * across merged sections and to name the earlier line. */
	int daemon_lines[N_DK];
	int (*cg_lines)[N_CK]; /* parallel to c->cgroups */
	size_t cap;
	/* Scratch, each big enough for a whole line plus its NUL. */
	char text[CGOOM_CONFIG_LINE_MAX + 1];
	char val[CGOOM_CONFIG_LINE_MAX + 1];
	char path[CGOOM_CONFIG_LINE_MAX + 1];
};

__attribute__((format(printf, 2, 3))) static int fail(struct parser *p, const char *fmt, ...)
{
	if (p->err) {
		va_list ap;
		p->err->line = p->line;
		va_start(ap, fmt);
		vsnprintf(p->err->msg, sizeof(p->err->msg), fmt, ap);
		va_end(ap);
	}
	return -EINVAL;
}

static int fail_nomem(struct parser *p)
{
	fail(p, "out of memory");
	return -ENOMEM;
}

/* User text for a message: itself, or its first SHOW_MAX bytes and "...",
 * so that one long value cannot crowd the rest of the message out. */
struct shown {
	char s[SHOW_MAX + 4];
};

static const char *show(struct shown *b, const char *s)
{
	if (strlen(s) <= SHOW_MAX)
		return s;
	memcpy(b->s, s, SHOW_MAX);
	memcpy(b->s + SHOW_MAX, "...", 4);
	return b->s;
}

static bool is_ws(char ch)
{
	return ch == ' ' || ch == '\t';
}

static char *skip_ws(char *s)
{
	while (is_ws(*s))
		s++;
	return s;
}

static int key_index(const char *const *table, size_t n, const char *key)
{
	for (size_t i = 0; i < n; i++)
		if (strcmp(table[i], key) == 0)
			return (int)i;
	return -1;
}

/* ---- the config ------------------------------------------------------ */

void cgoom_config_init(struct cgoom_config *c)
{
	*c = (struct cgoom_config){
		.mem_available_min = { .is_percent = true, .value = 500 },
		.swap_free_min = { .is_percent = true, .value = 1000 },
		.psi_full_stall_us = 100 * USEC_PER_MSEC,
		.psi_full_window_us = 1 * USEC_PER_SEC,
		.margin = CGOOM_MARGIN_DEFAULT,
		.guard_band = 0,
		.kill_wait_us = 10 * USEC_PER_SEC,
		.term_grace_us = 0,
		.swap_stall_max_us = CGOOM_SWAP_FILL_MAX_US_DEFAULT,
		.thrash_for_us = CGOOM_THRASH_SUSTAIN_US_DEFAULT,
		.thrash_refaults = CGOOM_THRASH_REFAULT_BYTES_DEFAULT,
		/* SPEC 6: a domain that is not growing needs one kill to get
		 * under its line, two when the first victim held less than its
		 * footprint said; a third within a minute means kills are not
		 * what helps (doc/logging.md, cgoom.conf(5)) */
		.kill_storm = { .kills = 3, .window_us = 60 * USEC_PER_SEC },
	};
}

void cgoom_config_free(struct cgoom_config *c)
{
	if (!c)
		return;
	for (size_t i = 0; i < c->n_cgroups; i++)
		free(c->cgroups[i].path);
	free(c->cgroups);
	free(c->pre_kill_hook);
	free(c->post_kill_hook);
	free(c->event_log);
	free(c->metrics_file);
	c->cgroups = NULL;
	c->n_cgroups = 0;
	c->pre_kill_hook = c->post_kill_hook = c->event_log = c->metrics_file = NULL;
}

const struct cgoom_cgroup_conf *cgoom_config_find(const struct cgoom_config *c, const char *path)
{
	if (!c || !path)
		return NULL;
	for (size_t i = 0; i < c->n_cgroups; i++)
		if (strcmp(c->cgroups[i].path, path) == 0)
			return &c->cgroups[i];
	return NULL;
}

/* Reads a double-quoted string, *s just past the opening quote, into out
 * (at least as big as the rest of the line). Only \" and \\ escape. */
static int parse_quoted(struct parser *p, char **s, char *out, const char *what)
{
	char *q = *s;

	for (;;) {
		char ch = *q++;
		if (ch == '\0')
			return fail(p, "unterminated quote in %s", what);
		if (ch == '"')
			break;
		if (ch == '\\') {
			ch = *q++;
			if (ch == '\0')
				return fail(p, "unterminated quote in %s", what);
			if (ch != '"' && ch != '\\')
				return fail(p, "invalid escape '\\%c' in %s (only \\\" and \\\\ are allowed)",
					    ch, what);
		}
		*out++ = ch;
	}
	*out = '\0';
	*s = q;
	return 0;
}

static int enter_cgroup(struct parser *p, const char *raw)
{
	struct cgoom_config *c = p->c;
	struct shown sh;

	switch (config_normalize(raw, p->path, sizeof(p->path))) {
	case PATH_OK:
		break;
	case PATH_EMPTY:
		return fail(p, "cgroup path is empty");
	case PATH_RELATIVE:
		return fail(p, "cgroup path '%s' is not absolute (it must start with '/')", show(&sh, raw));
	case PATH_DOT:
		return fail(p, "cgroup path '%s' must not contain '.' or '..' components", show(&sh, raw));
	case PATH_BAD_BYTE:
		return fail(p, "cgroup path contains a control character");
	case PATH_TOO_LONG:
		return fail(p, "cgroup path is too long");
	}
	if (strstr(p->path, "**"))
		return fail(p, "cgroup path '%s': '**' is not supported (a '*' matches within one "
			       "path component, never across '/')",
			    show(&sh, raw));

	p->sec = SEC_CGROUP;
	for (size_t i = 0; i < c->n_cgroups; i++)
		if (strcmp(c->cgroups[i].path, p->path) == 0) {
			p->cg = i; /* a repeated section merges with the first */
			return 0;
		}

	if (c->n_cgroups == p->cap) {
		size_t cap = p->cap ? p->cap * 2 : 8;
		struct cgoom_cgroup_conf *ncg = realloc(c->cgroups, cap * sizeof(*ncg));
		if (!ncg)
			return fail_nomem(p);
		c->cgroups = ncg;
		int(*nl)[N_CK] = realloc(p->cg_lines, cap * sizeof(*nl));
		if (!nl)
			return fail_nomem(p);
		p->cg_lines = nl;
		p->cap = cap;
	}
	char *path = strdup(p->path);
	if (!path)
		return fail_nomem(p);
	unsigned stars = 0, depth = cgoom_path_depth(path);
	for (const char *q = path; *q; q++)
		stars += *q == '*';
	c->cgroups[c->n_cgroups] = (struct cgoom_cgroup_conf){
		.path = path,
		.line = p->line,
		.n_stars = stars,
		.n_literal = strlen(path) - stars,
		.depth = depth,
		.policy = CGOOM_POLICY_NONE,
		.pref = CGOOM_PREF_NONE,
	};
	memset(p->cg_lines[c->n_cgroups], 0, sizeof(p->cg_lines[0]));
	p->cg = c->n_cgroups++;
	return 0;
}

/* [name] or [name "sub"], s just past the '['. */
static int parse_header(struct parser *p, char *s)
{
	struct shown sh;
	bool has_sub = false;

	s = skip_ws(s);
	char *name = s;
	while (*s && !is_ws(*s) && *s != '"' && *s != ']')
		s++;
	char *name_end = s;
	s = skip_ws(s);
	if (*s == '"') {
		s++;
		int r = parse_quoted(p, &s, p->val, "section header");
		if (r < 0)
			return r;
		has_sub = true;
		s = skip_ws(s);
	}
	if (*s != ']') {
		if (!*s)
			return fail(p, "missing ']' at the end of the section header");
		return fail(p, "unexpected '%c' in section header (a cgroup path must be quoted: [cgroup \"/path\"])",
			    *s);
	}
	s = skip_ws(s + 1);
	if (*s && *s != '#' && *s != ';')
		return fail(p, "unexpected text after ']': '%s'", show(&sh, s));

	*name_end = '\0';
	if (!*name)
		return fail(p, "empty section name");
	if (strcmp(name, "daemon") == 0) {
		if (has_sub)
			return fail(p, "section [daemon] takes no name, got [daemon \"%s\"]", show(&sh, p->val));
		p->sec = SEC_DAEMON;
		return 0;
	}
	if (strcmp(name, "cgroup") == 0) {
		if (!has_sub)
			return fail(p, "section [cgroup] needs a quoted path, as in [cgroup \"/work\"]");
		return enter_cgroup(p, p->val);
	}
	return fail(p, "unknown section '%s' (expected [daemon] or [cgroup \"PATH\"])", show(&sh, name));
}

static int set_share(struct parser *p, const char *key, const char *v, struct cgoom_share *ret)
{
	struct shown sh;
	int r = cgoom_parse_share(v, ret);
	if (r == -EDOM)
		return fail(p, "%s = %s: add %% or a size unit, e.g. %s%% or %sM (a bare number could be "
			       "either; only 0 may stand alone)",
			    key, show(&sh, v), show(&sh, v), show(&sh, v));
	if (r == -ERANGE)
		return fail(p, "%s is out of range (at most 100%% or a size that fits 64 bits), got '%s'",
			    key, show(&sh, v));
	if (r < 0)
		return fail(p, "%s must be a percentage like 5%% or a size like 64M, got '%s'", key,
			    show(&sh, v));
	return 0;
}

static int set_duration(struct parser *p, const char *key, const char *v, uint64_t *ret)
{
	struct shown sh;
	int r = cgoom_parse_duration_us(v, ret);
	if (r == -ERANGE)
		return fail(p, "%s duration is out of range, got '%s'", key, show(&sh, v));
	if (r < 0)
		return fail(p, "%s must be a duration with a unit (us, ms, s, m, h) like 10s, got '%s'",
			    key, show(&sh, v));
	return 0;
}

/* A duration the thrash and swap triggers wait for: at least 500 ms (one
 * window of their history), at most a minute (what it keeps). */
static int set_positive_duration(struct parser *p, const char *key, const char *v, uint64_t *ret)
{
	struct shown sh;
	uint64_t d;
	int r = set_duration(p, key, v, &d);
	if (r < 0)
		return r;
	if (d < 500 * USEC_PER_MSEC || d > 60 * USEC_PER_SEC)
		return fail(p, "%s must be between 500ms and 60s, got '%s'", key, show(&sh, v));
	*ret = d;
	return 0;
}

/* A rate: a size per second ("10M" or "10M/s"), 1 B/s to
 * CGOOM_RATE_MAX; v is cut at its "/s", messages quote it whole. */
static int set_rate(struct parser *p, const char *key, char *v, uint64_t *ret)
{
	struct shown sh;
	char orig[SHOW_MAX + 4];
	const char *shown_v = show(&sh, v);
	memcpy(orig, shown_v, strlen(shown_v) + 1);
	size_t n = strlen(v);
	if (n > 2 && strcmp(v + n - 2, "/s") == 0)
		v[n - 2] = '\0';
	uint64_t rate;
	int r = cgoom_parse_size(v, &rate);
	if (r == -ERANGE || (r == 0 && rate > CGOOM_RATE_MAX))
		return fail(p, "%s is out of range (at most 1T/s), got '%s'", key, orig);
	if (r < 0 || rate == 0)
		return fail(p, "%s must be a size per second like 10M/s, got '%s'", key, orig);
	*ret = rate;
	return 0;
}

/* guard_band: "no" or a size; 0 means no guard band either way. */
static int set_guard_band(struct parser *p, const char *v, uint64_t *ret)
{
	struct shown sh;
	if (ascii_strcaseeq(v, "no")) {
		*ret = 0;
		return 0;
	}
	int r = cgoom_parse_size(v, ret);
	if (r == -ERANGE)
		return fail(p, "guard_band size is out of range, got '%s'", show(&sh, v));
	if (r < 0)
		return fail(p, "guard_band must be 'no' or a size like 32M, got '%s'", show(&sh, v));
	return 0;
}

/* psi_full = STALL/WINDOW; v is p->val, split in place. */
static int set_psi_full(struct parser *p, char *v)
{
	struct shown sh;
	char orig[SHOW_MAX + 4];
	uint64_t stall, window;
	int r;

	/* keep the whole value for messages: it is split below */
	const char *shown_v = show(&sh, v);
	memcpy(orig, shown_v, strlen(shown_v) + 1);
	char *slash = strchr(v, '/');
	if (!slash)
		return fail(p, "psi_full must be STALL/WINDOW durations like 100ms/1s, got '%s'", orig);
	*slash = '\0';
	char *a = v, *b = skip_ws(slash + 1);
	for (char *e = slash; e > a && is_ws(e[-1]);)
		*--e = '\0';
	r = cgoom_parse_duration_us(a, &stall);
	if (r >= 0)
		r = cgoom_parse_duration_us(b, &window);
	if (r == -ERANGE)
		return fail(p, "psi_full duration is out of range, got '%s'", orig);
	if (r < 0)
		return fail(p, "psi_full must be STALL/WINDOW durations like 100ms/1s, got '%s'", orig);
	if (window < PSI_WINDOW_MIN_US || window > PSI_WINDOW_MAX_US)
		return fail(p, "psi_full window must be between 500ms and 10s (a kernel limit), got '%s'", orig);
	if (stall == 0)
		return fail(p, "psi_full stall must be greater than 0, got '%s'", orig);
	if (stall > window)
		return fail(p, "psi_full stall must not be longer than its window, got '%s'", orig);
	p->c->psi_full_stall_us = stall;
	p->c->psi_full_window_us = window;
	return 0;
}

/* kill_storm = no | KILLS/WINDOW; v is split in place. */
static int set_kill_storm(struct parser *p, char *v, struct cgoom_storm *ret)
{
	struct shown sh;
	char orig[SHOW_MAX + 4];
	const char *shown_v = show(&sh, v);
	memcpy(orig, shown_v, strlen(shown_v) + 1);
	if (ascii_strcaseeq(v, "no")) {
		*ret = (struct cgoom_storm){ 0 };
		return 0;
	}
	char *slash = strchr(v, '/');
	if (!slash)
		return fail(p, "kill_storm must be 'no' or KILLS/WINDOW like 3/1m, got '%s'", orig);
	*slash = '\0';
	char *a = v, *b = skip_ws(slash + 1);
	for (char *e = slash; e > a && is_ws(e[-1]);)
		*--e = '\0';
	uint64_t kills = 0, window;
	bool digits = *a != '\0';
	for (const char *q = a; *q && digits; q++) {
		digits = *q >= '0' && *q <= '9';
		kills = kills * 10 + (uint64_t)(*q - '0');
		if (kills > CGOOM_STORM_KILLS_MAX)
			break;
	}
	if (!digits || cgoom_parse_duration_us(b, &window) < 0)
		return fail(p, "kill_storm must be 'no' or KILLS/WINDOW like 3/1m, got '%s'", orig);
	if (kills < 1 || kills > CGOOM_STORM_KILLS_MAX)
		return fail(p, "kill_storm allows 1 to %d kills per window (or 'no'), got '%s'",
			    CGOOM_STORM_KILLS_MAX, orig);
	if (window == 0)
		return fail(p, "kill_storm window must be longer than 0, got '%s'", orig);
	*ret = (struct cgoom_storm){ .kills = (unsigned)kills, .window_us = window };
	return 0;
}

static int set_string(struct parser *p, const char *v, char **ret)
{
	if (!*v)
		return 0; /* empty means unset */
	*ret = strdup(v);
	return *ret ? 0 : fail_nomem(p);
}

/* A file the daemon writes: absolute, as nothing says what a relative
 * path is relative to (the working directory: / under systemd, whatever
 * shell started it otherwise); empty means unset. */
static int set_file(struct parser *p, const char *key, const char *v, char **ret)
{
	struct shown sh;
	if (*v && *v != '/')
		return fail(p, "%s must be an absolute path, as %s (a relative one would depend on "
			       "the directory cgoom was started in), got '%s'",
			    key,
			    strcmp(key, "metrics_file") == 0 ? "/var/lib/cgoom/cgoom.prom"
							      : "/var/log/cgoom/events.jsonl",
			    show(&sh, v));
	return set_string(p, v, ret);
}

static int set_daemon_key(struct parser *p, enum daemon_key k, char *v)
{
	struct cgoom_config *c = p->c;

	switch (k) {
	case DK_MEM_AVAILABLE_MIN:
		return set_share(p, daemon_keys[k], v, &c->mem_available_min);
	case DK_SWAP_FREE_MIN:
		return set_share(p, daemon_keys[k], v, &c->swap_free_min);
	case DK_PSI_FULL:
		return set_psi_full(p, v);
	case DK_MARGIN:
		return set_share(p, daemon_keys[k], v, &c->margin);
	case DK_GUARD_BAND:
		return set_guard_band(p, v, &c->guard_band);
	case DK_KILL_WAIT:
		return set_duration(p, daemon_keys[k], v, &c->kill_wait_us);
	case DK_TERM_GRACE:
		return set_duration(p, daemon_keys[k], v, &c->term_grace_us);
	case DK_PRE_KILL_HOOK:
		return set_string(p, v, &c->pre_kill_hook);
	case DK_POST_KILL_HOOK:
		return set_string(p, v, &c->post_kill_hook);
	case DK_EVENT_LOG:
		return set_file(p, daemon_keys[k], v, &c->event_log);
	case DK_METRICS_FILE:
		return set_file(p, daemon_keys[k], v, &c->metrics_file);
	case DK_SWAP_STALL_MAX:
		return set_positive_duration(p, daemon_keys[k], v, &c->swap_stall_max_us);
	case DK_THRASH_FOR:
		return set_positive_duration(p, daemon_keys[k], v, &c->thrash_for_us);
	case DK_THRASH_REFAULTS:
		return set_rate(p, daemon_keys[k], v, &c->thrash_refaults);
	case DK_KILL_STORM:
		return set_kill_storm(p, v, &c->kill_storm);
	case N_DK:
		break;
	}
	return fail(p, "internal error: unhandled key");
}

static int set_cgroup_key(struct parser *p, enum cgroup_key k, char *v)
{
	struct cgoom_cgroup_conf *cg = &p->c->cgroups[p->cg];
	struct shown sh;
	int r;

	switch (k) {
	case CK_OOM_POLICY:
		if (cgoom_policy_from_string(v, strlen(v), &cg->policy) < 0)
			return fail(p, "oom_policy must be %s, got '%s'", cgoom_policy_name_list(), show(&sh, v));
		if (!cgoom_policy_ops(cg->policy)->on_root && strcmp(cg->path, "/") == 0)
			return fail(p, "oom_policy '%s' is not allowed on the root cgroup",
				    cgoom_policy_name(cg->policy));
		cg->has_policy = true;
		cg->policy_line = p->line;
		return 0;
	case CK_PREFERENCE:
		if (cgoom_pref_from_string(v, strlen(v), &cg->pref) < 0)
			return fail(p, "preference must be omit, avoid, none or prefer, got '%s'", show(&sh, v));
		cg->has_pref = true;
		cg->pref_line = p->line;
		return 0;
	case CK_BIAS:
		if (config_parse_bias(v, &cg->bias) < 0)
			return fail(p, "bias must be an integer in -1000..1000, got '%s'", show(&sh, v));
		cg->has_bias = true;
		cg->bias_line = p->line;
		return 0;
	case CK_DELEGATE:
		if (config_parse_bool(v, &cg->delegate) < 0)
			return fail(p, "delegate must be yes or no, got '%s'", show(&sh, v));
		cg->has_delegate = true;
		cg->delegate_line = p->line;
		return 0;
	case CK_MARGIN:
		r = set_share(p, "margin", v, &cg->margin);
		cg->has_margin = r == 0;
		cg->margin_line = r == 0 ? p->line : 0;
		return r;
	case CK_GUARD_BAND:
		r = set_guard_band(p, v, &cg->guard_band);
		cg->has_guard_band = r == 0;
		cg->guard_band_line = r == 0 ? p->line : 0;
		return r;
	case CK_KILL_STORM:
		r = set_kill_storm(p, v, &cg->kill_storm);
		cg->has_kill_storm = r == 0;
		cg->kill_storm_line = r == 0 ? p->line : 0;
		return r;
	case N_CK:
		break;
	}
	return fail(p, "internal error: unhandled key");
}

/* key = value, or key = "value"; s at the key. */
static int parse_assignment(struct parser *p, char *s)
{
	struct shown sh;
	char *key = s;
	bool valid = true;

	for (; *s && !is_ws(*s) && *s != '='; s++)
		if (!((*s >= 'a' && *s <= 'z') || *s == '_'))
			valid = false;
	char *key_end = s;
	s = skip_ws(s);
	bool has_eq = *s == '=';
	if (has_eq)
		s++;
	*key_end = '\0';
	if (!*key)
		return fail(p, "missing key before '='");
	if (!valid)
		return fail(p, "invalid key '%s' (keys are lowercase letters and '_')", show(&sh, key));
	if (!has_eq)
		return fail(p, "missing '=' after key '%s'", key);
	if (p->sec == SEC_NONE)
		return fail(p, "key '%s' outside of any section (add [daemon] or [cgroup \"PATH\"] above it)", key);

	s = skip_ws(s);
	bool semi = false; /* an unquoted value cut at a ';' comment */
	if (*s == '"') {
		s++;
		int r = parse_quoted(p, &s, p->val, "value");
		if (r < 0)
			return r;
		s = skip_ws(s);
		if (*s && *s != '#' && *s != ';')
			return fail(p, "unexpected text after the quoted value of '%s': '%s'", key, show(&sh, s));
	} else {
		/* an unquoted value ends at a '#' or ';' that follows whitespace */
		char *e = s;
		while (*e && !((*e == '#' || *e == ';') && is_ws(e[-1])))
			e++;
		semi = *e == ';';
		while (e > s && is_ws(e[-1]))
			e--;
		memcpy(p->val, s, (size_t)(e - s));
		p->val[e - s] = '\0';
	}
	char *v = p->val;

	if (p->sec == SEC_DAEMON) {
		int k = key_index(daemon_keys, N_DK, key);
		if (k < 0) {
			if (key_index(cgroup_keys, N_CK, key) >= 0)
				return fail(p, "key '%s' belongs in a [cgroup \"PATH\"] section, not [daemon]", key);
			return fail(p, "unknown key '%s' in [daemon]", key);
		}
		if (p->daemon_lines[k])
			return fail(p, "key '%s' already set on line %d", key, p->daemon_lines[k]);
		bool is_string = k == DK_PRE_KILL_HOOK || k == DK_POST_KILL_HOOK || k == DK_EVENT_LOG ||
				 k == DK_METRICS_FILE;
		/* "cmd ; other" is a shell's list, but here the ';' starts a
		 * comment and only cmd would run: refused, not guessed at */
		if (semi && *v && (k == DK_PRE_KILL_HOOK || k == DK_POST_KILL_HOOK))
			return fail(p, "%s: ' ;' starts a comment here, so only '%s' would run: quote the "
				       "whole command (%s = \"...\") or put the comment on its own line",
				    key, show(&sh, v), key);
		if (!*v && !is_string)
			return fail(p, "empty value for key '%s'", key);
		int r = set_daemon_key(p, (enum daemon_key)k, v);
		if (r < 0)
			return r;
		p->daemon_lines[k] = p->line;
		return 0;
	}

	const char *path = p->c->cgroups[p->cg].path;
	int k = key_index(cgroup_keys, N_CK, key);
	if (k < 0) {
		if (key_index(daemon_keys, N_DK, key) >= 0)
			return fail(p, "key '%s' belongs in [daemon], not in a [cgroup] section", key);
		return fail(p, "unknown key '%s' in [cgroup \"%s\"]", key, show(&sh, path));
	}
	int *seen = &p->cg_lines[p->cg][k];
	if (*seen)
		return fail(p, "key '%s' already set on line %d", key, *seen);
	if (!*v)
		return fail(p, "empty value for key '%s'", key);
	int r = set_cgroup_key(p, (enum cgroup_key)k, v);
	if (r < 0)
		return r;
	*seen = p->line;
	return 0;
}

static int parse_line(struct parser *p, const char *line, size_t n)
{
	if (n > CGOOM_CONFIG_LINE_MAX)
		return fail(p, "line is longer than %d bytes", CGOOM_CONFIG_LINE_MAX);
	for (size_t i = 0; i < n; i++) {
		unsigned char ch = (unsigned char)line[i];
		if (ch == '\0')
			return fail(p, "NUL byte in line");
		if ((ch < 0x20 && ch != '\t') || ch == 0x7f)
			return fail(p, "control character 0x%02x in line", ch);
	}
	/* From here on the line is a C string without NULs. */
	memcpy(p->text, line, n);
	p->text[n] = '\0';

	char *s = skip_ws(p->text);
	if (!*s || *s == '#' || *s == ';')
		return 0;
	if (*s == '[')
		return parse_header(p, s + 1);
	return parse_assignment(p, s);
}

int cgoom_config_parse(const char *buf, size_t len, struct cgoom_config *ret,
		       struct cgoom_config_error *err)
{
	struct parser *p;
	size_t pos = 0;
	int r = 0;

	cgoom_config_init(ret);
	if (err) {
		err->line = 0;
		err->msg[0] = '\0';
	}
	if (!buf && len > 0) {
		if (err)
			snprintf(err->msg, sizeof(err->msg), "no buffer");
		return -EINVAL;
	}
	/* Heap, not stack: the scratch buffers are 12K and the daemon parses
	 * on reload with a locked, bounded stack. */
	p = calloc(1, sizeof(*p));
	if (!p) {
		if (err)
			snprintf(err->msg, sizeof(err->msg), "out of memory");
		return -ENOMEM;
	}
	p->c = ret;
	p->err = err;

	/* a UTF-8 byte order mark, as some editors write, is not content */
	if (len >= 3 && memcmp(buf, "\xEF\xBB\xBF", 3) == 0)
		pos = 3;
	while (pos < len) {
		const char *s = buf + pos;
		const char *nl = memchr(s, '\n', len - pos);
		size_t n = nl ? (size_t)(nl - s) : len - pos;

		pos += n + (nl ? 1 : 0);
		if (p->line == INT_MAX) {
			r = fail(p, "too many lines");
			break;
		}
		p->line++;
		if (n > 0 && s[n - 1] == '\r')
			n--;
		r = parse_line(p, s, n);
		if (r < 0)
			break;
	}

	free(p->cg_lines);
	free(p);
	if (r < 0) {
		cgoom_config_free(ret);
		cgoom_config_init(ret);
	}
	return r;
}
