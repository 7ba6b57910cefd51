/* SPDX-License-Identifier: MIT */
/*
 * The trigger table (src/daemon/triggers.c and trigger-*.c): every kind
 * has its hooks, and the cgroup kinds check and confirm as the daemon
 * runs them (detect_cgroup_check: memory.events against the previous
 * check, the table in order, an earlier kind preempting later ones).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "daemon-internal.h"
#include "tap.h"

#define MiB (1ULL << 20)
#define GiB (1ULL << 30)

static struct cgoom_config cfg;

static struct cgoom_cgroup_sample cg(uint64_t current, uint64_t max, uint64_t high,
				     uint64_t ev_max, uint64_t ev_high)
{
	struct cgoom_cgroup_sample s = { 0 };
	s.current = current;
	s.max = max;
	s.high = high;
	s.ev.max = ev_max;
	s.ev.high = ev_high;
	return s;
}

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

/* ---- thrash and swap, on both classes ---- */

static struct trigger_sample system_sample(uint64_t avail_mib, bool watched)
{
	struct trigger_sample s = { .at_us = 1000000, .watched = watched, .mem_total = 1536 * MiB };
	struct cgoom_meminfo mi = { .mem_total = 1536 * MiB, .mem_available = avail_mib * MiB,
				    .swap_total = 1 * GiB, .swap_free = 400 * MiB,
				    .present = CGOOM_MEMINFO_MEM_TOTAL | CGOOM_MEMINFO_MEM_AVAILABLE |
					       CGOOM_MEMINFO_SWAP_TOTAL | CGOOM_MEMINFO_SWAP_FREE };
	cgoom_system_low(&mi, &cfg.mem_available_min, &cfg.swap_free_min, &s.lv);
	s.psi = (struct cgoom_psi_sample){ .total_us = 5000000, .at_us = 1000000, .valid = true };
	return s;
}

static void test_thrash_system(void)
{
	struct domain d = { .system = true, .path = (char *)"/" };
	struct trigger_sample s = system_sample(20, true);
	CHECK_EQ_INT(trigger_check_all(&d, &s, &cfg), CGOOM_TRIGGER_NONE);
	s.thrash.thrashing = true;
	s.thrash.thrashing_us = 2500000;
	s.thrash.full_share_2s = 3412;
	s.thrash.refault_rate = 5000;
	s.thrash.refault_rate_run = 5000;
	s.thrash.swap_net_rate = 4 * MiB;
	s.thrash.mem_available = 20 * MiB;
	s.thrash.mem_total = 1536 * MiB;
	CHECK_EQ_INT(trigger_check_all(&d, &s, &cfg), CGOOM_TRIGGER_THRASH);
	/* a domain not watched (no pressure seen lately) never fires on an
	 * old history */
	s.watched = false;
	CHECK_EQ_INT(trigger_check_all(&d, &s, &cfg), CGOOM_TRIGGER_NONE);
	s.watched = true;
	/* the memory line, when crossed too, names the trigger */
	struct trigger_sample low = system_sample(20, true);
	low.lv.swap_low = true;
	low.thrash = s.thrash;
	CHECK_EQ_INT(trigger_check_all(&d, &low, &cfg), CGOOM_TRIGGER_MEMORY);

	struct trigger_event ev = { .d = &d, .kind = CGOOM_TRIGGER_THRASH, .s = s };
	char why[512];
	trigger_table[CGOOM_TRIGGER_THRASH]->why(&ev, &cfg, why, sizeof(why));
	CHECK(strstr(why, "under a stall for 2.5 s") != NULL);
	CHECK(strstr(why, "full 34.1% over the last 2 s") != NULL);
	CHECK(strstr(why, "19.5 MiB/s of pages needed back (refaults, swap-ins) while swap in use grew "
			  "4.0 MiB/s;") != NULL);
	CHECK(strstr(why, "MemAvailable 20.0 MiB") != NULL);

	/* confirm: still short and still stalling, over half a second */
	struct trigger_sample fresh = system_sample(25, false);
	fresh.psi.at_us += 600000;
	fresh.psi.total_us = 5100000;
	CHECK(trigger_confirm_kind(&d, &ev, &fresh, &cfg));
	/* the stall stopped (a kill elsewhere, or it recovered): stand down */
	fresh.psi.total_us = 5000000;
	CHECK(!trigger_confirm_kind(&d, &ev, &fresh, &cfg));
	/* re-checked 10 ms after the trigger (a decision from the standby):
	 * the total need not have moved; still short, it stands */
	fresh.psi.at_us = ev.s.psi.at_us + 10000;
	CHECK(trigger_confirm_kind(&d, &ev, &fresh, &cfg));
	fresh.psi.at_us = ev.s.psi.at_us + CGOOM_THRASH_WINDOW_US;
	CHECK(!trigger_confirm_kind(&d, &ev, &fresh, &cfg));
	/* PSI unreadable: stand down */
	fresh.psi.at_us = ev.s.psi.at_us + 10000;
	fresh.psi.valid = false;
	CHECK(!trigger_confirm_kind(&d, &ev, &fresh, &cfg));
	/* memory came back */
	fresh = system_sample(700, false);
	fresh.psi.at_us += 10000;
	fresh.psi.total_us = 5100000;
	CHECK(!trigger_confirm_kind(&d, &ev, &fresh, &cfg));
}

static void test_thrash_cgroup(void)
{
	struct domain d = { .path = (char *)"/work", .params = { .margin = 10 * MiB } };
	struct trigger_sample s = { .at_us = 1000000, .watched = true,
				    .cg = cg(495 * MiB, 500 * MiB, UINT64_MAX, 0, 0) };
	s.psi = (struct cgoom_psi_sample){ .total_us = 7000, .valid = true };
	s.thrash.thrashing = true;
	CHECK_EQ_INT(detect_cgroup_check(&d, &s, &cfg), CGOOM_TRIGGER_THRASH);
	struct trigger_event ev = { .d = &d, .kind = CGOOM_TRIGGER_THRASH, .s = s };
	struct trigger_sample fresh = { .cg = cg(496 * MiB, 500 * MiB, UINT64_MAX, 0, 0) };
	fresh.psi = (struct cgoom_psi_sample){ .total_us = 9000, .at_us = 600000, .valid = true };
	CHECK(trigger_confirm_kind(&d, &ev, &fresh, &cfg));
	/* half a second on, the stall did not grow: stand down */
	fresh.psi.total_us = 7000;
	CHECK(!trigger_confirm_kind(&d, &ev, &fresh, &cfg));
	/* re-checked 10 ms after: still at the limit, it stands */
	fresh.psi.at_us = 10000;
	CHECK(trigger_confirm_kind(&d, &ev, &fresh, &cfg));
	fresh.psi = (struct cgoom_psi_sample){ .total_us = 9000, .at_us = 600000, .valid = true };
	/* the cgroup left its limit */
	fresh.cg.current = 300 * MiB;
	CHECK(!trigger_confirm_kind(&d, &ev, &fresh, &cfg));
	/* the limit's own backstop wins the name when reclaim fails too */
	struct trigger_sample m = s;
	m.cg.ev.oom = 1;
	CHECK_EQ_INT(detect_cgroup_check(&d, &m, &cfg), CGOOM_TRIGGER_MAX);
}

static void test_swap_both_classes(void)
{
	struct domain sys = { .system = true, .path = (char *)"/" };
	struct trigger_sample s = system_sample(20, true);
	s.thrash = (struct cgoom_thrash_facts){ .exhausting = true, .swap_total = 1 * GiB,
						.swap_used = 900 * MiB, .swap_rate = 40 * MiB,
						.trend_us = 12000000, .eta_us = 3100000,
						.some_share = 2500, .full_share = 1200,
						.zram_orig = 900 * MiB, .zram_used = 450 * MiB };
	CHECK_EQ_INT(trigger_check_all(&sys, &s, &cfg), CGOOM_TRIGGER_SWAP);
	struct trigger_event ev = { .d = &sys, .kind = CGOOM_TRIGGER_SWAP, .s = s };
	char why[512];
	trigger_table[CGOOM_TRIGGER_SWAP]->why(&ev, &cfg, why, sizeof(why));
	CHECK(strstr(why, "swap 87% used (900.0 MiB of 1.0 GiB) and filling at 40.0 MiB/s under a memory "
			  "stall for 12.0 s: full in 3.1 s") != NULL);
	CHECK(strstr(why, "zram: 900.0 MiB stored in 450.0 MiB of RAM") != NULL);
	CHECK(strstr(why, "some stall 25.0%") != NULL);
	struct cgoom_strbuf f = { 0 };
	trigger_table[CGOOM_TRIGGER_SWAP]->fields(&ev, &f);
	CHECK(f.buf && strstr(f.buf, "\"swap_full_in_ms\": 3100") && strstr(f.buf, "\"mem_available\""));
	cgoom_strbuf_free(&f);
	/* swap given back since (a kill): stand down; still there: confirm */
	struct trigger_sample fresh = system_sample(20, false);
	fresh.lv.swap_free = 1 * GiB - 600 * MiB;
	CHECK(!trigger_confirm_kind(&sys, &ev, &fresh, &cfg));
	fresh.lv.swap_free = 1 * GiB - 905 * MiB;
	CHECK(trigger_confirm_kind(&sys, &ev, &fresh, &cfg));

	struct domain c = { .path = (char *)"/work", .params = { .margin = 10 * MiB } };
	struct trigger_sample cs = { .at_us = 1000000, .watched = true,
				     .cg = cg(495 * MiB, 500 * MiB, UINT64_MAX, 0, 0) };
	cs.thrash = s.thrash;
	CHECK_EQ_INT(detect_cgroup_check(&c, &cs, &cfg), CGOOM_TRIGGER_SWAP);
	/* while a victim is dying, nothing fires */
	cs.kill_active = true;
	CHECK_EQ_INT(detect_cgroup_check(&c, &cs, &cfg), CGOOM_TRIGGER_NONE);
}

static void test_memory_pace_with_swap(void)
{
	/* MemAvailable near 0 while swap is mostly free (it fills): not near
	 * the memory line, no standby of every process kept meanwhile */
	struct domain d = { .system = true, .path = (char *)"/" };
	struct trigger_sample s = system_sample(20, false);
	struct trigger_pace pace;
	trigger_pace_all(&d, &s, &cfg, &pace);
	CHECK(!pace.approach);
	/* both lines near: keep it ready (swap 100 MiB from its minimum,
	 * farther than MemAvailable's minimum is large) */
	s.lv.swap_free = 150 * MiB;
	trigger_pace_all(&d, &s, &cfg, &pace);
	CHECK(pace.approach);
	s.lv.swap_free = s.lv.swap_min + s.lv.swap_min;
	CHECK(s.lv.swap_free - s.lv.swap_min > s.lv.mem_min);
	trigger_pace_all(&d, &s, &cfg, &pace);
	CHECK(pace.approach);
	/* without swap, MemAvailable alone */
	struct trigger_sample n = system_sample(100, false);
	n.lv.swap_total = n.lv.swap_free = 0;
	trigger_pace_all(&d, &n, &cfg, &pace);
	CHECK(pace.approach);
}

/* The system's sampling pace while swap fills: MemAvailable sits under
 * its minimum for all of it, and the line is still the swap left away.
 * Paced on MemAvailable alone, any growth put the next sample at the
 * 1 ms floor for the whole swap phase (tens of seconds): bench/swap's
 * cgoom runs at bc31267 filled the second half of the swap 3-6x slower
 * than every other tool's, the machine busy sampling itself. */
static void test_memory_pace_swap_filling(void)
{
	struct domain d = { .system = true, .path = (char *)"/" };
	d.rate_level.bytes_per_s = 40 * MiB; /* the leak, into swap */
	struct trigger_sample s = system_sample(0, false); /* SwapFree 400 MiB of 1 GiB */
	CHECK(s.lv.mem_low && !s.lv.swap_low);
	struct trigger_pace pace;
	trigger_pace_all(&d, &s, &cfg, &pace);
	/* the swap's room at earlyoom's worst-case swap rate: (400 MiB -
	 * 102.4 MiB) at 800 MiB/s, 372 ms (at 40 MiB/s it lasts 7 s);
	 * before, the whole distance at RAM's 6000 MiB/s held it at the
	 * 100 ms floor for all of the swap phase (bench/swap at 475dde3:
	 * about 100 samples every 10 s of a zram leak) */
	CHECK_EQ_U64(pace.next_us, 372000);
	CHECK_EQ_U64(pace.headroom, s.lv.swap_free - s.lv.swap_min);
	/* near the swap line it shortens as the growth asks: 2 MiB left at
	 * 40 MiB/s, half of 50 ms */
	s.lv.swap_free = s.lv.swap_min + 2 * MiB;
	trigger_pace_all(&d, &s, &cfg, &pace);
	CHECK_EQ_U64(pace.next_us, 25000);
	/* MemAvailable the farther line: it paces */
	struct trigger_sample m = system_sample(300, false);
	m.lv.swap_free = m.lv.swap_min + 1 * MiB;
	trigger_pace_all(&d, &m, &cfg, &pace);
	CHECK_EQ_U64(pace.headroom, m.lv.mem_available - m.lv.mem_min);
	/* without swap, unchanged: MemAvailable under its minimum and
	 * growing is the 1 ms floor (the line is crossed) */
	struct trigger_sample n = system_sample(0, false);
	n.lv.swap_total = n.lv.swap_free = n.lv.swap_min = 0;
	trigger_pace_all(&d, &n, &cfg, &pace);
	CHECK_EQ_U64(pace.next_us, CGOOM_SAMPLE_FLOOR_US);
}

/* The standby (a snapshot of every process, remade every 5 s) is kept
 * for the thrash and swap triggers only near their firing: in bench/swap's
 * zram leaks (475dde3's debug line) the thrash trigger's half way by the
 * stall's length alone held it for all of the swap phase, and the swap
 * trigger's half way for its last 12.5 s, about half of cgoom's CPU over
 * the squeeze, while neither was going to fire first. */
static void test_approach_near_firing(void)
{
	struct domain d = { .system = true, .path = (char *)"/" };
	struct cgoom_thrash_params p;
	trigger_thrash_params(&cfg, &p);
	struct trigger_sample s = system_sample(20, true); /* swap far: no memory approach */
	struct trigger_pace pace;
	/* a leak: 3 s short under a stall, nothing needed back */
	s.thrash = (struct cgoom_thrash_facts){ .thrashing_us = 3000000, .refault_rate_run = 0,
						.eta_us = UINT64_MAX };
	trigger_pace_all(&d, &s, &cfg, &pace);
	CHECK(!pace.approach);
	CHECK_EQ_U64(pace.next_us, 250000); /* still sampled so its windows fill */
	/* thrashing half way in both: ready */
	s.thrash.refault_rate_run = p.refault_min / 2;
	trigger_pace_all(&d, &s, &cfg, &pace);
	CHECK(pace.approach);
	/* the stall half as long: not yet */
	s.thrash.thrashing_us = p.sustain_us / 2 - 1;
	trigger_pace_all(&d, &s, &cfg, &pace);
	CHECK(!pace.approach);
	/* swap filling under a stall: half of swap_stall_max is far */
	s.thrash = (struct cgoom_thrash_facts){ .trend_us = p.fill_max_us / 2, .eta_us = 20000000,
						.swap_rate = 10 * MiB };
	trigger_pace_all(&d, &s, &cfg, &pace);
	CHECK(!pace.approach);
	/* 2.5 s from it: ready */
	s.thrash.trend_us = p.fill_max_us - 2500000;
	trigger_pace_all(&d, &s, &cfg, &pace);
	CHECK(pace.approach);
	/* not watched: nothing from either */
	s.watched = false;
	trigger_pace_all(&d, &s, &cfg, &pace);
	CHECK(!pace.approach);
}

/* One sample of a system whose swap fills at 30 MiB/s under a 50% full
 * stall while MemAvailable is 2% of MemTotal, every 100 ms. */
/* A daemon with the test's configuration and doms[0] as its one domain. */
static struct daemon *daemon_of(struct domain **doms)
{
	struct daemon *dm = calloc(1, sizeof(*dm));
	if (!dm)
		return NULL;
	dm->cfg = cfg;
	dm->domains = doms;
	dm->n_domains = 1;
	return dm;
}

static void filling_sample(struct daemon *dm, struct domain *d, uint64_t i, struct trigger_sample *s)
{
	*s = (struct trigger_sample){ .at_us = 1000000 + i * 100000, .mem_total = 1 * GiB };
	s->lv.mem_available = 20 * MiB;
	s->lv.swap_total = 4 * GiB;
	s->lv.swap_free = 4 * GiB - i * 3 * MiB;
	struct cgoom_pressure psi = { .some = { .present = true, .total_us = i * 60000 },
				      .full = { .present = true, .total_us = i * 50000 } };
	struct cgoom_reclaim rc = { 0 };
	pressure_system(dm, d, &psi, &rc, s);
}

static void test_history_spent_by_kill(void)
{
	/* swap filling under a stall for longer than swap_stall_max: the
	 * swap verdict; then a kill whose victim is gone before any sample
	 * sees it dying (no sample with kill_active): the next sample must
	 * not judge what came before the kill again (it once did, and killed
	 * a second victim on the same numbers, 0.3 s after the first) */
	struct domain d = { .system = true, .path = (char *)"/", .watch_until_us = UINT64_MAX };
	struct domain *doms[] = { &d };
	struct daemon *dm = daemon_of(doms);
	CHECK(dm != NULL);
	struct trigger_sample s;
	uint64_t i = 0;
	for (; i <= 300; i++)
		filling_sample(dm, &d, i, &s);
	CHECK(s.thrash.exhausting);
	CHECK_EQ_INT(trigger_check_all(&d, &s, &cfg), CGOOM_TRIGGER_SWAP);
	act_note_kill(dm, &d);
	filling_sample(dm, &d, ++i, &s);
	CHECK(!s.thrash.exhausting);
	CHECK_EQ_INT(trigger_check_all(&d, &s, &cfg), CGOOM_TRIGGER_NONE);
	/* the stall going on after it is judged afresh: swap_stall_max again */
	uint64_t first = i;
	while (!s.thrash.exhausting && i < first + 400)
		filling_sample(dm, &d, ++i, &s);
	CHECK(s.thrash.exhausting);
	CHECK((i - first) * 100000 >= cfg.swap_stall_max_us);
	pressure_free(&d);
	free(dm);
}

/* A system sample i (every 250 ms) with "some" pressure 5% and "full"
 * 50% of the time since the last and MemAvailable at `avail_pct` of 1
 * GiB, as detect_system takes it: whether it is watched. */
static bool watched_at(struct daemon *dm, struct domain *d, uint64_t i, unsigned avail_pct,
		       struct trigger_sample *s)
{
	*s = (struct trigger_sample){ .at_us = 1000000 + i * 250000, .mem_total = 1 * GiB };
	s->lv.mem_available = (uint64_t)avail_pct * GiB / 100;
	struct cgoom_pressure psi = { .some = { .present = true, .total_us = i * 12500 },
				      .full = { .present = true, .total_us = i * 125000 } };
	struct cgoom_reclaim rc = { 0 };
	bool w = pressure_watch(dm, d, &psi, s);
	pressure_system(dm, d, &psi, &rc, s);
	return w;
}

/* Stalls with memory to spare (a job throttled at its memory.high) do
 * not keep the system watched: its windows count only while memory is
 * short (under 10%), so it is watched from 15% down. At 18% it once was,
 * every 250 ms with /proc/vmstat (bench/swap's h-high). */
static void test_watched_only_near_short(void)
{
	struct domain d = { .system = true, .path = (char *)"/" };
	struct domain *doms[] = { &d };
	struct daemon *dm = daemon_of(doms);
	CHECK(dm != NULL);
	struct trigger_sample s;
	uint64_t i = 0;
	for (; i < 20; i++) {
		CHECK(!watched_at(dm, &d, i, 18, &s));
		CHECK(!s.watched);
	}
	CHECK(d.watch_until_us > 1000000 + (i - 1) * 250000); /* the pressure was seen */
	CHECK(d.pressure == NULL);                             /* no history kept for it */
	CHECK(watched_at(dm, &d, i++, 14, &s) && s.watched);
	CHECK(watched_at(dm, &d, i++, 9, &s) && s.watched);
	CHECK(d.pressure && d.pressure->watched);
	CHECK(!watched_at(dm, &d, i++, 40, &s) && !s.watched);
	pressure_free(&d);
	free(dm);
}

/* A cgroup domain at its limit with the kernel's PSI trigger armed (as
 * on a live system near the limit): detect_cgroup reads no PSI for the
 * sample, pressure_cgroup reads its memory.pressure for the history, and
 * the sample must carry that total, the baseline of the thrash confirm
 * (without it every cgroup thrash was "cleared before acting"). */
static void test_cgroup_watched_sample_has_psi(void)
{
	struct domain d = { .path = (char *)"/work", .params = { .margin = 10 * MiB },
			    .psi_trigger = true };
	struct domain *doms[] = { &d };
	struct daemon *dm = daemon_of(doms);
	CHECK(dm != NULL);
	d.psi_fd = memfd_create("memory.pressure", MFD_CLOEXEC);
	CHECK(d.psi_fd >= 0);
	const char psi[] = "some avg10=40.00 avg60=20.00 avg300=5.00 total=9000000\n"
			   "full avg10=30.00 avg60=15.00 avg300=4.00 total=7000000\n";
	CHECK(write(d.psi_fd, psi, sizeof(psi) - 1) == (ssize_t)(sizeof(psi) - 1));
	struct trigger_sample s = { .at_us = 1000000, .cg = cg(495 * MiB, 500 * MiB, UINT64_MAX, 0, 0) };
	s.cg.reclaim_valid = true;
	pressure_cgroup(dm, &d, &s);
	CHECK(s.watched);
	CHECK(s.psi.valid);
	CHECK_EQ_U64(s.psi.total_us, 7000000);
	CHECK_EQ_U64(s.psi.at_us, 1000000);
	/* far from its limit: not watched, no PSI read */
	struct trigger_sample far = { .at_us = 2000000, .cg = cg(100 * MiB, 500 * MiB, UINT64_MAX, 0, 0) };
	far.cg.reclaim_valid = true;
	pressure_cgroup(dm, &d, &far);
	CHECK(!far.watched && !far.psi.valid);
	close(d.psi_fd);
	pressure_free(&d);
	free(dm);
}

/* A PSI trigger's wake-up of the watched system waits for its next
 * sample when that is due within the watched pace (each such wake-up
 * was a whole sample, /proc/vmstat included, three more a second under a
 * sustained stall). Sampled at once: the system not watched (the
 * wake-up may start a watch), its watch over, its next sample far off,
 * and a cgroup domain (its `max` trigger takes the wake-up itself). */
static void test_psi_wake_deferred_while_watched(void)
{
	struct domain d = { .system = true, .path = (char *)"/" };
	struct domain *doms[] = { &d };
	struct daemon *dm = daemon_of(doms);
	CHECK(dm != NULL);
	struct trigger_sample s;
	uint64_t i = 0;
	CHECK(!watched_at(dm, &d, i++, 18, &s)); /* no watch, no history yet */
	d.next_due_us = s.at_us + 100000;
	CHECK(!pressure_wake_deferred(&d, s.at_us + 1000));
	CHECK(watched_at(dm, &d, i++, 9, &s));
	d.next_due_us = s.at_us + WATCHED_PACE_US;
	CHECK(pressure_wake_deferred(&d, s.at_us));
	CHECK(pressure_wake_deferred(&d, s.at_us + 1000));
	d.next_due_us = s.at_us + WATCHED_PACE_US + 1001;
	CHECK(!pressure_wake_deferred(&d, s.at_us)); /* due over the pace from now */
	CHECK(pressure_wake_deferred(&d, s.at_us + 1001));
	d.next_due_us = s.at_us + 100000;
	CHECK(!pressure_wake_deferred(&d, d.watch_until_us)); /* the watch is over */
	d.system = false;
	CHECK(!pressure_wake_deferred(&d, s.at_us + 1000));
	d.system = true;
	CHECK(!watched_at(dm, &d, i++, 40, &s)); /* memory back: not watched */
	d.next_due_us = s.at_us + 100000;
	CHECK(!pressure_wake_deferred(&d, s.at_us + 1000));
	pressure_free(&d);
	free(dm);
}

/* A quiet system's PSI file: with the kernel's "some" trigger armed it
 * is read when that trigger wakes the loop (or memory is short), not once
 * a second; without the trigger, once a second. */
static void test_idle_psi_read_only_without_some_trigger(void)
{
	struct domain d = { .system = true, .psi_trigger = true, .psi_some_fd = 7,
			    .psi_some_at = 8000000 };
	struct trigger_sample s = { .at_us = 10000000, .mem_total = 1 * GiB };
	s.lv.mem_available = GiB / 2;
	CHECK(!pressure_wanted(&d, &s, false, 10000000));
	d.pressure_woke = true;
	CHECK(pressure_wanted(&d, &s, false, 10000000));
	d.pressure_woke = false;
	s.lv.mem_available = GiB / 20; /* short: read at every sample */
	CHECK(pressure_wanted(&d, &s, false, 10000000));
	s.lv.mem_available = GiB / 2;
	d.psi_some_fd = -1;
	CHECK(!pressure_wanted(&d, &s, false, 8500000));
	CHECK(pressure_wanted(&d, &s, false, 9000000));
}

/* The "some" trigger woke the loop after a minute without a read: 5 ms
 * of stall is not 1% of that minute, but it is of the trigger's 500 ms
 * window, and the system near short is watched from it. A read after
 * that minute for another reason is a new baseline only. */
static void test_woken_after_quiet_minute_watched(void)
{
	struct domain d = { .system = true, .path = (char *)"/", .psi_trigger = true,
			    .psi_some_fd = 7, .psi_some_at = 1000000 };
	struct domain *doms[] = { &d };
	struct daemon *dm = daemon_of(doms);
	CHECK(dm != NULL);
	struct trigger_sample s = { .at_us = 61000000, .mem_total = 1 * GiB };
	s.lv.mem_available = GiB / 8; /* 12.5%: near the 10% short line */
	struct cgoom_pressure psi = { .some = { .present = true, .total_us = 6000 },
				      .full = { .present = true, .total_us = 1000 } };
	CHECK(!pressure_watch(dm, &d, &psi, &s));
	/* read for memory short after that minute, not woken: 1 s of stall
	 * in it (2%, spread over the minute: the trigger never fired) is a
	 * baseline, not pressure now */
	d.psi_some_at = 1000000;
	d.psi_some_last = 0;
	psi.some.total_us = 1000000;
	CHECK(!pressure_watch(dm, &d, &psi, &s));
	CHECK_EQ_U64(d.watch_until_us, 0);
	d.psi_some_at = 1000000;
	d.psi_some_last = 0;
	psi.some.total_us = 6000;
	d.pressure_woke = true;
	CHECK(pressure_watch(dm, &d, &psi, &s));
	CHECK_EQ_U64(d.watch_until_us, 61000000 + 5000000);
	pressure_free(&d);
	free(dm);
}

/* Short under a stall, then 2 s with memory to spare (not watched:
 * over 15%) under the same stall, then short again: the run starts over,
 * as when those samples were watched and counted as not short. Fed
 * nothing over the gap, the window across it was judged by its end
 * alone and the run went on over it. */
static void test_unwatched_gap_breaks_run(void)
{
	struct domain d = { .system = true, .path = (char *)"/" };
	struct domain *doms[] = { &d };
	struct daemon *dm = daemon_of(doms);
	CHECK(dm != NULL);
	struct trigger_sample s;
	uint64_t i = 0;
	for (; i < 13; i++)
		watched_at(dm, &d, i, 9, &s);
	CHECK(s.watched);
	CHECK(s.thrash.thrashing_us >= 2500000); /* 3 s short under a 50% stall */
	for (uint64_t end = i + 8; i < end; i++)
		CHECK(!watched_at(dm, &d, i, 16, &s));
	for (uint64_t end = i + 3; i < end; i++)
		watched_at(dm, &d, i, 9, &s);
	CHECK(s.watched);
	CHECK(s.thrash.thrashing_us > 0);
	CHECK(s.thrash.thrashing_us <= 1000000); /* since the gap, not 5 s */
	pressure_free(&d);
	free(dm);
}

static void test_pressure_metrics(void)
{
	struct daemon *dm = calloc(1, sizeof(*dm));
	struct domain sys = { .system = true, .path = (char *)"/" };
	struct domain quiet = { .path = (char *)"/work" };
	struct domain *doms[] = { &sys, &quiet };
	struct domain_pressure pr = { .watched = true };
	pr.facts = (struct cgoom_thrash_facts){ .some_share = 5512, .full_share = 4830,
						.thrashing_us = 2250000, .swap_used = 900 * MiB,
						.swap_total = 1 * GiB, .swap_rate = 40 * MiB,
						.trend_us = 12000000, .eta_us = 3100000,
						.zram_orig = 900 * MiB, .zram_used = 450 * MiB };
	sys.pressure = &pr;
	struct domain_pressure qp = { .watched = false };
	quiet.pressure = &qp;
	dm->domains = doms;
	dm->n_domains = 2;
	struct cgoom_strbuf b = { 0 };
	pressure_metrics(dm, &b);
	CHECK(b.buf && strstr(b.buf, "cgoom_memory_stall_ratio{domain=\"/\",line=\"full\"} 0.4830\n"));
	CHECK(b.buf && strstr(b.buf, "cgoom_thrashing_seconds{domain=\"/\"} 2.250\n"));
	CHECK(b.buf && strstr(b.buf, "cgoom_swap_fill_rate_bytes{domain=\"/\"} 41943040\n"));
	CHECK(b.buf && strstr(b.buf, "cgoom_swap_full_in_seconds{domain=\"/\"} 3.100\n"));
	CHECK(b.buf && strstr(b.buf, "cgoom_zram_ram_bytes{domain=\"/\"} 471859200\n"));
	CHECK(b.buf && strstr(b.buf, "# TYPE cgoom_zram_limit_bytes gauge\n"));
	/* a domain not watched has no gauges */
	CHECK(b.buf && !strstr(b.buf, "/work"));
	cgoom_strbuf_free(&b);
	/* swap not filling: no "full in" */
	pr.facts.trend_us = 0;
	pressure_metrics(dm, &b);
	CHECK(b.buf && !strstr(b.buf, "cgoom_swap_full_in_seconds"));
	cgoom_strbuf_free(&b);
	free(dm);
}

int main(void)
{
	cgoom_config_init(&cfg);
	int r = tap_run((struct tap_test[]){
		TAP(test_table_complete),
		TAP(test_confirm_none_stands_down),
		TAP(test_pace_guard_band),
		TAP(test_thrash_system),
		TAP(test_thrash_cgroup),
		TAP(test_cgroup_watched_sample_has_psi),
		TAP(test_swap_both_classes),
		TAP(test_memory_pace_with_swap),
		TAP(test_memory_pace_swap_filling),
		TAP(test_approach_near_firing),
		TAP(test_pressure_metrics),
		TAP(test_history_spent_by_kill),
		TAP(test_watched_only_near_short),
		TAP(test_unwatched_gap_breaks_run),
		TAP(test_idle_psi_read_only_without_some_trigger),
		TAP(test_psi_wake_deferred_while_watched),
		TAP(test_woken_after_quiet_minute_watched),
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
		TAP(test_cgroup_page_cache_never_fires),
		TAP(test_cgroup_confirm),
		{ 0 },
	});
	cgoom_config_free(&cfg);
	return r;
}
