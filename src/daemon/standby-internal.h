/* SPDX-License-Identifier: MIT */
#pragma once

/*
 * struct standby: private to standby.c and standby-members.c (and their
 * unit tests). The rest of the daemon sees only the functions in
 * daemon-internal.h.
 */

#include "daemon-internal.h"

/* A decision kept ready: the snapshot it was made on, the victim's
 * targets prepared (kill_targets: pidfds opened and verified, watches
 * allocated), the files of its re-checks open; acting on it allocates
 * nothing. Owned by one domain (d->standby). */
struct standby {
	struct cgoom_snapshot snap;
	struct cgoom_settings settings; /* resolved from snap: sections copied, */
					/* so a config reload leaves it intact */
	struct cgoom_reader *rd;
	bool have_snap;
	struct cgoom_decision dec;
	struct inflight inflight;   /* what snap.inflight points into */
	struct kill_targets tg;     /* prepared targets, until taken */
	bool ready;                 /* a victim with at least one verified target */
	uint64_t decided_us;
	uint64_t level_at;          /* the domain's level when decided (standby_judge) */
	uint64_t lead;              /* standby_lead() of dec */
	uint64_t proc_lead;         /* cgoom_victim_process_lead() of dec */
	uint64_t kills_at;          /* the domain's kills_seen when decided */
	uint64_t settings_at;       /* the daemon's settings_gen when decided */
	size_t skipped_at;          /* tg.res.n_skipped when prepared */
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
		/* /proc/PID/{status,oom_score_adj}, or -1; status is
		 * /proc/PID/task/TID/status when the leader exited and thread
		 * TID holds the address space (cgoom_process.mm_tid) */
		int status_fd, adj_fd;
		bool thread; /* status_fd is such a thread's */
		bool can_be_eligible;  /* not a kernel thread, PID 1, cgoom, omit */
	} *members;
	size_t n_members;
	struct member_score *member_buf; /* n_members, preallocated */
	int *entity_pids;                /* sorted: every PID the snapshot saw in it */
	bool *listed;                    /* per entity_pids: listed now (preallocated) */
	size_t n_entity_pids;
	int *procs_fds; /* cgroup.procs of each of the entity's cgroups */
	size_t n_procs_fds;
	int stat_fd;    /* the entity's cgroup.stat (while members; else unused) */
	uint64_t n_descendants; /* the snapshot's cgroups below the entity */
	int *pid_buf; /* for parsing cgroup.procs, preallocated */
	size_t cap_pid_buf;
	uint64_t members_due_us; /* the next members re-check on the way */
	uint64_t members_read_us; /* when member_buf was last filled whole (0: never) */
	size_t n_fds;            /* re-check fds held, counted in *fd_count (fd budget) */
	size_t *fd_count;
};

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
/* standby-rank.c: the fds the ranking re-check reads (the victim
 * entity's memory.stat and memory.swap.current, each rival's
 * memory.current and memory.swap.current), opened when the standby is
 * made and closed with it */
void rank_fds_open(struct daemon *dm, struct standby *sb);
void rank_fds_free(struct standby *sb);

/* Limits for a standby: level_delta half its lead on the approach, the
 * whole lead at the crossing. */
struct standby_limits standby_limits_of(const struct standby *sb, bool crossing);
void standby_free(struct standby *sb); /* NULL-safe */

/* standby-members.c: the victim entity's processes re-read at the
 * crossing (see there). */
struct member_score {
	int pid;
	bool eligible;
	int64_t score; /* oom_badness now */
	uint64_t size; /* VmRSS + VmSwap + VmPTE now (0: exited, or no mm) */
};
/* Pure: P (victim_pid) is eligible and beats every other eligible
 * member (equal scores: the lower PID wins, as in the engine). */
bool standby_members_lead(const struct member_score *m, size_t n, int victim_pid);
void standby_members_open(struct daemon *dm, struct standby *sb);
bool standby_members_ok(struct daemon *dm, struct standby *sb);
void standby_members_free(struct standby *sb);
