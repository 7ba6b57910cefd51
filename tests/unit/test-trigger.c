/* SPDX-License-Identifier: MIT */
/* The daemon's trigger decisions (src/lib/trigger.c). */
#include <errno.h>

#include "cgoom/trigger.h"
#include "tap.h"

#define MiB (1ULL << 20)
#define GiB (1ULL << 30)

static struct cgoom_meminfo meminfo(uint64_t total, uint64_t avail, uint64_t swap_total,
				    uint64_t swap_free)
{
	struct cgoom_meminfo mi = { 0 };
	mi.mem_total = total;
	mi.mem_available = avail;
	mi.mem_free = avail / 2;
	mi.swap_total = swap_total;
	mi.swap_free = swap_free;
	mi.present = CGOOM_MEMINFO_MEM_TOTAL | CGOOM_MEMINFO_MEM_FREE | CGOOM_MEMINFO_MEM_AVAILABLE |
		     CGOOM_MEMINFO_SWAP_TOTAL | CGOOM_MEMINFO_SWAP_FREE;
	return mi;
}

static const struct cgoom_share five = { .is_percent = true, .value = 500 };
static const struct cgoom_share ten = { .is_percent = true, .value = 1000 };

static void test_names(void)
{
	CHECK_STREQ(cgoom_trigger_name(CGOOM_TRIGGER_NONE), "none");
	CHECK_STREQ(cgoom_trigger_name(CGOOM_TRIGGER_MEMORY), "memory");
	CHECK_STREQ(cgoom_trigger_name(CGOOM_TRIGGER_SWAP), "swap");
	CHECK_STREQ(cgoom_trigger_name(CGOOM_TRIGGER_THRASH), "thrash");
	CHECK_STREQ(cgoom_trigger_name(CGOOM_TRIGGER_MAX), "max");
	CHECK_STREQ(cgoom_trigger_name(CGOOM_TRIGGER_HIGH), "high");
	CHECK_STREQ(cgoom_trigger_name(CGOOM_TRIGGER_UNRECLAIMABLE), "unreclaimable");
	CHECK(cgoom_trigger_name(CGOOM_TRIGGER_N_) == NULL);
	CHECK(cgoom_trigger_name((enum cgoom_trigger)-1) == NULL);
}

static void test_system_no_swap_low(void)
{
	struct cgoom_meminfo mi = meminfo(10 * GiB, 400 * MiB, 0, 0);
	struct cgoom_system_levels lv;
	CHECK(cgoom_system_low(&mi, &five, &ten, &lv));
	CHECK(lv.mem_low);
	CHECK(lv.swap_low);
	CHECK_EQ_U64(lv.mem_min, 10 * GiB / 20);
}

static void test_system_no_swap_ok(void)
{
	struct cgoom_meminfo mi = meminfo(10 * GiB, 600 * MiB, 0, 0);
	struct cgoom_system_levels lv;
	CHECK(!cgoom_system_low(&mi, &five, &ten, &lv));
	CHECK(!lv.mem_low);
}

static void test_system_boundary_is_not_low(void)
{
	/* exactly at the minimum: "under" is strict */
	struct cgoom_meminfo mi = meminfo(10000 * MiB, 500 * MiB, 0, 0);
	CHECK(!cgoom_system_low(&mi, &five, &ten, NULL));
	mi.mem_available -= 1;
	CHECK(cgoom_system_low(&mi, &five, &ten, NULL));
}

static void test_system_swap_free_blocks(void)
{
	/* RAM low but plenty of swap left: not yet */
	struct cgoom_meminfo mi = meminfo(4 * GiB, 10 * MiB, 2 * GiB, 1 * GiB);
	struct cgoom_system_levels lv;
	CHECK(!cgoom_system_low(&mi, &five, &ten, &lv));
	CHECK(lv.mem_low);
	CHECK(!lv.swap_low);
	/* swap under 10% too: now */
	mi.swap_free = 100 * MiB;
	CHECK(cgoom_system_low(&mi, &five, &ten, &lv));
	CHECK(lv.swap_low);
}

static void test_system_swap_low_ram_ok(void)
{
	struct cgoom_meminfo mi = meminfo(4 * GiB, 2 * GiB, 2 * GiB, 0);
	CHECK(!cgoom_system_low(&mi, &five, &ten, NULL));
}

static void test_system_absolute_share(void)
{
	struct cgoom_share abs = { .is_percent = false, .value = 256 * MiB };
	struct cgoom_meminfo mi = meminfo(64 * GiB, 255 * MiB, 0, 0);
	struct cgoom_system_levels lv;
	CHECK(cgoom_system_low(&mi, &abs, &ten, &lv));
	CHECK_EQ_U64(lv.mem_min, 256 * MiB);
}

static void test_system_memfree_fallback(void)
{
	struct cgoom_meminfo mi = meminfo(10 * GiB, 4 * GiB, 0, 0);
	mi.present &= ~(unsigned)CGOOM_MEMINFO_MEM_AVAILABLE;
	mi.mem_free = 100 * MiB;
	struct cgoom_system_levels lv;
	CHECK(cgoom_system_low(&mi, &five, &ten, &lv));
	CHECK_EQ_U64(lv.mem_available, 100 * MiB);
}

static void test_psi_short_interval(void)
{
	struct cgoom_psi_sample a = { .total_us = 1000, .at_us = 0, .valid = true };
	struct cgoom_psi_sample b = { .total_us = 1000 + 120000, .at_us = 500000, .valid = true };
	uint64_t stall = 0;
	CHECK(cgoom_psi_over(&a, &b, 100000, 1000000, &stall));
	CHECK_EQ_U64(stall, 120000);
	b.total_us = 1000 + 99999;
	CHECK(!cgoom_psi_over(&a, &b, 100000, 1000000, &stall));
	CHECK_EQ_U64(stall, 99999);
}

static void test_psi_long_interval_scaled(void)
{
	/* 300 ms of stall over 4 s: 75 ms per 1 s window, under 100 ms */
	struct cgoom_psi_sample a = { .total_us = 0, .at_us = 1000000, .valid = true };
	struct cgoom_psi_sample b = { .total_us = 300000, .at_us = 5000000, .valid = true };
	uint64_t stall = 0;
	CHECK(!cgoom_psi_over(&a, &b, 100000, 1000000, &stall));
	CHECK_EQ_U64(stall, 75000);
	b.total_us = 800000; /* 200 ms per window */
	CHECK(cgoom_psi_over(&a, &b, 100000, 1000000, &stall));
	CHECK_EQ_U64(stall, 200000);
}

static void test_psi_invalid(void)
{
	struct cgoom_psi_sample a = { .total_us = 0, .at_us = 0, .valid = false };
	struct cgoom_psi_sample b = { .total_us = 900000, .at_us = 100, .valid = true };
	uint64_t stall = 7;
	CHECK(!cgoom_psi_over(&a, &b, 1, 1000000, &stall));
	CHECK_EQ_U64(stall, 7); /* untouched */
	a.valid = true;
	a.total_us = 1000000; /* total went backwards */
	CHECK(!cgoom_psi_over(&a, &b, 1, 1000000, &stall));
	a.total_us = 0;
	a.at_us = 200; /* time went backwards */
	CHECK(!cgoom_psi_over(&a, &b, 1, 1000000, &stall));
	a.at_us = 0;
	CHECK(!cgoom_psi_over(&a, &b, 1, 0, &stall)); /* no window */
}

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

static void test_cgroup_at_limit(void)
{
	struct cgoom_cgroup_params p = { .margin = 16 * MiB, .guarded = true };
	struct cgoom_cgroup_sample s = cg(700 * MiB, 820 * MiB, 772 * MiB, 0, 0);
	CHECK(!cgoom_cgroup_at_limit(&s, &p));
	s.current = 756 * MiB; /* exactly high - margin */
	CHECK(cgoom_cgroup_at_limit(&s, &p));
	p.guarded = false;
	CHECK(!cgoom_cgroup_at_limit(&s, &p));
	s.current = 804 * MiB;
	CHECK(cgoom_cgroup_at_limit(&s, &p));
	s.current = 900 * MiB; /* over (kernel memory charged past max) */
	CHECK(cgoom_cgroup_at_limit(&s, &p));
}

static void test_kernel_oom_rose(void)
{
	struct cgoom_memevents a = { 0 }, b = { 0 };
	uint64_t n = 0;
	a.oom_kill = 2;
	b.oom_kill = 2;
	CHECK(!cgoom_kernel_oom_rose(&a, &b, &n));
	b.oom_kill = 5;
	CHECK(cgoom_kernel_oom_rose(&a, &b, &n));
	CHECK_EQ_U64(n, 3);
	CHECK(!cgoom_kernel_oom_rose(&b, &a, &n)); /* went down: a new cgroup */
}

static void test_poll_interval(void)
{
	CHECK_EQ_U64(cgoom_poll_interval_us(0, CGOOM_FILL_RATE_RAM), CGOOM_POLL_MIN_US);
	CHECK_EQ_U64(cgoom_poll_interval_us(60 * MiB, CGOOM_FILL_RATE_RAM), CGOOM_POLL_MIN_US);
	CHECK_EQ_U64(cgoom_poll_interval_us(3000 * MiB, CGOOM_FILL_RATE_RAM), 500000);
	CHECK_EQ_U64(cgoom_poll_interval_us(64 * GiB, CGOOM_FILL_RATE_RAM), CGOOM_POLL_MAX_US);
	CHECK_EQ_U64(cgoom_poll_interval_us(UINT64_MAX, CGOOM_FILL_RATE_RAM), CGOOM_POLL_MAX_US);
	CHECK_EQ_U64(cgoom_poll_interval_us(1, 0), CGOOM_POLL_MAX_US);
	/* monotonic in headroom */
	uint64_t last = 0;
	for (uint64_t h = 0; h < 8 * GiB; h += 97 * MiB) {
		uint64_t t = cgoom_poll_interval_us(h, CGOOM_FILL_RATE_RAM);
		CHECK(t >= last);
		last = t;
	}
}

static void test_system_interval(void)
{
	struct cgoom_meminfo mi = meminfo(16 * GiB, 8 * GiB, 0, 0);
	struct cgoom_system_levels lv;
	cgoom_system_low(&mi, &five, &ten, &lv);
	CHECK_EQ_U64(cgoom_system_interval_us(&lv, false), CGOOM_POLL_MAX_US);
	/* little swap headroom, but half the RAM available: the line is
	 * both minimums crossed, and 7.2 GiB of MemAvailable take over a
	 * second at 6000 MiB/s, whatever the swap does (122 ms before:
	 * the shorter of the two was taken) */
	mi = meminfo(16 * GiB, 8 * GiB, 1 * GiB, 200 * MiB);
	cgoom_system_low(&mi, &five, &ten, &lv);
	CHECK_EQ_U64(cgoom_system_interval_us(&lv, false), CGOOM_POLL_MAX_US);
	/* MemAvailable under its minimum: the swap's room decides,
	 * (200 MiB - 102.4 MiB) at 800 MiB/s = 122 ms */
	mi = meminfo(16 * GiB, 100 * MiB, 1 * GiB, 200 * MiB);
	cgoom_system_low(&mi, &five, &ten, &lv);
	uint64_t t = cgoom_system_interval_us(&lv, false);
	CHECK(t > CGOOM_POLL_MIN_US && t < 130000);
	/* both near: the longer of the two (RAM 100 ms, swap 122 ms) */
	mi = meminfo(16 * GiB, 819 * MiB + 300 * MiB, 1 * GiB, 200 * MiB);
	cgoom_system_low(&mi, &five, &ten, &lv);
	CHECK_EQ_U64(cgoom_system_interval_us(&lv, false), t);
	/* low already: minimum */
	mi = meminfo(16 * GiB, 100 * MiB, 0, 0);
	cgoom_system_low(&mi, &five, &ten, &lv);
	CHECK_EQ_U64(cgoom_system_interval_us(&lv, false), CGOOM_POLL_MIN_US);
}

/* Swap with room that nothing in RAM may use (the trial's numbers: 512
 * MiB of zram, 313 MiB free, 1293 MiB of anon in RAM of which 1274 MiB
 * in a cgroup with memory.swap.max 0: the kernel OOM-killed with swap
 * free, 1.3 s later) is swap that cannot take the growth: the line. */
static void test_system_swappable(void)
{
	struct cgoom_system_levels lv;
	struct cgoom_meminfo mi = meminfo(1461 * MiB, 0, 512 * MiB, 313 * MiB);
	CHECK(!cgoom_system_low(&mi, &five, &ten, &lv)); /* SwapFree alone: not low */
	CHECK(!lv.swappable_known && !lv.swap_stuck);
	cgoom_system_swappable(&lv, 1293 * MiB, 1274 * MiB);
	CHECK(lv.swappable_known && lv.swap_stuck && lv.swap_low);
	CHECK_EQ_U64(lv.swappable, 19 * MiB);
	CHECK_EQ_U64(lv.noswap, 1274 * MiB);
	CHECK_EQ_U64(cgoom_swap_room(&lv), 0);
	/* 70 MiB could go to swap: under RAM's 73 MiB minimum, the larger */
	cgoom_system_swappable(&lv, 1344 * MiB, 1274 * MiB);
	CHECK(lv.swap_stuck);
	/* and with 10 MiB of RAM still available, 80 MiB in all: not */
	lv.mem_available = 10 * MiB;
	cgoom_system_swappable(&lv, 1344 * MiB, 1274 * MiB);
	CHECK(!lv.swap_stuck);
	/* 1.8 s earlier: 125 MiB could still go to swap, over its 51.2 MiB */
	mi = meminfo(1461 * MiB, 0, 512 * MiB, 413 * MiB);
	cgoom_system_low(&mi, &five, &ten, &lv);
	cgoom_system_swappable(&lv, 1330 * MiB, 1205 * MiB);
	CHECK(lv.swappable_known && !lv.swap_stuck && !lv.swap_low);
	/* room: MemAvailable 0 and 125 MiB over the larger minimum, RAM's
	 * 73 MiB (5% of 1461 MiB; swap's is 51.2 MiB) */
	CHECK(lv.mem_min > lv.swap_min);
	CHECK_EQ_U64(cgoom_swap_room(&lv), 125 * MiB - lv.mem_min);
	/* the room the pace sees is the lesser: 125 MiB less the minimum,
	 * not the 413 MiB free */
	CHECK(cgoom_system_interval_us(&lv, false) < cgoom_poll_interval_us(413 * MiB - lv.swap_min,
									    CGOOM_FILL_RATE_SWAP));
	/* nothing that cannot swap: swappable is what RAM holds */
	cgoom_system_swappable(&lv, 1330 * MiB, 0);
	CHECK(!lv.swap_stuck);
	CHECK_EQ_U64(cgoom_swap_room(&lv), 413 * MiB - lv.swap_min);
	/* more cannot swap than meminfo's anon (counted at other moments):
	 * nothing swappable, no underflow */
	cgoom_system_swappable(&lv, 100 * MiB, 200 * MiB);
	CHECK_EQ_U64(lv.swappable, 0);
	CHECK(lv.swap_stuck);
	/* SwapFree under its minimum already: low as before, not "stuck" */
	mi = meminfo(1461 * MiB, 0, 512 * MiB, 20 * MiB);
	cgoom_system_low(&mi, &five, &ten, &lv);
	cgoom_system_swappable(&lv, 1293 * MiB, 1274 * MiB);
	CHECK(lv.swap_low && !lv.swap_stuck);
	/* no swap at all: nothing to be stuck on */
	mi = meminfo(1461 * MiB, 0, 0, 0);
	cgoom_system_low(&mi, &five, &ten, &lv);
	cgoom_system_swappable(&lv, 1293 * MiB, 1274 * MiB);
	CHECK(lv.swap_low && !lv.swap_stuck);
}

/* Where a reclaim stall wakes the daemon (the PSI "some" trigger armed),
 * the swap's room at 800 MiB/s may ask for more than earlyoom's second,
 * up to 10 s; RAM's never (it fills without a stall) */
static void test_system_interval_stall_wakes(void)
{
	struct cgoom_system_levels lv;
	/* 8 GiB of swap, 7.2 GiB of it room: 9.2 s at 800 MiB/s (1 s
	 * without the wake-up, as before) */
	struct cgoom_meminfo mi = meminfo(16 * GiB, 8 * GiB, 8 * GiB, 8 * GiB);
	cgoom_system_low(&mi, &five, &ten, &lv);
	uint64_t room = lv.swap_free - lv.swap_min;
	uint64_t want = room * 1000000 / CGOOM_FILL_RATE_SWAP;
	CHECK(want > 9000000 && want < 9300000);
	CHECK_EQ_U64(cgoom_system_interval_us(&lv, true), want);
	CHECK_EQ_U64(cgoom_system_interval_us(&lv, false), CGOOM_POLL_MAX_US);
	/* 64 GiB of swap: the 10 s cap */
	mi = meminfo(16 * GiB, 8 * GiB, 64 * GiB, 64 * GiB);
	cgoom_system_low(&mi, &five, &ten, &lv);
	CHECK_EQ_U64(cgoom_system_interval_us(&lv, true), CGOOM_POLL_SWAP_MAX_US);
	/* swap room under a second's fill: exactly as without (300 MiB
	 * left of 1 GiB, MemAvailable under its minimum: 375 ms) */
	mi = meminfo(16 * GiB, 100 * MiB, 1 * GiB, 300 * MiB + 102 * MiB);
	cgoom_system_low(&mi, &five, &ten, &lv);
	CHECK_EQ_U64(cgoom_system_interval_us(&lv, true), cgoom_system_interval_us(&lv, false));
	CHECK(cgoom_system_interval_us(&lv, true) < CGOOM_POLL_MAX_US);
	/* no swap: RAM's room alone, capped at a second whatever wakes */
	mi = meminfo(64 * GiB, 60 * GiB, 0, 0);
	cgoom_system_low(&mi, &five, &ten, &lv);
	CHECK_EQ_U64(cgoom_system_interval_us(&lv, true), CGOOM_POLL_MAX_US);
	/* swap gone (SwapFree at its minimum), RAM far: RAM's second */
	mi = meminfo(16 * GiB, 8 * GiB, 8 * GiB, 100 * MiB);
	cgoom_system_low(&mi, &five, &ten, &lv);
	CHECK_EQ_U64(cgoom_system_interval_us(&lv, true), CGOOM_POLL_MAX_US);
}

static void test_cgroup_interval(void)
{
	struct cgoom_cgroup_params p = { .margin = 16 * MiB, .guarded = false };
	struct cgoom_cgroup_sample s = cg(100 * MiB, 5000 * MiB + 16 * MiB + 100 * MiB, 150 * MiB, 0, 0);
	/* 5000 MiB to go (max - margin - current) at 6000 MiB/s */
	CHECK_EQ_U64(cgoom_cgroup_interval_us(&s, &p), 833333);
	/* guarded: memory.high is nearer */
	p.guarded = true;
	CHECK_EQ_U64(cgoom_cgroup_interval_us(&s, &p), CGOOM_POLL_MIN_US);
	s.max = UINT64_MAX;
	s.high = UINT64_MAX;
	CHECK_EQ_U64(cgoom_cgroup_interval_us(&s, &p), CGOOM_POLL_MAX_US);
}

static void test_vmstat(void)
{
	static const char ok[] = "nr_free_pages 1234\noom_kill 7\nnr_zspages 0\n";
	uint64_t v = 99;
	CHECK_EQ_INT(cgoom_parse_vmstat_oom_kill(ok, sizeof(ok) - 1, &v), 0);
	CHECK_EQ_U64(v, 7);
	static const char none[] = "nr_free_pages 1234\noom_kill_x 3\n";
	v = 99;
	CHECK_EQ_INT(cgoom_parse_vmstat_oom_kill(none, sizeof(none) - 1, &v), -ENOENT);
	CHECK_EQ_U64(v, 99);
	static const char bad[] = "oom_kill 1x\n";
	CHECK_EQ_INT(cgoom_parse_vmstat_oom_kill(bad, sizeof(bad) - 1, &v), -EBADMSG);
	static const char extra[] = "oom_kill 1 2\n";
	CHECK_EQ_INT(cgoom_parse_vmstat_oom_kill(extra, sizeof(extra) - 1, &v), -EBADMSG);
	/* no trailing newline, and a truncated buffer */
	CHECK_EQ_INT(cgoom_parse_vmstat_oom_kill("oom_kill 42", 11, &v), 0);
	CHECK_EQ_U64(v, 42);
	CHECK_EQ_INT(cgoom_parse_vmstat_oom_kill("oom_kill", 8, &v), -EBADMSG);
	CHECK_EQ_INT(cgoom_parse_vmstat_oom_kill("", 0, &v), -ENOENT);
	/* the line is found by its first token: blanks before it or a tab
	 * after it, and not a longer key */
	static const char lead[] = "oom_killer 5\n oom_kill 6\n", tab[] = "oom_kill\t8\noom_kill 9\n",
			  alone[] = "\toom_killer 5\noom_kill\n";
	CHECK_EQ_INT(cgoom_parse_vmstat_oom_kill(lead, sizeof(lead) - 1, &v), 0);
	CHECK_EQ_U64(v, 6);
	CHECK_EQ_INT(cgoom_parse_vmstat_oom_kill(tab, sizeof(tab) - 1, &v), 0);
	CHECK_EQ_U64(v, 8);
	CHECK_EQ_INT(cgoom_parse_vmstat_oom_kill(alone, sizeof(alone) - 1, &v), -EBADMSG);
}

/* oom_kill from the head of /proc/vmstat (the quiet system's read once a
 * second): every cut of a 6.1 file answers the whole file's value or
 * -EAGAIN (never a value cut short: "oom_kill 1" of "oom_kill 12"), and
 * the head size learned is the bytes through the oom_kill line. */
static void test_vmstat_oom_kill_head(void)
{
	static const char f[] = "nr_free_pages 12345\npgpgin 10\npgalloc_dma32 1000\n"
				"pgalloc_normal 50000\nallocstall_normal 3\npgfree 99\n"
				"pageoutrun 4\npgrotated 5\ndrop_pagecache 0\ndrop_slab 0\n"
				"oom_kill 12\nnuma_pte_updates 0\nthp_fault_alloc 7\n";
	size_t n = sizeof(f) - 1;
	const char *at = strstr(f, "oom_kill 12\n");
	size_t through = (size_t)(at - f) + strlen("oom_kill 12\n");
	CHECK_EQ_U64(cgoom_vmstat_oom_kill_head_len(f, n), through);
	for (size_t cut = 0; cut <= n; cut++) {
		uint64_t v = 99;
		int r = cgoom_parse_vmstat_oom_kill_head(f, cut, &v);
		if (cut >= through) {
			CHECK_EQ_INT(r, 0);
			CHECK_EQ_U64(v, 12);
		} else {
			CHECK_EQ_INT(r, -EAGAIN);
			CHECK_EQ_U64(v, 99);
		}
	}
	/* no oom_kill line (kernels before 4.13): no head */
	static const char old[] = "nr_free_pages 1\npgfree 2\n";
	uint64_t v = 99;
	CHECK_EQ_U64(cgoom_vmstat_oom_kill_head_len(old, sizeof(old) - 1), 0);
	CHECK_EQ_INT(cgoom_parse_vmstat_oom_kill_head(old, sizeof(old) - 1, &v), -EAGAIN);
	/* malformed in the head: said so, not sent to the whole file */
	CHECK_EQ_INT(cgoom_parse_vmstat_oom_kill_head("oom_kill 1x\n", 12, &v), -EBADMSG);
	CHECK_EQ_U64(cgoom_vmstat_oom_kill_head_len(NULL, 0), 0);
	CHECK_EQ_INT(cgoom_parse_vmstat_oom_kill_head(NULL, 0, &v), -EAGAIN);
	CHECK_EQ_U64(v, 99);
}

/* ---- unreclaimable memory (SPEC 6: fire before the limit) ---- */

static void test_unreclaim_parse_lru(void)
{
	static const char st[] = "anon 500\nfile 9000\nkernel_stack 10\npagetables 20\n"
				 "sock 5\nshmem 100\nfile_mapped 3\nslab_unreclaimable 30\n"
				 "active_anon 400\ninactive_anon 200\nactive_file 4000\n"
				 "unevictable 7\n";
	struct cgoom_unreclaim u;
	CHECK_EQ_INT(cgoom_parse_unreclaim(st, sizeof(st) - 1, &u), 0);
	/* the anon LRU (anon and shmem, both swap-backed), not anon + shmem */
	CHECK_EQ_U64(u.anon_lru, 600);
	CHECK_EQ_U64(u.unevictable, 7);
	CHECK_EQ_U64(u.kernel_stack, 10);
	CHECK_EQ_U64(u.pagetables, 20);
	CHECK_EQ_U64(u.slab_unreclaimable, 30);
	CHECK_EQ_U64(u.sock, 5);
	/* file pages (9000) count nowhere */
	CHECK_EQ_U64(cgoom_unreclaimable(&u, 0), 600 + 7 + 10 + 20 + 30 + 5);
	/* swap room takes anon first, never below zero */
	CHECK_EQ_U64(cgoom_unreclaimable(&u, 100), 500 + 72);
	CHECK_EQ_U64(cgoom_unreclaimable(&u, 10000), 72);
}

/* Memory no kill can free (SPEC 4's rule on the domain's memory.stat)
 * and whether it alone keeps a domain within its margin */
static void test_unfreeable(void)
{
	static const char st[] = "anon 10\nshmem 300\nfile_mapped 2\n"
				 "active_anon 200\ninactive_anon 110\n";
	struct cgoom_unreclaim u;
	CHECK_EQ_INT(cgoom_parse_unreclaim(st, sizeof(st) - 1, &u), 0);
	CHECK_EQ_U64(u.unmapped_shmem, 298);
	/* capped at the anon LRU (SHM_LOCKed shmem is unevictable) */
	static const char locked[] = "shmem 300\nfile_mapped 0\nactive_anon 50\ninactive_anon 0\n";
	CHECK_EQ_INT(cgoom_parse_unreclaim(locked, sizeof(locked) - 1, &u), 0);
	CHECK_EQ_U64(u.unmapped_shmem, 50);
	/* without file_mapped nothing can be said */
	static const char nomapped[] = "shmem 300\nactive_anon 310\ninactive_anon 0\n";
	CHECK_EQ_INT(cgoom_parse_unreclaim(nomapped, sizeof(nomapped) - 1, &u), 0);
	CHECK_EQ_U64(u.unmapped_shmem, 0);

	struct cgoom_cgroup_params p = { .margin = 15 * MiB };
	struct cgoom_cgroup_sample s = { .max = 300 * MiB, .unreclaim_valid = true,
					 .unreclaimable = 292 * MiB, .unfreeable = 288 * MiB };
	CHECK(cgoom_cgroup_unreclaimable_near(&s, &p));
	CHECK(cgoom_cgroup_unfreeable_near(&s, &p));
	s.unfreeable = 280 * MiB; /* a kill of 10 MiB could clear the line */
	CHECK(!cgoom_cgroup_unfreeable_near(&s, &p));
	s.unfreeable = 288 * MiB;
	s.unreclaim_valid = false;
	CHECK(!cgoom_cgroup_unfreeable_near(&s, &p));
	s.unreclaim_valid = true;
	s.max = UINT64_MAX;
	CHECK(!cgoom_cgroup_unfreeable_near(&s, &p));
}

static void test_unreclaim_parse_fallback_and_errors(void)
{
	struct cgoom_unreclaim u = { .sock = 99 };
	static const char old[] = "anon 50\nshmem 25\n";
	CHECK_EQ_INT(cgoom_parse_unreclaim(old, sizeof(old) - 1, &u), 0);
	CHECK_EQ_U64(u.anon_lru, 75);
	CHECK_EQ_U64(u.sock, 0);
	u.sock = 99;
	static const char none[] = "file 10\nsock 3\n";
	CHECK_EQ_INT(cgoom_parse_unreclaim(none, sizeof(none) - 1, &u), -ENOENT);
	CHECK_EQ_U64(u.sock, 99); /* untouched on error */
	static const char dup[] = "anon 1\nanon 2\n";
	CHECK_EQ_INT(cgoom_parse_unreclaim(dup, sizeof(dup) - 1, &u), -EBADMSG);
	static const char bad[] = "anon 1x\n";
	CHECK_EQ_INT(cgoom_parse_unreclaim(bad, sizeof(bad) - 1, &u), -EBADMSG);
	static const char extra[] = "anon 1 2\n";
	CHECK_EQ_INT(cgoom_parse_unreclaim(extra, sizeof(extra) - 1, &u), -EBADMSG);
	static const char big[] = "anon 99999999999999999999999\n";
	CHECK_EQ_INT(cgoom_parse_unreclaim(big, sizeof(big) - 1, &u), -ERANGE);
	CHECK_EQ_INT(cgoom_parse_unreclaim("", 0, &u), -ENOENT);
	/* truncated mid-line: the key without a value is malformed */
	CHECK_EQ_INT(cgoom_parse_unreclaim("anon", 4, &u), -EBADMSG);
	struct cgoom_unreclaim sat = { .anon_lru = UINT64_MAX, .sock = 5 };
	CHECK_EQ_U64(cgoom_unreclaimable(&sat, 0), UINT64_MAX);
}

static void test_rate_estimate(void)
{
	struct cgoom_rate r = { 0 };
	cgoom_rate_update(&r, 100 * MiB, 1000000);
	CHECK(r.valid);
	CHECK_EQ_U64(r.bytes_per_s, 0);
	/* 10 MiB in 100 ms: 100 MiB/s */
	cgoom_rate_update(&r, 110 * MiB, 1100000);
	CHECK_EQ_U64(r.bytes_per_s, 100 * MiB);
	/* faster at once */
	cgoom_rate_update(&r, 130 * MiB, 1200000);
	CHECK_EQ_U64(r.bytes_per_s, 200 * MiB);
	/* no growth for 100 ms: decays by 100 ms / 2 s = 5% */
	cgoom_rate_update(&r, 130 * MiB, 1300000);
	CHECK_EQ_U64(r.bytes_per_s, 190 * MiB);
	/* shrinking counts as no growth; 1 s more: half of it again gone */
	cgoom_rate_update(&r, 120 * MiB, 2300000);
	CHECK_EQ_U64(r.bytes_per_s, 95 * MiB);
	/* a slower growth than what is left: the estimate stays */
	cgoom_rate_update(&r, 121 * MiB, 2400000);
	CHECK_EQ_U64(r.bytes_per_s, 95 * MiB - 95 * MiB / 20);
	/* quiet for CGOOM_RATE_FORGET_US: forgotten (the backoff) */
	cgoom_rate_update(&r, 121 * MiB, 2400000 + CGOOM_RATE_FORGET_US);
	CHECK_EQ_U64(r.bytes_per_s, 0);
	/* same time: ignored; time backwards: restart */
	cgoom_rate_update(&r, 500 * MiB, 1000000);
	CHECK_EQ_U64(r.bytes_per_s, 0);
	CHECK_EQ_U64(r.last_us, 1000000);
	cgoom_rate_update(&r, 500 * MiB, 10);
	CHECK_EQ_U64(r.bytes_per_s, 0);
	CHECK_EQ_U64(r.last_us, 10);
	/* huge values saturate instead of wrapping */
	cgoom_rate_update(&r, UINT64_MAX, 11);
	CHECK_EQ_U64(r.bytes_per_s, UINT64_MAX);
	cgoom_rate_update(&r, UINT64_MAX, 11 + CGOOM_RATE_FORGET_US);
	CHECK_EQ_U64(r.bytes_per_s, 0);
}

static void test_next_sample(void)
{
	/* no growth measured: the worst case (6000 MiB/s) far away: idle
	 * cost at most earlyoom's */
	CHECK_EQ_U64(cgoom_next_sample_us(64 * GiB, 0, CGOOM_FILL_RATE_RAM), CGOOM_POLL_MAX_US);
	CHECK_EQ_U64(cgoom_next_sample_us(3000 * MiB, 0, CGOOM_FILL_RATE_RAM), 500000);
	/* ... and never more often than earlyoom's 100 ms without growth */
	CHECK_EQ_U64(cgoom_next_sample_us(200 * MiB, 0, CGOOM_FILL_RATE_RAM), CGOOM_SAMPLE_NEAR_US);
	CHECK_EQ_U64(cgoom_next_sample_us(14 * MiB, 0, CGOOM_FILL_RATE_RAM), 100000);
	/* 100 MiB/s, 1 GiB to go: half of 10 s, bounded by the worst case */
	CHECK_EQ_U64(cgoom_next_sample_us(1024 * MiB, 100 * MiB, CGOOM_FILL_RATE_RAM), 170666);
	/* 1000 MiB/s, 14 MiB to go: half of 14 ms */
	CHECK_EQ_U64(cgoom_next_sample_us(14 * MiB, 1000 * MiB, CGOOM_FILL_RATE_RAM), 7000);
	/* at the line: the floor */
	CHECK_EQ_U64(cgoom_next_sample_us(0, 100 * MiB, CGOOM_FILL_RATE_RAM), CGOOM_SAMPLE_FLOOR_US);
	CHECK_EQ_U64(cgoom_next_sample_us(64 * 1024, 100 * MiB, CGOOM_FILL_RATE_RAM),
		     CGOOM_SAMPLE_FLOOR_US);
	/* the delay shrinks as the line comes closer */
	uint64_t prev = UINT64_MAX;
	for (uint64_t h = 64 * GiB; h > 0; h /= 2) {
		uint64_t t = cgoom_next_sample_us(h, 1000 * MiB, CGOOM_FILL_RATE_RAM);
		CHECK(t <= prev);
		CHECK(t >= CGOOM_SAMPLE_FLOOR_US && t <= CGOOM_POLL_MAX_US);
		prev = t;
	}
	/* no overflow: a second to go at that rate, half of it */
	CHECK_EQ_U64(cgoom_next_sample_us(UINT64_MAX, UINT64_MAX, CGOOM_FILL_RATE_RAM), 500000);
	CHECK_EQ_U64(cgoom_next_sample_us(1, 0, 0), CGOOM_POLL_MAX_US);
}

/* A domain at memory.max 500 MiB, margin 10 MiB (line 490 MiB). */
static const struct cgoom_cgroup_params pace_p = { .margin = 10 * MiB };

static struct cgoom_cgroup_sample pace_sample(uint64_t current, bool in_band, uint64_t unrecl)
{
	return (struct cgoom_cgroup_sample){ .current = current, .max = 500 * MiB,
					     .high = UINT64_MAX, .unreclaim_valid = in_band,
					     .unreclaimable = unrecl };
}

static void test_pace_band_entry_keeps_rate(void)
{
	/* a grower at 4000 MiB/s measured on memory.current; the sample
	 * that enters the margin starts the unreclaimable estimate from
	 * nothing. The growth of memory.current still paces it: half of the
	 * 50 MiB to the line at 4000 MiB/s, not the no-growth pace (which let
	 * the kernel's OOM killer act first in bench/run b2, where that was
	 * earlyoom's 100 ms). */
	struct cgoom_rate lv = { .valid = true, .bytes_per_s = 4000 * MiB };
	struct cgoom_rate un = { .valid = true, .bytes_per_s = 0 };
	struct cgoom_cgroup_sample s = pace_sample(491 * MiB, true, 440 * MiB);
	struct cgoom_cgroup_pace pc;
	cgoom_cgroup_pace(&s, &pace_p, &lv, &un, &pc);
	CHECK_EQ_U64(pc.level, 440 * MiB);
	CHECK_EQ_U64(pc.headroom, 50 * MiB);
	CHECK_EQ_U64(pc.rate, 4000 * MiB);
	CHECK_EQ_U64(pc.next_us, 6250);
	CHECK(pc.approach);
}

static void test_pace_band_rate_unreclaimable(void)
{
	/* page cache reclaimed as anon grows holds memory.current flat: the
	 * unreclaimable estimate paces it */
	struct cgoom_rate lv = { .valid = true, .bytes_per_s = 0 };
	struct cgoom_rate un = { .valid = true, .bytes_per_s = 2000 * MiB };
	struct cgoom_cgroup_sample s = pace_sample(495 * MiB, true, 450 * MiB);
	struct cgoom_cgroup_pace pc;
	cgoom_cgroup_pace(&s, &pace_p, &lv, &un, &pc);
	CHECK_EQ_U64(pc.rate, 2000 * MiB);
	CHECK_EQ_U64(pc.next_us, 10000); /* 40 MiB at 2000 MiB/s, halved */
	/* outside the margin the unreclaimable estimate is not used */
	s = pace_sample(300 * MiB, false, 0);
	cgoom_cgroup_pace(&s, &pace_p, &lv, &un, &pc);
	CHECK_EQ_U64(pc.rate, 0);
	CHECK_EQ_U64(pc.level, 300 * MiB);
}

static void test_pace_band_without_growth(void)
{
	struct cgoom_rate zero = { .valid = true, .bytes_per_s = 0 };
	struct cgoom_cgroup_pace pc;
	/* unreclaimable 20 MiB from the line, nothing growing: looked at as
	 * if it could grow at CGOOM_FILL_RATE_BAND, every 20 ms */
	struct cgoom_cgroup_sample s = pace_sample(495 * MiB, true, 470 * MiB);
	cgoom_cgroup_pace(&s, &pace_p, &zero, &zero, &pc);
	CHECK_EQ_U64(pc.next_us, 20000);
	CHECK(!pc.approach);
	/* a cgroup full of page cache at its limit, unreclaimable far below
	 * the line: no faster than earlyoom's 100 ms */
	s = pace_sample(499 * MiB, true, 100 * MiB);
	cgoom_cgroup_pace(&s, &pace_p, &zero, &zero, &pc);
	CHECK_EQ_U64(pc.next_us, CGOOM_SAMPLE_NEAR_US);
	/* at the line: the floor */
	s = pace_sample(499 * MiB, true, 495 * MiB);
	cgoom_cgroup_pace(&s, &pace_p, &zero, &zero, &pc);
	CHECK_EQ_U64(pc.headroom, 0);
	CHECK_EQ_U64(pc.next_us, CGOOM_SAMPLE_FLOOR_US);
	/* outside the margin, still earlyoom's floor with no growth */
	s = pace_sample(470 * MiB, false, 0);
	cgoom_cgroup_pace(&s, &pace_p, &zero, &zero, &pc);
	CHECK_EQ_U64(pc.next_us, CGOOM_SAMPLE_NEAR_US);
}

static void test_pace_approach_lookahead(void)
{
	/* the standby is kept within a second of measured growth */
	struct cgoom_rate lv = { .valid = true, .bytes_per_s = 100 * MiB };
	struct cgoom_rate zero = { 0 };
	struct cgoom_cgroup_pace pc;
	struct cgoom_cgroup_sample s = pace_sample(391 * MiB, false, 0);
	cgoom_cgroup_pace(&s, &pace_p, &lv, &zero, &pc);
	CHECK(pc.approach); /* 99 MiB: under a second */
	s = pace_sample(389 * MiB, false, 0);
	cgoom_cgroup_pace(&s, &pace_p, &lv, &zero, &pc);
	CHECK(!pc.approach);
}

int main(void)
{
	return tap_run((struct tap_test[]){
		TAP(test_names),
		TAP(test_pace_band_entry_keeps_rate),
		TAP(test_pace_band_rate_unreclaimable),
		TAP(test_pace_band_without_growth),
		TAP(test_pace_approach_lookahead),
		TAP(test_system_no_swap_low),
		TAP(test_system_no_swap_ok),
		TAP(test_system_boundary_is_not_low),
		TAP(test_system_swap_free_blocks),
		TAP(test_system_swap_low_ram_ok),
		TAP(test_system_absolute_share),
		TAP(test_system_memfree_fallback),
		TAP(test_psi_short_interval),
		TAP(test_psi_long_interval_scaled),
		TAP(test_psi_invalid),
		TAP(test_cgroup_at_limit),
		TAP(test_kernel_oom_rose),
		TAP(test_poll_interval),
		TAP(test_system_interval),
		TAP(test_system_interval_stall_wakes),
		TAP(test_system_swappable),
		TAP(test_cgroup_interval),
		TAP(test_vmstat), TAP(test_vmstat_oom_kill_head),
		TAP(test_unreclaim_parse_lru),
		TAP(test_unfreeable),
		TAP(test_unreclaim_parse_fallback_and_errors),
		TAP(test_rate_estimate),
		TAP(test_next_sample),
		{ 0 },
	});
}
