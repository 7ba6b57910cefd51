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
#include <stdlib.h>
#include <string.h>

#include "lib/select-internal.h"

const char *cgoom_kind_name(enum cgoom_kind k)
{
	static const char *const names[CGOOM_KIND_MAX] = {
		[CGOOM_KIND_LEAF] = "leaf",
		[CGOOM_KIND_TREE] = "tree",
		[CGOOM_KIND_ROOT] = "root",
		[CGOOM_KIND_PROCESS] = "process",
		[CGOOM_KIND_UNATTRIBUTED] = "unattributed",
	};
	return (unsigned)k < CGOOM_KIND_MAX ? names[k] : NULL;
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
	cgoom_decision_init(d);
}

/* Why a process may never be killed, or NULL. `protected_only` leaves
 * out the harmless reasons (zombie, no mm) that do not stop a
 * cgroup.kill of its cgroup. */
enum cgoom_why sel_ineligible_why(const struct cgoom_snapshot *s, const struct cgoom_settings *set,
				  const struct cgoom_process *p, bool *ret_protected)
{
	enum cgoom_why why = CGOOM_WHY_NONE;
	bool prot = true;
	if (p->kthread)
		why = CGOOM_WHY_KTHREAD;
	else if (p->pid == 1)
		why = CGOOM_WHY_PID1;
	else if (s->self_pid > 0 && p->pid == s->self_pid)
		why = CGOOM_WHY_SELF;
	else if (p->oom_score_adj <= -1000)
		why = CGOOM_WHY_ADJ_MIN;
	else if (set->cgroups[p->cgroup].pref.value == CGOOM_PREF_OMIT)
		why = CGOOM_WHY_OMIT;
	else if (p->zombie) {
		why = CGOOM_WHY_ZOMBIE;
		prot = false;
	} else if (!p->has_mm) {
		why = CGOOM_WHY_NO_MM;
		prot = false;
	} else
		prot = false;
	if (ret_protected)
		*ret_protected = prot;
	return why;
}

bool cgoom_process_eligible(const struct cgoom_snapshot *s, const struct cgoom_settings *set, size_t i,
			    enum cgoom_why *ret_why)
{
	enum cgoom_why why = sel_ineligible_why(s, set, &s->procs[i], NULL);
	if (ret_why)
		*ret_why = why;
	return why == CGOOM_WHY_NONE;
}

bool cgoom_root_is_cgroup(const struct cgoom_snapshot *s)
{
	return s->cgroups[0].current_ok;
}

bool cgoom_domain_size_known(const struct cgoom_snapshot *s, int domain)
{
	if (s->meminfo_ok)
		return true;
	if (domain == 0 && !cgoom_root_is_cgroup(s))
		return false; /* MemTotal + SwapTotal */
	const struct cgoom_cgroup *c = &s->cgroups[domain];
	/* memory.max "max" stands for MemTotal; any swap room but none
	 * needs SwapTotal */
	return c->max != UINT64_MAX && c->has_swap_max && c->swap_max == 0;
}

const char *cgoom_select_strerror(int r)
{
	if (r == -ELOOP)
		return "part of the domain's cgroup tree could not be read (too deep: see the "
		       "notes), so a process there could not be ranked: no victim chosen";
	if (r == -ENODATA)
		return "/proc/meminfo is unreadable or malformed, so the domain's size T (MemTotal, "
		       "SwapTotal), by which bias and oom_score_adj count, is unknown: no victim chosen";
	return strerror(-r);
}

uint64_t cgoom_domain_size(const struct cgoom_snapshot *s, int domain)
{
	uint64_t swap_total = s->meminfo_ok ? s->meminfo.swap_total : 0;
	if (domain == 0 && !cgoom_root_is_cgroup(s))
		return s->meminfo_ok ? sel_add(s->meminfo.mem_total, swap_total) : 0;
	const struct cgoom_cgroup *c = &s->cgroups[domain];
	uint64_t max = c->max;
	if (max == UINT64_MAX)
		max = s->meminfo_ok ? s->meminfo.mem_total : 0;
	uint64_t swap = c->has_swap_max && c->swap_max < swap_total ? c->swap_max : swap_total;
	return sel_add(max, swap);
}

int64_t cgoom_badness(const struct cgoom_process *p, uint64_t T)
{
	int64_t points = sel_s64(sel_add(sel_add(p->rss, p->swap), p->pte));
	return sel_add_s(points, sel_mul_s(p->oom_score_adj, sel_s64(T / 1000)));
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
 * memory.stat flushes only when enough is pending. Only unflushed
 * decreases (frees, whose uncharge memory.current saw at once) make it
 * lead; they are bounded, counting in the kernel's units of abs(val):
 *  - Linux 6.1 (mm/memcontrol.c memcg_rstat_updated, one global count
 *    for all memcgs): each CPU keeps up to MEMCG_CHARGE_BATCH units in
 *    its stats_updates (reset once above BATCH); each reset adds
 *    x / BATCH to the global stats_flush_threshold (only while that is
 *    <= num_online_cpus(), and x < 2 * BATCH * (x / BATCH)), and
 *    mem_cgroup_flush_stats(), called by memory_stat_format(), flushes
 *    everything once it is above num_online_cpus(). So a read that does
 *    not flush has <= BATCH units per CPU + < 2 * BATCH * ncpus counted
 *    pending: < 3 * BATCH * ncpus units, for all memcgs together (one
 *    memcg may hold all of it, so it is the per-memcg bound too: a
 *    shared budget does not lower the largest share).
 *  - Linux 6.12: the same per memcg and exact (vmstats->stats_updates,
 *    per-CPU < BATCH, the memcg flushed above BATCH * ncpus by
 *    mem_cgroup_flush_stats(memcg)): < 2 * BATCH * ncpus units.
 *  - A unit is a page for page-counted items (anon, sock), a KiB for
 *    kernel_stack and a byte for slab, so at most a page. Slab bytes
 *    also wait in the per-CPU object stock (mod_objcg_state), at most
 *    PAGE_SIZE per CPU per item, and of the two slab items only
 *    slab_unreclaimable is in the footprint: ncpus pages more.
 *  - memory.current itself never lags the footprint: charges precede
 *    the stat updates, and the per-CPU charge stock (up to BATCH pages
 *    charged but unused) only makes it higher.
 * So (3 * BATCH + 1) pages per CPU (772 KiB with 4 KiB pages) bounds
 * the lead on both kernels (6.12 needs only 2 * BATCH + 1). It was
 * 4 * BATCH: that counted the slab stock twice (reclaimable slab is not
 * in the footprint) and kept a BATCH per CPU of room; on the uniform
 * bench/scaling tree every page per CPU costs reads (3,266 memory.stat
 * at 4 * BATCH, 2,653 at 3 * BATCH + 1, of 9,900 leaves). What it does
 * not cover: a reader racing an ongoing flush (6.1 skips flushing then:
 * the other flusher is at work; and the flush's reset of the count
 * forgets updates made while it ran) and CPUs gone offline with deltas
 * left, all rare and short-lived. The CPU count is the online CPUs of /proc/stat (under
 * --proc-root); without it nothing is bounded and every memory.stat is
 * read. A footprint read above its bound all the same makes the plan
 * read everything (plan.c rule 3): for every memcg whose memory.stat is
 * read, a miss costs time, not the answer.
 */
#define MEMCG_CHARGE_BATCH 64

uint64_t cgoom_stat_slack(const struct cgoom_snapshot *s)
{
	if (s->n_cpus == 0)
		return UINT64_MAX;
	uint64_t pages = (uint64_t)(3 * MEMCG_CHARGE_BATCH + 1) * s->n_cpus, r;
	return __builtin_mul_overflow(pages, s->page_size, &r) ? UINT64_MAX : r;
}

uint64_t cgoom_memcg_bound(const struct cgoom_snapshot *s, int i)
{
	const struct cgoom_cgroup *c = &s->cgroups[i];
	return sel_add(sel_add(c->current_ok ? c->current : 0, c->swap_current), cgoom_stat_slack(s));
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

int sel_cmp_int(const void *a, const void *b)
{
	return cmp_i(*(const int *)a, *(const int *)b);
}

int sel_reserve(void **p, size_t *cap, size_t need, size_t elem)
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

/* P: the entity's largest eligible process by oom_badness (adj counts). */
int sel_pick_process(const struct cgoom_snapshot *s, const struct cgoom_settings *set,
		     const struct cgoom_decision *d, const struct cgoom_candidate *e)
{
	int best = -1;
	int64_t best_score = 0;
	int k;
	for (size_t it = cgoom_subtree_begin(s, e->cgroup); cgoom_subtree_next(s, e->cgroup, &it, &k);) {
		const struct cgoom_process *p = &s->procs[k];
		bool member = e->kind == CGOOM_KIND_ROOT      ? s->cgroups[p->cgroup].memcg == 0
			      : e->kind == CGOOM_KIND_PROCESS ? p->pid == e->pid
							      : true;
		if (!member || sel_ineligible_why(s, set, p, NULL))
			continue;
		int64_t sc = cgoom_badness(p, d->domain_size);
		if (best < 0 || sc > best_score || (sc == best_score && p->pid < s->procs[best].pid)) {
			best = (int)k;
			best_score = sc;
		}
	}
	return best;
}

uint64_t cgoom_victim_process_lead(const struct cgoom_snapshot *s, const struct cgoom_settings *set,
				   const struct cgoom_decision *d)
{
	if (!d->has_victim || d->victim < 0 || (size_t)d->victim >= d->n_candidates)
		return 0;
	const struct cgoom_candidate *e = &d->candidates[d->victim];
	if (e->kind == CGOOM_KIND_PROCESS)
		return UINT64_MAX;
	int64_t best = INT64_MIN, second = INT64_MIN;
	int k;
	for (size_t it = cgoom_subtree_begin(s, e->cgroup); cgoom_subtree_next(s, e->cgroup, &it, &k);) {
		const struct cgoom_process *p = &s->procs[k];
		if (e->kind == CGOOM_KIND_ROOT && s->cgroups[p->cgroup].memcg != 0)
			continue;
		if (sel_ineligible_why(s, set, p, NULL))
			continue;
		int64_t sc = cgoom_badness(p, d->domain_size);
		if (p->pid == d->victim_pid)
			best = sc;
		else if (sc > second)
			second = sc;
	}
	if (best == INT64_MIN)
		return 0; /* P not among them: nothing is proven */
	if (second == INT64_MIN)
		return UINT64_MAX;
	return best > second ? (uint64_t)best - (uint64_t)second : 0;
}

int sel_kill_scope(const struct cgoom_snapshot *s, int domain, int proc)
{
	/* highest memory.oom.group cgroup from the domain down to P's memcg */
	int scope = -1;
	int pm = s->cgroups[s->procs[proc].cgroup].memcg;
	/* the real root has no memory.oom.group; a namespace root does */
	int stop = cgoom_root_is_cgroup(s) ? -1 : 0;
	for (int i = pm; i > stop; i = s->cgroups[i].parent) {
		if (s->cgroups[i].oom_group)
			scope = i;
		if (i == domain)
			break;
	}
	return scope;
}

static void fill_kill_set(const struct cgoom_snapshot *s, const struct cgoom_settings *set, int domain,
			  int proc, struct cgoom_decision *d)
{
	d->scope = sel_kill_scope(s, domain, proc);
	d->n_pids = 0;
	if (d->scope < 0) {
		d->pids[d->n_pids++] = s->procs[proc].pid;
		d->use_cgroup_kill = false;
		return;
	}
	/* SPEC 5: cgroup.kill only when no member is ineligible; one that
	 * could not be read may be protected */
	bool protected_member = false;
	for (size_t c = 0; c < s->n_cgroups; c++)
		if (s->cgroups[c].procs_unknown && cgoom_snapshot_is_under(s, (int)c, d->scope))
			protected_member = true;
	int k;
	for (size_t it = cgoom_subtree_begin(s, d->scope); cgoom_subtree_next(s, d->scope, &it, &k);) {
		const struct cgoom_process *p = &s->procs[k];
		bool prot;
		if (!sel_ineligible_why(s, set, p, &prot))
			d->pids[d->n_pids++] = p->pid;
		else if (prot)
			protected_member = true;
	}
	d->use_cgroup_kill = !protected_member;
	qsort(d->pids, d->n_pids, sizeof(int), sel_cmp_int);
}

/* ---- the policies, one row each ---- */

static const struct cgoom_policy_ops *const policies[CGOOM_POLICY_MAX] = {
	[CGOOM_POLICY_NONE] = &cgoom_policy_none_ops,
	[CGOOM_POLICY_CGROUP] = &cgoom_policy_cgroup_ops,
	[CGOOM_POLICY_TREE] = &cgoom_policy_tree_ops,
};

const struct cgoom_policy_ops *cgoom_policy_ops(enum cgoom_policy p)
{
	return (unsigned)p < CGOOM_POLICY_MAX ? policies[p] : NULL;
}

struct cgoom_candidate *sel_add_candidate(struct cgoom_decision *d)
{
	struct cgoom_candidate *c = &d->candidates[d->n_candidates++];
	memset(c, 0, sizeof(*c));
	return c;
}

/* ---- the stages ---- */

int cgoom_rank(const struct cgoom_snapshot *s, const struct cgoom_settings *set, int domain,
	       struct cgoom_decision *d)
{
	if (!s->preorder || set->n_cgroups != s->n_cgroups || domain < 0 ||
	    (size_t)domain >= s->n_cgroups || s->cgroups[domain].memcg != domain)
		return -EINVAL;
	int r = sel_reserve((void **)&d->candidates, &d->cap_candidates, s->n_cgroups + s->n_procs + 1,
			sizeof(*d->candidates));
	if (r == 0)
		r = sel_reserve((void **)&d->pids, &d->cap_pids, s->n_procs + 1, sizeof(*d->pids));
	if (r < 0)
		return r;
	d->n_candidates = d->n_pids = 0;
	d->has_victim = d->inflight = d->use_cgroup_kill = false;
	d->victim = d->victim_pid = d->victim_cgroup = d->scope = -1;
	d->inflight_pid = 0;
	d->outcome = CGOOM_OUTCOME_NO_CANDIDATE;
	d->n_eligible = 0;
	d->domain = domain;
	d->policy = (enum cgoom_policy)set->cgroups[domain].policy.value;
	const struct cgoom_policy_ops *ops = cgoom_policy_ops(d->policy);
	if (!ops || (domain == 0 && !ops->on_root)) {
		/* resolve refuses these; be safe anyway */
		d->policy = CGOOM_POLICY_CGROUP;
		ops = cgoom_policy_ops(d->policy);
	}
	/* a process left unread could outrank every candidate */
	for (size_t c = 0; c < s->n_cgroups; c++)
		if (s->cgroups[c].subtree_unread && cgoom_snapshot_is_under(s, (int)c, domain))
			return -ELOOP;
	/* SPEC 3, 4: bias and oom_score_adj count by T; a T taken as 0
	 * would drop them all and rank another victim */
	if (!cgoom_domain_size_known(s, domain))
		return -ENODATA;
	d->domain_size = cgoom_domain_size(s, domain);
	ops->rank(s, set, d);
	qsort(d->candidates, d->n_candidates, sizeof(*d->candidates), cmp_cand_qsort);
	while (d->n_eligible < d->n_candidates && d->candidates[d->n_eligible].eligible)
		d->n_eligible++; /* they lead the ranking */
	return 0;
}

int cgoom_decide(const struct cgoom_snapshot *s, const struct cgoom_settings *set,
		 struct cgoom_decision *d)
{
	int domain = d->domain;
	/* like the kernel: while an earlier victim in this domain is dying,
	 * choose nobody else */
	for (size_t i = 0; i < s->n_inflight; i++)
		for (size_t k = 0; k < s->n_procs; k++)
			if (s->procs[k].pid == s->inflight[i] &&
			    cgoom_snapshot_is_under(s, s->procs[k].cgroup, domain)) {
				d->inflight = true;
				d->inflight_pid = s->inflight[i];
				d->outcome = CGOOM_OUTCOME_INFLIGHT;
				return 0;
			}
	if (d->n_eligible == 0) {
		d->outcome = CGOOM_OUTCOME_NO_CANDIDATE;
		return 0;
	}
	int proc = sel_pick_process(s, set, d, &d->candidates[0]);
	if (proc < 0) {
		d->outcome = CGOOM_OUTCOME_NO_PROCESS;
		return 0;
	}
	d->outcome = CGOOM_OUTCOME_VICTIM;
	d->has_victim = true;
	d->victim = 0;
	d->victim_pid = s->procs[proc].pid;
	d->victim_cgroup = d->candidates[0].cgroup;
	fill_kill_set(s, set, domain, proc, d);
	return 0;
}

int cgoom_select(const struct cgoom_snapshot *s, const struct cgoom_settings *set, int domain,
		 struct cgoom_decision *ret)
{
	struct cgoom_plan plan;
	cgoom_plan_init(&plan);
	int r = cgoom_rank(s, set, domain, ret);
	if (r == 0)
		r = cgoom_plan(s, set, ret, &plan);
	if (r == 0)
		r = plan.kind == CGOOM_PLAN_DONE ? cgoom_decide(s, set, ret) : -EAGAIN;
	cgoom_plan_free(&plan);
	return r;
}
