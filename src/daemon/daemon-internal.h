/* SPDX-License-Identifier: MIT */
#pragma once

/*
 * The daemon's state, shared by its parts (doc: README "The daemon"):
 *   run.c      the epoll loop: the only caller of actions
 *   detect.c   sampling (reads only, never writes) + the pure trigger
 *              functions of src/lib/trigger.c -> a struct trigger_event
 *   act.c      the actor: confirm, kill (from the standby), report
 *   standby.c  the decision kept ready while a domain approaches its line
 *   lifecycle.c  the kill lifecycle's pure step function
 *   domains.c  discovery, per-domain fds, guard bands (memory.high writes)
 *   fds.c      the fd budget: which domains keep their files open
 *   sysd.c     the systemd-oomd xattr protocol, systemd-oomd detection
 *   events.c   event log, metrics, pre-kill hook
 * Not a public API.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "cgoom/config.h"
#include "cgoom/select.h"
#include "cgoom/strbuf.h"
#include "cgoom/trigger.h"
#include "cgfs.h" /* cgfs_reread, cgfs_now_us: time in microseconds */
#include "daemon.h"
#include "kill.h"
#include "lifecycle.h"
#include "reader.h"

struct domain;

/* ---- fds.c: the file-descriptor budget ----
 *
 * A cgroup domain keeps up to FDS_PER_DOMAIN files open (its directory,
 * memory.events, .current, .max, .high, .stat, .swap.max,
 * .swap.current, and memory.pressure twice: the PSI "full" and "some"
 * triggers). FD_RESERVE more are always left free for what a decision
 * and the loop open for a moment: the snapshot reader (a directory per
 * level, 64 levels deep, plus a file and a process directory: 72), the
 * discovery walk (two per level: 130), a standby's re-check files (the
 * ranking's 2 x 33, the members' 2 x 64 + 16, the xattr directory:
 * 211), a domain sampled without kept files (10), the event log,
 * metrics and the pre-kill hook's pipe. A decision's pidfds (one per
 * process it would signal, any number) are made room for when it is
 * prepared, by closing the kept files of quiet domains, which are then
 * polled: a decision never waits or fails for lack of an fd while any
 * domain holds files it could do without. */
#define FDS_PER_DOMAIN 10
#define FD_RESERVE 512
/* A standby's fds besides its pidfds (standby.c, standby-members.c). */
#define FDS_STANDBY_EXTRA 211

struct fd_budget {
	uint64_t limit;   /* RLIMIT_NOFILE, soft, after raising it to the hard limit */
	size_t fixed;     /* open before any cgroup domain (loop, system domain, log) */
	size_t reserve;   /* left free: FD_RESERVE */
	size_t kept;      /* held by cgroup domains' kept files */
	size_t decisions; /* held by standby decisions and kills in flight */
};
/* Pure: whether `more` fds can be held on top of what b counts and
 * still leave the reserve free. */
bool fd_budget_fits(const struct fd_budget *b, size_t more);
/* Pure: how many held fds must be released so that `more` fit (0: they
 * fit already). */
size_t fd_budget_shortfall(const struct fd_budget *b, size_t more);

/* What an epoll event is about; epoll_event.data.ptr points at one. */
enum watch_kind {
	W_SIGNAL,
	W_TIMER,    /* sampling, rescans, metrics */
	W_DEADLINE, /* term_grace and kill_wait expiries */
	W_EVENTS,   /* a domain's memory.events changed */
	W_PSI,      /* a domain's PSI full trigger fired */
	W_PSI_SOME, /* a domain's PSI some trigger fired: sample now */
	W_PIDFD,    /* a victim exited */
	W_PREP,     /* the preparation thread finished a standby decision */
};

struct watch {
	enum watch_kind kind;
	struct domain *d;
	size_t target; /* W_PIDFD: index into the kill result's targets */
};

/* A decision kept ready (standby.c): the snapshot it was made on, the
 * victim's pidfds opened and verified, the watches for its exit
 * allocated; acting on it allocates nothing. Owned by one domain; moved
 * into the domain's kill_state when it is acted on. */
struct standby {
	struct cgoom_snapshot snap;
	struct cgoom_settings settings; /* resolved from snap: sections copied, */
					/* so a config reload leaves it intact */
	struct cgoom_reader *rd;
	bool have_snap;
	struct cgoom_decision dec;
	int *inflight;
	struct cgoom_kill_result res; /* prepared targets (pidfds open) */
	struct watch *watches;        /* one per target */
	bool *exited;                 /* one per target */
	const char *scope_path;       /* into snap, or NULL */
	int xattr_fd;                 /* the victim's cgroup dir (systemd protocol), or -1 */
	uint64_t decided_us;
	uint64_t level_at;            /* the domain's level when decided (standby_judge) */
	uint64_t lead;                /* standby_lead() of dec */
	uint64_t proc_lead;           /* cgoom_victim_process_lead() of dec */
	uint64_t kills_at;            /* dm->kills_started when decided */
	size_t skipped_at;            /* res.n_skipped when prepared */
	/* the ranking re-check (cgroup entities only; rank_fds NULL: none) */
	struct rank_fds {
		int current_fd, swap_fd;
		int64_t bias_term; /* score - footprint at the decision */
		bool ahead;
	} *rank_fds;            /* [0] the victim (current_fd: memory.stat), then rivals */
	size_t n_rank_fds;
	struct rank_bound *rank_buf; /* n_rank_fds - 1, preallocated */
	/* the members re-check (standby-members.c; members NULL: none) */
	struct member {
		int pid;
		int status_fd, adj_fd; /* /proc/PID/{status,oom_score_adj}, or -1 */
		bool can_be_eligible;  /* not a kernel thread, PID 1, cgoom, omit */
	} *members;
	size_t n_members;
	struct member_score *member_buf; /* n_members, preallocated */
	int *entity_pids;                /* sorted: every PID the snapshot saw in it */
	size_t n_entity_pids;
	int *procs_fds; /* cgroup.procs of each of the entity's cgroups */
	size_t n_procs_fds;
	int *pid_buf; /* for parsing cgroup.procs, preallocated */
	size_t cap_pid_buf;
	uint64_t members_due_us; /* the next members re-check on the way */
	bool ready;                   /* a victim with at least one verified target */
	size_t n_fds;                 /* fds it holds, counted in *fd_count (fd budget) */
	size_t *fd_count;
};

/* A kill in flight in one domain: never a second victim while it lasts. */
struct kill_state {
	struct kill_lifecycle lc;
	struct standby *sb; /* what was acted on (owned) */
	size_t n_alive;
	enum cgoom_policy policy;
	uint64_t trigger_us;
};

struct domain {
	char *path; /* "/" for the system, else "/a/b" */
	bool system;
	bool dead; /* vanished: fds closed, freed after the current batch */
	bool seen; /* rescan mark */

	int dirfd; /* the cgroup directory (system: -1) */
	int events_fd, current_fd, max_fd, high_fd, stat_fd;
	int swap_max_fd, swap_current_fd;
	int psi_fd, psi_some_fd;
	/* the fd budget (fds.c): a cgroup domain keeps its files open
	 * between samples when the budget allows (kept); otherwise they are
	 * opened for each sample and closed after it (polled) */
	bool files_open; /* the fds above are open now */
	bool kept;       /* ... and stay open between samples */
	size_t n_fds;    /* how many of them are open */
	dev_t dev;       /* the directory's identity: a polled domain's */
	ino_t ino;       /* reopened path must still be the same cgroup */
	bool approach;   /* the last sample asked for a standby decision */
	int sample_err;  /* detect.c: the last sample's failed read (-errno), or 0 */
	const char *sample_err_file; /* ... and its file */
	int read_err;    /* run.c: the failed read last reported, or 0 */
	const char *read_file;
	bool psi_trigger; /* a kernel PSI trigger is armed on psi_fd; else polled */
	struct cgoom_psi_sample psi_last;
	struct watch w_events, w_psi, w_psi_some;

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

	/* sampling */
	struct cgoom_rate rate_level;  /* memory.current (system: MemTotal - MemAvailable) */
	struct cgoom_rate rate_unrecl; /* unreclaimable (cgroup, inside the band) */
	uint64_t next_due_us;

	struct standby *standby; /* ready decision, or NULL */
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
	struct cgoom_daemon_opts o;
	const char *config_path;
	struct cgoom_config cfg;
	struct cgoom_roots roots;
	bool live, dry_run, once;

	int epfd, sigfd, timerfd, deadlinefd;
	struct watch w_sig, w_timer, w_deadline;
	int meminfo_fd, vmstat_fd;
	uint64_t vmstat_oom_kill;
	uint64_t vmstat_due_us; /* next /proc/vmstat read far from the line */
	bool timer_armed;        /* the sampling timer stands at timer_armed_us */
	uint64_t timer_armed_us;
	bool vmstat_ok;
	uint64_t swap_free; /* SwapFree at the last system sample (cgroup swap room) */
	uint64_t sys_mem_min; /* the system's MemAvailable line at the last sample */
	bool psi_fallback_logged;

	struct domain **domains; /* [0] is the system domain */
	size_t n_domains, cap_domains;
	uint64_t next_rescan_us, next_metrics_us;
	uint64_t kills_started; /* a standby decided before a later kill is stale */
	uint64_t prepare_cost_us; /* how long a standby decision takes (decaying maximum) */
	struct prep_job *prep;    /* a standby being prepared on its thread, or NULL */
	int prep_efd;             /* eventfd: the preparation thread is done */
	struct watch w_prep;

	int *inflight;
	size_t cap_inflight;

	/* discovery (domains.c): what the last walks could not read */
	size_t walk_fails, walk_fails_last;
	char walk_first[320], walk_first_last[320];

	struct fd_budget fds;
	struct cgoom_strbuf polled_news; /* domains polled since the last warning (JSON list) */
	size_t n_polled_news;

	/* events.c */
	int event_fd;
	struct metric_row *rows;
	size_t n_rows, cap_rows;
	bool have_reaction;
	uint64_t last_reaction_us;

	bool quit;
	char buf[65536]; /* preallocated: every re-read of a kept fd lands here */
};

/* What a detector returns (detect.c): everything the loop needs to act
 * on one sample of one domain. The detector itself acts on nothing. */
struct trigger_event {
	struct domain *d;
	enum cgoom_trigger kind; /* NONE: nothing fired */
	uint64_t t0;             /* when the sample was taken */
	uint64_t next_us;        /* the next sample's delay */
	bool approach;           /* near the line: keep a standby decision */
	uint64_t level;          /* the quantity the standby is judged on */
	uint64_t headroom;       /* bytes from level to the line */
	uint64_t rate;           /* measured growth of level, bytes/s */
	bool gone;               /* the cgroup vanished: close the domain */
	bool max_changed;        /* memory.max changed: re-apply the guard band */
	uint64_t kernel_kills;   /* kernel OOM kills seen since the last sample */
	uint64_t oom_kill0;      /* oom_kill counter at detection (confirm's baseline) */
	uint64_t psi_stall_us;
	struct cgoom_psi_sample psi0;
	struct cgoom_cgroup_sample sample;  /* cgroup domains */
	struct cgoom_system_levels lv;      /* the system domain */
	struct cgoom_cgroup_state before;   /* cgroup: the trigger state before this check */
};


/* ---- domains.c ---- */

int domains_init(struct daemon *dm);
int domains_rescan(struct daemon *dm);
void domains_apply_config(struct daemon *dm);
void domains_rearm_psi(struct daemon *dm);
void domains_reap(struct daemon *dm);
void domains_free(struct daemon *dm);
/* Closes d's fds (restoring memory.high if it still can) and marks it
 * dead; freed by domains_reap(). */
void domain_close(struct daemon *dm, struct domain *d);
/* Opens d's files (a polled domain before a sample): with keep, they
 * stay open and its memory.events and PSI triggers are watched.
 * -ESTALE when the path now names another cgroup, -ENOENT etc. when it
 * is gone. A domain whose files are open transiently is kept with keep. */
int domain_files_open(struct daemon *dm, struct domain *d, bool keep);
/* Closes d's files (the domain stays; it is polled from now on). */
void domain_files_close(struct daemon *dm, struct domain *d);
/* Margin and guard band from the config; writes memory.high (the actor). */
void guard_apply(struct daemon *dm, struct domain *d);
struct domain *domains_find(struct daemon *dm, const char *path);

/* ---- fds.c ---- */

/* Raises RLIMIT_NOFILE's soft limit to the hard one and fills
 * dm->fds.limit and .reserve (logged). */
void fds_raise_limit(struct daemon *dm);
/* Counts the fds open now as the budget's fixed part. */
void fds_measure_fixed(struct daemon *dm);
/* Makes room for `more` fds beyond the reserve by closing the kept
 * files of quiet domains (no standby, no kill, not approaching their
 * line), which are then polled; named in one warning. Returns whether
 * they fit now. */
bool fds_make_room(struct daemon *dm, size_t more);
/* Lets polled domains keep their files again while the budget allows. */
void fds_promote(struct daemon *dm);
/* Logs (one warning, names and how many) and records (event
 * "domains_polled") the domains that went polled since the last call. */
void fds_report(struct daemon *dm);
/* Notes that d went polled, for fds_report(). */
void fds_note_polled(struct daemon *dm, const struct domain *d);
/* Whether d needs its files between samples: near its line, a standby
 * or a kill in flight. */
bool domain_active(const struct domain *d);

/* ---- detect.c (reads, never writes) ---- */

/* A kept fd re-read (cgfs_reread into dm->buf) and parsed: a u64
 * (memory.current, ...) or a limit ("max" is UINT64_MAX). */
int daemon_reread_u64(struct daemon *dm, int fd, uint64_t *ret);
int daemon_reread_limit(struct daemon *dm, int fd, uint64_t *ret);

/* Re-reads memory.current/max/high/events into *ret. -ENODEV etc. when
 * the cgroup is gone. */
int domain_sample(struct daemon *dm, struct domain *d, struct cgoom_cgroup_sample *ret);
/* The unreclaimable bytes of d now (memory.stat, swap room). */
int domain_unreclaimable(struct daemon *dm, struct domain *d, uint64_t *ret);
int system_meminfo(struct daemon *dm, struct cgoom_meminfo *ret);
int domain_psi_read(struct daemon *dm, struct domain *d, uint64_t now_us,
		    struct cgoom_psi_sample *ret);
int system_vmstat_oom_kill(struct daemon *dm, uint64_t *ret);
/* One sample of the system / a cgroup domain: fills *ret. */
void detect_system(struct daemon *dm, uint64_t now, bool psi_fired, struct trigger_event *ret);
void detect_cgroup(struct daemon *dm, struct domain *d, uint64_t now, bool psi_fired,
		   struct trigger_event *ret);
/* The trigger's reason in words. */
void trigger_why(const struct daemon *dm, const struct trigger_event *ev, char *buf, size_t cap);
/* The trigger's numbers as JSON members. */
void trigger_fields(const struct trigger_event *ev, struct cgoom_strbuf *f);

/* ---- standby.c ---- */

/* SB_STALE: usable as far as its processes go, but the level moved or
 * time passed enough that the ranking may have changed (at the crossing,
 * a ranking re-check can still clear it: standby_rank_holds). */
enum sb_verdict { SB_USE, SB_STALE, SB_REDECIDE, SB_DROP };

/* One rival of a standby's victim, re-read at the crossing: an upper
 * bound of its score now is memory.current + memory.swap.current (what
 * its footprint is made of is charged there) plus its bias. */
struct rank_bound {
	int64_t score_upper;
	bool ahead; /* before the victim in the walk: wins a tie */
};
/* Pure: whether the victim, scoring victim_now (a lower bound: its
 * footprint read from memory.stat now, plus its bias), still beats
 * every rival's upper bound. */
bool standby_rank_holds(int64_t victim_now, const struct rank_bound *rivals, size_t n);

/* What standby_judge looks at: plain numbers, so it is pure. */
struct standby_view {
	bool present, ready;
	uint64_t decided_us, level_at, kills_at;
	size_t n_skipped; /* targets found gone, reused or protected since */
	/* the domain's memory.max in the decision's snapshot and as last
	 * sampled: it sets the domain size T, which scales oom_score_adj
	 * and bias (UINT64_MAX both for the system domain) */
	uint64_t max_at, max_now;
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

/* Makes (or remakes) d's standby decision: fresh lazy snapshot, settings,
 * selection, pidfds opened and verified. 0, or -errno (logged). Waits
 * for a preparation in flight first. */
int standby_prepare(struct daemon *dm, struct domain *d, uint64_t now, uint64_t level);
/* The same, with the snapshot and the selection on the preparation
 * thread, so the loop keeps sampling meanwhile (a snapshot can take
 * hundreds of milliseconds on a loaded machine); the loop finishes it
 * (pidfds, fds) in standby_wait() when the thread signals prep_efd.
 * -EBUSY while one is in flight. The thread reads only the snapshot's
 * files (the reader changes the cwd while it reads: every path the loop
 * opens meanwhile is absolute or relative to a dirfd) and dm->cfg (a
 * reload waits for it first). */
int standby_prepare_async(struct daemon *dm, struct domain *d, uint64_t now, uint64_t level);
/* Joins the preparation in flight, if any, and installs its standby. */
void standby_wait(struct daemon *dm);
/* The verdict on d's standby now (crossing: the trigger fired), after
 * re-validating its targets (allocates nothing). */
enum sb_verdict standby_check(struct daemon *dm, struct domain *d, uint64_t now, uint64_t level,
			      bool crossing);
void standby_free(struct standby *sb); /* NULL-safe */
/* The ranking re-check: whether the standby's victim provably still
 * leads (its footprint now against each rival's memory.current +
 * memory.swap.current). false when it cannot tell. Allocates nothing. */
bool standby_rank_ok(struct daemon *dm, struct standby *sb);

/* standby-members.c: the victim entity's processes re-read at the
 * crossing (see there). */
struct member_score {
	int pid;
	bool eligible;
	int64_t score; /* oom_badness now */
};
/* Pure: P (victim_pid) is eligible and beats every other eligible
 * member (equal scores: the lower PID wins, as in the engine). */
bool standby_members_lead(const struct member_score *m, size_t n, int victim_pid);
void standby_members_open(struct daemon *dm, struct standby *sb);
bool standby_members_ok(struct daemon *dm, struct standby *sb);
void standby_members_free(struct standby *sb);
void standby_drop(struct domain *d);
/* The victim's lead over the next eligible candidate of its tier, in
 * score bytes (UINT64_MAX: no rival in its tier; 0: no victim). */
uint64_t standby_lead(const struct cgoom_decision *dec);
/* Limits for a standby: level_delta half its lead on the approach, the
 * whole lead at the crossing. */
struct standby_limits standby_limits_of(const struct standby *sb, bool crossing);

/* ---- act.c (the actor) ---- */

/* Confirms, kills (or logs, in a dry run) and reports, for a fired
 * trigger. */
void daemon_act(struct daemon *dm, const struct trigger_event *ev);
/* A victim's pidfd became readable. */
void act_pidfd(struct daemon *dm, struct watch *w, uint64_t now);
/* The deadline timer fired: step every kill lifecycle. */
void act_deadline(struct daemon *dm, uint64_t now);
/* Reports kernel OOM kills seen in d. */
void act_kernel_oom(struct daemon *dm, struct domain *d, uint64_t n);
bool act_any_kill_active(const struct daemon *dm);
void act_arm_deadline(struct daemon *dm);
void kill_state_clear(struct daemon *dm, struct domain *d);

/* ---- sysd.c ---- */

/* Adds n to the decimal value of the user xattr `name` on fd (absent:
 * 0). Allocates nothing. 0 or -errno. */
int sysd_xattr_add(int fd, const char *name, uint64_t n);
/* Warns when systemd-oomd looks active (a process of that name under
 * the proc root, or its runtime directory). Returns whether it does. */
bool sysd_warn_oomd(struct daemon *dm);

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
void metrics_free(struct daemon *dm);
#define CGOOM_HOOK_TIMEOUT_MS 2000
int hook_run(struct daemon *dm, const char *json, size_t len);

/* JSON: "domain": "PATH" */
void domain_field(struct cgoom_strbuf *b, const struct domain *d);
