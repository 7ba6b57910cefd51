/* SPDX-License-Identifier: MIT */
#pragma once

/*
 * Files the daemon reads and writes as root (event_log, metrics_file), possibly in a
 * directory other users can write to: never through a symbolic link, never
 * into a FIFO, device or directory, never into a file another user owns or
 * that has other hard links. A refusal is an error like any other; the
 * caller logs it (sfile_strerror) and carries on without the file.
 */

#include <stdbool.h>
#include <stddef.h>

/* Opens PATH for appending (created 0640 if absent), O_NOFOLLOW. -ELOOP: a
 * symlink; -EISDIR: a directory; -EINVAL: not a regular file; -EPERM:
 * owned by another user; -EMLINK: other hard links; else -errno of open. */
int sfile_open_append(const char *path, int *ret_fd);

/* Replaces PATH with BUF atomically: writes PATH.tmp (O_CREAT|O_EXCL|
 * O_NOFOLLOW, 0644), then renames it over PATH. PATH itself must be absent
 * or a regular file of ours (same refusals as sfile_open_append). A
 * PATH.tmp left by an earlier crash (a regular file of ours with one
 * link) is removed first; anything else there is refused. On failure
 * *ret_tmp says whether PATH.tmp (true) or PATH (false) was the problem. */
int sfile_replace(const char *path, const void *buf, size_t len, bool *ret_tmp);

/* Removes PATH, a file cgoom wrote and writes no more: only a regular
 * file of ours with one link (the refusals of sfile_open_append), never
 * through a symlink. -ENOENT when it is not there. */
int sfile_remove(const char *path);

/* sfile_open_read's answer for a character device that reads empty. */
#define SFILE_EMPTY 1

/* Opens PATH for reading a config file: it may be a symlink (the admin's
 * choice), but what it names must be a regular file of at most MAX
 * bytes, or a character device that reads empty at once (/dev/null: "no
 * settings"), for which it returns SFILE_EMPTY and no fd. Never blocks
 * on a FIFO or a device. -EISDIR, -EINVAL (not a regular file, or a
 * device with data or none yet), -EFBIG (larger than MAX), else -errno
 * of open. */
int sfile_open_read(const char *path, size_t max, int *ret_fd);

/* Text for the errors above ("is a symbolic link (refused)", ...). */
const char *sfile_strerror(int r);
