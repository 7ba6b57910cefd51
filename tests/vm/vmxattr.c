/* vmxattr: extended attributes for the VM test bed (busybox has no
 * setfattr/getfattr).
 *
 *   vmxattr set PATH NAME VALUE   lsetxattr(PATH, NAME, VALUE)
 *   vmxattr get PATH NAME         print the value (raw bytes, no newline)
 *   vmxattr as UID CMD [ARGS...]  run CMD as uid and gid UID, no
 *                                 supplementary groups (busybox has no
 *                                 setuidgid)
 *   vmxattr snap CGROOT DOMAIN OUT  what lib.sh snap_take copies, in one
 *                                 process (forks are slow under TCG):
 *                                 OUT/cg/..., OUT/owners, OUT/xattrs,
 *                                 OUT/proc/PID/{status,stat,oom_score_adj}
 *                                 for every process below DOMAIN,
 *                                 OUT/proc/meminfo, OUT/proc/net/sockstat
 *   vmxattr churn DIR RATE SECONDS  create and remove DIR/cN, RATE pairs a
 *                                 second, for SECONDS; prints how many
 *   vmxattr dump DIR              every xattr of DIR and of every directory
 *                                 below it, one line each:
 *                                 HEX(REL) NAME HEX(VALUE)
 *                                 REL is "/" for DIR itself, else "/a/b";
 *                                 hex so that any byte in a name survives
 *
 * Built static by tests/vm/run. Exit 0 on success, 1 on a failed call
 * (the reason on stderr), 2 on bad usage. Symlinks are never followed. */
#define _GNU_SOURCE
#include <dirent.h>
#include <grp.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/xattr.h>
#include <time.h>
#include <unistd.h>

static void usage(void)
{
	fprintf(stderr, "usage: vmxattr set PATH NAME VALUE | get PATH NAME | dump DIR |\n"
			"       as UID CMD [ARGS...]\n");
	exit(2);
}

static void hex(const char *s, size_t n)
{
	size_t i;

	if (n == 0) {
		fputs("-", stdout);
		return;
	}
	for (i = 0; i < n; i++)
		printf("%02x", (unsigned char)s[i]);
}

static int dump_one(const char *path, const char *rel)
{
	char names[65536], val[65536];
	ssize_t n, v;
	char *p;

	n = llistxattr(path, names, sizeof(names));
	if (n < 0) {
		if (errno == ENOTSUP || errno == ENOENT)
			return 0;
		fprintf(stderr, "vmxattr: llistxattr %s: %s\n", path, strerror(errno));
		return -1;
	}
	for (p = names; p < names + n; p += strlen(p) + 1) {
		v = lgetxattr(path, p, val, sizeof(val));
		if (v < 0)
			continue;
		hex(rel, strlen(rel));
		printf(" %s ", p);
		hex(val, (size_t)v);
		putchar('\n');
	}
	return 0;
}

static int dump(const char *path, const char *rel, int depth)
{
	DIR *d;
	struct dirent *e;
	int r = 0;

	if (dump_one(path, rel) < 0)
		r = -1;
	if (depth > 200)
		return r;
	d = opendir(path);
	if (!d)
		return errno == ENOENT ? r : -1;
	while ((e = readdir(d))) {
		char sub[PATH_MAX], subrel[PATH_MAX];
		struct stat st;

		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		if (snprintf(sub, sizeof(sub), "%s/%s", path, e->d_name) >= (int)sizeof(sub))
			continue;
		if (lstat(sub, &st) < 0 || !S_ISDIR(st.st_mode))
			continue;
		snprintf(subrel, sizeof(subrel), "%s/%s", strcmp(rel, "/") ? rel : "", e->d_name);
		if (dump(sub, subrel, depth + 1) < 0)
			r = -1;
	}
	closedir(d);
	return r;
}

static const char *const snap_files[] = {
	"cgroup.controllers", "cgroup.procs", "memory.stat", "memory.current", "memory.max",
	"memory.swap.current", "memory.swap.max", "memory.oom.group", NULL,
};

/* copy SRC to DST (both small kernel files); a missing SRC is no error */
static int copy(const char *src, const char *dst)
{
	char buf[65536];
	ssize_t n;
	int in, out, r = 0;

	in = open(src, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	if (in < 0)
		return errno == ENOENT ? 0 : -1;
	out = open(dst, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (out < 0) {
		close(in);
		return -1;
	}
	while ((n = read(in, buf, sizeof(buf))) > 0)
		if (write(out, buf, (size_t)n) != n)
			r = -1;
	if (n < 0)
		r = -1;
	close(in);
	close(out);
	return r;
}

static int snap_procs(const char *cgdir, const char *out, int depth)
{
	char path[PATH_MAX], buf[65536];
	DIR *d;
	struct dirent *e;
	ssize_t n;
	int fd, r = 0;

	snprintf(path, sizeof(path), "%s/cgroup.procs", cgdir);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd >= 0) {
		n = read(fd, buf, sizeof(buf) - 1);
		close(fd);
		if (n > 0) {
			char *p, *save = NULL;

			buf[n] = 0;
			for (p = strtok_r(buf, "\n", &save); p; p = strtok_r(NULL, "\n", &save)) {
				static const char *const pf[] = { "status", "stat", "oom_score_adj", NULL };
				char src[PATH_MAX], dst[PATH_MAX];
				int i;

				snprintf(dst, sizeof(dst), "%s/proc/%s", out, p);
				mkdir(dst, 0755);
				for (i = 0; pf[i]; i++) {
					snprintf(src, sizeof(src), "/proc/%s/%s", p, pf[i]);
					snprintf(dst, sizeof(dst), "%s/proc/%s/%s", out, p, pf[i]);
					copy(src, dst);
				}
			}
		}
	}
	if (depth > 200)
		return r;
	d = opendir(cgdir);
	if (!d)
		return -1;
	while ((e = readdir(d))) {
		struct stat st;

		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		snprintf(path, sizeof(path), "%s/%s", cgdir, e->d_name);
		if (lstat(path, &st) == 0 && S_ISDIR(st.st_mode) && snap_procs(path, out, depth + 1) < 0)
			r = -1;
	}
	closedir(d);
	return r;
}

static int snap_cgroups(const char *dir, const char *rel, const char *out, FILE *owners, int depth)
{
	char dst[PATH_MAX], src[PATH_MAX];
	struct stat st;
	struct dirent *e;
	DIR *d;
	int i, r = 0;

	snprintf(dst, sizeof(dst), "%s/cg%s", out, strcmp(rel, "/") ? rel : "");
	if (mkdir(dst, 0755) < 0 && errno != EEXIST)
		return -1;
	for (i = 0; snap_files[i]; i++) {
		char f[PATH_MAX];

		snprintf(src, sizeof(src), "%s/%s", dir, snap_files[i]);
		snprintf(f, sizeof(f), "%s/%s", dst, snap_files[i]);
		if (copy(src, f) < 0)
			r = -1;
	}
	if (lstat(dir, &st) == 0)
		fprintf(owners, "%s %u\n", rel, (unsigned)st.st_uid);
	if (depth > 200)
		return r;
	d = opendir(dir);
	if (!d)
		return -1;
	while ((e = readdir(d))) {
		char sub[PATH_MAX], subrel[PATH_MAX];

		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		snprintf(sub, sizeof(sub), "%s/%s", dir, e->d_name);
		if (lstat(sub, &st) < 0 || !S_ISDIR(st.st_mode))
			continue;
		snprintf(subrel, sizeof(subrel), "%s/%s", strcmp(rel, "/") ? rel : "", e->d_name);
		if (snap_cgroups(sub, subrel, out, owners, depth + 1) < 0)
			r = -1;
	}
	closedir(d);
	return r;
}

static int snap(const char *cgroot, const char *domain, const char *out)
{
	char p[PATH_MAX], q[PATH_MAX];
	FILE *f;
	int r = 0;

	snprintf(p, sizeof(p), "%s/proc", out);
	mkdir(out, 0755);
	mkdir(p, 0755);
	snprintf(p, sizeof(p), "%s/proc/net", out);
	mkdir(p, 0755);
	snprintf(p, sizeof(p), "%s/owners", out);
	f = fopen(p, "w");
	if (!f)
		return -1;
	if (snap_cgroups(cgroot, "/", out, f, 0) < 0)
		r = -1;
	fclose(f);
	snprintf(p, sizeof(p), "%s/xattrs", out);
	if (!freopen(p, "w", stdout))
		return -1;
	if (dump(cgroot, "/", 0) < 0)
		r = -1;
	fflush(stdout);
	snprintf(p, sizeof(p), "%s%s", cgroot, strcmp(domain, "/") ? domain : "");
	if (snap_procs(p, out, 0) < 0)
		r = -1;
	snprintf(q, sizeof(q), "%s/proc/meminfo", out);
	if (copy("/proc/meminfo", q) < 0)
		r = -1;
	snprintf(q, sizeof(q), "%s/proc/net/sockstat", out);
	copy("/proc/net/sockstat", q);
	return r;
}

static int churn(const char *dir, long rate, long seconds)
{
	struct timespec t0, now;
	long n = 0, fails = 0;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (;;) {
		char p[PATH_MAX];
		double el;

		clock_gettime(CLOCK_MONOTONIC, &now);
		el = (double)(now.tv_sec - t0.tv_sec) + (double)(now.tv_nsec - t0.tv_nsec) / 1e9;
		if (el >= (double)seconds)
			break;
		if ((double)n >= el * (double)rate) {
			struct timespec d = { 0, 2000000 };
			nanosleep(&d, NULL);
			continue;
		}
		snprintf(p, sizeof(p), "%s/c%ld", dir, n % 1000);
		if (mkdir(p, 0755) < 0 || rmdir(p) < 0)
			fails++;
		n++;
	}
	printf("churn %ld %ld\n", n, fails);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc < 2)
		usage();
	if (!strcmp(argv[1], "set") && argc == 5) {
		if (lsetxattr(argv[2], argv[3], argv[4], strlen(argv[4]), 0) < 0) {
			fprintf(stderr, "vmxattr: set %s %s: %s\n", argv[2], argv[3], strerror(errno));
			return 1;
		}
		return 0;
	}
	if (!strcmp(argv[1], "get") && argc == 4) {
		char val[65536];
		ssize_t v = lgetxattr(argv[2], argv[3], val, sizeof(val));

		if (v < 0) {
			fprintf(stderr, "vmxattr: get %s %s: %s\n", argv[2], argv[3], strerror(errno));
			return 1;
		}
		fwrite(val, 1, (size_t)v, stdout);
		return 0;
	}
	if (!strcmp(argv[1], "as") && argc >= 4) {
		char *end;
		long id = strtol(argv[2], &end, 10);

		if (*end || id < 0 || id > 65534)
			usage();
		if (setgroups(0, NULL) < 0 || setgid((gid_t)id) < 0 || setuid((uid_t)id) < 0) {
			fprintf(stderr, "vmxattr: as %ld: %s\n", id, strerror(errno));
			return 1;
		}
		execvp(argv[3], argv + 3);
		fprintf(stderr, "vmxattr: exec %s: %s\n", argv[3], strerror(errno));
		return 127;
	}
	if (!strcmp(argv[1], "churn") && argc == 5)
		return churn(argv[2], atol(argv[3]), atol(argv[4]));
	if (!strcmp(argv[1], "snap") && argc == 5)
		return snap(argv[2], argv[3], argv[4]) < 0 ? 1 : 0;
	if (!strcmp(argv[1], "dump") && argc == 3)
		return dump(argv[2], "/", 0) < 0 ? 1 : 0;
	usage();
	return 2;
}
