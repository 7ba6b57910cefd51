/* SPDX-License-Identifier: MIT */
/* Branch and bound in the engine: what cgoom_select() asks to read
 * (decision.needs) on snapshots with deferred cgroups, and that reading
 * what it asks for gives the answer of a full snapshot. "Reading" is
 * simulated by building the snapshot again with those cgroups known. */
#include "snapbuild.h"
#include "tap.h"

#define BOUND 0 /* only memory.current + swap (stat_deferred) */
#define STAT 1  /* memory.stat read, processes not (deferred) */
#define READ 2  /* all read */

struct leaf {
	const char *path;
	uint64_t mib; /* footprint; its bound is mib + 10 (page cache) */
	int pid, adj;
	int state;
};

static void build(struct cgoom_snapshot *s, struct leaf *l, size_t n, const struct cgoom_config *c,
		  uint64_t sys_mib)
{
	sb_init(s, sys_mib);
	for (size_t i = 0; i < n; i++) {
		int k = sb_cg(s, l[i].path, l[i].mib);
		struct cgoom_cgroup *g = &s->cgroups[k];
		g->current = (l[i].mib + 10) * MiB;
		if (l[i].pid == 0) /* a parent */
			continue;
		if (l[i].state == READ) {
			sb_proc(s, l[i].pid, l[i].path, l[i].mib, l[i].adj);
			continue;
		}
		g->deferred = true; /* as the lazy reader adds it: no processes */
		if (l[i].state == BOUND) {
			g->stat_deferred = true;
			g->stat_ok = false;
			memset(&g->stat, 0, sizeof(g->stat));
		}
	}
	sb_done(s, c);
}

static struct leaf *by_path(struct leaf *l, size_t n, const char *path)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(l[i].path, path))
			return &l[i];
	abort();
}

/* Selects in domain, reading what is asked for, until final. Returns
 * the number of rounds that asked for something. */
static int select_until_final(struct cgoom_snapshot *s, struct leaf *l, size_t n,
			      const struct cgoom_config *c, uint64_t sys_mib, const char *domain,
			      struct cgoom_decision *d)
{
	int rounds = 0;
	for (;;) {
		if (cgoom_select(s, sb_idx(s, domain), d) < 0)
			abort();
		if (d->n_needs == 0)
			return rounds;
		rounds++;
		for (size_t i = 0; i < d->n_needs; i++) {
			struct leaf *x = by_path(l, n, s->cgroups[d->needs[i]].path);
			x->state = d->needs_stat && x->state == BOUND ? STAT : READ;
		}
		cgoom_snapshot_free(s);
		build(s, l, n, c, sys_mib);
		if (rounds > 64)
			abort();
	}
}

static bool needs(const struct cgoom_snapshot *s, const struct cgoom_decision *d, const char *path)
{
	for (size_t i = 0; i < d->n_needs; i++)
		if (!strcmp(s->cgroups[d->needs[i]].path, path))
			return true;
	return false;
}

static const char *CGROUP = "[cgroup \"/\"]\noom_policy = cgroup\n";

static void test_same_answer_and_prunes(void)
{
	struct leaf l[] = {
		{ "/a", 120, 101, 0, BOUND }, { "/b", 300, 102, 0, BOUND },
		{ "/c", 295, 103, 0, BOUND }, { "/d", 40, 104, 0, BOUND },
		{ "/e", 310, 105, -1000, BOUND }, { "/f", 80, 106, 0, BOUND },
		{ "/g", 5, 107, 0, BOUND },   { "/h", 299, 108, 0, BOUND },
	};
	size_t n = sizeof l / sizeof l[0];
	struct cgoom_config c = cfg_of(CGROUP);
	struct cgoom_snapshot s;
	struct cgoom_decision full, lazy;

	/* everything read: /e (310) is protected, /b (300) wins */
	for (size_t i = 0; i < n; i++)
		l[i].state = READ;
	build(&s, l, n, &c, 4000);
	full = sb_select(&s, "/");
	CHECK(full.has_victim && full.victim_pid == 102);
	CHECK_EQ_INT(full.n_needs, 0);
	cgoom_snapshot_free(&s);

	for (size_t i = 0; i < n; i++)
		l[i].state = BOUND;
	build(&s, l, n, &c, 4000);
	cgoom_decision_init(&lazy);
	int rounds = select_until_final(&s, l, n, &c, 4000, "/", &lazy);
	CHECK(lazy.has_victim);
	CHECK_EQ_INT(lazy.victim_pid, full.victim_pid);
	CHECK_EQ_INT(lazy.victim_cgroup, sb_idx(&s, "/b"));
	CHECK_EQ_INT(lazy.n_pids, 1);
	CHECK_EQ_INT(lazy.pids[0], 102);
	CHECK(rounds >= 2);
	/* bounds below 300 MiB were never read at all */
	CHECK_EQ_INT(by_path(l, n, "/a")->state, BOUND);
	CHECK_EQ_INT(by_path(l, n, "/d")->state, BOUND);
	CHECK_EQ_INT(by_path(l, n, "/f")->state, BOUND);
	CHECK_EQ_INT(by_path(l, n, "/g")->state, BOUND);
	/* /c (295 + 10) and /h (299 + 10) could beat 300: their memory.stat
	 * at least was read */
	CHECK(by_path(l, n, "/c")->state != BOUND);
	CHECK(by_path(l, n, "/h")->state != BOUND);
	/* /e ranked first and turned out protected: read whole */
	CHECK_EQ_INT(by_path(l, n, "/e")->state, READ);
	CHECK_EQ_INT(lazy.round, 0);
	cgoom_decision_free(&full);
	cgoom_decision_free(&lazy);
	cgoom_config_free(&c);
	cgoom_snapshot_free(&s);
}

static void test_asks_only_bounds_above_the_leader(void)
{
	struct leaf l[] = {
		{ "/a", 100, 101, 0, READ }, /* exact: 100 */
		{ "/b", 95, 102, 0, BOUND }, /* bound 105: could win */
		{ "/c", 50, 103, 0, BOUND }, /* bound 60: cannot */
	};
	struct cgoom_config c = cfg_of(CGROUP);
	struct cgoom_snapshot s;
	build(&s, l, 3, &c, 1000);
	struct cgoom_decision d = sb_select(&s, "/");
	CHECK(!d.has_victim);
	CHECK(d.needs_stat);
	CHECK_EQ_INT(d.n_needs, 1);
	CHECK(needs(&s, &d, "/b"));
	CHECK(!needs(&s, &d, "/c"));
	CHECK(d.candidates[0].bounded && d.candidates[0].cgroup == sb_idx(&s, "/b"));
	CHECK_EQ_U64(d.candidates[0].footprint, 105 * MiB);
	cgoom_decision_free(&d);
	cgoom_config_free(&c);
	cgoom_snapshot_free(&s);
}

static void test_doubling_without_exact(void)
{
	struct leaf l[] = {
		{ "/a", 400, 101, -1000, BOUND }, { "/b", 300, 102, 0, BOUND },
		{ "/c", 200, 103, 0, BOUND },     { "/d", 100, 104, 0, BOUND },
	};
	struct cgoom_config c = cfg_of(CGROUP);
	struct cgoom_snapshot s;
	struct cgoom_decision d;
	build(&s, l, 4, &c, 2000);
	cgoom_decision_init(&d);
	CHECK_EQ_INT(cgoom_select(&s, sb_idx(&s, "/"), &d), 0);
	/* round 0, nothing exact: the top one only */
	CHECK(d.needs_stat);
	CHECK_EQ_INT(d.n_needs, 1);
	CHECK(needs(&s, &d, "/a"));
	CHECK_EQ_INT(d.round, 1);
	/* /a read whole: protected. Round 1, still nothing exact and
	 * eligible: the top two */
	l[0].state = READ;
	cgoom_snapshot_free(&s);
	build(&s, l, 4, &c, 2000);
	CHECK_EQ_INT(cgoom_select(&s, sb_idx(&s, "/"), &d), 0);
	CHECK(d.needs_stat);
	CHECK_EQ_INT(d.n_needs, 2);
	CHECK(needs(&s, &d, "/b") && needs(&s, &d, "/c"));
	cgoom_decision_free(&d);
	cgoom_config_free(&c);
	cgoom_snapshot_free(&s);
}

static void test_policy_none_reads_all(void)
{
	struct leaf l[] = {
		{ "/a", 100, 101, 0, READ },
		{ "/b", 10, 102, 0, BOUND },
		{ "/c", 10, 103, 0, STAT },
	};
	struct cgoom_snapshot s;
	build(&s, l, 3, NULL, 1000); /* no config: policy none */
	struct cgoom_decision d = sb_select(&s, "/");
	CHECK(!d.has_victim);
	CHECK(!d.needs_stat);
	CHECK_EQ_INT(d.n_needs, 2);
	CHECK(needs(&s, &d, "/b") && needs(&s, &d, "/c"));
	cgoom_decision_free(&d);
	cgoom_snapshot_free(&s);
}

static void test_inflight_reads_all(void)
{
	struct leaf l[] = {
		{ "/a", 100, 101, 0, READ },
		{ "/b", 10, 102, 0, BOUND },
	};
	struct cgoom_config c = cfg_of(CGROUP);
	struct cgoom_snapshot s;
	int inflight[] = { 102 };
	build(&s, l, 2, &c, 1000);
	s.inflight = inflight;
	s.n_inflight = 1;
	struct cgoom_decision d = sb_select(&s, "/");
	CHECK(!d.has_victim && !d.inflight);
	CHECK(!d.needs_stat);
	CHECK_EQ_INT(d.n_needs, 1);
	CHECK(needs(&s, &d, "/b"));
	/* read: the PID is found, and selection waits for it */
	l[1].state = READ;
	cgoom_snapshot_free(&s);
	build(&s, l, 2, &c, 1000);
	s.inflight = inflight;
	s.n_inflight = 1;
	cgoom_decision_free(&d);
	d = sb_select(&s, "/");
	CHECK(d.inflight);
	CHECK_EQ_INT(d.inflight_pid, 102);
	CHECK_EQ_INT(d.n_needs, 0);
	cgoom_decision_free(&d);
	cgoom_config_free(&c);
	cgoom_snapshot_free(&s);
}

static void test_deferred_domain(void)
{
	struct leaf l[] = { { "/a", 100, 101, 0, BOUND } };
	struct cgoom_config c = cfg_of("[cgroup \"/a\"]\noom_policy = cgroup\n");
	struct cgoom_snapshot s;
	build(&s, l, 1, &c, 1000);
	struct cgoom_decision d = sb_select(&s, "/a");
	CHECK(!d.has_victim && !d.needs_stat);
	CHECK_EQ_INT(d.n_needs, 1);
	CHECK(needs(&s, &d, "/a"));
	cgoom_decision_free(&d);
	cgoom_config_free(&c);
	cgoom_snapshot_free(&s);
}

static void test_omitted_deferred_never_needed(void)
{
	struct leaf l[] = {
		{ "/a", 100, 101, 0, READ },
		{ "/big", 5000, 102, 0, BOUND },
	};
	struct cgoom_config c = cfg_of("[cgroup \"/\"]\noom_policy = cgroup\n"
				       "[cgroup \"/big\"]\npreference = omit\n");
	struct cgoom_snapshot s;
	build(&s, l, 2, &c, 6000);
	struct cgoom_decision d = sb_select(&s, "/");
	CHECK(d.has_victim);
	CHECK_EQ_INT(d.victim_pid, 101);
	CHECK_EQ_INT(d.n_needs, 0);
	for (size_t i = 0; i < d.n_candidates; i++)
		CHECK(!(d.candidates[i].eligible && d.candidates[i].cgroup == sb_idx(&s, "/big")));
	cgoom_decision_free(&d);
	cgoom_config_free(&c);
	cgoom_snapshot_free(&s);
}

static void test_oom_group_scope_read_whole(void)
{
	struct leaf l[] = {
		{ "/p", 210, 0, 0, READ },
		{ "/p/x", 200, 101, 0, READ },
		{ "/p/y", 1, 102, 0, BOUND },
	};
	struct cgoom_config c = cfg_of(CGROUP);
	struct cgoom_snapshot s;
	build(&s, l, 3, &c, 1000);
	s.cgroups[sb_idx(&s, "/p")].oom_group = true;
	struct cgoom_decision d = sb_select(&s, "/");
	/* /p/x wins, but the kill set is all of /p: /p/y must be read */
	CHECK(!d.has_victim && !d.needs_stat);
	CHECK_EQ_INT(d.n_needs, 1);
	CHECK(needs(&s, &d, "/p/y"));
	l[2].state = READ;
	cgoom_snapshot_free(&s);
	build(&s, l, 3, &c, 1000);
	s.cgroups[sb_idx(&s, "/p")].oom_group = true;
	cgoom_decision_free(&d);
	d = sb_select(&s, "/");
	CHECK(d.has_victim);
	CHECK_EQ_INT(d.scope, sb_idx(&s, "/p"));
	CHECK_EQ_INT(d.n_pids, 2);
	CHECK(d.pids[0] == 101 && d.pids[1] == 102);
	cgoom_decision_free(&d);
	cgoom_config_free(&c);
	cgoom_snapshot_free(&s);
}

static void test_bounded_root(void)
{
	/* the system holds 1000 MiB; /a's real 900 leaves the root 100 */
	struct leaf l[] = { { "/a", 900, 101, 0, BOUND } };
	struct cgoom_config c = cfg_of(CGROUP);
	struct cgoom_snapshot s;
	build(&s, l, 1, &c, 1000);
	sb_proc(&s, 50, "/", 100, 0); /* a process on the root */
	cgoom_snapshot_finalize(&s);
	struct cgoom_decision d = sb_select(&s, "/");
	/* /a counted as 0 makes the root's 1000 an upper bound, ahead of /a's
	 * bound 910: /a's memory.stat is needed */
	CHECK(!d.has_victim && d.needs_stat);
	CHECK(needs(&s, &d, "/a"));
	CHECK(d.candidates[0].kind == CGOOM_KIND_ROOT && d.candidates[0].bounded);
	cgoom_decision_free(&d);
	cgoom_config_free(&c);
	cgoom_snapshot_free(&s);
}

static void test_no_deferred_no_needs(void)
{
	struct cgoom_snapshot s;
	seed_table(&s);
	struct cgoom_config c = cfg_of(CGROUP);
	sb_done(&s, &c);
	struct cgoom_decision d = sb_select(&s, "/");
	CHECK(d.has_victim);
	CHECK_EQ_INT(d.n_needs, 0);
	for (size_t i = 0; i < d.n_candidates; i++)
		CHECK(!d.candidates[i].bounded && !d.candidates[i].unchecked);
	cgoom_decision_free(&d);
	cgoom_config_free(&c);
	cgoom_snapshot_free(&s);
}

int main(void)
{
	return tap_run((struct tap_test[]){
		TAP(test_same_answer_and_prunes),
		TAP(test_asks_only_bounds_above_the_leader),
		TAP(test_doubling_without_exact),
		TAP(test_policy_none_reads_all),
		TAP(test_inflight_reads_all),
		TAP(test_deferred_domain),
		TAP(test_omitted_deferred_never_needed),
		TAP(test_oom_group_scope_read_whole),
		TAP(test_bounded_root),
		TAP(test_no_deferred_no_needs),
		{ 0 },
	});
}
