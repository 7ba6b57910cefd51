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
 *   probe report OUT FROM_MS TO_MS
 *       prints, for the rounds due in [FROM_MS, TO_MS):
 *       "rounds N stalls K cold_stalls K1 hot_stalls K2 worst_ms W
 *        first_stall_ms F"  (F: when the first stall was due, relative to
 *       FROM_MS; -1 if none). TO_MS 0: to the end of the file.
 *   probe now
 *       print CLOCK_MONOTONIC in ms (the clock of DUE_MS)
 *   probe relief OUT FROM_MS
 *       the end (due + latency, ms) of the first cold round due at or
 *       after FROM_MS that took under 100 ms and after which no round
 *       (hot or cold) due within 2 s took 100 ms or more, the record
 *       going on past those 2 s; -1 if none.
 *
 * Built static by tests/vm/run, tests/vm/systemd/run and bench/. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
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

static int cmd_report(int argc, char **argv)
{
	if (argc != 5)
		return 2;
	long long from = arg_num(argv[3]), to = arg_num(argv[4]);
	long long rounds = 0, cold = 0, hot = 0, worst = 0, first = -1;
	size_t n;
	struct round *r = load(argv[2], &n);
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
			if (r[i].kind == 'c')
				cold++;
			else
				hot++;
			if (first < 0 || r[i].due_ms - from < first)
				first = r[i].due_ms - from;
		}
	}
	printf("rounds %lld stalls %lld cold_stalls %lld hot_stalls %lld worst_ms %lld first_stall_ms %lld\n",
	       rounds, cold + hot, cold, hot, worst / 1000, first);
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
	if (argc >= 2 && !strcmp(argv[1], "report"))
		return cmd_report(argc, argv);
	if (argc >= 2 && !strcmp(argv[1], "relief"))
		return cmd_relief(argc, argv);
	fprintf(stderr, "usage: probe run OUT [--ws MIB] [--min-ms MS] [--max-ms MS] [--hot KIB] [--hot-ms MS] [--seed N]\n"
			"       probe report OUT FROM_MS TO_MS | probe relief OUT FROM_MS | probe now\n");
	return 2;
}
