/* SPDX-License-Identifier: MIT */
/*
 * A daemon without a loop for the daemon's unit tests: a system domain
 * "/" and n cgroup domains /c1../cn, each with kept files counted (10
 * each) but no real fd open (every fd field is -1).
 */
#ifndef CGOOM_TEST_FAKE_DAEMON_H
#define CGOOM_TEST_FAKE_DAEMON_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "standby-internal.h"

static inline struct domain *fake(const char *path, bool kept, size_t n_fds)
{
	struct domain *d = calloc(1, sizeof(*d));
	d->path = strdup(path);
	d->dirfd = d->events_fd = d->current_fd = d->max_fd = d->high_fd = d->stat_fd = -1;
	d->swap_max_fd = d->swap_current_fd = d->psi_fd = d->psi_some_fd = d->cgevents_fd = -1;
	d->files_open = d->kept = kept;
	d->n_fds = kept ? n_fds : 0;
	return d;
}

static inline struct daemon *fake_daemon(size_t n)
{
	struct daemon *dm = calloc(1, sizeof(*dm));
	dm->ev.fd = -1;
	dm->prep_efd = -1;
	dm->domains = calloc(n + 1, sizeof(*dm->domains));
	dm->domains[0] = fake("/", false, 0);
	dm->domains[0]->system = true;
	dm->domains[0]->sys.meminfo_fd = dm->domains[0]->sys.vmstat_fd = -1;
	dm->n_domains = dm->cap_domains = n + 1;
	dm->fds = (struct fd_budget){ .limit = 1000, .fixed = 10, .reserve = 500 };
	for (size_t i = 1; i <= n; i++) {
		char p[32];
		snprintf(p, sizeof(p), "/c%zu", i);
		dm->domains[i] = fake(p, true, 10);
		dm->fds.kept += 10;
	}
	return dm;
}

static inline void fake_free(struct daemon *dm)
{
	for (size_t i = 0; i < dm->n_domains; i++) {
		free(dm->domains[i]->path);
		free(dm->domains[i]);
	}
	free(dm->domains);
	cgoom_strbuf_free(&dm->polled_news);
	free(dm);
}

#endif
