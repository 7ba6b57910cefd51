/* SPDX-License-Identifier: MIT */
/*
 * The loop's sampling timer (run.c waits, this arms it): epoll_pwait2()'s
 * timeout, or a timerfd where that call is missing or refused, set to
 * the earliest of what is due (sched.c's domains and tick, discovery's
 * walk and unmutes, metrics) (doc/scale.md "Sampling").
 */
#include <stdlib.h>
#include <sys/epoll.h>
#include <sys/syscall.h>
#include <sys/timerfd.h>
#include <linux/time_types.h>
#include <time.h>
#include <unistd.h>

#include "daemon-internal.h"

static void arm_at(int fd, uint64_t abs_us)
{
	struct itimerspec it = { 0 };
	if (abs_us == 0)
		abs_us = 1; /* 0 would disarm */
	it.it_value.tv_sec = (time_t)(abs_us / 1000000);
	it.it_value.tv_nsec = (long)(abs_us % 1000000) * 1000;
	timerfd_settime(fd, TFD_TIMER_ABSTIME, &it, NULL);
}

/* A timerfd's one read returns every expiration so far (and EAGAIN when
 * none): one read drains it. */
void loop_drain(int fd)
{
	uint64_t n;
	if (read(fd, &n, sizeof(n)) < 0)
		return; /* EAGAIN: woken by another fd */
}

static uint64_t min_u64(uint64_t a, uint64_t b)
{
	return a < b ? a : b;
}

/* The sampling timer fires at the earliest due domain, allocation
 * budget tick (sched.c), rescan, noisy directory to watch for writes
 * again (discover.c) or metrics. */
void loop_arm_sampling(struct daemon *dm)
{
	uint64_t next = min_u64(discover_next_walk_us(dm), dm->next_metrics_us);
	next = min_u64(next, discover_next_unmute_us(dm));
	next = min_u64(next, sched_next_due_us(dm));
	next = min_u64(next, sched_next_tick_us(dm));
	if (dm->timer_armed && next == dm->timer_armed_us)
		return; /* a wake-up by another fd: the timer already stands */
	dm->timer_armed = true;
	dm->timer_armed_us = next;
	if (!dm->pwait2)
		arm_at(dm->timerfd, next);
}

/* epoll_pwait2 (Linux 5.11): a timeout in nanoseconds, no timerfd. The
 * kernel lets such a timeout run late by its estimate of the accuracy
 * asked for (0.1% of it, 0.5% for a niced task, the 50 us timer slack
 * at least): from 10 ms on the timeout is 0.5% shorter, and
 * *ret_margin_us says by how much, so the timer is taken as due that
 * early (what armed it is due within its early window, sched.c: never
 * later than set); shorter ones may run late by the 50 us slack. The
 * time before the wait is the exact clock's: counted from the coarse
 * clock (the vDSO's where CLOCK_MONOTONIC is a system call, as on a
 * guest's HPET), the wait had to be shorter by that clock's lag, and
 * every period with it (an idle 1 GiB guest woke 7% more often: 86c9081,
 * 6.5 a second against 6.1), which cost more than the call saved. The
 * syscall takes the kernel's 64-bit timespec on every ABI. */
int loop_wait(struct daemon *dm, struct epoll_event *evs, int max, uint64_t *ret_margin_us)
{
	*ret_margin_us = 0;
#ifdef SYS_epoll_pwait2
	if (dm->pwait2) {
		struct __kernel_timespec ts, *tsp = NULL;
		if (dm->timer_armed && dm->timer_armed_us != UINT64_MAX) {
			uint64_t d = sched_wait_us(dm->timer_armed_us, cgfs_now_us(), 0, ret_margin_us);
			ts.tv_sec = (int64_t)(d / 1000000);
			ts.tv_nsec = (long long)(d % 1000000) * 1000;
			tsp = &ts;
		}
		return (int)syscall(SYS_epoll_pwait2, dm->epfd, evs, max, tsp, NULL, (size_t)8);
	}
#endif
	(void)dm;
	return epoll_wait(dm->epfd, evs, max, -1);
}

/* Whether epoll_pwait2 works here (kernel, seccomp filter): a call that
 * returns at once on the still empty epoll set. */
static bool pwait2_works(int epfd)
{
#ifdef SYS_epoll_pwait2
	struct epoll_event ev;
	struct __kernel_timespec zero = { 0 };
	return syscall(SYS_epoll_pwait2, epfd, &ev, 1, &zero, NULL, (size_t)8) == 0;
#else
	(void)epfd;
	return false;
#endif
}

void loop_timer_init(struct daemon *dm)
{
	dm->pwait2 = dm->epfd >= 0 && pwait2_works(dm->epfd) && !getenv("CGOOM_NO_PWAIT2");
}
