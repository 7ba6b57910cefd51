/* memhog: allocate and touch anonymous memory, then wait to be killed.
 *
 *   memhog MB [RATE_MB_PER_S]
 *
 * Maps MB MiB of private anonymous memory and writes to every page, so the
 * whole amount is resident and charged to the caller's memory cgroup. With
 * RATE it grows in 1 MiB steps paced against CLOCK_MONOTONIC (so a slow
 * step under reclaim does not lower the average rate); without, as fast
 * as possible. When done it prints "ready PID" (flushed) and pauses until
 * a signal ends it. Each page gets a non-constant byte so that zram cannot
 * store it as a same-filled page.
 *
 * Built static by tests/vm/run for the VM test bed. Exit 2 on bad usage,
 * 1 when the memory cannot be mapped. */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#define MIB (1024UL * 1024UL)

static void usage(void)
{
	fprintf(stderr,
		"usage: memhog MB [RATE_MB_PER_S]\n"
		"  allocate and touch MB MiB of anonymous memory (at RATE MiB/s\n"
		"  if given), print \"ready PID\", then sleep until killed\n");
	exit(2);
}

static int parse_mb(const char *s, unsigned long *ret)
{
	char *end;
	unsigned long v;

	if (*s < '0' || *s > '9')
		return -EINVAL;
	errno = 0;
	v = strtoul(s, &end, 10);
	if (errno || *end || v > (ULONG_MAX / MIB))
		return -EINVAL;
	*ret = v;
	return 0;
}

static int parse_rate(const char *s, double *ret)
{
	char *end;
	double v;

	if ((*s < '0' || *s > '9') && *s != '.')
		return -EINVAL;
	errno = 0;
	v = strtod(s, &end);
	if (errno || *end || !(v > 0.0) || v > 1e6)
		return -EINVAL;
	*ret = v;
	return 0;
}

static void touch(unsigned char *p, size_t len, unsigned long salt)
{
	long page = sysconf(_SC_PAGESIZE);
	size_t off;

	if (page <= 0)
		page = 4096;
	for (off = 0; off < len; off += (size_t)page)
		p[off] = (unsigned char)(((off / (size_t)page) ^ salt) | 1);
}

static void sleep_until(const struct timespec *start, double seconds)
{
	struct timespec t = *start;
	long long ns = (long long)(seconds * 1e9);

	t.tv_sec += ns / 1000000000LL;
	t.tv_nsec += ns % 1000000000LL;
	if (t.tv_nsec >= 1000000000L) {
		t.tv_sec++;
		t.tv_nsec -= 1000000000L;
	}
	while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &t, NULL) == EINTR)
		;
}

int main(int argc, char **argv)
{
	unsigned long mb, i;
	double rate = 0.0;
	unsigned char *p = NULL;
	struct timespec start;

	if (argc < 2 || argc > 3)
		usage();
	if (parse_mb(argv[1], &mb) < 0) {
		fprintf(stderr, "memhog: bad size '%s'\n", argv[1]);
		usage();
	}
	if (argc == 3 && parse_rate(argv[2], &rate) < 0) {
		fprintf(stderr, "memhog: bad rate '%s'\n", argv[2]);
		usage();
	}

	if (mb > 0) {
		p = mmap(NULL, mb * MIB, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
		if (p == MAP_FAILED) {
			fprintf(stderr, "memhog: mmap %lu MiB: %s\n", mb, strerror(errno));
			return 1;
		}
	}

	clock_gettime(CLOCK_MONOTONIC, &start);
	for (i = 0; i < mb; i++) {
		touch(p + i * MIB, MIB, (unsigned long)getpid() + i);
		if (rate > 0.0)
			sleep_until(&start, (double)(i + 1) / rate);
	}

	printf("ready %ld\n", (long)getpid());
	fflush(stdout);

	for (;;)
		pause();
}
