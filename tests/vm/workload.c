/* workload: memory and page-cache workloads for the swap test bed.
 *
 *   workload leak RATE [--chunk KIB] [--max MIB]
 *       grow by many small private anonymous mappings (CHUNK, default
 *       512 KiB each, as malloc's arenas and a browser's heap do) at RATE
 *       MiB/s, paced against CLOCK_MONOTONIC, never freeing; prints
 *       "leak MIB T_MS" every 16 MiB and "ready PID" once started. Stops
 *       growing at --max (then pauses); without, until killed. One
 *       mapping larger than RAM + swap would fail at once under the
 *       overcommit heuristic: a leak grows by many small ones.
 *   workload idle MIB
 *       map and fill MIB, print "ready PID", then pause: the pages go
 *       cold and are the first to be swapped out.
 *   workload grow MIB RATE
 *       grow to MIB at RATE MiB/s (1 MiB mappings), print "ready PID",
 *       then pause (a job that needs its memory once and holds it).
 *   workload active MIB [--rate MIBS] [--write-every N]
 *       map and fill MIB, print "ready PID", then touch its whole working
 *       set over and over (read every page, write every Nth, default 4),
 *       at most RATE MiB/s if given; prints "pass N MS" per pass.
 *   workload stream FILE [--passes N] [--mib N]
 *       read FILE sequentially in 1 MiB reads, N passes (default 1), at
 *       most --mib MiB of it each: prints "pass N MIB MS" per pass and
 *       "done PID" at the end; exit 0.
 *   workload churn SECONDS --src DIR --obj DIR [--jobs N] [--min MIB]
 *                  [--max MIB] [--reads N]
 *       a compile-like churn: keep N (default 2) short children running
 *       for SECONDS; each reads --reads (20) random files of DIR (page
 *       cache), maps and fills a random MIN..MAX MiB (30..150), works
 *       over it for a while, writes an object file (an eighth of what it
 *       read) into --obj, and exits 0. At the end prints "churn children
 *       N ok N killed N sigkill N sigterm N other N" and exits 0 iff no
 *       child died by a signal.
 *   workload fill FILE MIB
 *       write MIB of the same content into FILE (the stream file).
 *   workload tree DIR NFILES KIB
 *       NFILES files of KIB each in DIR (a source tree for churn).
 *   workload map FILE
 *       map FILE (a tmpfs file, say) shared and read every page of it,
 *       so each is mapped by this process (file_mapped where the page is
 *       charged, RssShmem here), print "ready PID", then pause.
 *   workload hold FILE MIB RATE
 *       create FILE (on a tmpfs, say) and unlink it at once, or with
 *       FILE "memfd:NAME" create a memfd, print "ready PID", then write
 *       MIB into it at RATE MiB/s through the descriptor, never mapping
 *       it (unmapped shmem that only this process's death frees); prints
 *       "held MIB T_MS" every 16 MiB, then pauses holding it.
 *   workload sample MIB
 *       print MIB of page content on stdout (to measure compressibility).
 *
 * Every page written gets content of about desktop compressibility: a
 * mix (chosen per page) of text-like pages, pointer-rich structures,
 * half-random pages and incompressible (already compressed) ones, never
 * an all-zero or same-filled page. zram (lzo-rle) stores it at about
 * 2.4:1: tests/vm/README.md says how that was measured
 * (/sys/block/zram0/mm_stat).
 *
 * Built static by tests/vm/run, tests/vm/systemd/run and bench/; natively
 * by bench/swap for the data disk. Exit 2 on bad usage, 1 on failure. */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define MIB (1024UL * 1024UL)
#define PAGE 4096UL

static long long now_ms(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (long long)t.tv_sec * 1000LL + t.tv_nsec / 1000000L;
}

static double now_s(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static void sleep_until_s(double t)
{
	struct timespec ts = { .tv_sec = (time_t)t, .tv_nsec = (long)((t - (double)(time_t)t) * 1e9) };
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

/* --- page content ------------------------------------------------------ */

static const char *const words[] = {
	"the", "of", "and", "to", "in", "is", "that", "for", "it", "as", "with", "was",
	"on", "be", "at", "by", "this", "had", "not", "are", "but", "from", "or", "have",
	"function", "return", "const", "struct", "static", "unsigned", "int", "char",
	"window", "document", "element", "style", "class", "div", "span", "href",
	"memory", "cgroup", "pressure", "swap", "kernel", "page", "cache", "reclaim",
	"<div class=\"", "\">", "</span>", "{\"id\":", "\"name\":\"", "\",\"value\":",
	"\n", "    ", ", ", "; ", "();", " = ", "0x7f", "null", "true", "false",
};
#define NWORDS (sizeof(words) / sizeof(words[0]))

/* text-like: phrases of words from a small dictionary, as source code,
 * HTML or JSON in a heap (lzo-rle: about 3:1) */
static void page_text(unsigned char *p, uint64_t *s)
{
	size_t o = 0;
	while (o < PAGE) {
		uint64_t r = xs(s);
		/* a phrase: 2..6 words starting at a random dictionary index */
		unsigned start = (unsigned)(r % NWORDS), len = 2 + (unsigned)((r >> 8) % 5);
		for (unsigned k = 0; k < len && o < PAGE; k++) {
			const char *w = words[(start + k * 3) % NWORDS];
			size_t n = strlen(w);
			if (o + n + 1 > PAGE)
				n = PAGE - o - 1;
			memcpy(p + o, w, n);
			o += n;
			p[o++] = ' ';
		}
		if (o < PAGE)
			p[o++] = (unsigned char)('A' + (r >> 40) % 26);
	}
}

/* sparse structures: 64-byte records holding a pointer into one heap, a
 * length, flags, a random id and zero padding (about 4:1) */
static void page_struct(unsigned char *p, uint64_t *s)
{
	uint64_t base = 0x00007f3a5c000000ULL + ((xs(s) & 0xffff) << 12);
	memset(p, 0, PAGE);
	for (size_t o = 0; o + 64 <= PAGE; o += 64) {
		uint64_t r = xs(s);
		uint64_t rec[4] = { base + (r & 0xfff0), r >> 52, 0x0000000100000000ULL | ((r >> 20) & 3), 0 };
		if (r & 1)
			rec[3] = xs(s) & 0xffffffffULL;
		memcpy(p + o, rec, sizeof(rec));
	}
}

/* half random, half zero (about 1.9:1) */
static void page_half(unsigned char *p, uint64_t *s)
{
	for (size_t o = 0; o < PAGE / 2; o += 8) {
		uint64_t r = xs(s);
		memcpy(p + o, &r, 8);
	}
	memset(p + PAGE / 2, 0, PAGE / 2);
}

/* incompressible (media, compressed data): zram stores it as is */
static void page_random(unsigned char *p, uint64_t *s)
{
	for (size_t o = 0; o < PAGE; o += 8) {
		uint64_t r = xs(s);
		memcpy(p + o, &r, 8);
	}
}

/* One page of content, chosen per page: 30% text, 40% structures, 20%
 * half random, 10% incompressible. seed: any value; mixed so that
 * neighbouring seeds give unrelated pages. */
static void make_page(unsigned char *p, uint64_t seed)
{
	uint64_t s = seed * 0x9e3779b97f4a7c15ULL + 0x632be59bd9b4e019ULL;
	unsigned kind;
	xs(&s);
	xs(&s);
	kind = (unsigned)(xs(&s) % 100);
	if (kind < 30)
		page_text(p, &s);
	else if (kind < 70)
		page_struct(p, &s);
	else if (kind < 90)
		page_half(p, &s);
	else
		page_random(p, &s);
}

/* Generating every page costs more CPU than a fast leak has under TCG:
 * pages are copied from a pool of NPOOL generated ones, and 8 bytes at a
 * place that depends on the seed are set to the seed, so no two pages
 * are equal and none is same-filled (zram stores those as a counter). */
#define NPOOL 509
static unsigned char *pool;

static void fill_page(unsigned char *p, uint64_t seed)
{
	if (!pool) {
		pool = malloc(NPOOL * PAGE);
		if (!pool)
			abort();
		for (size_t i = 0; i < NPOOL; i++)
			make_page(pool + i * PAGE, i * 0x51ed270b27ULL + 17);
	}
	uint64_t h = seed * 0x9e3779b97f4a7c15ULL;
	memcpy(p, pool + (size_t)(seed % NPOOL) * PAGE, PAGE);
	uint64_t v = seed | 0x0100000000000000ULL;
	memcpy(p + ((h >> 32) % (PAGE / 8)) * 8, &v, 8);
}

static void fill(unsigned char *p, size_t len, uint64_t seed)
{
	for (size_t o = 0; o + PAGE <= len; o += PAGE)
		fill_page(p + o, seed + o / PAGE);
}

static unsigned char *map_filled(size_t len, uint64_t seed)
{
	unsigned char *p = mmap(NULL, len, PROT_READ | PROT_WRITE,
				MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (p == MAP_FAILED)
		return NULL;
	fill(p, len, seed);
	return p;
}

/* --- argument helpers --------------------------------------------------- */

static void usage(void)
{
	fprintf(stderr, "usage: workload leak RATE [--chunk KIB] [--max MIB] | idle MIB | grow MIB RATE |\n"
			"       active MIB [--rate MIBS] [--write-every N] | stream FILE [--passes N] [--mib N] |\n"
			"       churn SECONDS --src DIR --obj DIR [--jobs N] [--min MIB] [--max MIB] [--reads N] |\n"
			"       fill FILE MIB | tree DIR NFILES KIB | sample MIB\n");
	exit(2);
}

static double num(const char *s)
{
	char *end;
	double v;
	if (!s || !*s)
		usage();
	errno = 0;
	v = strtod(s, &end);
	if (errno || *end || v < 0 || v > 1e9)
		usage();
	return v;
}

/* "--key VALUE" pairs after the positionals */
static const char *opt(int argc, char **argv, int from, const char *key)
{
	for (int i = from; i + 1 < argc; i++)
		if (!strcmp(argv[i], key))
			return argv[i + 1];
	return NULL;
}

static void ready(void)
{
	printf("ready %ld\n", (long)getpid());
	fflush(stdout);
}

static void hold(void)
{
	for (;;)
		pause();
}

/* --- the workloads ---------------------------------------------------- */

static int cmd_leak(int argc, char **argv)
{
	double rate = num(argv[2]);
	const char *c = opt(argc, argv, 3, "--chunk"), *m = opt(argc, argv, 3, "--max");
	size_t chunk = (size_t)(c ? num(c) : 512) * 1024;
	double max = m ? num(m) : 0;
	uint64_t seed = (uint64_t)getpid() << 32;
	double t0 = now_s();
	size_t done = 0, next_report = 16 * MIB;

	if (rate <= 0 || chunk < PAGE || chunk % PAGE)
		usage();
	ready();
	for (;;) {
		if (max > 0 && (double)done >= max * MIB) {
			printf("leak %zu %lld max\n", done / MIB, now_ms());
			fflush(stdout);
			hold();
		}
		unsigned char *p = map_filled(chunk, seed + done / PAGE);
		if (!p) {
			printf("leak %zu %lld mmap: %s\n", done / MIB, now_ms(), strerror(errno));
			fflush(stdout);
			sleep_until_s(now_s() + 0.1);
			continue;
		}
		done += chunk;
		if (done >= next_report) {
			printf("leak %zu %lld\n", done / MIB, now_ms());
			fflush(stdout);
			next_report += 16 * MIB;
		}
		sleep_until_s(t0 + (double)done / MIB / rate);
	}
	return 0;
}

static int cmd_idle(int argc, char **argv)
{
	(void)argc;
	size_t len = (size_t)num(argv[2]) * MIB;
	if (len && !map_filled(len, (uint64_t)getpid() << 32)) {
		perror("workload idle: mmap");
		return 1;
	}
	ready();
	hold();
	return 0;
}

static int cmd_grow(int argc, char **argv)
{
	if (argc < 4)
		usage();
	size_t mib = (size_t)num(argv[2]);
	double rate = num(argv[3]), t0 = now_s();
	if (rate <= 0)
		usage();
	for (size_t i = 0; i < mib; i++) {
		if (!map_filled(MIB, ((uint64_t)getpid() << 32) + i * (MIB / PAGE))) {
			perror("workload grow: mmap");
			return 1;
		}
		sleep_until_s(t0 + (double)(i + 1) / rate);
	}
	ready();
	hold();
	return 0;
}

static int cmd_active(int argc, char **argv)
{
	size_t len = (size_t)num(argv[2]) * MIB;
	const char *r = opt(argc, argv, 3, "--rate"), *w = opt(argc, argv, 3, "--write-every");
	double rate = r ? num(r) : 0;
	size_t every = w ? (size_t)num(w) : 4;
	volatile unsigned char sink = 0;
	unsigned char *p;
	long long pass = 0;

	if (!len || !every)
		usage();
	p = map_filled(len, (uint64_t)getpid() << 32);
	if (!p) {
		perror("workload active: mmap");
		return 1;
	}
	ready();
	for (;;) {
		double t0 = now_s();
		for (size_t o = 0, i = 0; o < len; o += PAGE, i++) {
			sink ^= p[o + (i * 64) % PAGE];
			if (i % every == 0)
				p[o + 8] ^= (unsigned char)(pass | 1);
			if (rate > 0 && (o + PAGE) % MIB == 0)
				sleep_until_s(t0 + (double)(o + PAGE) / MIB / rate);
		}
		printf("pass %lld %.0f\n", ++pass, (now_s() - t0) * 1000);
		fflush(stdout);
	}
}

static int cmd_stream(int argc, char **argv)
{
	const char *n = opt(argc, argv, 3, "--passes"), *m = opt(argc, argv, 3, "--mib");
	long passes = n ? (long)num(n) : 1;
	size_t limit = m ? (size_t)num(m) * MIB : (size_t)-1;
	static unsigned char buf[MIB];
	for (long k = 1; k <= passes; k++) {
		int fd = open(argv[2], O_RDONLY);
		double t0 = now_s();
		size_t total = 0;
		ssize_t got;
		if (fd < 0) {
			perror(argv[2]);
			return 1;
		}
		while (total < limit && (got = read(fd, buf, sizeof(buf))) > 0)
			total += (size_t)got;
		close(fd);
		if (total < limit && got < 0) {
			perror("workload stream: read");
			return 1;
		}
		printf("pass %ld %zu %.0f\n", k, total / MIB, (now_s() - t0) * 1000);
		fflush(stdout);
	}
	printf("done %ld\n", (long)getpid());
	fflush(stdout);
	return 0;
}

/* one churn child: read sources, map memory, work, write an object */
static int churn_child(const char *src, char **names, size_t nnames, const char *obj,
		       size_t min, size_t max, int reads, uint64_t seed)
{
	static unsigned char buf[256 * 1024];
	uint64_t s = seed | 1;
	size_t in = 0;
	char path[4096];
	for (int i = 0; i < reads && nnames; i++) {
		snprintf(path, sizeof(path), "%s/%s", src, names[xs(&s) % nnames]);
		int fd = open(path, O_RDONLY);
		ssize_t got;
		if (fd < 0)
			continue;
		while ((got = read(fd, buf, sizeof(buf))) > 0)
			in += (size_t)got;
		close(fd);
	}
	size_t mib = min + (max > min ? xs(&s) % (max - min + 1) : 0);
	unsigned char *p = map_filled(mib * MIB, s);
	if (!p)
		return 1;
	volatile unsigned long sum = 0;
	for (int round = 0; round < 3; round++)
		for (size_t o = 0; o < mib * MIB; o += PAGE)
			sum += p[o + (size_t)round * 8];
	snprintf(path, sizeof(path), "%s/obj-%llu.o", obj, (unsigned long long)(seed % 400));
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd >= 0) {
		size_t out = in / 8 + PAGE;
		for (size_t o = 0; o < out; o += PAGE) {
			fill_page(buf, s + o);
			if (write(fd, buf, PAGE) < 0)
				break;
		}
		close(fd);
	}
	return 0;
}

static int cmd_churn(int argc, char **argv)
{
	double secs = num(argv[2]);
	const char *src = opt(argc, argv, 3, "--src"), *obj = opt(argc, argv, 3, "--obj");
	const char *j = opt(argc, argv, 3, "--jobs"), *mn = opt(argc, argv, 3, "--min");
	const char *mx = opt(argc, argv, 3, "--max"), *rd = opt(argc, argv, 3, "--reads");
	int jobs = j ? (int)num(j) : 2, reads = rd ? (int)num(rd) : 20;
	size_t min = mn ? (size_t)num(mn) : 30, max = mx ? (size_t)num(mx) : 150;
	long children = 0, ok = 0, sigkill = 0, sigterm = 0, other = 0;
	char **names = NULL;
	size_t nnames = 0, cap = 0;
	struct dirent *e;
	DIR *d;

	if (!src || !obj || jobs < 1 || max < min)
		usage();
	d = opendir(src);
	if (!d) {
		perror(src);
		return 1;
	}
	while ((e = readdir(d))) {
		if (e->d_name[0] == '.')
			continue;
		if (nnames == cap) {
			cap = cap ? cap * 2 : 256;
			names = realloc(names, cap * sizeof(*names));
			if (!names)
				return 1;
		}
		names[nnames++] = strdup(e->d_name);
	}
	closedir(d);
	ready();
	double end = now_s() + secs;
	int running = 0;
	uint64_t seed = (uint64_t)getpid() * 7919;
	while (now_s() < end || running > 0) {
		while (running < jobs && now_s() < end) {
			pid_t pid = fork();
			seed++;
			if (pid == 0)
				_exit(churn_child(src, names, nnames, obj, min, max, reads, seed));
			if (pid < 0)
				break;
			running++;
			children++;
		}
		int st;
		pid_t w = wait(&st);
		if (w < 0) {
			if (errno == EINTR)
				continue;
			break;
		}
		running--;
		if (WIFEXITED(st) && WEXITSTATUS(st) == 0)
			ok++;
		else if (WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL)
			sigkill++;
		else if (WIFSIGNALED(st) && WTERMSIG(st) == SIGTERM)
			sigterm++;
		else
			other++;
		if (WIFSIGNALED(st)) {
			printf("churn child %ld killed by signal %d at %lld\n", (long)w, WTERMSIG(st), now_ms());
			fflush(stdout);
		}
	}
	printf("churn children %ld ok %ld killed %ld sigkill %ld sigterm %ld other %ld\n",
	       children, ok, sigkill + sigterm, sigkill, sigterm, other);
	fflush(stdout);
	return sigkill + sigterm ? 1 : 0;
}

static int write_filled(const char *path, size_t len, uint64_t seed)
{
	static unsigned char buf[MIB];
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd < 0) {
		perror(path);
		return 1;
	}
	for (size_t o = 0; o < len; o += sizeof(buf)) {
		size_t n = len - o < sizeof(buf) ? len - o : sizeof(buf);
		fill(buf, sizeof(buf), seed + o / PAGE);
		if (write(fd, buf, n) != (ssize_t)n) {
			perror(path);
			close(fd);
			return 1;
		}
	}
	return close(fd) ? 1 : 0;
}

static int cmd_tree(int argc, char **argv)
{
	if (argc != 5)
		usage();
	long n = (long)num(argv[3]);
	size_t kib = (size_t)num(argv[4]);
	char path[4096];
	if (mkdir(argv[2], 0755) < 0 && errno != EEXIST) {
		perror(argv[2]);
		return 1;
	}
	for (long i = 0; i < n; i++) {
		snprintf(path, sizeof(path), "%s/src-%05ld.c", argv[2], i);
		if (write_filled(path, kib * 1024, (uint64_t)i << 24))
			return 1;
	}
	return 0;
}

static int cmd_map(const char *path)
{
	int fd = open(path, O_RDWR);
	struct stat st;
	if (fd < 0 || fstat(fd, &st) < 0 || st.st_size <= 0) {
		perror(path);
		return 1;
	}
	volatile unsigned char *m = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_SHARED, fd, 0);
	if (m == MAP_FAILED) {
		perror("mmap");
		return 1;
	}
	unsigned sum = 0;
	for (off_t o = 0; o < st.st_size; o += PAGE)
		sum += m[o];
	(void)sum;
	ready();
	for (;;)
		pause();
}

/* hold FILE MIB RATE: a file held open, written, never mapped */
static int cmd_hold(int argc, char **argv)
{
	if (argc != 5)
		usage();
	const char *path = argv[2];
	size_t mib = (size_t)num(argv[3]);
	double rate = num(argv[4]);
	int fd;
	if (!strncmp(path, "memfd:", 6))
		fd = memfd_create(path + 6, 0);
	else {
		fd = open(path, O_RDWR | O_CREAT | O_EXCL, 0600);
		if (fd >= 0 && unlink(path) < 0) {
			perror("unlink");
			return 1;
		}
	}
	if (fd < 0) {
		perror(path);
		return 1;
	}
	static unsigned char buf[MIB];
	ready();
	long long t0 = now_ms();
	for (size_t i = 0; i < mib; i++) {
		fill(buf, MIB, i << 8);
		if (write(fd, buf, MIB) != (ssize_t)MIB) {
			perror("write");
			return 1;
		}
		long long due = t0 + (long long)((double)(i + 1) * 1000.0 / (rate > 0 ? rate : 1e9));
		long long now = now_ms();
		if (due > now)
			usleep((useconds_t)((due - now) * 1000));
		if ((i + 1) % 16 == 0) {
			printf("held %zu %lld\n", i + 1, now_ms() - t0);
			fflush(stdout);
		}
	}
	hold();
	return 0;
}

int main(int argc, char **argv)
{
	const char *c = argc >= 2 ? argv[1] : "";
	if (argc < 3)
		usage();
	signal(SIGPIPE, SIG_DFL);
	if (!strcmp(c, "leak"))
		return cmd_leak(argc, argv);
	if (!strcmp(c, "idle"))
		return cmd_idle(argc, argv);
	if (!strcmp(c, "grow"))
		return cmd_grow(argc, argv);
	if (!strcmp(c, "active"))
		return cmd_active(argc, argv);
	if (!strcmp(c, "stream"))
		return cmd_stream(argc, argv);
	if (!strcmp(c, "churn"))
		return cmd_churn(argc, argv);
	if (!strcmp(c, "fill") && argc == 4)
		return write_filled(argv[2], (size_t)num(argv[3]) * MIB, 0x5eed);
	if (!strcmp(c, "tree"))
		return cmd_tree(argc, argv);
	if (!strcmp(c, "map") && argc == 3)
		return cmd_map(argv[2]);
	if (!strcmp(c, "hold"))
		return cmd_hold(argc, argv);
	if (!strcmp(c, "sample")) {
		size_t len = (size_t)num(argv[2]) * MIB;
		static unsigned char buf[MIB];
		for (size_t o = 0; o < len; o += MIB) {
			fill(buf, MIB, o / PAGE);
			if (fwrite(buf, 1, MIB, stdout) != MIB)
				return 1;
		}
		return 0;
	}
	usage();
	return 2;
}
