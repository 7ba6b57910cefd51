/* SPDX-License-Identifier: MIT */
#pragma once

/* Shared by the selection stages: select.c (rank dispatch, decide),
 * plan.c and the policies (policy-*.c). */

#include <stdbool.h>
#include <stdint.h>

#include "cgoom/select.h"

static inline uint64_t sel_add(uint64_t a, uint64_t b)
{
	uint64_t r;
	return __builtin_add_overflow(a, b, &r) ? UINT64_MAX : r;
}

static inline int64_t sel_add_s(int64_t a, int64_t b)
{
	int64_t r;
	if (!__builtin_add_overflow(a, b, &r))
		return r;
	return b > 0 ? INT64_MAX : INT64_MIN;
}

static inline int64_t sel_mul_s(int64_t a, int64_t b)
{
	int64_t r;
	if (!__builtin_mul_overflow(a, b, &r))
		return r;
	return (a < 0) != (b < 0) ? INT64_MIN : INT64_MAX;
}

static inline int64_t sel_s64(uint64_t v)
{
	return v > (uint64_t)INT64_MAX ? INT64_MAX : (int64_t)v;
}

/* Whether pre-order position k is strictly inside top's subtree. */
static inline bool sel_in_subtree(const struct cgoom_snapshot *s, int top, size_t k)
{
	return k < s->n_cgroups && s->cgroups[s->preorder[k]].depth > s->cgroups[top].depth;
}

/* Why process p may never be killed, or CGOOM_WHY_NONE; *ret_protected
 * (may be NULL) says whether that reason also stops a cgroup.kill of its
 * cgroup (zombies and processes without mm do not). */
enum cgoom_why sel_ineligible_why(const struct cgoom_snapshot *s, const struct cgoom_settings *set,
				  const struct cgoom_process *p, bool *ret_protected);

/* Grows *p (of *cap elements of elem bytes) to hold need; -ENOMEM. */
int sel_reserve(void **p, size_t *cap, size_t need, size_t elem);
/* qsort comparator of ints, ascending. */
int sel_cmp_int(const void *a, const void *b);

/* P of entity e (its largest eligible process by oom_badness), or -1. */
int sel_pick_process(const struct cgoom_snapshot *s, const struct cgoom_settings *set,
		     const struct cgoom_decision *d, const struct cgoom_candidate *e);

/* The highest cgroup with memory.oom.group = 1 from domain down to the
 * memcg of process proc, or -1. */
int sel_kill_scope(const struct cgoom_snapshot *s, int domain, int proc);

/* A new zeroed candidate at the end of d's list (room is reserved by
 * cgoom_rank). */
struct cgoom_candidate *sel_add_candidate(struct cgoom_decision *d);

/* The parts of a charge the footprint adds (charge.c, SPEC 4), kept
 * apart so that a remainder (the root's own share, parked charge) can
 * be taken counter by counter. */
struct sel_charge {
	int64_t raw;           /* anon LRU + slab_unreclaimable + kernel_stack + sock + swap */
	int64_t lru;           /* active_anon + inactive_anon, where shmem sits */
	int64_t shmem, mapped; /* memory.stat shmem, file_mapped */
	bool shmem_known;      /* both were there */
	bool fallback;         /* raw is memory.current + memory.swap.current */
	bool bounded;          /* raw is an upper bound: leaves out nothing */
	bool unknown;          /* no figure at all (memory.stat and memory.current
				* unreadable): raw is 0, and so is nothing */
};
/* Memcg i's charge: its memory.stat, its fallback, or its bound. */
void sel_charge_of(const struct cgoom_snapshot *s, int i, struct sel_charge *ret);
/* a -= b, counter by counter (a remainder). */
void sel_charge_sub(struct sel_charge *a, const struct sel_charge *b);
/* The shmem no process maps that the footprint leaves out. */
uint64_t sel_charge_unmapped(const struct sel_charge *c);
/* raw minus that, floored at 0. */
uint64_t sel_charge_footprint(const struct sel_charge *c);
/* The shmem the footprint still counts (some process maps it): 0 when
 * that cannot be told (shmem or file_mapped missing, a bound). */
uint64_t sel_charge_mapped(const struct sel_charge *c);
/* Entity e (leaf, tree, unattributed) with every process in it read:
 * the mapped shmem its footprint counts beyond all that its own
 * processes map (their RssShmem) is taken out of its footprint into
 * mapped_elsewhere (charge.c). */
void sel_shmem_elsewhere(const struct cgoom_snapshot *s, struct cgoom_candidate *e);

/* Entity e (leaf or tree): what its processes hold open of the shmem
 * it left out, given back to its footprint (held_shmem), or with its
 * processes unread, all it left out (held_unread, an upper bound).
 * After sel_shmem_elsewhere(); takes from d->held_left (charge.c). */
void sel_held_credit(const struct cgoom_snapshot *s, const struct cgoom_settings *set,
		     struct cgoom_decision *d, struct cgoom_candidate *e);

/* Does memcg m have an eligible member (*ret_any: any process but
 * kernel threads)? Members are processes attached to m or to non-memcg
 * cgroups below it; a deferred m has them for all we know. */
bool sel_memcg_members(const struct cgoom_snapshot *s, const struct cgoom_settings *set, int m,
		       bool *ret_any);

/* SPEC 4 "unattributed charge" below delegation root r. */
struct sel_parked {
	uint64_t footprint; /* what no memcg holding processes inside r accounts for */
	uint64_t unmapped;  /* shmem no process maps, left out of it */
	uint64_t mapped;    /* mapped shmem it counts (sel_charge_mapped) */
	bool bounded;       /* an upper bound: some memcg inside is deferred */
	bool unchecked;     /* processes inside not all read */
	bool fallback;      /* an unreadable memory.stat went into it */
	bool unknown;       /* R's charge, or that of a memcg holding processes
			     * inside it, cannot be had: no figure */
	bool any;           /* r's subtree holds a process (not a kernel thread) */
	bool eligible;      /* ... an eligible one, for all we know */
};
/* entity: for R's own unattributed entity (SPEC 4 rule 2), where the
 * delegation roots inside R that hold their charge are taken off whole */
void sel_parked(const struct cgoom_snapshot *s, const struct cgoom_settings *set, int r,
		bool entity, struct sel_parked *ret);

/* The entity walk of policies cgroup and tree (policy-cgroup.c). */
void sel_rank_entities(const struct cgoom_snapshot *s, const struct cgoom_settings *set,
		       struct cgoom_decision *d);

extern const struct cgoom_policy_ops cgoom_policy_none_ops;
extern const struct cgoom_policy_ops cgoom_policy_cgroup_ops;
extern const struct cgoom_policy_ops cgoom_policy_tree_ops;
