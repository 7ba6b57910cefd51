/* SPDX-License-Identifier: MIT */
#pragma once

/*
 * `cgoom run`: the daemon (SPEC 6), built as a library (libcgoom-daemon)
 * linked into the cgoom executable and into the unit tests. It does not
 * depend on the CLI: the CLI fills these options and calls it.
 */

#include <stdbool.h>

struct cgoom_daemon_opts {
	const char *cgroup_root, *proc_root; /* NULL: /sys/fs/cgroup, /proc */
	const char *config;                  /* NULL: /etc/cgoom.conf */
	bool config_given;                   /* a missing --config FILE is an error */
	bool dry_run;
};

/* Exit codes, as the CLI's (SPEC 8). */
enum { CGOOM_DAEMON_EXIT_OK = 0, CGOOM_DAEMON_EXIT_RUNTIME = 1, CGOOM_DAEMON_EXIT_USAGE = 2 };

/* Runs the daemon until SIGTERM/SIGINT (or once, with CGOOM_RUN_ONCE=1).
 * Returns an exit code. */
int cgoom_daemon_run(const struct cgoom_daemon_opts *o);
