/* SPDX-License-Identifier: MIT */
/*
 * Living with systemd (SPEC 6):
 *  - the systemd-oomd protocol: before killing in a cgroup, increment its
 *    user.oomd_ooms xattr; after, user.oomd_kill by the number killed. PID
 *    1 (systemd >= 248) watches them and records the unit's result as
 *    oom-kill (then applies OOMPolicy=). Written before the SIGKILL, while
 *    the cgroup still exists (written after, the unit's cgroup is gone
 *    and the Result is `signal`: tests/vm/README.md, peer-test32).
 *  - two killers: systemd-oomd acting on the same cgroups as cgoom would
 *    make two userspace OOM killers race; cgoom warns at start.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/xattr.h>
#include <unistd.h>

#include "daemon-internal.h"
#include "log.h"

int sysd_xattr_add(int fd, const char *name, uint64_t n)
{
	char buf[32];
	uint64_t v = 0;
	ssize_t len = fgetxattr(fd, name, buf, sizeof(buf) - 1);
	/* a malformed value restarts the count rather than blocking it, and
	 * so does one too long for buf (ERANGE: no count has 31 digits; a
	 * delegatee owns user.* and can write anything there) */
	if (len < 0 && errno != ENODATA && errno != ERANGE)
		return -errno;
	/* read as systemd reads it (safe_atou64 of the C string: up to a
	 * NUL, all of a u64), so that the count saturated at UINT64_MAX stays
	 * there and is not read back as malformed (restarting at 1) */
	if (len > 0 && cgoom_parse_u64(buf, strnlen(buf, (size_t)len), &v) < 0)
		v = 0;
	v = v > UINT64_MAX - n ? UINT64_MAX : v + n;
	int k = snprintf(buf, sizeof(buf), "%llu", (unsigned long long)v);
	if (fsetxattr(fd, name, buf, (size_t)k, 0) < 0)
		return -errno;
	return 0;
}

/* 1 (stop) for the entry of a process named systemd-oomd. */
static int is_oomd(void *ctx, const char *name, unsigned char type)
{
	int proc_fd = *(int *)ctx;
	char path[300], comm[32];
	size_t len;

	(void)type;
	if (name[0] < '1' || name[0] > '9')
		return 0;
	snprintf(path, sizeof(path), "%s/comm", name);
	if (cgfs_read_small_at(proc_fd, path, comm, sizeof(comm), &len) < 0 || len == 0)
		return 0;
	comm[strcspn(comm, "\n")] = '\0';
	return strcmp(comm, "systemd-oomd") == 0;
}

/* Whether a process named systemd-oomd runs under the proc root. */
static bool oomd_process(struct daemon *dm)
{
	return cgfs_for_each_entry(dm->roots.proc_fd, is_oomd, &dm->roots.proc_fd) == 1;
}

bool sysd_warn_oomd(struct daemon *dm)
{
	bool proc = oomd_process(dm);
	/* the runtime directory only counts for the live system: a fixture's
	 * proc root says nothing about this machine's /run */
	struct stat st;
	bool run = dm->live && stat("/run/systemd/oom", &st) == 0 && S_ISDIR(st.st_mode) &&
		   stat("/run/systemd/oom/io.systemd.ManagedOOM", &st) == 0;
	if (!proc && !run)
		return false;
	log_warning("systemd-oomd is active (%s): two userspace OOM killers would race for the "
		    "same cgroups, each acting on its own rules; stop and mask systemd-oomd "
		    "(systemctl mask --now systemd-oomd) or run cgoom --dry-run beside it",
		    proc ? "a systemd-oomd process is running" : "/run/systemd/oom/io.systemd.ManagedOOM exists");
	return true;
}
