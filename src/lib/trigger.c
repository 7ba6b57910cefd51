/* SPDX-License-Identifier: MIT */
/* Trigger decisions: pure functions of parsed numbers and passed-in time. */
#include <errno.h>

#include "cgoom/trigger.h"
#include "parse-internal.h"

const char *cgoom_trigger_name(enum cgoom_trigger t)
{
	static const char *const names[CGOOM_TRIGGER_N_] = {
		[CGOOM_TRIGGER_NONE] = "none",
#define NAME_(K, n) [CGOOM_TRIGGER_##K] = #n,
		CGOOM_TRIGGER_KINDS(NAME_)
#undef NAME_
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

static uint64_t swap_stuck_min(const struct cgoom_system_levels *lv)
{
	return lv->mem_min > lv->swap_min ? lv->mem_min : lv->swap_min;
}

void cgoom_system_swappable(struct cgoom_system_levels *lv, uint64_t swap_backed, uint64_t noswap)
{
	lv->noswap = noswap;
	lv->swappable = swap_backed > noswap ? swap_backed - noswap : 0;
	lv->swappable_known = true;
	/* what could still be found, RAM available and what swap could
	 * take, under the larger of the two minimums (on a machine without
	 * swap the line is MemAvailable under mem_min) */
	lv->swap_stuck = lv->swap_total > 0 && lv->swap_free >= lv->swap_min &&
			 lv->mem_available + lv->swappable < swap_stuck_min(lv);
	if (lv->swap_stuck)
		lv->swap_low = true;
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

bool cgoom_cgroup_in_band(const struct cgoom_cgroup_sample *cur, const struct cgoom_cgroup_params *p)
{
	return within(cur->current, p->margin, cur->max);
}

bool cgoom_cgroup_unreclaimable_near(const struct cgoom_cgroup_sample *cur,
				     const struct cgoom_cgroup_params *p)
{
	return cur->unreclaim_valid && within(cur->unreclaimable, p->margin, cur->max);
}

bool cgoom_cgroup_unfreeable_near(const struct cgoom_cgroup_sample *cur,
				  const struct cgoom_cgroup_params *p)
{
	return cur->unreclaim_valid && within(cur->unfreeable, p->margin, cur->max);
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

bool cgoom_cgroup_max_fires(const struct cgoom_memevents *prev, const struct cgoom_cgroup_sample *cur,
			    const struct cgoom_cgroup_params *p, bool psi_fired)
{
	/* `max` rising and PSI stalls also come with page cache being
	 * reclaimed at the limit; once memory.stat says the unreclaimable
	 * part is clear of the margin, only `oom` (reclaim found nothing)
	 * counts as failing. */
	bool soft = rose(prev->max, cur->ev.max) || psi_fired;
	bool cache_only = cur->unreclaim_valid && !within(cur->unreclaimable, p->margin, cur->max);
	bool failing = rose(prev->oom, cur->ev.oom) || (soft && !cache_only);
	return within(cur->current, p->margin, cur->max) && failing;
}

bool cgoom_cgroup_high_step(struct cgoom_cgroup_state *st, const struct cgoom_memevents *prev,
			    const struct cgoom_cgroup_sample *cur, const struct cgoom_cgroup_params *p,
			    bool preempted, uint64_t now_us)
{
	bool high_rose = rose(prev->high, cur->ev.high);
	if (preempted || !p->guarded || !within(cur->current, p->margin, cur->high)) {
		st->in_band = false;
		return false;
	}
	if (!st->in_band) {
		if (!high_rose)
			return false;
		st->in_band = true;
		st->band_since_us = now_us;
		st->band_rises = 0;
		if (p->dwell_us > 0)
			return false;
	} else if (high_rose) {
		st->band_rises++;
	}
	if (now_us < st->band_since_us) /* clock went backwards: restart */
		st->band_since_us = now_us;
	if (now_us - st->band_since_us >= p->dwell_us && (p->dwell_us == 0 || st->band_rises > 0)) {
		st->in_band = false;
		return true;
	}
	return false;
}

/* ---- memory.stat: what cannot be reclaimed ---- */

int cgoom_unreclaim_from_memstat(const struct cgoom_memstat *m, struct cgoom_unreclaim *ret)
{
	const unsigned lru = CGOOM_MEMSTAT_ACTIVE_ANON | CGOOM_MEMSTAT_INACTIVE_ANON;
	struct cgoom_unreclaim u = { 0 };

	if ((m->present & lru) == lru)
		u.anon_lru = parse_sat_add(m->active_anon, m->inactive_anon);
	else if (m->present & CGOOM_MEMSTAT_ANON)
		u.anon_lru = parse_sat_add(m->anon, m->shmem);
	else
		return -ENOENT;
	u.unevictable = m->unevictable;
	u.kernel_stack = m->kernel_stack;
	u.pagetables = m->pagetables;
	u.slab_unreclaimable = m->slab_unreclaimable;
	u.sock = m->sock;
	const unsigned sh = CGOOM_MEMSTAT_SHMEM | CGOOM_MEMSTAT_FILE_MAPPED;
	if ((m->present & sh) == sh && m->shmem > m->file_mapped) {
		u.unmapped_shmem = m->shmem - m->file_mapped;
		if (u.unmapped_shmem > u.anon_lru)
			u.unmapped_shmem = u.anon_lru;
	}
	*ret = u;
	return 0;
}

int cgoom_parse_unreclaim(const char *buf, size_t len, struct cgoom_unreclaim *ret)
{
	struct cgoom_memstat m;
	int r = cgoom_parse_memstat_keys(buf, len, &m);
	if (r < 0)
		return r == -EINVAL || r == -ERANGE ? r : -EBADMSG;
	return cgoom_unreclaim_from_memstat(&m, ret);
}

uint64_t cgoom_unreclaimable(const struct cgoom_unreclaim *u, uint64_t swap_room)
{
	uint64_t s = u->anon_lru > swap_room ? u->anon_lru - swap_room : 0;
	s = parse_sat_add(s, u->unevictable);
	s = parse_sat_add(s, u->kernel_stack);
	s = parse_sat_add(s, u->pagetables);
	s = parse_sat_add(s, u->slab_unreclaimable);
	return parse_sat_add(s, u->sock);
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

uint64_t cgoom_scale_1e6(uint64_t x, uint64_t y)
{
	if (x <= UINT64_MAX / 1000000ULL)
		return x * 1000000ULL / y;
	return x / y > UINT64_MAX / 1000000ULL ? UINT64_MAX : x / y * 1000000ULL;
}

/* headroom * 1e6 / rate microseconds, saturating; rate > 0. */
static uint64_t cgoom_poll_interval_raw_us(uint64_t headroom, uint64_t rate)
{
	return cgoom_scale_1e6(headroom, rate);
}

uint64_t cgoom_poll_interval_us(uint64_t headroom, uint64_t rate)
{
	if (rate == 0)
		return CGOOM_POLL_MAX_US;
	uint64_t us = cgoom_poll_interval_raw_us(headroom, rate);
	if (us < CGOOM_POLL_MIN_US)
		return CGOOM_POLL_MIN_US;
	if (us > CGOOM_POLL_MAX_US)
		return CGOOM_POLL_MAX_US;
	return us;
}

void cgoom_rate_update(struct cgoom_rate *r, uint64_t value, uint64_t now_us)
{
	if (!r->valid || now_us < r->last_us) {
		*r = (struct cgoom_rate){ .last_value = value, .last_us = now_us, .valid = true };
		return;
	}
	uint64_t dt = now_us - r->last_us;
	if (dt == 0)
		return;
	uint64_t inst = 0;
	if (value > r->last_value)
		inst = cgoom_scale_1e6(value - r->last_value, dt);
	/* up at once; down linearly to 0 over CGOOM_RATE_FORGET_US
	 * (memory.current moves in bursts: a quiet sample or two must not
	 * forget a grower) */
	uint64_t keep = r->bytes_per_s;
	uint64_t d = dt >= CGOOM_RATE_FORGET_US ? keep : keep / CGOOM_RATE_FORGET_US * dt +
							      keep % CGOOM_RATE_FORGET_US * dt / CGOOM_RATE_FORGET_US;
	keep -= d;
	r->bytes_per_s = inst > keep ? inst : keep;
	r->last_value = value;
	r->last_us = now_us;
}

uint64_t cgoom_sample_after_us(uint64_t worst_us, uint64_t headroom, uint64_t rate)
{
	uint64_t t = worst_us;
	if (rate == 0)
		return t;
	uint64_t by_rate = cgoom_poll_interval_raw_us(headroom, rate) / 2;
	if (by_rate < t)
		t = by_rate;
	return t < CGOOM_SAMPLE_FLOOR_US ? CGOOM_SAMPLE_FLOOR_US : t;
}

uint64_t cgoom_next_sample_us(uint64_t headroom, uint64_t rate, uint64_t worst_rate)
{
	uint64_t t = worst_rate ? cgoom_poll_interval_raw_us(headroom, worst_rate) : CGOOM_POLL_MAX_US;
	if (t < CGOOM_SAMPLE_NEAR_US)
		t = CGOOM_SAMPLE_NEAR_US;
	if (t > CGOOM_POLL_MAX_US)
		t = CGOOM_POLL_MAX_US;
	return cgoom_sample_after_us(t, headroom, rate);
}

static uint64_t above(uint64_t v, uint64_t floor)
{
	return v > floor ? v - floor : 0;
}

uint64_t cgoom_swap_room(const struct cgoom_system_levels *lv)
{
	uint64_t room = above(lv->swap_free, lv->swap_min);
	if (lv->swappable_known && above(lv->mem_available + lv->swappable, swap_stuck_min(lv)) < room)
		room = above(lv->mem_available + lv->swappable, swap_stuck_min(lv));
	return room;
}

uint64_t cgoom_system_interval_us(const struct cgoom_system_levels *lv, bool stall_wakes)
{
	uint64_t t = cgoom_poll_interval_us(above(lv->mem_available, lv->mem_min), CGOOM_FILL_RATE_RAM);
	if (lv->swap_total > 0) {
		/* the line is both minimums crossed: neither headroom can be
		 * gone sooner than its own fill rate allows, so the later of
		 * the two is the soonest the line can come */
		uint64_t room = cgoom_swap_room(lv);
		uint64_t s = cgoom_poll_interval_us(room, CGOOM_FILL_RATE_SWAP);
		if (stall_wakes && s == CGOOM_POLL_MAX_US) {
			s = cgoom_poll_interval_raw_us(room, CGOOM_FILL_RATE_SWAP);
			if (s > CGOOM_POLL_SWAP_MAX_US)
				s = CGOOM_POLL_SWAP_MAX_US;
			if (s < CGOOM_POLL_MAX_US)
				s = CGOOM_POLL_MAX_US;
		}
		if (s > t)
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

/* The first line of buf..end whose first token is oom_kill, or NULL. A
 * line that does not start with a blank is told by its first bytes (the
 * kernel's lines, each whole read of /proc/vmstat near the line); one
 * that does goes through the token parse. */
static const char *oom_kill_line(const char *buf, const char *end, size_t *ret_n)
{
	const char *pos = buf, *line;
	size_t n;
	while (parse_next_line(&pos, end, &line, &n)) {
		if (n > 0 && !parse_is_blank(line[0])) {
			if (n >= 8 && memcmp(line, "oom_kill", 8) == 0 && (n == 8 || parse_is_blank(line[8]))) {
				*ret_n = n;
				return line;
			}
			continue;
		}
		const char *lp = line, *key;
		size_t kn;
		if (parse_next_token(&lp, line + n, &key, &kn) && parse_span_eq(key, kn, "oom_kill")) {
			*ret_n = n;
			return line;
		}
	}
	return NULL;
}

int cgoom_parse_vmstat_oom_kill(const char *buf, size_t len, uint64_t *ret)
{
	const char *end = parse_end(buf, len), *line;
	size_t n;
	if ((line = oom_kill_line(buf, end, &n))) {
		const char *lp = line, *lend = line + n, *key, *val, *extra;
		size_t kn, vn, xn;
		parse_next_token(&lp, lend, &key, &kn);
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

int cgoom_parse_vmstat_oom_kill_head(const char *buf, size_t len, uint64_t *ret)
{
	if (!buf && len)
		return -EINVAL;
	const char *end = parse_whole_lines_end(buf, len);
	if (end == buf)
		return -EAGAIN;
	int r = cgoom_parse_vmstat_oom_kill(buf, (size_t)(end - buf), ret);
	return r == -ENOENT ? -EAGAIN : r;
}

size_t cgoom_vmstat_oom_kill_head_len(const char *buf, size_t len)
{
	if (!buf)
		return 0;
	const char *end = parse_whole_lines_end(buf, len), *line;
	size_t n;
	if (!(line = oom_kill_line(buf, end, &n)))
		return 0;
	/* parse_next_line's n leaves out the newline, which a whole line has */
	return (size_t)(line - buf) + n + 1;
}

void cgoom_cgroup_pace(const struct cgoom_cgroup_sample *s, const struct cgoom_cgroup_params *p,
		       const struct cgoom_rate *rate_level, const struct cgoom_rate *rate_unrecl,
		       struct cgoom_cgroup_pace *ret)
{
	uint64_t line = above(s->max, p->margin);
	uint64_t rate = rate_level->bytes_per_s;
	if (s->unreclaim_valid && rate_unrecl->valid && rate_unrecl->bytes_per_s > rate)
		rate = rate_unrecl->bytes_per_s;
	ret->level = s->unreclaim_valid ? s->unreclaimable : s->current;
	ret->headroom = above(line, ret->level);
	ret->rate = rate;
	ret->next_us = cgoom_next_sample_us(ret->headroom, rate, CGOOM_FILL_RATE_RAM);
	if (s->unreclaim_valid) {
		uint64_t band = cgoom_poll_interval_raw_us(ret->headroom, CGOOM_FILL_RATE_BAND);
		if (band < CGOOM_SAMPLE_FLOOR_US)
			band = CGOOM_SAMPLE_FLOOR_US;
		if (band < ret->next_us)
			ret->next_us = band;
	}
	uint64_t near = rate > UINT64_MAX / CGOOM_STANDBY_LOOKAHEAD_US
				? UINT64_MAX
				: rate * CGOOM_STANDBY_LOOKAHEAD_US / 1000000ULL;
	ret->approach = ret->headroom <= (p->margin > near ? p->margin : near);
}
