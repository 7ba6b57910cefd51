/* SPDX-License-Identifier: MIT */
/* The one config loader (src/shared/config-file.c), as the CLI verbs, `cgoom
 * run` and a SIGHUP reload all call it: a regular file is parsed;
 * `--config /dev/null` (any character device that reads empty) means no
 * settings, as `ssh -F /dev/null` does; a character device with data, a
 * FIFO (with or without a writer: never waited on), a directory and a file
 * over CGOOM_CONFIG_MAX are refused with the reason, and *ret is then not
 * written. Works in a fresh temporary directory. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "config-file.h"
#include "tap.h"

static char dir[64];
static char path[128];

static void fresh(void)
{
	char cmd[128];
	if (dir[0]) {
		snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
		if (system(cmd) != 0)
			printf("# could not remove %s\n", dir);
	}
	strcpy(dir, "/tmp/cgoom-test-config-XXXXXX");
	if (!mkdtemp(dir)) {
		printf("# mkdtemp: %s\n", strerror(errno));
		exit(1);
	}
	snprintf(path, sizeof(path), "%s/cgoom.conf", dir);
}

static void put(const char *p, const char *text)
{
	FILE *f = fopen(p, "w");
	if (f) {
		fputs(text, f);
		fclose(f);
	}
}

/* A config whose every field differs from the defaults, so that "not
 * written" and "reset to the defaults" are told apart. */
static void poison(struct cgoom_config *c)
{
	memset(c, 0, sizeof(*c));
	c->margin.value = 4242;
	c->n_cgroups = 77;
}

static bool is_defaults(const struct cgoom_config *c)
{
	struct cgoom_config d;
	cgoom_config_init(&d);
	return c->n_cgroups == 0 && !c->cgroups && c->margin.is_percent == d.margin.is_percent &&
	       c->margin.value == d.margin.value && c->mem_available_min.value == d.mem_available_min.value &&
	       c->swap_free_min.value == d.swap_free_min.value && c->kill_wait_us == d.kill_wait_us &&
	       c->guard_band == d.guard_band && !c->pre_kill_hook && !c->event_log && !c->metrics_file;
}

static void test_regular_file(void)
{
	struct cgoom_config c;
	char err[256] = "";
	fresh();
	put(path, "[daemon]\nmargin = 3%\n[cgroup \"/\"]\noom_policy = cgroup\n");
	CHECK_EQ_INT(cgoom_config_load(path, true, &c, err, sizeof(err)), 0);
	CHECK_EQ_INT(c.margin.value, 300);
	CHECK_EQ_INT(c.n_cgroups, 1);
	CHECK_EQ_INT(c.cgroups[0].policy, CGOOM_POLICY_CGROUP);
	cgoom_config_free(&c);
	/* a symlink to it is the admin's choice: followed */
	char link[160];
	snprintf(link, sizeof(link), "%s/link.conf", dir);
	CHECK(symlink(path, link) == 0);
	CHECK_EQ_INT(cgoom_config_load(link, true, &c, err, sizeof(err)), 0);
	CHECK_EQ_INT(c.n_cgroups, 1);
	cgoom_config_free(&c);
}

static void test_dev_null_is_empty(void)
{
	struct cgoom_config c;
	char err[256] = "";
	poison(&c);
	CHECK_EQ_INT(cgoom_config_load("/dev/null", true, &c, err, sizeof(err)), 0);
	CHECK_STREQ(err, "");
	CHECK(is_defaults(&c));
	cgoom_config_free(&c);
	/* through a symlink too, as a reload of /etc/cgoom.conf -> /dev/null */
	fresh();
	CHECK(symlink("/dev/null", path) == 0);
	poison(&c);
	CHECK_EQ_INT(cgoom_config_load(path, true, &c, err, sizeof(err)), 0);
	CHECK(is_defaults(&c));
	cgoom_config_free(&c);
}

/* The default path a symlink to nothing (a package removed, a typo in
 * ln -s): still the defaults, but with a warning naming it; it was
 * silent, as for no file at all. */
static void test_default_dangling_symlink(void)
{
	struct cgoom_config c;
	char err[256] = "x", lk[160];
	fresh();
	snprintf(lk, sizeof(lk), "%s/dangling.conf", dir);
	unlink(lk);
	CHECK_EQ_INT(symlink("/nonexistent/cgoom.conf", lk), 0);
	poison(&c);
	CHECK_EQ_INT(cgoom_config_load(lk, false, &c, err, sizeof(err)), 0);
	CHECK(is_defaults(&c));
	cgoom_config_free(&c);
	CHECK(strncmp(err, lk, strlen(lk)) == 0);
	CHECK(strstr(err, "dangling symlink") != NULL);
	/* an absent file is still said nothing of */
	unlink(lk);
	poison(&c);
	CHECK_EQ_INT(cgoom_config_load(lk, false, &c, err, sizeof(err)), 0);
	CHECK_EQ_INT(err[0], '\0');
	cgoom_config_free(&c);
	/* named with --config: the error it always was */
	CHECK_EQ_INT(symlink("/nonexistent/cgoom.conf", lk), 0);
	poison(&c);
	CHECK_EQ_INT(cgoom_config_load(lk, true, &c, err, sizeof(err)), -ENOENT);
	unlink(lk);
}

static void test_missing(void)
{
	struct cgoom_config c;
	char err[256] = "";
	fresh();
	poison(&c);
	/* the default path, absent: defaults */
	CHECK_EQ_INT(cgoom_config_load(path, false, &c, err, sizeof(err)), 0);
	CHECK(is_defaults(&c));
	cgoom_config_free(&c);
	/* named with --config: an error that names it */
	poison(&c);
	CHECK_EQ_INT(cgoom_config_load(path, true, &c, err, sizeof(err)), -ENOENT);
	CHECK_EQ_INT(c.n_cgroups, 77);
	CHECK(strncmp(err, path, strlen(path)) == 0);
	CHECK(strstr(err, strerror(ENOENT)) != NULL);
}

/* LOAD refused with -E and "PATH: WHY", *ret untouched */
#define CHECK_REFUSED(p, e, why)                                                              \
	do {                                                                                  \
		struct cgoom_config c_;                                                       \
		char err_[256] = "", want_[320];                                              \
		poison(&c_);                                                                  \
		CHECK_EQ_INT(cgoom_config_load((p), true, &c_, err_, sizeof(err_)), (e));      \
		CHECK_EQ_INT(c_.n_cgroups, 77);                                               \
		snprintf(want_, sizeof(want_), "%s: %s", (p), (why));                         \
		CHECK_STREQ(err_, want_);                                                     \
	} while (0)

static void test_device_with_data_refused(void)
{
	CHECK_REFUSED("/dev/zero", -EINVAL, "is not a regular file (refused)");
	CHECK_REFUSED("/dev/full", -EINVAL, "is not a regular file (refused)");
	CHECK_REFUSED("/dev/urandom", -EINVAL, "is not a regular file (refused)");
}

static void test_fifo_refused_at_once(void)
{
	fresh();
	CHECK(mkfifo(path, 0600) == 0);
	struct timespec a, b;
	clock_gettime(CLOCK_MONOTONIC, &a);
	CHECK_REFUSED(path, -EINVAL, "is not a regular file (refused)");
	/* with a writer holding it open (and data in it): still refused */
	int w = open(path, O_RDWR | O_NONBLOCK);
	CHECK(w >= 0);
	CHECK(write(w, "[daemon]\n", 9) == 9);
	CHECK_REFUSED(path, -EINVAL, "is not a regular file (refused)");
	close(w);
	clock_gettime(CLOCK_MONOTONIC, &b);
	CHECK(b.tv_sec - a.tv_sec < 2); /* never waited for a writer */
}

static void test_directory_refused(void)
{
	fresh();
	CHECK(mkdir(path, 0755) == 0);
	CHECK_REFUSED(path, -EISDIR, "is a directory (refused)");
}

static void test_oversized_refused(void)
{
	fresh();
	/* CGOOM_CONFIG_MAX of comments, then a setting: never read in part */
	FILE *f = fopen(path, "w");
	CHECK(f != NULL);
	for (size_t n = 0; n <= CGOOM_CONFIG_MAX; n += 64)
		fputs("#23456789012345678901234567890123456789012345678901234567890123\n", f);
	fputs("[cgroup \"/\"]\noom_policy = cgroup\n", f);
	fclose(f);
	CHECK_REFUSED(path, -EFBIG, "is too large (refused)");
	/* exactly at the limit is accepted */
	CHECK(truncate(path, (off_t)CGOOM_CONFIG_MAX) == 0);
	struct cgoom_config c;
	char err[256] = "";
	CHECK_EQ_INT(cgoom_config_load(path, true, &c, err, sizeof(err)), 0);
	cgoom_config_free(&c);
}

int main(void)
{
	umask(022);
	int r = tap_run((struct tap_test[]){
		TAP(test_regular_file),
		TAP(test_dev_null_is_empty),
		TAP(test_missing),
		TAP(test_default_dangling_symlink),
		TAP(test_device_with_data_refused),
		TAP(test_fifo_refused_at_once),
		TAP(test_directory_refused),
		TAP(test_oversized_refused),
		{ 0 },
	});
	if (dir[0]) {
		char cmd[128];
		snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
		if (system(cmd) != 0)
			printf("# could not remove %s\n", dir);
	}
	return r;
}
