/* SPDX-License-Identifier: MIT */
/*
 * Victim selection: the seed series' select_victim_memcg() (patches 3/6
 * to 6/6) plus SPEC 3's tiers and bias, as a pure function of a
 * snapshot. The kernel picks incrementally with a strict '>'; here every
 * entity is scored first and then ranked by a total comparator, which
 * gives the same answer (first in walk order wins a tie, the root only
 * when strictly ahead) and lets the decision carry the whole ranking.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cgoom/explain.h"
#include "cgoom/select.h"

static uint64_t sat_add(uint64_t a, uint64_t b)
{
	uint64_t r;
	return __builtin_add_overflow(a, b, &r) ? UINT64_MAX : r;
}

static int64_t sat_add_s(int64_t a, int64_t b)
{
	int64_t r;
	if (!__builtin_add_overflow(a, b, &r))
		return r;
	return b > 0 ? INT64_MAX : INT64_MIN;
}

static int64_t sat_mul_s(int64_t a, int64_t b)
{
	int64_t r;
	if (!__builtin_mul_overflow(a, b, &r))
		return r;
	return (a < 0) != (b < 0) ? INT64_MIN : INT64_MAX;
}

static int64_t to_s64(uint64_t v)
{
	return v > (uint64_t)INT64_MAX ? INT64_MAX : (int64_t)v;
}

const char *cgoom_kind_name(enum cgoom_kind k)
{
	static const char *const names[] = { "leaf", "tree", "root", "process" };
	return (unsigned)k < 4 ? names[k] : NULL;
}

void cgoom_decision_init(struct cgoom_decision *d)
{
	memset(d, 0, sizeof(*d));
	d->domain = d->victim = d->scope = -1;
}

void cgoom_decision_free(struct cgoom_decision *d)
{
	if (!d)
		return;
	free(d->candidates);
	free(d->pids);
	free(d->needs);
	cgoom_decision_init(d);
}

/* Why a process may never be killed, or NULL. `protected_only` leaves
 * out the harmless reasons (zombie, no mm) that do not stop a
 * cgroup.kill of its cgroup. */
static const char *ineligible_why(const struct cgoom_snapshot *s, const struct cgoom_process *p,
				  bool *ret_protected)
{
	const char *why = NULL;
	bool prot = true;
	if (p->kthread)
		why = "kernel thread";
	else if (p->pid == 1)
		why = "PID 1";
	else if (s->self_pid > 0 && p->pid == s->self_pid)
		why = "cgoom itself";
	else if (p->oom_score_adj <= -1000)
		why = "oom_score_adj -1000";
	else if (s->cgroups[p->cgroup].pref.value == CGOOM_PREF_OMIT)
		why = "preference omit";
	else if (p->zombie) {
		why = "zombie";
		prot = false;
	} else if (!p->has_mm) {
		why = "no address space";
		prot = false;
	} else
		prot = false;
	if (ret_protected)
		*ret_protected = prot;
	return why;
}

bool cgoom_process_eligible(const struct cgoom_snapshot *s, size_t i, const char **ret_why)
{
	const char *why = ineligible_why(s, &s->procs[i], NULL);
	if (ret_why)
		*ret_why = why;
	return why == NULL;
}

bool cgoom_root_is_cgroup(const struct cgoom_snapshot *s)
{
	return s->cgroups[0].current_ok;
}

uint64_t cgoom_domain_size(const struct cgoom_snapshot *s, int domain)
{
	uint64_t swap_total = s->meminfo_ok ? s->meminfo.swap_total : 0;
	if (domain == 0 && !cgoom_root_is_cgroup(s))
		return s->meminfo_ok ? sat_add(s->meminfo.mem_total, swap_total) : 0;
	const struct cgoom_cgroup *c = &s->cgroups[domain];
	uint64_t max = c->max;
	if (max == UINT64_MAX)
		max = s->meminfo_ok ? s->meminfo.mem_total : 0;
	uint64_t swap = c->has_swap_max && c->swap_max < swap_total ? c->swap_max : swap_total;
	return sat_add(max, swap);
}

int64_t cgoom_badness(const struct cgoom_process *p, uint64_t T)
{
	int64_t points = to_s64(sat_add(sat_add(p->rss, p->swap), p->pte));
	return sat_add_s(points, sat_mul_s(p->oom_score_adj, to_s64(T / 1000)));
}

/*
 * Why memory.current + memory.swap.current alone is no upper bound of
 * the memory.stat footprint, and what is.
 *
 * memory.current is the page counter, charged synchronously (and ahead:
 * the per-CPU charge stock holds up to MEMCG_CHARGE_BATCH = 64 pages
 * charged but unused), and every footprint item (anon, unreclaimable
 * slab, kernel stacks, sockets) is charged to it. memory.stat, though,
 * is rstat: updates sit in per-CPU deltas until a flush, and reading
 * memory.stat flushes only when enough is pending. So the footprint it
 * shows may lead (or lag) the truth, by at most:
 *  - Linux 6.1 (mm/memcontrol.c memcg_rstat_updated): each CPU keeps up
 *    to MEMCG_CHARGE_BATCH units in its stats_updates; above that it
 *    adds x / MEMCG_CHARGE_BATCH (x < 2 * that quotient * BATCH) to the
 *    global stats_flush_threshold, and mem_cgroup_flush_stats() flushes
 *    once that exceeds num_online_cpus(). Unflushed: < BATCH * ncpus
 *    per-CPU + 2 * BATCH * ncpus counted = 3 * BATCH * ncpus units.
 *  - Linux 6.12: the same per memcg (vmstats->stats_updates, flushed
 *    above BATCH * num_online_cpus(), exact sums): < 2 * BATCH * ncpus.
 *  - A unit is a page for page-counted items and a byte (slab) or KiB
 *    (kernel_stack, 6.1) for the others, so at most a page; slab bytes
 *    also wait in the per-CPU object stock, under a page per CPU per
 *    item (reclaimable, unreclaimable): 2 * ncpus more pages.
 * 4 * BATCH pages per CPU covers both kernels with room: 1 MiB per CPU
 * with 4 KiB pages. What it does not cover: a reader racing an ongoing
 * flush (6.1 skips flushing then) and CPUs gone offline with deltas
 * left, both rare and partly within that room. The CPU count is the
 * online CPUs of /proc/stat (under --proc-root); without it nothing is
 * bounded and every memory.stat is read. A footprint found above its
 * bound all the same makes the lazy read read everything (reader-lazy.c).
 */
#define MEMCG_CHARGE_BATCH 64

uint64_t cgoom_stat_slack(const struct cgoom_snapshot *s)
{
	if (s->n_cpus == 0)
		return UINT64_MAX;
	uint64_t pages = (uint64_t)4 * MEMCG_CHARGE_BATCH * s->n_cpus, r;
	return __builtin_mul_overflow(pages, s->page_size, &r) ? UINT64_MAX : r;
}

uint64_t cgoom_memcg_bound(const struct cgoom_snapshot *s, int i)
{
	const struct cgoom_cgroup *c = &s->cgroups[i];
	return sat_add(sat_add(c->current_ok ? c->current : 0, c->swap_current), cgoom_stat_slack(s));
}

uint64_t cgoom_memcg_footprint(const struct cgoom_snapshot *s, int i, bool *ret_fallback)
{
	const struct cgoom_cgroup *c = &s->cgroups[i];
	if (c->stat_deferred) {
		/* not read yet: its bound (cgoom_candidate.bounded says so) */
		if (ret_fallback)
			*ret_fallback = false;
		return cgoom_memcg_bound(s, i);
	}
	if (c->stat_ok) {
		const struct cgoom_memstat *m = &c->stat;
		uint64_t f = sat_add(m->active_anon, m->inactive_anon);
		f = sat_add(f, m->slab_unreclaimable);
		f = sat_add(f, m->kernel_stack);
		f = sat_add(f, m->sock);
		f = sat_add(f, c->swap_current);
		if (ret_fallback)
			*ret_fallback = false;
		return f;
	}
	/* an upper bound: never under-reports a cgroup whose stats are bad */
	if (ret_fallback)
		*ret_fallback = true;
	return sat_add(c->current_ok ? c->current : 0, c->swap_current);
}

static int cmp_i(long long a, long long b)
{
	return (a > b) - (a < b);
}

int cgoom_candidate_cmp(const struct cgoom_candidate *a, const struct cgoom_candidate *b)
{
	int r;
	if ((r = cmp_i(b->eligible, a->eligible)))
		return r;
	if ((r = cmp_i(b->pref, a->pref)))
		return r;
	if ((r = cmp_i(b->score, a->score)))
		return r;
	if ((r = cmp_i(a->order, b->order)))
		return r;
	if ((r = cmp_i(a->pid, b->pid)))
		return r;
	if ((r = cmp_i(a->kind, b->kind)))
		return r;
	return cmp_i(a->cgroup, b->cgroup);
}

static int cmp_cand_qsort(const void *a, const void *b)
{
	return cgoom_candidate_cmp(a, b);
}

static int cmp_int(const void *a, const void *b)
{
	return cmp_i(*(const int *)a, *(const int *)b);
}

static int reserve(void **p, size_t *cap, size_t need, size_t elem)
{
	if (need <= *cap)
		return 0;
	void *np = realloc(*p, (need ? need : 1) * elem);
	if (!np)
		return -ENOMEM;
	*p = np;
	*cap = need;
	return 0;
}

static struct cgoom_candidate *add_cand(struct cgoom_decision *d)
{
	struct cgoom_candidate *c = &d->candidates[d->n_candidates++];
	memset(c, 0, sizeof(*c));
	return c;
}

static bool in_subtree(const struct cgoom_snapshot *s, int top, size_t k)
{
	return k < s->n_cgroups && s->cgroups[s->preorder[k]].depth > s->cgroups[top].depth;
}

/* Does memcg m (a leaf) have an eligible member? Members are processes
 * attached to m or to non-memcg cgroups below it. */
static bool memcg_members(const struct cgoom_snapshot *s, int m, bool *ret_any)
{
	bool eligible = false, any = false;
	int k;
	if (s->cgroups[m].deferred) {
		/* processes not read: eligible for all we know, unless omitted */
		*ret_any = true;
		return s->cgroups[m].pref.value != CGOOM_PREF_OMIT;
	}
	for (size_t it = cgoom_subtree_begin(s, m); cgoom_subtree_next(s, m, &it, &k);) {
		const struct cgoom_process *p = &s->procs[k];
		if (s->cgroups[p->cgroup].memcg != m || p->kthread)
			continue;
		any = true;
		if (!ineligible_why(s, p, NULL)) {
			eligible = true;
			break;
		}
	}
	*ret_any = any;
	return eligible;
}

static void policy_none(const struct cgoom_snapshot *s, int domain, struct cgoom_decision *d)
{
	int k;
	for (size_t it = cgoom_subtree_begin(s, domain); cgoom_subtree_next(s, domain, &it, &k);) {
		const struct cgoom_process *p = &s->procs[k];
		if (p->kthread || p->zombie || !p->has_mm)
			continue;
		struct cgoom_candidate *c = add_cand(d);
		c->kind = CGOOM_KIND_PROCESS;
		c->cgroup = p->cgroup;
		c->pid = p->pid;
		c->footprint = sat_add(sat_add(p->rss, p->swap), p->pte);
		c->score = cgoom_badness(p, d->domain_size);
		c->pref = (enum cgoom_pref)s->cgroups[p->cgroup].pref.value;
		c->bias = p->oom_score_adj;
		c->why = ineligible_why(s, p, NULL);
		c->eligible = !c->why;
		c->order = p->pid;
	}
}

static void finish_entity(const struct cgoom_snapshot *s, struct cgoom_decision *d,
			  struct cgoom_candidate *e, int eligible_leaves)
{
	const struct cgoom_cgroup *g = &s->cgroups[e->cgroup];
	e->pref = (enum cgoom_pref)g->pref.value;
	e->bias = g->bias.value;
	e->score = sat_add_s(to_s64(e->footprint), sat_mul_s(e->bias, to_s64(d->domain_size / 1000)));
	if (eligible_leaves == 0) {
		e->eligible = false;
		if (!e->why)
			e->why = e->pref == CGOOM_PREF_OMIT ? "preference omit" : "no eligible process";
	} else {
		e->eligible = true;
		e->why = NULL;
	}
}

static int policy_cgroup(const struct cgoom_snapshot *s, int domain, struct cgoom_decision *d)
{
	size_t pos = (size_t)s->prepos[domain];
	struct cgoom_candidate *group = NULL;
	int group_eligible = 0;
	int order = 0;

	for (size_t k = pos; k == pos || in_subtree(s, domain, k); k++) {
		int m = s->preorder[k];
		const struct cgoom_cgroup *c = &s->cgroups[m];
		if (m == 0 || c->memcg != m)
			continue; /* the root is judged after the walk; non-memcgs belong to theirs */
		if (c->has_memcg_children && c->policy.value != CGOOM_POLICY_TREE)
			continue;
		if (!group || !cgoom_snapshot_is_under(s, m, group->cgroup)) {
			if (group)
				finish_entity(s, d, group, group_eligible);
			group = add_cand(d);
			group->kind = c->has_memcg_children ? CGOOM_KIND_TREE : CGOOM_KIND_LEAF;
			group->cgroup = m;
			group->order = order++;
			group_eligible = 0;
		}
		if (c->has_memcg_children)
			continue;
		bool any;
		if (!memcg_members(s, m, &any))
			continue; /* ineligible or empty leaves add nothing */
		bool fb;
		group->footprint = sat_add(group->footprint, cgoom_memcg_footprint(s, m, &fb));
		group->fallback |= fb;
		group->bounded |= c->stat_deferred;
		group->unchecked |= c->deferred;
		group_eligible++;
	}
	if (group)
		finish_entity(s, d, group, group_eligible);

	/* Drop entities that never had a member at all: an empty leaf is
	 * not worth a line; one whose members are all protected is kept
	 * (ineligible) so the explanation shows why it was passed over. */
	size_t w = 0;
	for (size_t i = 0; i < d->n_candidates; i++) {
		struct cgoom_candidate *e = &d->candidates[i];
		if (!e->eligible) {
			bool any = false;
			int k;
			for (size_t it = cgoom_subtree_begin(s, e->cgroup);
			     !any && cgoom_subtree_next(s, e->cgroup, &it, &k);)
				any = !s->procs[k].kthread;
			if (!any)
				continue;
		}
		d->candidates[w++] = *e;
	}
	d->n_candidates = w;

	if (domain != 0)
		return 0;

	/* The root, fairly (seed patch 4/6): system-wide counters minus what
	 * the top-level memcgs account for (hierarchically). */
	struct cgoom_candidate *root = add_cand(d);
	root->kind = CGOOM_KIND_ROOT;
	root->cgroup = 0;
	root->order = order;
	bool any;
	bool eligible = memcg_members(s, 0, &any);
	uint64_t sys;
	bool have_sys = true;
	if (cgoom_root_is_cgroup(s)) {
		/* a cgroup namespace (or a subtree mount): the root is a real
		 * cgroup whose memory.stat covers exactly what we can see */
		bool fb;
		sys = cgoom_memcg_footprint(s, 0, &fb);
		root->fallback = fb;
	} else if (!s->meminfo_ok) {
		root->why = "no /proc/meminfo";
		have_sys = false;
		sys = 0;
	} else {
		const struct cgoom_meminfo *mi = &s->meminfo;
		sys = sat_add(mi->active_anon, mi->inactive_anon);
		sys = sat_add(sys, mi->sunreclaim);
		sys = sat_add(sys, mi->kernel_stack);
		sys = sat_add(sys, mi->swap_total > mi->swap_free ? mi->swap_total - mi->swap_free : 0);
		if (s->sockstat_ok) {
			uint64_t pages = sat_add(s->sockstat.tcp_mem_pages, s->sockstat.udp_mem_pages);
			uint64_t bytes = pages > UINT64_MAX / s->page_size ? UINT64_MAX : pages * s->page_size;
			sys = sat_add(sys, bytes);
		}
	}
	if (!have_sys)
		eligible = false;
	else {
		uint64_t children = 0;
		for (int ch = s->cgroups[0].first_child; ch >= 0; ch = s->cgroups[ch].next_sibling)
			if (s->cgroups[ch].memcg != ch)
				continue;
			else if (s->cgroups[ch].stat_deferred)
				root->bounded = true; /* counted as 0: the root's is an upper bound */
			else
				children = sat_add(children, cgoom_memcg_footprint(s, ch, NULL));
		if (sys > children)
			root->footprint = sys - children;
		else {
			root->footprint = 0;
			root->why = "footprint <= 0 after subtracting the top-level cgroups";
			eligible = false;
		}
	}
	finish_entity(s, d, root, eligible ? 1 : 0);
	if (!any && !root->eligible)
		d->n_candidates--; /* nothing attached to the root at all */
	return 0;
}

/* P: the entity's largest eligible process by oom_badness (adj counts). */
static int pick_process(const struct cgoom_snapshot *s, const struct cgoom_decision *d,
			const struct cgoom_candidate *e)
{
	int best = -1;
	int64_t best_score = 0;
	int k;
	for (size_t it = cgoom_subtree_begin(s, e->cgroup); cgoom_subtree_next(s, e->cgroup, &it, &k);) {
		const struct cgoom_process *p = &s->procs[k];
		bool member = e->kind == CGOOM_KIND_ROOT      ? s->cgroups[p->cgroup].memcg == 0
			      : e->kind == CGOOM_KIND_PROCESS ? p->pid == e->pid
							      : true;
		if (!member || ineligible_why(s, p, NULL))
			continue;
		int64_t sc = cgoom_badness(p, d->domain_size);
		if (best < 0 || sc > best_score || (sc == best_score && p->pid < s->procs[best].pid)) {
			best = (int)k;
			best_score = sc;
		}
	}
	return best;
}

static int fill_kill_set(const struct cgoom_snapshot *s, int domain, int proc,
			 struct cgoom_decision *d)
{
	/* highest memory.oom.group cgroup from the domain down to P's memcg */
	d->scope = -1;
	int pm = s->cgroups[s->procs[proc].cgroup].memcg;
	/* the real root has no memory.oom.group; a namespace root does */
	int stop = cgoom_root_is_cgroup(s) ? -1 : 0;
	for (int i = pm; i > stop; i = s->cgroups[i].parent) {
		if (s->cgroups[i].oom_group)
			d->scope = i;
		if (i == domain)
			break;
	}
	d->n_pids = 0;
	if (d->scope < 0) {
		d->pids[d->n_pids++] = s->procs[proc].pid;
		d->use_cgroup_kill = false;
		return 0;
	}
	bool protected_member = false;
	int k;
	for (size_t it = cgoom_subtree_begin(s, d->scope); cgoom_subtree_next(s, d->scope, &it, &k);) {
		const struct cgoom_process *p = &s->procs[k];
		bool prot;
		if (!ineligible_why(s, p, &prot))
			d->pids[d->n_pids++] = p->pid;
		else if (prot)
			protected_member = true;
	}
	d->use_cgroup_kill = !protected_member;
	qsort(d->pids, d->n_pids, sizeof(int), cmp_int);
	return 0;
}

static void explain_reason(const struct cgoom_snapshot *s, struct cgoom_decision *d, int proc)
{
	const struct cgoom_candidate *v = &d->candidates[d->victim];
	const struct cgoom_process *p = &s->procs[proc];
	size_t eligible = 0;
	for (size_t i = 0; i < d->n_candidates; i++)
		eligible += d->candidates[i].eligible;
	char a[32], b[32];
	int n;
	if (v->kind == CGOOM_KIND_PROCESS)
		n = snprintf(d->reason, sizeof(d->reason),
			     "policy none: process %d (%s) in %s ranks first of %zu by oom_badness "
			     "(%s, oom_score_adj %d, preference %s)",
			     p->pid, p->comm, s->cgroups[p->cgroup].path, eligible,
			     cgoom_human_size(v->footprint, a, sizeof(a)), p->oom_score_adj, cgoom_pref_name(v->pref));
	else
		n = snprintf(d->reason, sizeof(d->reason),
			     "policy %s: %s entity %s ranks first of %zu (footprint %s, bias %d, "
			     "preference %s%s); its largest process is %d (%s, %s)",
			     cgoom_policy_name(d->policy), cgoom_kind_name(v->kind),
			     s->cgroups[v->cgroup].path, eligible, cgoom_human_size(v->footprint, a, sizeof(a)),
			     v->bias, cgoom_pref_name(v->pref),
			     v->fallback ? ", from memory.current: memory.stat unreadable" : "", p->pid,
			     p->comm, cgoom_human_size(sat_add(sat_add(p->rss, p->swap), p->pte), b, sizeof(b)));
	if (n > 0 && (size_t)n < sizeof(d->reason) && d->scope >= 0)
		snprintf(d->reason + n, sizeof(d->reason) - (size_t)n,
			 "; memory.oom.group=1 on %s: killing its %zu eligible processes%s",
			 s->cgroups[d->scope].path, d->n_pids,
			 d->use_cgroup_kill ? " with cgroup.kill" : " one by one (it holds protected ones)");
}

/* ---- branch and bound: which deferred cgroups must be read ---- */

static void need(struct cgoom_decision *d, int i)
{
	/* cap_needs >= 2 * n_cgroups: a bounded root adds its top-level
	 * children, which may be listed again as candidates of their own;
	 * dupes removed at the end */
	d->needs[d->n_needs++] = i;
}

/* How many cgroups in top's subtree (top included) are deferred (with
 * stat_only: stat_deferred); each is added to d's needs unless d is NULL. */
static size_t deferred_in(const struct cgoom_snapshot *s, int top, bool stat_only,
			  struct cgoom_decision *d)
{
	size_t pos = (size_t)s->prepos[top], n = 0;
	for (size_t k = pos; k == pos || in_subtree(s, top, k); k++) {
		const struct cgoom_cgroup *c = &s->cgroups[s->preorder[k]];
		if (stat_only ? !c->stat_deferred : !c->deferred)
			continue;
		if (d)
			need(d, s->preorder[k]);
		n++;
	}
	return n;
}

/* Every deferred cgroup in top's subtree, to be read whole. */
static size_t need_subtree(const struct cgoom_snapshot *s, int top, struct cgoom_decision *d)
{
	return deferred_in(s, top, false, d);
}

/* The cgroups behind a bounded candidate whose memory.stat is unread. */
static void need_entity(const struct cgoom_snapshot *s, const struct cgoom_candidate *e,
			struct cgoom_decision *d)
{
	if (e->kind != CGOOM_KIND_ROOT) {
		deferred_in(s, e->cgroup, true, d);
		return;
	}
	for (int ch = s->cgroups[0].first_child; ch >= 0; ch = s->cgroups[ch].next_sibling)
		if (s->cgroups[ch].memcg == ch && s->cgroups[ch].stat_deferred)
			need(d, ch);
}

/*
 * After ranking with bounds. Every candidate ahead of the first exact
 * eligible one (the leader) could still be the real first. If some of
 * them are bounded, their memory.stat is read (cheap: one file each):
 * all bounded ones ahead of the first candidate whose score is exact,
 * since each could beat it. Otherwise their scores are exact and only
 * eligibility is open: their bodies are read, best first. A batch with
 * no such limit takes the top 2^round (doubling: a tree of empty or
 * protected leaves costs log rounds, not one round per leaf).
 */
static void need_ranked(const struct cgoom_snapshot *s, struct cgoom_decision *d, unsigned round)
{
	size_t n = 0, lead, exact;
	while (n < d->n_candidates && d->candidates[n].eligible)
		n++; /* the eligible ones lead the ranking */
	for (exact = 0; exact < n && d->candidates[exact].bounded; exact++)
		;
	for (lead = exact; lead < n && d->candidates[lead].unchecked; lead++)
		;
	if (lead == 0)
		return; /* the first is exact (or nothing is eligible): final */
	size_t doubling = round < 20 ? (size_t)1 << round : n;
	d->needs_stat = exact > 0;
	if (d->needs_stat) {
		/* all bounded ones ahead of the first exact score, else the top */
		size_t take = exact < n ? exact : doubling < n ? doubling : n;
		for (size_t i = 0; i < take; i++)
			need_entity(s, &d->candidates[i], d);
		return;
	}
	for (size_t i = 0; i < lead && i < doubling; i++)
		need_subtree(s, d->candidates[i].cgroup, d);
}

/* Not final yet: the needs sorted and unique, no victim, round + 1. */
static int finish_needs(const struct cgoom_snapshot *s, struct cgoom_decision *d, unsigned round)
{
	qsort(d->needs, d->n_needs, sizeof(int), cmp_int);
	size_t w = 0;
	for (size_t i = 0; i < d->n_needs; i++)
		if (w == 0 || d->needs[w - 1] != d->needs[i])
			d->needs[w++] = d->needs[i];
	d->n_needs = w;
	d->round = round + 1;
	d->has_victim = false;
	d->victim = d->victim_pid = d->victim_cgroup = d->scope = -1;
	d->n_pids = 0;
	snprintf(d->reason, sizeof(d->reason), "not final: %zu bounded cgroup%s in %s to read first",
		 w, w == 1 ? "" : "s", s->cgroups[d->domain].path);
	return 0;
}

int cgoom_select(const struct cgoom_snapshot *s, int domain, struct cgoom_decision *ret)
{
	if (!s->preorder || domain < 0 || (size_t)domain >= s->n_cgroups ||
	    s->cgroups[domain].memcg != domain)
		return -EINVAL;

	int r = reserve((void **)&ret->candidates, &ret->cap_candidates, s->n_cgroups + s->n_procs + 1,
			sizeof(*ret->candidates));
	if (r == 0)
		r = reserve((void **)&ret->pids, &ret->cap_pids, s->n_procs + 1, sizeof(*ret->pids));
	if (r == 0)
		r = reserve((void **)&ret->needs, &ret->cap_needs, 2 * s->n_cgroups, sizeof(*ret->needs));
	if (r < 0)
		return r;
	ret->n_candidates = ret->n_pids = ret->n_needs = 0;
	ret->needs_stat = false;
	unsigned round = ret->round; /* of the needs asked for in a row */
	ret->round = 0;              /* unless finish_needs() asks again */
	ret->has_victim = ret->inflight = ret->use_cgroup_kill = false;
	ret->victim = ret->victim_pid = ret->victim_cgroup = ret->scope = -1;
	ret->inflight_pid = 0;
	ret->reason[0] = '\0';
	ret->domain = domain;
	ret->policy = (enum cgoom_policy)s->cgroups[domain].policy.value;
	if (domain == 0 && ret->policy == CGOOM_POLICY_TREE)
		ret->policy = CGOOM_POLICY_CGROUP; /* resolve refuses this; be safe anyway */
	ret->domain_size = cgoom_domain_size(s, domain);

	/* What cannot be bounded is read whole: the domain itself (its
	 * memory.max is T), every process under policy none (oom_score_adj
	 * is unbounded), and everything while a victim may be in flight (its
	 * PID must be found wherever it is). */
	if (s->cgroups[domain].deferred ||
	    ((ret->policy == CGOOM_POLICY_NONE || s->n_inflight > 0) &&
	     deferred_in(s, domain, false, NULL))) {
		need_subtree(s, domain, ret);
		return finish_needs(s, ret, round);
	}

	/* like the kernel: while an earlier victim in this domain is dying,
	 * choose nobody else */
	for (size_t i = 0; i < s->n_inflight; i++)
		for (size_t k = 0; k < s->n_procs; k++)
			if (s->procs[k].pid == s->inflight[i] &&
			    cgoom_snapshot_is_under(s, s->procs[k].cgroup, domain)) {
				ret->inflight = true;
				ret->inflight_pid = s->inflight[i];
				snprintf(ret->reason, sizeof(ret->reason),
					 "waiting: PID %d, killed earlier in %s, is still exiting",
					 s->inflight[i], s->cgroups[domain].path);
				return 0;
			}

	if (ret->policy == CGOOM_POLICY_NONE)
		policy_none(s, domain, ret);
	else
		policy_cgroup(s, domain, ret);
	qsort(ret->candidates, ret->n_candidates, sizeof(*ret->candidates), cmp_cand_qsort);
	need_ranked(s, ret, round);
	if (ret->n_needs)
		return finish_needs(s, ret, round);

	if (ret->n_candidates == 0 || !ret->candidates[0].eligible) {
		snprintf(ret->reason, sizeof(ret->reason), "no eligible victim in %s (policy %s)",
			 s->cgroups[domain].path, cgoom_policy_name(ret->policy));
		return 0;
	}
	int proc = pick_process(s, ret, &ret->candidates[0]);
	if (proc < 0) {
		snprintf(ret->reason, sizeof(ret->reason), "no eligible process in %s",
			 s->cgroups[ret->candidates[0].cgroup].path);
		return 0;
	}
	ret->has_victim = true;
	ret->victim = 0;
	ret->victim_pid = s->procs[proc].pid;
	ret->victim_cgroup = ret->candidates[0].cgroup;
	fill_kill_set(s, domain, proc, ret);
	/* the kill set is the whole memory.oom.group scope: read all of it */
	if (ret->scope >= 0 && need_subtree(s, ret->scope, ret))
		return finish_needs(s, ret, round);
	explain_reason(s, ret, proc);
	return 0;
}
