/* SPDX-License-Identifier: MIT */
#pragma once
/* Fixture trees for the reader tests: a cgroup dir and a proc dir in a
 * temporary directory, built with plain files, xattrs and owners. */
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdarg.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/xattr.h>
#include <unistd.h>
#include "shared/reader.h"
#include "tap.h"

#define UNUSED __attribute__((unused))

static char g_dir[64];
static struct cgoom_roots g_roots = { .cgroup_fd = -1, .proc_fd = -1 };
static struct cgoom_snapshot g_snap;
static bool g_have_snap;

UNUSED static const char *MEMSTAT = "anon 1000\nfile 2000\nkernel_stack 16384\nsock 512\n"
			     "slab_unreclaimable 4096\nactive_anon 600\ninactive_anon 400\n"
			     "unevictable 0\n";

static inline int rm_one(const char *p, const struct stat *sb, int flag, struct FTW *f)
{
	(void)sb;
	(void)f;
	return flag == FTW_DP ? rmdir(p) : unlink(p);
}

static inline void rm_rf(const char *path)
{
	nftw(path, rm_one, 16, FTW_DEPTH | FTW_PHYS);
}

static inline void fx_cleanup(void)
{
	if (g_have_snap)
		cgoom_snapshot_free(&g_snap);
	g_have_snap = false;
	cgoom_roots_close(&g_roots);
	cgoom_reader_test_hook = NULL;
	if (g_dir[0])
		rm_rf(g_dir);
	g_dir[0] = '\0';
}

static inline const char *at(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static inline const char *at(const char *fmt, ...)
{
	static char bufs[4][8192];
	static int k;
	char *b = bufs[k++ % 4];
	int n = snprintf(b, sizeof bufs[0], "%s/", g_dir);
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(b + n, sizeof bufs[0] - (size_t)n, fmt, ap);
	va_end(ap);
	return b;
}

static inline void mkdir_p(const char *path)
{
	char tmp[8192];

	snprintf(tmp, sizeof tmp, "%s", path);
	for (char *p = tmp + 1; *p; p++)
		if (*p == '/') {
			*p = '\0';
			mkdir(tmp, 0755);
			*p = '/';
		}
	mkdir(tmp, 0755);
}

/* Writes fixture file REL (below the fixture dir), creating parents. */
static inline void put(const char *rel, const char *content)
{
	char dir[8192];
	const char *path = at("%s", rel);
	char *slash;
	FILE *f;

	snprintf(dir, sizeof dir, "%s", path);
	slash = strrchr(dir, '/');
	*slash = '\0';
	mkdir_p(dir);
	f = fopen(path, "w");
	if (!f)
		abort();
	fputs(content, f);
	fclose(f);
}

/* Writes file NAME of cgroup PATH ("" for the root) in the fixture. */
static inline void put_cg(const char *path, const char *name, const char *content)
{
	char rel[4096];

	snprintf(rel, sizeof rel, "cg%s/%s", path, name);
	put(rel, content);
}

/* A cgroup directory "cg/PATH" (PATH "" for the root). */
static inline void mkcg(const char *path, bool memory, const char *procs)
{
	put_cg(path, "cgroup.controllers", memory ? "cpu memory pids\n" : "cpu pids\n");
	put_cg(path, "cgroup.procs", procs);
	if (memory) {
		put_cg(path, "memory.stat", MEMSTAT);
		put_cg(path, "memory.current", "123456\n");
		put_cg(path, "memory.max", "max\n");
	}
}

struct fproc {
	int pid;
	const char *comm;
	char state;
	unsigned flags;
	unsigned long long start, rss_kb;
	int adj;
	bool no_mm;
	int kthread; /* Kthread: line, -1 none */
	unsigned uid;
};

static inline void mkproc(const struct fproc *p)
{
	char rel[64], buf[2048];

	snprintf(rel, sizeof rel, "proc/%d/stat", p->pid);
	snprintf(buf, sizeof buf,
		 "%d (%s) %c 1 %d %d 0 -1 %u 0 0 0 0 0 0 0 0 20 0 1 0 %llu 1000 %llu 0 0 0\n",
		 p->pid, p->comm, p->state ? p->state : 'S', p->pid, p->pid, p->flags, p->start,
		 p->rss_kb / 4);
	put(rel, buf);
	snprintf(rel, sizeof rel, "proc/%d/status", p->pid);
	int n = snprintf(buf, sizeof buf,
			 "Name:\t%s\nUmask:\t0022\nState:\t%c (x)\nTgid:\t%d\nPid:\t%d\nPPid:\t1\n"
			 "Uid:\t%u\t%u\t%u\t%u\n",
			 p->comm, p->state ? p->state : 'S', p->pid, p->pid, p->uid, p->uid, p->uid,
			 p->uid);
	if (!p->no_mm)
		n += snprintf(buf + n, sizeof buf - (size_t)n,
			      "VmRSS:\t%llu kB\nVmSwap:\t8 kB\nVmPTE:\t4 kB\n", p->rss_kb);
	if (p->kthread >= 0)
		snprintf(buf + n, sizeof buf - (size_t)n, "Kthread:\t%d\n", p->kthread);
	put(rel, buf);
	snprintf(rel, sizeof rel, "proc/%d/oom_score_adj", p->pid);
	snprintf(buf, sizeof buf, "%d\n", p->adj);
	put(rel, buf);
}

/* A fresh fixture: root cgroup (memcg, no processes) and a proc dir. */
static inline void fx_new(void)
{
	fx_cleanup();
	snprintf(g_dir, sizeof g_dir, "/tmp/cgoom-reader-XXXXXX");
	if (!mkdtemp(g_dir))
		abort();
	mkcg("", true, "");
	put("proc/meminfo", "MemTotal: 8000000 kB\nMemFree: 4000000 kB\n"
			    "MemAvailable: 6000000 kB\nSwapTotal: 0 kB\nSwapFree: 0 kB\n"
			    "Active(anon): 1000 kB\nInactive(anon): 2000 kB\nSUnreclaim: 300 kB\n"
			    "KernelStack: 40 kB\n");
	put("proc/net/sockstat", "sockets: used 5\nTCP: inuse 1 orphan 0 tw 0 alloc 1 mem 3\n"
				 "UDP: inuse 1 mem 4\n");
	/* one online CPU: a lazy read's bound is current + swap + 1 MiB */
	put("proc/stat", "cpu  1 0 1 10 0 0 0 0 0 0\ncpu0 1 0 1 10 0 0 0 0 0 0\nintr 0\n");
}

/* Opens the roots once and drops the last snapshot: before a read. */
static inline int fx_prepare(void)
{
	char err[256];

	if (g_have_snap)
		cgoom_snapshot_free(&g_snap);
	g_have_snap = false;
	if (g_roots.cgroup_fd >= 0)
		return 0;
	return cgoom_roots_open(at("cg"), at("proc"), &g_roots, err, sizeof err);
}

static inline int fx_read(void)
{
	int r = fx_prepare();

	if (r < 0)
		return r;
	r = cgoom_snapshot_read(&g_roots, &g_snap);
	g_have_snap = r == 0;
	return r;
}

static inline const struct cgoom_cgroup *cg(const char *path)
{
	int i = cgoom_snapshot_find(&g_snap, path);

	return i < 0 ? NULL : &g_snap.cgroups[i];
}

static inline const struct cgoom_process *proc(int pid)
{
	for (size_t i = 0; i < g_snap.n_procs; i++)
		if (g_snap.procs[i].pid == pid)
			return &g_snap.procs[i];
	return NULL;
}

static inline bool has_note(const char *sub)
{
	for (size_t i = 0; i < g_snap.n_notes; i++)
		if (strstr(g_snap.notes[i], sub))
			return true;
	return false;
}

static inline bool xset(const char *rel, const char *name, const char *val)
{
	return setxattr(at("%s", rel), name, val, strlen(val), 0) == 0;
}

