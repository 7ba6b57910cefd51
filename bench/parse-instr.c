/* SPDX-License-Identifier: MIT */
/* bench/parse-instr's harness: parses FILE REPS times as KIND (meminfo:
 * cgoom_parse_meminfo, whole; meminfo-again: the daemon's read at the
 * last layout; vmstat: cgoom_parse_reclaim; memstat:
 * cgoom_parse_memstat_keys). The instructions are counted outside
 * (callgrind); this only parses, and prints the result once so the
 * parses are not optimised away. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cgoom/parse.h"

int main(int argc, char **argv)
{
	static char buf[1 << 16];
	if (argc != 4) {
		fprintf(stderr, "usage: parse-instr meminfo|meminfo-again|vmstat|memstat FILE REPS\n");
		return 2;
	}
	FILE *f = fopen(argv[2], "r");
	if (!f) {
		perror(argv[2]);
		return 1;
	}
	size_t n = fread(buf, 1, sizeof(buf), f);
	fclose(f);
	long reps = atol(argv[3]);
	unsigned long sum = 0;
	int r = 0;
	struct cgoom_meminfo_layout lay = { 0 };
	for (long i = 0; i < reps; i++) {
		struct cgoom_meminfo mi;
		struct cgoom_reclaim rc;
		struct cgoom_memstat ms;
		if (strcmp(argv[1], "meminfo") == 0)
			r = cgoom_parse_meminfo(buf, n, &mi), sum += mi.mem_available;
		else if (strcmp(argv[1], "meminfo-again") == 0)
			r = cgoom_parse_meminfo_again(buf, n, &lay, CGOOM_MEMINFO_LEVELS, &mi), sum += mi.mem_available;
		else if (strcmp(argv[1], "vmstat") == 0)
			r = cgoom_parse_reclaim(buf, n, &rc), sum += rc.present;
		else if (strcmp(argv[1], "memstat") == 0)
			r = cgoom_parse_memstat_keys(buf, n, &ms), sum += ms.present;
		else
			return 2;
		if (r < 0) {
			fprintf(stderr, "parse-instr: %s: %s\n", argv[2], strerror(-r));
			return 1;
		}
	}
	printf("%zu bytes, %lu\n", n, sum);
	return 0;
}
