/* SPDX-License-Identifier: MIT */
#pragma once

/*
 * Thrashing, and swap heading for exhaustion (SPEC 6 "Swap"; the rules
 * and their calibration: doc/triggers.md). Pure: the daemon reads the
 * numbers, takes the time and feeds them in; these functions keep a
 * short history and judge it. No syscalls, no clock, no logging.
 *
 * A domain's history is a ring of windows of about CGOOM_THRASH_WINDOW_US
 * each, aggregated from its samples (which may come at any pace): stall
 * time (PSI some and full), refaults, swap-ins and -outs, reclaim, and at
 * each window's end the swap in use and the memory available.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* One sample of a domain's pressure, as cumulative counters and levels. */
struct cgoom_pressure_point {
	uint64_t at_us;
	/* PSI totals (microseconds of stall), when read */
	bool psi_valid;
	uint64_t some_us, full_us;
	/* reclaim counters (pages or events), when read */
	bool reclaim_valid;
	uint64_t refaults;    /* workingset refaults, anon + file */
	uint64_t activations; /* refaults of pages that were in the working set */
	uint64_t swapins, swapouts; /* pages (system only) */
	uint64_t stolen, scanned;   /* pages reclaimed / scanned */
	uint64_t allocstalls;       /* direct-reclaim entries (system only) */
	/* levels, bytes */
	uint64_t mem_total, mem_available; /* system: MemTotal, MemAvailable;
					    * cgroup: memory.max, max - current */
	uint64_t swap_total, swap_used;    /* system: SwapTotal, SwapTotal - SwapFree;
					    * cgroup: swap room in all, swap used */
	/* zram swap (system; 0 without): what it stores, what that costs
	 * in RAM, its limit (0: none) */
	uint64_t zram_orig, zram_used, zram_limit;
	/* free swap on the areas that are not zram (bytes; 0 when every
	 * area is zram): zram's limit caps only the rest of the free swap */
	uint64_t swap_other_free;
	/* zswap (system; 0 without): what it stores, the RAM its pool takes
	 * (/proc/meminfo's Zswapped and Zswap) */
	uint64_t zswap_stored, zswap_ram;
};

#define CGOOM_THRASH_WINDOW_US 500000ULL
#define CGOOM_THRASH_WINDOWS 124 /* 62 s of history: swap_stall_max and thrash_for go to 60 s */

struct cgoom_thrash_window {
	uint64_t end_us, dt_us;
	uint64_t some_us, full_us; /* stall within the window */
	uint64_t refaults, activations, swapins, swapouts, stolen, scanned, allocstalls;
	uint64_t mem_total, mem_available, swap_total, swap_used; /* at its end */
	uint64_t zram_orig, zram_used, zram_limit, swap_other_free;
	uint64_t zswap_stored, zswap_ram;
	bool psi_valid, reclaim_valid; /* every sample in it had them */
};

struct cgoom_thrash_state {
	struct cgoom_pressure_point last;
	bool have_last;
	struct cgoom_thrash_window open;   /* being filled */
	struct cgoom_thrash_window ring[CGOOM_THRASH_WINDOWS];
	size_t head, n; /* ring[head] is the newest closed window */
};

/* Feeds one sample. The first only records it; a sample whose clock or
 * counters went backwards (a counter reset, a new cgroup under the same
 * name) restarts the history. */
void cgoom_thrash_feed(struct cgoom_thrash_state *st, const struct cgoom_pressure_point *p);

/* Forgets everything (a kill happened: what came before is spent). */
void cgoom_thrash_reset(struct cgoom_thrash_state *st);

/* The closed windows, newest first: the i-th, or NULL past the history. */
const struct cgoom_thrash_window *cgoom_thrash_window(const struct cgoom_thrash_state *st, size_t i);

struct cgoom_thrash_params {
	/* thrashing: every window of the last `sustain_us` had a full stall
	 * of at least full_min (per 10000 of its length) while memory was
	 * short (available under mem_short per 10000 of mem_total), and over
	 * them refaults or swap-ins came at refault_min pages per second and
	 * at least as fast as swap in use grew (pages of page_size bytes):
	 * a working set that no longer fits comes back as fast as it goes
	 * out; a burst or a leak moves pages out far faster than any come
	 * back (bench/swap's h-idle-grow: 15.7 MiB/s back while swap grew
	 * 62 MiB/s; s-thrash: 16.9 back, 4.2 net) */
	uint32_t full_min;
	uint64_t refault_min;
	/* bytes in a page of the refault and swap-in counts: the kernel's
	 * page size (4096 by default; 64 KiB on some arm64 kernels) */
	uint64_t page_size;
	uint64_t sustain_us;
	uint32_t mem_short;
	/* swap filling under a stall: swap in use has grown (at least
	 * 1 MiB/s) in windows that each had a full stall of full_min while
	 * memory was short (mem_short), without
	 * a break, for `trend` (at least trend_min_us), and has gone on for
	 * fill_max_us (longer than a burst that swaps out an idle job
	 * stalls), or, with eta_share > 0 (off by default), at its recent
	 * rate fills what is left within trend x eta_share / 100 and within
	 * eta_max_us. The projection is off by default because a healthy
	 * burst filled 69-72% of a zram swap at a steady rate before it
	 * stopped (tests/vm swap-healthy, bench/swap h-idle-grow;
	 * doc/triggers.md): only duration tells it from a leak. */
	uint64_t trend_min_us;
	uint32_t eta_share;
	uint64_t eta_max_us;
	uint64_t fill_max_us;
};

/* The defaults (doc/triggers.md says how they were calibrated), shared
 * with the config's `thrash_for`, `thrash_refaults` and `swap_stall_max`
 * (cgoom_config_init), so each is written once. */
#define CGOOM_THRASH_SUSTAIN_US_DEFAULT 2000000ULL    /* thrash_for: 2 s */
#define CGOOM_THRASH_REFAULT_BYTES_DEFAULT (15ULL << 20) /* thrash_refaults: 15 MiB/s */
#define CGOOM_SWAP_FILL_MAX_US_DEFAULT 25000000ULL    /* swap_stall_max: 25 s */

void cgoom_thrash_params_default(struct cgoom_thrash_params *ret);

/* What the history says now: the numbers behind both verdicts, for the
 * trigger's reason, the event log and explain. Shares are per 10000. */
struct cgoom_thrash_facts {
	uint64_t span_us;        /* history covered */
	uint32_t full_share, some_share; /* over the newest window */
	uint32_t full_share_2s;  /* over the last ~2 s */
	uint64_t refault_rate;   /* pages/s needed back (refaults, or swap-ins), newest window */
	uint64_t thrashing_us;   /* how long memory has been short under a stall */
	uint64_t refault_rate_run; /* pages/s needed back over the newest sustain_us of that */
	uint64_t swap_net_rate;  /* bytes/s swap in use grew by over those windows (0: not) */
	uint64_t swap_total, swap_used;
	uint64_t swap_rate;      /* bytes/s, recent growth of swap in use (0: not growing) */
	uint64_t trend_us;       /* how long swap has filled under a stall without a break */
	uint64_t eta_us;         /* time to fill the swap at swap_rate (UINT64_MAX: never) */
	uint64_t swap_room;      /* bytes swap can still take: what is free, zram's part no
				  * more than its RAM left holds at its ratio (newest window) */
	uint64_t mem_total, mem_available;
	uint64_t zram_orig, zram_used, zram_limit;
	uint64_t zswap_stored, zswap_ram; /* newest window */
	bool filling;            /* swap in use grew under a stall in the newest window */
	bool thrashing;          /* the thrashing verdict */
	bool exhausting;         /* the exhaustion verdict */
};

void cgoom_thrash_judge(const struct cgoom_thrash_state *st, const struct cgoom_thrash_params *p,
			struct cgoom_thrash_facts *ret);

/* zram at its RAM limit, by the facts: a zram device with a limit and
 * the swap it can still take (swap_room) under swap_min bytes, or,
 * filling under a stall, gone within CGOOM_ZRAM_ETA_US at its rate,
 * however much SwapFree says. At its limit zram's writes fail and the
 * pages stay in RAM; SwapFree falls only as the failed writes use up
 * its slots, which took over a minute of a machine stalled on them
 * (tests/vm swap-zram-limit), and the kernel kills nobody meanwhile. So
 * late is worse here than at SwapFree's line: once zram is full, every
 * allocation stalls (cgoom's reads too; a run where the line was the
 * last 10% of what zram holds froze the guest for 4 minutes), hence the
 * look ahead. */
#define CGOOM_ZRAM_ETA_US 2000000ULL
bool cgoom_thrash_zram_full(const struct cgoom_thrash_facts *f, uint64_t swap_min);

/* Swap all but spent while zswap is in use and it still fills: zswap
 * stores something, the swap it can still take (swap_room) is under
 * swap_min (itself under all of the swap), swap in use grew under a
 * memory stall in the newest window, and has so for at least
 * trend_min_us while memory was short (the trend; MemAvailable under
 * 10%). The kernel's OOM kill comes as swap runs out, and with zswap
 * in front of a swap file the kernel kept MemFree near 10% of RAM
 * through the swap phase: MemAvailable stayed at 6% (over the memory
 * line's 5%) up to the kernel's kill in three of five runs of tests/vm
 * swap-zswap, and cgoom lost each to it. On zram and a plain swap file
 * the memory line crossed at the same sample in every recorded leak, and
 * a healthy burst (bench-h-idle-grow-2) filled 81% of its swap with
 * MemAvailable at 6.6%: there, nothing is asked of this rule. */
bool cgoom_thrash_swap_spent(const struct cgoom_thrash_facts *f, const struct cgoom_thrash_params *p,
			     uint64_t swap_min);
