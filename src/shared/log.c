/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "log.h"

static const char *prog = "cgoom";
static enum cgoom_log_level max_level = CGOOM_LOG_INFO;
static bool journal;
static enum cgoom_log_format format = CGOOM_LOG_TEXT;

int cgoom_log_set_format_name(const char *name)
{
	if (strcmp(name, "text") == 0)
		format = CGOOM_LOG_TEXT;
	else if (strcmp(name, "json") == 0)
		format = CGOOM_LOG_JSON;
	else
		return -EINVAL;
	return 0;
}

void cgoom_log_init(const char *progname)
{
	if (progname)
		prog = progname;
	journal = getenv("JOURNAL_STREAM") != NULL;
}

void cgoom_log_set_max_level(enum cgoom_log_level level)
{
	max_level = level;
}

void cgoom_log(enum cgoom_log_level level, const char *fmt, ...)
{
	if (level > max_level)
		return;
	int saved = errno;
	char msg[2048];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	/* one write per line so concurrent writers do not interleave */
	if (journal)
		fprintf(stderr, "<%d>%s\n", (int)level, msg);
	else
		fprintf(stderr, "%s: %s\n", prog, msg);
	errno = saved;
}
