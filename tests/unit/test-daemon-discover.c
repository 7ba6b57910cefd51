/* SPDX-License-Identifier: MIT */
/*
 * Discovery's noisy directories (src/daemon/discover.c): a directory
 * whose files change DISCOVER_NOISE_MAX times within a second for
 * nothing (kernfs notifying a throttled cgroup's memory.events) stops
 * waking the loop for DISCOVER_MUTE_US; made cgroups are still seen;
 * when it gets IN_MODIFY back, what a write meanwhile changed is
 * checked. A real inotify on a directory tree of plain files (a write
 * to one is IN_MODIFY, as kernfs' notification is); the clock is the
 * test's.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/xattr.h>
#include <unistd.h>

#include "config-file.h"
#include "daemon-internal.h"
#include "tap.h"

static char root[256];

static void put(const char *rel, const char *text)
{
	char p[512];
	snprintf(p, sizeof(p), "%s/%s", root, rel);
	FILE *f = fopen(p, "w");
	if (!f) {
		perror(p);
		exit(1);
	}
	fputs(text, f);
	fclose(f);
}

static void cgroup(const char *rel, const char *controllers)
{
	char p[512], f[512];
	snprintf(p, sizeof(p), "%s/%s", root, rel);
	mkdir(p, 0755);
	snprintf(f, sizeof(f), "%s/cgroup.controllers", rel);
	put(f, controllers);
	snprintf(f, sizeof(f), "%s/cgroup.subtree_control", rel);
	put(f, "");
	snprintf(f, sizeof(f), "%s/memory.max", rel);
	put(f, "max\n");
	snprintf(f, sizeof(f), "%s/memory.events", rel);
	put(f, "low 0\nhigh 0\nmax 0\noom 0\noom_kill 0\n");
	snprintf(f, sizeof(f), "%s/memory.current", rel);
	put(f, "1048576\n");
}

/* n writes to rel/file, each read by the loop at `now` as it comes (as
 * kernfs' notifications of a busy file, 10 ms apart: inotify merges an
 * event into an identical one still queued); the events read */
static size_t touch(struct daemon *dm, uint64_t now, const char *rel, const char *file, int n)
{
	char f[512];
	size_t seen = 0;
	snprintf(f, sizeof(f), "%s/%s", rel, file);
	for (int i = 0; i < n; i++) {
		put(f, strcmp(file, "memory.max") ? "high 1\n" : "104857600\n");
		seen += discover_read(dm, now);
	}
	return seen;
}

static struct daemon *daemon_on_tree(void)
{
	strcpy(root, "/tmp/cgoom-discover-XXXXXX");
	if (!mkdtemp(root)) {
		perror("mkdtemp");
		exit(1);
	}
	put("cgroup.controllers", "cpu memory\n");
	put("cgroup.subtree_control", "memory\n");
	cgroup("noisy", "memory\n");
	cgroup("quiet", "memory\n");
	cgroup("noisy/kid", ""); /* no memory controller: no memcg yet */
	struct daemon *dm = calloc(1, sizeof(*dm));
	dm->ev.fd = -1;
	dm->dry_run = true; /* memory.high is not written */
	cgoom_config_init(&dm->cfg);
	dm->fds = (struct fd_budget){ .limit = 100000 }; /* domains keep their files */
	dm->roots.cgroup_fd = open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	dm->epfd = epoll_create1(EPOLL_CLOEXEC);
	discover_init(dm);
	discover_walk(dm, 0);
	return dm;
}

static void daemon_gone(struct daemon *dm)
{
	for (size_t i = 0; i < dm->n_domains; i++)
		domain_close(dm, dm->domains[i]);
	discover_free(dm);
	domains_free(dm);
	cgoom_config_free(&dm->cfg);
	close(dm->roots.cgroup_fd);
	close(dm->epfd);
	free(dm);
	char cmd[300];
	snprintf(cmd, sizeof(cmd), "rm -rf %s", root);
	if (system(cmd) != 0)
		fprintf(stderr, "cannot remove %s\n", root);
}

static void test_noisy_directory_muted(void)
{
	struct daemon *dm = daemon_on_tree();
	CHECK(dm->disc.ifd >= 0);
	CHECK_EQ_INT(discover_node_state(dm, "/noisy"), 0);
	CHECK_EQ_INT(discover_node_state(dm, "/noisy/kid"), -1);
	uint64_t t0 = 5000000;
	CHECK_EQ_INT(touch(dm, t0, "noisy", "memory.events", DISCOVER_NOISE_MAX - 1),
		     DISCOVER_NOISE_MAX - 1);
	CHECK_EQ_INT(discover_node_state(dm, "/noisy"), 0); /* one short */
	CHECK_EQ_INT(discover_next_unmute_us(dm), UINT64_MAX);
	CHECK_EQ_INT(touch(dm, t0 + 900000, "noisy", "memory.events", 1), 1);
	CHECK_EQ_INT(discover_node_state(dm, "/noisy"), 1);
	CHECK_EQ_INT(discover_next_unmute_us(dm), t0 + 900000 + DISCOVER_MUTE_US);
	/* muted: its file changes wake nothing ... */
	CHECK_EQ_INT(touch(dm, t0 + 1000000, "noisy", "memory.events", 50), 0);
	/* ... the others' do, and it still sees children made */
	CHECK_EQ_INT(touch(dm, t0 + 1000000, "quiet", "memory.events", 1), 1);
	CHECK_EQ_INT(discover_node_state(dm, "/quiet"), 0);
	cgroup("noisy/late", "memory\n");
	CHECK(discover_read(dm, t0 + 1000000) >= 1);
	CHECK_EQ_INT(discover_node_state(dm, "/noisy/late"), 0);
	/* while muted, its kid gets the memory controller: nothing sees it
	 * before the pause ends (no full walk here) */
	put("noisy/cgroup.subtree_control", "memory\n");
	put("noisy/kid/cgroup.controllers", "memory\n");
	CHECK_EQ_INT(discover_read(dm, t0 + 2000000), 0);
	CHECK_EQ_INT(discover_node_state(dm, "/noisy/kid"), -1);
	uint64_t back = t0 + 900000 + DISCOVER_MUTE_US;
	discover_unmute_due(dm, back - SCHED_EARLY_MAX_US - 1);
	CHECK_EQ_INT(discover_node_state(dm, "/noisy"), 1);
	/* back: IN_MODIFY again, and its subtree_control's change caught up */
	discover_unmute_due(dm, back - SCHED_EARLY_MAX_US);
	CHECK_EQ_INT(discover_node_state(dm, "/noisy"), 0);
	CHECK_EQ_INT(discover_next_unmute_us(dm), UINT64_MAX);
	CHECK_EQ_INT(discover_node_state(dm, "/noisy/kid"), 0);
	CHECK_EQ_INT(touch(dm, back, "noisy", "memory.events", 1), 1);
	CHECK_EQ_INT(dm->disc.mutes, 1);
	daemon_gone(dm);
}

/* The count is per second and per directory; writes that are looked at
 * (memory.max: the limit is checked) are no noise. */
static void test_noise_counted_per_second_and_directory(void)
{
	struct daemon *dm = daemon_on_tree();
	uint64_t t0 = 1000000;
	CHECK_EQ_INT(touch(dm, t0, "noisy", "memory.events", DISCOVER_NOISE_MAX - 1),
		     DISCOVER_NOISE_MAX - 1);
	CHECK_EQ_INT(touch(dm, t0, "quiet", "memory.events", DISCOVER_NOISE_MAX - 1),
		     DISCOVER_NOISE_MAX - 1);
	/* the next second: the count starts over */
	CHECK_EQ_INT(touch(dm, t0 + DISCOVER_NOISE_WINDOW_US, "noisy", "memory.events",
			   DISCOVER_NOISE_MAX - 1), DISCOVER_NOISE_MAX - 1);
	CHECK_EQ_INT(discover_node_state(dm, "/noisy"), 0);
	CHECK_EQ_INT(discover_node_state(dm, "/quiet"), 0);
	CHECK_EQ_INT(touch(dm, t0 + DISCOVER_NOISE_WINDOW_US, "quiet", "memory.max",
			   3 * DISCOVER_NOISE_MAX), 3 * DISCOVER_NOISE_MAX);
	CHECK_EQ_INT(discover_node_state(dm, "/quiet"), 0);
	CHECK_EQ_INT(dm->disc.mutes, 0);
	daemon_gone(dm);
}

/* A muted directory removed: it leaves the muted list with its node. */
static void test_muted_directory_removed(void)
{
	struct daemon *dm = daemon_on_tree();
	touch(dm, 1000000, "quiet", "memory.events", DISCOVER_NOISE_MAX);
	CHECK_EQ_INT(discover_node_state(dm, "/quiet"), 1);
	char cmd[512];
	snprintf(cmd, sizeof(cmd), "rm -rf %s/quiet", root);
	CHECK_EQ_INT(system(cmd), 0);
	CHECK(discover_read(dm, 2000000) >= 1);
	CHECK_EQ_INT(discover_node_state(dm, "/quiet"), -1);
	CHECK_EQ_INT(dm->disc.n_muted, 0);
	CHECK_EQ_INT(discover_next_unmute_us(dm), UINT64_MAX);
	discover_unmute_due(dm, UINT64_MAX / 2);
	daemon_gone(dm);
}

/* /quiet made a domain by a write to its memory.max: the domain */
static struct domain *make_domain(struct daemon *dm, uint64_t now)
{
	touch(dm, now, "quiet", "memory.max", 1);
	struct domain *d = dm->disc.n_news == 1 ? dm->disc.news[0] : NULL;
	dm->disc.n_news = dm->disc.n_pokes = 0;
	return d;
}

/* A domain without kept files (the fd budget's polled ones) has its
 * memory.events changes as its wake-up: its directory is never muted,
 * whatever else changes there (memory.events.local as often). */
static void test_polled_domain_never_muted(void)
{
	struct daemon *dm = daemon_on_tree();
	struct domain *d = make_domain(dm, 1000000);
	CHECK(d && d->kept);
	domain_files_close(dm, d); /* polled */
	for (unsigned i = 0; i < 3 * DISCOVER_NOISE_MAX; i++) {
		touch(dm, 1000000 + i * 10000, "quiet", "memory.events", 1);
		touch(dm, 1000000 + i * 10000, "quiet", "memory.events.local", 1);
	}
	CHECK_EQ_INT(discover_node_state(dm, "/quiet"), 0);
	CHECK_EQ_INT(dm->disc.n_pokes, 3 * DISCOVER_NOISE_MAX); /* each one a sample */
	daemon_gone(dm);
}

/* A domain that keeps its files is muted like any directory; when it
 * gives them up (polled) its watch gets IN_MODIFY back at once. */
static void test_domain_polled_unmuted_at_once(void)
{
	struct daemon *dm = daemon_on_tree();
	struct domain *d = make_domain(dm, 1000000);
	CHECK(d && d->kept);
	touch(dm, 1100000, "quiet", "memory.events", DISCOVER_NOISE_MAX);
	CHECK_EQ_INT(discover_node_state(dm, "/quiet"), 1);
	CHECK_EQ_INT(dm->disc.n_pokes, 0);
	domain_files_close(dm, d);
	CHECK_EQ_INT(discover_node_state(dm, "/quiet"), 0);
	CHECK_EQ_INT(discover_next_unmute_us(dm), UINT64_MAX);
	touch(dm, 1200000, "quiet", "memory.events", 1);
	CHECK_EQ_INT(dm->disc.n_pokes, 1);
	daemon_gone(dm);
}

/* When the directory cannot be opened at the end of the pause (no fd
 * left), it is muted for another pause, not left without IN_MODIFY. */
static void test_unmute_retried_when_it_fails(void)
{
	struct daemon *dm = daemon_on_tree();
	touch(dm, 1000000, "noisy", "memory.events", DISCOVER_NOISE_MAX);
	CHECK_EQ_INT(discover_node_state(dm, "/noisy"), 1);
	struct rlimit old, low;
	CHECK(getrlimit(RLIMIT_NOFILE, &old) == 0);
	low = old;
	low.rlim_cur = 64;
	CHECK(setrlimit(RLIMIT_NOFILE, &low) == 0);
	int fds[64], nf = 0;
	while (nf < 64 && (fds[nf] = dup(0)) >= 0)
		nf++;
	uint64_t back = 1000000 + DISCOVER_MUTE_US;
	discover_unmute_due(dm, back);
	while (nf)
		close(fds[--nf]);
	CHECK(setrlimit(RLIMIT_NOFILE, &old) == 0);
	CHECK_EQ_INT(discover_node_state(dm, "/noisy"), 1);
	CHECK_EQ_INT(discover_next_unmute_us(dm), back + DISCOVER_MUTE_US);
	discover_unmute_due(dm, back + DISCOVER_MUTE_US);
	CHECK_EQ_INT(discover_node_state(dm, "/noisy"), 0);
	CHECK_EQ_INT(touch(dm, back + DISCOVER_MUTE_US, "noisy", "memory.max", 1), 1);
	daemon_gone(dm);
}

/* /a/b/x renamed to /a/c/x (rename(2) of /a/b): the full walk the move
 * asks for frees the stale node /a/b/x, whose watch descriptor is the
 * same as the new node /a/c/x's (one inode, one watch): the walk must
 * not take /a/c/x's watch with it (cgroups made below it would be found
 * by the 120 s walk only). */
static void test_rename_keeps_watch_of_moved_descendant(void)
{
	struct daemon *dm = daemon_on_tree();
	cgroup("a", "memory\n");
	put("a/cgroup.subtree_control", "memory\n");
	CHECK(discover_read(dm, 1000000) >= 1);
	cgroup("a/b", "memory\n");
	put("a/b/cgroup.subtree_control", "memory\n");
	CHECK(discover_read(dm, 1000000) >= 1);
	cgroup("a/b/x", "memory\n");
	CHECK(discover_read(dm, 1000000) >= 1);
	CHECK_EQ_INT(discover_node_state(dm, "/a/b/x"), 0);
	char from[512], to[512];
	snprintf(from, sizeof(from), "%s/a/b", root);
	snprintf(to, sizeof(to), "%s/a/c", root);
	CHECK_EQ_INT(rename(from, to), 0);
	CHECK(discover_read(dm, 2000000) >= 1);
	CHECK_EQ_INT(dm->disc.next_walk_us, 0); /* a walk is asked for */
	discover_walk(dm, 2000000);            /* the loop's walk */
	CHECK_EQ_INT(discover_node_state(dm, "/a/b/x"), -1);
	CHECK_EQ_INT(discover_node_state(dm, "/a/c/x"), 0);
	CHECK_EQ_INT(dm->disc.n_unwatched, 0);
	/* a cgroup made below the moved one is found from its event */
	cgroup("a/c/x/y", "memory\n");
	CHECK(discover_read(dm, 3000000) >= 1);
	CHECK_EQ_INT(discover_node_state(dm, "/a/c/x/y"), 0);
	daemon_gone(dm);
}

/* Writes to the watched root until its inotify queue overflows (more
 * events than fs.inotify.max_queued_events). */
static void overflow_queue(void)
{
	unsigned max = 16384;
	FILE *q = fopen("/proc/sys/fs/inotify/max_queued_events", "r");
	if (q) {
		if (fscanf(q, "%u", &max) != 1)
			max = 16384;
		fclose(q);
	}
	char f[512];
	snprintf(f, sizeof(f), "%s/flood", root);
	for (unsigned i = 0; i <= max / 2; i++) { /* IN_CREATE and IN_DELETE each */
		int fd = open(f, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
		if (fd >= 0)
			close(fd);
		unlink(f);
	}
}

/* /quiet (a domain) removed and made again under the same path while
 * the inotify queue overflowed (its IN_IGNORED and the parent's
 * IN_DELETE and IN_CREATE lost): the walk the overflow asks for must
 * not keep the old node (its watch on the removed directory) and its
 * domain (the removed cgroup's files), or nothing made below the new
 * /quiet is found but by the 120 s walk. */
/* A memcg made more than 64 levels down, one level at a time, is no
 * node, as in the full walk: the reader reads no cgroup that deep, so a
 * domain there could never be decided ("not in the fresh snapshot" at
 * each trigger, while the kernel acted). The event-driven visit counted
 * levels from the parent that saw the event. */
/* Runs fn(dm, now) with stderr (the log) sent to a buffer; returns it. */
static const char *logged(void (*fn)(struct daemon *, uint64_t), struct daemon *dm, uint64_t now)
{
	static char out[4096];
	FILE *f = tmpfile();
	out[0] = '\0';
	if (!f)
		return out;
	fflush(stderr);
	int saved = dup(STDERR_FILENO);
	dup2(fileno(f), STDERR_FILENO);
	fn(dm, now);
	fflush(stderr);
	dup2(saved, STDERR_FILENO);
	close(saved);
	rewind(f);
	size_t n = fread(out, 1, sizeof(out) - 1, f);
	out[n] = '\0';
	fclose(f);
	return out;
}

static void read_events(struct daemon *dm, uint64_t now)
{
	discover_read(dm, now);
}

static void test_made_too_deep_not_watched(void)
{
	struct daemon *dm = daemon_on_tree();
	char rel[400] = "quiet", at64[400] = "", path[400];
	const char *log = "";
	for (int level = 2; level <= 65; level++) {
		if (level == 65)
			snprintf(at64, sizeof(at64), "/%s", rel);
		strcat(rel, "/d");
		cgroup(rel, "memory\n");
		log = logged(read_events, dm, 1000000 + (uint64_t)level);
		/* not said before anything is past the cut */
		CHECK(level == 65 || !strstr(log, "not watched"));
	}
	snprintf(path, sizeof(path), "/%s", rel);
	CHECK_EQ_INT(discover_node_state(dm, at64), 0);
	CHECK_EQ_INT(discover_node_state(dm, path), -1);
	/* said, with the place (never silently: SPEC 6) */
	char want[500];
	snprintf(want, sizeof(want), "cgroups below %s, 64 levels down, are not watched", at64);
	CHECK(strstr(log, want) != NULL);
	/* the full walk agrees, and says it only once */
	log = logged(discover_walk, dm, 2000000);
	CHECK_EQ_INT(discover_node_state(dm, at64), 0);
	CHECK_EQ_INT(discover_node_state(dm, path), -1);
	CHECK(strstr(log, "not watched") == NULL);
	/* a walk that finds them first (a daemon started on such a tree)
	 * says it too */
	dm->disc.deep_said = false;
	log = logged(discover_walk, dm, 3000000);
	CHECK(strstr(log, want) != NULL);
	daemon_gone(dm);
}

static void test_overflow_recreated_same_path(void)
{
	struct daemon *dm = daemon_on_tree();
	struct domain *old = make_domain(dm, 1000000);
	CHECK(old != NULL);
	overflow_queue();
	/* made before the old one goes: another inode for certain */
	cgroup("quiet.new", "memory\n");
	put("quiet.new/cgroup.subtree_control", "memory\n");
	put("quiet.new/memory.max", "104857600\n");
	char cmd[600], from[512], to[512];
	snprintf(cmd, sizeof(cmd), "rm -rf %s/quiet", root);
	CHECK_EQ_INT(system(cmd), 0);
	snprintf(from, sizeof(from), "%s/quiet.new", root);
	snprintf(to, sizeof(to), "%s/quiet", root);
	CHECK_EQ_INT(rename(from, to), 0);
	discover_read(dm, 2000000);
	CHECK(dm->disc.overflowed);
	discover_walk(dm, 2000000);
	CHECK(old->vanished); /* the loop tears it down */
	struct domain *d = domains_find(dm, "/quiet");
	struct stat now;
	CHECK(d && d != old && stat(to, &now) == 0 && d->ino == now.st_ino);
	CHECK_EQ_INT(dm->disc.n_news, 1);
	CHECK_EQ_INT(dm->disc.n_unwatched, 0);
	/* a memcg made below the new /quiet is found from its event */
	cgroup("quiet/kid", "memory\n");
	CHECK(discover_read(dm, 3000000) >= 1);
	CHECK_EQ_INT(discover_node_state(dm, "/quiet/kid"), 0);
	daemon_gone(dm);
}

/* A cgroup's xattrs set (a preference, as `setfattr` or a delegatee
 * does): the settings' generation moves, so standbys decided before are
 * remade; a write to one of its files does not move it. */
static void test_xattr_change_moves_settings(void)
{
	struct daemon *dm = daemon_on_tree();
	char p[512];
	snprintf(p, sizeof(p), "%s/quiet", root);
	uint64_t gen = dm->settings_gen;
	CHECK_EQ_INT(touch(dm, 1000000, "quiet", "memory.max", 1), 1);
	CHECK_EQ_U64(dm->settings_gen, gen);
	if (setxattr(p, "user.cgoom.preference", "omit", 4, 0) < 0) {
		daemon_gone(dm);
		SKIP("no user.* xattrs on the test's file system");
	}
	CHECK(discover_read(dm, 2000000) >= 1);
	CHECK(dm->settings_gen > gen);
	gen = dm->settings_gen;
	CHECK_EQ_INT(removexattr(p, "user.cgoom.preference"), 0);
	CHECK(discover_read(dm, 3000000) >= 1);
	CHECK(dm->settings_gen > gen);
	daemon_gone(dm);
}

int main(void)
{
	return tap_run((struct tap_test[]){ TAP(test_noisy_directory_muted),
					    TAP(test_noise_counted_per_second_and_directory),
					    TAP(test_muted_directory_removed),
					    TAP(test_polled_domain_never_muted),
					    TAP(test_domain_polled_unmuted_at_once),
					    TAP(test_unmute_retried_when_it_fails),
					    TAP(test_rename_keeps_watch_of_moved_descendant),
					    TAP(test_overflow_recreated_same_path), TAP(test_made_too_deep_not_watched),
					    TAP(test_xattr_change_moves_settings), { 0 } });
}
