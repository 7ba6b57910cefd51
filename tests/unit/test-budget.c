/* SPDX-License-Identifier: MIT */
/* The allocation budget (src/lib/budget.c): /proc/vmstat's pgalloc_*
 * sum, the slack a memcg's charge can gain beyond allocations, a quiet
 * domain's watch line and its allocation room. */
#include <errno.h>
#include <string.h>

#include "cgoom/budget.h"
#include "tap.h"

#define MiB (1ULL << 20)

static void test_parse_pgalloc(void)
{
	const char *v61 = "nr_free_pages 12345\npgpgin 10\npgalloc_dma 3\npgalloc_dma32 1000\n"
			  "pgalloc_normal 250000\npgalloc_movable 7\npgalloc_device 0\n"
			  "allocstall_normal 99\npgfree 123456789\noom_kill 3\n";
	uint64_t v = 0;
	CHECK_EQ_INT(cgoom_parse_vmstat_pgalloc(v61, strlen(v61), &v), 0);
	CHECK_EQ_U64(v, 3 + 1000 + 250000 + 7);
	/* a last line without a newline counts */
	CHECK_EQ_INT(cgoom_parse_vmstat_pgalloc("pgalloc_normal 5", 16, &v), 0);
	CHECK_EQ_U64(v, 5);
	/* none: -ENOENT, the output untouched */
	v = 42;
	CHECK_EQ_INT(cgoom_parse_vmstat_pgalloc("pgfree 1\noom_kill 0\n", 20, &v), -ENOENT);
	CHECK_EQ_INT(cgoom_parse_vmstat_pgalloc("pgalloc 9\npgalloc_ 9\n", 20, &v), -ENOENT);
	CHECK_EQ_U64(v, 42);
	/* malformed pgalloc lines are refused, not skipped (a partial sum
	 * would under-count allocations) */
	CHECK_EQ_INT(cgoom_parse_vmstat_pgalloc("pgalloc_normal 1 2\n", 19, &v), -EBADMSG);
	CHECK_EQ_INT(cgoom_parse_vmstat_pgalloc("pgalloc_normal -1\n", 18, &v), -EBADMSG);
	CHECK_EQ_INT(cgoom_parse_vmstat_pgalloc("pgalloc_normal\n", 15, &v), -EBADMSG);
	const char *ovf = "pgalloc_dma 18446744073709551615\npgalloc_normal 1\n";
	CHECK_EQ_INT(cgoom_parse_vmstat_pgalloc(ovf, strlen(ovf), &v), -EOVERFLOW);
	CHECK_EQ_U64(v, 42);
	CHECK_EQ_INT(cgoom_parse_vmstat_pgalloc(NULL, 0, &v), -ENOENT);
}

/* The head of /proc/vmstat (one read): the block of pgalloc_ lines
 * counts once a whole line follows it; otherwise the whole file must
 * be read (-EAGAIN), never a partial sum. */
static void test_parse_pgalloc_head(void)
{
	const char *v61 = "nr_free_pages 12345\npgpgin 10\npgalloc_dma 3\npgalloc_dma32 1000\n"
			  "pgalloc_normal 250000\npgalloc_movable 7\npgalloc_device 0\n"
			  "allocstall_normal 99\npgfree 123456789\noom_kill 3\n";
	uint64_t v = 0, whole = 0;
	CHECK_EQ_INT(cgoom_parse_vmstat_pgalloc(v61, strlen(v61), &whole), 0);
	/* every cut of the file: the same sum as the whole, or -EAGAIN */
	size_t first_ok = 0;
	for (size_t cut = 0; cut <= strlen(v61); cut++) {
		v = 42;
		int r = cgoom_parse_vmstat_pgalloc_head(v61, cut, &v);
		if (r == 0) {
			CHECK_EQ_U64(v, whole);
			if (!first_ok)
				first_ok = cut;
		} else {
			CHECK_EQ_INT(r, -EAGAIN);
			CHECK_EQ_U64(v, 42);
			CHECK(first_ok == 0); /* once whole, it stays whole */
		}
	}
	/* whole from the end of the line after the block on */
	CHECK_EQ_U64(first_ok, (size_t)(strstr(v61, "allocstall_normal 99\n") - v61) + 21);
	/* a value cut off at the end: not read as a smaller number */
	CHECK_EQ_INT(cgoom_parse_vmstat_pgalloc_head("pgalloc_dma 1\npgalloc_normal 25", 30, &v),
		     -EAGAIN);
	/* no pgalloc at all in the head, or nothing */
	CHECK_EQ_INT(cgoom_parse_vmstat_pgalloc_head("pgfree 1\noom_kill 0\n", 20, &v), -EAGAIN);
	CHECK_EQ_INT(cgoom_parse_vmstat_pgalloc_head(NULL, 0, &v), -EAGAIN);
	/* a pgalloc_ line after the block within the head: read it all */
	const char *stray = "pgalloc_dma 1\npgfree 2\npgalloc_normal 3\nx 1\n";
	CHECK_EQ_INT(cgoom_parse_vmstat_pgalloc_head(stray, strlen(stray), &v), -EAGAIN);
	/* the same token test as the whole parse: a leading blank is a pgalloc_ line */
	CHECK_EQ_INT(cgoom_parse_vmstat_pgalloc_head(" pgalloc_dma 5\npgfree 2\n", 24, &v), 0);
	CHECK_EQ_U64(v, 5);
	/* a malformed line in the block is refused as by the whole parse */
	CHECK_EQ_INT(cgoom_parse_vmstat_pgalloc_head("pgalloc_normal 1 2\npgfree 3\n", 28, &v),
		     -EBADMSG);
}

/* How much the tick asks for: the head parse's need, learned from a
 * whole read. */
static void test_pgalloc_head_len(void)
{
	const char *v61 = "nr_free_pages 12345\npgpgin 10\npgalloc_dma 3\npgalloc_dma32 1000\n"
			  "pgalloc_normal 250000\npgalloc_movable 7\npgalloc_device 0\n"
			  "allocstall_normal 99\npgfree 123456789\noom_kill 3\n";
	size_t n = cgoom_vmstat_pgalloc_head_len(v61, strlen(v61));
	/* through the line after the block: the head parse answers there,
	 * with the whole sum, and not one byte sooner */
	CHECK_EQ_U64(n, (size_t)(strstr(v61, "allocstall_normal 99\n") - v61) + 21);
	uint64_t v = 0, whole = 0;
	CHECK_EQ_INT(cgoom_parse_vmstat_pgalloc(v61, strlen(v61), &whole), 0);
	CHECK_EQ_INT(cgoom_parse_vmstat_pgalloc_head(v61, n, &v), 0);
	CHECK_EQ_U64(v, whole);
	CHECK_EQ_INT(cgoom_parse_vmstat_pgalloc_head(v61, n - 1, &v), -EAGAIN);
	/* unknown: no block, a block at the end, no whole line after it,
	 * a second block, nothing */
	static const char *unknown[] = { "pgfree 1\noom_kill 0\n", "pgfree 1\npgalloc_dma 2\n",
					 "pgalloc_dma 2\npgfree 1",
					 "pgalloc_dma 1\npgfree 2\npgalloc_normal 3\nx 1\n" };
	for (size_t i = 0; i < sizeof(unknown) / sizeof(*unknown); i++)
		CHECK_EQ_U64(cgoom_vmstat_pgalloc_head_len(unknown[i], strlen(unknown[i])), 0);
	CHECK_EQ_U64(cgoom_vmstat_pgalloc_head_len(NULL, 0), 0);
}

/* The layout check at start: the head parse counts the first block of
 * pgalloc_ lines, so it is used only where the whole file has one. */
static void test_pgalloc_one_block(void)
{
	const char *v61 = "nr_free_pages 12345\npgalloc_dma 3\npgalloc_normal 250000\n"
			  "allocstall_normal 99\npgfree 123456789\n";
	CHECK(cgoom_vmstat_pgalloc_one_block(v61, strlen(v61)));
	CHECK(cgoom_vmstat_pgalloc_one_block("a 1\npgalloc_dma 3\n", 18));   /* at the end */
	CHECK(!cgoom_vmstat_pgalloc_one_block("a 1\nb 2\n", 8));               /* none */
	const char *two = "pgalloc_dma 1\npgfree 2\npgalloc_normal 3\n";
	CHECK(!cgoom_vmstat_pgalloc_one_block(two, strlen(two)));
	CHECK(!cgoom_vmstat_pgalloc_one_block(NULL, 0));
}

static void test_slack(void)
{
	CHECK_EQ_U64(cgoom_alloc_slack_pages(1), 65);
	CHECK_EQ_U64(cgoom_alloc_slack_pages(2), 130);
	CHECK_EQ_U64(cgoom_alloc_slack_pages(128), 128 * 65);
	CHECK_EQ_U64(cgoom_alloc_slack_pages(0), UINT64_MAX);
}

static void test_watch_line(void)
{
	struct cgoom_cgroup_sample s = { .current = 100 * MiB, .max = 400 * MiB, .high = UINT64_MAX };
	struct cgoom_cgroup_params p = { .margin = 8 * MiB };
	/* a margin before the margin: where the standby begins without growth */
	CHECK_EQ_U64(cgoom_watch_line(&s, &p), 384 * MiB);
	/* guarded: the band's edge when lower */
	p.guarded = true;
	s.high = 352 * MiB;
	CHECK_EQ_U64(cgoom_watch_line(&s, &p), 344 * MiB);
	s.high = 399 * MiB;
	CHECK_EQ_U64(cgoom_watch_line(&s, &p), 384 * MiB);
	/* a memory.high that is not cgoom's band counts only when guarded */
	p.guarded = false;
	s.high = 100 * MiB;
	CHECK_EQ_U64(cgoom_watch_line(&s, &p), 384 * MiB);
	/* no finite limit, or a margin larger than the limit */
	s.max = UINT64_MAX;
	CHECK_EQ_U64(cgoom_watch_line(&s, &p), 0);
	s.max = 10 * MiB;
	CHECK_EQ_U64(cgoom_watch_line(&s, &p), 0);
	p.margin = UINT64_MAX;
	s.max = 400 * MiB;
	CHECK_EQ_U64(cgoom_watch_line(&s, &p), 0);
}

static void test_room(void)
{
	/* 100 MiB from the line: half of it, 12800 pages, less the slack */
	CHECK_EQ_U64(cgoom_alloc_room_pages(284 * MiB, 384 * MiB, 130, 4096), 12800 - 130);
	/* at or past the line, or closer than the slack: none (paced by time) */
	CHECK_EQ_U64(cgoom_alloc_room_pages(384 * MiB, 384 * MiB, 130, 4096), 0);
	CHECK_EQ_U64(cgoom_alloc_room_pages(400 * MiB, 384 * MiB, 130, 4096), 0);
	CHECK_EQ_U64(cgoom_alloc_room_pages(384 * MiB - 1 * MiB, 384 * MiB, 130, 4096), 0);
	CHECK_EQ_U64(cgoom_alloc_room_pages(0, 0, 130, 4096), 0);
	/* a big machine's slack swallows a small domain's room */
	CHECK_EQ_U64(cgoom_alloc_room_pages(4 * MiB, 64 * MiB, cgoom_alloc_slack_pages(128), 4096), 0);
	/* unknown CPU count or page size: no budget */
	CHECK_EQ_U64(cgoom_alloc_room_pages(0, 384 * MiB, UINT64_MAX, 4096), 0);
	CHECK_EQ_U64(cgoom_alloc_room_pages(0, 384 * MiB, 130, 0), 0);
	/* the room never exceeds the distance: allocating it all leaves the
	 * domain at least half way, slack included */
	for (uint64_t cur = 0; cur < 384 * MiB; cur += 7 * MiB + 12345) {
		uint64_t room = cgoom_alloc_room_pages(cur, 384 * MiB, 130, 4096);
		CHECK(cur + (room + 130) * 4096 <= cur + (384 * MiB - cur) / 2 + 4096);
	}
}

int main(void)
{
	return tap_run((struct tap_test[]){ TAP(test_parse_pgalloc), TAP(test_parse_pgalloc_head), TAP(test_pgalloc_head_len), TAP(test_pgalloc_one_block), TAP(test_slack),
					    TAP(test_watch_line), TAP(test_room), { 0 } });
}
