/* SPDX-License-Identifier: MIT */
/*
 * The standby's members re-check: the processes of the victim entity,
 * re-read at the crossing, so that P (the entity's largest eligible
 * process, the one signalled) is what a full read would pick now.
 *
 * Why: the standby's other arguments bound how far the ranking can move
 * by the domain's growth since the decision. Inside the entity that
 * bound is P's lead over its siblings (often a few MiB: the standby went
 * stale at once), and it misses what does not grow the domain at all:
 * a sibling mapping page cache that is already charged (its VmRSS grows,
 * memory.current does not) or a new oom_score_adj. So, for a cgroup
 * entity of at most MEMBERS_MAX_PROCS processes in MEMBERS_MAX_CGROUPS
 * cgroups, the standby keeps, opened when it is made:
 *  - each process's /proc/PID/status and oom_score_adj, opened through
 *    a /proc/PID directory fd whose stat matched the snapshot's start
 *    time (a reused PID can never be read through them: they answer
 *    ESRCH once that process is gone);
 *  - each of the entity's cgroups' cgroup.procs, to see a process that
 *    joined since (which a full read would rank too), and that P and
 *    every target of the kill the snapshot saw in the entity are still
 *    listed there (one moved out, to an omit cgroup or another domain,
 *    is not what a full read would signal; the crossing's re-validation
 *    checks each target's own cgroup too, kill.c);
 *  - the entity's cgroup.stat, whose nr_descendants must still be the
 *    snapshot's count of cgroups below it: a cgroup made inside the
 *    entity since (a process there is a member a full read would rank,
 *    in a tree entity, or makes a leaf no longer one) has no cgroup.procs
 *    kept. Read before the listings: a cgroup that lived through the
 *    whole check is then either counted, or a kept one was removed
 *    meanwhile, whose cgroup.procs then fails to read (ENODEV). Dying
 *    cgroups (nr_dying_descendants) hold no process and a cgroup is
 *    renamed only within its parent, so the count and the kept
 *    listings together are the entity's cgroups.
 * At the crossing the check reads those (a few small files, no
 * allocation) and proves P still leads with the same tie rule as the
 * engine (equal badness: the lower PID). Anything unreadable or new
 * means no proof: the crossing decides again.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "standby-internal.h"
#include "cgfs.h"
#include "storm.h"

#define MEMBERS_MAX_PROCS 64
#define MEMBERS_MAX_CGROUPS 16

bool standby_members_lead(const struct member_score *m, size_t n, int victim_pid)
{
	const struct member_score *p = NULL;
	for (size_t i = 0; i < n; i++)
		if (m[i].pid == victim_pid)
			p = &m[i];
	if (!p || !p->eligible)
		return false;
	for (size_t i = 0; i < n; i++) {
		if (&m[i] == p || !m[i].eligible)
			continue;
		if (m[i].score > p->score || (m[i].score == p->score && m[i].pid < p->pid))
			return false;
	}
	return true;
}

static void close_fd(int *fd)
{
	if (*fd >= 0)
		close(*fd);
	*fd = -1;
}

void standby_members_free(struct standby *sb)
{
	for (size_t i = 0; i < sb->n_members; i++) {
		close_fd(&sb->members[i].status_fd);
		close_fd(&sb->members[i].adj_fd);
	}
	for (size_t i = 0; i < sb->n_procs_fds; i++)
		close_fd(&sb->procs_fds[i]);
	if (sb->members)
		close_fd(&sb->stat_fd);
	free(sb->members);
	free(sb->member_buf);
	free(sb->procs_fds);
	free(sb->entity_pids);
	free(sb->listed);
	free(sb->pid_buf);
	sb->members = NULL;
	sb->member_buf = NULL;
	sb->procs_fds = NULL;
	sb->entity_pids = NULL;
	sb->listed = NULL;
	sb->pid_buf = NULL;
	sb->n_members = sb->n_procs_fds = sb->n_entity_pids = 0;
}

static int cmp_int(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;
	return (x > y) - (x < y);
}

/* Opens status and oom_score_adj of snapshot process k, if it is still
 * the process the snapshot saw; status is that of the live thread the
 * reader took its memory from when its leader has exited (SPEC 2: a
 * live process all the same). */
static int member_open(struct daemon *dm, const struct cgoom_process *p, struct member *m)
{
	char name[32], status[48] = "status";
	snprintf(name, sizeof(name), "%d", p->pid);
	int dfd = openat(dm->roots.proc_fd, name, O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW);
	if (dfd < 0)
		return -errno;
	int r = -ESRCH;
	int sfd = openat(dfd, "stat", O_RDONLY | O_CLOEXEC);
	size_t len;
	struct cgoom_pid_stat st;
	if (sfd >= 0 && cgfs_reread(sfd, dm->buf, sizeof(dm->buf), &len) == 0 &&
	    cgoom_parse_pid_stat(dm->buf, len, &st) == 0 && st.starttime == p->starttime) {
		if (p->mm_tid > 0)
			snprintf(status, sizeof(status), "task/%d/status", p->mm_tid);
		m->thread = p->mm_tid > 0;
		m->status_fd = openat(dfd, status, O_RDONLY | O_CLOEXEC);
		m->adj_fd = openat(dfd, "oom_score_adj", O_RDONLY | O_CLOEXEC);
		r = m->status_fd >= 0 && m->adj_fd >= 0 ? 0 : -errno;
	}
	if (sfd >= 0)
		close(sfd);
	close(dfd);
	return r;
}

/* Whether the entity has as many cgroups below it as the snapshot saw. */
static bool same_cgroups(struct daemon *dm, const struct standby *sb)
{
	size_t len;
	uint64_t n;
	return cgfs_reread(sb->stat_fd, dm->buf, sizeof(dm->buf), &len) == 0 &&
	       cgoom_parse_cgroup_descendants(dm->buf, len, &n) == 0 && n == sb->n_descendants;
}

void standby_members_open(struct daemon *dm, struct standby *sb)
{
	const struct cgoom_snapshot *s = &sb->snap;
	const struct cgoom_decision *dec = &sb->dec;
	const struct cgoom_candidate *e = &dec->candidates[dec->victim];
	if (e->kind != CGOOM_KIND_LEAF && e->kind != CGOOM_KIND_TREE)
		return;
	size_t n_cg = 0, n_pr = 0;
	for (size_t c = 0; c < s->n_cgroups; c++)
		if (cgoom_snapshot_is_under(s, (int)c, e->cgroup))
			n_cg++;
	int k;
	for (size_t it = cgoom_subtree_begin(s, e->cgroup); cgoom_subtree_next(s, e->cgroup, &it, &k);)
		n_pr++;
	if (n_cg == 0 || n_cg > MEMBERS_MAX_CGROUPS || n_pr == 0 || n_pr > MEMBERS_MAX_PROCS)
		return;
	sb->stat_fd = -1;
	sb->n_descendants = n_cg - 1;
	sb->members = calloc(n_pr, sizeof(*sb->members));
	sb->member_buf = calloc(n_pr, sizeof(*sb->member_buf));
	sb->entity_pids = calloc(n_pr, sizeof(*sb->entity_pids));
	sb->listed = calloc(n_pr, sizeof(*sb->listed));
	sb->procs_fds = calloc(n_cg, sizeof(*sb->procs_fds));
	sb->cap_pid_buf = 2 * MEMBERS_MAX_PROCS;
	sb->pid_buf = calloc(sb->cap_pid_buf, sizeof(*sb->pid_buf));
	if (!sb->members || !sb->member_buf || !sb->entity_pids || !sb->listed || !sb->procs_fds ||
	    !sb->pid_buf)
		goto fail;
	for (size_t it = cgoom_subtree_begin(s, e->cgroup); cgoom_subtree_next(s, e->cgroup, &it, &k);) {
		const struct cgoom_process *p = &s->procs[k];
		struct member *m = &sb->members[sb->n_members++];
		*m = (struct member){ .pid = p->pid, .status_fd = -1, .adj_fd = -1 };
		sb->entity_pids[sb->n_entity_pids++] = p->pid;
		/* what a re-read cannot change: a kernel thread, PID 1, cgoom,
		 * an omit cgroup; zombies and no-mm ones stay so */
		enum cgoom_why why;
		bool eligible = cgoom_process_eligible(s, &sb->settings, (size_t)k, &why);
		m->can_be_eligible = eligible || why == CGOOM_WHY_ADJ_MIN;
		if (m->can_be_eligible && member_open(dm, p, m) < 0 && p->pid == dec->victim_pid)
			goto fail; /* P itself gone or reused: the crossing re-validates anyway */
	}
	qsort(sb->entity_pids, sb->n_entity_pids, sizeof(int), cmp_int);
	for (size_t c = 0; c < s->n_cgroups; c++) {
		if (!cgoom_snapshot_is_under(s, (int)c, e->cgroup))
			continue;
		int dfd = cgfs_open_beneath(dm->roots.cgroup_fd, s->cgroups[c].path, CGFS_DIR_FLAGS);
		if (dfd >= 0 && cgfs_threaded_at(dfd)) {
			/* its cgroup.procs never reads; its threaded domain, at or
			 * above it in the entity, lists its processes */
			close(dfd);
			continue;
		}
		int fd = dfd >= 0 ? openat(dfd, "cgroup.procs", O_RDONLY | O_CLOEXEC | O_NOFOLLOW) : -1;
		if (dfd >= 0)
			close(dfd);
		if (fd < 0)
			goto fail;
		sb->procs_fds[sb->n_procs_fds++] = fd;
	}
	int dfd = cgfs_open_beneath(dm->roots.cgroup_fd, s->cgroups[e->cgroup].path, CGFS_DIR_FLAGS);
	sb->stat_fd = dfd >= 0 ? openat(dfd, "cgroup.stat", O_RDONLY | O_CLOEXEC | O_NOFOLLOW) : -1;
	if (dfd >= 0)
		close(dfd);
	if (sb->stat_fd < 0 || !same_cgroups(dm, sb))
		goto fail; /* one made (or gone) since the snapshot */
	return;
fail:
	standby_members_free(sb);
}

static int reread_int(struct daemon *dm, int fd, int64_t *ret)
{
	size_t len;
	int r = cgfs_reread(fd, dm->buf, sizeof(dm->buf), &len);
	return r < 0 ? r : cgoom_parse_int(dm->buf, len, -1000, 1000, ret);
}

/* The entity PID pid, or NULL (not the snapshot's). */
static const int *entity_pid(const struct standby *sb, int pid)
{
	return bsearch(&pid, sb->entity_pids, sb->n_entity_pids, sizeof(int), cmp_int);
}

/* Whether P and every target the snapshot saw in the entity is listed
 * (sb->listed, as the members' listings were read). */
static bool targets_listed(const struct standby *sb)
{
	const int *p = entity_pid(sb, sb->dec.victim_pid);
	if (!p || !sb->listed[p - sb->entity_pids])
		return false;
	for (size_t i = 0; i < sb->dec.n_pids; i++)
		if ((p = entity_pid(sb, sb->dec.pids[i])) && !sb->listed[p - sb->entity_pids])
			return false;
	return true;
}

bool standby_members_ok(struct daemon *dm, struct standby *sb)
{
	if (!sb->members)
		return false;
	/* no cgroup made in the entity (first: see above), nobody joined
	 * it, and nobody to be signalled left it */
	if (!same_cgroups(dm, sb))
		return false;
	memset(sb->listed, 0, sb->n_entity_pids * sizeof(*sb->listed));
	for (size_t i = 0; i < sb->n_procs_fds; i++) {
		size_t len;
		if (cgfs_reread(sb->procs_fds[i], dm->buf, sizeof(dm->buf), &len) < 0)
			return false;
		int n = cgoom_parse_pids(dm->buf, len, sb->pid_buf, sb->cap_pid_buf);
		if (n < 0 || (size_t)n > sb->cap_pid_buf)
			return false;
		for (int j = 0; j < n; j++) {
			const int *p = entity_pid(sb, sb->pid_buf[j]);
			if (!p)
				return false;
			sb->listed[p - sb->entity_pids] = true;
		}
	}
	if (!targets_listed(sb))
		return false;
	sb->members_read_us = 0;
	/* each one's badness now */
	for (size_t i = 0; i < sb->n_members; i++) {
		const struct member *m = &sb->members[i];
		struct member_score *o = &sb->member_buf[i];
		*o = (struct member_score){ .pid = m->pid };
		if (m->status_fd < 0)
			continue; /* cannot be eligible, or gone before the standby */
		size_t len;
		struct cgoom_pid_status st;
		int64_t adj;
		int r = cgfs_reread(m->status_fd, dm->buf, sizeof(dm->buf), &len);
		if (r == -ESRCH && m->thread)
			return false; /* that thread exited, maybe not its process */
		if (r == -ESRCH)
			continue; /* exited: out of the running */
		if (r < 0 || cgoom_parse_pid_status(dm->buf, len, &st) < 0)
			return false;
		r = reread_int(dm, m->adj_fd, &adj);
		if (r == -ESRCH)
			continue;
		if (r < 0)
			return false;
		if (!st.has_mm || st.state == 'Z' || st.state == 'X' || adj <= -1000)
			continue;
		struct cgoom_process p = { .pid = m->pid, .rss = st.vm_rss, .swap = st.vm_swap,
					   .pte = st.vm_pte, .oom_score_adj = (int)adj };
		o->eligible = true;
		o->score = cgoom_badness(&p, sb->dec.domain_size);
		o->size = storm_sat_add(storm_sat_add(st.vm_rss, st.vm_swap), st.vm_pte);
	}
	sb->members_read_us = cgfs_now_us(); /* every size is now's: the kill's promise (SPEC 6) */
	return standby_members_lead(sb->member_buf, sb->n_members, sb->dec.victim_pid);
}
