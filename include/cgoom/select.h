/* SPDX-License-Identifier: MIT */
#pragma once

/*
 * Settings resolution (SPEC 3, 7) and victim selection (SPEC 4, 5).
 * Pure functions of a finalized snapshot and a config.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cgoom/config.h"
#include "cgoom/snapshot.h"

/* Fills policy, pref, bias and delegated of every cgroup from the raw
 * settings and the config, with precedence
 *   trusted xattr > config > systemd user.oomd_* (root-owned dir)
 *   > user.cgoom xattr (strictly inside a delegate = yes subtree, and
 *     only where it makes the cgroup more killable) > inherited > default,
 * and omit absolute downwards. Values it ignores are recorded as notes
 * in the snapshot (tree on "/", a delegatee's avoid/omit/negative bias).
 * cfg may be NULL (no config). */
int cgoom_settings_resolve(struct cgoom_snapshot *s, const struct cgoom_config *cfg);

enum cgoom_kind {
	CGOOM_KIND_LEAF = 0,
	CGOOM_KIND_TREE,
	CGOOM_KIND_ROOT,
	CGOOM_KIND_PROCESS,
};
const char *cgoom_kind_name(enum cgoom_kind k);

struct cgoom_candidate {
	enum cgoom_kind kind;
	int cgroup;         /* entity cgroup; for a process, the cgroup it is attached to */
	int pid;            /* process kind only */
	uint64_t footprint; /* bytes: memcg footprint, or rss+swap+pte of a process */
	int64_t score;      /* footprint + bias (cgroups), oom_badness (processes) */
	enum cgoom_pref pref;
	int bias;        /* cgroups: the bias applied; processes: oom_score_adj */
	bool eligible;   /* false: listed for the explanation only, never chosen */
	bool fallback;   /* footprint from memory.current + memory.swap.current */
	bool bounded;    /* holds a stat_deferred cgroup: footprint and score are upper bounds */
	bool unchecked;  /* holds a deferred cgroup: eligible for all we know (processes not read) */
	int order;       /* pre-order walk position (root entity: after all) */
	const char *why; /* static text for ineligible ones; NULL otherwise */
};

struct cgoom_decision {
	int domain;
	enum cgoom_policy policy;
	uint64_t domain_size; /* T: system MemTotal+SwapTotal, or mem_cgroup_get_max */

	/* eligible candidates best first, then the ineligible */
	struct cgoom_candidate *candidates;
	size_t n_candidates, cap_candidates;

	bool has_victim;
	int victim;       /* index into candidates */
	int victim_pid;   /* P: the largest eligible process in the entity */
	int victim_cgroup; /* the entity's cgroup */
	int scope;        /* memory.oom.group scope cgroup, or -1 */
	bool use_cgroup_kill; /* scope set and no member of it is ineligible */
	int *pids;        /* exactly what would be signalled, ascending */
	size_t n_pids, cap_pids;

	bool inflight; /* aborted: a previous victim in the domain is still dying */
	int inflight_pid;
	char reason[512];

	/* Branch and bound (a snapshot with deferred cgroups): the deferred
	 * cgroups that must be read before the answer is final, ascending.
	 * When n_needs > 0 there is no victim yet: read them
	 * (cgoom_snapshot_expand, or only their memory.stat when needs_stat),
	 * finalize, and select again. Always 0 for a snapshot without
	 * deferred cgroups. */
	int *needs;
	size_t n_needs, cap_needs;
	bool needs_stat;
	unsigned round; /* selections so far on this decision with needs (bounds the batch) */
};

void cgoom_decision_init(struct cgoom_decision *d);
void cgoom_decision_free(struct cgoom_decision *d); /* NULL-safe */

/* Whether process i may ever be killed: has an address space, not a
 * kernel thread or zombie, oom_score_adj != -1000, not PID 1, not
 * cgoom itself, not under an omit cgroup. Needs resolved settings. */
bool cgoom_process_eligible(const struct cgoom_snapshot *s, size_t i, const char **ret_why);

/* Whether the cgroup root is itself a cgroup with memory files (a cgroup
 * namespace, or cgroupfs mounted from a subtree): then "/" is judged
 * like a cgroup domain, from its own memory.stat and memory.max, since
 * /proc/meminfo describes the whole host. */
bool cgoom_root_is_cgroup(const struct cgoom_snapshot *s);

/* T for a domain (SPEC 3): system MemTotal + SwapTotal; cgroup
 * memory.max + min(memory.swap.max, SwapTotal), memory.max "max" taken
 * as MemTotal. */
uint64_t cgoom_domain_size(const struct cgoom_snapshot *s, int domain);

/* The kernel's oom_badness in bytes: rss + swap + pte + adj * (T / 1000). */
int64_t cgoom_badness(const struct cgoom_process *p, uint64_t T);

/* Footprint of memcg i (SPEC 4); *ret_fallback says whether it came from
 * memory.current + memory.swap.current because memory.stat was bad. */
uint64_t cgoom_memcg_footprint(const struct cgoom_snapshot *s, int i, bool *ret_fallback);

/* The most memory.stat's footprint can lead memory.current +
 * memory.swap.current by on a real kernel (the per-CPU stat deltas not
 * yet flushed): 4 * MEMCG_CHARGE_BATCH pages per online CPU; UINT64_MAX
 * when the CPU count is unknown. The argument is in select.c. */
uint64_t cgoom_stat_slack(const struct cgoom_snapshot *s);

/* The bound of memcg i: an upper bound of the footprint its memory.stat
 * would give, memory.current + memory.swap.current + cgoom_stat_slack()
 * (saturating). */
uint64_t cgoom_memcg_bound(const struct cgoom_snapshot *s, int i);

/* Ranking comparator (SPEC 3): tier, then score (higher first), then walk
 * order (cgroups) or PID (processes), lower first. Negative when a ranks
 * ahead of b. Total: never 0 for two distinct candidates. */
int cgoom_candidate_cmp(const struct cgoom_candidate *a, const struct cgoom_candidate *b);

/* Selects a victim in `domain` (a memcg index) as if it were out of
 * memory now. Deferred cgroups count with their bound (and as eligible)
 * until they could decide the answer: then they are listed in
 * ret->needs and ret->has_victim is false. The final answer (n_needs 0)
 * is the one a full snapshot gives, as long as each bound holds. Writes *ret (whose buffers it reuses and grows). Returns 0
 * also when there is no victim (ret->has_victim false, reason says why)
 * or when a victim is in flight; -EINVAL if domain is not a memcg,
 * -ENOMEM. */
int cgoom_select(const struct cgoom_snapshot *s, int domain, struct cgoom_decision *ret);
