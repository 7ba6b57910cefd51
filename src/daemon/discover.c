/* SPDX-License-Identifier: MIT */
/*
 * Discovery (doc/scale.md "Discovery"): which cgroups are domains (a
 * memcg with a finite memory.max), found from the kernel's events
 * instead of a walk every 3 s.
 *
 * Every memcg directory is a node with an inotify watch (placed through
 * /proc/self/fd/N: the preparation thread moves the cwd, so no relative
 * path is safe). The watch reports
 *   - a child directory made or removed (IN_CREATE, IN_DELETE; moves as
 *     both, then a full walk since paths below changed);
 *   - a write to memory.max (the VFS reports writes to cgroup files as
 *     IN_MODIFY): the cgroup becomes a domain, stops being one, or its
 *     domain is sampled at once (its line moved); memory.high likewise;
 *   - cgroup.subtree_control changed: its children's memcg-ness may
 *     have, so they are walked;
 *   - memory.events changed (kernfs notifies it): a domain without kept
 *     files (fds.c) is sampled, the wake-up its events fd would give;
 *   - its xattrs set or removed (IN_ATTRIB: also an owner or mode
 *     changed): a setting may have (trusted.cgoom.*, user.cgoom.*,
 *     user.oomd_*), so every standby decided before is remade
 *     (settings_gen, as on a reload).
 * A directory whose files change on their own (a cgroup at its
 * memory.high: kernfs notifies memory.events up to 100 times a second,
 * and every ancestor's too) would wake the loop for events it has no use
 * for: after DISCOVER_NOISE_MAX such events within a second its watch
 * loses IN_MODIFY for DISCOVER_MUTE_US (made and removed children are
 * still seen at once), and when it gets it back what a write could have
 * changed meanwhile is checked: its memory.max, and its children when
 * the memory controller came or went in its cgroup.subtree_control.
 * A directory is watched before its memory.max is read and before its
 * children are listed, so nothing made in between is missed. A full
 * walk still runs every DISCOVER_SLOW_US as a consistency check, and
 * every DISCOVER_FAST_US (the old 3 s) while inotify is unavailable,
 * a watch could not be placed (fs.inotify.max_user_watches), or its
 * queue overflowed: never a silent gap, and it says so. A node keeps its
 * directory's inode: a walk that finds another directory under its path
 * (removed and made again, the events lost) replaces it.
 *
 * It only marks: new domains (disc.news), domains to sample now
 * (disc.pokes), vanished ones (d->vanished); the loop (run.c) samples
 * and tears down.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/inotify.h>
#include <sys/stat.h>
#include <unistd.h>

#include "daemon-internal.h"
#include "log.h"
#include "reader.h"

#define RDONLY (O_RDONLY | O_CLOEXEC | O_NOFOLLOW)
#define DIRFLAGS (O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
/* the reader's: a domain deeper could never be decided (its cgroup is
 * in no snapshot) */
#define MAX_DEPTH CGOOM_READER_MAX_DEPTH
/* no IN_DONT_FOLLOW: the path is /proc/self/fd/N, a link to the
 * directory opened with O_NOFOLLOW */
#define WATCH_MASK \
	(IN_CREATE | IN_DELETE | IN_MODIFY | IN_MOVED_FROM | IN_MOVED_TO | IN_ATTRIB | IN_ONLYDIR)
/* a noisy directory's watch: children made and removed only */
#define MUTED_MASK (WATCH_MASK & ~IN_MODIFY)

struct cgnode {
	char *path; /* "/a/b" */
	ino_t ino;  /* its directory's inode (the cgroup id), or 0 */
	int wd;     /* its inotify watch, or -1 */
	bool seen;  /* walk mark */
	struct domain *d; /* its domain, or NULL */
	/* noise: events of its files nothing looks at, counted per second */
	uint64_t noise_since_us;
	unsigned noise;
	uint64_t unmute_us; /* muted until then (0: not muted) */
	bool mute_said;     /* its first mute is logged, the rest at debug */
	bool sub_memory;    /* when muted: memory in its cgroup.subtree_control */
};

/* ---- lists for the loop ---- */

static void push(struct domain ***a, size_t *n, size_t *cap, struct domain *d)
{
	if (cgfs_grow(a, cap, *n + 1, sizeof(**a)) == 0)
		(*a)[(*n)++] = d;
}

static void poke(struct daemon *dm, struct domain *d)
{
	if (d && !d->dead && !d->vanished)
		push(&dm->disc.pokes, &dm->disc.n_pokes, &dm->disc.cap_pokes, d);
}

/* ---- nodes ---- */

static void unlist_muted(struct discover *ds, struct cgnode *n)
{
	for (size_t i = 0; i < ds->n_muted; i++)
		if (ds->muted[i] == n) {
			memmove(&ds->muted[i], &ds->muted[i + 1], (ds->n_muted - i - 1) * sizeof(*ds->muted));
			ds->n_muted--;
			break;
		}
	n->unmute_us = 0;
}

/* Node n is muted until `until`, the latest on the list (the pause is
 * one length: the list stays in unmute order); false without memory. */
static bool list_muted(struct discover *ds, struct cgnode *n, uint64_t until)
{
	if (cgfs_grow(&ds->muted, &ds->cap_muted, ds->n_muted + 1, sizeof(*ds->muted)) < 0)
		return false;
	n->unmute_us = until;
	ds->muted[ds->n_muted++] = n;
	return true;
}

static void node_free(struct daemon *dm, struct cgnode *n)
{
	struct discover *ds = &dm->disc;
	if (n->unmute_us)
		unlist_muted(ds, n);
	map_del_str(&ds->by_path, n->path);
	if (n->wd >= 0) {
		/* only its own: a watch another node took over is that node's */
		if (map_get_int(&ds->by_wd, n->wd) == n) {
			map_del_int(&ds->by_wd, n->wd);
			inotify_rm_watch(ds->ifd, n->wd); /* EINVAL when the kernel dropped it: fine */
		}
	} else {
		ds->n_unwatched--;
	}
	if (n->d) {
		n->d->node = NULL;
		if (!n->d->dead && !n->d->vanished) {
			log_info("domain %s: gone (removed)", n->d->path);
			n->d->vanished = true;
			ds->any_vanished = true;
		}
	}
	free(n->path);
	free(n);
}

/* inotify_add_watch on directory fd through /proc/self/fd: a new watch,
 * or the one the directory has, given `mask`. */
static int watch_fd(struct discover *ds, int fd, uint32_t mask)
{
	char p[64];
	snprintf(p, sizeof(p), "/proc/self/fd/%d", fd);
	return inotify_add_watch(ds->ifd, p, mask);
}

/* Node n loses its watch to another node's (the kernel's one watch of
 * one directory: its node under a path it no longer has, until a walk
 * or its parent's event frees it). */
static void node_unwatch(struct discover *ds, struct cgnode *n)
{
	if (n->unmute_us)
		unlist_muted(ds, n); /* the mask is the new node's */
	n->wd = -1;
	ds->n_unwatched++;
}

/* Watches directory fd (cgroup path). A directory already watched under
 * another path (renamed: one inode, one watch) gets that watch; the
 * node of its old path loses it. */
static void node_watch(struct daemon *dm, struct cgnode *n, int fd)
{
	struct discover *ds = &dm->disc;
	n->wd = -1;
	if (ds->ifd >= 0) {
		n->wd = watch_fd(ds, fd, WATCH_MASK);
		struct cgnode *old = n->wd >= 0 ? map_get_int(&ds->by_wd, n->wd) : NULL;
		if (n->wd >= 0 && map_put_int(&ds->by_wd, n->wd, n) < 0) {
			if (!old)
				inotify_rm_watch(ds->ifd, n->wd);
			n->wd = -1;
		} else if (old && old != n) {
			node_unwatch(ds, old);
		}
		if (n->wd < 0 && !ds->watch_err) {
			ds->watch_err = errno ? errno : ENOMEM;
			log_warning("discovery: %s: cannot watch it (%s%s); cgroups are walked every "
				    "%llu s instead of found at once",
				    n->path, strerror(ds->watch_err),
				    ds->watch_err == ENOSPC ? ": raise fs.inotify.max_user_watches" : "",
				    (unsigned long long)(DISCOVER_FAST_US / 1000000));
		}
	}
	if (n->wd < 0)
		ds->n_unwatched++;
}

/* The node of directory fd (cgroup path, inode ino). */
static struct cgnode *node_new(struct daemon *dm, const char *path, int fd, ino_t ino)
{
	struct cgnode *n = calloc(1, sizeof(*n));
	if (!n || !(n->path = strdup(path)) || map_put_str(&dm->disc.by_path, n->path, n) < 0) {
		if (n)
			free(n->path);
		free(n);
		return NULL;
	}
	n->ino = ino;
	node_watch(dm, n, fd);
	return n;
}

struct domain *domains_find(struct daemon *dm, const char *path)
{
	/* the system domain is none of discovery's cgroups */
	if (strcmp(path, "/") == 0) {
		struct domain *sys = dm->n_domains ? dm->domains[0] : NULL;
		return sys && sys->system && !sys->dead ? sys : NULL;
	}
	struct cgnode *n = map_get_str(&dm->disc.by_path, path);
	return n && n->d && !n->d->dead ? n->d : NULL;
}

/* ---- reading a cgroup ---- */

/* 1 or 0: whether the directory's `file` (cgroup.controllers,
 * cgroup.subtree_control) lists memory; -errno when it cannot be read. */
static int lists_memory(struct daemon *dm, int dirfd, const char *file)
{
	int fd = openat(dirfd, file, RDONLY);
	if (fd < 0)
		return -errno;
	size_t len;
	bool has = false;
	int r = cgfs_reread(fd, dm->buf, sizeof(dm->buf), &len);
	close(fd);
	if (r < 0)
		return r;
	return cgoom_parse_has_controller(dm->buf, len, "memory", &has) == 0 && has;
}

/* 1 or 0: whether memory.max is finite; -errno when it cannot be read. */
static int finite_max(struct daemon *dm, int dirfd)
{
	int fd = openat(dirfd, "memory.max", RDONLY);
	if (fd < 0)
		return -errno;
	uint64_t v = UINT64_MAX;
	int r = daemon_reread_limit(dm, fd, &v);
	close(fd);
	if (r < 0)
		return r == -EBADMSG || r == -EINVAL || r == -ERANGE ? 0 : r;
	return v != UINT64_MAX;
}

/* Whether errno e (negative) says a cgroup vanished during the walk
 * (nothing to report) rather than that it could not be read. */
static bool vanished_errno(int e)
{
	return e == -ENOENT || e == -ENODEV || e == -ENOTDIR || e == -ELOOP;
}

/* A cgroup the walk could not read: its domains are kept as they are
 * (not closed as gone), and the walk says so (walk_report). */
static void walk_failed(struct daemon *dm, const char *path, const char *what, int e)
{
	struct discover *ds = &dm->disc;
	if (ds->walk_fails++ == 0)
		snprintf(ds->walk_first, sizeof(ds->walk_first), "%s%s%s: %s", path,
			 what ? "/" : "", what ? what : "", strerror(-e));
}

/* Its memory.max decides: a domain added, kept, or gone; with
 * on_event, a domain kept is sampled at once (its line may have moved). */
static void check_limit(struct daemon *dm, struct cgnode *n, int fd, bool on_event, bool fresh)
{
	int finite = finite_max(dm, fd);
	if (finite < 0 && !vanished_errno(finite))
		walk_failed(dm, n->path, "memory.max", finite);
	if (fresh && !on_event && finite == 0)
		/* a guard band a daemon killed by SIGKILL left where the
		 * limit has gone since: no domain would ever restore it */
		guard_recover_unlimited(dm, fd, n->path);
	if (n->d && finite == 0 && !n->d->dead && !n->d->vanished) {
		log_info("domain %s: gone (memory.max is max now)", n->path);
		n->d->vanished = true;
		dm->disc.any_vanished = true;
		n->d->node = NULL;
		n->d = NULL;
	} else if (n->d && finite != 0) {
		if (on_event)
			poke(dm, n->d); /* (an unreadable limit: kept as it was) */
		else if (domain_read_populated(dm, n->d, fd) && !n->d->empty)
			poke(dm, n->d); /* the walk checks what the events said */
	} else if (!n->d && finite > 0) {
		int k = dup(fd);
		struct domain *d = k >= 0 ? domain_add(dm, k, n->path) : NULL;
		if (k < 0)
			walk_failed(dm, n->path, NULL, -errno);
		if (d) {
			n->d = d;
			d->node = n;
			push(&dm->disc.news, &dm->disc.n_news, &dm->disc.cap_news, d);
		}
	}
}

static void walk_dir(struct daemon *dm, int fd, const char *path, int depth, bool on_event);

struct walk_ctx {
	struct daemon *dm;
	int fd;
	const char *path;
	int depth;
	bool on_event;
};

/* The child `name` of directory w->fd: a memcg gets a node (watched
 * first), its limit decides whether it is a domain, its children are
 * walked. Never stops the walk. */
static void visit(struct daemon *dm, int pfd, const char *ppath, const char *name, int depth,
		  bool on_event)
{
	size_t plen = strlen(ppath), nlen = strlen(name);
	char *path = malloc(plen + nlen + 2);
	if (!path) {
		walk_failed(dm, ppath, name, -ENOMEM);
		return;
	}
	snprintf(path, plen + nlen + 2, "%s/%s", strcmp(ppath, "/") ? ppath : "", name);
	int fd = openat(pfd, name, DIRFLAGS);
	if (fd < 0) {
		if (!vanished_errno(-errno))
			walk_failed(dm, path, NULL, -errno);
		free(path);
		return;
	}
	struct stat st;
	ino_t ino = fstat(fd, &st) == 0 ? st.st_ino : 0;
	struct cgnode *n = map_get_str(&dm->disc.by_path, path);
	if (n && ino && n->ino && n->ino != ino) {
		/* removed and made again under its path, the events that said
		 * so lost (an overflow): the old cgroup's node and domain go */
		node_free(dm, n);
		n = NULL;
	}
	bool fresh = !n;
	if (!n) {
		/* a cgroup without the memory controller has no memcg children */
		int mem = lists_memory(dm, fd, "cgroup.controllers");
		if (mem < 0 && !vanished_errno(mem))
			walk_failed(dm, path, "cgroup.controllers", mem);
		if (mem > 0 && !(n = node_new(dm, path, fd, ino)))
			walk_failed(dm, path, NULL, -ENOMEM);
	}
	if (n) {
		n->seen = true;
		check_limit(dm, n, fd, on_event, fresh);
		walk_dir(dm, fd, path, depth + 1, on_event);
	}
	close(fd);
	free(path);
}

static int walk_entry(void *ctx, const char *name, unsigned char type)
{
	struct walk_ctx *w = ctx;
	if (type == DT_DIR || type == DT_UNKNOWN)
		visit(w->dm, w->fd, w->path, name, w->depth, w->on_event);
	return 0;
}

static int is_dir_entry(void *ctx, const char *name, unsigned char type)
{
	(void)ctx, (void)name;
	return type == DT_DIR || type == DT_UNKNOWN;
}

/* Cgroups past MAX_DEPTH are not watched (selection counts them as their
 * ancestor at that depth's own): said once, with the first place found,
 * so that a limit set down there is not thought watched. */
static void deep_cut(struct daemon *dm, const char *path)
{
	if (dm->disc.deep_said)
		return;
	dm->disc.deep_said = true;
	log_warning("discovery: cgroups below %s, %d levels down, are not watched (cgoom reads at most %d "
		    "levels; their processes count as that cgroup's own): a memory.max set there is left "
		    "to the kernel",
		    path, MAX_DEPTH, MAX_DEPTH);
}

/* Visits the memcg children of the directory `fd` (path `path`). */
static void walk_dir(struct daemon *dm, int fd, const char *path, int depth, bool on_event)
{
	struct walk_ctx w = { .dm = dm, .fd = fd, .path = path, .depth = depth, .on_event = on_event };
	if (depth >= MAX_DEPTH) {
		if (!dm->disc.deep_said && cgfs_for_each_entry(fd, is_dir_entry, NULL) > 0)
			deep_cut(dm, path);
		return;
	}
	int r = cgfs_for_each_entry(fd, walk_entry, &w);
	if (r < 0 && !vanished_errno(r))
		walk_failed(dm, path, NULL, r);
}

/* Says when the walk could not read everything, once per change. */
static void walk_report(struct daemon *dm)
{
	struct discover *ds = &dm->disc;
	bool same = ds->walk_fails == ds->walk_fails_last &&
		    strcmp(ds->walk_first, ds->walk_first_last) == 0;
	if (ds->walk_fails && !same)
		log_warning("discovery: %s%s; cgroups below a failed one are not watched yet, "
			    "domains already watched there are kept; walking again in %llu s",
			    ds->walk_first, ds->walk_fails > 1 ? " (and more cgroups unreadable)" : "",
			    (unsigned long long)(DISCOVER_FAST_US / 1000000));
	else if (!ds->walk_fails && ds->walk_fails_last)
		log_notice("discovery: every cgroup readable again");
	ds->walk_fails_last = ds->walk_fails;
	memcpy(ds->walk_first_last, ds->walk_first, sizeof(ds->walk_first));
}

/* ---- the whole tree ---- */

int discover_init(struct daemon *dm)
{
	struct discover *ds = &dm->disc;
	ds->ifd = -1;
	if (dm->once)
		return 0; /* one look, no events to wait for */
	ds->ifd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
	if (ds->ifd < 0) {
		log_warning("inotify: %s; cgroups are walked every %llu s instead of found at once",
			    strerror(errno), (unsigned long long)(DISCOVER_FAST_US / 1000000));
		return 0;
	}
	ds->w = (struct watch){ .kind = W_INOTIFY };
	struct epoll_event ev = { .events = EPOLLIN, .data.ptr = &ds->w };
	if (epoll_ctl(dm->epfd, EPOLL_CTL_ADD, ds->ifd, &ev) < 0) {
		log_warning("inotify: epoll: %s; cgroups are walked every %llu s", strerror(errno),
			    (unsigned long long)(DISCOVER_FAST_US / 1000000));
		close(ds->ifd);
		ds->ifd = -1;
	}
	return 0;
}

static int node_unmark(void *ctx, struct cgnode *n)
{
	(void)ctx;
	n->seen = false;
	return 0;
}

/* Calls fn on every node (fn may not free nodes). */
static void each_node(struct daemon *dm, int (*fn)(void *, struct cgnode *), void *ctx)
{
	size_t it = 0;
	struct cgnode *n;
	while ((n = map_next(&dm->disc.by_path, &it)))
		fn(ctx, n);
}

struct unseen {
	struct cgnode **a;
	size_t n, cap;
};

static int collect_unseen(void *ctx, struct cgnode *n)
{
	struct unseen *u = ctx;
	if (!n->seen && cgfs_grow(&u->a, &u->cap, u->n + 1, sizeof(*u->a)) == 0)
		u->a[u->n++] = n;
	return 0;
}

void discover_walk(struct daemon *dm, uint64_t now)
{
	struct discover *ds = &dm->disc;
	each_node(dm, node_unmark, NULL);
	ds->walk_fails = 0;
	ds->walk_first[0] = '\0';
	ds->overflowed = false;
	/* the root is a node too: its watch sees top-level cgroups made */
	struct cgnode *root = map_get_str(&ds->by_path, "/");
	if (!root) /* (its inode is never compared: it is not visited) */
		root = node_new(dm, "/", dm->roots.cgroup_fd, 0);
	if (root)
		root->seen = true;
	walk_dir(dm, dm->roots.cgroup_fd, "/", 0, false);
	walk_report(dm);
	/* after a complete walk, a node not seen is gone; after an
	 * incomplete one unseen means nothing (a sample finds a removed
	 * cgroup anyway) */
	if (!ds->walk_fails) {
		struct unseen u = { 0 };
		each_node(dm, collect_unseen, &u);
		for (size_t i = 0; i < u.n; i++)
			node_free(dm, u.a[i]);
		free(u.a);
	}
	bool fast = ds->ifd < 0 || ds->n_unwatched > 0 || ds->walk_fails > 0;
	ds->next_walk_us = now + (fast ? DISCOVER_FAST_US : DISCOVER_SLOW_US);
}

/* A child directory `name` of node n appeared (made, or moved in). */
static void child_made(struct daemon *dm, struct cgnode *n, const char *name)
{
	/* the child is visited at its depth from the root, as the walk
	 * visits it (it was 1 here: event by event a chain grew past
	 * MAX_DEPTH, and a domain there failed every decision) */
	int depth = (int)cgoom_path_depth(n->path);
	if (depth >= MAX_DEPTH) {
		deep_cut(dm, n->path);
		return;
	}
	int pfd = cgfs_open_beneath(dm->roots.cgroup_fd, n->path, DIRFLAGS);
	if (pfd < 0)
		return; /* n itself is going: its own events say so */
	visit(dm, pfd, n->path, name, depth, true);
	close(pfd);
}

static void child_gone(struct daemon *dm, struct cgnode *n, const char *name)
{
	char path[4096];
	snprintf(path, sizeof(path), "%s/%s", strcmp(n->path, "/") ? n->path : "", name);
	struct cgnode *c = map_get_str(&dm->disc.by_path, path);
	if (c)
		node_free(dm, c);
}

/* A file of node n was written or changed: false when nothing looks at
 * that file there (its noise). */
static bool file_changed(struct daemon *dm, struct cgnode *n, const char *name)
{
	bool max = strcmp(name, "memory.max") == 0;
	bool subtree = strcmp(name, "cgroup.subtree_control") == 0;
	if (strcmp(name, "memory.high") == 0) {
		poke(dm, n->d);
		return true;
	}
	if (strcmp(name, "memory.events") == 0) {
		if (!n->d || n->d->kept)
			return false; /* a kept domain has its own events fd */
		poke(dm, n->d); /* no events fd of its own: this is its wake-up */
		return true;
	}
	if (!max && !subtree)
		return false;
	int fd = cgfs_open_beneath(dm->roots.cgroup_fd, n->path, DIRFLAGS);
	if (fd < 0)
		return true;
	if (max && strcmp(n->path, "/") != 0)
		check_limit(dm, n, fd, true, false);
	else if (subtree)
		walk_dir(dm, fd, n->path, 1, true); /* its children may be memcgs now */
	close(fd);
	return true;
}

/* Sets node n's watch mask through its directory opened at fd: the
 * same directory, the same watch. False when it could not be set (the
 * caller retries later), or when the path names another directory now:
 * a new one (unwatched again: its events and the old one's IN_IGNORED
 * sort it out) or another node's (its own mask put back). */
static bool node_remask(struct daemon *dm, struct cgnode *n, int fd, uint32_t mask)
{
	struct discover *ds = &dm->disc;
	int wd = watch_fd(ds, fd, mask);
	if (wd < 0 || wd == n->wd)
		return wd >= 0;
	struct cgnode *other = map_get_int(&ds->by_wd, wd);
	if (other)
		watch_fd(ds, fd, other->unmute_us ? MUTED_MASK : WATCH_MASK);
	else
		inotify_rm_watch(ds->ifd, wd);
	return false;
}

/* Whether nothing but discovery wakes the loop for node n's cgroup: a
 * domain without kept files, whose memory.events changes are its
 * wake-up. Never muted. */
static bool node_polled(const struct cgnode *n)
{
	return n->d && !n->d->dead && !n->d->vanished && !n->d->kept;
}

/* Node n's files changed DISCOVER_NOISE_MAX times in a second for
 * nothing: its watch loses IN_MODIFY until now + DISCOVER_MUTE_US. */
static void node_mute(struct daemon *dm, struct cgnode *n, const char *name, uint64_t now)
{
	struct discover *ds = &dm->disc;
	/* room first: a watch muted off the list would stay so */
	if (cgfs_grow(&ds->muted, &ds->cap_muted, ds->n_muted + 1, sizeof(*ds->muted)) < 0)
		return;
	int fd = cgfs_open_beneath(dm->roots.cgroup_fd, n->path, DIRFLAGS);
	if (fd < 0)
		return;
	/* read before the mask changes: a change after it is caught up */
	n->sub_memory = lists_memory(dm, fd, "cgroup.subtree_control") > 0;
	bool set = node_remask(dm, n, fd, MUTED_MASK);
	close(fd);
	if (!set || !list_muted(ds, n, now + DISCOVER_MUTE_US))
		return;
	ds->mutes++;
	if (!n->mute_said)
		log_info("discovery: %s: its files changed %u times in a second (%s, which nothing "
			 "here reads from the watch); writes to its memory.max, memory.high and "
			 "cgroup.subtree_control are checked every %llu s while it stays this busy "
			 "(made and removed cgroups are still seen at once)",
			 n->path, n->noise, name, (unsigned long long)(DISCOVER_MUTE_US / 1000000));
	else
		log_debug("discovery: %s: busy again (%s): muted for %llu s", n->path, name,
			  (unsigned long long)(DISCOVER_MUTE_US / 1000000));
	n->mute_said = true;
	n->noise = 0;
}

/* One event nothing looked at, from node n's file `name`. */
static void noise(struct daemon *dm, struct cgnode *n, const char *name, uint64_t now)
{
	if (n->unmute_us || node_polled(n))
		return; /* queued before its watch lost IN_MODIFY; or never muted */
	if (now - n->noise_since_us >= DISCOVER_NOISE_WINDOW_US || now < n->noise_since_us) {
		n->noise_since_us = now;
		n->noise = 0;
	}
	if (++n->noise >= DISCOVER_NOISE_MAX)
		node_mute(dm, n, name, now);
}

size_t discover_read(struct daemon *dm, uint64_t now)
{
	struct discover *ds = &dm->disc;
	size_t seen = 0;
	char buf[8192] __attribute__((aligned(__alignof__(struct inotify_event))));
	for (;;) {
		ssize_t len = read(ds->ifd, buf, sizeof(buf));
		if (len <= 0)
			break;
		for (char *p = buf; p < buf + len;) {
			const struct inotify_event *e = (const struct inotify_event *)p;
			p += sizeof(*e) + e->len;
			seen++;
			ds->events++;
			if (e->mask & IN_Q_OVERFLOW) {
				if (!ds->overflowed)
					log_warning("inotify: queue overflow; walking every cgroup now");
				ds->overflowed = true;
				ds->next_walk_us = 0;
				continue;
			}
			struct cgnode *n = map_get_int(&ds->by_wd, e->wd);
			if (!n)
				continue;
			if (e->mask & IN_IGNORED) {
				/* the directory itself is gone */
				map_del_int(&ds->by_wd, n->wd);
				n->wd = -1;
				ds->n_unwatched++;
				node_free(dm, n);
				continue;
			}
			const char *name = e->len ? e->name : "";
			if ((e->mask & IN_ATTRIB) && (!name[0] || (e->mask & IN_ISDIR))) {
				/* a cgroup's xattrs set or removed (or its owner or
				 * mode changed): a preference, bias or policy may
				 * have (SPEC 3: omit is never killed) */
				dm->settings_gen++;
				continue;
			}
			if (!name[0])
				continue;
			if (e->mask & (IN_MOVED_FROM | IN_MOVED_TO))
				ds->next_walk_us = 0; /* paths below it changed */
			if ((e->mask & IN_ISDIR) && (e->mask & (IN_CREATE | IN_MOVED_TO)))
				child_made(dm, n, name);
			else if ((e->mask & IN_ISDIR) && (e->mask & (IN_DELETE | IN_MOVED_FROM)))
				child_gone(dm, n, name);
			else if ((e->mask & IN_MODIFY) && !file_changed(dm, n, name))
				noise(dm, n, name, now);
		}
	}
	return seen;
}

uint64_t discover_next_unmute_us(const struct daemon *dm)
{
	return dm->disc.n_muted ? dm->disc.muted[0]->unmute_us : UINT64_MAX;
}

/* Node n (off the muted list) gets IN_MODIFY back and what a write
 * meanwhile changed is checked (catch_up); when that cannot be done
 * now, it is muted for another pause (a gone directory's IN_IGNORED
 * frees it before that). */
static void node_unmute(struct daemon *dm, struct cgnode *n, uint64_t now, bool catch_up)
{
	struct discover *ds = &dm->disc;
	n->noise = 0;
	n->noise_since_us = now;
	int fd = cgfs_open_beneath(dm->roots.cgroup_fd, n->path, DIRFLAGS);
	if (fd < 0 || !node_remask(dm, n, fd, WATCH_MASK)) {
		if (fd >= 0)
			close(fd);
		list_muted(ds, n, now + DISCOVER_MUTE_US);
		return;
	}
	if (catch_up) {
		if (strcmp(n->path, "/") != 0)
			check_limit(dm, n, fd, true, false);
		int sub = lists_memory(dm, fd, "cgroup.subtree_control");
		if (sub >= 0 && (sub > 0) != n->sub_memory)
			walk_dir(dm, fd, n->path, 1, true);
	}
	close(fd);
}

void discover_unmute_due(struct daemon *dm, uint64_t now)
{
	struct discover *ds = &dm->disc;
	/* a node put back for another pause is due after `now`: no loop */
	while (ds->n_muted && ds->muted[0]->unmute_us <= now + SCHED_EARLY_MAX_US) {
		struct cgnode *n = ds->muted[0];
		unlist_muted(ds, n);
		node_unmute(dm, n, now, true);
	}
}

void discover_domain_polled(struct daemon *dm, struct domain *d, uint64_t now)
{
	struct cgnode *n = d->node;
	if (!n || !n->unmute_us)
		return;
	unlist_muted(&dm->disc, n);
	node_unmute(dm, n, now, false); /* it is sampled anyway */
}

int discover_node_state(const struct daemon *dm, const char *path)
{
	struct cgnode *n = map_get_str(&dm->disc.by_path, path);
	return !n ? -1 : n->unmute_us ? 1 : 0;
}

uint64_t discover_next_walk_us(const struct daemon *dm)
{
	return dm->disc.next_walk_us;
}

void discover_forget(struct daemon *dm, struct domain *d)
{
	(void)dm;
	if (d->node)
		d->node->d = NULL;
	d->node = NULL;
}

static int collect_all(void *ctx, struct cgnode *n)
{
	struct unseen *u = ctx;
	if (cgfs_grow(&u->a, &u->cap, u->n + 1, sizeof(*u->a)) == 0)
		u->a[u->n++] = n;
	return 0;
}

void discover_free(struct daemon *dm)
{
	struct discover *ds = &dm->disc;
	struct unseen u = { 0 };
	each_node(dm, collect_all, &u);
	for (size_t i = 0; i < u.n; i++) {
		u.a[i]->d = NULL; /* the domains are freed by domains_free */
		node_free(dm, u.a[i]);
	}
	free(u.a);
	map_free(&ds->by_path);
	map_free(&ds->by_wd);
	if (ds->ifd >= 0)
		close(ds->ifd);
	ds->ifd = -1;
	free(ds->news);
	free(ds->pokes);
	free(ds->muted);
	ds->muted = NULL;
	ds->n_muted = ds->cap_muted = 0;
	ds->news = ds->pokes = NULL;
	ds->n_news = ds->n_pokes = ds->cap_news = ds->cap_pokes = 0;
}
