/* SPDX-License-Identifier: MIT */
/*
 * Both classes: swap filling under a memory stall (SPEC 6 "Swap";
 * doc/triggers.md). Swap in use has grown (1 MiB/s or more) through
 * windows that each had a memory "full" stall of psi_full's share,
 * without a break, for at least 2 s (the run), and either at its recent
 * rate the swap left (for zram with a limit: what its remaining RAM holds
 * at its compression ratio, plus the free swap of the other areas beside
 * it) fills within the run's age, or the run has
 * lasted `swap_stall_max` (25 s): longer than a burst that swaps out an
 * idle job stalls (measured: 5.5 s with zram and 11 s with a swap file in
 * the lead's test bed; 21 s with zram in bench/swap's h-idle-grow on a
 * loaded host, at 40-90% full). The projection (the swap left gone within the run's own
 * age) is off by default: a healthy burst filled 69-72% of a zram swap at a
 * steady rate before it stopped. A burst that stops, or swap filling with
 * no stall, never fires.
 *
 * Sooner at the end of swap, on the system with zswap in use: once what
 * swap can still take is under swap_free_min's line while it still
 * fills under a stall, a run of 2 s fires (cgoom_thrash_swap_spent). The
 * kernel kills as swap runs out, and with zswap in front of a swap file
 * MemAvailable stayed at 6%, over the memory line's 5%, up to the
 * kernel's kill (tests/vm swap-zswap); on zram and a plain swap file the
 * memory line names that moment itself.
 */
#include <stdio.h>

#include "daemon-internal.h"
#include "triggers.h"

#define MiB (1ULL << 20)

/* The system, zswap in use: under its SwapFree line and still filling
 * under a stall for 2 s (a cgroup's swap has no such line). */
static bool spent(const struct domain *d, const struct trigger_sample *s, const struct cgoom_config *cfg)
{
	struct cgoom_thrash_params p;
	trigger_thrash_params(cfg, &p);
	return d->system && s->watched && cgoom_thrash_swap_spent(&s->thrash, &p, s->lv.swap_min);
}

static bool check(struct domain *d, const struct trigger_sample *s, const struct cgoom_config *cfg,
		  bool preempted)
{
	return !preempted && s->watched && (s->thrash.exhausting || spent(d, s, cfg));
}

/* The swap used then was not given back (a kill, the kernel's or anyone
 * else's, frees the victim's swap at once). */
static bool confirm(const struct domain *d, const struct trigger_event *ev,
		    const struct trigger_sample *fresh, const struct cgoom_config *cfg)
{
	(void)cfg;
	uint64_t then = ev->s.thrash.swap_used, slack = 16 * MiB;
	uint64_t now;
	if (d->system)
		now = fresh->lv.swap_total > fresh->lv.swap_free ? fresh->lv.swap_total - fresh->lv.swap_free
								 : 0;
	else if (fresh->cg.unreclaim_valid)
		now = fresh->cg.swap_used;
	else
		return cgoom_cgroup_in_band(&fresh->cg, &d->params);
	return now + slack >= then;
}

static void why(const struct trigger_event *ev, const struct cgoom_config *cfg, char *buf, size_t cap)
{
	(void)cfg;
	const struct cgoom_thrash_facts *t = &ev->s.thrash;
	int n = snprintf(buf, cap, "%s", ev->d->system ? "" : "the cgroup's ");
	if (n >= 0 && (size_t)n < cap)
		n += trigger_swap_words(t, buf + n, cap - (size_t)n);
	if (n >= 0 && (size_t)n < cap)
		n += trigger_zswap_words(ev->s.zswap_stored, ev->s.zswap_ram, buf + n, cap - (size_t)n);
	if (n >= 0 && (size_t)n < cap && !t->exhausting) {
		char r[32], l[32];
		n += snprintf(buf + n, cap - (size_t)n, "; it can take only %s more, under the swap line %s",
			      trigger_size(t->swap_room, r, sizeof(r)),
			      trigger_size(ev->s.lv.swap_min, l, sizeof(l)));
	}
	if (n >= 0 && (size_t)n < cap)
		snprintf(buf + n, cap - (size_t)n, "; memory some stall %u.%u%%, full %u.%u%%",
			 t->some_share / 100, t->some_share / 10 % 10, t->full_share / 100,
			 t->full_share / 10 % 10);
}

/* How long before swap_stall_max the standby is kept ready (the thrash
 * trigger's lead too: half its thrash_for). */
#define SWAP_APPROACH_US 2500000ULL

static void pace(const struct domain *d, const struct trigger_sample *s, const struct cgoom_config *cfg,
		 struct trigger_pace *acc)
{
	const struct cgoom_thrash_facts *t = &s->thrash;
	if (!s->watched || t->trend_us == 0 || t->eta_us == UINT64_MAX)
		return;
	/* a quarter of the way to full, at least every 50 ms */
	uint64_t next = t->eta_us / 4 < 50000 ? 50000 : t->eta_us / 4;
	if (next < acc->next_us)
		acc->next_us = next;
	/* near either line (swap_stall_max; with zswap on the system, twice
	 * the swap line): keep the decision ready. Near swap_stall_max
	 * is within SWAP_APPROACH_US of it (half of it, if shorter): half
	 * way kept a standby of every process, remade every 5 s, for the
	 * last 12.5 s of every long swap phase */
	struct cgoom_thrash_params p;
	trigger_thrash_params(cfg, &p);
	uint64_t lead = p.fill_max_us / 2 < SWAP_APPROACH_US ? p.fill_max_us / 2 : SWAP_APPROACH_US;
	if (t->trend_us >= p.trend_min_us / 2 &&
	    (t->trend_us >= p.fill_max_us - lead ||
	     (d->system && t->zswap_stored > 0 && t->swap_room / 2 < s->lv.swap_min) ||
	     (p.eta_share > 0 && t->eta_us / 2 <= t->trend_us / 100 * p.eta_share)))
		acc->approach = true;
}

TRIGGER_DEFINE(swap, SWAP, TRIGGER_SYSTEM | TRIGGER_CGROUP, check, confirm, why, trigger_fields_pressure, pace);
