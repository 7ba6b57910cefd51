/* SPDX-License-Identifier: MIT */
/*
 * nsexec CMD [ARGS...]: run CMD in a new cgroup namespace and a new
 * mount namespace (busybox's unshare has no -C). The cgroup namespace is
 * rooted at the caller's cgroup, as for a container's init.
 */
#define _GNU_SOURCE
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <errno.h>
#include <sys/mount.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr, "usage: nsexec CMD [ARGS...]\n");
		return 2;
	}
	if (unshare(CLONE_NEWCGROUP | CLONE_NEWNS) < 0) {
		fprintf(stderr, "nsexec: unshare: %s\n", strerror(errno));
		return 1;
	}
	/* mounts made inside stay inside */
	if (mount("none", "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0) {
		fprintf(stderr, "nsexec: making / private: %s\n", strerror(errno));
		return 1;
	}
	execvp(argv[1], argv + 1);
	fprintf(stderr, "nsexec: %s: %s\n", argv[1], strerror(errno));
	return 127;
}
