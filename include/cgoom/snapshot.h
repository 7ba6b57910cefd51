/* SPDX-License-Identifier: MIT */
#pragma once

/*
 * A snapshot: everything the engine decides on, collected before any
 * decision (STYLE 1). Built by src/shared/reader.c from cgroupfs/procfs,
 * or by tests and fuzzers directly through the functions below.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cgoom/parse.h"
#include "cgoom/types.h"

/* Settings found on one cgroup, before precedence and inheritance. */
struct cgoom_raw_settings {
	/* trusted.cgoom.* xattrs */
	bool has_trusted_policy, has_trusted_pref, has_trusted_bias;
	enum cgoom_policy trusted_policy;
	enum cgoom_pref trusted_pref;
	int trusted_bias;
	/* user.cgoom.* xattrs */
	bool has_user_policy, has_user_pref, has_user_bias;
	enum cgoom_policy user_policy;
	enum cgoom_pref user_pref;
	int user_bias;
	/* systemd's user.oomd_avoid / user.oomd_omit (parsed booleans) */
	bool oomd_avoid, oomd_omit;
	/* the cgroup directory's owner is uid 0 */
	bool owner_is_root;
	/* its cgroup.procs is owned by a uid other than 0: a user may move
	 * processes below it (SPEC 7 delegation roots). Looked at only on
	 * cgroups with child cgroups (nothing can be parked in a childless
	 * one) where no ancestor's is a user's, so only the topmost such
	 * cgroups have it. */
	bool procs_user_owned;
};

struct cgoom_cgroup {
	char *path;       /* "/" for the root, else "/a/b" (owned) */
	const char *name; /* last component (points into path); "" for root */
	int parent;       /* index; -1 for the root (index 0) */
	/* filled by cgoom_snapshot_finalize(): */
	int first_child, next_sibling; /* children in bytewise name order; -1 = none */
	int memcg;                     /* index of the memcg it belongs to (itself if memcg) */
	bool has_memcg_children;
	int depth;

	/* as read */
	bool is_memcg;   /* cgroup.controllers lists memory (root: always) */
	bool stat_ok;    /* memory.stat read and parsed with footprint keys */
	struct cgoom_memstat stat;
	bool current_ok; /* memory.current */
	uint64_t current;
	uint64_t swap_current; /* memory.swap.current, 0 if absent */
	bool swap_bad;         /* memory.swap.current there but unreadable or
				* malformed: swap_current (0) is unknown */
	uint64_t max;          /* memory.max; UINT64_MAX for "max" or absent */
	bool has_swap_max;
	uint64_t swap_max; /* memory.swap.max; UINT64_MAX for "max" */
	bool oom_group;    /* memory.oom.group == 1 */
	/* cgroup.procs malformed, or a process it lists there but unreadable
	 * (skipped, noted): some member's eligibility is unknown */
	bool procs_unknown;
	/* part of its subtree could not be read at all (the reader's depth
	 * cut, reader.c adopt_deep): a process there is unknown, so no
	 * victim is chosen in a domain that holds it */
	bool subtree_unread;
	struct cgoom_raw_settings raw;
	/* Read lazily (branch and bound): a childless memcg whose body
	 * (memory.max, memory.oom.group, cgroup.procs and its processes) is
	 * not read yet; with stat_deferred, its memory.stat neither, and
	 * only current/swap_current (the bound: an upper bound of its
	 * footprint), raw settings and its place in the tree are known.
	 * cgoom_plan() asks for them when they could matter.
	 * stat_deferred implies deferred. */
	bool deferred, stat_deferred;
};

struct cgoom_process {
	int pid;
	int cgroup; /* index of the cgroup it is attached to */
	char comm[64];
	uint64_t rss, swap, pte; /* bytes: VmRSS, VmSwap, VmPTE */
	/* bytes: RssShmem, the shmem and tmpfs pages it maps (however
	 * often, wherever charged); known when the line was there, or
	 * when it has no address space (maps nothing) */
	uint64_t rss_shmem;
	bool rss_shmem_known;
	int oom_score_adj;
	uint64_t starttime; /* /proc/PID/stat field 22: identity against PID reuse */
	uint32_t uid;
	bool has_mm;  /* has an address space */
	bool kthread; /* PF_KTHREAD */
	bool zombie;  /* state Z or X, and no thread of its group lives on */
	/* The leader exited (pthread_exit) but thread mm_tid lives on: rss,
	 * swap and pte are that thread's (the group's address space), read
	 * from /proc/PID/task/TID/status. 0: the leader's own. */
	int mm_tid;
	/* Its /proc/PID/fd was read whole (reader.c: only where its memcg
	 * leaves out unmapped shmem worth it): the deleted tmpfs files and
	 * memfds it holds open are the snapshot's held[] records of its PID
	 * and cgroup. false: not read, or not all of it (a lower bound). */
	bool fds_read;
};

/* A deleted tmpfs file or a memfd (on shmem: st_nlink 0, f_type
 * TMPFS_MAGIC) that process pid in cgroup holds open by a file
 * descriptor (SPEC 4 "memory no kill can free", charge.c). Once per
 * (pid, dev, ino). */
struct cgoom_held_file {
	int pid;
	int cgroup;     /* the cgroup the process is attached to */
	uint64_t dev, ino;
	uint64_t bytes; /* allocated: st_blocks * 512 */
};

struct cgoom_snapshot {
	struct cgoom_cgroup *cgroups; /* [0] is the root */
	size_t n_cgroups, cap_cgroups;
	struct cgoom_process *procs; /* any order */
	size_t n_procs, cap_procs;

	/* held open (see cgoom_held_file): after finalize, sorted by (dev,
	 * ino, cgroup, pid), each naming a process of the snapshot */
	struct cgoom_held_file *held;
	size_t n_held, cap_held;

	bool meminfo_ok;
	struct cgoom_meminfo meminfo;
	bool sockstat_ok;
	struct cgoom_sockstat sockstat;
	uint64_t page_size; /* for sockstat pages */
	unsigned n_cpus;    /* online CPUs (/proc/stat); 0 = unknown: no bound holds */
	int self_pid;       /* cgoom itself: never a victim */

	/* PIDs cgoom killed that are still dying (the daemon fills this);
	 * selection in a domain holding one of them aborts. */
	const int *inflight;
	size_t n_inflight;
	/* The reader looked up where the in-flight PIDs live (their
	 * /proc/PID/cgroup) and read those cgroups: one not in the snapshot
	 * now is not alive in any cgroup a full read would list. */
	bool inflight_located;

	/* Things the reader skipped or worked around, for the explanation:
	 * "memory.stat of /a unreadable: ..." (owned). */
	char **notes;
	size_t n_notes;
	/* Processes found gone between their cgroup's listing and their
	 * read: the first CGOOM_GONE_NOTES are noted one by one, the rest
	 * counted in one note, notes[gone_note] (a busy machine's churn
	 * made one note a PID: 5001 lines for 5001 short-lived ones). */
	size_t n_gone;
	size_t gone_note;

	/* internal: pre-order of cgroup indices and per-cgroup process lists,
	 * built by cgoom_snapshot_finalize() */
	int *preorder;
	int *prepos;     /* prepos[i]: position of cgroup i in preorder */
	int *proc_index; /* procs sorted by (cgroup, pid) */
	size_t *proc_start; /* n_cgroups + 1 offsets into proc_index */
};

#define CGOOM_GONE_NOTES 10

/* Initializes an empty snapshot; the root cgroup "/" is added (index 0,
 * a memcg). page_size defaults to 4096. */
int cgoom_snapshot_init(struct cgoom_snapshot *s);
void cgoom_snapshot_free(struct cgoom_snapshot *s); /* NULL-safe, idempotent */

/* Adds a child named `name` (no '/', not empty, not "." or "..") under
 * `parent`; returns its index. The new cgroup is zeroed but for
 * max = swap_max = UINT64_MAX. A duplicate name under one parent makes
 * finalize() fail with -EEXIST. */
int cgoom_snapshot_add_cgroup(struct cgoom_snapshot *s, int parent, const char *name);

/* Copies *p in; returns its index. -EINVAL for a bad cgroup index or
 * pid <= 0. A PID added twice is resolved by finalize(): the first one
 * stays, the rest are dropped with a note. */
int cgoom_snapshot_add_process(struct cgoom_snapshot *s, const struct cgoom_process *p);

/* Records that process pid in cgroup holds file (dev, ino) open,
 * bytes allocated. -EINVAL for a bad cgroup index, pid <= 0. finalize()
 * drops a record naming no process of the snapshot (pid and cgroup) and
 * duplicates of a (pid, dev, ino). */
int cgoom_snapshot_add_held(struct cgoom_snapshot *s, const struct cgoom_held_file *h);

/* Appends a note (printf-style). */
int cgoom_snapshot_note(struct cgoom_snapshot *s, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* Links children in bytewise name order, computes memcg membership (a
 * cgroup is a memcg only if its parent is too), depth, pre-order and
 * process lists; drops duplicate PIDs (see add_process). Call after the
 * last add, before resolve and select. -EEXIST for duplicate names. */
int cgoom_snapshot_finalize(struct cgoom_snapshot *s);

/* Index of the cgroup with this path ("/" or "/a/b"; a trailing slash is
 * tolerated), or -ENOENT. */
int cgoom_snapshot_find(const struct cgoom_snapshot *s, const char *path);

/* Processes attached directly to cgroup i (after finalize). */
size_t cgoom_snapshot_procs_of(const struct cgoom_snapshot *s, int cgroup, const int **ret);

/* Iterates the processes attached anywhere in cgroup top's subtree
 * (top included), in pre-order:
 *   for (size_t it = cgoom_subtree_begin(s, top); cgoom_subtree_next(s, top, &it, &proc);)
 * Needs finalize(). */
size_t cgoom_subtree_begin(const struct cgoom_snapshot *s, int top);
bool cgoom_subtree_next(const struct cgoom_snapshot *s, int top, size_t *it, int *ret_proc);

/* Whether `a` is `b` or below it. */
bool cgoom_snapshot_is_under(const struct cgoom_snapshot *s, int a, int b);
