/* SPDX-License-Identifier: MIT */
/*
 * The kill path: pidfd first (so the PID cannot be recycled under us),
 * then identity against the snapshot, then the signal through the
 * pidfd, then process_mrelease() to free the victim's memory without
 * waiting for its exit path. Small fixed buffers only: this runs when
 * memory is short.
 */

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "cgfs.h"
#include "cgoom/parse.h"
#include "kill.h"

/* The same numbers on every architecture using the unified syscall table. */
#ifndef SYS_pidfd_open
#define SYS_pidfd_open 434
#endif
#ifndef SYS_pidfd_send_signal
#define SYS_pidfd_send_signal 424
#endif
#ifndef SYS_process_mrelease
#define SYS_process_mrelease 448
#endif

#define DIR_FLAGS CGFS_DIR_FLAGS

int cgoom_pidfd_open(int pid)
{
	long r = syscall(SYS_pidfd_open, pid, 0u);

	return r < 0 ? -errno : (int)r;
}

int cgoom_pidfd_send_signal(int pidfd, int sig)
{
	return syscall(SYS_pidfd_send_signal, pidfd, sig, NULL, 0u) < 0 ? -errno : 0;
}

int cgoom_process_mrelease(int pidfd)
{
	return syscall(SYS_process_mrelease, pidfd, 0u) < 0 ? -errno : 0;
}

/*
 * Where a target is attached, for telling that it moved: its cgroup's
 * path as /proc/PID/cgroup shows it to cgoom, which is relative to
 * cgoom's cgroup namespace ("/../../kubepods.slice/pod/c" from inside a
 * container's own namespace, where the snapshot, read through the host's
 * cgroupfs, has "/kubepods.slice/pod/c"). So the preparation remembers
 * it as a hash (FNV-1a), and a re-check asks only whether it is still
 * the same. No allocation (the
 * kill path): static buffers, cgoom is single threaded here.
 */
struct cg_check {
	uint64_t hash;         /* the path's hash: set by the preparation, checked after */
	bool have_hash;
};

static uint64_t fnv1a(const char *s)
{
	uint64_t h = 14695981039346656037ULL;
	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ULL;
	return h;
}

/* 0 if the process at dfd (its /proc/PID) is where c says (see above),
 * -EXDEV if it is elsewhere (moved since), -errno / -EBADMSG if that
 * cannot be read. */
static int check_cgroup(int dfd, struct cg_check *c)
{
	static char buf[8192], now[4096];
	size_t len;
	int r = cgfs_read_small_at(dfd, "cgroup", buf, sizeof buf, &len);
	if (r == 0 && cgoom_parse_pid_cgroup(buf, len, now, sizeof now) < 0)
		r = -EBADMSG;
	if (r < 0)
		return r;
	uint64_t h = fnv1a(now);
	if (c->have_hash)
		return h == c->hash ? 0 : -EXDEV;
	c->hash = h;
	c->have_hash = true;
	return 0;
}

/* 0 if PID (under proc_fd) still has this start time and may be killed;
 * with cg, also only while it is attached where cg says (check_cgroup). */
static int check_identity(int proc_fd, int pid, uint64_t starttime, struct cg_check *cgroup)
{
	struct cgoom_pid_stat ps;
	char name[16], buf[4096];
	size_t len;
	int64_t adj;
	int fd, r;

	snprintf(name, sizeof name, "%d", pid);
	fd = openat(proc_fd, name, DIR_FLAGS);
	if (fd < 0)
		return errno == ENOENT ? -ESRCH : -errno;
	r = cgfs_read_small_at(fd, "stat", buf, sizeof buf, &len);
	if (r == 0 && cgoom_parse_pid_stat(buf, len, &ps) < 0)
		r = -EBADMSG;
	if (r == 0 && (ps.pid != pid || ps.starttime != starttime))
		r = -ESRCH; /* another process now has this PID */
	if (r == 0)
		r = cgfs_read_small_at(fd, "oom_score_adj", buf, sizeof buf, &len);
	if (r == 0 && cgoom_parse_int(buf, len, -1000, 1000, &adj) < 0)
		r = -EBADMSG;
	if (r == 0 && adj == -1000)
		r = -EPERM; /* protected since the snapshot */
	if (r == 0 && cgroup)
		r = check_cgroup(fd, cgroup);
	close(fd);
	return r == -ENOENT ? -ESRCH : r;
}

int cgoom_kill_verify(int proc_fd, int pid, uint64_t starttime, int self_pid,
		      struct cgoom_kill_target *ret)
{
	struct cgoom_kill_target t = { .pid = pid, .pidfd = -1 };
	int fd, r;

	if (pid <= 1 || pid == self_pid)
		r = -EPERM;
	else if ((fd = cgoom_pidfd_open(pid)) < 0)
		r = fd;
	else if ((r = check_identity(proc_fd, pid, starttime, NULL)) < 0)
		close(fd);
	else
		t.pidfd = fd;
	t.err = r;
	t.skipped = r < 0;
	*ret = t;
	return r;
}

/* Signals a verified target; on failure the pidfd is closed. */
static void signal_target(struct cgoom_kill_target *t, int sig)
{
	int r = cgoom_pidfd_send_signal(t->pidfd, sig);

	if (r < 0) {
		close(t->pidfd);
		t->pidfd = -1;
		t->err = r;
		t->skipped = r == -ESRCH; /* exited meanwhile */
		return;
	}
	t->signalled = true;
}

static void release_target(struct cgoom_kill_target *t)
{
	int r = cgoom_process_mrelease(t->pidfd);

	if (r < 0 && r != -ENOSYS && r != -EINVAL && r != -ESRCH)
		t->err = r;
}

int cgoom_kill_pid_verified(int proc_fd, int pid, uint64_t starttime, int self_pid, int sig,
			    struct cgoom_kill_target *ret)
{
	struct cgoom_kill_target t;

	if (cgoom_kill_verify(proc_fd, pid, starttime, self_pid, &t) == 0) {
		signal_target(&t, sig);
		if (t.signalled && sig == SIGKILL)
			release_target(&t);
	}
	*ret = t;
	return t.signalled ? 0 : t.err;
}

static bool is_target(const struct cgoom_kill_result *res, long pid)
{
	for (size_t i = 0; i < res->n_targets; i++)
		if (res->targets[i].pid == pid && res->targets[i].pidfd >= 0)
			return true;
	return false;
}

static bool members_all_targets(int dfd, const struct cgoom_kill_result *res, int depth);

struct members_ctx {
	int dfd;
	const struct cgoom_kill_result *res;
	int depth;
};

/* -EPERM (stop) when a subdirectory holds a process that is not a
 * target; one that is gone or not a directory is passed over. */
static int check_child(void *ctx, const char *name, unsigned char type)
{
	struct members_ctx *m = ctx;
	int cfd;
	bool ok;

	if (type != DT_DIR && type != DT_UNKNOWN)
		return 0;
	cfd = openat(m->dfd, name, DIR_FLAGS);
	if (cfd < 0)
		return errno == ENOTDIR || errno == ELOOP || errno == ENOENT ? 0 : -errno;
	ok = members_all_targets(cfd, m->res, m->depth + 1);
	close(cfd);
	return ok ? 0 : -EPERM;
}

/* Whether every process now in the subtree at dfd is a verified target:
 * a process that joined the scope after the snapshot (a protected one
 * moved in, say) must not die by cgroup.kill. Depth-bounded; any read
 * problem answers false, so the caller falls back to pidfd kills. No
 * allocation (the kill path): cgroup.procs into a static buffer (cgoom
 * is single threaded, and it is parsed before recursing), the directory
 * listed by cgfs_for_each_entry (a stack buffer per level). */
static bool members_all_targets(int dfd, const struct cgoom_kill_result *res, int depth)
{
	static char buf[65536];
	struct members_ctx m = { .dfd = dfd, .res = res, .depth = depth };
	size_t len;

	if (depth > 64)
		return false;
	int r = cgfs_read_small_at(dfd, "cgroup.procs", buf, sizeof buf, &len);
	if (r == -EOPNOTSUPP && depth > 0 && cgfs_threaded_at(dfd))
		buf[0] = '\0'; /* listed by its threaded domain, at or above it here */
	else if (r < 0)
		return false;
	for (char *line = buf; *line;) {
		char *end;
		long pid = strtol(line, &end, 10);
		if (end == line || (*end != '\n' && *end != '\0') || !is_target(res, pid))
			return false;
		line = *end ? end + 1 : end;
	}
	return cgfs_for_each_entry(dfd, check_child, &m) == 0;
}

int cgoom_cgroup_kill_write(int cgroup_fd, const char *path)
{
	int dfd = cgfs_open_beneath(cgroup_fd, path, DIR_FLAGS);
	if (dfd < 0)
		return dfd;
	int r = 0;
	int fd = openat(dfd, "cgroup.kill", O_WRONLY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		r = -errno;
	else {
		if (write(fd, "1", 1) != 1)
			r = errno ? -errno : -EIO;
		close(fd);
	}
	close(dfd);
	return r;
}

/* cgroup.kill on the scope, after checking its membership is still
 * exactly (a subset of) what was verified. */
int cgoom_cgroup_kill_scope(int cgroup_fd, const char *path, const struct cgoom_kill_result *res)
{
	int dfd = cgfs_open_beneath(cgroup_fd, path, DIR_FLAGS);
	if (dfd < 0)
		return dfd;
	bool ok = members_all_targets(dfd, res, 0);
	close(dfd);
	return ok ? cgoom_cgroup_kill_write(cgroup_fd, path) : -EAGAIN;
}

static int cmp_proc_pid(const void *a, const void *b, void *arg)
{
	const struct cgoom_process *procs = arg;
	int pa = procs[*(const size_t *)a].pid, pb = procs[*(const size_t *)b].pid;

	return (pa > pb) - (pa < pb);
}

/* Index in s->procs of pid via the pid-sorted order, or -1. */
static long find_proc(const struct cgoom_snapshot *s, const size_t *order, int pid)
{
	size_t lo = 0, hi = s->n_procs;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int p = s->procs[order[mid]].pid;

		if (p == pid)
			return (long)order[mid];
		if (p < pid)
			lo = mid + 1;
		else
			hi = mid;
	}
	return -1;
}

/* Where verified target t is attached, remembered for re-validation
 * (a move within the victim entity between the snapshot and now, which
 * a one-shot kill must still make, is no reason to skip it here).
 * Unreadable: not remembered (a re-check then cannot prove it stayed). */
static void remember_cgroup(int proc_fd, struct cgoom_kill_target *t)
{
	char name[16];
	snprintf(name, sizeof name, "%d", t->pid);
	int fd = openat(proc_fd, name, DIR_FLAGS);
	if (fd < 0)
		return;
	struct cg_check c = { 0 };
	int r = check_cgroup(fd, &c);
	close(fd);
	if (r == 0) {
		t->cgroup_hash = c.hash;
		t->cgroup_known = true;
	}
}

int cgoom_kill_prepare(int proc_fd, const struct cgoom_snapshot *s,
		       const struct cgoom_decision *d, struct cgoom_kill_result *ret)
{
	struct cgoom_kill_result res = { 0 };
	size_t *order;

	if (!s || !d || !d->has_victim || !d->n_pids)
		return -EINVAL;
	res.targets = calloc(d->n_pids, sizeof *res.targets);
	order = malloc((s->n_procs ? s->n_procs : 1) * sizeof *order);
	if (!res.targets || !order) {
		free(res.targets);
		free(order);
		return -ENOMEM;
	}
	for (size_t i = 0; i < s->n_procs; i++)
		order[i] = i;
	qsort_r(order, s->n_procs, sizeof *order, cmp_proc_pid, s->procs);

	/* Every pidfd is opened and verified before anything is signalled. */
	res.n_targets = d->n_pids;
	for (size_t i = 0; i < d->n_pids; i++) {
		struct cgoom_kill_target *t = &res.targets[i];
		long pi = find_proc(s, order, d->pids[i]);

		if (pi < 0) {
			*t = (struct cgoom_kill_target){ .pid = d->pids[i], .pidfd = -1,
							 .err = -ESRCH, .skipped = true };
		} else {
			const struct cgoom_process *p = &s->procs[pi];
			cgoom_kill_verify(proc_fd, d->pids[i], p->starttime, s->self_pid, t);
			t->starttime = p->starttime;
			if (!t->skipped)
				remember_cgroup(proc_fd, t);
		}
		res.n_skipped += t->skipped;
	}
	free(order);
	*ret = res;
	return 0;
}

/* Whether the process behind a pidfd has exited (its pidfd polls
 * readable), without blocking. */
static bool pidfd_exited(int pidfd)
{
	struct pollfd p = { .fd = pidfd, .events = POLLIN };
	return poll(&p, 1, 0) == 1 && (p.revents & (POLLIN | POLLHUP | POLLERR));
}

static void skip_target(struct cgoom_kill_result *res, struct cgoom_kill_target *t, int err)
{
	if (t->pidfd >= 0)
		close(t->pidfd);
	t->pidfd = -1;
	t->err = err;
	t->skipped = true;
	res->n_skipped++;
}

size_t cgoom_kill_revalidate(int proc_fd, const struct cgoom_snapshot *s,
			     struct cgoom_kill_result *res)
{
	size_t before = res->n_skipped;
	for (size_t i = 0; i < res->n_targets; i++) {
		struct cgoom_kill_target *t = &res->targets[i];
		if (t->skipped || t->signalled || t->pidfd < 0)
			continue;
		/* one whose place was not read when prepared cannot be shown
		 * to be where the decision saw it */
		struct cg_check c = { .hash = t->cgroup_hash, .have_hash = true };
		int r = pidfd_exited(t->pidfd) ? -ESRCH : t->cgroup_known ? 0 : -EXDEV;
		if (r == 0)
			r = t->pid == s->self_pid ? -EPERM
						  : check_identity(proc_fd, t->pid, t->starttime, &c);
		if (r < 0)
			skip_target(res, t, r);
	}
	return res->n_skipped - before;
}

void cgoom_kill_signal(int cgroup_fd, const char *scope_path, bool use_cgroup_kill, int sig,
		       struct cgoom_kill_result *res)
{
	/* cgroup.kill only kills everything in the scope at once when every
	 * member checked out; it is SIGKILL only. */
	if (use_cgroup_kill && res->n_skipped == 0 && sig == SIGKILL && scope_path &&
	    cgoom_cgroup_kill_scope(cgroup_fd, scope_path, res) == 0) {
		res->used_cgroup_kill = true;
		for (size_t i = 0; i < res->n_targets; i++)
			res->targets[i].signalled = true;
	} else {
		for (size_t i = 0; i < res->n_targets; i++)
			if (res->targets[i].pidfd >= 0 && !res->targets[i].signalled)
				signal_target(&res->targets[i], sig);
	}
	res->n_signalled = 0;
	for (size_t i = 0; i < res->n_targets; i++)
		res->n_signalled += res->targets[i].signalled;
}

void cgoom_kill_release(struct cgoom_kill_result *res)
{
	for (size_t i = 0; i < res->n_targets; i++) {
		struct cgoom_kill_target *t = &res->targets[i];

		if (t->signalled && t->pidfd >= 0 && !t->released) {
			release_target(t);
			t->released = true;
		}
	}
}

int cgoom_kill(const struct cgoom_roots *r, const struct cgoom_snapshot *s,
	       const struct cgoom_decision *d, int sig, struct cgoom_kill_result *ret)
{
	struct cgoom_kill_result res;

	if (!cgoom_roots_are_live(r))
		return -EPERM;
	int e = cgoom_kill_prepare(r->proc_fd, s, d, &res);
	if (e < 0)
		return e;
	const char *scope = d->scope >= 0 && (size_t)d->scope < s->n_cgroups
				    ? s->cgroups[d->scope].path
				    : NULL;
	cgoom_kill_signal(r->cgroup_fd, scope, d->use_cgroup_kill, sig, &res);
	if (sig == SIGKILL)
		cgoom_kill_release(&res);
	*ret = res;
	return 0;
}

void cgoom_kill_result_free(struct cgoom_kill_result *res)
{
	if (!res)
		return;
	for (size_t i = 0; i < res->n_targets; i++)
		if (res->targets[i].pidfd >= 0)
			close(res->targets[i].pidfd);
	free(res->targets);
	res->targets = NULL;
	res->n_targets = 0;
	res->n_signalled = 0;
	res->n_skipped = 0;
	res->used_cgroup_kill = false;
}
