/* SPDX-License-Identifier: MIT */
/*
 * The guard band in the daemon (guard.c, SPEC 6) on a fake cgroup
 * directory (regular files memory.high and memory.max, the record in
 * its trusted.cgoom.guard: needs CAP_SYS_ADMIN, else skipped):
 *  - a band is recorded (the operator's memory.high, ours, who wrote it)
 *    and the record is removed when the band is restored;
 *  - the band a daemon killed by SIGKILL left is put back to the
 *    operator's value by the next start with guard_band = no, and taken
 *    over, then restored, with a band on (before, the band was taken for
 *    the operator's value and "restored" as it was);
 *  - a memory.high the operator set since, a malformed record and a
 *    band of a daemon still running are left alone;
 *  - a record of another format version (a later cgoom's) is kept, with
 *    memory.high, and no band is written there (it was removed as
 *    malformed);
 *  - of two daemons started at once, one records and writes the band:
 *    a record made by another between this one's look and its write
 *    (XATTR_CREATE fails) leaves the band to it; and one takes over a
 *    dead daemon's band (the other waits on the lock, then finds it
 *    alive);
 *  - a record of another daemon still running is never removed (at a
 *    restore, at a reload that finds memory.high changed), nor its band
 *    taken for the operator's value;
 *  - a reload that moves the band's line above a memory.high the
 *    operator set lower does not raise it (it was raised to the new
 *    line before: the guard band's rule held at start only);
 *  - nor over a band of ours someone replaced meanwhile (by hand, or
 *    systemd on a unit's property change): their value is theirs;
 *  - a band below the cgroup's usage (memory.current) is written by a
 *    helper thread, the kernel's reclaim after the value stands played
 *    by holding that thread in write(): guard_apply returns with the
 *    band standing while the thread is still held (the loop waited for
 *    the whole reclaim before), a restore meanwhile puts the operator's
 *    value back, and the thread is joined once released; a band above
 *    usage is written at once, with no thread.
 */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <sys/xattr.h>
#include <unistd.h>

#include "cgoom/guard.h"
#include "cgoom/parse.h"
#include "fake-daemon.h"
#include "tap.h"

#define MiB (1024ull * 1024)
#define XATTR CGOOM_GUARD_XATTR

struct bed {
	char dir[32];
	struct daemon *dm;
	struct domain *d;
};

static void put(int dfd, const char *name, const char *s)
{
	int fd = openat(dfd, name, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd < 0 || write(fd, s, strlen(s)) != (ssize_t)strlen(s))
		abort();
	close(fd);
}

static char *get(struct bed *b, const char *name)
{
	static char buf[64];
	int fd = openat(b->d->dirfd, name, O_RDONLY);
	ssize_t n = fd < 0 ? -1 : read(fd, buf, sizeof(buf) - 1);
	if (fd >= 0)
		close(fd);
	buf[n < 0 ? 0 : n] = '\0';
	return buf;
}

static char *record(struct bed *b)
{
	static char buf[CGOOM_GUARD_RECORD_MAX];
	ssize_t n = fgetxattr(b->d->dirfd, XATTR, buf, sizeof(buf) - 1);
	buf[n < 0 ? 0 : n] = '\0';
	return buf;
}

/* Another daemon (race_pid, race_start) that records its band right
 * after the daemon's next look at the record (two started at once):
 * fgetxattr() as the daemon's code calls it, interposed. */
static bool race_armed;
static int race_pid;
static unsigned long long race_start;
/* or: another daemon started at once, run in a child from there */
static void (*race_fn)(int fd);

ssize_t fgetxattr(int fd, const char *name, void *value, size_t size)
{
	ssize_t n = syscall(SYS_fgetxattr, fd, name, value, size);
	int e = errno;
	if (race_fn && strcmp(name, XATTR) == 0) {
		void (*fn)(int) = race_fn;
		race_fn = NULL;
		fn(fd);
	}
	if (race_armed && strcmp(name, XATTR) == 0) {
		race_armed = false;
		char v[96];
		snprintf(v, sizeof(v), "1 %d %llu max %llu", race_pid, race_start, 352 * MiB);
		syscall(SYS_fsetxattr, fd, name, v, strlen(v), 0);
	}
	errno = e;
	return n;
}

/* The kernel's reclaim in memory_high_write, played: armed N, the next
 * N write()s from threads other than the main one (the helpers' writes
 * of memory.high) write, then wait until reclaim_release is set;
 * reclaim_held counts them. */
static int reclaim_armed, reclaim_release, reclaim_held;

ssize_t write(int fd, const void *buf, size_t n)
{
	ssize_t r = syscall(SYS_write, fd, buf, n);
	int e = errno;
	if (syscall(SYS_gettid) != getpid() && __atomic_sub_fetch(&reclaim_armed, 1, __ATOMIC_ACQ_REL) < 0)
		__atomic_add_fetch(&reclaim_armed, 1, __ATOMIC_ACQ_REL);
	else if (syscall(SYS_gettid) != getpid()) {
		__atomic_add_fetch(&reclaim_held, 1, __ATOMIC_ACQ_REL);
		while (!__atomic_load_n(&reclaim_release, __ATOMIC_ACQUIRE))
			sched_yield();
	}
	errno = e;
	return r;
}

/* A /work of memory.max 400M, memory.high `high`, a daemon with
 * guard_band `band`; false (and the test skipped) without trusted.*. */
static bool bed_open(struct bed *b, const char *high, uint64_t band)
{
	strcpy(b->dir, "/tmp/cgoom-guard-XXXXXX");
	if (!mkdtemp(b->dir))
		abort();
	int root = open(b->dir, O_RDONLY | O_DIRECTORY);
	if (root < 0)
		abort();
	if (fsetxattr(root, "trusted.cgoom.probe", "1", 1, 0) < 0) {
		close(root);
		rmdir(b->dir);
		return false;
	}
	fremovexattr(root, "trusted.cgoom.probe");
	put(root, "memory.max", "419430400\n");
	put(root, "memory.high", high);
	b->dm = fake_daemon(1);
	cgoom_config_init(&b->dm->cfg);
	b->dm->cfg.guard_band = band;
	b->dm->live = true;
	b->dm->roots.proc_fd = open("/proc", O_RDONLY | O_DIRECTORY);
	b->d = b->dm->domains[1];
	b->d->path[0] = '/';
	b->d->dirfd = root;
	b->d->high_fd = openat(root, "memory.high", O_RDONLY);
	b->d->sample.max = 400 * MiB;
	return true;
}

static void bed_close(struct bed *b)
{
	guard_writers_abandon(b->dm); /* as at the daemon's exit */
	close(b->d->high_fd);
	unlinkat(b->d->dirfd, "memory.current", 0);
	unlinkat(b->d->dirfd, "memory.max", 0);
	unlinkat(b->d->dirfd, "memory.high", 0);
	close(b->d->dirfd);
	rmdir(b->dir);
	close(b->dm->roots.proc_fd);
	cgoom_config_free(&b->dm->cfg);
	fake_free(b->dm);
}

/* The record a daemon (pid, start) wrote for the band 352M over max. */
static void left(struct bed *b, int pid, unsigned long long start)
{
	char v[96];
	snprintf(v, sizeof(v), "1 %d %llu max %llu", pid, start, 352 * MiB);
	if (fsetxattr(b->d->dirfd, XATTR, v, strlen(v), 0) < 0)
		abort();
}

static unsigned long long start_of(int pid)
{
	char p[32], buf[1024];
	snprintf(p, sizeof(p), "/proc/%d/stat", pid);
	int fd = open(p, O_RDONLY);
	ssize_t n = fd < 0 ? -1 : read(fd, buf, sizeof(buf));
	if (fd >= 0)
		close(fd);
	struct cgoom_pid_stat st;
	if (n <= 0 || cgoom_parse_pid_stat(buf, (size_t)n, &st) < 0)
		abort();
	return (unsigned long long)st.starttime;
}

/* bed_open, or the test skipped where trusted.* cannot be set */
#define BED_OPEN(b, high, band)                                                    \
	do {                                                                       \
		if (!bed_open(b, high, band))                                      \
			SKIP("no trusted.* xattrs here (needs CAP_SYS_ADMIN)");    \
	} while (0)

/* A child that waits to be killed: another daemon, alive. */
static pid_t paused_child(void)
{
	pid_t child = fork();
	if (child == 0) {
		pause();
		_exit(0);
	}
	return child;
}

/* Our own PID with a start time it never had: a daemon gone. */
#define GONE getpid(), 1ull

static void test_band_recorded_and_removed(void)
{
	struct bed b;
	BED_OPEN(&b, "max\n", 48 * MiB);
	guard_apply(b.dm, b.d);
	CHECK(b.d->params.guarded);
	CHECK_STREQ(get(&b, "memory.high"), "369098752");
	char want[96];
	snprintf(want, sizeof(want), "1 %d %llu max 369098752", getpid(), start_of(getpid()));
	CHECK_STREQ(record(&b), want);
	guard_restore(b.dm, b.d);
	CHECK_STREQ(get(&b, "memory.high"), "max");
	CHECK_STREQ(record(&b), "");
	bed_close(&b);
}

static void test_left_band_restored_with_band_off(void)
{
	struct bed b;
	BED_OPEN(&b, "369098752\n", 0);
	left(&b, GONE);
	guard_apply(b.dm, b.d);
	CHECK(!b.d->params.guarded);
	CHECK_STREQ(get(&b, "memory.high"), "max");
	CHECK_STREQ(record(&b), "");
	bed_close(&b);
}

static void test_left_band_taken_over_then_restored(void)
{
	struct bed b;
	BED_OPEN(&b, "369098752\n", 48 * MiB);
	left(&b, GONE);
	guard_apply(b.dm, b.d);
	CHECK(b.d->params.guarded);
	CHECK_STREQ(get(&b, "memory.high"), "369098752\n"); /* kept: not written again */
	char want[96];
	snprintf(want, sizeof(want), "1 %d %llu max 369098752", getpid(), start_of(getpid()));
	CHECK_STREQ(record(&b), want); /* ours now */
	guard_restore(b.dm, b.d);
	CHECK_STREQ(get(&b, "memory.high"), "max"); /* not the band it found */
	CHECK_STREQ(record(&b), "");
	bed_close(&b);
}

static void test_left_band_under_a_new_max(void)
{
	/* memory.max went to 500M meanwhile: the band's line moves, the
	 * operator's value is still what the record says */
	struct bed b;
	BED_OPEN(&b, "369098752\n", 48 * MiB);
	left(&b, GONE);
	b.d->sample.max = 500 * MiB;
	guard_apply(b.dm, b.d);
	CHECK_STREQ(get(&b, "memory.high"), "473956352");
	guard_restore(b.dm, b.d);
	CHECK_STREQ(get(&b, "memory.high"), "max");
	CHECK_STREQ(record(&b), "");
	bed_close(&b);
}

static void test_operator_high_since_kept(void)
{
	struct bed b;
	BED_OPEN(&b, "314572800\n", 0);
	left(&b, GONE);
	guard_apply(b.dm, b.d);
	CHECK_STREQ(get(&b, "memory.high"), "314572800\n");
	CHECK_STREQ(record(&b), "");
	bed_close(&b);
}

static void test_malformed_record_dropped(void)
{
	struct bed b;
	BED_OPEN(&b, "369098752\n", 0);
	CHECK(fsetxattr(b.d->dirfd, XATTR, "1 max nonsense", 14, 0) == 0);
	guard_apply(b.dm, b.d);
	CHECK_STREQ(get(&b, "memory.high"), "369098752\n");
	CHECK_STREQ(record(&b), "");
	bed_close(&b);
}

static void test_other_version_kept(void)
{
	/* a later cgoom's record (a downgrade since): kept with memory.high,
	 * whether a band is off or on here, and no band of ours */
	for (int on = 0; on < 2; on++) {
		struct bed b;
		BED_OPEN(&b, "369098752\n", on ? 48 * MiB : 0);
		const char *v = "2 12345 1 max 369098752 flags=x";
		CHECK(fsetxattr(b.d->dirfd, XATTR, v, strlen(v), 0) == 0);
		guard_apply(b.dm, b.d);
		CHECK(!b.d->params.guarded && !b.d->high_written);
		CHECK_STREQ(get(&b, "memory.high"), "369098752\n");
		CHECK_STREQ(record(&b), v);
		guard_restore(b.dm, b.d);
		CHECK_STREQ(record(&b), v);
		fremovexattr(b.d->dirfd, XATTR);
		bed_close(&b);
	}
}

static void test_live_writer_left_alone(void)
{
	struct bed b;
	BED_OPEN(&b, "369098752\n", 48 * MiB);
	pid_t child = paused_child();
	CHECK(child > 0);
	left(&b, child, start_of(child));
	char before[CGOOM_GUARD_RECORD_MAX];
	strcpy(before, record(&b));
	guard_apply(b.dm, b.d);
	bool guarded = b.d->params.guarded, written = b.d->high_written;
	kill(child, SIGKILL);
	waitpid(child, NULL, 0);
	CHECK(!guarded && !written);
	CHECK_STREQ(get(&b, "memory.high"), "369098752\n");
	CHECK_STREQ(record(&b), before);
	/* once it is gone, the next look takes it over */
	guard_apply(b.dm, b.d);
	CHECK(b.d->params.guarded && b.d->high_written);
	CHECK(b.d->old_high == UINT64_MAX);
	guard_restore(b.dm, b.d);
	CHECK_STREQ(get(&b, "memory.high"), "max");
	bed_close(&b);
}

static void test_started_at_once(void)
{
	struct bed b;
	BED_OPEN(&b, "max\n", 48 * MiB);
	pid_t child = paused_child();
	CHECK(child > 0);
	race_pid = child;
	race_start = start_of(child);
	race_armed = true;
	guard_apply(b.dm, b.d);
	bool guarded = b.d->params.guarded, written = b.d->high_written;
	char rec[CGOOM_GUARD_RECORD_MAX];
	strcpy(rec, record(&b));
	kill(child, SIGKILL);
	waitpid(child, NULL, 0);
	CHECK(!race_armed);
	CHECK(!guarded && !written);
	CHECK_STREQ(get(&b, "memory.high"), "max\n"); /* the other's to write */
	char want[96];
	snprintf(want, sizeof(want), "1 %d %llu max %llu", child, race_start, 352 * MiB);
	CHECK_STREQ(rec, want); /* the other's record stands */
	bed_close(&b);
}

/* A record of another daemon still running is never removed, nor its
 * band taken for the operator's value: the reviewer's chain had two
 * daemons that both took over one band each remove the other's record,
 * and memory.high stayed at one's band for good. */
static void test_others_record_kept(void)
{
	for (int reload = 0; reload < 2; reload++) {
		struct bed b;
		BED_OPEN(&b, "max\n", 48 * MiB);
		guard_apply(b.dm, b.d);
		CHECK_STREQ(get(&b, "memory.high"), "369098752");
		pid_t child = paused_child();
		CHECK(child > 0);
		/* the other daemon records and writes its band (380M) */
		char v[96];
		snprintf(v, sizeof(v), "1 %d %llu max 398458880 369098752", child, start_of(child));
		CHECK(fsetxattr(b.d->dirfd, XATTR, v, strlen(v), 0) == 0);
		put(b.d->dirfd, "memory.high", "398458880\n");
		if (reload)
			guard_apply(b.dm, b.d);
		bool guarded = b.d->params.guarded, written = b.d->high_written;
		guard_restore(b.dm, b.d);
		char rec[CGOOM_GUARD_RECORD_MAX];
		strcpy(rec, record(&b));
		kill(child, SIGKILL);
		waitpid(child, NULL, 0);
		if (reload)
			CHECK(!guarded && !written); /* its band, not the operator's */
		CHECK_STREQ(get(&b, "memory.high"), "398458880\n");
		CHECK_STREQ(rec, v);
		fremovexattr(b.d->dirfd, XATTR);
		bed_close(&b);
	}
}

/* Two daemons started at once after a crash: the second (a child,
 * started inside the first's look at the dead daemon's record) waits
 * for the first's takeover and finds its band, alive: no takeover of
 * its own (both took it over, each its own record over the other's). */
static char *race_dir;
static int race_status;

static void race_second_daemon(int fd)
{
	(void)fd;
	pid_t child = fork();
	if (child == 0) {
		struct bed b2 = { 0 };
		b2.dm = fake_daemon(1);
		cgoom_config_init(&b2.dm->cfg);
		b2.dm->cfg.guard_band = 48 * MiB;
		b2.dm->live = true;
		b2.dm->roots.proc_fd = open("/proc", O_RDONLY | O_DIRECTORY);
		b2.d = b2.dm->domains[1];
		b2.d->path[0] = '/';
		b2.d->dirfd = open(race_dir, O_RDONLY | O_DIRECTORY);
		b2.d->high_fd = openat(b2.d->dirfd, "memory.high", O_RDONLY);
		b2.d->sample.max = 400 * MiB;
		guard_apply(b2.dm, b2.d);
		_exit(b2.d->high_written ? 1 : 0);
	}
	race_pid = child;
	/* up to 300 ms for it: without exclusion it is done by then */
	for (int i = 0; i < 30 && waitpid(child, &race_status, WNOHANG) == 0; i++)
		usleep(10000);
}

static void test_takeover_exclusive(void)
{
	struct bed b;
	BED_OPEN(&b, "369098752\n", 48 * MiB);
	left(&b, GONE);
	race_dir = b.dir;
	race_status = -1;
	race_fn = race_second_daemon;
	guard_apply(b.dm, b.d);
	CHECK(!race_fn);
	if (race_status == -1)
		waitpid(race_pid, &race_status, 0);
	CHECK(b.d->params.guarded && b.d->high_written);
	CHECK(WIFEXITED(race_status) && WEXITSTATUS(race_status) == 0); /* no band of its own */
	char want[96];
	snprintf(want, sizeof(want), "1 %d %llu max 369098752", getpid(), start_of(getpid()));
	CHECK_STREQ(record(&b), want);
	guard_restore(b.dm, b.d);
	CHECK_STREQ(get(&b, "memory.high"), "max");
	CHECK_STREQ(record(&b), "");
	bed_close(&b);
}

static void test_reload_clears_prev(void)
{
	/* a reload moves the band (48M to 32M): the record carries PREV for
	 * the write, and loses it once the new band stands */
	struct bed b;
	BED_OPEN(&b, "max\n", 48 * MiB);
	guard_apply(b.dm, b.d);
	CHECK_STREQ(get(&b, "memory.high"), "369098752");
	b.dm->cfg.guard_band = 32 * MiB;
	guard_apply(b.dm, b.d);
	CHECK(b.d->params.guarded);
	CHECK_STREQ(get(&b, "memory.high"), "385875968");
	char want[96];
	snprintf(want, sizeof(want), "1 %d %llu max 385875968", getpid(), start_of(getpid()));
	CHECK_STREQ(record(&b), want);
	guard_restore(b.dm, b.d);
	CHECK_STREQ(get(&b, "memory.high"), "max");
	bed_close(&b);
}

static void test_band_below_a_page(void)
{
	/* guard_band 100 bytes short of memory.max: the line rounds down to
	 * memory.high 0, which throttles the cgroup whole: no band (and a
	 * band of ours from before goes at such a reload) */
	struct bed b;
	BED_OPEN(&b, "max\n", 400 * MiB - 100);
	guard_apply(b.dm, b.d);
	CHECK(!b.d->params.guarded && !b.d->high_written);
	CHECK_STREQ(get(&b, "memory.high"), "max\n");
	CHECK_STREQ(record(&b), "");
	b.dm->cfg.guard_band = 48 * MiB;
	guard_apply(b.dm, b.d);
	CHECK_STREQ(get(&b, "memory.high"), "369098752");
	b.dm->cfg.guard_band = 400 * MiB - 100;
	guard_apply(b.dm, b.d);
	CHECK(!b.d->params.guarded && !b.d->high_written);
	CHECK_STREQ(get(&b, "memory.high"), "max");
	CHECK_STREQ(record(&b), "");
	bed_close(&b);
}

static void test_replaced_band_is_theirs(void)
{
	/* the band (352M) replaced by hand with 200M while cgoom runs; a
	 * reload to guard_band 32M (368M) must not write over it */
	struct bed b;
	BED_OPEN(&b, "max\n", 48 * MiB);
	guard_apply(b.dm, b.d);
	CHECK_STREQ(get(&b, "memory.high"), "369098752");
	put(b.d->dirfd, "memory.high", "209715200\n");
	b.dm->cfg.guard_band = 32 * MiB;
	guard_apply(b.dm, b.d);
	CHECK(!b.d->params.guarded && !b.d->high_written);
	CHECK_STREQ(get(&b, "memory.high"), "209715200\n");
	CHECK_STREQ(record(&b), "");
	/* replaced with max instead: the new band goes over it, and max is
	 * what a clean exit puts back */
	put(b.d->dirfd, "memory.high", "max\n");
	guard_apply(b.dm, b.d);
	CHECK(b.d->params.guarded);
	CHECK_STREQ(get(&b, "memory.high"), "385875968");
	guard_restore(b.dm, b.d);
	CHECK_STREQ(get(&b, "memory.high"), "max");
	bed_close(&b);
}

static void test_reload_never_raises_operators_high(void)
{
	/* the operator's 300M; guard_band 150M puts the band at 250M, under
	 * it; a reload to 48M would put it at 352M, above theirs */
	struct bed b;
	BED_OPEN(&b, "314572800\n", 150 * MiB);
	guard_apply(b.dm, b.d);
	CHECK(b.d->params.guarded);
	CHECK_STREQ(get(&b, "memory.high"), "262144000");
	b.dm->cfg.guard_band = 48 * MiB;
	guard_apply(b.dm, b.d);
	CHECK(!b.d->params.guarded);
	CHECK_STREQ(get(&b, "memory.high"), "314572800");
	CHECK_STREQ(record(&b), "");
	bed_close(&b);
}

/* Joins the helper threads (released), as the loop does on its wake-up. */
static bool writers_joined(struct daemon *dm)
{
	for (int i = 0; i < 5000 && dm->high_writers; i++) {
		guard_writers_reap(dm);
		if (dm->high_writers)
			usleep(1000);
	}
	return dm->high_writers == NULL;
}

/* The bed with memory.max 400M, memory.high max, guard_band 48M (the
 * band 352M), memory.current `current`, and `armed` helper writes to
 * hold */
#define RECLAIM_BED(b, current, armed)                                             \
	do {                                                                       \
		BED_OPEN(b, "max\n", 48 * MiB);                                    \
		put((b)->d->dirfd, "memory.current", current);                     \
		reclaim_release = reclaim_held = 0;                                \
		reclaim_armed = (armed);                                           \
	} while (0)

static void test_band_below_usage_on_a_helper(void)
{
	struct bed b;
	RECLAIM_BED(&b, "398458880\n", 1); /* 380 MiB: above 352 */
	guard_apply(b.dm, b.d);
	/* back with the band standing, the helper still "reclaiming" */
	CHECK(b.d->params.guarded && b.d->high_written);
	CHECK_STREQ(get(&b, "memory.high"), "369098752");
	CHECK(__atomic_load_n(&reclaim_held, __ATOMIC_ACQUIRE) == 1);
	CHECK(b.dm->high_writers != NULL);
	guard_writers_reap(b.dm); /* not done: stays */
	CHECK(b.dm->high_writers != NULL);
	/* a restore meanwhile: the operator's value at once */
	guard_restore(b.dm, b.d);
	CHECK_STREQ(get(&b, "memory.high"), "max");
	CHECK_STREQ(record(&b), "");
	__atomic_store_n(&reclaim_release, 1, __ATOMIC_RELEASE);
	CHECK(writers_joined(b.dm));
	CHECK_STREQ(get(&b, "memory.high"), "max"); /* the helper wrote nothing after */
	bed_close(&b);
}

static void test_writers_capped(void)
{
	/* eight helpers at once at most (a reload putting bands below usage
	 * on a thousand domains makes no thousand threads): the ninth band
	 * is written from the loop */
	struct bed b;
	RECLAIM_BED(&b, "398458880\n", 9);
	char want[32];
	for (int i = 0; i < 9; i++) {
		uint64_t v = (300 + (uint64_t)i) * MiB;
		CHECK(guard_write_band(b.dm, b.d, v) == 0);
		snprintf(want, sizeof(want), "%llu", (unsigned long long)v);
		CHECK_STREQ(get(&b, "memory.high"), want);
	}
	CHECK(__atomic_load_n(&reclaim_held, __ATOMIC_ACQUIRE) == 8);
	CHECK(guard_writers_count(b.dm) == 8);
	__atomic_store_n(&reclaim_release, 1, __ATOMIC_RELEASE);
	CHECK(writers_joined(b.dm));
	reclaim_armed = 0;
	bed_close(&b);
}

static void test_band_above_usage_written_at_once(void)
{
	struct bed b;
	RECLAIM_BED(&b, "104857600\n", 1); /* 100 MiB: under 352 */
	guard_apply(b.dm, b.d);
	CHECK(b.d->params.guarded);
	CHECK_STREQ(get(&b, "memory.high"), "369098752");
	CHECK(b.dm->high_writers == NULL);
	CHECK(reclaim_held == 0); /* the main thread wrote it */
	reclaim_armed = 0;
	guard_restore(b.dm, b.d);
	CHECK_STREQ(get(&b, "memory.high"), "max");
	bed_close(&b);
}

int main(void)
{
	return tap_run((struct tap_test[]){
		TAP(test_band_recorded_and_removed),
		TAP(test_left_band_restored_with_band_off),
		TAP(test_left_band_taken_over_then_restored),
		TAP(test_left_band_under_a_new_max),
		TAP(test_operator_high_since_kept),
		TAP(test_malformed_record_dropped),
		TAP(test_other_version_kept),
		TAP(test_live_writer_left_alone),
		TAP(test_started_at_once),
		TAP(test_others_record_kept),
		TAP(test_takeover_exclusive),
		TAP(test_reload_never_raises_operators_high),
		TAP(test_replaced_band_is_theirs),
		TAP(test_reload_clears_prev),
		TAP(test_band_below_a_page),
		TAP(test_band_below_usage_on_a_helper),
		TAP(test_band_above_usage_written_at_once),
		TAP(test_writers_capped),
		{ 0 },
	});
}
