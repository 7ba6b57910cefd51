/* SPDX-License-Identifier: MIT */
/* Scalar parsers (int, u64, limits, booleans, PID lists, controllers), and every parser against truncations, byte flips and garbage. */
#include "parse-samples.h"

static void test_int_basic(void)
{
	int64_t v;
	CHECK_EQ_INT(do_int(S("0"), -1000, 1000, &v), 0);
	CHECK_EQ_INT(v, 0);
	CHECK_EQ_INT(do_int(S("-1000\n"), -1000, 1000, &v), 0);
	CHECK_EQ_INT(v, -1000);
	CHECK_EQ_INT(do_int(S("  +250 \t\n"), -1000, 1000, &v), 0);
	CHECK_EQ_INT(v, 250);
	CHECK_EQ_INT(do_int(S("1\0"), 0, 1, &v), 0); /* xattr with its NUL */
	CHECK_EQ_INT(v, 1);
	CHECK_EQ_INT(do_int(S("-9223372036854775808"), INT64_MIN, INT64_MAX, &v), 0);
	CHECK(v == INT64_MIN);
	CHECK_EQ_INT(do_int(S("9223372036854775807"), INT64_MIN, INT64_MAX, &v), 0);
	CHECK(v == INT64_MAX);
	CHECK_EQ_INT(do_int(S("007"), 0, 10, &v), 0);
	CHECK_EQ_INT(v, 7);
}

static void test_int_hostile(void)
{
	int64_t v;
	CHECK_EQ_INT(do_int(S(""), -1000, 1000, &v), -EBADMSG);
	CHECK_EQ_INT(do_int(S(" \n"), -1000, 1000, &v), -EBADMSG);
	CHECK_EQ_INT(do_int(S("-"), -1000, 1000, &v), -EBADMSG);
	CHECK_EQ_INT(do_int(S("+-1"), -1000, 1000, &v), -EBADMSG);
	CHECK_EQ_INT(do_int(S("1 2"), -1000, 1000, &v), -EBADMSG);
	CHECK_EQ_INT(do_int(S("12abc"), -1000, 1000, &v), -EBADMSG);
	CHECK_EQ_INT(do_int(S("0x10"), -1000, 1000, &v), -EBADMSG);
	CHECK_EQ_INT(do_int(S("1\0002"), -1000, 1000, &v), -EBADMSG);
	CHECK_EQ_INT(do_int(S("1001"), -1000, 1000, &v), -ERANGE);
	CHECK_EQ_INT(do_int(S("-1001"), -1000, 1000, &v), -ERANGE);
	CHECK_EQ_INT(do_int(S("9223372036854775808"), INT64_MIN, INT64_MAX, &v), -ERANGE);
	CHECK_EQ_INT(do_int(S("-9223372036854775809"), INT64_MIN, INT64_MAX, &v), -ERANGE);
	CHECK_EQ_INT(do_int(S("99999999999999999999999999"), INT64_MIN, INT64_MAX, &v),
		     -ERANGE);
	CHECK_EQ_INT(do_int(S("5"), 10, 0, &v), -EINVAL);
	CHECK_EQ_INT(cgoom_parse_int(NULL, 0, 0, 1, &v), -EBADMSG);
}

static void test_u64_basic(void)
{
	uint64_t v;
	CHECK_EQ_INT(do_u64(S("123456789\n"), &v), 0);
	CHECK_EQ_U64(v, 123456789);
	CHECK_EQ_INT(do_u64(S("18446744073709551615"), &v), 0);
	CHECK_EQ_U64(v, UINT64_MAX);
	CHECK_EQ_INT(do_u64(S("  0  "), &v), 0);
	CHECK_EQ_U64(v, 0);
	CHECK_EQ_INT(do_u64(S("-0"), &v), 0);
	CHECK_EQ_U64(v, 0);
}

static void test_u64_hostile(void)
{
	uint64_t v;
	CHECK_EQ_INT(do_u64(S("18446744073709551616"), &v), -ERANGE);
	CHECK_EQ_INT(do_u64(S("184467440737095516150"), &v), -ERANGE);
	CHECK_EQ_INT(do_u64(S("-1"), &v), -ERANGE);
	CHECK_EQ_INT(do_u64(S("-18446744073709551615"), &v), -ERANGE);
	CHECK_EQ_INT(do_u64(S("-x"), &v), -EBADMSG);
	CHECK_EQ_INT(do_u64(S(""), &v), -EBADMSG);
	CHECK_EQ_INT(do_u64(S("+5"), &v), -EBADMSG);
	CHECK_EQ_INT(do_u64(S("5\0"), &v), -EBADMSG);
	CHECK_EQ_INT(do_u64(S("12 34"), &v), -EBADMSG);
	CHECK_EQ_INT(do_u64(S("1e9"), &v), -EBADMSG);
	CHECK_EQ_INT(do_u64(S("max"), &v), -EBADMSG);
	CHECK_EQ_INT(do_u64(S("\xff\xfe\x01"), &v), -EBADMSG);
	CHECK_EQ_INT(cgoom_parse_u64(NULL, 0, &v), -EBADMSG);
}

static void test_limit(void)
{
	uint64_t v;
	CHECK_EQ_INT(do_limit(S("max\n"), &v), 0);
	CHECK_EQ_U64(v, UINT64_MAX);
	CHECK_EQ_INT(do_limit(S("max"), &v), 0);
	CHECK_EQ_U64(v, UINT64_MAX);
	CHECK_EQ_INT(do_limit(S("536870912\n"), &v), 0);
	CHECK_EQ_U64(v, 536870912);
	CHECK_EQ_INT(do_limit(S("0\n"), &v), 0);
	CHECK_EQ_U64(v, 0);
	CHECK_EQ_INT(do_limit(S("MAX\n"), &v), -EBADMSG);
	CHECK_EQ_INT(do_limit(S("maxx\n"), &v), -EBADMSG);
	CHECK_EQ_INT(do_limit(S("ma"), &v), -EBADMSG);
	CHECK_EQ_INT(do_limit(S("max\0"), &v), -EBADMSG);
	CHECK_EQ_INT(do_limit(S("-1\n"), &v), -ERANGE);
	CHECK_EQ_INT(do_limit(S("99999999999999999999\n"), &v), -ERANGE);
	CHECK_EQ_INT(do_limit(S("\n"), &v), -EBADMSG);
}

static void test_bool(void)
{
	static const char *const yes[] = { "1", "yes", "YES", "True", "on", "On\n", "true\0" };
	static const char *const no[] = { "0", "no", "No", "FALSE", "off", "off\n", "0\0" };
	bool b;
	for (size_t i = 0; i < sizeof(yes) / sizeof(yes[0]); i++) {
		/* "true\0": count the explicit NUL */
		size_t n = strlen(yes[i]) + (i == 6);
		CHECK_EQ_INT(do_bool(yes[i], n, &b), 0);
		CHECK(b);
		n = strlen(no[i]) + (i == 6);
		CHECK_EQ_INT(do_bool(no[i], n, &b), 0);
		CHECK(!b);
	}
}

static void test_bool_hostile(void)
{
	bool b;
	CHECK_EQ_INT(do_bool(S(""), &b), -EBADMSG);
	CHECK_EQ_INT(do_bool(S("\0"), &b), -EBADMSG);
	CHECK_EQ_INT(do_bool(S("2"), &b), -EBADMSG);
	CHECK_EQ_INT(do_bool(S("y"), &b), -EBADMSG);
	CHECK_EQ_INT(do_bool(S("yess"), &b), -EBADMSG);
	CHECK_EQ_INT(do_bool(S("ye"), &b), -EBADMSG);
	CHECK_EQ_INT(do_bool(S("t\0rue"), &b), -EBADMSG);
	CHECK_EQ_INT(do_bool(S("on off"), &b), -EBADMSG);
	CHECK_EQ_INT(do_bool(S("\xc3\xbf"), &b), -EBADMSG);
}

static void test_pids_basic(void)
{
	int pids[9];
	CHECK_EQ_INT(do_pids(S(procs_real), pids, 8), 4);
	CHECK_EQ_INT(pids[0], 1);
	CHECK_EQ_INT(pids[1], 245);
	CHECK_EQ_INT(pids[2], 4194304);
	CHECK_EQ_INT(pids[3], 31337);
	/* no trailing newline */
	CHECK_EQ_INT(do_pids(S("10\n20"), pids, 8), 2);
	CHECK_EQ_INT(pids[1], 20);
}

static void test_pids_empty(void)
{
	int pids[3];
	CHECK_EQ_INT(do_pids(S(""), pids, 2), 0);
	CHECK_EQ_INT(cgoom_parse_pids(NULL, 0, NULL, 0), 0);
	CHECK_EQ_INT(cgoom_parse_pids(NULL, 0, pids, 2), 0);
}

static void test_pids_cap(void)
{
	int pids[3];
	/* more PIDs than room: the count says so, and only cap are written */
	CHECK_EQ_INT(do_pids(S(procs_real), pids, 2), 4);
	CHECK_EQ_INT(pids[0], 1);
	CHECK_EQ_INT(pids[1], 245);
	CHECK_EQ_INT(do_pids(S(procs_real), pids, 0), 4);
	CHECK_EQ_INT(cgoom_parse_pids(S(procs_real), NULL, 0), 4);
	CHECK_EQ_INT(cgoom_parse_pids(S(procs_real), NULL, 1), -EINVAL);
}

static void test_pids_hostile(void)
{
	int pids[9];
	CHECK_EQ_INT(do_pids(S("0\n"), pids, 8), -ERANGE);
	CHECK_EQ_INT(do_pids(S("4194305\n"), pids, 8), -ERANGE);
	CHECK_EQ_INT(do_pids(S("1\n-1\n"), pids, 8), -ERANGE);
	CHECK_EQ_INT(do_pids(S("99999999999999999999999\n"), pids, 8), -ERANGE);
	CHECK_EQ_INT(do_pids(S("1\n\n2\n"), pids, 8), -EBADMSG);
	CHECK_EQ_INT(do_pids(S("\n"), pids, 8), -EBADMSG);
	CHECK_EQ_INT(do_pids(S(" 1\n"), pids, 8), -EBADMSG);
	CHECK_EQ_INT(do_pids(S("1 2\n"), pids, 8), -EBADMSG);
	CHECK_EQ_INT(do_pids(S("12\0\n"), pids, 8), -EBADMSG);
	CHECK_EQ_INT(do_pids(S("+1\n"), pids, 8), -EBADMSG);
	CHECK_EQ_INT(do_pids(S("-\n"), pids, 8), -EBADMSG);
	CHECK_EQ_INT(do_pids(S("1\r\n"), pids, 8), -EBADMSG);
	/* the bad line is last, after PIDs that would fit: nothing written */
	CHECK_EQ_INT(do_pids(S("1\n2\n3\nx\n"), pids, 8), -EBADMSG);
}

static void test_has_controller(void)
{
	bool b;
	CHECK_EQ_INT(do_ctl(S(controllers_real), "memory", &b), 0);
	CHECK(b);
	CHECK_EQ_INT(do_ctl(S(controllers_real), "cpuset", &b), 0);
	CHECK(b);
	CHECK_EQ_INT(do_ctl(S(controllers_real), "misc", &b), 0);
	CHECK(b);
	CHECK_EQ_INT(do_ctl(S(controllers_real), "mem", &b), 0);
	CHECK(!b);
	CHECK_EQ_INT(do_ctl(S(controllers_real), "cpusetx", &b), 0);
	CHECK(!b);
	CHECK_EQ_INT(do_ctl(S("cpu io"), "io", &b), 0); /* no newline */
	CHECK(b);
	CHECK_EQ_INT(do_ctl(S(""), "memory", &b), 0); /* no controllers */
	CHECK(!b);
	CHECK_EQ_INT(do_ctl(S("\n"), "memory", &b), 0);
	CHECK(!b);
	CHECK_EQ_INT(do_ctl(S("cpu  memory\tpids \n"), "pids", &b), 0);
	CHECK(b);
}

static void test_has_controller_hostile(void)
{
	bool b;
	CHECK_EQ_INT(do_ctl(S("cpu mem\0ory\n"), "memory", &b), -EBADMSG);
	CHECK_EQ_INT(do_ctl(S("cpu\x01 memory\n"), "memory", &b), -EBADMSG);
	CHECK_EQ_INT(do_ctl(S("memory\n"), "", &b), -EINVAL);
	CHECK_EQ_INT(do_ctl(S("memory\n"), "mem ory", &b), -EINVAL);
	CHECK_EQ_INT(cgoom_parse_has_controller(S("memory"), NULL, &b), -EINVAL);
}

/* ---- memory.stat ---------------------------------------------------- */

struct any_out {
	struct cgoom_memstat memstat;
	struct cgoom_memevents memevents;
	struct cgoom_pressure pressure;
	struct cgoom_meminfo meminfo;
	struct cgoom_sockstat sockstat;
	struct cgoom_pid_status status;
	struct cgoom_pid_stat stat;
	uint64_t u;
	int64_t i;
	bool b;
	int pids[17];
	char path[65];
};

/* Feeds (s, n) to every parser; false if one wrote its output on failure
 * or returned an undocumented error. */
static bool run_all(const char *s, size_t n)
{
	struct any_out o;
	int r[13];
	r[0] = do_memstat(s, n, &o.memstat);
	r[1] = do_memevents(s, n, &o.memevents);
	r[2] = do_pressure(s, n, &o.pressure);
	r[3] = do_meminfo(s, n, &o.meminfo);
	r[4] = do_sockstat(s, n, &o.sockstat);
	r[5] = do_status(s, n, &o.status);
	r[6] = do_stat(s, n, &o.stat);
	r[7] = do_u64(s, n, &o.u);
	r[8] = do_limit(s, n, &o.u);
	r[9] = do_int(s, n, -1000, 1000, &o.i);
	r[10] = do_bool(s, n, &o.b);
	r[11] = do_pids(s, n, o.pids, 16);
	r[12] = do_cgroup(s, n, o.path, 64);
	for (size_t k = 0; k < 13; k++)
		if (r[k] < 0 && !is_documented_error(r[k]))
			return false;
	int r2 = do_ctl(s, n, "memory", &o.b);
	return r2 == 0 || r2 == -EBADMSG;
}

static void test_all_empty(void)
{
	CHECK(run_all("", 0));
	struct cgoom_memevents e;
	struct cgoom_sockstat ss;
	struct cgoom_pressure p;
	struct cgoom_pid_status st;
	struct cgoom_pid_stat ps;
	struct cgoom_meminfo mi;
	char path[8];
	bool b;
	CHECK_EQ_INT(cgoom_parse_memevents(NULL, 0, &e), 0);
	CHECK_EQ_INT(cgoom_parse_sockstat(NULL, 0, &ss), 0);
	CHECK_EQ_INT(cgoom_parse_pressure(NULL, 0, &p), -ENOENT);
	CHECK_EQ_INT(cgoom_parse_pid_status(NULL, 0, &st), -ENOENT);
	CHECK_EQ_INT(cgoom_parse_pid_stat(NULL, 0, &ps), -EBADMSG);
	CHECK_EQ_INT(cgoom_parse_meminfo(NULL, 0, &mi), -ENOENT);
	CHECK_EQ_INT(cgoom_parse_pid_cgroup(NULL, 0, path, sizeof(path)), -ENOENT);
	CHECK_EQ_INT(cgoom_parse_has_controller(NULL, 0, "memory", &b), 0);
	CHECK(!b);
	CHECK_EQ_INT(cgoom_parse_bool(NULL, 0, &b), -EBADMSG);
	/* a NULL buffer with a length is a caller bug */
	CHECK_EQ_INT(cgoom_parse_memstat(NULL, 5, &(struct cgoom_memstat){ 0 }), -EINVAL);
	CHECK_EQ_INT(cgoom_parse_pid_stat(NULL, 5, &ps), -EINVAL);
}

static const struct {
	const char *name;
	const char *buf;
	size_t len;
} real_files[] = {
#define REAL(x) { #x, x, sizeof(x) - 1 }
	REAL(memstat_61),    REAL(memevents_real), REAL(pressure_memcg), REAL(pressure_proc_cpu_old),
	REAL(meminfo_61),    REAL(sockstat_real),  REAL(status_normal),  REAL(status_kthread),
	REAL(status_zombie), REAL(stat_normal),    REAL(stat_kthread),   REAL(cgroup_v2),
	REAL(cgroup_hybrid), REAL(procs_real),     REAL(controllers_real),
#undef REAL
};

/* Every prefix of every real file through every parser. */
static void test_all_truncations(void)
{
	for (size_t f = 0; f < sizeof(real_files) / sizeof(real_files[0]); f++)
		for (size_t n = 0; n <= real_files[f].len; n++)
			if (!run_all(real_files[f].buf, n)) {
				printf("# %s cut at %zu\n", real_files[f].name, n);
				CHECK(0);
			}
}

/* Every real file with one byte replaced by NUL, '\n', ' ', ')' or 0xff. */
static void test_all_byte_flips(void)
{
	static const char subst[] = { '\0', '\n', ' ', ')', '(', ':', '9', '\xff' };
	char buf[4096];
	for (size_t f = 0; f < sizeof(real_files) / sizeof(real_files[0]); f++) {
		size_t len = real_files[f].len;
		CHECK(len <= sizeof(buf));
		for (size_t i = 0; i < len; i++)
			for (size_t k = 0; k < sizeof(subst); k++) {
				memcpy(buf, real_files[f].buf, len);
				buf[i] = subst[k];
				if (!run_all(buf, len)) {
					printf("# %s byte %zu -> %d\n", real_files[f].name, i,
					       subst[k]);
					CHECK(0);
				}
			}
	}
}

static void test_all_binary_garbage(void)
{
	char buf[512];
	uint64_t x = 0x9e3779b97f4a7c15ull;
	for (int round = 0; round < 2000; round++) {
		size_t len = (size_t)(round % (int)sizeof(buf));
		for (size_t i = 0; i < len; i++) {
			x ^= x << 13;
			x ^= x >> 7;
			x ^= x << 17;
			/* half the rounds: bytes a parser finds interesting */
			buf[i] = round & 1 ? (char)x : "0123456789 \n:()=.-kBmaxsome\t"[x % 29];
		}
		CHECK(run_all(buf, len));
	}
}

/* A real file fed to the wrong parser fails cleanly. */
static void test_wrong_parser(void)
{
	struct any_out o;
	CHECK_EQ_INT(do_memstat(S(memstat_61), &o.memstat), 0);
	CHECK_EQ_INT(do_meminfo(S(meminfo_61), &o.meminfo), 0);
	CHECK_EQ_INT(do_status(S(status_normal), &o.status), 0);
	CHECK_EQ_INT(do_memstat(S(meminfo_61), &o.memstat), -EBADMSG);
	CHECK_EQ_INT(do_meminfo(S(memstat_61), &o.meminfo), -EBADMSG);
	CHECK_EQ_INT(do_pressure(S(memevents_real), &o.pressure), -EBADMSG);
	CHECK_EQ_INT(do_status(S(meminfo_61), &o.status), -ENOENT);
	CHECK_EQ_INT(do_stat(S(status_normal), &o.stat), -EBADMSG);
	CHECK_EQ_INT(do_cgroup(S(procs_real), o.path, 64), -EBADMSG);
	CHECK_EQ_INT(do_pids(S(cgroup_v2), o.pids, 16), -EBADMSG);
	CHECK_EQ_INT(do_memevents(S(memstat_61), &o.memevents), 0);
}

int main(void)
{
	return tap_run((struct tap_test[]){
		TAP(test_int_basic),
		TAP(test_int_hostile),
		TAP(test_u64_basic),
		TAP(test_u64_hostile),
		TAP(test_limit),
		TAP(test_bool),
		TAP(test_bool_hostile),
		TAP(test_pids_basic),
		TAP(test_pids_empty),
		TAP(test_pids_cap),
		TAP(test_pids_hostile),
		TAP(test_has_controller),
		TAP(test_has_controller_hostile),
		TAP(test_all_empty),
		TAP(test_all_truncations),
		TAP(test_all_byte_flips),
		TAP(test_all_binary_garbage),
		TAP(test_wrong_parser),
		{ 0 },
	});
}
