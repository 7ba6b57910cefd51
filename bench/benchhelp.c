/* benchhelp: small measuring tools for bench/run, inside the QEMU guest.
 *
 *   benchhelp now
 *       print CLOCK_MONOTONIC in ns
 *   benchhelp mon OUT AVAIL_KB [CGROUP_DIR CURRENT_BYTES]
 *       every 10 ms sample /proc/meminfo (MemAvailable), the "full" total
 *       of /proc/pressure/memory and, with CGROUP_DIR, its memory.current;
 *       the first time MemAvailable < AVAIL_KB (or memory.current >=
 *       CURRENT_BYTES with a cgroup) write "cross_ns T rate_mibs R" to OUT,
 *       where R is the growth rate over the 200 ms before the crossing;
 *       the first time PSI full total rises write "psi_ns T". On SIGTERM
 *       append "min_avail_kb N samples N" and exit.
 *   benchhelp watch OUT PID...
 *       open a pidfd for each PID, poll them, append "dead PID T" to OUT
 *       (T = CLOCK_MONOTONIC ns) for each exit; ends when all are dead or
 *       on SIGTERM.
 *   benchhelp probe OUT
 *       the innocent interactive process: sleeps 10 ms in a loop, and on
 *       each wakeup maps, touches and unmaps 64 KiB (so it meets the page
 *       allocator as an interactive program does); records the worst
 *       wakeup latency (actual wakeup minus due time). SIGUSR1 appends
 *       "worst_us N seq K" to OUT and resets the worst.
 *   benchhelp cpu PID
 *       print "cpu_ms N rss_kb N" (utime+stime of /proc/PID/stat, VmRSS)
 *
 * The monitor and the watcher mlockall and set oom_score_adj -1000, so
 * they neither stall on their own page faults nor get killed. The probe
 * does neither: it is a bystander.
 *
 * Built static by bench/run. */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#ifndef SYS_pidfd_open
#define SYS_pidfd_open 434
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

static void protect_self(void)
{
	int fd = open("/proc/self/oom_score_adj", O_WRONLY);
	if (fd >= 0) {
		if (write(fd, "-1000", 5) < 0) { /* best effort */ }
		close(fd);
	}
	mlockall(MCL_CURRENT | MCL_FUTURE);
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

#define RING 32

static int cmd_mon(int argc, char **argv)
{
	if (argc != 4 && argc != 6) {
		fprintf(stderr, "usage: benchhelp mon OUT AVAIL_KB [CGROUP_DIR CURRENT_BYTES]\n");
		return 2;
	}
	const char *out = argv[2];
	long long thr_kb = atoll(argv[3]);
	long long thr_cur = argc == 6 ? atoll(argv[5]) : 0;
	char buf[8192], line[256];
	int mi = open("/proc/meminfo", O_RDONLY);
	int psi = open("/proc/pressure/memory", O_RDONLY);
	int cur = -1;
	if (argc == 6) {
		snprintf(buf, sizeof(buf), "%s/memory.current", argv[4]);
		cur = open(buf, O_RDONLY);
		if (cur < 0) {
			perror(buf);
			return 1;
		}
	}
	if (mi < 0) {
		perror("/proc/meminfo");
		return 1;
	}
	protect_self();
	handle(SIGTERM, on_term);
	handle(SIGINT, on_term);

	long long psi0 = -1, min_avail = -1, samples = 0;
	int crossed = 0, psied = 0;
	long long rt[RING], rv[RING]; /* time, value (KiB used-ish, rising) */
	int rn = 0;
	struct timespec due;
	clock_gettime(CLOCK_MONOTONIC, &due);
	while (!got_term) {
		long long t = now_ns();
		long long avail = -1, val;
		if (slurp(mi, buf, sizeof(buf)) > 0)
			avail = field_after(buf, "MemAvailable:");
		samples++;
		if (avail >= 0 && (min_avail < 0 || avail < min_avail))
			min_avail = avail;
		if (cur >= 0) {
			val = -1;
			if (slurp(cur, buf, sizeof(buf)) > 0)
				val = strtoll(buf, NULL, 10) / 1024; /* KiB, rising */
		} else {
			val = avail >= 0 ? -avail : -1; /* falling avail -> rising */
		}
		if (val != -1) {
			rt[rn % RING] = t;
			rv[rn % RING] = val;
			rn++;
		}
		if (!crossed && val != -1 &&
		    (cur >= 0 ? val * 1024 >= thr_cur : avail < thr_kb)) {
			crossed = 1;
			/* rate over ~200 ms before the crossing */
			double rate = 0;
			int last = rn - 1;
			for (int k = 1; k < RING && k <= last; k++) {
				int i = (last - k) % RING;
				if (t - rt[i] >= 200000000LL || k == RING - 1 || k == last) {
					rate = (double)(rv[last % RING] - rv[i]) / 1024.0 /
					       ((double)(t - rt[i]) / 1e9);
					if (t - rt[i] >= 200000000LL)
						break;
				}
			}
			snprintf(line, sizeof(line), "cross_ns %lld rate_mibs %.0f avail_kb %lld\n", t, rate, avail);
			append(out, line);
		}
		if (psi >= 0 && slurp(psi, buf, sizeof(buf)) > 0) {
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
		due.tv_nsec += 10000000L;
		if (due.tv_nsec >= 1000000000L) {
			due.tv_sec++;
			due.tv_nsec -= 1000000000L;
		}
		/* never try to catch up on missed samples */
		struct timespec n;
		clock_gettime(CLOCK_MONOTONIC, &n);
		if (n.tv_sec > due.tv_sec || (n.tv_sec == due.tv_sec && n.tv_nsec > due.tv_nsec))
			due = n;
		clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &due, NULL);
	}
	snprintf(line, sizeof(line), "min_avail_kb %lld samples %lld\n", min_avail, samples);
	append(out, line);
	return 0;
}

static int cmd_watch(int argc, char **argv)
{
	if (argc < 4) {
		fprintf(stderr, "usage: benchhelp watch OUT PID...\n");
		return 2;
	}
	const char *out = argv[2];
	int n = argc - 3, alive = 0;
	struct pollfd *pf = calloc((size_t)n, sizeof(*pf));
	char line[128];
	if (!pf)
		return 1;
	protect_self();
	handle(SIGTERM, on_term);
	for (int i = 0; i < n; i++) {
		int pid = atoi(argv[3 + i]);
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
		for (int i = 0; i < n; i++) {
			if (pf[i].fd >= 0 && (pf[i].revents & (POLLIN | POLLHUP | POLLERR))) {
				snprintf(line, sizeof(line), "dead %s %lld\n", argv[3 + i], t);
				append(out, line);
				close(pf[i].fd);
				pf[i].fd = -1;
				alive--;
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
	printf("cpu_ms %llu rss_kb %lld\n", (ut + st) * 1000ULL / (unsigned long long)hz, rss);
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
	if (argc >= 2 && !strcmp(argv[1], "watch"))
		return cmd_watch(argc, argv);
	if (argc >= 2 && !strcmp(argv[1], "probe"))
		return cmd_probe(argc, argv);
	if (argc >= 2 && !strcmp(argv[1], "cpu"))
		return cmd_cpu(argc, argv);
	fprintf(stderr, "usage: benchhelp now|mon|watch|probe|cpu ...\n");
	return 2;
}
