/* SPDX-License-Identifier: MIT */
/* Parsers of /proc/PID files (status, stat, cgroup): real and hostile input. */
#include "parse-samples.h"

/* ---- /proc/PID/status ----------------------------------------------- */

static void test_status_normal(void)
{
	struct cgoom_pid_status st;
	CHECK_EQ_INT(do_status(S(status_normal), &st), 0);
	CHECK_STREQ(st.name, "bash");
	CHECK_EQ_INT(st.state, 'S');
	CHECK_EQ_INT(st.tgid, 4242);
	CHECK_EQ_INT(st.pid, 4242);
	CHECK_EQ_INT(st.ppid, 4200);
	CHECK_EQ_INT(st.uid, 1000);
	CHECK_EQ_U64(st.vm_rss, 5000 * 1024);
	CHECK_EQ_U64(st.vm_swap, 300 * 1024);
	CHECK_EQ_U64(st.vm_pte, 56 * 1024);
	CHECK(st.has_mm);
	CHECK_EQ_INT(st.kthread, -1); /* 6.1 has no Kthread: line */
}

static void test_status_kthread(void)
{
	struct cgoom_pid_status st;
	CHECK_EQ_INT(do_status(S(status_kthread), &st), 0);
	CHECK_STREQ(st.name, "kthreadd");
	CHECK_EQ_INT(st.tgid, 2);
	CHECK_EQ_INT(st.ppid, 0);
	CHECK_EQ_INT(st.uid, 0);
	CHECK(!st.has_mm);
	CHECK_EQ_U64(st.vm_rss, 0);
	CHECK_EQ_U64(st.vm_swap, 0);
	CHECK_EQ_U64(st.vm_pte, 0);
	CHECK_EQ_INT(st.kthread, 1);
	CHECK(!st.has_rss_shmem);
}

/* RssShmem: the shmem a process maps (charge.c caps an entity's mapped
 * shmem by it); a line missing is unknown, a malformed one refused */
static void test_status_rss_shmem(void)
{
	struct cgoom_pid_status st;
	CHECK_EQ_INT(do_status(S(status_normal), &st), 0);
	CHECK(st.has_rss_shmem);
	CHECK_EQ_U64(st.rss_shmem, 0);
	CHECK_EQ_INT(do_status(S("Name:\tx\nState:\tS\nTgid:\t7\nVmRSS:\t 204800 kB\n"
				 "RssShmem:\t  204800 kB\n"),
			       &st),
		     0);
	CHECK(st.has_rss_shmem);
	CHECK_EQ_U64(st.rss_shmem, 200ull << 20);
	CHECK_EQ_INT(do_status(S("Name:\tx\nState:\tS\nTgid:\t7\nVmRSS:\t 204800 kB\n"), &st), 0);
	CHECK(!st.has_rss_shmem);
	CHECK_EQ_U64(st.rss_shmem, 0);
	CHECK_EQ_INT(do_status(S("Name:\tx\nState:\tS\nTgid:\t7\nRssShmem:\t1 MB\n"), &st), -EBADMSG);
	CHECK_EQ_INT(do_status(S("Name:\tx\nState:\tS\nTgid:\t7\nRssShmem:\t1 kB\nRssShmem:\t1 kB\n"), &st),
		     -EBADMSG);
}

static void test_status_zombie(void)
{
	struct cgoom_pid_status st;
	CHECK_EQ_INT(do_status(S(status_zombie), &st), 0);
	CHECK_STREQ(st.name, "defunct-child");
	CHECK_EQ_INT(st.state, 'Z');
	CHECK_EQ_INT(st.tgid, 5150);
	CHECK(!st.has_mm);
	CHECK_EQ_U64(st.vm_rss, 0);
	CHECK_EQ_INT(st.kthread, -1);
}

static void test_status_names(void)
{
	struct cgoom_pid_status st;
	/* spaces kept, a leading space too; kernel escapes kept as printed */
	CHECK_EQ_INT(do_status(S("Name:\t a b\\nc) Z (\nState:\tR (running)\nTgid:\t7\n"), &st), 0);
	CHECK_STREQ(st.name, " a b\\nc) Z (");
	CHECK_EQ_INT(st.state, 'R');
	/* empty name (prctl(PR_SET_NAME, "")) */
	CHECK_EQ_INT(do_status(S("Name:\t\nState:\tR\nTgid:\t7\n"), &st), 0);
	CHECK_STREQ(st.name, "");
	/* longer than the buffer: truncated to 63 bytes */
	CHECK_EQ_INT(do_status(S("Name:\t0123456789012345678901234567890123456789012345678901234567890123456789\n"
				 "State:\tR\nTgid:\t7\n"),
			       &st),
		     0);
	CHECK_EQ_INT(strlen(st.name), 63);
	CHECK(memcmp(st.name, "0123456789", 10) == 0);
	/* a Name with a NUL cannot come from the kernel */
	CHECK_EQ_INT(do_status(S("Name:\tba\0sh\nState:\tR\nTgid:\t7\n"), &st), -EBADMSG);
}

static void test_status_missing(void)
{
	struct cgoom_pid_status st;
	CHECK_EQ_INT(do_status(S(""), &st), -ENOENT);
	CHECK_EQ_INT(do_status(S("State:\tR\nTgid:\t7\n"), &st), -ENOENT);
	CHECK_EQ_INT(do_status(S("Name:\tx\nTgid:\t7\n"), &st), -ENOENT);
	CHECK_EQ_INT(do_status(S("Name:\tx\nState:\tR\n"), &st), -ENOENT);
	/* NStgid is not Tgid */
	CHECK_EQ_INT(do_status(S("Name:\tx\nState:\tR\nNStgid:\t7\n"), &st), -ENOENT);
	/* truncated before VmRSS: a valid process without an mm */
	size_t cut = (size_t)(strstr(status_normal, "VmRSS") - status_normal);
	CHECK_EQ_INT(do_status(status_normal, cut, &st), 0);
	CHECK(!st.has_mm);
	/* truncated mid-number or before the unit: malformed */
	CHECK_EQ_INT(do_status(status_normal, cut + 10, &st), -EBADMSG);
	CHECK_EQ_INT(do_status(status_normal, cut + 12, &st), -EBADMSG);
	CHECK_EQ_INT(do_status(status_normal, cut + 17, &st), -EBADMSG);
	CHECK_EQ_INT(do_status(status_normal, cut + 18, &st), 0);
	CHECK(st.has_mm);
	CHECK_EQ_U64(st.vm_rss, 5000 * 1024);
	/* a unitless number cut short cannot be told from a short one: the
	 * reader must hand over whole files */
	cut = (size_t)(strstr(status_normal, "Tgid:") - status_normal);
	CHECK_EQ_INT(do_status(status_normal, cut + 8, &st), 0);
	CHECK_EQ_INT(st.tgid, 42);
}

static void test_status_hostile(void)
{
	struct cgoom_pid_status st;
#define BASE "Name:\tx\nState:\tS (sleeping)\nTgid:\t7\n"
	CHECK_EQ_INT(do_status(S(BASE "Tgid:\t7\n"), &st), -EBADMSG);
	CHECK_EQ_INT(do_status(S(BASE "Name:\ty\n"), &st), -EBADMSG);
	CHECK_EQ_INT(do_status(S(BASE "VmRSS:\t1 kB\nVmRSS:\t1 kB\n"), &st), -EBADMSG);
	CHECK_EQ_INT(do_status(S(BASE "VmRSS:\t1\n"), &st), -EBADMSG);
	CHECK_EQ_INT(do_status(S(BASE "VmRSS:\t-1 kB\n"), &st), -EBADMSG);
	CHECK_EQ_INT(do_status(S(BASE "VmRSS:\t1 MB\n"), &st), -EBADMSG);
	CHECK_EQ_INT(do_status(S(BASE "VmRSS:\t99999999999999999999 kB\n"), &st), -ERANGE);
	CHECK_EQ_INT(do_status(S(BASE "Pid:\t-7\n"), &st), -EBADMSG);
	CHECK_EQ_INT(do_status(S(BASE "Pid:\t0\n"), &st), -ERANGE);
	CHECK_EQ_INT(do_status(S(BASE "PPid:\t4194305\n"), &st), -ERANGE);
	CHECK_EQ_INT(do_status(S(BASE "Uid:\t4294967296\t0\t0\t0\n"), &st), -ERANGE);
	CHECK_EQ_INT(do_status(S(BASE "Uid:\t\n"), &st), -EBADMSG);
	CHECK_EQ_INT(do_status(S(BASE "Kthread:\t2\n"), &st), -EBADMSG);
	CHECK_EQ_INT(do_status(S(BASE "Kthread:\tyes\n"), &st), -EBADMSG);
	CHECK_EQ_INT(do_status(S("Name:\tx\nState:\t\nTgid:\t7\n"), &st), -EBADMSG);
	CHECK_EQ_INT(do_status(S("Name:\tx\nState:\t1\nTgid:\t7\n"), &st), -EBADMSG);
	CHECK_EQ_INT(do_status(S("Name:\tx\nState:\tSS\nTgid:\t7\n"), &st), -EBADMSG);
	CHECK_EQ_INT(do_status(S("Name:\tx\nState:\tS\nTgid:\t7\0\n"), &st), -EBADMSG);
	/* VmRSS saturates like every kB figure */
	CHECK_EQ_INT(do_status(S(BASE "VmRSS:\t18446744073709551615 kB\n"), &st), 0);
	CHECK_EQ_U64(st.vm_rss, UINT64_MAX);
	/* the highest uid, overflowuid */
	CHECK_EQ_INT(do_status(S(BASE "Uid:\t4294967295\t0\t0\t0\n"), &st), 0);
	CHECK_EQ_INT(st.uid, UINT32_MAX);
#undef BASE
}

/* ---- /proc/PID/stat ------------------------------------------------- */

static void test_stat_normal(void)
{
	struct cgoom_pid_stat ps;
	CHECK_EQ_INT(do_stat(S(stat_normal), &ps), 0);
	CHECK_EQ_INT(ps.pid, 8123);
	CHECK_STREQ(ps.comm, "cat");
	CHECK_EQ_INT(ps.state, 'R');
	CHECK_EQ_INT(ps.ppid, 8119);
	CHECK_EQ_INT(ps.flags, 4194304);
	CHECK_EQ_U64(ps.starttime, 69469);
	CHECK_EQ_INT(ps.rss_pages, 414);
	CHECK_EQ_INT(ps.num_threads, 1);
	CHECK(!(ps.flags & CGOOM_PF_KTHREAD));
	/* without its newline */
	CHECK_EQ_INT(do_stat(stat_normal, sizeof(stat_normal) - 2, &ps), 0);
	CHECK_EQ_INT(ps.rss_pages, 414);
}

static void test_stat_kthread(void)
{
	struct cgoom_pid_stat ps;
	CHECK_EQ_INT(do_stat(S(stat_kthread), &ps), 0);
	CHECK_EQ_INT(ps.pid, 2);
	CHECK_STREQ(ps.comm, "kthreadd");
	CHECK_EQ_INT(ps.ppid, 0);
	CHECK(ps.flags & CGOOM_PF_KTHREAD);
	CHECK_EQ_U64(ps.starttime, 25);
	CHECK_EQ_INT(ps.rss_pages, 0);
}

static void test_stat_comm_fake_fields(void)
{
	struct cgoom_pid_stat ps;
	CHECK_EQ_INT(do_stat(S("4242 (foo) Z 1 ()" STAT_TAIL), &ps), 0);
	CHECK_STREQ(ps.comm, "foo) Z 1 (");
	CHECK_EQ_INT(ps.state, 'S');
	CHECK_EQ_INT(ps.ppid, 1);
	CHECK_EQ_U64(ps.starttime, 999);
	CHECK_EQ_INT(ps.rss_pages, 321);
	CHECK_EQ_INT(ps.pid, 4242);
}

static void test_stat_comm_parens(void)
{
	struct cgoom_pid_stat ps;
	CHECK_EQ_INT(do_stat(S("7 (a)b)" STAT_TAIL), &ps), 0);
	CHECK_STREQ(ps.comm, "a)b");
	CHECK_EQ_INT(do_stat(S("7 ( )" STAT_TAIL), &ps), 0);
	CHECK_STREQ(ps.comm, " ");
	CHECK_EQ_INT(do_stat(S("7 ()" STAT_TAIL), &ps), 0);
	CHECK_STREQ(ps.comm, "");
	CHECK_EQ_INT(do_stat(S("7 (((()" STAT_TAIL), &ps), 0);
	CHECK_STREQ(ps.comm, "(((");
	CHECK_EQ_INT(do_stat(S("7 ())))" STAT_TAIL), &ps), 0);
	CHECK_STREQ(ps.comm, ")))");
	CHECK_EQ_INT(ps.ppid, 1);
}

static void test_stat_comm_spaces_newlines(void)
{
	struct cgoom_pid_stat ps;
	CHECK_EQ_INT(do_stat(S("7 (Web Content)" STAT_TAIL), &ps), 0);
	CHECK_STREQ(ps.comm, "Web Content");
	CHECK_EQ_INT(do_stat(S("7 (evil\n8 (x) R 1 1)" STAT_TAIL), &ps), 0);
	CHECK_STREQ(ps.comm, "evil\n8 (x) R 1 1");
	CHECK_EQ_INT(ps.pid, 7);
	CHECK_EQ_INT(ps.state, 'S');
	CHECK_EQ_INT(do_stat(S("7 (\t\xff\x01)" STAT_TAIL), &ps), 0);
	CHECK_STREQ(ps.comm, "\t\xff\x01");
	/* 6.x kernel thread names go up to 64 bytes: truncated to 63 */
	CHECK_EQ_INT(do_stat(S("7 (kworker/u16:0-flush-259:0-a-very-long-workqueue-name-indeed-xyz-more)" STAT_TAIL),
			     &ps),
		     0);
	CHECK_EQ_INT(strlen(ps.comm), 63);
	CHECK(memcmp(ps.comm, "kworker/u16:0-flush", 19) == 0);
	CHECK_EQ_INT(ps.ppid, 1);
}

static void test_stat_hostile(void)
{
	struct cgoom_pid_stat ps;
	CHECK_EQ_INT(do_stat(S(""), &ps), -EBADMSG);
	CHECK_EQ_INT(do_stat(S("7"), &ps), -EBADMSG);
	CHECK_EQ_INT(do_stat(S("7 (cat"), &ps), -EBADMSG);
	CHECK_EQ_INT(do_stat(S("7 (cat)"), &ps), -EBADMSG);
	CHECK_EQ_INT(do_stat(S("7 (cat) S"), &ps), -EBADMSG);
	CHECK_EQ_INT(do_stat(S("7 )cat(" STAT_TAIL), &ps), -EBADMSG);
	CHECK_EQ_INT(do_stat(S("(cat)" STAT_TAIL), &ps), -EBADMSG);
	CHECK_EQ_INT(do_stat(S("7(cat)" STAT_TAIL), &ps), -EBADMSG);
	CHECK_EQ_INT(do_stat(S("x (cat)" STAT_TAIL), &ps), -EBADMSG);
	CHECK_EQ_INT(do_stat(S("-7 (cat)" STAT_TAIL), &ps), -EBADMSG);
	CHECK_EQ_INT(do_stat(S("0 (cat)" STAT_TAIL), &ps), -ERANGE);
	CHECK_EQ_INT(do_stat(S("4194305 (cat)" STAT_TAIL), &ps), -ERANGE);
	CHECK_EQ_INT(do_stat(S("7 (c\0t)" STAT_TAIL), &ps), -EBADMSG);
	CHECK_EQ_INT(do_stat(S("7 (cat)" STAT_TAIL "\n"), &ps), -EBADMSG);
	CHECK_EQ_INT(do_stat(S("7 (cat)  S 1 77 77 0 -1 4194560 5 0 0 0 1 2 0 0 20 0 1 0 999 4096 321\n"),
			     &ps),
		     -EBADMSG);
	CHECK_EQ_INT(do_stat(S("7 (cat) SS 1 77 77 0 -1 4194560 5 0 0 0 1 2 0 0 20 0 1 0 999 4096 321\n"),
			     &ps),
		     -EBADMSG);
	CHECK_EQ_INT(do_stat(S("7 (cat) 1 1 77 77 0 -1 4194560 5 0 0 0 1 2 0 0 20 0 1 0 999 4096 321\n"),
			     &ps),
		     -EBADMSG);
	/* 23 fields: rss missing */
	CHECK_EQ_INT(do_stat(S("7 (cat) S 1 77 77 0 -1 4194560 5 0 0 0 1 2 0 0 20 0 1 0 999 4096\n"),
			     &ps),
		     -EBADMSG);
	/* exactly 24 */
	CHECK_EQ_INT(do_stat(S("7 (cat) S 1 77 77 0 -1 4194560 5 0 0 0 1 2 0 0 20 0 1 0 999 4096 -3"),
			     &ps),
		     0);
	CHECK_EQ_INT(ps.rss_pages, -3);
	CHECK_EQ_INT(do_stat(S("7 (cat) S -1 77 77 0 -1 4194560 5 0 0 0 1 2 0 0 20 0 1 0 999 4096 3"),
			     &ps),
		     -ERANGE);
	CHECK_EQ_INT(do_stat(S("7 (cat) S 1 77 77 0 -1 4294967296 5 0 0 0 1 2 0 0 20 0 1 0 999 4096 3"),
			     &ps),
		     -ERANGE);
	CHECK_EQ_INT(do_stat(S("7 (cat) S 1 77 77 0 -1 1 5 0 0 0 1 2 0 0 20 0 1 0 18446744073709551616 4096 3"),
			     &ps),
		     -ERANGE);
	CHECK_EQ_INT(do_stat(S("7 (cat) S 1 77 77 0 -1 1 5 0 0 0 1 2 0 0 20 0 1 0 -5 4096 3"), &ps),
		     -ERANGE);
	CHECK_EQ_INT(do_stat(S("7 (cat) S 1 77 77 0 -1 1 5 0 0 0 1 2 0 0 20 0 1 0 5 4096 9223372036854775808"),
			     &ps),
		     -ERANGE);
	CHECK_EQ_INT(do_stat(S("7 (cat) S 1 77 77 0 x 1 5 0 0 0 1 2 0 0 20 0 1 0 5 4096 3"), &ps),
		     -EBADMSG);
	CHECK_EQ_INT(do_stat(S("7 (cat) S 1 77 77 0 -1 1 5 0 0 0 1 2 0 0 20 0 1 0 5 4096 3 -"), &ps),
		     -EBADMSG);
	CHECK_EQ_INT(do_stat(S("7 (cat) S 1 77 77 0 -1 1 5 0 0 0 1 2 0 0 20 0 1 0 5 4096 3 \0"), &ps),
		     -EBADMSG);
}

/* ---- /proc/PID/cgroup ----------------------------------------------- */

static void test_cgroup_v2(void)
{
	char path[257];
	CHECK_EQ_INT(do_cgroup(S(cgroup_v2), path, 256), 0);
	CHECK_STREQ(path, "/user.slice/user-1000.slice/session-2.scope");
	CHECK_EQ_INT(do_cgroup(S("0::/"), path, 256), 0);
	CHECK_STREQ(path, "/");
	/* byte-exact: spaces, colons, high bytes, a dead cgroup's suffix */
	CHECK_EQ_INT(do_cgroup(S("0::/a b:c/\xe2\x9c\x93 (deleted)\n"), path, 256), 0);
	CHECK_STREQ(path, "/a b:c/\xe2\x9c\x93 (deleted)");
	/* inside a cgroup namespace, outside its root */
	CHECK_EQ_INT(do_cgroup(S("0::/../../system.slice\n"), path, 256), 0);
	CHECK_STREQ(path, "/../../system.slice");
}

static void test_cgroup_hybrid(void)
{
	char path[257];
	CHECK_EQ_INT(do_cgroup(S(cgroup_hybrid), path, 256), 0);
	CHECK_STREQ(path, "/user.slice/user-1000.slice/session-2.scope");
	/* the v2 line first; then a named v1 hierarchy with an empty list */
	CHECK_EQ_INT(do_cgroup(S("0::/a\n1:name=systemd:/b\n"), path, 256), 0);
	CHECK_STREQ(path, "/a");
	/* pure v1: no v2 line */
	CHECK_EQ_INT(do_cgroup(S("4:memory:/x\n1:name=systemd:/x\n"), path, 256), -ENOENT);
	/* a v1 hierarchy 0 with controllers is not the v2 line */
	CHECK_EQ_INT(do_cgroup(S("0:memory:/x\n"), path, 256), -ENOENT);
}

static void test_cgroup_cap(void)
{
	char path[257];
	/* "/abc" needs 5 bytes */
	CHECK_EQ_INT(do_cgroup(S("0::/abc\n"), path, 5), 0);
	CHECK_STREQ(path, "/abc");
	CHECK_EQ_INT(do_cgroup(S("0::/abc\n"), path, 4), -ENAMETOOLONG);
	CHECK_EQ_INT(do_cgroup(S("0::/abc\n"), path, 0), -ENAMETOOLONG);
	CHECK_EQ_INT(cgoom_parse_pid_cgroup(S("0::/abc\n"), NULL, 0), -ENAMETOOLONG);
	CHECK_EQ_INT(cgoom_parse_pid_cgroup(S("0::/abc\n"), NULL, 5), -EINVAL);
}

static void test_cgroup_hostile(void)
{
	char path[257];
	CHECK_EQ_INT(do_cgroup(S(""), path, 256), -ENOENT);
	CHECK_EQ_INT(do_cgroup(S("0::/a\n0::/b\n"), path, 256), -EBADMSG);
	CHECK_EQ_INT(do_cgroup(S("0::\n"), path, 256), -EBADMSG);
	CHECK_EQ_INT(do_cgroup(S("0::a\n"), path, 256), -EBADMSG);
	CHECK_EQ_INT(do_cgroup(S("0::/a\0b\n"), path, 256), -EBADMSG);
	CHECK_EQ_INT(do_cgroup(S("0:/a\n"), path, 256), -EBADMSG);
	CHECK_EQ_INT(do_cgroup(S("0\n"), path, 256), -EBADMSG);
	CHECK_EQ_INT(do_cgroup(S("x::/a\n"), path, 256), -EBADMSG);
	CHECK_EQ_INT(do_cgroup(S("::/a\n"), path, 256), -EBADMSG);
	CHECK_EQ_INT(do_cgroup(S("0::/a\n\n"), path, 256), -EBADMSG);
	CHECK_EQ_INT(do_cgroup(S("0::/a\ngarbage\n"), path, 256), -EBADMSG);
	CHECK_EQ_INT(do_cgroup(S("99999999999999999999999::/a\n"), path, 256), -EBADMSG);
}

/* ---- every parser -------------------------------------------------- */

int main(void)
{
	return tap_run((struct tap_test[]){
		TAP(test_status_normal),
		TAP(test_status_kthread),
		TAP(test_status_rss_shmem),
		TAP(test_status_zombie),
		TAP(test_status_names),
		TAP(test_status_missing),
		TAP(test_status_hostile),
		TAP(test_stat_normal),
		TAP(test_stat_kthread),
		TAP(test_stat_comm_fake_fields),
		TAP(test_stat_comm_parens),
		TAP(test_stat_comm_spaces_newlines),
		TAP(test_stat_hostile),
		TAP(test_cgroup_v2),
		TAP(test_cgroup_hybrid),
		TAP(test_cgroup_cap),
		TAP(test_cgroup_hostile),
		{ 0 },
	});
}
