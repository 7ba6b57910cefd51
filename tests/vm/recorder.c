/* recorder: raw series of what a swap or thrash trigger could read, for
 * the trigger unit tests (replayed as fixtures).
 *
 *   recorder run OUT [--interval-ms N] [--cgroup DIR]... [--children DIR]...
 *                    [--watch LABEL=PID]... [--watch-file FILE]
 *       Every N ms (default 100) appends one block to OUT:
 *           @ T_MS
 *           == /proc/meminfo
 *           <its contents, verbatim>
 *           == /proc/vmstat
 *           ...
 *       T_MS is CLOCK_MONOTONIC in ms since the recorder started. The
 *       files: /proc/meminfo, /proc/vmstat, /proc/pressure/memory,
 *       /proc/pressure/io, /sys/block/zram0/mm_stat (when present),
 *       /proc/swaps, and for each cgroup DIR (--cgroup DIR; --children
 *       DIR: DIR and each of its child directories at that moment)
 *       memory.current, memory.swap.current, memory.stat,
 *       memory.pressure, memory.events, each as "== PATH" (the full
 *       path). A file that cannot be read is left out of that block.
 *       The first line of OUT is "# 0 start monotonic_ns=NS interval_ms=N".
 *       When /proc/vmstat's oom_kill grows, a marker line
 *       "# T_MS kernel oom_kill +D total N" follows the block; when a
 *       watched process (a pidfd each) has exited, "# T_MS exit LABEL PID"
 *       (T_MS: the sample that saw it, so within one interval).
 *       --watch-file FILE: lines "LABEL PID" appended to FILE later are
 *       watched from the next sample on (processes started after the
 *       recorder).
 *       SIGTERM or SIGINT: the last blocks are written, "# T_MS end
 *       blocks N dropped N late_max_ms N" closes the file, exit 0.
 *   recorder mark OUT [--at-mono MS] TEXT...
 *       append "# T_MS TEXT" (T_MS against OUT's start line: now, or the
 *       CLOCK_MONOTONIC time MS, e.g. a probe round's), in one write(2)
 *       with O_APPEND, so it never lands inside a block.
 *
 * Sampling never waits for the disk: blocks go through a ring of 8 MiB
 * (about 30 s of blocks) to a writer thread; when the ring is full a
 * block is dropped and counted. The recorder mlocks itself, sets
 * oom_score_adj -1000 and runs SCHED_FIFO (nice -10 where refused), so
 * that under thrashing it still samples on time; a block's T is when it
 * was taken, and `late_max_ms` says how far a sample ever slipped. A
 * block is written in one write(2) as well: readers sort nothing, but a
 * marker written by `mark` may precede the block of an earlier T that
 * was still in the ring (markers carry their own T).
 *
 * Built static by tests/vm/run, tests/vm/systemd/run and bench/. */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <poll.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define RING (8u << 20)
#define BLOCK_MAX (512u << 10)
#define MAXCG 64

static volatile sig_atomic_t stop;
static void on_term(int s) { (void)s; stop = 1; }

static long long mono_ns(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (long long)t.tv_sec * 1000000000LL + t.tv_nsec;
}

/* --- the ring: one producer (sampler), one consumer (writer) ------------ */

static char *ring;
static size_t head, tail; /* bytes produced / consumed, ever */
static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
static int out_fd, done;
static long long dropped;

static int ring_put(const char *buf, size_t n)
{
	pthread_mutex_lock(&mu);
	if (head - tail + n > RING) {
		dropped++;
		pthread_mutex_unlock(&mu);
		return -1;
	}
	for (size_t i = 0; i < n;) {
		size_t at = (head + i) % RING, k = n - i < RING - at ? n - i : RING - at;
		memcpy(ring + at, buf + i, k);
		i += k;
	}
	head += n;
	pthread_cond_signal(&cv);
	pthread_mutex_unlock(&mu);
	return 0;
}

static void write_all(const char *p, size_t n)
{
	while (n) {
		ssize_t w = write(out_fd, p, n);
		if (w < 0) {
			if (errno == EINTR)
				continue;
			return; /* a full disk: the series ends short, nothing else */
		}
		p += w;
		n -= (size_t)w;
	}
}

/* Writes whole blocks: each put() is one block or marker, and the writer
 * takes everything produced so far, in up to two pieces at the wrap. A
 * block split at the wrap is written with two write(2)s; `mark` lines
 * could land between them only while the ring wraps, once per 8 MiB. */
static void *writer(void *arg)
{
	(void)arg;
	pthread_mutex_lock(&mu);
	for (;;) {
		while (head == tail && !done)
			pthread_cond_wait(&cv, &mu);
		if (head == tail && done)
			break;
		size_t h = head, at = tail % RING, n = h - tail;
		pthread_mutex_unlock(&mu);
		if (at + n > RING) {
			write_all(ring + at, RING - at);
			write_all(ring, n - (RING - at));
		} else
			write_all(ring + at, n);
		pthread_mutex_lock(&mu);
		tail = h;
	}
	pthread_mutex_unlock(&mu);
	return NULL;
}

/* --- one block ----------------------------------------------------------- */

static char block[BLOCK_MAX];
static size_t blen;

static void addf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void addf(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(block + blen, BLOCK_MAX - blen, fmt, ap);
	va_end(ap);
	if (n > 0)
		blen = blen + (size_t)n < BLOCK_MAX ? blen + (size_t)n : BLOCK_MAX - 1;
}

/* append "== PATH\n" and the file; nothing when it cannot be read */
static void add_file(const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return;
	size_t mark = blen;
	addf("== %s\n", path);
	ssize_t n, total = 0;
	while (blen < BLOCK_MAX - 1 && (n = read(fd, block + blen, BLOCK_MAX - 1 - blen)) > 0) {
		blen += (size_t)n;
		total += n;
	}
	close(fd);
	if (total <= 0) {
		blen = mark;
		return;
	}
	if (block[blen - 1] != '\n' && blen < BLOCK_MAX - 1)
		block[blen++] = '\n';
}

static const char *const cg_files[] = {
	"memory.current", "memory.swap.current", "memory.stat", "memory.pressure", "memory.events",
};

static void add_cgroup(const char *dir)
{
	char path[4096 + 512];
	for (size_t i = 0; i < sizeof(cg_files) / sizeof(cg_files[0]); i++) {
		snprintf(path, sizeof(path), "%s/%s", dir, cg_files[i]);
		add_file(path);
	}
}

static long long vmstat_oom_kill(void)
{
	/* from the block just built: the line "oom_kill N" of /proc/vmstat */
	const char *v = strstr(block, "== /proc/vmstat\n");
	const char *p = v ? strstr(v, "\noom_kill ") : NULL;
	return p ? atoll(p + 10) : -1;
}

static void protect_self(void)
{
	int fd = open("/proc/self/oom_score_adj", O_WRONLY);
	if (fd >= 0) {
		if (write(fd, "-1000", 5) < 0) { /* best effort */ }
		close(fd);
	}
	mlockall(MCL_CURRENT | MCL_FUTURE);
	struct sched_param sp = { .sched_priority = 40 };
	if (sched_setscheduler(0, SCHED_FIFO, &sp) < 0)
		setpriority(PRIO_PROCESS, 0, -10);
}

#ifndef SYS_pidfd_open
#define SYS_pidfd_open 434
#endif

struct watched {
	char label[64];
	long pid;
	int fd; /* -1 once reported */
};

static int cmd_run(int argc, char **argv)
{
	const char *cgs[MAXCG], *kids[MAXCG];
	struct watched w[MAXCG];
	int ncg = 0, nkids = 0, nw = 0;
	const char *wfile = NULL;
	long long wfile_off = 0;
	long long interval = 100;
	for (int i = 3; i + 1 < argc; i += 2) {
		if (!strcmp(argv[i], "--interval-ms"))
			interval = atoll(argv[i + 1]);
		else if (!strcmp(argv[i], "--cgroup") && ncg < MAXCG)
			cgs[ncg++] = argv[i + 1];
		else if (!strcmp(argv[i], "--children") && nkids < MAXCG)
			kids[nkids++] = argv[i + 1];
		else if (!strcmp(argv[i], "--watch-file"))
			wfile = argv[i + 1];
		else if (!strcmp(argv[i], "--watch") && nw < MAXCG && strchr(argv[i + 1], '=')) {
			const char *eq = strchr(argv[i + 1], '=');
			snprintf(w[nw].label, sizeof(w[nw].label), "%.*s", (int)(eq - argv[i + 1]), argv[i + 1]);
			w[nw].pid = atol(eq + 1);
			w[nw].fd = (int)syscall(SYS_pidfd_open, (pid_t)w[nw].pid, 0);
			nw++;
		}
		else {
			fprintf(stderr, "recorder: bad option %s\n", argv[i]);
			return 2;
		}
	}
	if (interval <= 0)
		return 2;
	out_fd = open(argv[2], O_WRONLY | O_CREAT | O_TRUNC | O_APPEND | O_CLOEXEC, 0644);
	if (out_fd < 0) {
		perror(argv[2]);
		return 1;
	}
	ring = malloc(RING);
	if (!ring)
		return 1;
	memset(ring, 0, RING); /* fault it in before mlockall pins it */
	struct sigaction sa = { .sa_handler = on_term };
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	protect_self();

	long long t0 = mono_ns(), due = t0, late_max = 0, blocks = 0, ooms = -1;
	char head_line[128];
	snprintf(head_line, sizeof(head_line), "# 0 start monotonic_ns=%lld interval_ms=%lld\n", t0, interval);
	write_all(head_line, strlen(head_line));
	pthread_t th;
	if (pthread_create(&th, NULL, writer, NULL))
		return 1;
	while (!stop) {
		long long t = mono_ns();
		if (t - due > late_max)
			late_max = t - due;
		blen = 0;
		addf("@ %lld\n", (t - t0) / 1000000);
		add_file("/proc/meminfo");
		add_file("/proc/vmstat");
		add_file("/proc/pressure/memory");
		add_file("/proc/pressure/io");
		add_file("/sys/block/zram0/mm_stat");
		add_file("/proc/swaps");
		for (int i = 0; i < ncg; i++)
			add_cgroup(cgs[i]);
		for (int i = 0; i < nkids; i++) {
			add_cgroup(kids[i]);
			DIR *d = opendir(kids[i]);
			struct dirent *e;
			char path[4096 + 256];
			while (d && (e = readdir(d))) {
				if (e->d_type != DT_DIR || e->d_name[0] == '.')
					continue;
				snprintf(path, sizeof(path), "%s/%s", kids[i], e->d_name);
				add_cgroup(path);
			}
			if (d)
				closedir(d);
		}
		if (wfile) {
			/* new "LABEL PID" lines since the last sample */
			int fd = open(wfile, O_RDONLY | O_CLOEXEC);
			char buf[4096], label[64];
			ssize_t n = fd >= 0 ? pread(fd, buf, sizeof(buf) - 1, wfile_off) : -1;
			if (fd >= 0)
				close(fd);
			if (n > 0) {
				buf[n] = 0;
				char *line = buf, *nl;
				while ((nl = strchr(line, '\n'))) {
					long pid;
					*nl = 0;
					if (nw < MAXCG && sscanf(line, "%63s %ld", label, &pid) == 2) {
						snprintf(w[nw].label, sizeof(w[nw].label), "%s", label);
						w[nw].pid = pid;
						w[nw].fd = (int)syscall(SYS_pidfd_open, (pid_t)pid, 0);
						nw++;
					}
					wfile_off += nl + 1 - line;
					line = nl + 1;
				}
			}
		}
		for (int i = 0; i < nw; i++) {
			struct pollfd pf = { .fd = w[i].fd, .events = POLLIN };
			if (w[i].fd == -2)
				continue;
			if (w[i].fd < 0 || poll(&pf, 1, 0) > 0) {
				addf("# %lld exit %s %ld\n", (t - t0) / 1000000, w[i].label, w[i].pid);
				if (w[i].fd >= 0)
					close(w[i].fd);
				w[i].fd = -2;
			}
		}
		long long k = vmstat_oom_kill();
		if (ooms >= 0 && k > ooms)
			addf("# %lld kernel oom_kill +%lld total %lld\n", (t - t0) / 1000000, k - ooms, k);
		if (k >= 0)
			ooms = k;
		ring_put(block, blen);
		blocks++;
		due += interval * 1000000LL;
		if (mono_ns() > due)
			due = mono_ns(); /* never catch up on missed samples */
		struct timespec ts = { .tv_sec = due / 1000000000LL, .tv_nsec = due % 1000000000LL };
		while (!stop && clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
			;
	}
	blen = 0;
	pthread_mutex_lock(&mu);
	long long d = dropped;
	pthread_mutex_unlock(&mu);
	addf("# %lld end blocks %lld dropped %lld late_max_ms %lld\n", (mono_ns() - t0) / 1000000, blocks, d,
	     late_max / 1000000);
	ring_put(block, blen);
	pthread_mutex_lock(&mu);
	done = 1;
	pthread_cond_signal(&cv);
	pthread_mutex_unlock(&mu);
	pthread_join(th, NULL);
	close(out_fd);
	return 0;
}

static int cmd_mark(int argc, char **argv)
{
	char buf[4096];
	long long t0 = -1;
	int fd = open(argv[2], O_RDONLY);
	if (fd >= 0) {
		ssize_t n = read(fd, buf, 200);
		close(fd);
		if (n > 0) {
			buf[n] = 0;
			const char *p = strstr(buf, "monotonic_ns=");
			if (!strncmp(buf, "# 0 start ", 10) && p)
				t0 = atoll(p + 13);
		}
	}
	if (t0 < 0) {
		fprintf(stderr, "recorder mark: %s has no start line\n", argv[2]);
		return 1;
	}
	long long at = mono_ns();
	int first = 3;
	if (argc > 5 && !strcmp(argv[3], "--at-mono")) {
		at = atoll(argv[4]) * 1000000LL;
		first = 5;
	}
	size_t len = (size_t)snprintf(buf, sizeof(buf), "# %lld", (at - t0) / 1000000);
	for (int i = first; i < argc && len < sizeof(buf) - 2; i++)
		len += (size_t)snprintf(buf + len, sizeof(buf) - len, " %s", argv[i]);
	if (len > sizeof(buf) - 2)
		len = sizeof(buf) - 2;
	/* one line: no newline may come from the text */
	for (size_t i = 2; i < len; i++)
		if (buf[i] == '\n')
			buf[i] = ' ';
	buf[len++] = '\n';
	fd = open(argv[2], O_WRONLY | O_APPEND);
	if (fd < 0 || write(fd, buf, len) != (ssize_t)len) {
		perror(argv[2]);
		return 1;
	}
	close(fd);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc >= 3 && !strcmp(argv[1], "run"))
		return cmd_run(argc, argv);
	if (argc >= 4 && !strcmp(argv[1], "mark"))
		return cmd_mark(argc, argv);
	fprintf(stderr, "usage: recorder run OUT [--interval-ms N] [--cgroup DIR]... [--children DIR]...\n"
			"       recorder mark OUT [--at-mono MS] TEXT...\n");
	return 2;
}
