/* SPDX-License-Identifier: MIT */
/*
 * When domains are sampled (src/daemon/sched.c): the indexed heap
 * against a sorted list, the plan after a sample (pace, budget,
 * backstop) and the tick's pace, all on plain numbers (a fake clock).
 */
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "daemon-internal.h"
#include "tap.h"

#define MiB (1ULL << 20)

static struct domain *dom(void)
{
	struct domain *d = calloc(1, sizeof(*d));
	d->heap_pos[0] = d->heap_pos[1] = HEAP_NONE;
	return d;
}

/* The heap gives the smallest key first after any mix of inserts,
 * moves and removals, and every position it records is right. */
static void test_heap_against_model(void)
{
	enum { N = 200 };
	struct domain *ds[N];
	uint64_t key[N];
	bool in[N];
	struct heap h = { .which = 0 };
	srand(21);
	for (int i = 0; i < N; i++) {
		ds[i] = dom();
		in[i] = false;
	}
	for (int step = 0; step < 20000; step++) {
		int i = rand() % N;
		int op = rand() % 3;
		if (op < 2) {
			key[i] = (uint64_t)(rand() % 1000);
			CHECK_EQ_INT(heap_set(&h, ds[i], key[i]), 0);
			in[i] = true;
		} else {
			heap_remove(&h, ds[i]);
			in[i] = false;
			CHECK(ds[i]->heap_pos[0] == HEAP_NONE);
		}
		size_t n = 0;
		uint64_t min = UINT64_MAX;
		for (int k = 0; k < N; k++)
			if (in[k]) {
				n++;
				if (key[k] < min)
					min = key[k];
				CHECK(ds[k]->heap_pos[0] < h.n && h.a[ds[k]->heap_pos[0]].d == ds[k]);
				CHECK_EQ_U64(h.a[ds[k]->heap_pos[0]].key, key[k]);
			}
		CHECK_EQ_INT(h.n, n);
		uint64_t top;
		struct domain *d;
		if (n) {
			CHECK(heap_top(&h, &top, &d));
			CHECK_EQ_U64(top, min);
		} else {
			CHECK(!heap_top(&h, &top, &d));
		}
	}
	/* draining gives the keys in order */
	uint64_t last = 0, top;
	struct domain *d;
	while (heap_top(&h, &top, &d)) {
		CHECK(top >= last);
		last = top;
		heap_remove(&h, d);
	}
	heap_free(&h);
	for (int i = 0; i < N; i++)
		free(ds[i]);
}

/* A quiet domain 300 MiB under a 400 MiB limit (margin 8 MiB), on a
 * 2-CPU machine: its watch line is 384 MiB. */
static struct sched_in quiet(void)
{
	return (struct sched_in){ .t0 = 1000000, .next_us = 100000, .budget_ok = true,
				  .headroom = 292 * MiB, .rate = 0, .current = 100 * MiB,
				  .watch_line = 384 * MiB, .pgalloc = 5000000, .slack_pages = 130,
				  .page_size = 4096, .backstop_us = SCHED_BACKSTOP_US,
				  .empty_us = SCHED_EMPTY_US };
}

static void test_plan_budget(void)
{
	struct sched_plan p;
	struct sched_in in = quiet();
	sched_plan_of(&in, &p);
	/* half of 284 MiB in pages, less the slack; the backstop by time */
	CHECK(p.budgeted);
	CHECK_EQ_U64(p.alloc_due, 5000000 + 284 * 256 / 2 - 130);
	CHECK_EQ_U64(p.due_us, 1000000 + SCHED_BACKSTOP_US);
	/* measured growth: half its time to the line, if sooner */
	in.rate = 10 * MiB; /* 292 MiB at 10 MiB/s: 29.2 s, half 14.6 s */
	sched_plan_of(&in, &p);
	CHECK(p.budgeted);
	CHECK_EQ_U64(p.due_us, 1000000 + 14600000);
	/* ... but never sooner than the detectors' pace */
	in.rate = 10000 * MiB;
	sched_plan_of(&in, &p);
	CHECK_EQ_U64(p.due_us, 1000000 + 100000);
}

static void test_plan_paced(void)
{
	struct sched_plan p;
	struct sched_in base = quiet(), in;
	/* whatever keeps a domain busy puts it back on the detectors' pace */
	bool *flags[] = { &in.approach, &in.in_band, &in.active };
	for (size_t i = 0; i < 3; i++) {
		in = base;
		*flags[i] = true;
		sched_plan_of(&in, &p);
		CHECK(!p.budgeted);
		CHECK_EQ_U64(p.due_us, 1100000);
	}
	/* no pgalloc, or no CPU count */
	in = base;
	in.budget_ok = false;
	sched_plan_of(&in, &p);
	CHECK(!p.budgeted && p.due_us == 1100000);
	in = base;
	in.slack_pages = UINT64_MAX;
	sched_plan_of(&in, &p);
	CHECK(!p.budgeted);
	/* too close to the line for a budget past the slack */
	in = base;
	in.current = 384 * MiB - 1 * MiB;
	sched_plan_of(&in, &p);
	CHECK(!p.budgeted);
	/* pgalloc near its end: saturates */
	in = base;
	in.pgalloc = UINT64_MAX - 5;
	sched_plan_of(&in, &p);
	CHECK(p.budgeted && p.alloc_due == UINT64_MAX);
}

/* A quiet domain with no process in its subtree is on neither the budget
 * nor the backstop (issue 21: on a node most quiet cgroups with a limit
 * may be empty, and each budget probe or backstop sample costs): its
 * events wake it. So is one near its line or in its band (memory.max 0,
 * tmpfs left behind: it was sampled at its band's pace, empty, for
 * ever); one busy (a trigger, a standby, a kill) keeps the detectors'
 * pace, empty or not. */
static void test_plan_empty(void)
{
	struct sched_plan p;
	struct sched_in base = quiet(), in = base;
	in.empty = true;
	sched_plan_of(&in, &p);
	CHECK(!p.budgeted);
	CHECK_EQ_U64(p.due_us, 1000000 + SCHED_EMPTY_US);
	CHECK(SCHED_EMPTY_US > SCHED_BACKSTOP_US);
	/* without pgalloc too */
	in.budget_ok = false;
	sched_plan_of(&in, &p);
	CHECK(!p.budgeted && p.due_us == 1000000 + SCHED_EMPTY_US);
	bool *flags[] = { &in.approach, &in.in_band, &in.active };
	for (size_t i = 0; i < 3; i++) {
		in = base;
		in.empty = true;
		*flags[i] = true;
		sched_plan_of(&in, &p);
		CHECK(!p.budgeted);
		CHECK_EQ_U64(p.due_us, i < 2 ? 1000000 + SCHED_EMPTY_US : 1100000);
	}
	/* never sooner than the detectors ask: that pace wins if longer */
	in = base;
	in.empty = true;
	in.next_us = SCHED_EMPTY_US + 5;
	sched_plan_of(&in, &p);
	CHECK_EQ_U64(p.due_us, 1000000 + SCHED_EMPTY_US + 5);
}

static void test_tick_pace(void)
{
	/* no budgeted domain: once a second */
	CHECK_EQ_U64(sched_tick_us(false, 0, 0), CGOOM_POLL_MAX_US);
	/* a 60 MiB room at 6000 MiB/s is 10 ms: earlyoom's floor, 100 ms */
	CHECK_EQ_U64(sched_tick_us(true, 60 * MiB, 0), 100000);
	/* 3000 MiB of room: 500 ms */
	CHECK_EQ_U64(sched_tick_us(true, 3000 * MiB, 0), 500000);
	/* measured allocation at 1000 MiB/s with 60 MiB left: 60 ms (when
	 * the room is used up, not half of it) */
	CHECK_EQ_U64(sched_tick_us(true, 60 * MiB, 1000 * MiB), 60000);
	/* nothing left, or little at a high rate: the floor, 10 ms */
	CHECK_EQ_U64(sched_tick_us(true, 0, 1000 * MiB), SCHED_TICK_FLOOR_US);
	CHECK_EQ_U64(sched_tick_us(true, 1 * MiB, 1000 * MiB), SCHED_TICK_FLOOR_US);
	/* a slow rate changes nothing: the worst case rules */
	CHECK_EQ_U64(sched_tick_us(true, 60 * MiB, 1 * MiB), 100000);
}

/* Something due may be done an eighth of its interval early, 100 ms at
 * most, at another wake-up. */
static void test_early_window(void)
{
	CHECK_EQ_U64(sched_early_us(0, 60000000), SCHED_EARLY_MAX_US); /* a backstop */
	CHECK_EQ_U64(sched_early_us(1000, 1000 + 400000), 50000);      /* 400 ms: 50 ms */
	CHECK_EQ_U64(sched_early_us(0, 1000), 125);                    /* paced at 1 ms */
	CHECK_EQ_U64(sched_early_us(5000, 3000), 0);                   /* already late */
}

/* The loop's wait before its timer (run.c wait_events), from a clock
 * behind the real one by up to `lag` (the coarse clock): whatever the
 * lag within that and however late the kernel ends the timeout within
 * its 0.5% (from 10 ms), the wake-up is never after the timer and
 * never so early that the timer is not taken as due (within the margin). */
static void test_wait_never_late_never_missed(void)
{
	const uint64_t lags[] = { 0, 8000, 20000 };
	const uint64_t waits[] = { 0, 5000, 10000, 80000, 200000, 1000000, 60000000 };
	for (size_t i = 0; i < sizeof(lags) / sizeof(lags[0]); i++)
		for (size_t j = 0; j < sizeof(waits) / sizeof(waits[0]); j++)
			for (uint64_t l = 0; l <= lags[i]; l += lags[i] / 4 + 1) {
				uint64_t real = 7000000, armed = real + waits[j], margin;
				uint64_t w = sched_wait_us(armed, real - l, lags[i], &margin);
				/* the kernel: on time, or late by 0.5% of the wait
				 * from 10 ms on, 100 ms at most */
				uint64_t late = w >= 10000 ? w / 200 : 0;
				if (late > SCHED_KERNEL_SLACK_MAX_US)
					late = SCHED_KERNEL_SLACK_MAX_US;
				CHECK(real + w + late <= armed);
				CHECK(real + w + margin >= armed);
			}
	/* exact clock: 1 s is 5 ms (0.5%) short; coarse, 16 ms more */
	uint64_t m;
	CHECK_EQ_U64(sched_wait_us(1000000, 0, 0, &m), 995000);
	CHECK_EQ_U64(m, 5000);
	CHECK_EQ_U64(sched_wait_us(1000000, 0, 16000, &m), 979000);
	CHECK_EQ_U64(m, 21000);
	/* a minute: the kernel's slack is 100 ms at most, so is the margin */
	CHECK_EQ_U64(sched_wait_us(60000000, 0, 0, &m), 59900000);
	CHECK_EQ_U64(m, SCHED_KERNEL_SLACK_MAX_US);
	/* due or past: no wait */
	CHECK_EQ_U64(sched_wait_us(1000, 2000, 8000, &m), 0);
}

static void put(struct daemon *dm, struct domain *d, uint64_t t0, uint64_t due)
{
	d->next_due_us = due;
	d->early_us = sched_early_us(t0, due);
	CHECK(heap_set(&dm->sched.time, d, due) == 0);
}

/* A wake-up takes, besides what is due, what is due within its early
 * window (a quiet domain's backstop joins the tick's wake-up), and
 * leaves in place, at its own time, what is paced more tightly; one
 * such left in place does not keep the ones behind it from being taken. */
static void test_due_takes_early(void)
{
	struct daemon *dm = calloc(1, sizeof(*dm));
	dm->sched.time.which = 0;
	dm->sched.alloc.which = 1;
	struct domain *a = dom(), *b = dom(), *c = dom(), *e = dom(), *f = dom();
	struct domain *all[] = { a, b, c, e, f };
	dm->n_domains = 5;
	uint64_t now = 100000000;
	put(dm, a, now - 1000000, now - 1);             /* due: taken */
	put(dm, b, now - 60000000, now + 50000);        /* backstop, 50 ms ahead: taken */
	put(dm, c, now + 50000 - 80000, now + 50000);   /* paced at 80 ms, 50 ms ahead: left */
	put(dm, e, now - 30000000, now + 80000);        /* behind c, 80 ms ahead: taken */
	put(dm, f, now - 60000000, now + 160000);       /* 160 ms ahead: left */
	struct domain **due;
	size_t n = sched_due(dm, now, &due);
	CHECK_EQ_U64(n, 3);
	bool got[5] = { false };
	for (size_t i = 0; i < n; i++)
		for (int k = 0; k < 5; k++)
			got[k] = got[k] || due[i] == all[k];
	CHECK(got[0] && got[1] && !got[2] && got[3] && !got[4]);
	/* the ones left keep their times, and the heap knows where they are */
	CHECK_EQ_U64(dm->sched.time.n, 2);
	uint64_t key;
	struct domain *top;
	CHECK(heap_top(&dm->sched.time, &key, &top) && top == c && key == now + 50000);
	CHECK(f->heap_pos[0] < 2 && dm->sched.time.a[f->heap_pos[0]].d == f);
	CHECK_EQ_U64(dm->sched.time.a[f->heap_pos[0]].key, now + 160000);
	CHECK(a->heap_pos[0] == HEAP_NONE && b->heap_pos[0] == HEAP_NONE);
	/* c at its own time */
	n = sched_due(dm, now + 50000, &due);
	CHECK(n == 1 && due[0] == c);
	sched_free(dm);
	for (int k = 0; k < 5; k++)
		free(all[k]);
	free(dm);
}

/* The budget's early window: a domain whose budget the measured
 * allocation rate uses up within 100 ms is probed at this tick, not at
 * a tick of its own; one further off waits. */
static void test_due_budget_early(void)
{
	struct daemon *dm = calloc(1, sizeof(*dm));
	dm->sched.time.which = 0;
	dm->sched.alloc.which = 1;
	dm->sched.page_size = 4096;
	dm->sched.pgalloc_ok = true;
	dm->sched.pgalloc = 1000;
	dm->sched.alloc_rate.bytes_per_s = 1000 * 4096; /* 100 pages in 100 ms */
	struct domain *a = dom(), *b = dom(), *c = dom();
	dm->n_domains = 3;
	uint64_t now = 100000000;
	struct domain *all[] = { a, b, c };
	uint64_t due[] = { 1000, 1090, 1200 }; /* due, within 100 pages, beyond */
	for (int k = 0; k < 3; k++) {
		all[k]->budgeted = true;
		all[k]->alloc_due = due[k];
		all[k]->next_due_us = now + 60000000;
		CHECK(heap_set(&dm->sched.time, all[k], all[k]->next_due_us) == 0);
		CHECK(heap_set(&dm->sched.alloc, all[k], due[k]) == 0);
	}
	struct domain **out;
	size_t n = sched_due(dm, now, &out);
	CHECK_EQ_U64(n, 2);
	CHECK_EQ_U64(dm->sched.n_alloc_due, 2);
	CHECK(n == 2 && ((out[0] == a && out[1] == b) || (out[0] == b && out[1] == a)));
	CHECK(a->due_by_alloc && b->due_by_alloc && !c->due_by_alloc);
	CHECK(dm->sched.alloc.n == 1 && dm->sched.alloc.a[0].d == c);
	/* no rate measured: only what is due */
	dm->sched.alloc_rate.bytes_per_s = 0;
	dm->sched.pgalloc = 1199;
	CHECK_EQ_U64(sched_due(dm, now, &out), 0);
	dm->sched.pgalloc = 1200;
	CHECK(sched_due(dm, now, &out) == 1 && out[0] == c);
	sched_free(dm);
	for (int k = 0; k < 3; k++)
		free(all[k]);
	free(dm);
}

static void put_file(int fd, const char *text)
{
	CHECK(ftruncate(fd, 0) == 0);
	CHECK(pwrite(fd, text, strlen(text), 0) == (ssize_t)strlen(text));
}

/* /proc/vmstat's pgalloc_ lines read, then not: the budgeted domains
 * (whose time is their backstop, a minute away) are sampled at once
 * and paced by the detectors, the tick tries again every second, and
 * once it reads the budget is back. Before, they waited for their
 * backstop and the tick never came again. */
static void test_tick_lost_and_back(void)
{
	struct daemon *dm = calloc(1, sizeof(*dm));
	struct domain *sys = dom(), *a = dom(), *b = dom();
	sys->system = true;
	struct domain *all[] = { sys, a, b };
	dm->domains = all;
	dm->n_domains = 3;
	int fd = memfd_create("vmstat", MFD_CLOEXEC);
	CHECK(fd >= 0);
	sys->sys.vmstat_fd = fd;
	put_file(fd, "nr_free_pages 100\npgalloc_dma 1\npgalloc_normal 999\npgfree 5\n");
	dm->sched.time.which = 0;
	dm->sched.alloc.which = 1;
	dm->sched.page_size = 4096;
	uint64_t now = 100000000;
	sched_tick(dm, now);
	CHECK(dm->sched.pgalloc_ok);
	CHECK_EQ_U64(dm->sched.pgalloc, 1000);
	uint64_t backstop = now + SCHED_BACKSTOP_US;
	for (int k = 1; k < 3; k++) {
		all[k]->budgeted = true;
		all[k]->next_due_us = backstop;
		all[k]->alloc_due = 5000;
		CHECK(heap_set(&dm->sched.time, all[k], backstop) == 0);
		CHECK(heap_set(&dm->sched.alloc, all[k], 5000) == 0);
	}
	CHECK(sched_next_tick_us(dm) != UINT64_MAX);
	/* the lines are gone */
	put_file(fd, "nr_free_pages 100\npgfree 5\n");
	now += 100000;
	sched_tick(dm, now);
	CHECK(!dm->sched.pgalloc_ok);
	CHECK(!a->budgeted && !b->budgeted);
	CHECK_EQ_U64(dm->sched.alloc.n, 0);
	struct domain **due;
	CHECK_EQ_U64(sched_due(dm, now, &due), 2);
	CHECK_EQ_U64(sched_next_tick_us(dm), now + SCHED_RETRY_US);
	CHECK(!sched_tick_due(dm, now + SCHED_RETRY_US / 4));
	CHECK(sched_tick_due(dm, now + SCHED_RETRY_US));
	/* still gone: still every second */
	now += SCHED_RETRY_US;
	sched_tick(dm, now);
	CHECK(!dm->sched.pgalloc_ok);
	CHECK_EQ_U64(sched_next_tick_us(dm), now + SCHED_RETRY_US);
	/* back: the budget again, for the domains' next samples */
	put_file(fd, "nr_free_pages 100\npgalloc_dma 1\npgalloc_normal 1999\npgfree 5\n");
	now += SCHED_RETRY_US;
	sched_tick(dm, now);
	CHECK(dm->sched.pgalloc_ok && !dm->sched.pgalloc_lost);
	CHECK_EQ_U64(dm->sched.pgalloc, 2000);
	/* with no budgeted domain the tick waits for one */
	CHECK_EQ_U64(sched_next_tick_us(dm), UINT64_MAX);
	/* a quiet sample of a puts it back on the budget, and the tick on */
	dm->sched.slack_pages = 130;
	struct trigger_event ev = { .d = a, .t0 = now, .next_us = 100000 };
	ev.s.cg.current = 10 * MiB;
	ev.s.cg.max = 200 * MiB;
	sched_after(dm, &ev);
	CHECK(a->budgeted);
	CHECK_EQ_U64(dm->sched.alloc.n, 1);
	CHECK(sched_next_tick_us(dm) != UINT64_MAX);
	sched_free(dm);
	close(fd);
	free(sys);
	free(a);
	free(b);
	free(dm);
}

/* The tick is done at any wake-up from half its interval on: beside a
 * domain 3000 MiB from its line (the tick every 500 ms) a wake-up 250
 * ms after the last tick reads pgalloc, one 240 ms after does not; it
 * was done only within an eighth of the interval (62.5 ms) before. */
static void test_tick_joins_wakeups(void)
{
	struct daemon *dm = calloc(1, sizeof(*dm));
	dm->sched.time.which = 0;
	dm->sched.alloc.which = 1;
	dm->sched.page_size = 4096;
	dm->sched.pgalloc_ok = true;
	dm->sched.pgalloc = 1000;
	uint64_t t = 100000000;
	dm->sched.last_tick_us = t;
	struct domain *a = dom();
	a->budgeted = true;
	CHECK(heap_set(&dm->sched.alloc, a, 1000 + 3000 * MiB / 4096) == 0);
	CHECK_EQ_U64(sched_next_tick_us(dm), t + 500000);
	CHECK(!sched_tick_due(dm, t + 240000));
	CHECK(sched_tick_due(dm, t + 250000));
	CHECK(sched_tick_due(dm, t + 500000));
	CHECK(sched_tick_due(dm, t + 900000));
	/* nothing budgeted: no tick */
	heap_remove(&dm->sched.alloc, a);
	CHECK(!sched_tick_due(dm, t + 900000));
	sched_free(dm);
	free(a);
	free(dm);
}

/* A head of /proc/vmstat is asked for only where one read can hold it:
 * the kernel hands out at most a page of whole lines a read. */
static void test_head_ask(void)
{
	CHECK_EQ_U64(vmstat_head_ask(1429, 4096), 1429 + SCHED_VMSTAT_SLACK);
	CHECK_EQ_U64(vmstat_head_ask(4096, 4096), 4096 + SCHED_VMSTAT_SLACK);
	CHECK_EQ_U64(vmstat_head_ask(4097, 4096), 0);
	CHECK_EQ_U64(vmstat_head_ask(0, 4096), 0);
	CHECK_EQ_U64(vmstat_head_ask(6000, 65536), 6000 + SCHED_VMSTAT_SLACK);
}

int main(void)
{
	return tap_run((struct tap_test[]){ TAP(test_heap_against_model), TAP(test_plan_budget),
					    TAP(test_plan_paced), TAP(test_plan_empty), TAP(test_tick_pace),
					    TAP(test_early_window), TAP(test_wait_never_late_never_missed),
					    TAP(test_due_takes_early),
					    TAP(test_due_budget_early), TAP(test_tick_lost_and_back),
					    TAP(test_tick_joins_wakeups), TAP(test_head_ask), { 0 } });
}
