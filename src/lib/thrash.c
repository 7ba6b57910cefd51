/* SPDX-License-Identifier: MIT */
/* Thrashing and swap exhaustion (cgoom/thrash.h): a ring of windows and
 * two verdicts over it. Pure. */
#include <string.h>

#include "cgoom/thrash.h"

#define MiB (1ULL << 20)
/* a dip of swap in use smaller than this does not break a trend (swap
 * cache freed as pages are read back, batching) */
#define TREND_SLACK_MIN (4 * MiB)
/* the recent rate of a trend is measured over at most this long */
#define RATE_SPAN_US 4000000ULL
/* growth of swap in use slower than this is no trend (bytes/s) */
#define TREND_RATE_MIN (1 * MiB)
#define SHARE_2S_US 2000000ULL

void cgoom_thrash_params_default(struct cgoom_thrash_params *ret)
{
	*ret = (struct cgoom_thrash_params){
		.full_min = 1000,    /* 10% of the time every task stalled */
		.page_size = 4096,
		/* pages per second needed back */
		.refault_min = CGOOM_THRASH_REFAULT_BYTES_DEFAULT / 4096,
		.sustain_us = CGOOM_THRASH_SUSTAIN_US_DEFAULT,
		.mem_short = 1000, /* available under 10% */
		.trend_min_us = 2000000,
		.eta_share = 0, /* off: a healthy burst filled 69-72% of swap at a steady rate */
		.eta_max_us = 60000000,
		.fill_max_us = CGOOM_SWAP_FILL_MAX_US_DEFAULT,
	};
}

void cgoom_thrash_reset(struct cgoom_thrash_state *st)
{
	memset(st, 0, sizeof(*st));
}

static void open_window(struct cgoom_thrash_state *st)
{
	st->open = (struct cgoom_thrash_window){ .psi_valid = true, .reclaim_valid = true };
}

/* cur - prev into *d; false when the counter went backwards. */
static bool delta(uint64_t prev, uint64_t cur, uint64_t *d)
{
	if (cur < prev)
		return false;
	*d = cur - prev;
	return true;
}

static uint64_t sat_add(uint64_t a, uint64_t b)
{
	return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

static void restart(struct cgoom_thrash_state *st, const struct cgoom_pressure_point *p)
{
	cgoom_thrash_reset(st);
	st->last = *p;
	st->have_last = true;
	open_window(st);
}

void cgoom_thrash_feed(struct cgoom_thrash_state *st, const struct cgoom_pressure_point *p)
{
	if (!st->have_last || p->at_us < st->last.at_us) {
		restart(st, p);
		return;
	}
	const struct cgoom_pressure_point *q = &st->last;
	uint64_t dt = p->at_us - q->at_us;
	if (dt == 0)
		return;
	struct cgoom_thrash_window *w = &st->open;
	bool psi = p->psi_valid && q->psi_valid, rec = p->reclaim_valid && q->reclaim_valid;
	uint64_t some = 0, full = 0, ref = 0, act = 0, sin = 0, sout = 0, stl = 0, scn = 0, as = 0;
	if (psi && !(delta(q->some_us, p->some_us, &some) && delta(q->full_us, p->full_us, &full))) {
		restart(st, p);
		return;
	}
	if (rec && !(delta(q->refaults, p->refaults, &ref) && delta(q->activations, p->activations, &act) &&
		     delta(q->swapins, p->swapins, &sin) && delta(q->swapouts, p->swapouts, &sout) &&
		     delta(q->stolen, p->stolen, &stl) && delta(q->scanned, p->scanned, &scn) &&
		     delta(q->allocstalls, p->allocstalls, &as))) {
		restart(st, p);
		return;
	}
	w->dt_us = sat_add(w->dt_us, dt);
	w->psi_valid = w->psi_valid && psi;
	w->reclaim_valid = w->reclaim_valid && rec;
	w->some_us = sat_add(w->some_us, some);
	w->full_us = sat_add(w->full_us, full);
	w->refaults = sat_add(w->refaults, ref);
	w->activations = sat_add(w->activations, act);
	w->swapins = sat_add(w->swapins, sin);
	w->swapouts = sat_add(w->swapouts, sout);
	w->stolen = sat_add(w->stolen, stl);
	w->scanned = sat_add(w->scanned, scn);
	w->allocstalls = sat_add(w->allocstalls, as);
	w->end_us = p->at_us;
	w->mem_total = p->mem_total;
	w->mem_available = p->mem_available;
	w->swap_total = p->swap_total;
	w->swap_used = p->swap_used;
	w->zram_orig = p->zram_orig;
	w->zram_used = p->zram_used;
	w->zram_limit = p->zram_limit;
	w->swap_other_free = p->swap_other_free;
	w->zswap_stored = p->zswap_stored;
	w->zswap_ram = p->zswap_ram;
	st->last = *p;
	if (w->dt_us < CGOOM_THRASH_WINDOW_US)
		return;
	st->head = st->n ? (st->head + 1) % CGOOM_THRASH_WINDOWS : 0;
	st->ring[st->head] = *w;
	if (st->n < CGOOM_THRASH_WINDOWS)
		st->n++;
	open_window(st);
}

const struct cgoom_thrash_window *cgoom_thrash_window(const struct cgoom_thrash_state *st, size_t i)
{
	if (i >= st->n)
		return NULL;
	return &st->ring[(st->head + CGOOM_THRASH_WINDOWS - i) % CGOOM_THRASH_WINDOWS];
}

/* part / whole per 10000, saturating at 10000. */
static uint32_t share(uint64_t part, uint64_t whole)
{
	if (whole == 0)
		return 0;
	if (part >= whole)
		return 10000;
	return (uint32_t)(part > UINT64_MAX / 10000 ? part / (whole / 10000) : part * 10000 / whole);
}

/* n per second over dt_us. */
static uint64_t per_s(uint64_t n, uint64_t dt_us)
{
	if (dt_us == 0)
		return 0;
	return n > UINT64_MAX / 1000000ULL ? n / dt_us * 1000000ULL : n * 1000000ULL / dt_us;
}

/* The pages needed back in w: refaults (pages evicted and faulted in
 * again, anon and file), or swap-ins when more. Not only the refaults the
 * kernel counts as activations: with the multi-generational LRU (and for
 * anon whose working set no longer fits) it activates none. */
static uint64_t needed_back(const struct cgoom_thrash_window *w)
{
	return w->swapins > w->refaults ? w->swapins : w->refaults;
}

/* Memory is short in w: what is available under mem_short of the total
 * (a cgroup's swap filling while the machine has plenty is that cgroup's
 * business, not the system's). */
static bool short_of(const struct cgoom_thrash_window *w, const struct cgoom_thrash_params *p)
{
	return w->mem_total > 0 && share(w->mem_available, w->mem_total) < p->mem_short;
}

/* A window of thrashing's stall: every task waiting on memory at least
 * full_min of the time while memory was short (refaults are judged over
 * the run: they come in bursts). */
static bool stalled_window(const struct cgoom_thrash_window *w, const struct cgoom_thrash_params *p)
{
	return w->psi_valid && w->reclaim_valid && w->dt_us > 0 &&
	       share(w->full_us, w->dt_us) >= p->full_min && short_of(w, p);
}

/* What swap can still take: what is free, and for zram with a limit, what
 * its remaining RAM holds at the ratio it compresses at, plus what the
 * other swap areas (a swap file beside zram) have free: a zram at its
 * limit leaves them their room (it was taken as all the swap's, "full
 * in 0.0 s" beside a swap file with hundreds of MiB free). */
static uint64_t swap_room(const struct cgoom_thrash_window *w)
{
	uint64_t room = w->swap_total > w->swap_used ? w->swap_total - w->swap_used : 0;
	if (w->zram_limit > 0 && w->zram_used > 0) {
		uint64_t other = w->swap_other_free < room ? w->swap_other_free : room;
		uint64_t left = w->zram_limit > w->zram_used ? w->zram_limit - w->zram_used : 0;
		/* left x orig / used, without overflow */
		uint64_t z = left / w->zram_used * w->zram_orig +
			     (left % w->zram_used) * (w->zram_orig / w->zram_used);
		if (z < room - other)
			room = other + z;
	}
	return room;
}

/* Bytes/s swap in use grew by over windows oldest..0 (dt_us in all): from
 * the end of the window before the oldest to the newest's end. At the
 * history's start (no window before the oldest) from the oldest's own
 * end, over the windows after it only. 0 when it did not grow. */
static uint64_t swap_net_rate(const struct cgoom_thrash_state *st, size_t oldest, uint64_t dt_us)
{
	const struct cgoom_thrash_window *w0 = cgoom_thrash_window(st, 0);
	const struct cgoom_thrash_window *from = cgoom_thrash_window(st, oldest + 1);
	if (!from) {
		from = cgoom_thrash_window(st, oldest);
		if (!from || dt_us <= from->dt_us)
			return 0;
		dt_us -= from->dt_us;
	}
	if (!w0 || w0->swap_used <= from->swap_used)
		return 0;
	return per_s(w0->swap_used - from->swap_used, dt_us);
}

void cgoom_thrash_judge(const struct cgoom_thrash_state *st, const struct cgoom_thrash_params *p,
			struct cgoom_thrash_facts *ret)
{
	*ret = (struct cgoom_thrash_facts){ .eta_us = UINT64_MAX };
	const struct cgoom_thrash_window *w0 = cgoom_thrash_window(st, 0);
	if (!w0)
		return;
	ret->full_share = w0->psi_valid ? share(w0->full_us, w0->dt_us) : 0;
	ret->some_share = w0->psi_valid ? share(w0->some_us, w0->dt_us) : 0;
	ret->refault_rate = w0->reclaim_valid ? per_s(needed_back(w0), w0->dt_us) : 0;
	ret->swap_total = w0->swap_total;
	ret->swap_used = w0->swap_used;
	ret->mem_total = w0->mem_total;
	ret->mem_available = w0->mem_available;
	ret->zram_orig = w0->zram_orig;
	ret->zram_used = w0->zram_used;
	ret->zram_limit = w0->zram_limit;
	ret->zswap_stored = w0->zswap_stored;
	ret->zswap_ram = w0->zswap_ram;
	ret->swap_room = swap_room(w0);

	/* thrashing: a run of stalled windows (newest back) at least
	 * sustain_us long, with pages needed back at refault_min on average
	 * over its newest sustain_us, and at least as fast as swap in use
	 * grew over them */
	uint64_t full2 = 0, dt2 = 0, back = 0, back_dt = 0;
	size_t oldest = 0;
	bool run = true;
	for (size_t i = 0; i < st->n; i++) {
		const struct cgoom_thrash_window *w = cgoom_thrash_window(st, i);
		ret->span_us += w->dt_us;
		if (dt2 < SHARE_2S_US && w->psi_valid) {
			full2 += w->full_us;
			dt2 += w->dt_us;
		}
		if (run && stalled_window(w, p)) {
			ret->thrashing_us += w->dt_us;
			if (back_dt < p->sustain_us) {
				back = sat_add(back, needed_back(w));
				back_dt += w->dt_us;
				oldest = i;
			}
		} else {
			run = false;
		}
	}
	ret->full_share_2s = share(full2, dt2);
	ret->refault_rate_run = per_s(back, back_dt);
	ret->swap_net_rate = back_dt ? swap_net_rate(st, oldest, back_dt) : 0;
	ret->thrashing = ret->thrashing_us >= p->sustain_us && ret->refault_rate_run >= p->refault_min &&
			 ret->refault_rate_run >= ret->swap_net_rate / (p->page_size ? p->page_size : 4096);

	/* the run: walking back, windows where swap in use grew by at least
	 * TREND_RATE_MIN (over the newer window's length: the growth shows
	 * at the window's end) under a stall of at least full_min while
	 * memory was short; a window short of it is forgiven inside a run,
	 * two in a row end it (swap-out comes in batches) */
	uint64_t rate_from = w0->swap_used, rate_dt = 0, run_us = 0;
	unsigned misses = 0;
	const struct cgoom_thrash_window *newer = w0;
	for (size_t i = 1; i < st->n; i++) {
		const struct cgoom_thrash_window *w = cgoom_thrash_window(st, i);
		uint64_t want = TREND_RATE_MIN / 1000 * (newer->dt_us / 1000);
		bool grew = newer->swap_used >= w->swap_used && newer->swap_used - w->swap_used >= want;
		bool stalled = newer->psi_valid && share(newer->full_us, newer->dt_us) >= p->full_min &&
			       short_of(newer, p);
		if (i == 1)
			ret->filling = grew && stalled;
		if (grew && stalled)
			misses = 0;
		else if (++misses > 1 || newer->swap_used + TREND_SLACK_MIN < w->swap_used)
			break;
		run_us += newer->dt_us;
		if (grew && stalled) {
			ret->trend_us = run_us;
			if (rate_dt < RATE_SPAN_US) {
				rate_dt = run_us;
				rate_from = w->swap_used;
			}
		}
		newer = w;
	}
	if (ret->trend_us == 0 || rate_from >= w0->swap_used)
		return;
	ret->swap_rate = per_s(w0->swap_used - rate_from, rate_dt);
	uint64_t room = ret->swap_room;
	if (ret->swap_rate > 0) {
		uint64_t secs = room / ret->swap_rate, rem = room % ret->swap_rate;
		ret->eta_us = secs > UINT64_MAX / 2000000ULL ? UINT64_MAX
							      : secs * 1000000ULL + rem * 1000000ULL / ret->swap_rate;
	}
	uint64_t allowed = ret->trend_us / 100 * p->eta_share;
	ret->exhausting = w0->swap_total > 0 && ret->trend_us >= p->trend_min_us &&
			  ((p->eta_share > 0 && ret->eta_us <= allowed && ret->eta_us <= p->eta_max_us) ||
			   ret->trend_us >= p->fill_max_us);
}

bool cgoom_thrash_zram_full(const struct cgoom_thrash_facts *f, uint64_t swap_min)
{
	if (f->zram_limit == 0 || f->zram_used == 0 || f->swap_total == 0)
		return false;
	return f->swap_room < swap_min || (f->trend_us > 0 && f->eta_us < CGOOM_ZRAM_ETA_US);
}

bool cgoom_thrash_swap_spent(const struct cgoom_thrash_facts *f, const struct cgoom_thrash_params *p,
			     uint64_t swap_min)
{
	return f->swap_total > 0 && swap_min < f->swap_total && f->zswap_stored > 0 &&
	       f->swap_room < swap_min && f->filling && f->trend_us > 0 && f->trend_us >= p->trend_min_us;
}
