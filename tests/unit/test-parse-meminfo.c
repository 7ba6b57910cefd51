/* SPDX-License-Identifier: MIT */
/* /proc/meminfo's one-pass read of the kernel's lines against the token
 * parse of every line (cgoom_parse_meminfo_lines, fast off): the same
 * result, error and figures on the kernel's files, on every one-byte
 * change and cut of them, and on random lines made of the bytes the
 * format turns on. Then the daemon's read (cgoom_parse_meminfo_again):
 * the lines it uses where the last whole parse found them, the whole
 * file at least every CGOOM_MEMINFO_WHOLE_EVERY reads. Every input sits
 * at the end of a guarded page. */
#include "differential.h"
#include "parse-samples.h"

DEFINE_DO(meminfo_fast, struct cgoom_meminfo, cgoom_parse_meminfo_lines(b, n, true, out))
DEFINE_DO(meminfo_ref, struct cgoom_meminfo, cgoom_parse_meminfo_lines(b, n, false, out))

static void compare(struct tally *t, const char *s, size_t n)
{
	struct cgoom_meminfo a, b;
	int ra = do_meminfo_fast(s, n, &a), rb = do_meminfo_ref(s, n, &b);
	diff_count(t, ra, rb, ra == rb && (ra < 0 || memcmp(&a, &b, sizeof(a)) == 0), s, n);
}

static const char *const kernel_files[] = { meminfo_61, "MemTotal: 1 kB",
					    "HugePages_Total:   7\nMemTotal: 2 kB\n",
					    "MemTotal: 18446744073709551615 kB\nSwapFree: 9999999999999999999 kB\n" };

/* every byte of the kernel's files replaced by each byte the format
 * turns on, deleted, doubled; and every cut */
static void test_meminfo_one_pass_edits(void)
{
	static const char bytes[] = { '0', '9', ' ', '\t', ':', '\n', 'k', 'B', '\r', '\0', '-', 'x' };
	struct tally t = { 0 };
	for (size_t f = 0; f < sizeof(kernel_files) / sizeof(kernel_files[0]); f++)
		diff_edits(&t, compare, kernel_files[f], bytes, sizeof(bytes));
	diff_check(&t, 1000);
}

/* files of 1-6 random lines, half of them after a MemTotal line: a key (one cgoom uses, another, or none),
 * blanks, digits (up to 21), a unit, stray bytes */
static void test_meminfo_one_pass_random(void)
{
	static const char *const keys[] = { "MemTotal", "MemAvailable", "SwapFree", "Shmem",
					    "HugePages_Total", "Dirty", "", "Mem Total" };
	static const char *const units[] = { " kB", "", " kB ", "\tkB", " k", " kBB", " MB", " kB\r" };
	struct tally t = { 0 };
	uint64_t x = 0x9e3779b97f4a7c15ull;
	char buf[1024];
	for (unsigned c = 0; c < 200000; c++) {
		size_t n = diff_rand(&x) % 2 ? (size_t)sprintf(buf, "MemTotal: %u kB\n", c) : 0;
		unsigned lines = 1 + (unsigned)(diff_rand(&x) % 6);
		for (unsigned l = 0; l < lines; l++) {
			uint64_t r = diff_rand(&x);
			n += (size_t)sprintf(buf + n, "%s%s", keys[r % 8], (r >> 3) % 16 ? ":" : "");
			for (unsigned b = (unsigned)((r >> 7) % 4); b; b--)
				buf[n++] = (r >> (10 + b)) & 1 ? '\t' : ' ';
			for (unsigned d = (unsigned)((r >> 16) % 22); d; d--)
				buf[n++] = (char)('0' + diff_rand(&x) % 10);
			n += (size_t)sprintf(buf + n, "%s", units[(r >> 21) % 2 ? 0 : (r >> 22) % 8]);
			if ((r >> 24) % 32 == 0)
				buf[n++] = "x\0:9"[(r >> 29) % 4];
			if (l + 1 < lines || (r >> 31) % 2)
				buf[n++] = '\n';
		}
		compare(&t, buf, n);
	}
	diff_check(&t, 1000);
}

/* cgoom_parse_meminfo_again on a guarded copy; *out untouched on error
 * (TOUCHED otherwise, as DEFINE_DO) */
static int again_want(const char *s, size_t n, struct cgoom_meminfo_layout *lay, unsigned want,
		      struct cgoom_meminfo *out)
{
	struct gbuf g = gbuf_new(s, n);
	memset(out, SENTINEL, sizeof(*out));
	int r = cgoom_parse_meminfo_again(g.p, n, lay, want, out);
	gbuf_free(&g);
	if (r < 0 && !all_sentinel(out, sizeof(*out)))
		return TOUCHED;
	return r;
}

static int again(const char *s, size_t n, struct cgoom_meminfo_layout *lay, struct cgoom_meminfo *out)
{
	return again_want(s, n, lay, CGOOM_MEMINFO_ALL, out);
}

/* The figures of a, each present in b with the same value. */
static bool figures_within(const struct cgoom_meminfo *a, const struct cgoom_meminfo *b)
{
	const uint64_t *va = &a->mem_total, *vb = &b->mem_total;
	if ((a->present & b->present) != a->present)
		return false;
	for (unsigned i = 0; i < CGOOM_MEMINFO_N_KEYS; i++)
		if ((a->present & (1u << i)) && va[i] != vb[i])
			return false;
	return true;
}

/* Whether byte i of s lies on a line whose key cgoom uses. */
static bool on_used_line(const char *s, size_t i)
{
	static const char *const used[] = { "MemTotal:", "MemFree:", "MemAvailable:", "SwapTotal:",
					    "SwapFree:", "Active(anon):", "Inactive(anon):",
					    "SUnreclaim:", "KernelStack:", "Shmem:", "Mapped:" };
	size_t b = i;
	while (b > 0 && s[b - 1] != '\n')
		b--;
	for (size_t k = 0; k < sizeof(used) / sizeof(used[0]); k++)
		if (strncmp(s + b, used[k], strlen(used[k])) == 0)
			return true;
	return false;
}

/* Every one-byte change of the kernel's file that keeps its length, read
 * after the file itself: where the whole parse reads it, the same
 * figures; where the whole parse refuses it, the same error, unless the
 * change is on a line cgoom does not use (refused at the next whole
 * parse; so is a line that the change made one of a used key's, as
 * "Shmem:ugePages: 0 kB", a key twice). */
static void test_meminfo_again_edits(void)
{
	static const char bytes[] = { '0', '9', ' ', '\t', ':', '\n', 'k', 'B', '\0', 'x' };
	const size_t n = strlen(meminfo_61);
	char buf[4096];
	struct cgoom_meminfo_layout primed = { 0 };
	struct cgoom_meminfo first, whole, mi;
	CHECK_EQ_INT(again(meminfo_61, n, &primed, &first), 0);
	CHECK_EQ_INT(primed.present, 0x7ff);
	CHECK_EQ_INT(primed.since_whole, 0);
	unsigned same = 0, later = 0, wrong = 0, taken_at = 0;
	for (size_t i = 0; i < n; i++) {
		memcpy(buf, meminfo_61, n);
		for (size_t b = 0; b < sizeof(bytes); b++) {
			buf[i] = bytes[b];
			struct cgoom_meminfo_layout lay = primed;
			int rw = do_meminfo_fast(buf, n, &whole), ra = again(buf, n, &lay, &mi);
			if (lay.since_whole == 1)
				taken_at++;
			if (rw == 0 && ra == 0 && figures_within(&mi, &whole))
				same++;
			else if (rw < 0 && ra == rw)
				same++;
			else if (rw < 0 && ra == 0 && !on_used_line(meminfo_61, i) &&
				 memcmp(&mi, &first, sizeof(mi)) == 0)
				later++;
			else if (wrong++ == 0)
				printf("# byte %zu to 0x%02x: whole %d, again %d\n", i, (unsigned char)bytes[b], rw, ra);
		}
	}
	printf("# %u as the whole parse, %u refused at the next whole parse, %u read at the last layout\n",
	       same, later, taken_at);
	CHECK_EQ_INT(wrong, 0);
	CHECK(same > 1000 && later > 1000 && taken_at > 1000);
}

/* A line cgoom does not use, malformed at the same length: read over for
 * CGOOM_MEMINFO_WHOLE_EVERY - 1 reads, refused at the next, whole again
 * after it. */
static void test_meminfo_again_whole_every(void)
{
	const size_t n = strlen(meminfo_61);
	char bad[4096];
	memcpy(bad, meminfo_61, n);
	char *b = strstr(bad, "Buffers:            2484 kB");
	CHECK(b != NULL);
	b[strlen("Buffers:            24")] = 'x';
	struct cgoom_meminfo_layout lay = { 0 };
	struct cgoom_meminfo mi;
	CHECK_EQ_INT(do_meminfo_fast(bad, n, &mi), -EBADMSG);
	CHECK_EQ_INT(again(meminfo_61, n, &lay, &mi), 0);
	for (unsigned i = 1; i < CGOOM_MEMINFO_WHOLE_EVERY; i++) {
		CHECK_EQ_INT(again(bad, n, &lay, &mi), 0);
		CHECK_EQ_INT(lay.since_whole, i);
		CHECK_EQ_U64(mi.mem_available, 24334060ull * 1024);
	}
	CHECK_EQ_INT(again(bad, n, &lay, &mi), -EBADMSG);
	CHECK_EQ_U64(lay.len, 0);
	CHECK_EQ_INT(again(bad, n, &lay, &mi), -EBADMSG);
	CHECK_EQ_INT(again(meminfo_61, n, &lay, &mi), 0);
	CHECK_EQ_INT(lay.since_whole, 0);
}

/* Figures that change in place are read where they are; a line moved by
 * a figure before it, or a length that changed, is a whole parse. */
static void test_meminfo_again_moves(void)
{
	struct cgoom_meminfo_layout lay = { 0 };
	struct cgoom_meminfo mi;
	CHECK_EQ_INT(again(S("MemTotal: 1 kB\nMemFree: 22 kB\n"), &lay, &mi), 0);
	CHECK_EQ_INT(again(S("MemTotal: 3 kB\nMemFree: 45 kB\n"), &lay, &mi), 0);
	CHECK_EQ_INT(lay.since_whole, 1);
	CHECK_EQ_U64(mi.mem_total, 3 * 1024);
	CHECK_EQ_U64(mi.mem_free, 45 * 1024);
	CHECK_EQ_INT(again(S("MemTotal: 11 kB\nMemFree: 2 kB\n"), &lay, &mi), 0);
	CHECK_EQ_INT(lay.since_whole, 0);
	CHECK_EQ_U64(mi.mem_total, 11 * 1024);
	CHECK_EQ_U64(mi.mem_free, 2 * 1024);
	CHECK_EQ_INT(again(S("MemTotal: 111 kB\nMemFree: 2 kB\n"), &lay, &mi), 0);
	CHECK_EQ_INT(lay.since_whole, 0);
	CHECK_EQ_U64(mi.mem_total, 111 * 1024);
	/* same length, a key renamed where it was: whole, and it is gone */
	CHECK_EQ_INT(again(S("MemTotal: 111 kB\nMemFrex: 2 kB\n"), &lay, &mi), 0);
	CHECK_EQ_INT(lay.since_whole, 0);
	CHECK_EQ_INT(mi.present, CGOOM_MEMINFO_MEM_TOTAL);
	/* a used line's figure malformed in place: refused at once */
	CHECK_EQ_INT(again(S("MemTotal: 1x1 kB\nMemFrex: 2 kB\n"), &lay, &mi), -EBADMSG);
	CHECK_EQ_INT(again(S("MemTotal: 111 kB\nMemFrex: 2 kB\n"), &lay, &mi), 0);
	CHECK_EQ_INT(again(NULL, 0, &lay, &mi), -ENOENT);
	CHECK_EQ_U64(lay.len, 0);
	/* a used key's bytes where its line was, but not at a line's start:
	 * whole (which finds no Shmem) */
	CHECK_EQ_INT(again(S("MemTotal: 7 kB\nA:1\nShmem: 3 kB\n"), &lay, &mi), 0);
	CHECK_EQ_INT(mi.present, CGOOM_MEMINFO_MEM_TOTAL | CGOOM_MEMINFO_SHMEM);
	CHECK_EQ_INT(again(S("MemTotal: 7 kB\nA:1XShmem: 3 kB\n"), &lay, &mi), -EBADMSG);
	CHECK_EQ_INT(again(S("MemTotal: 7 kB\nA:1\nShmem: 3 kB\n"), &lay, &mi), 0);
	CHECK_EQ_INT(again(S("MemTotal: 7 kB\nA:1\nAShmem: 3 kB\n"), &lay, &mi), 0);
	CHECK_EQ_INT(lay.since_whole, 0);
	CHECK_EQ_INT(mi.present, CGOOM_MEMINFO_MEM_TOTAL);
	/* a file that ends without '\n' at the same length: whole, and no read
	 * past its end (the guarded page) */
	CHECK_EQ_INT(again(S("MemTotal: 111 kB\nMemFree: 2 kB\n"), &lay, &mi), 0);
	CHECK_EQ_INT(again(S("MemTotal: 111 kB\nMemFree: 22222"), &lay, &mi), -EBADMSG);
	CHECK_EQ_INT(again(S("MemTotal: 111 kB\nMemFree: 2 kB\n"), &lay, &mi), 0);
	CHECK_EQ_INT(again(S("MemTotal: 111 kB\nMemFree: 2 kBx"), &lay, &mi), -EBADMSG);
}

/* Only the wanted keys come back, whole parse or not; a line not wanted
 * is not read between whole parses (refused at the next), a wanted one
 * is. */
static void test_meminfo_again_want(void)
{
	const unsigned want = CGOOM_MEMINFO_MEM_TOTAL | CGOOM_MEMINFO_MEM_AVAILABLE;
	const size_t n = strlen(meminfo_61);
	char shmem_bad[4096], avail_bad[4096];
	memcpy(shmem_bad, meminfo_61, n);
	memcpy(avail_bad, meminfo_61, n);
	strstr(shmem_bad, "Shmem:              9568 kB")[strlen("Shmem:              95")] = 'x';
	strstr(avail_bad, "MemAvailable:   24334060 kB")[strlen("MemAvailable:   2433")] = 'x';
	struct cgoom_meminfo_layout lay = { 0 };
	struct cgoom_meminfo mi;
	CHECK_EQ_INT(again_want(meminfo_61, n, &lay, want, &mi), 0);
	CHECK_EQ_INT(lay.since_whole, 0);
	CHECK_EQ_INT(mi.present, want);
	CHECK_EQ_U64(mi.mem_total, 24683664ull * 1024);
	CHECK_EQ_U64(mi.mem_available, 24334060ull * 1024);
	CHECK_EQ_U64(mi.shmem, 0);
	CHECK_EQ_U64(mi.swap_free, 0);
	CHECK_EQ_INT(again_want(shmem_bad, n, &lay, want, &mi), 0);
	CHECK_EQ_INT(lay.since_whole, 1);
	CHECK_EQ_INT(mi.present, want);
	CHECK_EQ_U64(mi.shmem, 0);
	CHECK_EQ_INT(again_want(shmem_bad, n, &lay, CGOOM_MEMINFO_ALL, &mi), -EBADMSG);
	CHECK_EQ_INT(again_want(meminfo_61, n, &lay, want, &mi), 0);
	CHECK_EQ_INT(again_want(avail_bad, n, &lay, want, &mi), -EBADMSG);
}

/* One line by its key (explain's zswap facts): as the token parse reads
 * a key cgoom uses; its value untouched on every failure. */
static void test_meminfo_key(void)
{
	uint64_t v = 0;
	CHECK_EQ_INT(cgoom_parse_meminfo_key(meminfo_61, strlen(meminfo_61), "SwapFree", &v), 0);
	CHECK_EQ_U64(v, 8000000ULL * 1024);
	/* "Zswap" is its own line, not the start of "Zswapped" */
	const char *z = "MemTotal: 1000 kB\nZswapped:  3000 kB\nZswap:    1200 kB\n";
	CHECK_EQ_INT(cgoom_parse_meminfo_key(z, strlen(z), "Zswap", &v), 0);
	CHECK_EQ_U64(v, 1200 * 1024);
	CHECK_EQ_INT(cgoom_parse_meminfo_key(z, strlen(z), "Zswapped", &v), 0);
	CHECK_EQ_U64(v, 3000 * 1024);
	/* the file's last line may lack its newline */
	CHECK_EQ_INT(cgoom_parse_meminfo_key("Zswap: 4 kB", 11, "Zswap", &v), 0);
	CHECK_EQ_U64(v, 4096);
	static const struct {
		const char *file;
		int rc;
	} bad[] = {
		{ "MemTotal: 1000 kB\n", -ENOENT },       /* an older kernel, or no zswap */
		{ "Zswap: 1 kB\nZswap: 2 kB\n", -EBADMSG }, /* repeated */
		{ "Zswap: 12\n", -EBADMSG },                /* no kB */
		{ "Zswap: 12 MB\n", -EBADMSG },
		{ "Zswap: -1 kB\n", -EBADMSG },
		{ "Zswap: 1 kB 2\n", -EBADMSG },
		{ "Zswap:\n", -EBADMSG },
		{ "Zswap: 99999999999999999999 kB\n", -ERANGE },
		{ " Zswap: 1 kB\n", -ENOENT }, /* not at a line's start */
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		v = 77;
		CHECK_EQ_INT(cgoom_parse_meminfo_key(bad[i].file, strlen(bad[i].file), "Zswap", &v), bad[i].rc);
		CHECK_EQ_U64(v, 77);
	}
	CHECK_EQ_INT(cgoom_parse_meminfo_key(NULL, 1, "Zswap", &v), -EINVAL);
	CHECK_EQ_INT(cgoom_parse_meminfo_key(z, strlen(z), "", &v), -EINVAL);
	CHECK_EQ_INT(cgoom_parse_meminfo_key(NULL, 0, "Zswap", &v), -ENOENT);
}

int main(void)
{
	return tap_run((struct tap_test[]){
		TAP(test_meminfo_one_pass_edits),
		TAP(test_meminfo_one_pass_random),
		TAP(test_meminfo_again_edits),
		TAP(test_meminfo_again_whole_every),
		TAP(test_meminfo_again_moves),
		TAP(test_meminfo_again_want),
		TAP(test_meminfo_key),
		{ 0 },
	});
}
