/* SPDX-License-Identifier: MIT */
#pragma once

/*
 * The daemon's state, shared by its parts (doc: README "The daemon",
 * doc/architecture.md):
 *   run.c      the epoll loop: the only caller of actions; it alone
 *              tears a domain down (standby, kill, then files)
 *   detect.c   sampling (reads only, never writes) + the pure trigger
 *              functions of src/lib/trigger.c -> a struct trigger_event
 *   act.c      the actor: confirm, kill (the standby's targets taken
 *              into the kill state), report; owns struct kill_state
 *   standby.c  the decision kept ready while a domain approaches its
 *              line (struct standby: private, standby-internal.h)
 *   lifecycle.c  the kill lifecycle's pure step function
 *   domains.c  discovery, per-domain files; calls nothing above it
 *   guard.c    guard bands (memory.high writes, their trusted.cgoom.guard
 *              records, what a daemon killed before restoring left)
 *   fds.c      the fd budget: which domains keep their files open
 *   sysd.c     the systemd-oomd xattr protocol, systemd-oomd detection
 *   events.c   event log, metrics, pre-kill hook (struct events)
 * Each struct's fields are grouped by the file that owns them (the
 * triggers' state is also seeded by domains.c when a domain is added,
 * its margin set with the guard band, and re-based by act.c after a
 * kill). Not a public API.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "cgoom/config.h"
#include "cgoom/select.h"
#include "cgoom/strbuf.h"
#include "cgoom/thrash.h"
#include "cgoom/trigger.h"
#include "cgfs.h" /* cgfs_reread, cgfs_now_us: time in microseconds */
#include "daemon.h"
#include "kill.h"
#include "lifecycle.h"
#include "storm.h"
#include "reader.h"
#include "triggers.h"

struct domain;
struct daemon;
struct trigger_event;

/* ---- fds.c: the file-descriptor budget ----
 *
 * A cgroup domain keeps FDS_PER_DOMAIN files open (its directory,
 * memory.events, .current, .max, .high, cgroup.events); near its line FDS_ACTIVE more
 * (memory.stat, .swap.max, .swap.current, and memory.pressure twice:
 * the PSI "full" and "some" triggers, which cost the kernel a poller
 * each, so quiet domains arm none). FD_RESERVE more are always left
 * free for what decisions
 * and the loop open for a moment: the snapshot readers (a directory per
 * level, 64 levels deep, plus a file and a process directory: 72 each,
 * for the loop's and PREP_MAX preparations at once: 360), the
 * discovery walk (two per level: 130), a standby's re-check files (the
 * ranking's 2 x 33, the members' 2 x 64 + 16 + the entity's
 * cgroup.stat, the xattr directory: 212), a domain sampled without kept files (10), the event log,
 * metrics and the pre-kill hook's pipe. A decision's pidfds (one per
 * process it would signal, any number) are made room for when it is
 * prepared, by closing the kept files of quiet domains, which are then
 * polled: a decision never waits or fails for lack of an fd while any
 * domain holds files it could do without. */
#define FDS_PER_DOMAIN 6
#define FDS_ACTIVE 5
/* A domain keeps its active set this long after it was last near its
 * line (no open/close churn at the edge). */
#define ACTIVE_LINGER_US 10000000ULL
#define FD_RESERVE 768
/* Preparations at once, each on its thread (standby_slots_for). */
#define PREP_MAX 4
/* A standby's fds besides its pidfds (standby.c, standby-members.c). */
#define FDS_STANDBY_EXTRA 212

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
	W_CGEVENTS, /* a domain's cgroup.events changed (populated) */
	W_PSI,      /* a domain's PSI full trigger fired */
	W_PSI_SOME, /* a domain's PSI some trigger fired: sample now */
	W_PIDFD,    /* a victim exited */
	W_PREP,     /* the preparation thread finished a standby decision */
	W_INOTIFY,  /* discovery: a cgroup made, removed, or its limit written */
};

struct watch {
	enum watch_kind kind;
	struct domain *d;
	size_t target; /* W_PIDFD: index into the kill result's targets */
};

/* What a kill signals and then waits for: prepared by standby.c with
 * a decision (pidfds opened and verified, watches allocated), handed
 * to the kill state by one call (standby_take_targets) when it is acted
 * on; freed by kill_targets_free(). */
struct kill_targets {
	struct cgoom_kill_result res; /* one target per process (pidfds open) */
	struct watch *watches;        /* one per target */
	bool *exited;                 /* one per target */
	char *scope_path;             /* the kill scope's cgroup, or NULL */
	bool use_cgroup_kill;
	int xattr_fd; /* the victim's cgroup dir (systemd protocol), or -1 */
	enum cgoom_policy policy;
	size_t n_fds;     /* fds held (pidfds, xattr_fd), counted in *fd_count */
	size_t *fd_count; /* the fd budget's decisions count, or NULL */
};

#include "daemon-discover.h"
#include "daemon-sched.h"

/* A kill in flight in one domain (act.c): never a second victim while
 * it lasts. */
struct kill_state {
	struct kill_lifecycle lc;
	struct kill_targets tg;
	size_t n_alive;
	uint64_t trigger_us;
	uint64_t release_cpu_us; /* the loop's CPU in process_mrelease() */
};


/* The cgroups that cannot swap (noswap.c): paths from the cgroup root. */
struct noswap {
	char **paths;
	size_t n;
	uint64_t walked_us; /* 0: walk at the next ask */
	bool capped_said;
};
/* The anon and shmem in RAM of the cgroups that cannot swap (memory.swap.max
 * 0, or at it), their list remade every 5 s while asked for. 0 or -ENOMEM. */
int noswap_bytes(struct daemon *dm, uint64_t now, uint64_t *ret);
void noswap_free(struct noswap *ns);

/* The system domain's own files (domain 0 only). */
struct system_files {
	int meminfo_fd, vmstat_fd;
	struct cgoom_meminfo_layout meminfo_layout; /* where its lines were (system_meminfo) */
	size_t meminfo_len; /* its last read's length, in dm->buf until the next read */
	bool vmstat_ok;
	uint64_t vmstat_oom_kill;
	size_t vmstat_oom_ask; /* bytes of /proc/vmstat through oom_kill, and slack (0: all) */
	uint64_t vmstat_due_us; /* next /proc/vmstat read far from the line */
	uint64_t swap_free;     /* SwapFree at the last system sample (cgroup swap room) */
	uint64_t swap_total;    /* SwapTotal then (0: no swap, nothing swapped to read) */
	uint64_t swap_at_us;    /* when they were read (detect.c system_swap_fresh) */
	/* zram swap devices (pressure.c): their mm_stat, found from /proc/swaps
	 * (as many as swap areas can be: one zram device per CPU is a
	 * common setup, and four of them made every zram sum a part) */
	int zram_fds[CGOOM_SWAP_AREAS_MAX];
	size_t n_zram;
	uint64_t swaps_due_us;
	bool swaps_logged;
	bool swaps_other; /* /proc/swaps lists an area that is not zram */
	bool meminfo_bad; /* /proc/meminfo could not be used: said once, and its return */
	bool memfree_said; /* no MemAvailable line: MemFree used, said once */
};

struct domain {
	/* what it is (domains.c) */
	char *path; /* "/" for the system, else "/a/b" */
	bool system;
	bool dead;     /* torn down: fds closed, freed after the current batch */
	bool seen;     /* rescan mark */
	bool vanished; /* the walk no longer finds it: the loop tears it down */

	/* its files (domains.c; which stay open: fds.c) */
	int dirfd; /* the cgroup directory (system: -1) */
	int events_fd, current_fd, max_fd, high_fd, stat_fd;
	int swap_max_fd, swap_current_fd;
	int psi_fd, psi_some_fd;
	int cgevents_fd; /* cgroup.events (optional): whether it is empty */
	bool cgevents_watched; /* ... in the epoll set (EPOLLPRI) */
	bool psi_trigger; /* a kernel PSI trigger is armed on psi_fd; else polled */
	struct watch w_events, w_psi, w_psi_some, w_cgevents;
	struct system_files sys; /* the system domain's */
	/* a cgroup domain keeps its files open between samples when the fd
	 * budget allows (kept); otherwise they are opened for each sample
	 * and closed after it (polled) */
	bool files_open; /* the fds above are open now */
	bool kept;       /* ... and stay open between samples */
	bool active_open; /* the active set (memory.stat, .swap.*, PSI) is open */
	uint64_t active_until_us; /* ... kept open until then at least */
	size_t n_fds;    /* how many of them are open */
	dev_t dev;       /* the directory's identity: a polled domain's */
	ino_t ino;       /* reopened path must still be the same cgroup */

	/* guard band (guard.c) */
	uint64_t guard_band; /* configured for this domain; 0 = none */
	bool high_written;   /* cgoom wrote memory.high (or took over a band
			      * a daemon killed before it could restore left) */
	uint64_t old_high;   /* what memory.high held before, to restore
			      * (UINT64_MAX: max) */
	uint64_t our_high;   /* what cgoom wrote */

	/* the triggers' state (detect.c, src/lib/trigger.c) */
	bool sample_ok;
	struct cgoom_cgroup_sample sample;
	struct cgoom_cgroup_state trig;
	struct cgoom_cgroup_params params;
	struct cgoom_memevents kernel_last; /* oom_kill baseline */
	struct cgoom_psi_sample psi_last;
	struct cgoom_rate rate_level;  /* memory.current (system: MemTotal - MemAvailable) */
	struct cgoom_rate rate_unrecl; /* unreclaimable (cgroup, inside the band) */
	int sample_err;                /* the last sample's failed read (-errno), or 0 */
	const char *sample_err_file;   /* ... and its file */
	/* thrashing (pressure.c): the history is kept while the domain is
	 * watched (the system: pressure seen in the last WATCH_AFTER_US with
	 * MemAvailable under 15%; a cgroup at its limit), allocated when it
	 * is first watched; a cgroup's, once there, is fed its levels alone
	 * while out of its band */
	struct domain_pressure {
		struct cgoom_thrash_state st;
		struct cgoom_thrash_facts facts; /* what the last sample judged (metrics) */
		bool watched;                    /* ... and whether it was watched */
		uint64_t kills_at;               /* kills_seen when the history began */
	} *pressure;
	uint64_t psi_some_last;   /* PSI some total when last read ... */
	uint64_t psi_some_at;     /* ... and when */
	uint64_t watch_until_us;  /* pressure seen: watched until then while memory is near short */
	bool pressure_woke;       /* the kernel's PSI "some" trigger woke the loop */

	struct cgnode *node; /* discover.c's node of its directory, or NULL */

	/* sampling (run.c, sched.c) */
	uint64_t next_due_us;
	uint64_t early_us;  /* ... or that much sooner, at another wake-up */
	size_t heap_pos[2]; /* in sched.time, sched.alloc */
	bool budgeted;      /* on the allocation budget */
	uint64_t alloc_due; /* ... due when pgalloc reaches this */
	uint64_t watch_line; /* cgoom_watch_line() at the last sample */
	bool due_by_alloc;  /* sched_due took it for the budget alone */
	bool empty;         /* no process in its subtree (cgroup.events), as
			     * last read: at domain_add, when its kept
			     * cgroup.events fd wakes the loop, and at every
			     * walk (domain_read_populated) */
	unsigned quiet_probes; /* budget probes in a row that found it not grown */
	bool approach;         /* the last sample asked for a standby decision */
	int read_err;          /* the failed read last reported, or 0 */
	const char *read_file;

	/* the decision kept ready (standby.c; its queue: run.c) */
	struct standby *standby; /* or NULL */
	bool prep_wanted;          /* waiting for the preparation thread */
	uint64_t prep_deadline_us; /* ... its line expected then (the queue's order) */
	uint64_t prep_level;
	unsigned prep_fails;     /* preparations failed in a row */
	uint64_t prep_retry_us;  /* none before this after a failure */
	/* kills started in a domain that overlaps it (itself, an ancestor or
	 * a descendant; every kill for the system domain): a standby decided
	 * before a later one is stale. A kill in a disjoint domain signals
	 * none of its processes and changes none of its candidates. */
	uint64_t kills_seen;

	/* acting (act.c) */
	uint64_t cooldown_until_us; /* dry run / no victim: do not act again yet */
	struct kill_state kill;
	struct storm_state storm; /* kill accounting and the kill-storm guard (storm-act.c) */
};

struct metric_row {
	char *domain;
	uint64_t kills[CGOOM_POLICY_MAX]; /* by enum cgoom_policy */
	uint64_t triggers[CGOOM_TRIGGER_N_];
	uint64_t kernel_oom_kills;
	uint64_t freed_bytes, expected_bytes, kills_short, storm_holds; /* storm-act.c */
};

/* The event log and metrics (events.c). */
struct hook_child {
	pid_t pid;
	uint64_t deadline_us; /* killed if still running then */
};

struct events {
	int fd;          /* the event log, or -1 */
	int err;         /* the event log's last write error (0: fine) */
	int metrics_err; /* the metrics file's */
	struct metric_row *rows;
	size_t n_rows, cap_rows;
	bool have_reaction;
	uint64_t last_reaction_us;
	struct hook_child hooks[8]; /* post_kill_hook children not yet reaped */
	size_t n_hooks;
};

struct daemon {
	/* configuration (run.c) */
	struct cgoom_daemon_opts o;
	const char *config_path;
	struct cgoom_config cfg;
	/* cfg came from a file (not from a default path with nothing
	 * there): a reload that finds that file gone keeps cfg */
	bool cfg_from_file;
	/* one more with every reload and every change of a cgroup's xattrs
	 * (discover.c): standbys decided before are remade */
	uint64_t settings_gen;
	struct cgoom_roots roots;
	bool live, dry_run, once;
	/* who writes guard-band records (guard.c): this daemon's PID and
	 * start time in the proc root, read once (pid 0: not yet) */
	int guard_pid;
	uint64_t guard_start;
	bool guard_record_warned; /* a record could not be written: said once */
	bool guard_version_warned; /* a record of another format version: said once */
	struct noswap noswap; /* the cgroups that cannot swap (noswap.c) */

	/* the loop (run.c) */
	int epfd, sigfd, timerfd, deadlinefd;
	struct watch w_sig, w_timer, w_deadline;
	bool pwait2;      /* the sampling timer is epoll_pwait2's timeout, not timerfd */
	bool timer_armed; /* the sampling timer stands at timer_armed_us */
	uint64_t timer_armed_us;
	uint64_t next_metrics_us;
	bool quit;
	char buf[65536]; /* preallocated: every re-read of a kept fd lands here */

	/* the domains (domains.c); [0] is the system domain */
	struct domain **domains;
	size_t n_domains, cap_domains;
	size_t n_dead; /* closed since the last domains_reap */
	bool psi_fallback_logged;
	struct cgoom_strbuf polled_news; /* domains polled since the last report (JSON list) */
	size_t n_polled_news;

	/* discovery (discover.c) */
	struct discover disc;

	/* the fd budget (fds.c) */
	struct fd_budget fds;

	/* sampling (sched.c) */
	struct sched sched;

	/* decisions (standby.c) and kills (act.c) */
	uint64_t prepare_cost_us; /* how long a standby decision takes (decaying maximum) */
	struct prep_job *prep[PREP_MAX]; /* standbys being prepared, each on its thread */
	unsigned n_prep, prep_slots; /* in flight; at most this many at once */
	struct domain **prep_want; /* domains waiting for a free slot (run.c want_prep) */
	size_t n_prep_want, cap_prep_want;
	int prep_efd;             /* eventfd: a preparation thread (or a memory.high writer) is done */
	struct high_writer *high_writers; /* memory.high writes on their threads (guard-write.c) */
	struct watch w_prep;

	struct events ev;
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
	struct trigger_sample s; /* the sample the triggers were checked on */
};


/* ---- domains.c ---- */

int domains_init(struct daemon *dm);
/* A new domain for the memcg directory dirfd (taken) at path, its files
 * open and a first sample taken; NULL when it is none (logged). */
struct domain *domain_add(struct daemon *dm, int dirfd, const char *path);
/* Reads d's cgroup.events (its kept fd, else below dirfd, d's
 * directory): d->empty; unreadable or malformed counts as populated.
 * True when it changed. */
bool domain_read_populated(struct daemon *dm, struct domain *d, int dirfd);
/* Whether d's emptiness is watched: its cgroup.events fd is kept and
 * in the epoll set, so a process joining wakes the loop. */
bool domain_empty_watched(const struct domain *d);
void domains_apply_config(struct daemon *dm);
void domains_rearm_psi(struct daemon *dm);
void domains_reap(struct daemon *dm);
void domains_free(struct daemon *dm);
/* Closes d's fds (restoring memory.high if it still can) and marks it
 * dead; freed by domains_reap(). The loop tears a domain down
 * (run.c teardown: its standby and kill first, then this). */
void domain_close(struct daemon *dm, struct domain *d);
/* Notes that d went polled, for fds_report(). */
void domains_note_polled(struct daemon *dm, const struct domain *d);
/* Opens d's files (a polled domain before a sample): with keep, they
 * stay open and its memory.events and PSI triggers are watched.
 * -ESTALE when the path now names another cgroup, -ENOENT etc. when it
 * is gone. A domain whose files are open transiently is kept with keep. */
int domain_files_open(struct daemon *dm, struct domain *d, bool keep);
/* Closes d's files (the domain stays; it is polled from now on). */
void domain_files_close(struct daemon *dm, struct domain *d);
/* A kept domain near its line (active) gets its active set (memory.stat,
 * memory.swap.*, PSI triggers); ACTIVE_LINGER_US after it was last
 * active it gives it up. */
void domain_set_active(struct daemon *dm, struct domain *d, bool active, uint64_t now);
struct domain *domains_find(struct daemon *dm, const char *path);

/* ---- guard.c ---- */

/* Margin and guard band from the config; writes memory.high (the actor),
 * recorded in trusted.cgoom.guard (cgoom/guard.h). Before it first takes
 * d's memory.high as the operator's, it looks for a record a daemon
 * killed before it could restore left there: a memory.high still equal
 * to that daemon's band is taken over (kept while a band applies here,
 * else restored to the operator's value at once); a record whose value
 * no longer stands, or that is malformed, is removed; a record of a
 * daemon still running leaves d without a band of its own. */
void guard_apply(struct daemon *dm, struct domain *d);
/* Puts memory.high back as it was, unless someone changed it since,
 * and removes the record (kept when the write fails: the next start
 * restores it). */
void guard_restore(struct daemon *dm, struct domain *d);
/* A memcg met for the first time that is no domain (memory.max is max):
 * a band a daemon killed before it could restore left there (its
 * memory.max set to max since) is restored to the operator's value. */
void guard_recover_unlimited(struct daemon *dm, int dirfd, const char *path);

/* ---- guard-write.c: memory.high written off the loop ---- */

/* "max" or the number, as memory.high says it. */
void guard_fmt_high(uint64_t v, char *buf, size_t size);
/* Writes memory.high below dirfd now (0 or -errno); the kernel reclaims
 * in the caller down to it. */
int guard_write_high(int dirfd, uint64_t value);
/* Writes d's band: where the kernel would reclaim in the writer (usage
 * near or above value), from a helper thread, returning once memory.high
 * reads back value (bounded: 1 s); 0 or -errno. */
int guard_write_band(struct daemon *dm, struct domain *d, uint64_t value);
/* Joins the helper threads done (on dm->prep_efd's wake-up) and says
 * what came of them. */
void guard_writers_reap(struct daemon *dm);
/* The helper threads not joined yet (at most 8: past that many a band
 * is written from the loop). */
unsigned guard_writers_count(const struct daemon *dm);
/* At exit: joins the ones done, leaves the rest to the process's end. */
void guard_writers_abandon(struct daemon *dm);

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
/* d's memory.stat now, into s: the unreclaimable sum (with the swap
 * room), the reclaim counters, the swap used and room. */
int domain_memstat(struct daemon *dm, struct domain *d, struct cgoom_cgroup_sample *s);
/* domain_memstat with the files it reads opened for this read where they
 * are closed (a domain quiet until now: its active set closed; or no fd
 * room kept for them), and closed again after. */
int domain_memstat_once(struct daemon *dm, struct domain *d, struct cgoom_cgroup_sample *s);
int system_meminfo(struct daemon *dm, struct cgoom_meminfo *ret);
int domain_psi_read(struct daemon *dm, struct domain *d, uint64_t now_us,
		    struct cgoom_psi_sample *ret);
int system_vmstat_oom_kill(struct daemon *dm, uint64_t *ret);
/* /proc/vmstat's reclaim counters (oom_kill among them). */
int system_vmstat(struct daemon *dm, struct cgoom_reclaim *ret);
/* One sample of the system / a cgroup domain: fills *ret. */
void detect_system(struct daemon *dm, uint64_t now, bool psi_fired, struct trigger_event *ret);
void detect_cgroup(struct daemon *dm, struct domain *d, uint64_t now, bool psi_fired,
		   struct trigger_event *ret);
/* The checks of a cgroup domain on sample s (its memory.events compared
 * with the previous check's, which s->prev_ev gets; then d's baseline
 * moves to s): the kind that fired, NONE while a victim is dying. */
enum cgoom_trigger detect_cgroup_check(struct domain *d, struct trigger_sample *s,
				       const struct cgoom_config *cfg);
/* The re-check before acting: whether ev's domain is still in trouble for
 * ev's kind, on a sample read now (the kind's confirm hook, triggers.h);
 * *ret_kernel gets the kernel's OOM kills since detection. */
bool trigger_confirm(struct daemon *dm, const struct trigger_event *ev, uint64_t *ret_kernel);
/* The trigger's reason in words (its kind's why hook). */
void trigger_why(const struct daemon *dm, const struct trigger_event *ev, char *buf, size_t cap);
/* The trigger's numbers as JSON members (its kind's fields hook). */
void trigger_fields(const struct trigger_event *ev, struct cgoom_strbuf *f);

/* ---- pressure.c (reads, never writes) ---- */

/* The domain's PSI file parsed (some and full totals). */
int domain_pressure(struct daemon *dm, struct domain *d, struct cgoom_pressure *ret);
/* Feeds d's thrashing history with the sample's pressure when d is
 * watched (the system: pressure seen lately with MemAvailable under 15%,
 * and its levels alone while pressure was seen but memory was not near
 * short; a cgroup at its limit, and its levels alone away from it),
 * reading what that needs (/proc/vmstat or memory.stat, swap, zram), and
 * judges it into s->thrash. psi: the PSI file as read for this sample
 * (NULL: not read); reclaim: /proc/vmstat's counters if this sample read
 * them. */
void pressure_system(struct daemon *dm, struct domain *d, const struct cgoom_pressure *psi,
		     const struct cgoom_reclaim *reclaim, struct trigger_sample *s);
void pressure_cgroup(struct daemon *dm, struct domain *d, struct trigger_sample *s);
/* Whether the system domain's PSI file is worth reading at `now`:
 * polled PSI, a PSI trigger that fired (the "some" one included:
 * d->pressure_woke), watched, short of memory, or, without the "some"
 * trigger, a second since it was last read. */
bool pressure_wanted(const struct domain *d, const struct trigger_sample *s, bool psi_fired,
		     uint64_t now);
/* Whether the system domain is watched at s->at_us after seeing psi
 * (NULL: not read this sample): "some" pressure seen in the last 5 s (1%
 * of the time since the last read, or the kernel's "some" trigger woke
 * the loop: d->pressure_woke) and
 * MemAvailable under 1.5x the thrash rules' short line (pressure.c). */
bool pressure_watch(const struct daemon *dm, struct domain *d, const struct cgoom_pressure *psi,
		    const struct trigger_sample *s);
/* MemAvailable under 1.5x the thrash rules' short line (15%): where the
 * system is watched once pressure is seen. */
bool pressure_system_near_short(const struct daemon *dm, const struct trigger_sample *s);
bool pressure_system_watched(const struct daemon *dm, const struct domain *d,
			     const struct trigger_sample *s);
/* A watched domain is sampled at least this often, so its windows fill
 * (trigger-thrash.c's pace). */
#define WATCHED_PACE_US 250000ULL
/* Whether a PSI trigger's wake-up of d at `now` can wait for d's next
 * sample: the system, watched at its last sample and still in its watch,
 * with that sample due within WATCHED_PACE_US. d->pressure_woke keeps
 * the wake-up for it. */
bool pressure_wake_deferred(const struct domain *d, uint64_t now);
void pressure_free(struct domain *d);
/* Prometheus gauges of the watched domains' pressure: stall, thrashing,
 * swap and its rate, zram (doc/metrics.md). */
void pressure_metrics(const struct daemon *dm, struct cgoom_strbuf *b);

/* deciding and acting: standby.c, act.c, sysd.c, events.c, storm-act.c */
#include "daemon-act.h"
