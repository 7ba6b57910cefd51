/* SPDX-License-Identifier: MIT */
/* The reader against hostile trees: symlinks, oversized files, FIFOs, cgroups and processes vanishing mid-walk. */
#include "cgoom/config.h"
#include "cgoom/select.h"
#include "cgoom/settings.h"
#include "reader-fixture.h"

static void test_symlinks_not_followed(void)
{
	fx_new();
	mkcg("/a", true, "");
	mkcg("/elsewhere", true, "");
	put("outside/memory.stat", MEMSTAT);
	CHECK(symlink("../outside", at("cg/a/evil")) == 0);     /* as a cgroup dir */
	unlink(at("cg/a/memory.stat"));
	CHECK(symlink("../../outside/memory.stat", at("cg/a/memory.stat")) == 0); /* as a file */
	CHECK(symlink("/nonexistent", at("cg/dangling")) == 0);
	CHECK_EQ_INT(fx_read(), 0);
	CHECK(!cg("/a/evil"));
	CHECK(!cg("/dangling"));
	CHECK_EQ_INT(g_snap.n_cgroups, 3);
	CHECK(!cg("/a")->stat_ok);
	CHECK(has_note("/a/evil: a symlink, not followed"));
	CHECK(has_note("/a/memory.stat: a symlink, not followed"));
	CHECK(has_note("/dangling: a symlink, not followed"));
}

static void test_self_link(void)
{
	fx_new();
	CHECK(symlink("4242", at("proc/self")) == 0);
	CHECK_EQ_INT(fx_read(), 0);
	CHECK_EQ_INT(g_snap.self_pid, 4242);
}

static void test_no_self_link(void)
{
	fx_new();
	CHECK_EQ_INT(fx_read(), 0);
	CHECK_EQ_INT(g_snap.self_pid, 0);
	unlink(at("proc/self"));
	CHECK(symlink("thread-self/x", at("proc/self")) == 0);
	CHECK_EQ_INT(fx_read(), 0);
	CHECK_EQ_INT(g_snap.self_pid, 0);
	CHECK(has_note("/proc/self"));
}

static void test_real_proc_self(void)
{
	struct cgoom_roots r;
	struct cgoom_snapshot s;
	char err[256];

	fx_new();
	CHECK_EQ_INT(cgoom_roots_open(at("cg"), "/proc", &r, err, sizeof err), 0);
	CHECK_EQ_INT(cgoom_snapshot_read(&r, &s), 0);
	CHECK_EQ_INT(s.self_pid, getpid());
	CHECK(s.meminfo_ok && s.sockstat_ok);
	cgoom_snapshot_free(&s);
	cgoom_roots_close(&r);
}

static void test_oversized_file(void)
{
	char *big;
	size_t n = (1u << 20) + 10;

	fx_new();
	mkcg("/a", true, "");
	big = malloc(n + 1);
	CHECK(big);
	memset(big, ' ', n);
	big[n] = '\0';
	put("cg/a/memory.stat", big);
	free(big);
	CHECK_EQ_INT(fx_read(), 0);
	CHECK(cg("/a") && !cg("/a")->stat_ok);
	CHECK(has_note("/a/memory.stat: larger than 1048576 bytes, refused"));
}

static void test_empty_procs(void)
{
	fx_new();
	mkcg("/a", true, "");
	mkcg("/b", true, "");
	unlink(at("cg/b/cgroup.procs"));
	CHECK_EQ_INT(fx_read(), 0);
	CHECK_EQ_INT(g_snap.n_procs, 0);
	CHECK(cg("/a") && cg("/b"));
	CHECK_EQ_INT(g_snap.n_notes, 0);
}

static void test_many_pids(void)
{
	/* more PIDs than the reader's first buffer holds */
	char *list = malloc(3000 * 8);
	size_t o = 0;

	fx_new();
	CHECK(list);
	for (int pid = 1000; pid < 4000; pid++)
		o += (size_t)sprintf(list + o, "%d\n", pid);
	mkcg("/a", true, list);
	free(list);
	mkproc(&(struct fproc){ .pid = 3999, .comm = "last", .kthread = -1 });
	CHECK_EQ_INT(fx_read(), 0);
	CHECK_EQ_INT(g_snap.n_procs, 1);
	CHECK(proc(3999));
}

/* Below 64 levels the walk reads no cgroup of its own, but the
 * processes below count as the 64th level's: a process 70 levels down
 * is not left out (it would have been: "children not read"). */
static void test_deep_nesting(void)
{
	char path[4096] = "", cut[4096] = "";
	size_t o = 0;

	fx_new();
	for (int d = 1; d <= 70; d++) {
		o += (size_t)snprintf(path + o, sizeof path - o, "/d");
		mkcg(path, true, d == 70 ? "7070\n" : d == 60 ? "6060\n" : "");
		if (d == 64)
			memcpy(cut, path, o + 1);
	}
	mkproc(&(struct fproc){ .pid = 7070, .comm = "deep", .rss_kb = 4096, .kthread = -1 });
	mkproc(&(struct fproc){ .pid = 6060, .comm = "above", .rss_kb = 4096, .kthread = -1 });
	CHECK_EQ_INT(fx_read(), 0);
	CHECK_EQ_INT(g_snap.n_cgroups, 65); /* root + 64 levels */
	CHECK(has_note("deeper than 64 levels: the 6 cgroups below count as part of it"));
	CHECK(proc(7070) && proc(6060));
	CHECK(proc(7070) && !strcmp(g_snap.cgroups[proc(7070)->cgroup].path, cut));
	CHECK(cg(cut) && !cg(cut)->subtree_unread && !cg(cut)->procs_unknown);
}

/* A path below the cut too long to open beneath it (over 4000 bytes):
 * that part stays unread and says so, and the cut is marked, so that no
 * victim is chosen above it (select.c). */
static void test_deep_too_long(void)
{
	char path[4096] = "", name[251];
	int fds[20], n = 0;
	size_t o = 0;

	fx_new();
	for (int d = 1; d <= 64; d++) {
		o += (size_t)snprintf(path + o, sizeof path - o, "/d");
		mkcg(path, true, "");
	}
	memset(name, 'x', sizeof name - 1);
	name[sizeof name - 1] = '\0';
	fds[n++] = open(at("cg%s", path), O_RDONLY | O_DIRECTORY);
	CHECK(fds[0] >= 0);
	for (; n < 18; n++) { /* 17 x 251 bytes below the cut */
		CHECK(mkdirat(fds[n - 1], name, 0755) == 0);
		fds[n] = openat(fds[n - 1], name, O_RDONLY | O_DIRECTORY);
		CHECK(fds[n] >= 0);
	}
	CHECK_EQ_INT(fx_read(), 0);
	CHECK(cg(path) && cg(path)->subtree_unread);
	CHECK(has_note("not all of the rest could be read (a path too long)"));
	for (n--; n > 0; n--) { /* nftw cannot remove what PATH_MAX cannot name */
		close(fds[n]);
		CHECK(unlinkat(fds[n - 1], name, AT_REMOVEDIR) == 0);
	}
	close(fds[0]);
}

/* More cgroups than a read takes: the rest is left unread, which could
 * hide the largest process, so the place they hang from is marked and no
 * victim is chosen in a domain holding it (it was only a note, and the
 * ranking went on with what was read). The limit, 1,000,000, lowered. */
static void test_cgroup_limit_no_victim(void)
{
	struct cgoom_config cfg;
	struct cgoom_settings set;
	struct cgoom_decision d;
	size_t was = cgoom_reader_max_cgroups;

	fx_new();
	mkcg("/a", true, "100\n");
	mkcg("/b", true, "");
	mkcg("/b/x", true, "200\n");
	mkcg("/b/y", true, "300\n");
	mkproc(&(struct fproc){ .pid = 100, .comm = "small", .rss_kb = 1024, .kthread = -1 });
	mkproc(&(struct fproc){ .pid = 200, .comm = "mid", .rss_kb = 2048, .kthread = -1 });
	mkproc(&(struct fproc){ .pid = 300, .comm = "big", .rss_kb = 8192, .kthread = -1 });
	cgoom_reader_max_cgroups = 4; /* the root, /a, /b and one of /b's */
	CHECK_EQ_INT(fx_read(), 0);
	cgoom_reader_max_cgroups = was;
	CHECK_EQ_INT(g_snap.n_cgroups, 4);
	CHECK(has_note("more than 4 cgroups, the rest not read: no victim is chosen"));
	CHECK(cg("/b") && cg("/b")->subtree_unread);
	CHECK(cg("/a") && !cg("/a")->subtree_unread);

	cgoom_config_init(&cfg);
	cgoom_decision_init(&d);
	cgoom_settings_init(&set);
	CHECK_EQ_INT(cgoom_settings_resolve(&g_snap, &cfg, &set), 0);
	CHECK(cgoom_select(&g_snap, &set, 0, &d) < 0 && !d.has_victim);
	cgoom_decision_free(&d);
	cgoom_settings_free(&set);
	cgoom_config_free(&cfg);
}

static int count_fds(void)
{
	int n = 0;

	for (int fd = 0; fd < 1024; fd++)
		n += fcntl(fd, F_GETFD) >= 0;
	return n;
}

static void test_reread_same_roots_no_fd_leak(void)
{
	int before;

	fx_new();
	mkcg("/a", true, "50\n");
	mkcg("/b", true, "51\n");
	mkproc(&(struct fproc){ .pid = 50, .comm = "x", .kthread = -1 });
	CHECK_EQ_INT(fx_read(), 0);
	CHECK_EQ_INT(g_snap.n_cgroups, 3);
	before = count_fds();
	CHECK_EQ_INT(fx_read(), 0); /* the root fd's offset is not consumed */
	CHECK_EQ_INT(g_snap.n_cgroups, 3);
	CHECK_EQ_INT(g_snap.n_procs, 1);
	CHECK_EQ_INT(count_fds(), before);
}

/* Removing cgroup g_victim at a chosen point of the walk, as the kernel
 * may do under the reader. */
static enum cgoom_reader_point g_point;
static const char *g_victim;

static void vanish_hook(enum cgoom_reader_point point, const char *path)
{
	if (point == g_point && !strcmp(path, g_victim))
		rm_rf(at("cg%s", path));
}

static void vanish_at(enum cgoom_reader_point point)
{
	fx_new();
	mkcg("/a", true, "");
	mkcg("/gone", true, "40\n");
	mkcg("/gone/child", true, "");
	mkcg("/z", true, "41\n");
	mkproc(&(struct fproc){ .pid = 40, .comm = "mover", .kthread = -1 });
	mkproc(&(struct fproc){ .pid = 41, .comm = "z", .kthread = -1 });
	g_point = point;
	g_victim = "/gone";
	cgoom_reader_test_hook = vanish_hook;
}

static void check_vanished(void)
{
	CHECK(cg("/a") && cg("/z"));
	CHECK(!cg("/gone") && !cg("/gone/child"));
	CHECK(!proc(40));
	CHECK(proc(41));
	CHECK(has_note("/gone: vanished during the walk, dropped"));
}

static void test_vanish_before_open(void)
{
	vanish_at(CGOOM_READER_BEFORE_OPEN);
	CHECK_EQ_INT(fx_read(), 0);
	check_vanished();
}

static void test_vanish_after_open(void)
{
	vanish_at(CGOOM_READER_AFTER_OPEN);
	CHECK_EQ_INT(fx_read(), 0);
	check_vanished();
	CHECK(!has_note("/gone/memory.stat: missing")); /* not noise about the gone one */
}

static void test_vanish_before_commit(void)
{
	/* everything read, processes included: still dropped whole */
	vanish_at(CGOOM_READER_BEFORE_COMMIT);
	CHECK_EQ_INT(fx_read(), 0);
	check_vanished();
}

static void test_vanished_pid_moves_on(void)
{
	/* the PID of a dropped cgroup, listed again later, is kept there */
	vanish_at(CGOOM_READER_BEFORE_COMMIT);
	put("cg/z/cgroup.procs", "40\n41\n");
	CHECK_EQ_INT(fx_read(), 0);
	CHECK(!cg("/gone"));
	CHECK(proc(40));
	CHECK_EQ_INT(proc(40)->cgroup, cgoom_snapshot_find(&g_snap, "/z"));
}

static void test_fifo_not_read(void)
{
	fx_new();
	mkcg("/a", true, "");
	unlink(at("cg/a/memory.current"));
	CHECK(mkfifo(at("cg/a/memory.current"), 0600) == 0);
	CHECK_EQ_INT(fx_read(), 0); /* and does not hang */
	CHECK(!cg("/a")->current_ok);
	CHECK(has_note("/a/memory.current"));
}

static void test_missing_system_files(void)
{
	fx_new();
	unlink(at("proc/meminfo"));
	put("proc/net/sockstat", "TCP: inuse x\n");
	CHECK_EQ_INT(fx_read(), 0);
	CHECK(!g_snap.meminfo_ok && !g_snap.sockstat_ok);
	CHECK(has_note("/proc/meminfo: No such file"));
	CHECK(has_note("/proc/net/sockstat: malformed"));
}

int main(void)
{
	return tap_run((struct tap_test[]){
		TAP(test_symlinks_not_followed),
		TAP(test_self_link),
		TAP(test_no_self_link),
		TAP(test_real_proc_self),
		TAP(test_oversized_file),
		TAP(test_empty_procs),
		TAP(test_many_pids),
		TAP(test_deep_nesting),
		TAP(test_deep_too_long), TAP(test_cgroup_limit_no_victim),
		TAP(test_reread_same_roots_no_fd_leak),
		TAP(test_vanish_before_open),
		TAP(test_vanish_after_open),
		TAP(test_vanish_before_commit),
		TAP(test_vanished_pid_moves_on),
		TAP(test_fifo_not_read),
		TAP(test_missing_system_files),
		{ 0 },
	});
}
