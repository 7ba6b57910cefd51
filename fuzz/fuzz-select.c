/* SPDX-License-Identifier: MIT */
/*
 * The engine fed a fuzzed snapshot. Invariants (abort on violation):
 * every PID in a decision's kill set is an eligible process inside the
 * domain (never PID 1, cgoom itself, a kernel thread, a zombie, -1000 or
 * omit); the kill set is sorted and unique and holds the victim process;
 * the candidate list is sorted by the comparator; selecting twice gives
 * the same answer; and branch and bound (childless memcgs deferred, as
 * the lazy reader adds them, then read as cgoom_select() asks) ends
 * within a bounded number of rounds with the answer of the full snapshot
 * (parked charge below delegation roots and unmapped shmem included).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cgoom/select.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

struct rd {
	const uint8_t *p;
	size_t n;
};

static uint32_t take(struct rd *r, unsigned bytes)
{
	uint32_t v = 0;
	for (unsigned i = 0; i < bytes; i++) {
		v <<= 8;
		if (r->n) {
			v |= *r->p++;
			r->n--;
		}
	}
	return v;
}

static bool killable(const struct cgoom_snapshot *s, const struct cgoom_settings *set,
		     const struct cgoom_process *p)
{
	return p->has_mm && !p->kthread && !p->zombie && p->pid != 1 && p->pid != s->self_pid &&
	       p->oom_score_adj != -1000 && set->cgroups[p->cgroup].pref.value != CGOOM_PREF_OMIT;
}

static void check_decision(const struct cgoom_snapshot *s, const struct cgoom_settings *set, int domain,
			   const struct cgoom_decision *d)
{
	for (size_t i = 1; i < d->n_candidates; i++)
		if (cgoom_candidate_cmp(&d->candidates[i - 1], &d->candidates[i]) >= 0)
			abort();
	if (!d->has_victim) {
		if (d->n_pids)
			abort();
		return;
	}
	if (!d->candidates[d->victim].eligible)
		abort();
	bool has_victim_pid = false;
	for (size_t i = 0; i < d->n_pids; i++) {
		if (i && d->pids[i - 1] >= d->pids[i])
			abort();
		const struct cgoom_process *p = NULL;
		for (size_t k = 0; k < s->n_procs; k++)
			if (s->procs[k].pid == d->pids[i])
				p = &s->procs[k];
		if (!p || !killable(s, set, p) || !cgoom_snapshot_is_under(s, p->cgroup, domain))
			abort();
		has_victim_pid |= p->pid == d->victim_pid;
	}
	if (!has_victim_pid)
		abort();
}

/* Selects on s with the cgroups in mask deferred (bit k: cgroup k;
 * stat_deferred too where smask has it), reading what is asked for by
 * clearing the flags (the data is all there), until final. */
static void select_bounded(struct cgoom_snapshot *s, const struct cgoom_settings *set, int dom,
			   uint32_t mask, uint32_t smask, struct cgoom_decision *d)
{
	for (size_t k = 1; k < s->n_cgroups && k < 32; k++) {
		struct cgoom_cgroup *g = &s->cgroups[k];
		if ((mask >> k & 1) && g->memcg == (int)k && g->first_child < 0) {
			g->deferred = true;
			g->stat_deferred = smask >> k & 1;
		}
	}
	struct cgoom_plan plan;
	cgoom_plan_init(&plan);
	for (unsigned round = 0;; round++) {
		if (round > 2 * s->n_cgroups + 40)
			abort(); /* it must end */
		if (cgoom_rank(s, set, dom, d) < 0 || cgoom_plan(s, set, d, &plan) < 0)
			break;
		if (plan.kind == CGOOM_PLAN_DONE) {
			cgoom_decide(s, set, d);
			break;
		}
		if (plan.kind == CGOOM_PLAN_LOCATE) {
			s->inflight_located = true; /* every process is there */
			continue;
		}
		for (size_t i = 0; i < plan.n_cgroups; i++) {
			struct cgoom_cgroup *g = &s->cgroups[plan.cgroups[i]];
			if (!g->deferred)
				abort(); /* asks only for what is deferred */
			g->stat_deferred = false;
			if (plan.kind == CGOOM_PLAN_BODIES)
				g->deferred = false;
		}
	}
	cgoom_plan_free(&plan);
	s->inflight_located = false;
	for (size_t k = 0; k < s->n_cgroups; k++)
		s->cgroups[k].deferred = s->cgroups[k].stat_deferred = false;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct rd r = { data, size };
	struct cgoom_snapshot s;
	struct cgoom_settings set;
	cgoom_settings_init(&set);
	if (cgoom_snapshot_init(&s) < 0)
		return 0;
	s.meminfo_ok = take(&r, 1) & 1;
	s.meminfo.mem_total = (uint64_t)take(&r, 2) << 20;
	s.meminfo.swap_total = (uint64_t)take(&r, 1) << 20;
	s.meminfo.active_anon = (uint64_t)take(&r, 2) << 20;
	s.sockstat_ok = true;
	s.sockstat.tcp_mem_pages = take(&r, 1);
	s.self_pid = (int)(take(&r, 1) % 64);

	unsigned ncg = take(&r, 1) % 24;
	for (unsigned i = 0; i < ncg; i++) {
		int parent = (int)(take(&r, 1) % s.n_cgroups);
		char name[8] = { 'a' + (char)(take(&r, 1) % 4), 'a' + (char)(i % 26), 0 };
		int c = cgoom_snapshot_add_cgroup(&s, parent, name);
		if (c < 0)
			continue;
		struct cgoom_cgroup *g = &s.cgroups[c];
		uint32_t f = take(&r, 2);
		g->is_memcg = f & 1;
		g->oom_group = f & 2;
		g->stat_ok = f & 4;
		g->current_ok = true;
		g->stat.active_anon = (uint64_t)take(&r, 2) << 16;
		g->current = (uint64_t)take(&r, 2) << 16;
		g->max = (f & 8) ? UINT64_MAX : (uint64_t)take(&r, 2) << 20;
		g->raw.has_trusted_policy = f & 16;
		g->raw.trusted_policy = (enum cgoom_policy)((f >> 5) % CGOOM_POLICY_MAX);
		g->raw.has_trusted_pref = f & 128;
		g->raw.trusted_pref = (enum cgoom_pref)((f >> 8) % 4);
		g->raw.has_user_pref = f & 1024;
		g->raw.user_pref = (enum cgoom_pref)((f >> 11) % 4);
		g->raw.oomd_omit = f & 8192;
		g->raw.owner_is_root = f & 16384;
		g->raw.has_trusted_bias = f & 32768;
		g->raw.trusted_bias = (int)(take(&r, 2) % 2001) - 1000;
	}
	if (take(&r, 1) & 1) { /* the root's policy */
		s.cgroups[0].raw.has_trusted_policy = true;
		s.cgroups[0].raw.trusted_policy = (enum cgoom_policy)(take(&r, 1) % CGOOM_POLICY_MAX);
	}
	unsigned np = take(&r, 1) % 48;
	for (unsigned i = 0; i < np; i++) {
		struct cgoom_process p = { 0 };
		p.pid = (int)(take(&r, 1) % 64) + 1;
		p.cgroup = (int)(take(&r, 1) % s.n_cgroups);
		uint32_t f = take(&r, 1);
		p.has_mm = !(f & 1);
		p.kthread = f & 2;
		p.zombie = f & 4;
		p.oom_score_adj = (f & 8) ? -1000 : (int)(take(&r, 2) % 2001) - 1000;
		p.rss = (uint64_t)take(&r, 2) << 16;
		p.swap = (uint64_t)take(&r, 1) << 12;
		cgoom_snapshot_add_process(&s, &p);
	}
	uint32_t defer = take(&r, 4), sdefer = take(&r, 4);
	s.n_cpus = take(&r, 1) % 4 + 1;
	/* SPEC 4's parked charge and unmapped shmem: delegation roots by
	 * owner, shmem and file_mapped (after the rest, so that older corpus
	 * entries keep their meaning) */
	for (size_t k = 1; k < s.n_cgroups && r.n; k++) {
		struct cgoom_cgroup *g = &s.cgroups[k];
		uint32_t f = take(&r, 1);
		g->raw.procs_user_owned = f & 1;
		if (f & 2) {
			g->stat.present |= CGOOM_MEMSTAT_SHMEM | CGOOM_MEMSTAT_FILE_MAPPED;
			g->stat.shmem = (uint64_t)take(&r, 1) << 18;
			g->stat.file_mapped = (uint64_t)take(&r, 1) << 18;
		}
		if (f & 4)
			g->stat.slab_unreclaimable = (uint64_t)take(&r, 1) << 16;
	}
	if (cgoom_snapshot_finalize(&s) < 0)
		goto out;
	/* bounds hold as on a real kernel: memory.stat may lead
	 * memory.current, by no more than the unflushed per-CPU error */
	uint64_t slack = cgoom_stat_slack(&s);
	for (size_t k = 0; k < s.n_cgroups; k++) {
		uint64_t f = cgoom_memcg_footprint(&s, (int)k, NULL);
		if (s.cgroups[k].current < f - (f < slack ? f : slack))
			s.cgroups[k].current = f - (f < slack ? f : slack);
	}
	if (cgoom_settings_resolve(&s, NULL, &set) < 0)
		goto out;
	if (!cgoom_policy_ops((enum cgoom_policy)set.cgroups[0].policy.value)->on_root)
		abort(); /* refused on the root */

	struct cgoom_decision d1, d2, d3;
	cgoom_decision_init(&d1);
	cgoom_decision_init(&d2);
	cgoom_decision_init(&d3);
	for (size_t dom = 0; dom < s.n_cgroups; dom++) {
		int r1 = cgoom_select(&s, &set, (int)dom, &d1);
		if (s.cgroups[dom].memcg != (int)dom) {
			if (r1 != -22)
				abort(); /* -EINVAL for a non-memcg domain */
			continue;
		}
		if (r1 < 0)
			continue; /* -ENOMEM, or -ENODATA: T unknown (no meminfo) */
		check_decision(&s, &set, (int)dom, &d1);
		if (cgoom_select(&s, &set, (int)dom, &d2) < 0)
			continue;
		if (d1.has_victim != d2.has_victim || d1.n_pids != d2.n_pids ||
		    (d1.n_pids && memcmp(d1.pids, d2.pids, d1.n_pids * sizeof(int))) ||
		    d1.victim_pid != d2.victim_pid)
			abort();
		select_bounded(&s, &set, (int)dom, defer, sdefer, &d3);
		if (d1.has_victim != d3.has_victim || d1.n_pids != d3.n_pids ||
		    (d1.n_pids && memcmp(d1.pids, d3.pids, d1.n_pids * sizeof(int))) ||
		    d1.victim_pid != d3.victim_pid || d1.victim_cgroup != d3.victim_cgroup)
			abort(); /* branch and bound changed the answer */
	}
	cgoom_decision_free(&d1);
	cgoom_decision_free(&d2);
	cgoom_decision_free(&d3);
out:
	cgoom_settings_free(&set);
	cgoom_snapshot_free(&s);
	return 0;
}
