/* SPDX-License-Identifier: MIT */
#pragma once

/* Loading the config file: the one loader for the CLI and the daemon. */

#include <stdbool.h>
#include <stddef.h>

#include "cgoom/config.h"

/* The most a config file may hold. */
#define CGOOM_CONFIG_MAX ((size_t)1 << 20)

/* Reads PATH (it may be a symlink, the admin's choice; a FIFO, a
 * directory, a device with data or a file over CGOOM_CONFIG_MAX is
 * refused, never waited on or read in part; a character device that
 * reads empty, /dev/null, is an empty file) and parses it into *ret. An absent file that was not
 * named explicitly (!given) means the defaults. On failure returns a
 * negative errno and puts in err, in one format, "PATH:LINE: message"
 * (a config error on a line) or "PATH: message" (anything else). On
 * success err is empty or holds a warning to log ("PATH: message": the
 * default path is a dangling symlink, read as absent). */
int cgoom_config_load(const char *path, bool given, struct cgoom_config *ret, char *err,
		      size_t errcap);
