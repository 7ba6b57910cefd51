/* SPDX-License-Identifier: MIT */
/*
 * Both classes: thrashing that is not recovering (SPEC 6 "Swap";
 * doc/triggers.md). Every window of the last `thrash_for` (the
 * cgoom/thrash.h history, windows of half a second) had a memory "full"
 * stall of at least psi_full's share (every task waiting on memory that
 * much of the time) while memory was short (the system: MemAvailable
 * under 10% of MemTotal; a cgroup: under 10% of its memory.max left),
 * and over them pages were needed back (refaults of working-set pages,
 * or swap-ins) at `thrash_refaults` on average and at least as fast as
 * swap in use grew. A stall alone does not fire (I/O and reclaim of cold
 * memory inflate PSI: a burst that swaps out an idle job stalls without
 * needing its pages back), nor does a short one.
 */
#include <stdio.h>
#include <string.h>

#include "daemon-internal.h"
#include "triggers.h"

static bool check(struct domain *d, const struct trigger_sample *s, const struct cgoom_config *cfg,
		  bool preempted)
{
	(void)d, (void)cfg;
	return !preempted && s->watched && s->thrash.thrashing;
}

static bool memory_short(const struct domain *d, const struct trigger_sample *s,
			 const struct cgoom_thrash_params *p)
{
	if (!d->system)
		return cgoom_cgroup_in_band(&s->cg, &d->params);
	return s->mem_total > 0 && s->lv.mem_available / (s->mem_total / 10000 + 1) < p->mem_short;
}

/* Still short of memory and still stalling: the full total grew since
 * the sample the trigger fired on, when the re-check comes a window
 * (half a second) or more after it. Sooner, the total's growth says
 * nothing of the stall the verdict was judged on (`thrash_for` of windows): over
 * the few milliseconds a decision from the standby takes it need not
 * move at all (cgoom running on one CPU keeps that CPU out of "full"),
 * and bench/swap logged "cleared before acting" 10 ms after a thrash
 * trigger that fired again, on the same windows, at the next sample. */
static bool confirm(const struct domain *d, const struct trigger_event *ev,
		    const struct trigger_sample *fresh, const struct cgoom_config *cfg)
{
	struct cgoom_thrash_params p;
	trigger_thrash_params(cfg, &p);
	if (!memory_short(d, fresh, &p) || !ev->s.psi.valid || !fresh->psi.valid)
		return false;
	return fresh->psi.at_us < ev->s.psi.at_us + CGOOM_THRASH_WINDOW_US ||
	       fresh->psi.total_us > ev->s.psi.total_us;
}

static void why(const struct trigger_event *ev, const struct cgoom_config *cfg, char *buf, size_t cap)
{
	struct cgoom_thrash_params p;
	trigger_thrash_params(cfg, &p);
	const struct cgoom_thrash_facts *t = &ev->s.thrash;
	char a[32], b[32], r[32], g[32];
	int n = snprintf(buf, cap,
			 "thrashing: memory short under a stall for %llu.%llu s (full %u.%u%% over the last "
			 "2 s), %s/s of pages needed back (refaults, swap-ins) while swap in use grew %s/s; "
			 "%s %s of %s",
			 (unsigned long long)(t->thrashing_us / 1000000),
			 (unsigned long long)(t->thrashing_us / 100000 % 10), t->full_share_2s / 100,
			 t->full_share_2s / 10 % 10,
			 trigger_size(t->refault_rate_run * p.page_size, r, sizeof(r)),
			 trigger_size(t->swap_net_rate, g, sizeof(g)),
			 ev->d->system ? "MemAvailable" : "memory.max - memory.current",
			 trigger_size(t->mem_available, a, sizeof(a)), trigger_size(t->mem_total, b, sizeof(b)));
	if (n > 0 && (size_t)n + 2 < cap && t->swap_total > 0) {
		memcpy(buf + n, "; ", 3);
		n += 2;
		n += trigger_swap_words(t, buf + n, cap - (size_t)n);
		if (n > 0 && (size_t)n < cap)
			trigger_zswap_words(ev->s.zswap_stored, ev->s.zswap_ram, buf + n, cap - (size_t)n);
	}
}

static void pace(const struct domain *d, const struct trigger_sample *s, const struct cgoom_config *cfg,
		 struct trigger_pace *acc)
{
	(void)d;
	if (!s->watched)
		return;
	if (WATCHED_PACE_US < acc->next_us)
		acc->next_us = WATCHED_PACE_US;
	/* half way to firing, in both its measures: keep the decision
	 * ready. The stall's length alone is every leak's whole swap phase
	 * (memory short under a stall, no page needed back), and a standby
	 * of every process remade every 5 s all through it was half of
	 * cgoom's CPU over a zram leak's squeeze (bench/swap, 475dde3's
	 * debug line) for a trigger that was not going to fire */
	struct cgoom_thrash_params p;
	trigger_thrash_params(cfg, &p);
	if (s->thrash.thrashing_us >= p.sustain_us / 2 &&
	    s->thrash.refault_rate_run >= p.refault_min / 2)
		acc->approach = true;
}

TRIGGER_DEFINE(thrash, THRASH, TRIGGER_SYSTEM | TRIGGER_CGROUP, check, confirm, why, trigger_fields_pressure, pace);
