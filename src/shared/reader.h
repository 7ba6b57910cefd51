/* SPDX-License-Identifier: MIT */
#pragma once

/*
 * Reading cgroupfs and procfs into a snapshot. Every file is reached with
 * openat() below one of two root directory fds (--cgroup-root,
 * --proc-root), never by an absolute path, so a fixture tree that looks
 * like cgroupfs/procfs is a full test bed (STYLE 3). Symlinks are never
 * followed below the roots (O_NOFOLLOW, and directories are opened with
 * O_DIRECTORY|O_NOFOLLOW).
 */

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "cgoom/snapshot.h"

struct cgoom_roots {
	int cgroup_fd; /* O_PATH|O_DIRECTORY is not enough for xattrs: O_RDONLY|O_DIRECTORY */
	int proc_fd;
	char *cgroup_path, *proc_path; /* as given, for messages */
};

/* Opens both roots. -errno with the failing path named in err (cap
 * bytes) on failure. */
int cgoom_roots_open(const char *cgroup_root, const char *proc_root, struct cgoom_roots *ret,
		     char *err, size_t errcap);
void cgoom_roots_close(struct cgoom_roots *r); /* NULL-safe, idempotent */

/* Whether the roots are the live kernel filesystems: cgroup root is
 * cgroup2 (CGROUP2_SUPER_MAGIC) and proc root is procfs. Killing is
 * refused otherwise, so tests on fixtures can never signal host PIDs. */
bool cgoom_roots_are_live(const struct cgoom_roots *r);

/* Whether this process can read trusted.* xattrs (CAP_SYS_ADMIN in its
 * effective set): without it the kernel hides them from listxattr and
 * getxattr alike, and trusted.cgoom.* settings read as unset. */
bool cgoom_can_read_trusted(void);
/* Whether this process has CAP_KILL in its effective set (it may
 * signal processes of any user). True when that cannot be told. */
bool cgoom_can_kill_any(void);

/* Reads a whole file below dirfd into a malloc'ed, NUL-terminated buffer.
 * Refuses files larger than max bytes (-EFBIG). *ret_len excludes the NUL. */
int cgoom_read_file_at(int dirfd, const char *relpath, size_t max, char **ret, size_t *ret_len);

/* Builds a full snapshot (the whole cgroup tree: settings inherit from
 * ancestors, and the root is scored against everything) and finalizes
 * it. Cgroups or processes that vanish mid-walk (ENOENT, ESRCH, ENODEV)
 * are skipped with a note; unreadable memory.stat sets stat_ok false
 * with a note; a process whose files are malformed is skipped with a
 * note (never guessed at). Reads per cgroup: cgroup.controllers,
 * cgroup.procs, memory.stat, memory.current, memory.swap.current,
 * memory.max, memory.swap.max, memory.oom.group, xattrs
 * trusted.cgoom.{oom_policy,preference,bias},
 * user.cgoom.{oom_policy,preference,bias}, user.oomd_avoid,
 * user.oomd_omit, the directory's owner, and for a cgroup with children
 * below no user-owned cgroup.procs the owner of its own (SPEC 7
 * delegation roots). Per process (from
 * cgroup.procs): PID/stat, PID/status, PID/oom_score_adj. System:
 * meminfo, net/sockstat. Invalid xattr values are ignored with a note. */
int cgoom_snapshot_read(const struct cgoom_roots *r, struct cgoom_snapshot *ret);

/* Levels below the root read cgroup by cgroup; the processes of a
 * deeper subtree count as its ancestor's at this level, and no cgroup
 * deeper is in a snapshot. */
#define CGOOM_READER_MAX_DEPTH 64

/*
 * Branch and bound: the same walk, but a childless memcg (below a parent
 * whose cgroup.subtree_control lists memory) is added *deferred* with
 * only its memory.current and memory.swap.current (its bound, with
 * cgoom_stat_slack), xattrs and owner; its body is read when the plan
 * asks (cgoom_reader_fill). Anything unusual
 * about such a cgroup (a file missing or malformed, the cgroup going
 * away) makes it read whole, as cgoom_snapshot_read() would. The reader
 * handle *ret_rd is kept for cgoom_snapshot_expand() and freed with
 * cgoom_reader_free(). The cwd is changed during the read and restored:
 * the process's cwd, shared by every thread that did not take its own
 * (cgoom_reader_private_cwd), so two lazy reads at once need that.
 */
struct cgoom_reader;
struct cgoom_decision;
struct cgoom_settings;
/* Gives the calling thread a cwd of its own (unshare(CLONE_FS), which
 * needs no privilege), so its lazy reads may run beside other threads'.
 * 0, or -errno where that is refused: then its reads share the cwd. */
int cgoom_reader_private_cwd(void);
int cgoom_snapshot_read_lazy(const struct cgoom_roots *r, struct cgoom_snapshot *ret,
			     struct cgoom_reader **ret_rd);
/*
 * The same, for deciding in one cgroup domain (a path other than "/";
 * NULL or "/": the whole tree): only the domain's ancestors and its
 * subtree are read, not the rest of the tree, so a decision in one of
 * a thousand sibling domains reads a handful of cgroups, not a
 * thousand. Selection in a cgroup domain looks at nothing else: its
 * candidates are in its subtree, settings are inherited from its
 * ancestors (config patterns match by path), delegation roots inside it
 * are found there, and an in-flight PID outside it is not in it (SPEC
 * 3-5, 7). The domain path is kept by reference until the read returns.
 */
int cgoom_snapshot_read_lazy_for(const struct cgoom_roots *r, const char *domain,
				 struct cgoom_snapshot *ret, struct cgoom_reader **ret_rd);
/* Reads the bodies of deferred cgroups idx[0..n) (others are skipped),
 * then re-finalizes s. A cgroup that vanished since stays, empty. */
int cgoom_snapshot_expand(struct cgoom_reader *rd, struct cgoom_snapshot *s, const int *idx,
			  size_t n);
/* Reads what plan asks for (cgoom_plan, select.h) into s, and nothing
 * else; it never calls the engine:
 *  STATS   memory.stat of each listed stat_deferred cgroup, then a
 *          fresh memory.current (one that cannot be read so: its body);
 *  BODIES  each listed deferred cgroup whole, as the full read would;
 *  LOCATE  each PID's /proc/PID/cgroup, and the deferred cgroup it
 *          names (a path that names none: every deferred cgroup); then
 *          s->inflight_located.
 * Every listed cgroup is no longer (stat_)deferred afterwards, so a
 * loop over plans ends. Re-finalizes s when processes were added. */
struct cgoom_plan;
int cgoom_reader_fill(struct cgoom_reader *rd, struct cgoom_snapshot *s,
		      const struct cgoom_plan *plan);
/* The driver (pipeline.c), one loop for the CLI and the daemon:
 *   rank -> plan -> (fill -> rank -> plan)... -> decide,
 * with set resolved from s before (a fill adds no cgroups).
 * rd NULL: s is a full snapshot (no plan ever asks for anything). */
int cgoom_select_lazy(struct cgoom_reader *rd, struct cgoom_snapshot *s,
		      const struct cgoom_settings *set, int domain, struct cgoom_decision *d);
void cgoom_reader_free(struct cgoom_reader *rd); /* NULL-safe */

/* Running out of memory or file descriptors (ENOMEM, EMFILE, ENFILE)
 * stops a read or fill with that error instead of leaving out what could
 * not be opened: such a snapshot could name the wrong victim. Where the
 * last read, fill or expand on this thread stopped so, as "PATH[/FILE]:
 * strerror" ("/a/b/cgroup.controllers: Too many open files",
 * "/proc/123/stat: ..."); "" when it did not. */
const char *cgoom_reader_error_where(void);

/*
 * Details of cgoom_snapshot_read():
 *  - memory.* files are read only where cgroup.controllers lists memory
 *    (and always at the root); absent ones take their defaults. A
 *    missing cgroup.procs means no processes; a missing
 *    cgroup.controllers (non-root) is noted and the cgroup is no memcg.
 *  - Each cgroup is read completely (files, xattrs, child names, its
 *    processes' files), then re-validated (its name under the parent
 *    still refers to the directory read) and only then added with its
 *    processes, so a cgroup that vanished is dropped whole with a note
 *    and never carries processes of its own. Children are walked in
 *    bytewise name order, so "first seen" of a PID listed twice is
 *    deterministic (pre-order).
 *  - Notes name the file as "/a/b/memory.stat: ..." (relative to the
 *    cgroup root) or "/proc/123/stat: ..." (whatever the proc root is).
 *  - Bounds: depth 64 below the root, 1,000,000 cgroups, cgroup.procs
 *    64 MiB, any other file 1 MiB (larger ones are refused, -EFBIG).
 *  - The one symlink followed below a root is procfs' own "net" (a link
 *    to self/net) when reading net/sockstat.
 */

/* Test seam (unit tests only; NULL in production): called at the points
 * of the walk where the kernel may remove a cgroup under the reader, with
 * the path of the cgroup concerned ("/a/b"). */
enum cgoom_reader_point {
	CGOOM_READER_BEFORE_OPEN,   /* a child is listed, its dir not yet opened */
	CGOOM_READER_AFTER_OPEN,    /* its dir is open, no file read yet */
	CGOOM_READER_BEFORE_COMMIT, /* all read, not yet re-validated and added */
};
extern void (*cgoom_reader_test_hook)(enum cgoom_reader_point point, const char *cgroup_path);
/* Test seam: the most cgroups one read takes (1,000,000; tests lower it). */
extern size_t cgoom_reader_max_cgroups;
