/* SPDX-License-Identifier: MIT */
#pragma once

/*
 * The configuration file (SPEC section 7), git-config style:
 *
 *   # comment            ; comment
 *   [daemon]
 *   mem_available_min = 5%
 *   [cgroup "/cg3"]
 *   oom_policy = tree
 *
 * Pure: cgoom_config_parse() takes (buf, len) and never touches files.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cgoom/types.h"

/* A threshold given either as a share of a total ("5%", "2.5%") or as an
 * absolute size ("64M"). */
struct cgoom_share {
	bool is_percent;
	uint64_t value; /* percent: hundredths of a percent (5% -> 500); else bytes */
};
/* margin's default, 2%: also what a domain uses whose configured margin
 * is as large as its memory.max (it would always be "near") */
#define CGOOM_MARGIN_DEFAULT ((struct cgoom_share){ .is_percent = true, .value = 200 })

/* kill_storm = KILLS/WINDOW (SPEC 6's kill-storm guard): at most KILLS
 * kills in a domain within any WINDOW, unless the domain is still
 * heading for the kernel's OOM and a kill would free memory. kills 0
 * ("no"): no limit. */
struct cgoom_storm {
	unsigned kills;
	uint64_t window_us;
};
#define CGOOM_STORM_KILLS_MAX 64 /* the most a limit may allow */
/* The most a rate (thrash_refaults) may ask for: 1 TiB/s, far beyond any
 * memory's bandwidth, so the sums over it never come near 64 bits. */
#define CGOOM_RATE_MAX (1ULL << 40)

/* Resolves a share against a total in bytes. */
uint64_t cgoom_share_of(const struct cgoom_share *s, uint64_t total);

struct cgoom_cgroup_conf {
	char *path; /* normalized: "/" or "/a/b", no trailing slash; may be a
		     * pattern: each '*' matches any run of bytes within one
		     * path component (never a '/') */
	int line;   /* line of its first [cgroup "..."] header */
	unsigned n_stars;  /* '*' in path: 0 for an exact path */
	size_t n_literal;  /* bytes of path that are not '*' ('/' included) */
	unsigned depth;    /* path components: 0 for "/" */
	bool has_policy, has_pref, has_bias, has_delegate, has_margin, has_guard_band, has_kill_storm;
	enum cgoom_policy policy;
	enum cgoom_pref pref;
	int bias; /* -1000..1000 */
	bool delegate;
	struct cgoom_share margin;
	uint64_t guard_band; /* bytes; 0 = no guard band */
	struct cgoom_storm kill_storm;
	int policy_line, pref_line, bias_line, delegate_line, margin_line, guard_band_line;
	int kill_storm_line;
};

struct cgoom_config {
	/* [daemon] */
	struct cgoom_share mem_available_min; /* default 5% */
	struct cgoom_share swap_free_min;     /* default 10% */
	uint64_t psi_full_stall_us;           /* default 100ms */
	uint64_t psi_full_window_us;          /* default 1s */
	struct cgoom_share margin;            /* default 2% */
	uint64_t guard_band;                  /* default 0 ("no") */
	uint64_t kill_wait_us;                /* default 10s */
	uint64_t term_grace_us;               /* default 0 */
	struct cgoom_storm kill_storm;        /* default 3/1m */
	char *pre_kill_hook;                  /* NULL when unset */
	char *post_kill_hook;                 /* NULL when unset */
	char *event_log;                      /* NULL when unset */
	char *metrics_file;                   /* NULL when unset */
	uint64_t swap_stall_max_us;           /* default 25s: swap filling under a stall this long fires */
	uint64_t thrash_for_us;               /* default 2s: thrashing this long fires */
	uint64_t thrash_refaults;             /* default 15M (bytes/s of pages needed back),
					       * 1..CGOOM_RATE_MAX */

	struct cgoom_cgroup_conf *cgroups; /* in order of first appearance */
	size_t n_cgroups;
};

struct cgoom_config_error {
	int line; /* 1-based; 0 when not about a line */
	char msg[256];
};

/* Longest accepted line, in bytes, excluding the line ending. */
#define CGOOM_CONFIG_LINE_MAX 4096

/* Fills *c with the defaults above (no cgroup sections). */
void cgoom_config_init(struct cgoom_config *c);

/* Parses buf into *ret (which it initializes first). On error returns a
 * negative errno (-EINVAL for bad content, -ENOMEM), fills *err (may be
 * NULL) and leaves *ret empty (freed, back to the defaults). Rules:
 *  - lines end in LF or CRLF; a NUL or control byte (other than tab)
 *    anywhere, or a line over CGOOM_CONFIG_LINE_MAX bytes, is an error;
 *  - blank lines and lines starting with '#' or ';' are ignored; a value
 *    may be followed by " # comment" or " ; comment";
 *  - sections: [daemon] and [cgroup "PATH"]; PATH must be absolute,
 *    without "." or ".." components, NUL or control bytes; it is
 *    normalized (duplicate and trailing slashes dropped); a repeated
 *    section merges with the first; PATH may be a pattern where each
 *    '*' matches any run of bytes (also none) within one component
 *    ("/user.slice/user-*.slice", "/kubepods.slice/kubepods-*.slice"); "**" is
 *    an error (a '*' never crosses a '/');
 *  - a key outside a section, an unknown section or key, a bad value or
 *    the same key twice in one section is an error;
 *  - oom_policy = tree on [cgroup "/"] is an error (as in the seed).
 * Values: oom_policy none|cgroup|tree; preference omit|avoid|none|prefer;
 * bias -1000..1000; delegate yes|no (also true/false/1/0/on/off);
 * sizes 123, 64K, 64M, 1G, 1T (binary units, optional B/iB);
 * shares 5% or 2.5% or a size; durations 100ms, 1s, 2m, 500us (a bare
 * number is an error); psi_full STALL/WINDOW with STALL <= WINDOW;
 * guard_band no|SIZE; kill_storm no|KILLS/WINDOW (KILLS 1..64, a
 * WINDOW duration > 0); strings (pre_kill_hook, post_kill_hook, event_log, metrics_file)
 * taken verbatim after trimming, optionally in double quotes. */
int cgoom_config_parse(const char *buf, size_t len, struct cgoom_config *ret,
		       struct cgoom_config_error *err);

/* The section spelled exactly `path` (normalized; a pattern is found by
 * its own text), or NULL. Not which settings apply to a cgroup: see
 * cgoom_config_match(). */
const struct cgoom_cgroup_conf *cgoom_config_find(const struct cgoom_config *c, const char *path);

/* Whether a section path (a pattern, or an exact path) matches the
 * normalized cgroup path: as many components, and each pattern
 * component matches its path component with '*' matching any run of
 * bytes (also none). An exact section matches only its own path. */
bool cgoom_path_match(const char *pattern, const char *path);

/* The components of a cgroup path ("/" 0, "/a/b" 2; an empty component,
 * as in "/a//b", does not count). */
unsigned cgoom_path_depth(const char *path);

/* The keys of a [cgroup] section, one row each. */
enum cgoom_conf_key {
	CGOOM_CONF_POLICY,
	CGOOM_CONF_PREF,
	CGOOM_CONF_BIAS,
	CGOOM_CONF_DELEGATE,
	CGOOM_CONF_MARGIN,
	CGOOM_CONF_GUARD_BAND,
	CGOOM_CONF_KILL_STORM,
	CGOOM_CONF_KEY_MAX,
};

/* Which section decides each key for one cgroup (NULL: none sets it). */
struct cgoom_conf_match {
	const struct cgoom_cgroup_conf *by_key[CGOOM_CONF_KEY_MAX];
};

/* For every key, among the sections that match `path` and set that key,
 * the most specific decides: the one with the most literal bytes (every
 * byte of the normalized section path but '*', slashes included), then
 * the fewest '*', then the first in the file. So an exact path always
 * wins over a pattern (a pattern matching the same path has a '*' and
 * at most as many literal bytes), and keys a more specific section
 * leaves unset still come from a less specific one. */
void cgoom_config_match(const struct cgoom_config *c, const char *path,
			struct cgoom_conf_match *ret);

/* Sets hit[j] for each section j of c (c->n_cgroups of them) that
 * matches the normalized cgroup `path`, leaving the others as they
 * were: a caller that marks every cgroup of a tree finds the sections
 * that match none of it (a typo, a path given with the mount point in
 * front, or a cgroup that does not exist yet). */
void cgoom_config_mark_matches(const struct cgoom_config *c, const char *path, bool *hit);

/* For a section path written with a mount point in front
 * ("/sys/fs/cgroup/x" for "/x"), what follows it ("/x"; "/" for the
 * mount point itself); else NULL. Such a section matches nothing. */
const char *cgoom_config_past_mount(const char *path, const char *mount);

/* The section that decides `key` for `path`, or NULL (as above). */
const struct cgoom_cgroup_conf *cgoom_config_lookup(const struct cgoom_config *c, const char *path,
						    enum cgoom_conf_key key);

/* Whether section g sets key k. */
bool cgoom_conf_has(const struct cgoom_cgroup_conf *g, enum cgoom_conf_key k);

/* Line the key k was set on in section g (0 if it is not). */
int cgoom_conf_line(const struct cgoom_cgroup_conf *g, enum cgoom_conf_key k);

/* Normalizes a cgroup path as the config does: into ret (cap bytes).
 * -EINVAL if not absolute or it has "."/".." components or bad bytes,
 * -ENOBUFS if the result does not fit in cap. ret is written only on
 * success. */
int cgoom_path_normalize(const char *in, char *ret, size_t cap);

void cgoom_config_free(struct cgoom_config *c); /* accepts an empty config */

/* Value parsers, exported for tests and the CLI. Each takes a
 * NUL-terminated, already-trimmed string; -EINVAL for bad syntax,
 * -ERANGE for a number that overflows (or a share over 100%).
 * cgoom_parse_share: -EDOM for a bare number other than 0 ("5": 5 bytes
 * or 5%?), which needs a '%' or a size unit. */
int cgoom_parse_size(const char *s, uint64_t *ret);
int cgoom_parse_share(const char *s, struct cgoom_share *ret);
int cgoom_parse_duration_us(const char *s, uint64_t *ret);
