/* probe: the interactive program of the swap test bed, a person's view
 * of the machine.
 *
 *   probe run OUT [--ws MIB] [--min-ms MS] [--max-ms MS] [--hot KIB]
 *                 [--hot-ms MS] [--seed N]
 *       Two threads, recording every round:
 *       - cold: a working set of --ws MiB (default 64) touched at a
 *         person's pace: every --min-ms..--max-ms (500..2000, drawn at
 *         random), read every page and write every fourth; between
 *         touches its pages go cold, as a shell's or a browser tab's do.
 *         A round's latency: from when it was due to the last page
 *         touched. Appends "c DUE_MS LAT_US" for every round.
 *       - hot: every --hot-ms (10) touch a --hot KiB (256) set and map,
 *         touch and unmap 64 KiB (so it meets the page allocator, as an
 *         interactive program does). Latency: due to done. Appends
 *         "h DUE_MS LAT_US" for a round of 20 ms or more, and once a
 *         second "H DUE_MS ROUNDS WORST_US" for the rounds of that second.
 *       DUE_MS is CLOCK_MONOTONIC in ms, the clock of `benchhelp now` and
 *       of the recorder's marks. A round over 100 ms is a stall a person
 *       sees. The first line is "ready PID"; it never protects itself
 *       (no mlock, no priority): it is a bystander. Its pages carry the
 *       content of tests/vm/workload.c's kind (about 2.5:1 in zram).
 *   probe canary OUT [--period-ms MS] [--gap-ms MS]
 *       The guest's own clock of whether it runs at all: one thread per
 *       CPU it may use, pinned there, SCHED_FIFO at the top priority,
 *       its memory locked (it never waits for a page) and oom_score_adj
 *       -1000 (where it may: a warning otherwise), waking every --period-ms (10). A wake-up late by --gap-ms
 *       (20) or more means that CPU ran nothing else for that long, not
 *       even the top real-time task: the virtual CPU was not run by the
 *       host, or the kernel held it without a preemption point. Appends "g CPU DUE_MS
 *       LATE_US" for each such gap; the first line is "ready PID NCPU".
 *       It names itself "canary" (comm), apart from the probe.
 *       A thread without real-time priority writes the file, so a write
 *       that waits for memory never delays a wake-up. Needs
 *       CAP_SYS_NICE and CAP_IPC_LOCK (root in the guest); exits 1
 *       naming what it could not have.
 *   probe report OUT FROM_MS TO_MS [CANARY]
 *       prints, for the rounds due in [FROM_MS, TO_MS):
 *       "rounds N stalls K cold_stalls K1 hot_stalls K2 worst_ms W
 *        first_stall_ms F"  (F: when the first stall was due, relative to
 *       FROM_MS; -1 if none). TO_MS 0: to the end of the file. With
 *       CANARY (a `probe canary` file) it goes on
 *       " stopped_stalls S cpu_stopped_stalls C guest_stops G
 *        guest_stop_ms T": S of the stalls spent half their time or
 *       more with every CPU of the guest stopped (the canary late on all
 *       of them: the guest not run), C with at least one CPU stopped
 *       (the probe's among them or not: an upper bound); G stand-stills
 *       of the whole guest overlapping the window, T ms of them in it.
 *   probe now
 *       print CLOCK_MONOTONIC in ms (the clock of DUE_MS)
 *   probe relief OUT FROM_MS
 *       the end (due + latency, ms) of the first cold round due at or
 *       after FROM_MS that took under 100 ms and after which no round
 *       (hot or cold) due within 2 s took 100 ms or more, the record
 *       going on past those 2 s; -1 if none.
 *
 * Built static by tests/vm/run, tests/vm/systemd/run and bench/. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <time.h>
#include <unistd.h>

#define PAGE 4096UL
#define STALL_US 100000LL

static int out_fd = -1;

static long long now_us(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (long long)t.tv_sec * 1000000LL + t.tv_nsec / 1000L;
}

static void sleep_until_us(long long us)
{
	struct timespec ts = { .tv_sec = us / 1000000LL, .tv_nsec = (us % 1000000LL) * 1000L };
	while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
		;
}

static uint64_t xs(uint64_t *s)
{
	uint64_t x = *s;
	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	return *s = x;
}

static void emit(const char *line)
{
	size_t n = strlen(line);
	if (write(out_fd, line, n) != (ssize_t)n) { /* best effort: a full disk ends nothing */ }
}

/* page content as in workload.c, simpler: a text-ish half and a random
 * quarter, so zram neither drops it as same-filled nor stores it raw */
static void fill(unsigned char *p, size_t len, uint64_t seed)
{
	static const char text[] = "<div class=\"tab\"><span>memory pressure</span> return 0; ";
	for (size_t o = 0; o < len; o += PAGE) {
		uint64_t s = (seed + o) | 1;
		for (size_t i = 0; i < PAGE / 2; i++)
			p[o + i] = (unsigned char)text[(i + (o >> 12)) % (sizeof(text) - 1)];
		for (size_t i = PAGE / 2; i < PAGE * 3 / 4; i += 8) {
			uint64_t r = xs(&s);
			memcpy(p + o + i, &r, 8);
		}
		memset(p + o + PAGE * 3 / 4, 0, PAGE / 4);
		p[o + PAGE - 1] = (unsigned char)(o >> 12);
	}
}

struct conf {
	size_t ws, hot;
	long long min_us, max_us, hot_us;
	uint64_t seed;
};

static void *cold_thread(void *arg)
{
	const struct conf *c = arg;
	unsigned char *p = mmap(NULL, c->ws, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	volatile unsigned char sink = 0;
	(void)sink; /* read for its page faults only */
	uint64_t s = c->seed | 1;
	char line[96];
	if (p == MAP_FAILED) {
		emit("error cold mmap\n");
		return NULL;
	}
	fill(p, c->ws, c->seed);
	long long due = now_us();
	for (unsigned long round = 1;; round++) {
		due += c->min_us + (long long)(xs(&s) % (uint64_t)(c->max_us - c->min_us + 1));
		sleep_until_us(due);
		for (size_t o = 0, i = 0; o < c->ws; o += PAGE, i++) {
			sink ^= p[o + (i * 64) % PAGE];
			if (i % 4 == 0)
				p[o + 16] = (unsigned char)(round | 1);
		}
		long long lat = now_us() - due;
		snprintf(line, sizeof(line), "c %lld %lld\n", due / 1000, lat);
		emit(line);
		/* a round that overran starts the next pause from now */
		if (now_us() > due)
			due = now_us();
	}
	return NULL;
}

static void hot_loop(const struct conf *c)
{
	unsigned char *hot = mmap(NULL, c->hot, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	long long due = now_us(), sec_start = due, worst = 0, rounds = 0;
	char line[96];
	if (hot == MAP_FAILED) {
		emit("error hot mmap\n");
		return;
	}
	fill(hot, c->hot, c->seed ^ 0xfeed);
	for (;;) {
		due += c->hot_us;
		sleep_until_us(due);
		for (size_t o = 0; o < c->hot; o += PAGE)
			hot[o + 32]++;
		unsigned char *m = mmap(NULL, 65536, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (m != MAP_FAILED) {
			for (size_t o = 0; o < 65536; o += PAGE)
				m[o] = (unsigned char)(o | 1);
			munmap(m, 65536);
		}
		long long t = now_us(), lat = t - due;
		rounds++;
		if (lat > worst)
			worst = lat;
		if (lat >= 20000) {
			snprintf(line, sizeof(line), "h %lld %lld\n", due / 1000, lat);
			emit(line);
		}
		if (t - sec_start >= 1000000) {
			snprintf(line, sizeof(line), "H %lld %lld %lld\n", sec_start / 1000, rounds, worst);
			emit(line);
			sec_start = t;
			rounds = 0;
			worst = 0;
		}
		/* missed ticks are not made up: the next is due a period from now */
		if (t > due)
			due = t;
	}
}

static long long arg_num(const char *s)
{
	char *end;
	long long v;
	errno = 0;
	v = strtoll(s ? s : "", &end, 10);
	if (!s || !*s || errno || *end || v < 0) {
		fprintf(stderr, "probe: bad number '%s'\n", s ? s : "");
		exit(2);
	}
	return v;
}

static int cmd_run(int argc, char **argv)
{
	struct conf c = { 64UL << 20, 256UL << 10, 500000, 2000000, 10000, 0 };
	pthread_t th;
	char line[64];
	c.seed = (uint64_t)getpid() * 2654435761ULL;
	for (int i = 3; i + 1 < argc; i += 2) {
		long long v = arg_num(argv[i + 1]);
		if (!strcmp(argv[i], "--ws"))
			c.ws = (size_t)v << 20;
		else if (!strcmp(argv[i], "--min-ms"))
			c.min_us = v * 1000;
		else if (!strcmp(argv[i], "--max-ms"))
			c.max_us = v * 1000;
		else if (!strcmp(argv[i], "--hot"))
			c.hot = (size_t)v << 10;
		else if (!strcmp(argv[i], "--hot-ms"))
			c.hot_us = v * 1000;
		else if (!strcmp(argv[i], "--seed"))
			c.seed = (uint64_t)v;
		else {
			fprintf(stderr, "probe: unknown option %s\n", argv[i]);
			return 2;
		}
	}
	if (!c.ws || !c.hot || c.min_us > c.max_us || !c.hot_us) {
		fprintf(stderr, "probe: bad sizes or periods\n");
		return 2;
	}
	out_fd = open(argv[2], O_WRONLY | O_CREAT | O_APPEND, 0644);
	if (out_fd < 0) {
		perror(argv[2]);
		return 1;
	}
	snprintf(line, sizeof(line), "ready %ld\n", (long)getpid());
	emit(line);
	if (pthread_create(&th, NULL, cold_thread, &c)) {
		perror("pthread_create");
		return 1;
	}
	hot_loop(&c);
	return 1;
}

/* --- the canary --------------------------------------------------------- */

#define CANARY_RING 4096

struct gap {
	int cpu;
	long long due_us, late_us;
};

static struct {
	pthread_mutex_t lock;
	struct gap ring[CANARY_RING];
	unsigned long head, tail, lost;
	long long period_us, gap_us;
} cn = { .lock = PTHREAD_MUTEX_INITIALIZER };

struct canary_cpu {
	pthread_t th;
	int cpu;
};

static void *canary_thread(void *arg)
{
	const struct canary_cpu *me = arg;
	long long due = now_us();
	for (;;) {
		due += cn.period_us;
		sleep_until_us(due);
		long long t = now_us(), late = t - due;
		if (late >= cn.gap_us) {
			/* no write here: a write may wait for memory */
			pthread_mutex_lock(&cn.lock);
			if (cn.head - cn.tail < CANARY_RING)
				cn.ring[cn.head++ % CANARY_RING] = (struct gap){ me->cpu, due, late };
			else
				cn.lost++;
			pthread_mutex_unlock(&cn.lock);
		}
		if (t > due)
			due = t;
	}
	return NULL;
}

static int cmd_canary(int argc, char **argv)
{
	cpu_set_t set;
	int ncpu = 0;
	cn.period_us = 10000;
	cn.gap_us = 20000;
	for (int i = 3; i + 1 < argc; i += 2) {
		long long v = arg_num(argv[i + 1]);
		if (!strcmp(argv[i], "--period-ms"))
			cn.period_us = v * 1000;
		else if (!strcmp(argv[i], "--gap-ms"))
			cn.gap_us = v * 1000;
		else {
			fprintf(stderr, "probe: unknown option %s\n", argv[i]);
			return 2;
		}
	}
	if (!cn.period_us || cn.gap_us < cn.period_us) {
		fprintf(stderr, "probe: the period must be over 0 and the gap at least the period\n");
		return 2;
	}
	/* named apart from the probe it watches, in ps and in a trace (its
	 * threads take the name when they are made) */
	if (prctl(PR_SET_NAME, "canary", 0, 0, 0))
		perror("probe canary: naming itself (going on)");
	out_fd = open(argv[2], O_WRONLY | O_CREAT | O_APPEND, 0644);
	if (out_fd < 0) {
		perror(argv[2]);
		return 1;
	}
	/* never a victim (it holds well under a MiB); without the right
	 * to ask for that it still measures, and says so */
	int adj = open("/proc/self/oom_score_adj", O_WRONLY);
	if (adj < 0 || write(adj, "-1000", 5) != 5)
		fprintf(stderr, "probe canary: oom_score_adj -1000: %s (going on)\n", strerror(errno));
	if (adj >= 0)
		close(adj);
	if (sched_getaffinity(0, sizeof(set), &set)) {
		perror("sched_getaffinity");
		return 1;
	}
	struct canary_cpu cpus[CPU_SETSIZE];
	pthread_attr_t at;
	struct sched_param sp = { .sched_priority = sched_get_priority_max(SCHED_FIFO) };
	pthread_attr_init(&at);
	pthread_attr_setstacksize(&at, 64UL << 10);
	pthread_attr_setinheritsched(&at, PTHREAD_EXPLICIT_SCHED);
	pthread_attr_setschedpolicy(&at, SCHED_FIFO);
	pthread_attr_setschedparam(&at, &sp);
	/* locked before the threads start: their stacks are locked too */
	if (mlockall(MCL_CURRENT | MCL_FUTURE)) {
		perror("probe canary: mlockall");
		return 1;
	}
	for (int c = 0; c < CPU_SETSIZE; c++) {
		if (!CPU_ISSET(c, &set))
			continue;
		cpu_set_t one;
		CPU_ZERO(&one);
		CPU_SET(c, &one);
		cpus[ncpu].cpu = c;
		int e = pthread_attr_setaffinity_np(&at, sizeof(one), &one);
		if (!e)
			e = pthread_create(&cpus[ncpu].th, &at, canary_thread, &cpus[ncpu]);
		if (e) {
			fprintf(stderr, "probe canary: a SCHED_FIFO thread on CPU %d: %s\n", c, strerror(e));
			return 1;
		}
		ncpu++;
	}
	char line[96];
	snprintf(line, sizeof(line), "ready %ld %d\n", (long)getpid(), ncpu);
	emit(line);
	/* this thread (no real-time priority) writes the gaps down */
	for (;;) {
		struct gap g[64];
		unsigned long n = 0, lost;
		sleep_until_us(now_us() + 200000);
		pthread_mutex_lock(&cn.lock);
		while (cn.tail != cn.head && n < 64)
			g[n++] = cn.ring[cn.tail++ % CANARY_RING];
		lost = cn.lost;
		cn.lost = 0;
		pthread_mutex_unlock(&cn.lock);
		for (unsigned long i = 0; i < n; i++) {
			snprintf(line, sizeof(line), "g %d %lld %lld\n", g[i].cpu, g[i].due_us / 1000, g[i].late_us);
			emit(line);
		}
		if (lost) {
			snprintf(line, sizeof(line), "lost %lu\n", lost);
			emit(line);
		}
	}
	return 1;
}

/* --- analysis ----------------------------------------------------------- */

struct round {
	char kind;              /* c: cold, h: a slow hot round, H: a second of hot rounds */
	long long due_ms, lat_us;
	long long count;        /* H: how many hot rounds that second */
};

static struct round *load(const char *path, size_t *ret_n)
{
	FILE *f = fopen(path, "r");
	struct round *r = NULL;
	size_t n = 0, cap = 0;
	char line[160];
	if (!f) {
		perror(path);
		exit(1);
	}
	while (fgets(line, sizeof(line), f)) {
		struct round x = { line[0], 0, 0, 1 };
		if (line[0] == 'H') {
			if (sscanf(line + 1, "%lld %lld %lld", &x.due_ms, &x.count, &x.lat_us) != 3)
				continue;
		} else if (line[0] == 'c' || line[0] == 'h') {
			if (sscanf(line + 1, "%lld %lld", &x.due_ms, &x.lat_us) != 2)
				continue;
		} else
			continue;
		if (n == cap) {
			cap = cap ? cap * 2 : 1024;
			r = realloc(r, cap * sizeof(*r));
			if (!r)
				exit(1);
		}
		r[n++] = x;
	}
	fclose(f);
	*ret_n = n;
	return r;
}

/* intervals [a, b) in us, sorted and disjoint once merged */
struct span {
	long long a, b;
};

static int span_cmp(const void *x, const void *y)
{
	const struct span *p = x, *q = y;
	return p->a < q->a ? -1 : p->a > q->a;
}

static size_t spans_merge(struct span *s, size_t n)
{
	size_t m = 0;
	qsort(s, n, sizeof(*s), span_cmp);
	for (size_t i = 0; i < n; i++) {
		if (m && s[i].a <= s[m - 1].b) {
			if (s[i].b > s[m - 1].b)
				s[m - 1].b = s[i].b;
		} else
			s[m++] = s[i];
	}
	return m;
}

/* the intersection of two merged lists, into out (room for na + nb) */
static size_t spans_and(const struct span *x, size_t nx, const struct span *y, size_t ny, struct span *out)
{
	size_t i = 0, k = 0, n = 0;
	while (i < nx && k < ny) {
		long long a = x[i].a > y[k].a ? x[i].a : y[k].a;
		long long b = x[i].b < y[k].b ? x[i].b : y[k].b;
		if (a < b)
			out[n++] = (struct span){ a, b };
		if (x[i].b < y[k].b)
			i++;
		else
			k++;
	}
	return n;
}

static long long spans_overlap(const struct span *s, size_t n, long long a, long long b)
{
	long long t = 0;
	for (size_t i = 0; i < n && s[i].a < b; i++) {
		long long x = s[i].a > a ? s[i].a : a, y = s[i].b < b ? s[i].b : b;
		if (y > x)
			t += y - x;
	}
	return t;
}

/* a canary file: its gaps merged per CPU into all (any CPU stopped) and
 * every (every CPU stopped: the whole guest) */
struct stops {
	struct span *any, *every;
	size_t nany, nevery;
	long long lost;
};

static void load_canary(const char *path, struct stops *st)
{
	FILE *f = fopen(path, "r");
	char line[160];
	int ncpu = -1;
	struct span *per[CPU_SETSIZE] = { 0 };
	size_t nper[CPU_SETSIZE] = { 0 }, total = 0;
	int cpus[CPU_SETSIZE], nseen = 0;
	memset(st, 0, sizeof(*st));
	if (!f) {
		perror(path);
		exit(1);
	}
	while (fgets(line, sizeof(line), f)) {
		long long due, late, lost;
		long pid;
		int cpu, nc;
		if (sscanf(line, "ready %ld %d", &pid, &nc) == 2)
			ncpu = nc;
		else if (sscanf(line, "lost %lld", &lost) == 1)
			st->lost += lost;
		else if (sscanf(line, "g %d %lld %lld", &cpu, &due, &late) == 3 && cpu >= 0 && cpu < CPU_SETSIZE && late > 0) {
			if (!nper[cpu])
				cpus[nseen++] = cpu;
			per[cpu] = realloc(per[cpu], (nper[cpu] + 1) * sizeof(struct span));
			if (!per[cpu])
				exit(1);
			per[cpu][nper[cpu]++] = (struct span){ due * 1000, due * 1000 + late };
			total++;
		}
	}
	fclose(f);
	if (ncpu < 1) {
		fprintf(stderr, "probe: %s is not a canary file (no \"ready PID NCPU\" line)\n", path);
		exit(1);
	}
	st->any = calloc(total + 1, sizeof(struct span));
	if (!st->any)
		exit(1);
	for (int i = 0; i < nseen; i++) {
		nper[cpus[i]] = spans_merge(per[cpus[i]], nper[cpus[i]]);
		memcpy(st->any + st->nany, per[cpus[i]], nper[cpus[i]] * sizeof(struct span));
		st->nany += nper[cpus[i]];
	}
	st->nany = spans_merge(st->any, st->nany);
	/* the whole guest stopped: a gap on every CPU it has at once (none
	 * while some CPU never had one) */
	st->every = calloc(total + 1, sizeof(struct span));
	if (!st->every)
		exit(1);
	if (nseen == ncpu) {
		memcpy(st->every, per[cpus[0]], nper[cpus[0]] * sizeof(struct span));
		st->nevery = nper[cpus[0]];
		for (int i = 1; i < nseen; i++) {
			struct span *tmp = calloc(st->nevery + nper[cpus[i]] + 1, sizeof(struct span));
			if (!tmp)
				exit(1);
			st->nevery = spans_and(st->every, st->nevery, per[cpus[i]], nper[cpus[i]], tmp);
			memcpy(st->every, tmp, st->nevery * sizeof(struct span));
			free(tmp);
		}
	}
	for (int i = 0; i < nseen; i++)
		free(per[cpus[i]]);
}

static int cmd_report(int argc, char **argv)
{
	if (argc != 5 && argc != 6)
		return 2;
	long long from = arg_num(argv[3]), to = arg_num(argv[4]);
	long long rounds = 0, cold = 0, hot = 0, worst = 0, first = -1, stopped = 0, cpu_stopped = 0;
	size_t n;
	struct round *r = load(argv[2], &n);
	struct stops st = { 0 };
	if (argc == 6)
		load_canary(argv[5], &st);
	for (size_t i = 0; i < n; i++) {
		if (r[i].due_ms < from || (to && r[i].due_ms >= to))
			continue;
		/* hot rounds are counted by the seconds' summaries, and the
		 * slow ones by their own "h" lines */
		if (r[i].kind == 'H') {
			rounds += r[i].count;
			continue;
		}
		if (r[i].kind == 'c')
			rounds++;
		if (r[i].lat_us > worst)
			worst = r[i].lat_us;
		if (r[i].lat_us >= STALL_US) {
			long long a = r[i].due_ms * 1000, b = a + r[i].lat_us;
			if (r[i].kind == 'c')
				cold++;
			else
				hot++;
			if (first < 0 || r[i].due_ms - from < first)
				first = r[i].due_ms - from;
			/* half its time or more with the guest (or a CPU) stopped */
			if (2 * spans_overlap(st.every, st.nevery, a, b) >= r[i].lat_us)
				stopped++;
			if (2 * spans_overlap(st.any, st.nany, a, b) >= r[i].lat_us)
				cpu_stopped++;
		}
	}
	printf("rounds %lld stalls %lld cold_stalls %lld hot_stalls %lld worst_ms %lld first_stall_ms %lld",
	       rounds, cold + hot, cold, hot, worst / 1000, first);
	if (argc == 6) {
		long long g = 0, t = 0, a = from * 1000, b = to ? to * 1000 : 0;
		for (size_t i = 0; i < st.nevery; i++) {
			if (st.every[i].b <= a || (b && st.every[i].a >= b))
				continue;
			g++;
			t += spans_overlap(&st.every[i], 1, a, b ? b : st.every[i].b);
		}
		printf(" stopped_stalls %lld cpu_stopped_stalls %lld guest_stops %lld guest_stop_ms %lld canary_lost %lld",
		       stopped, cpu_stopped, g, t / 1000, st.lost);
	}
	printf("\n");
	free(st.any);
	free(st.every);
	free(r);
	return 0;
}

static int cmd_relief(int argc, char **argv)
{
	if (argc != 4)
		return 2;
	long long from = arg_num(argv[3]);
	size_t n;
	struct round *r = load(argv[2], &n);
	for (size_t i = 0; i < n; i++) {
		if (r[i].kind != 'c' || r[i].due_ms < from || r[i].lat_us >= STALL_US)
			continue;
		long long end = r[i].due_ms + r[i].lat_us / 1000;
		int clean = 1, seen_after = 0;
		/* clean: no round due from this one to 2 s after its end took
		 * 100 ms or more; and the record goes on past those 2 s */
		for (size_t k = 0; k < n; k++) {
			if (r[k].kind == 'H' || r[k].due_ms < r[i].due_ms)
				continue;
			if (r[k].due_ms > end + 2000) {
				seen_after = 1;
				continue;
			}
			if (r[k].lat_us >= STALL_US)
				clean = 0;
		}
		if (clean && seen_after) {
			printf("%lld\n", end);
			free(r);
			return 0;
		}
	}
	printf("-1\n");
	free(r);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc == 2 && !strcmp(argv[1], "now")) {
		printf("%lld\n", now_us() / 1000);
		return 0;
	}
	if (argc >= 3 && !strcmp(argv[1], "run"))
		return cmd_run(argc, argv);
	if (argc >= 3 && !strcmp(argv[1], "canary"))
		return cmd_canary(argc, argv);
	if (argc >= 2 && !strcmp(argv[1], "report"))
		return cmd_report(argc, argv);
	if (argc >= 2 && !strcmp(argv[1], "relief"))
		return cmd_relief(argc, argv);
	fprintf(stderr, "usage: probe run OUT [--ws MIB] [--min-ms MS] [--max-ms MS] [--hot KIB] [--hot-ms MS] [--seed N]\n"
			"       probe canary OUT [--period-ms MS] [--gap-ms MS]\n"
			"       probe report OUT FROM_MS TO_MS [CANARY] | probe relief OUT FROM_MS | probe now\n");
	return 2;
}
