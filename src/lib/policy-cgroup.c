/* SPDX-License-Identifier: MIT */
/*
 * oom_policy cgroup (SPEC 4, the seed's select_victim_memcg): entities
 * are leaf memcgs, and memcgs whose own policy is tree (their whole
 * subtree, see policy-tree.c), compared by footprint + bias; the root,
 * fairly, from the system counters minus its top-level children. The
 * walk is shared with policy tree, which differs only in the domain.
 */
#include "lib/select-internal.h"

/* Does memcg m (a leaf) have an eligible member? Members are processes
 * attached to m or to non-memcg cgroups below it. */
static bool memcg_members(const struct cgoom_snapshot *s, const struct cgoom_settings *set, int m,
			  bool *ret_any)
{
	bool eligible = false, any = false;
	int k;
	if (s->cgroups[m].deferred) {
		/* processes not read: eligible for all we know, unless omitted */
		*ret_any = true;
		return set->cgroups[m].pref.value != CGOOM_PREF_OMIT;
	}
	for (size_t it = cgoom_subtree_begin(s, m); cgoom_subtree_next(s, m, &it, &k);) {
		const struct cgoom_process *p = &s->procs[k];
		if (s->cgroups[p->cgroup].memcg != m || p->kthread)
			continue;
		any = true;
		if (!sel_ineligible_why(s, set, p, NULL)) {
			eligible = true;
			break;
		}
	}
	*ret_any = any;
	return eligible;
}

static void finish_entity(const struct cgoom_settings *set, struct cgoom_decision *d,
			  struct cgoom_candidate *e, int eligible_leaves)
{
	const struct cgoom_cgroup_settings *g = &set->cgroups[e->cgroup];
	e->pref = (enum cgoom_pref)g->pref.value;
	e->bias = g->bias.value;
	e->score = sel_add_s(sel_s64(e->footprint), sel_mul_s(e->bias, sel_s64(d->domain_size / 1000)));
	if (eligible_leaves == 0) {
		e->eligible = false;
		if (!e->why)
			e->why = e->pref == CGOOM_PREF_OMIT ? CGOOM_WHY_OMIT : CGOOM_WHY_NO_ELIGIBLE;
	} else {
		e->eligible = true;
		e->why = CGOOM_WHY_NONE;
	}
}

void sel_rank_entities(const struct cgoom_snapshot *s, const struct cgoom_settings *set,
		       struct cgoom_decision *d)
{
	int domain = d->domain;
	size_t pos = (size_t)s->prepos[domain];
	struct cgoom_candidate *group = NULL;
	int group_eligible = 0;
	int order = 0;

	for (size_t k = pos; k == pos || sel_in_subtree(s, domain, k); k++) {
		int m = s->preorder[k];
		const struct cgoom_cgroup *c = &s->cgroups[m];
		if (m == 0 || c->memcg != m)
			continue; /* the root is judged after the walk; non-memcgs belong to theirs */
		if (c->has_memcg_children && set->cgroups[m].policy.value != CGOOM_POLICY_TREE)
			continue;
		if (!group || !cgoom_snapshot_is_under(s, m, group->cgroup)) {
			if (group)
				finish_entity(set, d, group, group_eligible);
			group = sel_add_candidate(d);
			group->kind = c->has_memcg_children ? CGOOM_KIND_TREE : CGOOM_KIND_LEAF;
			group->cgroup = m;
			group->order = order++;
			group_eligible = 0;
		}
		if (c->has_memcg_children)
			continue;
		bool any;
		if (!memcg_members(s, set, m, &any))
			continue; /* ineligible or empty leaves add nothing */
		bool fb;
		group->footprint = sel_add(group->footprint, cgoom_memcg_footprint(s, m, &fb));
		group->fallback |= fb;
		group->bounded |= c->stat_deferred;
		group->unchecked |= c->deferred;
		group_eligible++;
	}
	if (group)
		finish_entity(set, d, group, group_eligible);

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
	 * the top-level memcgs account for (hierarchically). */
	struct cgoom_candidate *root = sel_add_candidate(d);
	root->kind = CGOOM_KIND_ROOT;
	root->cgroup = 0;
	root->order = order;
	bool any;
	bool eligible = memcg_members(s, set, 0, &any);
	uint64_t sys;
	bool have_sys = true;
	if (cgoom_root_is_cgroup(s)) {
		/* a cgroup namespace (or a subtree mount): the root is a real
		 * cgroup whose memory.stat covers exactly what we can see */
		bool fb;
		sys = cgoom_memcg_footprint(s, 0, &fb);
		root->fallback = fb;
	} else if (!s->meminfo_ok) {
		root->why = CGOOM_WHY_NO_MEMINFO;
		have_sys = false;
		sys = 0;
	} else {
		const struct cgoom_meminfo *mi = &s->meminfo;
		sys = sel_add(mi->active_anon, mi->inactive_anon);
		sys = sel_add(sys, mi->sunreclaim);
		sys = sel_add(sys, mi->kernel_stack);
		sys = sel_add(sys, mi->swap_total > mi->swap_free ? mi->swap_total - mi->swap_free : 0);
		if (s->sockstat_ok) {
			uint64_t pages = sel_add(s->sockstat.tcp_mem_pages, s->sockstat.udp_mem_pages);
			uint64_t bytes = pages > UINT64_MAX / s->page_size ? UINT64_MAX : pages * s->page_size;
			sys = sel_add(sys, bytes);
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
				children = sel_add(children, cgoom_memcg_footprint(s, ch, NULL));
		if (sys > children)
			root->footprint = sys - children;
		else {
			root->footprint = 0;
			root->why = CGOOM_WHY_ROOT_NONPOSITIVE;
			eligible = false;
		}
	}
	finish_entity(set, d, root, eligible ? 1 : 0);
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
