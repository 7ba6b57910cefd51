/* SPDX-License-Identifier: MIT */
/* SPEC 6 "Hosts": which cgroup roots are refused, and what the refusal
 * says. The real host's /sys/fs/cgroup is covered end to end by
 * test-default-root.sh. */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <sys/statfs.h>
#include <unistd.h>

#include "reader.h"
#include "roots-internal.h"
#include "tap.h"

static void test_cgroup2_passes(void)
{
	char err[512] = "";

	CHECK_EQ_INT(cgoom_roots_check_v2("/sys/fs/cgroup", CGOOM_CGROUP2_MAGIC, true, err, sizeof err), 0);
	CHECK_EQ_INT(cgoom_roots_check_v2("/x", CGOOM_CGROUP2_MAGIC, false, err, sizeof err), 0);
	CHECK_STREQ(err, "");
}

static void test_v1_refused_anywhere(void)
{
	char err[512] = "";

	/* a v1 controller hierarchy, named explicitly or as the default */
	CHECK_EQ_INT(cgoom_roots_check_v2("/sys/fs/cgroup/memory", CGOOM_CGROUP1_MAGIC, false, err,
					  sizeof err),
		     -EMEDIUMTYPE);
	CHECK(strstr(err, "/sys/fs/cgroup/memory: a cgroup v1 controller hierarchy"));
	CHECK(strstr(err, "unified cgroup v2 hierarchy"));
	CHECK(strstr(err, "systemd.unified_cgroup_hierarchy=1"));
	CHECK(strstr(err, "cgroup_no_v1=all"));
	CHECK_EQ_INT(cgoom_roots_check_v2("/sys/fs/cgroup", CGOOM_CGROUP1_MAGIC, true, NULL, 0),
		     -EMEDIUMTYPE);
}

static void test_host_mount_must_be_cgroup2(void)
{
	char err[512] = "";

	/* legacy or hybrid: /sys/fs/cgroup is a tmpfs holding v1 mounts */
	CHECK_EQ_INT(cgoom_roots_check_v2("/sys/fs/cgroup", CGOOM_TMPFS_MAGIC, true, err, sizeof err),
		     -EMEDIUMTYPE);
	CHECK(strstr(err, "legacy or hybrid"));
	CHECK(strstr(err, "cgroup v2"));
	/* anything else mounted (or not) there */
	CHECK_EQ_INT(cgoom_roots_check_v2("/sys/fs/cgroup", 0xEF53, true, err, sizeof err), -EMEDIUMTYPE);
	CHECK(strstr(err, "not a cgroup2 mount"));
}

static void test_fixture_dirs_pass(void)
{
	/* an ordinary directory given with --cgroup-root is a fixture, also on tmpfs */
	CHECK_EQ_INT(cgoom_roots_check_v2("/tmp/t/cg", CGOOM_TMPFS_MAGIC, false, NULL, 0), 0);
	CHECK_EQ_INT(cgoom_roots_check_v2("/tmp/t/cg", 0xEF53, false, NULL, 0), 0);
}

static void test_open_applies_it(void)
{
	struct cgoom_roots r;
	struct statfs sf;
	char err[512] = "";
	char tmpl[] = "/tmp/cgoom-roots-XXXXXX";

	/* a fixture directory opens */
	CHECK(mkdtemp(tmpl) != NULL);
	CHECK_EQ_INT(cgoom_roots_open(tmpl, "/proc", &r, err, sizeof err), 0);
	cgoom_roots_close(&r);
	rmdir(tmpl);
	/* the host's own mount opens iff it is cgroup2 (read-only: open and fstatfs only) */
	if (statfs("/sys/fs/cgroup", &sf) < 0)
		SKIP("no /sys/fs/cgroup here");
	int rc = cgoom_roots_open("/sys/fs/cgroup", "/proc", &r, err, sizeof err);
	if (rc == 0)
		cgoom_roots_close(&r);
	CHECK_EQ_INT(rc, (unsigned long)sf.f_type == CGOOM_CGROUP2_MAGIC ? 0 : -EMEDIUMTYPE);
	if (rc < 0)
		CHECK(strstr(err, "cgroup v2"));
}

int main(void)
{
	return tap_run((struct tap_test[]){
		TAP(test_cgroup2_passes),
		TAP(test_v1_refused_anywhere),
		TAP(test_host_mount_must_be_cgroup2),
		TAP(test_fixture_dirs_pass),
		TAP(test_open_applies_it),
		{ 0 },
	});
}
