/* SPDX-License-Identifier: MIT */
/*
 * Cgroup with a guard band (memory.high = memory.max - guard_band,
 * written by cgoom): usage stays in the band while the kernel keeps
 * throttling the allocator there (memory.events `high` rising) for the
 * band's dwell time. The kernel's own OOM killer comes only well after.
 * It paces a guarded domain by the headroom to memory.high - margin.
 */
#include <stdio.h>

#include "daemon-internal.h"
#include "triggers.h"

static bool check(struct domain *d, const struct trigger_sample *s, const struct cgoom_config *cfg,
		  bool preempted)
{
	(void)cfg;
	return cgoom_cgroup_high_step(&d->trig, &s->prev_ev, &s->cg, &d->params, preempted, s->at_us);
}

static bool confirm(const struct domain *d, const struct trigger_event *ev,
		    const struct trigger_sample *fresh, const struct cgoom_config *cfg)
{
	(void)ev, (void)cfg;
	return cgoom_cgroup_at_limit(&fresh->cg, &d->params);
}

static void why(const struct trigger_event *ev, const struct cgoom_config *cfg, char *buf, size_t cap)
{
	(void)cfg;
	char a[32], b[32], c[32];
	const struct cgoom_cgroup_sample *s = &ev->s.cg;
	snprintf(buf, cap,
		 "memory.current %s in the guard band (memory.high %s, memory.max %s), "
		 "memory.events high %llu -> %llu",
		 trigger_size(s->current, a, sizeof(a)), trigger_size(s->high, b, sizeof(b)),
		 trigger_size(s->max, c, sizeof(c)), (unsigned long long)ev->s.prev_ev.high,
		 (unsigned long long)s->ev.high);
}

static void pace(const struct domain *d, const struct trigger_sample *s, const struct cgoom_config *cfg,
		 struct trigger_pace *acc)
{
	(void)cfg;
	if (!d->params.guarded || s->cg.max == UINT64_MAX)
		return;
	uint64_t g = cgoom_cgroup_interval_us(&s->cg, &d->params);
	if (g < acc->next_us)
		acc->next_us = g;
}

TRIGGER_DEFINE(high, HIGH, TRIGGER_CGROUP, check, confirm, why, trigger_fields_cgroup, pace);
