/* SPDX-License-Identifier: MIT */
#pragma once

/*
 * The kill path (SPEC 6, STYLE 7): pidfd first, verify identity, signal,
 * process_mrelease. cgroup.kill for whole-scope kills with no ineligible
 * member.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cgoom/select.h"
#include "reader.h"

struct cgoom_kill_target {
	int pid;
	int pidfd;         /* open after a successful kill, for waiting; -1 otherwise */
	int err;           /* 0, or the -errno that stopped this one */
	bool signalled;
	bool skipped;      /* vanished, reused or now protected: never signalled */
	uint64_t starttime; /* from the snapshot, for re-validation */
	bool released;      /* process_mrelease() was called */
	/* where it was attached when prepared (kill.c check_cgroup: a hash
	 * of its /proc/PID/cgroup path), for re-validation */
	uint64_t cgroup_hash;
	bool cgroup_known;
};

struct cgoom_kill_result {
	struct cgoom_kill_target *targets; /* one per decision pid */
	size_t n_targets;
	bool used_cgroup_kill;
	int n_signalled;
	size_t n_skipped; /* targets skipped so far */
};

/*
 * Kills what `d` chose. For each PID: pidfd_open, then re-read
 * PID/stat and PID/oom_score_adj through the proc root and skip it if the
 * start time differs from the snapshot (PID reuse) or it is now
 * protected (-1000, PID 1, self). With d->use_cgroup_kill, all pidfds are
 * opened first, then "1" is written to the scope's cgroup.kill; else
 * pidfd_send_signal(sig) per PID. After SIGKILL, process_mrelease() each
 * pidfd (ENOSYS/EINVAL/ESRCH tolerated; another failure is left in the
 * target's err, which stays signalled). cgroup.kill is used only for
 * SIGKILL and falls back to per-PID signals if it cannot be written
 * (kernels before 5.14 have none). Refuses (-EPERM) unless
 * cgoom_roots_are_live() (a fixture's PIDs are not real processes).
 * Returns 0 when it got as far as signalling (see the targets for each
 * PID's fate), -errno when it could not start.
 */
int cgoom_kill(const struct cgoom_roots *r, const struct cgoom_snapshot *s,
	       const struct cgoom_decision *d, int sig, struct cgoom_kill_result *ret);
/*
 * cgoom_kill() in three steps, so a decision can be kept ready (the
 * daemon's standby) and the crossing costs a re-validation and a signal.
 * None of them checks that the roots are live: the caller does (the
 * daemon never signals on a fixture; cgoom_kill() refuses).
 *
 * cgoom_kill_prepare: allocates one target per decision PID and opens and
 * verifies each pidfd (cgoom_kill_verify against the snapshot's start
 * time); a PID the snapshot lacks, or that fails verification, is
 * skipped. 0 (see ret->n_skipped), or -EINVAL / -ENOMEM.
 *
 * cgoom_kill_revalidate: for each prepared target still unsignalled, whether
 * it has exited (its pidfd polls readable), still has its start time, is
 * not protected now (oom_score_adj -1000) and is still attached where it
 * was when prepared (its /proc/PID/cgroup, as cgoom's cgroup namespace
 * shows it: a process moved since, to an omit cgroup or another domain,
 * is no longer what the decision chose: -EXDEV; the preparation skips
 * one already away from the cgroup the snapshot saw it in); a failing one is skipped and
 * its pidfd closed. Returns how many were skipped by this call. Allocates
 * nothing.
 *
 * cgoom_kill_signal: signals the prepared targets: one cgroup.kill write on
 * scope_path when use_cgroup_kill, no target was skipped, sig is SIGKILL
 * and the scope holds only targets; else pidfd_send_signal per target.
 * Allocates nothing.
 *
 * cgoom_kill_release: process_mrelease() on each signalled target (call
 * right after a SIGKILL: it frees the victim's memory synchronously,
 * which takes a while for a big one, so the signal goes out to every
 * target first). Allocates nothing.
 */
int cgoom_kill_prepare(int proc_fd, const struct cgoom_snapshot *s,
		       const struct cgoom_decision *d, struct cgoom_kill_result *ret);
size_t cgoom_kill_revalidate(int proc_fd, const struct cgoom_snapshot *s,
			     struct cgoom_kill_result *res);
void cgoom_kill_signal(int cgroup_fd, const char *scope_path, bool use_cgroup_kill, int sig,
		       struct cgoom_kill_result *res);
void cgoom_kill_release(struct cgoom_kill_result *res);

/* Closes the pidfds and frees the targets (not res itself: it may live
 * on the stack); NULL-safe, idempotent. */
void cgoom_kill_result_free(struct cgoom_kill_result *res);

/* Thin wrappers: syscall(2) for libcs without them. -errno on failure. */
int cgoom_pidfd_open(int pid);
int cgoom_pidfd_send_signal(int pidfd, int sig);
int cgoom_process_mrelease(int pidfd);

/*
 * The per-PID steps of cgoom_kill(), usable with only a proc root fd
 * (tests run them on their own children under the real /proc).
 *
 * cgoom_kill_verify: refuses PID <= 1 and self_pid (-EPERM, no pidfd
 * opened); else opens a pidfd first, then re-reads PID/stat and
 * PID/oom_score_adj through proc_fd: a start time other than `starttime`
 * (PID reused) or a vanished process is -ESRCH, oom_score_adj -1000 is
 * -EPERM, unreadable or malformed files -errno / -EBADMSG. *ret is always
 * filled (pid, err, skipped = err != 0); on success (0) ret->pidfd is the
 * open pidfd, else -1.
 *
 * cgoom_kill_pid_verified: cgoom_kill_verify(), then pidfd_send_signal(sig)
 * and, for SIGKILL, process_mrelease(). Returns 0 when signalled
 * (ret->signalled, ret->pidfd kept open for waiting), else ret->err;
 * a process gone by the time of the signal counts as skipped.
 */
int cgoom_kill_verify(int proc_fd, int pid, uint64_t starttime, int self_pid,
		      struct cgoom_kill_target *ret);
int cgoom_kill_pid_verified(int proc_fd, int pid, uint64_t starttime, int self_pid, int sig,
			    struct cgoom_kill_target *ret);


/* Writes "1" to cgroup.kill of the cgroup at `path` ("/a/b") below the
 * cgroup root fd, opening each component with O_NOFOLLOW (-ELOOP or
 * -ENOTDIR on a symlink, -EINVAL on "." or ".." components). */
int cgoom_cgroup_kill_write(int cgroup_fd, const char *path);

/* cgroup.kill of the scope at `path`, only while every process in it and
 * in every cgroup below it is one of res's targets (SPEC 5: one
 * cgroup.kill write when no member is ineligible); -EAGAIN when one is
 * not (a process that joined since the targets were verified), and the
 * caller signals the targets by their pidfds instead. */
int cgoom_cgroup_kill_scope(int cgroup_fd, const char *path, const struct cgoom_kill_result *res);
