/* SPDX-License-Identifier: MIT */
/* Branch and bound: deferred cgroups, their bounds, and which of them
 * the plan asks for (cgoom_rank -> cgoom_plan -> cgoom_decide). */
#include "bound-helpers.h"

/* ---- a. the lazy answer is the all-read answer ---- */

struct spec {
	const char *path;
	uint64_t anon;  /* true footprint, MiB */
	uint64_t bound; /* 0: read up front; else deferred with this bound (MiB) */
	int pid[2];     /* 0: none */
	uint64_t rss[2];
	int adj;        /* of pid[0] */
};

static const struct spec eq_tree[] = {
	{ "/a", 300, 320, { 11, 12 }, { 200, 100 }, 0 },
	{ "/b", 120, 310, { 21, 0 }, { 120, 0 }, 0 },   /* a high bound, a small truth */
	{ "/c", 80, 90, { 31, 0 }, { 80, 0 }, 0 },      /* below every leader */
	{ "/d", 305, 0, { 0, 0 }, { 0, 0 }, 0 },
	{ "/d/d1", 255, 0, { 41, 42 }, { 150, 105 }, 0 },
	{ "/d/d2", 50, 60, { 43, 0 }, { 50, 0 }, 0 },
	{ "/e", 200, 0, { 51, 0 }, { 200, 0 }, 0 },
	{ "/f", 350, 400, { 61, 0 }, { 350, 0 }, -1000 }, /* largest, but protected */
};
#define N_EQ (sizeof(eq_tree) / sizeof(eq_tree[0]))

static void add_procs(struct cgoom_snapshot *s, const struct spec *sp)
{
	for (int k = 0; k < 2; k++)
		if (sp->pid[k])
			sb_proc(s, sp->pid[k], sp->path, sp->rss[k], k == 0 ? sp->adj : 0);
}

static void build_eq(struct cgoom_snapshot *s, bool lazy)
{
	sb_init(s, 2000);
	s->n_cpus = 1; /* bound: current + 1 MiB */
	for (size_t i = 0; i < N_EQ; i++) {
		int idx = sb_cg(s, eq_tree[i].path, eq_tree[i].anon);
		if (lazy && eq_tree[i].bound)
			defer(s, idx, eq_tree[i].bound);
		else
			add_procs(s, &eq_tree[i]);
	}
}

/* Reads what d needs, by hand, from eq_tree; counts per spec. Returns
 * the number of problems (a need that is not deferred, or not
 * stat_deferred in a needs_stat batch). */
static int expand_eq(struct cgoom_snapshot *s, int *stat_reads,
		     int *body_reads)
{
	int bad = 0;
	for (size_t k = 0; k < g_plan.n_cgroups; k++) {
		struct cgoom_cgroup *c = &s->cgroups[g_plan.cgroups[k]];
		size_t j = 0;
		while (j < N_EQ && strcmp(eq_tree[j].path, c->path) != 0)
			j++;
		if (j == N_EQ || !c->deferred || ((g_plan.kind == CGOOM_PLAN_STATS) && !c->stat_deferred)) {
			printf("# needed but not %s: %s\n", (g_plan.kind == CGOOM_PLAN_STATS) ? "stat_deferred" : "deferred",
			       c->path);
			bad++;
			continue;
		}
		set_stat(c, eq_tree[j].anon);
		c->stat_deferred = false;
		if (g_plan.kind == CGOOM_PLAN_STATS) {
			stat_reads[j]++;
			continue;
		}
		c->deferred = false;
		add_procs(s, &eq_tree[j]);
		body_reads[j]++;
	}
	if (cgoom_snapshot_finalize(s) < 0)
		bad++;
	return bad;
}

static void equivalence(const char *cfgtext, const char *want_cg, int want_pid, int want_rounds)
{
	struct cgoom_config c = cfg_of(cfgtext);
	struct cgoom_snapshot full, lazy;
	build_eq(&full, false);
	sb_done(&full, &c);
	struct cgoom_decision fd = sb_select(&full, "/");
	CHECK(fd.has_victim);
	CHECK_STREQ(full.cgroups[fd.victim_cgroup].path, want_cg);
	CHECK_EQ_INT(fd.victim_pid, want_pid);

	build_eq(&lazy, true);
	sb_done(&lazy, &c);
	int stat_reads[N_EQ] = { 0 }, body_reads[N_EQ] = { 0 };
	struct cgoom_decision d;
	cgoom_decision_init(&d);
	int rounds = 0;
	for (;;) {
		CHECK_EQ_INT(select_in(&lazy, "/", &d), 0);
		if (g_plan.n_cgroups == 0)
			break;
		CHECK(!d.has_victim);
		CHECK_EQ_INT(expand_eq(&lazy, stat_reads, body_reads), 0);
		CHECK(++rounds < 10);
	}
	CHECK_EQ_INT(rounds, want_rounds);
	CHECK(d.has_victim);
	CHECK_EQ_INT(d.victim_cgroup, fd.victim_cgroup);
	CHECK_EQ_INT(d.victim_pid, fd.victim_pid);
	CHECK_EQ_INT(d.n_pids, fd.n_pids);
	for (size_t i = 0; i < d.n_pids; i++)
		CHECK_EQ_INT(d.pids[i], fd.pids[i]);
	CHECK_EQ_U64(d.candidates[0].footprint, fd.candidates[0].footprint);
	CHECK(!d.candidates[0].bounded && !d.candidates[0].unchecked);

	/* pruning: leaves whose bound is below the winner never read at all */
	int pruned = 0;
	for (size_t j = 0; j < N_EQ; j++) {
		CHECK(stat_reads[j] <= 1 && body_reads[j] <= 1);
		if (eq_tree[j].bound && eq_tree[j].bound * MiB < fd.candidates[0].footprint &&
		    stat_reads[j] + body_reads[j] == 0)
			pruned++;
	}
	CHECK(pruned >= 1);
	CHECK_EQ_INT(stat_reads[2] + body_reads[2], 0); /* /c */
	CHECK_EQ_INT(body_reads[1], 0);                 /* /b: its stat sufficed */
	CHECK_EQ_INT(stat_reads[1], 1);
	CHECK_EQ_INT(body_reads[7], 1); /* /f: read to find it protected */
	cgoom_decision_free(&d);
	cgoom_decision_free(&fd);
	cgoom_snapshot_free(&lazy);
	cgoom_snapshot_free(&full);
	cgoom_config_free(&c);
}

static void test_equivalence_cgroup(void)
{
	/* /f 400 /a 320 /b 310 bounded over /d/d1 255: stat of those three;
	 * then /f, /a unchecked over /d/d1: their bodies; /a exact first */
	equivalence(CFG_CGROUP, "/a", 11, 2);
}

static void test_equivalence_tree(void)
{
	equivalence(CFG_CGROUP "[cgroup \"/d\"]\noom_policy = tree\n", "/d", 41, 2);
}

/* ---- b. bounds above the exact leader are asked for, below not ---- */

static void test_bound_above_leader_needed(void)
{
	struct cgoom_snapshot s;
	sb_init(&s, 1000);
	s.n_cpus = 1; /* bound: current + 193 pages (772 KiB) */
	sb_cg(&s, "/x", 200);
	sb_proc(&s, 10, "/x", 200, 0);
	dleaf(&s, "/hi", 300);
	dleaf(&s, "/lo", 100);
	struct cgoom_config c = cfg_of(CFG_CGROUP);
	sb_done(&s, &c);
	struct cgoom_decision d;
	cgoom_decision_init(&d);
	CHECK_EQ_INT(select_in(&s, "/", &d), 0);
	CHECK(!d.has_victim);
	CHECK(g_plan.kind == CGOOM_PLAN_STATS);
	CHECK_NEEDS(&s, &d, "/hi");
	CHECK_EQ_INT(d.victim_pid, -1);
	CHECK_EQ_INT(d.candidates[0].cgroup, sb_idx(&s, "/hi"));
	CHECK(d.candidates[0].bounded && d.candidates[0].unchecked && d.candidates[0].eligible);
	CHECK_EQ_U64(d.candidates[0].footprint, 300 * MiB + 193 * 4096); /* + the stat slack */

	/* /hi is really 150: /x leads, /lo (100) stays unread */
	set_stat(&s.cgroups[sb_idx(&s, "/hi")], 150);
	s.cgroups[sb_idx(&s, "/hi")].stat_deferred = false;
	CHECK_EQ_INT(cgoom_snapshot_finalize(&s), 0);
	CHECK_EQ_INT(select_in(&s, "/", &d), 0);
	CHECK_EQ_INT(g_plan.n_cgroups, 0);
	CHECK(d.has_victim);
	CHECK_EQ_INT(d.victim_pid, 10);
	CHECK(s.cgroups[sb_idx(&s, "/lo")].stat_deferred);
	cgoom_decision_free(&d);
	cgoom_config_free(&c);
	cgoom_snapshot_free(&s);
}

/* ---- c. bodies that turn out empty: the batch doubles, no rounds kept ---- */

static void test_bodies_batch_doubles(void)
{
	static const char *const leaves[] = { "/p", "/q", "/r", "/s", "/t", "/u", "/v" };
	struct cgoom_snapshot s;
	sb_init(&s, 1000);
	s.n_cpus = 1;
	for (int i = 0; i < 7; i++)
		sleaf(&s, leaves[i], 300 - (uint64_t)i * 10); /* exact, processes unread */
	sb_cg(&s, "/x", 50);
	sb_proc(&s, 10, "/x", 50, 0);
	struct cgoom_config c = cfg_of(CFG_CGROUP);
	sb_done(&s, &c);
	struct cgoom_decision d;
	cgoom_decision_init(&d);
	/* each read finds only a protected process; a batch is 1 + the
	 * leaves read whole so far (/x, then those): 2, then 4, then 8 */
	static const int want[][5] = { { 0, 1, -1 }, { 2, 3, 4, 5, -1 }, { 6, -1 } };
	for (int round = 0; round < 3; round++) {
		CHECK_EQ_INT(select_in(&s, "/", &d), 0);
		CHECK(g_plan.kind == CGOOM_PLAN_BODIES && !d.has_victim);
		size_t n = 0;
		for (; want[round][n] >= 0; n++)
			CHECK_EQ_INT(g_plan.cgroups[n], sb_idx(&s, leaves[want[round][n]]));
		CHECK_EQ_INT(g_plan.n_cgroups, n);
		/* the same snapshot, the same plan: nothing carried between calls */
		CHECK_EQ_INT(select_in(&s, "/", &d), 0);
		CHECK_EQ_INT(g_plan.n_cgroups, n);
		for (size_t k = 0; k < n; k++) {
			int i = g_plan.cgroups[k];
			s.cgroups[i].deferred = false;
			sb_proc(&s, 100 + i, s.cgroups[i].path, 10, -1000);
		}
		CHECK_EQ_INT(cgoom_snapshot_finalize(&s), 0);
	}
	CHECK_EQ_INT(select_in(&s, "/", &d), 0);
	CHECK(g_plan.kind == CGOOM_PLAN_DONE && d.has_victim);
	CHECK_EQ_INT(d.victim_pid, 10);
	cgoom_decision_free(&d);
	cgoom_config_free(&c);
	cgoom_snapshot_free(&s);
}

/* ---- d. policy none reads the whole domain ---- */

static void test_policy_none_needs_all(void)
{
	struct cgoom_snapshot s;
	sb_init(&s, 1000);
	s.n_cpus = 1; /* bound: current + 1 MiB */
	sb_cg(&s, "/g", 400);
	dleaf(&s, "/g/x", 100);
	sleaf(&s, "/g/y", 50);
	sb_cg(&s, "/g/z", 250);
	sb_proc(&s, 30, "/g/z", 250, 0);
	dleaf(&s, "/out", 5);
	sb_done(&s, NULL);
	struct cgoom_decision d;
	cgoom_decision_init(&d);
	CHECK_EQ_INT(select_in(&s, "/", &d), 0);
	CHECK_EQ_INT(d.policy, CGOOM_POLICY_NONE);
	CHECK(!d.has_victim && !(g_plan.kind == CGOOM_PLAN_STATS));
	CHECK_NEEDS(&s, &d, "/g/x", "/g/y", "/out");
	/* a domain below: only its own subtree */
	CHECK_EQ_INT(select_in(&s, "/g", &d), 0);
	CHECK(!d.has_victim && !(g_plan.kind == CGOOM_PLAN_STATS));
	CHECK_NEEDS(&s, &d, "/g/x", "/g/y");
	cgoom_decision_free(&d);
	cgoom_snapshot_free(&s);
}

/* ---- e. a victim in flight: located, not everything read ---- */

static void test_inflight_located(void)
{
	struct cgoom_snapshot s;
	sb_init(&s, 1000);
	s.n_cpus = 1; /* bound: current + 1 MiB */
	sb_cg(&s, "/big", 500);
	sb_proc(&s, 10, "/big", 500, 0);
	int s1 = dleaf(&s, "/s1", 10);
	dleaf(&s, "/s2", 20);
	struct cgoom_config c = cfg_of(CFG_CGROUP);
	sb_done(&s, &c);
	struct cgoom_decision d;
	cgoom_decision_init(&d);
	/* without one, the small bounds are pruned */
	CHECK_EQ_INT(select_in(&s, "/", &d), 0);
	CHECK_EQ_INT(g_plan.kind, CGOOM_PLAN_DONE);
	CHECK_EQ_INT(d.victim_pid, 10);
	static const int inflight[] = { 41 };
	s.inflight = inflight;
	s.n_inflight = 1;
	/* 41 is not in the snapshot: locate it first, read nothing else */
	CHECK_EQ_INT(select_in(&s, "/", &d), 0);
	CHECK_EQ_INT(g_plan.kind, CGOOM_PLAN_LOCATE);
	CHECK(!d.has_victim && !d.inflight);
	CHECK_EQ_INT(g_plan.n_pids, 1);
	CHECK_EQ_INT(g_plan.pids[0], 41);
	CHECK_EQ_INT(g_plan.n_cgroups, 0);
	/* located and gone: the answer without reading /s1 or /s2 */
	s.inflight_located = true;
	CHECK_EQ_INT(select_in(&s, "/", &d), 0);
	CHECK_EQ_INT(g_plan.kind, CGOOM_PLAN_DONE);
	CHECK(!d.inflight && d.has_victim);
	CHECK_EQ_INT(d.victim_pid, 10);
	/* located in /s1 (which the reader read), still dying: wait */
	set_stat(&s.cgroups[s1], 10);
	s.cgroups[s1].deferred = s.cgroups[s1].stat_deferred = false;
	sb_proc(&s, 41, "/s1", 10, 0);
	CHECK_EQ_INT(cgoom_snapshot_finalize(&s), 0);
	CHECK_EQ_INT(select_in(&s, "/", &d), 0);
	CHECK_EQ_INT(g_plan.kind, CGOOM_PLAN_DONE);
	CHECK(d.inflight && !d.has_victim);
	CHECK_EQ_INT(d.inflight_pid, 41);
	CHECK(s.cgroups[sb_idx(&s, "/s2")].deferred); /* never needed */
	/* in flight in another domain: no abort there, nothing read */
	CHECK_EQ_INT(select_in(&s, "/big", &d), 0);
	CHECK(!d.inflight && d.has_victim);
	cgoom_decision_free(&d);
	cgoom_config_free(&c);
	cgoom_snapshot_free(&s);
}

/* ---- f. a deferred domain is read first ---- */

static void test_deferred_domain(void)
{
	struct cgoom_snapshot s;
	sb_init(&s, 1000);
	s.n_cpus = 1; /* bound: current + 1 MiB */
	dleaf(&s, "/leaf", 300);
	dleaf(&s, "/other", 900);
	struct cgoom_config c = cfg_of("[cgroup \"/leaf\"]\noom_policy = cgroup\n");
	sb_done(&s, &c);
	struct cgoom_decision d;
	cgoom_decision_init(&d);
	CHECK_EQ_INT(select_in(&s, "/leaf", &d), 0);
	CHECK(!d.has_victim && !(g_plan.kind == CGOOM_PLAN_STATS));
	CHECK_NEEDS(&s, &d, "/leaf");
	CHECK_EQ_INT(g_plan.kind, CGOOM_PLAN_BODIES);
	cgoom_decision_free(&d);
	cgoom_config_free(&c);
	cgoom_snapshot_free(&s);
}

/* ---- g. omitted deferred leaves are neither candidates nor needed ---- */

static void test_deferred_omit_ignored(void)
{
	struct cgoom_snapshot s;
	sb_init(&s, 2000);
	s.n_cpus = 1; /* bound: current + 1 MiB */
	int om = dleaf(&s, "/om", 900);
	sb_cg(&s, "/og", 800);
	int ogx = dleaf(&s, "/og/x", 800); /* omit inherited from /og */
	sb_cg(&s, "/w", 100);
	sb_proc(&s, 10, "/w", 100, 0);
	struct cgoom_config c = cfg_of(CFG_CGROUP "[cgroup \"/om\"]\npreference = omit\n"
					      "[cgroup \"/og\"]\npreference = omit\n");
	sb_done(&s, &c);
	CHECK_EQ_INT(sb_set.cgroups[ogx].pref.value, CGOOM_PREF_OMIT);
	struct cgoom_decision d;
	cgoom_decision_init(&d);
	CHECK_EQ_INT(select_in(&s, "/", &d), 0);
	CHECK_EQ_INT(g_plan.n_cgroups, 0);
	CHECK(d.has_victim);
	CHECK_STREQ(s.cgroups[d.victim_cgroup].path, "/w");
	CHECK_EQ_INT(d.victim_pid, 10);
	for (size_t i = 0; i < d.n_candidates; i++)
		CHECK(d.candidates[i].cgroup != om && d.candidates[i].cgroup != ogx);
	cgoom_decision_free(&d);
	cgoom_config_free(&c);
	cgoom_snapshot_free(&s);
}

/* ---- h. the oom.group scope is read whole before killing ---- */

static void test_oom_group_scope_needs(void)
{
	struct cgoom_snapshot s;
	sb_init(&s, 1000);
	s.n_cpus = 1; /* bound: current + 1 MiB */
	sb_cg(&s, "/job", 510);
	sb_cg(&s, "/job/w", 500);
	sb_proc(&s, 20, "/job/w", 300, 0);
	sb_proc(&s, 22, "/job/w", 200, 0);
	int z = dleaf(&s, "/job/z", 10);
	sb_cg(&s, "/other", 100);
	sb_proc(&s, 30, "/other", 100, 0);
	dleaf(&s, "/tiny", 5);
	s.cgroups[sb_idx(&s, "/job")].oom_group = true;
	struct cgoom_config c = cfg_of(CFG_CGROUP);
	sb_done(&s, &c);
	struct cgoom_decision d;
	cgoom_decision_init(&d);
	CHECK_EQ_INT(select_in(&s, "/", &d), 0);
	CHECK(!d.has_victim && !(g_plan.kind == CGOOM_PLAN_STATS));
	CHECK_NEEDS(&s, &d, "/job/z"); /* not /tiny: outside the scope */
	CHECK_EQ_INT(d.victim_pid, -1);
	CHECK_EQ_INT(d.victim_cgroup, -1);
	CHECK_EQ_INT(d.n_pids, 0);

	set_stat(&s.cgroups[z], 10);
	s.cgroups[z].deferred = s.cgroups[z].stat_deferred = false;
	sb_proc(&s, 40, "/job/z", 10, 0);
	CHECK_EQ_INT(cgoom_snapshot_finalize(&s), 0);
	CHECK_EQ_INT(select_in(&s, "/", &d), 0);
	CHECK_EQ_INT(g_plan.n_cgroups, 0);
	CHECK(d.has_victim);
	CHECK_STREQ(s.cgroups[d.victim_cgroup].path, "/job/w");
	CHECK_EQ_INT(d.victim_pid, 20);
	CHECK_EQ_INT(d.scope, sb_idx(&s, "/job"));
	CHECK_EQ_INT(d.n_pids, 3);
	CHECK_EQ_INT(d.pids[0], 20);
	CHECK_EQ_INT(d.pids[1], 22);
	CHECK_EQ_INT(d.pids[2], 40);
	cgoom_decision_free(&d);
	cgoom_config_free(&c);
	cgoom_snapshot_free(&s);
}

/* ---- i. the root's footprint is bounded by stat_deferred children ---- */

static void test_bounded_root(void)
{
	struct cgoom_snapshot s;
	sb_init(&s, 1000);
	s.n_cpus = 1; /* bound: current + 1 MiB */
	sb_proc(&s, 50, "/", 600, 0);
	sb_cg(&s, "/t1", 400);
	sb_proc(&s, 10, "/t1", 400, 0);
	int t2 = dleaf(&s, "/t2", 100);
	sb_cg(&s, "/t3", 50);
	dleaf(&s, "/t3/x", 40); /* not top-level: the root's bound holds without it */
	struct cgoom_config c = cfg_of(CFG_CGROUP);
	sb_done(&s, &c);
	struct cgoom_decision d;
	cgoom_decision_init(&d);
	CHECK_EQ_INT(select_in(&s, "/", &d), 0);
	/* root 1000 - 400 - 50 = 550 (t2 as 0), /t1 400 exact, /t2 100 */
	CHECK_EQ_INT(d.candidates[0].kind, CGOOM_KIND_ROOT);
	CHECK(d.candidates[0].bounded);
	CHECK_EQ_U64(d.candidates[0].footprint, 550 * MiB);
	CHECK(!d.has_victim && (g_plan.kind == CGOOM_PLAN_STATS));
	CHECK_NEEDS(&s, &d, "/t2");

	set_stat(&s.cgroups[t2], 80);
	s.cgroups[t2].stat_deferred = false;
	CHECK_EQ_INT(cgoom_snapshot_finalize(&s), 0);
	CHECK_EQ_INT(select_in(&s, "/", &d), 0);
	CHECK_EQ_INT(g_plan.n_cgroups, 0);
	CHECK(d.has_victim);
	CHECK_EQ_INT(d.candidates[0].kind, CGOOM_KIND_ROOT);
	CHECK(!d.candidates[0].bounded);
	CHECK_EQ_U64(d.candidates[0].footprint, 470 * MiB);
	CHECK_EQ_INT(d.victim_pid, 50);
	CHECK(s.cgroups[sb_idx(&s, "/t3/x")].stat_deferred); /* pruned */
	cgoom_decision_free(&d);
	cgoom_config_free(&c);
	cgoom_snapshot_free(&s);
}

/* ---- j. nothing deferred, nothing needed ---- */

static void test_no_deferred_no_needs(void)
{
	static const char *const cfgs[] = {
		"",
		CFG_CGROUP,
		CFG_CGROUP "[cgroup \"/cg3\"]\noom_policy = tree\n",
	};
	static const int inflight[] = { 9999 };
	for (size_t k = 0; k < 2 * sizeof(cfgs) / sizeof(cfgs[0]); k++) {
		struct cgoom_snapshot s;
		seed_table(&s);
		struct cgoom_config c = cfg_of(cfgs[k % 3]);
		sb_done(&s, &c);
		if (k >= 3) {
			s.inflight = inflight; /* not in the snapshot: no abort */
			s.n_inflight = 1;
		}
		for (const char *const *dom = (const char *const[]){ "/", "/cg3", NULL }; *dom; dom++) {
			struct cgoom_decision d;
			cgoom_decision_init(&d);
			CHECK_EQ_INT(select_in(&s, *dom, &d), 0);
			CHECK_EQ_INT(g_plan.n_cgroups, 0);
			CHECK(!(g_plan.kind == CGOOM_PLAN_STATS));
			CHECK(d.has_victim);
			for (size_t i = 0; i < d.n_candidates; i++)
				CHECK(!d.candidates[i].bounded && !d.candidates[i].unchecked);
			cgoom_decision_free(&d);
		}
		cgoom_config_free(&c);
		cgoom_snapshot_free(&s);
	}
}

/* ---- more: a needs_stat batch lists only cgroups whose stat is unread ---- */

static void test_stat_needs_only_stat_deferred(void)
{
	struct cgoom_snapshot s;
	sb_init(&s, 1000);
	s.n_cpus = 1; /* bound: current + 193 pages (772 KiB) */
	sb_cg(&s, "/t", 400);
	dleaf(&s, "/t/a", 300);
	sleaf(&s, "/t/b", 100); /* deferred, its memory.stat read */
	sb_cg(&s, "/x", 50);
	sb_proc(&s, 10, "/x", 50, 0);
	struct cgoom_config c = cfg_of(CFG_CGROUP "[cgroup \"/t\"]\noom_policy = tree\n");
	sb_done(&s, &c);
	struct cgoom_decision d;
	cgoom_decision_init(&d);
	CHECK_EQ_INT(select_in(&s, "/", &d), 0);
	CHECK_EQ_INT(d.candidates[0].kind, CGOOM_KIND_TREE);
	/* the bound of /t/a, 300 + the slack, and /t/b, 100 */
	CHECK_EQ_U64(d.candidates[0].footprint, 400 * MiB + 193 * 4096);
	CHECK(d.candidates[0].bounded);
	CHECK(g_plan.kind == CGOOM_PLAN_STATS);
	CHECK_NEEDS(&s, &d, "/t/a");
	cgoom_decision_free(&d);
	cgoom_config_free(&c);
	cgoom_snapshot_free(&s);
}

/* ---- more: the root and its children in one batch fit in needs ---- */

static void test_root_batch_fits(void)
{
	struct cgoom_snapshot s;
	sb_init(&s, 4000);
	s.n_cpus = 1; /* bound: current + 1 MiB */
	sb_proc(&s, 50, "/", 100, 0);
	char path[16];
	for (int i = 0; i < 12; i++) {
		snprintf(path, sizeof(path), "/k%02d", i);
		dleaf(&s, path, 200 + (uint64_t)i);
	}
	sb_cg(&s, "/e", 50);
	sb_proc(&s, 10, "/e", 50, 0);
	struct cgoom_config c = cfg_of(CFG_CGROUP);
	sb_done(&s, &c);
	/* root (bounded, first) and each /kNN come before /e: the root
	 * lists the 12 children and each child itself, 24 entries before
	 * dedupe in a snapshot of 14 cgroups: the plan has room for them
	 * all (ASan would see a write past it). */
	struct cgoom_decision d;
	cgoom_decision_init(&d);
	size_t n = s.n_cgroups;
	CHECK_EQ_INT(select_in(&s, "/", &d), 0);
	CHECK(g_plan.cap_cgroups >= 2 * n);
	CHECK(g_plan.kind == CGOOM_PLAN_STATS);
	CHECK_EQ_INT(g_plan.n_cgroups, 12);
	CHECK_EQ_INT(g_plan.cgroups[0], sb_idx(&s, "/k00"));
	CHECK_EQ_INT(g_plan.cgroups[11], sb_idx(&s, "/k11"));
	cgoom_decision_free(&d);
	cgoom_config_free(&c);
	cgoom_snapshot_free(&s);
}

int main(void)
{
	int rc = tap_run((struct tap_test[]){
		TAP(test_equivalence_cgroup),
		TAP(test_equivalence_tree),
		TAP(test_bound_above_leader_needed),
		TAP(test_bodies_batch_doubles),
		TAP(test_policy_none_needs_all),
		TAP(test_inflight_located),
		TAP(test_deferred_domain),
		TAP(test_deferred_omit_ignored),
		TAP(test_oom_group_scope_needs),
		TAP(test_bounded_root),
		TAP(test_no_deferred_no_needs),
		TAP(test_stat_needs_only_stat_deferred),
		TAP(test_root_batch_fits),
		{ 0 },
	});
	cgoom_plan_free(&g_plan);
	return rc;
}
