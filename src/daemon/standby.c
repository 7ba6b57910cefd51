/* SPDX-License-Identifier: MIT */
/*
 * The standby decision (SPEC 6): while a domain approaches its line the
 * daemon keeps the decision ready: a fresh snapshot, the victim chosen,
 * its pidfds opened and verified against the snapshot's start times,
 * the watches for its exit allocated. When the line is crossed, acting
 * costs a re-validation of those pidfds and a signal, and allocates
 * nothing.
 *
 * A standby is made again when it may be stale: the domain's level
 * moved by more than half the margin since (the ranking may have
 * changed), it is older than STANDBY_MAX_AGE_US, a kill happened since
 * anywhere (the in-flight set changed), or a target exited, was reused
 * or became protected. It is dropped when the domain goes.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "daemon-internal.h"
#include "log.h"

#define STANDBY_MAX_AGE_US 1000000ULL
#define STANDBY_MIN_DELTA (1ULL << 20)

enum sb_verdict standby_judge(const struct standby_view *v, bool domain_dead, uint64_t now_us,
			      uint64_t level_now, uint64_t kills_now, const struct standby_limits *l)
{
	if (domain_dead)
		return SB_DROP;
	if (!v->present || !v->ready || v->n_skipped > 0)
		return SB_REDECIDE;
	if (kills_now != v->kills_at)
		return SB_REDECIDE;
	if (now_us < v->decided_us || now_us - v->decided_us > l->max_age_us)
		return SB_REDECIDE;
	uint64_t moved = level_now > v->level_at ? level_now - v->level_at : v->level_at - level_now;
	if (moved > l->level_delta)
		return SB_REDECIDE;
	return SB_USE;
}

bool standby_same_victim(const struct cgoom_decision *a, const struct cgoom_decision *b)
{
	if (a->has_victim != b->has_victim || a->inflight != b->inflight)
		return false;
	if (!a->has_victim)
		return true;
	if (a->n_pids != b->n_pids || a->use_cgroup_kill != b->use_cgroup_kill)
		return false;
	return a->n_pids == 0 || memcmp(a->pids, b->pids, a->n_pids * sizeof(*a->pids)) == 0;
}

struct standby_limits standby_limits_of(const struct daemon *dm, const struct domain *d)
{
	uint64_t m = d->system ? dm->sys_mem_min : d->params.margin;
	struct standby_limits l = { .level_delta = m / 2, .max_age_us = STANDBY_MAX_AGE_US };
	if (l.level_delta < STANDBY_MIN_DELTA)
		l.level_delta = STANDBY_MIN_DELTA;
	return l;
}

void standby_free(struct standby *sb)
{
	if (!sb)
		return;
	cgoom_kill_result_free(&sb->res);
	if (sb->xattr_fd >= 0)
		close(sb->xattr_fd);
	free(sb->watches);
	free(sb->exited);
	if (sb->have_snap)
		cgoom_snapshot_free(&sb->snap);
	cgoom_reader_free(sb->rd);
	cgoom_decision_free(&sb->dec);
	free(sb->inflight);
	free(sb);
}

void standby_drop(struct domain *d)
{
	standby_free(d->standby);
	d->standby = NULL;
}

/* The PIDs of victims still dying anywhere: the engine waits for them. */
static int set_inflight(struct daemon *dm, struct standby *sb)
{
	size_t n = 0;
	for (size_t i = 0; i < dm->n_domains; i++) {
		const struct kill_state *k = &dm->domains[i]->kill;
		if (kl_active(&k->lc))
			n += k->sb->res.n_targets;
	}
	sb->inflight = n ? calloc(n, sizeof(*sb->inflight)) : NULL;
	if (n && !sb->inflight)
		return -ENOMEM;
	n = 0;
	for (size_t i = 0; i < dm->n_domains; i++) {
		const struct kill_state *k = &dm->domains[i]->kill;
		for (size_t t = 0; kl_active(&k->lc) && t < k->sb->res.n_targets; t++)
			if (!k->sb->exited[t])
				sb->inflight[n++] = k->sb->res.targets[t].pid;
	}
	sb->snap.inflight = sb->inflight;
	sb->snap.n_inflight = n;
	return 0;
}

/* The cgroup whose user.oomd_* xattrs record the kill: the kill scope, or
 * the victim process's own cgroup. */
static const char *xattr_cgroup(const struct standby *sb)
{
	if (sb->scope_path)
		return sb->scope_path;
	for (size_t i = 0; i < sb->snap.n_procs; i++)
		if (sb->snap.procs[i].pid == sb->dec.victim_pid) {
			int c = sb->snap.procs[i].cgroup;
			if (c >= 0 && (size_t)c < sb->snap.n_cgroups)
				return sb->snap.cgroups[c].path;
		}
	return NULL;
}

static int decide(struct daemon *dm, struct domain *d, struct standby *sb)
{
	int r = cgoom_snapshot_read_lazy(&dm->roots, &sb->snap, &sb->rd);
	if (r < 0) {
		log_error("%s: reading the snapshot: %s", d->path, strerror(-r));
		return r;
	}
	sb->have_snap = true;
	r = cgoom_settings_resolve(&sb->snap, &dm->cfg);
	int idx = r < 0 ? r : cgoom_snapshot_find(&sb->snap, d->path);
	if (idx < 0) {
		log_warning("%s: not in the fresh snapshot (%s)", d->path, strerror(-idx));
		return idx;
	}
	r = set_inflight(dm, sb);
	if (r == 0)
		r = cgoom_select_lazy(sb->rd, &sb->snap, idx, &sb->dec);
	if (r < 0) {
		log_error("%s: selecting: %s", d->path, strerror(-r));
		return r;
	}
	if (!sb->dec.has_victim || sb->dec.inflight)
		return 0;
	if (sb->dec.scope >= 0 && (size_t)sb->dec.scope < sb->snap.n_cgroups)
		sb->scope_path = sb->snap.cgroups[sb->dec.scope].path;
	if (dm->dry_run || !dm->live)
		return 0; /* nothing will be signalled: no pidfds to hold */
	r = cgoom_kill_prepare(dm->roots.proc_fd, &sb->snap, &sb->dec, &sb->res);
	if (r < 0) {
		log_error("%s: preparing the kill: %s", d->path, strerror(-r));
		return r;
	}
	size_t n = sb->res.n_targets;
	sb->watches = calloc(n, sizeof(*sb->watches));
	sb->exited = calloc(n, sizeof(*sb->exited));
	if (!sb->watches || !sb->exited)
		return -ENOMEM;
	const char *xc = dm->live && !dm->dry_run ? xattr_cgroup(sb) : NULL;
	if (xc)
		sb->xattr_fd = cgoom_cgroup_open_dir(dm->roots.cgroup_fd, xc);
	sb->skipped_at = sb->res.n_skipped;
	sb->ready = sb->res.n_skipped < sb->res.n_targets;
	return 0;
}

int standby_prepare(struct daemon *dm, struct domain *d, uint64_t now, uint64_t level)
{
	struct standby *sb = calloc(1, sizeof(*sb));
	if (!sb)
		return -ENOMEM;
	sb->xattr_fd = -1;
	cgoom_decision_init(&sb->dec);
	int r = decide(dm, d, sb);
	if (r < 0) {
		standby_free(sb);
		return r;
	}
	sb->decided_us = now;
	sb->level_at = level;
	sb->kills_at = dm->kills_started;
	if (d->standby && !standby_same_victim(&d->standby->dec, &sb->dec))
		log_info("%s: standby: the ranking changed; new victim PID %d", d->path,
			 sb->dec.has_victim ? sb->dec.victim_pid : 0);
	else if (!d->standby && sb->dec.has_victim)
		log_debug("%s: standby: victim PID %d ready", d->path, sb->dec.victim_pid);
	standby_drop(d);
	d->standby = sb;
	return 0;
}

enum sb_verdict standby_check(struct daemon *dm, struct domain *d, uint64_t now, uint64_t level)
{
	struct standby *sb = d->standby;
	struct standby_view v = { .present = sb != NULL };
	if (sb) {
		if (sb->ready)
			cgoom_kill_revalidate(dm->roots.proc_fd, sb->snap.self_pid, &sb->res);
		v.ready = sb->ready;
		v.decided_us = sb->decided_us;
		v.level_at = sb->level_at;
		v.kills_at = sb->kills_at;
		v.n_skipped = sb->res.n_skipped - sb->skipped_at;
	}
	struct standby_limits l = standby_limits_of(dm, d);
	return standby_judge(&v, d->dead, now, level, dm->kills_started, &l);
}
