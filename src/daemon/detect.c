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

/* /proc/vmstat's oom_kill is read at least this often. */
#define VMSTAT_IDLE_US 1000000ULL

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

int domain_unreclaimable(struct daemon *dm, struct domain *d, uint64_t *ret)
{
	size_t len;
	struct cgoom_unreclaim u;
	int r = cgfs_reread(d->stat_fd, dm->buf, sizeof(dm->buf), &len);
	if (r == 0)
		r = cgoom_parse_unreclaim(dm->buf, len, &u);
	if (r < 0)
		return r;
	/* swap room: what the cgroup may still swap, within what the
	 * system has free (0 without swap: nothing to read) */
	uint64_t room = 0, smax, scur;
	uint64_t swap_free = dm->domains[0]->sys.swap_free;
	if (swap_free > 0 && d->swap_max_fd >= 0 && d->swap_current_fd >= 0 &&
	    daemon_reread_limit(dm, d->swap_max_fd, &smax) == 0 &&
	    daemon_reread_u64(dm, d->swap_current_fd, &scur) == 0) {
		room = above(smax, scur);
		if (room > swap_free)
			room = swap_free;
	}
	*ret = cgoom_unreclaimable(&u, room);
	return 0;
}

int system_meminfo(struct daemon *dm, struct cgoom_meminfo *ret)
{
	size_t len;
	int r = cgfs_reread(dm->domains[0]->sys.meminfo_fd, dm->buf, sizeof(dm->buf), &len);
	return r < 0 ? r : cgoom_parse_meminfo(dm->buf, len, ret);
}

int system_vmstat_oom_kill(struct daemon *dm, uint64_t *ret)
{
	size_t len;
	int r = cgfs_reread(dm->domains[0]->sys.vmstat_fd, dm->buf, sizeof(dm->buf), &len);
	return r < 0 ? r : cgoom_parse_vmstat_oom_kill(dm->buf, len, ret);
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

static bool psi_polled(struct daemon *dm, struct domain *d, uint64_t now, uint64_t *ret_stall)
{
	if (d->psi_trigger || d->psi_fd < 0)
		return false;
	struct cgoom_psi_sample s;
	if (domain_psi_read(dm, d, now, &s) < 0)
		return false;
	bool over = cgoom_psi_over(&d->psi_last, &s, dm->cfg.psi_full_stall_us,
				   dm->cfg.psi_full_window_us, ret_stall);
	d->psi_last = s;
	return over;
}

/* A system PSI stall while a cgroup domain sits at its own limit is that
 * domain's stall (memory.high throttling and memcg reclaim count in the
 * root's PSI): the domain's own trigger acts, not the system's. */
static bool stall_owned(struct daemon *dm)
{
	for (size_t i = 1; i < dm->n_domains; i++) {
		struct domain *c = dm->domains[i];
		struct cgoom_cgroup_sample s;
		if (!c->dead && domain_sample(dm, c, &s) == 0 && cgoom_cgroup_at_limit(&s, &c->params)) {
			log_debug("system memory stall while %s is at its limit: left to that domain",
				  c->path);
			return true;
		}
	}
	return false;
}

void detect_system(struct daemon *dm, uint64_t now, bool psi_fired, struct trigger_event *ret)
{
	struct domain *d = dm->domains[0];
	*ret = (struct trigger_event){ .d = d, .t0 = now, .next_us = CGOOM_POLL_MAX_US };
	struct cgoom_meminfo mi;
	if (system_meminfo(dm, &mi) < 0)
		return;
	struct cgoom_system_levels lv;
	bool low = cgoom_system_low(&mi, &dm->cfg.mem_available_min, &dm->cfg.swap_free_min, &lv);
	struct system_files *sys = &d->sys;
	sys->swap_free = mi.swap_total ? mi.swap_free : 0;
	ret->lv = lv;
	psi_fired = psi_polled(dm, d, now, &ret->psi_stall_us) || psi_fired;
	/* /proc/vmstat (a hundred and more per-CPU sums) costs more than
	 * meminfo: read it with every sample only near the line or on a
	 * trigger (where it is the baseline of the confirming re-check),
	 * otherwise once a second, which is soon enough to report a kernel
	 * OOM kill made far from the system's line (a cgroup limit's). */
	uint64_t v;
	bool near = low || psi_fired || above(lv.mem_available, lv.mem_min) <= lv.mem_min;
	if (sys->vmstat_fd >= 0 && (near || !sys->vmstat_ok || now >= sys->vmstat_due_us) &&
	    system_vmstat_oom_kill(dm, &v) == 0) {
		if (sys->vmstat_ok && v > sys->vmstat_oom_kill)
			ret->kernel_kills = v - sys->vmstat_oom_kill;
		sys->vmstat_oom_kill = v;
		sys->vmstat_ok = true;
		sys->vmstat_due_us = now + VMSTAT_IDLE_US;
	}
	ret->oom_kill0 = sys->vmstat_oom_kill;
	ret->psi0 = d->psi_last;
	if (low) {
		ret->kind = CGOOM_TRIGGER_MEMORY;
	} else if (psi_fired && !kl_active(&d->kill.lc) && !stall_owned(dm)) {
		ret->kind = CGOOM_TRIGGER_PSI;
		struct cgoom_psi_sample s0 = { 0 };
		if (domain_psi_read(dm, d, now, &s0) == 0)
			ret->psi0 = s0;
	}
	/* MemAvailable already leaves out what cannot be reclaimed (anon
	 * and shmem without swap room, unevictable, kernel memory): the
	 * system's line stays MemAvailable (and SwapFree); what changes is
	 * how often it is looked at. The level is the memory in use. */
	uint64_t used = above(mi.mem_total, lv.mem_available);
	cgoom_rate_update(&d->rate_level, used, now);
	uint64_t headroom = above(lv.mem_available, lv.mem_min);
	uint64_t rate = d->rate_level.bytes_per_s;
	uint64_t next = cgoom_next_sample_us(headroom, rate, CGOOM_FILL_RATE_RAM);
	uint64_t worst = cgoom_system_interval_us(&lv);
	ret->next_us = next < worst ? next : worst;
	ret->level = used;
	ret->headroom = headroom;
	ret->rate = rate;
	/* a system snapshot is the costliest (every process): the system
	 * keeps a standby only within its line's own size of it, so bursty
	 * system-wide growth does not keep the one preparation thread busy
	 * while a cgroup domain races its limit */
	ret->approach = headroom <= lv.mem_min;
}

void detect_cgroup(struct daemon *dm, struct domain *d, uint64_t now, bool psi_fired,
		   struct trigger_event *ret)
{
	*ret = (struct trigger_event){ .d = d, .t0 = now, .next_us = CGOOM_POLL_MAX_US };
	if (d->dead)
		return;
	struct cgoom_cgroup_sample s;
	int r = sample_files(dm, d, &s, &d->sample_err_file);
	d->sample_err = r < 0 ? r : 0;
	if (r < 0) {
		ret->gone = r == -ENODEV || r == -ENOENT || r == -ESTALE;
		return;
	}
	ret->max_changed = d->sample_ok && s.max != d->sample.max;
	uint64_t n;
	if (cgoom_kernel_oom_rose(&d->kernel_last, &s.ev, &n))
		ret->kernel_kills = n;
	d->kernel_last = s.ev;
	ret->oom_kill0 = s.ev.oom_kill;
	psi_fired = psi_polled(dm, d, now, &ret->psi_stall_us) || psi_fired;
	ret->psi0 = d->psi_last;
	cgoom_rate_update(&d->rate_level, s.current, now);
	uint64_t u;
	if (d->stat_fd >= 0 && cgoom_cgroup_in_band(&s, &d->params) &&
	    domain_unreclaimable(dm, d, &u) == 0) {
		s.unreclaim_valid = true;
		s.unreclaimable = u;
		cgoom_rate_update(&d->rate_unrecl, u, now);
	} else {
		d->rate_unrecl.valid = false;
		d->rate_unrecl.bytes_per_s = 0;
	}
	ret->before = d->trig;
	ret->kind = cgoom_cgroup_check(&d->trig, &s, &d->params, psi_fired, now);
	if (kl_active(&d->kill.lc))
		ret->kind = CGOOM_TRIGGER_NONE;
	d->sample = s;
	d->sample_ok = true;
	ret->sample = s;
	if (s.max == UINT64_MAX)
		return;
	struct cgoom_cgroup_pace pace;
	cgoom_cgroup_pace(&s, &d->params, &d->rate_level, &d->rate_unrecl, &pace);
	ret->next_us = pace.next_us;
	ret->level = pace.level;
	ret->headroom = pace.headroom;
	ret->rate = pace.rate;
	ret->approach = pace.approach;
}

/* ---- words and numbers for the log ---- */

static const char *hs(uint64_t v, char *buf, size_t cap)
{
	if (v == UINT64_MAX)
		return "max";
	return cgoom_human_size(v, buf, cap);
}

void trigger_why(const struct daemon *dm, const struct trigger_event *ev, char *why, size_t cap)
{
	char a[32], b[32], c[32], m[32];
	const struct cgoom_cgroup_sample *s = &ev->sample;
	const struct cgoom_system_levels *lv = &ev->lv;
	switch (ev->kind) {
	case CGOOM_TRIGGER_MEMORY:
		if (lv->swap_total)
			snprintf(why, cap, "MemAvailable %s < %s and SwapFree %s < %s",
				 hs(lv->mem_available, a, sizeof(a)), hs(lv->mem_min, b, sizeof(b)),
				 hs(lv->swap_free, c, sizeof(c)), hs(lv->swap_min, m, sizeof(m)));
		else
			snprintf(why, cap, "MemAvailable %s < %s, no swap",
				 hs(lv->mem_available, a, sizeof(a)), hs(lv->mem_min, b, sizeof(b)));
		break;
	case CGOOM_TRIGGER_PSI:
		snprintf(why, cap, "PSI full stall over %llu us in a %llu us window%s",
			 (unsigned long long)dm->cfg.psi_full_stall_us,
			 (unsigned long long)dm->cfg.psi_full_window_us,
			 ev->d->psi_trigger ? " (kernel trigger)" : " (polled)");
		break;
	case CGOOM_TRIGGER_HIGH:
		snprintf(why, cap,
			 "memory.current %s in the guard band (memory.high %s, memory.max %s), "
			 "memory.events high %llu -> %llu",
			 hs(s->current, a, sizeof(a)), hs(s->high, b, sizeof(b)), hs(s->max, c, sizeof(c)),
			 (unsigned long long)ev->before.last.high, (unsigned long long)s->ev.high);
		break;
	case CGOOM_TRIGGER_UNRECLAIMABLE:
		snprintf(why, cap,
			 "unreclaimable %s within %s of memory.max %s (memory.current %s)",
			 hs(s->unreclaimable, a, sizeof(a)), hs(ev->d->params.margin, m, sizeof(m)),
			 hs(s->max, b, sizeof(b)), hs(s->current, c, sizeof(c)));
		break;
	default:
		snprintf(why, cap, "memory.current %s within %s of memory.max %s, %s",
			 hs(s->current, a, sizeof(a)), hs(ev->d->params.margin, m, sizeof(m)),
			 hs(s->max, b, sizeof(b)),
			 s->ev.oom > ev->before.last.oom   ? "memory.events oom rose"
			 : s->ev.max > ev->before.last.max ? "memory.events max rose"
							   : "PSI full stall");
		break;
	}
}

void trigger_fields(const struct trigger_event *ev, struct cgoom_strbuf *f)
{
	if (ev->d->system) {
		const struct cgoom_system_levels *lv = &ev->lv;
		cgoom_strbuf_printf(f, "\"mem_available\": %llu, \"mem_min\": %llu, \"swap_total\": %llu, "
				       "\"swap_free\": %llu, \"swap_min\": %llu, \"psi_stall_us\": %llu",
				    (unsigned long long)lv->mem_available, (unsigned long long)lv->mem_min,
				    (unsigned long long)lv->swap_total, (unsigned long long)lv->swap_free,
				    (unsigned long long)lv->swap_min, (unsigned long long)ev->psi_stall_us);
		return;
	}
	const struct cgoom_cgroup_sample *s = &ev->sample;
	cgoom_strbuf_printf(f, "\"current\": %llu, \"max\": %llu, \"high\": %lld, \"unreclaimable\": %lld, "
			       "\"events\": {\"high\": %llu, \"max\": %llu, \"oom\": %llu, "
			       "\"oom_kill\": %llu}, \"psi_stall_us\": %llu",
			    (unsigned long long)s->current, (unsigned long long)s->max,
			    s->high == UINT64_MAX ? -1LL : (long long)s->high,
			    s->unreclaim_valid ? (long long)s->unreclaimable : -1LL,
			    (unsigned long long)s->ev.high, (unsigned long long)s->ev.max,
			    (unsigned long long)s->ev.oom, (unsigned long long)s->ev.oom_kill,
			    (unsigned long long)ev->psi_stall_us);
}
