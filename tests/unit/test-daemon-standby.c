/* SPDX-License-Identifier: MIT */
/*
 * The standby decision (src/daemon/standby.c) and the kill steps it
 * relies on (cgoom_kill_prepare / _revalidate / _signal in
 * src/shared/kill.c): when a kept decision may be used at the crossing,
 * and what makes it stale: the victim exits, its PID is reused, the
 * ranking changes, the cgroup is removed; never a second victim.
 * Processes are this test's own children under the real /proc; nothing
 * else is ever signalled.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "standby-internal.h"
#include "children.h"
#include "tap.h"

#define MiB (1ULL << 20)

/* ---- the judge ---- */

static const struct standby_limits lim = { .level_delta = 8 * MiB, .max_age_us = 1000000 };

static struct standby_view fresh(void)
{
	return (struct standby_view){ .present = true, .ready = true, .decided_us = 1000,
				      .level_at = 600 * MiB, .kills_at = 3 };
}

static void test_judge_limit_changed(void)
{
	/* memory.max changed since the decision: the domain size T that
	 * scales oom_score_adj and bias changed, and with it the ranking */
	struct standby_view v = fresh();
	v.max_at = 500 * MiB;
	v.max_now = 400 * MiB;
	CHECK_EQ_INT(standby_judge(&v, false, 2000, 600 * MiB, 3, &lim), SB_REDECIDE);
	v.max_now = 500 * MiB;
	CHECK_EQ_INT(standby_judge(&v, false, 2000, 600 * MiB, 3, &lim), SB_USE);
}

static void test_judge_config_reloaded(void)
{
	/* a reload since the decision (SIGHUP): a setting it rests on may
	 * have changed (omit on its victim, a preference): never reuse */
	struct standby_view v = fresh();
	v.settings_at = 0;
	v.settings_now = 1;
	CHECK_EQ_INT(standby_judge(&v, false, 2000, 600 * MiB, 3, &lim), SB_REDECIDE);
	v.settings_at = 1;
	CHECK_EQ_INT(standby_judge(&v, false, 2000, 600 * MiB, 3, &lim), SB_USE);
}

/* A standby outlives a lapse of the approach while it is fresh (5 s):
 * in bench/swap's zram leaks MemAvailable flickered across twice its
 * minimum while swap filled, and each lapse dropped the system's
 * standby, so each return remade a snapshot of every process (both of
 * the squeeze's two preparations were made from nothing). */
static void test_keep_off_approach(void)
{
	struct standby sb = { .ready = true, .decided_us = 1000000 };
	CHECK(standby_keep_off_approach(&sb, 1000000));
	CHECK(standby_keep_off_approach(&sb, 1000000 + 5000000));
	CHECK(!standby_keep_off_approach(&sb, 1000000 + 5000001)); /* stale: dropped */
	CHECK(!standby_keep_off_approach(&sb, 999999));           /* the clock went back */
	sb.ready = false; /* no verified target: of no use */
	CHECK(!standby_keep_off_approach(&sb, 1000000));
	CHECK(!standby_keep_off_approach(NULL, 1000000));
}

static void test_judge_use(void)
{
	struct standby_view v = fresh();
	CHECK_EQ_INT(standby_judge(&v, false, 2000, 600 * MiB, 3, &lim), SB_USE);
	/* moved within the limit, either way */
	CHECK_EQ_INT(standby_judge(&v, false, 2000, 608 * MiB, 3, &lim), SB_USE);
	CHECK_EQ_INT(standby_judge(&v, false, 2000, 592 * MiB, 3, &lim), SB_USE);
}

static void test_judge_cgroup_removed(void)
{
	struct standby_view v = fresh();
	CHECK_EQ_INT(standby_judge(&v, true, 2000, 600 * MiB, 3, &lim), SB_DROP);
	v.present = false;
	CHECK_EQ_INT(standby_judge(&v, true, 2000, 600 * MiB, 3, &lim), SB_DROP);
}

static void test_judge_redecide(void)
{
	struct standby_view v = fresh();
	v.present = false;
	CHECK_EQ_INT(standby_judge(&v, false, 2000, 600 * MiB, 3, &lim), SB_REDECIDE);
	v = fresh();
	v.ready = false; /* no victim, or every target failed verification */
	CHECK_EQ_INT(standby_judge(&v, false, 2000, 600 * MiB, 3, &lim), SB_REDECIDE);
	v = fresh();
	v.n_skipped = 1; /* a target exited, was reused or became protected */
	CHECK_EQ_INT(standby_judge(&v, false, 2000, 600 * MiB, 3, &lim), SB_REDECIDE);
	v = fresh();
	/* a kill happened since (the in-flight set changed): never reuse */
	CHECK_EQ_INT(standby_judge(&v, false, 2000, 600 * MiB, 4, &lim), SB_REDECIDE);
	/* the clock went backwards */
	CHECK_EQ_INT(standby_judge(&v, false, 999, 600 * MiB, 3, &lim), SB_REDECIDE);
}

static void test_judge_stale(void)
{
	struct standby_view v = fresh();
	/* the level moved more than the limit: the ranking may have changed */
	CHECK_EQ_INT(standby_judge(&v, false, 2000, 609 * MiB, 3, &lim), SB_STALE);
	CHECK_EQ_INT(standby_judge(&v, false, 2000, 591 * MiB, 3, &lim), SB_STALE);
	/* too old */
	CHECK_EQ_INT(standby_judge(&v, false, 1001001, 600 * MiB, 3, &lim), SB_STALE);
	CHECK_EQ_INT(standby_judge(&v, false, 1001000, 600 * MiB, 3, &lim), SB_USE);
}

/* ---- the ranking ---- */

static struct cgoom_candidate cand(enum cgoom_kind kind, int64_t score, enum cgoom_pref pref,
				   bool eligible, int order)
{
	return (struct cgoom_candidate){ .kind = kind, .score = score, .footprint = (uint64_t)score,
					 .pref = pref, .eligible = eligible, .order = order };
}

static void test_lead(void)
{
	struct cgoom_candidate c[4] = {
		cand(CGOOM_KIND_TREE, 300 * MiB, CGOOM_PREF_NONE, true, 2),
		cand(CGOOM_KIND_LEAF, 250 * MiB, CGOOM_PREF_NONE, true, 1),
		cand(CGOOM_KIND_LEAF, 100 * MiB, CGOOM_PREF_NONE, true, 3),
		cand(CGOOM_KIND_LEAF, 900 * MiB, CGOOM_PREF_NONE, false, 4),
	};
	struct cgoom_decision d = { .candidates = c, .n_candidates = 4, .has_victim = true,
				    .victim = 0 };
	CHECK_EQ_U64(standby_lead(&d), 50 * MiB);
	/* the runner-up in a lower tier cannot catch up by growing */
	c[1].pref = CGOOM_PREF_AVOID;
	c[2].pref = CGOOM_PREF_AVOID;
	CHECK_EQ_U64(standby_lead(&d), UINT64_MAX);
	/* a tie: no lead */
	c[1].pref = CGOOM_PREF_NONE;
	c[1].score = 300 * MiB;
	CHECK_EQ_U64(standby_lead(&d), 0);
	/* no rival at all, no victim */
	d.n_candidates = 1;
	CHECK_EQ_U64(standby_lead(&d), UINT64_MAX);
	d.has_victim = false;
	CHECK_EQ_U64(standby_lead(&d), 0);
}

static void test_limits_from_lead(void)
{
	struct standby sb = { .lead = 50 * MiB };
	struct standby_limits a = standby_limits_of(&sb, false), c = standby_limits_of(&sb, true);
	/* refreshed at half the lead on the way, used up to the whole lead */
	CHECK_EQ_U64(a.level_delta, 25 * MiB);
	CHECK_EQ_U64(c.level_delta, 50 * MiB);
	CHECK(c.max_age_us == a.max_age_us);
	CHECK_EQ_U64(standby_limits_of(NULL, true).level_delta, 0);
}

/* A file holding text, for a kept fd to re-read. */
static int text_fd(const char *text)
{
	int fd = memfd_create("standby-rank", MFD_CLOEXEC);
	if (fd >= 0 && write(fd, text, strlen(text)) != (ssize_t)strlen(text)) {
		close(fd);
		return -1;
	}
	return fd;
}

static struct daemon g_dm; /* only its buffer is used */

/* The ranking re-check at the crossing: the victim's memory.stat read
 * now against a rival's memory.current + memory.swap.current, which a
 * full read would see exceeded by memory.stat leading it: the kernel's
 * unflushed stat error (cgoom_stat_slack) counts on the rival's side. */
static bool rank_ok_shmem(uint64_t victim_anon, uint64_t victim_shmem, uint64_t rival_current,
			  unsigned n_cpus)
{
	char stat[192], cur[32];
	snprintf(stat, sizeof stat,
		 "anon 0\nshmem %llu\nfile_mapped 0\nactive_anon %llu\ninactive_anon 0\n",
		 (unsigned long long)victim_shmem, (unsigned long long)victim_anon);
	snprintf(cur, sizeof cur, "%llu\n", (unsigned long long)rival_current);
	struct standby sb = { 0 };
	struct rank_fds f[2] = { { .current_fd = text_fd(stat), .swap_fd = -1 },
				 { .current_fd = text_fd(cur), .swap_fd = -1 } };
	struct rank_bound buf[1];
	if (cgoom_snapshot_init(&sb.snap) < 0 || f[0].current_fd < 0 || f[1].current_fd < 0)
		abort(); /* the test's own set-up */
	sb.snap.n_cpus = n_cpus;
	sb.rank_fds = f;
	sb.n_rank_fds = 2;
	sb.rank_buf = buf;
	bool ok = standby_rank_ok(&g_dm, &sb);
	close(f[0].current_fd);
	close(f[1].current_fd);
	cgoom_snapshot_free(&sb.snap);
	return ok;
}

static bool rank_ok_with(uint64_t victim_anon, uint64_t rival_current, unsigned n_cpus)
{
	return rank_ok_shmem(victim_anon, 0, rival_current, n_cpus);
}

/* The victim's memory.stat re-read at the crossing is a lower bound of
 * its footprint only without its shmem: a victim that wrote 300 MiB of
 * tmpfs since the decision (no process maps it: no kill frees it) does
 * not lead a 100 MiB rival by it (it did before: 310 MiB "led") */
static void test_rank_ok_leaves_out_shmem(void)
{
	CHECK(rank_ok_with(310 * MiB, 100 * MiB, 1));
	CHECK(!rank_ok_shmem(310 * MiB, 300 * MiB, 100 * MiB, 1));
	/* what is left besides the shmem still leads when it does */
	CHECK(rank_ok_shmem(510 * MiB, 300 * MiB, 100 * MiB, 1));
}

static void test_rank_ok_counts_stat_lead(void)
{
	uint64_t slack1 = cgoom_stat_slack(&(struct cgoom_snapshot){ .n_cpus = 1, .page_size = 4096 });
	CHECK(slack1 > 0 && slack1 < 64 * MiB);
	/* the victim clear of the rival by more than the room: still leads */
	CHECK(rank_ok_with(300 * MiB, 300 * MiB - slack1 - 4096, 1));
	/* within the room: the rival's memory.stat could lead its
	 * memory.current past the victim; no proof (this passed before the
	 * room was counted) */
	CHECK(!rank_ok_with(300 * MiB, 300 * MiB - slack1 / 2, 1));
	/* more CPUs, more room */
	CHECK(!rank_ok_with(300 * MiB, 300 * MiB - slack1 - 4096, 4));
	/* no CPU count: nothing is proven */
	CHECK(!rank_ok_with(300 * MiB, 1 * MiB, 0));
}

static void test_rank_holds(void)
{
	struct rank_bound r[2] = { { .score_upper = 250 * MiB, .ahead = true },
				   { .score_upper = 100 * MiB, .ahead = false } };
	CHECK(standby_rank_holds(300 * MiB, r, 2));
	/* a rival grew past the victim: the ranking changed */
	r[1].score_upper = 301 * MiB;
	CHECK(!standby_rank_holds(300 * MiB, r, 2));
	/* a tie goes to whoever comes first in the walk */
	r[1].score_upper = 300 * MiB;
	CHECK(standby_rank_holds(300 * MiB, r, 2));
	r[0].score_upper = 300 * MiB;
	CHECK(!standby_rank_holds(300 * MiB, r, 2));
	/* the victim shrank below a rival */
	r[0].score_upper = 250 * MiB;
	r[1].score_upper = 100 * MiB;
	CHECK(!standby_rank_holds(200 * MiB, r, 2));
	CHECK(standby_rank_holds(0, r, 0));
}

static void test_same_victim(void)
{
	int p1[] = { 10, 11 }, p2[] = { 10, 12 };
	struct cgoom_decision a = { .has_victim = true, .pids = p1, .n_pids = 2 };
	struct cgoom_decision b = a;
	CHECK(standby_same_victim(&a, &b));
	b.pids = p2;
	CHECK(!standby_same_victim(&a, &b));
	b.pids = p1;
	b.n_pids = 1;
	CHECK(!standby_same_victim(&a, &b));
	b.n_pids = 2;
	b.use_cgroup_kill = true;
	CHECK(!standby_same_victim(&a, &b));
	struct cgoom_decision none1 = { 0 }, none2 = { 0 };
	CHECK(standby_same_victim(&none1, &none2));
	CHECK(!standby_same_victim(&a, &none1));
}

/* ---- the prepared kill, on our own children ---- */

static uint64_t starttime_of(pid_t pid)
{
	char path[64], buf[4096];
	snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
	int fd = open(path, O_RDONLY);
	if (fd < 0)
		return 0;
	ssize_t n = read(fd, buf, sizeof buf - 1);
	close(fd);
	if (n <= 0)
		return 0;
	buf[n] = '\0';
	struct cgoom_pid_stat ps;
	return cgoom_parse_pid_stat(buf, (size_t)n, &ps) == 0 ? ps.starttime : 0;
}

/* The cgroup this test (and so each child it spawns) is attached to, as
 * /proc/self/cgroup names it: the snapshot's cgroup of the children. */
static const char *own_cgroup(void)
{
	static char path[4096];
	char buf[8192];
	int fd = open("/proc/self/cgroup", O_RDONLY | O_CLOEXEC);
	ssize_t n = fd >= 0 ? read(fd, buf, sizeof buf) : -1;
	if (fd >= 0)
		close(fd);
	if (n <= 0 || cgoom_parse_pid_cgroup(buf, (size_t)n, path, sizeof path) < 0)
		snprintf(path, sizeof path, "/cgoom-test-unknown"); /* the checks below fail */
	return path;
}

struct kcase {
	struct cgoom_cgroup cg;
	struct cgoom_process procs[2];
	int pids[2];
	struct cgoom_snapshot s;
	struct cgoom_decision d;
};

static void kcase_init(struct kcase *k, const pid_t *pids, size_t n)
{
	memset(k, 0, sizeof *k);
	k->cg.path = (char *)own_cgroup();
	k->cg.name = "";
	k->cg.parent = -1;
	k->s.cgroups = &k->cg;
	k->s.n_cgroups = 1;
	k->s.procs = k->procs;
	k->s.n_procs = n;
	k->s.self_pid = getpid();
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

static int proc_fd(void)
{
	return open("/proc", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
}

/* A child *pid, prepared as the decision's only target (k, *pfd, res),
 * and kept by a re-validation while nothing changed. */
static void prepare_child(pid_t *pid, struct kcase *k, int *pfd, struct cgoom_kill_result *res)
{
	*pid = spawn();
	CHECK(*pid > 0);
	kcase_init(k, pid, 1);
	*pfd = proc_fd();
	CHECK_EQ_INT(cgoom_kill_prepare(*pfd, &k->s, &k->d, res), 0);
	CHECK_EQ_U64(res->n_skipped, 0);
	CHECK(res->targets[0].pidfd >= 0 && !res->targets[0].signalled);
	/* still there: re-validation keeps it */
	CHECK_EQ_U64(cgoom_kill_revalidate(*pfd, &k->s, res), 0);
}

static void test_prepared_victim_exits(void)
{
	pid_t pid;
	struct kcase k;
	int pfd;
	struct cgoom_kill_result res;
	prepare_child(&pid, &k, &pfd, &res);
	/* the victim exits between standby and crossing (reaped: its PID is free) */
	reap(pid);
	CHECK_EQ_U64(cgoom_kill_revalidate(pfd, &k.s, &res), 1);
	CHECK(res.targets[0].skipped && res.targets[0].pidfd < 0);
	CHECK_EQ_INT(res.targets[0].err, -ESRCH);
	/* the judge then re-decides */
	struct standby_view v = fresh();
	v.n_skipped = res.n_skipped;
	CHECK_EQ_INT(standby_judge(&v, false, 2000, 600 * MiB, 3, &lim), SB_REDECIDE);
	/* and signalling what is left signals nothing */
	cgoom_kill_signal(-1, NULL, false, SIGKILL, &res);
	CHECK_EQ_INT(res.n_signalled, 0);
	cgoom_kill_result_free(&res);
	close(pfd);
}

/* The re-validation skips the prepared target (child pid) with err, and
 * it is then never signalled. */
static void refused_at_crossing(int pfd, const struct kcase *k, struct cgoom_kill_result *res,
				int err, pid_t pid)
{
	CHECK_EQ_U64(cgoom_kill_revalidate(pfd, &k->s, res), 1);
	CHECK(res->targets[0].skipped && res->targets[0].pidfd < 0);
	CHECK_EQ_INT(res->targets[0].err, err);
	cgoom_kill_signal(-1, NULL, false, SIGKILL, res);
	CHECK_EQ_INT(res->n_signalled, 0);
	usleep(50 * 1000);
	CHECK(alive(pid));
}

static void test_prepared_pid_reused(void)
{
	pid_t pid = spawn();
	CHECK(pid > 0);
	struct kcase k;
	kcase_init(&k, &pid, 1);
	int pfd = proc_fd();
	struct cgoom_kill_result res;
	/* reused before the standby was made: skipped at once, never signalled */
	k.procs[0].starttime += 1;
	CHECK_EQ_INT(cgoom_kill_prepare(pfd, &k.s, &k.d, &res), 0);
	CHECK_EQ_U64(res.n_skipped, 1);
	CHECK(res.targets[0].skipped && res.targets[0].pidfd < 0);
	cgoom_kill_result_free(&res);
	/* reused after: the start time re-read at the crossing differs */
	k.procs[0].starttime -= 1;
	CHECK_EQ_INT(cgoom_kill_prepare(pfd, &k.s, &k.d, &res), 0);
	CHECK_EQ_U64(res.n_skipped, 0);
	res.targets[0].starttime += 1; /* what the PID now holds is another process */
	refused_at_crossing(pfd, &k, &res, -ESRCH, pid);
	cgoom_kill_result_free(&res);
	close(pfd);
	reap(pid);
}

static void test_prepared_kill_once(void)
{
	pid_t pids[2] = { spawn(), spawn() };
	CHECK(pids[0] > 0 && pids[1] > 0);
	struct kcase k;
	kcase_init(&k, pids, 1); /* the decision names pids[0] only */
	k.s.n_procs = 2;
	k.procs[1].pid = pids[1];
	k.procs[1].starttime = starttime_of(pids[1]);
	int pfd = proc_fd();
	struct cgoom_kill_result res;
	CHECK_EQ_INT(cgoom_kill_prepare(pfd, &k.s, &k.d, &res), 0);
	CHECK_EQ_U64(cgoom_kill_revalidate(pfd, &k.s, &res), 0);
	cgoom_kill_signal(-1, NULL, false, SIGKILL, &res);
	CHECK_EQ_INT(res.n_signalled, 1);
	CHECK(res.targets[0].signalled);
	struct pollfd p = { .fd = res.targets[0].pidfd, .events = POLLIN };
	CHECK(poll(&p, 1, 5000) == 1);
	/* a second signal call on the same result signals nobody again */
	cgoom_kill_signal(-1, NULL, false, SIGKILL, &res);
	CHECK_EQ_INT(res.n_signalled, 1);
	/* re-validation leaves signalled targets alone */
	CHECK_EQ_U64(cgoom_kill_revalidate(pfd, &k.s, &res), 0);
	usleep(50 * 1000);
	CHECK(alive(pids[1])); /* never a second victim */
	cgoom_kill_result_free(&res);
	close(pfd);
	reap(pids[0]);
	reap(pids[1]);
}

static void set_cgroup(const char *dir, pid_t pid, const char *line)
{
	char f[300];
	snprintf(f, sizeof f, "%s/%d/cgroup", dir, (int)pid);
	FILE *fp = fopen(f, "w");
	CHECK(fp != NULL);
	fputs(line, fp);
	fclose(fp);
}

/* A /proc of one process (pid's stat and oom_score_adj copied from the
 * real one, its cgroup file as given), in dir (a mkdtemp template); *fd
 * an fd of it. The pidfd is the real process's. */
static void fake_proc(char *dir, pid_t pid, const char *cgroup_line, int *fd)
{
	*fd = -1;
	CHECK(mkdtemp(dir) != NULL);
	char d[64], cmd[400];
	snprintf(d, sizeof d, "%s/%d", dir, (int)pid);
	snprintf(cmd, sizeof cmd,
		 "mkdir %s && cat /proc/%d/stat > %s/stat && cat /proc/%d/oom_score_adj > %s/oom_score_adj",
		 d, (int)pid, d, (int)pid, d);
	CHECK(system(cmd) == 0);
	set_cgroup(dir, pid, cgroup_line);
	*fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
}

/* The victim moved to another cgroup between the standby and the
 * crossing (into an omit cgroup, another domain): it is no longer what
 * the decision chose, and the standby must not signal it. Where it is
 * attached is read as /proc/PID/cgroup shows it to cgoom: relative to
 * cgoom's cgroup namespace (in a container of its own, "/../../c" for
 * the snapshot's "/k/pod/c"), which is no move. */
static void test_prepared_moved(void)
{
	pid_t pid;
	struct kcase k;
	int pfd;
	struct cgoom_kill_result res;
	prepare_child(&pid, &k, &pfd, &res); /* where the snapshot saw it */
	close(pfd);
	cgoom_kill_result_free(&res);
	k.cg.path = (char *)"/k/pod/c";
	char dir[] = "/tmp/cgoom-proc-XXXXXX";
	fake_proc(dir, pid, "0::/../../c\n", &pfd); /* cgoom in /k/x/y's namespace */
	CHECK_EQ_INT(cgoom_kill_prepare(pfd, &k.s, &k.d, &res), 0);
	CHECK_EQ_U64(res.n_skipped, 0);
	CHECK_EQ_U64(cgoom_kill_revalidate(pfd, &k.s, &res), 0); /* not moved */
	set_cgroup(dir, pid, "0::/../../omitted\n");
	refused_at_crossing(pfd, &k, &res, -EXDEV, pid); /* failed before: kept, signalled */
	cgoom_kill_result_free(&res);
	/* moved between the snapshot and the preparation (within its
	 * entity, as tests/vm attack-delegated's mover): prepared where it
	 * is now, so a one-shot kill still makes it */
	CHECK_EQ_INT(cgoom_kill_prepare(pfd, &k.s, &k.d, &res), 0);
	CHECK_EQ_U64(res.n_skipped, 0);
	CHECK_EQ_U64(cgoom_kill_revalidate(pfd, &k.s, &res), 0);
	cgoom_kill_result_free(&res);
	/* a place not read when prepared: no proof at the crossing */
	set_cgroup(dir, pid, "0::/../../c\n");
	CHECK_EQ_INT(cgoom_kill_prepare(pfd, &k.s, &k.d, &res), 0);
	res.targets[0].cgroup_known = false;
	CHECK_EQ_U64(cgoom_kill_revalidate(pfd, &k.s, &res), 1);
	CHECK_EQ_INT(res.targets[0].err, -EXDEV);
	cgoom_kill_result_free(&res);
	close(pfd);
	char cmd[300];
	snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
	CHECK(system(cmd) == 0);
	reap(pid);
}

static void test_prepared_self_refused(void)
{
	pid_t self = getpid();
	struct kcase k;
	kcase_init(&k, &self, 1);
	int pfd = proc_fd();
	struct cgoom_kill_result res;
	CHECK_EQ_INT(cgoom_kill_prepare(pfd, &k.s, &k.d, &res), 0);
	CHECK_EQ_U64(res.n_skipped, 1);
	CHECK_EQ_INT(res.targets[0].err, -EPERM);
	cgoom_kill_result_free(&res);
	struct cgoom_decision none = { 0 };
	CHECK_EQ_INT(cgoom_kill_prepare(pfd, &k.s, &none, &res), -EINVAL);
	close(pfd);
}

int main(void)
{
	return tap_run((struct tap_test[]){
		TAP(test_keep_off_approach),
		TAP(test_judge_use),
		TAP(test_judge_cgroup_removed),
		TAP(test_judge_redecide),
		TAP(test_judge_stale),
		TAP(test_lead),
		TAP(test_limits_from_lead),
		TAP(test_judge_limit_changed), TAP(test_judge_config_reloaded),
		TAP(test_rank_holds),
		TAP(test_rank_ok_counts_stat_lead),
		TAP(test_rank_ok_leaves_out_shmem),
		TAP(test_same_victim),
		TAP(test_prepared_victim_exits),
		TAP(test_prepared_pid_reused),
		TAP(test_prepared_kill_once),
		TAP(test_prepared_moved),
		TAP(test_prepared_self_refused),
		{ 0 },
	});
}
