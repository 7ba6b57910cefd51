/* SPDX-License-Identifier: MIT */
/*
 * Cgroup: the memory the kernel cannot reclaim (memory.stat: the anon LRU
 * beyond the swap room left, unevictable, kernel stacks, page tables,
 * unreclaimable slab, socket buffers) within `margin` of memory.max.
 * memory.stat is read only while memory.current, which bounds that sum,
 * is within the margin. It paces cgroup domains (trigger.h
 * cgoom_cgroup_pace): headroom over the measured growth, and inside the
 * margin as if the unreclaimable part could grow at
 * CGOOM_FILL_RATE_BAND.
 */
#include <stdio.h>

#include "daemon-internal.h"
#include "triggers.h"

static bool check(struct domain *d, const struct trigger_sample *s, const struct cgoom_config *cfg,
		  bool preempted)
{
	(void)cfg;
	return !preempted && cgoom_cgroup_unreclaimable_near(&s->cg, &d->params);
}

/* The unreclaimable memory (if read, else memory.current) is still
 * within the margin of memory.max. */
static bool confirm(const struct domain *d, const struct trigger_event *ev,
		    const struct trigger_sample *fresh, const struct cgoom_config *cfg)
{
	(void)ev, (void)cfg;
	if (fresh->cg.unreclaim_valid)
		return cgoom_cgroup_unreclaimable_near(&fresh->cg, &d->params);
	return cgoom_cgroup_in_band(&fresh->cg, &d->params);
}

static void why(const struct trigger_event *ev, const struct cgoom_config *cfg, char *buf, size_t cap)
{
	(void)cfg;
	char a[32], b[32], c[32], m[32], u[32], part[192] = "";
	const struct cgoom_cgroup_sample *s = &ev->s.cg;
	/* memory no kill can free, said where it is a good part of it */
	if (s->unfreeable >= (1u << 20))
		snprintf(part, sizeof(part), " (%s of it shmem and tmpfs no process maps: no kill frees that, "
			 "unless a process holds it open as a deleted file or memfd)",
			 trigger_size(s->unfreeable, u, sizeof(u)));
	snprintf(buf, cap, "unreclaimable %s%s within %s of memory.max %s (memory.current %s)",
		 trigger_size(s->unreclaimable, a, sizeof(a)), part,
		 trigger_size(ev->d->params.margin, m, sizeof(m)), trigger_size(s->max, b, sizeof(b)),
		 trigger_size(s->current, c, sizeof(c)));
}

static void pace(const struct domain *d, const struct trigger_sample *s, const struct cgoom_config *cfg,
		 struct trigger_pace *acc)
{
	(void)cfg;
	if (s->cg.max == UINT64_MAX)
		return;
	struct cgoom_cgroup_pace p;
	cgoom_cgroup_pace(&s->cg, &d->params, &d->rate_level, &d->rate_unrecl, &p);
	if (p.next_us < acc->next_us)
		acc->next_us = p.next_us;
	acc->level = p.level;
	acc->headroom = p.headroom;
	acc->rate = p.rate;
	acc->approach = acc->approach || p.approach;
}

TRIGGER_DEFINE(unreclaimable, UNRECLAIMABLE, TRIGGER_CGROUP, check, confirm, why,
	       trigger_fields_cgroup, pace);
