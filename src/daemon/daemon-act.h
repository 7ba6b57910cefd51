/* SPDX-License-Identifier: MIT */
/*
 * The daemon's deciding and acting side, split out of daemon-internal.h
 * (which includes it at its end): the standby decision (standby.c), the
 * actor (act.c), systemd's xattrs (sysd.c), the event log and metrics
 * (events.c) and the kill-storm guard (storm-act.c). The state they act
 * on (struct daemon, struct domain) and the sampling side are in
 * daemon-internal.h.
 */
#pragma once

/* ---- standby.c: the decision kept ready ----
 * struct standby is private to standby.c and standby-members.c
 * (standby-internal.h); the rest of the daemon holds it by pointer
 * (d->standby), asks it questions and takes its kill targets. */

struct standby;

/* SB_STALE: usable as far as its processes go, but the level moved or
 * time passed enough that the ranking may have changed (at the crossing,
 * a ranking re-check can still clear it: standby_rank_holds). */
enum sb_verdict { SB_USE, SB_STALE, SB_REDECIDE, SB_DROP };

/* What standby_judge looks at: plain numbers, so it is pure. */
struct standby_view {
	bool present, ready;
	uint64_t decided_us, level_at, kills_at;
	size_t n_skipped; /* targets found gone, reused or protected since */
	/* the domain's memory.max in the decision's snapshot and as last
	 * sampled: it sets the domain size T, which scales oom_score_adj
	 * and bias (UINT64_MAX both for the system domain) */
	uint64_t max_at, max_now;
	/* the settings' generation when decided and now (a reload, or a
	 * cgroup's xattrs set, can change a setting the decision rests on:
	 * omit, a preference, a bias, a policy) */
	uint64_t settings_at, settings_now;
};
struct standby_limits {
	uint64_t level_delta; /* the domain's level moved more than this: re-decide */
	uint64_t max_age_us;  /* older than this: re-decide */
};
/* Pure: whether a standby decision can be used now, must be made again,
 * or must be dropped (domain gone). */
enum sb_verdict standby_judge(const struct standby_view *v, bool domain_dead, uint64_t now_us,
			      uint64_t level_now, uint64_t kills_now, const struct standby_limits *l);
/* Whether two decisions name the same victim set (the ranking kept its
 * winner). */
bool standby_same_victim(const struct cgoom_decision *a, const struct cgoom_decision *b);
/* The victim's lead over the next eligible candidate of its tier, in
 * score bytes (UINT64_MAX: no rival in its tier; 0: no victim). */
uint64_t standby_lead(const struct cgoom_decision *dec);
/* Pure: how long after `fails` failed preparations in a row the next
 * may start: 100 ms, doubling, at most 5 s (a trigger paced at 1 ms
 * must not re-read a whole snapshot on every sample). */
uint64_t standby_retry_delay_us(unsigned fails);

/* PIDs of victims still dying anywhere (act_inflight): the engine waits
 * for them instead of choosing a second victim. */
struct inflight {
	int *pids;
	size_t n;
};

/* Makes (or remakes) d's standby decision: fresh lazy snapshot, settings,
 * selection, pidfds opened and verified. 0, or -errno (logged); -EAGAIN
 * without trying while a failed one's retry delay runs. Waits for d's
 * own preparation in flight first (never for another domain's). Takes
 * inflight's array. */
int standby_prepare(struct daemon *dm, struct domain *d, uint64_t now, uint64_t level,
		    struct inflight *inflight);
/* The same, with the snapshot and the selection on a preparation
 * thread, so the loop keeps sampling meanwhile (a snapshot can take
 * hundreds of milliseconds on a loaded machine); the loop finishes it
 * (pidfds, fds) in standby_reap() when the thread signals prep_efd. Up
 * to prep_slots run at once, one per domain: -EBUSY when no slot is free
 * or d's is in flight. Each thread reads only the snapshot's files, with
 * a cwd of its own (cgoom_reader_private_cwd; the reader moves it; where
 * that is refused, one read on the shared cwd at a time), and
 * dm->cfg (a reload waits for every thread first). */
int standby_prepare_async(struct daemon *dm, struct domain *d, uint64_t now, uint64_t level,
			  struct inflight *inflight);
/* Whether another preparation can start now / d's is in flight. */
bool standby_slot_free(const struct daemon *dm);
bool standby_in_flight(const struct daemon *dm, const struct domain *d);
/* Joins every finished preparation and installs its standby. */
void standby_reap(struct daemon *dm);
/* Joins d's preparation, if one is in flight, and installs it. */
void standby_wait_for(struct daemon *dm, const struct domain *d);
/* Joins every preparation in flight (reload, exit). */
void standby_wait_all(struct daemon *dm);
/* How many preparations run at once on a machine with `cpus` CPUs: one
 * per CPU, 1 to PREP_MAX. */
unsigned standby_slots_for(long cpus);
/* The verdict on d's standby now (crossing: the trigger fired), after
 * re-validating its targets (allocates nothing). */
enum sb_verdict standby_check(struct daemon *dm, struct domain *d, uint64_t now, uint64_t level,
			      bool crossing);
/* The ranking re-check: whether the standby's victim provably still
 * leads (its footprint now against each rival's memory.current +
 * memory.swap.current). false when it cannot tell. Allocates nothing. */
bool standby_rank_ok(struct daemon *dm, struct standby *sb);
/* Drops d's standby (NULL-safe). */
void standby_drop(struct domain *d);
/* Whether a standby outlives a lapse of its domain's approach at now:
 * ready and not yet stale by age (STANDBY_MAX_AGE_US). The line's
 * distance flickers across the approach's edge (MemAvailable around its
 * minimum while swap fills), and dropping the standby at each lapse
 * remade a snapshot of every process at each return. */
bool standby_keep_off_approach(const struct standby *sb, uint64_t now);

/* What acting on d's standby needs to know and say. */
const struct cgoom_decision *standby_decision(const struct standby *sb);
/* What a kill of its kill set promises to free (cgoom_kill_promise). */
uint64_t standby_promise(const struct standby *sb);
/* The same at the signal: with the victim entity's processes re-read at
 * the crossing (standby-members.c, within the last second), what the
 * kill set holds now, capped by the victim's footprint plus what the
 * domain grew since the decision (storm_promise_now); else as decided.
 * level_now: storm_level_before(). */
uint64_t standby_promise_at(const struct standby *sb, bool system, uint64_t level_now);
/* A victim with at least one verified target, pidfds open. */
bool standby_ready(const struct standby *sb);
/* The ranking as `explain` renders it: text, JSON, the reason. */
void standby_explain(const struct standby *sb, bool json, struct cgoom_strbuf *out);
void standby_reason(const struct standby *sb, struct cgoom_strbuf *out);
/* Moves the prepared targets out of sb into *ret (the kill state):
 * allocates nothing; sb keeps its decision, for the report. */
void standby_take_targets(struct standby *sb, struct kill_targets *ret);
/* Closes the pidfds, frees the targets; NULL-safe, idempotent. */
void kill_targets_free(struct kill_targets *t);

/* ---- act.c (the actor) ---- */

/* What acting on a decision came to: one value, computed once
 * (act_outcome_of), then logged, cooled down and cleaned up by. */
enum act_outcome {
	ACT_KILL,       /* signalled: the kill lifecycle takes it from here */
	ACT_KILL_NONE,  /* about to signal, every target vanished or became protected */
	ACT_INFLIGHT,   /* a victim killed earlier is still dying: wait */
	ACT_DRY_RUN,    /* --dry-run: what would be killed, logged */
	ACT_NO_VICTIM,  /* no eligible victim (or none of its processes is left) */
	ACT_OUTCOME_MAX,
};
/* Pure: the outcome for a decision (ready: targets verified; inflight:
 * the engine waits for a dying victim; has_victim), in a dry run or
 * not; signal_r: the signal's result when the outcome was ACT_KILL
 * (< 0: nothing signalled), ignored otherwise. */
enum act_outcome act_outcome_of(bool ready, bool inflight, bool has_victim, bool dry_run,
				int signal_r);
/* Confirms, kills (or logs, in a dry run) and reports, for a fired
 * trigger. */
void daemon_act(struct daemon *dm, const struct trigger_event *ev);
/* A victim's pidfd became readable. */
void act_pidfd(struct daemon *dm, struct watch *w, uint64_t now);
/* The deadline timer fired: step every kill lifecycle. */
void act_deadline(struct daemon *dm, uint64_t now);
/* The daemon exits: a kill still in term_grace (SIGTERM sent) gets its
 * SIGKILL now, as it would have at the grace's end. */
void act_finish_on_exit(struct daemon *dm);
/* Reports kernel OOM kills seen in d. */
void act_kernel_oom(struct daemon *dm, struct domain *d, uint64_t n);
bool act_any_kill_active(const struct daemon *dm);
void act_arm_deadline(struct daemon *dm);
/* The PIDs of every victim still dying, for a new decision: 0 or
 * -ENOMEM. */
int act_inflight(const struct daemon *dm, struct inflight *ret);
/* Pure: whether cgroup paths a and b ("/", "/a/b") overlap: one is the
 * other or below it. */
bool domains_overlap(const char *a, const char *b);
/* A kill started in k (also one that found every victim gone): every
 * domain that overlaps k counts it (kills_seen). */
void act_note_kill(struct daemon *dm, const struct domain *k);
/* Takes d's standby's targets into d->kill (one call: the standby
 * keeps its decision, for the report) and signals them (then
 * process_mrelease, then the xattr count); *ret_signal_us: when the
 * signal went out. Allocates nothing (the targets hold the pidfds,
 * watches and exit flags). 0, or -ESRCH when nothing was signalled. */
int act_kill_from_standby(struct daemon *dm, struct domain *d, int sig, uint64_t now,
			  uint64_t *ret_signal_us);
/* Forgets d's kill (the domain is being torn down). */
void act_forget(struct daemon *dm, struct domain *d);

/* ---- sysd.c ---- */

/* Adds n to the decimal value of the user xattr `name` on fd (absent:
 * 0). Allocates nothing. 0 or -errno. */
int sysd_xattr_add(int fd, const char *name, uint64_t n);
/* Warns, one line each, about the other userspace OOM killers that look
 * active: a process under the proc root named systemd-oomd, earlyoom,
 * nohang or oomd, another `cgoom run` without --dry-run, or systemd-
 * oomd's socket on the live system. Returns how many it warned about. */
int sysd_warn_peers(struct daemon *dm);

/* ---- events.c ---- */

void events_open(struct daemon *dm);
void events_close(struct daemon *dm);
/* Writes {"event": NAME, "ts": ..., "uptime_ms": ..., FIELDS} as one
 * line; fields is a JSON member list without braces (may be NULL). */
void event_emit(struct daemon *dm, const char *name, const struct cgoom_strbuf *fields);
void metrics_trigger(struct daemon *dm, const char *domain, enum cgoom_trigger kind);
void metrics_kill(struct daemon *dm, const char *domain, enum cgoom_policy policy,
		  uint64_t reaction_us);
void metrics_kernel_oom(struct daemon *dm, const char *domain, uint64_t n);
void metrics_write(struct daemon *dm);
void metrics_storm_hold(struct daemon *dm, const char *domain);
void metrics_kill_freed(struct daemon *dm, const char *domain, uint64_t freed, uint64_t expected,
			bool short_);
/* A Prometheus label value, quoted and escaped. */
void metrics_label(struct cgoom_strbuf *b, const char *s);
void metrics_free(struct daemon *dm);
/* A reload moved metrics_file from old to now (NULL: none): the old file
 * is removed (logged), or it would say cgoom_up 1 for ever and, in the
 * textfile collector's directory, give every series twice. */
void metrics_retire(const char *old, const char *now);
#define CGOOM_HOOK_TIMEOUT_MS 2000
int hook_run(struct daemon *dm, const char *json, size_t len);
/* post_kill_hook: started after the signal with json (and a newline) on
 * its stdin, never waited for; reaped by post_hooks_reap (at each timer
 * tick; all: kill and reap every one, at exit), killed after 30 s. */
void post_hook_start(struct daemon *dm, const char *json, size_t len);
void post_hooks_reap(struct daemon *dm, uint64_t now, bool all);

/* ---- storm-act.c: kill accounting and the kill-storm guard (SPEC 6) ---- */

/* Whether the guard holds back d's kill now (logged, rate-limited; the
 * domain is looked at again a second later). sb NULL: before deciding
 * (holds only when the domain is not heading for the kernel's OOM);
 * else the decision about to be acted on (a kill that frees nothing is
 * held too). */
bool storm_gate(struct daemon *dm, const struct trigger_event *ev, const struct standby *sb);
/* The domain's memory in use (swap included) just before the signal. */
uint64_t storm_level_before(struct daemon *dm, const struct trigger_event *ev);
/* d's kill went out at signal_us, promising `promise` bytes: counted. */
void storm_kill_started(struct daemon *dm, struct domain *d, uint64_t level_before,
			uint64_t signal_us, uint64_t promise);
/* "expected_bytes" for the kill event. */
void storm_kill_fields(const struct domain *d, struct cgoom_strbuf *f);
/* The victims are gone (or kill_wait is over): what the domain freed,
 * as event fields in f, words in text (may be NULL), a warning when far
 * short, and the metrics. */
void storm_kill_done(struct daemon *dm, struct domain *d, struct cgoom_strbuf *f, char *text,
		     size_t cap);
void storm_metrics_render(const struct daemon *dm, struct cgoom_strbuf *b);

/* JSON: "domain": "PATH" */
void domain_field(struct cgoom_strbuf *b, const struct domain *d);
