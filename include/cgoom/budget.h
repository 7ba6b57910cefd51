/* SPDX-License-Identifier: MIT */
#pragma once

/*
 * The allocation budget (doc/scale.md "Sampling"): when a quiet cgroup
 * domain must be looked at again, proven from the kernel's monotone
 * count of pages allocated system-wide (/proc/vmstat pgalloc_*).
 *
 * A memcg's memory.current grows only by charging pages, and a charged
 * page was allocated: between two samples memory.current can grow by no
 * more than the pages allocated system-wide meanwhile, plus what the
 * per-CPU charge stocks can pre-charge (MEMCG_CHARGE_BATCH, 64 pages per
 * online CPU on Linux 6.1 and 6.12, mm/memcontrol.c) and the per-CPU
 * byte stock of kernel objects (a page per CPU). Not covered: slab and
 * percpu objects charged into pages allocated before, socket buffers
 * charged ahead of their pages, and hugetlb pages with the
 * memory_hugetlb_accounting mount option: for those the kernel's
 * memory.events (max, oom) and a slow time backstop remain.
 *
 * Pure: no I/O, no clock.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cgoom/trigger.h"

/* MEMCG_CHARGE_BATCH (pages). */
#define CGOOM_CHARGE_BATCH_PAGES 64

/* /proc/vmstat: the sum of every pgalloc_<zone> counter (pages
 * allocated since boot, monotone). -ENOENT when there is none, -EBADMSG
 * when a pgalloc line is malformed, -EOVERFLOW when the sum overflows. */
int cgoom_parse_vmstat_pgalloc(const char *buf, size_t len, uint64_t *ret);
/* The same from the head of /proc/vmstat: what one read returned (the
 * kernel hands the file out a page at a time, and computes every
 * counter again for each page). Only whole lines count, and the
 * pgalloc_ lines (one block, as the kernel prints them) must be
 * followed by a whole line of another counter: otherwise -EAGAIN (read
 * the whole file). */
int cgoom_parse_vmstat_pgalloc_head(const char *buf, size_t len, uint64_t *ret);
/* Whether the whole of /proc/vmstat holds its pgalloc_ lines in one
 * block (as every kernel prints them), so that the head parse, which
 * counts the first block, counts them all: checked once, at start. */
bool cgoom_vmstat_pgalloc_one_block(const char *buf, size_t len);
/* How much of a whole /proc/vmstat the head parse needs: the bytes up
 * to the end of the whole line after its pgalloc_ block. 0 when that
 * is not known (no such block, another after it, or no whole line
 * after it). The kernel formats lines only until it holds the bytes a
 * read asked for, so the tick asks for this much (and a little more, for counters
 * before the block that gain digits) rather than a page. */
size_t cgoom_vmstat_pgalloc_head_len(const char *buf, size_t len);

/* The pages a memcg's memory.current can gain beyond the pages
 * allocated system-wide: (CGOOM_CHARGE_BATCH_PAGES + 1) per online CPU
 * (n_cpus 0: unknown, which makes the budget unusable: UINT64_MAX). */
uint64_t cgoom_alloc_slack_pages(unsigned n_cpus);

/* The memory.current at which a quiet cgroup domain could first need
 * looking at (its standby begins a margin before the line it fires
 * at): memory.max - 2 x margin, or, guarded, memory.high - margin if
 * that is lower. 0 when there is no such line below memory.current's
 * range (an unlimited or tiny domain). */
uint64_t cgoom_watch_line(const struct cgoom_cgroup_sample *s, const struct cgoom_cgroup_params *p);

/* How many pages may be allocated system-wide before a domain at
 * memory.current `current` with watch line `line` must be sampled
 * again: half the distance in pages (so the next sample comes while
 * the domain's growth can still be measured well before the line),
 * less the slack. 0: none (the domain is paced by time instead). */
uint64_t cgoom_alloc_room_pages(uint64_t current, uint64_t line, uint64_t slack_pages,
				uint64_t page_size);
