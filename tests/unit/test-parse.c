/* SPDX-License-Identifier: MIT */
/* Parsers of whole cgroup and system files (memory.stat, memory.events, cgroup.events, cgroup.stat, PSI, meminfo, sockstat): real and hostile input. The /proc/PID files: test-parse-pid.c. */
#include "parse-samples.h"

static void test_memstat_real_61(void)
{
	struct cgoom_memstat m;
	CHECK_EQ_INT(do_memstat(S(memstat_61), &m), 0);
	CHECK_EQ_U64(m.anon, 104857600);
	CHECK_EQ_U64(m.file, 52428800);
	CHECK_EQ_U64(m.kernel_stack, 327680);
	CHECK_EQ_U64(m.sock, 16384);
	CHECK_EQ_U64(m.slab_unreclaimable, 1048576);
	CHECK_EQ_U64(m.active_anon, 6553600);
	CHECK_EQ_U64(m.inactive_anon, 98304000);
	CHECK_EQ_U64(m.unevictable, 12288);
	CHECK_EQ_U64(m.pagetables, 1228800);
	CHECK_EQ_U64(m.shmem, 0);
	CHECK_EQ_U64(m.file_mapped, 20971520);
	CHECK_EQ_INT(m.present, 0x7ff); /* every tracked key, shmem, pagetables, file_mapped too */
}

static void test_memstat_minimal(void)
{
	/* only the footprint keys, in another order, no trailing newline */
	struct cgoom_memstat m;
	CHECK_EQ_INT(do_memstat(S("sock 1\ninactive_anon 2\nactive_anon 3\n"
				  "slab_unreclaimable 4\nkernel_stack 5"),
				&m),
		     0);
	CHECK_EQ_INT(m.present, CGOOM_MEMSTAT_FOOTPRINT_KEYS);
	CHECK_EQ_U64(m.kernel_stack, 5);
	CHECK_EQ_U64(m.anon, 0);
	CHECK_EQ_U64(m.file, 0);
}

static void test_memstat_missing_key(void)
{
	struct cgoom_memstat m;
	CHECK_EQ_INT(do_memstat(S(""), &m), -ENOENT);
	CHECK_EQ_INT(do_memstat(S("anon 1\nfile 2\n"), &m), -ENOENT);
	CHECK_EQ_INT(do_memstat(S("sock 1\ninactive_anon 2\nactive_anon 3\n"
				  "slab_unreclaimable 4\n"),
				&m),
		     -ENOENT);
	/* a key is matched whole: "kernel_stackx" is not kernel_stack */
	CHECK_EQ_INT(do_memstat(S("sock 1\ninactive_anon 2\nactive_anon 3\n"
				  "slab_unreclaimable 4\nkernel_stackx 5\n"),
				&m),
		     -ENOENT);
	CHECK_EQ_INT(cgoom_parse_memstat(NULL, 0, &m), -ENOENT);
}

static void test_memstat_duplicate(void)
{
	struct cgoom_memstat m;
	char buf[sizeof(memstat_61) + 64];
	memcpy(buf, memstat_61, sizeof(memstat_61) - 1);
	memcpy(buf + sizeof(memstat_61) - 1, "sock 5\n", 7);
	CHECK_EQ_INT(do_memstat(buf, sizeof(memstat_61) - 1 + 7, &m), -EBADMSG);
	/* an unknown key repeated does not matter */
	memcpy(buf + sizeof(memstat_61) - 1, "pgfault 5\n", 10);
	CHECK_EQ_INT(do_memstat(buf, sizeof(memstat_61) - 1 + 10, &m), 0);
}

static void test_memstat_malformed(void)
{
	static const char *const bad_lines[] = {
		"pgfault\n",     "pgfault 1 2\n", "pgfault -1\n", "pgfault 0x10\n",
		"pgfault 1.5\n", "pgfault +1\n",  "\n",           "pgfault 12a\n",
		" \n",
	};
	struct cgoom_memstat m;
	char buf[sizeof(memstat_61) + 64];
	for (size_t i = 0; i < sizeof(bad_lines) / sizeof(bad_lines[0]); i++) {
		size_t l = strlen(bad_lines[i]);
		memcpy(buf, bad_lines[i], l);
		memcpy(buf + l, memstat_61, sizeof(memstat_61) - 1);
		CHECK_EQ_INT(do_memstat(buf, l + sizeof(memstat_61) - 1, &m), -EBADMSG);
	}
	/* embedded NUL inside a value, and inside a key of the last line */
	CHECK_EQ_INT(do_memstat(S("sock 1\ninactive_anon 2\nactive_anon 3\n"
				  "slab_unreclaimable 4\nkernel_stack 5\0\n"),
				&m),
		     -EBADMSG);
	CHECK_EQ_INT(do_memstat(S("sock 1\ninactive_anon 2\nactive_anon 3\n"
				  "slab_unreclaimable 4\nkernel_st\0ck 5\n"),
				&m),
		     -ENOENT);
}

static void test_memstat_overflow(void)
{
	struct cgoom_memstat m;
	CHECK_EQ_INT(do_memstat(S("sock 18446744073709551615\ninactive_anon 2\nactive_anon 3\n"
				  "slab_unreclaimable 4\nkernel_stack 5\n"),
				&m),
		     0);
	CHECK_EQ_U64(m.sock, UINT64_MAX);
	CHECK_EQ_INT(do_memstat(S("sock 18446744073709551616\ninactive_anon 2\nactive_anon 3\n"
				  "slab_unreclaimable 4\nkernel_stack 5\n"),
				&m),
		     -ERANGE);
	/* an unknown key's value must be a u64 too */
	CHECK_EQ_INT(do_memstat(S("sock 1\ninactive_anon 2\nactive_anon 3\n"
				  "slab_unreclaimable 4\nkernel_stack 5\n"
				  "pgfault 1000000000000000000000000\n"),
				&m),
		     -ERANGE);
}

static void test_memstat_long_line(void)
{
	/* a 100 kB key, then the real file */
	size_t klen = 100000, n = klen + 3 + sizeof(memstat_61) - 1;
	char *buf = malloc(n);
	CHECK(buf);
	memset(buf, 'k', klen);
	memcpy(buf + klen, " 1\n", 3);
	memcpy(buf + klen + 3, memstat_61, sizeof(memstat_61) - 1);
	struct cgoom_memstat m;
	int r = do_memstat(buf, n, &m);
	/* and a 100 kB number */
	memset(buf, '0', klen);
	memcpy(buf, "x ", 2);
	buf[klen - 1] = '7';
	memcpy(buf + klen, "  \n", 3);
	int r2 = do_memstat(buf, n, &m);
	free(buf);
	CHECK_EQ_INT(r, 0);
	CHECK_EQ_INT(r2, 0);
}

/* ---- memory.events -------------------------------------------------- */

static void test_memevents_real(void)
{
	struct cgoom_memevents e;
	CHECK_EQ_INT(do_memevents(S(memevents_real), &e), 0);
	CHECK_EQ_U64(e.low, 0);
	CHECK_EQ_U64(e.high, 1024);
	CHECK_EQ_U64(e.max, 77);
	CHECK_EQ_U64(e.oom, 3);
	CHECK_EQ_U64(e.oom_kill, 2);
	CHECK_EQ_U64(e.oom_group_kill, 1);
	CHECK_EQ_INT(e.present, 0x3f);
}

static void test_memevents_missing(void)
{
	struct cgoom_memevents e;
	/* 5.4: no oom_group_kill */
	CHECK_EQ_INT(do_memevents(S("low 0\nhigh 0\nmax 5\noom 1\noom_kill 1\n"), &e), 0);
	CHECK_EQ_U64(e.oom_group_kill, 0);
	CHECK_EQ_U64(e.max, 5);
	CHECK(!(e.present & CGOOM_MEMEVENTS_OOM_GROUP_KILL));
	CHECK_EQ_INT(do_memevents(S(""), &e), 0);
	CHECK_EQ_INT(e.present, 0);
	CHECK_EQ_U64(e.oom_kill, 0);
	/* unknown keys ignored, no trailing newline */
	CHECK_EQ_INT(do_memevents(S("sock_throttled 9\noom_kill 4"), &e), 0);
	CHECK_EQ_U64(e.oom_kill, 4);
	CHECK_EQ_INT(e.present, CGOOM_MEMEVENTS_OOM_KILL);
}

static void test_memevents_hostile(void)
{
	struct cgoom_memevents e;
	CHECK_EQ_INT(do_memevents(S("oom 1\noom 2\n"), &e), -EBADMSG);
	CHECK_EQ_INT(do_memevents(S("oom -1\n"), &e), -EBADMSG);
	CHECK_EQ_INT(do_memevents(S("oom\n"), &e), -EBADMSG);
	CHECK_EQ_INT(do_memevents(S("oom 1 1\n"), &e), -EBADMSG);
	CHECK_EQ_INT(do_memevents(S("oom 1\n\n"), &e), -EBADMSG);
	CHECK_EQ_INT(do_memevents(S("oom 1\0\n"), &e), -EBADMSG);
	CHECK_EQ_INT(do_memevents(S("max 99999999999999999999\n"), &e), -ERANGE);
	CHECK_EQ_INT(do_memevents(S("\x7f\x45\x4c\x46\x02\x01\x01"), &e), -EBADMSG);
}

/* ---- PSI ------------------------------------------------------------ */

static void test_pressure_memcg(void)
{
	struct cgoom_pressure p;
	CHECK_EQ_INT(do_pressure(S(pressure_memcg), &p), 0);
	CHECK(p.some.present);
	CHECK_EQ_INT(p.some.avg10, 1234);
	CHECK_EQ_INT(p.some.avg60, 501);
	CHECK_EQ_INT(p.some.avg300, 90);
	CHECK_EQ_U64(p.some.total_us, 123456789);
	CHECK(p.full.present);
	CHECK_EQ_INT(p.full.avg10, 10000);
	CHECK_EQ_INT(p.full.avg60, 0);
	CHECK_EQ_U64(p.full.total_us, 42);
}

static void test_pressure_no_full(void)
{
	struct cgoom_pressure p;
	CHECK_EQ_INT(do_pressure(S(pressure_proc_cpu_old), &p), 0);
	CHECK(p.some.present);
	CHECK_EQ_INT(p.some.avg10, 50);
	CHECK_EQ_INT(p.some.avg60, 25);
	CHECK_EQ_INT(p.some.avg300, 10);
	CHECK(!p.full.present);
	CHECK_EQ_INT(p.full.avg10, 0);
	CHECK_EQ_U64(p.full.total_us, 0);
	/* /proc/pressure/memory of an idle box, no trailing newline */
	CHECK_EQ_INT(do_pressure(S("some avg10=0.00 avg60=0.00 avg300=0.00 total=0\n"
				   "full avg10=0.00 avg60=0.00 avg300=0.00 total=0"),
				 &p),
		     0);
	CHECK(p.full.present);
	/* full first, fields in another order, one fraction digit */
	CHECK_EQ_INT(do_pressure(S("full total=1 avg300=0.1 avg60=2 avg10=3.5\n"
				   "some avg10=0.01 avg60=0.00 avg300=0.00 total=18446744073709551615\n"),
				 &p),
		     0);
	CHECK_EQ_INT(p.full.avg10, 350);
	CHECK_EQ_INT(p.full.avg60, 200);
	CHECK_EQ_INT(p.full.avg300, 10);
	CHECK_EQ_INT(p.some.avg10, 1);
	CHECK_EQ_U64(p.some.total_us, UINT64_MAX);
}

static void test_pressure_hostile(void)
{
	struct cgoom_pressure p;
	CHECK_EQ_INT(do_pressure(S(""), &p), -ENOENT);
	CHECK_EQ_INT(do_pressure(S("full avg10=0.00 avg60=0.00 avg300=0.00 total=0\n"), &p),
		     -ENOENT);
	CHECK_EQ_INT(do_pressure(S("some avg10=0.00 avg60=0.00 avg300=0.00 total=0\n"
				   "some avg10=0.00 avg60=0.00 avg300=0.00 total=0\n"),
				 &p),
		     -EBADMSG);
	CHECK_EQ_INT(do_pressure(S("some avg10=0.00 avg60=0.00 total=0\n"), &p), -EBADMSG);
	CHECK_EQ_INT(do_pressure(S("some avg10=0.00 avg10=0.00 avg60=0.00 avg300=0.00 total=0\n"),
				 &p),
		     -EBADMSG);
	CHECK_EQ_INT(do_pressure(S("some avg10=0.123 avg60=0.00 avg300=0.00 total=0\n"), &p),
		     -EBADMSG);
	CHECK_EQ_INT(do_pressure(S("some avg10=.12 avg60=0.00 avg300=0.00 total=0\n"), &p),
		     -EBADMSG);
	CHECK_EQ_INT(do_pressure(S("some avg10=1. avg60=0.00 avg300=0.00 total=0\n"), &p),
		     -EBADMSG);
	CHECK_EQ_INT(do_pressure(S("some avg10=-1.00 avg60=0.00 avg300=0.00 total=0\n"), &p),
		     -EBADMSG);
	CHECK_EQ_INT(do_pressure(S("some avg10=1.0.0 avg60=0.00 avg300=0.00 total=0\n"), &p),
		     -EBADMSG);
	CHECK_EQ_INT(do_pressure(S("some avg10= avg60=0.00 avg300=0.00 total=0\n"), &p),
		     -EBADMSG);
	CHECK_EQ_INT(do_pressure(S("some avg10=0.00 avg60=0.00 avg300=0.00 total=0 x=1\n"), &p),
		     -EBADMSG);
	CHECK_EQ_INT(do_pressure(S("some avg10=0.00 avg60=0.00 avg300=0.00 total\n"), &p),
		     -EBADMSG);
	CHECK_EQ_INT(do_pressure(S("sOme avg10=0.00 avg60=0.00 avg300=0.00 total=0\n"), &p),
		     -EBADMSG);
	CHECK_EQ_INT(do_pressure(S("some avg10=0.00 avg60=0.00 avg300=0.00 total=0\n\n"), &p),
		     -EBADMSG);
	CHECK_EQ_INT(do_pressure(S("some avg10=0.00 avg60=0.00 avg300=0.00 total=0\0"), &p),
		     -EBADMSG);
	/* 42949672.96 % does not fit in u32 hundredths; .95 does */
	CHECK_EQ_INT(do_pressure(S("some avg10=42949672.96 avg60=0 avg300=0 total=0\n"), &p),
		     -ERANGE);
	CHECK_EQ_INT(do_pressure(S("some avg10=42949672.95 avg60=0 avg300=0 total=0\n"), &p), 0);
	CHECK_EQ_INT(p.some.avg10, UINT32_MAX);
	CHECK_EQ_INT(do_pressure(S("some avg10=0 avg60=0 avg300=0 total=18446744073709551616\n"),
				 &p),
		     -ERANGE);
}

/* ---- /proc/meminfo -------------------------------------------------- */

static void test_meminfo_real(void)
{
	struct cgoom_meminfo mi;
	CHECK_EQ_INT(do_meminfo(S(meminfo_61), &mi), 0);
	CHECK_EQ_U64(mi.mem_total, 24683664ull * 1024);
	CHECK_EQ_U64(mi.mem_free, 24161216ull * 1024);
	CHECK_EQ_U64(mi.mem_available, 24334060ull * 1024);
	CHECK_EQ_U64(mi.swap_total, 8388604ull * 1024);
	CHECK_EQ_U64(mi.swap_free, 8000000ull * 1024);
	CHECK_EQ_U64(mi.active_anon, 1544ull * 1024);
	CHECK_EQ_U64(mi.inactive_anon, 6912ull * 1024);
	CHECK_EQ_U64(mi.sunreclaim, 23456ull * 1024);
	CHECK_EQ_U64(mi.kernel_stack, 1524ull * 1024);
	CHECK_EQ_U64(mi.shmem, 9568ull * 1024);
	CHECK_EQ_U64(mi.mapped, 11244ull * 1024);
	CHECK_EQ_INT(mi.present, 0x7ff);
}

static void test_meminfo_minimal(void)
{
	struct cgoom_meminfo mi;
	CHECK_EQ_INT(do_meminfo(S("MemTotal: 1 kB"), &mi), 0);
	CHECK_EQ_U64(mi.mem_total, 1024);
	CHECK_EQ_INT(mi.present, CGOOM_MEMINFO_MEM_TOTAL);
	CHECK_EQ_U64(mi.swap_total, 0);
	CHECK_EQ_INT(do_meminfo(S("MemTotal:\t16 kB  \n"), &mi), 0);
	CHECK_EQ_U64(mi.mem_total, 16384);
	/* an unknown key with no unit */
	CHECK_EQ_INT(do_meminfo(S("HugePages_Total:   7\nMemTotal: 2 kB\n"), &mi), 0);
	CHECK_EQ_U64(mi.mem_total, 2048);
}

static void test_meminfo_missing(void)
{
	struct cgoom_meminfo mi;
	CHECK_EQ_INT(do_meminfo(S(""), &mi), -ENOENT);
	CHECK_EQ_INT(do_meminfo(S("MemFree: 5 kB\nSwapTotal: 0 kB\n"), &mi), -ENOENT);
	CHECK_EQ_INT(do_meminfo(S("MemTotalx: 5 kB\n"), &mi), -ENOENT);
	CHECK_EQ_INT(do_meminfo(S("memtotal: 5 kB\n"), &mi), -ENOENT);
}

static void test_meminfo_saturate(void)
{
	struct cgoom_meminfo mi;
	/* the kB figure fits in u64, its bytes do not: saturate */
	CHECK_EQ_INT(do_meminfo(S("MemTotal: 18446744073709551615 kB\n"
				  "SwapTotal: 18014398509481984 kB\n"
				  "SwapFree: 18014398509481983 kB\n"),
				&mi),
		     0);
	CHECK_EQ_U64(mi.mem_total, UINT64_MAX);
	CHECK_EQ_U64(mi.swap_total, UINT64_MAX);
	CHECK_EQ_U64(mi.swap_free, 18014398509481983ull * 1024);
	/* the kB figure itself overflows */
	CHECK_EQ_INT(do_meminfo(S("MemTotal: 18446744073709551616 kB\n"), &mi), -ERANGE);
}

static void test_meminfo_hostile(void)
{
	struct cgoom_meminfo mi;
	CHECK_EQ_INT(do_meminfo(S("MemTotal: 5 MB\n"), &mi), -EBADMSG);
	CHECK_EQ_INT(do_meminfo(S("MemTotal: 5\n"), &mi), -EBADMSG);
	CHECK_EQ_INT(do_meminfo(S("MemTotal: kB\n"), &mi), -EBADMSG);
	CHECK_EQ_INT(do_meminfo(S("MemTotal:\n"), &mi), -EBADMSG);
	CHECK_EQ_INT(do_meminfo(S("MemTotal: 5 kB kB\n"), &mi), -EBADMSG);
	CHECK_EQ_INT(do_meminfo(S("MemTotal: -5 kB\n"), &mi), -EBADMSG);
	CHECK_EQ_INT(do_meminfo(S("MemTotal 5 kB\n"), &mi), -EBADMSG);
	CHECK_EQ_INT(do_meminfo(S(": 5 kB\nMemTotal: 5 kB\n"), &mi), -EBADMSG);
	CHECK_EQ_INT(do_meminfo(S("MemTotal: 5 kB\n\n"), &mi), -EBADMSG);
	CHECK_EQ_INT(do_meminfo(S("MemTotal: 5 kB\nMemTotal: 6 kB\n"), &mi), -EBADMSG);
	CHECK_EQ_INT(do_meminfo(S("MemTotal: 5 k\0B\n"), &mi), -EBADMSG);
	CHECK_EQ_INT(do_meminfo(S("MemTotal: 5 kB\nFoo: bar\n"), &mi), -EBADMSG);
	CHECK_EQ_INT(do_meminfo(S("MemTotal: 5 kB\nFoo: 99999999999999999999999\n"), &mi),
		     -ERANGE);
}

/* ---- /proc/net/sockstat --------------------------------------------- */

static void test_sockstat_real(void)
{
	struct cgoom_sockstat ss;
	CHECK_EQ_INT(do_sockstat(S(sockstat_real), &ss), 0);
	CHECK_EQ_U64(ss.tcp_mem_pages, 2);
	CHECK_EQ_U64(ss.udp_mem_pages, 1);
	CHECK_EQ_INT(do_sockstat(S("TCP: inuse 1 orphan 0 tw 0 alloc 1 mem 201"), &ss), 0);
	CHECK_EQ_U64(ss.tcp_mem_pages, 201);
	CHECK_EQ_U64(ss.udp_mem_pages, 0);
}

static void test_sockstat_missing(void)
{
	struct cgoom_sockstat ss;
	CHECK_EQ_INT(do_sockstat(S(""), &ss), 0);
	CHECK_EQ_U64(ss.tcp_mem_pages, 0);
	CHECK_EQ_U64(ss.udp_mem_pages, 0);
	/* UDPLITE: and FRAG: are not UDP: */
	CHECK_EQ_INT(do_sockstat(S("UDPLITE: inuse 0 mem 9\nFRAG: inuse 0 memory 7\n"), &ss), 0);
	CHECK_EQ_U64(ss.udp_mem_pages, 0);
	CHECK_EQ_INT(do_sockstat(S("sockets: used 5\nUDP: inuse 2 mem 18446744073709551615\n"),
				 &ss),
		     0);
	CHECK_EQ_U64(ss.udp_mem_pages, UINT64_MAX);
}

static void test_sockstat_hostile(void)
{
	struct cgoom_sockstat ss;
	CHECK_EQ_INT(do_sockstat(S("TCP: inuse 3 orphan 0 tw 0 alloc 5\n"), &ss), -EBADMSG);
	CHECK_EQ_INT(do_sockstat(S("TCP: inuse 3 mem\n"), &ss), -EBADMSG);
	CHECK_EQ_INT(do_sockstat(S("TCP: inuse 3 mem x\n"), &ss), -EBADMSG);
	CHECK_EQ_INT(do_sockstat(S("TCP: inuse 3 mem -2\n"), &ss), -EBADMSG);
	CHECK_EQ_INT(do_sockstat(S("TCP: inuse 3 mem 1 mem 2\n"), &ss), -EBADMSG);
	CHECK_EQ_INT(do_sockstat(S("UDP: inuse 1 mem 1\nUDP: inuse 1 mem 1\n"), &ss), -EBADMSG);
	CHECK_EQ_INT(do_sockstat(S("TCP: inuse 3 mem 2\0\n"), &ss), -EBADMSG);
	CHECK_EQ_INT(do_sockstat(S("TCP: inuse 3 mem 99999999999999999999\n"), &ss), -ERANGE);
	/* truncated mid-line */
	CHECK_EQ_INT(do_sockstat(S("TCP: inuse 3 orphan 0 tw 0 al"), &ss), -EBADMSG);
}

static int cgstat(const char *text, uint64_t *n)
{
	return cgoom_parse_cgroup_descendants(text, strlen(text), n);
}

static void test_cgroup_descendants(void)
{
	uint64_t n = 7;
	CHECK_EQ_INT(cgstat("nr_descendants 3\nnr_dying_descendants 2\n", &n), 0);
	CHECK_EQ_U64(n, 3);
	CHECK_EQ_INT(cgstat("nr_descendants 0\n", &n), 0);
	CHECK_EQ_U64(n, 0);
	/* failures leave it alone */
	n = 7;
	CHECK_EQ_INT(cgstat("nr_dying_descendants 2\n", &n), -ENOENT);
	CHECK_EQ_INT(cgstat("", &n), -ENOENT);
	CHECK_EQ_INT(cgstat("nr_descendants x\n", &n), -EBADMSG);
	CHECK_EQ_INT(cgstat("nr_descendants 1\nnr_descendants 2\n", &n), -EBADMSG);
	CHECK_EQ_U64(n, 7);
}

static int cgev(const char *text, bool *p)
{
	return cgoom_parse_cgroup_events(text, strlen(text), p);
}

static void test_cgroup_events(void)
{
	bool p = false;
	CHECK_EQ_INT(cgev("populated 1\nfrozen 0\n", &p), 0);
	CHECK(p);
	CHECK_EQ_INT(cgev("populated 0\nfrozen 1\n", &p), 0);
	CHECK(!p);
	/* before "frozen" (Linux < 5.2) */
	p = true;
	CHECK_EQ_INT(cgev("populated 0\n", &p), 0);
	CHECK(!p);
	/* failures leave it alone */
	p = true;
	CHECK_EQ_INT(cgev("frozen 0\n", &p), -ENOENT);
	CHECK_EQ_INT(cgev("", &p), -ENOENT);
	CHECK_EQ_INT(cgev("populated 2\n", &p), -EBADMSG);
	CHECK_EQ_INT(cgev("populated 1\npopulated 0\n", &p), -EBADMSG);
	CHECK_EQ_INT(cgev("populated\n", &p), -EBADMSG);
	CHECK_EQ_INT(cgev("populated x\n", &p), -EBADMSG);
	CHECK(p);
}

int main(void)
{
	return tap_run((struct tap_test[]){
		TAP(test_memstat_real_61),
		TAP(test_memstat_minimal),
		TAP(test_memstat_missing_key),
		TAP(test_memstat_duplicate),
		TAP(test_memstat_malformed),
		TAP(test_memstat_overflow),
		TAP(test_memstat_long_line),
		TAP(test_memevents_real),
		TAP(test_memevents_missing),
		TAP(test_memevents_hostile),
		TAP(test_cgroup_events),
		TAP(test_cgroup_descendants),
		TAP(test_pressure_memcg),
		TAP(test_pressure_no_full),
		TAP(test_pressure_hostile),
		TAP(test_meminfo_real),
		TAP(test_meminfo_minimal),
		TAP(test_meminfo_missing),
		TAP(test_meminfo_saturate),
		TAP(test_meminfo_hostile),
		TAP(test_sockstat_real),
		TAP(test_sockstat_missing),
		TAP(test_sockstat_hostile),
		{ 0 },
	});
}
