/* SPDX-License-Identifier: MIT */
/* Branch and bound's bound: memory.stat may lead memory.current by the
 * kernel's unflushed per-CPU stat deltas (cgoom_stat_slack), and a
 * cgroup may grow past the bound the walk read. Split from test-bound.c
 * (the plan's rules). */
#include "bound-helpers.h"

/* ---- l. memory.stat may lead memory.current (unflushed per-CPU deltas) ---- */

static void test_stat_slack(void)
{
	struct cgoom_snapshot s;
	sb_init(&s, 1000);
	s.n_cpus = 0; /* unknown: no bound at all */
	CHECK_EQ_U64(cgoom_stat_slack(&s), UINT64_MAX);
	s.n_cpus = 2; /* 3 * 64 + 1 pages of 4 KiB per CPU */
	CHECK_EQ_U64(cgoom_stat_slack(&s), 2 * 193 * 4096);
	s.n_cpus = 8;
	s.page_size = 65536;
	CHECK_EQ_U64(cgoom_stat_slack(&s), 8 * 193 * 65536);
	s.n_cpus = 4096;
	s.page_size = UINT64_MAX / 1000; /* saturates, never wraps */
	CHECK_EQ_U64(cgoom_stat_slack(&s), UINT64_MAX);
	s.page_size = 4096;
	s.n_cpus = 2;
	int i = dleaf(&s, "/a", 100);
	s.cgroups[i].swap_current = 5 * MiB;
	CHECK_EQ_U64(cgoom_memcg_bound(&s, i), 105 * MiB + 2 * 193 * 4096);
	s.cgroups[i].current = UINT64_MAX - MiB;
	CHECK_EQ_U64(cgoom_memcg_bound(&s, i), UINT64_MAX);
	cgoom_snapshot_free(&s);
}

/* /b's memory.stat says 101 MiB while its memory.current says 99.5: the
 * leader /a (100 MiB, exact) must not prune it, on 2 CPUs (1.51 MiB of
 * slack) nor with the CPU count unknown (no bound: /b is read). */
static void test_stat_leads_current(void)
{
	for (unsigned cpus = 0; cpus <= 2; cpus += 2) {
		struct cgoom_snapshot s;
		sb_init(&s, 1000);
		s.n_cpus = cpus;
		sb_cg(&s, "/a", 100);
		sb_proc(&s, 10, "/a", 100, 0);
		int b = dleaf(&s, "/b", 99);
		s.cgroups[b].current += MiB / 2;
		dleaf(&s, "/c", 50);
		struct cgoom_config c = cfg_of(CFG_CGROUP);
		sb_done(&s, &c);
		struct cgoom_decision d;
		cgoom_decision_init(&d);
		CHECK_EQ_INT(select_in(&s, "/", &d), 0);
		CHECK(!d.has_victim && (g_plan.kind == CGOOM_PLAN_STATS));
		if (cpus)
			CHECK_NEEDS(&s, &d, "/b"); /* 99.5 + 1.51 > 100; /c: 50 + 1.51 < 100 */
		else
			CHECK_NEEDS(&s, &d, "/b", "/c");
		/* its memory.stat, read: 101 MiB (and a body of one process) */
		set_stat(&s.cgroups[b], 101);
		s.cgroups[b].stat_deferred = s.cgroups[b].deferred = false;
		sb_proc(&s, 20, "/b", 101, 0);
		if (!cpus) {
			int ci = sb_idx(&s, "/c");
			set_stat(&s.cgroups[ci], 50);
			s.cgroups[ci].stat_deferred = false;
		}
		CHECK_EQ_INT(cgoom_snapshot_finalize(&s), 0);
		CHECK_EQ_INT(select_in(&s, "/", &d), 0);
		CHECK_EQ_INT(g_plan.n_cgroups, 0);
		CHECK(d.has_victim);
		CHECK_EQ_INT(d.victim_cgroup, b);
		CHECK_EQ_INT(d.victim_pid, 20);
		cgoom_decision_free(&d);
		cgoom_config_free(&c);
		cgoom_snapshot_free(&s);
	}
}

/* The slack is (3 * 64 + 1) pages per CPU, no more (select.c): on 8
 * CPUs a leaf 7 MiB under the leader's footprint cannot beat it (its
 * bound: 93 + 6.03 MiB), and is not read; with 4 * 64 pages (8 MiB) it
 * was. */
static void test_slack_tight_prunes(void)
{
	struct cgoom_snapshot s;
	sb_init(&s, 1000);
	s.n_cpus = 8;
	sb_cg(&s, "/a", 100);
	sb_proc(&s, 10, "/a", 100, 0);
	int b = dleaf(&s, "/b", 93);
	int c2 = dleaf(&s, "/c", 94); /* 94 + 6.03 > 100: read */
	struct cgoom_config c = cfg_of(CFG_CGROUP);
	sb_done(&s, &c);
	struct cgoom_decision d;
	cgoom_decision_init(&d);
	CHECK_EQ_INT(select_in(&s, "/", &d), 0);
	CHECK(g_plan.kind == CGOOM_PLAN_STATS);
	CHECK_NEEDS(&s, &d, "/c");
	set_stat(&s.cgroups[c2], 94);
	s.cgroups[c2].stat_deferred = false;
	CHECK_EQ_INT(cgoom_snapshot_finalize(&s), 0);
	CHECK_EQ_INT(select_in(&s, "/", &d), 0);
	CHECK(g_plan.kind == CGOOM_PLAN_DONE);
	CHECK(d.has_victim);
	CHECK_EQ_INT(d.victim_pid, 10);
	CHECK(s.cgroups[b].stat_deferred);
	cgoom_decision_free(&d);
	cgoom_config_free(&c);
	cgoom_snapshot_free(&s);
}

/* A memory.stat read alone (body deferred) above the bound of the walk's
 * memory.current: the cgroup may have grown since; only it is read again
 * whole (a fresh memory.current), not everything. Still above its bound
 * once read whole: everything is read (the bound failed). */
static void test_grown_since_walk(void)
{
	for (int fresh_cur = 0; fresh_cur <= 1; fresh_cur++) {
		struct cgoom_snapshot s;
		sb_init(&s, 1000);
		s.n_cpus = 1;
		int a = sleaf(&s, "/a", 120); /* stat read: 120 MiB */
		s.cgroups[a].current = 100 * MiB; /* from the walk, before it grew */
		dleaf(&s, "/b", 90);
		dleaf(&s, "/c", 80);
		struct cgoom_config c = cfg_of(CFG_CGROUP);
		sb_done(&s, &c);
		struct cgoom_decision d;
		cgoom_decision_init(&d);
		CHECK_EQ_INT(select_in(&s, "/", &d), 0);
		CHECK(g_plan.kind == CGOOM_PLAN_BODIES && !g_plan.bound_broken);
		CHECK_NEEDS(&s, &d, "/a");
		/* read whole: its processes, and memory.current again */
		s.cgroups[a].deferred = false;
		s.cgroups[a].current = fresh_cur ? 121 * MiB : 100 * MiB;
		sb_proc(&s, 10, "/a", 120, 0);
		CHECK_EQ_INT(cgoom_snapshot_finalize(&s), 0);
		CHECK_EQ_INT(select_in(&s, "/", &d), 0);
		if (fresh_cur) {
			CHECK(g_plan.kind == CGOOM_PLAN_DONE);
			CHECK(d.has_victim);
			CHECK_EQ_INT(d.victim_pid, 10);
			CHECK(s.cgroups[sb_idx(&s, "/b")].stat_deferred);
		} else {
			CHECK(g_plan.kind == CGOOM_PLAN_BODIES && g_plan.bound_broken);
			CHECK_NEEDS(&s, &d, "/b", "/c");
		}
		cgoom_decision_free(&d);
		cgoom_config_free(&c);
		cgoom_snapshot_free(&s);
	}
}

int main(void)
{
	int rc = tap_run((struct tap_test[]){
		TAP(test_stat_slack),
		TAP(test_stat_leads_current),
		TAP(test_slack_tight_prunes),
		TAP(test_grown_since_walk),
		{ 0 },
	});
	cgoom_plan_free(&g_plan);
	return rc;
}
