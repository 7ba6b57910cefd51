/* SPDX-License-Identifier: MIT */
#pragma once
/* Branch-and-bound test helpers for test-bound.c and test-bound-slack.c:
 * deferred leaves with a bound, and ranking + planning that leaves the
 * plan in g_plan. Header-only (each test has its own g_plan). */
#include <errno.h>

#include "snapbuild.h"
#include "tap.h"

static struct cgoom_plan g_plan; /* the last plan of select_in() */

#define CFG_CGROUP "[cgroup \"/\"]\noom_policy = cgroup\n"

static inline void set_stat(struct cgoom_cgroup *c, uint64_t anon_mib)
{
	memset(&c->stat, 0, sizeof(c->stat));
	c->stat_ok = true;
	c->stat.active_anon = anon_mib * MiB;
	c->stat.anon = anon_mib * MiB;
	c->stat.present = CGOOM_MEMSTAT_FOOTPRINT_KEYS | CGOOM_MEMSTAT_ANON;
}

/* Cgroup i as the lazy reader leaves a childless memcg: no memory.stat,
 * no processes, only its bound (memory.current + memory.swap.current). */
static inline void defer(struct cgoom_snapshot *s, int i, uint64_t bound_mib)
{
	struct cgoom_cgroup *c = &s->cgroups[i];
	memset(&c->stat, 0, sizeof(c->stat));
	c->stat_ok = false;
	c->deferred = c->stat_deferred = true;
	c->current_ok = true;
	c->current = bound_mib * MiB;
	c->swap_current = 0;
}

/* A stat_deferred leaf with this bound. */
static inline int dleaf(struct cgoom_snapshot *s, const char *path, uint64_t bound_mib)
{
	int i = sb_cg(s, path, 0);
	defer(s, i, bound_mib);
	return i;
}

/* A deferred leaf whose memory.stat was read (footprint exact, body not). */
static inline int sleaf(struct cgoom_snapshot *s, const char *path, uint64_t anon_mib)
{
	int i = sb_cg(s, path, anon_mib);
	s->cgroups[i].deferred = true;
	return i;
}

static inline int cmp_int(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;
	return (x > y) - (x < y);
}

/* Whether the plan asks for exactly the NULL-terminated paths. */
static inline bool needs_are(const struct cgoom_snapshot *s, const char *const *paths)
{
	int want[64];
	size_t n = 0;
	for (; paths[n]; n++)
		want[n] = sb_idx((struct cgoom_snapshot *)s, paths[n]);
	qsort(want, n, sizeof(int), cmp_int);
	bool ok = n == g_plan.n_cgroups;
	for (size_t i = 0; ok && i < n; i++)
		ok = want[i] == g_plan.cgroups[i];
	if (!ok) {
		printf("# needs (%zu):", g_plan.n_cgroups);
		for (size_t i = 0; i < g_plan.n_cgroups; i++)
			printf(" %s", s->cgroups[g_plan.cgroups[i]].path);
		printf("; expected (%zu):", n);
		for (size_t i = 0; i < n; i++)
			printf(" %s", s->cgroups[want[i]].path);
		printf("\n");
	}
	return ok;
}
#define CHECK_NEEDS(s, d, ...) CHECK(((void)(d), needs_are((s), (const char *const[]){ __VA_ARGS__, NULL })))

/* Ranks and plans; decides when the plan is DONE (else no victim and
 * g_plan says what to read). */
static inline int select_in(struct cgoom_snapshot *s, const char *domain, struct cgoom_decision *d)
{
	int r = cgoom_rank(s, &sb_set, sb_idx(s, domain), d);
	if (r == 0)
		r = cgoom_plan(s, &sb_set, d, &g_plan);
	if (r == 0 && g_plan.kind == CGOOM_PLAN_DONE)
		r = cgoom_decide(s, &sb_set, d);
	return r;
}
