/* SPDX-License-Identifier: MIT */
/*
 * A cgroup domain's sample within its margin reads memory.stat, also
 * when its memory.stat is closed (a domain quiet until now: its active
 * set closed): SPEC 6, "Page cache at the limit alone never fires". A
 * fake cgroup directory: 1000 MiB limit, 995 MiB in use, memory.events
 * `max` risen since the last sample; the use is page cache (nothing
 * fires) or anon without swap (`unreclaimable` fires). And a margin as
 * large as a domain's memory.max (a global `margin = 64M` on a 32 MiB
 * cgroup), which would make every sample "near": the default's instead.
 * And what a cgroup swapped, read also with the system's swap full, and
 * its swap room after swap was turned on since the system's last sample.
 */
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fake-daemon.h"
#include "tap.h"
#include "triggers.h"

#define MiB (1024ull * 1024)

static void put(int dfd, const char *name, const char *s)
{
	int fd = openat(dfd, name, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	CHECK(fd >= 0);
	CHECK(write(fd, s, strlen(s)) == (ssize_t)strlen(s));
	close(fd);
}

static const char *const files[] = { "memory.current", "memory.max", "memory.high",
				     "memory.events", "memory.stat" };

/* the trigger the first sample of that domain names; `cache`: its use is
 * page cache (else anon); `stat_open`: memory.stat kept open (else closed,
 * reached through the domain's directory) */
static void sample(bool cache, bool stat_open, enum cgoom_trigger *ret)
{
	char dir[] = "/tmp/cgoom-detect-XXXXXX";
	CHECK(mkdtemp(dir) != NULL);
	int root = open(dir, O_RDONLY | O_DIRECTORY);
	CHECK(root >= 0);
	char stat[512];
	uint64_t anon = cache ? 5 * MiB : 990 * MiB, file = cache ? 990 * MiB : 5 * MiB;
	snprintf(stat, sizeof(stat),
		 "anon %llu\nfile %llu\nkernel_stack 0\npagetables 0\nsock 0\nshmem 0\n"
		 "active_anon %llu\ninactive_anon 0\nactive_file %llu\ninactive_file 0\n"
		 "unevictable 0\nslab_unreclaimable 0\n",
		 (unsigned long long)anon, (unsigned long long)file, (unsigned long long)anon,
		 (unsigned long long)file);
	put(root, "memory.current", "1043333120\n"); /* 995 MiB */
	put(root, "memory.max", "1048576000\n");     /* 1000 MiB */
	put(root, "memory.high", "max\n");
	put(root, "memory.events", "low 0\nhigh 0\nmax 7\noom 0\noom_kill 0\noom_group_kill 0\n");
	put(root, "memory.stat", stat);

	struct daemon *dm = fake_daemon(1);
	cgoom_config_init(&dm->cfg);
	dm->epfd = -1;
	struct domain *d = dm->domains[1];
	d->dirfd = root;
	d->current_fd = openat(root, "memory.current", O_RDONLY);
	d->max_fd = openat(root, "memory.max", O_RDONLY);
	d->high_fd = openat(root, "memory.high", O_RDONLY);
	d->events_fd = openat(root, "memory.events", O_RDONLY);
	if (stat_open)
		d->stat_fd = openat(root, "memory.stat", O_RDONLY);
	d->params.margin = 1000 * MiB / 50;
	d->trig.last.max = 3; /* memory.events max rose since the last sample */
	struct trigger_event ev;
	detect_cgroup(dm, d, 1000000, false, &ev);
	*ret = ev.kind;
	/* a file opened for the sample is closed after it */
	CHECK_EQ_INT(d->stat_fd >= 0, stat_open);
	int fds[] = { d->current_fd, d->max_fd, d->high_fd, d->events_fd, d->stat_fd };
	for (size_t i = 0; i < sizeof(fds) / sizeof(fds[0]); i++)
		if (fds[i] >= 0)
			close(fds[i]);
	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++)
		unlinkat(root, files[i], 0);
	close(root);
	rmdir(dir);
	cgoom_config_free(&dm->cfg);
	fake_free(dm);
}

static void test_cache_at_limit_never_fires(void)
{
	enum cgoom_trigger k;
	sample(true, true, &k);
	CHECK_STREQ(cgoom_trigger_name(k), cgoom_trigger_name(CGOOM_TRIGGER_NONE));
	sample(true, false, &k);
	CHECK_STREQ(cgoom_trigger_name(k), cgoom_trigger_name(CGOOM_TRIGGER_NONE));
}

static void test_anon_at_limit_fires(void)
{
	enum cgoom_trigger k;
	sample(false, true, &k);
	CHECK(k != CGOOM_TRIGGER_NONE);
	sample(false, false, &k);
	CHECK(k != CGOOM_TRIGGER_NONE);
}

/* domain_memstat of a cgroup that swapped 100 MiB (memory.swap.max
 * `swap_max`) with the system's swap `swap_free` free of 1 GiB */
static void memstat_swap(uint64_t swap_free, const char *swap_max, struct cgoom_cgroup_sample *ret)
{
	char dir[] = "/tmp/cgoom-detect-XXXXXX";
	CHECK(mkdtemp(dir) != NULL);
	int root = open(dir, O_RDONLY | O_DIRECTORY);
	CHECK(root >= 0);
	put(root, "memory.stat", "anon 10485760\nfile 0\nkernel_stack 0\npagetables 0\nsock 0\n"
				 "shmem 0\nunevictable 0\nslab_unreclaimable 0\n");
	put(root, "memory.swap.current", "104857600\n");
	put(root, "memory.swap.max", swap_max);
	struct daemon *dm = fake_daemon(1);
	dm->domains[0]->sys.swap_total = 1024 * MiB;
	dm->domains[0]->sys.swap_free = swap_free;
	struct domain *d = dm->domains[1];
	d->stat_fd = openat(root, "memory.stat", O_RDONLY);
	d->swap_current_fd = openat(root, "memory.swap.current", O_RDONLY);
	d->swap_max_fd = openat(root, "memory.swap.max", O_RDONLY);
	*ret = (struct cgoom_cgroup_sample){ 0 };
	CHECK_EQ_INT(domain_memstat(dm, d, ret), 0);
	close(d->stat_fd);
	close(d->swap_current_fd);
	close(d->swap_max_fd);
	unlinkat(root, "memory.stat", 0);
	unlinkat(root, "memory.swap.current", 0);
	unlinkat(root, "memory.swap.max", 0);
	close(root);
	rmdir(dir);
	fake_free(dm);
}

static void test_swap_used_with_swap_full(void)
{
	struct cgoom_cgroup_sample cg;
	memstat_swap(512 * MiB, "max\n", &cg);
	CHECK_EQ_U64(cg.swap_used, 100 * MiB);
	CHECK_EQ_U64(cg.swap_room, 512 * MiB);
	memstat_swap(512 * MiB, "209715200\n", &cg); /* its own limit: 100 MiB left */
	CHECK_EQ_U64(cg.swap_room, 100 * MiB);
	/* the system's swap full: no room, but what it swapped is still
	 * there (not "given back") */
	memstat_swap(0, "max\n", &cg);
	CHECK_EQ_U64(cg.swap_used, 100 * MiB);
	CHECK_EQ_U64(cg.swap_room, 0);
}

/* domain_memstat of a cgroup holding 90 MiB of anon, nothing swapped,
 * memory.swap.max max, memory.max `max` (a 2 MiB margin), beside a
 * /proc/meminfo with 1 GiB of swap (900 MiB free), where the system's
 * last sample, a second ago (`old`) or just now, saw none */
static void memstat_after_swapon(bool old, uint64_t max, struct cgoom_cgroup_sample *ret)
{
	char dir[] = "/tmp/cgoom-detect-XXXXXX";
	CHECK(mkdtemp(dir) != NULL);
	int root = open(dir, O_RDONLY | O_DIRECTORY);
	CHECK(root >= 0);
	put(root, "memory.stat", "anon 94371840\nfile 0\nkernel_stack 0\npagetables 0\nsock 0\n"
				 "shmem 0\nactive_anon 94371840\ninactive_anon 0\nunevictable 0\n"
				 "slab_unreclaimable 0\n");
	put(root, "memory.swap.current", "0\n");
	put(root, "memory.swap.max", "max\n");
	put(root, "meminfo", "MemTotal:        1048576 kB\nMemFree:          524288 kB\n"
			     "MemAvailable:     600000 kB\nSwapTotal:       1048576 kB\n"
			     "SwapFree:         921600 kB\n");
	struct daemon *dm = fake_daemon(1);
	struct system_files *sys = &dm->domains[0]->sys;
	sys->meminfo_fd = openat(root, "meminfo", O_RDONLY);
	sys->swap_total = sys->swap_free = 0; /* no swap at the system's last sample */
	/* "just now" is a minute ahead: a test descheduled for 100 ms on a
	 * loaded machine must not find it old */
	sys->swap_at_us = old ? cgfs_now_us() - 1000000 : cgfs_now_us() + 60000000;
	struct domain *d = dm->domains[1];
	d->stat_fd = openat(root, "memory.stat", O_RDONLY);
	d->swap_current_fd = openat(root, "memory.swap.current", O_RDONLY);
	d->swap_max_fd = openat(root, "memory.swap.max", O_RDONLY);
	d->params.margin = 2 * MiB;
	*ret = (struct cgoom_cgroup_sample){ .max = max };
	CHECK_EQ_INT(domain_memstat(dm, d, ret), 0);
	close(sys->meminfo_fd);
	close(d->stat_fd);
	close(d->swap_current_fd);
	close(d->swap_max_fd);
	const char *names[] = { "memory.stat", "memory.swap.current", "memory.swap.max", "meminfo" };
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		unlinkat(root, names[i], 0);
	close(root);
	rmdir(dir);
	fake_free(dm);
}

static void test_swap_room_after_swapon(void)
{
	/* swap turned on since the system's last sample, a second ago: the
	 * cgroup's room is the swap there is now, and its anon can go there
	 * (it was all unreclaimable: the unreclaimable trigger killed) */
	struct cgoom_cgroup_sample cg;
	memstat_after_swapon(true, 1024 * MiB, &cg);
	CHECK_EQ_U64(cg.swap_room, 900 * MiB);
	CHECK(cg.unreclaim_valid);
	CHECK_EQ_U64(cg.unreclaimable, 0);
	/* the system's sample of a moment ago stands far from the line (no
	 * read of its own) */
	memstat_after_swapon(false, 1024 * MiB, &cg);
	CHECK_EQ_U64(cg.swap_room, 0);
	CHECK_EQ_U64(cg.unreclaimable, 90 * MiB);
	/* near it (90 MiB unreclaimable by that sample, memory.max 92 MiB),
	 * the swap is read now: swap turned on within those 100 ms (in
	 * tests/vm swap-on-later, run after another scenario, it was) */
	memstat_after_swapon(false, 92 * MiB, &cg);
	CHECK_EQ_U64(cg.swap_room, 900 * MiB);
	CHECK_EQ_U64(cg.unreclaimable, 0);
}

/* The system sample's zswap figures: read from the same /proc/meminfo
 * while memory is near short (MemAvailable under 15%, where the system
 * is watched once pressure is seen, and its first watched sample too),
 * none otherwise or where a line is malformed. */
static void system_zswap(const char *meminfo, uint64_t watch_until, struct trigger_sample *ret)
{
	char dir[] = "/tmp/cgoom-detect-XXXXXX";
	CHECK(mkdtemp(dir) != NULL);
	int root = open(dir, O_RDONLY | O_DIRECTORY);
	CHECK(root >= 0);
	put(root, "meminfo", meminfo);
	struct daemon *dm = fake_daemon(0);
	cgoom_config_init(&dm->cfg);
	dm->epfd = -1;
	struct domain *d = dm->domains[0];
	d->sys.meminfo_fd = openat(root, "meminfo", O_RDONLY);
	d->watch_until_us = watch_until;
	struct trigger_event ev;
	detect_system(dm, 1000000, false, &ev);
	*ret = ev.s;
	close(d->sys.meminfo_fd);
	unlinkat(root, "meminfo", 0);
	close(root);
	rmdir(dir);
	pressure_free(d);
	cgoom_config_free(&dm->cfg);
	fake_free(dm);
}

static void test_system_zswap(void)
{
	static const char mi[] = "MemTotal:        1048576 kB\nMemFree:          60000 kB\n"
				 "MemAvailable:      60000 kB\nSwapTotal:       1048576 kB\n"
				 "SwapFree:         300000 kB\nZswap:            200000 kB\n"
				 "Zswapped:         500000 kB\n";
	struct trigger_sample s;
	system_zswap(mi, UINT64_MAX, &s);
	CHECK_EQ_U64(s.zswap_stored, 500000ULL * 1024);
	CHECK_EQ_U64(s.zswap_ram, 200000ULL * 1024);
	/* before any pressure was seen: read all the same (the sample that
	 * starts the watch has them) */
	system_zswap(mi, 0, &s);
	CHECK_EQ_U64(s.zswap_stored, 500000ULL * 1024);
	CHECK_EQ_U64(s.zswap_ram, 200000ULL * 1024);
	/* MemAvailable far from short: not read */
	static const char far[] = "MemTotal:        1048576 kB\nMemFree:          600000 kB\n"
				  "MemAvailable:     600000 kB\nSwapTotal:       1048576 kB\n"
				  "SwapFree:         300000 kB\nZswap:            200000 kB\n"
				  "Zswapped:         500000 kB\n";
	system_zswap(far, UINT64_MAX, &s);
	CHECK_EQ_U64(s.zswap_stored, 0);
	CHECK_EQ_U64(s.zswap_ram, 0);
	/* one of the lines not as the kernel writes it (no kB, which the
	 * whole file's parse lets pass for a line cgoom does not use), or
	 * repeated: neither, and the system is judged all the same */
	static const char bad[] = "MemTotal:        1048576 kB\nMemFree:          60000 kB\n"
				  "MemAvailable:      40000 kB\nSwapTotal:       1048576 kB\n"
				  "SwapFree:         300000 kB\nZswap:            200000 kB\n"
				  "Zswapped:         500000\n";
	system_zswap(bad, UINT64_MAX, &s);
	CHECK(s.lv.mem_low); /* read and judged: 40000 kB is under 5% */
	CHECK_EQ_U64(s.zswap_stored, 0);
	CHECK_EQ_U64(s.zswap_ram, 0);
	static const char twice[] = "MemTotal:        1048576 kB\nMemFree:          60000 kB\n"
				    "MemAvailable:      40000 kB\nSwapTotal:       1048576 kB\n"
				    "SwapFree:         300000 kB\nZswap:            200000 kB\n"
				    "Zswapped:         500000 kB\nZswap:            100 kB\n";
	system_zswap(twice, UINT64_MAX, &s);
	CHECK(s.lv.mem_low);
	CHECK_EQ_U64(s.zswap_stored, 0);
	CHECK_EQ_U64(s.zswap_ram, 0);
}

/* the margin guard_apply gives a domain of memory.max `max` under `conf` */
static void margin_of(const char *conf, uint64_t max, uint64_t *ret)
{
	struct daemon *dm = fake_daemon(1);
	struct cgoom_config_error err;
	CHECK(cgoom_config_parse(conf, strlen(conf), &dm->cfg, &err) == 0);
	struct domain *d = dm->domains[1];
	d->sample.max = max;
	guard_apply(dm, d);
	*ret = d->params.margin;
	cgoom_config_free(&dm->cfg);
	fake_free(dm);
}

static void test_margin_at_most_under_max(void)
{
	uint64_t m;
	margin_of("[daemon]\nmargin = 1M\n", 32 * MiB, &m);
	CHECK_EQ_U64(m, 1 * MiB);
	margin_of("[daemon]\nmargin = 64M\n", 32 * MiB, &m);
	CHECK_EQ_U64(m, 32 * MiB / 50); /* 2% */
	margin_of("[daemon]\nmargin = 32M\n", 32 * MiB, &m);
	CHECK_EQ_U64(m, 32 * MiB / 50);
	margin_of("[daemon]\nmargin = 100%\n", 32 * MiB, &m);
	CHECK_EQ_U64(m, 32 * MiB / 50);
	margin_of("[daemon]\nmargin = 64M\n", UINT64_MAX, &m); /* no limit: no margin */
	CHECK_EQ_U64(m, 0);
}

int main(void)
{
	return tap_run((struct tap_test[]){ TAP(test_cache_at_limit_never_fires),
					    TAP(test_anon_at_limit_fires),
					    TAP(test_margin_at_most_under_max),
					    TAP(test_swap_used_with_swap_full),
					    TAP(test_swap_room_after_swapon),
					    TAP(test_system_zswap), { 0 } });
}
