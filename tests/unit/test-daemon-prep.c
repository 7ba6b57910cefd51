/* SPDX-License-Identifier: MIT */
/*
 * Preparations side by side (src/daemon/standby.c): up to prep_slots
 * standby decisions are prepared at once, each on its own thread, one
 * per domain; the loop waits only for the domain's own (issue 21: ten
 * domains squeezed at once each need their decision before their own
 * crossing, and a queue of one lost two of ten to the kernel). The
 * roots here open nothing, so every preparation fails at once: only
 * the slots are looked at.
 */
#include <errno.h>
#include <poll.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include "fake-daemon.h"
#include "reader-fixture.h"
#include "tap.h"

static void test_slots_for(void)
{
	CHECK_EQ_INT(standby_slots_for(-1), 1);
	CHECK_EQ_INT(standby_slots_for(0), 1);
	CHECK_EQ_INT(standby_slots_for(1), 1);
	CHECK_EQ_INT(standby_slots_for(3), 3);
	CHECK_EQ_INT(standby_slots_for(PREP_MAX), PREP_MAX);
	CHECK_EQ_INT(standby_slots_for(256), PREP_MAX);
}

static struct daemon *prep_daemon(size_t n, unsigned slots)
{
	struct daemon *dm = fake_daemon(n);
	dm->roots = (struct cgoom_roots){ .cgroup_fd = -1, .proc_fd = -1 };
	dm->prep_efd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	dm->prep_slots = slots;
	return dm;
}

static void prep_free(struct daemon *dm)
{
	standby_wait_all(dm);
	close(dm->prep_efd);
	fake_free(dm);
}

static int start(struct daemon *dm, size_t i)
{
	struct inflight in = { 0 };
	return standby_prepare_async(dm, dm->domains[i], 0, 0, &in);
}

static void test_side_by_side(void)
{
	struct daemon *dm = prep_daemon(3, 2);
	CHECK(standby_slot_free(dm));
	CHECK_EQ_INT(start(dm, 1), 0);
	CHECK(standby_in_flight(dm, dm->domains[1]));
	/* one per domain: never two for the same */
	CHECK_EQ_INT(start(dm, 1), -EBUSY);
	/* another domain's beside it */
	CHECK_EQ_INT(start(dm, 2), 0);
	CHECK_EQ_INT(dm->n_prep, 2);
	CHECK(!standby_slot_free(dm));
	CHECK_EQ_INT(start(dm, 3), -EBUSY);
	CHECK(!standby_in_flight(dm, dm->domains[3]));
	/* waiting for one domain's leaves the other's running */
	standby_wait_for(dm, dm->domains[1]);
	CHECK(!standby_in_flight(dm, dm->domains[1]));
	CHECK(standby_in_flight(dm, dm->domains[2]));
	CHECK(standby_slot_free(dm));
	standby_wait_all(dm);
	CHECK_EQ_INT(dm->n_prep, 0);
	prep_free(dm);
}

/* A failed preparation delays that domain's next (prep_failed); "/" is
 * found again by path (the /cN here are not discovery's). */
static void test_system_domain_failure_noted(void)
{
	struct daemon *dm = prep_daemon(1, 1);
	CHECK_EQ_INT(start(dm, 0), 0);
	CHECK(!standby_slot_free(dm));
	standby_wait_for(dm, dm->domains[0]);
	CHECK_EQ_INT(dm->domains[0]->prep_fails, 1);
	CHECK(dm->domains[0]->prep_retry_us > 0);
	CHECK(dm->domains[0]->standby == NULL);
	prep_free(dm);
}

static void test_reap_joins_finished(void)
{
	struct daemon *dm = prep_daemon(2, 2);
	CHECK_EQ_INT(start(dm, 1), 0);
	CHECK_EQ_INT(start(dm, 2), 0);
	/* both fail at once (no roots): each thread signals the eventfd */
	for (int k = 0; k < 50 && dm->n_prep; k++) {
		struct pollfd p = { .fd = dm->prep_efd, .events = POLLIN };
		CHECK(poll(&p, 1, 5000) == 1);
		standby_reap(dm);
	}
	CHECK_EQ_INT(dm->n_prep, 0);
	CHECK(standby_slot_free(dm));
	prep_free(dm);
}

/* SPEC 3, 4: with /proc/meminfo unreadable the system domain's T is
 * unknown, so bias and oom_score_adj cannot be weighed: the preparation
 * fails (-ENODATA, logged with the reason) and leaves no standby, so
 * nothing is killed; before, T was taken as 0 and the 200 MiB process
 * was the victim where the kernel kills the one with adj +1000. */
static void test_meminfo_unreadable_no_decision(void)
{
	fx_new();
	put_cg("", "cgroup.subtree_control", "memory pids\n");
	mkcg("/a", true, "100\n");
	mkcg("/b", true, "200\n");
	mkproc(&(struct fproc){ .pid = 100, .comm = "small", .start = 5, .rss_kb = 100 << 10,
				.adj = 1000, .kthread = -1 });
	mkproc(&(struct fproc){ .pid = 200, .comm = "big", .start = 6, .rss_kb = 200 << 10,
				.kthread = -1 });
	CHECK_EQ_INT(fx_prepare(), 0);
	struct daemon *dm = fake_daemon(0);
	dm->roots = g_roots;
	dm->dry_run = true;
	struct inflight in = { 0 };
	/* readable: PID 100 (adj +1000) is the victim */
	CHECK_EQ_INT(standby_prepare(dm, dm->domains[0], 0, 0, &in), 0);
	CHECK(dm->domains[0]->standby != NULL && dm->domains[0]->standby->dec.victim_pid == 100);
	standby_drop(dm->domains[0]);
	CHECK(unlink(at("proc/meminfo")) == 0);
	CHECK_EQ_INT(standby_prepare(dm, dm->domains[0], 0, 0, &in), -ENODATA);
	CHECK(dm->domains[0]->standby == NULL);
	CHECK_EQ_INT(dm->domains[0]->prep_fails, 1);
	fake_free(dm);
	fx_cleanup();
}

int main(void)
{
	return tap_run((struct tap_test[]){ TAP(test_slots_for), TAP(test_side_by_side),
					    TAP(test_system_domain_failure_noted),
					    TAP(test_reap_joins_finished),
					    TAP(test_meminfo_unreadable_no_decision), { 0 } });
}
