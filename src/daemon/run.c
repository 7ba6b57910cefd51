/* SPDX-License-Identifier: MIT */
/*
 * `cgoom run`: one epoll loop, the only caller of actions (STYLE 13). It
 * waits on
 *   - a signalfd (SIGHUP reload, SIGTERM/SIGINT clean exit),
 *   - the sampling timer (sched.c: each busy domain at the detectors'
 *     pace, each quiet one on the allocation budget, read at the
 *     "tick"), the slow discovery walk and metrics: epoll_pwait2()'s
 *     timeout, or a timerfd where that call is missing or refused (a
 *     wake-up without the timerfd's read and re-arm is two syscalls
 *     fewer, most of an idle wake-up's cost; loop-timer.c),
 *   - a second timerfd for kill deadlines (term_grace, kill_wait),
 *   - PSI triggers (EPOLLPRI) on /proc/pressure/memory and, near their
 *     lines, each domain's memory.pressure ("full" to fire, "some" to
 *     sample early), and memory.events of each domain (EPOLLPRI),
 *   - inotify (discover.c): cgroups made, removed, limits written,
 *   - the preparation thread's eventfd, the pidfds of victims dying.
 * A detector (detect.c) turns one sample into a struct trigger_event; the
 * loop hands it to handle(), which applies guard bands, keeps standby
 * decisions and acts (act.c), then schedules the next sample (sched.c).
 * The loop alone tears a domain down (teardown()). doc/scale.md says how
 * it behaves with thousands of domains.
 *
 * CGOOM_RUN_ONCE=1 (for tests): discover the domains, evaluate every
 * trigger once against the counters as they stand (memory.events counts
 * since creation count as "rose"; PSI needs two samples and so never
 * fires), act or log, wait for victims (bounded by kill_wait), exit 0.
 */
#include <errno.h>
#include <fcntl.h>
#include <malloc.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/signalfd.h>
#include <sys/stat.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>

#include "cgoom/budget.h"
#include "cgoom/explain.h"
#include "config-file.h"
#include "daemon-internal.h"
#include "daemon.h"
#include "log.h"

#define METRICS_US 10000000ULL
/* The daemon's scheduling priority (self_protect). */
#define DAEMON_NICE (-10)

/* ---- config ---- */

/* Whether path names something (a file, a dangling symlink): what a
 * missing default config is told apart by. */
static bool config_exists(const char *path)
{
	struct stat st;
	return lstat(path, &st) == 0;
}

/* Reads and parses the config (config-file.c); a missing default file
 * means defaults. Errors are logged as "FILE:LINE: msg". */
static int config_load(const char *path, bool given, struct cgoom_config *ret)
{
	char err[512];
	int r = cgoom_config_load(path, given, ret, err, sizeof(err));

	if (r < 0)
		log_error("%s", err);
	else if (err[0])
		log_warning("%s", err);
	return r;
}

/* ---- acting on what a detector saw ---- */

/* ---- preparations waiting for the preparation thread ---- */

/* Several domains can near their lines at once (a node-wide spike): the
 * thread prepares one decision at a time, and when it is free the
 * domain whose line is nearest in time goes next (not whichever is
 * sampled first). A domain asks again at each sample while it waits;
 * its place follows its latest estimate. */
static void want_prep(struct daemon *dm, const struct trigger_event *ev)
{
	struct domain *d = ev->d;
	uint64_t eta = ev->rate ? ev->headroom / (ev->rate / 1000000 + 1) : CGOOM_STANDBY_LOOKAHEAD_US;
	d->prep_deadline_us = ev->t0 + eta;
	d->prep_level = ev->level;
	if (d->prep_wanted)
		return;
	if (cgfs_grow(&dm->prep_want, &dm->cap_prep_want, dm->n_prep_want + 1,
		      sizeof(*dm->prep_want)) < 0)
		return; /* it asks again at its next sample */
	d->prep_wanted = true;
	dm->prep_want[dm->n_prep_want++] = d;
}

/* A preparation slot is free: the most urgent waiting domain's. */
static void prep_next(struct daemon *dm)
{
	while (standby_slot_free(dm) && dm->n_prep_want) {
		size_t best = 0;
		for (size_t i = 1; i < dm->n_prep_want; i++)
			if (dm->prep_want[i]->prep_deadline_us < dm->prep_want[best]->prep_deadline_us)
				best = i;
		struct domain *d = dm->prep_want[best];
		dm->prep_want[best] = dm->prep_want[--dm->n_prep_want];
		d->prep_wanted = false;
		/* gone, killing, or no longer near: nothing to prepare */
		if (d->dead || kl_active(&d->kill.lc) || !d->approach || standby_in_flight(dm, d))
			continue;
		uint64_t now = cgfs_now_us();
		if (standby_check(dm, d, now, d->prep_level, false) == SB_USE)
			continue;
		struct inflight in;
		if (act_inflight(dm, &in) == 0)
			standby_prepare_async(dm, d, now, d->prep_level, &in);
	}
}

static void unwant_prep(struct daemon *dm, struct domain *d)
{
	if (!d->prep_wanted)
		return;
	for (size_t i = 0; i < dm->n_prep_want; i++)
		if (dm->prep_want[i] == d) {
			dm->prep_want[i] = dm->prep_want[--dm->n_prep_want];
			break;
		}
	d->prep_wanted = false;
}

/* Bytes grown in us microseconds at rate bytes/s, saturating. */
static uint64_t grown(uint64_t rate, uint64_t us)
{
	uint64_t whole = rate / 1000000, part = rate % 1000000;
	if (whole && us > UINT64_MAX / whole)
		return UINT64_MAX;
	return whole * us + part * us / 1000000;
}

/* The loop tears a domain down (domains.c never calls up): its
 * standby, its kill, then its files. */
static void teardown(struct daemon *dm, struct domain *d)
{
	if (d->dead)
		return;
	sched_forget(dm, d);
	unwant_prep(dm, d);
	discover_forget(dm, d);
	standby_drop(d);
	act_forget(dm, d);
	pressure_free(d);
	domain_close(dm, d);
}

static void handle(struct daemon *dm, const struct trigger_event *ev)
{
	struct domain *d = ev->d;
	if (ev->kernel_kills)
		act_kernel_oom(dm, d, ev->kernel_kills);
	if (ev->gone) {
		log_info("%s: cgroup removed", d->path);
		teardown(dm, d);
		return;
	}
	if (ev->max_changed)
		guard_apply(dm, d); /* writes memory.high: the actor's job */
	d->approach = ev->approach || ev->kind != CGOOM_TRIGGER_NONE;
	if (ev->kind != CGOOM_TRIGGER_NONE) {
		daemon_act(dm, ev);
		return;
	}
	if (dm->dry_run || !dm->live || kl_active(&d->kill.lc))
		return;
	if (!ev->approach) {
		if (!standby_keep_off_approach(d->standby, ev->t0))
			standby_drop(d);
		return;
	}
	log_debug("%s: approach: level %llu, headroom %llu, rate %llu B/s, next sample in %llu us",
		  d->path, (unsigned long long)ev->level, (unsigned long long)ev->headroom,
		  (unsigned long long)ev->rate, (unsigned long long)ev->next_us);
	/* near the line: keep the decision ready */
	if (!standby_slot_free(dm) || standby_in_flight(dm, d)) {
		want_prep(dm, ev); /* every slot busy: queued by urgency */
		return;
	}
	enum sb_verdict v = standby_check(dm, d, ev->t0, ev->level, false);
	if (v == SB_USE)
		return;
	/* a merely stale one whose victim still provably leads is left alone
	 * when the line could come within four preparations' time: the loop
	 * samples nothing while it prepares; one whose victim no longer leads
	 * is remade now, better than at the crossing */
	if (v == SB_STALE && ev->headroom / 4 < grown(ev->rate, dm->prepare_cost_us) &&
	    standby_rank_ok(dm, d->standby))
		return;
	struct inflight in;
	if (act_inflight(dm, &in) == 0)
		standby_prepare_async(dm, d, cgfs_now_us(), ev->level, &in);
}

/* A failed read of a sample is said once when it starts (path, file,
 * errno) and once when it ends, not at each sample. */
static void report_read(struct daemon *dm, struct domain *d, int err, const char *file)
{
	(void)dm;
	if (err == d->read_err)
		return;
	if (err)
		log_warning("%s%s%s: %s; this domain is not watched until it can be read "
			    "(tried at each sample)",
			    d->path, file ? "/" : "", file ? file : "", strerror(-err));
	else
		log_notice("%s: readable again", d->path);
	d->read_err = err;
	d->read_file = file;
}

/* After a polled domain's sample: it keeps its files while it is near
 * its line or acting (quiet domains give theirs up for it), else they
 * are closed again. */
static void settle(struct daemon *dm, struct domain *d, uint64_t now)
{
	if (d->dead || !d->files_open || d->system)
		return;
	/* near its line: from the watch line on (sched.c), or busy */
	bool near = domain_active(d) ||
		    (d->sample_ok && d->sample.max != UINT64_MAX &&
		     d->sample.current >= cgoom_watch_line(&d->sample, &d->params));
	if (d->kept) {
		domain_set_active(dm, d, near, now);
		return;
	}
	if (near && fds_make_room(dm, FDS_PER_DOMAIN + FDS_ACTIVE)) {
		domain_files_open(dm, d, true);
		log_info("%s: near its line: its files stay open (fd budget)", d->path);
		return;
	}
	domain_files_close(dm, d);
}

static void sample(struct daemon *dm, struct domain *d, uint64_t now, bool psi_fired)
{
	struct trigger_event ev;
	if (d->dead)
		return;
	if (!d->system && !d->files_open) {
		/* polled (fd budget): its files for this sample */
		int r = domain_files_open(dm, d, false);
		if (r == -ENOENT || r == -ENODEV || r == -ESTALE) {
			log_info("%s: cgroup removed", d->path);
			teardown(dm, d);
			return;
		}
		if (r < 0) {
			report_read(dm, d, r, NULL);
			sched_time(dm, d, now + CGOOM_POLL_MIN_US);
			return;
		}
	}
	dm->sched.samples++;
	dm->sched.sys_samples += d->system;
	if (d->system)
		detect_system(dm, now, psi_fired, &ev);
	else
		detect_cgroup(dm, d, now, psi_fired, &ev);
	if (!d->system && !ev.gone)
		report_read(dm, d, d->sample_err, d->sample_err_file);
	handle(dm, &ev);
	if (d->dead)
		return;
	sched_after(dm, &ev);
	settle(dm, d, now);
}

/* What discovery found (discover.c marks, the loop acts): vanished
 * domains torn down, new ones sampled at once, poked ones sampled now;
 * then the fd budget's news said, and polled domains given their files
 * where room freed up. */
static void discovered(struct daemon *dm, uint64_t now)
{
	struct discover *ds = &dm->disc;
	if (ds->any_vanished)
		for (size_t i = 1; i < dm->n_domains; i++)
			if (dm->domains[i]->vanished)
				teardown(dm, dm->domains[i]);
	ds->any_vanished = false;
	for (size_t i = 0; i < ds->n_news; i++)
		if (!ds->news[i]->dead)
			sched_time(dm, ds->news[i], now);
	ds->n_news = 0;
	for (size_t i = 0; i < ds->n_pokes; i++)
		sample(dm, ds->pokes[i], now, false);
	ds->n_pokes = 0;
	fds_report(dm);
}

static void walk(struct daemon *dm, uint64_t now)
{
	discover_walk(dm, now);
	discovered(dm, now);
	fds_promote(dm);
}

/* The heap's bytes in use (not its high-water mark, which is the RSS
 * of an mlockall'ed daemon): whether memory grows or only steps up. 0
 * where the C library cannot say. */
static uint64_t heap_in_use(void)
{
#if defined(__GLIBC__) && (__GLIBC__ > 2 || (__GLIBC__ == 2 && __GLIBC_MINOR__ >= 33))
	struct mallinfo2 mi = mallinfo2();
	return (uint64_t)mi.uordblks + (uint64_t)mi.hblkhd;
#else
	return 0;
#endif
}

static void on_timer(struct daemon *dm, uint64_t now)
{
	if (!dm->pwait2)
		loop_drain(dm->timerfd);
	dm->sched.timer_wakeups++;
	dm->timer_armed = false; /* fired: loop_arm_sampling must set it again */
	if (dm->ev.n_hooks)
		post_hooks_reap(dm, now, false);
	/* what is due shortly is done now, rather than at a wake-up of its
	 * own (daemon-internal.h SCHED_EARLY_MAX_US) */
	if (now + SCHED_EARLY_MAX_US >= discover_next_walk_us(dm))
		walk(dm, now);
	if (now + SCHED_EARLY_MAX_US >= discover_next_unmute_us(dm)) {
		discover_unmute_due(dm, now);
		discovered(dm, now);
	}
	if (sched_tick_due(dm, now))
		sched_tick(dm, now);
	struct domain **due;
	size_t n = sched_due(dm, now, &due);
	/* due by time first (the busy ones and backstops), then the budget's,
	 * for a slice of time at most (sched.c SCHED_PROBE_SLICE_US) */
	size_t n_time = n - dm->sched.n_alloc_due;
	bool busy = dm->n_prep > 0;
	for (size_t i = 0; i < n_time; i++) {
		sample(dm, due[i], now, false);
		busy = busy || (!due[i]->dead && due[i]->approach);
	}
	/* while a domain nears its line, it comes first: a quarter of the
	 * slice for the quiet ones */
	uint64_t slice_end = 0; /* the clock is looked at from the second budget check on */
	if (n > n_time + 1)
		slice_end = cgfs_now_us() + (busy ? SCHED_PROBE_SLICE_US / 4 : SCHED_PROBE_SLICE_US);
	dm->sched.behind = false;
	for (size_t i = n_time; i < n; i++) {
		if (dm->sched.behind || (i > n_time && cgfs_now_us() > slice_end)) {
			dm->sched.behind = true;
			sched_requeue(dm, due[i]);
			continue;
		}
		if (!sched_probe(dm, due[i]))
			sample(dm, due[i], now, false);
	}
	if (now + SCHED_EARLY_MAX_US >= dm->next_metrics_us) {
		struct sched *sc = &dm->sched;
		uint64_t cpu = cgfs_thread_cpu_us();
		log_debug("sampling: %llu samples (%llu of the system), %llu budget checks without "
			  "one, %llu ticks (pgalloc %llu, %llu B/s; /proc/vmstat head %zu B, %llu whole); %llu wake-ups (%llu by the "
			  "timer; %llu inotify events, %llu directories muted, %zu muted now); CPU: loop %llu ms, %llu preparations %llu ms; heap in use %llu KiB",
			  (unsigned long long)sc->samples, (unsigned long long)sc->sys_samples,
			  (unsigned long long)sc->probes, (unsigned long long)sc->ticks,
			  (unsigned long long)sc->pgalloc, (unsigned long long)sc->alloc_rate.bytes_per_s,
			  sc->vmstat_ask, (unsigned long long)sc->vmstat_short,
			  (unsigned long long)sc->wakeups, (unsigned long long)sc->timer_wakeups,
			  (unsigned long long)dm->disc.events, (unsigned long long)dm->disc.mutes,
			  dm->disc.n_muted,
			  (unsigned long long)((cpu > sc->loop_cpu_us ? cpu - sc->loop_cpu_us : 0) / 1000),
			  (unsigned long long)sc->preps, (unsigned long long)(sc->prep_cpu_us / 1000),
			  (unsigned long long)(heap_in_use() / 1024));
		sc->samples = sc->probes = sc->ticks = sc->sys_samples = 0;
		sc->vmstat_short = 0;
		sc->wakeups = sc->timer_wakeups = 0;
		dm->disc.events = dm->disc.mutes = 0;
		sc->preps = sc->prep_cpu_us = 0;
		sc->loop_cpu_us = cpu;
		metrics_write(dm);
		dm->next_metrics_us = now + METRICS_US;
	}
}

/* ---- signals and reload ---- */

/* A section written with the mount point in front ([cgroup
 * "/sys/fs/cgroup/db"] for "/db") matches no cgroup: its settings, an
 * omit among them, apply to nothing. explain notes it; the daemon says
 * it at start and at each reload, where the operator looks. */
static void warn_tiny_band(const struct daemon *dm, const char *where, uint64_t band)
{
	if (band == 0 || band >= 1024 * 1024)
		return;
	log_warning("%s: guard_band %llu%s is under 1 MiB: a unit left out? A bare number is bytes "
		    "(%llu means %llu bytes, %lluM is %llu MiB), and the kernel keeps memory.high in whole "
		    "pages, so the band written is at least a page",
		    dm->config_path, (unsigned long long)band, where, (unsigned long long)band,
		    (unsigned long long)band, (unsigned long long)band, (unsigned long long)band);
}

static void warn_mount_sections(struct daemon *dm)
{
	warn_tiny_band(dm, " ([daemon])", dm->cfg.guard_band);
	for (size_t j = 0; j < dm->cfg.n_cgroups; j++) {
		const struct cgoom_cgroup_conf *g = &dm->cfg.cgroups[j];
		if (g->has_guard_band) {
			char w[64];
			snprintf(w, sizeof(w), " ([cgroup] line %d)", g->line);
			warn_tiny_band(dm, w, g->guard_band);
		}
		const char *rest = cgoom_config_past_mount(g->path, dm->roots.cgroup_path);
		if (!rest)
			rest = cgoom_config_past_mount(g->path, "/sys/fs/cgroup");
		if (rest)
			log_warning("%s: [cgroup \"%s\"] (line %d) matches no cgroup: section paths "
				    "start at the cgroup root, not at its mount point; its settings apply "
				    "to nothing: write [cgroup \"%s\"]",
				    dm->config_path, g->path, g->line, rest);
	}
}

static void reload(struct daemon *dm)
{
	standby_wait_all(dm); /* the preparation threads read dm->cfg */
	struct cgoom_config n;
	/* a default file that was read and is gone now (moved away, a
	 * package removed) is not a request to drop every setting, its
	 * omits with them: the running ones stay, as for a bad file */
	bool gone = !dm->o.config_given && dm->cfg_from_file && !config_exists(dm->config_path);
	int r = gone ? -ENOENT : config_load(dm->config_path, dm->o.config_given, &n);
	if (gone)
		log_error("%s: gone since it was read (cgoom runs with no settings only when it starts "
			  "without the file; for none now, leave an empty file there)",
			  dm->config_path);
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
	if (dm->cfg.metrics_file && (!n.metrics_file || strcmp(dm->cfg.metrics_file, n.metrics_file) != 0))
		metrics_retire(dm->cfg.metrics_file, n.metrics_file);
	cgoom_config_free(&dm->cfg);
	dm->cfg = n;
	dm->cfg_from_file = dm->o.config_given || config_exists(dm->config_path);
	dm->settings_gen++; /* standbys decided under the old one are remade */
	events_open(dm);
	domains_apply_config(dm);
	if (psi_changed)
		domains_rearm_psi(dm);
	log_info("%s: configuration reloaded", dm->config_path);
	warn_mount_sections(dm);
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

/* cgoom's own work under pressure stays bounded (issue 19: a daemon that
 * faults in fresh memory at the worst moment stalls the machine it is
 * meant to save). Everything mapped now (the code of the kill path, the
 * libraries) is made resident and locked; what is mapped later (the
 * preparation thread's stack, a snapshot's arrays) is locked only as far
 * as it is touched (MCL_ONFAULT: an 8 MiB thread stack costs the few
 * pages used, not 8 MiB populated under pressure); and freed memory stays
 * in the heap for the next snapshot instead of going back to the kernel
 * to be faulted in again (one arena, no trimming, no mmap'ed chunks
 * below 32 MiB). */
static void self_protect(struct daemon *dm)
{
	mallopt(M_ARENA_MAX, 1);
	mallopt(M_TRIM_THRESHOLD, 64 << 20);
	mallopt(M_MMAP_THRESHOLD, 32 << 20);
	if (mlockall(MCL_CURRENT) < 0 || mlockall(MCL_CURRENT | MCL_FUTURE | MCL_ONFAULT) < 0)
		log_warning("mlockall: %s; cgoom's pages may be reclaimed under pressure",
			    strerror(errno));
	/* what the daemon cannot do without a capability, said at start
	 * (explain notes the first; a daemon has nobody to show notes to) */
	if (!cgoom_can_read_trusted())
		log_warning("trusted.cgoom.* settings cannot be read (they need CAP_SYS_ADMIN): every "
			    "policy, preference and bias set with 'cgoom policy' or setfattr trusted.cgoom.* "
			    "is ignored, and victims may differ from what root's 'cgoom explain' shows; "
			    "run cgoom as root (the shipped unit does)");
	if (!dm->dry_run && !cgoom_can_kill_any())
		log_warning("cannot signal other users' processes (no CAP_KILL): a victim that is not "
			    "this user's is skipped; run cgoom as root (the shipped unit does)");
	if (!dm->live)
		return; /* a fixture's self/oom_score_adj is not ours */
	int fd = openat(dm->roots.proc_fd, "self/oom_score_adj", O_WRONLY | O_CLOEXEC);
	if (fd < 0 || write(fd, "-1000", 5) != 5)
		log_warning("%s/self/oom_score_adj: cannot set -1000 (%s); the kernel may OOM-kill cgoom",
			    dm->roots.proc_path, strerror(errno));
	if (fd >= 0)
		close(fd);
	/* ahead of the workloads it protects: a node-wide squeeze is many
	 * CPU-bound growers, and at their priority the loop and the
	 * preparation thread (which inherits this) get a share of one CPU
	 * each (bench/scale, ten domains squeezed at once under TCG: 1 of
	 * 10 spec victims at nice 0, 7 of 10 at -10). The unit sets it
	 * (Nice=); run by hand as root, cgoom sets it itself. */
	errno = 0;
	int cur = getpriority(PRIO_PROCESS, 0);
	if (errno == 0 && cur > DAEMON_NICE && setpriority(PRIO_PROCESS, 0, DAEMON_NICE) < 0)
		log_warning("cannot raise its priority to nice %d (%s); under a squeeze the "
			    "workloads compete with cgoom for the CPU", DAEMON_NICE, strerror(errno));
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
	loop_timer_init(dm);
	dm->sigfd = signalfd(-1, &mask, SFD_NONBLOCK | SFD_CLOEXEC);
	dm->timerfd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
	dm->deadlinefd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
	dm->prep_efd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	if (dm->epfd < 0 || dm->sigfd < 0 || dm->timerfd < 0 || dm->deadlinefd < 0 ||
	    dm->prep_efd < 0)
		return -errno;
	dm->prep_slots = standby_slots_for(sysconf(_SC_NPROCESSORS_ONLN));
	dm->w_prep.kind = W_PREP;
	dm->w_sig.kind = W_SIGNAL;
	dm->w_timer.kind = W_TIMER;
	dm->w_deadline.kind = W_DEADLINE;
	struct { int fd; struct watch *w; } add[] = {
		{ dm->sigfd, &dm->w_sig }, { dm->timerfd, &dm->w_timer }, { dm->deadlinefd, &dm->w_deadline },
		{ dm->prep_efd, &dm->w_prep },
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
		loop_drain(dm->deadlinefd);
		act_deadline(dm, now);
		break;
	case W_EVENTS:
		sample(dm, w->d, now, false);
		break;
	case W_CGEVENTS:
		/* a process came into its subtree (off the slow pace at once),
		 * or the last one left (the next sample's plan says so) */
		if (!w->d->dead && domain_read_populated(dm, w->d, -1) && !w->d->empty)
			sample(dm, w->d, now, false);
		break;
	case W_PSI_SOME:
		w->d->pressure_woke = true; /* pressure.c: look at the PSI file now */
		if (!pressure_wake_deferred(w->d, now))
			sample(dm, w->d, now, false);
		break;
	case W_PSI:
		if (w->d->dead)
			break;
		if (ev->events & EPOLLERR) { /* the cgroup went away */
			teardown(dm, w->d);
			break;
		}
		if (!pressure_wake_deferred(w->d, now))
			sample(dm, w->d, now, true);
		break;
	case W_PIDFD:
		act_pidfd(dm, w, now);
		break;
	case W_PREP:
		standby_reap(dm);
		guard_writers_reap(dm);
		prep_next(dm);
		break;
	case W_INOTIFY:
		discover_read(dm, now);
		discovered(dm, now);
		break;
	}
}

static void daemon_free(struct daemon *dm)
{
	standby_wait_all(dm);
	post_hooks_reap(dm, 0, true);
	for (size_t i = 0; i < dm->n_domains; i++)
		teardown(dm, dm->domains[i]); /* restores memory.high */
	guard_writers_abandon(dm);
	noswap_free(&dm->noswap);
	domains_free(dm);
	discover_free(dm);
	sched_free(dm);
	cgoom_strbuf_free(&dm->polled_news);
	free(dm->prep_want);
	metrics_free(dm);
	events_close(dm);
	int fds[] = { dm->epfd, dm->sigfd, dm->timerfd, dm->deadlinefd, dm->prep_efd };
	for (size_t i = 0; i < sizeof(fds) / sizeof(fds[0]); i++)
		if (fds[i] >= 0)
			close(fds[i]);
	cgoom_roots_close(&dm->roots);
	cgoom_config_free(&dm->cfg);
	free(dm);
}

int cgoom_daemon_run(const struct cgoom_daemon_opts *o)
{
	struct daemon *dm = calloc(1, sizeof(*dm));
	if (!dm) {
		log_error("out of memory");
		return CGOOM_DAEMON_EXIT_RUNTIME;
	}
	dm->o = *o;
	dm->epfd = dm->sigfd = dm->timerfd = dm->deadlinefd = dm->prep_efd = -1;
	dm->ev.fd = -1;
	dm->disc.ifd = -1;
	dm->roots.cgroup_fd = dm->roots.proc_fd = -1;
	dm->config_path = o->config ? o->config : "/etc/cgoom.conf";
	dm->dry_run = o->dry_run;
	const char *once = getenv("CGOOM_RUN_ONCE");
	const char *debug = getenv("CGOOM_DEBUG");
	if (debug && strcmp(debug, "1") == 0)
		cgoom_log_set_max_level(CGOOM_LOG_DEBUG);
	dm->once = once && strcmp(once, "1") == 0;
	cgoom_config_init(&dm->cfg);
	int rc = CGOOM_DAEMON_EXIT_RUNTIME;

	struct cgoom_config cfg;
	if (config_load(dm->config_path, o->config_given, &cfg) < 0) {
		rc = CGOOM_DAEMON_EXIT_USAGE;
		goto out_free;
	}
	cgoom_config_free(&dm->cfg);
	dm->cfg = cfg;
	dm->cfg_from_file = o->config_given || config_exists(dm->config_path);
	char err[512] = "";
	int r = cgoom_roots_open(o->cgroup_root ? o->cgroup_root : "/sys/fs/cgroup",
				 o->proc_root ? o->proc_root : "/proc", &dm->roots, err, sizeof(err));
	if (r < 0) {
		log_error("%s", err[0] ? err : strerror(-r));
		rc = CGOOM_DAEMON_EXIT_USAGE;
		goto out_free;
	}
	dm->live = cgoom_roots_are_live(&dm->roots);
	if (!dm->live && !dm->dry_run) {
		log_error("refusing to run: %s is not a cgroup2 mount or %s is not procfs "
			  "(use --dry-run on a fixture tree)",
			  dm->roots.cgroup_path, dm->roots.proc_path);
		rc = CGOOM_DAEMON_EXIT_USAGE;
		goto out_free;
	}
	enum cgoom_trigger bad;
	if (trigger_table_check(&bad) < 0) {
		log_error("the trigger table's row %d (%s) lacks a hook or its kind; refusing to run",
			  (int)bad, cgoom_trigger_name(bad) ? cgoom_trigger_name(bad) : "?");
		goto out_free;
	}
	warn_mount_sections(dm);
	self_protect(dm);
	sysd_warn_peers(dm);
	fds_raise_limit(dm);
	r = setup_fds(dm);
	if (r < 0) {
		log_error("setting up epoll, signalfd, timerfd: %s", strerror(-r));
		goto out_free;
	}
	log_debug("sampling timer: %s", dm->pwait2 ? "epoll_pwait2's timeout"
						  : "a timerfd (epoll_pwait2 missing, refused or off)");
	events_open(dm);
	r = domains_init(dm);
	if (r < 0)
		goto out_free;
	discover_init(dm);
	fds_measure_fixed(dm);
	sched_init(dm);
	sched_time(dm, dm->domains[0], 0);
	walk(dm, cgfs_now_us());
	uint64_t now = cgfs_now_us();
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
		for (size_t i = 0; i < dm->n_domains; i++)
			sample(dm, dm->domains[i], now, false);
	} else {
		loop_arm_sampling(dm);
	}
	while (!dm->quit && !(dm->once && !act_any_kill_active(dm))) {
		struct epoll_event evs[64];
		uint64_t margin;
		int n = loop_wait(dm, evs, 64, &margin);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			log_error("epoll_wait: %s", strerror(errno));
			goto out_free;
		}
		now = cgfs_now_us();
		dm->sched.wakeups++;
		for (int i = 0; i < n; i++)
			dispatch(dm, &evs[i], now);
		if (dm->pwait2 && dm->timer_armed && now + margin >= dm->timer_armed_us)
			on_timer(dm, now);
		prep_next(dm); /* the thread may have been freed by a wait */
		domains_reap(dm);
		if (!dm->once)
			loop_arm_sampling(dm);
	}
	rc = CGOOM_DAEMON_EXIT_OK;
	act_finish_on_exit(dm);
	struct cgoom_strbuf s = { 0 };
	cgoom_strbuf_printf(&s, "\"reason\": \"%s\"", dm->quit ? "signal" : "once");
	event_emit(dm, "stop", &s);
	cgoom_strbuf_free(&s);
	dm->quit = true;
	metrics_write(dm);
out_free:
	daemon_free(dm);
	return rc;
}
