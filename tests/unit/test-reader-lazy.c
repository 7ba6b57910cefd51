/* SPDX-License-Identifier: MIT */
/* The lazy reader (branch and bound): what it defers, how it expands,
 * and that its answer is the full read's. */
#include <limits.h>
#include <pthread.h>
#include <sys/stat.h>
#include <unistd.h>
#include <stdlib.h>
#include <string.h>

#include "cgoom/select.h"
#include "reader-fixture.h"

static struct cgoom_reader *g_rd;
static struct cgoom_settings g_set; /* resolved from g_snap */

static void lazy_cleanup(void)
{
	cgoom_reader_free(g_rd);
	g_rd = NULL;
	cgoom_settings_free(&g_set);
	fx_cleanup();
}

static int lazy_read(void)
{
	int r = fx_prepare();

	cgoom_reader_free(g_rd);
	g_rd = NULL;
	if (r < 0)
		return r;
	r = cgoom_snapshot_read_lazy(&g_roots, &g_snap, &g_rd);
	g_have_snap = r == 0;
	return r;
}

/* A memcg leaf holding process pid of rss_kb, with memory.current
 * cur and the MEMSTAT footprint (1000+16384+512+4096 bytes). */
static void leaf(const char *path, int pid, unsigned long long rss_kb, const char *cur)
{
	char procs[32];
	struct fproc p = { .pid = pid, .comm = "hog", .start = 100, .rss_kb = rss_kb, .kthread = -1 };

	snprintf(procs, sizeof procs, "%d\n", pid);
	mkcg(path, true, procs);
	put_cg(path, "memory.current", cur);
	put_cg(path, "memory.swap.current", "0\n");
	mkproc(&p);
}

static void memory_below(const char *path)
{
	put_cg(path, "cgroup.subtree_control", "memory pids\n");
}

static int idx(const char *path)
{
	return cgoom_snapshot_find(&g_snap, path);
}

static void test_defers_childless_memcgs(void)
{
	fx_new();
	memory_below("");
	leaf("/a", 500, 1024, "5000000\n");
	mkcg("/p", true, "");
	memory_below("/p");
	leaf("/p/x", 501, 2048, "7000000\n");
	CHECK_EQ_INT(lazy_read(), 0);
	CHECK(cg("/a") && cg("/a")->deferred && cg("/a")->stat_deferred);
	CHECK_EQ_U64(cg("/a")->current, 5000000);
	CHECK(cg("/a")->is_memcg && cg("/a")->memcg == idx("/a"));
	CHECK(!cg("/a")->stat_ok);
	CHECK(!proc(500)); /* its processes are not read */
	CHECK(cg("/p") && !cg("/p")->deferred && cg("/p")->stat_ok); /* has a child */
	CHECK(cg("/p/x") && cg("/p/x")->deferred);
	CHECK_EQ_U64(cg("/p/x")->current, 7000000);
	CHECK_EQ_INT(g_snap.n_notes, 0);
	lazy_cleanup();
}

static void test_no_memory_in_subtree_control(void)
{
	fx_new();
	put_cg("", "cgroup.subtree_control", "cpu pids\n");
	leaf("/a", 500, 1024, "5000000\n");
	CHECK_EQ_INT(lazy_read(), 0);
	CHECK(cg("/a") && !cg("/a")->deferred); /* read whole, as the full read */
	CHECK(proc(500));
	lazy_cleanup();
}

static void test_unusual_leaf_read_whole(void)
{
	fx_new();
	memory_below("");
	leaf("/nocur", 500, 1024, "5000000\n");
	unlink(at("cg/nocur/memory.current"));
	leaf("/badcur", 501, 1024, "12abc\n");
	leaf("/fifo", 502, 1024, "1\n");
	unlink(at("cg/fifo/memory.current"));
	CHECK_EQ_INT(mkfifo(at("cg/fifo/memory.current"), 0644), 0);
	CHECK_EQ_INT(lazy_read(), 0);
	/* each is read whole, so whatever the full read notes is noted */
	CHECK(cg("/nocur") && !cg("/nocur")->deferred && !cg("/nocur")->current_ok);
	CHECK(cg("/badcur") && !cg("/badcur")->deferred && has_note("/badcur/memory.current"));
	CHECK(cg("/fifo") && !cg("/fifo")->deferred);
	CHECK(proc(500) && proc(501) && proc(502));
	lazy_cleanup();
}

static void test_symlinked_leaf_not_followed(void)
{
	fx_new();
	memory_below("");
	leaf("/real", 500, 1024, "5000000\n");
	mkdir_p(at("elsewhere"));
	leaf("/../elsewhere/t", 501, 1024, "9000000\n");
	CHECK_EQ_INT(symlink(at("cg/real"), at("cg/link")), 0);
	CHECK_EQ_INT(lazy_read(), 0);
	CHECK(cg("/real") && cg("/real")->deferred);
	CHECK(!cg("/link"));
	CHECK(has_note("/link: a symlink, not followed"));
	lazy_cleanup();
}

static void test_expand(void)
{
	fx_new();
	memory_below("");
	leaf("/a", 500, 1024, "5000000\n");
	put_cg("/a", "memory.max", "8000000\n");
	put_cg("/a", "memory.oom.group", "1\n");
	CHECK_EQ_INT(lazy_read(), 0);
	int i = idx("/a");
	CHECK(i > 0 && g_snap.cgroups[i].deferred);
	struct cgoom_plan plan = { .kind = CGOOM_PLAN_STATS, .cgroups = &i, .n_cgroups = 1 };
	put_cg("/a", "memory.current", "5100000\n"); /* not read again with the stat */
	CHECK_EQ_INT(cgoom_reader_fill(g_rd, &g_snap, &plan), 0);
	CHECK_EQ_U64(g_snap.cgroups[i].current, 5000000);
	CHECK(g_snap.cgroups[i].deferred && !g_snap.cgroups[i].stat_deferred);
	CHECK(g_snap.cgroups[i].stat_ok);
	CHECK_EQ_U64(g_snap.cgroups[i].stat.active_anon, 600);
	CHECK(!proc(500));
	CHECK_EQ_INT(cgoom_snapshot_expand(g_rd, &g_snap, &i, 1), 0);
	CHECK(!g_snap.cgroups[i].deferred);
	CHECK(proc(500) && proc(500)->cgroup == i);
	CHECK_EQ_U64(proc(500)->rss, 1024 * 1024);
	CHECK_EQ_U64(g_snap.cgroups[i].max, 8000000);
	CHECK(g_snap.cgroups[i].oom_group);
	const int *pl;
	CHECK_EQ_INT(cgoom_snapshot_procs_of(&g_snap, i, &pl), 1); /* finalized again */
	lazy_cleanup();
}

static void test_vanished_before_expand(void)
{
	fx_new();
	memory_below("");
	leaf("/a", 500, 1024, "5000000\n");
	leaf("/b", 501, 1024, "5000000\n");
	CHECK_EQ_INT(lazy_read(), 0);
	rm_rf(at("cg/a"));
	int i = idx("/a");
	CHECK_EQ_INT(cgoom_snapshot_expand(g_rd, &g_snap, &i, 1), 0);
	CHECK(!g_snap.cgroups[i].deferred && !g_snap.cgroups[i].current_ok);
	CHECK(!proc(500));
	CHECK(has_note("/a: vanished during the walk, dropped"));
	lazy_cleanup();
}

static void test_cwd_restored(void)
{
	char before[PATH_MAX], after[PATH_MAX];

	fx_new();
	memory_below("");
	leaf("/a", 500, 1024, "5000000\n");
	CHECK(getcwd(before, sizeof before));
	CHECK_EQ_INT(lazy_read(), 0);
	CHECK(cg("/a")->deferred);
	CHECK(getcwd(after, sizeof after));
	CHECK_STREQ(after, before);
	lazy_cleanup();
}

static void test_deferred_xattrs(void)
{
	fx_new();
	memory_below("");
	leaf("/a", 500, 1024, "5000000\n");
	if (!xset("cg/a", "user.cgoom.bias", "7") || !xset("cg/a", "user.oomd_avoid", "1")) {
		lazy_cleanup();
		SKIP("user xattrs not supported on this filesystem");
	}
	CHECK_EQ_INT(lazy_read(), 0);
	CHECK(cg("/a")->deferred);
	CHECK(cg("/a")->raw.has_user_bias);
	CHECK_EQ_INT(cg("/a")->raw.user_bias, 7);
	CHECK(cg("/a")->raw.oomd_avoid);
	CHECK_EQ_INT(cg("/a")->raw.owner_is_root, geteuid() == 0);
	lazy_cleanup();
}

/* cgroup.procs owners as the full read sees them: a cgroup with
 * children is read whole, and a deferred leaf's is not looked at (it
 * has no children: nothing is parked in it), not even after its body is
 * read, so both reads give the same snapshot. */
static void test_deferred_procs_owner(void)
{
	fx_new();
	memory_below("");
	leaf("/a", 500, 1024, "5000000\n");
	mkcg("/u", true, "");
	memory_below("/u");
	leaf("/u/b", 501, 1024, "5000000\n");
	if (geteuid() != 0) {
		lazy_cleanup();
		SKIP("chown needs root");
	}
	CHECK(chown(at("cg/a/cgroup.procs"), 1000, 1000) == 0);
	CHECK(chown(at("cg/u/cgroup.procs"), 1000, 1000) == 0);
	CHECK(chown(at("cg/u/b/cgroup.procs"), 1000, 1000) == 0);
	CHECK_EQ_INT(lazy_read(), 0);
	CHECK(cg("/a")->deferred && cg("/u/b")->deferred);
	CHECK(!cg("/a")->raw.procs_user_owned);
	CHECK(cg("/u")->raw.procs_user_owned);
	CHECK(!cg("/u/b")->raw.procs_user_owned);
	CHECK_EQ_INT(cgoom_snapshot_expand(g_rd, &g_snap, (int[]){ idx("/a") }, 1), 0);
	CHECK(!cg("/a")->deferred && !cg("/a")->raw.procs_user_owned);
	lazy_cleanup();
}

/* Leaves with footprints 1..n MiB in random-ish order, memory.current a
 * little above: the lazy answer is the full one, with fewer reads. */
static void test_same_answer_as_full(void)
{
	struct cgoom_config cfg;
	struct cgoom_decision full, lazy;
	char path[32], stat[512], cur[32];
	int deferred_left = 0;

	fx_new();
	memory_below("");
	for (int k = 0; k < 40; k++) {
		int mib = 1 + (k * 17) % 40;
		snprintf(path, sizeof path, "/l%02d", k);
		leaf(path, 1000 + k, (unsigned long long)mib * 1024, "0\n");
		snprintf(stat, sizeof stat, "anon %d\nactive_anon %d\ninactive_anon 0\nfile 0\n",
			 mib << 20, mib << 20);
		put_cg(path, "memory.stat", stat);
		snprintf(cur, sizeof cur, "%d\n", (mib << 20) + (512 << 10));
		put_cg(path, "memory.current", cur);
	}
	cgoom_config_init(&cfg);
	const char *text = "[cgroup \"/\"]\noom_policy = cgroup\n";
	struct cgoom_config_error err = { 0 };
	CHECK_EQ_INT(cgoom_config_parse(text, strlen(text), &cfg, &err), 0);

	cgoom_decision_init(&full);
	cgoom_decision_init(&lazy);
	CHECK_EQ_INT(fx_read(), 0);
	CHECK_EQ_INT(cgoom_settings_resolve(&g_snap, &cfg, &g_set), 0);
	CHECK_EQ_INT(cgoom_select(&g_snap, &g_set, 0, &full), 0);
	CHECK(full.has_victim);
	int full_victim = full.victim_pid;

	CHECK_EQ_INT(lazy_read(), 0);
	CHECK_EQ_INT(cgoom_settings_resolve(&g_snap, &cfg, &g_set), 0);
	CHECK_EQ_INT(cgoom_select_lazy(g_rd, &g_snap, &g_set, 0, &lazy), 0);
	CHECK(lazy.has_victim);
	CHECK_EQ_INT(lazy.victim_pid, full_victim);
	CHECK_EQ_INT(lazy.victim_pid, 1007); /* k = 7: 1 + 119 % 40 = 40 MiB, the largest */
	for (size_t i = 0; i < g_snap.n_cgroups; i++)
		deferred_left += g_snap.cgroups[i].deferred;
	CHECK(deferred_left >= 30); /* most leaves were never read whole */
	cgoom_decision_free(&full);
	cgoom_decision_free(&lazy);
	cgoom_config_free(&cfg);
	lazy_cleanup();
}

static void test_broken_bound_reads_everything(void)
{
	struct cgoom_decision d;

	fx_new();
	memory_below("");
	/* memory.stat's footprint (8 MiB) above memory.current (1 KB) by
	 * more than the slack of one CPU (1 MiB): bounds are not to be
	 * trusted here */
	leaf("/a", 500, 4096, "1024\n");
	put_cg("/a", "memory.stat", "anon 8388608\nactive_anon 8388608\ninactive_anon 0\nfile 0\n");
	leaf("/b", 501, 1024, "900\n");
	leaf("/c", 502, 1024, "800\n");
	CHECK_EQ_INT(lazy_read(), 0);
	CHECK_EQ_INT(cgoom_settings_resolve(&g_snap, NULL, &g_set), 0);
	/* policy none needs every process anyway; make the root cgroup */
	g_set.cgroups[0].policy.value = CGOOM_POLICY_CGROUP;
	cgoom_decision_init(&d);
	CHECK_EQ_INT(cgoom_select_lazy(g_rd, &g_snap, &g_set, 0, &d), 0);
	for (size_t i = 1; i < g_snap.n_cgroups; i++)
		CHECK(!g_snap.cgroups[i].deferred);
	CHECK(proc(500) && proc(501) && proc(502));
	cgoom_decision_free(&d);
	lazy_cleanup();
}

/* A leaf that grew between the walk (memory.current 1 KB) and the read
 * of its memory.stat (8 MiB) is read again whole, with a fresh
 * memory.current (9 MiB): its bound holds, and the other leaves stay
 * deferred. */
/* Settings resolved with policy cgroup on the root, the in-flight PIDs
 * set, and the lazy pipeline run at the root into *d (initialized here). */
static int select_cgroup_at_root(const int *inflight, size_t n_inflight, struct cgoom_decision *d)
{
	int r = cgoom_settings_resolve(&g_snap, NULL, &g_set);
	if (r < 0)
		return r;
	g_set.cgroups[0].policy.value = CGOOM_POLICY_CGROUP;
	if (inflight) {
		g_snap.inflight = inflight;
		g_snap.n_inflight = n_inflight;
	}
	cgoom_decision_init(d);
	return cgoom_select_lazy(g_rd, &g_snap, &g_set, 0, d);
}

static void test_grown_leaf_reread_alone(void)
{
	struct cgoom_decision d;

	fx_new();
	memory_below("");
	leaf("/a", 500, 8192, "1024\n");
	leaf("/b", 501, 1024, "900\n");
	leaf("/c", 502, 1024, "800\n");
	CHECK_EQ_INT(lazy_read(), 0);
	put_cg("/a", "memory.stat", "anon 8388608\nactive_anon 8388608\ninactive_anon 0\nfile 0\n");
	put_cg("/a", "memory.current", "9437184\n");
	CHECK_EQ_INT(select_cgroup_at_root(NULL, 0, &d), 0);
	CHECK(d.has_victim && d.victim_pid == 500);
	CHECK_EQ_U64(g_snap.cgroups[idx("/a")].current, 9437184);
	CHECK(g_snap.cgroups[idx("/b")].deferred && g_snap.cgroups[idx("/c")].deferred);
	CHECK(!proc(501) && !proc(502));
	cgoom_decision_free(&d);
	lazy_cleanup();
}

/* An in-flight PID is looked for where its /proc/PID/cgroup says, not
 * everywhere: only that cgroup is read, and selection waits for it. */
/* Writes `content` to `name` in the directory dfd. */
static void put_at(int dfd, const char *name, const char *content)
{
	int fd = openat(dfd, name, O_WRONLY | O_CREAT | O_TRUNC, 0644);

	CHECK(fd >= 0);
	CHECK(write(fd, content, strlen(content)) == (ssize_t)strlen(content));
	close(fd);
}

/* A leaf whose path is over 4000 bytes cannot be opened later by its
 * path from the root (openat2 takes less than PATH_MAX): it is read
 * whole, not deferred. It used to be deferred and then dropped ("cannot
 * be opened (Invalid argument), dropped"), its 200 MiB process with it,
 * and /a's 1 MiB one was the victim. */
static void test_long_path_leaf_read_whole(void)
{
	char name[251];
	int fds[17], n = 0;

	fx_new();
	memory_below("");
	leaf("/a", 500, 1024, "1100000\n");
	mkcg("/l", true, "");
	memory_below("/l");
	memset(name, 'x', sizeof name - 1);
	name[sizeof name - 1] = '\0';
	fds[n++] = open(at("cg/l"), O_RDONLY | O_DIRECTORY);
	CHECK(fds[0] >= 0);
	for (; n < 17; n++) { /* /l + 16 x 251 bytes: 4018 */
		CHECK(mkdirat(fds[n - 1], name, 0755) == 0);
		fds[n] = openat(fds[n - 1], name, O_RDONLY | O_DIRECTORY);
		CHECK(fds[n] >= 0);
		put_at(fds[n], "cgroup.controllers", "cpu memory pids\n");
		put_at(fds[n], "memory.stat", MEMSTAT);
		put_at(fds[n], "memory.current", "210000000\n");
		put_at(fds[n], "memory.swap.current", "0\n");
		put_at(fds[n], "memory.max", "max\n");
		put_at(fds[n], "cgroup.procs", n == 16 ? "501\n" : "");
		if (n < 16)
			put_at(fds[n], "cgroup.subtree_control", "memory pids\n");
	}
	mkproc(&(struct fproc){ .pid = 501, .comm = "deep", .start = 100, .rss_kb = 200 << 10,
				.kthread = -1 });
	CHECK_EQ_INT(lazy_read(), 0);
	CHECK(proc(501)); /* read with the walk, not deferred */
	CHECK(!has_note("cannot be opened"));
	CHECK_EQ_INT(cgoom_settings_resolve(&g_snap, NULL, &g_set), 0);
	struct cgoom_decision d;
	cgoom_decision_init(&d);
	CHECK_EQ_INT(cgoom_select_lazy(g_rd, &g_snap, &g_set, 0, &d), 0);
	CHECK(d.has_victim && d.victim_pid == 501);
	cgoom_decision_free(&d);
	for (n--; n > 0; n--) { /* nftw cannot remove what PATH_MAX cannot name */
		for (const char *const *f = (const char *const[]){ "cgroup.controllers", "memory.stat",
			"memory.current", "memory.swap.current", "memory.max", "cgroup.procs",
			"cgroup.subtree_control", NULL }; *f; f++)
			unlinkat(fds[n], *f, 0);
		close(fds[n]);
		CHECK(unlinkat(fds[n - 1], name, AT_REMOVEDIR) == 0);
	}
	close(fds[0]);
	lazy_cleanup();
}

static void test_inflight_located(void)
{
	struct cgoom_decision d;
	static const int dying[] = { 502 };
	static const int gone[] = { 777 };

	fx_new();
	memory_below("");
	leaf("/a", 500, 4096, "5000000\n");
	leaf("/b", 501, 1024, "2000000\n");
	leaf("/c", 502, 1024, "1500000\n");
	put("proc/502/cgroup", "0::/c\n");
	CHECK_EQ_INT(lazy_read(), 0);
	CHECK_EQ_INT(select_cgroup_at_root(dying, 1, &d), 0);
	CHECK(d.inflight && !d.has_victim);
	CHECK_EQ_INT(d.inflight_pid, 502);
	CHECK(g_snap.inflight_located);
	CHECK(!cg("/c")->deferred && proc(502));
	CHECK(cg("/a")->deferred && cg("/b")->deferred); /* never read */
	cgoom_decision_free(&d);
	lazy_cleanup();

	/* a PID that is gone (no /proc/PID): nothing more is read for it,
	 * and selection goes on as the full read would */
	fx_new();
	memory_below("");
	leaf("/a", 500, 4096, "5000000\n");
	leaf("/b", 501, 1024, "2000000\n");
	CHECK_EQ_INT(lazy_read(), 0);
	CHECK_EQ_INT(select_cgroup_at_root(gone, 1, &d), 0);
	CHECK(!d.inflight && d.has_victim);
	CHECK_EQ_INT(d.victim_pid, 500);
	CHECK(cg("/b")->deferred);
	cgoom_decision_free(&d);
	lazy_cleanup();

	/* a path that names no cgroup here (another cgroup namespace):
	 * it could be anywhere, so everything is read */
	fx_new();
	memory_below("");
	leaf("/a", 500, 4096, "5000000\n");
	leaf("/b", 501, 1024, "2000000\n");
	put("proc/501/cgroup", "0::/elsewhere/b\n");
	CHECK_EQ_INT(lazy_read(), 0);
	CHECK_EQ_INT(select_cgroup_at_root((const int[]){ 501 }, 1, &d), 0);
	CHECK(d.inflight);
	CHECK(!cg("/a")->deferred && !cg("/b")->deferred);
	cgoom_decision_free(&d);
	lazy_cleanup();
}

/* Lazy reads side by side, each on a thread with a cwd of its own
 * (cgoom_reader_private_cwd; the daemon's preparations run so): the
 * reader moves the cwd to each parent to read its deferred children's
 * xattrs, so on a shared cwd one thread's move would send another's
 * xattr reads to the wrong directory (the leaf dropped, or given
 * another's settings). Every read must find every leaf with its own
 * bias, and the main thread's cwd must not move. */
#define CWD_PARENTS 4
#define CWD_LEAVES 6
#define CWD_THREADS 4
#define CWD_READS 40

struct cwd_job {
	pthread_t th;
	int private_r;
	int bad; /* reads that missed a leaf or its bias */
};

static void *cwd_reader(void *arg)
{
	struct cwd_job *j = arg;
	j->private_r = cgoom_reader_private_cwd();
	for (int k = 0; k < CWD_READS; k++) {
		struct cgoom_snapshot s;
		struct cgoom_reader *rd = NULL;
		if (cgoom_snapshot_read_lazy(&g_roots, &s, &rd) < 0) {
			j->bad++;
			continue;
		}
		for (int p = 0; p < CWD_PARENTS; p++)
			for (int l = 0; l < CWD_LEAVES; l++) {
				char path[64];
				snprintf(path, sizeof path, "/p%d/l%d", p, l);
				int i = cgoom_snapshot_find(&s, path);
				if (i < 0 || !s.cgroups[i].deferred || !s.cgroups[i].raw.has_user_bias ||
				    s.cgroups[i].raw.user_bias != 10 * p + l + 1) {
					j->bad++;
					goto next;
				}
			}
next:
		cgoom_reader_free(rd);
		cgoom_snapshot_free(&s);
	}
	return NULL;
}

static void test_concurrent_reads_private_cwd(void)
{
	fx_new();
	memory_below("");
	for (int p = 0; p < CWD_PARENTS; p++) {
		char par[16];
		snprintf(par, sizeof par, "/p%d", p);
		mkcg(par, true, "");
		memory_below(par);
		for (int l = 0; l < CWD_LEAVES; l++) {
			char path[32], rel[40], val[8];
			snprintf(path, sizeof path, "%s/l%d", par, l);
			leaf(path, 600 + 10 * p + l, 1024, "5000000\n");
			snprintf(rel, sizeof rel, "cg%s", path);
			snprintf(val, sizeof val, "%d", 10 * p + l + 1);
			if (!xset(rel, "user.cgoom.bias", val)) {
				lazy_cleanup();
				SKIP("user xattrs not supported on this filesystem");
			}
		}
	}
	CHECK_EQ_INT(fx_prepare(), 0);
	struct stat before, after;
	CHECK(stat(".", &before) == 0);
	struct cwd_job jobs[CWD_THREADS] = { 0 };
	for (int t = 0; t < CWD_THREADS; t++)
		CHECK(pthread_create(&jobs[t].th, NULL, cwd_reader, &jobs[t]) == 0);
	for (int t = 0; t < CWD_THREADS; t++) {
		pthread_join(jobs[t].th, NULL);
		CHECK_EQ_INT(jobs[t].private_r, 0);
		CHECK_EQ_INT(jobs[t].bad, 0);
	}
	CHECK(stat(".", &after) == 0);
	CHECK(before.st_ino == after.st_ino && before.st_dev == after.st_dev);
	lazy_cleanup();
}

int main(void)
{
	return tap_run((struct tap_test[]){
		TAP(test_defers_childless_memcgs),
		TAP(test_no_memory_in_subtree_control),
		TAP(test_unusual_leaf_read_whole),
		TAP(test_symlinked_leaf_not_followed),
		TAP(test_expand),
		TAP(test_vanished_before_expand),
		TAP(test_cwd_restored),
		TAP(test_deferred_xattrs),
		TAP(test_deferred_procs_owner),
		TAP(test_same_answer_as_full),
		TAP(test_broken_bound_reads_everything),
		TAP(test_grown_leaf_reread_alone),
		TAP(test_inflight_located),
		TAP(test_long_path_leaf_read_whole),
		TAP(test_concurrent_reads_private_cwd),
		{ 0 },
	});
}
