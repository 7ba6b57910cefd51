/* SPDX-License-Identifier: MIT */
/*
 * Memory that swap cannot take (SPEC 6 "Swap", doc/triggers.md "Swap
 * that cannot be used"). The system line is MemAvailable and SwapFree
 * both low: SwapFree stands for the room a growth still has once RAM is
 * full. But the kernel swaps out only what may go to swap: a cgroup with
 * memory.swap.max 0 (Kubernetes' LimitedSwap gives it to BestEffort and
 * Guaranteed pods), or one at its swap limit, keeps its anon and shmem in
 * RAM. A leak there filled the guest's RAM and the kernel OOM-killed it
 * with 357 MiB of 512 MiB of swap free; cgoom, waiting for SwapFree,
 * never acted. So while RAM is under its line and swap is not, the
 * system sample also asks how much of the swap-backed memory in RAM
 * (/proc/meminfo Active(anon) + Inactive(anon), shmem included) lies
 * outside such cgroups: swap can take no more than that.
 *
 * The cgroups that cannot swap are found by a walk of the tree (top
 * down, each one's memory.swap.max and, for a finite one,
 * memory.swap.current; a cgroup that cannot swap is not descended, its
 * memory.stat counts its subtree), remade at most every NOSWAP_WALK_US
 * and only while it is asked for; their memory.stat (anon, shmem) is
 * read with every such sample.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cgoom/parse.h"
#include "daemon-internal.h"
#include "log.h"

#define NOSWAP_WALK_US 5000000ULL
#define NOSWAP_DEPTH_MAX 32
#define NOSWAP_DIRS_MAX 20000

struct walk {
	struct noswap *ns;
	int depth;
	size_t dirs;
	char path[4096];
	size_t len;
	int err;
};

static int add_path(struct noswap *ns, const char *path)
{
	char *p = strdup(path);
	if (!p)
		return -ENOMEM;
	char **np = realloc(ns->paths, (ns->n + 1) * sizeof(*np));
	if (!np) {
		free(p);
		return -ENOMEM;
	}
	ns->paths = np;
	ns->paths[ns->n++] = p;
	return 0;
}

/* Whether the cgroup dir fd can swap no more: memory.swap.max 0, or
 * memory.swap.current at memory.swap.max. A cgroup without the files
 * (no memory controller there, a kernel without swap accounting) can. */
static bool cannot_swap(int fd)
{
	char buf[64];
	size_t len;
	uint64_t max, cur;
	if (cgfs_read_small_at(fd, "memory.swap.max", buf, sizeof(buf), &len) < 0)
		return false;
	if (cgoom_parse_limit(buf, len, &max) < 0 || max == UINT64_MAX)
		return false;
	if (max == 0)
		return true;
	if (cgfs_read_small_at(fd, "memory.swap.current", buf, sizeof(buf), &len) < 0 ||
	    cgoom_parse_u64(buf, len, &cur) < 0)
		return false;
	return cur + 4096 > max;
}

struct walk_at {
	struct walk *w;
	int fd;
};

static int visit(void *ctx, const char *name, unsigned char type);

static void walk_dir(struct walk *w, int fd)
{
	if (w->depth >= NOSWAP_DEPTH_MAX || w->dirs >= NOSWAP_DIRS_MAX)
		return;
	w->depth++;
	struct walk_at at = { w, fd };
	(void)cgfs_for_each_entry(fd, visit, &at);
	w->depth--;
}

static int visit(void *ctx, const char *name, unsigned char type)
{
	struct walk_at *c = ctx;
	struct walk *w = c->w;
	if (type != DT_DIR && type != DT_UNKNOWN)
		return 0;
	if (w->err || w->dirs >= NOSWAP_DIRS_MAX)
		return 0;
	int fd = openat(c->fd, name, O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW);
	if (fd < 0)
		return 0; /* gone, or no directory */
	w->dirs++;
	size_t was = w->len, n = strlen(name);
	if (was + 1 + n < sizeof(w->path)) {
		w->path[was] = '/';
		memcpy(w->path + was + 1, name, n + 1);
		w->len = was + 1 + n;
		if (cannot_swap(fd))
			w->err = add_path(w->ns, w->path + 1); /* relative to the root */
		else
			walk_dir(w, fd);
	}
	w->path[was] = '\0';
	w->len = was;
	close(fd);
	return 0;
}

static void noswap_clear(struct noswap *ns)
{
	for (size_t i = 0; i < ns->n; i++)
		free(ns->paths[i]);
	free(ns->paths);
	ns->paths = NULL;
	ns->n = 0;
}

void noswap_free(struct noswap *ns)
{
	noswap_clear(ns);
	ns->walked_us = 0;
}

/* The cgroups that cannot swap, remade when older than NOSWAP_WALK_US. */
static int noswap_walk(struct daemon *dm, struct noswap *ns, uint64_t now)
{
	if (ns->walked_us && now < ns->walked_us + NOSWAP_WALK_US)
		return 0;
	noswap_clear(ns);
	struct walk w = { .ns = ns };
	walk_dir(&w, dm->roots.cgroup_fd);
	ns->walked_us = now ? now : 1;
	if (w.err) {
		noswap_clear(ns);
		ns->walked_us = 0;
		return w.err;
	}
	if (w.dirs >= NOSWAP_DIRS_MAX && !ns->capped_said) {
		log_warning("%s: over %d cgroups: those past them are not looked at for memory that "
			    "cannot swap (said once)", dm->roots.cgroup_path, NOSWAP_DIRS_MAX);
		ns->capped_said = true;
	}
	return 0;
}

int noswap_bytes(struct daemon *dm, uint64_t now, uint64_t *ret)
{
	struct noswap *ns = &dm->noswap;
	*ret = 0;
	int r = noswap_walk(dm, ns, now);
	if (r < 0)
		return r;
	uint64_t sum = 0;
	for (size_t i = 0; i < ns->n; i++) {
		char path[4200];
		snprintf(path, sizeof(path), "%s/memory.stat", ns->paths[i]);
		size_t len;
		struct cgoom_memstat st;
		int fd = openat(dm->roots.cgroup_fd, path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
		if (fd < 0) {
			ns->walked_us = 0; /* gone: walk again next time */
			continue;
		}
		r = cgfs_reread(fd, dm->buf, sizeof(dm->buf), &len);
		close(fd);
		if (r < 0 || cgoom_parse_memstat_keys(dm->buf, len, &st) < 0)
			continue;
		sum += st.anon + st.shmem;
	}
	*ret = sum;
	return 0;
}
