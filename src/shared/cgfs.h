/* SPDX-License-Identifier: MIT */
#pragma once

/*
 * The one place cgoom's readers (src/shared, src/daemon) open and read
 * files below a root dirfd: open a cgroup (directory or file) beneath
 * the root, read a whole small file, re-read a kept fd into a
 * preallocated buffer, list a directory. Plus the monotonic clock and
 * the array grower the daemon and the readers share (the engine has its
 * own, sel_reserve: src/lib includes nothing from here).
 * Errors are negative errno; 0 on success.
 */

#include <fcntl.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define CGFS_DIR_FLAGS (O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
/* O_NONBLOCK: a FIFO planted in a fixture must not hang the reader. */
#define CGFS_FILE_FLAGS (O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY | O_NONBLOCK)

/* Opens REL ("a/b", "a/b/memory.stat"; leading '/' ignored; "" or "/"
 * is dirfd itself, reopened) beneath dirfd with FLAGS, never following
 * a symlink and never leaving dirfd: openat2() with RESOLVE_BENEATH |
 * RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS | RESOLVE_NO_XDEV; where
 * the kernel has no openat2 (ENOSYS before Linux 5.6, EPERM under a
 * seccomp filter without it) one component at a time with O_NOFOLLOW,
 * from then on. "." and ".." components are -EINVAL, a component over
 * 255 bytes -ENAMETOOLONG, a symlink -ELOOP or -ENOTDIR. Returns the fd. */
int cgfs_open_beneath(int dirfd, const char *rel, int flags);
/* Whether cgfs_open_beneath() has found openat2() missing (it then costs
 * one openat() per component). */
bool cgfs_no_openat2(void);
/* Tests: makes cgfs_open_beneath() take (true) or retry (false) the
 * one-component-at-a-time way, as on a kernel without openat2. */
void cgfs_set_no_openat2(bool on);

/* A reusable read buffer, grown as needed. */
struct rbuf {
	char *p;
	size_t len, cap;
};

/* Reads the whole of fd into b (NUL-terminated, reusing its memory) and
 * closes fd; -EFBIG past max bytes; only regular files (kernfs and procfs
 * files are): -EISDIR, -EINVAL otherwise. */
int cgfs_read_fd(struct rbuf *b, int fd, size_t max);
/* The same for relpath below dirfd (openat, O_NOFOLLOW: one component, or
 * a path the caller trusts, such as "12/stat" below /proc). */
int cgfs_read_at(struct rbuf *b, int dirfd, const char *relpath, size_t max);

/* A first read shorter than this ends cgfs_reread() (cgfs.c says why). */
#define CGFS_SHORT_READ 2048
/* Re-reads a kept fd from offset 0 into buf (cap bytes, NUL-terminated):
 * no allocation, for the daemon's sampling and kill paths. What does not
 * fit is cut off (*ret_len = cap - 1). -EBADF for fd < 0. */
int cgfs_reread(int fd, char *buf, size_t cap, size_t *ret_len);
/* The same, reading on to EOF whatever the first read returned: for
 * files whose records can be longer than CGFS_SHORT_READ (/proc/swaps:
 * a path of up to PATH_MAX a line). */
int cgfs_reread_whole(int fd, char *buf, size_t cap, size_t *ret_len);
/* One read of a kept fd from offset 0 into buf (cap bytes,
 * NUL-terminated): the head of the file (a kernel seq_file hands out a
 * page of records at a time). -EBADF for fd < 0. */
int cgfs_read_head(int fd, char *buf, size_t cap, size_t *ret_len);
/* Opens name below dirfd (CGFS_FILE_FLAGS) and reads it into buf as
 * cgfs_reread(); -EFBIG when it fills buf (it may be longer). */
int cgfs_read_small_at(int dirfd, const char *name, char *buf, size_t cap, size_t *ret_len);

/* Whether the cgroup directory dfd is of cgroup.type "threaded" (not
 * "domain threaded"): its cgroup.procs cannot be read (EOPNOTSUPP), and
 * its threaded domain, an ancestor, lists its processes. */
bool cgfs_threaded_at(int dfd);

/* Calls fn(ctx, name, type) for each entry of directory dirfd but "."
 * and "..". type is d_type or, where the filesystem says DT_UNKNOWN,
 * found with fstatat(AT_SYMLINK_NOFOLLOW) (still DT_UNKNOWN if the entry
 * vanished meanwhile). Lists a fresh open file description of dirfd (a
 * dup would share, and leave at EOF, its offset). No allocation
 * (getdents64 into a stack buffer), so it serves the kill path. Stops at
 * the first fn() != 0 and returns that (< 0: an error; > 0: found);
 * else 0, or -errno of the listing (after the entries listed before it). */
int cgfs_for_each_entry(int dirfd, int (*fn)(void *ctx, const char *name, unsigned char type),
			void *ctx);

/* CLOCK_MONOTONIC in microseconds. */
uint64_t cgfs_now_us(void);

/* The calling thread's CPU time (CLOCK_THREAD_CPUTIME_ID) in
 * microseconds; 0 if it cannot be read. */
uint64_t cgfs_thread_cpu_us(void);

/* Makes room for n elements of sz bytes in *pp (capacity *cap, doubled
 * from 8); -ENOMEM leaves both as they were. */
int cgfs_grow(void *pp, size_t *cap, size_t n, size_t sz);
