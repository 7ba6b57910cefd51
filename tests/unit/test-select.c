/* SPDX-License-Identifier: MIT */
/* The engine on hand-built snapshots: SPEC sections 4-5 (selection, scopes, root fairness, tiers, bias, ties). */
#include <errno.h>

#include "snapbuild.h"
#include "tap.h"

static void test_seed_none(void)
{
	struct cgoom_snapshot s;
	seed_table(&s);
	sb_done(&s, NULL);
	struct cgoom_decision d = sb_select(&s, "/");
	CHECK(d.has_victim);
	CHECK_EQ_INT(d.policy, CGOOM_POLICY_NONE);
	CHECK_EQ_INT(d.victim_pid, 101);
	CHECK_EQ_INT(d.n_pids, 1);
	CHECK_EQ_INT(d.candidates[0].kind, CGOOM_KIND_PROCESS);
	cgoom_decision_free(&d);
	cgoom_snapshot_free(&s);
}

static void test_seed_cgroup(void)
{
	struct cgoom_snapshot s;
	seed_table(&s);
	struct cgoom_config c = cfg_of("[cgroup \"/\"]\noom_policy = cgroup\n");
	sb_done(&s, &c);
	struct cgoom_decision d = sb_select(&s, "/");
	CHECK(d.has_victim);
	CHECK_EQ_INT(d.policy, CGOOM_POLICY_CGROUP);
	CHECK_STREQ(s.cgroups[d.victim_cgroup].path, "/cg2");
	CHECK_EQ_INT(d.victim_pid, 202);
	CHECK_EQ_INT(d.candidates[0].kind, CGOOM_KIND_LEAF);
	CHECK_EQ_U64(d.candidates[0].footprint, 306 * MiB);
	cgoom_decision_free(&d);
	cgoom_config_free(&c);
	cgoom_snapshot_free(&s);
}

static void test_seed_tree(void)
{
	struct cgoom_snapshot s;
	seed_table(&s);
	struct cgoom_config c =
		cfg_of("[cgroup \"/\"]\noom_policy = cgroup\n[cgroup \"/cg3\"]\noom_policy = tree\n");
	sb_done(&s, &c);
	struct cgoom_decision d = sb_select(&s, "/");
	CHECK(d.has_victim);
	CHECK_STREQ(s.cgroups[d.victim_cgroup].path, "/cg3");
	CHECK_EQ_INT(d.candidates[0].kind, CGOOM_KIND_TREE);
	CHECK_EQ_U64(d.candidates[0].footprint, (198 + 196) * MiB);
	/* largest process in the subtree; 311, 312 and 322 tie: lowest PID */
	CHECK_EQ_INT(d.victim_pid, 311);
	cgoom_decision_free(&d);
	cgoom_config_free(&c);
	cgoom_snapshot_free(&s);
}

static void test_domain_policy_decides(void)
{
	/* descendants' policies do not matter: root none, /cg2 cgroup */
	struct cgoom_snapshot s;
	seed_table(&s);
	struct cgoom_config c = cfg_of("[cgroup \"/cg2\"]\noom_policy = cgroup\n");
	sb_done(&s, &c);
	struct cgoom_decision d = sb_select(&s, "/");
	CHECK_EQ_INT(d.policy, CGOOM_POLICY_NONE);
	CHECK_EQ_INT(d.victim_pid, 101);
	cgoom_decision_free(&d);
	cgoom_config_free(&c);
	cgoom_snapshot_free(&s);
}

static void test_cgroup_domain(void)
{
	struct cgoom_snapshot s;
	seed_table(&s);
	s.cgroups[sb_idx(&s, "/cg3")].max = 400 * MiB;
	struct cgoom_config c = cfg_of("[cgroup \"/cg3\"]\noom_policy = cgroup\n");
	sb_done(&s, &c);
	struct cgoom_decision d = sb_select(&s, "/cg3");
	CHECK(d.has_victim);
	CHECK_STREQ(s.cgroups[d.victim_cgroup].path, "/cg3/cg31");
	CHECK_EQ_INT(d.n_candidates, 2); /* no root entity in a cgroup domain */
	CHECK_EQ_U64(d.domain_size, 400 * MiB);
	cgoom_decision_free(&d);
	cgoom_config_free(&c);
	cgoom_snapshot_free(&s);
}

static void test_tree_domain_is_one_entity(void)
{
	struct cgoom_snapshot s;
	seed_table(&s);
	struct cgoom_config c = cfg_of("[cgroup \"/cg3\"]\noom_policy = tree\n");
	sb_done(&s, &c);
	struct cgoom_decision d = sb_select(&s, "/cg3");
	CHECK(d.has_victim);
	CHECK_EQ_INT(d.n_candidates, 1);
	CHECK_EQ_INT(d.candidates[0].kind, CGOOM_KIND_TREE);
	CHECK_STREQ(s.cgroups[d.victim_cgroup].path, "/cg3");
	cgoom_decision_free(&d);
	cgoom_config_free(&c);
	cgoom_snapshot_free(&s);
}

static void test_outermost_tree_wins(void)
{
	struct cgoom_snapshot s;
	sb_init(&s, 1000);
	sb_cg(&s, "/a", 300);
	sb_cg(&s, "/a/b", 300);
	sb_cg(&s, "/a/b/c", 200);
	sb_cg(&s, "/a/b/d", 100);
	sb_cg(&s, "/z", 250);
	sb_proc(&s, 10, "/a/b/c", 200, 0);
	sb_proc(&s, 11, "/a/b/d", 100, 0);
	sb_proc(&s, 12, "/z", 250, 0);
	struct cgoom_config c = cfg_of("[cgroup \"/\"]\noom_policy = cgroup\n"
				       "[cgroup \"/a\"]\noom_policy = tree\n"
				       "[cgroup \"/a/b\"]\noom_policy = tree\n");
	sb_done(&s, &c);
	struct cgoom_decision d = sb_select(&s, "/");
	CHECK(d.has_victim);
	CHECK_STREQ(s.cgroups[d.victim_cgroup].path, "/a");
	CHECK_EQ_INT(d.victim_pid, 10);
	for (size_t i = 0; i < d.n_candidates; i++)
		CHECK(strcmp(s.cgroups[d.candidates[i].cgroup].path, "/a/b") != 0);
	cgoom_decision_free(&d);
	cgoom_config_free(&c);
	cgoom_snapshot_free(&s);
}

/* A standby may be used only while the domain grew by less than P's lead
 * inside its entity: the race-limit round where a tree entity's second
 * process overtook P while a standby stood (cgoom signalled the old P). */
static void test_victim_process_lead(void)
{
	struct cgoom_snapshot s;
	sb_init(&s, 1000);
	sb_cg(&s, "/t", 300);
	sb_cg(&s, "/t/a", 130);
	sb_cg(&s, "/t/b", 140);
	sb_cg(&s, "/z", 250);
	sb_proc(&s, 10, "/t/a", 130, 0);
	sb_proc(&s, 11, "/t/b", 140, 0);
	sb_proc(&s, 12, "/z", 250, 0);
	struct cgoom_config c = cfg_of("[cgroup \"/\"]\noom_policy = cgroup\n"
				       "[cgroup \"/t\"]\noom_policy = tree\n");
	sb_done(&s, &c);
	struct cgoom_decision d = sb_select(&s, "/");
	CHECK(d.has_victim);
	CHECK_STREQ(s.cgroups[d.victim_cgroup].path, "/t");
	CHECK_EQ_INT(d.victim_pid, 11);
	CHECK(cgoom_victim_process_lead(&s, &sb_set, &d) == 10 * MiB);
	cgoom_decision_free(&d);
	cgoom_config_free(&c);
	cgoom_snapshot_free(&s);

	/* alone in its leaf: no rival inside the entity */
	sb_init(&s, 1000);
	sb_cg(&s, "/x", 300);
	sb_cg(&s, "/y", 100);
	sb_proc(&s, 20, "/x", 300, 0);
	sb_proc(&s, 21, "/y", 100, 0);
	c = cfg_of("[cgroup \"/\"]\noom_policy = cgroup\n");
	sb_done(&s, &c);
	d = sb_select(&s, "/");
	CHECK_EQ_INT(d.victim_pid, 20);
	CHECK(cgoom_victim_process_lead(&s, &sb_set, &d) == UINT64_MAX);
	cgoom_decision_free(&d);
	cgoom_config_free(&c);
	cgoom_snapshot_free(&s);
}

static void test_leaf_domain(void)
{
	struct cgoom_snapshot s;
	seed_table(&s);
	s.cgroups[sb_idx(&s, "/cg2")].max = 310 * MiB;
	struct cgoom_config c = cfg_of("[cgroup \"/cg2\"]\noom_policy = cgroup\n");
	sb_done(&s, &c);
	struct cgoom_decision d = sb_select(&s, "/cg2");
	CHECK(d.has_victim);
	CHECK_EQ_INT(d.n_candidates, 1);
	CHECK_EQ_INT(d.candidates[0].kind, CGOOM_KIND_LEAF);
	CHECK_EQ_INT(d.victim_pid, 202);
	cgoom_decision_free(&d);
	cgoom_config_free(&c);
	cgoom_snapshot_free(&s);
}

static void test_oom_group_skips_protected(void)
{
	struct cgoom_snapshot s;
	sb_init(&s, 1000);
	sb_cg(&s, "/job", 500);
	sb_cg(&s, "/job/w", 500);
	sb_cg(&s, "/small", 10);
	sb_proc(&s, 20, "/job/w", 200, 0);
	sb_proc(&s, 21, "/job/w", 200, -1000);
	sb_proc(&s, 22, "/job/w", 100, 0);
	sb_proc(&s, 30, "/small", 10, 0);
	s.cgroups[sb_idx(&s, "/job")].oom_group = true;
	s.cgroups[sb_idx(&s, "/job/w")].oom_group = true;
	struct cgoom_config c = cfg_of("[cgroup \"/\"]\noom_policy = cgroup\n");
	sb_done(&s, &c);
	struct cgoom_decision d = sb_select(&s, "/");
	CHECK(d.has_victim);
	CHECK_STREQ(s.cgroups[d.scope].path, "/job"); /* the highest one */
	CHECK_EQ_INT(d.n_pids, 2);
	CHECK_EQ_INT(d.pids[0], 20);
	CHECK_EQ_INT(d.pids[1], 22);
	CHECK(!d.use_cgroup_kill); /* 21 is protected: one pidfd kill each */
	cgoom_decision_free(&d);
	cgoom_config_free(&c);
	cgoom_snapshot_free(&s);
}

static void test_oom_group_cgroup_kill(void)
{
	struct cgoom_snapshot s;
	sb_init(&s, 1000);
	sb_cg(&s, "/job", 500);
	sb_proc(&s, 22, "/job", 100, 0);
	sb_proc(&s, 20, "/job", 200, 0);
	s.cgroups[sb_idx(&s, "/job")].oom_group = true;
	sb_done(&s, NULL);
	struct cgoom_decision d = sb_select(&s, "/"); /* policy none: same scope rule */
	CHECK(d.has_victim);
	CHECK_EQ_INT(d.victim_pid, 20);
	CHECK(d.scope == sb_idx(&s, "/job"));
	CHECK(d.use_cgroup_kill);
	CHECK_EQ_INT(d.n_pids, 2);
	CHECK_EQ_INT(d.pids[0], 20);
	cgoom_decision_free(&d);
	cgoom_snapshot_free(&s);
}

static void test_oom_group_below_domain_only(void)
{
	/* the scope walk stops at the domain: oom.group above it is ignored */
	struct cgoom_snapshot s;
	sb_init(&s, 1000);
	sb_cg(&s, "/top", 500);
	sb_cg(&s, "/top/d", 500);
	sb_cg(&s, "/top/d/leaf", 500);
	sb_proc(&s, 40, "/top/d/leaf", 300, 0);
	s.cgroups[sb_idx(&s, "/top")].oom_group = true;
	sb_done(&s, NULL);
	struct cgoom_decision d = sb_select(&s, "/top/d");
	CHECK(d.has_victim);
	CHECK_EQ_INT(d.scope, -1);
	CHECK_EQ_INT(d.n_pids, 1);
	cgoom_decision_free(&d);
	cgoom_snapshot_free(&s);
}

static void test_adj_ignored_between_cgroups(void)
{
	struct cgoom_snapshot s;
	sb_init(&s, 1000);
	sb_cg(&s, "/a", 300);
	sb_cg(&s, "/b", 200);
	sb_proc(&s, 50, "/a", 200, -999);
	sb_proc(&s, 51, "/a", 100, 0);
	sb_proc(&s, 60, "/b", 200, 1000);
	struct cgoom_config c = cfg_of("[cgroup \"/\"]\noom_policy = cgroup\n");
	sb_done(&s, &c);
	struct cgoom_decision d = sb_select(&s, "/");
	CHECK_STREQ(s.cgroups[d.victim_cgroup].path, "/a");
	/* within the entity adj counts: 50 has 200 MiB - 999*T/1000 */
	CHECK_EQ_INT(d.victim_pid, 51);
	cgoom_decision_free(&d);
	cgoom_config_free(&c);
	cgoom_snapshot_free(&s);
}

static void test_all_protected_cgroup_ineligible(void)
{
	struct cgoom_snapshot s;
	sb_init(&s, 1000);
	sb_cg(&s, "/big", 900);
	sb_cg(&s, "/small", 10);
	sb_proc(&s, 70, "/big", 900, -1000);
	sb_proc(&s, 71, "/small", 10, 0);
	struct cgoom_config c = cfg_of("[cgroup \"/\"]\noom_policy = cgroup\n");
	sb_done(&s, &c);
	struct cgoom_decision d = sb_select(&s, "/");
	CHECK_STREQ(s.cgroups[d.victim_cgroup].path, "/small");
	bool seen = false;
	for (size_t i = 0; i < d.n_candidates; i++)
		if (d.candidates[i].cgroup == sb_idx(&s, "/big")) {
			CHECK(!d.candidates[i].eligible);
			seen = true;
		}
	CHECK(seen);
	cgoom_decision_free(&d);
	cgoom_config_free(&c);
	cgoom_snapshot_free(&s);
}

static void test_root_fairness(void)
{
	struct cgoom_snapshot s;
	/* system anon 1000 MiB; children 300 + 200: root owns 500 */
	sb_init(&s, 1000);
	sb_cg(&s, "/a", 300);
	sb_cg(&s, "/b", 200);
	sb_proc(&s, 80, "/a", 300, 0);
	sb_proc(&s, 81, "/b", 200, 0);
	sb_proc(&s, 5, "/", 400, 0);
	sb_proc(&s, 6, "/", 100, 0);
	struct cgoom_config c = cfg_of("[cgroup \"/\"]\noom_policy = cgroup\n");
	sb_done(&s, &c);
	struct cgoom_decision d = sb_select(&s, "/");
	CHECK(d.has_victim);
	CHECK_EQ_INT(d.candidates[0].kind, CGOOM_KIND_ROOT);
	CHECK_EQ_U64(d.candidates[0].footprint, 500 * MiB);
	CHECK_EQ_INT(d.victim_pid, 5);
	cgoom_decision_free(&d);
	cgoom_config_free(&c);
	cgoom_snapshot_free(&s);
}

static void test_root_loses_ties(void)
{
	struct cgoom_snapshot s;
	sb_init(&s, 600); /* root owns exactly 300, like /a */
	sb_cg(&s, "/a", 300);
	sb_proc(&s, 80, "/a", 300, 0);
	sb_proc(&s, 5, "/", 300, 0);
	struct cgoom_config c = cfg_of("[cgroup \"/\"]\noom_policy = cgroup\n");
	sb_done(&s, &c);
	struct cgoom_decision d = sb_select(&s, "/");
	CHECK_STREQ(s.cgroups[d.victim_cgroup].path, "/a");
	CHECK_EQ_INT(d.candidates[1].kind, CGOOM_KIND_ROOT);
	cgoom_decision_free(&d);
	cgoom_config_free(&c);
	cgoom_snapshot_free(&s);
}

static void test_root_not_entity_when_nonpositive(void)
{
	struct cgoom_snapshot s;
	sb_init(&s, 200); /* less than the children account for */
	sb_cg(&s, "/a", 300);
	sb_proc(&s, 80, "/a", 300, 0);
	sb_proc(&s, 5, "/", 100, 0);
	struct cgoom_config c = cfg_of("[cgroup \"/\"]\noom_policy = cgroup\n");
	sb_done(&s, &c);
	struct cgoom_decision d = sb_select(&s, "/");
	CHECK_STREQ(s.cgroups[d.victim_cgroup].path, "/a");
	for (size_t i = 0; i < d.n_candidates; i++)
		if (d.candidates[i].kind == CGOOM_KIND_ROOT)
			CHECK(!d.candidates[i].eligible);
	cgoom_decision_free(&d);
	cgoom_config_free(&c);
	cgoom_snapshot_free(&s);
}

static void test_preferences(void)
{
	struct cgoom_snapshot s;
	sb_init(&s, 0);
	sb_cg(&s, "/huge", 900);
	sb_cg(&s, "/mid", 500);
	sb_cg(&s, "/tiny", 5);
	sb_proc(&s, 1001, "/huge", 900, 0);
	sb_proc(&s, 1002, "/mid", 500, 0);
	sb_proc(&s, 1003, "/tiny", 5, 0);
	struct cgoom_config c = cfg_of("[cgroup \"/\"]\noom_policy = cgroup\n"
				       "[cgroup \"/huge\"]\npreference = omit\n"
				       "[cgroup \"/mid\"]\npreference = avoid\n");
	sb_done(&s, &c);
	struct cgoom_decision d = sb_select(&s, "/");
	CHECK_STREQ(s.cgroups[d.victim_cgroup].path, "/tiny"); /* avoid loses to none */
	cgoom_decision_free(&d);
	s.procs[2].oom_score_adj = -1000; /* now only the avoided one is left */
	d = sb_select(&s, "/");
	CHECK_STREQ(s.cgroups[d.victim_cgroup].path, "/mid");
	cgoom_decision_free(&d);
	s.procs[1].oom_score_adj = -1000; /* omit is never killed */
	d = sb_select(&s, "/");
	CHECK(!d.has_victim);
	cgoom_decision_free(&d);
	cgoom_config_free(&c);
	cgoom_snapshot_free(&s);
}

static void test_prefer_first(void)
{
	struct cgoom_snapshot s;
	seed_table(&s);
	sb_cg(&s, "/batch", 3);
	sb_proc(&s, 900, "/batch", 3, 0);
	struct cgoom_config c = cfg_of("[cgroup \"/batch\"]\npreference = prefer\n");
	sb_done(&s, &c);
	struct cgoom_decision d = sb_select(&s, "/"); /* policy none: tiers per process */
	CHECK_EQ_INT(d.victim_pid, 900);
	cgoom_decision_free(&d);
	cgoom_config_free(&c);
	cgoom_snapshot_free(&s);
}

static void test_bias(void)
{
	struct cgoom_snapshot s;
	sb_init(&s, 0);
	sb_cg(&s, "/a", 500);
	sb_cg(&s, "/b", 400);
	sb_proc(&s, 10, "/a", 500, 0);
	sb_proc(&s, 11, "/b", 400, 0);
	/* T = 16 GiB; bias -10 on /a: 500 MiB - 10 * (T/1000) = 500 - 163.84 MiB */
	struct cgoom_config c = cfg_of("[cgroup \"/\"]\noom_policy = cgroup\n"
				       "[cgroup \"/a\"]\nbias = -10\n");
	sb_done(&s, &c);
	struct cgoom_decision d = sb_select(&s, "/");
	CHECK_STREQ(s.cgroups[d.victim_cgroup].path, "/b");
	uint64_t T = 16384 * MiB;
	CHECK_EQ_INT(d.candidates[1].score, (int64_t)(500 * MiB) - 10 * (int64_t)(T / 1000));
	cgoom_decision_free(&d);
	cgoom_config_free(&c);
	cgoom_snapshot_free(&s);
}

static void test_negative_score_still_candidate(void)
{
	struct cgoom_snapshot s;
	sb_init(&s, 0);
	sb_cg(&s, "/a", 500);
	sb_proc(&s, 10, "/a", 500, 0);
	struct cgoom_config c = cfg_of("[cgroup \"/\"]\noom_policy = cgroup\n"
				       "[cgroup \"/a\"]\nbias = -1000\n");
	sb_done(&s, &c);
	struct cgoom_decision d = sb_select(&s, "/");
	CHECK(d.has_victim); /* bias never protects */
	CHECK(d.candidates[0].score < 0);
	cgoom_decision_free(&d);
	cgoom_config_free(&c);
	cgoom_snapshot_free(&s);
}

static void test_ties(void)
{
	struct cgoom_snapshot s;
	sb_init(&s, 0);
	sb_cg(&s, "/b", 100);
	sb_cg(&s, "/a", 100);
	sb_cg(&s, "/B", 100); /* 'B' < 'a' < 'b' bytewise */
	sb_proc(&s, 30, "/b", 100, 0);
	sb_proc(&s, 20, "/a", 100, 0);
	sb_proc(&s, 12, "/B", 50, 0);
	sb_proc(&s, 11, "/B", 50, 0);
	struct cgoom_config c = cfg_of("[cgroup \"/\"]\noom_policy = cgroup\n");
	sb_done(&s, &c);
	struct cgoom_decision d = sb_select(&s, "/");
	CHECK_STREQ(s.cgroups[d.victim_cgroup].path, "/B");
	CHECK_EQ_INT(d.victim_pid, 11); /* equal badness: lower PID */
	cgoom_decision_free(&d);
	cgoom_config_free(&c);
	cgoom_snapshot_free(&s);
}

static void test_none_skips_protected(void)
{
	struct cgoom_snapshot s;
	sb_init(&s, 0);
	sb_cg(&s, "/a", 10);
	sb_proc(&s, 1, "/", 900, 0);
	sb_proc(&s, 2, "/", 0, 0);
	s.procs[1].kthread = true;
	s.procs[1].has_mm = false;
	sb_proc(&s, 3, "/", 800, 0);
	s.procs[2].zombie = true;
	sb_proc(&s, 4, "/", 700, 0);
	s.self_pid = 4;
	sb_proc(&s, 5, "/", 600, -1000);
	sb_proc(&s, 6, "/a", 10, 0);
	sb_done(&s, NULL);
	struct cgoom_decision d = sb_select(&s, "/");
	CHECK(d.has_victim);
	CHECK_EQ_INT(d.victim_pid, 6);
	cgoom_decision_free(&d);
	cgoom_snapshot_free(&s);
}

static void test_no_victim(void)
{
	struct cgoom_snapshot s;
	sb_init(&s, 0);
	sb_cg(&s, "/a", 10);
	sb_proc(&s, 10, "/a", 10, -1000);
	sb_done(&s, NULL);
	struct cgoom_decision d = sb_select(&s, "/");
	CHECK(!d.has_victim);
	CHECK_EQ_INT(d.n_pids, 0);
	CHECK_EQ_INT(d.outcome, CGOOM_OUTCOME_NO_CANDIDATE);
	cgoom_decision_free(&d);
	cgoom_snapshot_free(&s);
}

static void test_fallback_footprint(void)
{
	struct cgoom_snapshot s;
	sb_init(&s, 0);
	sb_cg(&s, "/a", 100);
	sb_cg(&s, "/b", 150);
	sb_proc(&s, 10, "/a", 100, 0);
	sb_proc(&s, 11, "/b", 150, 0);
	struct cgoom_cgroup *a = &s.cgroups[sb_idx(&s, "/a")];
	a->stat_ok = false;
	a->current = 200 * MiB;
	a->swap_current = 10 * MiB;
	struct cgoom_config c = cfg_of("[cgroup \"/\"]\noom_policy = cgroup\n");
	sb_done(&s, &c);
	struct cgoom_decision d = sb_select(&s, "/");
	CHECK_STREQ(s.cgroups[d.victim_cgroup].path, "/a");
	CHECK(d.candidates[0].fallback);
	CHECK_EQ_U64(d.candidates[0].footprint, 210 * MiB);
	cgoom_decision_free(&d);
	cgoom_config_free(&c);
	cgoom_snapshot_free(&s);
}

static void test_non_memcg_children(void)
{
	struct cgoom_snapshot s;
	sb_init(&s, 0);
	sb_cg(&s, "/a", 300);
	int n = cgoom_snapshot_add_cgroup(&s, sb_idx(&s, "/a"), "nomem");
	CHECK(n > 0);
	sb_cg(&s, "/b", 200);
	sb_proc(&s, 10, "/a/nomem", 300, 0);
	sb_proc(&s, 11, "/b", 200, 0);
	struct cgoom_config c = cfg_of("[cgroup \"/\"]\noom_policy = cgroup\n");
	sb_done(&s, &c);
	CHECK(!s.cgroups[sb_idx(&s, "/a")].has_memcg_children);
	CHECK_EQ_INT(s.cgroups[n].memcg, sb_idx(&s, "/a"));
	struct cgoom_decision d = sb_select(&s, "/");
	CHECK_STREQ(s.cgroups[d.victim_cgroup].path, "/a");
	CHECK_EQ_INT(d.victim_pid, 10);
	cgoom_decision_free(&d);
	CHECK_EQ_INT(cgoom_select(&s, &sb_set, n, &d), -EINVAL); /* not a memcg */
	cgoom_decision_free(&d);
	cgoom_config_free(&c);
	cgoom_snapshot_free(&s);
}

static void test_inflight_aborts(void)
{
	struct cgoom_snapshot s;
	seed_table(&s);
	sb_done(&s, NULL);
	int inflight[] = { 312 };
	s.inflight = inflight;
	s.n_inflight = 1;
	struct cgoom_decision d = sb_select(&s, "/");
	CHECK(d.inflight);
	CHECK(!d.has_victim);
	cgoom_decision_free(&d);
	d = sb_select(&s, "/cg2"); /* another domain is not blocked */
	CHECK(!d.inflight);
	CHECK(d.has_victim);
	cgoom_decision_free(&d);
	cgoom_snapshot_free(&s);
}

static void test_comparator_total_order(void)
{
	/* a list sorted by hand; every ordered pair must compare consistently */
	struct cgoom_candidate c[] = {
		{ .eligible = true, .pref = CGOOM_PREF_PREFER, .score = 5, .order = 3 },
		{ .eligible = true, .pref = CGOOM_PREF_NONE, .score = 900, .order = 2 },
		{ .eligible = true, .pref = CGOOM_PREF_NONE, .score = 900, .order = 4 },
		{ .eligible = true, .pref = CGOOM_PREF_NONE, .score = 10, .order = 0 },
		{ .eligible = true, .pref = CGOOM_PREF_NONE, .score = -50, .order = 1 },
		{ .eligible = true, .pref = CGOOM_PREF_AVOID, .score = 1000, .order = 5 },
		{ .eligible = false, .pref = CGOOM_PREF_PREFER, .score = 99999, .order = 6 },
		{ .eligible = false, .pref = CGOOM_PREF_NONE, .score = 1, .order = 7 },
	};
	size_t n = sizeof(c) / sizeof(c[0]);
	for (size_t i = 0; i < n; i++)
		for (size_t j = 0; j < n; j++) {
			int r = cgoom_candidate_cmp(&c[i], &c[j]);
			if (i < j)
				CHECK(r < 0);
			else if (i > j)
				CHECK(r > 0);
			else
				CHECK(r == 0);
		}
}

static void test_badness(void)
{
	struct cgoom_process p = { .rss = 100 * MiB, .swap = 10 * MiB, .pte = 1 * MiB, .oom_score_adj = 500 };
	uint64_t T = 1000 * MiB + 7; /* integer division first */
	CHECK_EQ_INT(cgoom_badness(&p, T), (int64_t)(111 * MiB) + 500 * (int64_t)(T / 1000));
	p.oom_score_adj = -1000;
	CHECK(cgoom_badness(&p, T) < 0);
	p.rss = UINT64_MAX; /* saturates, does not wrap */
	p.oom_score_adj = 1000;
	CHECK(cgoom_badness(&p, UINT64_MAX) == INT64_MAX);
}

static void test_domain_size(void)
{
	struct cgoom_snapshot s;
	sb_init(&s, 0);
	s.meminfo.swap_total = 2048 * MiB;
	int a = sb_cg(&s, "/a", 1);
	int b = sb_cg(&s, "/b", 1);
	s.cgroups[a].max = 512 * MiB;
	s.cgroups[a].has_swap_max = true;
	s.cgroups[a].swap_max = 100 * MiB;
	s.cgroups[b].max = UINT64_MAX;
	sb_done(&s, NULL);
	CHECK_EQ_U64(cgoom_domain_size(&s, 0), (16384 + 2048) * MiB);
	CHECK_EQ_U64(cgoom_domain_size(&s, a), 612 * MiB);
	CHECK_EQ_U64(cgoom_domain_size(&s, b), (16384 + 2048) * MiB);
	CHECK(cgoom_domain_size_known(&s, 0) && cgoom_domain_size_known(&s, a));
	/* without /proc/meminfo: T needs MemTotal (the system, memory.max
	 * "max") or SwapTotal (any swap room): unknown, and rank refuses */
	s.meminfo_ok = false;
	CHECK(!cgoom_domain_size_known(&s, 0));
	CHECK(!cgoom_domain_size_known(&s, a));
	CHECK(!cgoom_domain_size_known(&s, b));
	struct cgoom_decision d;
	cgoom_decision_init(&d);
	CHECK_EQ_INT(cgoom_select(&s, &sb_set, 0, &d), -ENODATA);
	CHECK(!d.has_victim && d.n_candidates == 0);
	/* a finite memory.max and no swap room: T = memory.max */
	s.cgroups[a].swap_max = 0;
	CHECK(cgoom_domain_size_known(&s, a));
	CHECK_EQ_U64(cgoom_domain_size(&s, a), 512 * MiB);
	CHECK_EQ_INT(cgoom_select(&s, &sb_set, a, &d), 0);
	cgoom_decision_free(&d);
	cgoom_snapshot_free(&s);
}

/* A subtree the reader could not read whole (subtree_unread: its depth
 * cut) may hide a larger process: no victim in a domain holding it, a
 * victim as before in one that does not. */
static void test_subtree_unread_refuses(void)
{
	struct cgoom_snapshot s;
	sb_init(&s, 0);
	int a = sb_cg(&s, "/a", 10);
	sb_cg(&s, "/a/deep", 10);
	int b = sb_cg(&s, "/b", 50);
	sb_proc(&s, 80, "/a/deep", 10, 0);
	sb_proc(&s, 81, "/b", 50, 0);
	s.cgroups[sb_idx(&s, "/a/deep")].subtree_unread = true;
	sb_done(&s, NULL);
	struct cgoom_decision d;
	cgoom_decision_init(&d);
	CHECK_EQ_INT(cgoom_select(&s, &sb_set, 0, &d), -ELOOP);
	CHECK(!d.has_victim);
	CHECK_EQ_INT(cgoom_select(&s, &sb_set, a, &d), -ELOOP);
	CHECK(strstr(cgoom_select_strerror(-ELOOP), "could not be read") != NULL);
	CHECK_EQ_INT(cgoom_select(&s, &sb_set, b, &d), 0);
	CHECK(d.has_victim && d.victim_pid == 81);
	cgoom_decision_free(&d);
	cgoom_snapshot_free(&s);
}

static void test_namespace_root(void)
{
	/* inside a cgroup namespace the root has memory files of its own;
	 * the host's meminfo (huge here) must not be charged to it */
	struct cgoom_snapshot s;
	sb_init(&s, 100000);
	struct cgoom_cgroup *r = &s.cgroups[0];
	r->current_ok = true;
	r->current = 900 * MiB;
	r->stat_ok = true;
	r->stat.active_anon = 700 * MiB;
	r->max = 1024 * MiB;
	r->oom_group = true;
	sb_cg(&s, "/a", 300);
	sb_cg(&s, "/b", 200);
	sb_proc(&s, 80, "/a", 300, 0);
	sb_proc(&s, 81, "/b", 200, 0);
	sb_proc(&s, 5, "/", 150, 0);
	struct cgoom_config c = cfg_of("[cgroup \"/\"]\noom_policy = cgroup\n");
	sb_done(&s, &c);
	CHECK(cgoom_root_is_cgroup(&s));
	CHECK_EQ_U64(cgoom_domain_size(&s, 0), 1024 * MiB);
	struct cgoom_decision d = sb_select(&s, "/");
	CHECK_STREQ(s.cgroups[d.victim_cgroup].path, "/a");
	bool seen = false;
	for (size_t i = 0; i < d.n_candidates; i++)
		if (d.candidates[i].kind == CGOOM_KIND_ROOT) {
			CHECK_EQ_U64(d.candidates[i].footprint, 200 * MiB); /* 700 - 300 - 200 */
			seen = true;
		}
	CHECK(seen);
	CHECK_EQ_INT(d.scope, 0); /* the namespace root's memory.oom.group applies */
	CHECK_EQ_INT(d.n_pids, 3);
	cgoom_decision_free(&d);
	cgoom_config_free(&c);
	cgoom_snapshot_free(&s);
}

int main(void)
{
	return tap_run((struct tap_test[]){
		TAP(test_seed_none),
		TAP(test_seed_cgroup),
		TAP(test_seed_tree),
		TAP(test_domain_policy_decides),
		TAP(test_cgroup_domain),
		TAP(test_tree_domain_is_one_entity),
		TAP(test_outermost_tree_wins),
		TAP(test_victim_process_lead),
		TAP(test_leaf_domain),
		TAP(test_oom_group_skips_protected),
		TAP(test_oom_group_cgroup_kill),
		TAP(test_oom_group_below_domain_only),
		TAP(test_adj_ignored_between_cgroups),
		TAP(test_all_protected_cgroup_ineligible),
		TAP(test_root_fairness),
		TAP(test_root_loses_ties),
		TAP(test_root_not_entity_when_nonpositive),
		TAP(test_preferences),
		TAP(test_prefer_first),
		TAP(test_bias),
		TAP(test_negative_score_still_candidate),
		TAP(test_ties),
		TAP(test_none_skips_protected),
		TAP(test_no_victim),
		TAP(test_fallback_footprint),
		TAP(test_non_memcg_children),
		TAP(test_inflight_aborts),
		TAP(test_comparator_total_order),
		TAP(test_badness),
		TAP(test_domain_size),
		TAP(test_subtree_unread_refuses),
		TAP(test_namespace_root),
		{ 0 },
	});
}
