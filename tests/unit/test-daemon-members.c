/* SPDX-License-Identifier: MIT */
/*
 * The standby's members re-check (src/daemon/standby-members.c): P, the
 * process a standby decision will signal, must still be the largest of
 * its entity at the crossing, as a full read would find. Pure ranking
 * rule first, then real children of this test whose oom_score_adj is
 * raised, and a cgroup.procs (in a fake cgroup tree) that gains a PID.
 */
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "children.h"
#include "standby-internal.h"
#include "snapbuild.h"
#include "tap.h"

static void test_lead_rule(void)
{
	struct member_score m[3] = { { .pid = 10, .eligible = true, .score = 300 },
				     { .pid = 11, .eligible = true, .score = 200 },
				     { .pid = 5, .eligible = false, .score = 900 } };
	CHECK(standby_members_lead(m, 3, 10));  /* an ineligible one never counts */
	CHECK(!standby_members_lead(m, 3, 11)); /* not the largest */
	m[1].score = 300;
	CHECK(standby_members_lead(m, 3, 10)); /* a tie: the lower PID (10) wins */
	m[1].pid = 9;
	CHECK(!standby_members_lead(m, 3, 10)); /* a tie lost to PID 9 */
	m[0].eligible = false;
	CHECK(!standby_members_lead(m, 3, 10)); /* P itself no longer eligible */
	CHECK(!standby_members_lead(m, 3, 42)); /* P not a member */
	CHECK(!standby_members_lead(m, 0, 10));
}

static char g_root[64];

static int write_text(const char *path, const char *text)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0)
		return -errno;
	ssize_t n = write(fd, text, strlen(text));
	close(fd);
	return n == (ssize_t)strlen(text) ? 0 : -EIO;
}

static int set_adj(pid_t pid, int adj)
{
	char path[64], v[16];
	snprintf(path, sizeof path, "/proc/%d/oom_score_adj", (int)pid);
	snprintf(v, sizeof v, "%d\n", adj);
	return write_text(path, v);
}

static uint64_t starttime_now(pid_t pid)
{
	char path[64], buf[1024];
	snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n = fd >= 0 ? read(fd, buf, sizeof buf) : -1;
	if (fd >= 0)
		close(fd);
	struct cgoom_pid_stat st;
	return n > 0 && cgoom_parse_pid_stat(buf, (size_t)n, &st) == 0 ? st.starttime : 0;
}

static int rm_one(const char *p, const struct stat *sb, int flag, struct FTW *f)
{
	(void)sb;
	(void)flag;
	(void)f;
	return remove(p);
}

/* Writes REL's cgroup.stat in the fake tree: n descendants (the kernel
 * counts every live cgroup below it). */
static void cg_descendants(const char *rel, unsigned n)
{
	char path[128], text[64];
	snprintf(path, sizeof path, "%s/%s/cgroup.stat", g_root, rel);
	snprintf(text, sizeof text, "nr_descendants %u\nnr_dying_descendants 0\n", n);
	CHECK(write_text(path, text) == 0);
}

/* A fake cgroup tree in g_root: directory REL (parents made too) whose
 * cgroup.procs lists pids, with no cgroup below it (cgroup.stat); the
 * cgroup.procs path goes to path. */
static void cg_make(const char *rel, const char *pids, char *path, size_t cap)
{
	if (!g_root[0]) {
		snprintf(g_root, sizeof g_root, "/tmp/cgoom-members-XXXXXX");
		CHECK(mkdtemp(g_root) != NULL);
	}
	snprintf(path, cap, "%s/%s", g_root, rel);
	for (char *sl = path + strlen(g_root) + 1;; sl++) {
		if (*sl != '/' && *sl)
			continue;
		char c = *sl;
		*sl = '\0';
		CHECK(mkdir(path, 0755) == 0 || errno == EEXIST);
		*sl = c;
		if (!c)
			break;
	}
	cg_descendants(rel, 0);
	strncat(path, "/cgroup.procs", cap - strlen(path) - 1);
	CHECK(write_text(path, pids) == 0);
}

/* A snapshot m->s (built by the test) decided in domain with config
 * cfg, and its standby's members re-check opened against g_root and
 * the real /proc. */
struct mcase {
	struct cgoom_snapshot s;
	struct cgoom_config cfg;
	struct cgoom_decision d;
	struct daemon *dm;
	struct standby sb;
};

/* m->s: domain (memory.max 1 GiB) holding entity (itself, or a child),
 * with a (200 MiB) and b (100 MiB) in the entity; the entity's fake
 * cgroup.procs (its path in path) lists them. */
static void mcase_snap(struct mcase *m, const char *domain, const char *entity, pid_t a, pid_t b,
		       char *path, size_t cap)
{
	char procs[64];
	snprintf(procs, sizeof procs, "%d\n%d\n", (int)a, (int)b);
	cg_make(entity + 1, procs, path, cap);
	sb_init(&m->s, 0);
	if (strcmp(domain, entity))
		sb_cg(&m->s, domain, 0);
	sb_cg(&m->s, entity, 300);
	m->s.cgroups[sb_idx(&m->s, domain)].max = 1024 * MiB;
	sb_proc(&m->s, (int)a, entity, 200, 0);
	sb_proc(&m->s, (int)b, entity, 100, 0);
}

static void mcase_open(struct mcase *m, const char *cfg, const char *domain)
{
	for (size_t i = 0; i < m->s.n_procs; i++)
		m->s.procs[i].starttime = starttime_now(m->s.procs[i].pid);
	m->cfg = cfg_of(cfg);
	sb_done(&m->s, &m->cfg);
	m->d = sb_select(&m->s, domain);
	m->dm = calloc(1, sizeof(*m->dm));
	CHECK(m->dm != NULL);
	m->dm->roots.cgroup_fd = open(g_root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	m->dm->roots.proc_fd = open("/proc", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	m->sb = (struct standby){ 0 };
	m->sb.snap = m->s;
	m->sb.dec = m->d;
	m->sb.settings = sb_set; /* a copy: freed with sb_set, not by the standby */
	standby_members_open(m->dm, &m->sb);
}

static void mcase_free(struct mcase *m)
{
	standby_members_free(&m->sb);
	close(m->dm->roots.cgroup_fd);
	close(m->dm->roots.proc_fd);
	free(m->dm);
	cgoom_decision_free(&m->d);
	cgoom_snapshot_free(&m->s);
	cgoom_config_free(&m->cfg);
	cgoom_settings_free(&sb_set);
	reap_all();
	nftw(g_root, rm_one, 8, FTW_DEPTH | FTW_PHYS);
	g_root[0] = '\0';
}

static void test_members_real_children(void)
{
	pid_t a = spawn(), b = spawn(), c = spawn();
	CHECK(a > 0 && b > 0 && c > 0);
	/* /d (policy cgroup, memory.max 1 GiB) holds entity /d/e (a and b)
	 * and a smaller rival /d/f */
	char path[128], procs[64];
	struct mcase m;
	mcase_snap(&m, "/d", "/d/e", a, b, path, sizeof path);
	sb_cg(&m.s, "/d/f", 100);
	sb_proc(&m.s, (int)c, "/d/f", 100, 0);
	mcase_open(&m, "[cgroup \"/d\"]\noom_policy = cgroup\n", "/d");
	CHECK(m.d.has_victim && m.d.victim_pid == a);
	struct daemon *dm = m.dm;
	struct standby *sb = &m.sb;
	CHECK(sb->members != NULL && sb->n_members == 2 && sb->n_procs_fds == 1);

	/* the children are equal in memory; a's oom_score_adj (500 of T = 1
	 * GiB) makes it the largest, as the snapshot said */
	CHECK(set_adj(a, 500) == 0);
	CHECK(standby_members_ok(dm, sb));
	/* a newcomer in the entity: a full read would rank it too */
	snprintf(procs, sizeof procs, "%d\n%d\n%d\n", (int)a, (int)b, (int)c);
	CHECK(write_text(path, procs) == 0);
	CHECK(!standby_members_ok(dm, sb));
	snprintf(procs, sizeof procs, "%d\n%d\n", (int)a, (int)b);
	CHECK(write_text(path, procs) == 0);
	CHECK(standby_members_ok(dm, sb));
	/* b overtakes a without the domain growing at all */
	CHECK(set_adj(b, 900) == 0);
	CHECK(!standby_members_ok(dm, sb));
	/* b exits: a leads again */
	reap(b);
	CHECK(standby_members_ok(dm, sb));
	/* P itself exits: no proof */
	reap(a);
	CHECK(!standby_members_ok(dm, sb));
	mcase_free(&m);
}

/* SPEC 2: P's main thread exited (pthread_exit) while another thread
 * lives on: the reader took its memory from that thread (mm_tid), and
 * so does the re-check, which proves P still leads. The leader's own
 * status (State Z, no Vm* lines) would make P ineligible: no proof,
 * every crossing decided again. */
static void test_members_leader_exited(void)
{
	int tid;
	pid_t a = spawn_leader_exited(&tid), b = spawn();
	CHECK(a > 0 && tid > 0 && b > 0);
	char path[128];
	struct mcase m;
	mcase_snap(&m, "/e", "/e", a, b, path, sizeof path);
	for (size_t i = 0; i < m.s.n_procs; i++)
		if (m.s.procs[i].pid == a)
			m.s.procs[i].mm_tid = tid;
	mcase_open(&m, "[cgroup \"/e\"]\noom_policy = cgroup\n", "/e"); /* the leaf /e */
	CHECK(m.d.has_victim && m.d.victim_pid == a);
	CHECK(m.sb.members != NULL && m.sb.n_members == 2);
	CHECK(set_adj(a, 500) == 0);
	CHECK(standby_members_ok(m.dm, &m.sb)); /* failed before: P read as a zombie */
	CHECK(set_adj(b, 900) == 0);
	CHECK(!standby_members_ok(m.dm, &m.sb)); /* b overtakes it */
	mcase_free(&m);
}

/* Entity /d/e (a, b) beside a rival /d/f (c), decided with cgroup
 * policy in /d; oom_group makes /d/e the kill scope (a and b both
 * signalled). *path and *fpath: the two cgroup.procs. */
static void moved_case(struct mcase *m, pid_t a, pid_t b, pid_t c, bool oom_group, char *path,
		       char *fpath, size_t cap)
{
	char procs[64];
	mcase_snap(m, "/d", "/d/e", a, b, path, cap);
	sb_cg(&m->s, "/d/f", 100);
	sb_proc(&m->s, (int)c, "/d/f", 100, 0);
	m->s.cgroups[sb_idx(&m->s, "/d/e")].oom_group = oom_group;
	snprintf(procs, sizeof procs, "%d\n", (int)c);
	cg_make("d/f", procs, fpath, cap);
	mcase_open(m, "[cgroup \"/d\"]\noom_policy = cgroup\n", "/d");
	CHECK(m->d.has_victim && m->d.victim_pid == a);
	CHECK_EQ_U64(m->d.n_pids, oom_group ? 2 : 1);
	CHECK(m->sb.members != NULL);
	CHECK(set_adj(a, 500) == 0);
	CHECK(standby_members_ok(m->dm, &m->sb));
}

/* moved leaves the entity /d/e (path: stays alone is listed there now)
 * for /d/f (fpath: c and moved). */
static void move_out(pid_t moved, pid_t stays, pid_t c, const char *path, const char *fpath)
{
	char procs[64];
	snprintf(procs, sizeof procs, "%d\n", (int)stays);
	CHECK(write_text(path, procs) == 0);
	snprintf(procs, sizeof procs, "%d\n%d\n", (int)c, (int)moved);
	CHECK(write_text(fpath, procs) == 0);
}

/* A target moved out of the victim entity /d/e after the decision, into
 * the rival /d/f here (an omit cgroup or another domain alike): P, or
 * with scope (memory.oom.group on /d/e) b, signalled beside it. A full
 * read would not signal it there, so the re-check gives no proof. */
static void members_moved_out(bool scope)
{
	pid_t a = spawn(), b = spawn(), c = spawn();
	CHECK(a > 0 && b > 0 && c > 0);
	char path[128], fpath[128];
	struct mcase m;
	moved_case(&m, a, b, c, scope, path, fpath, sizeof path);
	move_out(scope ? b : a, scope ? a : b, c, path, fpath);
	CHECK(!standby_members_ok(m.dm, &m.sb)); /* failed before: proven all the same */
	CHECK(write_text(path, "") == 0);        /* every member gone */
	CHECK(!standby_members_ok(m.dm, &m.sb));
	mcase_free(&m);
}

static void test_members_victim_moved_out(void)
{
	members_moved_out(false);
}

static void test_members_scope_target_moved_out(void)
{
	members_moved_out(true);
}

/* A threaded child in the entity (cgroup.type "threaded"): its
 * cgroup.procs opens but never reads (the kernel's EOPNOTSUPP; here a
 * directory of that name, EISDIR), and its threaded domain lists its
 * processes. The re-check skips it; it failed on it at every crossing
 * before, so a threaded entity's standby was never used. */
static void test_members_threaded_child(void)
{
	pid_t a = spawn(), b = spawn();
	CHECK(a > 0 && b > 0);
	char path[128], tpath[160];
	struct mcase m;
	mcase_snap(&m, "/d", "/d/e", a, b, path, sizeof path);
	snprintf(tpath, sizeof tpath, "%s/d/e/th", g_root);
	CHECK(mkdir(tpath, 0755) == 0);
	strncat(tpath, "/cgroup.procs", sizeof tpath - strlen(tpath) - 1);
	CHECK(mkdir(tpath, 0755) == 0);
	snprintf(tpath, sizeof tpath, "%s/d/e/th/cgroup.type", g_root);
	CHECK(write_text(tpath, "threaded\n") == 0);
	cg_descendants("d/e", 1);
	int th = cgoom_snapshot_add_cgroup(&m.s, sb_idx(&m.s, "/d/e"), "th");
	CHECK(th > 0);
	mcase_open(&m, "[cgroup \"/d\"]\noom_policy = cgroup\n", "/d");
	CHECK(m.d.has_victim && m.d.victim_pid == a);
	CHECK(m.sb.members != NULL);
	/* the children are equal in memory but for a page or two: a's
	 * oom_score_adj makes it the largest, as the snapshot said (without
	 * it b led in about one run of ten) */
	CHECK(set_adj(a, 500) == 0);
	CHECK(standby_members_ok(m.dm, &m.sb));
	mcase_free(&m);
}

/* A cgroup made inside a tree entity after the decision, holding a
 * process far larger than P: a full read ranks it, but the re-check
 * reads only the snapshot's cgroups' cgroup.procs. The entity's
 * cgroup.stat counts it. */
static void test_members_newcomer_in_new_child(void)
{
	pid_t a = spawn(), b = spawn(), c = spawn();
	CHECK(a > 0 && b > 0 && c > 0);
	char path[128], npath[128], procs[64];
	struct mcase m;
	mcase_snap(&m, "/d", "/d/e", a, b, path, sizeof path);
	mcase_open(&m,
		   "[cgroup \"/d\"]\noom_policy = cgroup\n[cgroup \"/d/e\"]\noom_policy = tree\n",
		   "/d");
	CHECK(m.d.has_victim && m.d.victim_pid == a);
	CHECK(m.sb.members != NULL);
	CHECK(set_adj(a, 500) == 0);
	CHECK(standby_members_ok(m.dm, &m.sb));
	snprintf(procs, sizeof procs, "%d\n", (int)c);
	cg_make("d/e/new", procs, npath, sizeof npath);
	cg_descendants("d/e", 1);
	CHECK(set_adj(c, 1000) == 0);            /* far the largest now */
	CHECK(!standby_members_ok(m.dm, &m.sb)); /* failed before: P proven */
	/* made and gone again: the entity is what the snapshot saw */
	cg_descendants("d/e", 0);
	CHECK(standby_members_ok(m.dm, &m.sb));
	/* one made between the snapshot and the standby: no members re-check */
	standby_members_free(&m.sb);
	cg_descendants("d/e", 1);
	standby_members_open(m.dm, &m.sb);
	CHECK(m.sb.members == NULL);
	mcase_free(&m);
}

int main(void)
{
	return tap_run((struct tap_test[]){
		TAP(test_lead_rule),
		TAP(test_members_real_children),
		TAP(test_members_leader_exited),
		TAP(test_members_victim_moved_out),
		TAP(test_members_scope_target_moved_out),
		TAP(test_members_threaded_child), TAP(test_members_newcomer_in_new_child),
		{ 0 },
	});
}
