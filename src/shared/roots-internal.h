/* SPDX-License-Identifier: MIT */
#pragma once

/* Shared by the readers: open flags and reusable read buffers. */

#include <fcntl.h>
#include <stddef.h>

#define CGOOM_CGROUP2_MAGIC 0x63677270
#define CGOOM_PROC_MAGIC 0x9fa0

#define DIR_FLAGS (O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
/* O_NONBLOCK: a FIFO planted in a fixture must not hang the reader. */
#define FILE_FLAGS (O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY | O_NONBLOCK)

struct rbuf {
	char *p;
	size_t len, cap;
};

/* Reads relpath below dirfd into b (NUL-terminated, reusing its memory);
 * -EFBIG past max bytes; only regular files (kernfs and procfs files are). */
int cgoom_rbuf_read_at(struct rbuf *b, int dirfd, const char *relpath, size_t max);
/* The same for an open fd, which it closes. */
int cgoom_rbuf_read_fd(struct rbuf *b, int fd, size_t max);
