/* SPDX-License-Identifier: MIT */
#pragma once

/*
 * Parsers for the cgroupfs and procfs files cgoom reads.
 *
 * Contract shared by every function here:
 *  - input is (buf, len); buf need not be NUL-terminated and may contain
 *    NUL bytes, arbitrary binary, or be truncated anywhere;
 *  - no syscalls, no logging, no global state;
 *  - return 0 (or a documented non-negative count) on success and a
 *    negative errno on failure: -EBADMSG for malformed input, -ERANGE for
 *    a number out of range, -ENOENT for a required key that is missing;
 *  - ret_ outputs are written only on success.
 * Units: every memory figure is returned in bytes (kB fields are scaled,
 * saturating at UINT64_MAX), except where a field name says _pages.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* memory.stat (cgroup v2). Unknown keys are ignored. */
enum {
	CGOOM_MEMSTAT_ANON = 1u << 0,
	CGOOM_MEMSTAT_FILE = 1u << 1,
	CGOOM_MEMSTAT_KERNEL_STACK = 1u << 2,
	CGOOM_MEMSTAT_SOCK = 1u << 3,
	CGOOM_MEMSTAT_SLAB_UNRECLAIMABLE = 1u << 4,
	CGOOM_MEMSTAT_ACTIVE_ANON = 1u << 5,
	CGOOM_MEMSTAT_INACTIVE_ANON = 1u << 6,
	CGOOM_MEMSTAT_UNEVICTABLE = 1u << 7,
	CGOOM_MEMSTAT_SHMEM = 1u << 8,
	CGOOM_MEMSTAT_PAGETABLES = 1u << 9,
	CGOOM_MEMSTAT_FILE_MAPPED = 1u << 10,
	/* the keys cgoom's footprint formula needs */
	CGOOM_MEMSTAT_FOOTPRINT_KEYS = CGOOM_MEMSTAT_KERNEL_STACK | CGOOM_MEMSTAT_SOCK |
				       CGOOM_MEMSTAT_SLAB_UNRECLAIMABLE |
				       CGOOM_MEMSTAT_ACTIVE_ANON | CGOOM_MEMSTAT_INACTIVE_ANON,
};

struct cgoom_memstat {
	uint64_t anon, file, kernel_stack, sock, slab_unreclaimable;
	uint64_t active_anon, inactive_anon, unevictable;
	uint64_t shmem, pagetables; /* the daemon's unreclaimable sum (trigger.h) */
	uint64_t file_mapped;       /* with shmem: shmem no process maps (select.h) */
	unsigned present; /* CGOOM_MEMSTAT_* bits of the keys seen */
};

/* Parses "key value\n" lines. A line whose value is not a decimal u64,
 * or a key seen twice, is -EBADMSG. Missing footprint keys are -ENOENT. */
int cgoom_parse_memstat(const char *buf, size_t len, struct cgoom_memstat *ret);
/* The same parser, requiring no key (present says which were there):
 * for cgoom_parse_unreclaim (trigger.h), whose keys older kernels lack
 * in part. The one memory.stat parser both go through. */
int cgoom_parse_memstat_keys(const char *buf, size_t len, struct cgoom_memstat *ret);

/* memory.events / memory.events.local. Missing keys read as 0. */
enum {
	CGOOM_MEMEVENTS_LOW = 1u << 0,
	CGOOM_MEMEVENTS_HIGH = 1u << 1,
	CGOOM_MEMEVENTS_MAX = 1u << 2,
	CGOOM_MEMEVENTS_OOM = 1u << 3,
	CGOOM_MEMEVENTS_OOM_KILL = 1u << 4,
	CGOOM_MEMEVENTS_OOM_GROUP_KILL = 1u << 5,
};
struct cgoom_memevents {
	uint64_t low, high, max, oom, oom_kill, oom_group_kill;
	unsigned present;
};
int cgoom_parse_memevents(const char *buf, size_t len, struct cgoom_memevents *ret);

/* cgroup.events: whether any process lives in the cgroup's subtree
 * ("populated 1"). -ENOENT without a populated line; -EBADMSG on a
 * malformed file or a value other than 0 or 1. *ret untouched on
 * failure. */
int cgoom_parse_cgroup_events(const char *buf, size_t len, bool *ret_populated);

/* cgroup.stat: the cgroup's live descendants ("nr_descendants N"; dying
 * ones, nr_dying_descendants, are not counted: they hold no process).
 * -ENOENT without that line, -EBADMSG / -ERANGE on a malformed file. *ret
 * untouched on failure. */
int cgoom_parse_cgroup_descendants(const char *buf, size_t len, uint64_t *ret);

/* memory.pressure and /proc/pressure/{memory,cpu,io}:
 *   some avg10=0.12 avg60=0.00 avg300=0.00 total=12345
 *   full avg10=0.00 avg60=0.00 avg300=0.00 total=0
 * avgN are stored in hundredths of a percent (0.12 -> 12, 100.00 -> 10000),
 * total in microseconds. "full" may be absent (cpu before 5.13). A "some"
 * line is required. */
struct cgoom_psi_line {
	uint32_t avg10, avg60, avg300;
	uint64_t total_us;
	bool present;
};
struct cgoom_pressure {
	struct cgoom_psi_line some, full;
};
int cgoom_parse_pressure(const char *buf, size_t len, struct cgoom_pressure *ret);

/* /proc/meminfo. MemTotal is required (-ENOENT without it). */
enum {
	CGOOM_MEMINFO_MEM_TOTAL = 1u << 0,
	CGOOM_MEMINFO_MEM_FREE = 1u << 1,
	CGOOM_MEMINFO_MEM_AVAILABLE = 1u << 2,
	CGOOM_MEMINFO_SWAP_TOTAL = 1u << 3,
	CGOOM_MEMINFO_SWAP_FREE = 1u << 4,
	CGOOM_MEMINFO_ACTIVE_ANON = 1u << 5,
	CGOOM_MEMINFO_INACTIVE_ANON = 1u << 6,
	CGOOM_MEMINFO_SUNRECLAIM = 1u << 7,
	CGOOM_MEMINFO_KERNEL_STACK = 1u << 8,
	CGOOM_MEMINFO_SHMEM = 1u << 9,
	CGOOM_MEMINFO_MAPPED = 1u << 10,
};
struct cgoom_meminfo {
	uint64_t mem_total, mem_free, mem_available, swap_total, swap_free;
	uint64_t active_anon, inactive_anon, sunreclaim, kernel_stack;
	uint64_t shmem, mapped; /* Shmem, Mapped: the root's unmapped shmem */
	unsigned present;
};
int cgoom_parse_meminfo(const char *buf, size_t len, struct cgoom_meminfo *ret);
/* One line of /proc/meminfo by its key (e.g. "Zswap"), read as the
 * token parse reads a key cgoom uses: "KEY: NUMBER kB", in bytes. The
 * other lines are not looked at. -ENOENT without the line, -EBADMSG when
 * it is malformed or repeated, -ERANGE past 2^64; *ret untouched then. */
int cgoom_parse_meminfo_key(const char *buf, size_t len, const char *key, uint64_t *ret);
/* The same with the one-pass read of the kernel's lines on or off (off:
 * every line token by token, the reference the tests compare it to). */
int cgoom_parse_meminfo_lines(const char *buf, size_t len, bool fast, struct cgoom_meminfo *ret);

/* The daemon's read of the same file at every system sample: the whole
 * file is parsed (cgoom_parse_meminfo) at the first read, whenever its
 * length changes or a wanted line is not where it was, and at least
 * every CGOOM_MEMINFO_WHOLE_EVERY reads; in between only the wanted
 * lines (want: CGOOM_MEMINFO_* bits) are read, each at its place in the
 * last whole parse and each checked in full (its key at a line's start,
 * its figure and kB up to the line's end). So a malformed line not
 * wanted, or a key repeated, is refused within that many reads, not at
 * once; a key the last whole parse did not see is read from the next
 * one. Only wanted keys are returned (present and figures), whole parse
 * or not. The layout starts zeroed. */
#define CGOOM_MEMINFO_N_KEYS 11
#define CGOOM_MEMINFO_WHOLE_EVERY 64
#define CGOOM_MEMINFO_ALL 0x7ffu
/* what the daemon's system sample reads (cgoom_system_low) */
#define CGOOM_MEMINFO_LEVELS                                                                       \
	(CGOOM_MEMINFO_MEM_TOTAL | CGOOM_MEMINFO_MEM_FREE | CGOOM_MEMINFO_MEM_AVAILABLE |          \
	 CGOOM_MEMINFO_SWAP_TOTAL | CGOOM_MEMINFO_SWAP_FREE)
struct cgoom_meminfo_layout {
	size_t len; /* the file's length at the last whole parse (0: none) */
	size_t off[CGOOM_MEMINFO_N_KEYS]; /* each key's line there */
	unsigned present;
	unsigned since_whole; /* reads since */
};
int cgoom_parse_meminfo_again(const char *buf, size_t len, struct cgoom_meminfo_layout *lay,
			      unsigned want, struct cgoom_meminfo *ret);

/* /proc/net/sockstat: the "mem" field of the TCP: and UDP: lines, in
 * pages. A missing line reads as 0; a malformed one is -EBADMSG. */
struct cgoom_sockstat {
	uint64_t tcp_mem_pages, udp_mem_pages;
};
int cgoom_parse_sockstat(const char *buf, size_t len, struct cgoom_sockstat *ret);

/* /proc/PID/status. Kernel threads and zombies have no Vm* lines; those
 * read as 0 and has_mm is false. Name, State, Tgid are required. */
struct cgoom_pid_status {
	char name[64]; /* as printed (kernel-escaped), NUL-terminated, truncated */
	char state;    /* 'R', 'S', 'Z', ... */
	int tgid, pid, ppid;
	uint32_t uid; /* real uid */
	uint64_t vm_rss, vm_swap, vm_pte; /* bytes */
	bool has_mm;                      /* a VmRSS line was present */
	uint64_t rss_shmem;               /* bytes: RssShmem, the shmem it maps */
	bool has_rss_shmem;               /* a RssShmem line was present */
	int kthread;                      /* "Kthread:" line: 0/1, or -1 if absent */
};
int cgoom_parse_pid_status(const char *buf, size_t len, struct cgoom_pid_status *ret);

/* /proc/PID/stat. comm is everything between the first '(' and the last
 * ')', so a name like "foo) Z 1 (" cannot shift the fields after it. */
#define CGOOM_PF_KTHREAD 0x00200000u
struct cgoom_pid_stat {
	int pid;
	char comm[64]; /* NUL-terminated, truncated */
	char state;
	int ppid;
	uint32_t flags;     /* field 9 */
	int num_threads;    /* field 20: the thread group's threads, an exited leader's included */
	uint64_t starttime; /* field 22, clock ticks after boot */
	int64_t rss_pages;  /* field 24 */
};
int cgoom_parse_pid_stat(const char *buf, size_t len, struct cgoom_pid_stat *ret);

/* /proc/PID/cgroup: copies the path of the cgroup v2 line "0::PATH"
 * into ret (NUL-terminated). -ENOENT without such a line, -ENAMETOOLONG
 * if it does not fit in cap bytes. Paths are kept byte-exact. */
int cgoom_parse_pid_cgroup(const char *buf, size_t len, char *ret, size_t cap);

/* /proc/stat: the number of online CPUs, one "cpuN ..." line each (the
 * aggregate "cpu " line is not one). -EBADMSG without any such line or
 * with a line that is not "NAME value...". */
int cgoom_parse_cpu_count(const char *buf, size_t len, unsigned *ret);

/* A single integer with optional surrounding whitespace (oom_score_adj,
 * memory.oom.group, xattr values). -ERANGE outside [min, max]. */
int cgoom_parse_int(const char *buf, size_t len, int64_t min, int64_t max, int64_t *ret);

/* memory.max, memory.swap.max, memory.high: "max" -> UINT64_MAX, else a
 * decimal byte count. */
int cgoom_parse_limit(const char *buf, size_t len, uint64_t *ret);

/* A single u64 (memory.current, memory.swap.current). */
int cgoom_parse_u64(const char *buf, size_t len, uint64_t *ret);

/* cgroup.procs: one PID per line. Stores up to cap PIDs in ret and
 * returns how many the buffer holds (which may exceed cap: call again
 * with more room). PIDs must be in 1..4194304. */
int cgoom_parse_pids(const char *buf, size_t len, int *ret, size_t cap);

/* cgroup.controllers / cgroup.subtree_control: space-separated names.
 * Sets *ret to whether `name` is listed. */
int cgoom_parse_has_controller(const char *buf, size_t len, const char *name, bool *ret);

/* A boolean xattr value ("1"/"0", "yes"/"no", "true"/"false", "on"/"off",
 * case-insensitive, optional trailing NUL or newline). */
int cgoom_parse_bool(const char *buf, size_t len, bool *ret);

/* Reclaim and thrashing counters, from /proc/vmstat or a cgroup's
 * memory.stat: the two files share these key names and each has a part
 * of them (vmstat alone has pswpin/pswpout, allocstall_* and oom_kill).
 * Values are the kernel's cumulative counters (pages or events); what
 * matters is how fast they grow. Unknown keys are ignored; a malformed
 * line or a key seen twice is -EBADMSG, a value past u64 -ERANGE. */
enum {
	CGOOM_RECLAIM_REFAULT_ANON = 1u << 0,  /* workingset_refault_anon (5.9+) */
	CGOOM_RECLAIM_REFAULT_FILE = 1u << 1,  /* workingset_refault_file (5.9+) */
	CGOOM_RECLAIM_REFAULT = 1u << 2,       /* workingset_refault (before 5.9: file) */
	CGOOM_RECLAIM_ACTIVATE_ANON = 1u << 3, /* workingset_activate_anon */
	CGOOM_RECLAIM_ACTIVATE_FILE = 1u << 4,
	CGOOM_RECLAIM_ACTIVATE = 1u << 5,
	CGOOM_RECLAIM_RESTORE_ANON = 1u << 6,  /* workingset_restore_anon */
	CGOOM_RECLAIM_RESTORE_FILE = 1u << 7,
	CGOOM_RECLAIM_PGSCAN_KSWAPD = 1u << 8,
	CGOOM_RECLAIM_PGSCAN_DIRECT = 1u << 9,
	CGOOM_RECLAIM_PGSCAN_KHUGEPAGED = 1u << 10,
	CGOOM_RECLAIM_PGSTEAL_KSWAPD = 1u << 11,
	CGOOM_RECLAIM_PGSTEAL_DIRECT = 1u << 12,
	CGOOM_RECLAIM_PGSTEAL_KHUGEPAGED = 1u << 13,
	CGOOM_RECLAIM_PSWPIN = 1u << 14,
	CGOOM_RECLAIM_PSWPOUT = 1u << 15,
	CGOOM_RECLAIM_PGMAJFAULT = 1u << 16,
	CGOOM_RECLAIM_ALLOCSTALL_DMA = 1u << 17,
	CGOOM_RECLAIM_ALLOCSTALL_DMA32 = 1u << 18,
	CGOOM_RECLAIM_ALLOCSTALL_NORMAL = 1u << 19,
	CGOOM_RECLAIM_ALLOCSTALL_MOVABLE = 1u << 20,
	CGOOM_RECLAIM_ALLOCSTALL_DEVICE = 1u << 21,
	CGOOM_RECLAIM_OOM_KILL = 1u << 22,
};
struct cgoom_reclaim {
	uint64_t refault_anon, refault_file, refault;
	uint64_t activate_anon, activate_file, activate;
	uint64_t restore_anon, restore_file;
	uint64_t pgscan_kswapd, pgscan_direct, pgscan_khugepaged;
	uint64_t pgsteal_kswapd, pgsteal_direct, pgsteal_khugepaged;
	uint64_t pswpin, pswpout, pgmajfault;
	uint64_t allocstall_dma, allocstall_dma32, allocstall_normal, allocstall_movable,
		allocstall_device;
	uint64_t oom_kill;
	unsigned present; /* CGOOM_RECLAIM_* bits of the keys seen */
};
int cgoom_parse_reclaim(const char *buf, size_t len, struct cgoom_reclaim *ret);
/* Sums over the parsed keys (saturating): pages refaulted (anon + file, or
 * the pre-5.9 total), refaults that activated (the page was part of the
 * working set when evicted), pages scanned and reclaimed by every reclaimer,
 * direct-reclaim entries. */
uint64_t cgoom_reclaim_refaults(const struct cgoom_reclaim *r);
uint64_t cgoom_reclaim_activations(const struct cgoom_reclaim *r);
uint64_t cgoom_reclaim_scanned(const struct cgoom_reclaim *r);
uint64_t cgoom_reclaim_stolen(const struct cgoom_reclaim *r);
uint64_t cgoom_reclaim_allocstalls(const struct cgoom_reclaim *r);

/* /sys/block/zramN/mm_stat: one line of numbers, the first four required
 * (bytes): orig_data_size (what was stored), compr_data_size (its
 * compressed size), mem_used_total (RAM zram uses for it, allocator
 * overhead included), mem_limit (0: none); then mem_used_max, same_pages,
 * pages_compacted, huge_pages (optional, 0 when absent). More fields
 * (newer kernels) are ignored. -EBADMSG on anything else. */
struct cgoom_zram_mm {
	uint64_t orig_data_size, compr_data_size, mem_used_total, mem_limit;
	uint64_t mem_used_max, same_pages, pages_compacted, huge_pages;
	unsigned n_fields; /* how many numbers the line had (>= 4) */
};
int cgoom_parse_zram_mm_stat(const char *buf, size_t len, struct cgoom_zram_mm *ret);

/* /proc/swaps: "Filename Type Size Used Priority" header, then one line
 * per swap area (Size and Used in KiB; the kernel escapes blanks in the
 * name as \040). Stores up to cap entries in ret and returns how many the
 * file lists (which may exceed cap). A line that is not NAME TYPE SIZE
 * USED PRIO is -EBADMSG; a missing header too. */
struct cgoom_swap_area {
	char name[64];   /* as printed, NUL-terminated, truncated */
	bool is_file;    /* Type "file" (else a partition or device) */
	int zram;        /* N for /dev/zramN, else -1 */
	uint64_t size, used; /* bytes */
	int priority;
};
int cgoom_parse_swaps(const char *buf, size_t len, struct cgoom_swap_area *ret, size_t cap);
/* The most swap areas a machine has: the kernel's MAX_SWAPFILES is 32
 * less the types it keeps for itself (one zram device per CPU is a
 * common setup). */
#define CGOOM_SWAP_AREAS_MAX 32
