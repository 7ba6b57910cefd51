/* SPDX-License-Identifier: MIT */
/* The config file: read with safe-file.c and cgfs.c, parsed by the engine. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cgfs.h"
#include "config-file.h"
#include "safe-file.h"

int cgoom_config_load(const char *path, bool given, struct cgoom_config *ret, char *err,
		      size_t errcap)
{
	struct cgoom_config_error perr = { 0 };
	struct rbuf b = { 0 };
	int fd = -1;
	int r = sfile_open_read(path, CGOOM_CONFIG_MAX, &fd);
	struct stat st;

	if (errcap)
		err[0] = '\0';
	if (r == -ENOENT && !given) {
		/* a symlink to nothing is not an absent file: someone put it
		 * there; the defaults all the same, but said */
		if (lstat(path, &st) == 0 && S_ISLNK(st.st_mode))
			snprintf(err, errcap, "%s: a dangling symlink, its target is missing; running with no settings",
				 path);
		cgoom_config_init(ret);
		return 0;
	}
	if (r == SFILE_EMPTY) /* /dev/null: no settings, parsed as an empty file */
		r = 0;
	else if (r == 0)
		r = cgfs_read_fd(&b, fd, CGOOM_CONFIG_MAX);
	if (r < 0) {
		snprintf(err, errcap, "%s: %s", path, sfile_strerror(r));
		free(b.p);
		return r;
	}
	r = cgoom_config_parse(b.p, b.len, ret, &perr);
	free(b.p);
	if (r < 0 && perr.line > 0)
		snprintf(err, errcap, "%s:%d: %s", path, perr.line, perr.msg);
	else if (r < 0)
		snprintf(err, errcap, "%s: %s", path, perr.msg[0] ? perr.msg : strerror(-r));
	return r;
}
