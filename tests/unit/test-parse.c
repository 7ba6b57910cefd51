/* SPDX-License-Identifier: MIT */
/*
 * Parsers: real kernel files (Linux 6.1 unless noted) and hostile input.
 * Every input is handed to the parser in a buffer that ends exactly at a
 * PROT_NONE page, so a read past len faults even without ASan, and every
 * failing call is checked to leave its ret_ output untouched.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/mman.h>
#include <unistd.h>

#include "cgoom/parse.h"
#include "tap.h"

/* sizeof works for string literals and char arrays, NULs included */
#define S(lit) (lit), (sizeof(lit) - 1)

#define SENTINEL 0xA5
#define TOUCHED (-10000) /* a failing call wrote its output */

struct gbuf {
	char *p;
};

/* One mapping, reused: data pages followed by a PROT_NONE page. */
static void *guard_map;
static size_t guard_data_len;

/* n bytes of s, ending right before an inaccessible page. */
static struct gbuf gbuf_new(const char *s, size_t n)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	if (!guard_map || n > guard_data_len) {
		if (guard_map)
			munmap(guard_map, guard_data_len + page);
		guard_data_len = (n + page - 1) / page * page;
		if (guard_data_len < 16 * page)
			guard_data_len = 16 * page;
		guard_map = mmap(NULL, guard_data_len + page, PROT_READ | PROT_WRITE,
				 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (guard_map == MAP_FAILED ||
		    mprotect((char *)guard_map + guard_data_len, page, PROT_NONE) < 0)
			abort();
	}
	struct gbuf g = { .p = (char *)guard_map + guard_data_len - n };
	if (n)
		memcpy(g.p, s, n);
	return g;
}

static void gbuf_free(struct gbuf *g)
{
	/* scribble over the data, so a parser cannot keep pointers into it */
	memset(g->p - 16 < (char *)guard_map ? g->p : g->p - 16, 0x5a,
	       (size_t)((char *)guard_map + guard_data_len - g->p));
}

static bool all_sentinel(const void *p, size_t n)
{
	const unsigned char *c = p;
	for (size_t i = 0; i < n; i++)
		if (c[i] != SENTINEL)
			return false;
	return true;
}

#define DEFINE_DO(name, type, call)                                 \
	static int do_##name(const char *s, size_t n, type *out)    \
	{                                                           \
		struct gbuf g = gbuf_new(s, n);                     \
		const char *b = g.p;                                \
		memset(out, SENTINEL, sizeof(*out));                \
		int r = call;                                       \
		gbuf_free(&g);                                      \
		if (r < 0 && !all_sentinel(out, sizeof(*out)))      \
			return TOUCHED;                             \
		return r;                                           \
	}

DEFINE_DO(memstat, struct cgoom_memstat, cgoom_parse_memstat(b, n, out))
DEFINE_DO(memevents, struct cgoom_memevents, cgoom_parse_memevents(b, n, out))
DEFINE_DO(pressure, struct cgoom_pressure, cgoom_parse_pressure(b, n, out))
DEFINE_DO(meminfo, struct cgoom_meminfo, cgoom_parse_meminfo(b, n, out))
DEFINE_DO(sockstat, struct cgoom_sockstat, cgoom_parse_sockstat(b, n, out))
DEFINE_DO(status, struct cgoom_pid_status, cgoom_parse_pid_status(b, n, out))
DEFINE_DO(stat, struct cgoom_pid_stat, cgoom_parse_pid_stat(b, n, out))
DEFINE_DO(u64, uint64_t, cgoom_parse_u64(b, n, out))
DEFINE_DO(limit, uint64_t, cgoom_parse_limit(b, n, out))
DEFINE_DO(bool, bool, cgoom_parse_bool(b, n, out))

static int do_int(const char *s, size_t n, int64_t min, int64_t max, int64_t *out)
{
	struct gbuf g = gbuf_new(s, n);
	memset(out, SENTINEL, sizeof(*out));
	int r = cgoom_parse_int(g.p, n, min, max, out);
	gbuf_free(&g);
	if (r < 0 && !all_sentinel(out, sizeof(*out)))
		return TOUCHED;
	return r;
}

static int do_ctl(const char *s, size_t n, const char *name, bool *out)
{
	struct gbuf g = gbuf_new(s, n);
	memset(out, SENTINEL, sizeof(*out));
	int r = cgoom_parse_has_controller(g.p, n, name, out);
	gbuf_free(&g);
	if (r < 0 && !all_sentinel(out, sizeof(*out)))
		return TOUCHED;
	return r;
}

/* out has room for cap ints and one more, which must never be written */
static int do_pids(const char *s, size_t n, int *out, size_t cap)
{
	struct gbuf g = gbuf_new(s, n);
	memset(out, SENTINEL, (cap + 1) * sizeof(int));
	int r = cgoom_parse_pids(g.p, n, out, cap);
	gbuf_free(&g);
	if (!all_sentinel(out + cap, sizeof(int)))
		return TOUCHED;
	if (r < 0 && !all_sentinel(out, cap * sizeof(int)))
		return TOUCHED;
	return r;
}

static int do_cgroup(const char *s, size_t n, char *out, size_t cap)
{
	struct gbuf g = gbuf_new(s, n);
	memset(out, SENTINEL, cap + 1);
	int r = cgoom_parse_pid_cgroup(g.p, n, out, cap);
	gbuf_free(&g);
	if (!all_sentinel(out + cap, 1))
		return TOUCHED;
	if (r < 0 && !all_sentinel(out, cap))
		return TOUCHED;
	return r;
}

static bool is_documented_error(int r)
{
	return r == -EBADMSG || r == -ERANGE || r == -ENOENT || r == -ENAMETOOLONG;
}

/* ---- real files ---------------------------------------------------- */

static const char memstat_61[] =
	"anon 104857600\n"
	"file 52428800\n"
	"kernel 8388608\n"
	"kernel_stack 327680\n"
	"pagetables 1228800\n"
	"percpu 480\n"
	"sock 16384\n"
	"vmalloc 8192\n"
	"shmem 0\n"
	"zswap 0\n"
	"zswapped 0\n"
	"file_mapped 20971520\n"
	"file_dirty 4096\n"
	"file_writeback 0\n"
	"swapcached 0\n"
	"anon_thp 41943040\n"
	"file_thp 0\n"
	"shmem_thp 0\n"
	"inactive_anon 98304000\n"
	"active_anon 6553600\n"
	"inactive_file 31457280\n"
	"active_file 20971520\n"
	"unevictable 12288\n"
	"slab_reclaimable 2097152\n"
	"slab_unreclaimable 1048576\n"
	"slab 3145728\n"
	"workingset_refault_anon 0\n"
	"workingset_refault_file 17\n"
	"workingset_activate_anon 0\n"
	"workingset_activate_file 3\n"
	"workingset_restore_anon 0\n"
	"workingset_restore_file 0\n"
	"workingset_nodereclaim 0\n"
	"pgscan 0\n"
	"pgsteal 0\n"
	"pgscan_kswapd 0\n"
	"pgscan_direct 0\n"
	"pgsteal_kswapd 0\n"
	"pgsteal_direct 0\n"
	"pgfault 123456\n"
	"pgmajfault 12\n"
	"pgrefill 0\n"
	"pgactivate 2048\n"
	"pgdeactivate 0\n"
	"pglazyfree 0\n"
	"pglazyfreed 0\n"
	"zswpin 0\n"
	"zswpout 0\n"
	"thp_fault_alloc 20\n"
	"thp_collapse_alloc 0\n";

static const char memevents_real[] = "low 0\n"
				     "high 1024\n"
				     "max 77\n"
				     "oom 3\n"
				     "oom_kill 2\n"
				     "oom_group_kill 1\n";

static const char pressure_memcg[] = "some avg10=12.34 avg60=5.01 avg300=0.90 total=123456789\n"
				     "full avg10=100.00 avg60=0.00 avg300=0.00 total=42\n";

static const char pressure_proc_cpu_old[] = "some avg10=0.50 avg60=0.25 avg300=0.10 total=9876543\n";

static const char meminfo_61[] = "MemTotal:       24683664 kB\n"
				 "MemFree:        24161216 kB\n"
				 "MemAvailable:   24334060 kB\n"
				 "Buffers:            2484 kB\n"
				 "Cached:           352220 kB\n"
				 "SwapCached:            0 kB\n"
				 "Active:           170992 kB\n"
				 "Inactive:         182600 kB\n"
				 "Active(anon):       1544 kB\n"
				 "Inactive(anon):     6912 kB\n"
				 "Active(file):     169448 kB\n"
				 "Inactive(file):   175688 kB\n"
				 "Unevictable:       13448 kB\n"
				 "Mlocked:           12244 kB\n"
				 "SwapTotal:       8388604 kB\n"
				 "SwapFree:        8000000 kB\n"
				 "Zswap:                 0 kB\n"
				 "Zswapped:              0 kB\n"
				 "Dirty:               100 kB\n"
				 "Writeback:             0 kB\n"
				 "AnonPages:         12336 kB\n"
				 "Mapped:            11244 kB\n"
				 "Shmem:              9568 kB\n"
				 "KReclaimable:      71772 kB\n"
				 "Slab:              95228 kB\n"
				 "SReclaimable:      71772 kB\n"
				 "SUnreclaim:        23456 kB\n"
				 "KernelStack:        1524 kB\n"
				 "PageTables:         1480 kB\n"
				 "NFS_Unstable:          0 kB\n"
				 "Bounce:                0 kB\n"
				 "WritebackTmp:          0 kB\n"
				 "CommitLimit:    12341832 kB\n"
				 "Committed_AS:      63004 kB\n"
				 "VmallocTotal:   34359738367 kB\n"
				 "VmallocUsed:       14284 kB\n"
				 "VmallocChunk:          0 kB\n"
				 "Percpu:              744 kB\n"
				 "HardwareCorrupted:     0 kB\n"
				 "AnonHugePages:         0 kB\n"
				 "ShmemHugePages:        0 kB\n"
				 "ShmemPmdMapped:        0 kB\n"
				 "FileHugePages:         0 kB\n"
				 "FilePmdMapped:         0 kB\n"
				 "HugePages_Total:       0\n"
				 "HugePages_Free:        0\n"
				 "HugePages_Rsvd:        0\n"
				 "HugePages_Surp:        0\n"
				 "Hugepagesize:       2048 kB\n"
				 "Hugetlb:               0 kB\n"
				 "DirectMap4k:       28672 kB\n"
				 "DirectMap2M:     2068480 kB\n"
				 "DirectMap1G:    25165824 kB\n";

static const char sockstat_real[] = "sockets: used 100\n"
				    "TCP: inuse 3 orphan 0 tw 0 alloc 5 mem 2\n"
				    "UDP: inuse 1 mem 1\n"
				    "UDPLITE: inuse 0\n"
				    "RAW: inuse 0\n"
				    "FRAG: inuse 0 memory 0\n";

static const char status_normal[] = "Name:\tbash\n"
				    "Umask:\t0022\n"
				    "State:\tS (sleeping)\n"
				    "Tgid:\t4242\n"
				    "Ngid:\t0\n"
				    "Pid:\t4242\n"
				    "PPid:\t4200\n"
				    "TracerPid:\t0\n"
				    "Uid:\t1000\t1001\t1002\t1003\n"
				    "Gid:\t1000\t1000\t1000\t1000\n"
				    "FDSize:\t256\n"
				    "Groups:\t4 24 27 1000 \n"
				    "NStgid:\t4242\n"
				    "NSpid:\t4242\n"
				    "NSpgid:\t4242\n"
				    "NSsid:\t4242\n"
				    "VmPeak:\t   10240 kB\n"
				    "VmSize:\t   10240 kB\n"
				    "VmLck:\t       0 kB\n"
				    "VmPin:\t       0 kB\n"
				    "VmHWM:\t    5120 kB\n"
				    "VmRSS:\t    5000 kB\n"
				    "RssAnon:\t    1500 kB\n"
				    "RssFile:\t    3500 kB\n"
				    "RssShmem:\t       0 kB\n"
				    "VmData:\t    1200 kB\n"
				    "VmStk:\t     132 kB\n"
				    "VmExe:\t     900 kB\n"
				    "VmLib:\t    2000 kB\n"
				    "VmPTE:\t      56 kB\n"
				    "VmSwap:\t     300 kB\n"
				    "HugetlbPages:\t       0 kB\n"
				    "CoreDumping:\t0\n"
				    "THP_enabled:\t1\n"
				    "Threads:\t1\n"
				    "SigQ:\t0/62811\n"
				    "SigPnd:\t0000000000000000\n"
				    "ShdPnd:\t0000000000000000\n"
				    "SigBlk:\t0000000000010000\n"
				    "SigIgn:\t0000000000380004\n"
				    "SigCgt:\t000000004b817efb\n"
				    "CapInh:\t0000000000000000\n"
				    "CapPrm:\t0000000000000000\n"
				    "CapEff:\t0000000000000000\n"
				    "CapBnd:\t000001ffffffffff\n"
				    "CapAmb:\t0000000000000000\n"
				    "NoNewPrivs:\t0\n"
				    "Seccomp:\t0\n"
				    "Seccomp_filters:\t0\n"
				    "Speculation_Store_Bypass:\tthread vulnerable\n"
				    "SpeculationIndirectBranch:\tconditional enabled\n"
				    "Cpus_allowed:\tff\n"
				    "Cpus_allowed_list:\t0-7\n"
				    "Mems_allowed:\t00000000,00000001\n"
				    "Mems_allowed_list:\t0\n"
				    "voluntary_ctxt_switches:\t150\n"
				    "nonvoluntary_ctxt_switches:\t5\n";

/* a 6.x kernel thread: no Vm* lines, Kthread: 1 */
static const char status_kthread[] = "Name:\tkthreadd\n"
				     "Umask:\t0000\n"
				     "State:\tS (sleeping)\n"
				     "Tgid:\t2\n"
				     "Ngid:\t0\n"
				     "Pid:\t2\n"
				     "PPid:\t0\n"
				     "TracerPid:\t0\n"
				     "Uid:\t0\t0\t0\t0\n"
				     "Gid:\t0\t0\t0\t0\n"
				     "FDSize:\t64\n"
				     "Groups:\t \n"
				     "NStgid:\t2\n"
				     "NSpid:\t2\n"
				     "NSpgid:\t0\n"
				     "NSsid:\t0\n"
				     "Kthread:\t1\n"
				     "Threads:\t1\n"
				     "SigQ:\t0/96362\n"
				     "SigPnd:\t0000000000000000\n"
				     "Cpus_allowed:\t3\n"
				     "Cpus_allowed_list:\t0-1\n"
				     "voluntary_ctxt_switches:\t283\n"
				     "nonvoluntary_ctxt_switches:\t0\n";

static const char status_zombie[] = "Name:\tdefunct-child\n"
				    "Umask:\t0022\n"
				    "State:\tZ (zombie)\n"
				    "Tgid:\t5150\n"
				    "Ngid:\t0\n"
				    "Pid:\t5150\n"
				    "PPid:\t5100\n"
				    "TracerPid:\t0\n"
				    "Uid:\t1000\t1000\t1000\t1000\n"
				    "Gid:\t1000\t1000\t1000\t1000\n"
				    "FDSize:\t0\n"
				    "Groups:\t1000 \n"
				    "NStgid:\t5150\n"
				    "NSpid:\t5150\n"
				    "NSpgid:\t5100\n"
				    "NSsid:\t4000\n"
				    "Threads:\t1\n"
				    "SigQ:\t0/62811\n"
				    "SigPnd:\t0000000000000000\n"
				    "CoreDumping:\t0\n"
				    "voluntary_ctxt_switches:\t1\n"
				    "nonvoluntary_ctxt_switches:\t0\n";

static const char stat_normal[] =
	"8123 (cat) R 8119 8119 4749 0 -1 4194304 101 0 0 0 0 0 0 0 20 0 1 0 69469 3133440 414 "
	"18446744073709551615 94722729623552 94722729643433 140728118366736 0 0 0 0 0 0 0 0 0 "
	"17 0 0 0 0 0 0 94722729659440 94722729661056 94722875117568 140728118373003 "
	"140728118373023 140728118373023 140728118374379 0\n";

static const char stat_kthread[] =
	"2 (kthreadd) S 0 0 0 0 -1 2129984 0 0 0 0 0 0 0 0 20 0 1 0 25 0 0 18446744073709551615 "
	"0 0 0 0 0 0 0 2147483647 0 1 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0\n";

/* the fields after comm, from state to rss and a few more */
#define STAT_TAIL " S 1 77 77 0 -1 4194560 5 0 0 0 1 2 0 0 20 0 1 0 999 4096 321 18446744073709551615\n"

static const char cgroup_v2[] = "0::/user.slice/user-1000.slice/session-2.scope\n";

static const char cgroup_hybrid[] = "12:devices:/user.slice\n"
				    "11:memory:/user.slice/user-1000.slice/session-2.scope\n"
				    "10:cpu,cpuacct:/user.slice\n"
				    "9:pids:/user.slice/user-1000.slice/session-2.scope\n"
				    "8:net_cls,net_prio:/\n"
				    "7:freezer:/\n"
				    "6:blkio:/user.slice\n"
				    "5:perf_event:/\n"
				    "4:hugetlb:/\n"
				    "3:rdma:/\n"
				    "2:cpuset:/\n"
				    "1:name=systemd:/user.slice/user-1000.slice/session-2.scope\n"
				    "0::/user.slice/user-1000.slice/session-2.scope\n";

static const char procs_real[] = "1\n245\n4194304\n31337\n";

static const char controllers_real[] = "cpuset cpu io memory hugetlb pids rdma misc\n";

/* ---- scalars -------------------------------------------------------- */

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

static void test_memstat_real_61(void)
{
	struct cgoom_memstat m;
	CHECK_EQ_INT(do_memstat(S(memstat_61), &m), 0);
	CHECK_EQ_U64(m.anon, 104857600);
	CHECK_EQ_U64(m.file, 52428800);
	CHECK_EQ_U64(m.kernel_stack, 327680);
	CHECK_EQ_U64(m.sock, 16384);
	CHECK_EQ_U64(m.slab_unreclaimable, 1048576);
	CHECK_EQ_U64(m.active_anon, 6553600);
	CHECK_EQ_U64(m.inactive_anon, 98304000);
	CHECK_EQ_U64(m.unevictable, 12288);
	CHECK_EQ_INT(m.present, 0xff);
}

static void test_memstat_minimal(void)
{
	/* only the footprint keys, in another order, no trailing newline */
	struct cgoom_memstat m;
	CHECK_EQ_INT(do_memstat(S("sock 1\ninactive_anon 2\nactive_anon 3\n"
				  "slab_unreclaimable 4\nkernel_stack 5"),
				&m),
		     0);
	CHECK_EQ_INT(m.present, CGOOM_MEMSTAT_FOOTPRINT_KEYS);
	CHECK_EQ_U64(m.kernel_stack, 5);
	CHECK_EQ_U64(m.anon, 0);
	CHECK_EQ_U64(m.file, 0);
}

static void test_memstat_missing_key(void)
{
	struct cgoom_memstat m;
	CHECK_EQ_INT(do_memstat(S(""), &m), -ENOENT);
	CHECK_EQ_INT(do_memstat(S("anon 1\nfile 2\n"), &m), -ENOENT);
	CHECK_EQ_INT(do_memstat(S("sock 1\ninactive_anon 2\nactive_anon 3\n"
				  "slab_unreclaimable 4\n"),
				&m),
		     -ENOENT);
	/* a key is matched whole: "kernel_stackx" is not kernel_stack */
	CHECK_EQ_INT(do_memstat(S("sock 1\ninactive_anon 2\nactive_anon 3\n"
				  "slab_unreclaimable 4\nkernel_stackx 5\n"),
				&m),
		     -ENOENT);
	CHECK_EQ_INT(cgoom_parse_memstat(NULL, 0, &m), -ENOENT);
}

static void test_memstat_duplicate(void)
{
	struct cgoom_memstat m;
	char buf[sizeof(memstat_61) + 64];
	memcpy(buf, memstat_61, sizeof(memstat_61) - 1);
	memcpy(buf + sizeof(memstat_61) - 1, "sock 5\n", 7);
	CHECK_EQ_INT(do_memstat(buf, sizeof(memstat_61) - 1 + 7, &m), -EBADMSG);
	/* an unknown key repeated does not matter */
	memcpy(buf + sizeof(memstat_61) - 1, "pgfault 5\n", 10);
	CHECK_EQ_INT(do_memstat(buf, sizeof(memstat_61) - 1 + 10, &m), 0);
}

static void test_memstat_malformed(void)
{
	static const char *const bad_lines[] = {
		"pgfault\n",     "pgfault 1 2\n", "pgfault -1\n", "pgfault 0x10\n",
		"pgfault 1.5\n", "pgfault +1\n",  "\n",           "pgfault 12a\n",
		" \n",
	};
	struct cgoom_memstat m;
	char buf[sizeof(memstat_61) + 64];
	for (size_t i = 0; i < sizeof(bad_lines) / sizeof(bad_lines[0]); i++) {
		size_t l = strlen(bad_lines[i]);
		memcpy(buf, bad_lines[i], l);
		memcpy(buf + l, memstat_61, sizeof(memstat_61) - 1);
		CHECK_EQ_INT(do_memstat(buf, l + sizeof(memstat_61) - 1, &m), -EBADMSG);
	}
	/* embedded NUL inside a value, and inside a key of the last line */
	CHECK_EQ_INT(do_memstat(S("sock 1\ninactive_anon 2\nactive_anon 3\n"
				  "slab_unreclaimable 4\nkernel_stack 5\0\n"),
				&m),
		     -EBADMSG);
	CHECK_EQ_INT(do_memstat(S("sock 1\ninactive_anon 2\nactive_anon 3\n"
				  "slab_unreclaimable 4\nkernel_st\0ck 5\n"),
				&m),
		     -ENOENT);
}

static void test_memstat_overflow(void)
{
	struct cgoom_memstat m;
	CHECK_EQ_INT(do_memstat(S("sock 18446744073709551615\ninactive_anon 2\nactive_anon 3\n"
				  "slab_unreclaimable 4\nkernel_stack 5\n"),
				&m),
		     0);
	CHECK_EQ_U64(m.sock, UINT64_MAX);
	CHECK_EQ_INT(do_memstat(S("sock 18446744073709551616\ninactive_anon 2\nactive_anon 3\n"
				  "slab_unreclaimable 4\nkernel_stack 5\n"),
				&m),
		     -ERANGE);
	/* an unknown key's value must be a u64 too */
	CHECK_EQ_INT(do_memstat(S("sock 1\ninactive_anon 2\nactive_anon 3\n"
				  "slab_unreclaimable 4\nkernel_stack 5\n"
				  "pgfault 1000000000000000000000000\n"),
				&m),
		     -ERANGE);
}

static void test_memstat_long_line(void)
{
	/* a 100 kB key, then the real file */
	size_t klen = 100000, n = klen + 3 + sizeof(memstat_61) - 1;
	char *buf = malloc(n);
	CHECK(buf);
	memset(buf, 'k', klen);
	memcpy(buf + klen, " 1\n", 3);
	memcpy(buf + klen + 3, memstat_61, sizeof(memstat_61) - 1);
	struct cgoom_memstat m;
	int r = do_memstat(buf, n, &m);
	/* and a 100 kB number */
	memset(buf, '0', klen);
	memcpy(buf, "x ", 2);
	buf[klen - 1] = '7';
	memcpy(buf + klen, "  \n", 3);
	int r2 = do_memstat(buf, n, &m);
	free(buf);
	CHECK_EQ_INT(r, 0);
	CHECK_EQ_INT(r2, 0);
}

/* ---- memory.events -------------------------------------------------- */

static void test_memevents_real(void)
{
	struct cgoom_memevents e;
	CHECK_EQ_INT(do_memevents(S(memevents_real), &e), 0);
	CHECK_EQ_U64(e.low, 0);
	CHECK_EQ_U64(e.high, 1024);
	CHECK_EQ_U64(e.max, 77);
	CHECK_EQ_U64(e.oom, 3);
	CHECK_EQ_U64(e.oom_kill, 2);
	CHECK_EQ_U64(e.oom_group_kill, 1);
	CHECK_EQ_INT(e.present, 0x3f);
}

static void test_memevents_missing(void)
{
	struct cgoom_memevents e;
	/* 5.4: no oom_group_kill */
	CHECK_EQ_INT(do_memevents(S("low 0\nhigh 0\nmax 5\noom 1\noom_kill 1\n"), &e), 0);
	CHECK_EQ_U64(e.oom_group_kill, 0);
	CHECK_EQ_U64(e.max, 5);
	CHECK(!(e.present & CGOOM_MEMEVENTS_OOM_GROUP_KILL));
	CHECK_EQ_INT(do_memevents(S(""), &e), 0);
	CHECK_EQ_INT(e.present, 0);
	CHECK_EQ_U64(e.oom_kill, 0);
	/* unknown keys ignored, no trailing newline */
	CHECK_EQ_INT(do_memevents(S("sock_throttled 9\noom_kill 4"), &e), 0);
	CHECK_EQ_U64(e.oom_kill, 4);
	CHECK_EQ_INT(e.present, CGOOM_MEMEVENTS_OOM_KILL);
}

static void test_memevents_hostile(void)
{
	struct cgoom_memevents e;
	CHECK_EQ_INT(do_memevents(S("oom 1\noom 2\n"), &e), -EBADMSG);
	CHECK_EQ_INT(do_memevents(S("oom -1\n"), &e), -EBADMSG);
	CHECK_EQ_INT(do_memevents(S("oom\n"), &e), -EBADMSG);
	CHECK_EQ_INT(do_memevents(S("oom 1 1\n"), &e), -EBADMSG);
	CHECK_EQ_INT(do_memevents(S("oom 1\n\n"), &e), -EBADMSG);
	CHECK_EQ_INT(do_memevents(S("oom 1\0\n"), &e), -EBADMSG);
	CHECK_EQ_INT(do_memevents(S("max 99999999999999999999\n"), &e), -ERANGE);
	CHECK_EQ_INT(do_memevents(S("\x7f\x45\x4c\x46\x02\x01\x01"), &e), -EBADMSG);
}

/* ---- PSI ------------------------------------------------------------ */

static void test_pressure_memcg(void)
{
	struct cgoom_pressure p;
	CHECK_EQ_INT(do_pressure(S(pressure_memcg), &p), 0);
	CHECK(p.some.present);
	CHECK_EQ_INT(p.some.avg10, 1234);
	CHECK_EQ_INT(p.some.avg60, 501);
	CHECK_EQ_INT(p.some.avg300, 90);
	CHECK_EQ_U64(p.some.total_us, 123456789);
	CHECK(p.full.present);
	CHECK_EQ_INT(p.full.avg10, 10000);
	CHECK_EQ_INT(p.full.avg60, 0);
	CHECK_EQ_U64(p.full.total_us, 42);
}

static void test_pressure_no_full(void)
{
	struct cgoom_pressure p;
	CHECK_EQ_INT(do_pressure(S(pressure_proc_cpu_old), &p), 0);
	CHECK(p.some.present);
	CHECK_EQ_INT(p.some.avg10, 50);
	CHECK_EQ_INT(p.some.avg60, 25);
	CHECK_EQ_INT(p.some.avg300, 10);
	CHECK(!p.full.present);
	CHECK_EQ_INT(p.full.avg10, 0);
	CHECK_EQ_U64(p.full.total_us, 0);
	/* /proc/pressure/memory of an idle box, no trailing newline */
	CHECK_EQ_INT(do_pressure(S("some avg10=0.00 avg60=0.00 avg300=0.00 total=0\n"
				   "full avg10=0.00 avg60=0.00 avg300=0.00 total=0"),
				 &p),
		     0);
	CHECK(p.full.present);
	/* full first, fields in another order, one fraction digit */
	CHECK_EQ_INT(do_pressure(S("full total=1 avg300=0.1 avg60=2 avg10=3.5\n"
				   "some avg10=0.01 avg60=0.00 avg300=0.00 total=18446744073709551615\n"),
				 &p),
		     0);
	CHECK_EQ_INT(p.full.avg10, 350);
	CHECK_EQ_INT(p.full.avg60, 200);
	CHECK_EQ_INT(p.full.avg300, 10);
	CHECK_EQ_INT(p.some.avg10, 1);
	CHECK_EQ_U64(p.some.total_us, UINT64_MAX);
}

static void test_pressure_hostile(void)
{
	struct cgoom_pressure p;
	CHECK_EQ_INT(do_pressure(S(""), &p), -ENOENT);
	CHECK_EQ_INT(do_pressure(S("full avg10=0.00 avg60=0.00 avg300=0.00 total=0\n"), &p),
		     -ENOENT);
	CHECK_EQ_INT(do_pressure(S("some avg10=0.00 avg60=0.00 avg300=0.00 total=0\n"
				   "some avg10=0.00 avg60=0.00 avg300=0.00 total=0\n"),
				 &p),
		     -EBADMSG);
	CHECK_EQ_INT(do_pressure(S("some avg10=0.00 avg60=0.00 total=0\n"), &p), -EBADMSG);
	CHECK_EQ_INT(do_pressure(S("some avg10=0.00 avg10=0.00 avg60=0.00 avg300=0.00 total=0\n"),
				 &p),
		     -EBADMSG);
	CHECK_EQ_INT(do_pressure(S("some avg10=0.123 avg60=0.00 avg300=0.00 total=0\n"), &p),
		     -EBADMSG);
	CHECK_EQ_INT(do_pressure(S("some avg10=.12 avg60=0.00 avg300=0.00 total=0\n"), &p),
		     -EBADMSG);
	CHECK_EQ_INT(do_pressure(S("some avg10=1. avg60=0.00 avg300=0.00 total=0\n"), &p),
		     -EBADMSG);
	CHECK_EQ_INT(do_pressure(S("some avg10=-1.00 avg60=0.00 avg300=0.00 total=0\n"), &p),
		     -EBADMSG);
	CHECK_EQ_INT(do_pressure(S("some avg10=1.0.0 avg60=0.00 avg300=0.00 total=0\n"), &p),
		     -EBADMSG);
	CHECK_EQ_INT(do_pressure(S("some avg10= avg60=0.00 avg300=0.00 total=0\n"), &p),
		     -EBADMSG);
	CHECK_EQ_INT(do_pressure(S("some avg10=0.00 avg60=0.00 avg300=0.00 total=0 x=1\n"), &p),
		     -EBADMSG);
	CHECK_EQ_INT(do_pressure(S("some avg10=0.00 avg60=0.00 avg300=0.00 total\n"), &p),
		     -EBADMSG);
	CHECK_EQ_INT(do_pressure(S("sOme avg10=0.00 avg60=0.00 avg300=0.00 total=0\n"), &p),
		     -EBADMSG);
	CHECK_EQ_INT(do_pressure(S("some avg10=0.00 avg60=0.00 avg300=0.00 total=0\n\n"), &p),
		     -EBADMSG);
	CHECK_EQ_INT(do_pressure(S("some avg10=0.00 avg60=0.00 avg300=0.00 total=0\0"), &p),
		     -EBADMSG);
	/* 42949672.96 % does not fit in u32 hundredths; .95 does */
	CHECK_EQ_INT(do_pressure(S("some avg10=42949672.96 avg60=0 avg300=0 total=0\n"), &p),
		     -ERANGE);
	CHECK_EQ_INT(do_pressure(S("some avg10=42949672.95 avg60=0 avg300=0 total=0\n"), &p), 0);
	CHECK_EQ_INT(p.some.avg10, UINT32_MAX);
	CHECK_EQ_INT(do_pressure(S("some avg10=0 avg60=0 avg300=0 total=18446744073709551616\n"),
				 &p),
		     -ERANGE);
}

/* ---- /proc/meminfo -------------------------------------------------- */

static void test_meminfo_real(void)
{
	struct cgoom_meminfo mi;
	CHECK_EQ_INT(do_meminfo(S(meminfo_61), &mi), 0);
	CHECK_EQ_U64(mi.mem_total, 24683664ull * 1024);
	CHECK_EQ_U64(mi.mem_free, 24161216ull * 1024);
	CHECK_EQ_U64(mi.mem_available, 24334060ull * 1024);
	CHECK_EQ_U64(mi.swap_total, 8388604ull * 1024);
	CHECK_EQ_U64(mi.swap_free, 8000000ull * 1024);
	CHECK_EQ_U64(mi.active_anon, 1544ull * 1024);
	CHECK_EQ_U64(mi.inactive_anon, 6912ull * 1024);
	CHECK_EQ_U64(mi.sunreclaim, 23456ull * 1024);
	CHECK_EQ_U64(mi.kernel_stack, 1524ull * 1024);
	CHECK_EQ_INT(mi.present, 0x1ff);
}

static void test_meminfo_minimal(void)
{
	struct cgoom_meminfo mi;
	CHECK_EQ_INT(do_meminfo(S("MemTotal: 1 kB"), &mi), 0);
	CHECK_EQ_U64(mi.mem_total, 1024);
	CHECK_EQ_INT(mi.present, CGOOM_MEMINFO_MEM_TOTAL);
	CHECK_EQ_U64(mi.swap_total, 0);
	CHECK_EQ_INT(do_meminfo(S("MemTotal:\t16 kB  \n"), &mi), 0);
	CHECK_EQ_U64(mi.mem_total, 16384);
	/* an unknown key with no unit */
	CHECK_EQ_INT(do_meminfo(S("HugePages_Total:   7\nMemTotal: 2 kB\n"), &mi), 0);
	CHECK_EQ_U64(mi.mem_total, 2048);
}

static void test_meminfo_missing(void)
{
	struct cgoom_meminfo mi;
	CHECK_EQ_INT(do_meminfo(S(""), &mi), -ENOENT);
	CHECK_EQ_INT(do_meminfo(S("MemFree: 5 kB\nSwapTotal: 0 kB\n"), &mi), -ENOENT);
	CHECK_EQ_INT(do_meminfo(S("MemTotalx: 5 kB\n"), &mi), -ENOENT);
	CHECK_EQ_INT(do_meminfo(S("memtotal: 5 kB\n"), &mi), -ENOENT);
}

static void test_meminfo_saturate(void)
{
	struct cgoom_meminfo mi;
	/* the kB figure fits in u64, its bytes do not: saturate */
	CHECK_EQ_INT(do_meminfo(S("MemTotal: 18446744073709551615 kB\n"
				  "SwapTotal: 18014398509481984 kB\n"
				  "SwapFree: 18014398509481983 kB\n"),
				&mi),
		     0);
	CHECK_EQ_U64(mi.mem_total, UINT64_MAX);
	CHECK_EQ_U64(mi.swap_total, UINT64_MAX);
	CHECK_EQ_U64(mi.swap_free, 18014398509481983ull * 1024);
	/* the kB figure itself overflows */
	CHECK_EQ_INT(do_meminfo(S("MemTotal: 18446744073709551616 kB\n"), &mi), -ERANGE);
}

static void test_meminfo_hostile(void)
{
	struct cgoom_meminfo mi;
	CHECK_EQ_INT(do_meminfo(S("MemTotal: 5 MB\n"), &mi), -EBADMSG);
	CHECK_EQ_INT(do_meminfo(S("MemTotal: 5\n"), &mi), -EBADMSG);
	CHECK_EQ_INT(do_meminfo(S("MemTotal: kB\n"), &mi), -EBADMSG);
	CHECK_EQ_INT(do_meminfo(S("MemTotal:\n"), &mi), -EBADMSG);
	CHECK_EQ_INT(do_meminfo(S("MemTotal: 5 kB kB\n"), &mi), -EBADMSG);
	CHECK_EQ_INT(do_meminfo(S("MemTotal: -5 kB\n"), &mi), -EBADMSG);
	CHECK_EQ_INT(do_meminfo(S("MemTotal 5 kB\n"), &mi), -EBADMSG);
	CHECK_EQ_INT(do_meminfo(S(": 5 kB\nMemTotal: 5 kB\n"), &mi), -EBADMSG);
	CHECK_EQ_INT(do_meminfo(S("MemTotal: 5 kB\n\n"), &mi), -EBADMSG);
	CHECK_EQ_INT(do_meminfo(S("MemTotal: 5 kB\nMemTotal: 6 kB\n"), &mi), -EBADMSG);
	CHECK_EQ_INT(do_meminfo(S("MemTotal: 5 k\0B\n"), &mi), -EBADMSG);
	CHECK_EQ_INT(do_meminfo(S("MemTotal: 5 kB\nFoo: bar\n"), &mi), -EBADMSG);
	CHECK_EQ_INT(do_meminfo(S("MemTotal: 5 kB\nFoo: 99999999999999999999999\n"), &mi),
		     -ERANGE);
}

/* ---- /proc/net/sockstat --------------------------------------------- */

static void test_sockstat_real(void)
{
	struct cgoom_sockstat ss;
	CHECK_EQ_INT(do_sockstat(S(sockstat_real), &ss), 0);
	CHECK_EQ_U64(ss.tcp_mem_pages, 2);
	CHECK_EQ_U64(ss.udp_mem_pages, 1);
	CHECK_EQ_INT(do_sockstat(S("TCP: inuse 1 orphan 0 tw 0 alloc 1 mem 201"), &ss), 0);
	CHECK_EQ_U64(ss.tcp_mem_pages, 201);
	CHECK_EQ_U64(ss.udp_mem_pages, 0);
}

static void test_sockstat_missing(void)
{
	struct cgoom_sockstat ss;
	CHECK_EQ_INT(do_sockstat(S(""), &ss), 0);
	CHECK_EQ_U64(ss.tcp_mem_pages, 0);
	CHECK_EQ_U64(ss.udp_mem_pages, 0);
	/* UDPLITE: and FRAG: are not UDP: */
	CHECK_EQ_INT(do_sockstat(S("UDPLITE: inuse 0 mem 9\nFRAG: inuse 0 memory 7\n"), &ss), 0);
	CHECK_EQ_U64(ss.udp_mem_pages, 0);
	CHECK_EQ_INT(do_sockstat(S("sockets: used 5\nUDP: inuse 2 mem 18446744073709551615\n"),
				 &ss),
		     0);
	CHECK_EQ_U64(ss.udp_mem_pages, UINT64_MAX);
}

static void test_sockstat_hostile(void)
{
	struct cgoom_sockstat ss;
	CHECK_EQ_INT(do_sockstat(S("TCP: inuse 3 orphan 0 tw 0 alloc 5\n"), &ss), -EBADMSG);
	CHECK_EQ_INT(do_sockstat(S("TCP: inuse 3 mem\n"), &ss), -EBADMSG);
	CHECK_EQ_INT(do_sockstat(S("TCP: inuse 3 mem x\n"), &ss), -EBADMSG);
	CHECK_EQ_INT(do_sockstat(S("TCP: inuse 3 mem -2\n"), &ss), -EBADMSG);
	CHECK_EQ_INT(do_sockstat(S("TCP: inuse 3 mem 1 mem 2\n"), &ss), -EBADMSG);
	CHECK_EQ_INT(do_sockstat(S("UDP: inuse 1 mem 1\nUDP: inuse 1 mem 1\n"), &ss), -EBADMSG);
	CHECK_EQ_INT(do_sockstat(S("TCP: inuse 3 mem 2\0\n"), &ss), -EBADMSG);
	CHECK_EQ_INT(do_sockstat(S("TCP: inuse 3 mem 99999999999999999999\n"), &ss), -ERANGE);
	/* truncated mid-line */
	CHECK_EQ_INT(do_sockstat(S("TCP: inuse 3 orphan 0 tw 0 al"), &ss), -EBADMSG);
}

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
		TAP(test_memstat_real_61),
		TAP(test_memstat_minimal),
		TAP(test_memstat_missing_key),
		TAP(test_memstat_duplicate),
		TAP(test_memstat_malformed),
		TAP(test_memstat_overflow),
		TAP(test_memstat_long_line),
		TAP(test_memevents_real),
		TAP(test_memevents_missing),
		TAP(test_memevents_hostile),
		TAP(test_pressure_memcg),
		TAP(test_pressure_no_full),
		TAP(test_pressure_hostile),
		TAP(test_meminfo_real),
		TAP(test_meminfo_minimal),
		TAP(test_meminfo_missing),
		TAP(test_meminfo_saturate),
		TAP(test_meminfo_hostile),
		TAP(test_sockstat_real),
		TAP(test_sockstat_missing),
		TAP(test_sockstat_hostile),
		TAP(test_status_normal),
		TAP(test_status_kthread),
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
		TAP(test_all_empty),
		TAP(test_all_truncations),
		TAP(test_all_byte_flips),
		TAP(test_all_binary_garbage),
		TAP(test_wrong_parser),
		{ 0 },
	});
}
