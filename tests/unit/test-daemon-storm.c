/* SPDX-License-Identifier: MIT */
/* SPEC 6's kill-storm guard and kill accounting (src/daemon/storm.c) on a
 * fake clock: the limit per window, the window sliding, never holding
 * while the domain heads for the kernel's OOM and a kill frees memory,
 * the hold's log rate, and what counts as freeing far less. */
#include <string.h>

#include "storm.h"
#include "tap.h"

#define S (1000000ull)
#define MiB (1ull << 20)

static const struct cgoom_storm LIMIT = { .kills = 3, .window_us = 60 * S };

static void test_under_limit_allows(void)
{
	struct storm_state st = { 0 };
	uint64_t t = 1000 * S;
	for (int i = 0; i < 3; i++) {
		CHECK_EQ_INT(storm_check(&st, &LIMIT, t, false, true), STORM_ALLOW);
		storm_record_kill(&st, t, 500 * MiB, 100 * MiB);
		t += 5 * S;
	}
	CHECK_EQ_INT(storm_recent(&st, &LIMIT, t), 3);
	/* the fourth within the minute: held, as nothing heads for the OOM */
	CHECK_EQ_INT(storm_check(&st, &LIMIT, t, false, true), STORM_HOLD);
	/* a kill that frees nothing is held even while heading */
	CHECK_EQ_INT(storm_check(&st, &LIMIT, t, true, false), STORM_HOLD);
	/* heading for the OOM with memory to free: never held */
	CHECK_EQ_INT(storm_check(&st, &LIMIT, t, true, true), STORM_ALLOW_HEADING);
}

/* Memory no kill can free keeps the domain at its line by itself: held
 * from the first kill unless heading for the OOM, where the limit rules */
static void test_unfreeable_holds(void)
{
	struct storm_state st = { 0 };
	uint64_t t = 1000 * S;
	CHECK_EQ_INT(storm_check_unfreeable(&st, &LIMIT, t, false, true, true), STORM_HOLD_UNFREEABLE);
	CHECK_EQ_INT(storm_check_unfreeable(&st, &LIMIT, t, true, true, true), STORM_ALLOW);
	CHECK_EQ_INT(storm_check_unfreeable(&st, &LIMIT, t, false, true, false), STORM_ALLOW);
	for (int i = 0; i < 3; i++)
		storm_record_kill(&st, t, 500 * MiB, 100 * MiB);
	CHECK_EQ_INT(storm_check_unfreeable(&st, &LIMIT, t, true, true, true), STORM_ALLOW_HEADING);
	CHECK_EQ_INT(storm_check_unfreeable(&st, &LIMIT, t, false, true, true), STORM_HOLD_UNFREEABLE);
	CHECK_EQ_INT(storm_check_unfreeable(&st, &LIMIT, t, false, true, false), STORM_HOLD);
	/* kill_storm = no: no guard at all */
	struct cgoom_storm off = { 0 };
	CHECK_EQ_INT(storm_check_unfreeable(&st, &off, t, false, true, true), STORM_ALLOW);
}

static void test_window_slides(void)
{
	struct storm_state st = { 0 };
	storm_record_kill(&st, 100 * S, 0, 0);
	storm_record_kill(&st, 110 * S, 0, 0);
	storm_record_kill(&st, 120 * S, 0, 0);
	CHECK_EQ_INT(storm_check(&st, &LIMIT, 159 * S, false, true), STORM_HOLD);
	/* the first kill leaves the window 60 s after it: (now - 60 s, now] */
	CHECK_EQ_U64(storm_free_at(&st, &LIMIT, 159 * S), 160 * S);
	CHECK_EQ_INT(storm_check(&st, &LIMIT, 160 * S - 1, false, true), STORM_HOLD);
	CHECK_EQ_INT(storm_check(&st, &LIMIT, 160 * S, false, true), STORM_ALLOW);
	CHECK_EQ_INT(storm_recent(&st, &LIMIT, 160 * S), 2);
	CHECK_EQ_U64(storm_free_at(&st, &LIMIT, 160 * S), 160 * S);
	CHECK_EQ_INT(storm_recent(&st, &LIMIT, 181 * S), 0);
}

static void test_no_limit_and_one(void)
{
	struct storm_state st = { 0 };
	const struct cgoom_storm off = { 0 }, one = { .kills = 1, .window_us = 10 * S };
	for (int i = 0; i < 200; i++)
		storm_record_kill(&st, (uint64_t)i * S, 0, 0);
	CHECK_EQ_INT(st.n, CGOOM_STORM_KILLS_MAX); /* the ring keeps the latest */
	CHECK_EQ_INT(storm_check(&st, &off, 200 * S, false, false), STORM_ALLOW);
	CHECK_EQ_INT(storm_check(&st, &one, 200 * S, false, true), STORM_HOLD);
	CHECK_EQ_INT(storm_check(&st, &one, 209 * S + 1, false, true), STORM_ALLOW);
	/* the limit at the ring's size still counts every kill in it */
	const struct cgoom_storm max = { .kills = CGOOM_STORM_KILLS_MAX, .window_us = 1000 * S };
	CHECK_EQ_INT(storm_recent(&st, &max, 200 * S), CGOOM_STORM_KILLS_MAX);
	CHECK_EQ_INT(storm_check(&st, &max, 200 * S, false, true), STORM_HOLD);
	CHECK_EQ_U64(storm_free_at(&st, &max, 200 * S), (200 - CGOOM_STORM_KILLS_MAX) * S + 1000 * S);
}

static void test_hold_log_rate(void)
{
	struct storm_state st = { 0 };
	uint64_t t = 50 * S;
	CHECK_EQ_U64(storm_hold(&st, t, 10 * S), 1); /* the first hold says so */
	CHECK_EQ_U64(storm_hold(&st, t + 1 * S, 10 * S), 0);
	CHECK_EQ_U64(storm_hold(&st, t + 9 * S, 10 * S), 0);
	/* then once per interval, with the count since the last line */
	CHECK_EQ_U64(storm_hold(&st, t + 10 * S, 10 * S), 3);
	CHECK_EQ_U64(storm_hold(&st, t + 11 * S, 10 * S), 0);
	CHECK_EQ_U64(storm_hold(&st, t + 20 * S, 10 * S), 2);
	CHECK_EQ_U64(st.hold_since_us, t);
	storm_release(&st);
	CHECK(!st.holding && st.held == 0);
	CHECK_EQ_U64(storm_hold(&st, t + 21 * S, 10 * S), 1); /* a new episode says so at once */
	CHECK_EQ_U64(st.hold_since_us, t + 21 * S);
}

static void test_record_accounts(void)
{
	struct storm_state st = { 0 };
	CHECK(!st.pending);
	storm_record_kill(&st, 5 * S, 700 * MiB, 200 * MiB);
	CHECK(st.pending);
	CHECK_EQ_U64(st.level_before, 700 * MiB);
	CHECK_EQ_U64(st.expected, 200 * MiB);
}

static void test_heading(void)
{
	struct storm_signs s = { .kind = CGOOM_TRIGGER_UNRECLAIMABLE };
	/* a level at its line that does not move: nothing allocates */
	CHECK(!storm_heading(&s, 60 * S));
	/* growing: at 1 MiB/s, 30 MiB from the line is within a minute */
	s.rate = 1 * MiB;
	s.headroom = 30 * MiB;
	CHECK(storm_heading(&s, 60 * S));
	s.headroom = 61 * MiB;
	CHECK(!storm_heading(&s, 60 * S));
	CHECK(storm_heading(&s, 61 * S + S / 2));
	s.headroom = 0;
	CHECK(storm_heading(&s, 60 * S));
	s.rate = UINT64_MAX;
	s.headroom = UINT64_MAX - 1;
	CHECK(storm_heading(&s, 60 * S)); /* no overflow */
	/* the horizon is the window, at most 10 s: tests/vm tmpfs-filler's
	 * domain at its line, 11 MiB from memory.max, measured growing at
	 * 388 KiB/s right after two kills, is not heading (it was with a
	 * 60 s window); at 2 MiB/s it is */
	CHECK_EQ_U64(storm_horizon(60 * S), 10 * S);
	CHECK_EQ_U64(storm_horizon(5 * S), 5 * S);
	s = (struct storm_signs){ .kind = CGOOM_TRIGGER_UNRECLAIMABLE, .rate = 388 * 1024,
				  .headroom = 11 * MiB };
	CHECK(storm_heading(&s, 60 * S));
	CHECK(!storm_heading(&s, storm_horizon(60 * S)));
	s.rate = 2 * MiB;
	CHECK(storm_heading(&s, storm_horizon(60 * S)));
	/* the kernel killing there: heading, whatever the level does */
	s = (struct storm_signs){ .kind = CGOOM_TRIGGER_MEMORY, .kernel_kills = 1 };
	CHECK(storm_heading(&s, 60 * S));
	s.kernel_kills = 0;
	CHECK(!storm_heading(&s, 60 * S));
	/* triggers that fire only while allocations fail or stall */
	enum cgoom_trigger k[] = { CGOOM_TRIGGER_MAX, CGOOM_TRIGGER_HIGH, CGOOM_TRIGGER_SWAP,
				   CGOOM_TRIGGER_THRASH, (enum cgoom_trigger)CGOOM_TRIGGER_N_ };
	for (size_t i = 0; i < sizeof(k) / sizeof(k[0]); i++) {
		s = (struct storm_signs){ .kind = k[i] };
		CHECK(storm_heading(&s, 60 * S));
	}
}

/* The growth the guard measures once a kill is accounted: net growth of
 * the level since the victims were gone, the charge stocks' noise left
 * out, over at least 2 s; and the distance to memory.max, not to the
 * line. tests/vm tmpfs-filler (CI at 359c15f): /fill2, memory.max 300
 * MiB, 288 MiB of tmpfs, at 290.2 MiB after two kills, read 290.9 MiB a
 * moment later (a stock refilling) while the trigger's own estimate said
 * 468 KiB/s; with "0 B from the line" that was heading and the guard let
 * kills 3 and 4 through (4 kills of kill_storm = 2/1m). */
static void test_growth(void)
{
	const uint64_t KiB = 1024, noise = 130 * 4 * KiB; /* 2 CPUs' stocks */
	struct storm_state st = { 0 };
	/* no kill accounted yet: the trigger's estimate */
	CHECK_EQ_U64(storm_growth(&st, 290 * MiB, 10 * S, noise, 468 * KiB), 468 * KiB);
	storm_record_kill(&st, 9 * S, 291 * MiB, 1 * MiB);
	CHECK_EQ_U64(storm_growth(&st, 290 * MiB, 10 * S, noise, 468 * KiB), 468 * KiB);
	uint64_t after = 290 * MiB + 205 * KiB; /* 290.2 MiB */
	storm_record_after(&st, 10 * S, after);
	CHECK(st.settled);
	/* falling, or not past the stocks' noise: no growth */
	CHECK_EQ_U64(storm_growth(&st, 289 * MiB, 10 * S + S / 2, noise, 468 * KiB), 0);
	CHECK_EQ_U64(storm_growth(&st, after + noise, 10 * S + S / 2, noise, 468 * KiB), 0);
	/* 0.7 MiB more 0.4 s later: over 2 s, 358 KiB/s */
	uint64_t level = after + 717 * KiB;
	uint64_t g = storm_growth(&st, level, 10 * S + 4 * S / 10, noise, 468 * KiB);
	CHECK_EQ_U64(g, 717 * KiB / 2);
	/* before: 0 B from the line at 468 KiB/s is heading ... */
	struct storm_signs old = { .kind = CGOOM_TRIGGER_UNRECLAIMABLE, .rate = 468 * KiB };
	CHECK(storm_heading(&old, storm_horizon(60 * S)));
	/* ... now 9.1 MiB from memory.max at 358 KiB/s is not */
	struct storm_signs now = { .kind = CGOOM_TRIGGER_UNRECLAIMABLE, .rate = g,
				   .headroom = 300 * MiB - level };
	CHECK(!storm_heading(&now, storm_horizon(60 * S)));
	/* a leak after the kill: 5 MiB in 1 s (2.5 MiB/s over the 2 s
	 * floor) is heading for memory.max 9 MiB away; 20 MiB in 4 s is
	 * 5 MiB/s */
	now.rate = storm_growth(&st, after + 5 * MiB, 11 * S, noise, 0);
	CHECK_EQ_U64(now.rate, 5 * MiB / 2);
	now.headroom = 9 * MiB;
	CHECK(storm_heading(&now, storm_horizon(60 * S)));
	CHECK_EQ_U64(storm_growth(&st, after + 20 * MiB, 14 * S, noise, 0), 5 * MiB);
	/* no overflow */
	CHECK_EQ_U64(storm_growth(&st, UINT64_MAX, 10 * S, 0, 0), (UINT64_MAX - after) / (2 * S) * S);
	/* a kill accounted later measures from its own end */
	storm_record_after(&st, 20 * S, 280 * MiB);
	CHECK_EQ_U64(storm_growth(&st, 282 * MiB, 21 * S, noise, 0), 1 * MiB);
}

/* The promise at the signal of a standby's kill: a respawned service
 * decided on 2 s into its life (4 MiB then) and killed at its line
 * (80 MiB now, the domain 76 MiB fuller) promises its 80 MiB, not 4 */
static void test_promise_now(void)
{
	CHECK_EQ_U64(storm_promise_now(80 * MiB, 4 * MiB, 120 * MiB, 196 * MiB), 80 * MiB);
	/* no more than its footprint then plus the domain's growth since:
	 * a victim whose VmRSS counts 200 MiB of tmpfs it maps (no kill
	 * frees the file) promises its footprint's share */
	CHECK_EQ_U64(storm_promise_now(210 * MiB, 10 * MiB, 300 * MiB, 305 * MiB), 15 * MiB);
	/* a domain that shrank meanwhile: the footprint then */
	CHECK_EQ_U64(storm_promise_now(50 * MiB, 40 * MiB, 300 * MiB, 200 * MiB), 40 * MiB);
	/* the kill set all gone since: nothing */
	CHECK_EQ_U64(storm_promise_now(0, 40 * MiB, 300 * MiB, 310 * MiB), 0);
	/* saturating */
	CHECK_EQ_U64(storm_promise_now(UINT64_MAX, UINT64_MAX - 1, 0, 10), UINT64_MAX);
}

static void test_accounting(void)
{
	CHECK_EQ_U64(storm_freed(500 * MiB, 300 * MiB), 200 * MiB);
	CHECK_EQ_U64(storm_freed(300 * MiB, 500 * MiB), 0); /* it grew */
	/* far less: under half and short by 16 MiB or more */
	CHECK(storm_short(310 * MiB, 10 * MiB));
	CHECK(!storm_short(310 * MiB, 160 * MiB));
	CHECK(!storm_short(20 * MiB, 5 * MiB)); /* under half, but only 15 MiB short */
	CHECK(storm_short(20 * MiB, 4 * MiB));  /* 16 MiB short */
	CHECK(!storm_short(10 * MiB, 0));      /* small kills are in the noise */
	CHECK(!storm_short(0, 0));
	CHECK(!storm_short(100 * MiB, 500 * MiB));
}

int main(void)
{
	return tap_run((struct tap_test[]){
		TAP(test_under_limit_allows),
		TAP(test_unfreeable_holds),
		TAP(test_window_slides),
		TAP(test_no_limit_and_one),
		TAP(test_hold_log_rate),
		TAP(test_record_accounts),
		TAP(test_heading),
		TAP(test_growth),
		TAP(test_accounting),
		TAP(test_promise_now),
		{ 0 },
	});
}
