/* SPDX-License-Identifier: MIT */
/*
 * The standby's ranking re-check at the crossing (standby.c says when it
 * is asked): the victim's footprint read now from its memory.stat, as a
 * lower bound, against each rival's memory.current + memory.swap.current
 * plus the kernel's unflushed stat error, upper bounds of what a full
 * read would see, read through fds opened when the standby was made
 * (rank_fds_open, called by standby.c's decide_finish).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "log.h"
#include "standby-internal.h"

bool standby_rank_holds(int64_t victim_now, const struct rank_bound *rivals, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (rivals[i].score_upper > victim_now ||
		    (rivals[i].score_upper == victim_now && rivals[i].ahead))
			return false;
	return true;
}

void rank_fds_free(struct standby *sb)
{
	for (size_t i = 0; i < sb->n_rank_fds; i++) {
		if (sb->rank_fds[i].current_fd >= 0)
			close(sb->rank_fds[i].current_fd);
		if (sb->rank_fds[i].swap_fd >= 0)
			close(sb->rank_fds[i].swap_fd);
	}
	free(sb->rank_fds);
	free(sb->rank_buf);
	sb->rank_fds = NULL;
	sb->rank_buf = NULL;
	sb->n_rank_fds = 0;
}

#define RANK_MAX_RIVALS 32

/* Opens what the ranking re-check reads: the victim entity's memory.stat
 * and memory.swap.current, each rival's memory.current and
 * memory.swap.current. Only for cgroup entities (leaf, tree) with at most
 * RANK_MAX_RIVALS eligible rivals in the victim's tier; else none (the
 * crossing then re-decides when stale). */
void rank_fds_open(struct daemon *dm, struct standby *sb)
{
	const struct cgoom_decision *dec = &sb->dec;
	const struct cgoom_candidate *v = &dec->candidates[dec->victim];
	if (v->kind != CGOOM_KIND_LEAF && v->kind != CGOOM_KIND_TREE)
		return;
	size_t n = 1;
	for (size_t i = 0; i < dec->n_candidates; i++) {
		const struct cgoom_candidate *c = &dec->candidates[i];
		if ((int)i == dec->victim || !c->eligible || c->pref != v->pref)
			continue;
		if ((c->kind != CGOOM_KIND_LEAF && c->kind != CGOOM_KIND_TREE) || n > RANK_MAX_RIVALS)
			return;
		n++;
	}
	sb->rank_fds = calloc(n, sizeof(*sb->rank_fds));
	sb->rank_buf = calloc(n, sizeof(*sb->rank_buf));
	if (!sb->rank_fds || !sb->rank_buf) {
		rank_fds_free(sb);
		return;
	}
	for (size_t i = 0, k = 1; i < dec->n_candidates; i++) {
		const struct cgoom_candidate *c = &dec->candidates[i];
		bool victim = (int)i == dec->victim;
		if (!victim && (!c->eligible || c->pref != v->pref))
			continue;
		struct rank_fds *f = &sb->rank_fds[victim ? 0 : k++];
		sb->n_rank_fds++;
		f->current_fd = f->swap_fd = -1;
		f->bias_term = c->score - (int64_t)c->footprint;
		f->ahead = c->order < v->order;
		int dfd = cgfs_open_beneath(dm->roots.cgroup_fd, sb->snap.cgroups[c->cgroup].path,
					    CGFS_DIR_FLAGS);
		if (dfd < 0)
			break;
		f->current_fd = openat(dfd, victim ? "memory.stat" : "memory.current",
				       O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
		f->swap_fd = openat(dfd, "memory.swap.current", O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
		close(dfd);
		if (f->current_fd < 0)
			break;
	}
	if (sb->n_rank_fds != n || sb->rank_fds[sb->n_rank_fds - 1].current_fd < 0)
		rank_fds_free(sb);
}

static int reread_u64(struct daemon *dm, int fd, uint64_t *ret)
{
	*ret = 0;
	if (fd < 0)
		return 0; /* no swap accounting: nothing swapped */
	return daemon_reread_u64(dm, fd, ret);
}

bool standby_rank_ok(struct daemon *dm, struct standby *sb)
{
	if (!sb || !sb->rank_fds)
		return false;
	const struct rank_fds *v = &sb->rank_fds[0];
	size_t len;
	struct cgoom_memstat m;
	struct cgoom_unreclaim u;
	uint64_t swap;
	if (cgfs_reread(v->current_fd, dm->buf, sizeof(dm->buf), &len) < 0 ||
	    cgoom_parse_memstat_keys(dm->buf, len, &m) < 0 || cgoom_unreclaim_from_memstat(&m, &u) < 0 ||
	    reread_u64(dm, v->swap_fd, &swap) < 0)
		return false;
	/* the footprint's own parts (SPEC 4), read now, as a lower bound:
	 * without the shmem on the anon LRU, none of which the footprint
	 * may count (charge.c: unmapped shmem, and mapped shmem that no
	 * process of the entity maps, which only its processes tell). With
	 * it, a victim that wrote a tmpfs file since the decision "led" by
	 * pages no kill frees, past a rival that a full read ranks first */
	uint64_t sh = (m.present & CGOOM_MEMSTAT_SHMEM) ? m.shmem : 0;
	uint64_t lru = u.anon_lru > sh ? u.anon_lru - sh : 0;
	uint64_t fp = lru + u.slab_unreclaimable + u.kernel_stack + u.sock + swap;
	int64_t victim_now = (int64_t)(fp > INT64_MAX / 2 ? INT64_MAX / 2 : fp) + v->bias_term;
	/* a rival's memory.stat, which a full read would rank it by, may
	 * lead its memory.current by the kernel's unflushed stat deltas
	 * (SPEC 4: the shortcut must hold then too): the same room as the
	 * bound of branch and bound; without a CPU count, no proof */
	uint64_t slack = cgoom_stat_slack(&sb->snap);
	if (slack == UINT64_MAX)
		return false;
	for (size_t i = 1; i < sb->n_rank_fds; i++) {
		const struct rank_fds *f = &sb->rank_fds[i];
		uint64_t cur, sw;
		if (reread_u64(dm, f->current_fd, &cur) < 0 || reread_u64(dm, f->swap_fd, &sw) < 0)
			return false;
		uint64_t up = cur > UINT64_MAX - sw ? UINT64_MAX : cur + sw;
		up = up > UINT64_MAX - slack ? UINT64_MAX : up + slack;
		sb->rank_buf[i - 1] = (struct rank_bound){
			.score_upper = (int64_t)(up > INT64_MAX / 2 ? INT64_MAX / 2 : up) + f->bias_term,
			.ahead = f->ahead,
		};
	}
	return standby_rank_holds(victim_now, sb->rank_buf, sb->n_rank_fds - 1);
}
