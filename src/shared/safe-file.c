/* SPDX-License-Identifier: MIT */
/*
 * Safe output files for a root daemon (issue 15): a user who can write to
 * the directory of event_log or metrics_file (/tmp, a shared /var/log
 * subdirectory) must not be able to make cgoom write through a symlink
 * they planted (at the file or at its .tmp), nor hang it on a FIFO.
 */
#include "safe-file.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* What is wrong with an existing file of this kind (0: nothing). */
static int refuse_stat(const struct stat *st)
{
	if (S_ISLNK(st->st_mode))
		return -ELOOP;
	if (S_ISDIR(st->st_mode))
		return -EISDIR;
	if (!S_ISREG(st->st_mode))
		return -EINVAL;
	if (st->st_uid != geteuid())
		return -EPERM;
	if (st->st_nlink > 1)
		return -EMLINK;
	return 0;
}

int sfile_open_append(const char *path, int *ret_fd)
{
	/* O_NONBLOCK: opening a FIFO must not wait for a reader; O_NOCTTY:
	 * a terminal must not become ours. Both are dropped once we know it
	 * is a regular file. */
	int fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC | O_NOFOLLOW | O_NOCTTY |
				    O_NONBLOCK, 0640);
	struct stat st;
	if (fd < 0) {
		int e = errno;
		/* in a sticky world-writable directory the kernel itself answers
		 * EACCES for another user's symlink or FIFO under O_CREAT (before
		 * O_NOFOLLOW's ELOOP): name what is there */
		if (lstat(path, &st) == 0 && refuse_stat(&st) < 0)
			return refuse_stat(&st);
		if (e == ENXIO) /* a FIFO without a reader */
			return -EINVAL;
		return -e;
	}
	int r = fstat(fd, &st) < 0 ? -errno : refuse_stat(&st);
	if (r == 0 && fcntl(fd, F_SETFL, O_APPEND) < 0)
		r = -errno;
	if (r < 0) {
		close(fd);
		return r;
	}
	*ret_fd = fd;
	return 0;
}

static int write_all(int fd, const char *buf, size_t len)
{
	while (len > 0) {
		ssize_t n = write(fd, buf, len);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		if (n == 0)
			return -EIO;
		buf += n;
		len -= (size_t)n;
	}
	return 0;
}

static int open_tmp(const char *tmp)
{
	for (int attempt = 0; attempt < 2; attempt++) {
		int fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW | O_NOCTTY, 0644);
		if (fd >= 0)
			return fd;
		if (errno != EEXIST)
			return -errno;
		struct stat st;
		if (lstat(tmp, &st) < 0)
			continue; /* gone meanwhile: try again */
		int r = refuse_stat(&st);
		if (r < 0)
			return r;
		/* ours, regular, one link: left by a crash between create and
		 * rename. unlink never follows a symlink. */
		if (unlink(tmp) < 0 && errno != ENOENT)
			return -errno;
	}
	return -EEXIST;
}

int sfile_replace(const char *path, const void *buf, size_t len, bool *ret_tmp)
{
	struct stat st;
	bool tmp_bad = false;
	int r = 0;

	if (lstat(path, &st) == 0)
		r = refuse_stat(&st);
	else if (errno != ENOENT)
		r = -errno;
	if (r < 0)
		goto out_report;

	size_t plen = strlen(path);
	char *tmp = malloc(plen + 5);
	if (!tmp) {
		r = -ENOMEM;
		goto out_report;
	}
	memcpy(tmp, path, plen);
	memcpy(tmp + plen, ".tmp", 5);
	int fd = open_tmp(tmp);
	if (fd < 0) {
		r = fd;
		tmp_bad = fd != -ENOENT; /* a missing directory is PATH's problem */
		goto out_free;
	}
	r = write_all(fd, buf, len);
	if (close(fd) < 0 && r == 0)
		r = -errno;
	/* rename replaces the entry itself: a symlink planted at PATH since
	 * the lstat above is replaced, never written through */
	if (r == 0 && rename(tmp, path) < 0)
		r = -errno;
	if (r < 0)
		unlink(tmp);
out_free:
	free(tmp);
out_report:
	if (r < 0 && ret_tmp)
		*ret_tmp = tmp_bad;
	return r;
}

/* A character device that is at its end at once (/dev/null): one
 * non-blocking read of one byte returns 0. A device with data (/dev/zero)
 * or none yet (a terminal: EAGAIN) is not empty. */
static bool chr_reads_empty(int fd)
{
	char c;
	ssize_t n;
	do
		n = read(fd, &c, 1);
	while (n < 0 && errno == EINTR);
	return n == 0;
}

int sfile_open_read(const char *path, size_t max, int *ret_fd)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	if (fd < 0)
		return -errno;
	struct stat st;
	int r = 0;
	if (fstat(fd, &st) < 0)
		r = -errno;
	else if (S_ISCHR(st.st_mode))
		/* "--config /dev/null" says "no settings" (as ssh -F /dev/null) */
		r = chr_reads_empty(fd) ? SFILE_EMPTY : -EINVAL;
	else if (S_ISDIR(st.st_mode))
		r = -EISDIR;
	else if (!S_ISREG(st.st_mode))
		r = -EINVAL;
	else if ((uint64_t)st.st_size > max)
		r = -EFBIG;
	else if (fcntl(fd, F_SETFL, 0) < 0)
		r = -errno;
	if (r != 0) {
		close(fd);
		return r;
	}
	*ret_fd = fd;
	return 0;
}

int sfile_remove(const char *path)
{
	struct stat st;
	if (lstat(path, &st) < 0)
		return -errno;
	int r = refuse_stat(&st);
	if (r < 0)
		return r;
	/* unlink never follows a symlink: one planted since the lstat is
	 * what goes, not what it names */
	return unlink(path) < 0 ? -errno : 0;
}

const char *sfile_strerror(int r)
{
	switch (r) {
	case -ELOOP:
		return "is a symbolic link (refused)";
	case -EISDIR:
		return "is a directory (refused)";
	case -EINVAL:
		return "is not a regular file (refused)";
	case -EPERM:
		return "is owned by another user (refused)";
	case -EMLINK:
		return "has other hard links (refused)";
	case -EFBIG:
		return "is too large (refused)";
	default:
		return strerror(-r);
	}
}
