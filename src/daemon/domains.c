/* SPDX-License-Identifier: MIT */
/*
 * Domains: the system ("/") and every memcg with a finite memory.max
 * (found by discover.c). Each keeps its files open for detect.c to
 * re-read into the daemon's preallocated buffer: memory.events,
 * .current, .max, .high always, and near its line .stat, .swap.* and
 * its PSI triggers on memory.pressure (the active set); the fd budget
 * (fds.c) decides which keep them at all (the others are polled: their
 * files opened for each sample). Guard bands (memory.high writes) are
 * guard.c's, called by the loop only: sampling never writes. Nothing
 * here calls up into the loop, the actor or the standby.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cgoom/budget.h"
#include "cgoom/explain.h"
#include "daemon-internal.h"
#include "log.h"

#define RDONLY (O_RDONLY | O_CLOEXEC | O_NOFOLLOW)

static void close_fd(int *fd)
{
	if (*fd >= 0)
		close(*fd);
	*fd = -1;
}

/* ---- PSI ---- */

/* PSI "some": a few milliseconds of stall in the kernel's shortest
 * window wakes the sampler early (reclaim has started). */
#define PSI_SOME_STALL_US 5000ULL
#define PSI_SOME_WINDOW_US 500000ULL

/* Arms a second trigger "some 5ms 500ms" on its own fd: a wake-up only. */
static void psi_some_open(struct daemon *dm, struct domain *d, int dirfd, const char *relpath)
{
	d->psi_some_fd = -1;
	if (!dm->live)
		return;
	int fd = openat(dirfd, relpath, O_RDWR | O_NONBLOCK | O_CLOEXEC | O_NOFOLLOW);
	if (fd < 0)
		return;
	char t[64];
	int n = snprintf(t, sizeof(t), "some %llu %llu", PSI_SOME_STALL_US, PSI_SOME_WINDOW_US);
	struct epoll_event ev = { .events = EPOLLPRI, .data.ptr = &d->w_psi_some };
	if (write(fd, t, (size_t)n + 1) != n + 1 || epoll_ctl(dm->epfd, EPOLL_CTL_ADD, fd, &ev) < 0) {
		close(fd);
		return;
	}
	d->psi_some_fd = fd;
}

/* Arms "full STALL WINDOW" on an O_RDWR pressure file (live roots only);
 * otherwise, or if the kernel refuses, the file is polled read-only. */
static void psi_open(struct daemon *dm, struct domain *d, int dirfd, const char *relpath)
{
	if (d->psi_some_fd < 0)
		psi_some_open(dm, d, dirfd, relpath);
	d->psi_fd = -1;
	d->psi_trigger = false;
	d->psi_last.valid = false;
	if (dm->live) {
		int fd = openat(dirfd, relpath, O_RDWR | O_NONBLOCK | O_CLOEXEC | O_NOFOLLOW);
		if (fd >= 0) {
			char t[64];
			int n = snprintf(t, sizeof(t), "full %llu %llu",
					 (unsigned long long)dm->cfg.psi_full_stall_us,
					 (unsigned long long)dm->cfg.psi_full_window_us);
			struct epoll_event ev = { .events = EPOLLPRI, .data.ptr = &d->w_psi };
			if (write(fd, t, (size_t)n + 1) == n + 1 &&
			    epoll_ctl(dm->epfd, EPOLL_CTL_ADD, fd, &ev) == 0) {
				d->psi_fd = fd;
				d->psi_trigger = true;
				return;
			}
			int e = errno;
			close(fd);
			if (!dm->psi_fallback_logged) {
				log_warning("%s%s%s: cannot arm a PSI trigger (%s); polling it instead",
					    d->system ? dm->roots.proc_path : dm->roots.cgroup_path,
					    d->system ? "/" : d->path, relpath, strerror(e));
				dm->psi_fallback_logged = true;
			}
		} else if (errno == EMFILE || errno == ENFILE) {
			/* the fd budget should have kept this from happening: say so each time */
			log_warning("%s: %s: %s; its PSI is not watched", d->path, relpath,
				    strerror(errno));
		} else if (!dm->psi_fallback_logged) {
			log_warning("%s: %s unavailable (%s); PSI is polled where present",
				    d->path, relpath, strerror(errno));
			dm->psi_fallback_logged = true;
		}
	}
	d->psi_fd = openat(dirfd, relpath, RDONLY);
}

/* ---- the system domain ---- */

static struct domain *domain_new(const char *path)
{
	struct domain *d = calloc(1, sizeof(*d));
	if (!d)
		return NULL;
	d->path = strdup(path);
	if (!d->path) {
		free(d);
		return NULL;
	}
	d->dirfd = d->events_fd = d->current_fd = d->max_fd = d->high_fd = d->psi_fd = -1;
	d->cgevents_fd = -1;
	d->stat_fd = d->swap_max_fd = d->swap_current_fd = d->psi_some_fd = -1;
	d->sys.meminfo_fd = d->sys.vmstat_fd = -1;
	d->heap_pos[0] = d->heap_pos[1] = HEAP_NONE;
	d->kill.tg.xattr_fd = -1; /* act.c's kill state: no xattr fd yet */
	d->w_events = (struct watch){ .kind = W_EVENTS, .d = d };
	d->w_cgevents = (struct watch){ .kind = W_CGEVENTS, .d = d };
	d->w_psi = (struct watch){ .kind = W_PSI, .d = d };
	d->w_psi_some = (struct watch){ .kind = W_PSI_SOME, .d = d };
	return d;
}

static int domains_push(struct daemon *dm, struct domain *d)
{
	int r = cgfs_grow(&dm->domains, &dm->cap_domains, dm->n_domains + 1, sizeof(*dm->domains));
	if (r < 0)
		return r;
	dm->domains[dm->n_domains++] = d;
	return 0;
}

int domains_init(struct daemon *dm)
{
	struct domain *d = domain_new("/");
	if (!d)
		return -ENOMEM;
	d->system = true;
	d->sample.max = UINT64_MAX;
	int r = domains_push(dm, d);
	if (r < 0) {
		free(d->path);
		free(d);
		return r;
	}
	struct system_files *sys = &d->sys;
	sys->meminfo_fd = openat(dm->roots.proc_fd, "meminfo", RDONLY);
	if (sys->meminfo_fd < 0) {
		r = -errno;
		log_error("%s/meminfo: %s", dm->roots.proc_path, strerror(-r));
		return r;
	}
	sys->vmstat_fd = openat(dm->roots.proc_fd, "vmstat", RDONLY);
	if (sys->vmstat_fd >= 0) {
		size_t len;
		if (cgfs_reread(sys->vmstat_fd, dm->buf, sizeof(dm->buf), &len) == 0 &&
		    cgoom_parse_vmstat_oom_kill(dm->buf, len, &sys->vmstat_oom_kill) == 0)
			sys->vmstat_ok = true;
	}
	psi_open(dm, d, dm->roots.proc_fd, "pressure/memory");
	return 0;
}

void domains_rearm_psi(struct daemon *dm)
{
	for (size_t i = 0; i < dm->n_domains; i++) {
		struct domain *d = dm->domains[i];
		if (d->dead || d->psi_fd < 0 || (!d->system && !d->kept))
			continue;
		size_t before = (d->psi_fd >= 0) + (d->psi_some_fd >= 0);
		close_fd(&d->psi_fd); /* closing drops it from the epoll set */
		close_fd(&d->psi_some_fd);
		if (d->system) {
			psi_open(dm, d, dm->roots.proc_fd, "pressure/memory");
		} else if (d->dirfd >= 0) {
			psi_open(dm, d, d->dirfd, "memory.pressure");
			size_t after = (d->psi_fd >= 0) + (d->psi_some_fd >= 0);
			d->n_fds = d->n_fds - before + after;
			dm->fds.kept = dm->fds.kept - before + after;
		}
	}
}

void domains_apply_config(struct daemon *dm)
{
	for (size_t i = 1; i < dm->n_domains; i++) {
		struct domain *d = dm->domains[i];
		if (d->dead)
			continue;
		/* a polled domain's files, for memory.high, for a moment */
		bool opened = !d->files_open && domain_files_open(dm, d, false) == 0;
		if (d->files_open)
			guard_apply(dm, d);
		if (opened)
			domain_files_close(dm, d);
	}
}

/* ---- cgroup domains ---- */

/* ---- a cgroup domain's files ---- */

/* Closes every file of d, kept or not, without touching the budget. */
static void files_close_all(struct domain *d)
{
	close_fd(&d->events_fd); /* closing removes them from epoll */
	close_fd(&d->cgevents_fd);
	d->cgevents_watched = false;
	close_fd(&d->psi_fd);
	close_fd(&d->psi_some_fd);
	close_fd(&d->stat_fd);
	close_fd(&d->swap_max_fd);
	close_fd(&d->swap_current_fd);
	close_fd(&d->current_fd);
	close_fd(&d->max_fd);
	close_fd(&d->high_fd);
	close_fd(&d->dirfd);
}

static size_t files_count(const struct domain *d)
{
	const int fds[] = { d->dirfd,	   d->events_fd,   d->current_fd,	 d->max_fd,
			    d->high_fd,	   d->stat_fd,	   d->swap_max_fd, d->swap_current_fd,
			    d->psi_fd,	   d->psi_some_fd, d->cgevents_fd };
	size_t n = 0;
	for (size_t i = 0; i < sizeof(fds) / sizeof(fds[0]); i++)
		n += fds[i] >= 0;
	return n;
}

/* d->n_fds counted again; the budget's kept count follows a kept domain. */
static void recount(struct daemon *dm, struct domain *d)
{
	size_t n = files_count(d);
	if (d->kept)
		dm->fds.kept = dm->fds.kept - d->n_fds + n;
	d->n_fds = n;
}

void domain_files_close(struct daemon *dm, struct domain *d)
{
	if (!d->files_open)
		return;
	bool was_kept = d->kept;
	if (d->kept)
		dm->fds.kept -= d->n_fds;
	files_close_all(d);
	d->files_open = d->kept = d->active_open = false;
	d->n_fds = 0;
	if (was_kept)
		discover_domain_polled(dm, d, cgfs_now_us());
}

/* Opens d's files below d->dirfd (open): the three it cannot do
 * without, then the optional ones and the active set (memory.stat,
 * memory.swap.*, memory.pressure read-only): all of them, for one
 * sample. < 0, everything closed again, when one of the three is
 * missing. */
static int files_open_at(struct domain *d)
{
	int dirfd = d->dirfd;
	d->events_fd = openat(dirfd, "memory.events", RDONLY);
	d->current_fd = openat(dirfd, "memory.current", RDONLY);
	d->max_fd = openat(dirfd, "memory.max", RDONLY);
	int r = -errno;
	if (d->events_fd < 0 || d->current_fd < 0 || d->max_fd < 0) {
		files_close_all(d);
		return r < 0 ? r : -ENOENT;
	}
	d->high_fd = openat(dirfd, "memory.high", RDONLY);
	d->cgevents_fd = openat(dirfd, "cgroup.events", RDONLY);
	/* optional: without memory.stat only the at-the-limit backstop fires */
	d->stat_fd = openat(dirfd, "memory.stat", RDONLY);
	d->swap_max_fd = openat(dirfd, "memory.swap.max", RDONLY);
	d->swap_current_fd = openat(dirfd, "memory.swap.current", RDONLY);
	d->psi_fd = openat(dirfd, "memory.pressure", RDONLY);
	d->psi_trigger = false;
	d->files_open = d->active_open = true;
	d->n_fds = files_count(d);
	return 0;
}

/* The active set: what only a domain near its line reads (memory.stat
 * and memory.swap.* inside the margin) or arms (PSI triggers: each one
 * costs the kernel a poller for the cgroup). */
static void active_close(struct daemon *dm, struct domain *d)
{
	close_fd(&d->stat_fd);
	close_fd(&d->swap_max_fd);
	close_fd(&d->swap_current_fd);
	close_fd(&d->psi_fd); /* closing drops a trigger from the epoll set */
	close_fd(&d->psi_some_fd);
	d->psi_trigger = false;
	d->psi_last.valid = false;
	d->active_open = false;
	recount(dm, d);
}

static void active_open(struct daemon *dm, struct domain *d)
{
	if (d->stat_fd < 0)
		d->stat_fd = openat(d->dirfd, "memory.stat", RDONLY);
	if (d->swap_max_fd < 0)
		d->swap_max_fd = openat(d->dirfd, "memory.swap.max", RDONLY);
	if (d->swap_current_fd < 0)
		d->swap_current_fd = openat(d->dirfd, "memory.swap.current", RDONLY);
	close_fd(&d->psi_fd); /* a read-only one: triggers need O_RDWR */
	close_fd(&d->psi_some_fd);
	psi_open(dm, d, d->dirfd, "memory.pressure");
	d->active_open = true;
	recount(dm, d);
}

int domain_memstat_once(struct daemon *dm, struct domain *d, struct cgoom_cgroup_sample *s)
{
	int *fds[] = { &d->stat_fd, &d->swap_max_fd, &d->swap_current_fd };
	const char *names[] = { "memory.stat", "memory.swap.max", "memory.swap.current" };
	bool opened[3] = { false };
	for (int i = 0; i < 3; i++)
		if (*fds[i] < 0 && d->dirfd >= 0)
			opened[i] = (*fds[i] = openat(d->dirfd, names[i], RDONLY)) >= 0;
	int r = domain_memstat(dm, d, s);
	for (int i = 0; i < 3; i++)
		if (opened[i])
			close_fd(fds[i]);
	return r;
}

/* d's open files stay open: memory.events watched; the active set
 * (PSI triggers armed) only when `active`. */
static void files_keep(struct daemon *dm, struct domain *d, bool active)
{
	if (dm->live) {
		struct epoll_event ev = { .events = EPOLLPRI, .data.ptr = &d->w_events };
		if (epoll_ctl(dm->epfd, EPOLL_CTL_ADD, d->events_fd, &ev) < 0)
			log_warning("%s: cannot watch memory.events (%s); polling it", d->path,
				    strerror(errno));
		struct epoll_event cev = { .events = EPOLLPRI, .data.ptr = &d->w_cgevents };
		d->cgevents_watched = d->cgevents_fd >= 0 &&
				      epoll_ctl(dm->epfd, EPOLL_CTL_ADD, d->cgevents_fd, &cev) == 0;
	}
	d->kept = true;
	d->n_fds = files_count(d);
	dm->fds.kept += d->n_fds;
	if (active)
		active_open(dm, d);
	else
		active_close(dm, d);
}

void domain_set_active(struct daemon *dm, struct domain *d, bool active, uint64_t now)
{
	if (d->dead || !d->kept)
		return;
	if (active)
		d->active_until_us = now + ACTIVE_LINGER_US;
	if (active && !d->active_open) {
		if (!fds_make_room(dm, FDS_ACTIVE))
			log_warning("%s: near its line, but the fd budget has no room for its "
				    "memory.stat and PSI files: limit backstop only", d->path);
		else
			active_open(dm, d);
	} else if (!active && d->active_open && now >= d->active_until_us) {
		active_close(dm, d);
	}
}

int domain_files_open(struct daemon *dm, struct domain *d, bool keep)
{
	if (d->dead || d->system)
		return -ENOENT;
	if (d->files_open) {
		if (keep && !d->kept)
			files_keep(dm, d, true);
		return 0;
	}
	int dfd = cgfs_open_beneath(dm->roots.cgroup_fd, d->path, CGFS_DIR_FLAGS);
	if (dfd < 0)
		return dfd;
	struct stat st;
	if (fstat(dfd, &st) < 0 || st.st_dev != d->dev || st.st_ino != d->ino) {
		close(dfd);
		return -ESTALE; /* another cgroup by that name now: a new domain */
	}
	d->dirfd = dfd;
	int r = files_open_at(d);
	if (r < 0)
		return r;
	if (keep)
		files_keep(dm, d, false);
	return 0;
}

void domain_close(struct daemon *dm, struct domain *d)
{
	if (d->dead)
		return;
	/* a polled domain's memory.high, to restore it */
	if (d->high_written && !d->files_open)
		domain_files_open(dm, d, false);
	d->dead = true;
	dm->n_dead++;
	guard_restore(dm, d);
	domain_files_close(dm, d);
	files_close_all(d); /* the system domain's PSI files */
	close_fd(&d->sys.meminfo_fd);
	close_fd(&d->sys.vmstat_fd);
}

void domains_note_polled(struct daemon *dm, const struct domain *d)
{
	struct cgoom_strbuf *b = &dm->polled_news;
	if (dm->n_polled_news)
		cgoom_strbuf_append(b, ", ", 2);
	cgoom_strbuf_json_string(b, d->path);
	dm->n_polled_news++;
}

struct domain *domain_add(struct daemon *dm, int dirfd, const char *path)
{
	struct domain *d = domain_new(path);
	if (!d) {
		close(dirfd);
		log_warning("domain %s: out of memory; retried at the next walk", path);
		return NULL;
	}
	d->dirfd = dirfd;
	d->sample.high = UINT64_MAX;
	struct stat st;
	int r = fstat(dirfd, &st) < 0 ? -errno : 0;
	if (r == 0) {
		d->dev = st.st_dev;
		d->ino = st.st_ino;
		r = files_open_at(d);
	}
	if (r < 0) {
		if (r == -EMFILE || r == -ENFILE)
			log_warning("domain %s: cannot open its files (%s); retried at the next walk",
				    path, strerror(-r));
		else
			log_debug("%s: memory files missing (%s); not a domain", path, strerror(-r));
		goto out_free;
	}
	r = domain_sample(dm, d, &d->sample);
	if (r < 0)
		goto out_free;
	d->sample_ok = true;
	domain_read_populated(dm, d, dirfd);
	cgoom_cgroup_baseline(&d->trig, &d->sample);
	if (dm->once)
		memset(&d->trig, 0, sizeof(d->trig)); /* judge the counters as they stand */
	d->kernel_last = d->sample.ev;
	guard_apply(dm, d); /* the margin, and memory.high */
	bool has_stat = d->stat_fd >= 0;
	/* its files stay open if the budget leaves the reserve free; the
	 * active set too if it is near its line already (or in a one-shot
	 * run, which looks once) */
	bool keep = fd_budget_fits(&dm->fds, FDS_PER_DOMAIN);
	bool near = dm->once || d->sample.current >= cgoom_watch_line(&d->sample, &d->params);
	if (keep) {
		files_keep(dm, d, near && fd_budget_fits(&dm->fds, FDS_PER_DOMAIN + FDS_ACTIVE));
		d->active_until_us = cgfs_now_us() + ACTIVE_LINGER_US;
	}
	r = domains_push(dm, d);
	if (r < 0) {
		log_warning("domain %s: out of memory; retried at the next walk", path);
		domain_close(dm, d);
		free(d->path);
		free(d);
		return NULL;
	}
	char h[32], m[32];
	log_info("domain %s: memory.max %s, margin %s%s%s%s%s", path,
		 cgoom_human_size(d->sample.max, h, sizeof(h)),
		 cgoom_human_size(d->params.margin, m, sizeof(m)),
		 d->params.guarded ? ", guard band" : "",
		 !keep		    ? ", polled (fd budget): files opened for each sample"
		 : !d->active_open ? ""
		 : d->psi_trigger ? ", PSI trigger"
				  : ", PSI polled",
		 has_stat ? "" : ", no memory.stat (limit backstop only)",
		 !domain_empty_watched(d) || !d->empty
			 ? ""
			 : ", empty (no process: looked at again when one comes)");
	if (!keep) {
		domain_files_close(dm, d);
		domains_note_polled(dm, d);
	}
	return d;
out_free:
	files_close_all(d);
	free(d->path);
	free(d);
	return NULL;
}

bool domain_read_populated(struct daemon *dm, struct domain *d, int dirfd)
{
	bool populated = true, was = d->empty;
	int fd = d->cgevents_fd >= 0 ? d->cgevents_fd
		 : dirfd >= 0	     ? openat(dirfd, "cgroup.events", RDONLY)
				     : -1;
	if (fd >= 0) {
		size_t len;
		if (cgfs_reread(fd, dm->buf, sizeof(dm->buf), &len) < 0 ||
		    cgoom_parse_cgroup_events(dm->buf, len, &populated) < 0)
			populated = true;
		if (fd != d->cgevents_fd)
			close(fd);
	}
	d->empty = !d->system && !populated;
	return d->empty != was;
}

bool domain_empty_watched(const struct domain *d)
{
	return d->kept && d->cgevents_fd >= 0 && d->cgevents_watched;
}

/* d's files are closed (domain_close, by the loop's teardown). */
static void domain_free(struct domain *d)
{
	free(d->path);
	free(d);
}

void domains_reap(struct daemon *dm)
{
	if (dm->n_dead == 0)
		return; /* each wake-up: not a pass over every domain */
	dm->n_dead = 0;
	size_t j = 1;
	for (size_t i = 1; i < dm->n_domains; i++) {
		struct domain *d = dm->domains[i];
		if (d->dead)
			domain_free(d);
		else
			dm->domains[j++] = d;
	}
	if (dm->n_domains > 0)
		dm->n_domains = j;
}

/* Frees every domain; the loop tore them down first (their files are
 * closed, memory.high restored). */
void domains_free(struct daemon *dm)
{
	for (size_t i = 0; i < dm->n_domains; i++)
		domain_free(dm->domains[i]);
	free(dm->domains);
	dm->domains = NULL;
	dm->n_domains = dm->cap_domains = 0;
}

