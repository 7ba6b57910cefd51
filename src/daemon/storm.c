/* SPDX-License-Identifier: MIT */
/* Kill accounting and the kill-storm guard (SPEC 6): see storm.h. */
#include "storm.h"

/* The i-th latest kill's time (0: the latest), i < st->n. */
static uint64_t latest(const struct storm_state *st, unsigned i)
{
	unsigned k = (st->next + CGOOM_STORM_KILLS_MAX - 1 - i) % CGOOM_STORM_KILLS_MAX;
	return st->kill_us[k];
}

static bool in_window(uint64_t t, const struct cgoom_storm *p, uint64_t now)
{
	return t > now || now - t < p->window_us; /* a time ahead of now counts as now */
}

unsigned storm_recent(const struct storm_state *st, const struct cgoom_storm *p, uint64_t now)
{
	unsigned n = 0;
	while (n < st->n && in_window(latest(st, n), p, now))
		n++; /* the ring is in time order: the first one outside ends it */
	return n;
}

enum storm_verdict storm_check(const struct storm_state *st, const struct cgoom_storm *p,
			       uint64_t now, bool heading, bool frees)
{
	if (p->kills == 0 || storm_recent(st, p, now) < p->kills)
		return STORM_ALLOW;
	return heading && frees ? STORM_ALLOW_HEADING : STORM_HOLD;
}

enum storm_verdict storm_check_unfreeable(const struct storm_state *st, const struct cgoom_storm *p,
					  uint64_t now, bool heading, bool frees, bool unfreeable)
{
	if (unfreeable && !heading && p->kills != 0)
		return STORM_HOLD_UNFREEABLE;
	return storm_check(st, p, now, heading, frees);
}

uint64_t storm_free_at(const struct storm_state *st, const struct cgoom_storm *p, uint64_t now)
{
	if (p->kills == 0 || storm_recent(st, p, now) < p->kills)
		return now;
	/* the kills-th latest must leave the window for one more to fit */
	uint64_t t = latest(st, p->kills - 1);
	return t + p->window_us;
}

void storm_record_kill(struct storm_state *st, uint64_t now, uint64_t level_before,
		       uint64_t expected)
{
	st->kill_us[st->next] = now;
	st->next = (st->next + 1) % CGOOM_STORM_KILLS_MAX;
	if (st->n < CGOOM_STORM_KILLS_MAX)
		st->n++;
	st->pending = true;
	st->level_before = level_before;
	st->expected = expected;
}

void storm_record_after(struct storm_state *st, uint64_t now, uint64_t level_after)
{
	st->settled = true;
	st->level_after = level_after;
	st->after_us = now;
}

uint64_t storm_hold(struct storm_state *st, uint64_t now, uint64_t every_us)
{
	st->held++;
	if (!st->holding) {
		st->holding = true;
		st->hold_since_us = st->hold_logged_us = now;
		st->held_logged = st->held;
		return 1;
	}
	if (now - st->hold_logged_us < every_us)
		return 0;
	uint64_t n = st->held - st->held_logged;
	st->hold_logged_us = now;
	st->held_logged = st->held;
	return n;
}

void storm_release(struct storm_state *st)
{
	st->holding = false;
	st->held = st->held_logged = 0;
}

bool storm_heading(const struct storm_signs *s, uint64_t horizon_us)
{
	if (s->kernel_kills > 0)
		return true;
	if (s->kind != CGOOM_TRIGGER_UNRECLAIMABLE && s->kind != CGOOM_TRIGGER_MEMORY)
		return true; /* fires only while allocations fail or stall (or unknown) */
	if (s->rate == 0)
		return false;
	/* the line within the horizon at this rate: headroom <= rate x horizon */
	uint64_t secs = horizon_us / 1000000, frac = horizon_us % 1000000;
	if ((secs && s->rate > UINT64_MAX / secs) || s->rate > UINT64_MAX / 1000000)
		return true; /* past any headroom there is */
	uint64_t reach = secs * s->rate, part = frac * s->rate / 1000000;
	reach = reach + part < reach ? UINT64_MAX : reach + part;
	return s->headroom <= reach;
}

uint64_t storm_horizon(uint64_t window_us)
{
	return window_us < STORM_HORIZON_MAX_US ? window_us : STORM_HORIZON_MAX_US;
}

uint64_t storm_promise_now(uint64_t sizes_now, uint64_t footprint_then, uint64_t level_then,
			   uint64_t level_now)
{
	uint64_t grew = level_now > level_then ? level_now - level_then : 0;
	uint64_t fp = storm_sat_add(footprint_then, grew);
	return sizes_now < fp ? sizes_now : fp;
}

uint64_t storm_freed(uint64_t before, uint64_t after)
{
	return before > after ? before - after : 0;
}

bool storm_short(uint64_t expected, uint64_t freed)
{
	return freed < expected / 2 && expected - freed >= STORM_SHORT_MIN;
}

uint64_t storm_growth(const struct storm_state *st, uint64_t level, uint64_t now, uint64_t noise,
		      uint64_t measured)
{
	if (!st->settled)
		return measured;
	if (level <= st->level_after || level - st->level_after <= noise)
		return 0;
	uint64_t grow = level - st->level_after;
	uint64_t span = now > st->after_us ? now - st->after_us : 0;
	if (span < STORM_GROWTH_SPAN_US)
		span = STORM_GROWTH_SPAN_US;
	return cgoom_scale_1e6(grow, span);
}
