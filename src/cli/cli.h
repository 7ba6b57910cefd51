/* SPDX-License-Identifier: MIT */
#pragma once

#include <stdbool.h>

#include "cgoom/config.h"
#include "cgoom/select.h"
#include "reader.h"

/* Exit codes (SPEC 8). */
enum { EXIT_OK = 0, EXIT_RUNTIME = 1, EXIT_USAGE = 2 };

struct cli_opts {
	const char *cgroup_root, *proc_root, *config, *log_format;
	bool config_given;
	bool json, dry_run;
	bool full; /* explain/kill --full: read every cgroup whole (no branch and bound) */
	unsigned watch_ms; /* explain --watch[=SECONDS]: refresh period, 0 = once */
	const char *verb;
	const char *args[4];
	int n_args;
};

/* Loaded state shared by the verbs: config, roots, snapshot, settings. */
struct cli_ctx {
	struct cgoom_config cfg;
	struct cgoom_roots roots;
	struct cgoom_snapshot snap;
	struct cgoom_settings settings; /* resolved from snap and cfg */
	struct cgoom_reader *rd; /* set when read lazily (branch and bound) */
	bool have_cfg, have_roots, have_snap;
};

/* Loads the config (a missing default file means none; a missing
 * --config FILE is an error), opens the roots, reads the snapshot and
 * resolves its settings. Returns an exit code; errors are already
 * printed. */
int cli_load(const struct cli_opts *o, struct cli_ctx *ret);
/* The same, reading lazily (cgoom_snapshot_read_lazy) unless o->full. */
int cli_load_lazy(const struct cli_opts *o, struct cli_ctx *ret);
void cli_ctx_free(struct cli_ctx *c);

/* Why trusted.cgoom.* settings are unknown to this process (it lacks
 * CAP_SYS_ADMIN), or NULL when it can read them. Loading notes it in
 * the snapshot (explain's notes; kill shows them too). */
const char *cli_trusted_note(void);

/* Checks a CGROUP/DOMAIN argument's form (absolute, no "." or "..") and
 * normalizes it into norm (cap bytes); else prints why, EXIT_USAGE. */
int cli_check_path(const char *arg, char *norm, size_t cap);
/* Resolves a CGROUP/DOMAIN argument to a memcg index, or prints an error
 * and returns -EXIT_USAGE. */
int cli_find_memcg(struct cli_ctx *c, const char *arg);

/* Flushes stdout: 0, or -1 with the reason said (once). A kill made
 * sets cli_killed: its exit status stays 0 when only the words about
 * it could not be written (a script that retried on 1 would kill
 * again). */
int cli_stdout_flush(void);
extern bool cli_killed;

int cmd_explain(const struct cli_opts *o);
int cmd_kill(const struct cli_opts *o);
int cmd_policy(const struct cli_opts *o);
