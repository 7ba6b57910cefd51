/* SPDX-License-Identifier: MIT */
/*
 * System: MemAvailable and SwapFree both under their minimums
 * (mem_available_min, swap_free_min; SwapFree counts as low without swap),
 * earlyoom's line. With zram at a RAM limit (read while the system is
 * watched), the swap it can still take stands for SwapFree when less, or
 * when it would be gone within 2 s at its rate (cgoom_thrash_zram_full):
 * at its limit zram's writes fail, SwapFree says nothing of it for a
 * minute and more, and the machine freezes meanwhile. MemAvailable already leaves out what cannot be
 * reclaimed (anon and shmem without swap room, unevictable, kernel
 * memory). It paces the system domain: the next sample comes at about
 * half the time the measured growth needs to reach the line (with swap,
 * the farther of MemAvailable's and SwapFree's distances to their
 * minimums), and the standby is kept within the line's own size of it.
 */
#include <stdio.h>
#include <string.h>

#include "daemon-internal.h"
#include "triggers.h"

static uint64_t above(uint64_t v, uint64_t floor)
{
	return v > floor ? v - floor : 0;
}

/* zram at its RAM limit, by facts t (read only while the system is
 * watched) against the levels lv. */
static bool zram_full(bool watched, const struct cgoom_thrash_facts *t, const struct cgoom_system_levels *lv)
{
	return watched && lv->swap_total > 0 && cgoom_thrash_zram_full(t, lv->swap_min);
}

static bool check(struct domain *d, const struct trigger_sample *s, const struct cgoom_config *cfg,
		  bool preempted)
{
	(void)d, (void)cfg;
	return !preempted && s->lv.mem_low && (s->lv.swap_low || zram_full(s->watched, &s->thrash, &s->lv));
}

/* The fresh sample has no zram facts of its own (the re-check reads
 * /proc/meminfo): zram's are the domain's latest, those of the sample
 * the trigger fired on or a later one. */
static bool confirm(const struct domain *d, const struct trigger_event *ev,
		    const struct trigger_sample *fresh, const struct cgoom_config *cfg)
{
	(void)ev, (void)cfg;
	return fresh->lv.mem_low &&
	       (fresh->lv.swap_low ||
		(d->pressure && zram_full(d->pressure->watched, &d->pressure->facts, &fresh->lv)));
}

static void why(const struct trigger_event *ev, const struct cgoom_config *cfg, char *buf, size_t cap)
{
	(void)cfg;
	char a[32], b[32], c[32], m[32], u[32], l[32], f[32];
	const struct cgoom_system_levels *lv = &ev->s.lv;
	const struct cgoom_thrash_facts *t = &ev->s.thrash;
	if (!lv->swap_low && zram_full(ev->s.watched, t, lv)) {
		char r[32];
		int n = snprintf(buf, cap,
				 "MemAvailable %s < %s and zram near its RAM limit (%s of %s): swap can take %s "
				 "more",
				 trigger_size(lv->mem_available, a, sizeof(a)),
				 trigger_size(lv->mem_min, b, sizeof(b)), trigger_size(t->zram_used, u, sizeof(u)),
				 trigger_size(t->zram_limit, l, sizeof(l)), trigger_size(t->swap_room, c, sizeof(c)));
		if (n > 0 && (size_t)n < cap && t->trend_us > 0 && t->swap_rate > 0 && t->eta_us != UINT64_MAX)
			n += snprintf(buf + n, cap - (size_t)n, ", filling at %s/s: gone in %llu.%llu s",
				      trigger_size(t->swap_rate, r, sizeof(r)),
				      (unsigned long long)(t->eta_us / 1000000),
				      (unsigned long long)(t->eta_us / 100000 % 10));
		if (n > 0 && (size_t)n < cap)
			snprintf(buf + n, cap - (size_t)n, " (SwapFree %s, its minimum %s)",
				 trigger_size(lv->swap_free, f, sizeof(f)), trigger_size(lv->swap_min, m, sizeof(m)));
	}
	else if (lv->swap_stuck)
		snprintf(buf, cap, "MemAvailable %s < %s, and swap can take only %s more though %s of it "
			 "is free: %s of the anon and shmem in RAM is in cgroups that cannot swap "
			 "(memory.swap.max 0 or reached)",
			 trigger_size(lv->mem_available, a, sizeof(a)), trigger_size(lv->mem_min, b, sizeof(b)),
			 trigger_size(lv->swappable, c, sizeof(c)), trigger_size(lv->swap_free, f, sizeof(f)),
			 trigger_size(lv->noswap, u, sizeof(u)));
	else if (lv->swap_total)
		snprintf(buf, cap, "MemAvailable %s < %s and SwapFree %s < %s",
			 trigger_size(lv->mem_available, a, sizeof(a)), trigger_size(lv->mem_min, b, sizeof(b)),
			 trigger_size(lv->swap_free, c, sizeof(c)), trigger_size(lv->swap_min, m, sizeof(m)));
	else
		snprintf(buf, cap, "MemAvailable %s < %s, no swap",
			 trigger_size(lv->mem_available, a, sizeof(a)), trigger_size(lv->mem_min, b, sizeof(b)));
	size_t n = strnlen(buf, cap);
	if (n + 1 < cap)
		trigger_zswap_words(ev->s.zswap_stored, ev->s.zswap_ram, buf + n, cap - n);
}

static void pace(const struct domain *d, const struct trigger_sample *s, const struct cgoom_config *cfg,
		 struct trigger_pace *acc)
{
	(void)cfg;
	const struct cgoom_system_levels *lv = &s->lv;
	/* the line is both minimums crossed: with swap, the farther of the
	 * two is how far it is (an allocation takes a page from one or the
	 * other). MemAvailable sits under its own minimum all the while swap
	 * fills; paced on it alone, any growth meant a sample every
	 * millisecond for the whole swap phase, the machine's CPU spent on
	 * cgoom watching it thrash (issue 19) */
	uint64_t mem_room = above(lv->mem_available, lv->mem_min), headroom = mem_room;
	if (lv->swap_total > 0 && cgoom_swap_room(lv) > headroom)
		headroom = cgoom_swap_room(lv);
	uint64_t rate = d->rate_level.bytes_per_s;
	/* the worst case is each line's room at its own fill rate (earlyoom's
	 * rates): while swap fills, its room at 800 MiB/s, not the whole distance at RAM's
	 * 6000 MiB/s, which kept the system at the 100 ms floor for all of
	 * a leak's swap phase (issue 19: cgoom's own CPU under pressure).
	 * Swap's room may ask for up to 10 s where the PSI "some" trigger
	 * wakes the loop at the first reclaim stall: an idle machine with
	 * GiBs of swap is looked at every few seconds, not every second */
	bool stall_wakes = d->psi_some_fd >= 0;
	uint64_t next = cgoom_sample_after_us(cgoom_system_interval_us(lv, stall_wakes), headroom, rate);
	if (next < acc->next_us)
		acc->next_us = next;
	acc->level = above(s->mem_total, lv->mem_available);
	acc->headroom = headroom;
	acc->rate = rate;
	/* a system snapshot is the costliest (every process): the system
	 * keeps a standby only within its line's own size of it, so bursty
	 * system-wide growth does not keep the one preparation thread busy
	 * while a cgroup domain races its limit; with swap, both lines must
	 * be that near (MemAvailable sits near 0 all the while swap fills,
	 * and a snapshot of every process taken again and again under that
	 * pressure is work the machine cannot spare: issue 19) */
	bool swap_near = lv->swap_total == 0 || above(lv->swap_free, lv->swap_min) <= lv->swap_min ||
			 (lv->swappable_known && cgoom_swap_room(lv) <= lv->swap_min) ||
			 (s->watched && cgoom_thrash_zram_full(&s->thrash, 2 * lv->swap_min));
	acc->approach = acc->approach || (mem_room <= lv->mem_min && swap_near);
}

TRIGGER_DEFINE(memory, MEMORY, TRIGGER_SYSTEM, check, confirm, why, trigger_fields_system, pace);
