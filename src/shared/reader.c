/* SPDX-License-Identifier: MIT */
/*
 * cgroupfs + procfs -> snapshot. Everything goes through openat() and
 * friends below the two root fds, one path component at a time, with
 * O_NOFOLLOW, so a fixture tree is a full test bed and a symlink planted
 * below a root is never followed. Nothing here decides anything: what
 * could not be read becomes a note, for the explanation.
 */

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/xattr.h>
#include <unistd.h>

#include "cgoom/parse.h"
#include "cgoom/types.h"
#include "reader.h"
#include "roots-internal.h"


#define MAX_DEPTH 64
#define MAX_CGROUPS 1000000
#define PROCS_MAX ((size_t)64 << 20)
#define FILE_MAX ((size_t)1 << 20)
#define PID_LIMIT 4194304
#define XATTR_MAX 256


void (*cgoom_reader_test_hook)(enum cgoom_reader_point point, const char *cgroup_path);

static void hook(enum cgoom_reader_point point, const char *path)
{
	if (cgoom_reader_test_hook)
		cgoom_reader_test_hook(point, path);
}

/* ---- the walk ---- */

struct reader {
	const struct cgoom_roots *roots;
	struct cgoom_snapshot *s;
	int err;           /* sticky fatal error (-ENOMEM) */
	struct rbuf buf;   /* small files */
	struct rbuf procs; /* cgroup.procs */
	int *pids;         /* PIDs of the cgroup being read, first listings only */
	size_t n_pids, cap_pids;
	struct cgoom_process *staged; /* its processes, read but not yet added */
	size_t n_staged, cap_staged;
	uint8_t *seen; /* PID bitmap: listed by some cgroup already */
	bool limit_noted;
};

/* A cgroup being read: everything is gathered here before it is added. */
struct stage {
	int fd;
	const char *path; /* "/" or "/a/b" */
	struct cgoom_cgroup c;
	bool gone, saw_enoent; /* ENODEV seen; ENOENT seen (absent, or gone?) */
	bool controllers_missing, stat_missing;
	char **children;
	size_t n_children;
};

/* Printable copy of arbitrary bytes: \\, \" and \xNN for control and
 * non-ASCII bytes; truncated with "..." to fit cap. */
static const char *esc(const char *in, size_t len, char *out, size_t cap)
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
static void note(struct reader *rd, const char *path, const char *file, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
static void note(struct reader *rd, const char *path, const char *file, const char *fmt, ...)
{
	char raw[1024], lb[1024], msg[1024];
	va_list ap;
	int n, r;

	n = snprintf(raw, sizeof raw, "%s%s%s", file && !strcmp(path, "/") ? "" : path,
		     file ? "/" : "", file ? file : "");
	esc(raw, n < 0 ? 0 : (size_t)n < sizeof raw ? (size_t)n : sizeof raw - 1, lb, sizeof lb);
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	r = cgoom_snapshot_note(rd->s, "%s: %s", lb, msg);
	if (r < 0 && !rd->err)
		rd->err = r;
}

/* Makes the array at *pp (of elements of size sz) hold at least n,
 * doubling; false when out of memory. */
static bool grow(void *pp, size_t *cap, size_t n, size_t sz)
{
	void **p = pp, *np;
	size_t ncap = *cap ? *cap : 8;

	if (n <= *cap)
		return true;
	while (ncap < n)
		ncap *= 2;
	np = realloc(*p, ncap * sz);
	if (!np)
		return false;
	*p = np;
	*cap = ncap;
	return true;
}

static bool pid_seen(const struct reader *rd, int pid)
{
	return rd->seen[pid / 8] & (1u << (pid % 8));
}

static void pid_mark(struct reader *rd, int pid, bool on)
{
	if (on)
		rd->seen[pid / 8] |= (uint8_t)(1u << (pid % 8));
	else
		rd->seen[pid / 8] &= (uint8_t) ~(1u << (pid % 8));
}

/* Records errno e of the cgroup being read: true when it is one that
 * is not noted (ENOENT: absent or gone, decided later; ENODEV: gone;
 * ENOMEM: fatal). */
static bool cg_errno(struct reader *rd, struct stage *st, int e)
{
	if (e == ENOENT)
		st->saw_enoent = true;
	else if (e == ENODEV)
		st->gone = true;
	else if (e == ENOMEM)
		rd->err = -ENOMEM;
	return e == ENOENT || e == ENODEV || e == ENOMEM;
}

/* Reads one file of the cgroup; failures other than cg_errno()'s are
 * noted. */
static int cg_read(struct reader *rd, struct stage *st, const char *file, struct rbuf *b,
		   size_t max)
{
	int r = cgoom_rbuf_read_at(b, st->fd, file, max);

	if (r >= 0 || cg_errno(rd, st, -r))
		return r;
	if (r == -EFBIG)
		note(rd, st->path, file, "larger than %zu bytes, refused", max);
	else if (r == -ELOOP)
		note(rd, st->path, file, "a symlink, not followed");
	else
		note(rd, st->path, file, "%s", strerror(-r));
	return r;
}

enum num_kind { N_U64, N_LIMIT, N_BOOL01 };

/* Reads a one-number file; true when it was there and parsed. */
static bool cg_read_num(struct reader *rd, struct stage *st, const char *file,
			enum num_kind kind, uint64_t *ret)
{
	struct rbuf *b = &rd->buf;
	int64_t v;
	int r;

	if (cg_read(rd, st, file, b, FILE_MAX) < 0)
		return false;
	if (kind == N_U64)
		r = cgoom_parse_u64(b->p, b->len, ret);
	else if (kind == N_LIMIT)
		r = cgoom_parse_limit(b->p, b->len, ret);
	else if ((r = cgoom_parse_int(b->p, b->len, 0, 1, &v)) == 0)
		*ret = (uint64_t)v;
	if (r < 0)
		note(rd, st->path, file, "malformed");
	return r == 0;
}

static void read_memory_files(struct reader *rd, struct stage *st, bool is_root)
{
	struct cgoom_cgroup *c = &st->c;
	struct cgoom_memstat ms;
	uint64_t v;
	int r;

	r = cg_read(rd, st, "memory.stat", &rd->buf, FILE_MAX);
	if (r == 0) {
		r = cgoom_parse_memstat(rd->buf.p, rd->buf.len, &ms);
		if (r == 0) {
			c->stat = ms;
			c->stat_ok = true;
		} else
			note(rd, st->path, "memory.stat",
			     r == -ENOENT ? "footprint keys missing" : "malformed");
	} else if (r == -ENOENT && !is_root)
		st->stat_missing = true; /* noted once we know the cgroup is not gone */

	c->current_ok = cg_read_num(rd, st, "memory.current", N_U64, &c->current);
	if (!cg_read_num(rd, st, "memory.swap.current", N_U64, &c->swap_current))
		c->swap_current = 0;
	if (!cg_read_num(rd, st, "memory.max", N_LIMIT, &c->max))
		c->max = UINT64_MAX;
	c->has_swap_max = cg_read_num(rd, st, "memory.swap.max", N_LIMIT, &c->swap_max);
	if (!c->has_swap_max)
		c->swap_max = UINT64_MAX;
	c->oom_group = cg_read_num(rd, st, "memory.oom.group", N_BOOL01, &v) && v == 1;
}

enum xattr_kind { X_POLICY, X_PREF, X_BIAS, X_BOOL };

/* Reads one setting xattr into *val (the enum, the int bias, or a bool)
 * and sets *has. Absent (ENODATA, ENOTSUP): untouched. Invalid or
 * unreadable: noted and ignored. */
static void read_xattr(struct reader *rd, struct stage *st, const char *name,
		       enum xattr_kind kind, bool *has, void *val)
{
	char v[XATTR_MAX], vb[256];
	ssize_t n = fgetxattr(st->fd, name, v, sizeof v);
	size_t len = n > 0 ? (size_t)n : 0;
	int64_t b;
	int r;

	if (n < 0) {
		if (errno == ERANGE)
			note(rd, st->path, NULL, "xattr %s: longer than %zu bytes, ignored", name,
			     sizeof v);
		else if (errno != ENODATA && errno != ENOTSUP && !cg_errno(rd, st, errno))
			note(rd, st->path, NULL, "xattr %s: %s", name, strerror(errno));
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
		note(rd, st->path, NULL, "xattr %s: invalid value \"%s\", ignored", name,
		     esc(v, len, vb, sizeof vb));
	else if (has)
		*has = true;
}

static void read_settings(struct reader *rd, struct stage *st)
{
	struct cgoom_raw_settings *s = &st->c.raw;
	struct stat sb;

	read_xattr(rd, st, "trusted.cgoom.oom_policy", X_POLICY, &s->has_trusted_policy,
		   &s->trusted_policy);
	read_xattr(rd, st, "trusted.cgoom.preference", X_PREF, &s->has_trusted_pref,
		   &s->trusted_pref);
	read_xattr(rd, st, "trusted.cgoom.bias", X_BIAS, &s->has_trusted_bias, &s->trusted_bias);
	read_xattr(rd, st, "user.cgoom.oom_policy", X_POLICY, &s->has_user_policy,
		   &s->user_policy);
	read_xattr(rd, st, "user.cgoom.preference", X_PREF, &s->has_user_pref, &s->user_pref);
	read_xattr(rd, st, "user.cgoom.bias", X_BIAS, &s->has_user_bias, &s->user_bias);
	read_xattr(rd, st, "user.oomd_avoid", X_BOOL, NULL, &s->oomd_avoid);
	read_xattr(rd, st, "user.oomd_omit", X_BOOL, NULL, &s->oomd_omit);
	if (fstat(st->fd, &sb) == 0)
		s->owner_is_root = sb.st_uid == 0;
}

/* cgroup.procs -> rd->pids, keeping only PIDs no earlier cgroup listed
 * (the walk is pre-order by name, so "first" is deterministic). */
static void read_pid_list(struct reader *rd, struct stage *st)
{
	int n;

	rd->n_pids = 0;
	if (cg_read(rd, st, "cgroup.procs", &rd->procs, PROCS_MAX) < 0)
		return;
	while ((n = cgoom_parse_pids(rd->procs.p, rd->procs.len, rd->pids, rd->cap_pids)) >= 0 &&
	       (size_t)n > rd->cap_pids)
		if (!grow(&rd->pids, &rd->cap_pids, (size_t)n, sizeof *rd->pids)) {
			rd->err = -ENOMEM;
			return;
		}
	if (n < 0) {
		note(rd, st->path, "cgroup.procs", "malformed");
		return;
	}
	for (int i = 0; i < n; i++) {
		const struct cgoom_snapshot *s = rd->s;
		int pid = rd->pids[i];
		const char *first = "this cgroup";

		if (pid <= 0 || pid > PID_LIMIT)
			continue;
		if (!pid_seen(rd, pid)) {
			pid_mark(rd, pid, true);
			rd->pids[rd->n_pids++] = pid;
			continue;
		}
		for (size_t j = 0; j < s->n_procs; j++)
			if (s->procs[j].pid == pid)
				first = s->cgroups[s->procs[j].cgroup].path;
		note(rd, st->path, "cgroup.procs", "PID %d already listed in %s, kept there", pid,
		     first);
	}
}

static int cmp_names(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static void free_children(struct stage *st)
{
	for (size_t i = 0; i < st->n_children; i++)
		free(st->children[i]);
	free(st->children);
	st->children = NULL;
	st->n_children = 0;
}

static int add_child(struct stage *st, const char *name, size_t *cap)
{
	if (!grow(&st->children, cap, st->n_children + 1, sizeof *st->children) ||
	    !(st->children[st->n_children] = strdup(name)))
		return -ENOMEM;
	st->n_children++;
	return 0;
}

/* Names of the subdirectories, in bytewise order. Symlinks are noted and
 * never followed. */
static void list_children(struct reader *rd, struct stage *st)
{
	size_t cap = 0;
	struct dirent *de;
	/* A fresh open file description, not a dup: a dup shares (and moves)
	 * the root fd's offset, and a second read would list nothing. */
	int fd = openat(st->fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	DIR *d = fd >= 0 ? fdopendir(fd) : NULL;

	if (!d) {
		int e = errno;

		if (fd >= 0)
			close(fd);
		if (!cg_errno(rd, st, e))
			note(rd, st->path, NULL, "cannot list: %s", strerror(e));
		return;
	}
	while (!rd->err) {
		unsigned char type;
		struct stat sb;

		errno = 0;
		de = readdir(d);
		if (!de) {
			if (errno && !cg_errno(rd, st, errno))
				note(rd, st->path, NULL, "cannot list: %s", strerror(errno));
			break;
		}
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		type = de->d_type;
		if (type == DT_UNKNOWN && fstatat(st->fd, de->d_name, &sb, AT_SYMLINK_NOFOLLOW) == 0)
			type = S_ISDIR(sb.st_mode) ? DT_DIR : S_ISLNK(sb.st_mode) ? DT_LNK : DT_REG;
		if (type == DT_LNK)
			note(rd, st->path, de->d_name, "a symlink, not followed");
		else if (type == DT_DIR && add_child(st, de->d_name, &cap) < 0)
			rd->err = -ENOMEM;
	}
	closedir(d);
	if (st->n_children > 1)
		qsort(st->children, st->n_children, sizeof *st->children, cmp_names);
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
	if ((r = cgoom_rbuf_read_at(b, fd, file = "stat", FILE_MAX)) < 0)
		goto out_close;
	r = -EBADMSG;
	if (cgoom_parse_pid_stat(b->p, b->len, &ps) < 0 || ps.pid != pid)
		goto out_close;
	if ((r = cgoom_rbuf_read_at(b, fd, file = "status", FILE_MAX)) < 0)
		goto out_close;
	r = -EBADMSG;
	if (cgoom_parse_pid_status(b->p, b->len, &pst) < 0)
		goto out_close;
	if ((r = cgoom_rbuf_read_at(b, fd, file = "oom_score_adj", FILE_MAX)) < 0)
		goto out_close;
	r = -EBADMSG;
	if (cgoom_parse_int(b->p, b->len, -1000, 1000, &adj) < 0)
		goto out_close;
	close(fd);

	memcpy(p.comm, ps.comm, sizeof p.comm);
	p.comm[sizeof p.comm - 1] = '\0';
	p.rss = pst.vm_rss;
	p.swap = pst.vm_swap;
	p.pte = pst.vm_pte;
	p.oom_score_adj = (int)adj;
	p.starttime = ps.starttime;
	p.uid = pst.uid;
	p.has_mm = pst.has_mm;
	p.kthread = (ps.flags & CGOOM_PF_KTHREAD) || pst.kthread == 1;
	p.zombie = ps.state == 'Z' || ps.state == 'X';
	*ret = p;
	return 0;

out_close:
	close(fd);
out_fail:
	snprintf(dir, sizeof dir, "/proc/%d", pid);
	if (r == -ENOMEM)
		rd->err = r;
	else if (r == -ENOENT || r == -ESRCH)
		note(rd, dir, file, "gone, process skipped");
	else if (r == -EBADMSG)
		note(rd, dir, file, "malformed, process skipped");
	else if (r == -EFBIG)
		note(rd, dir, file, "larger than %zu bytes, refused, process skipped", FILE_MAX);
	else
		note(rd, dir, file, "%s, process skipped", strerror(-r));
	return r;
}

static void stage_processes(struct reader *rd, int cgroup)
{
	rd->n_staged = 0;
	if (!grow(&rd->staged, &rd->cap_staged, rd->n_pids, sizeof *rd->staged)) {
		rd->err = -ENOMEM;
		return;
	}
	for (size_t i = 0; i < rd->n_pids && !rd->err; i++)
		if (read_process(rd, rd->pids[i], cgroup, &rd->staged[rd->n_staged]) == 0)
			rd->n_staged++;
}

/* Whether `name` under parent_fd still is the directory fd refers to. */
static bool still_there(int parent_fd, const char *name, int fd)
{
	struct stat a, b;

	if (fstatat(parent_fd, name, &a, AT_SYMLINK_NOFOLLOW) < 0 || fstat(fd, &b) < 0)
		return false;
	return S_ISDIR(a.st_mode) && a.st_dev == b.st_dev && a.st_ino == b.st_ino;
}

/* The "as read" fields; the snapshot's own (path, links, resolved) stay. */
static void copy_as_read(struct cgoom_cgroup *d, const struct cgoom_cgroup *c)
{
	d->is_memcg = c->is_memcg;
	d->stat_ok = c->stat_ok;
	d->stat = c->stat;
	d->current_ok = c->current_ok;
	d->current = c->current;
	d->swap_current = c->swap_current;
	d->max = c->max;
	d->has_swap_max = c->has_swap_max;
	d->swap_max = c->swap_max;
	d->oom_group = c->oom_group;
	d->raw = c->raw;
}

static char *child_path(const char *parent, const char *name)
{
	size_t pl = strcmp(parent, "/") ? strlen(parent) : 0, nl = strlen(name);
	char *p = malloc(pl + nl + 2);

	if (p) {
		memcpy(p, parent, pl);
		p[pl] = '/';
		memcpy(p + pl + 1, name, nl + 1);
	}
	return p;
}

static int visit(struct reader *rd, int fd, int parent_fd, int parent, const char *name,
		 const char *path, int depth);

static void visit_children(struct reader *rd, struct stage *st, int idx, int depth)
{
	for (size_t i = 0; i < st->n_children && !rd->err; i++) {
		const char *name = st->children[i];
		char *cpath;
		int cfd, e;

		if (rd->s->n_cgroups >= MAX_CGROUPS) {
			if (!rd->limit_noted)
				note(rd, st->path, NULL, "more than %d cgroups, the rest not read",
				     MAX_CGROUPS);
			rd->limit_noted = true;
			return;
		}
		if (depth + 1 > MAX_DEPTH) {
			note(rd, st->path, NULL, "deeper than %d levels, children not read",
			     MAX_DEPTH);
			return;
		}
		cpath = child_path(st->path, name);
		if (!cpath) {
			rd->err = -ENOMEM;
			return;
		}
		hook(CGOOM_READER_BEFORE_OPEN, cpath);
		cfd = openat(st->fd, name, DIR_FLAGS);
		e = errno;
		if (cfd >= 0) {
			visit(rd, cfd, st->fd, idx, name, cpath, depth + 1);
			close(cfd);
		} else if (e == ENOENT || e == ENODEV)
			note(rd, cpath, NULL, "vanished during the walk, dropped");
		else if (e == ELOOP || e == ENOTDIR)
			note(rd, cpath, NULL, "not a directory (a symlink?), not followed");
		else if (e == ENOMEM)
			rd->err = -ENOMEM;
		else
			note(rd, cpath, NULL, "%s, dropped", strerror(e));
		free(cpath);
	}
}

/*
 * Reads the cgroup whose directory is fd (parent < 0: the root), then
 * its subtree. Everything about it is read before it is re-validated
 * and added, so a cgroup that vanished is dropped whole. Returns < 0
 * only for fatal errors (also left in rd->err).
 */
static int visit(struct reader *rd, int fd, int parent_fd, int parent, const char *name,
		 const char *path, int depth)
{
	struct stage st = { .fd = fd, .path = path };
	bool is_root = parent < 0;
	int idx = 0;

	st.c.max = st.c.swap_max = UINT64_MAX;
	st.c.is_memcg = is_root;
	if (!is_root) {
		hook(CGOOM_READER_AFTER_OPEN, path);
		if (cg_read(rd, &st, "cgroup.controllers", &rd->buf, FILE_MAX) == 0) {
			if (cgoom_parse_has_controller(rd->buf.p, rd->buf.len, "memory",
						       &st.c.is_memcg) < 0)
				note(rd, path, "cgroup.controllers", "malformed");
		} else if (st.saw_enoent)
			st.controllers_missing = true;
	}
	if (st.c.is_memcg)
		read_memory_files(rd, &st, is_root);
	read_settings(rd, &st);
	read_pid_list(rd, &st);
	list_children(rd, &st);
	stage_processes(rd, is_root ? 0 : (int)rd->s->n_cgroups);
	if (rd->err)
		goto out;

	if (!is_root) {
		hook(CGOOM_READER_BEFORE_COMMIT, path);
		/* ENOENT is ambiguous (an absent file, or a removed cgroup) until
		 * the name is checked; checking last also covers removal after
		 * the files were read. */
		if (st.gone || !still_there(parent_fd, name, fd)) {
			note(rd, path, NULL, "vanished during the walk, dropped");
			for (size_t i = 0; i < rd->n_pids; i++)
				pid_mark(rd, rd->pids[i], false);
			goto out;
		}
		idx = cgoom_snapshot_add_cgroup(rd->s, parent, name);
		if (idx == -ENOMEM)
			rd->err = idx;
		if (idx < 0) {
			note(rd, path, NULL, "cannot be added (%s), dropped", strerror(-idx));
			goto out;
		}
	}
	if (st.controllers_missing)
		note(rd, path, "cgroup.controllers", "missing, taken as no memory controller");
	if (st.stat_missing)
		note(rd, path, "memory.stat", "missing");
	copy_as_read(&rd->s->cgroups[idx], &st.c);
	for (size_t i = 0; i < rd->n_staged && !rd->err; i++) {
		int r;

		rd->staged[i].cgroup = idx;
		r = cgoom_snapshot_add_process(rd->s, &rd->staged[i]);
		if (r == -ENOMEM)
			rd->err = r;
		else if (r < 0)
			note(rd, "/proc", NULL, "PID %d cannot be added (%s), skipped",
			     rd->staged[i].pid, strerror(-r));
	}
	visit_children(rd, &st, idx, depth);
out:
	free_children(&st);
	return rd->err;
}

static void read_system(struct reader *rd)
{
	int pfd = rd->roots->proc_fd;
	struct rbuf *b = &rd->buf;
	char link[32];
	long pagesize;
	ssize_t n;
	int r;

	r = cgoom_rbuf_read_at(b, pfd, "meminfo", FILE_MAX);
	if (r == 0 && (r = cgoom_parse_meminfo(b->p, b->len, &rd->s->meminfo)) < 0)
		r = -EBADMSG;
	if (r < 0)
		note(rd, "/proc/meminfo", NULL, "%s", r == -EBADMSG ? "malformed" : strerror(-r));
	rd->s->meminfo_ok = r == 0;
	r = cgoom_rbuf_read_at(b, pfd, "net/sockstat", FILE_MAX);
	if (r == 0 && (r = cgoom_parse_sockstat(b->p, b->len, &rd->s->sockstat)) < 0)
		r = -EBADMSG;
	if (r < 0)
		note(rd, "/proc/net/sockstat", NULL, "%s",
		     r == -EBADMSG ? "malformed" : strerror(-r));
	rd->s->sockstat_ok = r == 0;

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
			note(rd, "/proc/self", NULL, "not a PID link; cgoom's own PID unknown");
	}
}

int cgoom_snapshot_read(const struct cgoom_roots *r, struct cgoom_snapshot *ret)
{
	struct cgoom_snapshot s;
	struct reader rd = { .roots = r, .s = &s };
	int e, fd;

	if (!r || r->cgroup_fd < 0 || r->proc_fd < 0)
		return -EBADF;
	/* The one hard failure: the cgroup root cannot be listed. */
	fd = openat(r->cgroup_fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	close(fd);
	e = cgoom_snapshot_init(&s);
	if (e < 0)
		return e;
	rd.seen = calloc(PID_LIMIT / 8 + 1, 1);
	e = rd.seen ? 0 : -ENOMEM;
	if (e == 0)
		read_system(&rd);
	if (e == 0 && !rd.err)
		visit(&rd, r->cgroup_fd, -1, -1, "", "/", 0);
	if (e == 0)
		e = rd.err;
	if (e == 0)
		e = cgoom_snapshot_finalize(&s);
	if (e == 0)
		*ret = s;
	else
		cgoom_snapshot_free(&s);
	free(rd.seen);
	free(rd.buf.p);
	free(rd.procs.p);
	free(rd.pids);
	free(rd.staged);
	return e;
}
