/* SPDX-License-Identifier: MIT */
#pragma once

#include "cli.h"

/* `cgoom run [--dry-run]`: the daemon (SPEC 6). Returns an exit code. */
int cgoom_daemon_run(const struct cli_opts *o);
