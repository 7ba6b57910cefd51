/* SPDX-License-Identifier: MIT */
#pragma once

/* Helpers to build snapshots by hand for engine tests. */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cgoom/select.h"

#define MiB (1024ull * 1024)

/* Adds "/a/b" style cgroups (parents must exist) as memcgs with
 * memory.stat anon = anon_mib. Returns the index. */
static inline int sb_cg(struct cgoom_snapshot *s, const char *path, uint64_t anon_mib)
{
	const char *slash = strrchr(path, '/');
	char parent[256];
	size_t plen = (size_t)(slash - path);
	memcpy(parent, path, plen);
	parent[plen] = '\0';
	int p = plen == 0 ? 0 : cgoom_snapshot_find(s, parent);
	if (p < 0) {
		/* find works only on paths already added; linear fallback */
		for (size_t i = 0; i < s->n_cgroups; i++)
			if (strcmp(s->cgroups[i].path, parent) == 0)
				p = (int)i;
	}
	if (p < 0)
		abort();
	int i = cgoom_snapshot_add_cgroup(s, p, slash + 1);
	if (i < 0)
		abort();
	struct cgoom_cgroup *c = &s->cgroups[i];
	c->is_memcg = true;
	c->stat_ok = true;
	c->stat.active_anon = anon_mib * MiB;
	c->stat.anon = anon_mib * MiB;
	c->stat.present = CGOOM_MEMSTAT_FOOTPRINT_KEYS | CGOOM_MEMSTAT_ANON;
	c->current_ok = true;
	c->current = anon_mib * MiB;
	return i;
}

static inline int sb_idx(struct cgoom_snapshot *s, const char *path)
{
	for (size_t i = 0; i < s->n_cgroups; i++)
		if (strcmp(s->cgroups[i].path, path) == 0)
			return (int)i;
	abort();
}

/* Adds a process of rss_mib in cgroup `path`; adds rss to nothing else. */
static inline void sb_proc(struct cgoom_snapshot *s, int pid, const char *path, uint64_t rss_mib,
			   int adj)
{
	struct cgoom_process p = { 0 };
	p.pid = pid;
	p.cgroup = sb_idx(s, path);
	snprintf(p.comm, sizeof(p.comm), "p%d", pid);
	p.rss = rss_mib * MiB;
	p.oom_score_adj = adj;
	p.has_mm = true;
	p.starttime = 1000 + (uint64_t)pid;
	if (cgoom_snapshot_add_process(s, &p) < 0)
		abort();
}

/* A system with 16 GiB RAM and no swap, and root-level usage (meminfo
 * anon) of sys_anon_mib. */
static inline void sb_init(struct cgoom_snapshot *s, uint64_t sys_anon_mib)
{
	if (cgoom_snapshot_init(s) < 0)
		abort();
	s->meminfo_ok = true;
	s->meminfo.mem_total = 16384 * MiB;
	s->meminfo.mem_available = 8192 * MiB;
	s->meminfo.active_anon = sys_anon_mib * MiB;
	s->meminfo.present = 0x1ff;
	s->sockstat_ok = true;
}

/* The settings of the snapshot last given to sb_done() (a test works on
 * one snapshot at a time); reachable to the end, freed by the next. */
static struct cgoom_settings sb_set;

static inline void sb_done(struct cgoom_snapshot *s, const struct cgoom_config *cfg)
{
	if (cgoom_snapshot_finalize(s) < 0 || cgoom_settings_resolve(s, cfg, &sb_set) < 0)
		abort();
}

/* Selects in `domain` (with sb_set) and returns the decision (caller frees). */
static inline struct cgoom_decision sb_select(struct cgoom_snapshot *s, const char *domain)
{
	struct cgoom_decision d;
	cgoom_decision_init(&d);
	if (cgoom_select(s, &sb_set, sb_idx(s, domain), &d) < 0)
		abort();
	return d;
}

/* A config from text; aborts on a parse error (tests only). */
static inline struct cgoom_config cfg_of(const char *text)
{
	struct cgoom_config c;
	struct cgoom_config_error e;
	if (cgoom_config_parse(text, strlen(text), &c, &e) < 0) {
		printf("# config error line %d: %s\n", e.line, e.msg);
		abort();
	}
	return c;
}

/* The seed table (patch 2/6): /cg1 one 250 MiB; /cg2 three ~100 MiB;
 * /cg3/cg31 and /cg3/cg32 two ~100 MiB each. Sizes nudged to be unique. */
static inline void seed_table(struct cgoom_snapshot *s)
{
	sb_init(s, 1300);
	sb_cg(s, "/cg1", 250);
	sb_cg(s, "/cg2", 306);
	sb_cg(s, "/cg3", 394);
	sb_cg(s, "/cg3/cg31", 198);
	sb_cg(s, "/cg3/cg32", 196);
	sb_proc(s, 101, "/cg1", 250, 0);
	sb_proc(s, 201, "/cg2", 101, 0);
	sb_proc(s, 202, "/cg2", 103, 0);
	sb_proc(s, 203, "/cg2", 102, 0);
	sb_proc(s, 311, "/cg3/cg31", 99, 0);
	sb_proc(s, 312, "/cg3/cg31", 99, 0);
	sb_proc(s, 321, "/cg3/cg32", 97, 0);
	sb_proc(s, 322, "/cg3/cg32", 99, 0);
}

