/* SPDX-License-Identifier: MIT */
/*
 * Living with systemd (SPEC 6):
 *  - the systemd-oomd protocol: before killing in a cgroup, increment its
 *    user.oomd_ooms xattr; after, user.oomd_kill by the number killed. PID
 *    1 (systemd >= 248) watches them and records the unit's result as
 *    oom-kill (then applies OOMPolicy=). Written before the SIGKILL, while
 *    the cgroup still exists (written after, the unit's cgroup is gone
 *    and the Result is `signal`: tests/vm/README.md, peer-test32).
 *  - two killers: systemd-oomd, earlyoom, nohang, oomd or another cgoom
 *    daemon acting on the same memory as cgoom would race it and kill
 *    twice for one shortage; cgoom warns at start, naming each.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
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

/* The other userspace OOM killers, by the name (comm) their processes
 * run under, and what stops each; cgoom itself is checked apart (only
 * a daemon that kills counts, never this one). */
static const struct peer {
	const char *comm, *stop;
} peers[] = {
	{ "systemd-oomd", "systemctl mask --now systemd-oomd.service systemd-oomd.socket" },
	{ "earlyoom", "systemctl disable --now earlyoom" },
	{ "nohang", "systemctl disable --now nohang" },
	{ "oomd", "systemctl disable --now oomd" },
	{ "cgoom", "systemctl stop cgoom, or run the other one with --dry-run" },
};
#define N_PEERS (sizeof(peers) / sizeof(peers[0]))
#define PEER_CGOOM (N_PEERS - 1)

struct peer_scan {
	int proc_fd;
	int self;           /* cgoom's own PID in the proc root (0: unknown) */
	int pid[N_PEERS];   /* the first PID of each seen, 0 for none */
};

/* Whether the NUL-separated cmdline of a cgoom process names the verb
 * run without --dry-run: a daemon that kills (`cgoom explain` and a dry
 * run act on nothing). */
static bool cgoom_kills(const char *cmd, size_t len)
{
	bool run = false, dry = false;
	for (size_t i = 0; i < len;) {
		const char *a = cmd + i;
		size_t n = strnlen(a, len - i);
		run = run || (n == 3 && memcmp(a, "run", 3) == 0);
		dry = dry || (n == 9 && memcmp(a, "--dry-run", 9) == 0);
		i += n + 1;
	}
	return run && !dry;
}

/* Notes the process of a /proc entry when it is one of the peers. */
static int scan_peer(void *ctx, const char *name, unsigned char type)
{
	struct peer_scan *ps = ctx;
	char path[300], comm[32], cmd[1024];
	size_t len;

	(void)type;
	if (name[0] < '1' || name[0] > '9')
		return 0;
	int pid = atoi(name);
	if (pid <= 0 || pid == ps->self)
		return 0;
	snprintf(path, sizeof(path), "%s/comm", name);
	if (cgfs_read_small_at(ps->proc_fd, path, comm, sizeof(comm), &len) < 0 || len == 0)
		return 0;
	comm[strcspn(comm, "\n")] = '\0';
	for (size_t i = 0; i < N_PEERS; i++) {
		if (ps->pid[i] || strcmp(comm, peers[i].comm) != 0)
			continue;
		if (i == PEER_CGOOM) {
			snprintf(path, sizeof(path), "%s/cmdline", name);
			if (cgfs_read_small_at(ps->proc_fd, path, cmd, sizeof(cmd), &len) < 0 ||
			    !cgoom_kills(cmd, len))
				continue;
		}
		ps->pid[i] = pid;
	}
	return 0;
}

int sysd_warn_peers(struct daemon *dm)
{
	struct peer_scan ps = { .proc_fd = dm->roots.proc_fd };
	char link[32];
	ssize_t n = readlinkat(dm->roots.proc_fd, "self", link, sizeof(link) - 1);
	if (n > 0) {
		link[n] = '\0';
		ps.self = atoi(link);
	}
	(void)cgfs_for_each_entry(dm->roots.proc_fd, scan_peer, &ps);
	/* systemd-oomd's socket, for the live system only: a fixture's proc
	 * root says nothing about this machine's /run */
	struct stat st;
	bool oomd_run = dm->live && stat("/run/systemd/oom", &st) == 0 && S_ISDIR(st.st_mode) &&
			stat("/run/systemd/oom/io.systemd.ManagedOOM", &st) == 0;
	int found = 0;
	for (size_t i = 0; i < N_PEERS; i++) {
		char what[96];
		if (ps.pid[i])
			snprintf(what, sizeof(what), "%s%s is running (PID %d)",
				 i == PEER_CGOOM ? "another " : "", peers[i].comm, ps.pid[i]);
		else if (i == 0 && oomd_run)
			snprintf(what, sizeof(what), "systemd-oomd is active "
						     "(/run/systemd/oom/io.systemd.ManagedOOM exists)");
		else
			continue;
		log_warning("%s: two userspace OOM killers would race for the same memory, each "
			    "acting on its own rules and killing twice for one shortage; stop it (%s)%s",
			    what, peers[i].stop,
			    i == PEER_CGOOM ? "" : " or run cgoom --dry-run beside it");
		found++;
	}
	return found;
}
