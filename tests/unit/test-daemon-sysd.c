/* SPDX-License-Identifier: MIT */
/* The systemd-oomd xattr protocol (src/daemon/sysd.c): user.oomd_ooms and
 * user.oomd_kill counted up on a cgroup directory, here a fixture
 * directory (skipped where its filesystem has no user xattrs). */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/xattr.h>
#include <unistd.h>

#include "daemon-internal.h"
#include "tap.h"

static char g_dir[64];

static int open_fixture(void)
{
	snprintf(g_dir, sizeof g_dir, "/tmp/cgoom-sysd-XXXXXX");
	if (!mkdtemp(g_dir))
		return -1;
	return open(g_dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
}

static void close_fixture(int fd)
{
	close(fd);
	removexattr(g_dir, "user.oomd_ooms");
	removexattr(g_dir, "user.oomd_kill");
	rmdir(g_dir);
}

static long get(const char *name)
{
	char buf[32];
	ssize_t n = getxattr(g_dir, name, buf, sizeof buf - 1);
	if (n < 0)
		return -1;
	buf[n] = '\0';
	return strtol(buf, NULL, 10);
}

static void test_counts_up(void)
{
	int fd = open_fixture();
	CHECK(fd >= 0);
	int r = sysd_xattr_add(fd, "user.oomd_ooms", 1);
	if (r == -EOPNOTSUPP || r == -ENOTSUP) {
		close_fixture(fd);
		SKIP("no user xattrs on /tmp's filesystem");
	}
	CHECK_EQ_INT(r, 0);
	CHECK_EQ_INT(get("user.oomd_ooms"), 1);
	/* before the next kill: +1; after: + the number killed */
	CHECK_EQ_INT(sysd_xattr_add(fd, "user.oomd_ooms", 1), 0);
	CHECK_EQ_INT(get("user.oomd_ooms"), 2);
	CHECK_EQ_INT(sysd_xattr_add(fd, "user.oomd_kill", 3), 0);
	CHECK_EQ_INT(sysd_xattr_add(fd, "user.oomd_kill", 2), 0);
	CHECK_EQ_INT(get("user.oomd_kill"), 5);
	close_fixture(fd);
}

static void test_malformed_restarts(void)
{
	int fd = open_fixture();
	CHECK(fd >= 0);
	if (setxattr(g_dir, "user.oomd_ooms", "banana", 6, 0) < 0) {
		close_fixture(fd);
		SKIP("no user xattrs on /tmp's filesystem");
	}
	CHECK_EQ_INT(sysd_xattr_add(fd, "user.oomd_ooms", 1), 0);
	CHECK_EQ_INT(get("user.oomd_ooms"), 1);
	/* systemd writes the value with a trailing newline sometimes */
	CHECK_EQ_INT(setxattr(g_dir, "user.oomd_ooms", "41\n", 3, 0), 0);
	CHECK_EQ_INT(sysd_xattr_add(fd, "user.oomd_ooms", 1), 0);
	CHECK_EQ_INT(get("user.oomd_ooms"), 42);
	close_fixture(fd);
}

/* The value as written, or "" when absent. */
static const char *get_str(const char *name)
{
	static char buf[64];
	ssize_t n = getxattr(g_dir, name, buf, sizeof buf - 1);
	buf[n > 0 ? n : 0] = '\0';
	return buf;
}

/* A value longer than any count (another writer's: a delegatee owns
 * user.*) restarts the count like any malformed one; it blocked it
 * (fgetxattr's ERANGE into a 32-byte buffer: nothing written, and
 * systemd never saw the kill). */
static void test_long_value_restarts(void)
{
	int fd = open_fixture();
	CHECK(fd >= 0);
	const char *v = "00000000000000000000000000000000000000000005"; /* 44 bytes */
	if (setxattr(g_dir, "user.oomd_ooms", v, strlen(v), 0) < 0) {
		close_fixture(fd);
		SKIP("no user xattrs on /tmp's filesystem");
	}
	CHECK_EQ_INT(sysd_xattr_add(fd, "user.oomd_ooms", 1), 0);
	CHECK_STREQ(get_str("user.oomd_ooms"), "1");
	close_fixture(fd);
}

/* The count saturates at the top of systemd's range (safe_atou64: all of
 * a u64) and is read back over that range: read back as malformed (over
 * INT64_MAX), it went from 18446744073709551615 to 1, and a value over
 * INT64_MAX from a writer that systemd had read went down too. */
static void test_saturates_in_systemd_range(void)
{
	int fd = open_fixture();
	CHECK(fd >= 0);
	const char *v = "18446744073709551613"; /* UINT64_MAX - 2 */
	if (setxattr(g_dir, "user.oomd_kill", v, strlen(v), 0) < 0) {
		close_fixture(fd);
		SKIP("no user xattrs on /tmp's filesystem");
	}
	CHECK_EQ_INT(sysd_xattr_add(fd, "user.oomd_kill", 1), 0);
	CHECK_STREQ(get_str("user.oomd_kill"), "18446744073709551614");
	CHECK_EQ_INT(sysd_xattr_add(fd, "user.oomd_kill", 3), 0);
	CHECK_STREQ(get_str("user.oomd_kill"), "18446744073709551615");
	CHECK_EQ_INT(sysd_xattr_add(fd, "user.oomd_kill", 1), 0);
	CHECK_STREQ(get_str("user.oomd_kill"), "18446744073709551615");
	/* a value stored with its terminator reads as systemd's C string */
	CHECK_EQ_INT(setxattr(g_dir, "user.oomd_kill", "7", 2, 0), 0);
	CHECK_EQ_INT(sysd_xattr_add(fd, "user.oomd_kill", 1), 0);
	CHECK_STREQ(get_str("user.oomd_kill"), "8");
	close_fixture(fd);
}

static void test_bad_fd(void)
{
	CHECK_EQ_INT(sysd_xattr_add(-1, "user.oomd_ooms", 1), -EBADF);
}

int main(void)
{
	return tap_run((struct tap_test[]){
		TAP(test_counts_up),
		TAP(test_malformed_restarts),
		TAP(test_long_value_restarts),
		TAP(test_saturates_in_systemd_range),
		TAP(test_bad_fd),
		{ 0 },
	});
}
