/* SPDX-License-Identifier: MIT */
/*
 * The pressure a domain is under (src/daemon/pressure.c): when the system
 * and a cgroup are watched, what a watched sample reads and keeps, the
 * PSI reads and wake-ups of a quiet or watched system, a kill spending
 * the history, and the pressure gauges. The trigger table's kinds are
 * test-daemon-triggers.c's.
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

/* One sample of a system whose swap fills at 30 MiB/s under a 50% full
 * stall while MemAvailable is 2% of MemTotal, every 100 ms. */
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
	struct trigger_sample s = { .at_us = 1000000, .cg = { .current = 495 * MiB, .max = 500 * MiB, .high = UINT64_MAX, .reclaim_valid = true } };
	pressure_cgroup(dm, &d, &s);
	CHECK(s.watched);
	CHECK(s.psi.valid);
	CHECK_EQ_U64(s.psi.total_us, 7000000);
	CHECK_EQ_U64(s.psi.at_us, 1000000);
	/* far from its limit: not watched, no PSI read */
	struct trigger_sample far = { .at_us = 2000000, .cg = { .current = 100 * MiB, .max = 500 * MiB, .high = UINT64_MAX, .reclaim_valid = true } };
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

/* Sample i (every 250 ms) of the cgroup domain /work (memory.max 500
 * MiB, margin 10 MiB) under a 50% full stall with 40 MiB/s of refaults
 * all along, memory.current 495 MiB (in its band: at its limit) or 300
 * MiB (out of it), as detect_cgroup takes it: whether it is watched. */
static bool cgroup_at(struct daemon *dm, struct domain *d, uint64_t i, bool in_band,
		      struct trigger_sample *s)
{
	char psi[256];
	int n = snprintf(psi, sizeof(psi),
			 "some avg10=0.00 avg60=0.00 avg300=0.00 total=%llu\n"
			 "full avg10=0.00 avg60=0.00 avg300=0.00 total=%llu\n",
			 (unsigned long long)(i * 150000), (unsigned long long)(i * 125000));
	if (ftruncate(d->psi_fd, 0) < 0 || pwrite(d->psi_fd, psi, (size_t)n, 0) != n)
		return false;
	*s = (struct trigger_sample){ .at_us = 1000000 + i * 250000,
				      .cg = { .current = (in_band ? 495 : 300) * MiB, .max = 500 * MiB,
					      .high = UINT64_MAX, .reclaim_valid = true } };
	s->cg.reclaim.present = CGOOM_RECLAIM_REFAULT_ANON;
	s->cg.reclaim.refault_anon = i * 2560; /* 10 MiB per 250 ms */
	pressure_cgroup(dm, d, s);
	return s->watched;
}

/* The daemon of cgroup_at's domain /work (doms[0] = d), its
 * memory.pressure a memfd; NULL when either cannot be made. */
static struct daemon *cgroup_daemon(struct domain *d, struct domain **doms)
{
	*d = (struct domain){ .path = (char *)"/work", .params = { .margin = 10 * MiB } };
	doms[0] = d;
	d->psi_fd = memfd_create("memory.pressure", MFD_CLOEXEC);
	return d->psi_fd >= 0 ? daemon_of(doms) : NULL;
}

static void cgroup_daemon_free(struct daemon *dm, struct domain *d)
{
	close(d->psi_fd);
	pressure_free(d);
	free(dm);
}

/* A cgroup thrashing at its limit, sampled in its band all along, fires
 * after thrash_for; 2 s out of its band (the stall still there, but not
 * its limit's: global reclaim) and back, the run starts over from its
 * return and fires again only thrash_for after it. Fed nothing out of
 * its band, the one window across the gap was judged by its end alone
 * and counted whole (thrashing_us 5.75 s just after the return). */
static void test_cgroup_gap_breaks_run(void)
{
	struct domain d, *doms[1];
	struct daemon *dm = cgroup_daemon(&d, doms);
	CHECK(dm != NULL);
	struct trigger_sample s;
	uint64_t i = 0;
	for (; i < 13; i++)
		CHECK(cgroup_at(dm, &d, i, true, &s));
	CHECK(s.thrash.thrashing_us >= 2500000);
	CHECK(s.thrash.thrashing);
	for (uint64_t end = i + 8; i < end; i++)
		CHECK(!cgroup_at(dm, &d, i, false, &s));
	uint64_t back = i;
	for (uint64_t end = i + 3; i < end; i++)
		CHECK(cgroup_at(dm, &d, i, true, &s));
	CHECK(s.thrash.thrashing_us <= 1000000); /* since the gap, not across it */
	CHECK(!s.thrash.thrashing);
	while (!s.thrash.thrashing && i < back + 40)
		cgroup_at(dm, &d, i++, true, &s);
	CHECK(s.watched && s.thrash.thrashing);
	CHECK((i - 1 - back) * 250000 >= cfg.thrash_for_us);
	cgroup_daemon_free(dm, &d);
}

/* Two samples in its band 4.75 s apart, out of it between: no window
 * of that time is the limit's stall (once one window of 4.75 s, judged
 * by its end, and the thrashing verdict from two samples). */
static void test_cgroup_sparse_in_band_no_run(void)
{
	struct domain d, *doms[1];
	struct daemon *dm = cgroup_daemon(&d, doms);
	CHECK(dm != NULL);
	struct trigger_sample s;
	CHECK(cgroup_at(dm, &d, 0, true, &s));
	for (uint64_t i = 1; i < 19; i++)
		CHECK(!cgroup_at(dm, &d, i, false, &s));
	CHECK(cgroup_at(dm, &d, 19, true, &s));
	CHECK_EQ_U64(s.thrash.thrashing_us, 0);
	CHECK(!s.thrash.thrashing);
	cgroup_daemon_free(dm, &d);
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
	/* zswap not in use: none of its gauges */
	CHECK(b.buf && !strstr(b.buf, "cgoom_zswap_"));
	/* a domain not watched has no gauges */
	CHECK(b.buf && !strstr(b.buf, "/work"));
	cgoom_strbuf_free(&b);
	/* swap not filling: no "full in" */
	pr.facts.trend_us = 0;
	pressure_metrics(dm, &b);
	CHECK(b.buf && !strstr(b.buf, "cgoom_swap_full_in_seconds"));
	cgoom_strbuf_free(&b);
	/* zswap in front of a swap file: what it stores and its pool's RAM */
	pr.facts.zram_orig = pr.facts.zram_used = 0;
	pr.facts.zswap_stored = 580 * MiB;
	pr.facts.zswap_ram = 290 * MiB;
	pressure_metrics(dm, &b);
	CHECK(b.buf && strstr(b.buf, "cgoom_zswap_stored_bytes{domain=\"/\"} 608174080\n"));
	CHECK(b.buf && strstr(b.buf, "cgoom_zswap_ram_bytes{domain=\"/\"} 304087040\n"));
	CHECK(b.buf && !strstr(b.buf, "cgoom_zram_"));
	cgoom_strbuf_free(&b);
	free(dm);
}

int main(void)
{
	cgoom_config_init(&cfg);
	int r = tap_run((struct tap_test[]){
		TAP(test_history_spent_by_kill),
		TAP(test_watched_only_near_short),
		TAP(test_cgroup_watched_sample_has_psi),
		TAP(test_psi_wake_deferred_while_watched),
		TAP(test_idle_psi_read_only_without_some_trigger),
		TAP(test_woken_after_quiet_minute_watched),
		TAP(test_unwatched_gap_breaks_run),
		TAP(test_cgroup_gap_breaks_run),
		TAP(test_cgroup_sparse_in_band_no_run),
		TAP(test_pressure_metrics),
		{ 0 },
	});
	cgoom_config_free(&cfg);
	return r;
}
