/* SPDX-License-Identifier: MIT */
#pragma once

/*
 * SPEC 6: kill accounting and the kill-storm guard, as pure functions
 * of numbers and the time passed in (STYLE 13): no syscalls, no clock,
 * no logging. storm-act.c reads the domain, asks these, and reports.
 *
 * The guard: at most `kills` kills in a domain within any `window`
 * (config kill_storm, default 3/1m). Past that it holds back, unless
 * the domain is still heading for the kernel's OOM and the kill would
 * free memory: then it never holds (a storm is kills that free nothing
 * while nothing grows; a leak that keeps growing must still be stopped,
 * however many kills it takes).
 *
 * Accounting: what a domain freed over a kill (its memory in use, swap
 * included, before the signal and once the victims are gone) against
 * what the kill promised (cgoom_kill_promise()); "far less" is said in
 * words.
 */

#include <stdbool.h>
#include <stdint.h>

#include "cgoom/config.h"
#include "cgoom/trigger.h"

struct storm_state {
	uint64_t kill_us[CGOOM_STORM_KILLS_MAX]; /* ring: the latest kills' times */
	unsigned n, next;                        /* kills recorded (<= MAX), next slot */
	/* holding back: since when, and what the log said last */
	bool holding;
	uint64_t hold_since_us, hold_logged_us;
	uint64_t held;        /* triggers held back in this episode */
	uint64_t held_logged; /* ... of which the last log line counted */
	/* the kill being accounted, from its signal to its end */
	bool pending;
	uint64_t level_before, expected;
	uint64_t last_freed, last_expected; /* the last kill accounted, for the words */
	/* the level once the last accounted kill's victims were gone, and
	 * when: what "grows since" is measured from */
	bool settled;
	uint64_t level_after, after_us;
};

enum storm_verdict {
	STORM_ALLOW,         /* under the limit (or no limit) */
	STORM_ALLOW_HEADING, /* over the limit, but heading for OOM and a kill frees memory */
	STORM_HOLD,          /* over the limit: hold back */
	STORM_HOLD_UNFREEABLE, /* memory no kill can free holds the domain at its
				* line by itself, and it is not heading for OOM */
};

/* Kills recorded within the window that ends at now (the window is
 * (now - window, now]). */
unsigned storm_recent(const struct storm_state *st, const struct cgoom_storm *p, uint64_t now);

/* The verdict for a kill now. frees: the kill would free memory (its
 * promise is > 0); pass true while that is not known yet (a check
 * before the decision holds only when not heading). */
enum storm_verdict storm_check(const struct storm_state *st, const struct cgoom_storm *p,
			       uint64_t now, bool heading, bool frees);

/* The same, for a domain where memory no kill can free (unmapped shmem
 * and tmpfs beyond the swap room) alone keeps the trigger's condition:
 * unless it heads for the kernel's OOM, no kill can take it out of
 * trouble, and none is let through, under the limit too (tests/vm
 * tmpfs-filler: 288 MiB of tmpfs in a 300M domain, a margin of 15 MiB,
 * cost two of four idle processes each minute, and a respawning service
 * three kills a minute for ever). Heading, the limit rules as ever;
 * kill_storm = no turns this off with the rest of the guard. */
enum storm_verdict storm_check_unfreeable(const struct storm_state *st, const struct cgoom_storm *p,
					  uint64_t now, bool heading, bool frees, bool unfreeable);

/* When a kill stops counting towards the limit again: the time the
 * oldest of the last `kills` kills leaves the window; now when under
 * the limit. */
uint64_t storm_free_at(const struct storm_state *st, const struct cgoom_storm *p, uint64_t now);

/* A kill went out at now (signalled), promising `expected` bytes with
 * the domain at `level_before` bytes in use: counted and accounted. */
void storm_record_kill(struct storm_state *st, uint64_t now, uint64_t level_before,
		       uint64_t expected);

/* The last kill's victims are gone at now, the domain at level_after
 * bytes in use: growth is measured from here on (storm_growth). */
void storm_record_after(struct storm_state *st, uint64_t now, uint64_t level_after);

/* A trigger held back at now. Returns whether to say so in the log, as
 * the number of triggers held back since the last line (this one
 * included), 0 for not now: the first one of an episode says so at
 * once, later ones at most once per every_us. */
uint64_t storm_hold(struct storm_state *st, uint64_t now, uint64_t every_us);
/* The guard let a kill through: an episode of holding ends. */
void storm_release(struct storm_state *st);

/* What the trigger said about where the domain is going. */
struct storm_signs {
	enum cgoom_trigger kind;
	uint64_t rate;         /* growth of the memory in use, bytes/s (decays to 0 without growth) */
	uint64_t headroom;     /* bytes from there to the kernel's OOM (a cgroup's memory.max) */
	uint64_t kernel_kills; /* the kernel OOM-killed in the domain since the last sample */
};
/* Whether the domain is still heading for the kernel's OOM: the kernel
 * is killing there already; or the trigger is one that only fires while
 * allocations fail or stall (reclaim failing at memory.max, throttled in
 * the guard band, swap filling under a stall, thrashing, and any kind
 * this file does not know);
 * or, for the level triggers (unreclaimable memory, MemAvailable), the
 * memory in use grows and would reach the kernel's OOM within horizon_us
 * (a cgroup's memory.max, not cgoom's line a margin before it: a domain
 * inside its margin is 0 B from that line, and any growth at all, noise
 * included, would read as heading). A level that does not move is not
 * heading anywhere: nothing is allocating, the kernel has nothing to
 * OOM-kill for. */
bool storm_heading(const struct storm_signs *s, uint64_t horizon_us);
/* The horizon storm_heading is asked about for a guard's window: the
 * window, but at most STORM_HORIZON_MAX_US. A level that would reach the
 * line only later is not heading there yet (the guard looks again at the
 * next trigger, and yields as the line comes within reach); and the
 * growth measured right after kills at the line (memory charged again as
 * the kernel refills its stocks) is no leak: 388 KiB/s of it made a
 * 60 s window see a tmpfs-filled domain as heading for its OOM. */
#define STORM_HORIZON_MAX_US (10 * 1000000ULL)
uint64_t storm_horizon(uint64_t window_us);

/* The growth storm_heading is asked about: with a kill accounted
 * (storm_record_after), the net growth of the level since its victims
 * were gone, over that time but at least STORM_GROWTH_SPAN_US; growth
 * of `noise` bytes or less (the memcg's per-CPU charge stocks refilling,
 * cgoom_alloc_slack_pages) is none. Without one, `measured` (the
 * trigger's own estimate). The trigger's estimate jumps to any burst and
 * forgets it over 2 s: a 256 KiB stock refill in one 20 ms sample right
 * after a kill reads as 12 MiB/s, and made a tmpfs-filled domain whose
 * level was falling "heading" (tests/vm tmpfs-filler, 4 kills of 2). */
#define STORM_GROWTH_SPAN_US (2 * 1000000ULL)
uint64_t storm_growth(const struct storm_state *st, uint64_t level, uint64_t now, uint64_t noise,
		      uint64_t measured);

static inline uint64_t storm_sat_add(uint64_t a, uint64_t b)
{
	return a + b < a ? UINT64_MAX : a + b;
}

/* A kill's promise at the signal from a decision made earlier (a
 * standby): what the kill set holds now (its VmRSS + VmSwap + VmPTE,
 * read at the crossing), but no more than the victim's footprint when
 * decided plus what the domain's memory in use grew since (the
 * standby's own growth argument: the entity grew by no more than the
 * domain did, unless something else shrank meanwhile). The promise of
 * the decision alone was the victim's size when the standby was made:
 * a respawned service killed at its line 2 s after it started promised
 * 1-9 MiB and freed 80 (tests/vm charge-respawn). */
uint64_t storm_promise_now(uint64_t sizes_now, uint64_t footprint_then, uint64_t level_then,
			   uint64_t level_now);

/* Bytes freed between two readings of memory in use (0 if it grew). */
uint64_t storm_freed(uint64_t before, uint64_t after);
/* Whether a kill freed far less than promised: under half of it, and
 * short by at least STORM_SHORT_MIN bytes (smaller gaps are the noise
 * of page cache and of other processes growing meanwhile). */
#define STORM_SHORT_MIN (16ull << 20)
bool storm_short(uint64_t expected, uint64_t freed);
