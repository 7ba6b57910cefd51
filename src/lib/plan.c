/* SPDX-License-Identifier: MIT */
/*
 * The plan of branch and bound: given a ranking made with bounds, what
 * must still be read so that deciding on it gives exactly the answer a
 * full read gives (SPEC 4 "shortcuts"). Pure and stateless: everything
 * it looks at is in the snapshot (which cgroups are still deferred) and
 * the ranking; nothing is carried from one call to the next.
 *
 * The rules, in order:
 *  1. a deferred domain is read first (its memory.max is T);
 *  2. an in-flight PID that is not in the snapshot is located (its
 *     cgroup read) before anything is ranked; one found in the domain
 *     ends the plan (decide waits for it);
 *  3. a footprint above its bound anywhere in the domain means the
 *     bound's argument (cgoom_stat_slack) failed here: read everything;
 *     unless its memory.stat was read alone, after the walk's
 *     memory.current: then that memcg is read whole first, and judged
 *     on a memory.current as fresh as its memory.stat;
 *  4. a policy whose scores cannot be bounded reads everything;
 *  5. candidates ranked ahead of the first exact score have their
 *     memory.stat read (and once every memory.stat in them is read,
 *     their bodies: a footprint with parked charge in it, SPEC 4, is
 *     exact only when it is known which memcgs hold processes);
 *     candidates ranked ahead of the first one whose processes are
 *     known have their bodies read, best first;
 *  6. the victim's memory.oom.group scope is read whole (the kill set).
 * A batch with no natural limit (5: every candidate bounded; bodies)
 * takes 1 + the number of leaves already read that way in the domain,
 * so a tree of empty or protected leaves costs log rounds, not one per
 * leaf, without counting rounds.
 *
 * Why the memory.stat batch of rule 5 is everything ahead of the first
 * exact score, not smaller batches re-pruned in between: a candidate
 * whose bound is above the best exact score could be the real first,
 * so every sound order reads it, unless a better exact score turns up
 * first. The first read (batch 1) is the highest bound; when bounds
 * differ from footprints by about the same (page cache alike), that is
 * the winner, and the batch after it is exactly the candidates that
 * must be read: on the uniform bench/scaling tree 1 + 2,652 reads, each
 * of those 2,652 leaves' bound (anon + 10 MiB of cache + the slack)
 * above the winner's footprint. Smaller batches there only add rounds
 * (each a rank and a plan over every candidate). They would pay where
 * the highest bound is mostly page cache and the winner ranks lower:
 * then this batch may read candidates the winner would have pruned.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "lib/select-internal.h"

void cgoom_plan_init(struct cgoom_plan *p)
{
	memset(p, 0, sizeof(*p));
}

void cgoom_plan_free(struct cgoom_plan *p)
{
	if (!p)
		return;
	free(p->cgroups);
	free(p->pids);
	cgoom_plan_init(p);
}

static void ask(struct cgoom_plan *p, int i)
{
	/* cap_cgroups >= 2 * n_cgroups: a bounded root asks for its
	 * top-level children, which may be asked for again as candidates
	 * of their own; duplicates go at the end */
	p->cgroups[p->n_cgroups++] = i;
}

/* How many cgroups in top's subtree (top included) are deferred (with
 * stat_only: stat_deferred); each is asked for unless p is NULL. */
static size_t deferred_in(const struct cgoom_snapshot *s, int top, bool stat_only,
			  struct cgoom_plan *p)
{
	size_t pos = (size_t)s->prepos[top], n = 0;
	for (size_t k = pos; k == pos || sel_in_subtree(s, top, k); k++) {
		const struct cgoom_cgroup *c = &s->cgroups[s->preorder[k]];
		if (stat_only ? !c->stat_deferred : !c->deferred)
			continue;
		if (p)
			ask(p, s->preorder[k]);
		n++;
	}
	return n;
}

/* 1 + the childless memcgs in the domain already read (their
 * memory.stat, or with bodies their processes too). */
static size_t batch(const struct cgoom_snapshot *s, int domain, bool bodies)
{
	size_t pos = (size_t)s->prepos[domain], n = 1;
	for (size_t k = pos + 1; sel_in_subtree(s, domain, k); k++) {
		int i = s->preorder[k];
		const struct cgoom_cgroup *c = &s->cgroups[i];
		if (c->memcg == i && !c->has_memcg_children && !(bodies ? c->deferred : c->stat_deferred))
			n++;
	}
	return n;
}

/* Rule 3: footprints read in the domain above their bound. A memcg
 * whose memory.stat was read alone (its body still deferred) is checked
 * against the memory.current of the walk, read before it: it may just
 * have grown since, so it is asked for (its body: a fresh memory.current
 * beside a fresh memory.stat) and judged again. Rereading memory.current
 * with every memory.stat instead would double the files of each one
 * read, for a case that only a growing cgroup meets. One read whole and
 * still above its bound: the bound's argument failed, returns true. */
static bool bound_broken(const struct cgoom_snapshot *s, int domain, struct cgoom_plan *p)
{
	size_t pos = (size_t)s->prepos[domain];
	for (size_t k = pos; k == pos || sel_in_subtree(s, domain, k); k++) {
		int i = s->preorder[k];
		const struct cgoom_cgroup *c = &s->cgroups[i];
		if (c->memcg != i || !c->stat_ok || c->stat_deferred || !c->current_ok || c->swap_bad)
			continue; /* (a swap_bad footprint holds a bound of its swap) */
		if (cgoom_memcg_footprint(s, i, NULL) <= cgoom_memcg_bound(s, i))
			continue;
		if (!c->deferred)
			return true;
		ask(p, i);
	}
	return false;
}

/* The cgroups behind bounded candidate e whose memory.stat is unread. */
static void ask_stats(const struct cgoom_snapshot *s, const struct cgoom_candidate *e,
		      struct cgoom_plan *p)
{
	if (e->kind != CGOOM_KIND_ROOT) {
		deferred_in(s, e->cgroup, true, p);
		return;
	}
	for (int ch = s->cgroups[0].first_child; ch >= 0; ch = s->cgroups[ch].next_sibling)
		if (s->cgroups[ch].memcg == ch && s->cgroups[ch].stat_deferred)
			ask(p, ch);
}

/* Rule 5: every eligible candidate ahead of the first exact one could
 * be the real first, and so could every one ahead of the first whose
 * processes are known. */
static void plan_ranked(const struct cgoom_snapshot *s, const struct cgoom_decision *d,
			struct cgoom_plan *p)
{
	size_t n = 0, lead, exact;
	while (n < d->n_candidates && d->candidates[n].eligible)
		n++; /* the eligible ones lead the ranking */
	for (exact = 0; exact < n && d->candidates[exact].bounded; exact++)
		;
	for (lead = exact; lead < n && d->candidates[lead].unchecked; lead++)
		;
	if (lead == 0)
		return; /* the first is exact and known (or nothing is eligible) */
	if (exact > 0) {
		size_t take = exact < n ? exact : batch(s, d->domain, false);
		p->kind = CGOOM_PLAN_STATS;
		for (size_t i = 0; i < take && i < n; i++)
			ask_stats(s, &d->candidates[i], p);
		if (p->n_cgroups)
			return;
		/* every memory.stat is read and still bounded: parked charge,
		 * which only the bodies below its delegation root make exact
		 * (which memcgs hold processes, charge.c sel_parked) */
		p->kind = CGOOM_PLAN_BODIES;
		for (size_t i = 0; i < take && i < n; i++)
			deferred_in(s, d->candidates[i].cgroup, false, p);
		return;
	}
	size_t take = batch(s, d->domain, true);
	p->kind = CGOOM_PLAN_BODIES;
	for (size_t i = 0; i < lead && i < take; i++) {
		const struct cgoom_candidate *c = &d->candidates[i];
		/* files held open, its own processes read: who else holds
		 * them is known only with every process of the domain read
		 * (charge.c sel_held_credit) */
		bool all = c->held_unread && deferred_in(s, c->cgroup, false, NULL) == 0;
		deferred_in(s, all ? d->domain : c->cgroup, false, p);
	}
}

/* Rule 2: in-flight PIDs not in the snapshot, to locate; true when one
 * is in the snapshot inside the domain (nothing more to read). */
static bool plan_inflight(const struct cgoom_snapshot *s, int domain, struct cgoom_plan *p)
{
	for (size_t i = 0; i < s->n_inflight; i++) {
		bool found = false;
		for (size_t k = 0; k < s->n_procs && !found; k++)
			if (s->procs[k].pid == s->inflight[i]) {
				found = true;
				if (cgoom_snapshot_is_under(s, s->procs[k].cgroup, domain))
					return true;
			}
		if (!found && !s->inflight_located)
			p->pids[p->n_pids++] = s->inflight[i];
	}
	if (p->n_pids)
		p->kind = CGOOM_PLAN_LOCATE;
	return false;
}

int cgoom_plan(const struct cgoom_snapshot *s, const struct cgoom_settings *set,
	       const struct cgoom_decision *d, struct cgoom_plan *ret)
{
	int domain = d->domain;
	if (!s->preorder || domain < 0 || (size_t)domain >= s->n_cgroups)
		return -EINVAL;
	int r = sel_reserve((void **)&ret->cgroups, &ret->cap_cgroups, 2 * s->n_cgroups + 1,
			sizeof(*ret->cgroups));
	if (r == 0)
		r = sel_reserve((void **)&ret->pids, &ret->cap_pids, s->n_inflight + 1, sizeof(*ret->pids));
	if (r < 0)
		return r;
	ret->kind = CGOOM_PLAN_DONE;
	ret->n_cgroups = ret->n_pids = 0;
	ret->bound_broken = false;

	if (s->cgroups[domain].deferred) {
		ret->kind = CGOOM_PLAN_BODIES;
		ask(ret, domain);
		return 0;
	}
	if (deferred_in(s, domain, false, NULL) == 0)
		return 0; /* everything is read: the ranking is final */
	if (plan_inflight(s, domain, ret) || ret->kind != CGOOM_PLAN_DONE)
		return 0;
	bool broken = bound_broken(s, domain, ret);
	if (broken || !cgoom_policy_ops(d->policy)->bounded) {
		ret->bound_broken = cgoom_policy_ops(d->policy)->bounded;
		ret->kind = CGOOM_PLAN_BODIES;
		ret->n_cgroups = 0;
		deferred_in(s, domain, false, ret);
	} else if (ret->n_cgroups) {
		ret->kind = CGOOM_PLAN_BODIES; /* above their bound: read again, whole */
	} else {
		plan_ranked(s, d, ret);
	}
	if (ret->kind == CGOOM_PLAN_DONE && d->n_candidates > 0 && d->candidates[0].eligible) {
		int proc = sel_pick_process(s, set, d, &d->candidates[0]);
		int scope = proc >= 0 ? sel_kill_scope(s, domain, proc) : -1;
		if (scope >= 0 && deferred_in(s, scope, false, ret))
			ret->kind = CGOOM_PLAN_BODIES;
	}
	qsort(ret->cgroups, ret->n_cgroups, sizeof(int), sel_cmp_int);
	size_t w = 0;
	for (size_t i = 0; i < ret->n_cgroups; i++)
		if (w == 0 || ret->cgroups[w - 1] != ret->cgroups[i])
			ret->cgroups[w++] = ret->cgroups[i];
	ret->n_cgroups = w;
	return 0;
}
