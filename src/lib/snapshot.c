/* SPDX-License-Identifier: MIT */
/*
 * Snapshot construction: the tree is built by parent index, then
 * finalize() links children in bytewise name order and derives the
 * pre-order and per-cgroup process lists the engine walks.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cgoom/snapshot.h"
#include "notes-internal.h"

static int grow(void **p, size_t *cap, size_t need, size_t elem)
{
	if (need <= *cap)
		return 0;
	size_t ncap = *cap ? *cap : 16;
	while (ncap < need) {
		if (ncap > (SIZE_MAX / elem) / 2)
			return -ENOMEM;
		ncap *= 2;
	}
	void *np = realloc(*p, ncap * elem);
	if (!np)
		return -ENOMEM;
	*p = np;
	*cap = ncap;
	return 0;
}

static void cgroup_defaults(struct cgoom_cgroup *c)
{
	memset(c, 0, sizeof(*c));
	c->parent = c->first_child = c->next_sibling = -1;
	c->memcg = -1;
	c->max = UINT64_MAX;
	c->swap_max = UINT64_MAX;
}

int cgoom_snapshot_init(struct cgoom_snapshot *s)
{
	memset(s, 0, sizeof(*s));
	s->page_size = 4096;
	int r = grow((void **)&s->cgroups, &s->cap_cgroups, 1, sizeof(*s->cgroups));
	if (r < 0)
		return r;
	struct cgoom_cgroup *root = &s->cgroups[0];
	cgroup_defaults(root);
	root->path = strdup("/");
	if (!root->path) {
		free(s->cgroups);
		s->cgroups = NULL;
		return -ENOMEM;
	}
	root->name = root->path + 1;
	root->is_memcg = true;
	s->n_cgroups = 1;
	return 0;
}

static void free_derived(struct cgoom_snapshot *s)
{
	free(s->preorder);
	free(s->prepos);
	s->prepos = NULL;
	free(s->proc_index);
	free(s->proc_start);
	s->preorder = s->proc_index = NULL;
	s->proc_start = NULL;
}

void cgoom_snapshot_free(struct cgoom_snapshot *s)
{
	if (!s)
		return;
	for (size_t i = 0; i < s->n_cgroups; i++)
		free(s->cgroups[i].path);
	free(s->cgroups);
	free(s->procs);
	free(s->held);
	for (size_t i = 0; i < s->n_notes; i++)
		free(s->notes[i]);
	free(s->notes);
	free_derived(s);
	memset(s, 0, sizeof(*s));
}

static bool valid_name(const char *name)
{
	return name && *name && !strchr(name, '/') && strcmp(name, ".") != 0 &&
	       strcmp(name, "..") != 0;
}

int cgoom_snapshot_add_cgroup(struct cgoom_snapshot *s, int parent, const char *name)
{
	if (parent < 0 || (size_t)parent >= s->n_cgroups || !valid_name(name))
		return -EINVAL;
	if (s->n_cgroups >= (size_t)INT32_MAX)
		return -E2BIG;
	size_t plen = strlen(s->cgroups[parent].path), nlen = strlen(name);
	int r = grow((void **)&s->cgroups, &s->cap_cgroups, s->n_cgroups + 1, sizeof(*s->cgroups));
	if (r < 0)
		return r;
	const char *ppath = s->cgroups[parent].path;
	bool root = parent == 0;
	char *path = malloc(plen + nlen + 2);
	if (!path)
		return -ENOMEM;
	if (root)
		snprintf(path, plen + nlen + 2, "/%s", name);
	else
		snprintf(path, plen + nlen + 2, "%s/%s", ppath, name);
	struct cgoom_cgroup *c = &s->cgroups[s->n_cgroups];
	cgroup_defaults(c);
	c->path = path;
	c->name = path + strlen(path) - nlen;
	c->parent = parent;
	return (int)s->n_cgroups++;
}

int cgoom_snapshot_add_process(struct cgoom_snapshot *s, const struct cgoom_process *p)
{
	if (p->pid <= 0 || p->cgroup < 0 || (size_t)p->cgroup >= s->n_cgroups)
		return -EINVAL;
	int r = grow((void **)&s->procs, &s->cap_procs, s->n_procs + 1, sizeof(*s->procs));
	if (r < 0)
		return r;
	s->procs[s->n_procs] = *p;
	s->procs[s->n_procs].comm[sizeof(p->comm) - 1] = '\0';
	return (int)s->n_procs++;
}

int cgoom_snapshot_add_held(struct cgoom_snapshot *s, const struct cgoom_held_file *h)
{
	if (h->pid <= 0 || h->cgroup < 0 || (size_t)h->cgroup >= s->n_cgroups)
		return -EINVAL;
	int r = grow((void **)&s->held, &s->cap_held, s->n_held + 1, sizeof(*s->held));
	if (r < 0)
		return r;
	s->held[s->n_held] = *h;
	return (int)s->n_held++;
}

int cgoom_notes_vadd(char ***notes, size_t *n_notes, const char *fmt, va_list ap)
{
	char *msg;
	if (vasprintf(&msg, fmt, ap) < 0)
		return -ENOMEM;
	char **nn = realloc(*notes, (*n_notes + 1) * sizeof(*nn));
	if (!nn) {
		free(msg);
		return -ENOMEM;
	}
	*notes = nn;
	nn[(*n_notes)++] = msg;
	return 0;
}

int cgoom_snapshot_note(struct cgoom_snapshot *s, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int r = cgoom_notes_vadd(&s->notes, &s->n_notes, fmt, ap);
	va_end(ap);
	return r;
}

/* Comparators take the snapshot through qsort_r's context argument, so
 * finalize() keeps no state outside the snapshot it is given (the daemon
 * prepares decisions on a second thread). */
static int cmp_child(const void *a, const void *b, void *ctx)
{
	const struct cgoom_snapshot *sort_snap = ctx;
	const struct cgoom_cgroup *x = &sort_snap->cgroups[*(const int *)a];
	const struct cgoom_cgroup *y = &sort_snap->cgroups[*(const int *)b];
	if (x->parent != y->parent)
		return x->parent < y->parent ? -1 : 1;
	int r = strcmp(x->name, y->name); /* bytewise: strcmp compares as unsigned char */
	return r ? r : (*(const int *)a > *(const int *)b) - (*(const int *)a < *(const int *)b);
}

static int cmp_proc(const void *a, const void *b, void *ctx)
{
	const struct cgoom_snapshot *sort_snap = ctx;
	const struct cgoom_process *x = &sort_snap->procs[*(const int *)a];
	const struct cgoom_process *y = &sort_snap->procs[*(const int *)b];
	if (x->cgroup != y->cgroup)
		return x->cgroup < y->cgroup ? -1 : 1;
	return (x->pid > y->pid) - (x->pid < y->pid);
}

static int cmp_pid_then_index(const void *a, const void *b, void *ctx)
{
	const struct cgoom_snapshot *sort_snap = ctx;
	int x = *(const int *)a, y = *(const int *)b;
	int px = sort_snap->procs[x].pid, py = sort_snap->procs[y].pid;
	if (px != py)
		return px < py ? -1 : 1;
	return (x > y) - (x < y);
}

static int cmp_u64(uint64_t a, uint64_t b)
{
	return (a > b) - (a < b);
}

static int cmp_held(const void *a, const void *b)
{
	const struct cgoom_held_file *x = a, *y = b;
	int r;
	if ((r = cmp_u64(x->dev, y->dev)) || (r = cmp_u64(x->ino, y->ino)))
		return r;
	if (x->cgroup != y->cgroup)
		return x->cgroup < y->cgroup ? -1 : 1;
	return (x->pid > y->pid) - (x->pid < y->pid);
}

/* Whether process pid is attached to cgroup (proc_index built). */
static bool has_proc(const struct cgoom_snapshot *s, int cgroup, int pid)
{
	for (size_t k = s->proc_start[cgroup]; k < s->proc_start[cgroup + 1]; k++)
		if (s->procs[s->proc_index[k]].pid == pid)
			return true;
	return false;
}

/* held[] sorted by (dev, ino, cgroup, pid), one per (pid, dev, ino), and
 * only of processes the snapshot has where the record says (a PID
 * listed twice keeps its first cgroup, dedupe_pids; its other record
 * names a process that is not there). */
static void resolve_held(struct cgoom_snapshot *s)
{
	if (s->n_held == 0)
		return;
	qsort(s->held, s->n_held, sizeof(*s->held), cmp_held);
	size_t w = 0;
	for (size_t i = 0; i < s->n_held; i++) {
		const struct cgoom_held_file *h = &s->held[i];
		if ((size_t)h->cgroup >= s->n_cgroups || !has_proc(s, h->cgroup, h->pid))
			continue;
		if (w > 0 && cmp_held(&s->held[w - 1], h) == 0)
			continue;
		s->held[w++] = *h;
	}
	s->n_held = w;
}

/* A PID seen twice (it moved between cgroups while the reader walked):
 * the first one added stays, the others are dropped with a note. */
static int dedupe_pids(struct cgoom_snapshot *s)
{
	if (s->n_procs < 2)
		return 0;
	int *idx = malloc(s->n_procs * sizeof(int));
	bool *drop = calloc(s->n_procs, sizeof(bool));
	if (!idx || !drop) {
		free(idx);
		free(drop);
		return -ENOMEM;
	}
	for (size_t i = 0; i < s->n_procs; i++)
		idx[i] = (int)i;
	qsort_r(idx, s->n_procs, sizeof(int), cmp_pid_then_index, s);
	size_t dropped = 0;
	for (size_t k = 1; k < s->n_procs; k++)
		if (s->procs[idx[k]].pid == s->procs[idx[k - 1]].pid) {
			drop[idx[k]] = true;
			dropped++;
		}
	int r = 0;
	if (dropped) {
		size_t w = 0;
		for (size_t i = 0; i < s->n_procs; i++) {
			if (drop[i]) {
				const struct cgoom_process *p = &s->procs[i];
				if (r == 0)
					r = cgoom_snapshot_note(s, "PID %d listed again in %s: kept its first cgroup",
								p->pid, s->cgroups[p->cgroup].path);
				continue;
			}
			s->procs[w++] = s->procs[i];
		}
		s->n_procs = w;
	}
	free(idx);
	free(drop);
	return r;
}

int cgoom_snapshot_finalize(struct cgoom_snapshot *s)
{
	size_t n = s->n_cgroups;
	free_derived(s);
	int *order = malloc(n * sizeof(int));
	int *stack = malloc(n * sizeof(int));
	s->preorder = malloc(n * sizeof(int));
	s->prepos = malloc(n * sizeof(int));
	s->proc_index = malloc((s->n_procs ? s->n_procs : 1) * sizeof(int));
	s->proc_start = calloc(n + 1, sizeof(size_t));
	if (!order || !stack || !s->preorder || !s->prepos || !s->proc_index || !s->proc_start) {
		free(order);
		free(stack);
		free_derived(s);
		return -ENOMEM;
	}

	/* children sorted by name: sort all non-root indices by (parent, name)
	 * and link siblings in that order */
	for (size_t i = 0; i < n; i++) {
		s->cgroups[i].first_child = s->cgroups[i].next_sibling = -1;
		s->cgroups[i].has_memcg_children = false;
		order[i] = (int)i;
	}
	qsort_r(order, n, sizeof(int), cmp_child, s);
	for (size_t k = 1; k < n; k++) {
		const struct cgoom_cgroup *x = &s->cgroups[order[k - 1]], *y = &s->cgroups[order[k]];
		if (order[k] != 0 && order[k - 1] != 0 && x->parent == y->parent &&
		    strcmp(x->name, y->name) == 0) {
			free(order);
			free(stack);
			free_derived(s);
			return -EEXIST;
		}
	}
	for (size_t k = n; k-- > 0;) {
		int i = order[k];
		int p = s->cgroups[i].parent;
		if (i == 0 || p < 0)
			continue;
		s->cgroups[i].next_sibling = s->cgroups[p].first_child;
		s->cgroups[p].first_child = i;
	}

	/* pre-order walk from the root; parents always precede children in
	 * the array (add_cgroup takes an existing parent), so depth and
	 * memcg membership could be done in index order, but the walk also
	 * gives the order the engine needs. */
	size_t sp = 0, out = 0;
	stack[sp++] = 0;
	while (sp > 0) {
		int i = stack[--sp];
		struct cgoom_cgroup *c = &s->cgroups[i];
		s->prepos[i] = (int)out;
		s->preorder[out++] = i;
		if (i == 0) {
			c->depth = 0;
			c->is_memcg = true;
			c->memcg = 0;
		} else {
			struct cgoom_cgroup *p = &s->cgroups[c->parent];
			c->depth = p->depth + 1;
			/* a cgroup is a memcg only below a memcg (cgroup v2 rule) */
			bool memcg = c->is_memcg && p->memcg == c->parent;
			c->memcg = memcg ? i : p->memcg;
			if (memcg)
				p->has_memcg_children = true;
		}
		/* push children in reverse so the first child pops first */
		int kids = 0;
		for (int ch = c->first_child; ch >= 0; ch = s->cgroups[ch].next_sibling)
			kids++;
		int base = (int)sp;
		sp += (size_t)kids;
		int k = kids;
		for (int ch = c->first_child; ch >= 0; ch = s->cgroups[ch].next_sibling)
			stack[base + --k] = ch;
	}
	free(stack);
	free(order);
	/* Cgroups unreachable from the root cannot exist (parents precede
	 * children), so out == n. */

	int r = dedupe_pids(s);
	if (r < 0) {
		free_derived(s);
		return r;
	}
	for (size_t i = 0; i < s->n_procs; i++)
		s->proc_index[i] = (int)i;
	qsort_r(s->proc_index, s->n_procs, sizeof(int), cmp_proc, s);
	for (size_t i = 0; i < s->n_procs; i++)
		s->proc_start[s->procs[i].cgroup + 1]++;
	for (size_t i = 0; i < n; i++)
		s->proc_start[i + 1] += s->proc_start[i];
	resolve_held(s);
	return out == n ? 0 : -EINVAL;
}

int cgoom_snapshot_find(const struct cgoom_snapshot *s, const char *path)
{
	if (!path || path[0] != '/')
		return -ENOENT;
	size_t len = strlen(path);
	while (len > 1 && path[len - 1] == '/')
		len--;
	for (size_t i = 0; i < s->n_cgroups; i++) {
		const char *p = s->cgroups[i].path;
		if (strlen(p) == len && memcmp(p, path, len) == 0)
			return (int)i;
	}
	return -ENOENT;
}

size_t cgoom_snapshot_procs_of(const struct cgoom_snapshot *s, int cgroup, const int **ret)
{
	if (!s->proc_start || cgroup < 0 || (size_t)cgroup >= s->n_cgroups) {
		*ret = NULL;
		return 0;
	}
	*ret = s->proc_index + s->proc_start[cgroup];
	return s->proc_start[cgroup + 1] - s->proc_start[cgroup];
}

/* The iterator packs (pre-order position, process offset within that
 * cgroup) into one size_t: position in the high half. */
#define IT_SHIFT (sizeof(size_t) * 4)

size_t cgoom_subtree_begin(const struct cgoom_snapshot *s, int top)
{
	return (size_t)s->prepos[top] << IT_SHIFT;
}

bool cgoom_subtree_next(const struct cgoom_snapshot *s, int top, size_t *it, int *ret_proc)
{
	size_t k = *it >> IT_SHIFT, off = *it & (((size_t)1 << IT_SHIFT) - 1);
	size_t start = (size_t)s->prepos[top];
	for (; k < s->n_cgroups; k++, off = 0) {
		int g = s->preorder[k];
		if (k != start && s->cgroups[g].depth <= s->cgroups[top].depth)
			return false;
		size_t nprocs = s->proc_start[g + 1] - s->proc_start[g];
		if (off < nprocs) {
			*ret_proc = s->proc_index[s->proc_start[g] + off];
			*it = (k << IT_SHIFT) | (off + 1);
			return true;
		}
	}
	return false;
}

bool cgoom_snapshot_is_under(const struct cgoom_snapshot *s, int a, int b)
{
	for (int i = a; i >= 0; i = s->cgroups[i].parent)
		if (i == b)
			return true;
	return false;
}
