/* SPDX-License-Identifier: MIT */
/*
 * oom_policy cgroup (SPEC 4, the seed's select_victim_memcg): entities
 * are leaf memcgs, and memcgs whose own policy is tree (their whole
 * subtree, see policy-tree.c), compared by footprint + bias; the root,
 * fairly, from the system counters minus its top-level children. The
 * walk is shared with policy tree, which differs only in the domain.
 */
#include "lib/select-internal.h"

static void finish_entity(const struct cgoom_snapshot *s, const struct cgoom_settings *set,
			  struct cgoom_decision *d, struct cgoom_candidate *e, int eligible_leaves)
{
	const struct cgoom_cgroup_settings *g = &set->cgroups[e->cgroup];
	sel_shmem_elsewhere(s, e);
	sel_held_credit(s, set, d, e);
	e->pref = (enum cgoom_pref)g->pref.value;
	e->bias = g->bias.value;
	e->score = sel_add_s(sel_s64(e->footprint), sel_mul_s(e->bias, sel_s64(d->domain_size / 1000)));
	if (eligible_leaves == 0 || e->why == CGOOM_WHY_NO_FOOTPRINT) {
		e->eligible = false;
		if (!e->why)
			e->why = e->pref == CGOOM_PREF_OMIT ? CGOOM_WHY_OMIT : CGOOM_WHY_NO_ELIGIBLE;
	} else {
		e->eligible = true;
		e->why = CGOOM_WHY_NONE;
	}
}

/* SPEC 4 "unattributed charge": a delegation root strictly inside the
 * domain whose charge can be parked (one without memcg children keeps
 * all of it: populated, its own; empty, nobody in it to kill). */
static bool parking_root(const struct cgoom_snapshot *s, const struct cgoom_settings *set,
			 const struct cgoom_decision *d, int m)
{
	return m != d->domain && set->cgroups[m].deleg_root != CGOOM_DELEG_ROOT_NO &&
	       s->cgroups[m].has_memcg_children;
}

/* Whether memcg m is inside a tree entity of the domain: some memcg from
 * m up to the domain has policy tree and memcg children (the walk makes
 * the outermost one an entity holding m). */
static bool in_tree(const struct cgoom_snapshot *s, const struct cgoom_settings *set, int domain,
		    int m)
{
	for (int a = m; a > 0; a = s->cgroups[a].parent) {
		if (s->cgroups[a].has_memcg_children && set->cgroups[a].policy.value == CGOOM_POLICY_TREE)
			return true;
		if (a == domain)
			break;
	}
	return false;
}

/* The walk left the subtree of every memcg from `from` up to (not
 * including) the first one `to` is in (to < 0: all of them up to the
 * domain): each such delegation root outside a tree entity adds its
 * unattributed entity now, innermost first, so that it is walked right
 * after its subtree. Nothing parked, or nobody in R to kill for it: no
 * entity (as an empty leaf). */
static void close_roots(const struct cgoom_snapshot *s, const struct cgoom_settings *set,
			struct cgoom_decision *d, int from, int to, int *order)
{
	for (int a = from; a >= 0 && a != d->domain && (to < 0 || !cgoom_snapshot_is_under(s, to, a));
	     a = s->cgroups[a].parent) {
		if (!parking_root(s, set, d, a) || in_tree(s, set, d->domain, a))
			continue;
		struct sel_parked p;
		sel_parked(s, set, a, true, &p);
		if ((p.footprint == 0 && !p.unknown) || !p.any)
			continue;
		struct cgoom_candidate *e = sel_add_candidate(d);
		e->kind = CGOOM_KIND_UNATTRIBUTED;
		e->cgroup = a;
		e->order = (*order)++;
		e->footprint = p.footprint;
		e->unmapped = p.unmapped;
		e->mapped_shmem = p.mapped;
		e->bounded = p.bounded;
		e->unchecked = p.unchecked;
		e->fallback = p.fallback;
		if (p.unknown)
			e->why = CGOOM_WHY_NO_FOOTPRINT;
		finish_entity(s, set, d, e, p.eligible ? 1 : 0);
	}
}

void sel_rank_entities(const struct cgoom_snapshot *s, const struct cgoom_settings *set,
		       struct cgoom_decision *d)
{
	int domain = d->domain;
	size_t pos = (size_t)s->prepos[domain];
	struct cgoom_candidate *group = NULL;
	int group_eligible = 0;
	int group_root = -1; /* the last delegation root whose parked charge the group holds */
	int order = 0, prev = -1;

	d->held_left = cgoom_domain_unmapped_shmem(s, domain);
	if (d->held_left < CGOOM_HELD_MIN)
		d->held_left = 0; /* (the reader's rule: see charge.c) */
	d->held_partial = false;
	for (size_t k = pos; k == pos || sel_in_subtree(s, domain, k); k++)
		d->held_partial |= s->cgroups[s->preorder[k]].deferred;

	for (size_t k = pos; k == pos || sel_in_subtree(s, domain, k); k++) {
		int m = s->preorder[k];
		const struct cgoom_cgroup *c = &s->cgroups[m];
		if (c->memcg != m)
			continue; /* non-memcgs belong to theirs */
		close_roots(s, set, d, prev, m, &order);
		prev = m;
		if (m == 0)
			continue; /* the root is judged after the walk */
		bool skip = c->has_memcg_children && set->cgroups[m].policy.value != CGOOM_POLICY_TREE;
		if (!skip && (!group || !cgoom_snapshot_is_under(s, m, group->cgroup))) {
			if (group)
				finish_entity(s, set, d, group, group_eligible);
			group = sel_add_candidate(d);
			group->kind = c->has_memcg_children ? CGOOM_KIND_TREE : CGOOM_KIND_LEAF;
			group->cgroup = m;
			group->order = order++;
			group_eligible = 0;
			group_root = -1;
		}
		/* a tree entity holds what is parked below the delegation
		 * roots inside it (the outermost ones: theirs covers the rest) */
		if (parking_root(s, set, d, m) && in_tree(s, set, domain, m) &&
		    (group_root < 0 || !cgoom_snapshot_is_under(s, m, group_root))) {
			struct sel_parked p;
			sel_parked(s, set, m, false, &p);
			group->footprint = sel_add(group->footprint, p.footprint);
			group->unmapped = sel_add(group->unmapped, p.unmapped);
			group->mapped_shmem = sel_add(group->mapped_shmem, p.mapped);
			group->bounded |= p.bounded;
			group->unchecked |= p.unchecked;
			group->fallback |= p.fallback;
			if (p.unknown)
				group->why = CGOOM_WHY_NO_FOOTPRINT;
			group_root = m;
		}
		if (c->has_memcg_children)
			continue; /* adds nothing itself */
		bool any;
		if (!sel_memcg_members(s, set, m, &any))
			continue; /* ineligible or empty leaves add nothing */
		struct sel_charge ch;
		sel_charge_of(s, m, &ch);
		group->footprint = sel_add(group->footprint, sel_charge_footprint(&ch));
		group->unmapped = sel_add(group->unmapped, sel_charge_unmapped(&ch));
		group->mapped_shmem = sel_add(group->mapped_shmem, sel_charge_mapped(&ch));
		group->fallback |= ch.fallback;
		if (ch.unknown)
			group->why = CGOOM_WHY_NO_FOOTPRINT; /* the entity's sum too */
		group->bounded |= c->stat_deferred;
		group->unchecked |= c->deferred;
		group_eligible++;
	}
	close_roots(s, set, d, prev, -1, &order);
	if (group)
		finish_entity(s, set, d, group, group_eligible);

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
		return;

	/* The root, fairly (seed patch 4/6): system-wide counters minus what
	 * the top-level memcgs account for (hierarchically), counter by
	 * counter (charge.c: the shmem rule applies to the root's share). */
	struct cgoom_candidate *root = sel_add_candidate(d);
	root->kind = CGOOM_KIND_ROOT;
	root->cgroup = 0;
	root->order = order;
	bool any;
	bool eligible = sel_memcg_members(s, set, 0, &any);
	struct sel_charge sys = { 0 };
	bool have_sys = true;
	if (cgoom_root_is_cgroup(s)) {
		/* a cgroup namespace (or a subtree mount): the root is a real
		 * cgroup whose memory.stat covers exactly what we can see */
		sel_charge_of(s, 0, &sys);
		root->fallback = sys.fallback;
		if (sys.unknown) {
			root->why = CGOOM_WHY_NO_FOOTPRINT;
			have_sys = false;
		}
	} else if (!s->meminfo_ok) {
		/* not reached through cgoom_rank, which refuses the system
		 * domain without /proc/meminfo (T unknown); safe all the same */
		root->why = CGOOM_WHY_NO_MEMINFO;
		have_sys = false;
	} else {
		const struct cgoom_meminfo *mi = &s->meminfo;
		uint64_t lru = sel_add(mi->active_anon, mi->inactive_anon);
		uint64_t raw = sel_add(lru, mi->sunreclaim);
		raw = sel_add(raw, mi->kernel_stack);
		raw = sel_add(raw, mi->swap_total > mi->swap_free ? mi->swap_total - mi->swap_free : 0);
		if (s->sockstat_ok) {
			uint64_t pages = sel_add(s->sockstat.tcp_mem_pages, s->sockstat.udp_mem_pages);
			uint64_t bytes = pages > UINT64_MAX / s->page_size ? UINT64_MAX : pages * s->page_size;
			raw = sel_add(raw, bytes);
		}
		sys.raw = sel_s64(raw);
		sys.lru = sel_s64(lru);
		sys.shmem = sel_s64(mi->shmem);
		sys.mapped = sel_s64(mi->mapped);
		sys.shmem_known = (mi->present & (CGOOM_MEMINFO_SHMEM | CGOOM_MEMINFO_MAPPED)) ==
				  (CGOOM_MEMINFO_SHMEM | CGOOM_MEMINFO_MAPPED);
	}
	if (!have_sys)
		eligible = false;
	else {
		for (int ch = s->cgroups[0].first_child; ch >= 0; ch = s->cgroups[ch].next_sibling) {
			if (s->cgroups[ch].memcg != ch)
				continue;
			if (s->cgroups[ch].stat_deferred) {
				/* counted as 0: the root's is an upper bound */
				root->bounded = sys.bounded = true;
				continue;
			}
			struct sel_charge cc;
			sel_charge_of(s, ch, &cc);
			sel_charge_sub(&sys, &cc);
		}
		root->footprint = sel_charge_footprint(&sys);
		root->unmapped = sel_charge_unmapped(&sys);
		root->mapped_shmem = sel_charge_mapped(&sys);
		sel_shmem_elsewhere(s, root); /* before "> 0" is asked of it */
		if (sys.unknown) {
			/* a top-level memcg without a figure: what is left is no
			 * measure of the root's own share (SPEC 4: a memcg's
			 * charge never flows to the root) */
			root->why = CGOOM_WHY_ROOT_UNKNOWN;
			eligible = false;
		} else if (root->footprint == 0) {
			root->why = CGOOM_WHY_ROOT_NONPOSITIVE;
			eligible = false;
		}
	}
	finish_entity(s, set, d, root, eligible ? 1 : 0);
	if (!any && !root->eligible)
		d->n_candidates--; /* nothing attached to the root at all */
}

static void rank_cgroup(const struct cgoom_snapshot *s, const struct cgoom_settings *set,
			struct cgoom_decision *d)
{
	sel_rank_entities(s, set, d);
}

const struct cgoom_policy_ops cgoom_policy_cgroup_ops = {
	.name = "cgroup",
	.on_root = true,
	.bounded = true,
	.rank = rank_cgroup,
};
