/* SPDX-License-Identifier: MIT */
/*
 * The trigger table's thrash and swap kinds, and the memory line's
 * swap-side pace and zram (src/daemon/trigger-thrash.c, trigger-swap.c,
 * trigger-memory.c), on both classes (STYLE 15).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tap.h"
#include "triggers-test.h"

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

/* zram at its RAM limit (512 MiB of swap slots, 32 MiB of RAM): its
 * writes fail and SwapFree stays high while the machine stalls on them
 * (tests/vm swap-zram-limit: a minute and more, the kernel killing
 * nobody). The memory line takes the swap zram can still take for
 * SwapFree, read while the system is watched. */
static void test_memory_zram_at_its_limit(void)
{
	struct domain d = { .system = true, .path = (char *)"/" };
	struct domain_pressure pr = { .watched = true };
	struct trigger_sample s = system_sample(20, true); /* MemAvailable under 5%, SwapFree 400 MiB */
	CHECK(s.lv.mem_low && !s.lv.swap_low);
	s.thrash.swap_total = 1 * GiB;
	s.thrash.swap_used = 624 * MiB;
	s.thrash.zram_limit = 32 * MiB;
	s.thrash.zram_used = 28 * MiB;
	s.thrash.zram_orig = 70 * MiB;
	s.thrash.swap_room = 10 * MiB; /* 4 MiB of RAM left at 2.5:1 */
	CHECK_EQ_INT(trigger_check_all(&d, &s, &cfg), CGOOM_TRIGGER_MEMORY);
	struct trigger_event ev = { .d = &d, .kind = CGOOM_TRIGGER_MEMORY, .s = s };
	char why[512];
	trigger_table[CGOOM_TRIGGER_MEMORY]->why(&ev, &cfg, why, sizeof(why));
	CHECK_STREQ(why, "MemAvailable 20.0 MiB < 76.8 MiB and zram near its RAM limit (28.0 MiB of 32.0 MiB): "
			 "swap can take 10.0 MiB more (SwapFree 400.0 MiB, its minimum 102.4 MiB)");
	/* the re-check reads /proc/meminfo; zram's facts are the domain's */
	struct trigger_sample fresh = system_sample(25, false);
	CHECK(!trigger_confirm_kind(&d, &ev, &fresh, &cfg));
	pr.facts = s.thrash;
	d.pressure = &pr;
	CHECK(trigger_confirm_kind(&d, &ev, &fresh, &cfg));
	fresh = system_sample(700, false); /* memory came back */
	CHECK(!trigger_confirm_kind(&d, &ev, &fresh, &cfg));
	/* zram with room in its RAM, or a swap file beside it with room: no */
	s.thrash.swap_room = 300 * MiB;
	CHECK_EQ_INT(trigger_check_all(&d, &s, &cfg), CGOOM_TRIGGER_NONE);
	/* swap left under its 10% of SwapTotal, not of what zram can hold
	 * (512 MiB of zram slots with 32 MiB of RAM hold about 77 MiB: the
	 * last 10% of that, the line froze the guest, every allocation
	 * stalled on zram's failed writes before cgoom's samples came) */
	s.thrash.swap_used = 27 * MiB;
	s.thrash.zram_used = 9 * MiB;
	s.thrash.swap_room = 50 * MiB;
	CHECK_EQ_INT(trigger_check_all(&d, &s, &cfg), CGOOM_TRIGGER_MEMORY);
	/* more room, but filling under a stall to be gone within 2 s */
	s.thrash.swap_room = 150 * MiB;
	CHECK_EQ_INT(trigger_check_all(&d, &s, &cfg), CGOOM_TRIGGER_NONE);
	s.thrash.trend_us = 3000000;
	s.thrash.swap_rate = 100 * MiB;
	s.thrash.eta_us = 1500000;
	CHECK_EQ_INT(trigger_check_all(&d, &s, &cfg), CGOOM_TRIGGER_MEMORY);
	ev.s = s;
	trigger_table[CGOOM_TRIGGER_MEMORY]->why(&ev, &cfg, why, sizeof(why));
	CHECK_STREQ(why, "MemAvailable 20.0 MiB < 76.8 MiB and zram near its RAM limit (9.0 MiB of 32.0 MiB): "
			 "swap can take 150.0 MiB more, filling at 100.0 MiB/s: gone in 1.5 s (SwapFree 400.0 "
			 "MiB, its minimum 102.4 MiB)");
	s.thrash.eta_us = 2500000;
	CHECK_EQ_INT(trigger_check_all(&d, &s, &cfg), CGOOM_TRIGGER_NONE);
	s.thrash.trend_us = 0;
	s.thrash.swap_rate = 0;
	s.thrash.eta_us = UINT64_MAX;
	s.thrash.swap_used = 624 * MiB;
	s.thrash.zram_used = 28 * MiB;
	/* zram without a limit: SwapFree alone */
	s.thrash.swap_room = 10 * MiB;
	s.thrash.zram_limit = 0;
	CHECK_EQ_INT(trigger_check_all(&d, &s, &cfg), CGOOM_TRIGGER_NONE);
	/* not watched (no zram read): SwapFree alone */
	s.thrash.zram_limit = 32 * MiB;
	s.watched = false;
	CHECK_EQ_INT(trigger_check_all(&d, &s, &cfg), CGOOM_TRIGGER_NONE);
	/* memory to spare: never */
	struct trigger_sample r = system_sample(700, true);
	r.thrash = s.thrash;
	CHECK_EQ_INT(trigger_check_all(&d, &r, &cfg), CGOOM_TRIGGER_NONE);
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
	/* every key once (the system's and the history's both had swap_total) */
	CHECK(f.buf && strstr(f.buf, "\"swap_total\"") &&
	      !strstr(strstr(f.buf, "\"swap_total\"") + 1, "\"swap_total\""));
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

/* The end of swap (cgoom_thrash_swap_spent), the system with zswap in
 * use: under the swap line and still filling under a stall for 2 s with
 * MemAvailable under 10% but over the memory line's 5% (with zswap it
 * stayed at 6% up to the kernel's kill: tests/vm swap-zswap). Not a
 * cgroup's: it has no such line. */
static void test_swap_line_both_classes(void)
{
	struct domain sys = { .system = true, .path = (char *)"/" };
	struct trigger_sample s = system_sample(90, true);
	s.lv.swap_free = 60 * MiB;
	s.lv.swap_low = true;
	CHECK(!s.lv.mem_low); /* 90 MiB of 1.5 GiB: over 5% */
	s.thrash = (struct cgoom_thrash_facts){ .swap_total = 1 * GiB, .swap_used = 964 * MiB,
						.swap_room = 60 * MiB, .swap_rate = 70 * MiB,
						.trend_us = 14000000, .eta_us = 857000,
						.some_share = 5500, .full_share = 5000,
						.mem_total = 1536 * MiB, .mem_available = 90 * MiB,
						.filling = true, .zswap_stored = 580 * MiB };
	CHECK_EQ_INT(trigger_check_all(&sys, &s, &cfg), CGOOM_TRIGGER_SWAP);
	/* zswap storing nothing (zram, a plain swap file), or swap not
	 * growing in the newest window: no */
	struct trigger_sample z = s;
	z.thrash.zswap_stored = 0;
	CHECK_EQ_INT(trigger_check_all(&sys, &z, &cfg), CGOOM_TRIGGER_NONE);
	z = s;
	z.thrash.filling = false;
	CHECK_EQ_INT(trigger_check_all(&sys, &z, &cfg), CGOOM_TRIGGER_NONE);
	struct trigger_event ev = { .d = &sys, .kind = CGOOM_TRIGGER_SWAP, .s = s };
	char why[512];
	trigger_table[CGOOM_TRIGGER_SWAP]->why(&ev, &cfg, why, sizeof(why));
	CHECK(strstr(why, "swap 94% used (964.0 MiB of 1.0 GiB) and filling at 70.0 MiB/s under a memory "
			  "stall for 14.0 s: full in 0.8 s; it can take only 60.0 MiB more, under the swap "
			  "line 102.4 MiB; memory some stall 55.0%, full 50.0%") != NULL);
	/* zswap's figures, when the sample had them: in the words and fields */
	ev.s.thrash.zswap_stored = ev.s.zswap_stored = 580 * MiB;
	ev.s.thrash.zswap_ram = ev.s.zswap_ram = 290 * MiB;
	trigger_table[CGOOM_TRIGGER_SWAP]->why(&ev, &cfg, why, sizeof(why));
	CHECK(strstr(why, "full in 0.8 s (zswap: 580.0 MiB stored in 290.0 MiB of RAM); it can take only") != NULL);
	struct cgoom_strbuf fz = { 0 };
	trigger_table[CGOOM_TRIGGER_SWAP]->fields(&ev, &fz);
	/* once: the system's fields carry them, the history's do not again */
	CHECK(fz.buf && strstr(fz.buf, "\"zswap_stored\": 608174080, \"zswap_ram\": 304087040"));
	CHECK(fz.buf && strstr(strstr(fz.buf, "zswap_stored") + 1, "zswap_stored") == NULL);
	cgoom_strbuf_free(&fz);
	/* the memory line says it too */
	struct trigger_event em = { .d = &sys, .kind = CGOOM_TRIGGER_MEMORY, .s = system_sample(20, true) };
	em.s.lv.swap_free = 60 * MiB;
	em.s.lv.swap_low = true;
	em.s.zswap_stored = 580 * MiB;
	em.s.zswap_ram = 290 * MiB;
	trigger_table[CGOOM_TRIGGER_MEMORY]->why(&em, &cfg, why, sizeof(why));
	CHECK_STREQ(why, "MemAvailable 20.0 MiB < 76.8 MiB and SwapFree 60.0 MiB < 102.4 MiB (zswap: 580.0 MiB "
			 "stored in 290.0 MiB of RAM)");
	trigger_table[CGOOM_TRIGGER_MEMORY]->fields(&em, &fz);
	CHECK(fz.buf && strstr(fz.buf, "\"zswap_stored\": 608174080, \"zswap_ram\": 304087040"));
	cgoom_strbuf_free(&fz);
	em.s.zswap_stored = em.s.zswap_ram = 0;
	trigger_table[CGOOM_TRIGGER_MEMORY]->why(&em, &cfg, why, sizeof(why));
	CHECK_STREQ(why, "MemAvailable 20.0 MiB < 76.8 MiB and SwapFree 60.0 MiB < 102.4 MiB");
	/* over the line, a run under 2 s, or not watched: no */
	struct trigger_sample n = s;
	n.thrash.swap_room = 150 * MiB;
	CHECK_EQ_INT(trigger_check_all(&sys, &n, &cfg), CGOOM_TRIGGER_NONE);
	n = s;
	n.thrash.trend_us = 1500000;
	CHECK_EQ_INT(trigger_check_all(&sys, &n, &cfg), CGOOM_TRIGGER_NONE);
	n = s;
	n.watched = false;
	CHECK_EQ_INT(trigger_check_all(&sys, &n, &cfg), CGOOM_TRIGGER_NONE);
	/* a tighter swap_free_min moves the line */
	struct cgoom_config c2 = cfg;
	c2.swap_free_min = (struct cgoom_share){ .is_percent = true, .value = 500 };
	n = s;
	cgoom_system_low(&(struct cgoom_meminfo){ .mem_total = 1536 * MiB, .mem_available = 90 * MiB,
						   .swap_total = 1 * GiB, .swap_free = 60 * MiB,
						   .present = CGOOM_MEMINFO_MEM_TOTAL |
							      CGOOM_MEMINFO_MEM_AVAILABLE |
							      CGOOM_MEMINFO_SWAP_TOTAL | CGOOM_MEMINFO_SWAP_FREE },
			 &c2.mem_available_min, &c2.swap_free_min, &n.lv);
	CHECK_EQ_INT(trigger_check_all(&sys, &n, &c2), CGOOM_TRIGGER_NONE);
	n.thrash.swap_room = 40 * MiB;
	CHECK_EQ_INT(trigger_check_all(&sys, &n, &c2), CGOOM_TRIGGER_SWAP);
	/* near the line, the decision is kept ready */
	struct trigger_pace acc = { .next_us = UINT64_MAX };
	n = s;
	n.thrash.swap_room = 180 * MiB;
	trigger_table[CGOOM_TRIGGER_SWAP]->pace(&sys, &n, &cfg, &acc);
	CHECK(acc.approach);

	/* a cgroup with the same facts (its swap room in all 200 MiB, 15
	 * left, zswap storing): no line of its own, nothing fires before
	 * swap_stall_max; its unreclaimable trigger meets a full swap */
	struct domain c = { .path = (char *)"/work", .params = { .margin = 10 * MiB } };
	struct trigger_sample cs = { .at_us = 1000000, .watched = true,
				     .cg = cg(495 * MiB, 500 * MiB, UINT64_MAX, 0, 0) };
	cs.thrash = (struct cgoom_thrash_facts){ .swap_total = 200 * MiB, .swap_used = 185 * MiB,
						 .swap_room = 15 * MiB, .swap_rate = 10 * MiB,
						 .trend_us = 3000000, .eta_us = 1500000,
						 .full_share = 6000, .some_share = 7000,
						 .filling = true, .zswap_stored = 100 * MiB };
	CHECK_EQ_INT(detect_cgroup_check(&c, &cs, &cfg), CGOOM_TRIGGER_NONE);
	acc = (struct trigger_pace){ .next_us = UINT64_MAX };
	trigger_table[CGOOM_TRIGGER_SWAP]->pace(&c, &cs, &cfg, &acc);
	CHECK(!acc.approach);
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

/* thrash_refaults in pages a second: rounded up, so a rate under one
 * page a second (accepted by the config: any size but 0) still asks for
 * pages back, one a second; rounded down it was 0, and any stall with
 * memory short and swap not growing counted as thrashing. */
static void test_thrash_refaults_at_least_a_page(void)
{
	struct cgoom_config c;
	cgoom_config_init(&c);
	struct cgoom_thrash_params p;
	trigger_thrash_params(&c, &p);
	CHECK_EQ_U64(p.refault_min, c.thrash_refaults / p.page_size); /* 15 MiB/s: whole pages */
	c.thrash_refaults = 1024;
	trigger_thrash_params(&c, &p);
	CHECK_EQ_U64(p.refault_min, 1);
	c.thrash_refaults = p.page_size + 1;
	trigger_thrash_params(&c, &p);
	CHECK_EQ_U64(p.refault_min, 2);
	/* the config stops at 1 TiB/s, but the sum must not wrap to 0
	 * pages a second for any rate (a stall with no refaults fired) */
	c.thrash_refaults = UINT64_MAX;
	trigger_thrash_params(&c, &p);
	CHECK_EQ_U64(p.refault_min, UINT64_MAX / p.page_size + 1);
	cgoom_config_free(&c);
}

int main(void)
{
	cgoom_config_init(&cfg);
	int r = tap_run((struct tap_test[]){
		TAP(test_thrash_system),
		TAP(test_thrash_cgroup),
		TAP(test_swap_both_classes),
		TAP(test_swap_line_both_classes),
		TAP(test_memory_pace_with_swap),
		TAP(test_memory_zram_at_its_limit),
		TAP(test_memory_pace_swap_filling),
		TAP(test_approach_near_firing),
		TAP(test_thrash_refaults_at_least_a_page),
		{ 0 },
	});
	cgoom_config_free(&cfg);
	return r;
}
