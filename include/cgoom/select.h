/* SPDX-License-Identifier: MIT */
#pragma once

/*
 * Victim selection (SPEC 4, 5). Pure functions of a finalized snapshot
 * and the settings resolved from it (settings.h).
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cgoom/config.h"
#include "cgoom/settings.h"
#include "cgoom/snapshot.h"

enum cgoom_kind {
	CGOOM_KIND_LEAF = 0,
	CGOOM_KIND_TREE,
	CGOOM_KIND_ROOT,
	CGOOM_KIND_PROCESS,
	CGOOM_KIND_UNATTRIBUTED, /* SPEC 4: charge parked below a delegation root */
	CGOOM_KIND_MAX,
};
const char *cgoom_kind_name(enum cgoom_kind k);

/* Why a candidate (or a process) is passed over; explain.c has the words. */
enum cgoom_why {
	CGOOM_WHY_NONE = 0,        /* eligible */
	CGOOM_WHY_KTHREAD,         /* kernel thread */
	CGOOM_WHY_PID1,            /* PID 1 of the proc root */
	CGOOM_WHY_SELF,            /* cgoom itself */
	CGOOM_WHY_ADJ_MIN,         /* oom_score_adj -1000 */
	CGOOM_WHY_OMIT,            /* preference omit */
	CGOOM_WHY_ZOMBIE,
	CGOOM_WHY_NO_MM,           /* no address space */
	CGOOM_WHY_NO_ELIGIBLE,     /* an entity without an eligible process */
	CGOOM_WHY_NO_MEMINFO,      /* the root entity: no /proc/meminfo */
	CGOOM_WHY_ROOT_NONPOSITIVE, /* the root entity: system minus children <= 0 */
	CGOOM_WHY_NO_FOOTPRINT,    /* memory.stat and memory.current unreadable, or
				    * memory.swap.current unreadable and unbounded */
	CGOOM_WHY_ROOT_UNKNOWN,    /* the root entity: a top-level memcg has no footprint */
	CGOOM_WHY_MAX,
};

/* How a decision ended; explain.c renders the reason from it and the
 * decision's numbers. */
enum cgoom_outcome {
	CGOOM_OUTCOME_VICTIM = 0,   /* has_victim */
	CGOOM_OUTCOME_INFLIGHT,     /* waiting for inflight_pid */
	CGOOM_OUTCOME_NO_CANDIDATE, /* no eligible candidate in the domain */
	CGOOM_OUTCOME_NO_PROCESS,   /* the first entity has no eligible process */
	CGOOM_OUTCOME_MAX,
};

struct cgoom_candidate {
	enum cgoom_kind kind;
	int cgroup;         /* entity cgroup; for a process, the cgroup it is attached to */
	int pid;            /* process kind only */
	uint64_t footprint; /* bytes: memcg footprint, or rss+swap+pte of a process */
	int64_t score;      /* footprint + bias (cgroups), oom_badness (processes) */
	enum cgoom_pref pref;
	int bias;        /* cgroups: the bias applied; processes: oom_score_adj */
	bool eligible;   /* false: listed for the explanation only, never chosen */
	bool fallback;   /* footprint an upper bound: memory.current + memory.swap.current
			  * for memory.stat, or a bound of memory.swap.current (charge.c) */
	bool bounded;    /* holds a stat_deferred cgroup: footprint and score are upper bounds */
	bool unchecked;  /* holds a deferred cgroup: eligible for all we know (processes not read) */
	uint64_t unmapped; /* shmem no process maps, left out of footprint (SPEC 4) */
	/* shmem the entity's memcgs hold that some process maps but none of
	 * the entity's own: left out of footprint too (charge.c) */
	uint64_t mapped_elsewhere;
	uint64_t mapped_shmem; /* the mapped shmem its footprint counts (before that) */
	/* of unmapped, what its processes hold open as deleted tmpfs files
	 * and memfds (no other entity's process holding them), beyond all
	 * the shmem they map: given back to footprint (charge.c) */
	uint64_t held_shmem;
	/* its processes, or those of the domain that could hold the same
	 * files, not all read: footprint keeps all of unmapped, an upper
	 * bound of what held_shmem could give back once they are (charge.c);
	 * the plan reads the domain when it could lead */
	bool held_unread;
	int order;       /* pre-order walk position (root entity: after all) */
	enum cgoom_why why; /* for ineligible ones; CGOOM_WHY_NONE otherwise */
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
	enum cgoom_outcome outcome; /* the reason, as a code (explain.c words it) */
	size_t n_eligible;          /* eligible candidates */
	/* the ranking's: the domain's unmapped shmem not yet given back as
	 * held_shmem (charge.c; no more than it left out in all) */
	uint64_t held_left;
	/* the ranking's: some cgroup of the domain is deferred, and its
	 * processes may hold the same files: no credit is final (charge.c) */
	bool held_partial;
};

/*
 * What a snapshot still lacks before the ranking of a domain is final
 * (branch and bound): nothing, the memory.stat of some deferred
 * cgroups, their bodies (limits, processes), or where some in-flight
 * PIDs live. cgoom_plan() writes it; the reader fills it
 * (cgoom_reader_fill); nothing is carried from one plan to the next.
 */
enum cgoom_plan_kind {
	CGOOM_PLAN_DONE = 0, /* nothing: decide */
	CGOOM_PLAN_STATS,    /* memory.stat (and a fresh bound) of cgroups[] */
	CGOOM_PLAN_BODIES,   /* all of cgroups[], as a full read would have */
	CGOOM_PLAN_LOCATE,   /* the cgroups that pids[] live in (inflight) */
	CGOOM_PLAN_MAX,
};

struct cgoom_plan {
	enum cgoom_plan_kind kind;
	int *cgroups; /* STATS, BODIES: deferred cgroups, ascending, unique */
	size_t n_cgroups, cap_cgroups;
	int *pids; /* LOCATE: in-flight PIDs not in the snapshot */
	size_t n_pids, cap_pids;
	bool bound_broken; /* a footprint read was above its bound: BODIES of all */
};

void cgoom_plan_init(struct cgoom_plan *p);
void cgoom_plan_free(struct cgoom_plan *p); /* NULL-safe */

/*
 * One oom_policy (SPEC 3, 4): a row of the table in select.c, one file
 * each (src/lib/policy-*.c). Adding one: a CGOOM_POLICY_* value before
 * CGOOM_POLICY_MAX, its file with these ops, its row, its tests.
 */
struct cgoom_policy_ops {
	const char *name;  /* in the CLI, config, xattrs and JSON */
	bool on_root;      /* may be the root's policy (tree may not): the
			    * config parser, the resolver (trusted xattr on
			    * "/") and `cgoom policy / NAME` refuse it there */
	bool bounded;      /* its scores never exceed the memcg bounds, so
			    * branch and bound may prune (none: oom_score_adj
			    * is unbounded, every process is read) */
	/* Appends the candidates of d->domain to d (unsorted; room for
	 * n_cgroups + n_procs + 1 is there), d->domain_size set. */
	void (*rank)(const struct cgoom_snapshot *s, const struct cgoom_settings *set,
		     struct cgoom_decision *d);
};

/* The ops of policy p, or NULL when out of range. */
const struct cgoom_policy_ops *cgoom_policy_ops(enum cgoom_policy p);

void cgoom_decision_init(struct cgoom_decision *d);
void cgoom_decision_free(struct cgoom_decision *d); /* NULL-safe */

/* Whether process i may ever be killed: has an address space, not a
 * kernel thread or zombie, oom_score_adj != -1000, not PID 1, not
 * cgoom itself, not under an omit cgroup. Needs resolved settings. */
bool cgoom_process_eligible(const struct cgoom_snapshot *s, const struct cgoom_settings *set, size_t i,
			    enum cgoom_why *ret_why);

/* Whether the cgroup root is itself a cgroup with memory files (a cgroup
 * namespace, or cgroupfs mounted from a subtree): then "/" is judged
 * like a cgroup domain, from its own memory.stat and memory.max, since
 * /proc/meminfo describes the whole host. */
bool cgoom_root_is_cgroup(const struct cgoom_snapshot *s);

/* T for a domain (SPEC 3): system MemTotal + SwapTotal; cgroup
 * memory.max + min(memory.swap.max, SwapTotal), memory.max "max" taken
 * as MemTotal. */
uint64_t cgoom_domain_size(const struct cgoom_snapshot *s, int domain);
/* Whether the snapshot holds all T needs: /proc/meminfo, unless domain
 * is a cgroup with a finite memory.max and memory.swap.max 0. */
bool cgoom_domain_size_known(const struct cgoom_snapshot *s, int domain);

/* The kernel's oom_badness in bytes: rss + swap + pte + adj * (T / 1000). */
int64_t cgoom_badness(const struct cgoom_process *p, uint64_t T);

/* How far P, the victim process of d (a final decision with a victim),
 * leads the next eligible process of the same entity by oom_badness, in
 * bytes (0 on a tie it wins by the lower PID). UINT64_MAX when it has no
 * rival in its entity (policy none: the entity is the process itself).
 * A standby decision may be used at a crossing only while the domain
 * grew by less than this: else a process of the entity may have
 * overtaken P, and a full read would signal another. */
uint64_t cgoom_victim_process_lead(const struct cgoom_snapshot *s, const struct cgoom_settings *set,
				   const struct cgoom_decision *d);

/* Footprint of memcg i (SPEC 4); *ret_fallback says whether it is an
 * upper bound: from memory.current + memory.swap.current because
 * memory.stat was bad, or with a bound of a bad memory.swap.current. It
 * leaves out the shmem no process maps (src/lib/charge.c argues how
 * that is measured): cgoom_memcg_unmapped_shmem(). */
uint64_t cgoom_memcg_footprint(const struct cgoom_snapshot *s, int i, bool *ret_fallback);
uint64_t cgoom_memcg_unmapped_shmem(const struct cgoom_snapshot *s, int i);
/* The same from one parsed memory.stat (the reader: whether a memcg's
 * processes' open files are worth reading, CGOOM_HELD_MIN). */
uint64_t cgoom_memstat_unmapped_shmem(const struct cgoom_memstat *m);
/* An entity (or the memcg of a process being read) leaving out less
 * unmapped shmem than this gets nothing back for files held open, and
 * its processes' /proc/PID/fd is not read (charge.c). */
#define CGOOM_HELD_MIN ((uint64_t)1 << 20)
/* The same for a whole domain (its memory.stat is hierarchical; for the
 * system, /proc/meminfo's Shmem - Mapped, capped at its anon LRU): the
 * shmem and tmpfs no process maps that it holds, in candidates or in
 * no candidate at all (empty and removed cgroups). 0 when not known. */
uint64_t cgoom_domain_unmapped_shmem(const struct cgoom_snapshot *s, int domain);
/* The same footprint from one parsed memory.stat and memory.swap.current
 * (a re-check that re-reads a kept fd: standby.c). */
uint64_t cgoom_memstat_footprint(const struct cgoom_memstat *m, uint64_t swap_current);

/* What a kill of d's kill set promises to free (SPEC 6 kill
 * accounting), in bytes: the victim's footprint, but no more than the
 * killed processes hold (VmRSS + VmSwap + VmPTE: killing some of an
 * entity's processes frees theirs, not the entity's). 0 without a
 * victim. d->pids ascending, as a decision's are. */
uint64_t cgoom_kill_promise(const struct cgoom_snapshot *s, const struct cgoom_decision *d);

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

/*
 * The pipeline, each stage a pure function of the snapshot and the
 * settings resolved from it (cgoom_settings_resolve):
 *   cgoom_rank(s, set, domain, d) scores and orders the candidates
 *                              (deferred cgroups count with their bound,
 *                              and as eligible: bounded / unchecked);
 *   cgoom_plan(s, set, d, plan) what must still be read for the answer
 *                              to be the one a full snapshot gives;
 *   cgoom_decide(s, set, d)    once the plan is DONE: the victim, P, the
 *                              kill set and the reason (or in flight, or
 *                              no victim).
 * A lazy fill never adds or moves cgroups, so the settings resolved
 * before the loop stay valid through it.
 * The driver (src/shared/pipeline.c, cgoom_select_lazy) loops rank ->
 * plan -> fill until the plan is DONE, then decides.
 */
/* Writes d's domain, policy, T and candidates (best first), clears the
 * rest. -EINVAL if domain is not a memcg, -ENOMEM; -ENODATA (nothing
 * ranked) when T is unknown (cgoom_domain_size_known): no victim can be
 * chosen right without it. */
int cgoom_rank(const struct cgoom_snapshot *s, const struct cgoom_settings *set, int domain,
	       struct cgoom_decision *d);
/* Needs d ranked by cgoom_rank() on this very snapshot. Writes *ret
 * (whose buffers it reuses). Always DONE for a snapshot with nothing
 * deferred. -ENOMEM. */
int cgoom_plan(const struct cgoom_snapshot *s, const struct cgoom_settings *set,
	       const struct cgoom_decision *d, struct cgoom_plan *ret);
/* Needs d ranked, and the plan DONE. 0 also when there is no victim
 * (has_victim false) or one is in flight; -ENOMEM. */
int cgoom_decide(const struct cgoom_snapshot *s, const struct cgoom_settings *set,
		 struct cgoom_decision *d);

/* rank, plan, decide on a snapshot the plan needs nothing more of (a
 * full one): -EAGAIN (and no victim) if it does. Writes *ret (whose
 * buffers it reuses and grows). -EINVAL if domain is not a memcg,
 * -ENOMEM. */
int cgoom_select(const struct cgoom_snapshot *s, const struct cgoom_settings *set, int domain,
		 struct cgoom_decision *ret);

/* An error of the functions above (and cgoom_select_lazy) in words:
 * strerror, but for -ENODATA, which says what is missing. */
const char *cgoom_select_strerror(int r);
