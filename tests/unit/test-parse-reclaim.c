/* SPDX-License-Identifier: MIT */
/* The thrashing triggers' parsers (src/lib/parse-reclaim.c): reclaim
 * counters of /proc/vmstat and memory.stat, zram's mm_stat, /proc/swaps. */
#include <errno.h>
#include <string.h>

#include "cgoom/parse.h"
#include "tap.h"

#define S(lit) (lit), sizeof(lit) - 1

static void test_vmstat(void)
{
	struct cgoom_reclaim r;
	CHECK_EQ_INT(cgoom_parse_reclaim(S("nr_free_pages 1\n"
					   "workingset_refault_anon 10\n"
					   "workingset_refault_file 20\n"
					   "workingset_activate_anon 4\n"
					   "workingset_activate_file 5\n"
					   "workingset_restore_anon 1\n"
					   "pswpin 7\npswpout 9\n"
					   "allocstall_dma32 1\nallocstall_normal 2\nallocstall_movable 3\n"
					   "pgmajfault 11\n"
					   "pgsteal_kswapd 100\npgsteal_direct 50\npgsteal_proactive 1000\n"
					   "pgscan_kswapd 300\npgscan_direct 200\npgscan_khugepaged 1\n"
					   "pgscan_anon 9999\n"
					   "oom_kill 3\n"),
					 &r),
		     0);
	CHECK_EQ_U64(cgoom_reclaim_refaults(&r), 30);
	CHECK_EQ_U64(cgoom_reclaim_activations(&r), 9);
	CHECK_EQ_U64(cgoom_reclaim_scanned(&r), 501);
	/* proactive reclaim (memory.reclaim) is asked for, not pressure */
	CHECK_EQ_U64(cgoom_reclaim_stolen(&r), 150);
	CHECK_EQ_U64(cgoom_reclaim_allocstalls(&r), 6);
	CHECK_EQ_U64(r.pswpin, 7);
	CHECK_EQ_U64(r.pswpout, 9);
	CHECK_EQ_U64(r.pgmajfault, 11);
	CHECK_EQ_U64(r.oom_kill, 3);
	CHECK(r.present & CGOOM_RECLAIM_RESTORE_ANON);
	CHECK(!(r.present & CGOOM_RECLAIM_RESTORE_FILE));
}

static void test_memstat_and_old_kernels(void)
{
	struct cgoom_reclaim r;
	/* a cgroup's memory.stat: totals besides the per-reclaimer keys are
	 * not summed twice */
	CHECK_EQ_INT(cgoom_parse_reclaim(S("anon 1\npgscan 30\npgsteal 20\npgscan_kswapd 10\n"
					   "pgscan_direct 20\npgsteal_kswapd 5\npgsteal_direct 15\n"
					   "workingset_refault_anon 3\nworkingset_refault_file 0\n"),
					 &r),
		     0);
	CHECK_EQ_U64(cgoom_reclaim_scanned(&r), 30);
	CHECK_EQ_U64(cgoom_reclaim_stolen(&r), 20);
	CHECK_EQ_U64(cgoom_reclaim_refaults(&r), 3);
	CHECK(!(r.present & CGOOM_RECLAIM_PSWPIN));
	/* before 5.9 one workingset_refault (page cache) */
	CHECK_EQ_INT(cgoom_parse_reclaim(S("workingset_refault 12\nworkingset_activate 4\n"), &r), 0);
	CHECK_EQ_U64(cgoom_reclaim_refaults(&r), 12);
	CHECK_EQ_U64(cgoom_reclaim_activations(&r), 4);
	CHECK_EQ_INT(cgoom_parse_reclaim(S(""), &r), 0);
	CHECK_EQ_U64(r.present, 0);
}

static void test_reclaim_errors(void)
{
	struct cgoom_reclaim r = { .pswpin = 42 };
	CHECK_EQ_INT(cgoom_parse_reclaim(S("pswpin 1\npswpin 2\n"), &r), -EBADMSG);
	CHECK_EQ_INT(cgoom_parse_reclaim(S("pswpin 99999999999999999999999\n"), &r), -ERANGE);
	CHECK_EQ_INT(cgoom_parse_reclaim(S("pswpin\n"), &r), -EBADMSG);
	CHECK_EQ_INT(cgoom_parse_reclaim(S("pswpin 1 2\n"), &r), -EBADMSG);
	CHECK_EQ_INT(cgoom_parse_reclaim(S("pswpin -1\n"), &r), -EBADMSG);
	CHECK_EQ_U64(r.pswpin, 42); /* untouched */
	struct cgoom_reclaim sat = { .pgscan_kswapd = UINT64_MAX, .pgscan_direct = 5 };
	CHECK_EQ_U64(cgoom_reclaim_scanned(&sat), UINT64_MAX);
}

static void test_zram(void)
{
	struct cgoom_zram_mm m;
	CHECK_EQ_INT(cgoom_parse_zram_mm_stat(S("268435456 115343360 120586240        0 120586240"
						"     1024        0        0        0\n"),
					      &m),
		     0);
	CHECK_EQ_U64(m.orig_data_size, 268435456);
	CHECK_EQ_U64(m.compr_data_size, 115343360);
	CHECK_EQ_U64(m.mem_used_total, 120586240);
	CHECK_EQ_U64(m.mem_limit, 0);
	CHECK_EQ_U64(m.same_pages, 1024);
	CHECK_EQ_INT((int)m.n_fields, 9);
	CHECK_EQ_INT(cgoom_parse_zram_mm_stat(S("1 2 3 4"), &m), 0);
	CHECK_EQ_U64(m.mem_limit, 4);
	CHECK_EQ_U64(m.huge_pages, 0);
	m.orig_data_size = 77;
	CHECK_EQ_INT(cgoom_parse_zram_mm_stat(S("1 2 3\n"), &m), -EBADMSG);
	CHECK_EQ_INT(cgoom_parse_zram_mm_stat(S("1 2 3 4\n5 6 7 8\n"), &m), -EBADMSG);
	CHECK_EQ_INT(cgoom_parse_zram_mm_stat(S("1 2 x 4\n"), &m), -EBADMSG);
	CHECK_EQ_INT(cgoom_parse_zram_mm_stat(S(""), &m), -EBADMSG);
	CHECK_EQ_U64(m.orig_data_size, 77);
}

static void test_swaps(void)
{
	struct cgoom_swap_area a[2];
	int n = cgoom_parse_swaps(S("Filename\t\t\t\tType\t\tSize\t\tUsed\t\tPriority\n"
				    "/dev/zram0                              partition\t1048572\t\t12345\t\t100\n"
				    "/swapfile                               file\t\t1048572\t\t0\t\t-2\n"),
				  a, 2);
	CHECK_EQ_INT(n, 2);
	CHECK_STREQ(a[0].name, "/dev/zram0");
	CHECK_EQ_INT(a[0].zram, 0);
	CHECK(!a[0].is_file);
	CHECK_EQ_U64(a[0].size, 1048572ULL * 1024);
	CHECK_EQ_U64(a[0].used, 12345ULL * 1024);
	CHECK_EQ_INT(a[0].priority, 100);
	CHECK_STREQ(a[1].name, "/swapfile");
	CHECK_EQ_INT(a[1].zram, -1);
	CHECK(a[1].is_file);
	CHECK_EQ_INT(a[1].priority, -2);
	/* more areas than room: the count, the first ones stored */
	CHECK_EQ_INT(cgoom_parse_swaps(S("Filename Type Size Used Priority\n"
					 "/dev/zram12 partition 4 0 1\n/a file 4 0 -2\n/b file 4 0 -3\n"),
				       a, 1),
		     3);
	CHECK_EQ_INT(a[0].zram, 12);
	CHECK_EQ_INT(cgoom_parse_swaps(S("Filename Type Size Used Priority\n"), a, 2), 0);
	/* "/dev/zramx" and "/dev/zram" are not zram devices */
	CHECK_EQ_INT(cgoom_parse_swaps(S("Filename Type Size Used Priority\n/dev/zramx partition 4 0 1\n"),
				       a, 2),
		     1);
	CHECK_EQ_INT(a[0].zram, -1);
}

static void test_swaps_errors(void)
{
	struct cgoom_swap_area a[1] = { { .name = "keep" } };
	CHECK_EQ_INT(cgoom_parse_swaps(S("/dev/zram0 partition 1 0 1\n"), a, 1), -EBADMSG);
	CHECK_EQ_INT(cgoom_parse_swaps(S("Filename Type Size Used Priority\n/dev/zram0 partition 1 0\n"),
				       a, 1),
		     -EBADMSG);
	CHECK_EQ_INT(cgoom_parse_swaps(S("Filename Type Size Used Priority\n/a file 1 0 1\n/b file x 0 1\n"),
				       a, 1),
		     -EBADMSG);
	CHECK_EQ_INT(cgoom_parse_swaps(S("Filename Type Size Used Priority\n/a file 1 0 99999\n"), a, 1),
		     -ERANGE);
	CHECK_EQ_INT(cgoom_parse_swaps(S(""), a, 1), -EBADMSG);
	CHECK_STREQ(a[0].name, "keep");
}

int main(void)
{
	return tap_run((struct tap_test[]){
		TAP(test_vmstat),
		TAP(test_memstat_and_old_kernels),
		TAP(test_reclaim_errors),
		TAP(test_zram),
		TAP(test_swaps),
		TAP(test_swaps_errors),
		{ 0 },
	});
}
