/* SPDX-License-Identifier: MIT */
/*
 * bench/read-stats DIR [REPEAT]: the floor for selection cost: open and
 * read every memory.stat below DIR once (no parsing, no decisions),
 * best of REPEAT runs. Prints "files N best_ms X".
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static long files;
static char buf[1 << 16];

static int visit(const char *path, const struct stat *st, int flag, struct FTW *f)
{
	(void)st;
	if (flag != FTW_F || strcmp(path + f->base, "memory.stat") != 0)
		return 0;
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	while (read(fd, buf, sizeof(buf)) > 0)
		;
	close(fd);
	files++;
	return 0;
}

static double now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr, "usage: read-stats DIR [REPEAT]\n");
		return 2;
	}
	int rep = argc > 2 ? atoi(argv[2]) : 3;
	double best = 1e18;
	for (int i = 0; i < (rep > 0 ? rep : 1); i++) {
		files = 0;
		double t0 = now_ms();
		if (nftw(argv[1], visit, 64, FTW_PHYS) < 0) {
			perror(argv[1]);
			return 1;
		}
		double t = now_ms() - t0;
		if (t < best)
			best = t;
	}
	printf("files %ld best_ms %.2f\n", files, best);
	return 0;
}
