/* SPDX-License-Identifier: MIT */
/*
 * The pressure a domain is under, read for the thrashing and swap
 * triggers (cgoom/thrash.h, trigger-thrash.c, trigger-swap.c): PSI some
 * and full, refault and reclaim counters, swap in use, zram. Reads only,
 * through kept fds, into the daemon's buffer.
 *
 * Cost: a domain is watched only while it is under pressure. A quiet
 * system reads its PSI file (two lines) when the kernel's PSI "some"
 * trigger wakes the loop (pressure started: 5 ms in 500 ms), or when
 * memory is short, or once a second where that trigger could not be
 * armed; a "some" stall of 1% of the time since the previous
 * read, or more, makes it watched for WATCH_AFTER_US while MemAvailable
 * is under 1.5x the short line (pressure_system_near_short), and a watched system
 * reads its PSI file, /proc/vmstat and zram's mm_stat with every sample
 * and is sampled at least every WATCHED_PACE_US (trigger-thrash.c); a
 * PSI trigger's wake-up then waits for that sample (pressure_wake_deferred).
 * A cgroup domain is watched while memory.current is within
 * its margin of memory.max (it can thrash only at its limit) and then
 * reads memory.pressure besides the memory.stat it reads there anyway.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "daemon-internal.h"
#include "log.h"

#define WATCH_AFTER_US 5000000ULL
/* A quiet system's PSI file is read at most this often (the kernel's
 * "some" trigger wakes the loop sooner when pressure starts). */
#define PSI_IDLE_US 1000000ULL
/* /proc/swaps is looked at for zram devices at most this often */
#define SWAPS_EVERY_US 10000000ULL

int domain_pressure(struct daemon *dm, struct domain *d, struct cgoom_pressure *ret)
{
	size_t len;
	if (d->psi_fd < 0)
		return -ENOENT;
	int r = cgfs_reread(d->psi_fd, dm->buf, sizeof(dm->buf), &len);
	return r < 0 ? r : cgoom_parse_pressure(dm->buf, len, ret);
}

bool pressure_wanted(const struct domain *d, const struct trigger_sample *s, bool psi_fired,
		     uint64_t now)
{
	bool mem_short = s->mem_total > 0 && s->lv.mem_available < s->mem_total / 10;
	/* the kernel's "some 5ms 500ms" trigger is the once-a-second read's
	 * 1% test, made by the kernel: with it armed, no read while quiet */
	bool idle_read = d->psi_some_fd < 0 && now >= d->psi_some_at + PSI_IDLE_US;
	return !d->psi_trigger || psi_fired || d->pressure_woke || now < d->watch_until_us ||
	       mem_short || idle_read;
}

/* The system's windows count only while memory is short (thrash.c
 * short_of: MemAvailable under mem_short of MemTotal, 10%). It is
 * watched from half that again above it (15%): the history has its first
 * point before the first short window, one sample late at most when
 * memory falls faster than that, and a job throttled at its memory.high
 * that keeps PSI "some" up on a machine with memory to spare does not
 * keep the system sampled every 250 ms with /proc/vmstat for windows that
 * cannot count. (It was thought to be cgoom's CPU in bench/swap's h-high,
 * MemAvailable 18% at its lowest; with the gate that stayed 1.0 s in 45 s,
 * 1001 against 1080 ms: the cost is elsewhere.) */
bool pressure_system_near_short(const struct daemon *dm, const struct trigger_sample *s)
{
	struct cgoom_thrash_params p;
	trigger_thrash_params(&dm->cfg, &p);
	uint64_t at = (uint64_t)p.mem_short + p.mem_short / 2; /* per 10000 */
	return s->mem_total > 0 && s->lv.mem_available / (s->mem_total / 10000 + 1) < at;
}

bool pressure_system_watched(const struct daemon *dm, const struct domain *d,
			     const struct trigger_sample *s)
{
	return s->at_us < d->watch_until_us && pressure_system_near_short(dm, s);
}

bool pressure_watch(const struct daemon *dm, struct domain *d, const struct cgoom_pressure *psi,
		    const struct trigger_sample *s)
{
	uint64_t now = s->at_us;
	if (psi && psi->some.present) {
		uint64_t grew = psi->some.total_us > d->psi_some_last
					? psi->some.total_us - d->psi_some_last
					: 0;
		uint64_t since = d->psi_some_at && now > d->psi_some_at ? now - d->psi_some_at
									: PSI_IDLE_US;
		d->psi_some_last = psi->some.total_us;
		d->psi_some_at = now;
		/* woken by the kernel's trigger: 1% in its last 500 ms, however
		 * long ago the file was read before; with that trigger armed, a
		 * read for another reason after a long quiet spell is a new
		 * baseline only (1% of hours says nothing of now, and a stall
		 * now fires the trigger) */
		bool stale = d->psi_some_fd >= 0 && since > 2 * PSI_IDLE_US;
		if (d->pressure_woke || (!stale && grew > 0 && grew >= since / 100))
			d->watch_until_us = now + WATCH_AFTER_US;
	}
	return pressure_system_watched(dm, d, s);
}

/* Under a sustained stall the kernel's PSI triggers wake the loop three
 * times a second ("some" every 500 ms, "full" every second), each wake-up
 * a whole sample of a system already sampled every WATCHED_PACE_US: its
 * PSI file, /proc/vmstat whole (2.2 ms of a TCG guest's CPU, the most of
 * a watched sample, and the kernel's work) and zram again, for nothing the
 * rules use (the windows take the PSI totals from any sample; no system
 * rule fires on the trigger itself). Such a wake-up waits for the next
 * sample when that is due soon; one that may start a watch never does. */
bool pressure_wake_deferred(const struct domain *d, uint64_t now)
{
	return d->system && d->pressure && d->pressure->watched && now < d->watch_until_us &&
	       d->next_due_us <= now + WATCHED_PACE_US;
}

/* ---- zram ---- */

static void zram_close(struct system_files *sys)
{
	for (size_t i = 0; i < sys->n_zram; i++)
		close(sys->zram_fds[i]);
	sys->n_zram = 0;
}

/* /proc/swaps into a (CGOOM_SWAP_AREAS_MAX of them): how many areas it
 * lists, -ENOENT when it cannot be opened, or another -errno. */
static int read_swaps(struct daemon *dm, struct cgoom_swap_area *a)
{
	int fd = openat(dm->roots.proc_fd, "swaps", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -ENOENT;
	size_t len;
	int r = cgfs_reread_whole(fd, dm->buf, sizeof(dm->buf), &len);
	close(fd);
	return r < 0 ? r : cgoom_parse_swaps(dm->buf, len, a, CGOOM_SWAP_AREAS_MAX);
}

/* The zram swap devices from /proc/swaps, their mm_stat opened (live
 * roots only: sysfs is not under --proc-root). */
static void zram_discover(struct daemon *dm, struct system_files *sys, uint64_t now)
{
	if (now < sys->swaps_due_us || !dm->live)
		return;
	sys->swaps_due_us = now + SWAPS_EVERY_US;
	struct cgoom_swap_area a[CGOOM_SWAP_AREAS_MAX];
	int n = read_swaps(dm, a);
	if (n == -ENOENT)
		return;
	if (n < 0) {
		if (!sys->swaps_logged)
			log_warning("%s/swaps: %s; zram's RAM use is not watched", dm->roots.proc_path,
				    strerror(-n));
		sys->swaps_logged = true;
		return;
	}
	zram_close(sys);
	/* past the areas read, one may be a swap file beside zram */
	sys->swaps_other = n > CGOOM_SWAP_AREAS_MAX;
	for (int i = 0; i < n && i < CGOOM_SWAP_AREAS_MAX; i++) {
		if (a[i].zram < 0)
			sys->swaps_other = true;
		if (a[i].zram < 0 || sys->n_zram >= sizeof(sys->zram_fds) / sizeof(sys->zram_fds[0]))
			continue;
		char path[64];
		snprintf(path, sizeof(path), "/sys/block/zram%d/mm_stat", a[i].zram);
		int z = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
		if (z >= 0)
			sys->zram_fds[sys->n_zram++] = z;
		else if (!sys->swaps_logged)
			log_warning("%s: %s; zram's RAM use is not watched", path, strerror(errno));
	}
}

/* The free swap on the areas /proc/swaps lists that are not zram
 * (UINT64_MAX when it cannot be read: then zram's limit caps nothing). */
static uint64_t swaps_other_free(struct daemon *dm)
{
	struct cgoom_swap_area a[CGOOM_SWAP_AREAS_MAX];
	int n = read_swaps(dm, a);
	if (n < 0 || n > CGOOM_SWAP_AREAS_MAX)
		return UINT64_MAX;
	uint64_t free = 0;
	for (int i = 0; i < n; i++)
		if (a[i].zram < 0 && a[i].size > a[i].used)
			free += a[i].size - a[i].used;
	return free;
}

/* The zram swap devices' totals: what they store, the RAM that costs,
 * their limits (0 when any has none); with a limit and another swap
 * area beside zram, that area's free swap (zram's limit caps only the
 * rest: thrash.c swap_room), from /proc/swaps at this sample. */
static void zram_read(struct daemon *dm, const struct system_files *sys,
		      struct cgoom_pressure_point *pt)
{
	bool unlimited = false;
	for (size_t i = 0; i < sys->n_zram; i++) {
		size_t len;
		struct cgoom_zram_mm m;
		if (cgfs_reread(sys->zram_fds[i], dm->buf, sizeof(dm->buf), &len) < 0 ||
		    cgoom_parse_zram_mm_stat(dm->buf, len, &m) < 0)
			continue;
		pt->zram_orig += m.orig_data_size;
		pt->zram_used += m.mem_used_total;
		pt->zram_limit += m.mem_limit;
		unlimited = unlimited || m.mem_limit == 0;
	}
	if (unlimited)
		pt->zram_limit = 0;
	if (pt->zram_limit > 0 && sys->swaps_other)
		pt->swap_other_free = swaps_other_free(dm);
}

void pressure_free(struct domain *d)
{
	if (d->system)
		zram_close(&d->sys);
	free(d->pressure);
	d->pressure = NULL;
}

/* ---- the history ---- */

static struct domain_pressure *history(struct domain *d)
{
	if (!d->pressure)
		d->pressure = calloc(1, sizeof(*d->pressure));
	return d->pressure;
}

static void psi_into(const struct cgoom_pressure *psi, struct cgoom_pressure_point *pt)
{
	if (!psi || !psi->some.present || !psi->full.present)
		return;
	pt->psi_valid = true;
	pt->some_us = psi->some.total_us;
	pt->full_us = psi->full.total_us;
}

static void reclaim_into(const struct cgoom_reclaim *rc, struct cgoom_pressure_point *pt)
{
	if (!rc)
		return;
	pt->reclaim_valid = true;
	pt->refaults = cgoom_reclaim_refaults(rc);
	pt->activations = cgoom_reclaim_activations(rc);
	pt->swapins = rc->pswpin;
	pt->swapouts = rc->pswpout;
	pt->stolen = cgoom_reclaim_stolen(rc);
	pt->scanned = cgoom_reclaim_scanned(rc);
	pt->allocstalls = cgoom_reclaim_allocstalls(rc);
}

/* Feeds pt into d's history when watched (forgetting a history gone
 * stale), and judges it into s->thrash. gap: not watched, but pt (its
 * levels only) goes into the history there is, so that the windows across
 * the time not watched count as no stall (a run of short windows does
 * not go on over a stretch when memory was not short: the system's
 * pressure seen but memory not near short; a cgroup out of its band). */
static void feed_and_judge(struct daemon *dm, struct domain *d, bool watched, bool gap,
			   const struct cgoom_pressure_point *pt, struct trigger_sample *s)
{
	s->watched = watched;
	struct domain_pressure *pr = watched ? history(d) : d->pressure;
	if (!pr)
		return;
	struct cgoom_thrash_state *st = &pr->st;
	if (pr->kills_at != d->kills_seen) {
		/* a kill since, here or in a domain that overlaps this one:
		 * what came before it is spent, also when its victim was gone
		 * before a sample saw it dying (judged again, the same numbers
		 * fired again and killed a second victim for one event) */
		cgoom_thrash_reset(st);
		pr->kills_at = d->kills_seen;
	}
	if (s->kill_active)
		return; /* not fed while a victim dies; the kill spent the history above */
	if (!watched && gap) {
		cgoom_thrash_feed(st, pt);
	} else if (!watched) {
		const struct cgoom_thrash_window *w = cgoom_thrash_window(st, 0);
		if (st->have_last && s->at_us > st->last.at_us + WATCH_AFTER_US &&
		    (!w || s->at_us > w->end_us + WATCH_AFTER_US))
			cgoom_thrash_reset(st);
	} else {
		cgoom_thrash_feed(st, pt);
	}
	struct cgoom_thrash_params p;
	trigger_thrash_params(&dm->cfg, &p);
	cgoom_thrash_judge(st, &p, &s->thrash);
	pr->facts = s->thrash;
	pr->watched = watched;
}

void pressure_system(struct daemon *dm, struct domain *d, const struct cgoom_pressure *psi,
		     const struct cgoom_reclaim *reclaim, struct trigger_sample *s)
{
	/* pressure seen lately but memory not near short: its levels go
	 * into the history there is (no PSI, vmstat or zram read for it) */
	bool pressured = s->at_us < d->watch_until_us;
	bool watched = pressured && pressure_system_near_short(dm, s);
	struct cgoom_pressure_point pt = {
		.at_us = s->at_us,
		.mem_total = s->mem_total,
		.mem_available = s->lv.mem_available,
		.swap_total = s->lv.swap_total,
		.swap_used = s->lv.swap_total > s->lv.swap_free ? s->lv.swap_total - s->lv.swap_free : 0,
	};
	if (watched) {
		psi_into(psi, &pt);
		reclaim_into(reclaim, &pt);
		if (s->lv.swap_total > 0) {
			zram_discover(dm, &d->sys, s->at_us);
			zram_read(dm, &d->sys, &pt);
			pt.zswap_stored = s->zswap_stored;
			pt.zswap_ram = s->zswap_ram;
		}
	}
	feed_and_judge(dm, d, watched, pressured, &pt, s);
}

void pressure_cgroup(struct daemon *dm, struct domain *d, struct trigger_sample *s)
{
	const struct cgoom_cgroup_sample *cg = &s->cg;
	/* a cgroup reclaims (and so thrashes) only at its limit */
	bool watched = cg->max != UINT64_MAX && cg->reclaim_valid && d->psi_fd >= 0 &&
		       cgoom_cgroup_in_band(cg, &d->params);
	struct cgoom_pressure_point pt = {
		.at_us = s->at_us,
		.mem_total = cg->max,
		.mem_available = cg->max > cg->current ? cg->max - cg->current : 0,
		.swap_total = cg->swap_used + cg->swap_room,
		.swap_used = cg->swap_used,
	};
	struct cgoom_pressure psi;
	if (watched && domain_pressure(dm, d, &psi) == 0) {
		psi_into(&psi, &pt);
		/* the thrash trigger's confirm measures the stall from here:
		 * with the kernel's PSI trigger armed (near the limit, on a
		 * live system) detect_cgroup reads no PSI, and the sample had
		 * none, so the confirm stood every cgroup thrash down */
		if (!s->psi.valid && psi.full.present)
			s->psi = (struct cgoom_psi_sample){ .total_us = psi.full.total_us,
							    .at_us = s->at_us,
							    .valid = true };
	}
	if (watched)
		reclaim_into(&cg->reclaim, &pt);
	/* out of its band, its levels (memory to spare under its limit) go
	 * into the history there is, as the system's do while not near
	 * short: a run of windows at its limit does not go on across time
	 * spent away from it (fed nothing, the one window across the gap
	 * was judged by its end alone, and a stall there is not its limit's:
	 * global reclaim) */
	feed_and_judge(dm, d, watched, true, &pt, s);
}

/* ---- metrics ---- */

static void gauge_head(struct cgoom_strbuf *b, const char *name, const char *help)
{
	cgoom_strbuf_printf(b, "# HELP %s %s\n# TYPE %s gauge\n", name, help, name);
}

static void gauge(struct cgoom_strbuf *b, const char *name, const struct domain *d,
		  const char *extra, uint64_t v, unsigned scale)
{
	cgoom_strbuf_printf(b, "%s{domain=", name);
	metrics_label(b, d->path);
	if (scale > 1)
		cgoom_strbuf_printf(b, "%s} %llu.%0*llu\n", extra ? extra : "",
				    (unsigned long long)(v / scale), scale == 10000 ? 4 : 3,
				    (unsigned long long)(v % scale));
	else
		cgoom_strbuf_printf(b, "%s} %llu\n", extra ? extra : "", (unsigned long long)v);
}

void pressure_metrics(const struct daemon *dm, struct cgoom_strbuf *b)
{
	static const struct {
		const char *name, *help;
	} g[] = {
		{ "cgoom_memory_stall_ratio", "Share of the last half second every task (full) or some task waited on memory, watched domains." },
		{ "cgoom_thrashing_seconds", "How long memory has been short under a stall, watched domains." },
		{ "cgoom_swap_used_bytes", "Swap in use (a cgroup: memory.swap.current), watched domains." },
		{ "cgoom_swap_total_bytes", "Swap in all (a cgroup: what it uses and may still use), watched domains." },
		{ "cgoom_swap_fill_rate_bytes", "Bytes per second swap has been filling under a memory stall (0: not filling)." },
		{ "cgoom_swap_full_in_seconds", "When swap would be full at that rate (only while it fills)." },
		{ "cgoom_zram_stored_bytes", "Data zram swap devices store (the system)." },
		{ "cgoom_zram_ram_bytes", "RAM zram swap devices use for it (the system)." },
		{ "cgoom_zram_limit_bytes", "zram's RAM limit (0: none; the system)." },
		{ "cgoom_zswap_stored_bytes", "Data zswap stores in RAM (the system)." },
		{ "cgoom_zswap_ram_bytes", "RAM zswap's pool takes for it (the system)." },
	};
	for (size_t k = 0; k < sizeof(g) / sizeof(g[0]); k++) {
		bool head = false;
		for (size_t i = 0; i < dm->n_domains; i++) {
			const struct domain *d = dm->domains[i];
			const struct domain_pressure *pr = d->pressure;
			if (d->dead || !pr || !pr->watched)
				continue;
			const struct cgoom_thrash_facts *f = &pr->facts;
			if (k == 5 && (f->trend_us == 0 || f->eta_us == UINT64_MAX))
				continue;
			if (k >= 6 && k <= 8 && (!d->system || f->zram_used == 0))
				continue;
			if (k >= 9 && (!d->system || (f->zswap_stored == 0 && f->zswap_ram == 0)))
				continue;
			if (!head)
				gauge_head(b, g[k].name, g[k].help);
			head = true;
			switch (k) {
			case 0:
				gauge(b, g[k].name, d, ",line=\"some\"", f->some_share, 10000);
				gauge(b, g[k].name, d, ",line=\"full\"", f->full_share, 10000);
				break;
			case 1: gauge(b, g[k].name, d, NULL, f->thrashing_us / 1000, 1000); break;
			case 2: gauge(b, g[k].name, d, NULL, f->swap_used, 1); break;
			case 3: gauge(b, g[k].name, d, NULL, f->swap_total, 1); break;
			case 4: gauge(b, g[k].name, d, NULL, f->swap_rate, 1); break;
			case 5: gauge(b, g[k].name, d, NULL, f->eta_us / 1000, 1000); break;
			case 6: gauge(b, g[k].name, d, NULL, f->zram_orig, 1); break;
			case 7: gauge(b, g[k].name, d, NULL, f->zram_used, 1); break;
			case 8: gauge(b, g[k].name, d, NULL, f->zram_limit, 1); break;
			case 9: gauge(b, g[k].name, d, NULL, f->zswap_stored, 1); break;
			default: gauge(b, g[k].name, d, NULL, f->zswap_ram, 1); break;
			}
		}
	}
}
