/* SPDX-License-Identifier: MIT */
#pragma once

/*
 * Trigger decisions of the daemon (SPEC 6), as pure functions of parsed
 * numbers and of time passed in: no syscalls, no clock, no logging. The
 * daemon reads the files, parses them, takes the time and asks these
 * functions whether a domain is out of memory.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cgoom/config.h"
#include "cgoom/parse.h"

/* The trigger kinds, in the order the daemon checks a domain's sample
 * (an earlier kind that fires preempts the later ones), each as
 * X(ENUM, name): CGOOM_TRIGGER_ENUM, "name", and the daemon's ops
 * `trigger_name` in src/daemon/trigger-name.c (doc/architecture.md:
 * adding a trigger). */
#define CGOOM_TRIGGER_KINDS(X)                                                                     \
	X(MEMORY, memory)               /* system: MemAvailable (and SwapFree) under their minimum */ \
	X(MAX, max)                     /* cgroup: within margin of memory.max while reclaim fails */ \
	X(UNRECLAIMABLE, unreclaimable) /* cgroup: unreclaimable memory within margin of max */      \
	X(SWAP, swap)                   /* both: swap filling under a stall for swap_stall_max */    \
	X(THRASH, thrash)               /* both: sustained stalls on pages needed back */            \
	X(HIGH, high)                   /* cgroup: usage stays in the guard band (memory.high) */

enum cgoom_trigger {
	CGOOM_TRIGGER_NONE = 0,
#define CGOOM_TRIGGER_ENUM_(K, n) CGOOM_TRIGGER_##K,
	CGOOM_TRIGGER_KINDS(CGOOM_TRIGGER_ENUM_)
#undef CGOOM_TRIGGER_ENUM_
	CGOOM_TRIGGER_N_,
};

/* The kind's name from CGOOM_TRIGGER_KINDS ("memory", "max", ...); "none"
 * for NONE; NULL out of range. */
const char *cgoom_trigger_name(enum cgoom_trigger t);

/* ---- the system domain ---- */

struct cgoom_system_levels {
	uint64_t mem_available, mem_min; /* bytes */
	uint64_t swap_total, swap_free, swap_min;
	bool mem_low;  /* mem_available < mem_min */
	bool swap_low; /* no swap at all, swap_free < swap_min, or swap_stuck */
	/* Where asked (cgoom_system_swappable): the swap-backed memory in
	 * RAM (anon and shmem) outside the cgroups that cannot swap, which
	 * is all swap can still take, whatever SwapFree says; noswap the
	 * part inside them. swap_stuck: that is under swap_min while
	 * SwapFree is not. */
	uint64_t swappable, noswap;
	bool swappable_known, swap_stuck;
};

/* Whether the system is low on memory: MemAvailable < share(mem_min,
 * MemTotal) and (SwapTotal == 0 or SwapFree < share(swap_min,
 * SwapTotal)). Without a MemAvailable line (kernels before 3.14) MemFree
 * stands in. *ret (may be NULL) gets the numbers either way. */
bool cgoom_system_low(const struct cgoom_meminfo *mi, const struct cgoom_share *mem_min,
		      const struct cgoom_share *swap_min, struct cgoom_system_levels *ret);

/* With swap_backed (/proc/meminfo Active(anon) + Inactive(anon): anon and
 * shmem in RAM) and noswap (the part in cgroups whose memory.swap.max is
 * 0 or reached): sets swappable, noswap and swappable_known, and where
 * swap has room (SwapFree at or over swap_min) but MemAvailable and what
 * could go to swap together are under the larger of mem_min and
 * swap_min, swap_stuck and swap_low. A leak that cannot swap fills RAM
 * as on a machine without swap: the kernel OOM-kills with swap free. */
void cgoom_system_swappable(struct cgoom_system_levels *lv, uint64_t swap_backed, uint64_t noswap);
/* The room swap has before its line: SwapFree over swap_min, or, where
 * known and less, MemAvailable and the swappable memory over the larger
 * minimum (cgoom_system_swappable). */
uint64_t cgoom_swap_room(const struct cgoom_system_levels *lv);

/* ---- PSI, when the kernel cannot watch it for us ---- */

struct cgoom_psi_sample {
	uint64_t total_us; /* the "full" line's total= */
	uint64_t at_us;    /* when it was read (any monotonic clock) */
	bool valid;
};

/* Stall time between two samples, scaled to one window: when the samples
 * are at most window_us apart, the raw growth of total (a window that
 * holds the interval holds at least that much stall); when they are
 * further apart, the average per window, growth x window / interval
 * (polling cannot see a burst inside a long interval; the kernel's own
 * trigger can, which is why the daemon prefers it). Fires when that is
 * >= stall_us. false when either sample is invalid, time or total went
 * backwards, or window_us is 0. *ret_stall_us (may be NULL) is set
 * whenever the samples are usable. */
bool cgoom_psi_over(const struct cgoom_psi_sample *prev, const struct cgoom_psi_sample *cur,
		    uint64_t stall_us, uint64_t window_us, uint64_t *ret_stall_us);

/* ---- cgroup domains ---- */

struct cgoom_cgroup_sample {
	uint64_t current; /* memory.current */
	uint64_t max;     /* memory.max (UINT64_MAX: "max") */
	uint64_t high;    /* memory.high (UINT64_MAX: "max") */
	struct cgoom_memevents ev;
	/* cgoom_unreclaimable() of this sample's memory.stat; read only when
	 * memory.current is within the margin (cgoom_cgroup_in_band()). */
	bool unreclaim_valid;
	uint64_t unreclaimable;
	/* read with it: memory.stat's reclaim and refault counters, and the
	 * swap the cgroup uses and may still use (min(memory.swap.max -
	 * memory.swap.current, SwapFree); 0 without swap) */
	bool reclaim_valid;
	struct cgoom_reclaim reclaim;
	uint64_t swap_used, swap_room;
	/* of unreclaimable, what no kill frees either: the unmapped shmem
	 * beyond the swap room (valid with unreclaim_valid) */
	uint64_t unfreeable;
};

/* ---- memory that cannot be reclaimed (memory.stat) ---- */

/* The memory.stat keys of a cgroup's unreclaimable memory. The anon LRU
 * (active_anon + inactive_anon) holds anonymous and shmem pages alike
 * (both swap-backed) and is disjoint from the unevictable LRU, so the
 * sum counts no page twice; only kernels without the LRU keys fall back
 * to anon + shmem (+ unevictable, which may then overlap mlocked anon:
 * an overestimate, the safe side of a line that must not be late). */
struct cgoom_unreclaim {
	uint64_t anon_lru;   /* swap-backed: reclaimable only into swap room */
	uint64_t unevictable, kernel_stack, pagetables, slab_unreclaimable, sock;
	/* of anon_lru, the shmem and tmpfs no process maps (no kill frees
	 * it): min(max(0, shmem - file_mapped), anon_lru), SPEC 4's rule
	 * (select.h); 0 without both keys */
	uint64_t unmapped_shmem;
};

/* The fields above from a parsed memory.stat (cgoom_parse_memstat_keys);
 * -ENOENT without any anon key (active_anon/inactive_anon or anon). */
int cgoom_unreclaim_from_memstat(const struct cgoom_memstat *m, struct cgoom_unreclaim *ret);
/* memory.stat through cgoom_parse_memstat_keys, then the above. Unknown
 * keys are ignored; a malformed line (not "key u64"), or a key seen
 * twice, is -EBADMSG (-ERANGE for a value past u64); without any anon
 * key -ENOENT. *ret is untouched on failure. */
int cgoom_parse_unreclaim(const char *buf, size_t len, struct cgoom_unreclaim *ret);

/* Bytes the kernel cannot reclaim: anon_lru beyond swap_room (the swap
 * the cgroup may still use: min(memory.swap.max - memory.swap.current,
 * SwapFree); 0 without swap) plus the rest, saturating. Every part is
 * charged to memory.current, which therefore bounds the sum (up to the
 * kernel's unflushed per-CPU stat deltas). */
uint64_t cgoom_unreclaimable(const struct cgoom_unreclaim *u, uint64_t swap_room);

struct cgoom_cgroup_params {
	uint64_t margin;   /* bytes: act within this of memory.max (and of memory.high) */
	bool guarded;      /* a guard band is in force: memory.high = max - guard_band */
	uint64_t dwell_us; /* guard band: how long usage must stay in it */
};

/* What one domain's trigger remembers between checks. Zero it to start
 * with a baseline of zero events (then any event counted so far counts
 * as "rose"); or call cgoom_cgroup_baseline() with a first sample so that
 * only later rises count. */
struct cgoom_cgroup_state {
	struct cgoom_memevents last;
	bool in_band;
	uint64_t band_since_us;
	uint64_t band_rises; /* checks that saw `high` rise since the band clock started */
};

void cgoom_cgroup_baseline(struct cgoom_cgroup_state *st, const struct cgoom_cgroup_sample *cur);

/* Whether usage is at a limit now (no events needed): memory.current +
 * margin >= memory.max, or, guarded, memory.current + margin >=
 * memory.high. The re-check before acting uses this with fresh numbers.
 * The margin applies to memory.high too because reclaim keeps pulling
 * memory.current to just under memory.high while the allocator is
 * throttled there. */
bool cgoom_cgroup_at_limit(const struct cgoom_cgroup_sample *cur, const struct cgoom_cgroup_params *p);

/* Whether memory.current is within the margin of memory.max: the cheap
 * gate before memory.stat is read (memory.current bounds the
 * unreclaimable sum, so outside this band it cannot fire). */
bool cgoom_cgroup_in_band(const struct cgoom_cgroup_sample *cur, const struct cgoom_cgroup_params *p);

/* The cgroup kinds' pure parts (src/daemon/trigger-{max,unreclaimable,
 * high}.c put them in the table, in that order: MAX wins over
 * UNRECLAIMABLE, which wins over HIGH). prev: memory.events at the
 * previous check (cgoom_cgroup_state.last).
 *
 * MAX: memory.current + margin >= memory.max and reclaim is failing:
 * memory.events `max` or `oom` rose since prev, or psi_fired (the
 * domain's memory.pressure trigger went off). When memory.stat was read
 * and the unreclaimable part is clear of the margin, `max` and PSI come
 * from page cache being reclaimed and only `oom` counts. */
bool cgoom_cgroup_max_fires(const struct cgoom_memevents *prev, const struct cgoom_cgroup_sample *cur,
			    const struct cgoom_cgroup_params *p, bool psi_fired);

/* UNRECLAIMABLE: cur->unreclaim_valid and unreclaimable + margin >=
 * memory.max: the kernel cannot make room by reclaim, whatever page
 * cache the cgroup also holds (page cache alone never fires). */
bool cgoom_cgroup_unreclaimable_near(const struct cgoom_cgroup_sample *cur,
				     const struct cgoom_cgroup_params *p);
/* The same for cur->unfreeable alone: memory no kill can free keeps the
 * domain within its margin by itself, so no kill, nor all of them, takes
 * it out of the unreclaimable trigger (the kill-storm guard then holds
 * from the first kill unless the domain heads for the kernel's OOM). */
bool cgoom_cgroup_unfreeable_near(const struct cgoom_cgroup_sample *cur,
				  const struct cgoom_cgroup_params *p);

/* HIGH (guarded only): usage stays in the guard band while the
 * allocator keeps hitting memory.high. A check that sees memory.current +
 * margin >= memory.high and `high` risen starts the clock; it fires at a
 * later check, at least dwell_us after the start, once `high` rose again
 * since the start (a throttled allocator sleeps between charges, so not
 * every check sees a rise); a check with usage below the band, or one
 * preempted (an earlier kind fired), stops the clock. dwell_us 0 fires
 * at the first sighting. Updates st's band clock. */
bool cgoom_cgroup_high_step(struct cgoom_cgroup_state *st, const struct cgoom_memevents *prev,
			    const struct cgoom_cgroup_sample *cur, const struct cgoom_cgroup_params *p,
			    bool preempted, uint64_t now_us);

/* Whether the kernel OOM-killed in the domain since the last sample:
 * memory.events oom_kill rose. *ret_n (may be NULL) gets how many. */
bool cgoom_kernel_oom_rose(const struct cgoom_memevents *prev, const struct cgoom_memevents *cur,
			   uint64_t *ret_n);

/* ---- adaptive polling (earlyoom style) ---- */

#define CGOOM_POLL_MIN_US 100000ULL  /* 100 ms: at or near a threshold */
#define CGOOM_POLL_MAX_US 1000000ULL /* 1 s: idle */
/* 10 s: idle with swap room that takes that long to fill, where a
 * reclaim stall wakes the daemon (cgoom_system_interval_us) */
#define CGOOM_POLL_SWAP_MAX_US 10000000ULL
/* Fastest plausible fill rates, as earlyoom measured them: RAM 6000
 * MiB/s, swap 800 MiB/s. */
#define CGOOM_FILL_RATE_RAM (6000ULL << 20)
#define CGOOM_FILL_RATE_SWAP (800ULL << 20)

/* The time memory could take to fill `headroom` bytes at `rate` bytes per
 * second: headroom x 1e6 / rate microseconds, clamped to [CGOOM_POLL_MIN_US,
 * CGOOM_POLL_MAX_US]. rate 0 means "cannot fill": the maximum. So a
 * domain 60 MiB from its threshold is polled every 100 ms, one 3 GiB away
 * about every 512 ms, and one 6 GiB or more away once a second. */
uint64_t cgoom_poll_interval_us(uint64_t headroom, uint64_t rate);

/* The system's interval: the RAM headroom (MemAvailable - mem_min) at
 * CGOOM_FILL_RATE_RAM and, with swap, the longer of that and the swap
 * headroom (SwapFree - swap_min) at CGOOM_FILL_RATE_SWAP: the line is
 * both minimums crossed, and neither headroom goes faster than its own
 * rate. (earlyoom sleeps for the sum of the two; the longer of them
 * assumes the worst, both filling at once.) So with swap, MemAvailable
 * under its minimum and 300 MiB of swap left, 375 ms. Each is clamped
 * to [CGOOM_POLL_MIN_US, CGOOM_POLL_MAX_US], earlyoom's 100 ms .. 1 s,
 * except the swap's when stall_wakes (a PSI "some" trigger wakes the
 * daemon on the first reclaim stall): then up to CGOOM_POLL_SWAP_MAX_US.
 * Swap fills only by reclaim, and reclaim stalls (kswapd's and direct
 * reclaim count in memory PSI), so a fill faster than the 800 MiB/s
 * assumed wakes the daemon anyway; RAM fills without a stall, so its
 * part keeps earlyoom's second. */
uint64_t cgoom_system_interval_us(const struct cgoom_system_levels *lv, bool stall_wakes);

/* A cgroup domain's interval: headroom to the nearest threshold it fires
 * at (memory.high - margin when guarded, else memory.max - margin) at
 * CGOOM_FILL_RATE_RAM. A domain without a finite limit: the maximum. */
uint64_t cgoom_cgroup_interval_us(const struct cgoom_cgroup_sample *cur,
				  const struct cgoom_cgroup_params *p);

/* ---- sampling driven by the measured growth rate ---- */

/* Near a line the next sample comes at about half the time the measured
 * growth needs to cross it, never sooner than this. */
#define CGOOM_SAMPLE_FLOOR_US 1000ULL
/* Without measured growth, the worst case (the fill rate) samples at
 * most this often: earlyoom's floor, so the idle cost stays at or below
 * earlyoom's (a line 600 MiB or less away at 6000 MiB/s). Growth that
 * starts from idle is measured at the next sample, a wake-up by PSI
 * `some` or memory.events; growth too fast for that needs a guard band. */
#define CGOOM_SAMPLE_NEAR_US 100000ULL
/* A rate estimate decays to zero over this long without growth. */
#define CGOOM_RATE_FORGET_US 2000000ULL

/* A growth-rate estimate of one quantity (bytes per second). The
 * estimate jumps up to any faster rate seen and decays linearly to zero
 * over CGOOM_RATE_FORGET_US when growth slows or stops (the backoff), so
 * a burst is remembered across quiet samples (memory.current moves in
 * per-CPU batches, and a throttled grower in bursts). */
struct cgoom_rate {
	uint64_t last_value, last_us;
	uint64_t bytes_per_s;
	bool valid; /* last_* hold a sample */
};

/* Feeds a sample taken at now_us. A first sample, or time that did not
 * advance, only records it; time that went backwards restarts. */
void cgoom_rate_update(struct cgoom_rate *r, uint64_t value, uint64_t now_us);

/* x * 1e6 / y, saturating at UINT64_MAX; y > 0 (bytes over microseconds
 * to bytes a second, or bytes over bytes a second to microseconds). */
uint64_t cgoom_scale_1e6(uint64_t x, uint64_t y);

/* The next sample's delay: the time the line takes at the worst-case
 * rate (headroom / worst_rate, clamped to [CGOOM_SAMPLE_NEAR_US,
 * CGOOM_POLL_MAX_US]: 100 ms .. 1 s, earlyoom's intervals), shortened to headroom / rate / 2
 * when the measured rate says the line comes sooner, floored at
 * CGOOM_SAMPLE_FLOOR_US. rate 0 (no growth) gives the worst-case
 * interval alone: the backoff. */
uint64_t cgoom_next_sample_us(uint64_t headroom, uint64_t rate, uint64_t worst_rate);

/* The same with the worst case given as a delay (worst_us, already
 * clamped): worst_us, shortened to headroom / rate / 2 when the measured
 * rate says the line comes sooner, floored at CGOOM_SAMPLE_FLOOR_US;
 * rate 0 gives worst_us. */
uint64_t cgoom_sample_after_us(uint64_t worst_us, uint64_t headroom, uint64_t rate);

/* Without measured growth, a domain whose unreclaimable memory is being
 * watched inside its margin (memory.stat read) is sampled as if it could
 * grow at this rate, down to CGOOM_SAMPLE_FLOOR_US: unreclaimable memory
 * 20 MiB from the line is looked at every 20 ms, 100 MiB or more away
 * every 100 ms. Outside the margin the worst case keeps earlyoom's 100 ms
 * floor (CGOOM_SAMPLE_NEAR_US): there the line is a whole margin away. */
#define CGOOM_FILL_RATE_BAND (1000ULL << 20)

/* A cgroup domain's pace: what its next sample is measured against and
 * when it comes. */
struct cgoom_cgroup_pace {
	uint64_t level;    /* unreclaimable memory inside the margin, else memory.current */
	uint64_t headroom; /* from level to memory.max - margin */
	uint64_t rate;     /* bytes/s: the faster of the two estimates below */
	uint64_t next_us;  /* delay to the next sample */
	bool approach;     /* the line is within the margin or a second of growth */
};

/* How long a domain keeps a standby decision ahead of its line: this
 * much of the measured growth (or the margin, if more). */
#define CGOOM_STANDBY_LOOKAHEAD_US 1000000ULL

/* The pace of a cgroup domain after sample s (max finite). rate_level
 * estimates memory.current's growth, rate_unrecl the unreclaimable
 * sum's (valid only while s is inside the margin). The rate used is the
 * faster of the two: the unreclaimable estimate starts from nothing when
 * the margin is entered, exactly when the growth of memory.current
 * (which carries it) is what is known; and inside the margin page cache
 * reclaimed as anon grows can hold memory.current flat. A guard band's
 * own pace (cgoom_cgroup_interval_us) is the HIGH trigger's, not this. */
void cgoom_cgroup_pace(const struct cgoom_cgroup_sample *s, const struct cgoom_cgroup_params *p,
		       const struct cgoom_rate *rate_level, const struct cgoom_rate *rate_unrecl,
		       struct cgoom_cgroup_pace *ret);

/* /proc/vmstat: the `oom_kill` counter (kernel OOM kills since boot),
 * -ENOENT without one (kernels before 4.13), -EBADMSG if malformed. */
int cgoom_parse_vmstat_oom_kill(const char *buf, size_t len, uint64_t *ret);
/* The same from the head of /proc/vmstat (what one read of part of it
 * returned): whole lines only (a value cut short would read low),
 * -EAGAIN when they hold no oom_kill line (read the whole file). */
int cgoom_parse_vmstat_oom_kill_head(const char *buf, size_t len, uint64_t *ret);
/* How much of a whole /proc/vmstat that head parse needs: the bytes up
 * to the end of its oom_kill line; 0 without a whole one. */
size_t cgoom_vmstat_oom_kill_head_len(const char *buf, size_t len);
