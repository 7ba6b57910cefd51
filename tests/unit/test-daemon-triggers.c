/* SPDX-License-Identifier: MIT */
/*
 * The trigger table (src/daemon/triggers.c and trigger-*.c): every kind
 * has its hooks, and the cgroup kinds check and confirm as the daemon
 * runs them (detect_cgroup_check: memory.events against the previous
 * check, the table in order, an earlier kind preempting later ones).
 * Thrash and swap, on both classes: test-daemon-triggers-swap.c.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tap.h"
#include "triggers-test.h"

/* One check of a cgroup domain whose trigger memory is *st, as
 * detect_cgroup runs it. */
static enum cgoom_trigger check(struct cgoom_cgroup_state *st, const struct cgoom_cgroup_sample *cur,
				const struct cgoom_cgroup_params *p, bool psi_fired, uint64_t now)
{
	struct domain d = { .trig = *st, .params = *p };
	struct trigger_sample s = { .at_us = now, .psi_fired = psi_fired, .cg = *cur };
	enum cgoom_trigger k = detect_cgroup_check(&d, &s, &cfg);
	*st = d.trig;
	return k;
}

/* The confirming re-check of a cgroup trigger of `kind` on a fresh sample. */
static bool confirm(enum cgoom_trigger kind, const struct cgoom_cgroup_sample *cur,
		    const struct cgoom_cgroup_params *p)
{
	struct domain d = { .params = *p };
	struct trigger_event ev = { .d = &d, .kind = kind };
	struct trigger_sample fresh = { .cg = *cur };
	return trigger_confirm_kind(&d, &ev, &fresh, &cfg);
}

static void test_table_complete(void)
{
	enum cgoom_trigger bad = CGOOM_TRIGGER_NONE;
	CHECK_EQ_INT(trigger_table_check(&bad), 0);
	CHECK(trigger_table[CGOOM_TRIGGER_NONE] == NULL);
	for (int k = 1; k < CGOOM_TRIGGER_N_; k++) {
		const struct trigger_ops *o = trigger_table[k];
		CHECK(o != NULL && o->kind == (enum cgoom_trigger)k);
		CHECK(o && o->check && o->confirm && o->why && o->fields && o->pace);
		CHECK(cgoom_trigger_name((enum cgoom_trigger)k) != NULL);
	}
}

static void test_confirm_none_stands_down(void)
{
	struct cgoom_cgroup_params p = { .margin = 10 * MiB };
	struct cgoom_cgroup_sample s = cg(700 * MiB, 700 * MiB, UINT64_MAX, 0, 0);
	CHECK(!confirm(CGOOM_TRIGGER_NONE, &s, &p));
	CHECK(!confirm(CGOOM_TRIGGER_N_, &s, &p));
}

static void test_pace_guard_band(void)
{
	/* a guard band's interval applies to a guarded domain's pace (the
	 * HIGH kind's say), besides the unreclaimable line's */
	struct domain d = { .params = { .margin = 10 * MiB, .guarded = true } };
	struct trigger_sample s = { .cg = cg(300 * MiB, 2 * GiB, 310 * MiB, 0, 0) };
	struct trigger_pace pace;
	trigger_pace_all(&d, &s, &cfg, &pace);
	CHECK_EQ_U64(pace.next_us, cgoom_cgroup_interval_us(&s.cg, &d.params));
	d.params.guarded = false;
	trigger_pace_all(&d, &s, &cfg, &pace);
	/* 1.7 GiB from the line at the worst-case rate */
	CHECK(pace.next_us > CGOOM_SAMPLE_NEAR_US);
	CHECK_EQ_U64(cgoom_cgroup_interval_us(&s.cg, &(struct cgoom_cgroup_params){
			     .margin = 10 * MiB, .guarded = true }),
		     CGOOM_SAMPLE_NEAR_US);
}

static void test_cgroup_max_rose_fires(void)
{
	struct cgoom_cgroup_params p = { .margin = 16 * MiB };
	struct cgoom_cgroup_state st = { 0 };
	struct cgoom_cgroup_sample s = cg(800 * MiB, 820 * MiB, UINT64_MAX, 3, 0);
	cgoom_cgroup_baseline(&st, &s);
	/* near max but no new `max` event: nothing */
	s.current = 810 * MiB;
	CHECK_EQ_INT(check(&st, &s, &p, false, 0), CGOOM_TRIGGER_NONE);
	s.ev.max = 4;
	CHECK_EQ_INT(check(&st, &s, &p, false, 1), CGOOM_TRIGGER_MAX);
	/* the same count again: consumed */
	CHECK_EQ_INT(check(&st, &s, &p, false, 2), CGOOM_TRIGGER_NONE);
}

static void test_cgroup_max_rose_but_far(void)
{
	struct cgoom_cgroup_params p = { .margin = 16 * MiB };
	struct cgoom_cgroup_state st = { 0 };
	struct cgoom_cgroup_sample s = cg(700 * MiB, 820 * MiB, UINT64_MAX, 9, 0);
	/* events rose (zero baseline) but usage is 120 MiB below max */
	CHECK_EQ_INT(check(&st, &s, &p, false, 0), CGOOM_TRIGGER_NONE);
	CHECK_EQ_U64(st.last.max, 9);
}

static void test_cgroup_psi_fires_near_max(void)
{
	struct cgoom_cgroup_params p = { .margin = 16 * MiB };
	struct cgoom_cgroup_state st = { 0 };
	struct cgoom_cgroup_sample s = cg(805 * MiB, 820 * MiB, UINT64_MAX, 0, 0);
	CHECK_EQ_INT(check(&st, &s, &p, true, 0), CGOOM_TRIGGER_MAX);
	s.current = 600 * MiB;
	CHECK_EQ_INT(check(&st, &s, &p, true, 0), CGOOM_TRIGGER_NONE);
}

static void test_cgroup_oom_event_counts_as_failing(void)
{
	struct cgoom_cgroup_params p = { .margin = 0 };
	struct cgoom_cgroup_state st = { 0 };
	struct cgoom_cgroup_sample s = cg(820 * MiB, 820 * MiB, UINT64_MAX, 0, 0);
	cgoom_cgroup_baseline(&st, &s);
	s.ev.oom = 1;
	CHECK_EQ_INT(check(&st, &s, &p, false, 0), CGOOM_TRIGGER_MAX);
}

static void test_cgroup_unlimited_never(void)
{
	struct cgoom_cgroup_params p = { .margin = UINT64_MAX, .guarded = true };
	struct cgoom_cgroup_state st = { 0 };
	struct cgoom_cgroup_sample s = cg(5 * GiB, UINT64_MAX, UINT64_MAX, 100, 100);
	CHECK_EQ_INT(check(&st, &s, &p, true, 0), CGOOM_TRIGGER_NONE);
	CHECK(!cgoom_cgroup_at_limit(&s, &p));
}

static void test_cgroup_guard_band_dwell(void)
{
	struct cgoom_cgroup_params p = { .margin = 4 * MiB, .guarded = true, .dwell_us = 100000 };
	struct cgoom_cgroup_state st = { 0 };
	struct cgoom_cgroup_sample s = cg(700 * MiB, 820 * MiB, 772 * MiB, 0, 0);
	cgoom_cgroup_baseline(&st, &s);
	/* `high` rose while current is just under high (within margin) */
	s.current = 770 * MiB;
	s.ev.high = 5;
	CHECK_EQ_INT(check(&st, &s, &p, false, 1000000), CGOOM_TRIGGER_NONE);
	CHECK(st.in_band);
	s.ev.high = 9;
	CHECK_EQ_INT(check(&st, &s, &p, false, 1050000), CGOOM_TRIGGER_NONE);
	s.ev.high = 14;
	CHECK_EQ_INT(check(&st, &s, &p, false, 1100000), CGOOM_TRIGGER_HIGH);
	CHECK(!st.in_band);
}

static void test_cgroup_guard_band_interrupted(void)
{
	struct cgoom_cgroup_params p = { .margin = 4 * MiB, .guarded = true, .dwell_us = 100000 };
	struct cgoom_cgroup_state st = { 0 };
	struct cgoom_cgroup_sample s = cg(780 * MiB, 820 * MiB, 772 * MiB, 0, 1);
	CHECK_EQ_INT(check(&st, &s, &p, false, 0), CGOOM_TRIGGER_NONE);
	CHECK(st.in_band);
	/* no new `high` yet (the allocator sleeps in its penalty): still in band */
	CHECK_EQ_INT(check(&st, &s, &p, false, 200000), CGOOM_TRIGGER_NONE);
	CHECK(st.in_band);
	/* usage left the band: the clock stops */
	s.current = 700 * MiB;
	CHECK_EQ_INT(check(&st, &s, &p, false, 250000), CGOOM_TRIGGER_NONE);
	CHECK(!st.in_band);
	/* back in the band without a rise: not yet started */
	s.current = 775 * MiB;
	CHECK_EQ_INT(check(&st, &s, &p, false, 300000), CGOOM_TRIGGER_NONE);
	CHECK(!st.in_band);
	s.ev.high = 2;
	CHECK_EQ_INT(check(&st, &s, &p, false, 350000), CGOOM_TRIGGER_NONE);
	CHECK(st.in_band);
	/* past the dwell, but no rise since the start: wait */
	CHECK_EQ_INT(check(&st, &s, &p, false, 600000), CGOOM_TRIGGER_NONE);
	s.ev.high = 3;
	CHECK_EQ_INT(check(&st, &s, &p, false, 700000), CGOOM_TRIGGER_HIGH);
}

static void test_cgroup_guard_band_rise_then_dwell(void)
{
	/* a rise inside the dwell counts once the dwell is over */
	struct cgoom_cgroup_params p = { .margin = 0, .guarded = true, .dwell_us = 100000 };
	struct cgoom_cgroup_state st = { 0 };
	struct cgoom_cgroup_sample s = cg(772 * MiB, 820 * MiB, 772 * MiB, 0, 1);
	CHECK_EQ_INT(check(&st, &s, &p, false, 0), CGOOM_TRIGGER_NONE);
	s.ev.high = 2;
	CHECK_EQ_INT(check(&st, &s, &p, false, 20000), CGOOM_TRIGGER_NONE);
	CHECK_EQ_INT(check(&st, &s, &p, false, 120000), CGOOM_TRIGGER_HIGH);
}

static void test_cgroup_guard_band_needs_guarded(void)
{
	struct cgoom_cgroup_params p = { .margin = 4 * MiB, .guarded = false };
	struct cgoom_cgroup_state st = { 0 };
	/* someone else's memory.high: not cgoom's guard band, no trigger */
	struct cgoom_cgroup_sample s = cg(780 * MiB, 820 * MiB, 772 * MiB, 0, 50);
	CHECK_EQ_INT(check(&st, &s, &p, false, 0), CGOOM_TRIGGER_NONE);
	CHECK(!cgoom_cgroup_at_limit(&s, &p));
}

static void test_cgroup_max_wins_over_high(void)
{
	struct cgoom_cgroup_params p = { .margin = 4 * MiB, .guarded = true, .dwell_us = 0 };
	struct cgoom_cgroup_state st = { 0 };
	struct cgoom_cgroup_sample s = cg(818 * MiB, 820 * MiB, 772 * MiB, 1, 1);
	CHECK_EQ_INT(check(&st, &s, &p, false, 0), CGOOM_TRIGGER_MAX);
	s.ev.high = 2;
	CHECK_EQ_INT(check(&st, &s, &p, false, 0), CGOOM_TRIGGER_HIGH);
}

static void test_cgroup_unreclaimable_fires_before_limit(void)
{
	struct cgoom_cgroup_params p = { .margin = 14 * MiB };
	struct cgoom_cgroup_state st = { 0 };
	struct cgoom_cgroup_sample s = cg(690 * MiB, 700 * MiB, UINT64_MAX, 0, 0);
	cgoom_cgroup_baseline(&st, &s);
	CHECK(cgoom_cgroup_in_band(&s, &p));
	/* in the band, memory.stat not read yet: nothing */
	CHECK_EQ_INT(check(&st, &s, &p, false, 0), CGOOM_TRIGGER_NONE);
	/* 680 MiB unreclaimable: 20 MiB from max, outside the margin */
	s.unreclaim_valid = true;
	s.unreclaimable = 680 * MiB;
	CHECK_EQ_INT(check(&st, &s, &p, false, 1), CGOOM_TRIGGER_NONE);
	/* 686 MiB: within 14 MiB of 700, no event needed */
	s.unreclaimable = 686 * MiB;
	CHECK_EQ_INT(check(&st, &s, &p, false, 2), CGOOM_TRIGGER_UNRECLAIMABLE);
	CHECK(confirm(CGOOM_TRIGGER_UNRECLAIMABLE, &s, &p));
	/* reclaim failing at the same time: the backstop's name wins */
	s.ev.max = 1;
	CHECK_EQ_INT(check(&st, &s, &p, false, 3), CGOOM_TRIGGER_MAX);
}

/* The trigger's words say how much of the unreclaimable memory no kill
 * frees (the tmpfs of a filled domain), from 1 MiB, and the event's
 * fields carry it */
static void test_cgroup_unreclaimable_says_unfreeable(void)
{
	struct domain d = { .params = { .margin = 15 * MiB } };
	struct trigger_sample s = { .cg = cg(295 * MiB, 300 * MiB, UINT64_MAX, 0, 0) };
	s.cg.unreclaim_valid = true;
	s.cg.unreclaimable = 294 * MiB;
	s.cg.unfreeable = 290 * MiB;
	struct trigger_event ev = { .d = &d, .kind = CGOOM_TRIGGER_UNRECLAIMABLE, .s = s };
	char why[512];
	trigger_table[CGOOM_TRIGGER_UNRECLAIMABLE]->why(&ev, &cfg, why, sizeof(why));
	CHECK(strstr(why, "unreclaimable 294.0 MiB (290.0 MiB of it shmem and tmpfs no process maps: no "
			  "kill frees that, unless a process holds it open as a deleted file or memfd) "
			  "within 15.0 MiB of memory.max 300.0 MiB") != NULL);
	struct cgoom_strbuf f = { 0 };
	trigger_table[CGOOM_TRIGGER_UNRECLAIMABLE]->fields(&ev, &f);
	CHECK(f.buf && strstr(f.buf, "\"unfreeable\": 304087040") != NULL);
	cgoom_strbuf_free(&f);
	/* under 1 MiB: not said */
	ev.s.cg.unfreeable = 512 * 1024;
	trigger_table[CGOOM_TRIGGER_UNRECLAIMABLE]->why(&ev, &cfg, why, sizeof(why));
	CHECK(strstr(why, "no process maps") == NULL);
}

static void test_cgroup_page_cache_never_fires(void)
{
	/* at memory.max, full of page cache, reclaim working (no events) */
	struct cgoom_cgroup_params p = { .margin = 4 * MiB };
	struct cgoom_cgroup_state st = { 0 };
	struct cgoom_cgroup_sample s = cg(200 * MiB, 200 * MiB, UINT64_MAX, 0, 0);
	cgoom_cgroup_baseline(&st, &s);
	s.unreclaim_valid = true;
	s.unreclaimable = 30 * MiB;
	for (uint64_t t = 0; t < 100; t++)
		CHECK_EQ_INT(check(&st, &s, &p, false, t * 1000), CGOOM_TRIGGER_NONE);
	/* every charge hits max and reclaims cache: `max` rises, PSI stalls */
	for (uint64_t t = 0; t < 100; t++) {
		s.ev.max++;
		CHECK_EQ_INT(check(&st, &s, &p, t % 2 == 0, t * 1000), CGOOM_TRIGGER_NONE);
	}
	/* reclaim found nothing (the kernel's own OOM state): the backstop */
	s.ev.oom++;
	CHECK_EQ_INT(check(&st, &s, &p, false, 200000), CGOOM_TRIGGER_MAX);
	CHECK(!confirm(CGOOM_TRIGGER_UNRECLAIMABLE, &s, &p));
}

static void test_cgroup_confirm(void)
{
	struct cgoom_cgroup_params p = { .margin = 10 * MiB };
	struct cgoom_cgroup_sample s = cg(695 * MiB, 700 * MiB, UINT64_MAX, 0, 0);
	/* MAX confirms on usage still within the margin, no fresh event */
	CHECK(confirm(CGOOM_TRIGGER_MAX, &s, &p));
	/* the kernel killed: usage dropped far below: cleared */
	s.current = 300 * MiB;
	CHECK(!confirm(CGOOM_TRIGGER_MAX, &s, &p));
	/* unreclaimable without memory.stat: memory.current stands in */
	CHECK(!confirm(CGOOM_TRIGGER_UNRECLAIMABLE, &s, &p));
	s.current = 699 * MiB;
	CHECK(confirm(CGOOM_TRIGGER_UNRECLAIMABLE, &s, &p));
	/* with memory.stat: page cache at the limit does not confirm */
	s.unreclaim_valid = true;
	s.unreclaimable = 100 * MiB;
	CHECK(!confirm(CGOOM_TRIGGER_UNRECLAIMABLE, &s, &p));
	/* MAX with usage dropped but unreclaimable near max still confirms */
	s.current = 650 * MiB;
	s.unreclaimable = 695 * MiB;
	CHECK(confirm(CGOOM_TRIGGER_MAX, &s, &p));
	CHECK(!confirm(CGOOM_TRIGGER_NONE, &s, &p));
	/* HIGH: at_limit */
	struct cgoom_cgroup_params g = { .margin = 1 * MiB, .guarded = true };
	struct cgoom_cgroup_sample h = cg(600 * MiB, 700 * MiB, 600 * MiB, 0, 0);
	CHECK(confirm(CGOOM_TRIGGER_HIGH, &h, &g));
	h.current = 500 * MiB;
	CHECK(!confirm(CGOOM_TRIGGER_HIGH, &h, &g));
}

int main(void)
{
	cgoom_config_init(&cfg);
	int r = tap_run((struct tap_test[]){
		TAP(test_table_complete),
		TAP(test_confirm_none_stands_down),
		TAP(test_pace_guard_band),
		TAP(test_cgroup_max_rose_fires),
		TAP(test_cgroup_max_rose_but_far),
		TAP(test_cgroup_psi_fires_near_max),
		TAP(test_cgroup_oom_event_counts_as_failing),
		TAP(test_cgroup_unlimited_never),
		TAP(test_cgroup_guard_band_dwell),
		TAP(test_cgroup_guard_band_interrupted),
		TAP(test_cgroup_guard_band_rise_then_dwell),
		TAP(test_cgroup_guard_band_needs_guarded),
		TAP(test_cgroup_max_wins_over_high),
		TAP(test_cgroup_unreclaimable_fires_before_limit),
		TAP(test_cgroup_unreclaimable_says_unfreeable),
		TAP(test_cgroup_page_cache_never_fires),
		TAP(test_cgroup_confirm),
		{ 0 },
	});
	cgoom_config_free(&cfg);
	return r;
}
