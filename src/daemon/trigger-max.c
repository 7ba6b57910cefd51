/* SPDX-License-Identifier: MIT */
/*
 * Cgroup: the backstop at the limit. memory.current within `margin` of
 * memory.max while reclaim fails (memory.events `oom` rising; or `max`
 * rising or a PSI full stall, unless memory.stat says the unreclaimable
 * part is clear of the margin: then that is page cache being reclaimed).
 */
#include <stdio.h>

#include "daemon-internal.h"
#include "triggers.h"

static bool check(struct domain *d, const struct trigger_sample *s, const struct cgoom_config *cfg,
		  bool preempted)
{
	(void)cfg;
	return !preempted && cgoom_cgroup_max_fires(&s->prev_ev, &s->cg, &d->params, s->psi_fired);
}

/* Still within the margin of memory.max, or the unreclaimable memory is. */
static bool confirm(const struct domain *d, const struct trigger_event *ev,
		    const struct trigger_sample *fresh, const struct cgoom_config *cfg)
{
	(void)ev, (void)cfg;
	return cgoom_cgroup_in_band(&fresh->cg, &d->params) ||
	       cgoom_cgroup_unreclaimable_near(&fresh->cg, &d->params);
}

static void why(const struct trigger_event *ev, const struct cgoom_config *cfg, char *buf, size_t cap)
{
	(void)cfg;
	char a[32], b[32], m[32];
	const struct cgoom_cgroup_sample *s = &ev->s.cg;
	const struct cgoom_memevents *prev = &ev->s.prev_ev;
	snprintf(buf, cap, "memory.current %s within %s of memory.max %s, %s",
		 trigger_size(s->current, a, sizeof(a)), trigger_size(ev->d->params.margin, m, sizeof(m)),
		 trigger_size(s->max, b, sizeof(b)),
		 s->ev.oom > prev->oom   ? "memory.events oom rose"
		 : s->ev.max > prev->max ? "memory.events max rose"
					 : "PSI full stall");
}

TRIGGER_DEFINE(max, MAX, TRIGGER_CGROUP, check, confirm, why, trigger_fields_cgroup, trigger_pace_none);
