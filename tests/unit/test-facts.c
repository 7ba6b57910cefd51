/* SPDX-License-Identifier: MIT */
/* explain's memory line (src/lib/explain-facts.c) and its reader
 * (src/shared/facts.c) on a fixture tree. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cgoom/facts.h"
#include "facts.h"
#include "tap.h"

#define MiB (1ULL << 20)
#define GiB (1ULL << 30)

static void test_text_system(void)
{
	struct cgoom_memory_facts f = { .system = true, .mem_ok = true, .mem_total = 1536 * MiB,
					.mem_available = 20 * MiB, .swap_ok = true,
					.swap_total = 1 * GiB, .swap_used = 600 * MiB, .n_zram = 1,
					.zram_orig = 600 * MiB, .zram_compr = 240 * MiB,
					.zram_used = 250 * MiB, .psi_ok = true };
	f.psi.some = (struct cgoom_psi_line){ .avg10 = 1234, .avg60 = 500, .present = true };
	f.psi.full = (struct cgoom_psi_line){ .avg10 = 810, .avg60 = 320, .present = true };
	struct cgoom_strbuf b = { 0 };
	cgoom_memory_facts_text(&b, &f);
	CHECK_STREQ(b.buf, "memory: MemAvailable 20.0 MiB of 1.5 GiB; swap 600.0 MiB of 1.0 GiB used "
			   "(zram: 600.0 MiB stored, compressed to 240.0 MiB, 250.0 MiB of RAM, no limit); "
			   "pressure some 12.34% full 8.10% (avg10), some 5.00% full 3.20% (avg60)\n");
	cgoom_strbuf_free(&b);
	/* --watch: the rate from the previous period */
	f.have_prev = true;
	f.prev_swap_used = 560 * MiB;
	f.prev_age_us = 2000000;
	CHECK_EQ_U64(cgoom_memory_facts_swap_rate(&f), 20 * MiB);
	cgoom_memory_facts_text(&b, &f);
	CHECK(strstr(b.buf, "used, filling at 20.0 MiB/s (zram") != NULL);
	cgoom_strbuf_free(&b);
	f.prev_swap_used = 700 * MiB;
	CHECK_EQ_U64(cgoom_memory_facts_swap_rate(&f), 0);
	cgoom_memory_facts_text(&b, &f);
	CHECK(strstr(b.buf, "used, not filling") != NULL);
	cgoom_strbuf_free(&b);
}

static void test_zswap(void)
{
	/* zswap in front of a swap file: what it stores, in how much RAM */
	struct cgoom_memory_facts f = { .system = true, .mem_ok = true, .mem_total = 1536 * MiB,
					.mem_available = 90 * MiB, .swap_ok = true,
					.swap_total = 900 * MiB, .swap_used = 700 * MiB, .zswap_ok = true,
					.zswap_stored = 580 * MiB, .zswap_ram = 290 * MiB };
	struct cgoom_strbuf b = { 0 };
	cgoom_memory_facts_text(&b, &f);
	CHECK_STREQ(b.buf, "memory: MemAvailable 90.0 MiB of 1.5 GiB; swap 700.0 MiB of 900.0 MiB used "
			   "(zswap: 580.0 MiB stored in 290.0 MiB of RAM)\n");
	cgoom_strbuf_free(&b);
	cgoom_memory_facts_json(&b, &f);
	CHECK_STREQ(b.buf, "{\"mem_total\": 1610612736, \"mem_available\": 94371840, \"swap_total\": 943718400, "
			   "\"swap_used\": 734003200, \"zswap\": {\"stored\": 608174080, \"ram\": 304087040}}");
	cgoom_strbuf_free(&b);
	/* zswap present but empty: nothing in the text, zeros in JSON */
	f.zswap_stored = f.zswap_ram = 0;
	cgoom_memory_facts_text(&b, &f);
	CHECK(strstr(b.buf, "zswap") == NULL);
	cgoom_strbuf_free(&b);
	cgoom_memory_facts_json(&b, &f);
	CHECK(strstr(b.buf, "\"zswap\": {\"stored\": 0, \"ram\": 0}") != NULL);
	cgoom_strbuf_free(&b);
	/* a kernel without the lines: no key at all */
	f.zswap_ok = false;
	cgoom_memory_facts_json(&b, &f);
	CHECK(strstr(b.buf, "zswap") == NULL);
	cgoom_strbuf_free(&b);
}

static void test_text_unreadable(void)
{
	/* a malformed memory.max: the first clause said, not dropped (it
	 * read "memory:; swap ...") */
	struct cgoom_memory_facts f = { .swap_ok = true, .swap_total = UINT64_MAX, .swap_used = 0 };
	struct cgoom_strbuf b = { 0 };
	cgoom_memory_facts_text(&b, &f);
	CHECK_STREQ(b.buf, "memory: memory.current or memory.max unreadable; swap 0 B of max used\n");
	cgoom_strbuf_free(&b);
	f.system = true;
	cgoom_memory_facts_text(&b, &f);
	CHECK_STREQ(b.buf, "memory: /proc/meminfo unreadable; swap 0 B of max used\n");
	cgoom_strbuf_free(&b);
}

static void test_text_cgroup_json(void)
{
	struct cgoom_memory_facts f = { .mem_ok = true, .mem_total = 500 * MiB, .mem_current = 495 * MiB,
					.swap_ok = true, .swap_total = UINT64_MAX, .swap_used = 90 * MiB };
	struct cgoom_strbuf b = { 0 };
	cgoom_memory_facts_text(&b, &f);
	CHECK_STREQ(b.buf, "memory: memory.current 495.0 MiB of memory.max 500.0 MiB; swap 90.0 MiB of max used\n");
	cgoom_strbuf_free(&b);
	cgoom_memory_facts_json(&b, &f);
	CHECK_STREQ(b.buf, "{\"max\": 524288000, \"current\": 519045120, \"swap_total\": null, "
			   "\"swap_used\": 94371840}");
	cgoom_strbuf_free(&b);
	struct cgoom_memory_facts s = { .system = true, .mem_ok = true, .mem_total = 1024, .mem_available = 512,
					.swap_ok = true, .psi_ok = true };
	s.psi.some = (struct cgoom_psi_line){ .avg10 = 5, .total_us = 77, .present = true };
	cgoom_memory_facts_json(&b, &s);
	CHECK_STREQ(b.buf, "{\"mem_total\": 1024, \"mem_available\": 512, \"swap_total\": 0, \"swap_used\": 0, "
			   "\"pressure\": {\"some\": {\"avg10\": 0.05, \"avg60\": 0.00, \"avg300\": 0.00, "
			   "\"total_us\": 77}, \"full\": null}}");
	cgoom_strbuf_free(&b);
	cgoom_memory_facts_text(&b, &s);
	CHECK(strstr(b.buf, "; no swap;") != NULL);
	cgoom_strbuf_free(&b);
}

static void put(const char *dir, const char *name, const char *text)
{
	char p[1024];
	snprintf(p, sizeof(p), "%s/%s", dir, name);
	FILE *f = fopen(p, "w");
	if (f) {
		fputs(text, f);
		fclose(f);
	}
}

static void test_read_fixture(void)
{
	char t[] = "/tmp/cgoom-facts.XXXXXX";
	if (!mkdtemp(t)) {
		CHECK(false);
		return;
	}
	char cg[64], proc[64], pr[128], w[128];
	snprintf(cg, sizeof(cg), "%s/cg", t);
	snprintf(proc, sizeof(proc), "%s/proc", t);
	snprintf(pr, sizeof(pr), "%s/pressure", proc);
	snprintf(w, sizeof(w), "%s/w", cg);
	mkdir(cg, 0755);
	mkdir(proc, 0755);
	mkdir(pr, 0755);
	mkdir(w, 0755);
	put(proc, "meminfo", "MemTotal: 1000 kB\nMemFree: 100 kB\nMemAvailable: 300 kB\n"
			     "SwapTotal: 2048 kB\nSwapFree: 1024 kB\n");
	put(pr, "memory", "some avg10=1.50 avg60=0.00 avg300=0.00 total=10\n"
			  "full avg10=0.50 avg60=0.00 avg300=0.00 total=5\n");
	put(w, "memory.max", "1048576\n");
	put(w, "memory.current", "524288\n");
	put(w, "memory.swap.max", "max\n");
	put(w, "memory.swap.current", "4096\n");
	struct cgoom_roots r;
	char err[256];
	CHECK_EQ_INT(cgoom_roots_open(cg, proc, &r, err, sizeof(err)), 0);
	struct cgoom_memory_facts f;
	CHECK_EQ_INT(cgoom_memory_facts_read(&r, "/", false, &f), 0);
	CHECK(f.system && f.mem_ok && f.swap_ok && f.psi_ok);
	CHECK_EQ_U64(f.mem_available, 300 * 1024);
	CHECK_EQ_U64(f.swap_used, 1024 * 1024);
	CHECK_EQ_INT((int)f.n_zram, 0); /* a fixture: no sysfs */
	CHECK(!f.zswap_ok); /* no Zswap lines */
	CHECK_EQ_INT((int)f.psi.some.avg10, 150);
	CHECK_EQ_INT(cgoom_memory_facts_read(&r, "/w", false, &f), 0);
	CHECK(!f.system && f.mem_ok && f.swap_ok && !f.psi_ok);
	CHECK_EQ_U64(f.mem_total, 1048576);
	CHECK_EQ_U64(f.mem_current, 524288);
	/* memory.swap.max "max": the swap it can use is SwapTotal's 2 MiB */
	CHECK_EQ_U64(f.swap_total, 2048 * 1024);
	CHECK_EQ_U64(f.swap_used, 4096);
	put(w, "memory.swap.max", "1024\n"); /* a smaller limit stands */
	CHECK_EQ_INT(cgoom_memory_facts_read(&r, "/w", false, &f), 0);
	CHECK_EQ_U64(f.swap_total, 1024);
	/* zswap's lines: read; one of them malformed: neither shown */
	put(proc, "meminfo", "MemTotal: 1000 kB\nMemAvailable: 300 kB\nSwapTotal: 2048 kB\n"
			     "SwapFree: 1024 kB\nZswap: 200 kB\nZswapped: 600 kB\n");
	CHECK_EQ_INT(cgoom_memory_facts_read(&r, "/", false, &f), 0);
	CHECK(f.zswap_ok && f.zswap_stored == 600 * 1024 && f.zswap_ram == 200 * 1024);
	put(proc, "meminfo", "MemTotal: 1000 kB\nMemAvailable: 300 kB\nSwapTotal: 2048 kB\n"
			     "SwapFree: 1024 kB\nZswap: 200 kB\nZswapped: lots\n");
	CHECK_EQ_INT(cgoom_memory_facts_read(&r, "/", false, &f), 0);
	CHECK(!f.zswap_ok && f.zswap_stored == 0 && f.zswap_ram == 0);
	/* a meminfo without its SwapTotal line says nothing of the swap:
	 * the cgroup's limit stands, not "no swap" */
	put(w, "memory.swap.max", "max\n");
	put(proc, "meminfo", "MemTotal: 1000 kB\nMemFree: 100 kB\nMemAvailable: 300 kB\n");
	CHECK_EQ_INT(cgoom_memory_facts_read(&r, "/w", false, &f), 0);
	CHECK(f.swap_ok && f.swap_total == UINT64_MAX);
	/* a cgroup that is not there, or whose files are garbage */
	CHECK(cgoom_memory_facts_read(&r, "/nope", false, &f) < 0);
	put(w, "memory.max", "lots\n");
	put(w, "memory.pressure", "some avg10=x\n");
	CHECK(cgoom_memory_facts_read(&r, "/w", false, &f) < 0);
	cgoom_roots_close(&r);
	char cmd[128];
	snprintf(cmd, sizeof(cmd), "rm -rf %s", t);
	if (system(cmd) != 0)
		CHECK(false);
}

int main(void)
{
	return tap_run((struct tap_test[]){
		TAP(test_text_system),
		TAP(test_text_cgroup_json),
		TAP(test_text_unreadable),
		TAP(test_zswap),
		TAP(test_read_fixture),
		{ 0 },
	});
}
