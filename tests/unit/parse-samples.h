/* SPDX-License-Identifier: MIT */
#pragma once
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

#define UNUSED __attribute__((unused))

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
static inline struct gbuf gbuf_new(const char *s, size_t n)
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

static inline void gbuf_free(struct gbuf *g)
{
	/* scribble over the data, so a parser cannot keep pointers into it */
	memset(g->p - 16 < (char *)guard_map ? g->p : g->p - 16, 0x5a,
	       (size_t)((char *)guard_map + guard_data_len - g->p));
}

static inline bool all_sentinel(const void *p, size_t n)
{
	const unsigned char *c = p;
	for (size_t i = 0; i < n; i++)
		if (c[i] != SENTINEL)
			return false;
	return true;
}

#define DEFINE_DO(name, type, call)                                 \
	static inline int do_##name(const char *s, size_t n, type *out) \
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

static inline int do_int(const char *s, size_t n, int64_t min, int64_t max, int64_t *out)
{
	struct gbuf g = gbuf_new(s, n);
	memset(out, SENTINEL, sizeof(*out));
	int r = cgoom_parse_int(g.p, n, min, max, out);
	gbuf_free(&g);
	if (r < 0 && !all_sentinel(out, sizeof(*out)))
		return TOUCHED;
	return r;
}

static inline int do_ctl(const char *s, size_t n, const char *name, bool *out)
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
static inline int do_pids(const char *s, size_t n, int *out, size_t cap)
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

static inline int do_cgroup(const char *s, size_t n, char *out, size_t cap)
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

static inline bool is_documented_error(int r)
{
	return r == -EBADMSG || r == -ERANGE || r == -ENOENT || r == -ENAMETOOLONG;
}

/* ---- real files ---------------------------------------------------- */

UNUSED static const char memstat_61[] =
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

UNUSED static const char memevents_real[] = "low 0\n"
				     "high 1024\n"
				     "max 77\n"
				     "oom 3\n"
				     "oom_kill 2\n"
				     "oom_group_kill 1\n";

UNUSED static const char pressure_memcg[] = "some avg10=12.34 avg60=5.01 avg300=0.90 total=123456789\n"
				     "full avg10=100.00 avg60=0.00 avg300=0.00 total=42\n";

UNUSED static const char pressure_proc_cpu_old[] = "some avg10=0.50 avg60=0.25 avg300=0.10 total=9876543\n";

UNUSED static const char meminfo_61[] = "MemTotal:       24683664 kB\n"
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

UNUSED static const char sockstat_real[] = "sockets: used 100\n"
				    "TCP: inuse 3 orphan 0 tw 0 alloc 5 mem 2\n"
				    "UDP: inuse 1 mem 1\n"
				    "UDPLITE: inuse 0\n"
				    "RAW: inuse 0\n"
				    "FRAG: inuse 0 memory 0\n";

UNUSED static const char status_normal[] = "Name:\tbash\n"
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
UNUSED static const char status_kthread[] = "Name:\tkthreadd\n"
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

UNUSED static const char status_zombie[] = "Name:\tdefunct-child\n"
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

UNUSED static const char stat_normal[] =
	"8123 (cat) R 8119 8119 4749 0 -1 4194304 101 0 0 0 0 0 0 0 20 0 1 0 69469 3133440 414 "
	"18446744073709551615 94722729623552 94722729643433 140728118366736 0 0 0 0 0 0 0 0 0 "
	"17 0 0 0 0 0 0 94722729659440 94722729661056 94722875117568 140728118373003 "
	"140728118373023 140728118373023 140728118374379 0\n";

UNUSED static const char stat_kthread[] =
	"2 (kthreadd) S 0 0 0 0 -1 2129984 0 0 0 0 0 0 0 0 20 0 1 0 25 0 0 18446744073709551615 "
	"0 0 0 0 0 0 0 2147483647 0 1 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0\n";

/* the fields after comm, from state to rss and a few more */
#define STAT_TAIL " S 1 77 77 0 -1 4194560 5 0 0 0 1 2 0 0 20 0 1 0 999 4096 321 18446744073709551615\n"

UNUSED static const char cgroup_v2[] = "0::/user.slice/user-1000.slice/session-2.scope\n";

UNUSED static const char cgroup_hybrid[] = "12:devices:/user.slice\n"
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

UNUSED static const char procs_real[] = "1\n245\n4194304\n31337\n";

UNUSED static const char controllers_real[] = "cpuset cpu io memory hugetlb pids rdma misc\n";

/* ---- scalars -------------------------------------------------------- */

