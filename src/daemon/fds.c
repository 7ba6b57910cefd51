/* SPDX-License-Identifier: MIT */
/*
 * The file-descriptor budget (daemon-internal.h "fds.c", doc/scale.md
 * "Resources"). At start the soft RLIMIT_NOFILE is raised to the hard
 * one (the unit sets the hard one: LimitNOFILE=). Every cgroup domain
 * keeps its files open between samples while that leaves FD_RESERVE
 * fds free; the others are polled: their files are opened for each
 * sample and closed after it, and they get no memory.events or PSI
 * wake-ups. Which domains are polled is said at once, by name (a
 * warning and the event "domains_polled"), never a silent gap. A
 * domain near its line, with a standby or a kill in flight keeps its
 * files (quiet ones give theirs up for it), and a decision's pidfds
 * are made room for the same way: a decision never fails for lack of
 * an fd while a quiet domain holds some.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "daemon-internal.h"
#include "log.h"

/* How many names the warning lists (the event log lists them all). */
#define REPORT_NAMES 16

size_t fd_budget_shortfall(const struct fd_budget *b, size_t more)
{
	uint64_t need = 0;
	const uint64_t parts[] = { b->fixed, b->reserve, b->kept, b->decisions, more };
	for (size_t i = 0; i < sizeof(parts) / sizeof(parts[0]); i++)
		need = parts[i] > UINT64_MAX - need ? UINT64_MAX : need + parts[i];
	if (need <= b->limit)
		return 0;
	uint64_t over = need - b->limit;
	return over > SIZE_MAX ? SIZE_MAX : (size_t)over;
}

bool fd_budget_fits(const struct fd_budget *b, size_t more)
{
	return fd_budget_shortfall(b, more) == 0;
}

void fds_raise_limit(struct daemon *dm)
{
	struct rlimit rl;
	dm->fds.reserve = FD_RESERVE;
	if (getrlimit(RLIMIT_NOFILE, &rl) < 0) {
		log_warning("getrlimit(RLIMIT_NOFILE): %s; assuming 1024", strerror(errno));
		dm->fds.limit = 1024;
		return;
	}
	rlim_t soft = rl.rlim_cur;
	if (rl.rlim_cur < rl.rlim_max) {
		rl.rlim_cur = rl.rlim_max;
		if (setrlimit(RLIMIT_NOFILE, &rl) < 0) {
			log_warning("raising RLIMIT_NOFILE from %llu to %llu: %s", (unsigned long long)soft,
				    (unsigned long long)rl.rlim_max, strerror(errno));
			rl.rlim_cur = soft;
		} else {
			log_info("RLIMIT_NOFILE raised from %llu to %llu (the hard limit)",
				 (unsigned long long)soft, (unsigned long long)rl.rlim_cur);
		}
	}
	dm->fds.limit = rl.rlim_cur == RLIM_INFINITY ? UINT64_MAX / 2 : (uint64_t)rl.rlim_cur;
}

static int count_entry(void *ctx, const char *name, unsigned char type)
{
	(void)name;
	(void)type;
	(*(size_t *)ctx)++;
	return 0;
}

void fds_measure_fixed(struct daemon *dm)
{
	/* this process's own fd table (not the proc root's: that may be a
	 * fixture); the listing's own fd is one of them */
	size_t n = 0;
	int fd = open("/proc/self/fd", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd >= 0 && cgfs_for_each_entry(fd, count_entry, &n) == 0 && n > 0) {
		n--;
	} else {
		/* fds are handed out lowest first: the lowest free one bounds
		 * how many are open when few were ever closed */
		int probe = fcntl(dm->epfd >= 0 ? dm->epfd : 0, F_DUPFD_CLOEXEC, 0);
		n = probe >= 0 ? (size_t)probe : 64;
		if (probe >= 0)
			close(probe);
	}
	if (fd >= 0)
		close(fd);
	dm->fds.fixed = n;
	uint64_t room = dm->fds.limit > n + dm->fds.reserve ? dm->fds.limit - n - dm->fds.reserve : 0;
	log_info("fd budget: RLIMIT_NOFILE %llu, %zu in use, %zu reserved for decisions: "
		 "%llu domains can keep their files (%d each)",
		 (unsigned long long)dm->fds.limit, n, dm->fds.reserve,
		 (unsigned long long)(room / FDS_PER_DOMAIN), FDS_PER_DOMAIN);
}

bool domain_active(const struct domain *d)
{
	return d->approach || d->standby || kl_active(&d->kill.lc);
}

void fds_report(struct daemon *dm)
{
	if (!dm->n_polled_news)
		return;
	size_t polled = 0;
	for (size_t i = 1; i < dm->n_domains; i++)
		polled += !dm->domains[i]->dead && !dm->domains[i]->kept;
	/* the names for the log: the JSON strings' first REPORT_NAMES */
	struct cgoom_strbuf names = { 0 };
	size_t listed = 0;
	for (size_t i = 1; i < dm->n_domains && listed < REPORT_NAMES; i++) {
		const struct domain *d = dm->domains[i];
		if (d->dead || d->kept)
			continue;
		cgoom_strbuf_printf(&names, "%s%s", listed ? ", " : "", d->path);
		listed++;
	}
	log_warning("fd budget: RLIMIT_NOFILE %llu leaves no room for the files of %zu domain%s "
		    "(%zu new): they are polled, their files opened for each sample, without "
		    "memory.events or PSI wake-ups: %s%s; raise LimitNOFILE= (%d fds per domain "
		    "and %zu reserved)",
		    (unsigned long long)dm->fds.limit, polled, polled == 1 ? "" : "s",
		    dm->n_polled_news, names.buf ? names.buf : "", polled > listed ? ", ..." : "",
		    FDS_PER_DOMAIN, dm->fds.reserve);
	cgoom_strbuf_free(&names);
	struct cgoom_strbuf f = { 0 };
	cgoom_strbuf_printf(&f, "\"domains\": [");
	if (dm->polled_news.buf)
		cgoom_strbuf_append(&f, dm->polled_news.buf, dm->polled_news.len);
	cgoom_strbuf_printf(&f, "], \"polled\": %zu, \"rlimit_nofile\": %llu, \"kept_fds\": %zu, "
				"\"decision_fds\": %zu",
			    polled, (unsigned long long)dm->fds.limit, dm->fds.kept, dm->fds.decisions);
	event_emit(dm, "domains_polled", &f);
	cgoom_strbuf_free(&f);
	cgoom_strbuf_free(&dm->polled_news);
	dm->n_polled_news = 0;
}

bool fds_make_room(struct daemon *dm, size_t more)
{
	size_t need = fd_budget_shortfall(&dm->fds, more);
	/* the newest quiet domains give up their files first */
	for (size_t i = dm->n_domains; need > 0 && i-- > 1;) {
		struct domain *d = dm->domains[i];
		if (d->dead || !d->kept || domain_active(d))
			continue;
		size_t n = d->n_fds;
		domain_files_close(dm, d);
		domains_note_polled(dm, d);
		need = need > n ? need - n : 0;
	}
	fds_report(dm);
	return need == 0;
}

void fds_promote(struct daemon *dm)
{
	size_t n = 0;
	for (size_t i = 1; i < dm->n_domains; i++) {
		struct domain *d = dm->domains[i];
		if (d->dead || d->kept)
			continue;
		if (!fd_budget_fits(&dm->fds, FDS_PER_DOMAIN))
			break; /* (its active set comes when it nears its line: settle) */
		if (domain_files_open(dm, d, true) == 0) {
			log_info("domain %s: files kept open again (fd budget)", d->path);
			n++;
		}
	}
	if (n)
		log_notice("fd budget: %zu polled domain%s keep their files again", n,
			   n == 1 ? "" : "s");
}
