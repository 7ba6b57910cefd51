/* SPDX-License-Identifier: MIT */
/*
 * The SIGKILL after term_grace (act_deadline -> escalate): by cgroup.kill
 * only while the scope holds nothing but the verified targets (SPEC 5:
 * "one cgroup.kill write when no member is ineligible, else one pidfd
 * kill each"). A process that joined the scope during the grace (one
 * with oom_score_adj -1000, say) is no target and must not die with it.
 * A fake cgroup tree in a temporary directory: scope /s, its
 * cgroup.procs and cgroup.kill as plain files. And the same SIGKILL
 * sent by a daemon that exits within the grace (act_finish_on_exit):
 * the kill it began is finished, not left half done.
 */
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fake-daemon.h"
#include "tap.h"

static void put(int dfd, const char *name, const char *s)
{
	int fd = openat(dfd, name, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	CHECK(fd >= 0);
	CHECK(write(fd, s, strlen(s)) == (ssize_t)strlen(s));
	close(fd);
}

/* escalates a kill of target PID 4000000 (term_grace over) in scope /s
 * whose cgroup.procs holds `procs`; `got`: what cgroup.kill then holds */
static void escalate_with(const char *procs, bool on_exit, char got[16])
{
	char dir[] = "/tmp/cgoom-escalate-XXXXXX";
	CHECK(mkdtemp(dir) != NULL);
	int root = open(dir, O_RDONLY | O_DIRECTORY);
	CHECK(root >= 0);
	CHECK(mkdirat(root, "s", 0755) == 0);
	int s = openat(root, "s", O_RDONLY | O_DIRECTORY);
	CHECK(s >= 0);
	put(s, "cgroup.procs", procs);
	put(s, "cgroup.kill", "");

	struct daemon *dm = fake_daemon(1);
	dm->roots.cgroup_fd = root;
	dm->epfd = -1;
	dm->deadlinefd = -1;
	struct kill_state *k = &dm->domains[1]->kill;
	k->tg.xattr_fd = -1;
	k->tg.use_cgroup_kill = true;
	k->tg.scope_path = strdup("/s");
	k->tg.res.n_targets = 1;
	k->tg.res.targets = calloc(1, sizeof(*k->tg.res.targets));
	/* the target's pidfd: any open fd stands for it here (the pidfd
	 * fallback's signal then fails on it, and kills nothing) */
	int fake_pidfd = open("/dev/null", O_RDONLY);
	k->tg.res.targets[0] = (struct cgoom_kill_target){ .pid = 4000000, .pidfd = fake_pidfd,
							   .signalled = true };
	k->tg.exited = calloc(1, sizeof(bool));
	k->tg.watches = calloc(1, sizeof(*k->tg.watches));
	k->n_alive = 1;
	struct kl_params p = { .term_grace_us = 1000, .kill_wait_us = 10000000 };
	kl_step(&k->lc, KL_EV_START_TERM, 1000, &p);
	if (on_exit) {
		act_deadline(dm, 1500); /* still in the grace: nothing yet */
		CHECK(k->lc.state == KL_TERM);
		act_finish_on_exit(dm);
		CHECK(k->lc.state == KL_KILLED);
	} else {
		act_deadline(dm, 5000); /* the grace is over */
	}

	memset(got, 0, 16);
	int fd = openat(s, "cgroup.kill", O_RDONLY);
	CHECK(fd >= 0);
	CHECK(read(fd, got, 15) >= 0);
	close(fd);
	kill_targets_free(&k->tg);
	unlinkat(s, "cgroup.procs", 0);
	unlinkat(s, "cgroup.kill", 0);
	close(s);
	unlinkat(root, "s", AT_REMOVEDIR);
	close(root);
	rmdir(dir);
	fake_free(dm);
}

static void test_scope_of_targets_killed_by_cgroup_kill(void)
{
	char got[16];
	escalate_with("4000000\n", false, got);
	CHECK_STREQ(got, "1");
}

static void test_exit_in_grace_finishes_the_kill(void)
{
	char got[16];
	escalate_with("4000000\n", true, got);
	CHECK_STREQ(got, "1");
}

static void test_newcomer_in_scope_no_cgroup_kill(void)
{
	char got[16];
	escalate_with("4000000\n4000001\n", false, got);
	CHECK_STREQ(got, "");
}

int main(void)
{
	return tap_run((struct tap_test[]){ TAP(test_scope_of_targets_killed_by_cgroup_kill),
					    TAP(test_newcomer_in_scope_no_cgroup_kill),
					    TAP(test_exit_in_grace_finishes_the_kill), { 0 } });
}
