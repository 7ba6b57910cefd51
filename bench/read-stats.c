/* SPDX-License-Identifier: MIT */
/*
 * bench/read-stats DIR [REPEAT [FILE]]: the floor for selection cost:
 * find every cgroup below DIR and read its FILE (memory.stat) once,
 * nothing else (no parsing, no decisions), best of REPEAT runs. As lean
 * as it gets: one openat() per directory, d_type from getdents (no
 * stat() per entry), one open+read+close per file. Prints
 * "files N best_ms X".
 *
 * bench/read-stats --time REPEAT CMD [ARG...]: best wall time of CMD
 * (stdout to /dev/null) over REPEAT runs, "best_ms X" (for the guest,
 * which has no other timer this precise). Exit 1 if CMD fails.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/wait.h>
#include <unistd.h>

static long files;
static const char *file = "memory.stat";
static char buf[1 << 16];

static void walk(int dfd)
{
	int fd = openat(dfd, file, O_RDONLY | O_CLOEXEC);
	if (fd >= 0) {
		while (read(fd, buf, sizeof(buf)) > 0)
			;
		close(fd);
		files++;
	}
	int lfd = openat(dfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	DIR *d = lfd >= 0 ? fdopendir(lfd) : NULL;
	if (!d)
		return;
	struct dirent *de;
	while ((de = readdir(d))) {
		if (de->d_type != DT_DIR || de->d_name[0] == '.')
			continue;
		int c = openat(dfd, de->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (c >= 0) {
			walk(c);
			close(c);
		}
	}
	closedir(d);
}

static double now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static int time_cmd(int rep, char **cmd)
{
	double best = 1e18;
	for (int i = 0; i < rep; i++) {
		double t0 = now_ms();
		pid_t pid = fork();
		if (pid == 0) {
			int nul = open("/dev/null", O_WRONLY);
			if (nul >= 0)
				dup2(nul, 1);
			execvp(cmd[0], cmd);
			_exit(127);
		}
		int st;
		if (pid < 0 || waitpid(pid, &st, 0) < 0 || !WIFEXITED(st) || WEXITSTATUS(st) != 0) {
			fprintf(stderr, "read-stats --time: %s failed\n", cmd[0]);
			return 1;
		}
		double t = now_ms() - t0;
		if (t < best)
			best = t;
	}
	printf("best_ms %.2f\n", best);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc > 3 && strcmp(argv[1], "--time") == 0)
		return time_cmd(atoi(argv[2]) > 0 ? atoi(argv[2]) : 1, argv + 3);
	if (argc < 2) {
		fprintf(stderr, "usage: read-stats DIR [REPEAT [FILE]] | --time REPEAT CMD...\n");
		return 2;
	}
	int rep = argc > 2 ? atoi(argv[2]) : 3;
	if (argc > 3)
		file = argv[3];
	double best = 1e18;
	for (int i = 0; i < (rep > 0 ? rep : 1); i++) {
		files = 0;
		double t0 = now_ms();
		int fd = open(argv[1], O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (fd < 0) {
			perror(argv[1]);
			return 1;
		}
		walk(fd);
		close(fd);
		double t = now_ms() - t0;
		if (t < best)
			best = t;
	}
	printf("files %ld best_ms %.2f\n", files, best);
	return 0;
}
