/* SPDX-License-Identifier: MIT */
/*
 * cgroupfs + procfs -> snapshot. Everything goes through openat() and
 * friends below the two root fds (cgfs.c: one component at a time with
 * O_NOFOLLOW, or openat2 beneath the root), so a fixture tree is a full
 * test bed and a symlink planted below a root is never followed. Nothing here decides anything: what
 * could not be read becomes a note, for the explanation.
 */

#include <dirent.h>
#include <errno.h>
#include <sched.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/xattr.h>
#include <unistd.h>

#include "cgoom/parse.h"
#include "cgoom/types.h"
#include "reader.h"
#include "reader-internal.h"
#include "roots-internal.h"




void (*cgoom_reader_test_hook)(enum cgoom_reader_point point, const char *cgroup_path);
size_t cgoom_reader_max_cgroups = 1000000;

static void hook(enum cgoom_reader_point point, const char *path)
{
	if (cgoom_reader_test_hook)
		cgoom_reader_test_hook(point, path);
}

/* ---- the walk ---- */

static int cmp_names(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static void free_children(struct stage *st)
{
	for (size_t i = 0; i < st->n_children; i++)
		free(st->children[i]);
	free(st->children);
	st->children = NULL;
	st->n_children = 0;
}

struct list_ctx {
	struct reader *rd;
	struct stage *st;
	size_t cap;
};

static int add_child(void *ctx, const char *name, unsigned char type)
{
	struct list_ctx *l = ctx;
	struct stage *st = l->st;

	if (l->rd->err)
		return l->rd->err;
	if (type == DT_LNK) {
		rd_note(l->rd, st->path, name, "a symlink, not followed");
		return l->rd->err;
	}
	if (type != DT_DIR)
		return 0;
	if (cgfs_grow(&st->children, &l->cap, st->n_children + 1, sizeof *st->children) < 0 ||
	    !(st->children[st->n_children] = strdup(name)))
		return -ENOMEM;
	st->n_children++;
	return 0;
}

/* Names of the subdirectories, in bytewise order. Symlinks are noted and
 * never followed. */
static void list_children(struct reader *rd, struct stage *st)
{
	struct list_ctx l = { .rd = rd, .st = st };
	int r = cgfs_for_each_entry(st->fd, add_child, &l);

	if (r < 0 && !rd->err && !rd_cg_errno(rd, st, NULL, -r))
		rd_note(rd, st->path, NULL, "cannot list: %s", strerror(-r));
	if (st->n_children > 1)
		qsort(st->children, st->n_children, sizeof *st->children, cmp_names);
}

/* Whether `name` under parent_fd still is the directory fd refers to. */
bool rd_still_there(int parent_fd, const char *name, int fd)
{
	struct stat a, b;

	if (fstatat(parent_fd, name, &a, AT_SYMLINK_NOFOLLOW) < 0 || fstat(fd, &b) < 0)
		return false;
	return S_ISDIR(a.st_mode) && a.st_dev == b.st_dev && a.st_ino == b.st_ino;
}

/* The "as read" fields; the snapshot's own (path, links, resolved) stay. */
void rd_copy_as_read(struct cgoom_cgroup *d, const struct cgoom_cgroup *c)
{
	d->is_memcg = c->is_memcg;
	d->stat_ok = c->stat_ok;
	d->stat = c->stat;
	d->current_ok = c->current_ok;
	d->current = c->current;
	d->swap_current = c->swap_current;
	d->swap_bad = c->swap_bad;
	d->max = c->max;
	d->has_swap_max = c->has_swap_max;
	d->swap_max = c->swap_max;
	d->oom_group = c->oom_group;
	d->raw = c->raw;
}

char *rd_child_path(const char *parent, const char *name)
{
	size_t pl = strcmp(parent, "/") ? strlen(parent) : 0, nl = strlen(name);
	char *p = malloc(pl + nl + 2);

	if (p) {
		memcpy(p, parent, pl);
		p[pl] = '/';
		memcpy(p + pl + 1, name, nl + 1);
	}
	return p;
}

static int visit(struct reader *rd, int fd, int parent_fd, int parent, const char *name,
		 const char *path, int depth);

/* Whether cgroup path leads to cgroup only (an ancestor or only itself)
 * or lies below it: what a read for domain `only` needs. */
static bool on_the_way(const char *path, const char *only)
{
	size_t p = strlen(path), o = strlen(only);
	if (p <= o)
		return memcmp(path, only, p) == 0 && (only[p] == '/' || only[p] == '\0');
	return memcmp(path, only, o) == 0 && path[o] == '/';
}

/* Whether cgroup `path` is a strict ancestor of cgroup `of`. */
static bool strictly_above(const char *path, const char *of)
{
	size_t p = strlen(path);
	if (strcmp(path, "/") == 0)
		return strcmp(of, "/") != 0;
	return strncmp(path, of, p) == 0 && of[p] == '/';
}

/* The relative paths below a cut still to be read (adopt_deep). */
struct deep_todo {
	char **rel;
	size_t n, cap;
	const char *prefix; /* the directory being listed, relative to the cut */
	bool too_long;      /* a path below the cut longer than REL_PATH_MAX */
};

static int deep_push(void *ctx, const char *name, unsigned char type)
{
	struct deep_todo *t = ctx;
	size_t pl = t->prefix ? strlen(t->prefix) : 0, nl = strlen(name);
	char *rel;

	if (type != DT_DIR)
		return 0; /* a symlink is never followed; noted above the cut only */
	if (pl + nl + 2 > REL_PATH_MAX) {
		t->too_long = true;
		return 0;
	}
	if (cgfs_grow(&t->rel, &t->cap, t->n + 1, sizeof *t->rel) < 0 || !(rel = malloc(pl + nl + 2)))
		return -ENOMEM;
	if (pl)
		snprintf(rel, pl + nl + 2, "%s/%s", t->prefix, name);
	else
		memcpy(rel, name, nl + 1);
	t->rel[t->n++] = rel;
	return 0;
}

/*
 * Below MAX_DEPTH levels the tree is not read cgroup by cgroup (each
 * level of the walk holds a directory fd and a stack frame), but it is
 * not left out either: a delegatee could otherwise hide its largest
 * process 65 levels down and have someone else's killed (SPEC 7:
 * delegation never lets anyone evade the admin's policy). The processes
 * of st's whole subtree count as st's own, as a non-memory descendant's
 * would (st's hierarchical memory.stat already holds their charge),
 * found by an iterative walk that holds one directory open at a time,
 * each opened beneath st by its relative path. What that walk cannot
 * reach (a path over REL_PATH_MAX below st, more than MAX_CGROUPS
 * directories, one that cannot be opened or listed) marks st
 * subtree_unread: no victim is chosen in a domain holding it.
 */
static void adopt_deep(struct reader *rd, struct stage *st, int idx)
{
	struct deep_todo t = { 0 };
	size_t visited = 0;
	bool partial = false;

	for (size_t i = 0; i < st->n_children && !rd->err; i++)
		if (deep_push(&t, st->children[i], DT_DIR) < 0)
			rd_fail(rd, st->path, NULL, ENOMEM);
	while (t.n > 0 && !rd->err) {
		char *rel = t.rel[--t.n];
		char *path = rd_child_path(st->path, rel);
		struct stage sub = { .path = path };
		int fd, r;

		if (!path) {
			rd_fail(rd, st->path, NULL, ENOMEM);
			free(rel);
			break;
		}
		fd = ++visited > MAX_CGROUPS ? -E2BIG : cgfs_open_beneath(st->fd, rel, DIR_FLAGS);
		if (fd < 0) {
			if (rd_fatal_errno(-fd))
				rd_fail(rd, path, NULL, -fd);
			else if (fd != -ENOENT && fd != -ENODEV)
				partial = true; /* there, but not read */
			goto next;
		}
		sub.fd = fd;
		rd_read_pid_list(rd, &sub);
		/* (their memcg: the deep cut's cgroup idx, read already) */
		sub.c.is_memcg = false; /* (as one of idx's non-memcg cgroups) */
		rd->staged_fds = idx > 0 && rd_want_held(rd, &sub, idx);
		rd_stage_processes(rd, idx);
		rd->staged_fds = false;
		if (sub.c.procs_unknown || rd->staged_unknown)
			rd->s->cgroups[idx].procs_unknown = true;
		for (size_t i = 0; i < rd->n_staged && !rd->err; i++) {
			rd->staged[i].cgroup = idx;
			if (cgoom_snapshot_add_process(rd->s, &rd->staged[i]) == -ENOMEM)
				rd_fail(rd, path, NULL, ENOMEM);
		}
		rd_commit_held(rd, idx);
		t.prefix = rel;
		r = cgfs_for_each_entry(fd, deep_push, &t);
		t.prefix = NULL;
		if (r == -ENOMEM || rd_fatal_errno(-r))
			rd_fail(rd, path, NULL, -r);
		else if (r < 0 && r != -ENOENT && r != -ENODEV)
			partial = true;
		close(fd);
next:
		free(path);
		free(rel);
	}
	for (size_t i = 0; i < t.n; i++)
		free(t.rel[i]);
	free(t.rel);
	if (rd->err)
		return;
	if (partial || t.too_long) {
		rd->s->cgroups[idx].subtree_unread = true;
		rd_note(rd, st->path, NULL,
			"deeper than %d levels, and not all of the rest could be read (%s): "
			"no victim is chosen in a domain holding it",
			MAX_DEPTH, t.too_long ? "a path too long" : "unreadable or too many cgroups");
	} else
		rd_note(rd, st->path, NULL,
			"deeper than %d levels: the %zu cgroups below count as part of it "
			"(their processes are its own)",
			MAX_DEPTH, visited);
}

static void visit_children(struct reader *rd, struct stage *st, int idx, int depth)
{
	for (size_t i = 0; i < st->n_children && !rd->err; i++) {
		const char *name = st->children[i];
		char *cpath;
		int cfd, e;

		if (rd->s->n_cgroups >= MAX_CGROUPS) {
			/* what is left unread could outrank every candidate:
			 * no victim in a domain holding it (SPEC 4) */
			rd->s->cgroups[idx].subtree_unread = true;
			if (!rd->limit_noted)
				rd_note(rd, st->path, NULL,
					"more than %zu cgroups, the rest not read: no victim is chosen in a "
					"domain holding them",
					MAX_CGROUPS);
			rd->limit_noted = true;
			return;
		}
		if (depth + 1 > MAX_DEPTH) {
			adopt_deep(rd, st, idx);
			return;
		}
		cpath = rd_child_path(st->path, name);
		if (!cpath) {
			rd_fail(rd, st->path, NULL, ENOMEM);
			return;
		}
		if (rd->only && !on_the_way(cpath, rd->only)) {
			free(cpath);
			continue;
		}
		hook(CGOOM_READER_BEFORE_OPEN, cpath);
		if (rd->lazy && st->subtree_memory && rd_defer_child(rd, st, idx, name, cpath) != 0) {
			free(cpath);
			continue;
		}
		cfd = openat(st->fd, name, DIR_FLAGS);
		e = errno;
		if (cfd >= 0) {
			visit(rd, cfd, st->fd, idx, name, cpath, depth + 1);
			close(cfd);
		} else if (e == ENOENT || e == ENODEV)
			rd_note(rd, cpath, NULL, "vanished during the walk, dropped");
		else if (e == ELOOP || e == ENOTDIR)
			rd_note(rd, cpath, NULL, "not a directory (a symlink?), not followed");
		else if (rd_fatal_errno(e))
			rd_fail(rd, cpath, NULL, e);
		else
			rd_note(rd, cpath, NULL, "%s, dropped", strerror(e));
		free(cpath);
	}
}

/*
 * Reads the cgroup whose directory is fd (parent < 0: the root), then
 * its subtree. Everything about it is read before it is re-validated
 * and added, so a cgroup that vanished is dropped whole. Returns < 0
 * only for fatal errors (also left in rd->err).
 */
static int visit(struct reader *rd, int fd, int parent_fd, int parent, const char *name,
		 const char *path, int depth)
{
	struct stage st = { .fd = fd, .path = path };
	bool is_root = parent < 0;
	int idx = 0;

	st.serial = ++rd->serial;
	st.user_procs_above = !is_root && rd_user_procs_at(rd->s, parent);
	if (!is_root)
		hook(CGOOM_READER_AFTER_OPEN, path);
	/* reading for one domain: of its ancestors only what they pass down
	 * (memcg-ness, settings, owner), not their memory files or their
	 * processes (none is in the domain; at the root, every kernel
	 * thread) */
	st.skip_body = rd->only && strictly_above(path, rd->only);
	rd_read_memcg(rd, &st, is_root);
	rd_read_settings(rd, &st);
	/* reading for one domain: a delegatee's oom_policy on an ancestor is
	 * judged against its whole subtree (settings.c hidden_by_tree: a
	 * tree may not hide a more trusted setting anywhere below it), so
	 * from such an ancestor on, everything below it is read */
	if (rd->only && st.c.raw.has_user_policy && strictly_above(path, rd->only)) {
		char *w = strdup(path);
		free(rd->only_own);
		rd->only_own = w;
		rd->only = is_root ? NULL : w; /* no copy: read everything */
	}
	if (st.skip_body)
		rd->n_pids = 0;
	else
		rd_read_pid_list(rd, &st);
	list_children(rd, &st);
	rd_read_procs_owner(rd, &st);
	/* lazy: childless children of a memcg that gives them memory can be
	 * deferred (the kernel's rule: a child's controllers are its parent's
	 * subtree_control; reading that once here saves a read per child) */
	if (rd->lazy && st.c.is_memcg && st.n_children > 0 &&
	    rd_cg_read(rd, &st, "cgroup.subtree_control", &rd->buf, FILE_MAX) == 0 &&
	    cgoom_parse_has_controller(rd->buf.p, rd->buf.len, "memory", &st.subtree_memory) < 0)
		st.subtree_memory = false;
	rd->staged_fds = rd_want_held(rd, &st, parent);
	rd_stage_processes(rd, is_root ? 0 : (int)rd->s->n_cgroups);
	rd->staged_fds = false;
	if (rd->err)
		goto out_free;

	if (!is_root) {
		hook(CGOOM_READER_BEFORE_COMMIT, path);
		/* ENOENT is ambiguous (an absent file, or a removed cgroup) until
		 * the name is checked; checking last also covers removal after
		 * the files were read. */
		if (st.gone || !rd_still_there(parent_fd, name, fd)) {
			rd_drop_staged(rd, path);
			goto out_free;
		}
		idx = cgoom_snapshot_add_cgroup(rd->s, parent, name);
		if (idx == -ENOMEM)
			rd_fail(rd, path, NULL, ENOMEM);
		if (idx < 0) {
			rd_note(rd, path, NULL, "cannot be added (%s), dropped", strerror(-idx));
			goto out_free;
		}
	}
	rd_commit(rd, &st, idx);
	visit_children(rd, &st, idx, depth);
out_free:
	free_children(&st);
	return rd->err;
}

/* Reads the whole tree into *ret with rd (whose roots are set). */
static int read_into(struct reader *rd, struct cgoom_snapshot *ret)
{
	const struct cgoom_roots *r = rd->roots;
	struct cgoom_snapshot s;
	int e, fd;

	if (!r || r->cgroup_fd < 0 || r->proc_fd < 0)
		return -EBADF;
	rd_error_where_reset();
	/* The one hard failure: the cgroup root cannot be listed. */
	fd = openat(r->cgroup_fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0) {
		e = errno;
		rd_fail(rd, "/", NULL, e);
		return -e;
	}
	close(fd);
	e = cgoom_snapshot_init(&s);
	if (e < 0)
		return e;
	rd->s = &s;
	if (!rd->seen)
		rd->seen = calloc(PID_LIMIT / 8 + 1, 1);
	e = rd->seen ? 0 : -ENOMEM;
	if (e == 0)
		rd_read_system(rd);
	if (e == 0 && !rd->err)
		visit(rd, r->cgroup_fd, -1, -1, "", "/", 0);
	if (e == 0)
		e = rd->err;
	if (e == 0)
		e = cgoom_snapshot_finalize(&s);
	if (e == 0)
		*ret = s;
	else
		cgoom_snapshot_free(&s);
	rd->s = NULL;
	if (rd->cwd_at >= 0 && fchdir(rd->cwd_fd) == 0)
		rd->cwd_at = -1;
	return e;
}

void rd_release(struct reader *rd)
{
	if (rd->cwd_fd >= 0) {
		if (rd->cwd_at >= 0 && fchdir(rd->cwd_fd) < 0) {
			/* nothing better to do: the cwd stays below the cgroup root */
		}
		close(rd->cwd_fd);
	}
	rd->cwd_fd = rd->cwd_at = -1;
	free(rd->seen);
	free(rd->buf.p);
	free(rd->procs.p);
	free(rd->pids);
	free(rd->staged);
	free(rd->staged_held);
	rd->staged_held = NULL;
	rd->n_staged_held = rd->cap_staged_held = 0;
	rd->seen = NULL;
	rd->buf.p = rd->procs.p = NULL;
	rd->pids = NULL;
	rd->staged = NULL;
	rd->buf.cap = rd->procs.cap = rd->cap_pids = rd->cap_staged = 0;
}

int cgoom_snapshot_read(const struct cgoom_roots *r, struct cgoom_snapshot *ret)
{
	struct reader rd = { .roots = r, .cwd_fd = -1, .cwd_at = -1 };
	int e = read_into(&rd, ret);

	rd_release(&rd);
	return e;
}

int cgoom_snapshot_read_lazy(const struct cgoom_roots *r, struct cgoom_snapshot *ret,
			     struct cgoom_reader **ret_rd)
{
	return cgoom_snapshot_read_lazy_for(r, NULL, ret, ret_rd);
}

int cgoom_reader_private_cwd(void)
{
	return unshare(CLONE_FS) < 0 ? -errno : 0;
}

int cgoom_snapshot_read_lazy_for(const struct cgoom_roots *r, const char *domain,
				 struct cgoom_snapshot *ret, struct cgoom_reader **ret_rd)
{
	struct cgoom_reader *h = calloc(1, sizeof(*h));
	int e;

	if (!h)
		return -ENOMEM;
	h->rd.roots = r;
	h->rd.cwd_at = -1;
	/* deferred cgroups' xattrs are read by name from their parent's
	 * directory, made the cwd; without a cwd to return to, read all */
	h->rd.cwd_fd = open(".", O_PATH | O_DIRECTORY | O_CLOEXEC);
	h->rd.lazy = h->rd.cwd_fd >= 0;
	/* "/" (the system domain) needs everything */
	h->rd.only = domain && strcmp(domain, "/") != 0 ? domain : NULL;
	e = read_into(&h->rd, ret);
	h->rd.only = NULL; /* the walk is over: fills never look at it */
	free(h->rd.only_own);
	h->rd.only_own = NULL;
	if (e < 0) {
		cgoom_reader_free(h);
		return e;
	}
	*ret_rd = h;
	return 0;
}

void cgoom_reader_free(struct cgoom_reader *h)
{
	if (!h)
		return;
	rd_release(&h->rd);
	cgoom_plan_free(&h->plan);
	free(h);
}
