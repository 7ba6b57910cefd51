/* SPDX-License-Identifier: MIT */
#include "daemon.h"
#include "log.h"

int cgoom_daemon_run(const struct cli_opts *o)
{
	(void)o;
	log_error("the daemon is not built yet");
	return EXIT_RUNTIME;
}
