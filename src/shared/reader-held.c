/* SPDX-License-Identifier: MIT */
/*
 * What a process holds open of memory no mapping shows (SPEC 4 "memory
 * no kill can free", lib/charge.c): the deleted tmpfs files and memfds
 * among its file descriptors, read from /proc/PID/fd through the
 * directory fd that pins the process (a PID reused meanwhile fails to
 * open, ESRCH or ENOENT, and nothing is recorded).
 *
 * Each entry is stat()ed through its link (the kernel's magic link
 * gives the open file itself, deleted or not): a regular file with no
 * link left (st_nlink 0: unlinked, or a memfd, which is born unlinked)
 * and blocks allocated is then opened O_PATH through the same link and
 * checked again: the same (st_dev, st_ino) (the descriptor may have
 * been closed and its number reused in between) and a file system of
 * f_type TMPFS_MAGIC (tmpfs, shmem: memfds, /dev/shm; not hugetlbfs,
 * whose pages memory.stat does not count as shmem). Its allocated size,
 * st_blocks * 512, is what its last holder's death frees, if nothing
 * maps it (charge.c weighs that).
 *
 * No text is parsed: the link targets ("/memfd:x (deleted)") are not
 * read at all, so a file whose name ends in " (deleted)" fools nothing.
 * Whatever fails (EACCES, an entry gone, a malformed name) is skipped:
 * what is recorded is a lower bound, and a process whose directory
 * could not be read whole has fds_read false.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>

#include "cgoom/parse.h"
#include "reader-internal.h"

#ifndef TMPFS_MAGIC
#define TMPFS_MAGIC 0x01021994
#endif

/* No process holds more worth reading: past this many entries the rest
 * are left unread (fds_read false), a bound on the cost of one read. */
#define FDS_MAX 65536

struct held_walk {
	struct reader *rd;
	int dfd, pid;
	size_t seen;
	bool partial;
};

static int held_entry(void *ctx, const char *name, unsigned char type)
{
	struct held_walk *w = ctx;
	struct stat st, st2;
	struct statfs sf;
	int64_t n;

	(void)type; /* DT_LNK on procfs; a fixture's link may say otherwise */
	if (++w->seen > FDS_MAX) {
		w->partial = true;
		return 1;
	}
	if (cgoom_parse_int(name, strlen(name), 0, INT32_MAX, &n) < 0)
		return 0; /* not a descriptor: nothing procfs would list */
	if (fstatat(w->dfd, name, &st, 0) < 0) {
		if (errno != ENOENT)
			w->partial = true; /* (ENOENT: closed meanwhile) */
		return 0;
	}
	if (!S_ISREG(st.st_mode) || st.st_nlink != 0 || st.st_blocks <= 0)
		return 0;
	int fd = openat(w->dfd, name, O_PATH | O_CLOEXEC);
	if (fd < 0) {
		if (errno != ENOENT)
			w->partial = true;
		return 0;
	}
	bool ok = fstat(fd, &st2) == 0 && fstatfs(fd, &sf) == 0 && st2.st_dev == st.st_dev &&
		  st2.st_ino == st.st_ino && S_ISREG(st2.st_mode) && st2.st_nlink == 0 &&
		  (unsigned long)sf.f_type == (unsigned long)TMPFS_MAGIC;
	close(fd);
	if (!ok)
		return 0;
	if (cgfs_grow(&w->rd->staged_held, &w->rd->cap_staged_held, w->rd->n_staged_held + 1,
		      sizeof(*w->rd->staged_held)) < 0)
		return -ENOMEM;
	struct cgoom_held_file *h = &w->rd->staged_held[w->rd->n_staged_held];
	/* st_blocks counts 512-byte units whatever st_blksize says */
	uint64_t blocks = (uint64_t)st2.st_blocks;
	*h = (struct cgoom_held_file){
		.pid = w->pid,
		.cgroup = -1,
		.dev = (uint64_t)st2.st_dev,
		.ino = (uint64_t)st2.st_ino,
		.bytes = blocks > UINT64_MAX / 512 ? UINT64_MAX : blocks * 512,
	};
	/* once per (dev, ino) of this process: two descriptors of one file */
	for (size_t i = w->rd->n_staged_held_proc; i < w->rd->n_staged_held; i++)
		if (w->rd->staged_held[i].dev == h->dev && w->rd->staged_held[i].ino == h->ino)
			return 0;
	w->rd->n_staged_held++;
	return 0;
}

bool rd_read_held(struct reader *rd, int pid_fd, int pid)
{
	struct held_walk w = { .rd = rd, .pid = pid };
	size_t first = rd->n_staged_held;

	rd->n_staged_held_proc = first;
	w.dfd = openat(pid_fd, "fd", DIR_FLAGS);
	if (w.dfd < 0)
		return false; /* EACCES, gone, a fixture without one: nothing known */
	int r = cgfs_for_each_entry(w.dfd, held_entry, &w);
	close(w.dfd);
	if (r == -ENOMEM) {
		rd->n_staged_held = first;
		rd_fail(rd, "/proc", NULL, ENOMEM);
		return false;
	}
	return r == 0 && !w.partial;
}

/* Whether the processes of a cgroup being read (st, whose parent is
 * cgroup parent of the snapshot, -1 for the root) are worth reading
 * their descriptors: their memcg, or a memcg above it but the root,
 * leaves out CGOOM_HELD_MIN of unmapped shmem or more (charge.c). An
 * ancestor, not only their own memcg: who else holds a file decides
 * whether a death frees it, and a sibling that holds it needs no shmem
 * of its own; in a domain that leaves out that much, every process read
 * is read so, the same in a lazy read as in a full one (the domain and
 * what is above it are always read whole). Not the root's: its
 * hierarchical counters hold every tmpfs of the system, and no root
 * entity is credited. */
bool rd_want_held(const struct reader *rd, const struct stage *st, int parent)
{
	if (parent < 0)
		return false;
	if (st->c.is_memcg && st->c.stat_ok && cgoom_memstat_unmapped_shmem(&st->c.stat) >= CGOOM_HELD_MIN)
		return true;
	for (int a = parent; a > 0; a = rd->s->cgroups[a].parent) {
		const struct cgoom_cgroup *c = &rd->s->cgroups[a];
		if (c->is_memcg && c->stat_ok && !c->stat_deferred &&
		    cgoom_memstat_unmapped_shmem(&c->stat) >= CGOOM_HELD_MIN)
			return true;
	}
	return false;
}

void rd_commit_held(struct reader *rd, int idx)
{
	for (size_t i = 0; i < rd->n_staged_held && !rd->err; i++) {
		rd->staged_held[i].cgroup = idx;
		if (cgoom_snapshot_add_held(rd->s, &rd->staged_held[i]) == -ENOMEM)
			rd_fail(rd, "/proc", NULL, ENOMEM);
	}
	rd->n_staged_held = 0;
}
