/* SPDX-License-Identifier: MIT */
/*
 * System: a memory PSI "full" stall over psi_full (STALL/WINDOW), from
 * the kernel's trigger on /proc/pressure/memory or, where it cannot be
 * armed, by polling the file. Not while a victim is dying, and not when
 * a cgroup domain sits at its own limit (memory.high throttling and
 * memcg reclaim count in the root's PSI: that domain's trigger acts).
 */
#include <stdio.h>

#include "daemon-internal.h"
#include "triggers.h"

static bool check(struct domain *d, const struct trigger_sample *s, const struct cgoom_config *cfg,
		  bool preempted)
{
	(void)d, (void)cfg;
	return !preempted && s->psi_fired && !s->kill_active && !s->stall_owned;
}

/* Still in trouble: MemAvailable low, or still stalling (the full total
 * grew since the trigger was seen). */
static bool confirm(const struct domain *d, const struct trigger_event *ev,
		    const struct trigger_sample *fresh, const struct cgoom_config *cfg)
{
	(void)d, (void)cfg;
	if (fresh->lv.mem_low && fresh->lv.swap_low)
		return true;
	return ev->psi0.valid && fresh->psi.valid && fresh->psi.total_us > ev->psi0.total_us;
}

static void why(const struct trigger_event *ev, const struct cgoom_config *cfg, char *buf, size_t cap)
{
	snprintf(buf, cap, "PSI full stall over %llu us in a %llu us window%s",
		 (unsigned long long)cfg->psi_full_stall_us, (unsigned long long)cfg->psi_full_window_us,
		 ev->d->psi_trigger ? " (kernel trigger)" : " (polled)");
}

TRIGGER_DEFINE(psi, PSI, TRIGGER_SYSTEM, check, confirm, why, trigger_fields_system, trigger_pace_none);
