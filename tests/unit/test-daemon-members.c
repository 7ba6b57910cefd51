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

static void test_members_real_children(void)
{
	pid_t a = spawn(), b = spawn(), c = spawn();
	CHECK(a > 0 && b > 0 && c > 0);
	/* /d (policy cgroup, memory.max 1 GiB) holds entity /d/e (a and b)
	 * and a smaller rival /d/f */
	snprintf(g_root, sizeof g_root, "/tmp/cgoom-members-XXXXXX");
	CHECK(mkdtemp(g_root) != NULL);
	char path[128], procs[64];
	snprintf(path, sizeof path, "%s/d", g_root);
	CHECK(mkdir(path, 0755) == 0);
	snprintf(path, sizeof path, "%s/d/e", g_root);
	CHECK(mkdir(path, 0755) == 0);
	snprintf(path, sizeof path, "%s/d/e/cgroup.procs", g_root);
	snprintf(procs, sizeof procs, "%d\n%d\n", (int)a, (int)b);
	CHECK(write_text(path, procs) == 0);

	struct cgoom_snapshot s;
	sb_init(&s, 0);
	sb_cg(&s, "/d", 0);
	sb_cg(&s, "/d/e", 300);
	sb_cg(&s, "/d/f", 100);
	s.cgroups[sb_idx(&s, "/d")].max = 1024 * MiB;
	sb_proc(&s, (int)a, "/d/e", 200, 0);
	sb_proc(&s, (int)b, "/d/e", 100, 0);
	sb_proc(&s, (int)c, "/d/f", 100, 0);
	for (size_t i = 0; i < s.n_procs; i++)
		s.procs[i].starttime = starttime_now(s.procs[i].pid);
	struct cgoom_config cfg = cfg_of("[cgroup \"/d\"]\noom_policy = cgroup\n");
	sb_done(&s, &cfg);
	struct cgoom_decision d = sb_select(&s, "/d");
	CHECK(d.has_victim && d.victim_pid == a);

	struct daemon *dm = calloc(1, sizeof(*dm));
	CHECK(dm != NULL);
	dm->roots.cgroup_fd = open(g_root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	dm->roots.proc_fd = open("/proc", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	struct standby sb = { 0 };
	sb.snap = s;
	sb.dec = d;
	sb.settings = sb_set; /* a copy: freed below with sb_set, not by the standby */
	standby_members_open(dm, &sb);
	CHECK(sb.members != NULL && sb.n_members == 2 && sb.n_procs_fds == 1);

	/* the children are equal in memory; a's oom_score_adj (500 of T = 1
	 * GiB) makes it the largest, as the snapshot said */
	CHECK(set_adj(a, 500) == 0);
	CHECK(standby_members_ok(dm, &sb));
	/* a newcomer in the entity: a full read would rank it too */
	snprintf(procs, sizeof procs, "%d\n%d\n%d\n", (int)a, (int)b, (int)c);
	CHECK(write_text(path, procs) == 0);
	CHECK(!standby_members_ok(dm, &sb));
	snprintf(procs, sizeof procs, "%d\n%d\n", (int)a, (int)b);
	CHECK(write_text(path, procs) == 0);
	CHECK(standby_members_ok(dm, &sb));
	/* b overtakes a without the domain growing at all */
	CHECK(set_adj(b, 900) == 0);
	CHECK(!standby_members_ok(dm, &sb));
	/* b exits: a leads again */
	reap(b);
	CHECK(standby_members_ok(dm, &sb));
	/* P itself exits: no proof */
	reap(a);
	CHECK(!standby_members_ok(dm, &sb));

	standby_members_free(&sb);
	close(dm->roots.cgroup_fd);
	close(dm->roots.proc_fd);
	free(dm);
	cgoom_decision_free(&d);
	cgoom_snapshot_free(&s);
	cgoom_config_free(&cfg);
	cgoom_settings_free(&sb_set);
	reap_all();
	unlink(path);
	snprintf(path, sizeof path, "%s/d/e", g_root);
	rmdir(path);
	snprintf(path, sizeof path, "%s/d", g_root);
	rmdir(path);
	rmdir(g_root);
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
	snprintf(g_root, sizeof g_root, "/tmp/cgoom-members-XXXXXX");
	CHECK(mkdtemp(g_root) != NULL);
	char path[128], procs[64];
	snprintf(path, sizeof path, "%s/e", g_root);
	CHECK(mkdir(path, 0755) == 0);
	snprintf(path, sizeof path, "%s/e/cgroup.procs", g_root);
	snprintf(procs, sizeof procs, "%d\n%d\n", (int)a, (int)b);
	CHECK(write_text(path, procs) == 0);

	struct cgoom_snapshot s;
	sb_init(&s, 0);
	sb_cg(&s, "/e", 300);
	s.cgroups[sb_idx(&s, "/e")].max = 1024 * MiB;
	sb_proc(&s, (int)a, "/e", 200, 0);
	sb_proc(&s, (int)b, "/e", 100, 0);
	for (size_t i = 0; i < s.n_procs; i++) {
		s.procs[i].starttime = starttime_now(s.procs[i].pid);
		if (s.procs[i].pid == a)
			s.procs[i].mm_tid = tid;
	}
	struct cgoom_config cfg = cfg_of("[cgroup \"/e\"]\noom_policy = cgroup\n");
	sb_done(&s, &cfg);
	struct cgoom_decision d = sb_select(&s, "/e"); /* the leaf /e, P = a */
	CHECK(d.has_victim && d.victim_pid == a);

	struct daemon *dm = calloc(1, sizeof(*dm));
	CHECK(dm != NULL);
	dm->roots.cgroup_fd = open(g_root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	dm->roots.proc_fd = open("/proc", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	struct standby sb = { 0 };
	sb.snap = s;
	sb.dec = d;
	sb.settings = sb_set;
	standby_members_open(dm, &sb);
	CHECK(sb.members != NULL && sb.n_members == 2);
	CHECK(set_adj(a, 500) == 0);
	CHECK(standby_members_ok(dm, &sb)); /* failed before: P read as a zombie */
	CHECK(set_adj(b, 900) == 0);
	CHECK(!standby_members_ok(dm, &sb)); /* b overtakes it */

	standby_members_free(&sb);
	close(dm->roots.cgroup_fd);
	close(dm->roots.proc_fd);
	free(dm);
	cgoom_decision_free(&d);
	cgoom_snapshot_free(&s);
	cgoom_config_free(&cfg);
	cgoom_settings_free(&sb_set);
	reap_all();
	unlink(path);
	snprintf(path, sizeof path, "%s/e", g_root);
	rmdir(path);
	rmdir(g_root);
}

int main(void)
{
	return tap_run((struct tap_test[]){
		TAP(test_lead_rule),
		TAP(test_members_real_children),
		TAP(test_members_leader_exited),
		{ 0 },
	});
}
