/* SPDX-License-Identifier: MIT */
/* The guard band's record (cgoom/guard.h): parse, format, and what a
 * starting daemon makes of a record it finds. */
#include <errno.h>

#include "cgoom/guard.h"
#include "tap.h"

#define S(lit) (lit), (sizeof(lit) - 1)
#define MiB (UINT64_C(1) << 20)

static void test_parse(void)
{
	struct cgoom_guard_record r;
	CHECK_EQ_INT(cgoom_guard_record_parse(S("1 123 4567 max 369098752"), &r), 0);
	CHECK_EQ_INT(r.pid, 123);
	CHECK_EQ_U64(r.start, 4567);
	CHECK(r.old == UINT64_MAX);
	CHECK_EQ_U64(r.ours, 369098752);
	CHECK(r.prev == UINT64_MAX);
	CHECK_EQ_INT(cgoom_guard_record_parse(S("1 9 0 314572800 262144000 209715200\0"), &r), 0);
	CHECK_EQ_U64(r.old, 314572800);
	CHECK_EQ_U64(r.ours, 262144000);
	CHECK_EQ_U64(r.prev, 209715200);
	CHECK_EQ_INT(cgoom_guard_record_parse(S("1 9 0 max 4096\n"), &r), 0);
}

static void test_parse_hostile(void)
{
	static const struct {
		const char *s;
		size_t n;
	} bad[] = {
		{ S("") },
		{ S("\0") },
		{ S("1") },
		{ S("1 123 4567 max") },                      /* OURS missing */
		{ S("0 123 4567 max 4096") },                 /* no version 0 */
		{ S("01 123 4567 max 4096") },
		{ S("2\t123") },                              /* not "VERSION TEXT" */
		{ S("2 123\x01") },
		{ S("x2 123") },
		{ S("1 123 4567 max 4096 8192 1") },          /* a field too many */
		{ S("1 123 4567 max max") },                  /* OURS is a number */
		{ S("1 123 4567 max 4096 max") },             /* so is PREV */
		{ S("1 0 4567 max 4096") },                   /* no PID 0 */
		{ S("1 2147483648 4567 max 4096") },          /* PID beyond int */
		{ S("1 -1 4567 max 4096") },
		{ S("1 123 4567 max nonsense") },
		{ S("1  123 4567 max 4096") },                /* empty field */
		{ S("1 123 4567 max 4096 ") },
		{ S(" 1 123 4567 max 4096") },
		{ S("1\t123 4567 max 4096") },
		{ S("1 123 4567 Max 4096") },
		{ S("1 123 4567 max 18446744073709551615") }, /* UINT64_MAX only as "max" */
		{ S("1 123 4567 max 18446744073709551616") },
		{ S("1 123 4567 max 4096\0junk") },
		{ S("1 123 4567 max 4096\n\n") },
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct cgoom_guard_record r = { .pid = 77 };
		if (cgoom_guard_record_parse(bad[i].s, bad[i].n, &r) != -EBADMSG) {
			printf("# accepted bad record %zu\n", i);
			CHECK(0);
		}
		CHECK_EQ_INT(r.pid, 77); /* untouched */
	}
}

/* A later format's record is told from garbage: a daemon after a
 * downgrade keeps it (it removed it as malformed, stranding the band). */
static void test_parse_other_version(void)
{
	static const struct {
		const char *s;
		size_t n;
	} other[] = {
		{ S("2 123 4567 max 4096") },
		{ S("11 123 4567 max 4096") },
		{ S("2 12345 1 max 369098752 flags=x\0") },
		{ S("3\n") },
	};
	for (size_t i = 0; i < sizeof(other) / sizeof(other[0]); i++) {
		struct cgoom_guard_record r = { .pid = 77 };
		if (cgoom_guard_record_parse(other[i].s, other[i].n, &r) != -EPROTONOSUPPORT) {
			printf("# record %zu not taken for another version\n", i);
			CHECK(0);
		}
		CHECK_EQ_INT(r.pid, 77); /* untouched */
	}
}

static void test_format_roundtrip(void)
{
	const struct cgoom_guard_record recs[] = {
		{ .pid = 1, .start = 0, .old = UINT64_MAX, .ours = 352 * MiB, .prev = UINT64_MAX },
		{ .pid = 2147483647, .start = UINT64_MAX - 1, .old = UINT64_MAX - 1,
		  .ours = UINT64_MAX - 1, .prev = UINT64_MAX - 1 },
		{ .pid = 42, .start = 9, .old = 0, .ours = 0, .prev = 4096 },
	};
	for (size_t i = 0; i < sizeof(recs) / sizeof(recs[0]); i++) {
		char buf[CGOOM_GUARD_RECORD_MAX];
		int n = cgoom_guard_record_format(&recs[i], buf, sizeof(buf));
		CHECK(n > 0 && (size_t)n == strlen(buf));
		struct cgoom_guard_record r;
		CHECK_EQ_INT(cgoom_guard_record_parse(buf, (size_t)n, &r), 0);
		CHECK(r.pid == recs[i].pid && r.start == recs[i].start && r.old == recs[i].old &&
		      r.ours == recs[i].ours && r.prev == recs[i].prev);
	}
	char small[8];
	CHECK_EQ_INT(cgoom_guard_record_format(&recs[0], small, sizeof(small)), -ENOSPC);
	char buf[64];
	CHECK(cgoom_guard_record_format(&recs[0], buf, sizeof(buf)) > 0);
	CHECK_STREQ(buf, "1 1 0 max 369098752");
}

static void test_judge(void)
{
	const struct cgoom_guard_record r = {
		.pid = 5, .start = 6, .old = UINT64_MAX, .ours = 352 * MiB, .prev = 300 * MiB,
	};
	/* no record: the memory.high found is the operator's */
	CHECK_EQ_INT(cgoom_guard_judge(NULL, false, 352 * MiB, false), CGOOM_GUARD_ABSENT);
	CHECK_EQ_INT(cgoom_guard_judge(NULL, true, 352 * MiB, false), CGOOM_GUARD_MALFORMED);
	/* the band a daemon killed with SIGKILL left */
	CHECK_EQ_INT(cgoom_guard_judge(&r, false, 352 * MiB, false), CGOOM_GUARD_LEFT);
	/* ... or the one it wrote just before (killed between the record's
	 * update and the write) */
	CHECK_EQ_INT(cgoom_guard_judge(&r, false, 300 * MiB, false), CGOOM_GUARD_LEFT);
	/* the operator set memory.high since: theirs */
	CHECK_EQ_INT(cgoom_guard_judge(&r, false, 200 * MiB, false), CGOOM_GUARD_STALE);
	CHECK_EQ_INT(cgoom_guard_judge(&r, false, UINT64_MAX, false), CGOOM_GUARD_STALE);
	/* its writer still runs: its band, whatever memory.high holds */
	CHECK_EQ_INT(cgoom_guard_judge(&r, false, 352 * MiB, true), CGOOM_GUARD_LIVE);
	CHECK_EQ_INT(cgoom_guard_judge(&r, false, 200 * MiB, true), CGOOM_GUARD_LIVE);
	/* no PREV: "max" is never taken for one */
	const struct cgoom_guard_record np = { .pid = 5, .start = 6, .old = 0, .ours = 4096, .prev = UINT64_MAX };
	CHECK_EQ_INT(cgoom_guard_judge(&np, false, UINT64_MAX, false), CGOOM_GUARD_STALE);
}

static void test_high_value(void)
{
	/* the kernel keeps whole pages: memory.max 400M - guard_band 1000 */
	CHECK_EQ_U64(cgoom_guard_high_value(400 * MiB - 1000, 4096), 400 * MiB - 4096);
	CHECK_EQ_U64(cgoom_guard_high_value(352 * MiB, 4096), 352 * MiB);
	CHECK_EQ_U64(cgoom_guard_high_value(4095, 4096), 0);
	CHECK_EQ_U64(cgoom_guard_high_value(70000, 65536), 65536);
	CHECK(cgoom_guard_high_value(UINT64_MAX, 4096) == UINT64_MAX);
}

int main(void)
{
	return tap_run((struct tap_test[]){
		TAP(test_parse),
		TAP(test_parse_hostile),
		TAP(test_parse_other_version),
		TAP(test_format_roundtrip),
		TAP(test_judge),
		TAP(test_high_value),
		{ 0 },
	});
}
