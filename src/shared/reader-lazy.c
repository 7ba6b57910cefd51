/* SPDX-License-Identifier: MIT */
/*
 * Branch and bound for the reader. A lazy read (cgoom_snapshot_read_lazy)
 * defers every childless memcg: of it only its place in the tree, its
 * xattrs, its owner and what its bound is made of (memory.current and
 * memory.swap.current; cgoom_memcg_bound adds the kernel's unflushed
 * stat error) are read, without opening it:
 *   fstatat(parent, name)  -> a directory with no subdirectories (nlink 2)
 *   l*xattr(name)          -> settings (the cwd is the parent's directory)
 *   openat2(parent, "name/memory.current", RESOLVE_NO_SYMLINKS|...)
 * Its memory.stat, limits, cgroup.procs and processes (most of the cost:
 * three procfs files per process) are read only when the plan
 * (cgoom_plan) asks for them: cgoom_reader_fill. Everything about the
 * tree's shape and settings is known up front, so pruning is sound: a
 * bound can only be too high, never hide a preference or a bias. This
 * file reads; it never calls the engine.
 */

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "cgoom/parse.h"
#include "cgoom/select.h" /* struct cgoom_plan: what to read; no engine call */
#include "reader-internal.h"

/* Opens NAME/FILE below dirfd without following any symlink. */
static int open_below(int dirfd, const char *name, const char *file)
{
	char rel[4096];

	if ((size_t)snprintf(rel, sizeof rel, "%s/%s", name, file) >= sizeof rel)
		return -ENAMETOOLONG;
	return cgfs_open_beneath(dirfd, rel, FILE_FLAGS);
}

/* A one-number file, in one read(): complete when it ends in a newline
 * within the buffer (kernfs and regular files return what they have). No
 * fstat() for S_ISREG: a FIFO (O_NONBLOCK) or device gives no such line
 * and is refused like a malformed file. */
static int read_u64_below(int dirfd, const char *name, const char *file,
			  uint64_t *ret)
{
	char buf[64];
	int fd = open_below(dirfd, name, file);
	ssize_t n;

	if (fd < 0)
		return fd;
	n = read(fd, buf, sizeof buf);
	close(fd);
	if (n < 0)
		return -errno;
	if (n == 0 || (size_t)n >= sizeof buf || buf[n - 1] != '\n')
		return -EBADMSG;
	return cgoom_parse_u64(buf, (size_t)n, ret) < 0 ? -EBADMSG : 0;
}

/* The bound of cgroup REL below dirfd: memory.current and
 * memory.swap.current (absent: 0, as the full read; not read at all with
 * no_swap). < 0 when either cannot be had. */
static int read_bound(int dirfd, const char *rel, bool no_swap,
		      uint64_t *ret_cur, uint64_t *ret_swap)
{
	int r = read_u64_below(dirfd, rel, "memory.current", ret_cur);

	if (r < 0)
		return r;
	*ret_swap = 0;
	if (no_swap)
		return 0;
	r = read_u64_below(dirfd, rel, "memory.swap.current", ret_swap);
	return r == -ENOENT ? 0 : r;
}

int rd_defer_child(struct reader *rd, struct stage *st, int parent, const char *name,
		    const char *path)
{
	struct stage ch = { .fd = -1, .xname = name, .path = path };
	struct stat a;
	uint64_t cur, swc;
	int idx;

	/* Anything unusual (not a childless directory, a file missing or
	 * malformed, a cgroup going away) is left to the full read, which
	 * knows how to note it. The one fstatat() comes last: it says the
	 * name is (still) a directory without subdirectories, and whose; a
	 * directory swapped in under the name meanwhile can only be another
	 * user's (mkdir makes it the caller's), which makes it less trusted,
	 * never more. */
	/* a deferred cgroup is read later by its path from the root
	 * (expand_one): one too long to open so is read whole now, or it
	 * would be dropped, its processes with it */
	if (strlen(path) >= REL_PATH_MAX)
		return 0;
	/* swap is charged hierarchically: none in the parent, none here */
	int r = read_bound(st->fd, name, st->swap_read && st->c.swap_current == 0 && parent > 0,
			   &cur, &swc);
	if (rd_fatal_errno(-r)) {
		rd_fail(rd, path, "memory.current", -r);
		return rd->err;
	}
	if (r < 0)
		return 0;
	if (rd->cwd_at < 0 || rd->cwd_serial != st->serial) {
		if (fchdir(st->fd) < 0)
			return 0;
		rd->cwd_at = st->fd;
		rd->cwd_serial = st->serial;
	}
	rd_read_settings(rd, &ch);
	if (rd->err)
		return rd->err;
	if (ch.gone || ch.saw_enoent)
		return 0;
	if (fstatat(st->fd, name, &a, AT_SYMLINK_NOFOLLOW) < 0 || !S_ISDIR(a.st_mode) ||
	    a.st_nlink != 2)
		return 0;
	idx = cgoom_snapshot_add_cgroup(rd->s, parent, name);
	if (idx == -ENOMEM) {
		rd_fail(rd, path, NULL, ENOMEM);
		return rd->err;
	}
	if (idx < 0)
		return 0;
	struct cgoom_cgroup *c = &rd->s->cgroups[idx];
	c->is_memcg = true;
	c->deferred = c->stat_deferred = true;
	c->current_ok = true;
	c->current = cur;
	c->swap_current = swc;
	c->raw = ch.c.raw;
	c->raw.owner_is_root = a.st_uid == 0;
	return 1;
}

/* Opens cgroup `path` ("/a/b") and its parent (the root fd itself for
 * "/a"), beneath the root. */
static int open_cgroup(const struct cgoom_roots *r, const char *path, int *ret_parent,
		       int *ret_fd, const char **ret_name)
{
	const char *name = strrchr(path, '/');
	char parent_rel[4096];
	int parent = r->cgroup_fd, fd;

	if (strlen(path) >= sizeof parent_rel || path[0] != '/' || !path[1] || !name[1])
		return -EINVAL;
	if (name > path) {
		memcpy(parent_rel, path + 1, (size_t)(name - path - 1));
		parent_rel[name - path - 1] = '\0';
		parent = cgfs_open_beneath(r->cgroup_fd, parent_rel, DIR_FLAGS);
		if (parent < 0)
			return parent;
	}
	fd = cgfs_open_beneath(parent, name + 1, DIR_FLAGS);
	if (fd < 0) {
		if (parent != r->cgroup_fd)
			close(parent);
		return fd;
	}
	*ret_parent = parent;
	*ret_fd = fd;
	*ret_name = name + 1;
	return 0;
}

/* Reads the body of deferred cgroup idx, as the full read would have. */
static void expand_one(struct reader *rd, int idx)
{
	struct cgoom_cgroup *c = &rd->s->cgroups[idx];
	struct stage st = { .path = c->path };
	int pfd = -1, fd = -1;
	const char *name;
	int r = open_cgroup(rd->roots, c->path, &pfd, &fd, &name);

	c->deferred = c->stat_deferred = false;
	rd->n_pids = rd->n_staged = 0;
	if (rd_fatal_errno(-r)) {
		rd_fail(rd, c->path, NULL, -r);
		goto out_empty;
	}
	if (r < 0) {
		rd_note(rd, c->path, NULL, r == -ENOENT || r == -ENODEV
						  ? "vanished during the walk, dropped"
						  : "cannot be opened (%s), dropped",
			strerror(-r));
		goto out_empty;
	}
	st.fd = fd;
	st.serial = ++rd->serial;
	st.c.raw = c->raw; /* the settings stay as read first (resolved already) */
	rd_read_memcg(rd, &st, false);
	rd_read_pid_list(rd, &st);
	rd->staged_fds = rd_want_held(rd, &st, c->parent);
	rd_stage_processes(rd, idx);
	rd->staged_fds = false;
	if (rd->err)
		goto out_close;
	if (st.gone || !rd_still_there(pfd, name, fd)) {
		rd_drop_staged(rd, c->path);
		goto out_empty;
	}
	rd_commit(rd, &st, idx);
	goto out_close;
out_empty:
	/* kept as an empty cgroup: nothing in it can be chosen */
	c->current_ok = c->stat_ok = false;
	c->current = c->swap_current = 0;
out_close:
	if (fd >= 0)
		close(fd);
	if (pfd >= 0 && pfd != rd->roots->cgroup_fd)
		close(pfd);
}

/* Only memory.stat of stat_deferred cgroup idx, one openat2() from the
 * cgroup root; whatever goes wrong is left to the full read. Its bound
 * stays as the walk read it: a footprint above it (the cgroup grew
 * meanwhile, or the bound failed) makes the plan read the cgroup whole,
 * fresh memory.current included (plan.c rule 3). */
static bool expand_stat_one(struct reader *rd, int idx)
{
	struct cgoom_cgroup *c = &rd->s->cgroups[idx];
	const char *rel = c->path + 1;
	struct cgoom_memstat ms;
	int fd;

	if (cgfs_no_openat2())
		goto read_whole;
	fd = open_below(rd->roots->cgroup_fd, rel, "memory.stat");
	if (rd_fatal_errno(-fd)) {
		rd_fail(rd, c->path, "memory.stat", -fd);
		return false;
	}
	if (fd < 0 || cgfs_read_fd(&rd->buf, fd, FILE_MAX) < 0 ||
	    cgoom_parse_memstat(rd->buf.p, rd->buf.len, &ms) < 0)
		goto read_whole;
	c->stat = ms;
	c->stat_ok = true;
	c->stat_deferred = false;
	return false;
read_whole:
	expand_one(rd, idx);
	return true;
}

/* Where in-flight PID pid lives: its /proc/PID/cgroup, the cgroup of
 * that path read if deferred. A PID gone meanwhile needs nothing (a full
 * read would not list it either); a path that names no cgroup in the
 * snapshot (another cgroup namespace, a cgroup made since, " (deleted)")
 * or a file that makes no sense: every deferred cgroup is read, since
 * the PID could be in any. Returns whether anything was read. */
static bool locate_one(struct reader *rd, int pid)
{
	char rel[32], path[4096];
	int r, idx;

	snprintf(rel, sizeof rel, "%d/cgroup", pid);
	r = cgfs_read_at(&rd->buf, rd->roots->proc_fd, rel, FILE_MAX);
	if (r == -ENOENT || r == -ESRCH)
		return false;
	if (rd_fatal_errno(-r)) {
		snprintf(path, sizeof path, "/proc/%d", pid);
		rd_fail(rd, path, "cgroup", -r);
		return false;
	}
	if (r == 0 && cgoom_parse_pid_cgroup(rd->buf.p, rd->buf.len, path, sizeof path) == 0 &&
	    (idx = cgoom_snapshot_find(rd->s, path)) >= 0) {
		if (!rd->s->cgroups[idx].deferred)
			return false; /* read already: the PID is not there (any more) */
		expand_one(rd, idx);
		return true;
	}
	for (size_t i = 0; i < rd->s->n_cgroups && !rd->err; i++)
		if (rd->s->cgroups[i].deferred)
			expand_one(rd, (int)i);
	return true;
}

int cgoom_reader_fill(struct cgoom_reader *h, struct cgoom_snapshot *s,
		      const struct cgoom_plan *plan)
{
	struct reader *rd = &h->rd;
	bool refinalize = false;

	rd_error_where_reset();
	rd->s = s;
	switch (plan->kind) {
	case CGOOM_PLAN_STATS:
		for (size_t i = 0; i < plan->n_cgroups && !rd->err; i++) {
			int idx = plan->cgroups[i];
			if (idx > 0 && (size_t)idx < s->n_cgroups && s->cgroups[idx].stat_deferred)
				refinalize |= expand_stat_one(rd, idx); /* memory.stat alone changes no structure */
		}
		break;
	case CGOOM_PLAN_BODIES:
		for (size_t i = 0; i < plan->n_cgroups && !rd->err; i++) {
			int idx = plan->cgroups[i];
			if (idx > 0 && (size_t)idx < s->n_cgroups && s->cgroups[idx].deferred) {
				expand_one(rd, idx);
				refinalize = true;
			}
		}
		break;
	case CGOOM_PLAN_LOCATE:
		for (size_t i = 0; i < plan->n_pids && !rd->err; i++)
			refinalize |= locate_one(rd, plan->pids[i]);
		s->inflight_located = true;
		break;
	case CGOOM_PLAN_DONE:
	case CGOOM_PLAN_MAX:
		break;
	}
	rd->s = NULL;
	if (rd->err)
		return rd->err;
	return refinalize ? cgoom_snapshot_finalize(s) : 0;
}

int cgoom_snapshot_expand(struct cgoom_reader *h, struct cgoom_snapshot *s, const int *idx,
			  size_t n)
{
	struct reader *rd = &h->rd;

	rd_error_where_reset();
	rd->s = s;
	for (size_t i = 0; i < n && !rd->err; i++)
		if (idx[i] > 0 && (size_t)idx[i] < s->n_cgroups && s->cgroups[idx[i]].deferred)
			expand_one(rd, idx[i]);
	rd->s = NULL;
	if (rd->err)
		return rd->err;
	return cgoom_snapshot_finalize(s);
}
