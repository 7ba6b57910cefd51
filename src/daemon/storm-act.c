/* SPDX-License-Identifier: MIT */
/*
 * The kill-storm guard and kill accounting in the daemon (SPEC 6): the
 * few points act.c calls, the reading of the domain's memory in use,
 * and the words, events and metrics. What to do is storm.c's.
 *
 *   storm_gate()         before deciding (sb NULL) and before the signal:
 *                        whether the guard holds the kill back;
 *   storm_level_before() memory in use before the signal;
 *   storm_kill_started() the kill went out: counted, its promise kept;
 *   storm_kill_done()    the victims are gone (or kill_wait is over):
 *                        what the domain freed against the promise.
 */
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "cgoom/explain.h"
#include "daemon-internal.h"
#include "log.h"
#include "storm.h"

#define HOLD_LOG_EVERY_US (10 * 1000000ULL) /* a held domain says so at most this often */
#define HOLD_RECHECK_US 1000000ULL           /* and is looked at again after this */

static struct cgoom_storm limit_of(const struct daemon *dm, const struct domain *d)
{
	const struct cgoom_cgroup_conf *g = cgoom_config_lookup(&dm->cfg, d->path, CGOOM_CONF_KILL_STORM);
	return g ? g->kill_storm : dm->cfg.kill_storm;
}

static const char *hs(uint64_t v, char *buf, size_t cap)
{
	return cgoom_human_size(v, buf, cap);
}

static const char *dur(uint64_t us, char *buf, size_t cap)
{
	if (us % 60000000 == 0 && us >= 60000000)
		snprintf(buf, cap, "%llum", (unsigned long long)(us / 60000000));
	else if (us % 1000000 == 0)
		snprintf(buf, cap, "%llus", (unsigned long long)(us / 1000000));
	else
		snprintf(buf, cap, "%llums", (unsigned long long)(us / 1000));
	return buf;
}

static void report_hold(struct daemon *dm, const struct trigger_event *ev,
			const struct storm_signs *sg, const struct cgoom_storm *p, uint64_t now,
			uint64_t n, bool heading, uint64_t promise, bool decided, enum storm_verdict v)
{
	struct domain *d = ev->d;
	struct storm_state *st = &d->storm;
	char why[512], w[32], a[32], b[32], c[32], e[32], rate_buf[32];
	unsigned recent = storm_recent(st, p, now);
	uint64_t free_at = storm_free_at(st, p, now);
	trigger_why(dm, ev, why, sizeof(why));
	char reason[512];
	bool unfree = v == STORM_HOLD_UNFREEABLE;
	if (unfree)
		snprintf(reason, sizeof(reason),
			 "memory no kill can free (%s of shmem and tmpfs no process maps, beyond the swap "
			 "room) keeps the domain within %s of memory.max %s by itself, and the domain is "
			 "not heading for the kernel's OOM (its memory in use %s, %s from the kernel's OOM, "
			 "grows %s/s; no kernel OOM kill): no kill can take it out of trouble, unless "
			 "a process holds some of it open as a deleted file or memfd",
			 hs(ev->s.cg.unfreeable, e, sizeof(e)), hs(d->params.margin, w, sizeof(w)),
			 hs(ev->s.cg.max, a, sizeof(a)), hs(ev->level, b, sizeof(b)),
			 hs(sg->headroom, c, sizeof(c)), hs(sg->rate, rate_buf, sizeof(rate_buf)));
	else if (!heading)
		snprintf(reason, sizeof(reason),
			 "the domain is not heading for the kernel's OOM (its memory in use %s, "
			 "%s from the kernel's OOM, grows %s/s; no kernel OOM kill): a kill now frees "
			 "what it holds, not what keeps the domain at its line",
			 hs(ev->level, a, sizeof(a)), hs(sg->headroom, b, sizeof(b)),
			 hs(sg->rate, c, sizeof(c)));
	else
		snprintf(reason, sizeof(reason), "the victim would free nothing (its kill promises %s)",
			 hs(promise, a, sizeof(a)));
	char last[160] = "";
	if (st->last_expected || st->last_freed)
		snprintf(last, sizeof(last), "; the last kill freed %s of the %s it promised",
			 hs(st->last_freed, a, sizeof(a)), hs(st->last_expected, e, sizeof(e)));
	if (unfree)
		log_warning("%s: kill-storm guard holds back: %s (%u kills in the last %s)%s; trigger %s: "
			    "%s; %llu trigger%s held back%s; a kill comes once the domain grows towards "
			    "memory.max",
			    d->path, reason, recent, dur(p->window_us, w, sizeof(w)), last,
			    cgoom_trigger_name(ev->kind), why, (unsigned long long)n, n == 1 ? "" : "s",
			    n == 1 ? "" : " since the last line");
	else
		log_warning("%s: kill-storm guard holds back: %u kills in the last %s (kill_storm = %u/%s) "
			    "and %s%s; trigger %s: %s; %llu trigger%s held back%s; next kill allowed in %llu s",
			    d->path, recent, dur(p->window_us, w, sizeof(w)), p->kills, w, reason, last,
			    cgoom_trigger_name(ev->kind), why, (unsigned long long)n, n == 1 ? "" : "s",
			    n == 1 ? "" : " since the last line",
			    (unsigned long long)((free_at > now ? free_at - now : 0) + 999999) / 1000000);
	if (unfree)
		free_at = now;
	struct cgoom_strbuf f = { 0 };
	domain_field(&f, d);
	cgoom_strbuf_printf(&f, ", \"kind\": \"%s\", \"recent_kills\": %u, \"limit\": %u, "
				"\"window_ms\": %llu, \"heading\": %s, \"decided\": %s, \"held\": %llu, "
				"\"next_kill_in_ms\": %llu",
			    cgoom_trigger_name(ev->kind), recent, p->kills,
			    (unsigned long long)(p->window_us / 1000), heading ? "true" : "false",
			    decided ? "true" : "false", (unsigned long long)n,
			    (unsigned long long)((free_at > now ? free_at - now : 0) / 1000));
	if (unfree)
		cgoom_strbuf_printf(&f, ", \"unfreeable_bytes\": %llu",
				    (unsigned long long)ev->s.cg.unfreeable);
	cgoom_strbuf_printf(&f, ", \"why\": ");
	cgoom_strbuf_json_string(&f, reason);
	event_emit(dm, "storm_hold", &f);
	cgoom_strbuf_free(&f);
}

/* What the guard asks storm_heading about: the kind, the kernel's own
 * kills, the distance to the kernel's OOM (a cgroup's memory.max less
 * memory.current; the system's line, MemAvailable and swap, for the
 * system) and the growth since the last kill's victims were gone. */
static void signs_of(struct daemon *dm, const struct trigger_event *ev, uint64_t now,
		     struct storm_signs *ret)
{
	const struct domain *d = ev->d;
	const struct cgoom_cgroup_sample *cg = &ev->s.cg;
	uint64_t headroom = ev->headroom;
	if (!d->system)
		headroom = cg->max > cg->current ? cg->max - cg->current : 0;
	/* the charge stocks' slack; unknown (no CPU count): every byte of
	 * growth counts, the side on which the guard yields */
	const struct sched *s = &dm->sched;
	uint64_t noise = 0;
	if (s->page_size && s->slack_pages <= UINT64_MAX / s->page_size)
		noise = s->slack_pages * s->page_size;
	*ret = (struct storm_signs){
		.kind = ev->kind,
		.rate = storm_growth(&d->storm, storm_level_before(dm, ev), now, noise, ev->rate),
		.headroom = headroom,
		.kernel_kills = ev->kernel_kills,
	};
}

bool storm_gate(struct daemon *dm, const struct trigger_event *ev, const struct standby *sb)
{
	struct domain *d = ev->d;
	struct cgoom_storm p = limit_of(dm, d);
	uint64_t now = cgfs_now_us();
	uint64_t promise = sb ? standby_promise(sb) : 0;
	bool frees = sb ? promise > 0 : true;
	struct storm_signs sg = { 0 };
	bool heading = false;
	/* memory no kill can free keeps the unreclaimable trigger by itself */
	bool unfreeable = !d->system && ev->kind == CGOOM_TRIGGER_UNRECLAIMABLE &&
			  cgoom_cgroup_unfreeable_near(&ev->s.cg, &d->params);
	enum storm_verdict v = storm_check(&d->storm, &p, now, heading, frees);
	if (v != STORM_ALLOW || unfreeable) {
		/* over the limit, or no kill can help: where the domain is
		 * going (a read of its swap, so only here, not on every kill's
		 * way) */
		signs_of(dm, ev, now, &sg);
		heading = storm_heading(&sg, storm_horizon(p.window_us));
		if (sb) {
			promise = standby_promise_at(sb, d->system, storm_level_before(dm, ev));
			frees = promise > 0;
		}
		v = storm_check_unfreeable(&d->storm, &p, now, heading, frees, unfreeable);
	}
	if (v == STORM_ALLOW) {
		storm_release(&d->storm);
		return false;
	}
	if (v == STORM_ALLOW_HEADING) {
		if (sb) {
			char w[32], a[32], b[32], c[32];
			log_notice("%s: kill-storm guard: %u kills in the last %s, but the domain is still "
				   "heading for the kernel's OOM (%s from it, grows %s/s, trigger %s) and "
				   "the kill frees %s: not holding back",
				   d->path, storm_recent(&d->storm, &p, now), dur(p.window_us, w, sizeof(w)),
				   hs(sg.headroom, c, sizeof(c)), hs(sg.rate, a, sizeof(a)),
				   cgoom_trigger_name(ev->kind),
				   hs(promise, b, sizeof(b)));
			storm_release(&d->storm);
		}
		return false;
	}
	uint64_t n = storm_hold(&d->storm, now, HOLD_LOG_EVERY_US);
	metrics_storm_hold(dm, d->path);
	d->cooldown_until_us = now + HOLD_RECHECK_US;
	if (n)
		report_hold(dm, ev, &sg, &p, now, n, heading, promise, sb != NULL, v);
	return true;
}

/* The domain's memory in use, swap included: a cgroup's memory.current
 * + memory.swap.current, the system's MemTotal - MemAvailable + swap in
 * use (what a kill's footprint is made of is charged there). */
static int level_now(struct daemon *dm, struct domain *d, uint64_t *ret)
{
	if (d->system) {
		struct cgoom_meminfo mi;
		if (system_meminfo(dm, &mi) < 0)
			return -1;
		uint64_t avail = (mi.present & CGOOM_MEMINFO_MEM_AVAILABLE) ? mi.mem_available : mi.mem_free;
		*ret = (mi.mem_total > avail ? mi.mem_total - avail : 0) +
		       (mi.swap_total > mi.swap_free ? mi.swap_total - mi.swap_free : 0);
		return 0;
	}
	struct cgoom_cgroup_sample s;
	uint64_t swap = 0;
	if (d->dead || domain_sample(dm, d, &s) < 0)
		return -1;
	if (d->swap_current_fd >= 0 && daemon_reread_u64(dm, d->swap_current_fd, &swap) < 0)
		swap = 0;
	*ret = s.current + swap;
	return 0;
}

uint64_t storm_level_before(struct daemon *dm, const struct trigger_event *ev)
{
	struct domain *d = ev->d;
	if (d->system) {
		const struct cgoom_system_levels *lv = &ev->s.lv;
		return (ev->s.mem_total > lv->mem_available ? ev->s.mem_total - lv->mem_available : 0) +
		       (lv->swap_total > lv->swap_free ? lv->swap_total - lv->swap_free : 0);
	}
	/* memory.current as the trigger sampled it (a millisecond ago), the
	 * swap read now: one read on the way to the signal, no allocation */
	uint64_t swap = 0;
	if (d->swap_current_fd >= 0 && daemon_reread_u64(dm, d->swap_current_fd, &swap) < 0)
		swap = 0;
	return ev->s.cg.current + swap;
}

void storm_kill_started(struct daemon *dm, struct domain *d, uint64_t level_before,
			uint64_t signal_us, uint64_t promise)
{
	(void)dm;
	storm_record_kill(&d->storm, signal_us, level_before, promise);
	storm_release(&d->storm);
}

void storm_kill_fields(const struct domain *d, struct cgoom_strbuf *f)
{
	if (d->storm.pending)
		cgoom_strbuf_printf(f, ", \"expected_bytes\": %llu", (unsigned long long)d->storm.expected);
}

void storm_kill_done(struct daemon *dm, struct domain *d, struct cgoom_strbuf *f, char *text,
		     size_t cap)
{
	struct storm_state *st = &d->storm;
	if (text && cap)
		text[0] = '\0';
	if (!st->pending)
		return;
	st->pending = false;
	uint64_t after;
	char a[32], b[32];
	if (level_now(dm, d, &after) < 0) {
		cgoom_strbuf_printf(f, ", \"expected_bytes\": %llu", (unsigned long long)st->expected);
		return;
	}
	storm_record_after(st, cgfs_now_us(), after);
	uint64_t freed = storm_freed(st->level_before, after);
	bool short_ = storm_short(st->expected, freed);
	st->last_freed = freed;
	st->last_expected = st->expected;
	cgoom_strbuf_printf(f, ", \"freed_bytes\": %llu, \"expected_bytes\": %llu, \"freed_short\": %s",
			    (unsigned long long)freed, (unsigned long long)st->expected,
			    short_ ? "true" : "false");
	metrics_kill_freed(dm, d->path, freed, st->expected, short_);
	if (text)
		snprintf(text, cap, "; the domain freed %s (the kill promised %s)", hs(freed, a, sizeof(a)),
			 hs(st->expected, b, sizeof(b)));
	if (short_)
		log_warning("%s: the kill freed only %s of the %s its victim's footprint promised: what "
			    "stays charged is memory no kill frees (shmem or tmpfs files some process "
			    "had mapped, pages other processes share, kernel memory), or the domain grew "
			    "meanwhile; repeated kills are limited by kill_storm",
			    d->path, hs(freed, a, sizeof(a)), hs(st->expected, b, sizeof(b)));
}

void storm_metrics_render(const struct daemon *dm, struct cgoom_strbuf *b)
{
	static const struct {
		const char *name, *help;
		size_t off;
	} m[] = {
		{ "cgoom_kill_freed_bytes_total",
		  "Bytes the domain freed over cgoom's kills (memory in use before the signal minus once the victims were gone).",
		  offsetof(struct metric_row, freed_bytes) },
		{ "cgoom_kill_expected_bytes_total", "Bytes cgoom's kills promised to free (the victims' footprints).",
		  offsetof(struct metric_row, expected_bytes) },
		{ "cgoom_kills_short_total", "Kills that freed less than half of what they promised.",
		  offsetof(struct metric_row, kills_short) },
		{ "cgoom_storm_holds_total", "Triggers the kill-storm guard held back (kill_storm).",
		  offsetof(struct metric_row, storm_holds) },
	};
	for (size_t k = 0; k < sizeof(m) / sizeof(m[0]); k++) {
		cgoom_strbuf_printf(b, "# HELP %s %s\n# TYPE %s counter\n", m[k].name, m[k].help, m[k].name);
		for (size_t i = 0; i < dm->ev.n_rows; i++) {
			uint64_t v = *(const uint64_t *)((const char *)&dm->ev.rows[i] + m[k].off);
			if (!v)
				continue;
			cgoom_strbuf_printf(b, "%s{domain=", m[k].name);
			metrics_label(b, dm->ev.rows[i].domain);
			cgoom_strbuf_printf(b, "} %llu\n", (unsigned long long)v);
		}
	}
}
