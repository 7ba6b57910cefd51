/* SPDX-License-Identifier: MIT */
/*
 * The standby decision (SPEC 6): while a domain approaches its line the
 * daemon keeps the decision ready: a fresh snapshot, the victim chosen,
 * its pidfds opened and verified against the snapshot's start times,
 * the watches for its exit allocated. When the line is crossed, acting
 * costs a re-validation of those pidfds and a signal, and allocates
 * nothing.
 *
 * A standby is made again when it may be stale. Its victim led the
 * runner-up by `lead` bytes of score (standby_lead); growth of the
 * domain since the decision by more than that could have changed the
 * ranking (if nothing shrank meanwhile). On the way to the line it is
 * refreshed when the level moved by half the lead or it is older than
 * STANDBY_MAX_AGE_US (stale), except when the line is closer than four
 * preparations' time (the loop samples nothing while it prepares). At
 * the crossing it is used when no kill started since in a domain that
 * overlaps it (itself, an ancestor, a descendant: the in-flight set or
 * its candidates changed; a sibling's kill changes neither), its targets re-validate (none exited, was
 * reused, became protected or left the cgroup the snapshot saw it in:
 * one moved is not what the decision chose) and either it is not stale or a ranking
 * re-check proves the victim still leads: the victim's footprint read
 * now from its memory.stat against each rival's memory.current +
 * memory.swap.current plus the kernel's unflushed stat error
 * (cgoom_stat_slack), upper bounds of the footprints a full read would
 * see (read through fds opened when the standby was made), and the domain grew by less
 * than P's lead over the other processes of its entity (the re-check
 * reads no process: growth beyond that lead could have made another
 * of them the largest), or, for an entity of few processes, a re-read
 * of those processes proves P still the largest (standby-members.c;
 * then a failed proof decides again even when not stale). Otherwise
 * the decision is made again right there. Dropped when the domain goes.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cgoom/explain.h"
#include "log.h"
#include "standby-internal.h"
#include "storm.h"

#define STANDBY_MAX_AGE_US 5000000ULL
/* The preparation thread's stack (ASan builds need about 3 times what
 * the reader uses). */
#define PREP_STACK (512 * 1024)
/* How often the way to the line re-reads the victim entity's processes. */
#define MEMBERS_WAY_US 10000ULL

enum sb_verdict standby_judge(const struct standby_view *v, bool domain_dead, uint64_t now_us,
			      uint64_t level_now, uint64_t kills_now, const struct standby_limits *l)
{
	if (domain_dead)
		return SB_DROP;
	if (!v->present || !v->ready || v->n_skipped > 0)
		return SB_REDECIDE;
	if (kills_now != v->kills_at || now_us < v->decided_us || v->max_at != v->max_now ||
	    v->settings_at != v->settings_now)
		return SB_REDECIDE;
	if (now_us - v->decided_us > l->max_age_us)
		return SB_STALE;
	uint64_t moved = level_now > v->level_at ? level_now - v->level_at : v->level_at - level_now;
	if (moved > l->level_delta)
		return SB_STALE;
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

uint64_t standby_lead(const struct cgoom_decision *dec)
{
	if (!dec->has_victim || dec->victim < 0 || (size_t)dec->victim >= dec->n_candidates)
		return 0;
	const struct cgoom_candidate *v = &dec->candidates[dec->victim];
	for (size_t i = (size_t)dec->victim + 1; i < dec->n_candidates; i++) {
		const struct cgoom_candidate *c = &dec->candidates[i];
		if (!c->eligible)
			continue;
		if (c->pref != v->pref)
			return UINT64_MAX; /* a lower tier: growth cannot lift it */
		return v->score > c->score ? (uint64_t)(v->score - c->score) : 0;
	}
	return UINT64_MAX; /* no rival */
}

struct standby_limits standby_limits_of(const struct standby *sb, bool crossing)
{
	uint64_t lead = sb ? sb->lead : 0;
	/* on the way, refreshed every half lead; at the crossing, usable
	 * while the growth since could not have closed the lead */
	struct standby_limits l = { .level_delta = crossing ? lead : lead / 2,
				    .max_age_us = STANDBY_MAX_AGE_US };
	return l;
}

void standby_free(struct standby *sb)
{
	if (!sb)
		return;
	if (sb->fd_count)
		*sb->fd_count -= sb->n_fds < *sb->fd_count ? sb->n_fds : *sb->fd_count;
	rank_fds_free(sb);
	standby_members_free(sb);
	kill_targets_free(&sb->tg);
	cgoom_settings_free(&sb->settings);
	if (sb->have_snap)
		cgoom_snapshot_free(&sb->snap);
	cgoom_reader_free(sb->rd);
	cgoom_decision_free(&sb->dec);
	free(sb->inflight.pids);
	free(sb);
}

void kill_targets_free(struct kill_targets *t)
{
	if (!t)
		return;
	if (t->fd_count)
		*t->fd_count -= t->n_fds < *t->fd_count ? t->n_fds : *t->fd_count;
	cgoom_kill_result_free(&t->res);
	if (t->xattr_fd >= 0)
		close(t->xattr_fd);
	free(t->watches);
	free(t->exited);
	free(t->scope_path);
	*t = (struct kill_targets){ .xattr_fd = -1 };
}

void standby_take_targets(struct standby *sb, struct kill_targets *ret)
{
	*ret = sb->tg;
	sb->tg = (struct kill_targets){ .xattr_fd = -1 };
	sb->ready = false;
}

const struct cgoom_decision *standby_decision(const struct standby *sb)
{
	return &sb->dec;
}

uint64_t standby_promise(const struct standby *sb)
{
	return cgoom_kill_promise(&sb->snap, &sb->dec);
}

#define PROMISE_FRESH_US 1000000ULL /* members read this recently count as now */

/* The domain's memory in use when the snapshot was taken, as
 * storm_level_before() measures it now; false when not known. */
static bool snap_level(const struct standby *sb, bool system, uint64_t *ret)
{
	const struct cgoom_snapshot *s = &sb->snap;
	if (system) {
		if (!s->meminfo_ok)
			return false;
		const struct cgoom_meminfo *mi = &s->meminfo;
		uint64_t avail = (mi->present & CGOOM_MEMINFO_MEM_AVAILABLE) ? mi->mem_available : mi->mem_free;
		*ret = (mi->mem_total > avail ? mi->mem_total - avail : 0) +
		       (mi->swap_total > mi->swap_free ? mi->swap_total - mi->swap_free : 0);
		return true;
	}
	int dom = sb->dec.domain;
	if (dom < 0 || (size_t)dom >= s->n_cgroups || !s->cgroups[dom].current_ok || s->cgroups[dom].swap_bad)
		return false;
	*ret = storm_sat_add(s->cgroups[dom].current, s->cgroups[dom].swap_current);
	return true;
}

uint64_t standby_promise_at(const struct standby *sb, bool system, uint64_t level_now)
{
	uint64_t then = standby_promise(sb);
	const struct cgoom_decision *d = &sb->dec;
	uint64_t level_then, now = cgfs_now_us();
	if (!sb->members || !sb->members_read_us || now - sb->members_read_us > PROMISE_FRESH_US ||
	    !d->has_victim || d->victim < 0 || (size_t)d->victim >= d->n_candidates ||
	    !snap_level(sb, system, &level_then))
		return then;
	/* the kill set's sizes as the members re-check read them at the
	 * crossing; a target outside the entity (a memory.oom.group scope
	 * above it) as the snapshot saw it */
	uint64_t sum = 0;
	for (size_t i = 0; i < d->n_pids; i++) {
		bool found = false;
		for (size_t k = 0; k < sb->n_members && !found; k++)
			if (sb->member_buf[k].pid == d->pids[i]) {
				sum = storm_sat_add(sum, sb->member_buf[k].size);
				found = true;
			}
		for (size_t k = 0; k < sb->snap.n_procs && !found; k++) {
			const struct cgoom_process *p = &sb->snap.procs[k];
			if (p->pid == d->pids[i]) {
				sum = storm_sat_add(sum, storm_sat_add(storm_sat_add(p->rss, p->swap), p->pte));
				found = true;
			}
		}
	}
	return storm_promise_now(sum, d->candidates[d->victim].footprint, level_then, level_now);
}

bool standby_ready(const struct standby *sb)
{
	return sb->ready;
}

void standby_explain(const struct standby *sb, bool json, struct cgoom_strbuf *out)
{
	if (json)
		cgoom_explain_json(out, &sb->snap, &sb->settings, &sb->dec);
	else
		cgoom_explain_text(out, &sb->snap, &sb->settings, &sb->dec);
}

void standby_reason(const struct standby *sb, struct cgoom_strbuf *out)
{
	cgoom_explain_reason(out, &sb->snap, &sb->dec);
}

uint64_t standby_retry_delay_us(unsigned fails)
{
	uint64_t us = 100000;
	for (unsigned i = 1; i < fails && us < 5000000; i++)
		us *= 2;
	return us < 5000000 ? us : 5000000;
}

void standby_drop(struct domain *d)
{
	standby_free(d->standby);
	d->standby = NULL;
}

bool standby_keep_off_approach(const struct standby *sb, uint64_t now)
{
	return sb && sb->ready && now >= sb->decided_us && now - sb->decided_us <= STANDBY_MAX_AGE_US;
}

/* The PIDs of victims still dying anywhere (the caller's act_inflight):
 * the engine waits for them. sb takes the array. */
static void use_inflight(struct standby *sb, struct inflight *in)
{
	sb->inflight = *in;
	*in = (struct inflight){ 0 };
	sb->snap.inflight = sb->inflight.pids;
	sb->snap.n_inflight = sb->inflight.n;
}

/* The cgroup whose user.oomd_* xattrs record the kill: the kill scope, or
 * the victim process's own cgroup. */
static const char *xattr_cgroup(const struct standby *sb)
{
	if (sb->tg.scope_path)
		return sb->tg.scope_path;
	for (size_t i = 0; i < sb->snap.n_procs; i++)
		if (sb->snap.procs[i].pid == sb->dec.victim_pid) {
			int c = sb->snap.procs[i].cgroup;
			if (c >= 0 && (size_t)c < sb->snap.n_cgroups)
				return sb->snap.cgroups[c].path;
		}
	return NULL;
}

/* Logs the snapshot's notes about path and below it. */
static void notes_about(const struct cgoom_snapshot *s, const char *path)
{
	size_t n = strlen(path);
	for (size_t i = 0; i < s->n_notes; i++)
		if (strncmp(s->notes[i], path, n) == 0 && strchr("/:", s->notes[i][n]))
			log_warning("  note: %s", s->notes[i]);
}

/* The engine's part of a decision: a fresh lazy snapshot, settings,
 * selection. Touches nothing of the daemon but what it is given (roots,
 * config, the domain's path), so it can run on the preparation thread.
 * sb->snap.inflight must be set before (use_inflight, by the loop). */
static int decide_engine(const struct cgoom_roots *roots, const struct cgoom_config *cfg,
			 const char *path, struct standby *sb)
{
	const int *inflight = sb->snap.inflight;
	size_t n_inflight = sb->snap.n_inflight;
	/* a cgroup domain's decision needs only its ancestors and its
	 * subtree (reader.h): with a thousand sibling domains, a handful of
	 * cgroups read instead of a thousand */
	int r = cgoom_snapshot_read_lazy_for(roots, path, &sb->snap, &sb->rd);
	if (r < 0) {
		const char *where = cgoom_reader_error_where();
		log_error("%s: reading the snapshot: %s", path, where[0] ? where : strerror(-r));
		return r;
	}
	sb->have_snap = true;
	sb->snap.inflight = inflight;
	sb->snap.n_inflight = n_inflight;
	r = cgoom_settings_resolve(&sb->snap, cfg, &sb->settings);
	int idx = r < 0 ? r : cgoom_snapshot_find(&sb->snap, path);
	if (idx < 0) {
		log_warning("%s: not in the fresh snapshot (%s)", path, strerror(-idx));
		return idx;
	}
	if (sb->snap.cgroups[idx].memcg != idx) {
		/* cgroup.controllers does not list memory now (or could not be
		 * read: the snapshot's notes say which) */
		log_warning("%s: not a memory cgroup in the fresh snapshot; no decision", path);
		notes_about(&sb->snap, path);
		return -ENOENT;
	}
	r = cgoom_select_lazy(sb->rd, &sb->snap, &sb->settings, idx, &sb->dec);
	if (r < 0) {
		const char *where = cgoom_reader_error_where();
		log_error("%s: selecting: %s", path, where[0] ? where : cgoom_select_strerror(r));
	}
	return r;
}

/* The fds the targets hold (the fd budget counts them). */
static size_t targets_count_fds(const struct kill_targets *t)
{
	size_t n = t->xattr_fd >= 0;
	for (size_t i = 0; i < t->res.n_targets; i++)
		n += t->res.targets[i].pidfd >= 0;
	return n;
}

/* The fds sb's re-checks hold. */
static size_t standby_count_fds(const struct standby *sb)
{
	size_t n = 0;
	for (size_t i = 0; i < sb->n_rank_fds; i++)
		n += (sb->rank_fds[i].current_fd >= 0) + (sb->rank_fds[i].swap_fd >= 0);
	for (size_t i = 0; i < sb->n_members; i++)
		n += (sb->members[i].status_fd >= 0) + (sb->members[i].adj_fd >= 0);
	return n + sb->n_procs_fds + (sb->members && sb->stat_fd >= 0);
}

/* The loop's part: the victim's pidfds opened and verified, the watches
 * allocated, the fds of the ranking re-check opened. */
static int decide_finish(struct daemon *dm, struct domain *d, struct standby *sb)
{
	if (!sb->dec.has_victim || sb->dec.inflight)
		return 0;
	struct kill_targets *tg = &sb->tg;
	tg->use_cgroup_kill = sb->dec.use_cgroup_kill;
	tg->policy = sb->dec.policy;
	if (sb->dec.scope >= 0 && (size_t)sb->dec.scope < sb->snap.n_cgroups &&
	    !(tg->scope_path = strdup(sb->snap.cgroups[sb->dec.scope].path)))
		return -ENOMEM;
	if (dm->dry_run || !dm->live)
		return 0; /* nothing will be signalled: no pidfds to hold */
	/* a pidfd per process it would signal, and the re-checks' files:
	 * quiet domains give up their files for them (fds.c) */
	if (!fds_make_room(dm, sb->dec.n_pids + FDS_STANDBY_EXTRA))
		log_warning("%s: the fd budget is short for this decision's %zu pidfds, even with "
			    "every quiet domain polled", d->path, sb->dec.n_pids);
	int r = cgoom_kill_prepare(dm->roots.proc_fd, &sb->snap, &sb->dec, &tg->res);
	if (r < 0) {
		log_error("%s: preparing the kill: %s", d->path, strerror(-r));
		return r;
	}
	for (size_t i = 0; i < tg->res.n_targets; i++) {
		int e = tg->res.targets[i].err;
		if (e == -EMFILE || e == -ENFILE)
			log_error("%s: PID %d: pidfd: %s: it cannot be signalled", d->path,
				  tg->res.targets[i].pid, strerror(-e));
	}
	size_t n = tg->res.n_targets;
	tg->watches = calloc(n, sizeof(*tg->watches));
	tg->exited = calloc(n, sizeof(*tg->exited));
	if (!tg->watches || !tg->exited)
		return -ENOMEM;
	const char *xc = xattr_cgroup(sb);
	if (xc)
		tg->xattr_fd = cgfs_open_beneath(dm->roots.cgroup_fd, xc, CGFS_DIR_FLAGS);
	tg->n_fds = targets_count_fds(tg);
	sb->skipped_at = tg->res.n_skipped;
	sb->ready = tg->res.n_skipped < tg->res.n_targets;
	if (sb->ready) {
		rank_fds_open(dm, sb);
		standby_members_open(dm, sb);
	}
	sb->n_fds = standby_count_fds(sb);
	return 0;
}

static struct standby *standby_new(void)
{
	struct standby *sb = calloc(1, sizeof(*sb));
	if (!sb)
		return NULL;
	sb->tg.xattr_fd = -1;
	cgoom_decision_init(&sb->dec);
	return sb;
}

/* Makes sb (decided at `now`, `start` when its making began) d's standby. */
static void standby_install(struct daemon *dm, struct domain *d, struct standby *sb, uint64_t now,
			    uint64_t start, uint64_t level)
{
	uint64_t cost = cgfs_now_us() - start;
	/* a slowly decaying maximum: one fast preparation after a slow one
	 * must not make the next look cheap */
	dm->prepare_cost_us = cost > dm->prepare_cost_us ? cost
							 : dm->prepare_cost_us - dm->prepare_cost_us / 16;
	/* the entity must keep its lead over its rivals, and P its lead
	 * inside the entity (else another of its processes is the one a
	 * full read would signal), unless the crossing re-reads the
	 * entity's processes (members) */
	sb->proc_lead = cgoom_victim_process_lead(&sb->snap, &sb->settings, &sb->dec);
	sb->lead = standby_lead(&sb->dec);
	if (sb->proc_lead < sb->lead && !sb->members)
		sb->lead = sb->proc_lead;
	sb->decided_us = now;
	sb->level_at = level;
	if (d->standby && !standby_same_victim(&d->standby->dec, &sb->dec))
		log_info("%s: standby: the ranking changed; new victim PID %d", d->path,
			 sb->dec.has_victim ? sb->dec.victim_pid : 0);
	else if (!d->standby && sb->dec.has_victim)
		log_debug("%s: standby: victim PID %d ready (prepared in %llu us)", d->path,
			  sb->dec.victim_pid, (unsigned long long)cost);
	standby_drop(d);
	d->standby = sb;
	d->prep_fails = 0;
	d->prep_retry_us = 0;
	sb->fd_count = sb->tg.fd_count = &dm->fds.decisions;
	dm->fds.decisions += sb->n_fds + sb->tg.n_fds;
	fds_make_room(dm, 0); /* the reserve, whole again */
}

/* A preparation for d failed: the next waits (standby_retry_delay_us). */
static void prep_failed(struct domain *d, int r)
{
	d->prep_fails++;
	uint64_t delay = standby_retry_delay_us(d->prep_fails);
	d->prep_retry_us = cgfs_now_us() + delay;
	log_debug("%s: preparing a decision failed (%s), %u in a row: next try in %llu ms", d->path,
		  strerror(-r), d->prep_fails, (unsigned long long)(delay / 1000));
}

/* ---- the cwd the readers move ----
 *
 * The lazy reader moves the cwd while it reads (reader-lazy.c: a deferred
 * cgroup's xattrs are read by name from its parent, made the cwd). A
 * preparation thread takes a cwd of its own (cgoom_reader_private_cwd), so preparations run side by side and beside the loop's
 * own decisions. Where that is refused, a read on the cwd shared with
 * the loop takes this lock, and the loop takes it for its own: one such
 * read at a time, as before. */
static pthread_mutex_t shared_cwd = PTHREAD_MUTEX_INITIALIZER;

unsigned standby_slots_for(long cpus)
{
	if (cpus < 1)
		return 1;
	return cpus > PREP_MAX ? PREP_MAX : (unsigned)cpus;
}

int standby_prepare(struct daemon *dm, struct domain *d, uint64_t now, uint64_t level,
		    struct inflight *inflight)
{
	standby_wait_for(dm, d); /* its own, in flight: nearer done than a new one */
	struct standby *sb = now < d->prep_retry_us ? NULL : standby_new();
	if (!sb) {
		free(inflight->pids);
		*inflight = (struct inflight){ 0 };
		return now < d->prep_retry_us ? -EAGAIN : -ENOMEM;
	}
	fds_make_room(dm, 0); /* the reader's fds come out of the reserve */
	sb->kills_at = d->kills_seen;
	sb->settings_at = dm->settings_gen;
	use_inflight(sb, inflight);
	pthread_mutex_lock(&shared_cwd);
	int r = decide_engine(&dm->roots, &dm->cfg, d->path, sb);
	pthread_mutex_unlock(&shared_cwd);
	if (r == 0)
		r = decide_finish(dm, d, sb);
	if (r < 0) {
		standby_free(sb);
		prep_failed(d, r);
		return r;
	}
	standby_install(dm, d, sb, now, now, level);
	return 0;
}

/* ---- on the preparation threads ---- */

struct prep_job {
	pthread_t th;
	struct standby *sb;
	char *path;
	const struct cgoom_roots *roots;
	const struct cgoom_config *cfg;
	int efd;
	int r;
	bool done; /* set (release) by the thread when r is final */
	uint64_t start_us, level;
	uint64_t cpu_us; /* the thread's own CPU time, set before done */
};

static void *prep_main(void *arg)
{
	struct prep_job *j = arg;
	bool own = cgoom_reader_private_cwd() == 0;
	if (!own)
		pthread_mutex_lock(&shared_cwd);
	j->r = decide_engine(j->roots, j->cfg, j->path, j->sb);
	if (!own)
		pthread_mutex_unlock(&shared_cwd);
	j->cpu_us = cgfs_thread_cpu_us();
	__atomic_store_n(&j->done, true, __ATOMIC_RELEASE);
	uint64_t one = 1;
	if (write(j->efd, &one, sizeof(one)) < 0) {
		/* the loop joins on its next standby_reap() or wait anyway */
	}
	return NULL;
}

static int job_of(const struct daemon *dm, const char *path)
{
	for (unsigned i = 0; i < dm->n_prep; i++)
		if (strcmp(dm->prep[i]->path, path) == 0)
			return (int)i;
	return -1;
}

bool standby_in_flight(const struct daemon *dm, const struct domain *d)
{
	return job_of(dm, d->path) >= 0;
}

bool standby_slot_free(const struct daemon *dm)
{
	return dm->prep_efd >= 0 && dm->n_prep < dm->prep_slots && dm->n_prep < PREP_MAX;
}

int standby_prepare_async(struct daemon *dm, struct domain *d, uint64_t now, uint64_t level,
			  struct inflight *inflight)
{
	struct prep_job *j = NULL;
	struct standby *sb = NULL;
	char *path = NULL;
	int r = !standby_slot_free(dm) || standby_in_flight(dm, d) ? -EBUSY
		: now < d->prep_retry_us			 ? -EAGAIN
								 : 0;
	if (r < 0)
		goto out_free;
	fds_make_room(dm, 0); /* the reader's fds come out of the reserve */
	j = calloc(1, sizeof(*j));
	sb = standby_new();
	path = strdup(d->path);
	r = -ENOMEM;
	if (!j || !sb || !path)
		goto out_free;
	sb->kills_at = d->kills_seen;
	sb->settings_at = dm->settings_gen;
	use_inflight(sb, inflight);
	*j = (struct prep_job){ .sb = sb, .path = path, .roots = &dm->roots, .cfg = &dm->cfg,
				.efd = dm->prep_efd, .start_us = now, .level = level };
	/* a small stack: the daemon is mlockall'ed (MCL_FUTURE), so a
	 * default 8 MiB thread stack would be resident whole, 8 MiB of RSS
	 * for a thread that needs a few dozen KiB (the reader recurses one
	 * frame per level, 64 at most) */
	pthread_attr_t at;
	pthread_attr_init(&at);
	pthread_attr_setstacksize(&at, PREP_STACK);
	r = -pthread_create(&j->th, &at, prep_main, j);
	pthread_attr_destroy(&at);
	if (r < 0)
		goto out_free;
	dm->prep[dm->n_prep++] = j;
	return 0;
out_free:
	free(inflight->pids); /* taken, whatever happens */
	*inflight = (struct inflight){ 0 };
	standby_free(sb);
	free(path);
	free(j);
	return r;
}

/* Joins job i (finished, or waited for) and installs its standby. */
static void join(struct daemon *dm, unsigned i)
{
	struct prep_job *j = dm->prep[i];
	pthread_join(j->th, NULL);
	dm->sched.preps++;
	dm->sched.prep_cpu_us += j->cpu_us;
	dm->prep[i] = dm->prep[--dm->n_prep];
	dm->prep[dm->n_prep] = NULL;
	struct domain *d = domains_find(dm, j->path);
	int r = j->r;
	/* a kill since it began, in a domain overlapping d, changed the
	 * in-flight set or the candidates: drop it */
	if (r < 0 || !d || kl_active(&d->kill.lc) || j->sb->kills_at != d->kills_seen ||
	    j->sb->settings_at != dm->settings_gen || (r = decide_finish(dm, d, j->sb)) < 0) {
		standby_free(j->sb);
		if (d && r < 0)
			prep_failed(d, r);
	} else {
		standby_install(dm, d, j->sb, j->start_us, j->start_us, j->level);
	}
	free(j->path);
	free(j);
}

/* Empties the eventfd the threads signal (non-blocking). */
static void drain_done(const struct daemon *dm)
{
	uint64_t n;
	while (dm->prep_efd >= 0 && read(dm->prep_efd, &n, sizeof(n)) == (ssize_t)sizeof(n))
		;
}

void standby_reap(struct daemon *dm)
{
	drain_done(dm);
	for (unsigned i = 0; i < dm->n_prep;)
		if (__atomic_load_n(&dm->prep[i]->done, __ATOMIC_ACQUIRE))
			join(dm, i); /* the last one moved to i */
		else
			i++;
}

void standby_wait_for(struct daemon *dm, const struct domain *d)
{
	int i = job_of(dm, d->path);
	if (i >= 0)
		join(dm, (unsigned)i);
}

void standby_wait_all(struct daemon *dm)
{
	while (dm->n_prep)
		join(dm, dm->n_prep - 1);
	drain_done(dm);
}

/* The targets re-validated (cgoom_kill_revalidate): one that exited, was
 * reused, became protected or moved to another cgroup is skipped, and
 * the standby is then decided again. */
static void revalidate(const struct daemon *dm, const struct domain *d, struct standby *sb)
{
	struct cgoom_kill_result *res = &sb->tg.res;
	if (cgoom_kill_revalidate(dm->roots.proc_fd, &sb->snap, res) == 0)
		return;
	for (size_t i = 0; i < res->n_targets; i++)
		if (res->targets[i].err == -EXDEV)
			log_debug("%s: standby: PID %d moved out of its cgroup since the decision",
				  d->path, res->targets[i].pid);
}

enum sb_verdict standby_check(struct daemon *dm, struct domain *d, uint64_t now, uint64_t level,
			      bool crossing)
{
	struct standby *sb = d->standby;
	struct standby_view v = { .present = sb != NULL };
	if (sb) {
		if (sb->ready)
			revalidate(dm, d, sb);
		v.ready = sb->ready;
		v.decided_us = sb->decided_us;
		v.level_at = sb->level_at;
		v.kills_at = sb->kills_at;
		v.settings_at = sb->settings_at;
		v.settings_now = dm->settings_gen;
		v.n_skipped = sb->tg.res.n_skipped - sb->skipped_at;
		v.max_at = v.max_now = UINT64_MAX;
		if (!d->system && sb->have_snap && d->sample_ok && sb->dec.domain >= 0 &&
		    (size_t)sb->dec.domain < sb->snap.n_cgroups) {
			v.max_at = sb->snap.cgroups[sb->dec.domain].max;
			v.max_now = d->sample.max;
		}
	}
	struct standby_limits l = standby_limits_of(sb, crossing);
	enum sb_verdict vd = standby_judge(&v, d->dead, now, level, d->kills_seen, &l);
	if (!crossing) {
		/* on the way, P's place in its entity (which the level does not
		 * show) is looked at every MEMBERS_WAY_US: a standby whose P
		 * was overtaken is remade now, not at the crossing */
		if (vd == SB_USE && sb->members && now >= sb->members_due_us) {
			sb->members_due_us = now + MEMBERS_WAY_US;
			if (!standby_members_ok(dm, sb))
				return SB_REDECIDE;
		}
		return vd;
	}
	if (vd != SB_USE && vd != SB_STALE)
		return vd;
	/* at the crossing, P is re-checked among its entity's processes
	 * where they are few (standby-members.c): that proof replaces the
	 * growth argument inside the entity, and a failed one (a sibling
	 * overtook P without growing the domain, a newcomer) decides again */
	bool members = sb->members != NULL;
	if (members && !standby_members_ok(dm, sb)) {
		log_debug("%s: standby: the victim entity's processes re-read: P no longer leads "
			  "(or cannot be shown to)", d->path);
		return SB_REDECIDE;
	}
	if (vd == SB_USE)
		return vd;
	/* a stale standby whose victim provably still leads is as good as
	 * a new decision, and much faster */
	uint64_t moved = level > sb->level_at ? level - sb->level_at : 0;
	if ((members || moved <= sb->proc_lead) && standby_rank_ok(dm, sb)) {
		log_debug("%s: standby stale by level or age, ranking re-checked: still leads", d->path);
		return SB_USE;
	}
	return vd;
}
