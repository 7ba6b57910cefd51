/* SPDX-License-Identifier: MIT */
#pragma once

/*
 * The daemon's state, shared by run.c (the epoll loop and the kill path),
 * domains.c (domain discovery, per-domain fds, samples, guard bands) and
 * events.c (event log, metrics, pre-kill hook). Not a public API.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cgoom/config.h"
#include "cgoom/select.h"
#include "cgoom/strbuf.h"
#include "cgoom/trigger.h"
#include "cli.h"
#include "kill.h"
#include "reader.h"

struct domain;

/* What an epoll event is about; epoll_event.data.ptr points at one. */
enum watch_kind {
	W_SIGNAL,
	W_TIMER,    /* adaptive polling and rescans */
	W_DEADLINE, /* term_grace and kill_wait expiries */
	W_EVENTS,   /* a domain's memory.events changed */
	W_PSI,      /* a domain's PSI trigger fired */
	W_PIDFD,    /* a victim exited */
};

struct watch {
	enum watch_kind kind;
	struct domain *d;
	size_t target; /* W_PIDFD: index into the kill result's targets */
};

/* A kill in flight in one domain: never a second victim while it lasts. */
struct kill_state {
	bool active;
	struct cgoom_kill_result res;
	struct watch *watches; /* one per target */
	bool *exited;          /* one per target */
	size_t n_alive;
	enum cgoom_policy policy;
	bool cgroup_kill; /* the decision wanted cgroup.kill on the scope */
	char *scope_path; /* for the SIGKILL after term_grace (owned) */
	bool term_phase;  /* SIGTERM sent, SIGKILL pending */
	uint64_t trigger_us, signal_us, grace_until_us, wait_until_us;
};

struct domain {
	char *path; /* "/" for the system, else "/a/b" */
	bool system;
	bool dead; /* vanished: fds closed, freed after the current batch */
	bool seen; /* rescan mark */

	int dirfd; /* the cgroup directory (system: -1) */
	int events_fd, current_fd, max_fd, high_fd;
	int psi_fd;
	bool psi_trigger; /* a kernel PSI trigger is armed on psi_fd; else polled */
	struct cgoom_psi_sample psi_last;
	struct watch w_events, w_psi;

	/* cgroup domains */
	bool sample_ok;
	struct cgoom_cgroup_sample sample;
	struct cgoom_cgroup_state trig;
	struct cgoom_cgroup_params params;
	uint64_t guard_band;   /* configured for this domain; 0 = none */
	bool high_written;     /* cgoom wrote memory.high */
	char old_high[32];     /* what memory.high held before, to restore */
	uint64_t our_high;
	struct cgoom_memevents kernel_last; /* oom_kill baseline */

	uint64_t cooldown_until_us; /* dry run / no victim: do not re-decide yet */
	struct kill_state kill;
};

struct metric_row {
	char *domain;
	uint64_t kills[CGOOM_POLICY_MAX]; /* by enum cgoom_policy */
	uint64_t triggers[CGOOM_TRIGGER_N_];
	uint64_t kernel_oom_kills;
};

struct daemon {
	const struct cli_opts *o;
	const char *config_path;
	struct cgoom_config cfg;
	struct cgoom_roots roots;
	bool live, dry_run, once;

	int epfd, sigfd, timerfd, deadlinefd;
	struct watch w_sig, w_timer, w_deadline;
	int meminfo_fd, vmstat_fd;
	uint64_t vmstat_oom_kill;
	bool vmstat_ok;
	bool psi_fallback_logged;

	struct domain **domains; /* [0] is the system domain */
	size_t n_domains, cap_domains;
	uint64_t next_rescan_us, next_metrics_us;

	/* kill path: reused across decisions */
	struct cgoom_snapshot snap;
	struct cgoom_reader *rd; /* of snap: read lazily (branch and bound) */
	bool have_snap;
	struct cgoom_decision dec;
	int *inflight;
	size_t cap_inflight;

	/* events.c */
	int event_fd;
	struct metric_row *rows;
	size_t n_rows;
	bool have_reaction;
	uint64_t last_reaction_us;

	bool quit;
	char buf[65536]; /* preallocated: every re-read of a kept fd lands here */
};

/* Time, microseconds: CLOCK_MONOTONIC. */
uint64_t daemon_now_us(void);

/* ---- domains.c ---- */

/* pread from offset 0 into buf (cap bytes, NUL-terminated); -errno. */
int daemon_reread(int fd, char *buf, size_t cap, size_t *ret_len);
/* Creates the system domain and opens /proc/meminfo, /proc/vmstat and
 * the system PSI trigger. */
int domains_init(struct daemon *dm);
/* Walks the cgroup tree: adds memcgs with a finite memory.max, drops
 * those that vanished or lost their limit. Applies guard bands. */
int domains_rescan(struct daemon *dm);
/* Re-applies margin and guard band settings after a reload. */
void domains_apply_config(struct daemon *dm);
/* Re-arms every domain's PSI trigger with the configured psi_full. */
void domains_rearm_psi(struct daemon *dm);
/* Frees domains marked dead (call between epoll batches). */
void domains_reap(struct daemon *dm);
/* Closes everything, restoring memory.high where cgoom changed it. */
void domains_free(struct daemon *dm);
/* Re-reads memory.current/max/high/events into d->sample. -ENODEV etc.
 * when the cgroup is gone (the domain is then marked dead). */
int domain_sample(struct daemon *dm, struct domain *d);
/* Reads /proc/meminfo through the kept fd. */
int system_meminfo(struct daemon *dm, struct cgoom_meminfo *ret);
/* Reads a PSI file's "full" total into *ret (at now_us). */
int domain_psi_read(struct daemon *dm, struct domain *d, uint64_t now_us,
		    struct cgoom_psi_sample *ret);
/* Marks d dead: closes its fds (restoring memory.high if it still can). */
void domain_kill_fds(struct daemon *dm, struct domain *d);
struct domain *domains_find(struct daemon *dm, const char *path);

/* One check of the system domain / of a cgroup domain at now (psi_fired:
 * its kernel PSI trigger went off); acts through daemon_act() when a
 * trigger fires. Return the domain's next poll interval. */
uint64_t check_system(struct daemon *dm, uint64_t now, bool psi_fired);
uint64_t check_cgroup(struct daemon *dm, struct domain *d, uint64_t now, bool psi_fired);

/* ---- run.c ---- */

/* A trigger of `kind` fired for d at t0 (why: human text; fields: JSON
 * members for the event; psi0: the PSI sample at detection): decide on a
 * fresh snapshot, re-check, log the ranking, kill (or log, in a dry run). */
void daemon_act(struct daemon *dm, struct domain *d, enum cgoom_trigger kind, uint64_t t0,
		const char *why, const struct cgoom_strbuf *fields,
		const struct cgoom_psi_sample *psi0);

/* ---- events.c ---- */

/* (Re)opens the event log named in the config; closes the old one. */
void events_open(struct daemon *dm);
void events_close(struct daemon *dm);
/* Writes {"event": NAME, "ts": ..., "uptime_ms": ..., FIELDS} as one
 * line; fields is a JSON member list without braces (may be NULL). */
void event_emit(struct daemon *dm, const char *name, const struct cgoom_strbuf *fields);
void metrics_trigger(struct daemon *dm, const char *domain, enum cgoom_trigger kind);
void metrics_kill(struct daemon *dm, const char *domain, enum cgoom_policy policy,
		  uint64_t reaction_us);
void metrics_kernel_oom(struct daemon *dm, const char *domain, uint64_t n);
/* Writes the metrics file atomically (temp + rename); no-op without one. */
void metrics_write(struct daemon *dm);
void metrics_free(struct daemon *dm);
/* Runs the pre-kill hook (if configured): /bin/sh -c HOOK with json on
 * stdin, killed after CGOOM_HOOK_TIMEOUT_MS. Returns its wait status, or
 * -errno; failures are logged, never fatal. */
#define CGOOM_HOOK_TIMEOUT_MS 2000
int hook_run(struct daemon *dm, const char *json, size_t len);
