/* SPDX-License-Identifier: MIT */
/* The allocation budget: see include/cgoom/budget.h. */
#include <errno.h>
#include <stdbool.h>
#include <string.h>

#include "cgoom/budget.h"
#include "parse-internal.h"

static uint64_t above(uint64_t v, uint64_t floor)
{
	return v > floor ? v - floor : 0;
}

int cgoom_parse_vmstat_pgalloc(const char *buf, size_t len, uint64_t *ret)
{
	if (!buf && len)
		return -EINVAL;
	const char *pos = buf, *end = parse_end(buf, len), *line;
	size_t n;
	uint64_t sum = 0;
	bool any = false;
	while (parse_next_line(&pos, end, &line, &n)) {
		const char *lp = line, *lend = line + n, *key, *val, *extra;
		size_t kn, vn, xn;
		/* pgalloc_dma, pgalloc_dma32, pgalloc_normal, pgalloc_movable,
		 * pgalloc_high, pgalloc_device: one per zone the kernel has */
		if (!parse_next_token(&lp, lend, &key, &kn) || kn <= 8 ||
		    memcmp(key, "pgalloc_", 8) != 0)
			continue;
		if (!parse_next_token(&lp, lend, &val, &vn) || parse_next_token(&lp, lend, &extra, &xn))
			return -EBADMSG;
		uint64_t v;
		int r = parse_digits_u64(val, vn, &v);
		if (r < 0)
			return -EBADMSG;
		if (v > UINT64_MAX - sum)
			return -EOVERFLOW;
		sum += v;
		any = true;
	}
	if (!any)
		return -ENOENT;
	*ret = sum;
	return 0;
}

/* Whether a line's first token is a pgalloc_<zone> key (as the whole
 * parse counts them). */
static bool pgalloc_line(const char *line, size_t n)
{
	const char *lp = line, *key;
	size_t kn;
	return parse_next_token(&lp, line + n, &key, &kn) && kn > 8 && memcmp(key, "pgalloc_", 8) == 0;
}

/* Where the first block of pgalloc_ lines ends, within whole lines of
 * buf: the start of the whole line after it, or NULL (none, or the block
 * runs to the end). *ret_more: another pgalloc_ line after that. */
static const char *pgalloc_block_end(const char *buf, const char *end, bool *ret_more)
{
	const char *pos = buf, *line, *block_end = NULL;
	size_t n;
	bool in_block = false;
	*ret_more = false;
	while (parse_next_line(&pos, end, &line, &n)) {
		bool pg = pgalloc_line(line, n);
		if (block_end) {
			if (pg) {
				*ret_more = true;
				break;
			}
		} else if (pg) {
			in_block = true;
		} else if (in_block) {
			block_end = line;
		}
	}
	return block_end;
}

int cgoom_parse_vmstat_pgalloc_head(const char *buf, size_t len, uint64_t *ret)
{
	if (!buf && len)
		return -EINVAL;
	/* whole lines only: a cut-off value would under-count */
	const char *end = parse_whole_lines_end(buf, len);
	bool more;
	const char *block_end = pgalloc_block_end(buf, end, &more);
	if (!block_end || more)
		return -EAGAIN;
	return cgoom_parse_vmstat_pgalloc(buf, (size_t)(block_end - buf), ret);
}

bool cgoom_vmstat_pgalloc_one_block(const char *buf, size_t len)
{
	if (!buf)
		return false;
	bool more;
	const char *end = parse_end(buf, len);
	const char *block_end = pgalloc_block_end(buf, end, &more);
	/* a block that runs to the end of the file is one block too */
	if (!block_end) {
		const char *pos = buf, *line;
		size_t n;
		while (parse_next_line(&pos, end, &line, &n))
			if (pgalloc_line(line, n))
				return true;
		return false;
	}
	return !more;
}

size_t cgoom_vmstat_pgalloc_head_len(const char *buf, size_t len)
{
	if (!buf)
		return 0;
	bool more;
	const char *end = parse_end(buf, len);
	const char *block_end = pgalloc_block_end(buf, end, &more);
	if (!block_end || more)
		return 0;
	/* the head parse needs the line after the block whole */
	const char *nl = memchr(block_end, '\n', (size_t)(end - block_end));
	return nl ? (size_t)(nl + 1 - buf) : 0;
}

uint64_t cgoom_alloc_slack_pages(unsigned n_cpus)
{
	if (n_cpus == 0)
		return UINT64_MAX;
	return (uint64_t)n_cpus * (CGOOM_CHARGE_BATCH_PAGES + 1);
}

uint64_t cgoom_watch_line(const struct cgoom_cgroup_sample *s, const struct cgoom_cgroup_params *p)
{
	if (s->max == UINT64_MAX)
		return 0;
	uint64_t m2 = p->margin > UINT64_MAX / 2 ? UINT64_MAX : 2 * p->margin;
	uint64_t line = above(s->max, m2);
	if (p->guarded && s->high != UINT64_MAX) {
		uint64_t g = above(s->high, p->margin);
		if (g < line)
			line = g;
	}
	return line;
}

uint64_t cgoom_alloc_room_pages(uint64_t current, uint64_t line, uint64_t slack_pages,
				uint64_t page_size)
{
	if (page_size == 0 || slack_pages == UINT64_MAX)
		return 0;
	uint64_t half = above(line, current) / 2 / page_size;
	return above(half, slack_pages);
}
