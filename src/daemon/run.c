/* SPDX-License-Identifier: MIT */
/*
 * `cgoom run`: one epoll loop over
 *   - a signalfd (SIGHUP reload, SIGTERM/SIGINT clean exit),
 *   - a timerfd polling /proc/meminfo and every domain's counters at the
 *     adaptive interval of cgoom_system_interval_us() and
 *     cgoom_cgroup_interval_us() (100 ms near a threshold .. 1 s idle),
 *     rescanning the cgroup tree every RESCAN_US,
 *   - a second timerfd for deadlines (SIGKILL after term_grace, give up
 *     waiting after kill_wait),
 *   - PSI triggers (EPOLLPRI) on /proc/pressure/memory and each domain's
 *     memory.pressure, memory.events of each domain (EPOLLPRI on change),
 *   - the pidfds of victims still dying.
 *
 * Allocation on the kill path: checking a trigger allocates nothing (kept
 * fds re-read into dm->buf), but acting on one does: the fresh snapshot
 * (cgoom_snapshot_read) and the decision grow heap buffers, and the
 * explanation is rendered into a strbuf. mlockall(MCL_FUTURE) keeps what
 * was allocated resident; new allocations under pressure can still stall
 * in reclaim. The kill syscalls themselves need no memory.
 *
 * CGOOM_RUN_ONCE=1 (for tests): discover the domains, evaluate every
 * trigger once against the counters as they stand (memory.events counts
 * since creation count as "rose"; PSI needs two samples and so never
 * fires), act or log, wait for victims (bounded by kill_wait), exit 0.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/mman.h>
#include <sys/signalfd.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>

#include "cgoom/explain.h"
#include "daemon-internal.h"
#include "daemon.h"
#include "log.h"

#define RESCAN_US 3000000ULL
#define METRICS_US 10000000ULL
#define NO_VICTIM_COOLDOWN_US 1000000ULL

uint64_t daemon_now_us(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000ULL + (uint64_t)ts.tv_nsec / 1000;
}

/* ---- config ---- */

/* Reads and parses the config; a missing default file means defaults.
 * Errors are logged as "FILE:LINE: msg". */
static int config_load(const char *path, bool given, struct cgoom_config *ret)
{
	FILE *f = fopen(path, "re");
	if (!f) {
		if (errno == ENOENT && !given) {
			cgoom_config_init(ret);
			return 0;
		}
		int e = errno;
		log_error("%s: %s", path, strerror(e));
		return -e;
	}
	struct cgoom_strbuf b = { 0 };
	char chunk[4096];
	size_t n;
	while ((n = fread(chunk, 1, sizeof(chunk), f)) > 0 && b.len < (1u << 20))
		cgoom_strbuf_append(&b, chunk, n);
	int rerr = ferror(f);
	fclose(f);
	if (rerr || b.failed) {
		log_error("%s: %s", path, rerr ? "read error" : "out of memory");
		cgoom_strbuf_free(&b);
		return rerr ? -EIO : -ENOMEM;
	}
	struct cgoom_config_error err = { 0 };
	int r = cgoom_config_parse(b.buf ? b.buf : "", b.len, ret, &err);
	cgoom_strbuf_free(&b);
	if (r < 0) {
		if (err.line > 0)
			log_error("%s:%d: %s", path, err.line, err.msg);
		else
			log_error("%s: %s", path, err.msg[0] ? err.msg : strerror(-r));
	}
	return r;
}

/* ---- timers ---- */

static void arm(int fd, uint64_t us, bool absolute)
{
	struct itimerspec it = { 0 };
	if (us == 0 && absolute)
		us = 1; /* 0 would disarm */
	it.it_value.tv_sec = (time_t)(us / 1000000);
	it.it_value.tv_nsec = (long)(us % 1000000) * 1000;
	if (!absolute && us == 0)
		it.it_value.tv_nsec = 1;
	timerfd_settime(fd, absolute ? TFD_TIMER_ABSTIME : 0, &it, NULL);
}

static void disarm(int fd)
{
	struct itimerspec it = { 0 };
	timerfd_settime(fd, 0, &it, NULL);
}

static void drain(int fd)
{
	uint64_t n;
	while (read(fd, &n, sizeof(n)) == (ssize_t)sizeof(n))
		;
}

static void arm_deadline(struct daemon *dm)
{
	uint64_t next = UINT64_MAX;
	for (size_t i = 0; i < dm->n_domains; i++) {
		const struct kill_state *k = &dm->domains[i]->kill;
		if (!k->active)
			continue;
		if (k->term_phase && k->grace_until_us < next)
			next = k->grace_until_us;
		if (k->wait_until_us < next)
			next = k->wait_until_us;
	}
	if (next == UINT64_MAX)
		disarm(dm->deadlinefd);
	else
		arm(dm->deadlinefd, next, true);
}

static bool any_kill_active(const struct daemon *dm)
{
	for (size_t i = 0; i < dm->n_domains; i++)
		if (dm->domains[i]->kill.active)
			return true;
	return false;
}

/* ---- logging helpers ---- */

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

static void domain_field(struct cgoom_strbuf *b, const struct domain *d)
{
	cgoom_strbuf_printf(b, "\"domain\": ");
	cgoom_strbuf_json_string(b, d->path);
}

/* ---- the kill path ---- */

static void kill_clear(struct daemon *dm, struct domain *d)
{
	struct kill_state *k = &d->kill;
	for (size_t i = 0; i < k->res.n_targets; i++)
		if (k->res.targets[i].pidfd >= 0)
			epoll_ctl(dm->epfd, EPOLL_CTL_DEL, k->res.targets[i].pidfd, NULL);
	cgoom_kill_result_free(&k->res);
	free(k->watches);
	free(k->exited);
	free(k->scope_path);
	memset(k, 0, sizeof(*k));
}

static void set_inflight(struct daemon *dm)
{
	size_t n = 0;
	for (size_t i = 0; i < dm->n_domains; i++) {
		const struct kill_state *k = &dm->domains[i]->kill;
		for (size_t t = 0; k->active && t < k->res.n_targets; t++) {
			if (k->exited[t])
				continue;
			if (n == dm->cap_inflight) {
				size_t cap = dm->cap_inflight ? dm->cap_inflight * 2 : 64;
				int *p = realloc(dm->inflight, cap * sizeof(*p));
				if (!p)
					break;
				dm->inflight = p;
				dm->cap_inflight = cap;
			}
			dm->inflight[n++] = k->res.targets[t].pid;
		}
	}
	dm->snap.inflight = dm->inflight;
	dm->snap.n_inflight = n;
}

/* The trigger again, with numbers read after the snapshot. */
static bool recheck(struct daemon *dm, struct domain *d, enum cgoom_trigger kind,
		    const struct cgoom_psi_sample *psi0)
{
	if (d->system) {
		struct cgoom_meminfo mi;
		if (system_meminfo(dm, &mi) == 0 &&
		    cgoom_system_low(&mi, &dm->cfg.mem_available_min, &dm->cfg.swap_free_min, NULL))
			return true;
		if (kind != CGOOM_TRIGGER_PSI)
			return false;
		struct cgoom_psi_sample s;
		/* still stalling: full total grew since the trigger was seen */
		return psi0->valid && domain_psi_read(dm, d, daemon_now_us(), &s) == 0 &&
		       s.total_us > psi0->total_us;
	}
	if (d->dead || domain_sample(dm, d) < 0)
		return false;
	return cgoom_cgroup_at_limit(&d->sample, &d->params);
}

static void kill_start(struct daemon *dm, struct domain *d, uint64_t t0)
{
	struct kill_state *k = &d->kill;
	int sig = dm->cfg.term_grace_us > 0 ? SIGTERM : SIGKILL;
	int r = cgoom_kill(&dm->roots, &dm->snap, &dm->dec, sig, &k->res);
	uint64_t t1 = daemon_now_us();
	if (r < 0 || k->res.n_signalled == 0) {
		if (r < 0)
			log_error("%s: kill failed: %s", d->path, strerror(-r));
		else
			log_warning("%s: nothing signalled (victims vanished or became protected)",
				    d->path);
		kill_clear(dm, d);
		d->cooldown_until_us = t1 + NO_VICTIM_COOLDOWN_US;
		return;
	}
	size_t n = k->res.n_targets;
	k->watches = calloc(n, sizeof(*k->watches));
	k->exited = calloc(n, sizeof(*k->exited));
	if (!k->watches || !k->exited) {
		log_error("%s: out of memory tracking victims", d->path);
		kill_clear(dm, d);
		return;
	}
	for (size_t i = 0; i < n; i++) {
		struct cgoom_kill_target *t = &k->res.targets[i];
		k->watches[i] = (struct watch){ .kind = W_PIDFD, .d = d, .target = i };
		struct epoll_event ev = { .events = EPOLLIN, .data.ptr = &k->watches[i] };
		if (!t->signalled || t->pidfd < 0 ||
		    epoll_ctl(dm->epfd, EPOLL_CTL_ADD, t->pidfd, &ev) < 0) {
			k->exited[i] = true;
			continue;
		}
		k->n_alive++;
	}
	k->active = true;
	k->policy = dm->dec.policy;
	k->cgroup_kill = dm->dec.use_cgroup_kill;
	if (dm->dec.scope >= 0)
		k->scope_path = strdup(dm->snap.cgroups[dm->dec.scope].path);
	k->term_phase = sig == SIGTERM;
	k->trigger_us = t0;
	k->signal_us = t1;
	k->grace_until_us = t1 + dm->cfg.term_grace_us;
	k->wait_until_us = t1 + dm->cfg.term_grace_us + dm->cfg.kill_wait_us;

	const char *method = k->res.used_cgroup_kill ? "cgroup.kill" : "pidfd";
	uint64_t reaction = t1 - t0;
	struct cgoom_strbuf pl = { 0 };
	pids_json(&pl, &k->res, true);
	log_notice("%s: sent %s to %d process%s %s via %s, %llu.%03llu ms after the trigger",
		   d->path, sig == SIGKILL ? "SIGKILL" : "SIGTERM", k->res.n_signalled,
		   k->res.n_signalled == 1 ? "" : "es", pl.buf ? pl.buf : "[]", method,
		   (unsigned long long)(reaction / 1000), (unsigned long long)(reaction % 1000));
	struct cgoom_strbuf f = { 0 };
	domain_field(&f, d);
	cgoom_strbuf_printf(&f, ", \"pids\": %s, \"method\": \"%s\", \"signal\": \"%s\", "
				"\"policy\": \"%s\", \"reaction_ms\": %llu.%03llu",
			    pl.buf ? pl.buf : "[]", method, sig == SIGKILL ? "SIGKILL" : "SIGTERM",
			    cgoom_policy_name(k->policy), (unsigned long long)(reaction / 1000),
			    (unsigned long long)(reaction % 1000));
	event_emit(dm, "kill", &f);
	cgoom_strbuf_free(&f);
	cgoom_strbuf_free(&pl);
	metrics_kill(dm, d->path, k->policy, reaction);
	metrics_write(dm);
	if (k->n_alive == 0) /* all gone already (their pidfds could not be watched) */
		k->wait_until_us = t1;
	arm_deadline(dm);
}

/* Frees the kill path's snapshot and its lazy reader. */
static void snap_drop(struct daemon *dm)
{
	if (dm->have_snap)
		cgoom_snapshot_free(&dm->snap);
	cgoom_reader_free(dm->rd);
	dm->rd = NULL;
	dm->have_snap = false;
}

void daemon_act(struct daemon *dm, struct domain *d, enum cgoom_trigger kind, uint64_t t0,
		const char *why, const struct cgoom_strbuf *fields,
		const struct cgoom_psi_sample *psi0)
{
	if (d->kill.active || t0 < d->cooldown_until_us)
		return;
	metrics_trigger(dm, d->path, kind);
	log_notice("%s: trigger %s: %s", d->path, cgoom_trigger_name(kind), why);
	struct cgoom_strbuf f = { 0 };
	domain_field(&f, d);
	cgoom_strbuf_printf(&f, ", \"kind\": \"%s\", \"why\": ", cgoom_trigger_name(kind));
	cgoom_strbuf_json_string(&f, why);
	if (fields && fields->len) {
		cgoom_strbuf_append(&f, ", ", 2);
		cgoom_strbuf_append(&f, fields->buf, fields->len);
	}
	event_emit(dm, "trigger", &f);
	cgoom_strbuf_free(&f);

	snap_drop(dm);
	/* branch and bound: cgroups that cannot win are not read whole */
	int r = cgoom_snapshot_read_lazy(&dm->roots, &dm->snap, &dm->rd);
	if (r < 0) {
		log_error("%s: reading the snapshot: %s", d->path, strerror(-r));
		return;
	}
	dm->have_snap = true;
	r = cgoom_settings_resolve(&dm->snap, &dm->cfg);
	int idx = r < 0 ? r : cgoom_snapshot_find(&dm->snap, d->path);
	if (idx < 0) {
		log_warning("%s: not in the fresh snapshot (%s)", d->path, strerror(-idx));
		return;
	}
	set_inflight(dm);
	r = cgoom_select_lazy(dm->rd, &dm->snap, idx, &dm->dec);
	if (r < 0) {
		log_error("%s: selecting: %s", d->path, strerror(-r));
		return;
	}
	if (!recheck(dm, d, kind, psi0)) {
		log_notice("%s: trigger %s cleared before acting; nothing done", d->path,
			   cgoom_trigger_name(kind));
		struct cgoom_strbuf c = { 0 };
		domain_field(&c, d);
		cgoom_strbuf_printf(&c, ", \"kind\": \"%s\"", cgoom_trigger_name(kind));
		event_emit(dm, "trigger_cleared", &c);
		cgoom_strbuf_free(&c);
		return;
	}
	/* Kill first, explain after: rendering and logging the ranking costs
	 * milliseconds the victim's memory should not have to wait for. Only
	 * a pre_kill_hook needs the decision before the signal. */
	struct cgoom_strbuf text = { 0 }, json = { 0 };
	bool kill_now = !dm->dec.inflight && dm->dec.has_victim && !dm->dry_run;
	if (kill_now) {
		if (dm->cfg.pre_kill_hook) {
			cgoom_explain_json(&json, &dm->snap, &dm->dec);
			if (!json.failed)
				hook_run(dm, json.buf ? json.buf : "{}", json.len);
		}
		kill_start(dm, d, t0);
	}
	cgoom_explain_text(&text, &dm->snap, &dm->dec);
	if (!json.buf)
		cgoom_explain_json(&json, &dm->snap, &dm->dec);
	log_notice("%s: decision (policy %s):", d->path, cgoom_policy_name(dm->dec.policy));
	log_lines(CGOOM_LOG_NOTICE, &text);
	struct cgoom_strbuf e = { 0 };
	domain_field(&e, d);
	cgoom_strbuf_printf(&e, ", \"decision\": ");
	if (json.buf)
		cgoom_strbuf_append(&e, json.buf, json.len);
	event_emit(dm, "decision", &e);
	cgoom_strbuf_free(&e);

	if (dm->dec.inflight) {
		log_notice("%s: waiting for PID %d, killed earlier, to exit", d->path,
			   dm->dec.inflight_pid);
	} else if (!dm->dec.has_victim) {
		struct cgoom_strbuf reason = { 0 };
		cgoom_explain_reason(&reason, &dm->snap, &dm->dec);
		log_warning("%s: no victim: %s", d->path, reason.buf ? reason.buf : "");
		cgoom_strbuf_free(&reason);
		d->cooldown_until_us = daemon_now_us() + NO_VICTIM_COOLDOWN_US;
	} else if (dm->dry_run) {
		struct cgoom_strbuf p = { 0 };
		cgoom_strbuf_append(&p, "[", 1);
		for (size_t i = 0; i < dm->dec.n_pids; i++)
			cgoom_strbuf_printf(&p, "%s%d", i ? ", " : "", dm->dec.pids[i]);
		cgoom_strbuf_append(&p, "]", 1);
		log_notice("%s: dry run: would kill %s via %s", d->path, p.buf,
			   dm->dec.use_cgroup_kill ? "cgroup.kill" : "pidfd");
		struct cgoom_strbuf g = { 0 };
		domain_field(&g, d);
		cgoom_strbuf_printf(&g, ", \"pids\": %s, \"method\": \"%s\"", p.buf ? p.buf : "[]",
				    dm->dec.use_cgroup_kill ? "cgroup.kill" : "pidfd");
		event_emit(dm, "dry_run", &g);
		cgoom_strbuf_free(&g);
		cgoom_strbuf_free(&p);
		d->cooldown_until_us = daemon_now_us() + dm->cfg.kill_wait_us;
	}
	cgoom_strbuf_free(&text);
	cgoom_strbuf_free(&json);
	snap_drop(dm);
	metrics_write(dm);
}

static void kill_done(struct daemon *dm, struct domain *d, uint64_t now)
{
	struct kill_state *k = &d->kill;
	uint64_t ms = (now - k->signal_us) / 1000;
	struct cgoom_strbuf pl = { 0 };
	pids_json(&pl, &k->res, true);
	log_notice("%s: victim%s %s exited %llu ms after the signal", d->path,
		   k->res.n_signalled == 1 ? "" : "s", pl.buf ? pl.buf : "[]",
		   (unsigned long long)ms);
	struct cgoom_strbuf f = { 0 };
	domain_field(&f, d);
	cgoom_strbuf_printf(&f, ", \"pids\": %s, \"exit_ms\": %llu", pl.buf ? pl.buf : "[]",
			    (unsigned long long)ms);
	event_emit(dm, "victim_exit", &f);
	cgoom_strbuf_free(&f);
	cgoom_strbuf_free(&pl);
	kill_clear(dm, d);
	/* what rose while the victim died is spent */
	if (!d->system && !d->dead && domain_sample(dm, d) == 0)
		cgoom_cgroup_baseline(&d->trig, &d->sample);
	arm_deadline(dm);
	metrics_write(dm);
}

static void on_pidfd(struct daemon *dm, struct watch *w, uint64_t now)
{
	struct kill_state *k = &w->d->kill;
	if (!k->active || w->target >= k->res.n_targets || k->exited[w->target])
		return;
	k->exited[w->target] = true;
	epoll_ctl(dm->epfd, EPOLL_CTL_DEL, k->res.targets[w->target].pidfd, NULL);
	if (--k->n_alive == 0)
		kill_done(dm, w->d, now);
}

static void escalate(struct daemon *dm, struct domain *d)
{
	struct kill_state *k = &d->kill;
	k->term_phase = false;
	int n = 0;
	const char *method = "pidfd";
	if (k->cgroup_kill && k->scope_path &&
	    cgoom_cgroup_kill_write(dm->roots.cgroup_fd, k->scope_path) == 0) {
		method = "cgroup.kill";
		n = (int)k->n_alive;
	} else {
		for (size_t i = 0; i < k->res.n_targets; i++) {
			int fd = k->res.targets[i].pidfd;
			if (k->exited[i] || fd < 0)
				continue;
			if (cgoom_pidfd_send_signal(fd, SIGKILL) == 0) {
				cgoom_process_mrelease(fd);
				n++;
			}
		}
	}
	log_notice("%s: term_grace over: SIGKILL to %d process%s still alive, via %s", d->path, n,
		   n == 1 ? "" : "es", method);
	struct cgoom_strbuf f = { 0 };
	domain_field(&f, d);
	cgoom_strbuf_printf(&f, ", \"signal\": \"SIGKILL\", \"method\": \"%s\", \"n\": %d, "
				"\"after_term_ms\": %llu",
			    method, n, (unsigned long long)((daemon_now_us() - k->signal_us) / 1000));
	event_emit(dm, "kill_escalate", &f);
	cgoom_strbuf_free(&f);
}

static void on_deadline(struct daemon *dm, uint64_t now)
{
	drain(dm->deadlinefd);
	for (size_t i = 0; i < dm->n_domains; i++) {
		struct domain *d = dm->domains[i];
		struct kill_state *k = &d->kill;
		if (!k->active)
			continue;
		if (k->term_phase && now >= k->grace_until_us)
			escalate(dm, d);
		if (now >= k->wait_until_us) {
			if (k->n_alive > 0) {
				log_warning("%s: %zu victim%s still alive %llu ms after the signal; "
					    "moving on", d->path, k->n_alive, k->n_alive == 1 ? "" : "s",
					    (unsigned long long)((now - k->signal_us) / 1000));
				struct cgoom_strbuf f = { 0 };
				domain_field(&f, d);
				cgoom_strbuf_printf(&f, ", \"alive\": %zu", k->n_alive);
				event_emit(dm, "kill_timeout", &f);
				cgoom_strbuf_free(&f);
			}
			kill_clear(dm, d);
		}
	}
	arm_deadline(dm);
}

static void on_timer(struct daemon *dm, uint64_t now)
{
	drain(dm->timerfd);
	if (now >= dm->next_rescan_us) {
		domains_rescan(dm);
		dm->next_rescan_us = now + RESCAN_US;
	}
	uint64_t next = check_system(dm, now, false);
	for (size_t i = 1; i < dm->n_domains; i++) {
		uint64_t t = check_cgroup(dm, dm->domains[i], now, false);
		if (t < next)
			next = t;
	}
	if (now >= dm->next_metrics_us) {
		metrics_write(dm);
		dm->next_metrics_us = now + METRICS_US;
	}
	arm(dm->timerfd, next, false);
}

/* ---- signals and reload ---- */

static void reload(struct daemon *dm)
{
	struct cgoom_config n;
	int r = config_load(dm->config_path, dm->o->config_given, &n);
	struct cgoom_strbuf f = { 0 };
	cgoom_strbuf_printf(&f, "\"config\": ");
	cgoom_strbuf_json_string(&f, dm->config_path);
	if (r < 0) {
		log_error("%s: reload failed; keeping the old configuration", dm->config_path);
		cgoom_strbuf_printf(&f, ", \"ok\": false");
		event_emit(dm, "reload", &f);
		cgoom_strbuf_free(&f);
		return;
	}
	bool psi_changed = n.psi_full_stall_us != dm->cfg.psi_full_stall_us ||
			   n.psi_full_window_us != dm->cfg.psi_full_window_us;
	cgoom_config_free(&dm->cfg);
	dm->cfg = n;
	events_open(dm);
	domains_apply_config(dm);
	if (psi_changed)
		domains_rearm_psi(dm);
	log_info("%s: configuration reloaded", dm->config_path);
	cgoom_strbuf_printf(&f, ", \"ok\": true");
	event_emit(dm, "reload", &f);
	cgoom_strbuf_free(&f);
	metrics_write(dm);
}

static void on_signal(struct daemon *dm)
{
	struct signalfd_siginfo si;
	while (read(dm->sigfd, &si, sizeof(si)) == (ssize_t)sizeof(si)) {
		if (si.ssi_signo == SIGHUP) {
			log_info("SIGHUP: reloading %s", dm->config_path);
			reload(dm);
		} else {
			log_info("%s: exiting", strsignal((int)si.ssi_signo));
			dm->quit = true;
		}
	}
}

/* ---- setup ---- */

static void self_protect(struct daemon *dm)
{
	if (mlockall(MCL_CURRENT | MCL_FUTURE) < 0)
		log_warning("mlockall: %s; cgoom's pages may be reclaimed under pressure",
			    strerror(errno));
	if (!dm->live)
		return; /* a fixture's self/oom_score_adj is not ours */
	int fd = openat(dm->roots.proc_fd, "self/oom_score_adj", O_WRONLY | O_CLOEXEC);
	if (fd < 0 || write(fd, "-1000", 5) != 5)
		log_warning("%s/self/oom_score_adj: cannot set -1000 (%s); the kernel may OOM-kill cgoom",
			    dm->roots.proc_path, strerror(errno));
	if (fd >= 0)
		close(fd);
}

static int setup_fds(struct daemon *dm)
{
	sigset_t mask;
	sigemptyset(&mask);
	sigaddset(&mask, SIGHUP);
	sigaddset(&mask, SIGTERM);
	sigaddset(&mask, SIGINT);
	signal(SIGPIPE, SIG_IGN);
	if (sigprocmask(SIG_BLOCK, &mask, NULL) < 0)
		return -errno;
	dm->epfd = epoll_create1(EPOLL_CLOEXEC);
	dm->sigfd = signalfd(-1, &mask, SFD_NONBLOCK | SFD_CLOEXEC);
	dm->timerfd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
	dm->deadlinefd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
	if (dm->epfd < 0 || dm->sigfd < 0 || dm->timerfd < 0 || dm->deadlinefd < 0)
		return -errno;
	dm->w_sig.kind = W_SIGNAL;
	dm->w_timer.kind = W_TIMER;
	dm->w_deadline.kind = W_DEADLINE;
	struct { int fd; struct watch *w; } add[] = {
		{ dm->sigfd, &dm->w_sig }, { dm->timerfd, &dm->w_timer }, { dm->deadlinefd, &dm->w_deadline },
	};
	for (size_t i = 0; i < sizeof(add) / sizeof(add[0]); i++) {
		struct epoll_event ev = { .events = EPOLLIN, .data.ptr = add[i].w };
		if (epoll_ctl(dm->epfd, EPOLL_CTL_ADD, add[i].fd, &ev) < 0)
			return -errno;
	}
	return 0;
}

static void dispatch(struct daemon *dm, struct epoll_event *ev, uint64_t now)
{
	struct watch *w = ev->data.ptr;
	switch (w->kind) {
	case W_SIGNAL:
		on_signal(dm);
		break;
	case W_TIMER:
		on_timer(dm, now);
		break;
	case W_DEADLINE:
		on_deadline(dm, now);
		break;
	case W_EVENTS:
		if (!w->d->dead)
			check_cgroup(dm, w->d, now, false);
		break;
	case W_PSI:
		if (w->d->dead)
			break;
		if (ev->events & EPOLLERR) { /* the cgroup went away */
			domain_kill_fds(dm, w->d);
			break;
		}
		if (w->d->system)
			check_system(dm, now, true);
		else
			check_cgroup(dm, w->d, now, true);
		break;
	case W_PIDFD:
		on_pidfd(dm, w, now);
		break;
	}
}

static void daemon_free(struct daemon *dm)
{
	domains_free(dm); /* restores memory.high */
	snap_drop(dm);
	cgoom_decision_free(&dm->dec);
	free(dm->inflight);
	metrics_free(dm);
	events_close(dm);
	int fds[] = { dm->epfd, dm->sigfd, dm->timerfd, dm->deadlinefd };
	for (size_t i = 0; i < sizeof(fds) / sizeof(fds[0]); i++)
		if (fds[i] >= 0)
			close(fds[i]);
	cgoom_roots_close(&dm->roots);
	cgoom_config_free(&dm->cfg);
	free(dm);
}

int cgoom_daemon_run(const struct cli_opts *o)
{
	struct daemon *dm = calloc(1, sizeof(*dm));
	if (!dm) {
		log_error("out of memory");
		return EXIT_RUNTIME;
	}
	dm->o = o;
	dm->epfd = dm->sigfd = dm->timerfd = dm->deadlinefd = -1;
	dm->event_fd = dm->meminfo_fd = dm->vmstat_fd = -1;
	dm->roots.cgroup_fd = dm->roots.proc_fd = -1;
	dm->config_path = o->config ? o->config : "/etc/cgoom.conf";
	dm->dry_run = o->dry_run;
	const char *once = getenv("CGOOM_RUN_ONCE");
	dm->once = once && strcmp(once, "1") == 0;
	cgoom_decision_init(&dm->dec);
	cgoom_config_init(&dm->cfg);
	int rc = EXIT_RUNTIME;

	struct cgoom_config cfg;
	if (config_load(dm->config_path, o->config_given, &cfg) < 0) {
		rc = EXIT_USAGE;
		goto out;
	}
	cgoom_config_free(&dm->cfg);
	dm->cfg = cfg;
	char err[512] = "";
	int r = cgoom_roots_open(o->cgroup_root, o->proc_root, &dm->roots, err, sizeof(err));
	if (r < 0) {
		log_error("%s", err[0] ? err : strerror(-r));
		rc = EXIT_USAGE;
		goto out;
	}
	dm->live = cgoom_roots_are_live(&dm->roots);
	if (!dm->live && !dm->dry_run) {
		log_error("refusing to run: %s is not a cgroup2 mount or %s is not procfs "
			  "(use --dry-run on a fixture tree)",
			  dm->roots.cgroup_path, dm->roots.proc_path);
		rc = EXIT_USAGE;
		goto out;
	}
	self_protect(dm);
	r = setup_fds(dm);
	if (r < 0) {
		log_error("setting up epoll, signalfd, timerfd: %s", strerror(-r));
		goto out;
	}
	events_open(dm);
	r = domains_init(dm);
	if (r < 0)
		goto out;
	domains_rescan(dm);
	uint64_t now = daemon_now_us();
	dm->next_rescan_us = now + RESCAN_US;
	dm->next_metrics_us = now + METRICS_US;

	log_notice("cgoom %s: watching %zu domain%s under %s%s%s", CGOOM_VERSION, dm->n_domains,
		   dm->n_domains == 1 ? "" : "s", dm->roots.cgroup_path,
		   dm->dry_run ? " (dry run: nothing is killed, memory.high is not written)" : "",
		   dm->once ? " (CGOOM_RUN_ONCE)" : "");
	struct cgoom_strbuf f = { 0 };
	cgoom_strbuf_printf(&f, "\"version\": \"%s\", \"dry_run\": %s, \"live\": %s, \"domains\": [",
			    CGOOM_VERSION, dm->dry_run ? "true" : "false", dm->live ? "true" : "false");
	for (size_t i = 0; i < dm->n_domains; i++) {
		cgoom_strbuf_printf(&f, "%s", i ? ", " : "");
		cgoom_strbuf_json_string(&f, dm->domains[i]->path);
	}
	cgoom_strbuf_append(&f, "]", 1);
	event_emit(dm, "start", &f);
	cgoom_strbuf_free(&f);
	metrics_write(dm);

	if (dm->once) {
		check_system(dm, now, false);
		for (size_t i = 1; i < dm->n_domains; i++)
			check_cgroup(dm, dm->domains[i], now, false);
	} else {
		arm(dm->timerfd, 0, false);
	}
	while (!dm->quit && !(dm->once && !any_kill_active(dm))) {
		struct epoll_event evs[64];
		int n = epoll_wait(dm->epfd, evs, 64, -1);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			log_error("epoll_wait: %s", strerror(errno));
			goto out;
		}
		now = daemon_now_us();
		for (int i = 0; i < n; i++)
			dispatch(dm, &evs[i], now);
		domains_reap(dm);
	}
	rc = EXIT_OK;
	struct cgoom_strbuf s = { 0 };
	cgoom_strbuf_printf(&s, "\"reason\": \"%s\"", dm->quit ? "signal" : "once");
	event_emit(dm, "stop", &s);
	cgoom_strbuf_free(&s);
	dm->quit = true;
	metrics_write(dm);
out:
	daemon_free(dm);
	return rc;
}
