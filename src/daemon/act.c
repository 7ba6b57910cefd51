/* SPDX-License-Identifier: MIT */
/*
 * The actor: what the loop does with a fired trigger. In order:
 *  1. the standby decision (standby.c): used as is when still valid (its
 *     pidfds re-validated), else made now;
 *  2. the confirming re-check on numbers read after the decision
 *     (trigger_confirm: the fired kind's confirm hook): a trigger
 *     stands down only when its condition really cleared, and the log
 *     says whether the kernel OOM-killed in between;
 *  3. the pre-kill hook (if configured), user.oomd_ooms + 1 on the
 *     victim's cgroup (the systemd-oomd protocol), the signal through
 *     the prepared pidfds (or cgroup.kill), process_mrelease, then
 *     user.oomd_kill + n: none of it allocates;
 *  4. after the signal: the log, the ranking, the event log, metrics.
 * The kill lifecycle (lifecycle.h) then runs on pidfd and deadline
 * events.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/timerfd.h>

#include "cgoom/explain.h"
#include "daemon-internal.h"
#include "log.h"

#define NO_VICTIM_COOLDOWN_US 1000000ULL

static struct kl_params kl_params_of(const struct daemon *dm)
{
	return (struct kl_params){ .term_grace_us = dm->cfg.term_grace_us,
				   .kill_wait_us = dm->cfg.kill_wait_us };
}

bool act_any_kill_active(const struct daemon *dm)
{
	for (size_t i = 0; i < dm->n_domains; i++)
		if (kl_active(&dm->domains[i]->kill.lc))
			return true;
	return false;
}

void act_arm_deadline(struct daemon *dm)
{
	uint64_t next = UINT64_MAX;
	for (size_t i = 0; i < dm->n_domains; i++) {
		uint64_t t = kl_deadline(&dm->domains[i]->kill.lc);
		if (t < next)
			next = t;
	}
	struct itimerspec it = { 0 };
	if (next != UINT64_MAX) {
		if (next == 0)
			next = 1; /* 0 would disarm */
		it.it_value.tv_sec = (time_t)(next / 1000000);
		it.it_value.tv_nsec = (long)(next % 1000000) * 1000;
	}
	timerfd_settime(dm->deadlinefd, TFD_TIMER_ABSTIME, &it, NULL);
}

static void kill_state_clear(struct daemon *dm, struct domain *d)
{
	struct kill_state *k = &d->kill;
	for (size_t i = 0; i < k->tg.res.n_targets; i++)
		if (k->tg.res.targets[i].pidfd >= 0)
			epoll_ctl(dm->epfd, EPOLL_CTL_DEL, k->tg.res.targets[i].pidfd, NULL);
	kill_targets_free(&k->tg);
	memset(k, 0, sizeof(*k));
	k->tg.xattr_fd = -1;
}

void act_forget(struct daemon *dm, struct domain *d)
{
	kill_state_clear(dm, d);
}

bool domains_overlap(const char *a, const char *b)
{
	if (strcmp(a, "/") == 0 || strcmp(b, "/") == 0)
		return true;
	size_t la = strlen(a), lb = strlen(b);
	const char *s = la <= lb ? a : b, *l = la <= lb ? b : a;
	size_t ls = la <= lb ? la : lb;
	return strncmp(s, l, ls) == 0 && (l[ls] == '\0' || l[ls] == '/');
}

void act_note_kill(struct daemon *dm, const struct domain *k)
{
	for (size_t i = 0; i < dm->n_domains; i++)
		if (domains_overlap(dm->domains[i]->path, k->path))
			dm->domains[i]->kills_seen++;
}

int act_inflight(const struct daemon *dm, struct inflight *ret)
{
	size_t n = 0;
	*ret = (struct inflight){ 0 };
	for (size_t i = 0; i < dm->n_domains; i++) {
		const struct kill_state *k = &dm->domains[i]->kill;
		if (kl_active(&k->lc))
			n += k->tg.res.n_targets;
	}
	if (!n)
		return 0;
	ret->pids = calloc(n, sizeof(*ret->pids));
	if (!ret->pids)
		return -ENOMEM;
	for (size_t i = 0; i < dm->n_domains; i++) {
		const struct kill_state *k = &dm->domains[i]->kill;
		for (size_t t = 0; kl_active(&k->lc) && t < k->tg.res.n_targets; t++)
			if (!k->tg.exited[t])
				ret->pids[ret->n++] = k->tg.res.targets[t].pid;
	}
	return 0;
}

enum act_outcome act_outcome_of(bool ready, bool inflight, bool has_victim, bool dry_run,
				int signal_r)
{
	if (inflight)
		return ACT_INFLIGHT;
	if (!has_victim)
		return ACT_NO_VICTIM;
	if (dry_run)
		return ACT_DRY_RUN;
	if (!ready)
		return ACT_NO_VICTIM; /* every one of its processes gone or protected */
	return signal_r < 0 ? ACT_KILL_NONE : ACT_KILL;
}

static void pids_json(struct cgoom_strbuf *b, const struct cgoom_kill_result *res, bool signalled)
{
	cgoom_strbuf_append(b, "[", 1);
	bool first = true;
	for (size_t i = 0; i < res->n_targets; i++) {
		if (signalled && !res->targets[i].signalled)
			continue;
		cgoom_strbuf_printf(b, "%s%d", first ? "" : ", ", res->targets[i].pid);
		first = false;
	}
	cgoom_strbuf_append(b, "]", 1);
}

static void log_lines(enum cgoom_log_level level, const struct cgoom_strbuf *b)
{
	const char *p = b->buf ? b->buf : "";
	while (*p) {
		const char *nl = strchr(p, '\n');
		int n = nl ? (int)(nl - p) : (int)strlen(p);
		cgoom_log(level, "  %.*s", n, p);
		p += n + (nl ? 1 : 0);
	}
}

void act_kernel_oom(struct daemon *dm, struct domain *d, uint64_t n)
{
	bool inflight = kl_active(&d->kill.lc);
	log_warning("%s: the kernel OOM-killed %llu process%s%s", d->path, (unsigned long long)n,
		    n == 1 ? "" : "es", inflight ? " (while a cgoom victim was dying)" : "");
	struct cgoom_strbuf f = { 0 };
	domain_field(&f, d);
	cgoom_strbuf_printf(&f, ", \"n\": %llu, \"cgoom_kill_in_flight\": %s", (unsigned long long)n,
			    inflight ? "true" : "false");
	event_emit(dm, "kernel_oom_kill", &f);
	cgoom_strbuf_free(&f);
	metrics_kernel_oom(dm, d->path, n);
	metrics_write(dm);
}

/* ---- reporting (after the signal) ---- */

/* The trigger is reported after the signal (so that words never delay a
 * kill): its line and event say how long before they were written it
 * fired, from 100 ms on in the line, always in the event
 * (`detected_ms_ago`): a pre_kill_hook's 2 s made a trigger read as 5 ms
 * before the kernel's kill it had come 2 s ahead of. */
static void report_trigger(struct daemon *dm, const struct trigger_event *ev)
{
	char why[512], ago[64] = "";
	trigger_why(dm, ev, why, sizeof(why));
	metrics_trigger(dm, ev->d->path, ev->kind);
	uint64_t now = cgfs_now_us(), ago_ms = now > ev->t0 ? (now - ev->t0) / 1000 : 0;
	if (ago_ms >= 100)
		snprintf(ago, sizeof(ago), " (fired %llu ms before this line)", (unsigned long long)ago_ms);
	log_notice("%s: trigger %s: %s%s", ev->d->path, cgoom_trigger_name(ev->kind), why, ago);
	struct cgoom_strbuf f = { 0 };
	domain_field(&f, ev->d);
	cgoom_strbuf_printf(&f, ", \"kind\": \"%s\", \"detected_ms_ago\": %llu, \"why\": ",
			    cgoom_trigger_name(ev->kind), (unsigned long long)ago_ms);
	cgoom_strbuf_json_string(&f, why);
	cgoom_strbuf_append(&f, ", ", 2);
	trigger_fields(ev, &f);
	event_emit(dm, "trigger", &f);
	cgoom_strbuf_free(&f);
}

static void report_cleared(struct daemon *dm, const struct trigger_event *ev, uint64_t kernel)
{
	struct domain *d = ev->d;
	if (kernel)
		log_notice("%s: trigger %s cleared before acting: the kernel OOM-killed %llu "
			   "process%s in between; nothing done",
			   d->path, cgoom_trigger_name(ev->kind), (unsigned long long)kernel,
			   kernel == 1 ? "" : "es");
	else
		log_notice("%s: trigger %s cleared before acting (no kernel OOM kill in between); "
			   "nothing done", d->path, cgoom_trigger_name(ev->kind));
	struct cgoom_strbuf c = { 0 };
	domain_field(&c, d);
	cgoom_strbuf_printf(&c, ", \"kind\": \"%s\", \"kernel_oom_kills\": %llu",
			    cgoom_trigger_name(ev->kind), (unsigned long long)kernel);
	event_emit(dm, "trigger_cleared", &c);
	cgoom_strbuf_free(&c);
}

static void report_decision(struct daemon *dm, struct domain *d, const struct standby *sb,
			    struct cgoom_strbuf *json)
{
	struct cgoom_strbuf text = { 0 };
	standby_explain(sb, false, &text);
	if (!json->buf)
		standby_explain(sb, true, json);
	log_notice("%s: decision (policy %s):", d->path,
		   cgoom_policy_name(standby_decision(sb)->policy));
	log_lines(CGOOM_LOG_NOTICE, &text);
	struct cgoom_strbuf e = { 0 };
	domain_field(&e, d);
	cgoom_strbuf_printf(&e, ", \"decision\": ");
	if (json->buf)
		cgoom_strbuf_append(&e, json->buf, json->len);
	event_emit(dm, "decision", &e);
	cgoom_strbuf_free(&e);
	cgoom_strbuf_free(&text);
}

/* post_kill_hook: the decision (explain --json's object) with the
 * trigger's kind and reason and the PIDs signalled added, after the
 * signal, never waited for (pre_kill_hook delays the kill up to 2 s). */
static void post_kill(struct daemon *dm, const struct trigger_event *ev, struct cgoom_strbuf *json)
{
	if (!json->buf || json->failed || json->len == 0 || json->buf[json->len - 1] != '}')
		return;
	char why[512];
	trigger_why(dm, ev, why, sizeof(why));
	struct cgoom_strbuf b = { 0 };
	cgoom_strbuf_append(&b, json->buf, json->len - 1);
	cgoom_strbuf_printf(&b, ", \"trigger\": {\"kind\": \"%s\", \"why\": ", cgoom_trigger_name(ev->kind));
	cgoom_strbuf_json_string(&b, why);
	cgoom_strbuf_printf(&b, "}, \"signalled\": ");
	pids_json(&b, &ev->d->kill.tg.res, true);
	cgoom_strbuf_append(&b, "}", 1);
	if (!b.failed)
		post_hook_start(dm, b.buf, b.len);
	cgoom_strbuf_free(&b);
}

static void report_kill(struct daemon *dm, struct domain *d, int sig, uint64_t t0, uint64_t t1,
			bool from_standby)
{
	struct kill_state *k = &d->kill;
	const struct cgoom_kill_result *res = &k->tg.res;
	const char *method = res->used_cgroup_kill ? "cgroup.kill" : "pidfd";
	uint64_t reaction = t1 - t0;
	struct cgoom_strbuf pl = { 0 };
	pids_json(&pl, res, true);
	log_notice("%s: sent %s to %d process%s %s via %s, %llu.%03llu ms after the trigger (%s)",
		   d->path, sig == SIGKILL ? "SIGKILL" : "SIGTERM", res->n_signalled,
		   res->n_signalled == 1 ? "" : "es", pl.buf ? pl.buf : "[]", method,
		   (unsigned long long)(reaction / 1000), (unsigned long long)(reaction % 1000),
		   from_standby ? "standby decision" : "decided at the trigger");
	struct cgoom_strbuf f = { 0 };
	domain_field(&f, d);
	cgoom_strbuf_printf(&f, ", \"pids\": %s, \"method\": \"%s\", \"signal\": \"%s\", "
				"\"policy\": \"%s\", \"reaction_ms\": %llu.%03llu, \"standby\": %s",
			    pl.buf ? pl.buf : "[]", method, sig == SIGKILL ? "SIGKILL" : "SIGTERM",
			    cgoom_policy_name(k->tg.policy), (unsigned long long)(reaction / 1000),
			    (unsigned long long)(reaction % 1000), from_standby ? "true" : "false");
	storm_kill_fields(d, &f);
	event_emit(dm, "kill", &f);
	cgoom_strbuf_free(&f);
	cgoom_strbuf_free(&pl);
	metrics_kill(dm, d->path, k->tg.policy, reaction);
}

/* ---- the kill ---- */

int act_kill_from_standby(struct daemon *dm, struct domain *d, int sig, uint64_t now,
			  uint64_t *ret_signal_us)
{
	struct kill_state *k = &d->kill;
	struct kill_targets *tg = &k->tg;
	standby_take_targets(d->standby, tg);
	if (tg->xattr_fd >= 0) {
		int r = sysd_xattr_add(tg->xattr_fd, "user.oomd_ooms", 1);
		if (r < 0 && r != -EOPNOTSUPP)
			log_debug("%s: user.oomd_ooms: %s", d->path, strerror(-r));
	}
	cgoom_kill_signal(dm->roots.cgroup_fd, tg->scope_path, tg->use_cgroup_kill, sig, &tg->res);
	*ret_signal_us = cgfs_now_us();
	if (sig == SIGKILL) {
		/* the victim's memory freed here, not in its exit: the CPU
		 * that takes is cgoom's (counted for the report) */
		uint64_t c0 = cgfs_thread_cpu_us();
		cgoom_kill_release(&tg->res);
		uint64_t c1 = cgfs_thread_cpu_us();
		k->release_cpu_us = c1 > c0 ? c1 - c0 : 0;
	}
	if (tg->xattr_fd >= 0 && tg->res.n_signalled > 0)
		sysd_xattr_add(tg->xattr_fd, "user.oomd_kill", (uint64_t)tg->res.n_signalled);
	k->trigger_us = now;
	/* counted also when every victim was gone: they exited (or the
	 * kernel killed them while this decision was confirmed), so what
	 * they held was freed, and the standbys and thrashing histories from
	 * before are as stale as after a kill of cgoom's */
	act_note_kill(dm, d);
	if (tg->res.n_signalled == 0)
		return -ESRCH;
	for (size_t i = 0; i < tg->res.n_targets; i++) {
		struct cgoom_kill_target *t = &tg->res.targets[i];
		tg->watches[i] = (struct watch){ .kind = W_PIDFD, .d = d, .target = i };
		struct epoll_event ev = { .events = EPOLLIN, .data.ptr = &tg->watches[i] };
		if (!t->signalled || t->pidfd < 0 ||
		    epoll_ctl(dm->epfd, EPOLL_CTL_ADD, t->pidfd, &ev) < 0) {
			tg->exited[i] = true;
			continue;
		}
		k->n_alive++;
	}
	struct kl_params p = kl_params_of(dm);
	kl_step(&k->lc, sig == SIGKILL ? KL_EV_START_KILL : KL_EV_START_TERM, cgfs_now_us(), &p);
	return 0;
}

static void report_dry_run(struct daemon *dm, struct domain *d, const struct cgoom_decision *dec)
{
	struct cgoom_strbuf p = { 0 };
	cgoom_strbuf_append(&p, "[", 1);
	for (size_t i = 0; i < dec->n_pids; i++)
		cgoom_strbuf_printf(&p, "%s%d", i ? ", " : "", dec->pids[i]);
	cgoom_strbuf_append(&p, "]", 1);
	const char *method = dec->use_cgroup_kill ? "cgroup.kill" : "pidfd";
	log_notice("%s: dry run: would kill %s via %s", d->path, p.buf, method);
	struct cgoom_strbuf g = { 0 };
	domain_field(&g, d);
	cgoom_strbuf_printf(&g, ", \"pids\": %s, \"method\": \"%s\"", p.buf ? p.buf : "[]", method);
	event_emit(dm, "dry_run", &g);
	cgoom_strbuf_free(&g);
	cgoom_strbuf_free(&p);
}

/* How long after each outcome the domain is left alone (its trigger
 * ignored): nothing signalled, 100 ms; a dry run, kill_wait (the time
 * a victim would have had to die); no victim, 1 s. */
static uint64_t cooldown_us(const struct daemon *dm, enum act_outcome out)
{
	switch (out) {
	case ACT_KILL_NONE:
		return NO_VICTIM_COOLDOWN_US / 10;
	case ACT_DRY_RUN:
		return dm->cfg.kill_wait_us;
	case ACT_NO_VICTIM:
		return NO_VICTIM_COOLDOWN_US;
	case ACT_KILL:
	case ACT_INFLIGHT:
	case ACT_OUTCOME_MAX:
		break;
	}
	return 0;
}

/* Says what the outcome was (after the signal and the decision's log). */
static void report_outcome(struct daemon *dm, struct domain *d, const struct standby *sb,
			   enum act_outcome out)
{
	const struct cgoom_decision *dec = standby_decision(sb);
	struct cgoom_strbuf why = { 0 };
	switch (out) {
	case ACT_KILL:
		break; /* the lifecycle takes it from here */
	case ACT_KILL_NONE:
		log_warning("%s: nothing signalled (victims vanished or became protected)", d->path);
		break;
	case ACT_INFLIGHT:
		log_notice("%s: waiting for PID %d, killed earlier, to exit", d->path,
			   dec->inflight_pid);
		break;
	case ACT_DRY_RUN:
		report_dry_run(dm, d, dec);
		break;
	case ACT_NO_VICTIM:
		if (!dec->has_victim)
			standby_reason(sb, &why);
		log_warning("%s: no victim: %s", d->path,
			    dec->has_victim ? "every victim process vanished or is protected"
					    : why.buf ? why.buf : "");
		break;
	case ACT_OUTCOME_MAX:
		break;
	}
	cgoom_strbuf_free(&why);
}

void daemon_act(struct daemon *dm, const struct trigger_event *ev)
{
	struct domain *d = ev->d;
	if (kl_active(&d->kill.lc) || ev->t0 < d->cooldown_until_us || d->dead)
		return;
	if (!dm->dry_run && storm_gate(dm, ev, NULL))
		return; /* the kill-storm guard (SPEC 6, storm-act.c) said why */
	/* a standby that proves itself now is used without waiting for its
	 * preparation in flight (its result is dropped: a kill happened);
	 * otherwise that preparation is nearer done than a new one. Other
	 * domains' preparations are never waited for: they run on threads
	 * with cwds of their own */
	uint64_t now = cgfs_now_us();
	bool from_standby = standby_check(dm, d, now, ev->level, true) == SB_USE;
	if (!from_standby && standby_in_flight(dm, d)) {
		standby_wait_for(dm, d);
		now = cgfs_now_us();
		from_standby = standby_check(dm, d, now, ev->level, true) == SB_USE;
	}
	if (!from_standby) {
		struct inflight in;
		int r = act_inflight(dm, &in);
		if (r == 0)
			r = standby_prepare(dm, d, now, ev->level, &in);
		if (r == -EAGAIN) {
			/* a failed preparation's retry delay runs: said when it failed */
			log_debug("%s: trigger %s: no decision yet (retry delay after a failure)",
				  d->path, cgoom_trigger_name(ev->kind));
			return;
		}
		if (r < 0) {
			report_trigger(dm, ev);
			return;
		}
	}
	struct standby *sb = d->standby;
	uint64_t kernel, t_ready = cgfs_now_us();
	bool ok = trigger_confirm(dm, ev, &kernel);
	uint64_t t_confirmed = cgfs_now_us();
	log_debug("%s: act: detected +%llu us, decision ready +%llu us (%s), confirmed +%llu us",
		  d->path, (unsigned long long)(now - ev->t0), (unsigned long long)(t_ready - ev->t0),
		  from_standby ? "standby" : "decided now", (unsigned long long)(t_confirmed - ev->t0));
	if (!ok) {
		report_trigger(dm, ev);
		report_cleared(dm, ev, kernel);
		standby_drop(d);
		return;
	}
	const struct cgoom_decision *dec = standby_decision(sb);
	/* the outcome, once: what is done, logged, cooled down and cleaned
	 * up below follows from it */
	enum act_outcome out = act_outcome_of(standby_ready(sb), dec->inflight, dec->has_victim,
					      dm->dry_run, 0);
	if (out == ACT_KILL && storm_gate(dm, ev, sb)) {
		standby_drop(d); /* a kill that would free nothing: held back */
		metrics_write(dm);
		return;
	}
	struct cgoom_strbuf json = { 0 };
	int sig = dm->cfg.term_grace_us > 0 ? SIGTERM : SIGKILL;
	uint64_t t1 = 0;
	if (out == ACT_KILL) {
		if (dm->cfg.pre_kill_hook) {
			standby_explain(sb, true, &json);
			uint64_t h0 = cgfs_now_us();
			if (!json.failed)
				hook_run(dm, json.buf ? json.buf : "{}", json.len);
			uint64_t hook_ms = (cgfs_now_us() - h0) / 1000;
			if (hook_ms >= 100)
				log_notice("%s: pre_kill_hook: the kill waited %llu ms for it", d->path,
					   (unsigned long long)hook_ms);
		}
		uint64_t level_before = storm_level_before(dm, ev);
		int kr = act_kill_from_standby(dm, d, sig, ev->t0, &t1);
		out = act_outcome_of(true, false, true, false, kr);
		if (out == ACT_KILL)
			storm_kill_started(dm, d, level_before, t1,
					   standby_promise_at(sb, d->system, level_before));
	}
	/* everything below runs after the signal */
	report_trigger(dm, ev);
	if (kernel)
		log_notice("%s: the kernel OOM-killed %llu process%s between the trigger and the "
			   "signal; still in trouble, so cgoom acted too", d->path,
			   (unsigned long long)kernel, kernel == 1 ? "" : "es");
	bool clear_after = out == ACT_KILL_NONE;
	if (out == ACT_KILL) {
		report_kill(dm, d, sig, ev->t0, t1, from_standby);
		if (d->kill.n_alive == 0) { /* all gone already (pidfds not watchable) */
			struct kl_params p = kl_params_of(dm);
			kl_step(&d->kill.lc, KL_EV_ALL_EXITED, t1, &p);
			clear_after = true;
		}
		act_arm_deadline(dm);
	}
	report_decision(dm, d, sb, &json);
	if (out == ACT_KILL && dm->cfg.post_kill_hook)
		post_kill(dm, ev, &json);
	cgoom_strbuf_free(&json);
	report_outcome(dm, d, sb, out);
	uint64_t cool = cooldown_us(dm, out);
	if (cool)
		d->cooldown_until_us = cgfs_now_us() + cool;
	if (clear_after)
		kill_state_clear(dm, d);
	standby_drop(d); /* acted on, or of no use */
	metrics_write(dm);
}

/* ---- the lifecycle's events ---- */

static void kill_done(struct daemon *dm, struct domain *d, uint64_t now)
{
	struct kill_state *k = &d->kill;
	uint64_t ms = (now - k->lc.signal_us) / 1000;
	struct cgoom_strbuf pl = { 0 }, f = { 0 };
	pids_json(&pl, &k->tg.res, true);
	domain_field(&f, d);
	cgoom_strbuf_printf(&f, ", \"pids\": %s, \"exit_ms\": %llu, \"release_cpu_ms\": %llu",
			    pl.buf ? pl.buf : "[]", (unsigned long long)ms,
			    (unsigned long long)(k->release_cpu_us / 1000));
	char freed[128];
	storm_kill_done(dm, d, &f, freed, sizeof(freed)); /* kill accounting (SPEC 6) */
	log_notice("%s: victim%s %s exited %llu ms after the signal%s; process_mrelease took %llu ms "
		   "of cgoom's CPU",
		   d->path, k->tg.res.n_signalled == 1 ? "" : "s", pl.buf ? pl.buf : "[]",
		   (unsigned long long)ms, freed, (unsigned long long)(k->release_cpu_us / 1000));
	event_emit(dm, "victim_exit", &f);
	cgoom_strbuf_free(&f);
	cgoom_strbuf_free(&pl);
	kill_state_clear(dm, d);
	/* what rose while the victim died is spent */
	struct cgoom_cgroup_sample s;
	if (!d->system && !d->dead && domain_sample(dm, d, &s) == 0) {
		d->sample = s;
		cgoom_cgroup_baseline(&d->trig, &s);
	}
	act_arm_deadline(dm);
	metrics_write(dm);
}

void act_pidfd(struct daemon *dm, struct watch *w, uint64_t now)
{
	struct kill_state *k = &w->d->kill;
	if (!kl_active(&k->lc) || w->target >= k->tg.res.n_targets || k->tg.exited[w->target])
		return;
	k->tg.exited[w->target] = true;
	epoll_ctl(dm->epfd, EPOLL_CTL_DEL, k->tg.res.targets[w->target].pidfd, NULL);
	if (--k->n_alive > 0)
		return;
	struct kl_params p = kl_params_of(dm);
	if (kl_step(&k->lc, KL_EV_ALL_EXITED, now, &p) == KL_ACT_REPORT_EXIT)
		kill_done(dm, w->d, now);
}

static void escalate(struct daemon *dm, struct domain *d, const char *why)
{
	struct kill_state *k = &d->kill;
	struct kill_targets *tg = &k->tg;
	int n = 0;
	const char *method = "pidfd";
	/* the scope's membership checked again: a process that joined it
	 * during the grace is no target (SPEC 5) */
	if (tg->use_cgroup_kill && tg->scope_path &&
	    cgoom_cgroup_kill_scope(dm->roots.cgroup_fd, tg->scope_path, &tg->res) == 0) {
		method = "cgroup.kill";
		n = (int)k->n_alive;
	} else {
		for (size_t i = 0; i < tg->res.n_targets; i++) {
			int fd = tg->res.targets[i].pidfd;
			if (tg->exited[i] || fd < 0)
				continue;
			if (cgoom_pidfd_send_signal(fd, SIGKILL) == 0) {
				cgoom_process_mrelease(fd);
				n++;
			}
		}
	}
	log_notice("%s: %s: SIGKILL to %d process%s still alive, via %s", d->path, why, n,
		   n == 1 ? "" : "es", method);
	struct cgoom_strbuf f = { 0 };
	domain_field(&f, d);
	cgoom_strbuf_printf(&f, ", \"signal\": \"SIGKILL\", \"method\": \"%s\", \"n\": %d, "
				"\"after_term_ms\": %llu",
			    method, n, (unsigned long long)((cgfs_now_us() - k->lc.signal_us) / 1000));
	event_emit(dm, "kill_escalate", &f);
	cgoom_strbuf_free(&f);
}

void act_finish_on_exit(struct daemon *dm)
{
	struct kl_params p = kl_params_of(dm);
	for (size_t i = 0; i < dm->n_domains; i++) {
		struct domain *d = dm->domains[i];
		struct kill_state *k = &d->kill;
		/* the grace's end, now: the kill this daemon began is finished
		 * by it, not left to a victim that ignores SIGTERM */
		if (!d->dead && k->lc.state == KL_TERM &&
		    kl_step(&k->lc, KL_EV_TICK, k->lc.grace_until_us, &p) == KL_ACT_SIGKILL)
			escalate(dm, d, "exiting in term_grace");
	}
}

void act_deadline(struct daemon *dm, uint64_t now)
{
	struct kl_params p = kl_params_of(dm);
	for (size_t i = 0; i < dm->n_domains; i++) {
		struct domain *d = dm->domains[i];
		struct kill_state *k = &d->kill;
		/* at most two steps: SIGKILL after the grace, then giving up */
		for (int step = 0; step < 2 && kl_active(&k->lc); step++) {
			enum kl_action a = kl_step(&k->lc, KL_EV_TICK, now, &p);
			if (a == KL_ACT_SIGKILL) {
				escalate(dm, d, "term_grace over");
			} else if (a == KL_ACT_REPORT_TIMEOUT) {
				log_warning("%s: %zu victim%s still alive %llu ms after the signal; "
					    "moving on", d->path, k->n_alive, k->n_alive == 1 ? "" : "s",
					    (unsigned long long)((now - k->lc.signal_us) / 1000));
				struct cgoom_strbuf f = { 0 };
				domain_field(&f, d);
				cgoom_strbuf_printf(&f, ", \"alive\": %zu", k->n_alive);
				storm_kill_done(dm, d, &f, NULL, 0);
				event_emit(dm, "kill_timeout", &f);
				cgoom_strbuf_free(&f);
				kill_state_clear(dm, d);
			} else {
				break;
			}
		}
	}
	act_arm_deadline(dm);
}
