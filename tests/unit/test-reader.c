/* SPDX-License-Identifier: MIT */
/* The reader on fixture trees: files, xattrs, owners, processes. */
#include "reader-fixture.h"


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

/* SPEC 7: the topmost cgroups whose cgroup.procs a user owns; below
 * one, nothing more is looked at, and a childless cgroup (where SPEC 4
 * parks nothing) is not looked at either. */
static void test_procs_owner(void)
{
	fx_new();
	mkcg("/u", true, "");
	mkcg("/u/a", true, "");
	mkcg("/u/a/b", true, "");
	mkcg("/w", true, "");
	mkcg("/w/x", true, "");
	mkcg("/w/x/y", true, "");
	mkcg("/v", true, "");
	mkcg("/v/c", true, "");
	mkcg("/leaf", true, "");
	if (geteuid() != 0) {
		fx_cleanup();
		SKIP("chown needs root");
	}
	CHECK(chown(at("cg/u/cgroup.procs"), 1000, 1000) == 0);
	CHECK(chown(at("cg/u/a/cgroup.procs"), 1000, 1000) == 0);
	CHECK(chown(at("cg/w/x/cgroup.procs"), 1001, 1001) == 0);
	CHECK(chown(at("cg/v"), 1000, 1000) == 0); /* the directory alone is not enough */
	CHECK(chown(at("cg/leaf/cgroup.procs"), 1000, 1000) == 0);
	CHECK_EQ_INT(fx_read(), 0);
	CHECK(!cg("/")->raw.procs_user_owned);
	CHECK(cg("/u")->raw.procs_user_owned);
	CHECK(!cg("/u/a")->raw.procs_user_owned); /* not topmost */
	CHECK(!cg("/w")->raw.procs_user_owned);
	CHECK(cg("/w/x")->raw.procs_user_owned);
	CHECK(!cg("/v")->raw.procs_user_owned);
	CHECK(!cg("/leaf")->raw.procs_user_owned); /* childless: not looked at */
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
	/* SPEC 5: whether they may be killed is unknown, which a scope's
	 * cgroup.kill must know */
	CHECK(cg("/a")->procs_unknown);
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
	CHECK(!cg("/a")->procs_unknown); /* a process gone is no member */
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

int main(void)
{
	return tap_run((struct tap_test[]){
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
		TAP(test_procs_owner),
		TAP(test_processes),
		TAP(test_kthread_zombie),
		TAP(test_malformed_pid_files),
		TAP(test_pid_without_proc_entry),
		TAP(test_duplicate_pid),
		{ 0 },
	});
}
