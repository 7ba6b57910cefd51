/* SPDX-License-Identifier: MIT */
/* The daemon's files (src/shared/safe-file.c): the config (run.c and the
 * CLI) must be a regular file under 1 MiB or a device that reads empty
 * (/dev/null), never a FIFO waited on; for
 * event_log and metrics_file (events.c) a symlink, FIFO, directory or foreign file
 * planted at the path or at PATH.tmp is refused and its target is left
 * untouched; ordinary files are appended to / replaced. Works in a fresh
 * temporary directory. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "safe-file.h"
#include "tap.h"

static char dir[64];
static char p_file[128], p_tmp[128], p_target[128];

static void fresh(void)
{
	char cmd[128];
	if (dir[0]) {
		snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
		if (system(cmd) != 0)
			printf("# could not remove %s\n", dir);
	}
	strcpy(dir, "/tmp/cgoom-test-outfile-XXXXXX");
	if (!mkdtemp(dir)) {
		printf("# mkdtemp: %s\n", strerror(errno));
		exit(1);
	}
	snprintf(p_file, sizeof(p_file), "%s/out", dir);
	snprintf(p_tmp, sizeof(p_tmp), "%s/out.tmp", dir);
	snprintf(p_target, sizeof(p_target), "%s/target", dir);
}

static void put(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");
	if (f) {
		fputs(text, f);
		fclose(f);
	}
}

/* the whole of a small file, or "" */
static const char *slurp(const char *path)
{
	static char buf[4096];
	int fd = open(path, O_RDONLY);
	ssize_t n = fd < 0 ? 0 : read(fd, buf, sizeof(buf) - 1);
	if (fd >= 0)
		close(fd);
	buf[n > 0 ? n : 0] = '\0';
	return buf;
}

static void test_append_creates_and_appends(void)
{
	int fd = -1;
	fresh();
	CHECK_EQ_INT(sfile_open_append(p_file, &fd), 0);
	CHECK(write(fd, "a\n", 2) == 2);
	close(fd);
	CHECK_EQ_INT(sfile_open_append(p_file, &fd), 0);
	CHECK(write(fd, "b\n", 2) == 2);
	close(fd);
	CHECK_STREQ(slurp(p_file), "a\nb\n");
	struct stat st;
	CHECK(stat(p_file, &st) == 0);
	CHECK_EQ_INT(st.st_mode & 0777, 0640 & ~0022 & 0777);
}

static void test_append_refuses_symlink(void)
{
	int fd = -1;
	fresh();
	put(p_target, "secret\n");
	CHECK(symlink(p_target, p_file) == 0);
	CHECK_EQ_INT(sfile_open_append(p_file, &fd), -ELOOP);
	CHECK_STREQ(slurp(p_target), "secret\n");
	/* a dangling one must not create its target either */
	unlink(p_target);
	CHECK_EQ_INT(sfile_open_append(p_file, &fd), -ELOOP);
	CHECK(access(p_target, F_OK) < 0 && errno == ENOENT);
	CHECK_STREQ(sfile_strerror(-ELOOP), "is a symbolic link (refused)");
	/* another user's symlink in a sticky world-writable directory (the
	 * kernel answers EACCES there before O_NOFOLLOW's ELOOP): still
	 * named a symlink */
	if (geteuid() == 0) {
		put(p_target, "secret\n");
		CHECK(chmod(dir, 01777) == 0);
		CHECK(lchown(p_file, 1000, 1000) == 0);
		CHECK_EQ_INT(sfile_open_append(p_file, &fd), -ELOOP);
		CHECK_STREQ(slurp(p_target), "secret\n");
	}
}

static void test_append_refuses_fifo_dir_hardlink(void)
{
	int fd = -1;
	fresh();
	CHECK(mkfifo(p_file, 0600) == 0);
	/* no reader: must not block, must refuse */
	CHECK_EQ_INT(sfile_open_append(p_file, &fd), -EINVAL);
	/* with a reader: still refused */
	int rfd = open(p_file, O_RDONLY | O_NONBLOCK);
	CHECK(rfd >= 0);
	CHECK_EQ_INT(sfile_open_append(p_file, &fd), -EINVAL);
	close(rfd);
	unlink(p_file);
	CHECK(mkdir(p_file, 0755) == 0);
	CHECK(sfile_open_append(p_file, &fd) == -EISDIR);
	rmdir(p_file);
	put(p_target, "secret\n");
	CHECK(link(p_target, p_file) == 0);
	CHECK_EQ_INT(sfile_open_append(p_file, &fd), -EMLINK);
	CHECK_STREQ(slurp(p_target), "secret\n");
}

static void test_append_refuses_foreign_owner(void)
{
	int fd = -1;
	if (geteuid() != 0)
		SKIP("needs root to chown a file to another user");
	fresh();
	put(p_file, "theirs\n");
	CHECK(chown(p_file, 1000, 1000) == 0);
	CHECK_EQ_INT(sfile_open_append(p_file, &fd), -EPERM);
	CHECK_STREQ(slurp(p_file), "theirs\n");
}

static void test_replace_writes(void)
{
	bool tmp = true;
	fresh();
	CHECK_EQ_INT(sfile_replace(p_file, "one\n", 4, &tmp), 0);
	CHECK_STREQ(slurp(p_file), "one\n");
	CHECK_EQ_INT(sfile_replace(p_file, "two\n", 4, &tmp), 0);
	CHECK_STREQ(slurp(p_file), "two\n");
	CHECK(access(p_tmp, F_OK) < 0);
}

static void test_replace_refuses_symlink_at_tmp(void)
{
	bool tmp = false;
	fresh();
	put(p_target, "secret\n");
	CHECK(symlink(p_target, p_tmp) == 0);
	CHECK_EQ_INT(sfile_replace(p_file, "metrics\n", 8, &tmp), -ELOOP);
	CHECK(tmp);
	CHECK_STREQ(slurp(p_target), "secret\n");
	struct stat st;
	CHECK(lstat(p_tmp, &st) == 0 && S_ISLNK(st.st_mode)); /* left alone */
	CHECK(access(p_file, F_OK) < 0);
	/* dangling: its target is not created */
	unlink(p_target);
	CHECK_EQ_INT(sfile_replace(p_file, "metrics\n", 8, &tmp), -ELOOP);
	CHECK(access(p_target, F_OK) < 0 && errno == ENOENT);
}

static void test_replace_refuses_symlink_at_file(void)
{
	bool tmp = true;
	fresh();
	put(p_target, "secret\n");
	CHECK(symlink(p_target, p_file) == 0);
	CHECK_EQ_INT(sfile_replace(p_file, "metrics\n", 8, &tmp), -ELOOP);
	CHECK(!tmp);
	CHECK_STREQ(slurp(p_target), "secret\n");
	CHECK(access(p_tmp, F_OK) < 0);
}

static void test_replace_stale_tmp_and_others(void)
{
	bool tmp = false;
	fresh();
	/* our own leftover from a crash: removed and replaced */
	put(p_tmp, "stale\n");
	CHECK_EQ_INT(sfile_replace(p_file, "new\n", 4, &tmp), 0);
	CHECK_STREQ(slurp(p_file), "new\n");
	/* a directory or a FIFO at .tmp: refused, left there */
	CHECK(mkdir(p_tmp, 0755) == 0);
	CHECK_EQ_INT(sfile_replace(p_file, "x\n", 2, &tmp), -EISDIR);
	CHECK(tmp);
	rmdir(p_tmp);
	CHECK(mkfifo(p_tmp, 0600) == 0);
	CHECK_EQ_INT(sfile_replace(p_file, "x\n", 2, &tmp), -EINVAL);
	unlink(p_tmp);
	/* a hard link to something else at .tmp */
	put(p_target, "secret\n");
	CHECK(link(p_target, p_tmp) == 0);
	CHECK_EQ_INT(sfile_replace(p_file, "x\n", 2, &tmp), -EMLINK);
	CHECK_STREQ(slurp(p_target), "secret\n");
	unlink(p_tmp);
	CHECK_STREQ(slurp(p_file), "new\n");
	if (geteuid() == 0) {
		put(p_tmp, "theirs\n");
		CHECK(chown(p_tmp, 1000, 1000) == 0);
		CHECK_EQ_INT(sfile_replace(p_file, "x\n", 2, &tmp), -EPERM);
		CHECK_STREQ(slurp(p_tmp), "theirs\n");
	}
}

static void test_remove(void)
{
	fresh();
	/* ours: removed; gone: -ENOENT */
	put(p_file, "cgoom_up 1\n");
	CHECK_EQ_INT(sfile_remove(p_file), 0);
	CHECK(access(p_file, F_OK) < 0);
	CHECK_EQ_INT(sfile_remove(p_file), -ENOENT);
	/* a symlink: refused, and what it names untouched */
	put(p_target, "secret\n");
	CHECK(symlink(p_target, p_file) == 0);
	CHECK_EQ_INT(sfile_remove(p_file), -ELOOP);
	CHECK_STREQ(slurp(p_target), "secret\n");
	unlink(p_file);
	/* a directory, a second hard link, another user's file: refused */
	CHECK(mkdir(p_file, 0755) == 0);
	CHECK_EQ_INT(sfile_remove(p_file), -EISDIR);
	rmdir(p_file);
	CHECK(link(p_target, p_file) == 0);
	CHECK_EQ_INT(sfile_remove(p_file), -EMLINK);
	unlink(p_file);
	if (geteuid() == 0) {
		put(p_file, "theirs\n");
		CHECK(chown(p_file, 1000, 1000) == 0);
		CHECK_EQ_INT(sfile_remove(p_file), -EPERM);
		CHECK_STREQ(slurp(p_file), "theirs\n");
	}
}

static void test_replace_missing_dir(void)
{
	bool tmp = false;
	char p[192];
	fresh();
	snprintf(p, sizeof(p), "%s/gone/out", dir);
	CHECK_EQ_INT(sfile_replace(p, "x\n", 2, &tmp), -ENOENT);
	CHECK(!tmp); /* named as PATH's problem, not PATH.tmp's */
	/* the directory comes back: works again */
	snprintf(p, sizeof(p), "%s/gone", dir);
	CHECK(mkdir(p, 0755) == 0);
	snprintf(p, sizeof(p), "%s/gone/out", dir);
	CHECK_EQ_INT(sfile_replace(p, "x\n", 2, &tmp), 0);
	CHECK_STREQ(slurp(p), "x\n");
}

static void test_open_read(void)
{
	int fd = -1;
	fresh();
	put(p_file, "[daemon]\n");
	CHECK_EQ_INT(sfile_open_read(p_file, 100, &fd), 0);
	char b[16];
	CHECK(read(fd, b, sizeof(b)) == 9);
	close(fd);
	/* a symlink is the admin's choice: followed */
	CHECK(symlink(p_file, p_target) == 0);
	CHECK_EQ_INT(sfile_open_read(p_target, 100, &fd), 0);
	close(fd);
	CHECK_EQ_INT(sfile_open_read(p_file, 8, &fd), -EFBIG);
	CHECK_EQ_INT(sfile_open_read(dir, 100, &fd), -EISDIR);
	unlink(p_file);
	/* a FIFO: refused at once, with or without a writer */
	CHECK(mkfifo(p_file, 0600) == 0);
	CHECK_EQ_INT(sfile_open_read(p_file, 100, &fd), -EINVAL);
	/* a character device: /dev/null reads empty (no fd), /dev/zero has data */
	fd = -1;
	CHECK_EQ_INT(sfile_open_read("/dev/null", 100, &fd), SFILE_EMPTY);
	CHECK_EQ_INT(fd, -1);
	CHECK_EQ_INT(sfile_open_read("/dev/zero", 100, &fd), -EINVAL);
	CHECK_EQ_INT(fd, -1);
	CHECK_STREQ(sfile_strerror(-EFBIG), "is too large (refused)");
}

int main(void)
{
	umask(022);
	int r = tap_run((struct tap_test[]){
		TAP(test_append_creates_and_appends),
		TAP(test_append_refuses_symlink),
		TAP(test_append_refuses_fifo_dir_hardlink),
		TAP(test_append_refuses_foreign_owner),
		TAP(test_replace_writes),
		TAP(test_replace_refuses_symlink_at_tmp),
		TAP(test_replace_refuses_symlink_at_file),
		TAP(test_replace_stale_tmp_and_others),
		TAP(test_replace_missing_dir),
		TAP(test_remove),
		TAP(test_open_read),
		{ 0 },
	});
	fresh(); /* removes the last one */
	rmdir(dir);
	return r;
}
