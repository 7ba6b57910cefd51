/* SPDX-License-Identifier: MIT */
/*
 * oom_policy tree (SPEC 4): a memcg with policy tree is one entity
 * holding its whole subtree (the outermost one wins). As a domain's
 * policy, all of the domain is one entity. The entity walk is policy
 * cgroup's (policy-cgroup.c), which groups below every tree memcg; here
 * only what differs: it may not be the root's policy (the seed refuses
 * it there).
 */
#include "lib/select-internal.h"

static void rank_tree(const struct cgoom_snapshot *s, const struct cgoom_settings *set,
		      struct cgoom_decision *d)
{
	sel_rank_entities(s, set, d);
}

const struct cgoom_policy_ops cgoom_policy_tree_ops = {
	.name = "tree",
	.on_root = false,
	.bounded = true,
	.rank = rank_tree,
};
