/* SPDX-License-Identifier: MIT */
/*
 * Detection: one sample of one domain, read through kept fds into the
 * daemon's preallocated buffer, judged by the pure functions of
 * src/lib/trigger.c, returned as a struct trigger_event. Nothing here
 * writes a file, signals or logs a decision: the loop acts on the event.
 * (The only state updated is the detector's own: trigger baselines,
 * growth-rate estimates, the last sample.)
 *
 * Cost: outside a domain's margin a sample is four small preads
 * (memory.current, .max, .high, .events); memory.stat is read only when
 * memory.current is within the margin (memory.current bounds the
 * unreclaimable sum). The next sample comes at about half the time the
 * measured growth needs to reach the line (trigger.h cgoom_cgroup_pace:
 * 1 ms floor; when nothing grows, earlyoom's 100 ms .. 1 s outside the
 * margin and CGOOM_FILL_RATE_BAND's pace inside it).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "cgoom/explain.h"
#include "daemon-internal.h"
#include "log.h"

/* /proc/vmstat's oom_kill is read at least this often far from the
 * system's line: a kernel OOM kill made there (a cgroup limit's, which
 * its domain's memory.events reports at its own pace) is reported within
 * this, and an idle daemon reads the file once in that while (a read is
 * a meminfo read's cost: a whole wake-up's worth every ten s). */
#define VMSTAT_IDLE_US 10000000ULL

static uint64_t above(uint64_t v, uint64_t floor)
{
	return v > floor ? v - floor : 0;
}

int daemon_reread_u64(struct daemon *dm, int fd, uint64_t *ret)
{
	size_t len;
	int r = cgfs_reread(fd, dm->buf, sizeof(dm->buf), &len);
	return r < 0 ? r : cgoom_parse_u64(dm->buf, len, ret);
}

int daemon_reread_limit(struct daemon *dm, int fd, uint64_t *ret)
{
	size_t len;
	int r = cgfs_reread(fd, dm->buf, sizeof(dm->buf), &len);
	return r < 0 ? r : cgoom_parse_limit(dm->buf, len, ret);
}

/* domain_sample(), and on failure the file that failed in *ret_file. */
static int sample_files(struct daemon *dm, struct domain *d, struct cgoom_cgroup_sample *ret,
			const char **ret_file)
{
	struct cgoom_cgroup_sample s = { .high = UINT64_MAX };
	size_t len;
	*ret_file = "memory.current";
	int r = daemon_reread_u64(dm, d->current_fd, &s.current);
	if (r == 0) {
		*ret_file = "memory.max";
		r = daemon_reread_limit(dm, d->max_fd, &s.max);
	}
	if (r == 0 && d->high_fd >= 0 && daemon_reread_limit(dm, d->high_fd, &s.high) < 0)
		s.high = UINT64_MAX;
	if (r == 0) {
		*ret_file = "memory.events";
		r = cgfs_reread(d->events_fd, dm->buf, sizeof(dm->buf), &len);
	}
	if (r == 0)
		r = cgoom_parse_memevents(dm->buf, len, &s.ev);
	if (r == 0)
		*ret = s;
	return r;
}

int domain_sample(struct daemon *dm, struct domain *d, struct cgoom_cgroup_sample *ret)
{
	const char *file;
	return sample_files(dm, d, ret, &file);
}

/* The system's SwapTotal and SwapFree, for a cgroup's swap room: those
 * of the system's last sample, read again from /proc/meminfo when that
 * is max_age_us old or more (0: at once); true when read now. The system is sampled
 * up to a second apart while quiet (every 250 ms while watched); swap
 * turned on within that while left a cgroup reclaiming at its limit
 * with no swap room by the old SwapTotal of 0 (all its anon
 * unreclaimable: the unreclaimable trigger killed a job with 400 MiB of
 * swap room, tests/vm swap-on-later). A cgroup reads this only within
 * its margin, where it reads memory.stat anyway. */
#define SWAP_FRESH_US 100000ULL

static bool system_swap_fresh(struct daemon *dm, uint64_t max_age_us)
{
	struct system_files *sys = &dm->domains[0]->sys;
	uint64_t now = cgfs_now_us();
	struct cgoom_meminfo mi;
	if (sys->meminfo_fd < 0 || (max_age_us && sys->swap_at_us && now < sys->swap_at_us + max_age_us) ||
	    system_meminfo(dm, &mi) < 0)
		return false;
	sys->swap_total = mi.swap_total;
	sys->swap_free = mi.swap_total ? mi.swap_free : 0;
	sys->swap_at_us = now;
	return true;
}

/* What d has swapped, and the swap it may still use: min(memory.swap.max
 * - memory.swap.current, SwapFree) (0 without swap: nothing to read). */
static void cgroup_swap(struct daemon *dm, struct domain *d, uint64_t *ret_used, uint64_t *ret_room)
{
	uint64_t room = 0, smax, scur = 0;
	const struct system_files *sys = &dm->domains[0]->sys;
	/* what it has swapped is read also with the system's swap full (a
	 * swap trigger's confirm must not see it given back) */
	bool scur_ok = sys->swap_total > 0 && d->swap_current_fd >= 0 &&
		       daemon_reread_u64(dm, d->swap_current_fd, &scur) == 0;
	if (!scur_ok)
		scur = 0;
	if (scur_ok && sys->swap_free > 0 && d->swap_max_fd >= 0 &&
	    daemon_reread_limit(dm, d->swap_max_fd, &smax) == 0) {
		uint64_t swap_free = sys->swap_free;
		room = above(smax, scur);
		if (room > swap_free)
			room = swap_free;
	}
	*ret_used = scur;
	*ret_room = room;
}

int domain_memstat(struct daemon *dm, struct domain *d, struct cgoom_cgroup_sample *s)
{
	size_t len;
	struct cgoom_unreclaim u;
	int r = cgfs_reread(d->stat_fd, dm->buf, sizeof(dm->buf), &len);
	if (r == 0)
		r = cgoom_parse_unreclaim(dm->buf, len, &u);
	if (r < 0)
		return r;
	s->reclaim_valid = cgoom_parse_reclaim(dm->buf, len, &s->reclaim) == 0;
	uint64_t scur, room;
	bool now = system_swap_fresh(dm, SWAP_FRESH_US);
	cgroup_swap(dm, d, &scur, &room);
	s->unreclaim_valid = true;
	s->unreclaimable = cgoom_unreclaimable(&u, room);
	/* near the line on swap numbers not read now: read them now (100 ms
	 * is long enough for swap turned on and a limit reached within it:
	 * tests/vm swap-on-later, run after another scenario, the system
	 * watched and sampled every 250 ms) */
	if (!now && cgoom_cgroup_unreclaimable_near(s, &d->params) && system_swap_fresh(dm, 0)) {
		cgroup_swap(dm, d, &scur, &room);
		s->unreclaimable = cgoom_unreclaimable(&u, room);
	}
	s->swap_used = scur;
	s->swap_room = room;
	s->unfreeable = u.unmapped_shmem > room ? u.unmapped_shmem - room : 0;
	return 0;
}

/* Parsed whole now and then, otherwise the five lines of the system's
 * levels where the last whole parse found them (cgoom/parse.h
 * cgoom_parse_meminfo_again): the file is read at every system sample,
 * and a whole parse was most of an idle wake-up's own instructions
 * (bench/wake-instr). */
int system_meminfo(struct daemon *dm, struct cgoom_meminfo *ret)
{
	struct system_files *sys = &dm->domains[0]->sys;
	size_t len;
	int r = cgfs_reread(sys->meminfo_fd, dm->buf, sizeof(dm->buf), &len);
	sys->meminfo_len = r < 0 ? 0 : len;
	return r < 0 ? r : cgoom_parse_meminfo_again(dm->buf, len, &sys->meminfo_layout, CGOOM_MEMINFO_LEVELS, ret);
}

/* What a read for oom_kill alone asks of /proc/vmstat, from a whole
 * read: the bytes through its oom_kill line (the kernel formats lines
 * only until it holds what a read asked for, and hands out a page at a
 * time, computing every counter again for each) and the tick's slack
 * for counters before it that gain digits; 0: the whole file. */
static void vmstat_learn_oom(struct daemon *dm, const char *buf, size_t len)
{
	dm->domains[0]->sys.vmstat_oom_ask =
		vmstat_head_ask(cgoom_vmstat_oom_kill_head_len(buf, len), dm->sched.page_size);
}

int system_vmstat_oom_kill(struct daemon *dm, uint64_t *ret)
{
	struct system_files *sys = &dm->domains[0]->sys;
	size_t len;
	int r = vmstat_read_head(dm, sys->vmstat_fd, sys->vmstat_oom_ask, &len);
	if (r == 0)
		r = cgoom_parse_vmstat_oom_kill_head(dm->buf, len, ret);
	if (r != -EAGAIN)
		return r;
	/* no head known, or it fell short: the whole file, and its head */
	r = cgfs_reread(sys->vmstat_fd, dm->buf, sizeof(dm->buf), &len);
	if (r < 0)
		return r;
	vmstat_learn_oom(dm, dm->buf, len);
	return cgoom_parse_vmstat_oom_kill(dm->buf, len, ret);
}

int domain_psi_read(struct daemon *dm, struct domain *d, uint64_t now_us,
		    struct cgoom_psi_sample *ret)
{
	size_t len;
	int r = cgfs_reread(d->psi_fd, dm->buf, sizeof(dm->buf), &len);
	if (r < 0)
		return r;
	struct cgoom_pressure p;
	r = cgoom_parse_pressure(dm->buf, len, &p);
	if (r < 0)
		return r;
	if (!p.full.present)
		return -ENOENT;
	ret->total_us = p.full.total_us;
	ret->at_us = now_us;
	ret->valid = true;
	return 0;
}

/* The polled PSI full trigger (where the kernel's cannot be armed): the
 * stall since the previous read, scaled to one window, over psi_full. */
static bool psi_polled(struct daemon *dm, struct domain *d, const struct cgoom_pressure *psi,
		       uint64_t now, uint64_t *ret_stall)
{
	if (d->psi_trigger || !psi || !psi->full.present)
		return false;
	struct cgoom_psi_sample s = { .total_us = psi->full.total_us, .at_us = now, .valid = true };
	bool over = cgoom_psi_over(&d->psi_last, &s, dm->cfg.psi_full_stall_us,
				   dm->cfg.psi_full_window_us, ret_stall);
	d->psi_last = s;
	return over;
}

int system_vmstat(struct daemon *dm, struct cgoom_reclaim *ret)
{
	struct system_files *sys = &dm->domains[0]->sys;
	size_t len;
	int r = cgfs_reread(sys->vmstat_fd, dm->buf, sizeof(dm->buf), &len);
	if (r < 0)
		return r;
	vmstat_learn_oom(dm, dm->buf, len);
	return cgoom_parse_reclaim(dm->buf, len, ret);
}

/* The system's levels now: MemTotal, MemAvailable and SwapFree against
 * their minimums; with `zswap`, zswap's figures for the reasons and the
 * history (not on the confirming re-check: no hook reads them there). */
static int read_system_levels(struct daemon *dm, struct trigger_sample *s, bool zswap)
{
	struct cgoom_meminfo mi;
	struct system_files *sys = &dm->domains[0]->sys;
	int r = system_meminfo(dm, &mi);
	if (r == 0 && mi.mem_total == 0)
		r = -EBADMSG; /* no line to measure against */
	/* never silently none (SPEC 6): the system domain watched but
	 * blind is said, once, and so is its return */
	if (r < 0 && !sys->meminfo_bad)
		log_warning("%s/meminfo is unreadable or malformed (%s): the system domain cannot "
			    "be judged, cgoom does not act on it until it reads well again",
			    dm->roots.proc_path, r == -EBADMSG ? "no MemTotal, MemAvailable or SwapFree "
			    "to go by" : strerror(-r));
	else if (r == 0 && sys->meminfo_bad)
		log_notice("%s/meminfo reads well again: the system domain is judged again",
			   dm->roots.proc_path);
	sys->meminfo_bad = r < 0;
	if (r < 0)
		return r;
	if (!(mi.present & CGOOM_MEMINFO_MEM_AVAILABLE) && !sys->memfree_said) {
		log_notice("%s/meminfo has no MemAvailable line (a kernel before 3.14?): the system's "
			   "line is measured on MemFree, which leaves out the page cache the kernel "
			   "can reclaim (said once)", dm->roots.proc_path);
		sys->memfree_said = true;
	}
	cgoom_system_low(&mi, &dm->cfg.mem_available_min, &dm->cfg.swap_free_min, &s->lv);
	s->mem_total = mi.mem_total;
	/* zswap's figures for the reasons, the swap facts and the end of
	 * swap, from the same read, only near short (where the system is
	 * watched; a line scan; kernels without the lines, or with a
	 * malformed one, give none) */
	s->zswap_stored = s->zswap_ram = 0;
	if (zswap && s->lv.swap_total > 0 && sys->meminfo_len && pressure_system_near_short(dm, s) &&
	    (cgoom_parse_meminfo_key(dm->buf, sys->meminfo_len, "Zswapped", &s->zswap_stored) < 0 ||
	     cgoom_parse_meminfo_key(dm->buf, sys->meminfo_len, "Zswap", &s->zswap_ram) < 0))
		s->zswap_stored = s->zswap_ram = 0;
	/* RAM under its line, swap not: can swap take what RAM holds?
	 * (noswap.c; the anon lines from the same read of the file) */
	struct cgoom_meminfo ma;
	uint64_t noswap;
	if (s->lv.mem_low && s->lv.swap_total > 0 && !s->lv.swap_low && sys->meminfo_len &&
	    cgoom_parse_meminfo_again(dm->buf, sys->meminfo_len, &sys->meminfo_layout,
				      CGOOM_MEMINFO_ACTIVE_ANON | CGOOM_MEMINFO_INACTIVE_ANON, &ma) == 0 &&
	    (ma.present & CGOOM_MEMINFO_ACTIVE_ANON) && (ma.present & CGOOM_MEMINFO_INACTIVE_ANON) &&
	    noswap_bytes(dm, s->at_us, &noswap) == 0)
		cgoom_system_swappable(&s->lv, ma.active_anon + ma.inactive_anon, noswap);
	return 0;
}
/* The pace the table's kinds ask for after a sample, into the event. */
static void pace_event(struct daemon *dm, struct domain *d, const struct trigger_sample *s,
		       struct trigger_event *ret)
{
	struct trigger_pace pace;
	trigger_pace_all(d, s, &dm->cfg, &pace);
	ret->next_us = pace.next_us;
	ret->level = pace.level;
	ret->headroom = pace.headroom;
	ret->rate = pace.rate;
	ret->approach = pace.approach;
}


void detect_system(struct daemon *dm, uint64_t now, bool psi_fired, struct trigger_event *ret)
{
	struct domain *d = dm->domains[0];
	*ret = (struct trigger_event){ .d = d, .t0 = now, .next_us = CGOOM_POLL_MAX_US };
	struct trigger_sample *s = &ret->s;
	s->at_us = now;
	if (read_system_levels(dm, s, true) < 0) {
		d->pressure_woke = false; /* a stale wake-up would start a watch later */
		return;
	}
	const struct cgoom_system_levels *lv = &s->lv;
	bool low = lv->mem_low && lv->swap_low;
	struct system_files *sys = &d->sys;
	sys->swap_free = lv->swap_total ? lv->swap_free : 0;
	sys->swap_total = lv->swap_total;
	sys->swap_at_us = now;
	/* PSI: a small read when pressure may have started; pressure seen
	 * makes the system watched (pressure.c) */
	struct cgoom_pressure psi;
	bool psi_ok = pressure_wanted(d, s, psi_fired, now) && domain_pressure(dm, d, &psi) == 0;
	bool watched = pressure_watch(dm, d, psi_ok ? &psi : NULL, s);
	d->pressure_woke = false;
	psi_fired = psi_polled(dm, d, psi_ok ? &psi : NULL, now, &s->psi_stall_us) || psi_fired;
	/* /proc/vmstat (a hundred and more per-CPU sums) costs more than
	 * meminfo: read it whole with every sample only near the line, on a
	 * trigger (where it is the baseline of the confirming re-check) or
	 * while the system is watched for thrashing, otherwise its head
	 * through oom_kill once in VMSTAT_IDLE_US, which is soon enough to
	 * report a kernel OOM kill made far from the system's line (a cgroup
	 * limit's). */
	struct cgoom_reclaim rc;
	bool have_rc = false;
	bool near = low || psi_fired || watched || above(lv->mem_available, lv->mem_min) <= lv->mem_min;
	bool whole = near || !sys->vmstat_ok;
	/* the system's samples come up to SCHED_EARLY_MAX_US early: so may
	 * this read, or it would wait for the sample after */
	if (sys->vmstat_fd >= 0 && (whole || now + SCHED_EARLY_MAX_US >= sys->vmstat_due_us)) {
		uint64_t oom_kill = 0;
		bool got = false;
		if (!whole) {
			got = system_vmstat_oom_kill(dm, &oom_kill) == 0;
		} else if (system_vmstat(dm, &rc) == 0) {
			have_rc = true;
			got = rc.present & CGOOM_RECLAIM_OOM_KILL;
			oom_kill = rc.oom_kill;
		}
		if (got) {
			if (sys->vmstat_ok && oom_kill > sys->vmstat_oom_kill)
				ret->kernel_kills = oom_kill - sys->vmstat_oom_kill;
			sys->vmstat_oom_kill = oom_kill;
			sys->vmstat_ok = true;
		}
		if (have_rc || got)
			sys->vmstat_due_us = now + VMSTAT_IDLE_US;
	}
	ret->oom_kill0 = sys->vmstat_oom_kill;
	s->kill_active = kl_active(&d->kill.lc);
	s->psi_fired = psi_fired;
	if (psi_ok && psi.full.present)
		s->psi = (struct cgoom_psi_sample){ .total_us = psi.full.total_us, .at_us = now, .valid = true };
	pressure_system(dm, d, psi_ok ? &psi : NULL, have_rc ? &rc : NULL, s);
	ret->kind = trigger_check_all(d, s, &dm->cfg);
	/* the level is the memory in use, swapped out included (footprints
	 * count swap: a ranking can change while RAM in use stays flat) */
	uint64_t level = above(s->mem_total, lv->mem_available) + above(lv->swap_total, lv->swap_free);
	cgoom_rate_update(&d->rate_level, level, now);
	pace_event(dm, d, s, ret);
}

/* A cgroup domain's numbers now, memory.stat's unreclaimable sum
 * included while memory.current is within the margin. */
static int read_cgroup(struct daemon *dm, struct domain *d, struct trigger_sample *s,
		       const char **ret_file)
{
	int r = sample_files(dm, d, &s->cg, ret_file);
	if (r < 0)
		return r;
	/* within the margin memory.stat tells page cache at the limit from
	 * what cannot be reclaimed (SPEC 6: the cache alone never fires),
	 * also on the first sample of a domain quiet until now, whose
	 * memory.stat is opened for it; unreadable: the limit backstop only */
	if (cgoom_cgroup_in_band(&s->cg, &d->params))
		(void)domain_memstat_once(dm, d, &s->cg);
	return 0;
}

enum cgoom_trigger detect_cgroup_check(struct domain *d, struct trigger_sample *s,
				       const struct cgoom_config *cfg)
{
	s->prev_ev = d->trig.last;
	enum cgoom_trigger kind = trigger_check_all(d, s, cfg);
	d->trig.last = s->cg.ev;
	return s->kill_active ? CGOOM_TRIGGER_NONE : kind;
}

void detect_cgroup(struct daemon *dm, struct domain *d, uint64_t now, bool psi_fired,
		   struct trigger_event *ret)
{
	*ret = (struct trigger_event){ .d = d, .t0 = now, .next_us = CGOOM_POLL_MAX_US };
	struct trigger_sample *s = &ret->s;
	s->at_us = now;
	if (d->dead)
		return;
	int r = read_cgroup(dm, d, s, &d->sample_err_file);
	d->sample_err = r < 0 ? r : 0;
	if (r < 0) {
		ret->gone = r == -ENODEV || r == -ENOENT || r == -ESTALE;
		return;
	}
	const struct cgoom_cgroup_sample *cg = &s->cg;
	ret->max_changed = d->sample_ok && cg->max != d->sample.max;
	uint64_t n;
	if (cgoom_kernel_oom_rose(&d->kernel_last, &cg->ev, &n))
		ret->kernel_kills = n;
	d->kernel_last = cg->ev;
	ret->oom_kill0 = cg->ev.oom_kill;
	struct cgoom_pressure psi;
	bool psi_ok = !d->psi_trigger && domain_pressure(dm, d, &psi) == 0;
	s->psi_fired = psi_polled(dm, d, psi_ok ? &psi : NULL, now, &s->psi_stall_us) || psi_fired;
	if (psi_ok && psi.full.present)
		s->psi = (struct cgoom_psi_sample){ .total_us = psi.full.total_us, .at_us = now, .valid = true };
	cgoom_rate_update(&d->rate_level, cg->current, now);
	if (cg->unreclaim_valid) {
		cgoom_rate_update(&d->rate_unrecl, cg->unreclaimable, now);
	} else {
		d->rate_unrecl.valid = false;
		d->rate_unrecl.bytes_per_s = 0;
	}
	s->kill_active = kl_active(&d->kill.lc);
	pressure_cgroup(dm, d, s);
	ret->kind = detect_cgroup_check(d, s, &dm->cfg);
	d->sample = *cg;
	d->sample_ok = true;
	pace_event(dm, d, s, ret);
	/* nobody in it to kill, and its cgroup.events wakes the loop when
	 * somebody comes: an empty domain at its line (memory.max 0, tmpfs
	 * files left by processes gone) neither fires nor approaches; it
	 * fired every second (the no-victim cooldown) for ever */
	if (d->empty && domain_empty_watched(d)) {
		ret->kind = CGOOM_TRIGGER_NONE;
		ret->approach = false;
	}
}

/* ---- the re-check before acting, words and numbers for the log ---- */

bool trigger_confirm(struct daemon *dm, const struct trigger_event *ev, uint64_t *ret_kernel)
{
	struct domain *d = ev->d;
	struct trigger_sample fresh = { .at_us = cgfs_now_us() };
	*ret_kernel = 0;
	if (d->system) {
		uint64_t v;
		if (d->sys.vmstat_fd >= 0 && system_vmstat_oom_kill(dm, &v) == 0 && v > ev->oom_kill0)
			*ret_kernel = v - ev->oom_kill0;
		if (read_system_levels(dm, &fresh, false) < 0)
			return false;
		if (d->psi_fd >= 0 && domain_psi_read(dm, d, fresh.at_us, &fresh.psi) < 0)
			fresh.psi.valid = false;
	} else {
		const char *file;
		if (d->dead || read_cgroup(dm, d, &fresh, &file) < 0)
			return false;
		if (fresh.cg.ev.oom_kill > ev->oom_kill0)
			*ret_kernel = fresh.cg.ev.oom_kill - ev->oom_kill0;
		if (d->psi_fd >= 0 && domain_psi_read(dm, d, fresh.at_us, &fresh.psi) < 0)
			fresh.psi.valid = false;
	}
	return trigger_confirm_kind(d, ev, &fresh, &dm->cfg);
}

void trigger_why(const struct daemon *dm, const struct trigger_event *ev, char *why, size_t cap)
{
	if (ev->kind <= CGOOM_TRIGGER_NONE || ev->kind >= CGOOM_TRIGGER_N_) {
		snprintf(why, cap, "no trigger");
		return;
	}
	trigger_table[ev->kind]->why(ev, &dm->cfg, why, cap);
}

void trigger_fields(const struct trigger_event *ev, struct cgoom_strbuf *f)
{
	if (ev->kind > CGOOM_TRIGGER_NONE && ev->kind < CGOOM_TRIGGER_N_)
		trigger_table[ev->kind]->fields(ev, f);
	else if (ev->d->system)
		trigger_fields_system(ev, f);
	else
		trigger_fields_cgroup(ev, f);
}
