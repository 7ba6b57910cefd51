/* SPDX-License-Identifier: MIT */
/*
 * Replays a fuzz target's corpus as an ordinary test (after systemd's
 * src/fuzz/fuzz-main.c): every file named, or found in a directory
 * named, is fed to LLVMFuzzerTestOneInput once. A crash or sanitizer
 * report fails the test; the TAP line counts the inputs.
 */
#include <dirent.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int replay_file(const char *path)
{
	FILE *f = fopen(path, "rb");
	if (!f) {
		printf("# %s: %s\n", path, strerror(errno));
		return -1;
	}
	size_t cap = 4096, len = 0;
	uint8_t *buf = malloc(cap);
	if (!buf) {
		fclose(f);
		return -1;
	}
	for (;;) {
		if (len == cap) {
			uint8_t *nb = realloc(buf, cap * 2);
			if (!nb) {
				free(buf);
				fclose(f);
				return -1;
			}
			buf = nb;
			cap *= 2;
		}
		size_t n = fread(buf + len, 1, cap - len, f);
		if (n == 0)
			break;
		len += n;
	}
	fclose(f);
	/* hand the target a buffer of exactly len bytes, so ASan sees overreads */
	uint8_t *exact = malloc(len ? len : 1);
	if (!exact) {
		free(buf);
		return -1;
	}
	memcpy(exact, buf, len);
	free(buf);
	LLVMFuzzerTestOneInput(exact, len);
	free(exact);
	return 0;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static int replay_path(const char *path, int *count)
{
	struct stat st;
	if (stat(path, &st) < 0) {
		printf("# %s: %s\n", path, strerror(errno));
		return -1;
	}
	if (!S_ISDIR(st.st_mode)) {
		(*count)++;
		return replay_file(path);
	}
	DIR *d = opendir(path);
	if (!d)
		return -1;
	char **names = NULL;
	size_t n = 0;
	struct dirent *de;
	int r = 0;
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		char **nn = realloc(names, (n + 1) * sizeof(*names));
		if (!nn) {
			r = -1;
			break;
		}
		names = nn;
		size_t l = strlen(path) + strlen(de->d_name) + 2;
		names[n] = malloc(l);
		if (!names[n]) {
			r = -1;
			break;
		}
		snprintf(names[n], l, "%s/%s", path, de->d_name);
		n++;
	}
	closedir(d);
	qsort(names, n, sizeof(*names), cmp_str);
	for (size_t i = 0; i < n; i++) {
		if (r == 0 && replay_path(names[i], count) < 0)
			r = -1;
		free(names[i]);
	}
	free(names);
	return r;
}

int main(int argc, char **argv)
{
	int count = 0, r = 0;
	printf("TAP version 13\n1..1\n");
	for (int i = 1; i < argc; i++)
		if (replay_path(argv[i], &count) < 0)
			r = -1;
	if (r == 0 && count > 0)
		printf("ok 1 - replayed %d inputs\n", count);
	else
		printf("not ok 1 - replay failed or empty corpus (%d inputs)\n", count);
	return r == 0 && count > 0 ? 0 : 1;
}
