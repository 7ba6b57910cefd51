/* SPDX-License-Identifier: MIT */
/*
 * memory.high written without holding the loop (issue 19: cgoom's own
 * work under pressure is bounded). The kernel's memory_high_write sets
 * the new value and then reclaims, in the writer, until the cgroup's
 * usage is under it or reclaim gives up: a guard band written 130 MiB
 * below a cgroup's usage held cgoom's loop for 1.97 s in tests/vm
 * (start) and 0.78 s (a reload), sampling nothing meanwhile.
 *
 * A band that may make the writer reclaim (the cgroup's usage within
 * WRITE_SLACK of the value, or above it) is written by a thread of its
 * own. The loop waits only until memory.high reads back the value: the
 * kernel sets it before it reclaims, so that takes microseconds, and
 * every later write of the loop (a restore, another band) lands after
 * it. The reclaim goes on in the thread; the loop joins it when it is
 * done (the standbys' eventfd wakes it) and says how long it took. A
 * restore meanwhile sets memory.high back at once, but a reclaim already
 * under way runs to its end: the kernel compares against the value it
 * was given, not the one that stands. At exit the thread is left to
 * the process's end, which stops the reclaim.
 *
 * O_NONBLOCK is passed with every write: kernels with the 2025
 * "non-blocking limit setting" change (memcg, Shakeel Butt) then skip
 * the writer's reclaim altogether and leave it to the cgroup's own
 * allocations; older ones ignore the flag.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cgoom/explain.h"
#include "daemon-internal.h"
#include "log.h"

/* Usage this close to the value (or above it): the write may reclaim. */
#define WRITE_SLACK (1024ULL * 1024)
/* How long the loop waits for the value to stand (the thread not yet
 * run, under load): past it, the band counts as written and the
 * thread's result is said when it comes. */
#define STAND_WAIT_US 1000000ULL
#define WRITER_STACK (64 * 1024)
/* Threads at once: a reload that puts a band below usage on a thousand
 * domains makes no thousand threads; past this many the band is written
 * from the loop, as before. */
#define WRITERS_MAX 8

enum { W_RUNNING, W_DONE, W_ABANDONED };

struct high_writer {
	struct high_writer *next;
	pthread_t th;
	char *path;
	int dirfd;	    /* a dup of the domain's: the domain may go first */
	int efd;	    /* a dup of dm->prep_efd, the thread's own to close */
	uint64_t value;	    /* what is written */
	uint64_t usage;	    /* the cgroup's usage just before */
	uint64_t start_us;  /* when the thread was made */
	uint64_t end_us;    /* when its write returned */
	int r;		    /* the write's result, final at W_DONE */
	int state;	    /* W_*, atomic */
};

void guard_fmt_high(uint64_t v, char *buf, size_t size)
{
	if (v == UINT64_MAX)
		snprintf(buf, size, "max"); /* as the file says it */
	else
		snprintf(buf, size, "%" PRIu64, v);
}

int guard_write_high(int dirfd, uint64_t value)
{
	char v[32];
	guard_fmt_high(value, v, sizeof(v));
	int fd = openat(dirfd, "memory.high", O_WRONLY | O_TRUNC | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
	if (fd < 0)
		return -errno;
	ssize_t n = write(fd, v, strlen(v));
	int r = n < 0 ? -errno : 0;
	close(fd);
	return r;
}

static void writer_free(struct high_writer *w)
{
	if (w->dirfd >= 0)
		close(w->dirfd);
	free(w->path);
	free(w);
}

static void *writer_main(void *arg)
{
	struct high_writer *w = arg;
	int efd = w->efd;
	w->r = guard_write_high(w->dirfd, w->value);
	w->end_us = cgfs_now_us();
	/* after this exchange the loop may join and free w (not abandoned)
	 * or nobody will (abandoned: detached, freed here) */
	if (__atomic_exchange_n(&w->state, W_DONE, __ATOMIC_ACQ_REL) == W_ABANDONED)
		writer_free(w);
	uint64_t one = 1;
	if (efd >= 0) {
		if (write(efd, &one, sizeof(one)) < 0) {
			/* the loop reaps at its next wake-up anyway */
		}
		close(efd);
	}
	return NULL;
}

/* memory.high below d as it reads now (UINT64_MAX "max"; 0 on error). */
static uint64_t high_now(struct daemon *dm, struct domain *d)
{
	int fd = d->high_fd >= 0 ? d->high_fd : openat(d->dirfd, "memory.high", O_RDONLY | O_CLOEXEC);
	uint64_t v = 0;
	if (fd >= 0 && daemon_reread_limit(dm, fd, &v) < 0)
		v = 0;
	if (fd >= 0 && fd != d->high_fd)
		close(fd);
	return v;
}

/* d's memory.current (UINT64_MAX when it cannot be read: assume the
 * write may reclaim). */
static uint64_t usage_now(struct daemon *dm, struct domain *d)
{
	int fd = d->current_fd >= 0 ? d->current_fd
				    : openat(d->dirfd, "memory.current", O_RDONLY | O_CLOEXEC);
	uint64_t v = UINT64_MAX;
	if (fd >= 0 && daemon_reread_u64(dm, fd, &v) < 0)
		v = UINT64_MAX;
	if (fd >= 0 && fd != d->current_fd)
		close(fd);
	return v;
}

static void unlink_writer(struct daemon *dm, struct high_writer *w)
{
	for (struct high_writer **p = &dm->high_writers; *p; p = &(*p)->next)
		if (*p == w) {
			*p = w->next;
			return;
		}
}

/* Joins w (done) and says what came of it. */
static void writer_join(struct daemon *dm, struct high_writer *w)
{
	pthread_join(w->th, NULL);
	unlink_writer(dm, w);
	char v[32], u[32];
	guard_fmt_high(w->value, v, sizeof(v));
	uint64_t ms = (w->end_us - w->start_us) / 1000;
	if (w->r < 0)
		log_warning("%s: writing memory.high %s: %s (on a helper thread; the guard band "
			    "may not stand)", w->path, v, strerror(-w->r));
	else if (ms >= 100)
		log_info("%s: memory.high %s: the kernel's reclaim down to it (usage was %s) took "
			 "%" PRIu64 " ms, on a helper thread, not in the loop",
			 w->path, v, cgoom_human_size(w->usage, u, sizeof(u)), ms);
	writer_free(w);
}

void guard_writers_reap(struct daemon *dm)
{
	for (struct high_writer *w = dm->high_writers, *next; w; w = next) {
		next = w->next;
		if (__atomic_load_n(&w->state, __ATOMIC_ACQUIRE) == W_DONE)
			writer_join(dm, w);
	}
}

void guard_writers_abandon(struct daemon *dm)
{
	while (dm->high_writers) {
		struct high_writer *w = dm->high_writers;
		dm->high_writers = w->next;
		if (__atomic_exchange_n(&w->state, W_ABANDONED, __ATOMIC_ACQ_REL) == W_DONE) {
			pthread_join(w->th, NULL);
			writer_free(w);
		} else {
			pthread_detach(w->th); /* it frees w; the exit stops its reclaim */
		}
	}
}

unsigned guard_writers_count(const struct daemon *dm)
{
	unsigned n = 0;
	for (const struct high_writer *w = dm->high_writers; w; w = w->next)
		n++;
	return n;
}

static int spawn(struct daemon *dm, struct domain *d, uint64_t value, uint64_t usage,
		 struct high_writer **ret)
{
	if (guard_writers_count(dm) >= WRITERS_MAX)
		return -EBUSY;
	struct high_writer *w = calloc(1, sizeof(*w));
	if (!w)
		return -ENOMEM;
	*w = (struct high_writer){ .dirfd = -1, .efd = -1, .value = value, .usage = usage,
				   .start_us = cgfs_now_us(), .state = W_RUNNING };
	w->path = strdup(d->path);
	w->dirfd = fcntl(d->dirfd, F_DUPFD_CLOEXEC, 3);
	if (dm->prep_efd >= 0)
		w->efd = fcntl(dm->prep_efd, F_DUPFD_CLOEXEC, 3);
	int r = !w->path ? -ENOMEM : w->dirfd < 0 ? -errno : 0;
	if (r == 0) {
		pthread_attr_t at;
		pthread_attr_init(&at);
		pthread_attr_setstacksize(&at, WRITER_STACK);
		r = -pthread_create(&w->th, &at, writer_main, w);
		pthread_attr_destroy(&at);
	}
	if (r < 0) {
		if (w->efd >= 0)
			close(w->efd);
		writer_free(w);
		return r;
	}
	w->next = dm->high_writers;
	dm->high_writers = w;
	*ret = w;
	return 0;
}

int guard_write_band(struct daemon *dm, struct domain *d, uint64_t value)
{
	guard_writers_reap(dm); /* the ones done count no more */
	uint64_t usage = usage_now(dm, d);
	if (usage != UINT64_MAX && usage < value && value - usage > WRITE_SLACK)
		return guard_write_high(d->dirfd, value); /* nothing to reclaim */
	struct high_writer *w;
	int r = spawn(dm, d, value, usage, &w);
	if (r < 0) {
		log_debug("%s: no helper thread for memory.high (%s): written from the loop",
			  d->path, r == -EBUSY ? "8 at work already" : strerror(-r));
		return guard_write_high(d->dirfd, value);
	}
	/* until the value stands (then every later write lands after it),
	 * or the write is done (a failure is said at once) */
	uint64_t t0 = cgfs_now_us();
	for (unsigned i = 0;; i++) {
		if (__atomic_load_n(&w->state, __ATOMIC_ACQUIRE) == W_DONE) {
			r = w->r;
			w->r = 0; /* said here, not again at the join */
			writer_join(dm, w);
			return r;
		}
		if (high_now(dm, d) == value)
			return 0;
		if (cgfs_now_us() - t0 > STAND_WAIT_US) {
			char v[32];
			guard_fmt_high(value, v, sizeof(v));
			log_warning("%s: memory.high %s not standing after %llu ms (its helper thread "
				    "not run yet?): taken as written; the thread's result is said when "
				    "it comes", d->path, v, STAND_WAIT_US / 1000);
			return 0;
		}
		if (i < 50)
			sched_yield();
		else
			nanosleep(&(struct timespec){ .tv_nsec = 200 * 1000 }, NULL);
	}
}
