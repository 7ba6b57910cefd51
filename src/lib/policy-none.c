/* SPDX-License-Identifier: MIT */
/*
 * oom_policy none (SPEC 4): the kernel's own rule. Every process with an
 * address space in the domain's subtree is a candidate, scored by
 * oom_badness; tiers apply by its cgroup's preference, bias does not.
 */
#include "lib/select-internal.h"

static void rank_none(const struct cgoom_snapshot *s, const struct cgoom_settings *set,
		      struct cgoom_decision *d)
{
	int domain = d->domain;
	int k;
	for (size_t it = cgoom_subtree_begin(s, domain); cgoom_subtree_next(s, domain, &it, &k);) {
		const struct cgoom_process *p = &s->procs[k];
		if (p->kthread || p->zombie || !p->has_mm)
			continue;
		struct cgoom_candidate *c = sel_add_candidate(d);
		c->kind = CGOOM_KIND_PROCESS;
		c->cgroup = p->cgroup;
		c->pid = p->pid;
		c->footprint = sel_add(sel_add(p->rss, p->swap), p->pte);
		c->score = cgoom_badness(p, d->domain_size);
		c->pref = (enum cgoom_pref)set->cgroups[p->cgroup].pref.value;
		c->bias = p->oom_score_adj;
		c->why = sel_ineligible_why(s, set, p, NULL);
		c->eligible = !c->why;
		c->order = p->pid;
	}
}

const struct cgoom_policy_ops cgoom_policy_none_ops = {
	.name = "none",
	.on_root = true,
	.bounded = false, /* oom_score_adj is no part of any memcg bound */
	.rank = rank_none,
};
