/* SPDX-License-Identifier: MIT */
/* Trigger decisions: pure functions of parsed numbers and passed-in time. */
#include <errno.h>

#include "cgoom/trigger.h"
#include "parse-internal.h"

const char *cgoom_trigger_name(enum cgoom_trigger t)
{
	static const char *const names[CGOOM_TRIGGER_N_] = {
		[CGOOM_TRIGGER_NONE] = "none", [CGOOM_TRIGGER_MEMORY] = "memory",
		[CGOOM_TRIGGER_PSI] = "psi",   [CGOOM_TRIGGER_MAX] = "max",
		[CGOOM_TRIGGER_HIGH] = "high",
	};
	if ((unsigned)t >= CGOOM_TRIGGER_N_)
		return NULL;
	return names[t];
}

bool cgoom_system_low(const struct cgoom_meminfo *mi, const struct cgoom_share *mem_min,
		      const struct cgoom_share *swap_min, struct cgoom_system_levels *ret)
{
	struct cgoom_system_levels lv = { 0 };

	lv.mem_available = (mi->present & CGOOM_MEMINFO_MEM_AVAILABLE) ? mi->mem_available
									: mi->mem_free;
	lv.mem_min = cgoom_share_of(mem_min, mi->mem_total);
	lv.swap_total = mi->swap_total;
	lv.swap_free = mi->swap_free;
	lv.swap_min = cgoom_share_of(swap_min, mi->swap_total);
	lv.mem_low = lv.mem_available < lv.mem_min;
	/* No swap: nothing to wait for. */
	lv.swap_low = lv.swap_total == 0 || lv.swap_free < lv.swap_min;
	if (ret)
		*ret = lv;
	return lv.mem_low && lv.swap_low;
}

bool cgoom_psi_over(const struct cgoom_psi_sample *prev, const struct cgoom_psi_sample *cur,
		    uint64_t stall_us, uint64_t window_us, uint64_t *ret_stall_us)
{
	if (!prev->valid || !cur->valid || window_us == 0)
		return false;
	if (cur->at_us < prev->at_us || cur->total_us < prev->total_us)
		return false;
	uint64_t growth = cur->total_us - prev->total_us;
	uint64_t dt = cur->at_us - prev->at_us;
	uint64_t stall = growth;
	if (dt > window_us) {
		/* growth * window / dt, without overflow: growth <= dt in
		 * practice (stall cannot exceed wall time per CPU set), but
		 * stay safe for any input. */
		if (growth <= UINT64_MAX / window_us)
			stall = growth * window_us / dt;
		else
			stall = growth / dt * window_us;
	}
	if (ret_stall_us)
		*ret_stall_us = stall;
	return stall >= stall_us;
}

void cgoom_cgroup_baseline(struct cgoom_cgroup_state *st, const struct cgoom_cgroup_sample *cur)
{
	st->last = cur->ev;
	st->in_band = false;
	st->band_since_us = 0;
	st->band_rises = 0;
}

static bool within(uint64_t current, uint64_t margin, uint64_t limit)
{
	if (limit == UINT64_MAX)
		return false;
	/* current + margin >= limit, without overflow */
	return current >= limit || limit - current <= margin;
}

bool cgoom_cgroup_at_limit(const struct cgoom_cgroup_sample *cur, const struct cgoom_cgroup_params *p)
{
	if (within(cur->current, p->margin, cur->max))
		return true;
	return p->guarded && within(cur->current, p->margin, cur->high);
}

/* Counters only grow; one that went down (a new cgroup under the same
 * name, or a fresh baseline) counts as no rise. */
static bool rose(uint64_t before, uint64_t now)
{
	return now > before;
}

enum cgoom_trigger cgoom_cgroup_check(struct cgoom_cgroup_state *st,
				      const struct cgoom_cgroup_sample *cur,
				      const struct cgoom_cgroup_params *p, bool psi_fired,
				      uint64_t now_us)
{
	bool failing = rose(st->last.max, cur->ev.max) || rose(st->last.oom, cur->ev.oom) || psi_fired;
	bool high_rose = rose(st->last.high, cur->ev.high);
	st->last = cur->ev;

	if (within(cur->current, p->margin, cur->max) && failing) {
		st->in_band = false;
		return CGOOM_TRIGGER_MAX;
	}
	if (!p->guarded || !within(cur->current, p->margin, cur->high)) {
		st->in_band = false;
		return CGOOM_TRIGGER_NONE;
	}
	if (!st->in_band) {
		if (!high_rose)
			return CGOOM_TRIGGER_NONE;
		st->in_band = true;
		st->band_since_us = now_us;
		st->band_rises = 0;
		if (p->dwell_us > 0)
			return CGOOM_TRIGGER_NONE;
	} else if (high_rose) {
		st->band_rises++;
	}
	if (now_us < st->band_since_us) /* clock went backwards: restart */
		st->band_since_us = now_us;
	if (now_us - st->band_since_us >= p->dwell_us && (p->dwell_us == 0 || st->band_rises > 0)) {
		st->in_band = false;
		return CGOOM_TRIGGER_HIGH;
	}
	return CGOOM_TRIGGER_NONE;
}

bool cgoom_kernel_oom_rose(const struct cgoom_memevents *prev, const struct cgoom_memevents *cur,
			   uint64_t *ret_n)
{
	if (!rose(prev->oom_kill, cur->oom_kill))
		return false;
	if (ret_n)
		*ret_n = cur->oom_kill - prev->oom_kill;
	return true;
}

uint64_t cgoom_poll_interval_us(uint64_t headroom, uint64_t rate)
{
	if (rate == 0)
		return CGOOM_POLL_MAX_US;
	/* headroom * 1e6 / rate, saturating */
	uint64_t us;
	if (headroom <= UINT64_MAX / 1000000ULL)
		us = headroom * 1000000ULL / rate;
	else
		us = headroom / rate > UINT64_MAX / 1000000ULL ? UINT64_MAX
							       : headroom / rate * 1000000ULL;
	if (us < CGOOM_POLL_MIN_US)
		return CGOOM_POLL_MIN_US;
	if (us > CGOOM_POLL_MAX_US)
		return CGOOM_POLL_MAX_US;
	return us;
}

static uint64_t above(uint64_t v, uint64_t floor)
{
	return v > floor ? v - floor : 0;
}

uint64_t cgoom_system_interval_us(const struct cgoom_system_levels *lv)
{
	uint64_t t = cgoom_poll_interval_us(above(lv->mem_available, lv->mem_min), CGOOM_FILL_RATE_RAM);
	if (lv->swap_total > 0) {
		uint64_t s = cgoom_poll_interval_us(above(lv->swap_free, lv->swap_min),
						    CGOOM_FILL_RATE_SWAP);
		if (s < t)
			t = s;
	}
	return t;
}

uint64_t cgoom_cgroup_interval_us(const struct cgoom_cgroup_sample *cur,
				  const struct cgoom_cgroup_params *p)
{
	uint64_t limit = cur->max;
	if (p->guarded && cur->high < limit)
		limit = cur->high;
	if (limit == UINT64_MAX)
		return CGOOM_POLL_MAX_US;
	uint64_t threshold = above(limit, p->margin);
	return cgoom_poll_interval_us(above(threshold, cur->current), CGOOM_FILL_RATE_RAM);
}

int cgoom_parse_vmstat_oom_kill(const char *buf, size_t len, uint64_t *ret)
{
	const char *pos = buf, *end = parse_end(buf, len), *line;
	size_t n;
	while (parse_next_line(&pos, end, &line, &n)) {
		const char *lp = line, *lend = line + n, *key, *val, *extra;
		size_t kn, vn, xn;
		if (!parse_next_token(&lp, lend, &key, &kn) || !parse_span_eq(key, kn, "oom_kill"))
			continue;
		if (!parse_next_token(&lp, lend, &val, &vn) || parse_next_token(&lp, lend, &extra, &xn))
			return -EBADMSG;
		uint64_t v;
		int r = parse_digits_u64(val, vn, &v);
		if (r < 0)
			return r;
		*ret = v;
		return 0;
	}
	return -ENOENT;
}
