/* SPDX-License-Identifier: MIT */
/* The facts explain shows about a domain's memory (facts.h). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cgfs.h"
#include "facts.h"


static void zram_facts(struct cgoom_memory_facts *f, const struct cgoom_swap_area *a, int n)
{
	bool unlimited = false;
	for (int i = 0; i < n && i < CGOOM_SWAP_AREAS_MAX; i++) {
		if (a[i].zram < 0)
			continue;
		char path[64], buf[256];
		snprintf(path, sizeof(path), "/sys/block/zram%d/mm_stat", a[i].zram);
		int fd = open(path, CGFS_FILE_FLAGS);
		size_t len;
		struct cgoom_zram_mm m;
		if (fd < 0)
			continue;
		int r = cgfs_reread(fd, buf, sizeof(buf), &len);
		close(fd);
		if (r < 0 || cgoom_parse_zram_mm_stat(buf, len, &m) < 0)
			continue;
		f->n_zram++;
		f->zram_orig += m.orig_data_size;
		f->zram_compr += m.compr_data_size;
		f->zram_used += m.mem_used_total;
		f->zram_limit += m.mem_limit;
		unlimited = unlimited || m.mem_limit == 0;
	}
	if (unlimited)
		f->zram_limit = 0;
}

static int read_system(const struct cgoom_roots *r, bool live, struct cgoom_memory_facts *f)
{
	char buf[8192];
	size_t len;
	struct cgoom_meminfo mi;
	if (cgfs_read_small_at(r->proc_fd, "meminfo", buf, sizeof(buf), &len) == 0 &&
	    cgoom_parse_meminfo(buf, len, &mi) == 0) {
		f->mem_ok = true;
		f->mem_total = mi.mem_total;
		f->mem_available = (mi.present & CGOOM_MEMINFO_MEM_AVAILABLE) ? mi.mem_available : mi.mem_free;
		f->mem_current = f->mem_total > f->mem_available ? f->mem_total - f->mem_available : 0;
		f->swap_ok = true;
		f->swap_total = mi.swap_total;
		f->swap_used = mi.swap_total > mi.swap_free ? mi.swap_total - mi.swap_free : 0;
		f->zswap_ok = cgoom_parse_meminfo_key(buf, len, "Zswapped", &f->zswap_stored) == 0 &&
			      cgoom_parse_meminfo_key(buf, len, "Zswap", &f->zswap_ram) == 0;
		if (!f->zswap_ok)
			f->zswap_stored = f->zswap_ram = 0;
	}
	int pfd = openat(r->proc_fd, "pressure", CGFS_DIR_FLAGS);
	if (pfd >= 0) {
		f->psi_ok = cgfs_read_small_at(pfd, "memory", buf, sizeof(buf), &len) == 0 &&
			    cgoom_parse_pressure(buf, len, &f->psi) == 0;
		close(pfd);
	}
	struct cgoom_swap_area a[CGOOM_SWAP_AREAS_MAX];
	int n;
	int sfd = live && f->swap_total > 0 ? openat(r->proc_fd, "swaps", CGFS_FILE_FLAGS) : -1;
	if (sfd >= 0) {
		/* whole: a line holds a path of up to PATH_MAX */
		int rr = cgfs_reread_whole(sfd, buf, sizeof(buf), &len);
		close(sfd);
		if (rr == 0 && len < sizeof(buf) - 1 && (n = cgoom_parse_swaps(buf, len, a, CGOOM_SWAP_AREAS_MAX)) > 0)
			zram_facts(f, a, n);
	}
	return f->mem_ok || f->psi_ok ? 0 : -ENOENT;
}

static bool read_u64(int dfd, const char *name, bool limit, uint64_t *ret)
{
	char buf[64];
	size_t len;
	if (cgfs_read_small_at(dfd, name, buf, sizeof(buf), &len) < 0)
		return false;
	return (limit ? cgoom_parse_limit(buf, len, ret) : cgoom_parse_u64(buf, len, ret)) == 0;
}

static int read_cgroup(const struct cgoom_roots *r, const char *path, struct cgoom_memory_facts *f)
{
	int dfd = cgfs_open_beneath(r->cgroup_fd, path, CGFS_DIR_FLAGS);
	if (dfd < 0)
		return dfd;
	f->mem_ok = read_u64(dfd, "memory.max", true, &f->mem_total) &&
		    read_u64(dfd, "memory.current", false, &f->mem_current);
	if (f->mem_ok)
		f->mem_available = f->mem_total > f->mem_current ? f->mem_total - f->mem_current : 0;
	f->swap_ok = read_u64(dfd, "memory.swap.max", true, &f->swap_total) &&
		     read_u64(dfd, "memory.swap.current", false, &f->swap_used);
	/* the swap a cgroup can use is min(memory.swap.max, SwapTotal), as
	 * its T (SPEC 3): memory.swap.max alone says "max" on a machine with
	 * no swap at all */
	char mbuf[8192];
	size_t mlen;
	struct cgoom_meminfo mi;
	if (f->swap_ok && cgfs_read_small_at(r->proc_fd, "meminfo", mbuf, sizeof(mbuf), &mlen) == 0 &&
	    cgoom_parse_meminfo(mbuf, mlen, &mi) == 0 && (mi.present & CGOOM_MEMINFO_SWAP_TOTAL) &&
	    mi.swap_total < f->swap_total)
		f->swap_total = mi.swap_total;
	char buf[512];
	size_t len;
	f->psi_ok = cgfs_read_small_at(dfd, "memory.pressure", buf, sizeof(buf), &len) == 0 &&
		    cgoom_parse_pressure(buf, len, &f->psi) == 0;
	close(dfd);
	return f->mem_ok || f->psi_ok ? 0 : -ENOENT;
}

int cgoom_memory_facts_read(const struct cgoom_roots *r, const char *path, bool live,
			    struct cgoom_memory_facts *ret)
{
	struct cgoom_memory_facts f = { 0 };
	f.system = strcmp(path, "/") == 0;
	int e = f.system ? read_system(r, live, &f) : read_cgroup(r, path, &f);
	if (e < 0)
		return e;
	*ret = f;
	return 0;
}
