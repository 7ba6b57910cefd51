/* SPDX-License-Identifier: MIT */
/*
 * The reader against fixture trees built in a mkdtemp() dir: plain
 * files that look like cgroupfs and procfs. Nothing here touches the
 * host's /sys/fs/cgroup or signals anything.
 */
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdarg.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/xattr.h>
#include <unistd.h>

#include "shared/reader.h"
#include "tap.h"

static char g_dir[64];
static struct cgoom_roots g_roots = { .cgroup_fd = -1, .proc_fd = -1 };
static struct cgoom_snapshot g_snap;
static bool g_have_snap;

static const char *MEMSTAT = "anon 1000\nfile 2000\nkernel_stack 16384\nsock 512\n"
			     "slab_unreclaimable 4096\nactive_anon 600\ninactive_anon 400\n"
			     "unevictable 0\n";

static int rm_one(const char *p, const struct stat *sb, int flag, struct FTW *f)
{
	(void)sb;
	(void)f;
	return flag == FTW_DP ? rmdir(p) : unlink(p);
}

static void rm_rf(const char *path)
{
	nftw(path, rm_one, 16, FTW_DEPTH | FTW_PHYS);
}

static void fx_cleanup(void)
{
	if (g_have_snap)
		cgoom_snapshot_free(&g_snap);
	g_have_snap = false;
	cgoom_roots_close(&g_roots);
	cgoom_reader_test_hook = NULL;
	if (g_dir[0])
		rm_rf(g_dir);
	g_dir[0] = '\0';
}

static const char *at(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static const char *at(const char *fmt, ...)
{
	static char bufs[4][8192];
	static int k;
	char *b = bufs[k++ % 4];
	int n = snprintf(b, sizeof bufs[0], "%s/", g_dir);
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(b + n, sizeof bufs[0] - (size_t)n, fmt, ap);
	va_end(ap);
	return b;
}

static void mkdir_p(const char *path)
{
	char tmp[8192];

	snprintf(tmp, sizeof tmp, "%s", path);
	for (char *p = tmp + 1; *p; p++)
		if (*p == '/') {
			*p = '\0';
			mkdir(tmp, 0755);
			*p = '/';
		}
	mkdir(tmp, 0755);
}

/* Writes fixture file REL (below the fixture dir), creating parents. */
static void put(const char *rel, const char *content)
{
	char dir[8192];
	const char *path = at("%s", rel);
	char *slash;
	FILE *f;

	snprintf(dir, sizeof dir, "%s", path);
	slash = strrchr(dir, '/');
	*slash = '\0';
	mkdir_p(dir);
	f = fopen(path, "w");
	if (!f)
		abort();
	fputs(content, f);
	fclose(f);
}

/* Writes file NAME of cgroup PATH ("" for the root) in the fixture. */
static void put_cg(const char *path, const char *name, const char *content)
{
	char rel[4096];

	snprintf(rel, sizeof rel, "cg%s/%s", path, name);
	put(rel, content);
}

/* A cgroup directory "cg/PATH" (PATH "" for the root). */
static void mkcg(const char *path, bool memory, const char *procs)
{
	put_cg(path, "cgroup.controllers", memory ? "cpu memory pids\n" : "cpu pids\n");
	put_cg(path, "cgroup.procs", procs);
	if (memory) {
		put_cg(path, "memory.stat", MEMSTAT);
		put_cg(path, "memory.current", "123456\n");
		put_cg(path, "memory.max", "max\n");
	}
}

struct fproc {
	int pid;
	const char *comm;
	char state;
	unsigned flags;
	unsigned long long start, rss_kb;
	int adj;
	bool no_mm;
	int kthread; /* Kthread: line, -1 none */
	unsigned uid;
};

static void mkproc(const struct fproc *p)
{
	char rel[64], buf[2048];

	snprintf(rel, sizeof rel, "proc/%d/stat", p->pid);
	snprintf(buf, sizeof buf,
		 "%d (%s) %c 1 %d %d 0 -1 %u 0 0 0 0 0 0 0 0 20 0 1 0 %llu 1000 %llu 0 0 0\n",
		 p->pid, p->comm, p->state ? p->state : 'S', p->pid, p->pid, p->flags, p->start,
		 p->rss_kb / 4);
	put(rel, buf);
	snprintf(rel, sizeof rel, "proc/%d/status", p->pid);
	int n = snprintf(buf, sizeof buf,
			 "Name:\t%s\nUmask:\t0022\nState:\t%c (x)\nTgid:\t%d\nPid:\t%d\nPPid:\t1\n"
			 "Uid:\t%u\t%u\t%u\t%u\n",
			 p->comm, p->state ? p->state : 'S', p->pid, p->pid, p->uid, p->uid, p->uid,
			 p->uid);
	if (!p->no_mm)
		n += snprintf(buf + n, sizeof buf - (size_t)n,
			      "VmRSS:\t%llu kB\nVmSwap:\t8 kB\nVmPTE:\t4 kB\n", p->rss_kb);
	if (p->kthread >= 0)
		snprintf(buf + n, sizeof buf - (size_t)n, "Kthread:\t%d\n", p->kthread);
	put(rel, buf);
	snprintf(rel, sizeof rel, "proc/%d/oom_score_adj", p->pid);
	snprintf(buf, sizeof buf, "%d\n", p->adj);
	put(rel, buf);
}

/* A fresh fixture: root cgroup (memcg, no processes) and a proc dir. */
static void fx_new(void)
{
	fx_cleanup();
	snprintf(g_dir, sizeof g_dir, "/tmp/cgoom-reader-XXXXXX");
	if (!mkdtemp(g_dir))
		abort();
	mkcg("", true, "");
	put("proc/meminfo", "MemTotal: 8000000 kB\nMemFree: 4000000 kB\n"
			    "MemAvailable: 6000000 kB\nSwapTotal: 0 kB\nSwapFree: 0 kB\n"
			    "Active(anon): 1000 kB\nInactive(anon): 2000 kB\nSUnreclaim: 300 kB\n"
			    "KernelStack: 40 kB\n");
	put("proc/net/sockstat", "sockets: used 5\nTCP: inuse 1 orphan 0 tw 0 alloc 1 mem 3\n"
				 "UDP: inuse 1 mem 4\n");
}

static int fx_read(void)
{
	char err[256];
	int r;

	if (g_roots.cgroup_fd < 0) {
		r = cgoom_roots_open(at("cg"), at("proc"), &g_roots, err, sizeof err);
		if (r < 0)
			return r;
	}
	if (g_have_snap)
		cgoom_snapshot_free(&g_snap);
	g_have_snap = false;
	r = cgoom_snapshot_read(&g_roots, &g_snap);
	g_have_snap = r == 0;
	return r;
}

static const struct cgoom_cgroup *cg(const char *path)
{
	int i = cgoom_snapshot_find(&g_snap, path);

	return i < 0 ? NULL : &g_snap.cgroups[i];
}

static const struct cgoom_process *proc(int pid)
{
	for (size_t i = 0; i < g_snap.n_procs; i++)
		if (g_snap.procs[i].pid == pid)
			return &g_snap.procs[i];
	return NULL;
}

static bool has_note(const char *sub)
{
	for (size_t i = 0; i < g_snap.n_notes; i++)
		if (strstr(g_snap.notes[i], sub))
			return true;
	return false;
}

static bool xset(const char *rel, const char *name, const char *val)
{
	return setxattr(at("%s", rel), name, val, strlen(val), 0) == 0;
}

/* ---- tests ---- */

static void test_roots_open_error(void)
{
	struct cgoom_roots r;
	char err[256];

	fx_new();
	CHECK_EQ_INT(cgoom_roots_open(at("nope"), at("proc"), &r, err, sizeof err), -ENOENT);
	CHECK(strstr(err, "nope") && strstr(err, "No such file"));
	CHECK_EQ_INT(cgoom_roots_open(at("cg"), at("nope2"), &r, err, sizeof err), -ENOENT);
	CHECK(strstr(err, "nope2"));
	cgoom_roots_close(NULL);
}

static void test_roots_not_live(void)
{
	struct cgoom_roots r;
	char err[256];

	fx_new();
	CHECK_EQ_INT(fx_read(), 0);
	CHECK(!cgoom_roots_are_live(&g_roots));
	/* real procfs, fixture cgroup root: still not live */
	CHECK_EQ_INT(cgoom_roots_open(at("cg"), "/proc", &r, err, sizeof err), 0);
	CHECK(!cgoom_roots_are_live(&r));
	cgoom_roots_close(&r);
	cgoom_roots_close(&r); /* idempotent */
	CHECK(!cgoom_roots_are_live(NULL));
	/* the real thing, if the host has it (opened read-only, fstatfs only) */
	if (cgoom_roots_open("/sys/fs/cgroup/unified", "/proc", &r, err, sizeof err) == 0 ||
	    cgoom_roots_open("/sys/fs/cgroup", "/proc", &r, err, sizeof err) == 0) {
		struct statfs sf;

		CHECK(fstatfs(r.cgroup_fd, &sf) == 0);
		CHECK_EQ_INT(cgoom_roots_are_live(&r), sf.f_type == 0x63677270);
		cgoom_roots_close(&r);
	}
}

static void test_read_file_at(void)
{
	char *buf = NULL;
	size_t len = 0;
	int dfd;

	fx_new();
	put("f", "hello\n");
	CHECK(symlink("f", at("link")) == 0);
	dfd = open(g_dir, O_RDONLY | O_DIRECTORY);
	CHECK(dfd >= 0);
	CHECK_EQ_INT(cgoom_read_file_at(dfd, "f", 100, &buf, &len), 0);
	CHECK_EQ_INT(len, 6);
	CHECK_STREQ(buf, "hello\n");
	free(buf);
	CHECK_EQ_INT(cgoom_read_file_at(dfd, "f", 5, &buf, &len), -EFBIG);
	CHECK_EQ_INT(cgoom_read_file_at(dfd, "f", 6, &buf, &len), 0);
	free(buf);
	CHECK_EQ_INT(cgoom_read_file_at(dfd, "link", 100, &buf, &len), -ELOOP);
	CHECK_EQ_INT(cgoom_read_file_at(dfd, "missing", 100, &buf, &len), -ENOENT);
	CHECK_EQ_INT(cgoom_read_file_at(dfd, "cg", 100, &buf, &len), -EISDIR);
	close(dfd);
}

static void test_basic_tree(void)
{
	fx_new();
	mkcg("/a", true, "");
	mkcg("/a/b", true, "");
	mkcg("/c", true, "");
	CHECK_EQ_INT(fx_read(), 0);
	CHECK_EQ_INT(g_snap.n_cgroups, 4);
	CHECK(cg("/") && cg("/a") && cg("/a/b") && cg("/c"));
	CHECK_EQ_INT(cg("/a/b")->parent, cgoom_snapshot_find(&g_snap, "/a"));
	CHECK_STREQ(cg("/a/b")->name, "b");
	CHECK(cg("/")->is_memcg);
	CHECK(cg("/a")->stat_ok);
	CHECK_EQ_U64(cg("/a")->stat.active_anon, 600);
	CHECK_EQ_U64(cg("/a")->stat.kernel_stack, 16384);
	CHECK(cg("/a")->current_ok);
	CHECK_EQ_U64(cg("/a")->current, 123456);
	CHECK_EQ_U64(cg("/a")->swap_current, 0);
	CHECK(!cg("/a")->has_swap_max);
	CHECK(!cg("/a")->oom_group);
	/* system files */
	CHECK(g_snap.meminfo_ok);
	CHECK_EQ_U64(g_snap.meminfo.mem_total, 8000000ull * 1024);
	CHECK(g_snap.sockstat_ok);
	CHECK_EQ_U64(g_snap.sockstat.tcp_mem_pages, 3);
	CHECK_EQ_U64(g_snap.sockstat.udp_mem_pages, 4);
	CHECK_EQ_U64(g_snap.page_size, (uint64_t)sysconf(_SC_PAGESIZE));
	CHECK_EQ_INT(g_snap.n_notes, 0);
}

static void test_memcg_detection(void)
{
	fx_new();
	mkcg("/mem", true, "");
	mkcg("/nomem", false, "");
	put("cg/nomem/memory.stat", "garbage"); /* not read: not a memcg */
	mkcg("/nomem/under", false, "");
	CHECK_EQ_INT(fx_read(), 0);
	CHECK(cg("/mem")->is_memcg);
	CHECK(!cg("/nomem")->is_memcg);
	CHECK(!cg("/nomem")->stat_ok);
	CHECK(!cg("/nomem/under")->is_memcg);
	CHECK_EQ_INT(g_snap.n_notes, 0);
}

static void test_limits(void)
{
	fx_new();
	mkcg("/a", true, "");
	mkcg("/b", true, "");
	put_cg("/b", "memory.max", "1073741824\n");
	put_cg("/b", "memory.swap.max", "max\n");
	put_cg("/b", "memory.swap.current", "4096\n");
	put_cg("/b", "memory.oom.group", "1\n");
	mkcg("/c", true, "");
	put_cg("/c", "memory.swap.max", "2048\n");
	put_cg("/c", "memory.oom.group", "0\n");
	unlink(at("cg/c/memory.max")); /* absent: no limit */
	CHECK_EQ_INT(fx_read(), 0);
	CHECK_EQ_U64(cg("/a")->max, UINT64_MAX);
	CHECK_EQ_U64(cg("/b")->max, 1073741824ull);
	CHECK(cg("/b")->has_swap_max);
	CHECK_EQ_U64(cg("/b")->swap_max, UINT64_MAX);
	CHECK_EQ_U64(cg("/b")->swap_current, 4096);
	CHECK(cg("/b")->oom_group);
	CHECK_EQ_U64(cg("/c")->max, UINT64_MAX);
	CHECK(cg("/c")->has_swap_max);
	CHECK_EQ_U64(cg("/c")->swap_max, 2048);
	CHECK(!cg("/c")->oom_group);
}

static void test_missing_memory_stat(void)
{
	fx_new();
	mkcg("/a", true, "");
	unlink(at("cg/a/memory.stat"));
	CHECK_EQ_INT(fx_read(), 0);
	CHECK(cg("/a"));
	CHECK(!cg("/a")->stat_ok);
	CHECK(cg("/a")->current_ok);
	CHECK(has_note("/a/memory.stat: missing"));
}

static void test_malformed_memory_stat(void)
{
	fx_new();
	mkcg("/a", true, "");
	put("cg/a/memory.stat", "anon 12\nactive_anon lots\n");
	mkcg("/b", true, "");
	put("cg/b/memory.stat", "anon 12\n"); /* no footprint keys */
	mkcg("/c", true, "");
	put("cg/c/memory.max", "a lot\n");
	CHECK_EQ_INT(fx_read(), 0);
	CHECK(!cg("/a")->stat_ok);
	CHECK(has_note("/a/memory.stat: malformed"));
	CHECK(!cg("/b")->stat_ok);
	CHECK(has_note("/b/memory.stat: footprint keys missing"));
	CHECK_EQ_U64(cg("/c")->max, UINT64_MAX);
	CHECK(has_note("/c/memory.max: malformed"));
}

static void test_xattrs(void)
{
	const struct cgoom_raw_settings *s;

	fx_new();
	mkcg("/a", true, "");
	if (!xset("cg/a", "trusted.cgoom.oom_policy", "tree")) {
		if (errno == ENOTSUP)
			SKIP("no trusted xattrs here");
		CHECK(!"setxattr");
	}
	CHECK(xset("cg/a", "trusted.cgoom.preference", "avoid"));
	CHECK(xset("cg/a", "trusted.cgoom.bias", "-200"));
	CHECK(xset("cg/a", "user.cgoom.oom_policy", "cgroup\n"));
	CHECK(xset("cg/a", "user.cgoom.preference", "prefer"));
	CHECK(setxattr(at("cg/a"), "user.cgoom.bias", "300", 4, 0) == 0); /* with NUL */
	CHECK(xset("cg/a", "user.oomd_avoid", "1"));
	CHECK(xset("cg/a", "user.oomd_omit", "0"));
	mkcg("/b", true, "");
	CHECK(xset("cg/b", "user.oomd_omit", "1"));
	CHECK_EQ_INT(fx_read(), 0);
	s = &cg("/a")->raw;
	CHECK(s->has_trusted_policy && s->trusted_policy == CGOOM_POLICY_TREE);
	CHECK(s->has_trusted_pref && s->trusted_pref == CGOOM_PREF_AVOID);
	CHECK(s->has_trusted_bias);
	CHECK_EQ_INT(s->trusted_bias, -200);
	CHECK(s->has_user_policy && s->user_policy == CGOOM_POLICY_CGROUP);
	CHECK(s->has_user_pref && s->user_pref == CGOOM_PREF_PREFER);
	CHECK(s->has_user_bias);
	CHECK_EQ_INT(s->user_bias, 300);
	CHECK(s->oomd_avoid && !s->oomd_omit);
	CHECK(s->owner_is_root);
	s = &cg("/b")->raw;
	CHECK(!s->has_trusted_policy && !s->has_trusted_pref && !s->has_trusted_bias);
	CHECK(!s->has_user_policy && !s->has_user_pref && !s->has_user_bias);
	CHECK(s->oomd_omit && !s->oomd_avoid);
	CHECK_EQ_INT(g_snap.n_notes, 0);
}

static void test_xattr_invalid(void)
{
	const struct cgoom_raw_settings *s;

	fx_new();
	mkcg("/a", true, "");
	if (!xset("cg/a", "trusted.cgoom.oom_policy", "Tree")) {
		if (errno == ENOTSUP)
			SKIP("no trusted xattrs here");
		CHECK(!"setxattr");
	}
	CHECK(xset("cg/a", "trusted.cgoom.bias", "1001"));
	CHECK(xset("cg/a", "user.cgoom.preference", "kill\x01me\n"));
	CHECK(xset("cg/a", "user.oomd_avoid", "maybe"));
	CHECK(xset("cg/a", "trusted.cgoom.preference", "omit"));
	CHECK_EQ_INT(fx_read(), 0);
	s = &cg("/a")->raw;
	CHECK(!s->has_trusted_policy);
	CHECK(!s->has_trusted_bias);
	CHECK(!s->has_user_pref);
	CHECK(!s->oomd_avoid);
	CHECK(s->has_trusted_pref && s->trusted_pref == CGOOM_PREF_OMIT);
	CHECK(has_note("/a: xattr trusted.cgoom.oom_policy: invalid value \"Tree\""));
	CHECK(has_note("/a: xattr trusted.cgoom.bias: invalid value \"1001\""));
	CHECK(has_note("xattr user.cgoom.preference: invalid value \"kill\\x01me\\x0a\""));
	CHECK(has_note("xattr user.oomd_avoid: invalid value \"maybe\""));
}

static void test_owner(void)
{
	fx_new();
	mkcg("/root-owned", true, "");
	mkcg("/user", true, "");
	CHECK(chown(at("cg/user"), 1000, 1000) == 0);
	CHECK_EQ_INT(fx_read(), 0);
	CHECK(cg("/")->raw.owner_is_root);
	CHECK(cg("/root-owned")->raw.owner_is_root);
	CHECK(!cg("/user")->raw.owner_is_root);
}

static void test_processes(void)
{
	const struct cgoom_process *p;

	fx_new();
	mkcg("/a", true, "100\n101\n");
	mkproc(&(struct fproc){ .pid = 100, .comm = "big", .start = 5555, .rss_kb = 2048,
				.adj = 300, .kthread = 0, .uid = 1000 });
	mkproc(&(struct fproc){ .pid = 101, .comm = "foo) Z 1 (", .start = 7, .rss_kb = 4,
				.adj = -1000, .kthread = -1 });
	CHECK_EQ_INT(fx_read(), 0);
	CHECK_EQ_INT(g_snap.n_procs, 2);
	p = proc(100);
	CHECK(p);
	CHECK_EQ_INT(p->cgroup, cgoom_snapshot_find(&g_snap, "/a"));
	CHECK_STREQ(p->comm, "big");
	CHECK_EQ_U64(p->rss, 2048 * 1024);
	CHECK_EQ_U64(p->swap, 8 * 1024);
	CHECK_EQ_U64(p->pte, 4 * 1024);
	CHECK_EQ_INT(p->oom_score_adj, 300);
	CHECK_EQ_U64(p->starttime, 5555);
	CHECK_EQ_INT(p->uid, 1000);
	CHECK(p->has_mm && !p->kthread && !p->zombie);
	p = proc(101);
	CHECK(p);
	CHECK_STREQ(p->comm, "foo) Z 1 (");
	CHECK_EQ_INT(p->oom_score_adj, -1000);
	CHECK_EQ_U64(p->starttime, 7);
	CHECK(!p->zombie);
	/* process lists after finalize */
	const int *list;
	CHECK_EQ_INT(cgoom_snapshot_procs_of(&g_snap, cgoom_snapshot_find(&g_snap, "/a"), &list),
		     2);
	CHECK_EQ_INT(g_snap.n_notes, 0);
}

static void test_kthread_zombie(void)
{
	fx_new();
	mkcg("", true, "2\n3\n4\n5\n");
	mkproc(&(struct fproc){ .pid = 2, .comm = "kthreadd", .flags = 0x00208040, .no_mm = true,
				.kthread = -1 });
	mkproc(&(struct fproc){ .pid = 3, .comm = "kworker", .no_mm = true, .kthread = 1 });
	mkproc(&(struct fproc){ .pid = 4, .comm = "dead", .state = 'Z', .no_mm = true,
				.kthread = 0 });
	mkproc(&(struct fproc){ .pid = 5, .comm = "gone", .state = 'X', .kthread = -1 });
	CHECK_EQ_INT(fx_read(), 0);
	CHECK_EQ_INT(g_snap.n_procs, 4);
	CHECK(proc(2)->kthread && !proc(2)->has_mm && !proc(2)->zombie);
	CHECK(proc(3)->kthread);
	CHECK(proc(4)->zombie && !proc(4)->kthread && !proc(4)->has_mm);
	CHECK(proc(5)->zombie && proc(5)->has_mm);
	CHECK_EQ_INT(proc(2)->cgroup, 0);
}

static void test_malformed_pid_files(void)
{
	fx_new();
	mkcg("/a", true, "10\n11\n12\n13\n");
	for (int pid = 10; pid <= 13; pid++)
		mkproc(&(struct fproc){ .pid = pid, .comm = "x", .kthread = -1 });
	put("proc/10/stat", "10 (x) S 1 2\n");              /* truncated */
	put("proc/11/status", "Name:\tx\n");                /* State, Tgid missing */
	put("proc/12/oom_score_adj", "-1001\n");            /* out of range */
	put("proc/13/stat", "14 (x) S 1 14 14 0 -1 0 0 0 0 0 0 0 0 0 20 0 1 0 1 1 1\n"); /* pid */
	CHECK_EQ_INT(fx_read(), 0);
	CHECK_EQ_INT(g_snap.n_procs, 0);
	CHECK(cg("/a"));
	CHECK(has_note("/proc/10/stat: malformed"));
	CHECK(has_note("/proc/11/status: malformed"));
	CHECK(has_note("/proc/12/oom_score_adj: malformed"));
	CHECK(has_note("/proc/13/stat: malformed"));
}

static void test_pid_without_proc_entry(void)
{
	fx_new();
	mkcg("/a", true, "20\n21\n");
	mkproc(&(struct fproc){ .pid = 21, .comm = "here", .kthread = -1 });
	CHECK_EQ_INT(fx_read(), 0);
	CHECK_EQ_INT(g_snap.n_procs, 1);
	CHECK(!proc(20) && proc(21));
	CHECK(has_note("/proc/20: gone"));
}

static void test_duplicate_pid(void)
{
	fx_new();
	mkcg("/a", true, "30\n");
	mkcg("/b", true, "30\n31\n");
	mkproc(&(struct fproc){ .pid = 30, .comm = "mover", .kthread = -1 });
	mkproc(&(struct fproc){ .pid = 31, .comm = "stay", .kthread = -1 });
	CHECK_EQ_INT(fx_read(), 0);
	CHECK_EQ_INT(g_snap.n_procs, 2);
	CHECK_EQ_INT(proc(30)->cgroup, cgoom_snapshot_find(&g_snap, "/a"));
	CHECK_EQ_INT(proc(31)->cgroup, cgoom_snapshot_find(&g_snap, "/b"));
	CHECK(has_note("/b/cgroup.procs: PID 30 already listed in /a"));
}

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

static void test_deep_nesting(void)
{
	char path[4096] = "";
	size_t o = 0;

	fx_new();
	for (int d = 1; d <= 70; d++) {
		o += (size_t)snprintf(path + o, sizeof path - o, "/d");
		mkcg(path, true, "");
	}
	CHECK_EQ_INT(fx_read(), 0);
	CHECK_EQ_INT(g_snap.n_cgroups, 65); /* root + 64 levels */
	CHECK(has_note("deeper than 64 levels"));
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
	int r = tap_run((struct tap_test[]){
		TAP(test_roots_open_error),
		TAP(test_roots_not_live),
				TAP(test_read_file_at),
		TAP(test_basic_tree),
		TAP(test_memcg_detection),
		TAP(test_limits),
		TAP(test_missing_memory_stat),
		TAP(test_malformed_memory_stat),
		TAP(test_xattrs),
		TAP(test_xattr_invalid),
		TAP(test_owner),
		TAP(test_processes),
		TAP(test_kthread_zombie),
		TAP(test_malformed_pid_files),
		TAP(test_pid_without_proc_entry),
		TAP(test_duplicate_pid),
		TAP(test_symlinks_not_followed),
		TAP(test_self_link),
		TAP(test_no_self_link),
		TAP(test_real_proc_self),
		TAP(test_oversized_file),
		TAP(test_empty_procs),
		TAP(test_many_pids),
		TAP(test_deep_nesting),
		TAP(test_reread_same_roots_no_fd_leak),
		TAP(test_vanish_before_open),
		TAP(test_vanish_after_open),
		TAP(test_vanish_before_commit),
		TAP(test_vanished_pid_moves_on),
		TAP(test_fifo_not_read),
		TAP(test_missing_system_files),
		{ 0 },
	});
	fx_cleanup();
	return r;
}
