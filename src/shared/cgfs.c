/* SPDX-License-Identifier: MIT */
/* Opening and reading below a root dirfd: see cgfs.h. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/openat2.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "cgfs.h"

#define NAME_MAX_LEN 255

/* Set once openat2() turned out missing: a property of the kernel (or of
 * the seccomp filter), the same for the whole process; read and set
 * by preparation threads side by side (relaxed: any order is right). */
static bool openat2_missing;

bool cgfs_no_openat2(void)
{
	return __atomic_load_n(&openat2_missing, __ATOMIC_RELAXED);
}

void cgfs_set_no_openat2(bool on)
{
	__atomic_store_n(&openat2_missing, on, __ATOMIC_RELAXED);
}

/* The fallback: one component at a time, each directory O_PATH |
 * O_NOFOLLOW, the last with the caller's flags. rel has no leading '/'. */
static int open_by_components(int dirfd, const char *rel, int flags)
{
	char comp[NAME_MAX_LEN + 1];
	const char *p = rel;
	int at = dirfd, r;

	for (;;) {
		const char *end = strchr(p, '/');
		size_t n = end ? (size_t)(end - p) : strlen(p);

		memcpy(comp, p, n);
		comp[n] = '\0';
		while (end && *end == '/')
			end++;
		if (!end || !*end) {
			r = openat(at, comp, flags | O_NOFOLLOW);
			r = r >= 0 ? r : -errno;
			break;
		}
		r = openat(at, comp, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (r < 0) {
			r = -errno;
			break;
		}
		if (at != dirfd)
			close(at);
		at = r;
		p = end;
	}
	if (at != dirfd)
		close(at);
	return r;
}

int cgfs_open_beneath(int dirfd, const char *rel, int flags)
{
	const char *p;

	while (*rel == '/')
		rel++;
	if (!*rel) {
		int fd = openat(dirfd, ".", flags);

		return fd >= 0 ? fd : -errno;
	}
	/* refused up front, so both ways answer alike */
	for (p = rel; *p;) {
		const char *end = strchr(p, '/');
		size_t n = end ? (size_t)(end - p) : strlen(p);

		if (n > NAME_MAX_LEN)
			return -ENAMETOOLONG;
		if ((n == 1 && p[0] == '.') || (n == 2 && p[0] == '.' && p[1] == '.'))
			return -EINVAL;
		p += n;
		while (*p == '/')
			p++;
	}
	if (!cgfs_no_openat2()) {
		struct open_how how = {
			.flags = (uint64_t)flags,
			.resolve = RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS |
				   RESOLVE_NO_XDEV,
		};
		int fd = (int)syscall(SYS_openat2, dirfd, rel, &how, sizeof how);

		if (fd >= 0)
			return fd;
		/* a path of PATH_MAX or more, every component within NAME_MAX
		 * (checked above): a cgroup can be that deep, and the walk
		 * below reaches it one directory at a time */
		if (errno == ENAMETOOLONG)
			return open_by_components(dirfd, rel, flags);
		if (errno != ENOSYS && errno != EPERM)
			return -errno;
		cgfs_set_no_openat2(true);
	}
	return open_by_components(dirfd, rel, flags);
}

int cgfs_read_at(struct rbuf *b, int dirfd, const char *relpath, size_t max)
{
	int fd = openat(dirfd, relpath, CGFS_FILE_FLAGS);

	if (fd < 0)
		return -errno;
	return cgfs_read_fd(b, fd, max);
}

/* A first read shorter than CGFS_SHORT_READ is the whole file: a kernel
 * seq_file returns records until its page-sized buffer would overflow or
 * the file ends, and the records of every file cgoom reads this way are
 * lines far shorter than that (or one record: single_open, sysfs); a
 * regular file returns less than asked only at its end. The read at EOF
 * it saves is one syscall of every sample. (/proc/swaps, whose lines
 * hold a path of up to PATH_MAX, is read whole: cgfs_reread_whole.) */
static bool first_read_is_whole(size_t len_before, size_t n, size_t asked)
{
	return len_before == 0 && n < CGFS_SHORT_READ && n < asked;
}

int cgfs_read_fd(struct rbuf *b, int fd, size_t max)
{
	struct stat st;
	int r = 0;

	if (max > SIZE_MAX / 4)
		max = SIZE_MAX / 4;
	if (fstat(fd, &st) < 0) {
		r = -errno;
		goto out_close;
	}
	if (!S_ISREG(st.st_mode)) {
		r = S_ISDIR(st.st_mode) ? -EISDIR : -EINVAL;
		goto out_close;
	}
	b->len = 0;
	for (;;) {
		ssize_t n;

		if (b->len > max) {
			r = -EFBIG;
			goto out_close;
		}
		if (b->cap - b->len < 2) {
			/* room for max + 1 bytes: the one more tells "too big" */
			size_t ncap = b->cap ? b->cap * 2 : 4096;
			char *np;

			if (ncap > max + 2)
				ncap = max + 2;
			np = realloc(b->p, ncap);
			if (!np) {
				r = -ENOMEM;
				goto out_close;
			}
			b->p = np;
			b->cap = ncap;
		}
		size_t want = b->cap - b->len - 1;
		n = read(fd, b->p + b->len, want);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			r = -errno;
			goto out_close;
		}
		if (n == 0)
			break;
		b->len += (size_t)n;
		if (first_read_is_whole(b->len - (size_t)n, (size_t)n, want)) {
			if (b->len > max)
				r = -EFBIG;
			break;
		}
	}
	b->p[b->len] = '\0';
out_close:
	close(fd);
	return r;
}

static int reread(int fd, char *buf, size_t cap, size_t *ret_len, bool short_ends)
{
	size_t len = 0;

	if (fd < 0)
		return -EBADF;
	while (len + 1 < cap) {
		ssize_t n = pread(fd, buf + len, cap - 1 - len, (off_t)len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		if (n == 0)
			break;
		if (short_ends && first_read_is_whole(len, (size_t)n, cap - 1 - len)) {
			len = (size_t)n;
			break;
		}
		len += (size_t)n;
	}
	buf[len] = '\0';
	*ret_len = len;
	return 0;
}

int cgfs_reread(int fd, char *buf, size_t cap, size_t *ret_len)
{
	return reread(fd, buf, cap, ret_len, true);
}

int cgfs_reread_whole(int fd, char *buf, size_t cap, size_t *ret_len)
{
	return reread(fd, buf, cap, ret_len, false);
}

int cgfs_read_head(int fd, char *buf, size_t cap, size_t *ret_len)
{
	if (fd < 0)
		return -EBADF;
	if (cap == 0)
		return -EINVAL;
	ssize_t n;
	do
		n = pread(fd, buf, cap - 1, 0);
	while (n < 0 && errno == EINTR);
	if (n < 0)
		return -errno;
	buf[n] = '\0';
	*ret_len = (size_t)n;
	return 0;
}

int cgfs_read_small_at(int dirfd, const char *name, char *buf, size_t cap, size_t *ret_len)
{
	int fd = openat(dirfd, name, CGFS_FILE_FLAGS);
	int r;

	if (fd < 0)
		return -errno;
	r = cgfs_reread(fd, buf, cap, ret_len);
	close(fd);
	if (r == 0 && *ret_len == cap - 1)
		r = -EFBIG;
	return r;
}

bool cgfs_threaded_at(int dfd)
{
	char t[32];
	size_t len;

	return cgfs_read_small_at(dfd, "cgroup.type", t, sizeof t, &len) == 0 && len == 9 &&
	       memcmp(t, "threaded\n", 9) == 0;
}

struct linux_dirent64 {
	uint64_t d_ino;
	int64_t d_off;
	unsigned short d_reclen;
	unsigned char d_type;
	char d_name[];
};

int cgfs_for_each_entry(int dirfd, int (*fn)(void *ctx, const char *name, unsigned char type),
			void *ctx)
{
	char dents[2048] __attribute__((aligned(8)));
	int lfd = openat(dirfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	int r = 0;

	if (lfd < 0)
		return -errno;
	while (r == 0) {
		long n = syscall(SYS_getdents64, lfd, dents, sizeof dents);

		if (n < 0) {
			r = -errno;
			break;
		}
		if (n == 0)
			break;
		for (long off = 0; r == 0 && off < n;) {
			struct linux_dirent64 *de = (struct linux_dirent64 *)(dents + off);
			unsigned char type = de->d_type;
			struct stat sb;

			off += de->d_reclen;
			if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
				continue;
			if (type == DT_UNKNOWN &&
			    fstatat(dirfd, de->d_name, &sb, AT_SYMLINK_NOFOLLOW) == 0)
				type = S_ISDIR(sb.st_mode)   ? DT_DIR
				       : S_ISLNK(sb.st_mode) ? DT_LNK
				       : S_ISREG(sb.st_mode) ? DT_REG
							     : DT_UNKNOWN;
			r = fn(ctx, de->d_name, type);
		}
	}
	close(lfd);
	return r;
}

uint64_t cgfs_now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000ULL + (uint64_t)ts.tv_nsec / 1000;
}

uint64_t cgfs_thread_cpu_us(void)
{
	struct timespec ts;

	if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts) < 0)
		return 0;
	return (uint64_t)ts.tv_sec * 1000000ULL + (uint64_t)ts.tv_nsec / 1000;
}

int cgfs_grow(void *pp, size_t *cap, size_t n, size_t sz)
{
	void **p = pp, *np;
	size_t ncap = *cap ? *cap : 8;

	if (n <= *cap)
		return 0;
	while (ncap < n)
		ncap *= 2;
	np = realloc(*p, ncap * sz);
	if (!np)
		return -ENOMEM;
	*p = np;
	*cap = ncap;
	return 0;
}
