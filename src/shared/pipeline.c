/* SPDX-License-Identifier: MIT */
/*
 * The one selection loop, used by `explain`/`kill` and by the daemon:
 * the engine ranks and plans, the reader fills what the plan asks for,
 * until the plan is DONE; then the engine decides. Data flows one way:
 * the reader never calls the engine, the engine never reads.
 */
#include <errno.h>

#include "cgoom/select.h"
#include "reader-internal.h"

int cgoom_select_lazy(struct cgoom_reader *rd, struct cgoom_snapshot *s,
		      const struct cgoom_settings *set, int domain, struct cgoom_decision *d)
{
	struct cgoom_plan local;
	struct cgoom_plan *plan = rd ? &rd->plan : &local;
	int r;

	if (!rd)
		cgoom_plan_init(&local);
	for (;;) {
		r = cgoom_rank(s, set, domain, d);
		if (r == 0)
			r = cgoom_plan(s, set, d, plan);
		if (r < 0 || plan->kind == CGOOM_PLAN_DONE)
			break;
		if (!rd) {
			r = -EAGAIN; /* a full snapshot lacks nothing: cannot happen */
			break;
		}
		/* each fill reads every cgroup listed (or sets inflight_located),
		 * which no later plan lists again: the loop ends */
		r = cgoom_reader_fill(rd, s, plan);
		if (r < 0)
			break;
	}
	if (r == 0)
		r = cgoom_decide(s, set, d);
	if (!rd)
		cgoom_plan_free(&local);
	return r;
}
