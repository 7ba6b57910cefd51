/* SPDX-License-Identifier: MIT */
#pragma once

/* Shared by reader.c (the walk), reader-files.c (cgroup and process
 * files) and reader-lazy.c (branch and bound: deferred leaves). */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cgoom/select.h"
#include "cgoom/snapshot.h"
#include "reader.h"
#include "roots-internal.h"

#define MAX_DEPTH CGOOM_READER_MAX_DEPTH
#define MAX_CGROUPS cgoom_reader_max_cgroups
#define PROCS_MAX ((size_t)64 << 20)
#define FILE_MAX ((size_t)1 << 20)
#define PID_LIMIT 4194304
#define XATTR_MAX 256
/* The longest cgroup path opened from a root fd by name (openat2 takes
 * no path of PATH_MAX, 4096, or more; some room left): a cgroup further
 * down is only ever reached one directory at a time. */
#define REL_PATH_MAX 4000

struct reader {
	const struct cgoom_roots *roots;
	struct cgoom_snapshot *s;
	int err;           /* sticky fatal error (-ENOMEM) */
	struct rbuf buf;   /* small files */
	struct rbuf procs; /* cgroup.procs */
	int *pids;         /* PIDs of the cgroup being read, first listings only */
	size_t n_pids, cap_pids;
	struct cgoom_process *staged; /* its processes, read but not yet added */
	size_t n_staged, cap_staged;
	bool staged_unknown; /* some process listed could not be read (not gone) */
	bool staged_fds;     /* read the staged processes' open files (reader-held.c) */
	struct cgoom_held_file *staged_held; /* what they hold open; cgroup set at commit */
	size_t n_staged_held, cap_staged_held;
	size_t n_staged_held_proc; /* where the process being read begins */
	uint8_t *seen; /* PID bitmap: listed by some cgroup already */
	bool limit_noted;
	/* branch and bound (reader-lazy.c) */
	bool lazy;         /* defer childless memcgs */
	int cwd_fd;        /* the caller's cwd, restored at the end; -1 */
	int cwd_at;        /* the directory fd the cwd is moved to now; -1 */
	unsigned serial;    /* of the last stage begun */
	unsigned cwd_serial; /* of the stage whose directory the cwd is (cwd_at) */
	const char *only;  /* NULL, or "/a/b": read only its ancestors and its subtree */
	char *only_own;    /* only, widened to an ancestor (owned) */
};

struct cgoom_reader {
	struct reader rd;
	struct cgoom_plan plan; /* the driver's (pipeline.c), kept for its buffers */
};

/* A cgroup being read: everything is gathered here before it is added. */
struct stage {
	int fd;           /* the cgroup's directory; -1 for a deferred one */
	unsigned serial;  /* identifies it (fd numbers are reused) */
	const char *xname; /* deferred: its name relative to the cwd, for l*xattr() */
	const char *path; /* "/" or "/a/b" */
	struct cgoom_cgroup c;
	bool gone, saw_enoent; /* ENODEV seen; ENOENT seen (absent, or gone?) */
	bool controllers_missing, stat_missing;
	bool subtree_memory; /* lazy: cgroup.subtree_control lists memory */
	bool swap_read;      /* memory.swap.current was there and parsed */
	bool skip_body;      /* an ancestor of the domain read for (reader.only): no
			      * memory files, no processes */
	bool user_procs_above; /* an ancestor's cgroup.procs is a user's: not looked at */
	char **children;
	size_t n_children;
};


const char *rd_esc(const char *in, size_t len, char *out, size_t cap);
void rd_note(struct reader *rd, const char *path, const char *file, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
bool rd_pid_seen(const struct reader *rd, int pid);
void rd_pid_mark(struct reader *rd, int pid, bool on);
/* Whether errno e means the process (not the cgroup) ran out of a
 * resource, memory or file descriptors: the read stops, since a snapshot
 * missing what could not be opened would decide wrongly (a victim's
 * cgroup or processes left out, a domain taken for no memcg). */
bool rd_fatal_errno(int e);
/* Stops the read with -e (the first such error wins) and records where
 * it happened for cgoom_reader_error_where(). */
void rd_fail(struct reader *rd, const char *path, const char *file, int e);
bool rd_cg_errno(struct reader *rd, struct stage *st, const char *file, int e);
/* Forgets the last read's rd_fail() place (a read or fill begins). */
void rd_error_where_reset(void);
enum num_kind { N_U64, N_LIMIT, N_BOOL01 };
bool rd_cg_read_num(struct reader *rd, struct stage *st, const char *file, enum num_kind kind,
		    uint64_t *ret);
int rd_cg_read(struct reader *rd, struct stage *st, const char *file, struct rbuf *b, size_t max);
/* rd_cg_read()'s handling of r, what reading `file` (at most max bytes)
 * returned: noted as rd_cg_read() notes it; returns r. */
int rd_cg_failed(struct reader *rd, struct stage *st, const char *file, int r, size_t max);
/* cgroup.controllers (not for the root) and, for a memcg, its memory.* files */
void rd_read_memcg(struct reader *rd, struct stage *st, bool is_root);
/* The cgroup being read vanished: note it, forget its staged processes. */
void rd_drop_staged(struct reader *rd, const char *path);
/* Puts what st read (files, raw settings) into cgroup idx, with the
 * staged processes. */
void rd_commit(struct reader *rd, struct stage *st, int idx);
/* xattrs and the directory's owner into st->c.raw */
void rd_read_settings(struct reader *rd, struct stage *st);
/* raw.procs_user_owned, for a cgroup with children (after
 * list_children) and no user-owned ancestor (st->user_procs_above) */
void rd_read_procs_owner(struct reader *rd, struct stage *st);
/* Whether cgroup idx or an ancestor has raw.procs_user_owned. */
bool rd_user_procs_at(const struct cgoom_snapshot *s, int idx);
void rd_read_pid_list(struct reader *rd, struct stage *st);
/* reader-held.c: the deleted tmpfs files and memfds process pid (its
 * /proc/PID directory fd) holds open, staged in rd->staged_held; true
 * when its fd directory was read whole. */
bool rd_read_held(struct reader *rd, int pid_fd, int pid);
/* Whether the processes of st (parent: its parent's index, -1 for the
 * root) are worth that read: their memcg leaves out unmapped shmem. */
bool rd_want_held(const struct reader *rd, const struct stage *st, int parent);
/* Adds the staged held files, in cgroup idx, to the snapshot. */
void rd_commit_held(struct reader *rd, int idx);
void rd_stage_processes(struct reader *rd, int cgroup);
void rd_read_system(struct reader *rd);
bool rd_still_there(int parent_fd, const char *name, int fd);
void rd_copy_as_read(struct cgoom_cgroup *d, const struct cgoom_cgroup *c);
char *rd_child_path(const char *parent, const char *name);

/* reader-lazy.c: tries to add child `name` of st (cgroup index parent)
 * as a deferred cgroup: 1 when deferred, 0 when it must be read whole
 * instead, -ENOMEM (also left in rd->err) when memory ran out. */
int rd_defer_child(struct reader *rd, struct stage *st, int parent, const char *name,
		    const char *path);
/* Releases what rd holds (buffers, bitmap, cwd). */
void rd_release(struct reader *rd);
