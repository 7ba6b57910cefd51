/* SPDX-License-Identifier: MIT */
/*
 * The reader's file reading: one cgroup's files and xattrs, one
 * process's procfs files, the system files, and how failures become
 * notes. See reader.c for the walk.
 */

#include <dirent.h>
#include <errno.h>
#include <stddef.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/xattr.h>
#include <unistd.h>

#include "cgoom/parse.h"
#include "cgoom/types.h"
#include "reader-internal.h"

/* Printable copy of arbitrary bytes: \\, \" and \xNN for control and
 * non-ASCII bytes; truncated with "..." to fit cap. */
const char *rd_esc(const char *in, size_t len, char *out, size_t cap)
{
	size_t o = 0;

	for (size_t i = 0; i < len; i++) {
		unsigned char ch = (unsigned char)in[i];
		char tmp[5];
		int n = ch == '\\' || ch == '"'   ? snprintf(tmp, sizeof tmp, "\\%c", ch)
			: ch < 0x20 || ch >= 0x7f ? snprintf(tmp, sizeof tmp, "\\x%02x", ch)
						  : snprintf(tmp, sizeof tmp, "%c", ch);

		if (o + (size_t)n + 4 > cap) {
			memcpy(out + o, "...", 4);
			return out;
		}
		memcpy(out + o, tmp, (size_t)n);
		o += (size_t)n;
	}
	out[o] = '\0';
	return out;
}

/* Appends the note "PATH[/FILE]: MESSAGE" with the name escaped (PATH
 * "/" and FILE "x" give "/x"). Failing to record it (-ENOMEM) is sticky
 * in rd->err. */
void rd_note(struct reader *rd, const char *path, const char *file, const char *fmt, ...)
{
	char raw[1024], lb[1024], msg[1024];
	va_list ap;
	int n, r;

	n = snprintf(raw, sizeof raw, "%s%s%s", file && !strcmp(path, "/") ? "" : path,
		     file ? "/" : "", file ? file : "");
	rd_esc(raw, n < 0 ? 0 : (size_t)n < sizeof raw ? (size_t)n : sizeof raw - 1, lb, sizeof lb);
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	r = cgoom_snapshot_note(rd->s, "%s: %s", lb, msg);
	if (r < 0)
		rd_fail(rd, path, file, -r);
}

bool rd_pid_seen(const struct reader *rd, int pid)
{
	return rd->seen[pid / 8] & (1u << (pid % 8));
}

void rd_pid_mark(struct reader *rd, int pid, bool on)
{
	if (on)
		rd->seen[pid / 8] |= (uint8_t)(1u << (pid % 8));
	else
		rd->seen[pid / 8] &= (uint8_t) ~(1u << (pid % 8));
}

/* Where the last read on this thread stopped (rd_fail). */
static _Thread_local char error_where[512];

const char *cgoom_reader_error_where(void)
{
	return error_where;
}

void rd_error_where_reset(void)
{
	error_where[0] = '\0';
}

bool rd_fatal_errno(int e)
{
	return e == ENOMEM || e == EMFILE || e == ENFILE;
}

void rd_fail(struct reader *rd, const char *path, const char *file, int e)
{
	if (rd->err)
		return;
	rd->err = -e;
	snprintf(error_where, sizeof error_where, "%s%s%s: %s",
		 file && path && !strcmp(path, "/") ? "" : path ? path : "", file ? "/" : "",
		 file ? file : "", strerror(e));
}

/* Records errno e of file `file` (NULL: the directory) of the cgroup
 * being read: true when it is one that is not noted (ENOENT: absent or
 * gone, decided later; ENODEV: gone; out of memory or fds: fatal). */
bool rd_cg_errno(struct reader *rd, struct stage *st, const char *file, int e)
{
	if (e == ENOENT)
		st->saw_enoent = true;
	else if (e == ENODEV)
		st->gone = true;
	else if (rd_fatal_errno(e))
		rd_fail(rd, st->path, file, e);
	return e == ENOENT || e == ENODEV || rd_fatal_errno(e);
}

/* Reads one file of the cgroup; failures other than rd_cg_errno()'s are
 * noted. */
int rd_cg_read(struct reader *rd, struct stage *st, const char *file, struct rbuf *b,
		   size_t max)
{
	return rd_cg_failed(rd, st, file, cgfs_read_at(b, st->fd, file, max), max);
}

int rd_cg_failed(struct reader *rd, struct stage *st, const char *file, int r, size_t max)
{
	if (r >= 0 || rd_cg_errno(rd, st, file, -r))
		return r;
	if (r == -EFBIG)
		rd_note(rd, st->path, file, "larger than %zu bytes, refused", max);
	else if (r == -ELOOP)
		rd_note(rd, st->path, file, "a symlink, not followed");
	else
		rd_note(rd, st->path, file, "%s", strerror(-r));
	return r;
}

/* Reads a one-number file: 0 when it was there and parsed, else the
 * read's error or -EBADMSG (malformed, noted). */
static int cg_read_num(struct reader *rd, struct stage *st, const char *file, enum num_kind kind,
		       uint64_t *ret)
{
	struct rbuf *b = &rd->buf;
	int64_t v;
	int r;

	if ((r = rd_cg_read(rd, st, file, b, FILE_MAX)) < 0)
		return r;
	if (kind == N_U64)
		r = cgoom_parse_u64(b->p, b->len, ret);
	else if (kind == N_LIMIT)
		r = cgoom_parse_limit(b->p, b->len, ret);
	else if ((r = cgoom_parse_int(b->p, b->len, 0, 1, &v)) == 0)
		*ret = (uint64_t)v;
	if (r < 0) {
		rd_note(rd, st->path, file, "malformed");
		return -EBADMSG;
	}
	return 0;
}

bool rd_cg_read_num(struct reader *rd, struct stage *st, const char *file,
			enum num_kind kind, uint64_t *ret)
{
	return cg_read_num(rd, st, file, kind, ret) == 0;
}

static void read_memory_files(struct reader *rd, struct stage *st, bool is_root)
{
	struct cgoom_cgroup *c = &st->c;
	struct cgoom_memstat ms;
	uint64_t v;
	int r;

	r = rd_cg_read(rd, st, "memory.stat", &rd->buf, FILE_MAX);
	if (r == 0) {
		r = cgoom_parse_memstat(rd->buf.p, rd->buf.len, &ms);
		if (r == 0) {
			c->stat = ms;
			c->stat_ok = true;
		} else
			rd_note(rd, st->path, "memory.stat",
			     r == -ENOENT ? "footprint keys missing" : "malformed");
	} else if (r == -ENOENT && !is_root)
		st->stat_missing = true; /* noted once we know the cgroup is not gone */

	c->current_ok = rd_cg_read_num(rd, st, "memory.current", N_U64, &c->current);
	r = cg_read_num(rd, st, "memory.swap.current", N_U64, &c->swap_current);
	st->swap_read = r == 0;
	/* absent (no swap accounting): 0 (SPEC 4); there but unreadable or
	 * malformed: unknown, not 0 (charge.c bounds it) */
	c->swap_bad = r < 0 && r != -ENOENT && r != -ENODEV;
	if (!st->swap_read)
		c->swap_current = 0;
	if (!rd_cg_read_num(rd, st, "memory.max", N_LIMIT, &c->max))
		c->max = UINT64_MAX;
	c->has_swap_max = rd_cg_read_num(rd, st, "memory.swap.max", N_LIMIT, &c->swap_max);
	if (!c->has_swap_max)
		c->swap_max = UINT64_MAX;
	c->oom_group = rd_cg_read_num(rd, st, "memory.oom.group", N_BOOL01, &v) && v == 1;
}

enum xattr_kind { X_POLICY, X_PREF, X_BIAS, X_BOOL };

/* Reads one setting xattr into *val (the enum, the int bias, or a bool)
 * and sets *has. Absent (ENODATA, ENOTSUP): untouched. Invalid or
 * unreadable: noted and ignored. */
static void read_xattr(struct reader *rd, struct stage *st, const char *name,
		       enum xattr_kind kind, bool *has, void *val)
{
	char v[XATTR_MAX], vb[256];
	ssize_t n = st->fd >= 0 ? fgetxattr(st->fd, name, v, sizeof v)
			       : lgetxattr(st->xname, name, v, sizeof v);
	size_t len = n > 0 ? (size_t)n : 0;
	int64_t b;
	int r;

	if (n < 0) {
		if (errno == ERANGE)
			rd_note(rd, st->path, NULL, "xattr %s: longer than %zu bytes, ignored", name,
			     sizeof v);
		else if (errno != ENODATA && errno != ENOTSUP && !rd_cg_errno(rd, st, NULL, errno))
			rd_note(rd, st->path, NULL, "xattr %s: %s", name, strerror(errno));
		return;
	}
	if (kind == X_POLICY)
		r = cgoom_policy_from_string(v, len, val);
	else if (kind == X_PREF)
		r = cgoom_pref_from_string(v, len, val);
	else if (kind == X_BOOL)
		r = cgoom_parse_bool(v, len, val);
	else {
		/* tolerate the trailing NUL some tools write, as the name parsers do */
		r = cgoom_parse_int(v, len && !v[len - 1] ? len - 1 : len, CGOOM_BIAS_MIN,
				    CGOOM_BIAS_MAX, &b);
		if (r == 0)
			*(int *)val = (int)b;
	}
	if (r < 0)
		rd_note(rd, st->path, NULL, "xattr %s: invalid value \"%s\", ignored", name,
		     rd_esc(v, len, vb, sizeof vb));
	else if (has)
		*has = true;
}

/* Whether `name` is in the NUL-separated list from listxattr(). */
static bool listed(const char *list, size_t len, const char *name)
{
	for (size_t i = 0; i < len;) {
		size_t l = strnlen(list + i, len - i);

		if (l == strlen(name) && !memcmp(list + i, name, l))
			return true;
		i += l + 1;
	}
	return false;
}

void rd_read_settings(struct reader *rd, struct stage *st)
{
	static const struct {
		const char *name;
		enum xattr_kind kind;
		size_t has, val; /* offsets in struct cgoom_raw_settings; has (size_t)-1: none */
	} xs[] = {
#define X(n, k, h, v) { n, k, offsetof(struct cgoom_raw_settings, h), offsetof(struct cgoom_raw_settings, v) }
#define XN(n, k, v) { n, k, (size_t)-1, offsetof(struct cgoom_raw_settings, v) }
		X("trusted.cgoom.oom_policy", X_POLICY, has_trusted_policy, trusted_policy),
		X("trusted.cgoom.preference", X_PREF, has_trusted_pref, trusted_pref),
		X("trusted.cgoom.bias", X_BIAS, has_trusted_bias, trusted_bias),
		X("user.cgoom.oom_policy", X_POLICY, has_user_policy, user_policy),
		X("user.cgoom.preference", X_PREF, has_user_pref, user_pref),
		X("user.cgoom.bias", X_BIAS, has_user_bias, user_bias),
		XN("user.oomd_avoid", X_BOOL, oomd_avoid),
		XN("user.oomd_omit", X_BOOL, oomd_omit),
#undef X
#undef XN
	};
	char *raw = (char *)&st->c.raw;
	char list[4096];
	struct stat sb;
	/* One listxattr() instead of eight getxattr()s when (as almost
	 * always) nothing is set; if the list cannot be had, try each. It
	 * shows trusted.* only to CAP_SYS_ADMIN, who alone can read them. */
	ssize_t n = st->fd >= 0 ? flistxattr(st->fd, list, sizeof list)
			       : llistxattr(st->xname, list, sizeof list);

	if (n < 0 && errno == ENOTSUP)
		n = 0;
	for (size_t i = 0; i < sizeof xs / sizeof xs[0]; i++)
		if (n < 0 || listed(list, (size_t)n, xs[i].name))
			read_xattr(rd, st, xs[i].name, xs[i].kind,
				   xs[i].has == (size_t)-1 ? NULL : (bool *)(raw + xs[i].has),
				   raw + xs[i].val);
	if (st->fd >= 0 && fstat(st->fd, &sb) == 0)
		st->c.raw.owner_is_root = sb.st_uid == 0;
}

/* SPEC 7: moving a process needs write access to the common ancestor's
 * cgroup.procs, so a user-owned one is where charge can be parked.
 * Only a cgroup with child cgroups can be such a place (SPEC 4 parks
 * nothing in a childless one), so only those are looked at, which keeps
 * the lazy read's deferred leaves at their few syscalls; and below the
 * topmost user-owned one nothing more is learnt. */
void rd_read_procs_owner(struct reader *rd, struct stage *st)
{
	struct stat sb;

	(void)rd;
	if (st->user_procs_above || st->n_children == 0 || st->fd < 0)
		return;
	if (fstatat(st->fd, "cgroup.procs", &sb, AT_SYMLINK_NOFOLLOW) == 0)
		st->c.raw.procs_user_owned = S_ISREG(sb.st_mode) && sb.st_uid != 0;
}

bool rd_user_procs_at(const struct cgoom_snapshot *s, int idx)
{
	for (int i = idx; i >= 0; i = s->cgroups[i].parent)
		if (s->cgroups[i].raw.procs_user_owned)
			return true;
	return false;
}

/* cgroup.procs -> rd->pids, keeping only PIDs no earlier cgroup listed
 * (the walk is pre-order by name, so "first" is deterministic). */
void rd_read_pid_list(struct reader *rd, struct stage *st)
{
	int n;

	rd->n_pids = 0;
	/* a threaded cgroup's cgroup.procs cannot be read (EOPNOTSUPP): its
	 * processes are listed by its threaded domain, an ancestor read
	 * before it, and belong to that domain's memcg */
	n = cgfs_read_at(&rd->procs, st->fd, "cgroup.procs", PROCS_MAX);
	if (n == -EOPNOTSUPP && cgfs_threaded_at(st->fd))
		return;
	n = rd_cg_failed(rd, st, "cgroup.procs", n, PROCS_MAX);
	if (n < 0) {
		/* absent or gone: nothing in it; else unknown (noted) */
		st->c.procs_unknown = n != -ENOENT && n != -ENODEV;
		return;
	}
	while ((n = cgoom_parse_pids(rd->procs.p, rd->procs.len, rd->pids, rd->cap_pids)) >= 0 &&
	       (size_t)n > rd->cap_pids)
		if (cgfs_grow(&rd->pids, &rd->cap_pids, (size_t)n, sizeof *rd->pids) < 0) {
			rd_fail(rd, st->path, "cgroup.procs", ENOMEM);
			return;
		}
	if (n < 0) {
		rd_note(rd, st->path, "cgroup.procs", "malformed");
		st->c.procs_unknown = true;
		return;
	}
	for (int i = 0; i < n; i++) {
		const struct cgoom_snapshot *s = rd->s;
		int pid = rd->pids[i];
		const char *first = "this cgroup";

		if (pid <= 0 || pid > PID_LIMIT)
			continue;
		if (!rd_pid_seen(rd, pid)) {
			rd_pid_mark(rd, pid, true);
			rd->pids[rd->n_pids++] = pid;
			continue;
		}
		for (size_t j = 0; j < s->n_procs; j++)
			if (s->procs[j].pid == pid)
				first = s->cgroups[s->procs[j].cgroup].path;
		rd_note(rd, st->path, "cgroup.procs", "PID %d already listed in %s, kept there", pid,
		     first);
	}
}

struct live_thread {
	struct reader *rd;
	int task_fd, pid;
	struct cgoom_pid_status *ret;
};

/* cgfs_for_each_entry() callback: the TID of a live thread of the
 * group with an address space (its status in *ret), or 0 to go on. */
static int live_thread_entry(void *ctx, const char *name, unsigned char type)
{
	struct live_thread *t = ctx;
	struct cgoom_pid_status st;
	char file[32];
	int64_t tid;

	if (type != DT_DIR || cgoom_parse_int(name, strlen(name), 1, PID_LIMIT, &tid) < 0 ||
	    tid == t->pid)
		return 0;
	snprintf(file, sizeof file, "%d/status", (int)tid);
	if (cgfs_read_at(&t->rd->buf, t->task_fd, file, FILE_MAX) < 0 ||
	    cgoom_parse_pid_status(t->rd->buf.p, t->rd->buf.len, &st) < 0 || st.tgid != t->pid ||
	    !st.has_mm || st.state == 'Z' || st.state == 'X')
		return 0;
	*t->ret = st;
	return (int)tid;
}

/*
 * SPEC 2: a leader whose main thread exited (pthread_exit()) shows state
 * Z and no Vm* lines while the rest of its thread group lives on with
 * the address space; it is a live process, and the kernel's oom_badness
 * finds its memory in any thread that has it (find_lock_task_mm). So
 * does this: the TID of the first live thread with an address space,
 * its status in *ret (the same mm: the same VmRSS, VmSwap, VmPTE), or 0
 * when there is none (a zombie indeed). fd is the /proc/PID directory.
 */
static int live_thread_of(struct reader *rd, int fd, int pid, struct cgoom_pid_status *ret)
{
	struct live_thread t = { .rd = rd, .pid = pid, .ret = ret };
	int r;

	t.task_fd = openat(fd, "task", DIR_FLAGS);
	if (t.task_fd < 0)
		return 0;
	r = cgfs_for_each_entry(t.task_fd, live_thread_entry, &t);
	close(t.task_fd);
	return r > 0 ? r : 0;
}

/* "gone, process skipped", one note each for the first CGOOM_GONE_NOTES
 * PIDs of a snapshot, then one note that counts the rest. */
static void note_gone(struct reader *rd, const char *dir, const char *file)
{
	struct cgoom_snapshot *s = rd->s;
	if (++s->n_gone <= CGOOM_GONE_NOTES) {
		rd_note(rd, dir, file, "gone, process skipped");
		return;
	}
	size_t more = s->n_gone - CGOOM_GONE_NOTES;
	char *msg;
	if (asprintf(&msg, "/proc: %zu more process%s gone between their cgroup's listing and "
		     "their read, skipped", more, more == 1 ? "" : "es") < 0) {
		rd_fail(rd, dir, file, ENOMEM);
		return;
	}
	if (more > 1 && s->gone_note < s->n_notes) {
		free(s->notes[s->gone_note]);
		s->notes[s->gone_note] = msg;
		return;
	}
	int r = cgoom_snapshot_note(s, "%s", msg);
	free(msg);
	if (r < 0)
		rd_fail(rd, dir, file, -r);
	else
		s->gone_note = s->n_notes - 1;
}

/* Reads PID/{stat,status,oom_score_adj} into *ret, or notes why the
 * process is skipped and returns < 0. */
static int read_process(struct reader *rd, int pid, int cgroup, struct cgoom_process *ret)
{
	struct cgoom_process p = { .pid = pid, .cgroup = cgroup };
	struct cgoom_pid_stat ps;
	struct cgoom_pid_status pst;
	struct rbuf *b = &rd->buf;
	const char *file = NULL;
	char dir[32];
	int64_t adj;
	int fd, r;

	/* One dir fd for all three files: on procfs it pins this process, so
	 * a PID reused mid-read fails (ESRCH) instead of mixing two. */
	snprintf(dir, sizeof dir, "%d", pid);
	fd = openat(rd->roots->proc_fd, dir, DIR_FLAGS);
	if (fd < 0) {
		r = -errno;
		goto out_fail;
	}
	if ((r = cgfs_read_at(b, fd, file = "stat", FILE_MAX)) < 0)
		goto out_close;
	r = -EBADMSG;
	if (cgoom_parse_pid_stat(b->p, b->len, &ps) < 0 || ps.pid != pid)
		goto out_close;
	if ((r = cgfs_read_at(b, fd, file = "status", FILE_MAX)) < 0)
		goto out_close;
	r = -EBADMSG;
	if (cgoom_parse_pid_status(b->p, b->len, &pst) < 0)
		goto out_close;
	if ((r = cgfs_read_at(b, fd, file = "oom_score_adj", FILE_MAX)) < 0)
		goto out_close;
	r = -EBADMSG;
	if (cgoom_parse_int(b->p, b->len, -1000, 1000, &adj) < 0)
		goto out_close;
	p.zombie = ps.state == 'Z' || ps.state == 'X';
	/* an exited leader counts among its group's threads: more than one,
	 * and some other thread may live on */
	if (p.zombie && ps.num_threads > 1 && (p.mm_tid = live_thread_of(rd, fd, pid, &pst)) > 0)
		p.zombie = false;
	if (rd->staged_fds && !p.zombie)
		p.fds_read = rd_read_held(rd, fd, pid);
	close(fd);

	memcpy(p.comm, ps.comm, sizeof p.comm);
	p.comm[sizeof p.comm - 1] = '\0';
	p.rss = pst.vm_rss;
	p.swap = pst.vm_swap;
	p.pte = pst.vm_pte;
	p.rss_shmem = pst.rss_shmem;
	p.rss_shmem_known = pst.has_rss_shmem || !pst.has_mm;
	p.oom_score_adj = (int)adj;
	p.starttime = ps.starttime;
	p.uid = pst.uid;
	p.has_mm = pst.has_mm;
	p.kthread = (ps.flags & CGOOM_PF_KTHREAD) || pst.kthread == 1;
	*ret = p;
	return 0;

out_close:
	close(fd);
out_fail:
	snprintf(dir, sizeof dir, "/proc/%d", pid);
	if (rd_fatal_errno(-r))
		rd_fail(rd, dir, file, -r);
	else if (r == -ENOENT || r == -ESRCH)
		note_gone(rd, dir, file);
	else if (r == -EBADMSG)
		rd_note(rd, dir, file, "malformed, process skipped");
	else if (r == -EFBIG)
		rd_note(rd, dir, file, "larger than %zu bytes, refused, process skipped", FILE_MAX);
	else
		rd_note(rd, dir, file, "%s, process skipped", strerror(-r));
	return r;
}

void rd_stage_processes(struct reader *rd, int cgroup)
{
	rd->n_staged = 0;
	rd->n_staged_held = 0;
	rd->staged_unknown = false;
	if (cgfs_grow(&rd->staged, &rd->cap_staged, rd->n_pids, sizeof *rd->staged) < 0) {
		rd_fail(rd, "/proc", NULL, ENOMEM);
		return;
	}
	for (size_t i = 0; i < rd->n_pids && !rd->err; i++) {
		int r = read_process(rd, rd->pids[i], cgroup, &rd->staged[rd->n_staged]);
		if (r == 0)
			rd->n_staged++;
		else if (r != -ENOENT && r != -ESRCH)
			rd->staged_unknown = true; /* there, but whether eligible is unknown */
	}
}

void rd_read_system(struct reader *rd)
{
	int pfd = rd->roots->proc_fd;
	struct rbuf *b = &rd->buf;
	char link[32];
	long pagesize;
	ssize_t n;
	int r;

	r = cgfs_read_at(b, pfd, "meminfo", FILE_MAX);
	if (r == 0 && (r = cgoom_parse_meminfo(b->p, b->len, &rd->s->meminfo)) < 0)
		r = -EBADMSG;
	if (rd_fatal_errno(-r))
		rd_fail(rd, "/proc/meminfo", NULL, -r);
	else if (r < 0)
		rd_note(rd, "/proc/meminfo", NULL, "%s", r == -EBADMSG ? "malformed" : strerror(-r));
	rd->s->meminfo_ok = r == 0;
	r = cgfs_read_at(b, pfd, "net/sockstat", FILE_MAX);
	if (r == 0 && (r = cgoom_parse_sockstat(b->p, b->len, &rd->s->sockstat)) < 0)
		r = -EBADMSG;
	if (rd_fatal_errno(-r))
		rd_fail(rd, "/proc/net/sockstat", NULL, -r);
	else if (r < 0)
		rd_note(rd, "/proc/net/sockstat", NULL, "%s",
		     r == -EBADMSG ? "malformed" : strerror(-r));
	rd->s->sockstat_ok = r == 0;
	/* the CPU count sizes the bound of a lazy read (cgoom_stat_slack);
	 * without it nothing is pruned, which needs no note */
	if (rd->lazy && cgfs_read_at(b, pfd, "stat", FILE_MAX) == 0)
		(void)cgoom_parse_cpu_count(b->p, b->len, &rd->s->n_cpus);

	pagesize = sysconf(_SC_PAGESIZE);
	if (pagesize > 0)
		rd->s->page_size = (uint64_t)pagesize;

	/* "self" is cgoom's PID in that procfs' PID namespace; getpid() could
	 * collide with a fixture's PIDs. No link (a fixture): none. */
	rd->s->self_pid = 0;
	n = readlinkat(pfd, "self", link, sizeof link - 1);
	if (n > 0) {
		int64_t v;

		if (cgoom_parse_int(link, (size_t)n, 1, PID_LIMIT, &v) == 0)
			rd->s->self_pid = (int)v;
		else
			rd_note(rd, "/proc/self", NULL, "not a PID link; cgoom's own PID unknown");
	}
}

void rd_read_memcg(struct reader *rd, struct stage *st, bool is_root)
{
	st->c.max = st->c.swap_max = UINT64_MAX;
	st->c.is_memcg = is_root;
	if (!is_root) {
		if (rd_cg_read(rd, st, "cgroup.controllers", &rd->buf, FILE_MAX) == 0) {
			if (cgoom_parse_has_controller(rd->buf.p, rd->buf.len, "memory",
						       &st->c.is_memcg) < 0)
				rd_note(rd, st->path, "cgroup.controllers", "malformed");
		} else if (st->saw_enoent)
			st->controllers_missing = true;
	}
	if (st->c.is_memcg && !st->skip_body)
		read_memory_files(rd, st, is_root);
}

void rd_drop_staged(struct reader *rd, const char *path)
{
	rd_note(rd, path, NULL, "vanished during the walk, dropped");
	for (size_t i = 0; i < rd->n_pids; i++)
		rd_pid_mark(rd, rd->pids[i], false);
	rd->n_staged = 0;
	rd->n_staged_held = 0;
}

void rd_commit(struct reader *rd, struct stage *st, int idx)
{
	if (st->controllers_missing)
		rd_note(rd, st->path, "cgroup.controllers", "missing, taken as no memory controller");
	if (st->stat_missing)
		rd_note(rd, st->path, "memory.stat", "missing");
	rd_copy_as_read(&rd->s->cgroups[idx], &st->c);
	rd->s->cgroups[idx].procs_unknown = st->c.procs_unknown || rd->staged_unknown;
	for (size_t i = 0; i < rd->n_staged && !rd->err; i++) {
		int r;

		rd->staged[i].cgroup = idx;
		r = cgoom_snapshot_add_process(rd->s, &rd->staged[i]);
		if (r == -ENOMEM)
			rd_fail(rd, st->path, NULL, ENOMEM);
		else if (r < 0)
			rd_note(rd, "/proc", NULL, "PID %d cannot be added (%s), skipped",
				rd->staged[i].pid, strerror(-r));
	}
	rd_commit_held(rd, idx);
}
