/* SPDX-License-Identifier: MIT */
/* src/shared/cgfs.c: opening beneath a root, reading, listing. */
#include <dirent.h>
#include "reader-fixture.h"
#include "shared/cgfs.h"

static int root_fd(void)
{
	return open(at("cg"), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
}

static void test_open_beneath(void)
{
	char buf[64];
	size_t len;
	int dfd, fd;

	fx_new();
	mkcg("/a/b", true, "");
	put_cg("/a/b", "memory.current", "42\n");
	mkdir_p(at("outside"));
	CHECK(symlink("../outside", at("cg/a/link")) == 0);
	CHECK(symlink("b", at("cg/a/blink")) == 0);
	dfd = root_fd();
	CHECK(dfd >= 0);
	fd = cgfs_open_beneath(dfd, "/a/b/memory.current", CGFS_FILE_FLAGS);
	CHECK(fd >= 0);
	CHECK_EQ_INT(cgfs_reread(fd, buf, sizeof buf, &len), 0);
	CHECK(len == 3 && !strcmp(buf, "42\n"));
	/* a kept fd re-reads from offset 0 */
	CHECK_EQ_INT(cgfs_reread(fd, buf, sizeof buf, &len), 0);
	CHECK(len == 3);
	/* cut at the buffer, NUL-terminated */
	CHECK_EQ_INT(cgfs_reread(fd, buf, 3, &len), 0);
	CHECK(len == 2 && !strcmp(buf, "42"));
	close(fd);
	fd = cgfs_open_beneath(dfd, "a/b", CGFS_DIR_FLAGS);
	CHECK(fd >= 0);
	close(fd);
	/* "" and "/" are the root itself */
	fd = cgfs_open_beneath(dfd, "/", CGFS_DIR_FLAGS);
	CHECK(fd >= 0);
	close(fd);
	/* no symlink is followed, neither in the middle nor at the end */
	CHECK(cgfs_open_beneath(dfd, "a/link", CGFS_DIR_FLAGS) < 0);
	CHECK(cgfs_open_beneath(dfd, "a/blink/memory.current", CGFS_FILE_FLAGS) < 0);
	CHECK_EQ_INT(cgfs_open_beneath(dfd, "a/../a/b", CGFS_DIR_FLAGS), -EINVAL);
	CHECK_EQ_INT(cgfs_open_beneath(dfd, "a/./b", CGFS_DIR_FLAGS), -EINVAL);
	CHECK_EQ_INT(cgfs_open_beneath(dfd, "a/nope", CGFS_DIR_FLAGS), -ENOENT);
	close(dfd);
}

/* The same refusals without openat2 (before Linux 5.6, or a seccomp
 * filter without it): one component at a time. */
static void test_open_by_components(void)
{
	cgfs_set_no_openat2(true);
	test_open_beneath();
	CHECK(cgfs_no_openat2());
	cgfs_set_no_openat2(false);
}

/* A path past PATH_MAX (each name within NAME_MAX) still opens, one
 * directory at a time, and still follows no symlink: openat2 refused it
 * (ENAMETOOLONG), so a scope that deep could not be killed by
 * cgroup.kill, nor a standby prepared in it. */
static void test_open_beneath_past_path_max(void)
{
	char name[251], path[5000];
	int fds[18], n = 0, fd, dfd;
	size_t o = 0;

	fx_new();
	memset(name, 'y', sizeof name - 1);
	name[sizeof name - 1] = '\0';
	dfd = root_fd();
	fds[n++] = dfd;
	for (; n < 18; n++) { /* 17 x 252 bytes: 4284 */
		CHECK(mkdirat(fds[n - 1], name, 0755) == 0);
		fds[n] = openat(fds[n - 1], name, O_RDONLY | O_DIRECTORY);
		CHECK(fds[n] >= 0);
		o += (size_t)snprintf(path + o, sizeof path - o, "/%s", name);
	}
	CHECK(symlinkat(".", fds[17], "link") == 0);
	fd = cgfs_open_beneath(dfd, path, CGFS_DIR_FLAGS);
	CHECK(fd >= 0);
	if (fd >= 0)
		close(fd);
	snprintf(path + o, sizeof path - o, "/link");
	CHECK(cgfs_open_beneath(dfd, path, CGFS_DIR_FLAGS) < 0);
	unlinkat(fds[17], "link", 0);
	for (n = 17; n > 0; n--) { /* nftw cannot remove what PATH_MAX cannot name */
		close(fds[n]);
		CHECK(unlinkat(fds[n - 1], name, AT_REMOVEDIR) == 0);
	}
	close(dfd);
}

static void test_read_small(void)
{
	char buf[8];
	size_t len;
	int dfd;

	fx_new();
	put_cg("", "f", "1234567");
	put_cg("", "g", "123456");
	dfd = root_fd();
	CHECK_EQ_INT(cgfs_read_small_at(dfd, "f", buf, sizeof buf, &len), -EFBIG);
	CHECK_EQ_INT(cgfs_read_small_at(dfd, "g", buf, sizeof buf, &len), 0);
	CHECK(len == 6 && !strcmp(buf, "123456"));
	CHECK_EQ_INT(cgfs_read_small_at(dfd, "missing", buf, sizeof buf, &len), -ENOENT);
	close(dfd);
}

static size_t lines_to_eof(const char *path, char *buf, size_t cap);

/* cgfs_read_at: a small file whole, one over max refused (-EFBIG) on
 * the short path and the long one, a seq_file of many pages whole. */
static void test_read_at(void)
{
	struct rbuf b = { 0 };
	static char big[3000];
	fx_new();
	put_cg("", "f", "1234567");
	memset(big, 'x', sizeof(big) - 1);
	put_cg("", "big", big);
	int dfd = root_fd();
	CHECK_EQ_INT(cgfs_read_at(&b, dfd, "f", 100), 0);
	CHECK(b.len == 7 && !strcmp(b.p, "1234567"));
	CHECK_EQ_INT(cgfs_read_at(&b, dfd, "f", 5), -EFBIG);
	CHECK_EQ_INT(cgfs_read_at(&b, dfd, "big", 100), -EFBIG);
	CHECK_EQ_INT(cgfs_read_at(&b, dfd, "big", 4096), 0);
	CHECK_EQ_U64(b.len, sizeof(big) - 1);
	close(dfd);
	int pfd = open("/proc/self", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (pfd >= 0) {
		static char other[512];
		size_t before = lines_to_eof("/proc/self/smaps", other, sizeof(other)), lines = 0;
		CHECK_EQ_INT(cgfs_read_at(&b, pfd, "smaps", 1 << 24), 0);
		size_t after = lines_to_eof("/proc/self/smaps", other, sizeof(other));
		for (size_t k = 0; k < b.len; k++)
			lines += b.p[k] == '\n';
		CHECK(b.len > 8192);
		if (lines != before)
			CHECK_EQ_U64(lines, after);
		close(pfd);
	}
	free(b.p);
}

struct seen {
	int dirs, links, others, dots;
	bool stop;
};

static int count(void *ctx, const char *name, unsigned char type)
{
	struct seen *s = ctx;

	if (!strcmp(name, ".") || !strcmp(name, ".."))
		s->dots++;
	else if (type == DT_DIR)
		s->dirs++;
	else if (type == DT_LNK)
		s->links++;
	else
		s->others++;
	return s->stop ? -EINTR : 0;
}

static void test_for_each_entry(void)
{
	struct seen s = { 0 };
	int dfd;

	fx_new();
	for (int i = 0; i < 300; i++) {
		char p[32];

		snprintf(p, sizeof p, "/c%03d-with-a-longer-name", i);
		mkcg(p, false, "");
	}
	CHECK(symlink("c000-with-a-longer-name", at("cg/l")) == 0);
	dfd = root_fd();
	/* 300 directories do not fit one 2 KiB getdents64 buffer */
	CHECK_EQ_INT(cgfs_for_each_entry(dfd, count, &s), 0);
	CHECK_EQ_INT(s.dirs, 300);
	CHECK_EQ_INT(s.links, 1);
	CHECK_EQ_INT(s.dots, 0);
	CHECK_EQ_INT(s.others, 5); /* the root memcg's five files */
	/* a second listing of the same fd lists everything again */
	s = (struct seen){ 0 };
	CHECK_EQ_INT(cgfs_for_each_entry(dfd, count, &s), 0);
	CHECK_EQ_INT(s.dirs, 300);
	s = (struct seen){ .stop = true };
	CHECK_EQ_INT(cgfs_for_each_entry(dfd, count, &s), -EINTR);
	CHECK_EQ_INT(s.dirs + s.links + s.others, 1);
	close(dfd);
}

static void test_grow(void)
{
	int *a = NULL;
	size_t cap = 0;

	CHECK_EQ_INT(cgfs_grow(&a, &cap, 1, sizeof *a), 0);
	CHECK(cap == 8 && a);
	CHECK_EQ_INT(cgfs_grow(&a, &cap, 9, sizeof *a), 0);
	CHECK(cap == 16);
	CHECK_EQ_INT(cgfs_grow(&a, &cap, 3, sizeof *a), 0);
	CHECK(cap == 16);
	free(a);
	CHECK(cgfs_now_us() > 0);
}

/* The kernel's own files, re-read through a kept fd, come whole: a
 * seq_file of many pages (/proc/self/smaps: a record of about a KiB per
 * mapping, handed out a page at a time), of one record
 * (/proc/self/status) and /proc/vmstat: as many lines as reading it to
 * the end with read(2) finds. */
static size_t lines_to_eof(const char *path, char *buf, size_t cap)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	size_t n = 0;
	ssize_t r;
	if (fd < 0)
		return 0;
	while ((r = read(fd, buf, cap)) > 0)
		for (ssize_t k = 0; k < r; k++)
			n += buf[k] == '\n';
	close(fd);
	return n;
}

static void test_reread_kernel_files(void)
{
	static char big[1 << 23], other[512]; /* smaps under ASan: hundreds of KiB */
	const char *paths[] = { "/proc/self/smaps", "/proc/self/status", "/proc/vmstat" };
	for (size_t i = 0; i < sizeof(paths) / sizeof(paths[0]); i++) {
		int fd = open(paths[i], O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			SKIP("no /proc here");
		size_t before = lines_to_eof(paths[i], other, sizeof(other));
		size_t len, lines = 0;
		CHECK_EQ_INT(cgfs_reread(fd, big, sizeof(big), &len), 0);
		size_t after = lines_to_eof(paths[i], other, sizeof(other));
		for (size_t k = 0; k < len; k++)
			lines += big[k] == '\n';
		CHECK(len > 0 && big[len - 1] == '\n');
		if (lines != before)
			CHECK_EQ_U64(lines, after);
		if (i == 0)
			CHECK(len > 8192); /* more than two pages: the loop went on */
		close(fd);
	}
}

int main(void)
{
	int r = tap_run((struct tap_test[]){
		TAP(test_open_beneath),
		TAP(test_open_by_components),
		TAP(test_open_beneath_past_path_max),
		TAP(test_read_small),
		TAP(test_read_at),
		TAP(test_for_each_entry),
		TAP(test_grow),
		TAP(test_reread_kernel_files),
		{ 0 },
	});

	fx_cleanup();
	return r;
}
