/* SPDX-License-Identifier: MIT */
/* The "key value" files (memory.stat, memory.events, /proc/vmstat): the
 * kernel's lines read by memchr against the token parse of every line
 * (parse_flat_keyed_lines, fast off): the same result, error and figures
 * on the kernel's files, on every one-byte change, deletion, insertion
 * and cut of them, and on random lines. The reference compares every
 * key by its string, so the fast read's key filter is held to it too. Every input sits
 * at the end of a guarded page. */
#include "lib/parse-internal.h"
#include "differential.h"
#include "parse-samples.h"

struct out {
	uint64_t v[14];
};

#define K(lit, i) FLAT_KEY(lit, 1u << (i), offsetof(struct out, v[i]))
/* keys of one length and first byte, first bytes alike in their low 5
 * bits ('a', 'A', '!'), a byte over 0x7f, a key of 64 bytes and more */
static const struct flat_key keys[] = {
	K("anon", 0),          K("file", 1),          K("pgscan_kswapd", 2), K("pgscan_direct", 3),
	K("oom_kill", 4),      K("max", 5),           K("workingset_refault_anon", 6),
	K("pgsteal_kswapd", 7), K("a", 8),            K("oom", 9),          K("A", 10),
	K("!", 11),            K("\xe9t\xe9", 12),
	K("k_0123456789_0123456789_0123456789_0123456789_0123456789_0123456789", 13),
};
#define N_KEYS (sizeof(keys) / sizeof(keys[0]))

static const char vmstat_head[] = "nr_free_pages 5907385\nnr_zone_inactive_anon 1728\n"
				  "workingset_refault_anon 0\nworkingset_refault_file 3\n"
				  "pgscan_kswapd 300\npgscan_direct 200\npgscan_khugepaged 1\n"
				  "pgsteal_kswapd 250\noom_kill 18446744073709551615\noom 2\n";

static int parse(const char *s, size_t n, bool fast, struct out *o, unsigned *present)
{
	struct gbuf g = gbuf_new(s, n);
	memset(o, SENTINEL, sizeof(*o));
	*present = 0xdead;
	int r = parse_flat_keyed_lines(g.p, n, keys, N_KEYS, o, present, fast);
	gbuf_free(&g);
	return r;
}

static void compare(struct tally *t, const char *s, size_t n)
{
	struct out a, b;
	unsigned pa, pb;
	int ra = parse(s, n, true, &a, &pa), rb = parse(s, n, false, &b, &pb);
	/* out is written as lines are read: compared on success only */
	diff_count(t, ra, rb, ra == rb && (ra < 0 || (pa == pb && memcmp(&a, &b, sizeof(a)) == 0)), s, n);
}

static void test_flat_memchr_edits(void)
{
	static const char bytes[] = { '0', '9', ' ', '\t', '\n', 'a', 'x', '\r', '\0', '_' };
	const char *const files[] = { memstat_61, memevents_real, vmstat_head, "a 1", "max 5\n\n",
				      "A 2\n! 3\n\xe9t\xe9 4\na 5\n" };
	struct tally t = { 0 };
	for (size_t f = 0; f < sizeof(files) / sizeof(files[0]); f++)
		diff_edits(&t, compare, files[f], bytes, sizeof(bytes));
	diff_check(&t, 1000);
}

/* files of 1-8 random lines: a key (of the table, near one, or none),
 * blanks before, between and after, 0-21 digits, a third token */
static void test_flat_memchr_random(void)
{
	static const char *const names[] = { "anon", "file", "oom", "oom_kill", "a", "A", "!", "\xe9t\xe9",
					      "\xe9t", "pgscan_kswapd", "pgscan_kswapx", "fil", "", "max",
					      "nr_free_pages",
					      "k_0123456789_0123456789_0123456789_0123456789_0123456789_0123456789" };
	static const char *const gaps[] = { " ", " ", " ", "\t", "  ", " \t", "" };
	struct tally t = { 0 };
	uint64_t x = 0x2545f4914f6cdd1dull;
	char buf[1024];
	for (unsigned c = 0; c < 200000; c++) {
		size_t n = 0;
		unsigned lines = 1 + (unsigned)(diff_rand(&x) % 8);
		for (unsigned l = 0; l < lines; l++) {
			uint64_t r = diff_rand(&x);
			if (r % 16 == 0)
				buf[n++] = ' ';
			n += (size_t)sprintf(buf + n, "%s%s", names[(r >> 4) % 16], gaps[(r >> 8) % 7]);
			for (unsigned d = (unsigned)((r >> 11) % 8 ? 1 + (r >> 14) % 6 : (r >> 17) % 22); d; d--)
				buf[n++] = (char)('0' + diff_rand(&x) % 10);
			if ((r >> 22) % 16 == 0)
				n += (size_t)sprintf(buf + n, "%s", (r >> 26) % 2 ? " 7" : " ");
			if ((r >> 27) % 32 == 0)
				buf[n++] = "x\r\0-"[(r >> 32) % 4];
			if (l + 1 < lines || (r >> 34) % 4)
				buf[n++] = '\n';
		}
		compare(&t, buf, n);
	}
	diff_check(&t, 10000);
}

int main(void)
{
	return tap_run((struct tap_test[]){
		TAP(test_flat_memchr_edits),
		TAP(test_flat_memchr_random),
		{ 0 },
	});
}
