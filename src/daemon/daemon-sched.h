/* SPDX-License-Identifier: MIT */
/* The loop's sampling timer (loop-timer.c) and when each domain is sampled (sched.c) (part of daemon-internal.h, which includes it where it stood). */
#ifndef CGOOM_DAEMON_SCHED_H
#define CGOOM_DAEMON_SCHED_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct daemon;
struct domain;
struct trigger_event;

/* ---- loop-timer.c: the loop's sampling timer ---- */

struct epoll_event;

/* pwait2 or a timerfd (setup). */
void loop_timer_init(struct daemon *dm);
/* Arms the timer at the earliest thing due (a no-op when it stands). */
void loop_arm_sampling(struct daemon *dm);
/* Waits for events or the timer; *ret_margin_us: how early the timer
 * may have ended (it is due from timer_armed_us less that). */
int loop_wait(struct daemon *dm, struct epoll_event *evs, int max, uint64_t *ret_margin_us);
/* Reads a timerfd's expirations (EAGAIN: none). */
void loop_drain(int fd);

/* ---- sched.c: when each domain is sampled ---- */

#define HEAP_NONE ((size_t)-1)
/* At the latest, a quiet domain on the allocation budget is sampled
 * this long after its last sample (what the budget does not cover:
 * doc/scale.md "Sampling"). */
#define SCHED_BACKSTOP_US 60000000ULL
/* A quiet domain with no process in its subtree has nothing to kill and
 * can grow by a process joining (cgroup.events changes: inotify samples
 * it at once), by its own memory.events, or by the charges no budget
 * covers; it is sampled at the least this often, not on the budget. */
#define SCHED_EMPTY_US 600000000ULL
/* The allocation budget's tick never comes sooner than this after the
 * last (budgets expiring meanwhile wait at most that long). */
#define SCHED_TICK_FLOOR_US 10000ULL
/* A wake-up spends at most this long on budget checks of quiet domains
 * (the rest wait for the next tick, SCHED_TICK_FLOOR_US later), a
 * quarter of it while a domain nears its line or a decision is being
 * prepared: under a node-wide allocation burst every quiet domain comes
 * due at once, and the domains near their lines must not wait behind
 * them. */
#define SCHED_PROBE_SLICE_US 2000ULL
/* What is due by time (a domain's sample, the metrics, the walk) is
 * done at any wake-up up to an eighth of its interval early, and at
 * most this much early (the tick: from half its interval on, sched.c),
 * rather than at a wake-up of its own:
 * each wake-up costs the same whatever it does (about 0.7 ms of a TCG
 * guest's CPU), and sampling early is never less safe. A quiet domain's
 * sample (its backstop, the budget's time bound) then joins the tick's
 * wake-up, which comes at least this often while anything is budgeted
 * (doc/scale.md "Sampling"). */
#define SCHED_EARLY_MAX_US 100000ULL
/* What the tick asks of /proc/vmstat beyond the head the last whole
 * read showed: room for the counters before the pgalloc_ block to gain
 * digits (about 70 lines on 6.1) before a tick falls short and reads
 * the whole file once to learn the head again. */
#define SCHED_VMSTAT_SLACK 256
/* What a read of /proc/vmstat's head asks for, to hold `need` bytes of
 * whole lines (the tick's pgalloc_ block, the system's oom_kill line):
 * need and SCHED_VMSTAT_SLACK; 0 (read the whole file) without a need,
 * or with one longer than a page: one read hands out at most a page of
 * whole lines, so such a head would fall short every time. */
static inline size_t vmstat_head_ask(size_t need, uint64_t page_size)
{
	return need && need <= page_size ? need + SCHED_VMSTAT_SLACK : 0;
}
/* One read of /proc/vmstat's head (fd) into dm->buf: `ask` bytes, from
 * vmstat_head_ask(); -EAGAIN when ask is 0 (read the whole file). */
int vmstat_read_head(struct daemon *dm, int fd, size_t ask, size_t *ret_len);
/* After /proc/vmstat's pgalloc_ lines were read and then could not be
 * (a failed read, a file without them), the tick tries again this often
 * (from half of it on, at a wake-up for something else); meanwhile every
 * domain is at the detectors' pace. */
#define SCHED_RETRY_US 1000000ULL

struct heap_item {
	uint64_t key;
	struct domain *d;
};
/* An indexed min-heap of domains; each domain holds its position in
 * heap `which` in d->heap_pos[which] (HEAP_NONE: not in it). */
struct heap {
	struct heap_item *a;
	size_t n, cap;
	size_t which;
};
/* Inserts d with key, or moves it to key. 0 or -ENOMEM. */
int heap_set(struct heap *h, struct domain *d, uint64_t key);
void heap_remove(struct heap *h, struct domain *d);
bool heap_top(const struct heap *h, uint64_t *ret_key, struct domain **ret_d);
void heap_free(struct heap *h);

struct sched {
	struct heap time;  /* every domain, by the time of its next sample */
	struct heap alloc; /* budgeted domains, by the pgalloc count that makes them due */
	bool pgalloc_ok;
	bool pgalloc_lost;          /* read once, then not: the tick retries every SCHED_RETRY_US */
	size_t vmstat_ask;          /* bytes of /proc/vmstat the tick asks for (0: all) */
	uint64_t vmstat_short;      /* ticks whose head fell short: read whole */
	uint64_t pgalloc;           /* /proc/vmstat pgalloc_* at the last tick (pages) */
	uint64_t last_tick_us;
	struct cgoom_rate alloc_rate; /* system-wide allocation, bytes/s */
	uint64_t slack_pages;         /* cgoom_alloc_slack_pages(CPUs); UINT64_MAX: no budget */
	uint64_t page_size;
	struct domain **due; /* sched_due's buffer */
	size_t cap_due;
	struct heap_item *aside; /* sched_due's: seen in the early window, not taken */
	size_t cap_aside;
	uint64_t probes, samples, ticks; /* since the last metrics tick (debug) */
	uint64_t wakeups, timer_wakeups; /* the loop's, and of them the sampling timer's */
	uint64_t sys_samples;            /* of samples, the system's */
	uint64_t preps, prep_cpu_us;     /* preparations joined, their threads' CPU */
	uint64_t loop_cpu_us;            /* the loop thread's CPU at the last metrics tick */
	size_t n_alloc_due;              /* of sched_due's last list, due by the budget */
	bool behind;                     /* budget checks left for the next tick */
};

/* What sched_plan_of looks at, after one sample of a domain. */
struct sched_in {
	uint64_t t0, next_us;  /* when it was taken; the detectors' pace */
	bool approach, in_band; /* the detectors' */
	bool active;            /* a standby, a trigger, a kill, no finite limit, the system */
	bool empty;             /* no process in its subtree, and its cgroup.events
				 * fd kept and watched (a change wakes the loop) */
	bool budget_ok;         /* pgalloc is being read */
	uint64_t headroom, rate; /* the detectors' */
	uint64_t current, watch_line; /* memory.current; cgoom_watch_line() */
	uint64_t pgalloc, slack_pages, page_size;
	uint64_t backstop_us, empty_us;
};
struct sched_plan {
	uint64_t due_us;    /* sampled by this time */
	bool budgeted;      /* ... or as soon as pgalloc reaches alloc_due */
	uint64_t alloc_due;
};
/* Pure: when the domain is sampled next. Active, approaching, in its
 * band, or without a budget: at the detectors' pace (t0 + next_us).
 * Otherwise, empty: after empty_us (at its events before). Otherwise on
 * the budget: once cgoom_alloc_room_pages() more pages were
 * allocated, or at the time half its measured growth to the line needs,
 * or after the backstop, whichever is first, and never sooner than
 * next_us. */
void sched_plan_of(const struct sched_in *in, struct sched_plan *ret);
/* Pure: the delay to the next pgalloc reading for the smallest
 * remaining room (bytes) and the measured allocation rate (bytes/s): the
 * worst case (that room at CGOOM_FILL_RATE_RAM, 100 ms .. 1 s), or the
 * time the measured rate uses the room up if sooner, never under
 * SCHED_TICK_FLOOR_US; no budgeted domain: 1 s. */
uint64_t sched_tick_us(bool any, uint64_t min_room_bytes, uint64_t alloc_rate);
/* Pure: how early something due at due_us, set at t0, may be done at
 * another wake-up (an eighth of its interval, SCHED_EARLY_MAX_US at
 * most). */
/* The kernel's slack on a timeout is 0.1% of it (0.5% niced), 100 ms
 * at most (fs/select.c MAX_SLACK). */
#define SCHED_KERNEL_SLACK_MAX_US 100000ULL
/* The wait for a timer at armed_us, read from a clock at `now` that may
 * be behind the real one by up to lag_us (a coarse clock's; the loop
 * reads the exact one, 0): the
 * kernel may end a timeout this long late by 0.5% of it (from 10 ms on;
 * 100 ms at most), so the wait is shorter by that and by the lag, and
 * *ret_margin_us is
 * how early the wake-up may come: the timer is due from armed_us less
 * that, and never wakes after armed_us. */
uint64_t sched_wait_us(uint64_t armed_us, uint64_t now, uint64_t lag_us, uint64_t *ret_margin_us);
uint64_t sched_early_us(uint64_t t0, uint64_t due_us);

void sched_init(struct daemon *dm);
void sched_free(struct daemon *dm);
/* Reads pgalloc (/proc/vmstat), the tick. */
void sched_tick(struct daemon *dm, uint64_t now);
/* Whether the tick is done at a wake-up at now: once half its interval
 * is left or less (reading pgalloc early is never less safe, and costs
 * one small read where a wake-up of its own costs more: beside domains
 * far from their lines the tick, every 0.5-1 s, then joins the system's
 * samples instead of waking cgoom between them). */
bool sched_tick_due(const struct daemon *dm, uint64_t now);
/* When the next tick is due (UINT64_MAX: none needed). */
uint64_t sched_next_tick_us(const struct daemon *dm);
/* When the next domain is due by time (UINT64_MAX: none). */
uint64_t sched_next_due_us(const struct daemon *dm);
/* Schedules d after its sample ev. */
void sched_after(struct daemon *dm, const struct trigger_event *ev);
/* Schedules d by time only. */
void sched_time(struct daemon *dm, struct domain *d, uint64_t due_us);
/* Takes d out of the schedule (torn down). */
void sched_forget(struct daemon *dm, struct domain *d);
/* The domains due now (by time, up to their early window ahead, or by
 * the budget at the last tick), taken out of the schedule: *ret
 * (sched's buffer), how many. */
size_t sched_due(struct daemon *dm, uint64_t now, struct domain ***ret);
/* Puts a domain sched_due took for the budget back, untouched (its
 * turn comes at the next tick). */
void sched_requeue(struct daemon *dm, struct domain *d);
/* A domain due by the budget alone: memory.current re-read; if it did
 * not grow since its last sample (by more than the slack) and still has
 * room, it goes back on the budget from there (true: no sample
 * needed). */
bool sched_probe(struct daemon *dm, struct domain *d);

#endif
