/* SPDX-License-Identifier: MIT */
/*
 * The thrashing history and its verdicts (src/lib/thrash.c), on
 * synthetic series with a fake clock: both classes (STYLE 15) for each
 * verdict. Recorded series from the swap bench replay in
 * test-thrash-series.c.
 */
#include <string.h>

#include "cgoom/thrash.h"
#include "tap.h"

#define MiB (1ULL << 20)
#define GiB (1ULL << 30)
#define MS 1000ULL
#define SEC 1000000ULL

/* A machine being stepped through time: its counters and levels. */
struct sim {
	struct cgoom_thrash_state st;
	struct cgoom_pressure_point p;
	struct cgoom_thrash_params params;
};

static void sim_init(struct sim *m)
{
	memset(m, 0, sizeof(*m));
	cgoom_thrash_params_default(&m->params);
	m->p = (struct cgoom_pressure_point){ .at_us = 1000 * SEC, .psi_valid = true,
					      .reclaim_valid = true, .mem_total = 1536 * MiB,
					      .mem_available = 600 * MiB, .swap_total = 1 * GiB };
	cgoom_thrash_feed(&m->st, &m->p);
}

/* sim_init, then the zram facts z gives (mem_available, swap_total when
 * not 0, swap_used, zram_limit/_used/_orig, swap_other_free). */
static void sim_zram(struct sim *m, const struct cgoom_pressure_point *z)
{
	sim_init(m);
	m->p.mem_available = z->mem_available;
	if (z->swap_total)
		m->p.swap_total = z->swap_total;
	m->p.swap_used = z->swap_used;
	m->p.zram_limit = z->zram_limit;
	m->p.zram_used = z->zram_used;
	m->p.zram_orig = z->zram_orig;
	m->p.swap_other_free = z->swap_other_free;
}

/* Steps `dur` in samples of `step`: stalls of some/full per mille of the
 * time, refault and swap-in rates in pages/s, swap growing at
 * swap_rate bytes/s (negative: shrinking). */
static void sim_run(struct sim *m, uint64_t dur, uint64_t step, unsigned some_pm, unsigned full_pm,
		    uint64_t refaults_ps, uint64_t swapins_ps, int64_t swap_rate)
{
	for (uint64_t t = 0; t < dur; t += step) {
		m->p.at_us += step;
		m->p.some_us += step * some_pm / 1000;
		m->p.full_us += step * full_pm / 1000;
		m->p.refaults += refaults_ps * step / SEC;
		m->p.activations += refaults_ps * step / SEC;
		m->p.swapins += swapins_ps * step / SEC;
		int64_t d = swap_rate * (int64_t)step / (int64_t)SEC;
		if (d < 0 && (uint64_t)-d > m->p.swap_used)
			m->p.swap_used = 0;
		else
			m->p.swap_used += (uint64_t)d;
		if (m->p.swap_used > m->p.swap_total)
			m->p.swap_used = m->p.swap_total;
		cgoom_thrash_feed(&m->st, &m->p);
	}
}

static struct cgoom_thrash_facts judge(const struct sim *m)
{
	struct cgoom_thrash_facts f;
	cgoom_thrash_judge(&m->st, &m->params, &f);
	return f;
}

/* swap_free_min's 10% of the sim's swap_total */
static bool spent(const struct sim *m, const struct cgoom_thrash_facts *f)
{
	return cgoom_thrash_swap_spent(f, &m->params, m->p.swap_total / 10);
}

static void test_windows(void)
{
	struct sim m;
	sim_init(&m);
	CHECK(cgoom_thrash_window(&m.st, 0) == NULL);
	sim_run(&m, 2 * SEC, 100 * MS, 200, 100, 0, 0, 0);
	CHECK_EQ_U64(m.st.n, 4);
	const struct cgoom_thrash_window *w = cgoom_thrash_window(&m.st, 0);
	CHECK(w && w->dt_us == 500 * MS && w->full_us == 50 * MS && w->some_us == 100 * MS);
	struct cgoom_thrash_facts f = judge(&m);
	CHECK_EQ_INT((int)f.full_share, 1000);
	CHECK_EQ_INT((int)f.some_share, 2000);
	CHECK_EQ_U64(f.span_us, 2 * SEC);
	/* a counter going backwards (a new cgroup under the same name) starts over */
	m.p.full_us = 0;
	m.p.at_us += 100 * MS;
	cgoom_thrash_feed(&m.st, &m.p);
	CHECK_EQ_U64(m.st.n, 0);
	/* so does time going backwards */
	sim_run(&m, 1 * SEC, 100 * MS, 0, 0, 0, 0, 0);
	CHECK_EQ_U64(m.st.n, 2);
	m.p.at_us -= 5 * SEC;
	cgoom_thrash_feed(&m.st, &m.p);
	CHECK_EQ_U64(m.st.n, 0);
}

static void test_thrashing_fires_after_sustain(void)
{
	/* the working set no longer fits: every task stalls 30% of the
	 * time and 5000 pages/s come back from swap */
	struct sim m;
	sim_init(&m);
	m.p.mem_available = 20 * MiB;
	sim_run(&m, 1500 * MS, 100 * MS, 500, 300, 3000, 5000, 0);
	struct cgoom_thrash_facts f = judge(&m);
	CHECK(!f.thrashing); /* not yet thrash_for (2 s) */
	CHECK_EQ_U64(f.thrashing_us, 1500 * MS);
	sim_run(&m, 500 * MS, 100 * MS, 500, 300, 3000, 5000, 0);
	f = judge(&m);
	CHECK(f.thrashing);
	CHECK_EQ_U64(f.refault_rate, 5000);
	CHECK(!f.exhausting); /* swap is not filling */
}

static void test_stall_without_refaults_is_no_thrashing(void)
{
	/* a burst swapping out an idle job: everyone stalls in reclaim, but
	 * nothing is needed back */
	struct sim m;
	sim_init(&m);
	m.p.mem_available = 20 * MiB;
	sim_run(&m, 5 * SEC, 100 * MS, 600, 400, 100, 50, 100 * (int64_t)MiB);
	struct cgoom_thrash_facts f = judge(&m);
	CHECK(!f.thrashing);
	CHECK_EQ_U64(f.thrashing_us, 5 * SEC); /* short under a stall, all along */
	CHECK(f.refault_rate_run < m.params.refault_min);
}

/* Pages needed back over refault_min while swap in use grows faster
 * than they come back: a burst moving an idle job out (the probe's and
 * the system's pages with it), or a leak; no thrashing. The same pages
 * coming back with swap flat, or growing slower than they come back, is
 * a working set that no longer fits. Both classes: the system, and a
 * cgroup at its memory.max whose memory.swap.current is its swap. */
static void test_thrashing_needs_pages_back_as_fast_as_swap_grows(void)
{
	for (int cgroup = 0; cgroup < 2; cgroup++) {
		struct sim m;
		sim_init(&m);
		if (cgroup) { /* memory.max 512 MiB, 4 MiB from it */
			m.p.mem_total = 512 * MiB;
			m.p.swap_total = 600 * MiB;
		}
		m.p.mem_available = 4 * MiB;
		/* 5000 pages/s back (19.5 MiB/s), swap growing 60 MiB/s */
		sim_run(&m, 6 * SEC, 100 * MS, 600, 400, 5000, 5000, 60 * (int64_t)MiB);
		struct cgoom_thrash_facts f = judge(&m);
		CHECK(f.thrashing_us >= 5 * SEC);
		CHECK(f.refault_rate_run >= m.params.refault_min);
		CHECK(f.swap_net_rate >= 55 * MiB && f.swap_net_rate <= 65 * MiB);
		CHECK(!f.thrashing);
		/* growing 15 MiB/s now, slower than 19.5 come back: 5 s later
		 * the run's windows say so */
		sim_run(&m, 5 * SEC, 100 * MS, 600, 400, 5000, 5000, 15 * (int64_t)MiB);
		f = judge(&m);
		CHECK(f.swap_net_rate >= 13 * MiB && f.swap_net_rate <= 17 * MiB);
		CHECK(f.thrashing);
		/* flat: thrashing */
		sim_run(&m, 5 * SEC, 100 * MS, 600, 400, 5000, 5000, 0);
		f = judge(&m);
		CHECK_EQ_U64(f.swap_net_rate, 0);
		CHECK(f.thrashing);
		/* 21 MiB/s: just faster than they come back */
		sim_run(&m, 5 * SEC, 100 * MS, 600, 400, 5000, 5000, 21 * (int64_t)MiB);
		f = judge(&m);
		CHECK(!f.thrashing);
	}
}

/* The run fills the history from its first point: the growth is taken
 * from the oldest window's end over the windows after it, not spread
 * over one window more (that understated it by a window in the run: a
 * tenth at a thrash_for of 5 s, the one set here). */
static void test_swap_net_rate_at_history_start(void)
{
	struct sim m;
	sim_init(&m);
	m.params.sustain_us = 5 * SEC;
	m.p.mem_available = 4 * MiB;
	sim_run(&m, 5 * SEC, 100 * MS, 600, 400, 5000, 5000, 60 * (int64_t)MiB);
	CHECK(cgoom_thrash_window(&m.st, 9) != NULL && cgoom_thrash_window(&m.st, 10) == NULL);
	struct cgoom_thrash_facts f = judge(&m);
	CHECK_EQ_U64(f.thrashing_us, 5 * SEC);
	CHECK(f.swap_net_rate >= 58 * MiB && f.swap_net_rate <= 62 * MiB);
	CHECK(!f.thrashing);
}

/* The counts are in the kernel's pages: with 64 KiB pages, 300 a second
 * back is 18.75 MiB/s, over the 15 MiB/s line (240 pages) and faster
 * than swap grows (15 MiB/s); taken as 4 KiB pages it would be neither. */
static void test_thrash_page_size(void)
{
	struct sim m;
	sim_init(&m);
	m.params.page_size = 65536;
	m.params.refault_min = 15 * MiB / 65536;
	m.p.mem_available = 4 * MiB;
	sim_run(&m, 6 * SEC, 100 * MS, 600, 400, 300, 300, 15 * (int64_t)MiB);
	struct cgoom_thrash_facts f = judge(&m);
	CHECK(f.thrashing);
	m.params.page_size = 4096;
	f = judge(&m);
	CHECK(!f.thrashing);
}

static void test_thrashing_needs_short_memory(void)
{
	/* a cgroup thrashing at its own memory.high while the machine has
	 * plenty: not the system's thrashing */
	struct sim m;
	sim_init(&m);
	m.p.mem_available = 900 * MiB;
	sim_run(&m, 4 * SEC, 100 * MS, 500, 400, 5000, 5000, 0);
	CHECK(!judge(&m).thrashing);
}

static void test_thrashing_broken_by_recovery(void)
{
	struct sim m;
	sim_init(&m);
	m.p.mem_available = 20 * MiB;
	sim_run(&m, 1500 * MS, 100 * MS, 500, 300, 5000, 5000, 0);
	/* one calm half second: the run starts again */
	sim_run(&m, 500 * MS, 100 * MS, 50, 10, 0, 0, 0);
	sim_run(&m, 1500 * MS, 100 * MS, 500, 300, 5000, 5000, 0);
	struct cgoom_thrash_facts f = judge(&m);
	CHECK(!f.thrashing);
	CHECK_EQ_U64(f.thrashing_us, 1500 * MS);
}

static void test_leak_fills_swap(void)
{
	/* a leak at 40 MiB/s once RAM is full: swap fills under a stall
	 * without a break; it fires once that has gone on for swap_stall_max
	 * (25 s), longer than a healthy burst stalls, before swap is full */
	struct sim m;
	sim_init(&m);
	m.p.mem_available = 30 * MiB;
	m.p.swap_total = 2 * GiB;
	uint64_t t = 0;
	struct cgoom_thrash_facts f = { 0 };
	while (t < 40 * SEC) {
		sim_run(&m, 100 * MS, 100 * MS, 300, 150, 200, 200, 40 * (int64_t)MiB);
		t += 100 * MS;
		f = judge(&m);
		if (f.exhausting)
			break;
	}
	CHECK(f.exhausting);
	CHECK(t >= 25 * SEC && t <= 26 * SEC);
	CHECK(f.eta_us >= 24 * SEC && f.eta_us <= 28 * SEC);
	CHECK(f.swap_rate >= 38 * MiB && f.swap_rate <= 42 * MiB);
	CHECK(f.swap_used < f.swap_total / 2);
}

static void test_projection_when_asked(void)
{
	/* eta_share > 0: fired once no more than the time it has been
	 * filling is left (half the swap, 12.8 s into 25.6 s) */
	struct sim m;
	sim_init(&m);
	m.params.eta_share = 100;
	m.p.mem_available = 30 * MiB;
	uint64_t t = 0;
	struct cgoom_thrash_facts f = { 0 };
	while (t < 30 * SEC && !f.exhausting) {
		sim_run(&m, 100 * MS, 100 * MS, 300, 150, 200, 200, 40 * (int64_t)MiB);
		t += 100 * MS;
		f = judge(&m);
	}
	CHECK(f.exhausting);
	CHECK(t >= 12 * SEC && t <= 14 * SEC);
	CHECK(f.eta_us <= f.trend_us);
}

static void test_slow_leak_stall_max(void)
{
	/* a slow leak (5 MiB/s into 1 GiB: 200 s to fill) under a stall:
	 * swap_stall_max (25 s) ends it long before half the swap is used */
	struct sim m;
	sim_init(&m);
	m.p.mem_available = 30 * MiB;
	uint64_t t = 0;
	struct cgoom_thrash_facts f = { 0 };
	while (t < 60 * SEC && !f.exhausting) {
		sim_run(&m, 100 * MS, 100 * MS, 300, 150, 0, 0, 5 * (int64_t)MiB);
		t += 100 * MS;
		f = judge(&m);
	}
	CHECK(f.exhausting);
	CHECK(t >= 25 * SEC && t <= 26 * SEC);
	CHECK(f.eta_us > f.trend_us);
}

static void test_fill_without_stall_breaks_the_run(void)
{
	/* swap keeps filling, but a second without a stall ends the run:
	 * what is left of it is short */
	struct sim m;
	sim_init(&m);
	m.p.mem_available = 30 * MiB;
	sim_run(&m, 8 * SEC, 100 * MS, 300, 150, 0, 0, 20 * (int64_t)MiB);
	sim_run(&m, 1 * SEC, 100 * MS, 10, 0, 0, 0, 20 * (int64_t)MiB);
	sim_run(&m, 4 * SEC, 100 * MS, 300, 150, 0, 0, 20 * (int64_t)MiB);
	struct cgoom_thrash_facts f = judge(&m);
	CHECK(f.trend_us >= 3 * SEC && f.trend_us <= 5 * SEC);
	CHECK(!f.exhausting);
}

static void test_burst_filling_most_of_swap(void)
{
	/* a healthy burst that fills 85% of the swap at a steady rate in
	 * 9 s and stops: nothing fires (the memory line, SwapFree under 10%,
	 * is the last word near exhaustion) */
	struct sim m;
	sim_init(&m);
	m.p.mem_available = 30 * MiB;
	m.p.swap_total = 512 * MiB;
	for (int i = 0; i < 90; i++) {
		sim_run(&m, 100 * MS, 100 * MS, 700, 500, 0, 0, 48 * (int64_t)MiB);
		struct cgoom_thrash_facts f = judge(&m);
		CHECK(!f.exhausting && !spent(&m, &f));
	}
	for (int i = 0; i < 100; i++) {
		sim_run(&m, 100 * MS, 100 * MS, 20, 5, 0, 0, 0);
		struct cgoom_thrash_facts f = judge(&m);
		CHECK(!f.exhausting && !spent(&m, &f));
	}
}

static void test_burst_that_stops_is_not_exhaustion(void)
{
	/* a job grows 750 MiB beside an idle one: 400 MiB swapped out over
	 * 4 s, then swap stays put; nothing fires */
	struct sim m;
	sim_init(&m);
	m.p.mem_available = 30 * MiB;
	for (int i = 0; i < 40; i++) {
		sim_run(&m, 100 * MS, 100 * MS, 500, 300, 100, 100, 100 * (int64_t)MiB);
		CHECK(!judge(&m).exhausting);
	}
	for (int i = 0; i < 100; i++) {
		sim_run(&m, 100 * MS, 100 * MS, 50, 10, 100, 100, 0);
		CHECK(!judge(&m).exhausting);
	}
	CHECK_EQ_U64(judge(&m).trend_us, 0);
}

static void test_swap_spent_at_the_line(void)
{
	/* zswap in front of a 1 GiB swap file (tests/vm swap-zswap): the
	 * leak's swap fills at 70 MiB/s under a 50% full stall while
	 * MemAvailable stays at 90 MiB of 1.5 GiB (over the memory line's
	 * 5%); the end of swap fires at its 10% line, not before, long
	 * before swap_stall_max */
	struct sim m;
	sim_init(&m);
	m.p.mem_available = 90 * MiB;
	m.p.swap_used = 600 * MiB;
	m.p.zswap_stored = 500 * MiB;
	struct cgoom_thrash_facts f = { 0 };
	uint64_t t = 0;
	while (t < 10 * SEC) {
		sim_run(&m, 100 * MS, 100 * MS, 550, 500, 0, 0, 70 * (int64_t)MiB);
		t += 100 * MS;
		f = judge(&m);
		if (spent(&m, &f))
			break;
		CHECK(f.swap_room >= m.p.swap_total / 10 || f.trend_us < m.params.trend_min_us);
	}
	CHECK(spent(&m, &f));
	CHECK(f.filling);
	CHECK(!f.exhausting);
	CHECK(f.swap_room < 103 * MiB && f.swap_room > 30 * MiB);
	CHECK(t >= 4 * SEC && t <= 6 * SEC);

	/* the same from the start of a run: under the line, but filling
	 * under a stall for less than trend_min_us (2 s) is not yet */
	sim_init(&m);
	m.p.mem_available = 90 * MiB;
	m.p.swap_used = 950 * MiB;
	m.p.zswap_stored = 500 * MiB;
	sim_run(&m, 1 * SEC, 100 * MS, 550, 500, 0, 0, 20 * (int64_t)MiB);
	f = judge(&m);
	CHECK(f.trend_us > 0 && f.trend_us < m.params.trend_min_us);
	CHECK(!spent(&m, &f));
	sim_run(&m, 1500 * MS, 100 * MS, 550, 500, 0, 0, 20 * (int64_t)MiB);
	f = judge(&m);
	CHECK(spent(&m, &f));
	/* it stops: the newest window did not grow, and it is not spent
	 * (the run itself outlives it by a window) */
	sim_run(&m, 600 * MS, 100 * MS, 550, 500, 0, 0, 0);
	f = judge(&m);
	CHECK(f.trend_us > 0);
	CHECK(!f.filling);
	CHECK(!spent(&m, &f));
}

static void test_swap_spent_needs_zswap(void)
{
	/* the same leak on zram or a plain swap file (zswap stores nothing):
	 * the memory line names that moment there; a healthy burst filled
	 * 81% of its swap with MemAvailable at 6.6% (bench-h-idle-grow-2),
	 * and on a swap holding idle pages already it would cross the line */
	struct sim m;
	sim_init(&m);
	m.p.mem_available = 90 * MiB;
	m.p.swap_used = 600 * MiB;
	struct cgoom_thrash_facts f = { 0 };
	for (uint64_t t = 0; t < 6 * SEC; t += 100 * MS) {
		sim_run(&m, 100 * MS, 100 * MS, 550, 500, 0, 0, 70 * (int64_t)MiB);
		f = judge(&m);
		CHECK(!spent(&m, &f));
	}
	CHECK(f.filling && f.swap_room < m.p.swap_total / 10 && f.trend_us >= m.params.trend_min_us);
	/* with zswap, the same facts are spent; at a line of all the swap
	 * or more (swap_free_min a size over SwapTotal) never */
	f.zswap_stored = 1;
	CHECK(spent(&m, &f));
	CHECK(!cgoom_thrash_swap_spent(&f, &m.params, f.swap_total));
	CHECK(!cgoom_thrash_swap_spent(&f, &m.params, UINT64_MAX));
}

static void test_swap_spent_needs_filling_stall(void)
{
	/* a server whose swap is 95% full of idle pages: a stall alone (swap
	 * not growing) is not the end of swap */
	struct sim m;
	sim_init(&m);
	m.p.mem_available = 90 * MiB;
	m.p.swap_used = 980 * MiB;
	m.p.zswap_stored = 500 * MiB;
	sim_run(&m, 10 * SEC, 100 * MS, 550, 500, 0, 0, 0);
	struct cgoom_thrash_facts f = judge(&m);
	CHECK_EQ_U64(f.trend_us, 0);
	CHECK(!spent(&m, &f));
	/* filling without a stall (cold pages paged out at leisure): no */
	sim_run(&m, 5 * SEC, 100 * MS, 20, 0, 0, 0, 2 * (int64_t)MiB);
	f = judge(&m);
	CHECK(!spent(&m, &f));
	/* filling under a stall while memory is not short (a cgroup at its
	 * own limit, the machine with plenty): no */
	sim_init(&m);
	m.p.mem_available = 600 * MiB;
	m.p.swap_used = 950 * MiB;
	m.p.zswap_stored = 500 * MiB;
	sim_run(&m, 5 * SEC, 100 * MS, 550, 500, 0, 0, 10 * (int64_t)MiB);
	f = judge(&m);
	CHECK(!spent(&m, &f));
	/* no swap at all: never, whatever the rest says */
	f = (struct cgoom_thrash_facts){ .swap_total = 0, .swap_room = 0, .trend_us = 3 * SEC,
					 .filling = true, .zswap_stored = 1, .eta_us = UINT64_MAX };
	CHECK(!cgoom_thrash_swap_spent(&f, &m.params, 0));
	CHECK(!cgoom_thrash_swap_spent(&f, &m.params, 1));
	f.swap_total = 1 * GiB;
	CHECK(cgoom_thrash_swap_spent(&f, &m.params, 1)); /* the same facts with swap: spent */
}

static void test_zswap_facts_newest(void)
{
	/* zswap's figures ride with the windows: the newest is the fact */
	struct sim m;
	sim_init(&m);
	m.p.zswap_stored = 100 * MiB;
	m.p.zswap_ram = 40 * MiB;
	sim_run(&m, 1 * SEC, 100 * MS, 0, 0, 0, 0, 0);
	m.p.zswap_stored = 300 * MiB;
	m.p.zswap_ram = 120 * MiB;
	sim_run(&m, 600 * MS, 100 * MS, 0, 0, 0, 0, 0);
	struct cgoom_thrash_facts f = judge(&m);
	CHECK_EQ_U64(f.zswap_stored, 300 * MiB);
	CHECK_EQ_U64(f.zswap_ram, 120 * MiB);
}

static void test_fill_needs_short_memory(void)
{
	/* a cgroup swapping at its own limit fills the system's swap, with
	 * a stall, while the machine has plenty: the cgroup's domain acts,
	 * not the system's */
	struct sim m;
	sim_init(&m);
	m.p.mem_available = 900 * MiB;
	sim_run(&m, 15 * SEC, 100 * MS, 600, 500, 0, 0, 20 * (int64_t)MiB);
	struct cgoom_thrash_facts f = judge(&m);
	CHECK_EQ_U64(f.trend_us, 0);
	CHECK(!f.exhausting);
}

static void test_exhaustion_needs_pressure(void)
{
	/* swap filling with no stall at all (cold pages paged out at
	 * leisure): no run, not a reason to kill */
	struct sim m;
	sim_init(&m);
	sim_run(&m, 20 * SEC, 100 * MS, 0, 0, 0, 0, 40 * (int64_t)MiB);
	struct cgoom_thrash_facts f = judge(&m);
	CHECK_EQ_U64(f.trend_us, 0);
	CHECK(!f.exhausting);
}

static void test_zram_limit_shortens_eta(void)
{
	/* zram with a 256 MiB RAM limit, storing at 2:1: 512 MiB logical
	 * in all, whatever SwapFree says */
	struct sim m;
	sim_zram(&m, &(struct cgoom_pressure_point){
		.mem_available = 30 * MiB, .zram_limit = 256 * MiB, .zram_used = 100 * MiB,
		.zram_orig = 200 * MiB, .swap_used = 200 * MiB });
	sim_run(&m, 3 * SEC, 100 * MS, 300, 100, 0, 0, 10 * (int64_t)MiB);
	struct cgoom_thrash_facts f = judge(&m);
	/* 156 MiB of RAM left x 2 = 312 MiB at 10 MiB/s: about 31 s, not
	 * the (1 GiB - 230 MiB) / 10 MiB/s of SwapFree */
	CHECK(f.eta_us >= 30 * SEC && f.eta_us <= 33 * SEC);
}

static void test_zram_limit_beside_a_swap_file(void)
{
	/* zram at its RAM limit beside a swap file with 300 MiB free (two
	 * areas, zram first by priority): the swap left is the file's, not
	 * none (the guest's /proc/swaps: zram full, the file filling) */
	struct sim m;
	/* 256 MiB of zram, a 384 MiB file */
	sim_zram(&m, &(struct cgoom_pressure_point){
		.mem_available = 30 * MiB, .swap_total = 640 * MiB, .zram_limit = 24 * MiB,
		.zram_used = 24 * MiB, .zram_orig = 57 * MiB, .swap_used = 300 * MiB,
		.swap_other_free = 340 * MiB });
	sim_run(&m, 3 * SEC, 100 * MS, 300, 100, 0, 0, 10 * (int64_t)MiB);
	struct cgoom_thrash_facts f = judge(&m);
	/* the file's 310 MiB at 10 MiB/s: about 31 s, not 0 */
	CHECK(f.swap_rate >= 9 * MiB && f.swap_rate <= 11 * MiB);
	CHECK(f.eta_us >= 29 * SEC && f.eta_us <= 33 * SEC);
	/* zram below its limit beside the file: its room at its ratio plus
	 * the file's */
	sim_zram(&m, &(struct cgoom_pressure_point){
		.mem_available = 30 * MiB, .swap_total = 640 * MiB, .zram_limit = 64 * MiB,
		.zram_used = 24 * MiB, .zram_orig = 48 * MiB, .swap_used = 48 * MiB,
		.swap_other_free = 384 * MiB });
	sim_run(&m, 3 * SEC, 100 * MS, 300, 100, 0, 0, 10 * (int64_t)MiB);
	f = judge(&m);
	/* 40 MiB of RAM x 2 = 80 MiB in zram + 384 MiB: about 46 s */
	CHECK(f.eta_us >= 44 * SEC && f.eta_us <= 48 * SEC);
}

static void test_zram_full(void)
{
	/* zram (512 MiB of slots, a 32 MiB RAM limit) at its limit, SwapFree
	 * still 400 MiB: the swap it can take is none */
	struct sim m;
	sim_zram(&m, &(struct cgoom_pressure_point){
		.mem_available = 20 * MiB, .swap_total = 512 * MiB, .swap_used = 112 * MiB,
		.zram_limit = 32 * MiB, .zram_used = 32 * MiB, .zram_orig = 77 * MiB });
	sim_run(&m, 1 * SEC, 100 * MS, 300, 300, 0, 0, 0);
	struct cgoom_thrash_facts f = judge(&m);
	CHECK_EQ_U64(f.swap_room, 0);
	CHECK(cgoom_thrash_zram_full(&f, 51 * MiB));
	/* 10 MiB of its RAM left at 77:32: about 24 MiB more */
	m.p.zram_used = 22 * MiB;
	sim_run(&m, 1 * SEC, 100 * MS, 300, 300, 0, 0, 0);
	f = judge(&m);
	CHECK(f.swap_room >= 23 * MiB && f.swap_room <= 36 * MiB);
	CHECK(cgoom_thrash_zram_full(&f, 51 * MiB));
	CHECK(!cgoom_thrash_zram_full(&f, 20 * MiB));
	/* filling under a stall at 20 MiB/s with 24-36 MiB left: gone
	 * within 2 s, full for the line before it is (once it is, every
	 * allocation stalls) */
	sim_run(&m, 5 * SEC, 100 * MS, 300, 300, 0, 0, 20 * (int64_t)MiB);
	f = judge(&m);
	CHECK(f.trend_us > 0 && f.eta_us < 2 * SEC);
	CHECK(cgoom_thrash_zram_full(&f, 20 * MiB));
	/* the same with 300 MiB of a swap file beside it: not */
	m.p.swap_other_free = 300 * MiB;
	m.p.swap_total = 812 * MiB;
	sim_run(&m, 5 * SEC, 100 * MS, 300, 300, 0, 0, 20 * (int64_t)MiB);
	f = judge(&m);
	CHECK(!cgoom_thrash_zram_full(&f, 20 * MiB));
	m.p.swap_other_free = 0;
	m.p.swap_total = 512 * MiB;
	m.p.swap_used = 112 * MiB;
	sim_run(&m, 5 * SEC, 100 * MS, 300, 300, 0, 0, 0);
	/* a swap file beside it with 300 MiB free: not full */
	m.p.swap_total = 812 * MiB;
	m.p.swap_other_free = 300 * MiB;
	sim_run(&m, 1 * SEC, 100 * MS, 300, 300, 0, 0, 0);
	f = judge(&m);
	CHECK(!cgoom_thrash_zram_full(&f, 81 * MiB));
	/* without a limit, SwapFree is the room */
	m.p.swap_total = 512 * MiB;
	m.p.swap_other_free = 0;
	m.p.zram_limit = 0;
	sim_run(&m, 1 * SEC, 100 * MS, 300, 300, 0, 0, 0);
	f = judge(&m);
	CHECK_EQ_U64(f.swap_room, 400 * MiB);
	CHECK(!cgoom_thrash_zram_full(&f, 51 * MiB));
}

int main(void)
{
	return tap_run((struct tap_test[]){
		TAP(test_windows),
		TAP(test_thrashing_fires_after_sustain),
		TAP(test_stall_without_refaults_is_no_thrashing),
		TAP(test_thrashing_needs_pages_back_as_fast_as_swap_grows),
		TAP(test_swap_net_rate_at_history_start),
		TAP(test_thrash_page_size),
		TAP(test_thrashing_needs_short_memory),
		TAP(test_thrashing_broken_by_recovery),
		TAP(test_leak_fills_swap),
		TAP(test_slow_leak_stall_max),
		TAP(test_fill_without_stall_breaks_the_run),
		TAP(test_projection_when_asked),
		TAP(test_burst_filling_most_of_swap),
		TAP(test_swap_spent_at_the_line),
		TAP(test_swap_spent_needs_filling_stall),
		TAP(test_swap_spent_needs_zswap),
		TAP(test_zswap_facts_newest),
		TAP(test_burst_that_stops_is_not_exhaustion),
		TAP(test_fill_needs_short_memory),
		TAP(test_exhaustion_needs_pressure),
		TAP(test_zram_limit_shortens_eta),
		TAP(test_zram_limit_beside_a_swap_file),
		TAP(test_zram_full),
		{ 0 },
	});
}
