/* SPDX-License-Identifier: MIT */
/* The two root directories, and reading whole files below them. */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <linux/capability.h>

#include "reader.h"
#include "roots-internal.h"

/* ---- roots ---- */

/* The host's cgroup mount point: the default --cgroup-root. */
#define HOST_CGROUP_ROOT "/sys/fs/cgroup"

/* Whether fd is the very directory at path (same device and inode). */
static bool fd_is_path(int fd, const char *path)
{
	struct stat a, b;

	return fstat(fd, &a) == 0 && stat(path, &b) == 0 && a.st_dev == b.st_dev &&
	       a.st_ino == b.st_ino;
}

int cgoom_roots_check_v2(const char *path, unsigned long f_type, bool is_host_mount, char *err,
			 size_t errcap)
{
	const char *what;

	if (f_type == CGOOM_CGROUP2_MAGIC)
		return 0;
	if (f_type == CGOOM_CGROUP1_MAGIC)
		what = "a cgroup v1 controller hierarchy";
	else if (is_host_mount && f_type == CGOOM_TMPFS_MAGIC)
		what = "a tmpfs of cgroup v1 hierarchies (a legacy or hybrid layout)";
	else if (is_host_mount)
		what = "not a cgroup2 mount";
	else
		return 0; /* an ordinary directory: a fixture tree */
	if (err && errcap)
		snprintf(err, errcap,
			 "%s: %s; cgoom needs the unified cgroup v2 hierarchy: boot with "
			 "systemd.unified_cgroup_hierarchy=1 (systemd) or cgroup_no_v1=all on the "
			 "kernel command line",
			 path, what);
	return -EMEDIUMTYPE;
}

int cgoom_roots_open(const char *cgroup_root, const char *proc_root, struct cgoom_roots *ret,
		     char *err, size_t errcap)
{
	struct cgoom_roots r = { .cgroup_fd = -1, .proc_fd = -1 };
	struct statfs sf;
	const char *failed = cgroup_root;
	int e = 0;

	/* The roots themselves may be symlinks: the operator named them. */
	r.cgroup_fd = open(cgroup_root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (r.cgroup_fd >= 0) {
		failed = proc_root;
		r.proc_fd = open(proc_root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	}
	if (r.cgroup_fd < 0 || r.proc_fd < 0)
		e = -errno;
	else if (fstatfs(r.cgroup_fd, &sf) < 0) {
		e = -errno;
		failed = cgroup_root;
	}
	else if ((e = cgoom_roots_check_v2(cgroup_root, (unsigned long)sf.f_type,
					   fd_is_path(r.cgroup_fd, HOST_CGROUP_ROOT), err, errcap)) < 0) {
		cgoom_roots_close(&r);
		return e;
	} else {
		r.cgroup_path = strdup(cgroup_root);
		r.proc_path = strdup(proc_root);
		if (!r.cgroup_path || !r.proc_path)
			e = -ENOMEM;
	}
	if (e < 0) {
		if (err && errcap)
			snprintf(err, errcap, "%s: %s", failed, strerror(-e));
		cgoom_roots_close(&r);
		return e;
	}
	*ret = r;
	return 0;
}

void cgoom_roots_close(struct cgoom_roots *r)
{
	if (!r)
		return;
	if (r->cgroup_fd >= 0)
		close(r->cgroup_fd);
	if (r->proc_fd >= 0)
		close(r->proc_fd);
	free(r->cgroup_path);
	free(r->proc_path);
	r->cgroup_fd = r->proc_fd = -1;
	r->cgroup_path = r->proc_path = NULL;
}

static bool fd_has_magic(int fd, unsigned long magic)
{
	struct statfs sf;

	return fd >= 0 && fstatfs(fd, &sf) == 0 && (unsigned long)sf.f_type == magic;
}

bool cgoom_roots_are_live(const struct cgoom_roots *r)
{
	return r && fd_has_magic(r->cgroup_fd, CGOOM_CGROUP2_MAGIC) &&
	       fd_has_magic(r->proc_fd, CGOOM_PROC_MAGIC);
}

/* Whether cap is in this process's effective set; true when unknown. */
static bool has_cap(int cap)
{
	struct __user_cap_header_struct h = { .version = _LINUX_CAPABILITY_VERSION_3, .pid = 0 };
	struct __user_cap_data_struct d[_LINUX_CAPABILITY_U32S_3] = { 0 };

	if (syscall(SYS_capget, &h, d) < 0)
		return true; /* unknown: say nothing rather than something wrong */
	return d[CAP_TO_INDEX(cap)].effective & CAP_TO_MASK(cap);
}

bool cgoom_can_read_trusted(void)
{
	return has_cap(CAP_SYS_ADMIN);
}

bool cgoom_can_kill_any(void)
{
	return has_cap(CAP_KILL);
}

/* ---- reading whole files ---- */

int cgoom_read_file_at(int dirfd, const char *relpath, size_t max, char **ret, size_t *ret_len)
{
	struct rbuf b = { 0 };
	int r = cgfs_read_at(&b, dirfd, relpath, max);

	if (r < 0) {
		free(b.p);
		return r;
	}
	*ret = b.p;
	if (ret_len)
		*ret_len = b.len;
	return 0;
}
