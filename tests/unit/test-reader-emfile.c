/* SPDX-License-Identifier: MIT */
/* The reader out of file descriptors (issue 21: "selecting: Invalid
 * argument" next to "Too many open files"): under every RLIMIT_NOFILE
 * from nothing spare to plenty, a read gives either the snapshot (and
 * the decision) an unlimited read gives, or fails with EMFILE and says
 * where, never a snapshot missing what it could not open (a cgroup
 * dropped, a process skipped, a domain taken for no memcg). */
#include <sys/resource.h>

#include "cgoom/select.h"
#include "cgoom/settings.h"
#include "reader-fixture.h"

struct summary {
	size_t n_cgroups, n_procs, n_notes;
	int memcgs, victim_pid;
	bool has_victim;
	size_t n_pids;
};

static void leaf(const char *path, int pid, unsigned long long rss_kb)
{
	char procs[32];
	struct fproc p = { .pid = pid, .comm = "hog", .start = 100, .rss_kb = rss_kb, .kthread = -1 };

	snprintf(procs, sizeof procs, "%d\n", pid);
	mkcg(path, true, procs);
	put_cg(path, "memory.current", "2000000\n");
	put_cg(path, "memory.swap.current", "0\n");
	mkproc(&p);
}

static void build(void)
{
	fx_new();
	put_cg("", "cgroup.subtree_control", "memory pids\n");
	mkcg("/a", true, "");
	put_cg("/a", "cgroup.subtree_control", "memory pids\n");
	leaf("/a/x", 101, 4000);
	leaf("/a/y", 102, 3000);
	leaf("/b", 103, 2000);
	mkcg("/c", true, "");
	put_cg("/c", "cgroup.subtree_control", "memory pids\n");
	mkcg("/c/d", true, "");
	put_cg("/c/d", "cgroup.subtree_control", "memory pids\n");
	leaf("/c/d/e", 104, 5000);
	leaf("/c/d/f", 105, 1000);
}

/* Reads (lazily or whole) and selects in "/" with policy cgroup. */
static int read_and_select(bool lazy, struct summary *ret)
{
	struct cgoom_config cfg;
	struct cgoom_settings set = { 0 };
	struct cgoom_decision dec;
	struct cgoom_reader *rd = NULL;
	int r;

	cgoom_config_init(&cfg);
	cgoom_decision_init(&dec);
	if (g_have_snap)
		cgoom_snapshot_free(&g_snap);
	g_have_snap = false;
	r = lazy ? cgoom_snapshot_read_lazy(&g_roots, &g_snap, &rd) : cgoom_snapshot_read(&g_roots, &g_snap);
	g_have_snap = r == 0;
	if (r == 0)
		r = cgoom_settings_resolve(&g_snap, &cfg, &set);
	if (r == 0)
		r = cgoom_select_lazy(rd, &g_snap, &set, 0, &dec);
	if (r == 0) {
		*ret = (struct summary){ .n_cgroups = g_snap.n_cgroups, .n_procs = g_snap.n_procs,
					 .n_notes = g_snap.n_notes, .has_victim = dec.has_victim,
					 .victim_pid = dec.victim_pid, .n_pids = dec.n_pids };
		for (size_t i = 0; i < g_snap.n_cgroups; i++)
			ret->memcgs += g_snap.cgroups[i].is_memcg;
	}
	cgoom_decision_free(&dec);
	cgoom_settings_free(&set);
	cgoom_reader_free(rd);
	cgoom_config_free(&cfg);
	return r;
}

/* The lowest free fd: every fd below it is open (they are handed out
 * lowest first, and this test closes none below it). */
static int lowest_free(void)
{
	int fd = dup(0);

	if (fd >= 0)
		close(fd);
	return fd;
}

static void check_every_limit(bool lazy)
{
	struct rlimit old, rl;
	struct summary want = { 0 }, got;
	int base, seen_emfile = 0, seen_ok = 0;

	build();
	CHECK(fx_prepare() == 0);
	CHECK(read_and_select(lazy, &want) == 0);
	CHECK(want.has_victim && want.victim_pid == 104 && want.n_notes == 0);
	CHECK(getrlimit(RLIMIT_NOFILE, &old) == 0);
	base = lowest_free();
	CHECK(base > 0);
	for (int k = 0; k <= 40; k++) {
		int r;

		rl = old;
		rl.rlim_cur = (rlim_t)(base + k);
		CHECK(setrlimit(RLIMIT_NOFILE, &rl) == 0);
		memset(&got, 0, sizeof got);
		r = read_and_select(lazy, &got);
		setrlimit(RLIMIT_NOFILE, &old);
		if (r == -EMFILE) {
			/* and it says what it could not open */
			const char *where = cgoom_reader_error_where();
			bool says = where && strstr(where, "Too many open files");
			if (!says)
				printf("# k=%d: where \"%s\"\n", k, where ? where : "(none)");
			CHECK(says);
			seen_emfile++;
			continue;
		}
		if (r != 0 || got.n_cgroups != want.n_cgroups || got.n_procs != want.n_procs ||
		    got.memcgs != want.memcgs || got.n_notes != want.n_notes ||
		    got.victim_pid != want.victim_pid || got.n_pids != want.n_pids)
			printf("# k=%d: r=%d cgroups %zu/%zu procs %zu/%zu memcgs %d/%d notes %zu victim %d\n",
			       k, r, got.n_cgroups, want.n_cgroups, got.n_procs, want.n_procs, got.memcgs,
			       want.memcgs, got.n_notes, got.victim_pid);
		CHECK(r == 0);
		CHECK_EQ_INT(got.n_cgroups, want.n_cgroups);
		CHECK_EQ_INT(got.n_procs, want.n_procs);
		CHECK_EQ_INT(got.memcgs, want.memcgs);
		CHECK_EQ_INT(got.n_notes, want.n_notes);
		CHECK_EQ_INT(got.victim_pid, want.victim_pid);
		CHECK_EQ_INT(got.n_pids, want.n_pids);
		seen_ok++;
	}
	/* both outcomes happened: the limits tried span the read's need */
	CHECK(seen_emfile > 0 && seen_ok > 0);
	fx_cleanup();
}

static void test_full_read_out_of_fds(void)
{
	check_every_limit(false);
}

static void test_lazy_read_out_of_fds(void)
{
	check_every_limit(true);
}

static void test_where_is_reset(void)
{
	struct summary got;

	build();
	CHECK(fx_prepare() == 0);
	CHECK(read_and_select(true, &got) == 0);
	CHECK_STREQ(cgoom_reader_error_where(), "");
	fx_cleanup();
}

int main(void)
{
	int r = tap_run((struct tap_test[]){ TAP(test_full_read_out_of_fds),
					     TAP(test_lazy_read_out_of_fds), TAP(test_where_is_reset),
					     { 0 } });
	fx_cleanup();
	return r;
}
