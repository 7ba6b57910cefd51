/* SPDX-License-Identifier: MIT */
/*
 * What a footprint is made of (SPEC 4): the charge of a memcg as the
 * parts the footprint formula adds, the shmem no process maps that it
 * leaves out, and the charge parked below a delegation root that no
 * memcg holding processes accounts for.
 *
 * Memory no kill can free. shmem and tmpfs pages live on the anon LRU
 * lists, which the footprint counts, but a kill frees only what dies
 * with a process: a tmpfs file, a SysV segment not yet removed, a
 * memfd someone still holds, stay charged. cgoom leaves out
 *     min(max(0, shmem - file_mapped), active_anon + inactive_anon)
 * of each memory.stat, and argues for it so:
 *  - shmem (NR_SHMEM) is the resident shmem and tmpfs charged to the
 *    memcg; file_mapped (NR_FILE_MAPPED) the file pages, shmem
 *    included, that some page table maps. So shmem - file_mapped is at
 *    most the shmem nobody maps: a lower bound. What it misses (page
 *    cache mapped by the processes, binaries and libraries, hides as
 *    much unmapped shmem) stays in the footprint: the error can make an
 *    entity look larger, never hide memory a kill would free. A larger
 *    look is what kill accounting and the kill-storm guard (SPEC 6)
 *    catch; a hidden one would let an innocent die.
 *  - shmem that is mapped stays in, as the kernel's oom_badness counts
 *    it (RssShmem): killing its last mapper frees it when nothing else
 *    holds it (anonymous shared memory).
 *  - Not the processes' RssShmem: it counts a shared page once per
 *    process mapping it, counts pages charged to other memcgs (a page is
 *    charged where it was first touched), needs every process read
 *    (branch and bound reads processes only for the front runners) and
 *    knows nothing of removed memcgs, which have none. memory.stat is
 *    the footprint's own source, hierarchical like it, and read anyway.
 *  - The cap: SHM_LOCKed or mlocked shmem is on the unevictable list,
 *    which the footprint does not count, so it is not taken off either.
 *  - Not measurable, so kept in: shmem swapped out (in
 *    memory.swap.current, which nothing splits), and everything of a
 *    memcg whose memory.stat is unreadable (its fallback, an upper
 *    bound), and the swap of one whose memory.swap.current is there but
 *    unreadable (its bound: memory.swap.max, the swap in use
 *    system-wide). One whose memory.current is unreadable too has no figure
 *    (sel_charge.unknown): it is no candidate, and no remainder that
 *    would take it off (the root, a parked charge) is one either. A memcg known only by its bound keeps its bound: the rule
 *    only takes away, so the bound stays an upper bound, and the exact
 *    figure comes with memory.stat when the plan reads it.
 *  - Mapped shmem that only processes outside the entity map: see
 *    sel_shmem_elsewhere() (RssShmem, read where the processes are).
 *  - A remainder (the root's own share, a delegation root's parked
 *    charge) applies the rule to the remainder of each counter, not to
 *    the difference of footprints: max() does not distribute, and one
 *    memcg's mapped page cache must not hide another's unmapped shmem.
 *  - Held open, not mapped: see sel_held_credit() (what is given back).
 */
#include <stdlib.h>

#include "lib/select-internal.h"

static int64_t s64(uint64_t v)
{
	return sel_s64(v);
}

static void charge_of_stat(const struct cgoom_memstat *m, uint64_t swap_current, struct sel_charge *v)
{
	uint64_t lru = sel_add(m->active_anon, m->inactive_anon);
	uint64_t f = sel_add(lru, m->slab_unreclaimable);
	f = sel_add(f, m->kernel_stack);
	f = sel_add(f, m->sock);
	f = sel_add(f, swap_current);
	v->raw = s64(f);
	v->lru = s64(lru);
	v->shmem = s64(m->shmem);
	v->mapped = s64(m->file_mapped);
	v->shmem_known = (m->present & (CGOOM_MEMSTAT_SHMEM | CGOOM_MEMSTAT_FILE_MAPPED)) ==
			 (CGOOM_MEMSTAT_SHMEM | CGOOM_MEMSTAT_FILE_MAPPED);
}

uint64_t cgoom_memstat_unmapped_shmem(const struct cgoom_memstat *m)
{
	struct sel_charge v = { 0 };
	charge_of_stat(m, 0, &v);
	return sel_charge_unmapped(&v);
}

uint64_t cgoom_memstat_footprint(const struct cgoom_memstat *m, uint64_t swap_current)
{
	struct sel_charge v = { 0 };
	charge_of_stat(m, swap_current, &v);
	return sel_charge_footprint(&v);
}

/* Memcg c's swap: memory.swap.current, or when that is there but cannot
 * be read, an upper bound of it, *ret_bound set: its memory.swap.max and
 * the swap in use system-wide (SwapTotal - SwapFree), whichever is less.
 * false when neither is known. */
static bool swap_of(const struct cgoom_snapshot *s, const struct cgoom_cgroup *c, uint64_t *ret,
		    bool *ret_bound)
{
	*ret = c->swap_current;
	*ret_bound = c->swap_bad;
	if (!c->swap_bad)
		return true;
	uint64_t b = c->has_swap_max ? c->swap_max : UINT64_MAX;
	if (s->meminfo_ok) {
		const struct cgoom_meminfo *mi = &s->meminfo;
		uint64_t used = mi->swap_total > mi->swap_free ? mi->swap_total - mi->swap_free : 0;
		b = used < b ? used : b;
	}
	*ret = b;
	return b != UINT64_MAX;
}

void sel_charge_of(const struct cgoom_snapshot *s, int i, struct sel_charge *ret)
{
	const struct cgoom_cgroup *c = &s->cgroups[i];
	struct sel_charge v = { 0 };
	uint64_t swap;
	bool swap_bound;
	bool swap_known = swap_of(s, c, &swap, &swap_bound);
	if (c->stat_deferred) {
		/* not read yet: its bound (cgoom_candidate.bounded says so) */
		v.raw = s64(cgoom_memcg_bound(s, i));
		v.bounded = true;
	} else if (!swap_known) {
		v.unknown = true; /* as below: no figure of its swap */
	} else if (c->stat_ok) {
		/* with a bound of the swap, the whole is one (a fallback) */
		charge_of_stat(&c->stat, swap, &v);
		v.fallback = swap_bound;
	} else if (c->current_ok) {
		/* an upper bound: never under-reports a cgroup whose stats are bad */
		v.raw = s64(sel_add(c->current, swap));
		v.fallback = true;
	} else {
		/* nothing to go by: not 0, which would hide the cgroup and let
		 * its charge flow to whatever takes it off (the root) */
		v.unknown = true;
	}
	*ret = v;
}

void sel_charge_sub(struct sel_charge *a, const struct sel_charge *b)
{
	a->raw = sel_add_s(a->raw, -b->raw);
	a->lru = sel_add_s(a->lru, -b->lru);
	a->shmem = sel_add_s(a->shmem, -b->shmem);
	a->mapped = sel_add_s(a->mapped, -b->mapped);
	a->shmem_known &= b->shmem_known;
	a->fallback |= b->fallback;
	a->unknown |= b->unknown;
}

uint64_t sel_charge_unmapped(const struct sel_charge *c)
{
	if (!c->shmem_known || c->bounded)
		return 0;
	int64_t u = sel_add_s(c->shmem, -c->mapped);
	if (u > c->lru)
		u = c->lru;
	return u > 0 ? (uint64_t)u : 0;
}

uint64_t sel_charge_mapped(const struct sel_charge *c)
{
	if (!c->shmem_known || c->bounded)
		return 0;
	int64_t sh = c->shmem < c->lru ? c->shmem : c->lru;
	int64_t m = sel_add_s(sh, -(int64_t)sel_charge_unmapped(c));
	return m > 0 ? (uint64_t)m : 0;
}

/*
 * Shmem mapped only outside the entity. file_mapped counts a page where
 * it is charged, whoever maps it: a tmpfs file written from cgroup A and
 * mapped by a process in cgroup B is "mapped" in A's memory.stat, and
 * A's footprint counted it, though no death in A frees it (tests/vm
 * charge-mapped-elsewhere: A's 5 MiB keeper died first for 200 MiB that
 * B maps, while a 186 MiB grower lived on). What the entity's own
 * processes map is at most the sum of their RssShmem (it counts each
 * page once per process that maps it, wherever it is charged), so
 *     mapped shmem kept = min(mapped shmem counted, sum of RssShmem)
 * leaves out nothing a kill in the entity could free (the root entity's
 * processes: those whose nearest memcg is the root). Only with every
 * process in the entity read and each one's RssShmem known (a line
 * missing, a deferred cgroup: nothing is taken out, the footprint stays
 * an upper bound and the plan reads the bodies of those that could
 * lead). The kept part remains what oom_badness would count too.
 */
void sel_shmem_elsewhere(const struct cgoom_snapshot *s, struct cgoom_candidate *e)
{
	if (!e->mapped_shmem || e->mapped_elsewhere || e->unchecked || e->bounded || e->fallback)
		return; /* (once: a second call takes out nothing more) */
	if (e->kind != CGOOM_KIND_LEAF && e->kind != CGOOM_KIND_TREE &&
	    e->kind != CGOOM_KIND_UNATTRIBUTED && e->kind != CGOOM_KIND_ROOT)
		return;
	/* the root entity's processes are those whose nearest memcg is the
	 * root (SPEC 5), not the whole tree's */
	bool root = e->kind == CGOOM_KIND_ROOT;
	size_t pos = (size_t)s->prepos[e->cgroup];
	for (size_t k = pos; k == pos || sel_in_subtree(s, e->cgroup, k); k++) {
		const struct cgoom_cgroup *c = &s->cgroups[s->preorder[k]];
		if (c->deferred && (!root || c->memcg == 0))
			return;
	}
	uint64_t mapped = 0;
	int k;
	for (size_t it = cgoom_subtree_begin(s, e->cgroup); cgoom_subtree_next(s, e->cgroup, &it, &k);) {
		const struct cgoom_process *p = &s->procs[k];
		if (p->kthread || (root && s->cgroups[p->cgroup].memcg != 0))
			continue;
		if (!p->rss_shmem_known)
			return;
		mapped = sel_add(mapped, p->rss_shmem);
	}
	if (mapped >= e->mapped_shmem)
		return;
	uint64_t out = e->mapped_shmem - mapped;
	e->mapped_elsewhere = out;
	e->footprint = e->footprint > out ? e->footprint - out : 0;
}

/*
 * Shmem held open, not mapped (doc/SPEC.md). A deleted tmpfs file or a
 * memfd that a process holds by a descriptor, written and not mapped,
 * is in shmem and not in file_mapped: the rule above leaves it out, and
 * so does RssShmem, yet the holder's death frees it (the guest: an
 * innocent 60 MiB process died for a shell's 250 MiB unlinked temp
 * file). The reader records what each process read holds
 * (cgoom_held_file: st_nlink 0 on TMPFS_MAGIC, st_blocks * 512, once
 * per process and file; src/shared/reader-held.c), and an entity gets
 * back
 *     min(H - M, its unmapped, what the domain left out and no entity
 *         walked before took back)
 * where H sums, once per (dev, ino), the files that only its own
 * processes hold, and M the RssShmem of all its processes. Argued so:
 *  - Only its own, unprotected processes: a file also held by a process
 *    of another entity, or by one no kill may touch (pid 1, -1000,
 *    omit), survives any one kill here; credited to nobody, a lower
 *    bound. An innocent is never made larger for memory its death would
 *    not free. Holders not seen: those never read (the root's
 *    processes, those of a memcg whose ancestors leave out under 1 MiB:
 *    the reader's rule), and those outside the domain, which are not
 *    looked at: a lazy read reads no body outside the domain, and its
 *    answer must be the full read's (SPEC 4 "shortcuts"). What such a
 *    holder shares is the one way this errs high.
 *  - Minus M, not file by file: a page of a held file that one of its
 *    processes maps is in file_mapped, so the footprint counts it
 *    already (at most M of mapped shmem, sel_shmem_elsewhere), and it
 *    is in M; H - M is at most the pages of held files none of them
 *    maps. Which file is mapped would need /proc/PID/maps (a parser, a
 *    read per process); M errs low instead (other shmem they map, SysV
 *    segments, counts too). A RssShmem unknown: nothing.
 *  - Capped at its unmapped: it only gives back what the rule left out,
 *    so the footprint stays at most raw, its memory.stat sum, and the
 *    bound of branch and bound (memory.current + swap + slack) stays an
 *    upper bound. Capped in all at the domain's unmapped (walk order):
 *    sums of per-memcg max()/min() can exceed the hierarchical figure.
 *  - Under 1 MiB left out (entity or domain): nothing, as the reader
 *    reads no descriptors there (CGOOM_HELD_MIN: a domain without tmpfs
 *    costs no read; reading every process's /proc/PID/fd at every
 *    decision would cost a stat() per descriptor for nothing).
 *  - Leaf and tree entities: the root's share is measured from system
 *    counters whose holders are everywhere, and parked charge belongs to
 *    empty and removed cgroups (no holder there). Policy none ranks by
 *    oom_badness, SPEC 4's formula: unchanged.
 *  - Branch and bound: with its processes unread, the entity keeps all
 *    it left out (held_unread, unchecked: an upper bound of what could
 *    come back); with its own read but another cgroup of the domain
 *    unread (held_partial), likewise, since a process there may hold
 *    the same files; plan.c reads the domain's bodies when it could
 *    lead. Entities that cannot lead even so are never read.
 */

/* Whether the holder of h may never die by a kill (pid 1, cgoom,
 * oom_score_adj -1000, an omitted cgroup): what it holds no kill frees. */
static bool holder_protected(const struct cgoom_snapshot *s, const struct cgoom_settings *set,
			     const struct cgoom_held_file *h)
{
	const int *procs;
	size_t n = cgoom_snapshot_procs_of(s, h->cgroup, &procs);
	for (size_t i = 0; i < n; i++) {
		const struct cgoom_process *p = &s->procs[procs[i]];
		if (p->pid != h->pid)
			continue;
		bool prot;
		return sel_ineligible_why(s, set, p, &prot) != CGOOM_WHY_NONE && prot;
	}
	return true; /* not there (finalize drops such records): nothing */
}

void sel_held_credit(const struct cgoom_snapshot *s, const struct cgoom_settings *set,
		     struct cgoom_decision *d, struct cgoom_candidate *e)
{
	if (e->kind != CGOOM_KIND_LEAF && e->kind != CGOOM_KIND_TREE)
		return; /* the root, parked charge, a process: see above */
	if (e->held_shmem || e->held_unread || e->bounded || e->fallback ||
	    e->unmapped < CGOOM_HELD_MIN)
		return; /* (once; a bound leaves nothing out to give back) */
	if (d->held_left == 0)
		return; /* nothing left out in the domain to give back */
	if (e->unchecked) {
		e->held_unread = true;
		e->footprint = sel_add(e->footprint, e->unmapped);
		return;
	}
	/* all the shmem its processes map, however often */
	uint64_t mapped = 0;
	int k;
	for (size_t it = cgoom_subtree_begin(s, e->cgroup); cgoom_subtree_next(s, e->cgroup, &it, &k);) {
		const struct cgoom_process *p = &s->procs[k];
		if (p->kthread)
			continue;
		if (!p->rss_shmem_known)
			return;
		mapped = sel_add(mapped, p->rss_shmem);
	}
	/* the files only its processes hold (held[] sorted by dev, ino) */
	uint64_t held = 0;
	for (size_t i = 0; i < s->n_held;) {
		size_t j = i;
		bool mine = false, other = false;
		uint64_t bytes = 0;
		for (; j < s->n_held && s->held[j].dev == s->held[i].dev && s->held[j].ino == s->held[i].ino;
		     j++) {
			if (!cgoom_snapshot_is_under(s, s->held[j].cgroup, d->domain))
				continue; /* not looked at: see above */
			if (!cgoom_snapshot_is_under(s, s->held[j].cgroup, e->cgroup) ||
			    holder_protected(s, set, &s->held[j]))
				other = true;
			else
				mine = true;
			if (s->held[j].bytes > bytes)
				bytes = s->held[j].bytes;
		}
		if (mine && !other)
			held = sel_add(held, bytes);
		i = j;
	}
	if (held <= mapped)
		return;
	if (d->held_partial) {
		/* a process not read yet may hold these files too: all it
		 * left out, an upper bound, until the plan reads the domain */
		e->held_unread = e->unchecked = true;
		e->footprint = sel_add(e->footprint, e->unmapped);
		return;
	}
	uint64_t credit = held - mapped;
	if (credit > e->unmapped)
		credit = e->unmapped;
	if (credit > d->held_left)
		credit = d->held_left;
	d->held_left -= credit;
	e->held_shmem = credit;
	e->footprint = sel_add(e->footprint, credit);
}

uint64_t sel_charge_footprint(const struct sel_charge *c)
{
	int64_t f = sel_add_s(c->raw, -(int64_t)sel_charge_unmapped(c));
	return f > 0 ? (uint64_t)f : 0;
}

uint64_t cgoom_memcg_footprint(const struct cgoom_snapshot *s, int i, bool *ret_fallback)
{
	struct sel_charge v;
	sel_charge_of(s, i, &v);
	if (ret_fallback)
		*ret_fallback = v.fallback;
	return sel_charge_footprint(&v);
}

uint64_t cgoom_memcg_unmapped_shmem(const struct cgoom_snapshot *s, int i)
{
	struct sel_charge v;
	sel_charge_of(s, i, &v);
	return sel_charge_unmapped(&v);
}

uint64_t cgoom_domain_unmapped_shmem(const struct cgoom_snapshot *s, int domain)
{
	if (domain < 0 || (size_t)domain >= s->n_cgroups)
		return 0;
	if (domain != 0 || cgoom_root_is_cgroup(s))
		return cgoom_memcg_unmapped_shmem(s, domain);
	if (!s->meminfo_ok)
		return 0;
	const struct cgoom_meminfo *mi = &s->meminfo;
	struct sel_charge v = {
		.lru = s64(sel_add(mi->active_anon, mi->inactive_anon)),
		.shmem = s64(mi->shmem),
		.mapped = s64(mi->mapped),
		.shmem_known = (mi->present & (CGOOM_MEMINFO_SHMEM | CGOOM_MEMINFO_MAPPED)) ==
			       (CGOOM_MEMINFO_SHMEM | CGOOM_MEMINFO_MAPPED),
	};
	return sel_charge_unmapped(&v);
}

bool sel_memcg_members(const struct cgoom_snapshot *s, const struct cgoom_settings *set, int m,
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

/* Whether delegation root m inside R (whose own unattributed entity is
 * asked for) accounts for its whole charge itself: a tree entity holds
 * it (a tree from m up to R, R excluded), or a process is in its subtree
 * (its members and its own unattributed entity hold it, eligible or not).
 * Without either, nobody in m can be killed for it, and R's entity
 * keeps it. */
static bool inner_root_holds(const struct cgoom_snapshot *s, const struct cgoom_settings *set, int r,
			     int m)
{
	if (!s->cgroups[m].has_memcg_children || set->cgroups[m].deleg_root == CGOOM_DELEG_ROOT_NO)
		return false;
	for (int a = m; a >= 0 && a != r; a = s->cgroups[a].parent)
		if (s->cgroups[a].has_memcg_children && set->cgroups[a].policy.value == CGOOM_POLICY_TREE)
			return true;
	int k;
	for (size_t it = cgoom_subtree_begin(s, m); cgoom_subtree_next(s, m, &it, &k);)
		if (!s->procs[k].kthread)
			return true;
	return false;
}

/*
 * SPEC 4 "unattributed charge": R's own charge minus that of the
 * outermost memcgs inside R that hold processes (eligible or not: a
 * populated memcg keeps its own charge, and its footprint covers its
 * descendants'). What is left is the charge of R's empty and removed
 * memcgs and what was reparented to R's inner memcgs. A deferred memcg
 * (branch and bound) may or may not hold processes: it is not taken
 * off, which makes the result an upper bound (bounded), and unchecked
 * until its body is read; an upper bound leaves out no shmem either.
 * For R's own unattributed entity (entity: SPEC 4 rule 2) a delegation
 * root inside R that holds its charge itself (inner_root_holds) is taken
 * off whole too: what is parked below it is its entity's, counted once
 * (counted in both, the outer entity led by the few KiB the kernel
 * charges R itself, and its largest process, maybe a bystander, died).
 */
void sel_parked(const struct cgoom_snapshot *s, const struct cgoom_settings *set, int r,
		bool entity, struct sel_parked *ret)
{
	struct sel_parked p = { 0 };
	struct sel_charge rem;
	sel_charge_of(s, r, &rem);
	p.fallback = rem.fallback;
	size_t pos = (size_t)s->prepos[r];
	for (size_t k = pos + 1; sel_in_subtree(s, r, k); k++) {
		int m = s->preorder[k];
		const struct cgoom_cgroup *c = &s->cgroups[m];
		if (c->memcg != m)
			continue;
		if (entity && inner_root_holds(s, set, r, m)) {
			struct sel_charge ic;
			sel_charge_of(s, m, &ic);
			sel_charge_sub(&rem, &ic);
			while (sel_in_subtree(s, m, k + 1))
				k++; /* its own entities hold its subtree */
			continue;
		}
		bool any;
		bool eligible = sel_memcg_members(s, set, m, &any);
		if (c->deferred) {
			rem.bounded = true;
			p.unchecked = true;
			p.eligible |= eligible;
			continue;
		}
		if (!any)
			continue;
		struct sel_charge mc;
		sel_charge_of(s, m, &mc);
		sel_charge_sub(&rem, &mc);
		while (sel_in_subtree(s, m, k + 1))
			k++; /* its footprint covers its subtree */
	}
	/* the processes the entity would kill from: all of R's subtree */
	int k;
	for (size_t it = cgoom_subtree_begin(s, r); cgoom_subtree_next(s, r, &it, &k);) {
		const struct cgoom_process *q = &s->procs[k];
		if (q->kthread)
			continue;
		p.any = true;
		if (!sel_ineligible_why(s, set, q, NULL))
			p.eligible = true;
	}
	p.any |= p.unchecked;
	p.bounded = rem.bounded;
	p.fallback |= rem.fallback;
	p.unknown = rem.unknown;
	p.unmapped = sel_charge_unmapped(&rem);
	p.mapped = sel_charge_mapped(&rem);
	p.footprint = sel_charge_footprint(&rem);
	*ret = p;
}

uint64_t cgoom_kill_promise(const struct cgoom_snapshot *s, const struct cgoom_decision *d)
{
	if (!d->has_victim || d->victim < 0 || (size_t)d->victim >= d->n_candidates)
		return 0;
	/* one pass over the processes, each looked up in the kill set
	 * (ascending): n log k, not n * k, on the way to a signal */
	uint64_t sum = 0;
	for (size_t k = 0; k < s->n_procs; k++) {
		const struct cgoom_process *p = &s->procs[k];
		if (bsearch(&p->pid, d->pids, d->n_pids, sizeof(*d->pids), sel_cmp_int))
			sum = sel_add(sum, sel_add(sel_add(p->rss, p->swap), p->pte));
	}
	uint64_t fp = d->candidates[d->victim].footprint;
	return sum < fp ? sum : fp;
}
