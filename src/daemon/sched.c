/* SPDX-License-Identifier: MIT */
/*
 * When each domain is sampled (doc/scale.md "Sampling"). The detectors
 * say how soon a domain must be looked at again (detect.c: the pace of
 * its measured growth, or earlyoom's worst case); this file decides when
 * it is, so that a quiet domain far from its line costs next to nothing:
 *
 *  - a domain near its line (it keeps a standby), inside its margin, or
 *    with a decision or kill under way is sampled at the detectors' pace,
 *    as before;
 *  - a quiet one is on the allocation budget (include/cgoom/budget.h):
 *    it is sampled once the pages allocated system-wide since its last
 *    sample could have closed half its distance to its watch line
 *    (/proc/vmstat pgalloc_*, read at the "tick"), when its measured
 *    growth says so, at the latest after SCHED_BACKSTOP_US, and at once
 *    on any event of its own (memory.events, a write to memory.max);
 *  - a quiet one with no process in its subtree (cgroup.events) is on
 *    neither: nothing can be killed there, and a process joining wakes
 *    it (its cgroup.events fd, kept); SCHED_EMPTY_US at the latest;
 *  - the tick reads /proc/vmstat at the pace the smallest remaining room
 *    asks for: that room at earlyoom's worst-case 6000 MiB/s (100 ms ..
 *    1 s) or at half the measured system-wide allocation rate.
 *
 * Two indexed min-heaps hold the domains: by the time of their next
 * sample (every domain) and by the pgalloc count that makes them due
 * (budgeted ones), so a tick costs O(log n) per domain due, not O(n).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cgoom/budget.h"
#include "daemon-internal.h"
#include "log.h"

/* ---- the heap ---- */

static size_t *pos_of(const struct heap *h, struct domain *d)
{
	return &d->heap_pos[h->which];
}

static void place(struct heap *h, size_t i, struct heap_item it)
{
	h->a[i] = it;
	*pos_of(h, it.d) = i;
}

static void sift_up(struct heap *h, size_t i)
{
	struct heap_item it = h->a[i];
	while (i > 0) {
		size_t p = (i - 1) / 2;
		if (h->a[p].key <= it.key)
			break;
		place(h, i, h->a[p]);
		i = p;
	}
	place(h, i, it);
}

static void sift_down(struct heap *h, size_t i)
{
	struct heap_item it = h->a[i];
	for (;;) {
		size_t c = 2 * i + 1;
		if (c >= h->n)
			break;
		if (c + 1 < h->n && h->a[c + 1].key < h->a[c].key)
			c++;
		if (it.key <= h->a[c].key)
			break;
		place(h, i, h->a[c]);
		i = c;
	}
	place(h, i, it);
}

int heap_set(struct heap *h, struct domain *d, uint64_t key)
{
	size_t i = *pos_of(h, d);
	if (i != HEAP_NONE) {
		uint64_t old = h->a[i].key;
		h->a[i].key = key;
		if (key < old)
			sift_up(h, i);
		else
			sift_down(h, i);
		return 0;
	}
	int r = cgfs_grow(&h->a, &h->cap, h->n + 1, sizeof(*h->a));
	if (r < 0)
		return r;
	h->a[h->n] = (struct heap_item){ .key = key, .d = d };
	sift_up(h, h->n++);
	return 0;
}

void heap_remove(struct heap *h, struct domain *d)
{
	size_t i = *pos_of(h, d);
	if (i == HEAP_NONE || i >= h->n)
		return;
	*pos_of(h, d) = HEAP_NONE;
	struct heap_item last = h->a[--h->n];
	if (i == h->n)
		return;
	place(h, i, last);
	if (i > 0 && h->a[(i - 1) / 2].key > last.key)
		sift_up(h, i);
	else
		sift_down(h, i);
}

bool heap_top(const struct heap *h, uint64_t *ret_key, struct domain **ret_d)
{
	if (h->n == 0)
		return false;
	*ret_key = h->a[0].key;
	*ret_d = h->a[0].d;
	return true;
}

void heap_free(struct heap *h)
{
	free(h->a);
	h->a = NULL;
	h->n = h->cap = 0;
}

/* ---- the plan for one domain (pure) ---- */

static uint64_t min_u64(uint64_t a, uint64_t b)
{
	return a < b ? a : b;
}

void sched_plan_of(const struct sched_in *in, struct sched_plan *ret)
{
	*ret = (struct sched_plan){ .due_us = in->t0 + in->next_us };
	if (in->active)
		return;
	if (in->empty) {
		/* nobody to kill, and nobody to charge it but what the
		 * events report: off the budget, off the backstop, and off
		 * its line's pace even when at its line (memory.max 0, tmpfs
		 * files left behind: nothing a kill could free) */
		ret->due_us = in->t0 + (in->empty_us > in->next_us ? in->empty_us : in->next_us);
		return;
	}
	if (in->approach || in->in_band)
		return;
	if (!in->budget_ok)
		return;
	uint64_t room = cgoom_alloc_room_pages(in->current, in->watch_line, in->slack_pages,
					       in->page_size);
	if (room == 0)
		return;
	/* the measured growth still counts: half the time it needs to the
	 * line (what detect's pace holds when it is the shorter one) */
	uint64_t by_rate = UINT64_MAX;
	if (in->rate > 0) {
		uint64_t whole = in->headroom / in->rate, part = in->headroom % in->rate;
		by_rate = whole > UINT64_MAX / 1000000 ? UINT64_MAX
						       : whole * 1000000 + part * 1000000 / in->rate;
		by_rate /= 2;
	}
	uint64_t wait = min_u64(in->backstop_us, by_rate);
	if (wait < in->next_us)
		wait = in->next_us; /* never sooner than the detectors ask */
	ret->budgeted = true;
	ret->alloc_due = in->pgalloc > UINT64_MAX - room ? UINT64_MAX : in->pgalloc + room;
	ret->due_us = in->t0 + wait;
}

uint64_t sched_tick_us(bool any, uint64_t min_room_bytes, uint64_t alloc_rate)
{
	if (!any)
		return CGOOM_POLL_MAX_US;
	/* the worst case: earlyoom's 100 ms .. 1 s */
	uint64_t t = cgoom_next_sample_us(min_room_bytes, 0, CGOOM_FILL_RATE_RAM);
	if (alloc_rate > 0) {
		/* when the measured rate uses the room up (not half of it: a
		 * room is only half the distance to the line already, and
		 * halving again would tick ever faster towards the due count) */
		uint64_t whole = min_room_bytes / alloc_rate, part = min_room_bytes % alloc_rate;
		uint64_t by_rate = whole > UINT64_MAX / 1000000 ? UINT64_MAX
								: whole * 1000000 + part * 1000000 / alloc_rate;
		if (by_rate < t)
			t = by_rate;
	}
	return t < SCHED_TICK_FLOOR_US ? SCHED_TICK_FLOOR_US : t;
}

uint64_t sched_wait_us(uint64_t armed_us, uint64_t now, uint64_t lag_us, uint64_t *ret_margin_us)
{
	uint64_t d = armed_us > now ? armed_us - now : 0;
	uint64_t slack = d >= 10000 ? d / 200 : 0;
	if (slack > SCHED_KERNEL_SLACK_MAX_US)
		slack = SCHED_KERNEL_SLACK_MAX_US;
	uint64_t margin = slack + lag_us;
	*ret_margin_us = margin;
	return d > margin ? d - margin : 0;
}

uint64_t sched_early_us(uint64_t t0, uint64_t due_us)
{
	uint64_t e = due_us > t0 ? (due_us - t0) / 8 : 0;
	return e < SCHED_EARLY_MAX_US ? e : SCHED_EARLY_MAX_US;
}

/* ---- the daemon's use of it ---- */

/* How much of /proc/vmstat the tick asks for, from a whole read: the
 * head parse's need (known only where the pgalloc_ lines are one block
 * with a whole line after it) and SCHED_VMSTAT_SLACK; 0: no head, the
 * tick reads the whole file. */
static void vmstat_learn_head(struct sched *s, const char *buf, size_t len)
{
	s->vmstat_ask = vmstat_head_ask(cgoom_vmstat_pgalloc_head_len(buf, len), s->page_size);
}

int vmstat_read_head(struct daemon *dm, int fd, size_t ask, size_t *ret_len)
{
	if (!ask)
		return -EAGAIN;
	/* cgfs_read_head's cap holds the NUL too */
	size_t cap = ask < sizeof(dm->buf) ? ask + 1 : sizeof(dm->buf);
	return cgfs_read_head(fd, dm->buf, cap, ret_len);
}

void sched_init(struct daemon *dm)
{
	struct sched *s = &dm->sched;
	s->time.which = 0;
	s->alloc.which = 1;
	s->page_size = 4096;
	long ps = sysconf(_SC_PAGESIZE);
	if (ps > 0)
		s->page_size = (uint64_t)ps;
	/* the CPU count sizes the charge stocks' slack: the proc root's
	 * /proc/stat (a fixture's, on a fixture) */
	size_t len;
	unsigned n = 0;
	if (cgfs_read_small_at(dm->roots.proc_fd, "stat", dm->buf, sizeof(dm->buf), &len) == 0 &&
	    cgoom_parse_cpu_count(dm->buf, len, &n) == 0)
		s->slack_pages = cgoom_alloc_slack_pages(n);
	else
		s->slack_pages = UINT64_MAX;
	/* the tick reads /proc/vmstat's head alone where the whole file
	 * holds its pgalloc_ lines in one block (every kernel so far) */
	int fd = dm->n_domains ? dm->domains[0]->sys.vmstat_fd : -1;
	s->vmstat_ask = 0;
	if (fd >= 0 && cgfs_reread(fd, dm->buf, sizeof(dm->buf), &len) == 0)
		vmstat_learn_head(s, dm->buf, len);
	sched_tick(dm, cgfs_now_us());
	if (s->pgalloc_ok && s->slack_pages != UINT64_MAX)
		log_info("sampling: quiet domains on the allocation budget (/proc/vmstat pgalloc, "
			 "%u CPUs: slack %llu pages), at least every %llu s",
			 n, (unsigned long long)s->slack_pages,
			 (unsigned long long)(SCHED_BACKSTOP_US / 1000000));
	else
		log_info("sampling: no allocation budget (%s); every domain at the detectors' pace",
			 s->slack_pages == UINT64_MAX ? "no CPU count in /proc/stat"
						      : "no pgalloc in /proc/vmstat");
}

void sched_free(struct daemon *dm)
{
	heap_free(&dm->sched.time);
	heap_free(&dm->sched.alloc);
	free(dm->sched.due);
	dm->sched.due = NULL;
	dm->sched.cap_due = 0;
	free(dm->sched.aside);
	dm->sched.aside = NULL;
	dm->sched.cap_aside = 0;
}

void sched_tick(struct daemon *dm, uint64_t now)
{
	struct sched *s = &dm->sched;
	int fd = dm->n_domains ? dm->domains[0]->sys.vmstat_fd : -1;
	size_t len;
	uint64_t v;
	s->last_tick_us = now;
	s->ticks++;
	/* the head first: the pgalloc_ lines are in /proc/vmstat's first
	 * page, each read makes the kernel compute every counter, and it
	 * formats lines only until it holds what the read asked for (one
	 * line past it at most): as far as the line after the pgalloc_
	 * block and a little more, not a page */
	int r = vmstat_read_head(dm, fd, s->vmstat_ask, &len);
	if (r == 0)
		r = cgoom_parse_vmstat_pgalloc_head(dm->buf, len, &v);
	if (r == -EAGAIN) {
		r = cgfs_reread(fd, dm->buf, sizeof(dm->buf), &len);
		if (r == 0)
			r = cgoom_parse_vmstat_pgalloc(dm->buf, len, &v);
		if (r == 0 && s->vmstat_ask) {
			/* the lines before the block outgrew the slack (or
			 * the layout changed): learn the head from this whole
			 * file */
			s->vmstat_short++;
			vmstat_learn_head(s, dm->buf, len);
		}
	}
	if (r < 0) {
		if (s->pgalloc_ok) {
			log_warning("/proc/vmstat: pgalloc unreadable (%s); every domain at the "
				    "detectors' pace until it reads again",
				    r == -ENOENT    ? "no pgalloc_ lines"
				    : r == -EBADMSG ? "a malformed pgalloc_ line"
						    : strerror(-r));
			/* a budgeted domain's time is its backstop (up to
			 * SCHED_BACKSTOP_US): sampled now, and paced by the
			 * detectors from that sample on */
			for (size_t i = 1; i < dm->n_domains; i++)
				if (dm->domains[i]->budgeted)
					sched_time(dm, dm->domains[i], now);
			s->pgalloc_lost = true;
		}
		s->pgalloc_ok = false;
		return;
	}
	if (s->pgalloc_lost) {
		log_info("/proc/vmstat: pgalloc readable again; quiet domains back on the "
			 "allocation budget from their next sample");
		s->pgalloc_lost = false;
	}
	if (s->pgalloc_ok && v < s->pgalloc) {
		/* cannot happen on one kernel: start over, nothing is trusted */
		log_warning("/proc/vmstat: pgalloc went backwards; every budget restarts");
		s->pgalloc_ok = false;
	}
	s->pgalloc = v;
	cgoom_rate_update(&s->alloc_rate, v * s->page_size, now);
	if (!s->pgalloc_ok) {
		s->pgalloc_ok = true;
		/* budgets counted from an untrusted value: all due now */
		for (size_t i = 1; i < dm->n_domains; i++)
			if (dm->domains[i]->budgeted)
				heap_set(&s->alloc, dm->domains[i], v);
	}
}

uint64_t sched_next_tick_us(const struct daemon *dm)
{
	const struct sched *s = &dm->sched;
	uint64_t key;
	struct domain *d;
	if (!s->pgalloc_ok)
		return s->pgalloc_lost ? s->last_tick_us + SCHED_RETRY_US : UINT64_MAX;
	if (!heap_top(&s->alloc, &key, &d))
		return UINT64_MAX;
	if (s->behind)
		return s->last_tick_us + SCHED_TICK_FLOOR_US; /* budget checks left over */
	uint64_t room = key > s->pgalloc ? key - s->pgalloc : 0;
	room = room > UINT64_MAX / s->page_size ? UINT64_MAX : room * s->page_size;
	return s->last_tick_us + sched_tick_us(true, room, s->alloc_rate.bytes_per_s);
}

bool sched_tick_due(const struct daemon *dm, uint64_t now)
{
	uint64_t next = sched_next_tick_us(dm);
	if (next == UINT64_MAX)
		return false;
	uint64_t half = next > dm->sched.last_tick_us ? (next - dm->sched.last_tick_us) / 2 : 0;
	return next <= now || next - now <= half;
}

void sched_time(struct daemon *dm, struct domain *d, uint64_t due_us)
{
	d->next_due_us = due_us;
	d->early_us = 0;
	if (d->budgeted) {
		heap_remove(&dm->sched.alloc, d);
		d->budgeted = false;
	}
	if (heap_set(&dm->sched.time, d, due_us) < 0)
		log_warning("%s: out of memory scheduling its next sample", d->path);
}

void sched_after(struct daemon *dm, const struct trigger_event *ev)
{
	struct domain *d = ev->d;
	struct sched *s = &dm->sched;
	if (d->dead)
		return;
	struct sched_plan plan;
	struct sched_in in = {
		.t0 = ev->t0,
		.next_us = ev->next_us,
		.approach = ev->approach,
		.in_band = ev->s.cg.unreclaim_valid,
		.active = d->system || ev->kind != CGOOM_TRIGGER_NONE || d->standby ||
			  kl_active(&d->kill.lc) || ev->s.cg.max == UINT64_MAX,
		.budget_ok = s->pgalloc_ok,
		.headroom = ev->headroom,
		.rate = ev->rate,
		.current = ev->s.cg.current,
		.watch_line = d->system ? 0 : cgoom_watch_line(&ev->s.cg, &d->params),
		.pgalloc = s->pgalloc,
		.slack_pages = s->slack_pages,
		.page_size = s->page_size,
		.backstop_us = SCHED_BACKSTOP_US,
		.empty = d->empty && domain_empty_watched(d),
		.empty_us = SCHED_EMPTY_US,
	};
	sched_plan_of(&in, &plan);
	/* a domain that was near its line keeps its active set (memory.stat,
	 * PSI triggers) for ACTIVE_LINGER_US: it is looked at again when that
	 * ends, so the files close then, not whenever the budget next asks */
	uint64_t linger_end = d->active_until_us + 1000;
	if (d->active_open && d->active_until_us >= ev->t0 && linger_end < plan.due_us)
		plan.due_us = linger_end;
	if (!plan.budgeted) {
		sched_time(dm, d, plan.due_us);
		d->early_us = sched_early_us(ev->t0, plan.due_us);
		return;
	}
	d->next_due_us = plan.due_us;
	d->early_us = sched_early_us(ev->t0, plan.due_us);
	d->budgeted = true;
	d->quiet_probes = 0; /* a real sample: half its distance again */
	d->alloc_due = plan.alloc_due;
	d->watch_line = in.watch_line;
	if (heap_set(&s->time, d, plan.due_us) < 0 || heap_set(&s->alloc, d, plan.alloc_due) < 0) {
		log_warning("%s: out of memory scheduling its next sample", d->path);
		sched_time(dm, d, ev->t0 + ev->next_us);
	}
}

void sched_forget(struct daemon *dm, struct domain *d)
{
	heap_remove(&dm->sched.time, d);
	heap_remove(&dm->sched.alloc, d);
	d->budgeted = false;
}

size_t sched_due(struct daemon *dm, uint64_t now, struct domain ***ret)
{
	struct sched *s = &dm->sched;
	size_t n = 0;
	/* each domain is in the list once: taken out of both heaps */
	cgfs_grow(&s->due, &s->cap_due, dm->n_domains, sizeof(*s->due));
	struct domain **out = s->due;
	size_t cap = s->cap_due;
	*ret = out;
	uint64_t key;
	struct domain *d;
	/* taken out of the heaps first: sampling puts them back; what is
	 * due within its early window is taken too, what is not (a domain
	 * paced more tightly, due a little later) is set aside and put
	 * back after */
	size_t n_aside = 0;
	while (n < cap && heap_top(&s->time, &key, &d) &&
	       (key <= now || key - now <= SCHED_EARLY_MAX_US)) {
		if (key > now && key - now > d->early_us) {
			if (cgfs_grow(&s->aside, &s->cap_aside, n_aside + 1, sizeof(*s->aside)) < 0)
				break; /* the rest waits for its own time */
			heap_remove(&s->time, d);
			s->aside[n_aside++] = (struct heap_item){ .key = key, .d = d };
			continue;
		}
		sched_forget(dm, d);
		d->due_by_alloc = false;
		out[n++] = d;
	}
	for (size_t i = 0; i < n_aside; i++)
		if (heap_set(&s->time, s->aside[i].d, s->aside[i].key) < 0)
			sched_time(dm, s->aside[i].d, s->aside[i].key);
	s->n_alloc_due = n;
	/* the budget's early window: a domain whose budget the measured
	 * rate would use up within SCHED_EARLY_MAX_US is probed now, not at
	 * a tick of its own (a probe from here gives it a fresh budget) */
	uint64_t early = s->page_size ? s->alloc_rate.bytes_per_s / (1000000 / SCHED_EARLY_MAX_US) /
						s->page_size
				      : 0;
	uint64_t upto = s->pgalloc > UINT64_MAX - early ? UINT64_MAX : s->pgalloc + early;
	while (n < cap && s->pgalloc_ok && heap_top(&s->alloc, &key, &d) && key <= upto) {
		sched_forget(dm, d);
		d->due_by_alloc = true;
		out[n++] = d;
	}
	s->n_alloc_due = n - s->n_alloc_due;
	return n;
}

void sched_requeue(struct daemon *dm, struct domain *d)
{
	struct sched *s = &dm->sched;
	d->due_by_alloc = false;
	d->budgeted = true;
	if (heap_set(&s->time, d, d->next_due_us) < 0 || heap_set(&s->alloc, d, d->alloc_due) < 0)
		sched_time(dm, d, cgfs_now_us());
}

bool sched_probe(struct daemon *dm, struct domain *d)
{
	struct sched *s = &dm->sched;
	bool by_alloc = d->due_by_alloc;
	d->due_by_alloc = false;
	/* the allocations could have moved it: memory.current alone (one
	 * pread instead of a sample) says whether they did; only a domain
	 * still on its way to nothing is left at that */
	if (!by_alloc || d->dead || !s->pgalloc_ok)
		return false;
	uint64_t cur;
	if (d->current_fd >= 0) {
		if (daemon_reread_u64(dm, d->current_fd, &cur) < 0)
			return false;
	} else {
		/* polled (fds.c): memory.current alone, opened for the moment */
		char rel[4096];
		if ((size_t)snprintf(rel, sizeof(rel), "%s/memory.current", d->path) >= sizeof(rel))
			return false;
		int fd = cgfs_open_beneath(dm->roots.cgroup_fd, rel, CGFS_FILE_FLAGS);
		if (fd < 0)
			return false;
		int r = daemon_reread_u64(dm, fd, &cur);
		close(fd);
		if (r < 0)
			return false;
	}
	/* one that grew at all (by more than the charge stocks can hold) is
	 * sampled for real, so its growth gets measured: a domain that took
	 * a share of the allocations is the one heading for its line */
	uint64_t slack = s->slack_pages > UINT64_MAX / s->page_size ? UINT64_MAX
								    : s->slack_pages * s->page_size;
	if (cur > d->sample.current && cur - d->sample.current > slack)
		return false;
	/* a domain that keeps not growing is given more of its distance
	 * (1/2, 3/4, 7/8 of it, after 0, 1, 2+ quiet probes): most domains
	 * on a busy host never move, and each probe of them costs */
	uint64_t room = cgoom_alloc_room_pages(cur, d->watch_line, s->slack_pages, s->page_size);
	if (room == 0)
		return false;
	unsigned k = d->quiet_probes < 2 ? d->quiet_probes : 2;
	uint64_t half = room + s->slack_pages; /* half the distance, in pages */
	room = 2 * half - (half >> k);         /* (1 - 2^-(k+1)) of the distance */
	room = room > s->slack_pages ? room - s->slack_pages : 0;
	if (d->quiet_probes < UINT32_MAX)
		d->quiet_probes++;
	d->budgeted = true;
	d->alloc_due = s->pgalloc > UINT64_MAX - room ? UINT64_MAX : s->pgalloc + room;
	if (heap_set(&s->time, d, d->next_due_us) < 0 || heap_set(&s->alloc, d, d->alloc_due) < 0)
		return false;
	s->probes++;
	return true;
}

uint64_t sched_next_due_us(const struct daemon *dm)
{
	uint64_t key;
	struct domain *d;
	return heap_top(&dm->sched.time, &key, &d) ? key : UINT64_MAX;
}
