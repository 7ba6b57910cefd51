/* SPDX-License-Identifier: MIT */
/*
 * The actor's outcome (act_outcome_of: one value that decides what is
 * done, logged, cooled down), a failed preparation's retry delay
 * (standby_retry_delay_us), and the hand-over of a standby's kill
 * targets to the kill state (standby_take_targets: moved, nothing
 * allocated, nothing left behind to free twice), and which domains'
 * standbys a kill makes stale (act_note_kill).
 */
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>

#include "standby-internal.h"
#include "tap.h"

static void test_outcome_table(void)
{
	/* ready inflight victim dry_run signal_r */
	CHECK_EQ_INT(act_outcome_of(true, false, true, false, 0), ACT_KILL);
	CHECK_EQ_INT(act_outcome_of(true, false, true, false, -ESRCH), ACT_KILL_NONE);
	/* a victim still dying comes first, in a dry run or not, ready or not */
	CHECK_EQ_INT(act_outcome_of(true, true, true, false, 0), ACT_INFLIGHT);
	CHECK_EQ_INT(act_outcome_of(false, true, false, true, 0), ACT_INFLIGHT);
	/* no victim: nothing to kill, also in a dry run */
	CHECK_EQ_INT(act_outcome_of(false, false, false, false, 0), ACT_NO_VICTIM);
	CHECK_EQ_INT(act_outcome_of(false, false, false, true, 0), ACT_NO_VICTIM);
	/* a dry run logs its victim whether or not pidfds were opened
	 * (a dry run opens none) */
	CHECK_EQ_INT(act_outcome_of(false, false, true, true, 0), ACT_DRY_RUN);
	CHECK_EQ_INT(act_outcome_of(true, false, true, true, 0), ACT_DRY_RUN);
	/* a victim whose every process vanished or became protected */
	CHECK_EQ_INT(act_outcome_of(false, false, true, false, 0), ACT_NO_VICTIM);
	/* the signal's result counts only when something was to be signalled */
	CHECK_EQ_INT(act_outcome_of(false, false, true, false, -ESRCH), ACT_NO_VICTIM);
	CHECK_EQ_INT(act_outcome_of(true, false, true, true, -ESRCH), ACT_DRY_RUN);
}

static void test_retry_delay(void)
{
	/* 100 ms after the first failure, doubling, at most 5 s */
	CHECK_EQ_U64(standby_retry_delay_us(0), 100000);
	CHECK_EQ_U64(standby_retry_delay_us(1), 100000);
	CHECK_EQ_U64(standby_retry_delay_us(2), 200000);
	CHECK_EQ_U64(standby_retry_delay_us(3), 400000);
	CHECK_EQ_U64(standby_retry_delay_us(6), 3200000);
	CHECK_EQ_U64(standby_retry_delay_us(7), 5000000);
	CHECK_EQ_U64(standby_retry_delay_us(1000000), 5000000);
	for (unsigned f = 1; f < 40; f++)
		CHECK(standby_retry_delay_us(f + 1) >= standby_retry_delay_us(f));
}

/* A ready standby whose n targets (PIDs 7, 8, ...) have no pidfd: gone
 * before the signal (kill.c skips them); NULL when out of memory. */
static struct standby *standby_of_gone(size_t n, size_t *budget)
{
	struct standby *sb = calloc(1, sizeof(*sb));
	if (!sb)
		return NULL;
	sb->ready = true;
	sb->tg.res.targets = calloc(n, sizeof(*sb->tg.res.targets));
	sb->tg.res.n_targets = n;
	for (size_t i = 0; i < n; i++)
		sb->tg.res.targets[i] = (struct cgoom_kill_target){ .pid = 7 + (pid_t)i, .pidfd = -1 };
	sb->tg.watches = calloc(n, sizeof(*sb->tg.watches));
	sb->tg.exited = calloc(n, sizeof(*sb->tg.exited));
	sb->tg.xattr_fd = -1;
	sb->tg.fd_count = budget;
	return sb;
}

static void test_take_targets(void)
{
	size_t budget = 10;
	struct standby *sb = standby_of_gone(2, &budget);
	CHECK(sb != NULL && sb->tg.res.targets && sb->tg.watches && sb->tg.exited);
	sb->tg.scope_path = strdup("/a/b");
	sb->tg.n_fds = 3;
	struct kill_targets *before = &sb->tg;
	struct cgoom_kill_target *targets = sb->tg.res.targets;

	struct kill_targets k;
	standby_take_targets(sb, &k);
	/* moved, not copied: the same arrays, and the standby holds none */
	CHECK(k.res.targets == targets && k.res.n_targets == 2 && k.res.targets[1].pid == 8);
	CHECK(k.scope_path && strcmp(k.scope_path, "/a/b") == 0);
	CHECK(before->res.targets == NULL && before->watches == NULL && before->exited == NULL &&
	      before->scope_path == NULL && before->xattr_fd == -1 && before->n_fds == 0);
	CHECK(!standby_ready(sb));
	/* freeing the standby leaves the taken targets alone and the
	 * budget's count to them */
	standby_free(sb);
	CHECK_EQ_INT(budget, 10);
	kill_targets_free(&k);
	CHECK_EQ_INT(budget, 7);
	CHECK(k.res.targets == NULL && k.xattr_fd == -1);
	kill_targets_free(&k); /* idempotent */
	CHECK_EQ_INT(budget, 7);
}

/* Which domains a kill makes stale (kills_seen): the killed domain,
 * its ancestors (the system's among them) and its descendants, never a
 * sibling or a cousin, nor a name that merely starts the same. */
static void test_overlap(void)
{
	CHECK(domains_overlap("/", "/a"));
	CHECK(domains_overlap("/a/b", "/"));
	CHECK(domains_overlap("/a", "/a"));
	CHECK(domains_overlap("/a", "/a/b"));
	CHECK(domains_overlap("/a/b/c", "/a"));
	CHECK(!domains_overlap("/a", "/b"));
	CHECK(!domains_overlap("/a", "/ab"));
	CHECK(!domains_overlap("/ab/c", "/a"));
	CHECK(!domains_overlap("/a/b", "/a/c"));
}

static void test_kill_stales_overlapping_only(void)
{
	const char *paths[] = { "/", "/fleet", "/fleet/hot1", "/fleet/hot1/svc", "/fleet/hot2",
				"/fleet/hot10", "/other" };
	enum { N = sizeof(paths) / sizeof(paths[0]) };
	struct domain ds[N];
	struct domain *ptrs[N];
	memset(ds, 0, sizeof(ds));
	for (size_t i = 0; i < N; i++) {
		ds[i].path = (char *)paths[i];
		ptrs[i] = &ds[i];
	}
	struct daemon dm;
	memset(&dm, 0, sizeof(dm));
	dm.domains = ptrs;
	dm.n_domains = N;
	act_note_kill(&dm, &ds[2]); /* a kill in /fleet/hot1 */
	const uint64_t want[N] = { 1, 1, 1, 1, 0, 0, 0 };
	for (size_t i = 0; i < N; i++)
		CHECK_EQ_U64(ds[i].kills_seen, want[i]);
	act_note_kill(&dm, &ds[0]); /* the system domain's: everyone's */
	for (size_t i = 0; i < N; i++)
		CHECK_EQ_U64(ds[i].kills_seen, want[i] + 1);
}

/* A kill that found every victim gone (exited, or killed by the kernel
 * while the decision was confirmed) counts as a kill for the overlapping
 * domains (kills_seen), only for them: what the victims held was freed,
 * so the standbys and thrashing histories from before are stale, and the
 * retry 100 ms later must not fire again on the windows before it. */
static void test_kill_of_gone_victims_counted(void)
{
	struct domain sys = { .system = true, .path = (char *)"/" };
	struct domain a = { .path = (char *)"/a" };
	struct domain b = { .path = (char *)"/b" };
	struct domain *ptrs[] = { &sys, &a, &b };
	struct daemon dm;
	memset(&dm, 0, sizeof(dm));
	dm.domains = ptrs;
	dm.n_domains = 3;
	dm.epfd = -1;
	dm.roots.cgroup_fd = -1;
	size_t budget = 10;
	struct standby *sb = standby_of_gone(1, &budget);
	CHECK(sb != NULL && sb->tg.res.targets && sb->tg.watches && sb->tg.exited);
	a.standby = sb;
	uint64_t t1 = 0;
	CHECK_EQ_INT(act_kill_from_standby(&dm, &a, SIGKILL, 1000, &t1), -ESRCH);
	CHECK_EQ_INT(a.kill.tg.res.n_signalled, 0);
	CHECK(!kl_active(&a.kill.lc)); /* no kill to wait for */
	CHECK_EQ_U64(sys.kills_seen, 1);
	CHECK_EQ_U64(a.kills_seen, 1);
	CHECK_EQ_U64(b.kills_seen, 0);
	kill_targets_free(&a.kill.tg);
	standby_free(sb);
}

int main(void)
{
	return tap_run((struct tap_test[]){ TAP(test_outcome_table), TAP(test_retry_delay),
					    TAP(test_take_targets), TAP(test_overlap),
					    TAP(test_kill_stales_overlapping_only),
					    TAP(test_kill_of_gone_victims_counted), { 0 } });
}
