/* benchhelp: small measuring tools for bench/run, inside the QEMU guest.
 *
 *   benchhelp now
 *       print CLOCK_MONOTONIC in ns
 *   benchhelp mon OUT [OPTS] AVAIL_KB [CGROUP_DIR CURRENT_BYTES]
 *       the reference monitor. Every --interval-us (default 1000: 1 kHz)
 *       sample the line: /proc/meminfo MemAvailable (system) or, with
 *       CGROUP_DIR, its memory.current; and the "full" total of
 *       /proc/pressure/memory. Writes to OUT:
 *         band_ns T tool_cpu_ns C headroom_kb H
 *             the first sample within --band-kb (default 65536) of the
 *             line, with the CPU time so far of --tool-pid (all threads,
 *             /proc/PID/task/STAR/schedstat; -1 without a tool)
 *         cross_ns T rate_mibs R avail_kb A gap_us G
 *             the first sample past the line (MemAvailable < AVAIL_KB, or
 *             memory.current >= CURRENT_BYTES); R: growth over the 200 ms
 *             before; G: time since the previous sample (the crossing
 *             happened inside that gap: the resolution of this run)
 *         psi_ns T           the first rise of PSI full total (read
 *                            every 8th sample)
 *         end samples N span_ms S gap_max_us G self_cpu_ms C min_avail_kb M
 *             on SIGTERM (G: the longest gap between two samples)
 *   benchhelp limit OUT PID [OPTS] AVAIL_KB [CGROUP_DIR CURRENT_BYTES]
 *       the oracle: told its victim in advance (a pidfd opened at start),
 *       samples the same line as mon at 1 kHz and SIGKILLs PID on the
 *       first sample past it: "killed PID cross_ns T sent_ns T2"; "gone
 *       PID" if it died before. One kill, then it waits for SIGTERM.
 *   benchhelp watch OUT [--tool-pid PID] [--stop PID] PID...
 *       open a pidfd for each PID, poll them, append "dead PID T" to OUT
 *       (T = CLOCK_MONOTONIC ns) for each exit; at the first death append
 *       "tool_cpu_ns C T" (--tool-pid) and SIGSTOP the --stop process (the
 *       grower: one crossing, one event); ends when all are dead or on
 *       SIGTERM.
 *   benchhelp probe OUT
 *       the innocent interactive process: sleeps 10 ms in a loop, and on
 *       each wakeup maps, touches and unmaps 64 KiB (so it meets the page
 *       allocator as an interactive program does); records the worst
 *       wakeup latency (actual wakeup minus due time). SIGUSR1 appends
 *       "worst_us N seq K" to OUT and resets the worst.
 *   benchhelp cpu PID
 *       print "cpu_ms N rss_kb N cpu_ns N slices N": utime+stime of /proc/PID/stat
 *       (every thread, the dead ones too, in whole clock ticks: 10 ms),
 *       VmRSS, and the summed schedstat run time of its live threads in
 *       ns (-1 unreadable) with the times they were put on a CPU; an
 *       idle cost over a minute is a few dozen ticks, so it is taken
 *       from cpu_ns (guest.sh idle_cost)
 *   benchhelp churn OUT DIR RATE SECS KEEP LIMIT_BYTES
 *       cgroup churn at a steady RATE per second for SECS s (or until
 *       SIGTERM): makes DIR/x0, x1, ... on a fixed schedule (every 20 ms
 *       the ones due), writes LIMIT_BYTES to each one's memory.max, and
 *       removes DIR/x(N-KEEP) as it makes xN. Each second it writes
 *       "made N removed R failed F behind_ms B" to OUT (B: how far the
 *       last batch ran behind its schedule; F: mkdir, memory.max or rmdir
 *       refused), and once more at the end, with "done".
 *
 * mon, limit and watch mlockall, set oom_score_adj -1000 and run SCHED_FIFO
 * (priority 50; nice -20 where that is refused), so they neither stall on
 * their own page faults, nor wait for a CPU behind the hog, nor get
 * killed. The probe does none of this: it is a bystander.
 *
 * Built static by bench/run. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#ifndef SYS_pidfd_open
#define SYS_pidfd_open 434
#endif
#ifndef SYS_pidfd_send_signal
#define SYS_pidfd_send_signal 424
#endif

static volatile sig_atomic_t got_term, got_usr1;

static void on_term(int s) { (void)s; got_term = 1; }
static void on_usr1(int s) { (void)s; got_usr1 = 1; }

static long long now_ns(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (long long)t.tv_sec * 1000000000LL + t.tv_nsec;
}

/* mlocked, never the OOM killer's choice, first on the CPU */
static void protect_self(void)
{
	int fd = open("/proc/self/oom_score_adj", O_WRONLY);
	if (fd >= 0) {
		if (write(fd, "-1000", 5) < 0) { /* best effort */ }
		close(fd);
	}
	mlockall(MCL_CURRENT | MCL_FUTURE);
	struct sched_param sp = { .sched_priority = 50 };
	if (sched_setscheduler(0, SCHED_FIFO, &sp) < 0)
		setpriority(PRIO_PROCESS, 0, -20);
}

static void handle(int sig, void (*fn)(int))
{
	struct sigaction sa;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = fn;
	sigaction(sig, &sa, NULL);
}

/* read a whole small file into buf (NUL-terminated); -1 on error */
static ssize_t slurp(int fd, char *buf, size_t len)
{
	ssize_t n = pread(fd, buf, len - 1, 0);
	if (n < 0)
		return -1;
	buf[n] = 0;
	return n;
}

static long long field_after(const char *buf, const char *key)
{
	const char *p = strstr(buf, key);
	if (!p)
		return -1;
	return strtoll(p + strlen(key), NULL, 10);
}

static void append(const char *path, const char *line)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_APPEND, 0644);
	if (fd < 0)
		return;
	if (write(fd, line, strlen(line)) < 0) { /* best effort */ }
	close(fd);
}

/* CPU time of every thread of PID (ns, schedstat: exact, not in ticks);
 * "self" for this process. -1 when unreadable. With slices, the times
 * its threads were put on a CPU (schedstat's third field: for a daemon
 * that sleeps between samples, its wake-ups) into *slices. */
static long long proc_cpu_ns_slices(const char *pid, long long *slices)
{
	char path[96], buf[256];
	long long sum = -1, n = 0;
	snprintf(path, sizeof(path), "/proc/%s/task", pid);
	DIR *d = opendir(path);
	if (!d)
		return -1;
	struct dirent *e;
	while ((e = readdir(d))) {
		if (e->d_name[0] < '0' || e->d_name[0] > '9')
			continue;
		snprintf(path, sizeof(path), "/proc/%s/task/%.20s/schedstat", pid, e->d_name);
		int fd = open(path, O_RDONLY);
		if (fd < 0)
			continue;
		if (slurp(fd, buf, sizeof(buf)) > 0) {
			char *q;
			sum = (sum < 0 ? 0 : sum) + strtoll(buf, &q, 10);
			strtoll(q, &q, 10); /* time waiting on a runqueue */
			n += strtoll(q, NULL, 10);
		}
		close(fd);
	}
	closedir(d);
	if (slices)
		*slices = sum < 0 ? -1 : n;
	return sum;
}

static long long proc_cpu_ns(const char *pid)
{
	return proc_cpu_ns_slices(pid, NULL);
}

/* --- the line: MemAvailable under a floor, or memory.current over a ceiling */

struct line {
	int fd;            /* /proc/meminfo, or CGROUP_DIR/memory.current */
	int cgroup;        /* 1: memory.current >= thr; 0: MemAvailable < thr */
	long long thr;     /* KiB (system) or bytes (cgroup) */
	char buf[8192];
};

/* positionals AVAIL_KB [CGROUP_DIR CURRENT_BYTES] */
static int line_open(struct line *l, int argc, char **argv)
{
	if (argc != 1 && argc != 3)
		return -EINVAL;
	l->cgroup = argc == 3;
	if (l->cgroup) {
		snprintf(l->buf, sizeof(l->buf), "%s/memory.current", argv[1]);
		l->thr = atoll(argv[2]);
	} else {
		snprintf(l->buf, sizeof(l->buf), "/proc/meminfo");
		l->thr = atoll(argv[0]);
	}
	l->fd = open(l->buf, O_RDONLY);
	if (l->fd < 0) {
		perror(l->buf);
		return -errno;
	}
	return 0;
}

/* One sample: *ret_used (KiB, rising towards the line: memory.current or
 * -MemAvailable), *ret_head (KiB left to the line, <= 0 past it).
 * Returns 0, or -1 when the file could not be read. */
static int line_read(struct line *l, long long *ret_used, long long *ret_head)
{
	if (slurp(l->fd, l->buf, sizeof(l->buf)) <= 0)
		return -1;
	if (l->cgroup) {
		long long cur = strtoll(l->buf, NULL, 10);
		*ret_used = cur / 1024;
		*ret_head = l->thr / 1024 - cur / 1024 - (cur >= l->thr ? 1 : 0);
	} else {
		long long avail = field_after(l->buf, "MemAvailable:");
		if (avail < 0)
			return -1;
		*ret_used = -avail;
		*ret_head = avail - l->thr + (avail < l->thr ? 0 : 1);
	}
	return 0;
}

/* absolute-time ticks; never catches up on missed samples */
static void tick(struct timespec *due, long interval_ns)
{
	due->tv_nsec += interval_ns;
	while (due->tv_nsec >= 1000000000L) {
		due->tv_sec++;
		due->tv_nsec -= 1000000000L;
	}
	struct timespec n;
	clock_gettime(CLOCK_MONOTONIC, &n);
	if (n.tv_sec > due->tv_sec || (n.tv_sec == due->tv_sec && n.tv_nsec > due->tv_nsec))
		*due = n;
	clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, due, NULL);
}

struct opts {
	long interval_ns;
	long long band_kb;
	const char *tool_pid;
	const char *stop_pid;
};

/* leading --interval-us N, --band-kb N, --tool-pid PID, --stop PID */
static int parse_opts(int *argc, char ***argv, struct opts *o)
{
	o->interval_ns = 1000000L;
	o->band_kb = 65536;
	o->tool_pid = NULL;
	o->stop_pid = NULL;
	while (*argc >= 2 && !strncmp((*argv)[0], "--", 2)) {
		const char *k = (*argv)[0], *v = (*argv)[1];
		if (!strcmp(k, "--interval-us"))
			o->interval_ns = atol(v) * 1000L;
		else if (!strcmp(k, "--band-kb"))
			o->band_kb = atoll(v);
		else if (!strcmp(k, "--tool-pid"))
			o->tool_pid = *v ? v : NULL;
		else if (!strcmp(k, "--stop"))
			o->stop_pid = *v ? v : NULL;
		else
			return -EINVAL;
		*argc -= 2;
		*argv += 2;
	}
	return o->interval_ns > 0 ? 0 : -EINVAL;
}

#define RING 512

static int cmd_mon(int argc, char **argv)
{
	struct opts o;
	struct line l;
	const char *out = argc > 2 ? argv[2] : "";
	argc -= 3;
	argv += 3;
	if (argc < 0 || parse_opts(&argc, &argv, &o) < 0 || line_open(&l, argc, argv) < 0) {
		fprintf(stderr, "usage: benchhelp mon OUT [--interval-us N] [--band-kb N] "
				"[--tool-pid PID] AVAIL_KB [CGROUP_DIR CURRENT_BYTES]\n");
		return 2;
	}
	char buf[512], line[256];
	int psi = open("/proc/pressure/memory", O_RDONLY);
	protect_self();
	handle(SIGTERM, on_term);
	handle(SIGINT, on_term);

	long long psi0 = -1, min_avail = -1, samples = 0, gap_max = 0;
	long long t_first = -1, t_prev = -1;
	int crossed = 0, psied = 0, banded = 0;
	static long long rt[RING], rv[RING]; /* time, used (KiB) */
	int rn = 0;
	struct timespec due;
	clock_gettime(CLOCK_MONOTONIC, &due);
	while (!got_term) {
		long long t = now_ns(), used, head;
		if (t_first < 0)
			t_first = t;
		long long gap = t_prev < 0 ? 0 : t - t_prev;
		if (gap > gap_max)
			gap_max = gap;
		t_prev = t;
		samples++;
		if (line_read(&l, &used, &head) == 0) {
			if (!l.cgroup && (min_avail < 0 || -used < min_avail))
				min_avail = -used;
			rt[rn % RING] = t;
			rv[rn % RING] = used;
			rn++;
			if (!banded && head <= o.band_kb) {
				banded = 1;
				long long c = o.tool_pid ? proc_cpu_ns(o.tool_pid) : -1;
				snprintf(line, sizeof(line), "band_ns %lld tool_cpu_ns %lld headroom_kb %lld\n",
					 t, c, head);
				append(out, line);
			}
			if (!crossed && head <= 0) {
				crossed = 1;
				/* growth over ~200 ms before the crossing */
				double rate = 0;
				int last = rn - 1;
				for (int k = 1; k < RING && k <= last; k++) {
					int i = (last - k) % RING;
					if (t - rt[i] >= 200000000LL || k == RING - 1 || k == last) {
						rate = (double)(used - rv[i]) / 1024.0 /
						       ((double)(t - rt[i]) / 1e9);
						break;
					}
				}
				snprintf(line, sizeof(line),
					 "cross_ns %lld rate_mibs %.0f avail_kb %lld gap_us %lld\n",
					 t, rate, l.cgroup ? -1 : -used, gap / 1000);
				append(out, line);
			}
		}
		/* PSI every 8th sample: the line's own file comes first */
		if (psi >= 0 && samples % 8 == 1 && slurp(psi, buf, sizeof(buf)) > 0) {
			char *f = strstr(buf, "full");
			long long tot = f ? field_after(f, "total=") : -1;
			if (psi0 < 0)
				psi0 = tot;
			else if (!psied && tot > psi0) {
				psied = 1;
				snprintf(line, sizeof(line), "psi_ns %lld\n", t);
				append(out, line);
			}
		}
		tick(&due, o.interval_ns);
	}
	snprintf(line, sizeof(line),
		 "end samples %lld span_ms %lld gap_max_us %lld self_cpu_ms %lld min_avail_kb %lld\n",
		 samples, (t_prev - t_first) / 1000000, gap_max / 1000,
		 proc_cpu_ns("self") / 1000000, min_avail);
	append(out, line);
	return 0;
}

/* the limit oracle: knows the victim, kills it at the first sample past
 * the line */
static int cmd_limit(int argc, char **argv)
{
	struct opts o;
	struct line l;
	const char *out = argc > 3 ? argv[2] : "", *pid = argc > 3 ? argv[3] : "";
	char line[256];
	argc -= 4;
	argv += 4;
	if (argc < 0 || parse_opts(&argc, &argv, &o) < 0 || line_open(&l, argc, argv) < 0) {
		fprintf(stderr, "usage: benchhelp limit OUT PID [--interval-us N] AVAIL_KB "
				"[CGROUP_DIR CURRENT_BYTES]\n");
		return 2;
	}
	int pfd = (int)syscall(SYS_pidfd_open, atoi(pid), 0);
	if (pfd < 0) {
		snprintf(line, sizeof(line), "gone %s\n", pid);
		append(out, line);
		return 1;
	}
	protect_self();
	handle(SIGTERM, on_term);
	snprintf(line, sizeof(line), "armed %s\n", pid);
	append(out, line);
	struct timespec due;
	clock_gettime(CLOCK_MONOTONIC, &due);
	while (!got_term) {
		long long t = now_ns(), used, head;
		if (line_read(&l, &used, &head) == 0 && head <= 0) {
			int r = (int)syscall(SYS_pidfd_send_signal, pfd, SIGKILL, NULL, 0);
			long long t2 = now_ns();
			snprintf(line, sizeof(line), "%s %s cross_ns %lld sent_ns %lld\n",
				 r == 0 ? "killed" : "kill-failed", pid, t, t2);
			append(out, line);
			while (!got_term) /* stay, so its CPU time can be read */
				pause();
			return r == 0 ? 0 : 1;
		}
		struct pollfd pf = { .fd = pfd, .events = POLLIN };
		if (poll(&pf, 1, 0) > 0) {
			snprintf(line, sizeof(line), "gone %s\n", pid);
			append(out, line);
			return 0;
		}
		tick(&due, o.interval_ns);
	}
	return 0;
}

static int cmd_watch(int argc, char **argv)
{
	struct opts o;
	const char *out = argc > 2 ? argv[2] : "";
	argc -= 3;
	argv += 3;
	if (argc < 1 || parse_opts(&argc, &argv, &o) < 0 || argc < 1) {
		fprintf(stderr, "usage: benchhelp watch OUT [--tool-pid PID] [--stop PID] PID...\n");
		return 2;
	}
	int n = argc, alive = 0, first = 1;
	struct pollfd *pf = calloc((size_t)n, sizeof(*pf));
	char line[128];
	if (!pf)
		return 1;
	protect_self();
	handle(SIGTERM, on_term);
	int stopfd = o.stop_pid ? (int)syscall(SYS_pidfd_open, atoi(o.stop_pid), 0) : -1;
	for (int i = 0; i < n; i++) {
		int pid = atoi(argv[i]);
		pf[i].fd = (int)syscall(SYS_pidfd_open, pid, 0);
		pf[i].events = POLLIN;
		if (pf[i].fd < 0) {
			snprintf(line, sizeof(line), "gone %d\n", pid);
			append(out, line);
		} else
			alive++;
	}
	append(out, "watching\n");
	while (alive > 0 && !got_term) {
		int r = poll(pf, (nfds_t)n, -1);
		long long t = now_ns();
		if (r < 0) {
			if (errno == EINTR)
				continue;
			return 1;
		}
		int died = 0;
		for (int i = 0; i < n; i++) {
			if (pf[i].fd >= 0 && (pf[i].revents & (POLLIN | POLLHUP | POLLERR))) {
				snprintf(line, sizeof(line), "dead %s %lld\n", argv[i], t);
				append(out, line);
				close(pf[i].fd);
				pf[i].fd = -1;
				alive--;
				died = 1;
			}
		}
		if (died && first) {
			first = 0;
			if (stopfd >= 0)
				syscall(SYS_pidfd_send_signal, stopfd, SIGSTOP, NULL, 0);
			if (o.tool_pid) {
				snprintf(line, sizeof(line), "tool_cpu_ns %lld %lld\n",
					 proc_cpu_ns(o.tool_pid), t);
				append(out, line);
			}
		}
	}
	return 0;
}

static int cmd_probe(int argc, char **argv)
{
	if (argc != 3) {
		fprintf(stderr, "usage: benchhelp probe OUT\n");
		return 2;
	}
	const char *out = argv[2];
	long long worst = 0, seq = 0;
	char line[128];
	handle(SIGUSR1, on_usr1);
	handle(SIGTERM, on_term);
	append(out, "probe ready\n");
	while (!got_term) {
		long long due = now_ns() + 10000000LL;
		struct timespec d = { 0, 10000000L };
		while (nanosleep(&d, &d) < 0 && errno == EINTR && !got_term)
			;
		long long late = now_ns() - due;
		if (late > worst)
			worst = late;
		unsigned char *p = mmap(NULL, 65536, PROT_READ | PROT_WRITE,
					MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (p != MAP_FAILED) {
			for (int o = 0; o < 65536; o += 4096)
				p[o] = (unsigned char)(o | 1);
			munmap(p, 65536);
		}
		if (got_usr1) {
			got_usr1 = 0;
			snprintf(line, sizeof(line), "worst_us %lld seq %lld\n", worst / 1000, ++seq);
			append(out, line);
			worst = 0;
		}
	}
	return 0;
}

static int cmd_cpu(int argc, char **argv)
{
	if (argc != 3)
		return 2;
	char path[64], buf[4096];
	snprintf(path, sizeof(path), "/proc/%s/stat", argv[2]);
	int fd = open(path, O_RDONLY);
	if (fd < 0 || slurp(fd, buf, sizeof(buf)) <= 0) {
		perror(path);
		return 1;
	}
	close(fd);
	char *p = strrchr(buf, ')');
	if (!p)
		return 1;
	/* after ") ": state(3) ... utime is field 14, stime 15 */
	unsigned long long ut = 0, st = 0;
	int field = 2;
	for (char *q = p + 1; *q; q++) {
		if (*q == ' ') {
			field++;
			if (field == 14)
				ut = strtoull(q + 1, NULL, 10);
			else if (field == 15) {
				st = strtoull(q + 1, NULL, 10);
				break;
			}
		}
	}
	long hz = sysconf(_SC_CLK_TCK);
	if (hz <= 0)
		hz = 100;
	snprintf(path, sizeof(path), "/proc/%s/status", argv[2]);
	fd = open(path, O_RDONLY);
	long long rss = -1;
	if (fd >= 0 && slurp(fd, buf, sizeof(buf)) > 0)
		rss = field_after(buf, "VmRSS:");
	if (fd >= 0)
		close(fd);
	long long slices;
	long long ns = proc_cpu_ns_slices(argv[2], &slices);
	printf("cpu_ms %llu rss_kb %lld cpu_ns %lld slices %lld\n", (ut + st) * 1000ULL / (unsigned long long)hz,
	       rss, ns, slices);
	return 0;
}

static void churn_report(const char *out, long long made, long long removed, long long failed,
			 long long behind_ns, bool done)
{
	FILE *f = fopen(out, "a");
	if (!f)
		return;
	fprintf(f, "made %lld removed %lld failed %lld behind_ms %lld%s\n", made, removed, failed,
		behind_ns / 1000000, done ? " done" : "");
	fclose(f);
}

static int cmd_churn(int argc, char **argv)
{
	if (argc != 8)
		return 2;
	const char *out = argv[2], *dir = argv[3], *limit = argv[7];
	double rate = atof(argv[4]);
	long long secs = atoll(argv[5]), keep = atoll(argv[6]);
	if (rate <= 0 || secs <= 0 || keep < 0) {
		fprintf(stderr, "benchhelp churn: RATE and SECS must be > 0, KEEP >= 0\n");
		return 2;
	}
	handle(SIGTERM, on_term);
	long long t0 = now_ns(), end = t0 + secs * 1000000000LL, next_report = t0 + 1000000000LL;
	long long made = 0, removed = 0, failed = 0, behind = 0;
	size_t llen = strlen(limit);
	char path[4096];
	while (!got_term) {
		long long now = now_ns();
		if (now >= end)
			break;
		/* the ones due by now on the schedule t0 + i / rate */
		long long due = (long long)((double)(now - t0) / 1e9 * rate) + 1;
		if (made < due)
			behind = now - (t0 + (long long)((double)made / rate * 1e9));
		for (; made < due && !got_term; made++) {
			snprintf(path, sizeof(path), "%s/x%lld", dir, made);
			if (mkdir(path, 0755) < 0) {
				failed++;
				continue;
			}
			snprintf(path, sizeof(path), "%s/x%lld/memory.max", dir, made);
			int fd = open(path, O_WRONLY);
			if (fd < 0 || write(fd, limit, llen) != (ssize_t)llen)
				failed++;
			if (fd >= 0)
				close(fd);
			if (made >= keep) {
				snprintf(path, sizeof(path), "%s/x%lld", dir, made - keep);
				if (rmdir(path) == 0)
					removed++;
				else
					failed++;
			}
		}
		if (now >= next_report) {
			churn_report(out, made, removed, failed, behind, false);
			next_report += 1000000000LL;
		}
		struct timespec ts = { 0, 20 * 1000000L };
		nanosleep(&ts, NULL);
	}
	churn_report(out, made, removed, failed, behind, true);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc >= 2 && !strcmp(argv[1], "now")) {
		printf("%lld\n", now_ns());
		return 0;
	}
	if (argc >= 2 && !strcmp(argv[1], "mon"))
		return cmd_mon(argc, argv);
	if (argc >= 2 && !strcmp(argv[1], "limit"))
		return cmd_limit(argc, argv);
	if (argc >= 2 && !strcmp(argv[1], "watch"))
		return cmd_watch(argc, argv);
	if (argc >= 2 && !strcmp(argv[1], "probe"))
		return cmd_probe(argc, argv);
	if (argc >= 2 && !strcmp(argv[1], "cpu"))
		return cmd_cpu(argc, argv);
	if (argc >= 2 && !strcmp(argv[1], "churn"))
		return cmd_churn(argc, argv);
	fprintf(stderr, "usage: benchhelp now|mon|limit|watch|probe|cpu|churn ...\n");
	return 2;
}
