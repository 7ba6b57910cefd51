/* SPDX-License-Identifier: MIT */
#pragma once

/*
 * The kill path (SPEC 6, STYLE 7): pidfd first, verify identity, signal,
 * process_mrelease. cgroup.kill for whole-scope kills with no ineligible
 * member.
 */

#include <stdbool.h>
#include <stddef.h>

#include "cgoom/select.h"
#include "reader.h"

struct cgoom_kill_target {
	int pid;
	int pidfd;         /* open after a successful kill, for waiting; -1 otherwise */
	int err;           /* 0, or the -errno that stopped this one */
	bool signalled;
	bool skipped;      /* vanished, reused or now protected: never signalled */
};

struct cgoom_kill_result {
	struct cgoom_kill_target *targets; /* one per decision pid */
	size_t n_targets;
	bool used_cgroup_kill;
	int n_signalled;
};

/*
 * Kills what `d` chose. For each PID: pidfd_open, then re-read
 * PID/stat and PID/oom_score_adj through the proc root and skip it if the
 * start time differs from the snapshot (PID reuse) or it is now
 * protected (-1000, PID 1, self). With d->use_cgroup_kill, all pidfds are
 * opened first, then "1" is written to the scope's cgroup.kill; else
 * pidfd_send_signal(sig) per PID. After SIGKILL, process_mrelease() each
 * pidfd (ENOSYS/EINVAL tolerated). Refuses (-EPERM) unless
 * cgoom_roots_are_live() (a fixture's PIDs are not real processes).
 * Returns 0 when it got as far as signalling (see the targets for each
 * PID's fate), -errno when it could not start.
 */
int cgoom_kill(const struct cgoom_roots *r, const struct cgoom_snapshot *s,
	       const struct cgoom_decision *d, int sig, struct cgoom_kill_result *ret);
void cgoom_kill_result_free(struct cgoom_kill_result *res); /* closes pidfds; NULL-safe */

/* Thin wrappers: syscall(2) for libcs without them. -errno on failure. */
int cgoom_pidfd_open(int pid);
int cgoom_pidfd_send_signal(int pidfd, int sig);
int cgoom_process_mrelease(int pidfd);
