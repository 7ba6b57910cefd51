/* SPDX-License-Identifier: MIT */
/*
 * The kill path, on child processes this test forks itself (they sleep
 * until killed) under the real /proc. Nothing else is ever signalled:
 * PID 1 and "self" are only checked to be refused before any pidfd is
 * opened, and cgroup.kill is only written in a fixture directory.
 */
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "shared/kill.h"
#include "children.h"
#include "tap.h"

static int g_proc_fd = -1;

/* Field 22 of /proc/PID/stat, parsed here independently of the parser. */
static uint64_t starttime_of(pid_t pid)
{
	char path[64], buf[4096], *p;
	size_t n;
	FILE *f;

	snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
	f = fopen(path, "r");
	if (!f)
		return 0;
	n = fread(buf, 1, sizeof buf - 1, f);
	fclose(f);
	buf[n] = '\0';
	p = strrchr(buf, ')');
	if (!p)
		return 0;
	p += 2; /* field 3 */
	for (int field = 3; field < 22 && p; field++) {
		p = strchr(p, ' ');
		if (p)
			p++;
	}
	return p ? strtoull(p, NULL, 10) : 0;
}

static bool readable_within(int fd, int ms)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };

	return poll(&p, 1, ms) == 1 && (p.revents & POLLIN);
}

static void test_pidfd_wrappers(void)
{
	pid_t pid = spawn();
	int fd, status;

	CHECK(pid > 0);
	fd = cgoom_pidfd_open(pid);
	CHECK(fd >= 0);
	CHECK_EQ_INT(cgoom_pidfd_send_signal(fd, 0), 0);
	CHECK(!readable_within(fd, 0));
	CHECK_EQ_INT(cgoom_pidfd_send_signal(fd, SIGKILL), 0);
	int r = cgoom_process_mrelease(fd);
	CHECK(r == 0 || r == -ENOSYS || r == -EINVAL || r == -ESRCH);
	CHECK(readable_within(fd, 5000));
	close(fd);
	status = reap(pid);
	CHECK(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
	CHECK_EQ_INT(cgoom_pidfd_open(-5), -EINVAL);
	CHECK_EQ_INT(cgoom_pidfd_send_signal(-1, 0), -EBADF);
}

static void test_verified_kill(void)
{
	struct cgoom_kill_target t;
	pid_t pid = spawn();
	uint64_t st;
	int status;

	CHECK(pid > 0);
	st = starttime_of(pid);
	CHECK(st > 0);
	CHECK_EQ_INT(cgoom_kill_pid_verified(g_proc_fd, pid, st, 0, SIGKILL, &t), 0);
	CHECK(t.signalled && !t.skipped);
	CHECK_EQ_INT(t.pid, pid);
	CHECK(t.pidfd >= 0);
	CHECK(readable_within(t.pidfd, 5000));
	close(t.pidfd);
	status = reap(pid);
	CHECK(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
}

/* SPEC 2: a process whose main thread exited (pthread_exit) while
 * another thread lives is alive: its leader is a zombie, but the pidfd,
 * the identity check (/proc/PID/stat's start time) and the signal all
 * work on it, and the whole group dies. */
static void test_verified_kill_leader_exited(void)
{
	struct cgoom_kill_target t;
	int tid, status;
	pid_t pid = spawn_leader_exited(&tid);

	CHECK(pid > 0 && tid > 0);
	CHECK(child_state(pid) == 'Z');
	/* its pidfd says "exited" only once the whole group has: the
	 * daemon's wait for the victim does not end early */
	int fd = cgoom_pidfd_open(pid);
	CHECK(fd >= 0 && !readable_within(fd, 0));
	if (fd >= 0)
		close(fd);
	CHECK_EQ_INT(cgoom_kill_pid_verified(g_proc_fd, pid, starttime_of(pid), 0, SIGKILL, &t), 0);
	CHECK(t.signalled && !t.skipped);
	CHECK(t.pidfd >= 0);
	CHECK(readable_within(t.pidfd, 5000));
	close(t.pidfd);
	status = reap(pid);
	CHECK(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
}

static void test_verified_sigterm(void)
{
	struct cgoom_kill_target t;
	pid_t pid = spawn();
	int status;

	CHECK(pid > 0);
	CHECK_EQ_INT(cgoom_kill_pid_verified(g_proc_fd, pid, starttime_of(pid), 0, SIGTERM, &t),
		     0);
	CHECK(t.signalled);
	CHECK(readable_within(t.pidfd, 5000));
	close(t.pidfd);
	status = reap(pid);
	CHECK(WIFSIGNALED(status) && WTERMSIG(status) == SIGTERM);
}

static void test_wrong_starttime(void)
{
	struct cgoom_kill_target t;
	pid_t pid = spawn();

	CHECK(pid > 0);
	/* as if the PID had been reused since the snapshot */
	CHECK_EQ_INT(cgoom_kill_pid_verified(g_proc_fd, pid, starttime_of(pid) + 1, 0, SIGKILL,
					     &t),
		     -ESRCH);
	CHECK(t.skipped && !t.signalled);
	CHECK_EQ_INT(t.pidfd, -1);
	CHECK_EQ_INT(t.err, -ESRCH);
	usleep(50 * 1000);
	CHECK(alive(pid));
	reap(pid);
}

static void test_protected_adj(void)
{
	struct cgoom_kill_target t;
	pid_t pid = spawn();
	char path[64];
	int fd;

	CHECK(pid > 0);
	snprintf(path, sizeof path, "/proc/%d/oom_score_adj", (int)pid);
	fd = open(path, O_WRONLY);
	CHECK(fd >= 0);
	if (write(fd, "-1000", 5) != 5) {
		close(fd);
		reap(pid);
		SKIP("cannot lower oom_score_adj here (no CAP_SYS_RESOURCE)");
	}
	close(fd);
	CHECK_EQ_INT(cgoom_kill_pid_verified(g_proc_fd, pid, starttime_of(pid), 0, SIGKILL, &t),
		     -EPERM);
	CHECK(t.skipped && !t.signalled && t.pidfd == -1);
	usleep(50 * 1000);
	CHECK(alive(pid));
	reap(pid);
}

/* The same, with the identity files from a proc-like fixture holding the
 * child's real stat and an oom_score_adj of -1000 (no capability needed). */
static void test_protected_adj_fixture(void)
{
	char dir[] = "/tmp/cgoom-kill-XXXXXX", path[128], stat[4096];
	struct cgoom_kill_target t;
	pid_t pid = spawn();
	FILE *f;
	size_t n;
	int pfd;

	CHECK(pid > 0);
	CHECK(mkdtemp(dir));
	snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
	f = fopen(path, "r");
	CHECK(f);
	n = fread(stat, 1, sizeof stat, f);
	fclose(f);
	snprintf(path, sizeof path, "%s/%d", dir, (int)pid);
	CHECK(mkdir(path, 0755) == 0);
	snprintf(path, sizeof path, "%s/%d/stat", dir, (int)pid);
	f = fopen(path, "w");
	CHECK(f && fwrite(stat, 1, n, f) == n);
	fclose(f);
	snprintf(path, sizeof path, "%s/%d/oom_score_adj", dir, (int)pid);
	f = fopen(path, "w");
	CHECK(f);
	fputs("-1000\n", f);
	fclose(f);
	pfd = open(dir, O_RDONLY | O_DIRECTORY);
	CHECK(pfd >= 0);
	CHECK_EQ_INT(cgoom_kill_pid_verified(pfd, pid, starttime_of(pid), 0, SIGKILL, &t), -EPERM);
	CHECK(t.skipped && !t.signalled && t.pidfd == -1);
	/* and with an allowed value, the same fixture lets it through */
	f = fopen(path, "w");
	CHECK(f);
	fputs("0\n", f);
	fclose(f);
	CHECK_EQ_INT(cgoom_kill_verify(pfd, pid, starttime_of(pid), 0, &t), 0);
	CHECK(t.pidfd >= 0);
	close(t.pidfd);
	close(pfd);
	unlink(path);
	snprintf(path, sizeof path, "%s/%d/stat", dir, (int)pid);
	unlink(path);
	snprintf(path, sizeof path, "%s/%d", dir, (int)pid);
	rmdir(path);
	rmdir(dir);
	usleep(50 * 1000);
	CHECK(alive(pid));
	reap(pid);
}

static void test_pid1_and_self_refused(void)
{
	struct cgoom_kill_target t;
	pid_t pid = spawn();

	/* refused before any pidfd is opened: nothing is signalled */
	CHECK_EQ_INT(cgoom_kill_pid_verified(g_proc_fd, 1, 0, 0, SIGKILL, &t), -EPERM);
	CHECK(t.skipped && !t.signalled && t.pidfd == -1);
	CHECK_EQ_INT(cgoom_kill_verify(g_proc_fd, 0, 0, 0, &t), -EPERM);
	CHECK_EQ_INT(cgoom_kill_verify(g_proc_fd, -3, 0, 0, &t), -EPERM);
	CHECK(pid > 0);
	/* the child as "cgoom itself" */
	CHECK_EQ_INT(cgoom_kill_pid_verified(g_proc_fd, pid, starttime_of(pid), pid, SIGKILL, &t),
		     -EPERM);
	CHECK(t.skipped && !t.signalled);
	usleep(50 * 1000);
	CHECK(alive(pid));
	reap(pid);
}

static void test_exited_pid(void)
{
	struct cgoom_kill_target t;
	pid_t pid = fork();
	uint64_t st;

	if (pid == 0)
		_exit(0);
	CHECK(pid > 0);
	st = starttime_of(pid); /* maybe 0 if already gone: any value will do */
	waitpid(pid, NULL, 0);
	/* gone (or, were the PID reused meanwhile, someone else: the start
	 * time differs); either way skipped, never signalled */
	CHECK_EQ_INT(cgoom_kill_pid_verified(g_proc_fd, pid, st, 0, SIGKILL, &t), -ESRCH);
	CHECK(t.skipped && !t.signalled && t.pidfd == -1);
}

/* A hand-built snapshot and decision naming our children. */
struct kill_case {
	struct cgoom_cgroup cg;
	struct cgoom_process procs[3];
	int pids[3];
	struct cgoom_snapshot s;
	struct cgoom_decision d;
};

static void kill_case_init(struct kill_case *k, const pid_t *pids, size_t n)
{
	memset(k, 0, sizeof *k);
	k->cg.path = (char *)"/";
	k->cg.name = "";
	k->cg.parent = -1;
	k->s.cgroups = &k->cg;
	k->s.n_cgroups = 1;
	k->s.procs = k->procs;
	k->s.n_procs = n;
	for (size_t i = 0; i < n; i++) {
		k->procs[i].pid = pids[i];
		k->procs[i].starttime = starttime_of(pids[i]);
		k->pids[i] = pids[i];
	}
	k->d.has_victim = true;
	k->d.victim_pid = pids[0];
	k->d.scope = -1;
	k->d.pids = k->pids;
	k->d.n_pids = n;
}

static void test_kill_refuses_fixture_roots(void)
{
	char dir[] = "/tmp/cgoom-kill-XXXXXX", err[256];
	struct cgoom_kill_result res = { 0 };
	struct cgoom_roots r;
	struct kill_case k;
	pid_t pid = spawn();

	CHECK(pid > 0);
	CHECK(mkdtemp(dir));
	kill_case_init(&k, &pid, 1);
	/* a fixture cgroup root, even with the real /proc */
	CHECK_EQ_INT(cgoom_roots_open(dir, "/proc", &r, err, sizeof err), 0);
	CHECK_EQ_INT(cgoom_kill(&r, &k.s, &k.d, SIGKILL, &res), -EPERM);
	cgoom_roots_close(&r);
	/* and a fixture proc root */
	CHECK_EQ_INT(cgoom_roots_open(dir, dir, &r, err, sizeof err), 0);
	CHECK_EQ_INT(cgoom_kill(&r, &k.s, &k.d, SIGKILL, &res), -EPERM);
	cgoom_roots_close(&r);
	rmdir(dir);
	CHECK(res.targets == NULL);
	usleep(50 * 1000);
	CHECK(alive(pid));
	reap(pid);
}

static bool open_live_roots(struct cgoom_roots *r)
{
	static const char *const cands[] = { "/sys/fs/cgroup", "/sys/fs/cgroup/unified" };
	char err[256];

	/* opened read-only; these tests never write below it */
	for (size_t i = 0; i < 2; i++) {
		if (cgoom_roots_open(cands[i], "/proc", r, err, sizeof err) < 0)
			continue;
		if (cgoom_roots_are_live(r))
			return true;
		cgoom_roots_close(r);
	}
	return false;
}

static void test_kill_live_pidfd(void)
{
	struct cgoom_kill_result res = { 0 };
	struct cgoom_roots r;
	struct kill_case k;
	pid_t pids[3];

	if (!open_live_roots(&r))
		SKIP("no cgroup2 mount: cgoom_kill refuses non-live roots");
	for (int i = 0; i < 3; i++)
		pids[i] = spawn();
	CHECK(pids[0] > 0 && pids[1] > 0 && pids[2] > 0);
	kill_case_init(&k, pids, 3);
	k.procs[1].starttime += 1; /* reused since the snapshot */
	k.procs[2].pid = 0;        /* not in the snapshot at all */
	k.s.n_procs = 2;
	CHECK_EQ_INT(cgoom_kill(&r, &k.s, &k.d, SIGKILL, &res), 0);
	cgoom_roots_close(&r);
	CHECK_EQ_INT(res.n_targets, 3);
	CHECK(!res.used_cgroup_kill);
	CHECK_EQ_INT(res.n_signalled, 1);
	CHECK(res.targets[0].signalled && res.targets[0].pidfd >= 0);
	CHECK(res.targets[1].skipped && !res.targets[1].signalled && res.targets[1].pidfd < 0);
	CHECK(res.targets[2].skipped && !res.targets[2].signalled);
	CHECK(readable_within(res.targets[0].pidfd, 5000));
	usleep(50 * 1000);
	CHECK(alive(pids[1]) && alive(pids[2]));
	cgoom_kill_result_free(&res);
	cgoom_kill_result_free(&res); /* idempotent */
	CHECK(res.targets == NULL);
	reap_all();
}

static int rm_one(const char *p, const struct stat *sb, int flag, struct FTW *f)
{
	(void)sb;
	(void)f;
	return flag == FTW_DP ? rmdir(p) : unlink(p);
}

static void test_cgroup_kill_write(void)
{
	char dir[] = "/tmp/cgoom-kill-XXXXXX", path[256], buf[8] = "";
	int dfd, fd, r;

	CHECK(mkdtemp(dir));
	snprintf(path, sizeof path, "%s/a", dir);
	CHECK(mkdir(path, 0755) == 0);
	snprintf(path, sizeof path, "%s/a/b", dir);
	CHECK(mkdir(path, 0755) == 0);
	snprintf(path, sizeof path, "%s/a/b/cgroup.kill", dir);
	fd = open(path, O_CREAT | O_WRONLY, 0644);
	CHECK(fd >= 0);
	close(fd);
	snprintf(path, sizeof path, "%s/link", dir);
	CHECK(symlink("a", path) == 0);
	dfd = open(dir, O_RDONLY | O_DIRECTORY);
	CHECK(dfd >= 0);

	CHECK_EQ_INT(cgoom_cgroup_kill_write(dfd, "/a/b"), 0);
	snprintf(path, sizeof path, "%s/a/b/cgroup.kill", dir);
	fd = open(path, O_RDONLY);
	CHECK(fd >= 0);
	CHECK(read(fd, buf, sizeof buf - 1) == 1);
	close(fd);
	CHECK_STREQ(buf, "1");
	r = cgoom_cgroup_kill_write(dfd, "/link/b");
	CHECK(r == -ELOOP || r == -ENOTDIR);
	CHECK_EQ_INT(cgoom_cgroup_kill_write(dfd, "/a/../a/b"), -EINVAL);
	CHECK_EQ_INT(cgoom_cgroup_kill_write(dfd, "/a"), -ENOENT); /* no cgroup.kill there */
	CHECK_EQ_INT(cgoom_cgroup_kill_write(dfd, "/"), -ENOENT);
	close(dfd);
	nftw(dir, rm_one, 8, FTW_DEPTH | FTW_PHYS);
}

static void test_result_free_null(void)
{
	struct cgoom_kill_result res = { 0 };

	cgoom_kill_result_free(NULL);
	cgoom_kill_result_free(&res);
	CHECK(res.targets == NULL);
}

int main(void)
{
	int r;

	g_proc_fd = open("/proc", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (g_proc_fd < 0) {
		printf("1..0 # SKIP no /proc\n");
		return 0;
	}
	r = cgoom_pidfd_open(getpid());
	if (r == -ENOSYS) {
		printf("1..0 # SKIP no pidfd_open on this kernel\n");
		return 0;
	}
	if (r >= 0)
		close(r);
	r = tap_run((struct tap_test[]){
		TAP(test_pidfd_wrappers),
		TAP(test_verified_kill),
		TAP(test_verified_kill_leader_exited),
		TAP(test_verified_sigterm),
		TAP(test_wrong_starttime),
		TAP(test_protected_adj),
		TAP(test_protected_adj_fixture),
		TAP(test_pid1_and_self_refused),
		TAP(test_exited_pid),
		TAP(test_kill_refuses_fixture_roots),
		TAP(test_kill_live_pidfd),
		TAP(test_cgroup_kill_write),
		TAP(test_result_free_null),
		{ 0 },
	});
	reap_all();
	close(g_proc_fd);
	return r;
}
