/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "config-file.h"
#include "log.h"

static int load_config(const struct cli_opts *o, struct cgoom_config *ret)
{
	const char *path = o->config ? o->config : "/etc/cgoom.conf";
	char err[512];

	if (cgoom_config_load(path, o->config_given, ret, err, sizeof(err)) < 0) {
		log_error("%s", err);
		return EXIT_USAGE;
	}
	if (err[0])
		log_warning("%s", err);
	return EXIT_OK;
}

/* For a cgroup path written with the cgroup root's mount point in front
 * ("/sys/fs/cgroup/x", or the --cgroup-root given), what follows it
 * ("/x"; "/" for the mount point itself); else NULL. */
static const char *mount_rest(const struct cli_ctx *c, const char *path)
{
	const char *rest = cgoom_config_past_mount(path, c->roots.cgroup_path);
	return rest ? rest : cgoom_config_past_mount(path, "/sys/fs/cgroup");
}

/* A note for each config section that matches no cgroup of the tree:
 * its settings apply to nothing, which a typo or a path written with
 * the mount point in front ("/sys/fs/cgroup/x" for "/x") would make
 * happen silently. A cgroup yet to come (a service not started, a pod)
 * is noted too: the note says "now". */
static int note_unmatched(struct cli_ctx *c)
{
	const struct cgoom_config *cfg = &c->cfg;
	if (!cfg->n_cgroups)
		return 0;
	bool *hit = calloc(cfg->n_cgroups, sizeof(*hit));
	if (!hit)
		return -ENOMEM;
	for (size_t i = 0; i < c->snap.n_cgroups; i++)
		cgoom_config_mark_matches(cfg, c->snap.cgroups[i].path, hit);
	int r = 0;
	for (size_t j = 0; r >= 0 && j < cfg->n_cgroups; j++) {
		if (hit[j])
			continue;
		const char *path = cfg->cgroups[j].path;
		const char *rest = mount_rest(c, path);
		if (rest)
			r = cgoom_snapshot_note(&c->snap,
						"config [cgroup \"%s\"] (line %d) matches no cgroup: section "
						"paths start at the cgroup root, not at its mount point: "
						"write [cgroup \"%s\"]",
						path, cfg->cgroups[j].line, rest);
		else
			r = cgoom_snapshot_note(&c->snap,
						"config [cgroup \"%s\"] (line %d) matches no cgroup under %s "
						"now: its settings apply to nothing (a typo, or a cgroup not "
						"made yet?)",
						path, cfg->cgroups[j].line, c->roots.cgroup_path);
	}
	free(hit);
	return r < 0 ? r : 0;
}

static int load(const struct cli_opts *o, struct cli_ctx *c, bool lazy)
{
	memset(c, 0, sizeof(*c));
	int rc = load_config(o, &c->cfg);
	if (rc != EXIT_OK)
		return rc;
	c->have_cfg = true;

	char err[512] = "";
	int r = cgoom_roots_open(o->cgroup_root, o->proc_root, &c->roots, err, sizeof(err));
	if (r < 0) {
		log_error("%s", err[0] ? err : strerror(-r));
		return EXIT_USAGE;
	}
	c->have_roots = true;

	r = lazy ? cgoom_snapshot_read_lazy(&c->roots, &c->snap, &c->rd)
		 : cgoom_snapshot_read(&c->roots, &c->snap);
	if (r < 0) {
		const char *where = cgoom_reader_error_where();
		log_error("reading %s and %s: %s", o->cgroup_root, o->proc_root,
			  where[0] ? where : strerror(-r));
		return EXIT_RUNTIME;
	}
	c->have_snap = true;
	const char *trusted = cli_trusted_note();
	if (trusted && cgoom_snapshot_note(&c->snap, "%s", trusted) < 0) {
		log_error("out of memory");
		return EXIT_RUNTIME;
	}
	r = cgoom_settings_resolve(&c->snap, &c->cfg, &c->settings);
	if (r < 0) {
		log_error("resolving settings: %s", strerror(-r));
		return EXIT_RUNTIME;
	}
	if (note_unmatched(c) < 0) {
		log_error("out of memory");
		return EXIT_RUNTIME;
	}
	return EXIT_OK;
}

const char *cli_trusted_note(void)
{
	if (cgoom_can_read_trusted())
		return NULL;
	return "trusted.cgoom.* settings could not be read (they need CAP_SYS_ADMIN): "
	       "the ranking and settings shown may differ from the daemon's; run as root to see them";
}

int cli_load(const struct cli_opts *o, struct cli_ctx *c)
{
	return load(o, c, false);
}

int cli_load_lazy(const struct cli_opts *o, struct cli_ctx *c)
{
	return load(o, c, !o->full);
}

void cli_ctx_free(struct cli_ctx *c)
{
	cgoom_reader_free(c->rd);
	cgoom_settings_free(&c->settings);
	if (c->have_snap)
		cgoom_snapshot_free(&c->snap);
	if (c->have_roots)
		cgoom_roots_close(&c->roots);
	if (c->have_cfg)
		cgoom_config_free(&c->cfg);
	memset(c, 0, sizeof(*c));
}

int cli_check_path(const char *arg, char *norm, size_t cap)
{
	if (cgoom_path_normalize(arg, norm, cap) < 0) {
		log_error("%s: not a cgroup path (it must start with '/' and have no '.' or '..')", arg);
		return EXIT_USAGE;
	}
	return EXIT_OK;
}

int cli_find_memcg(struct cli_ctx *c, const char *arg)
{
	char norm[4096];
	if (cli_check_path(arg, norm, sizeof(norm)) != EXIT_OK)
		return -EXIT_USAGE;
	int i = cgoom_snapshot_find(&c->snap, norm);
	if (i < 0 && cgoom_path_depth(norm) > CGOOM_READER_MAX_DEPTH) {
		log_error("%s: more than %d levels deep, where cgoom reads no cgroup of its own "
			  "(the processes there count as their ancestor's %d levels down)",
			  norm, CGOOM_READER_MAX_DEPTH, CGOOM_READER_MAX_DEPTH);
		return -EXIT_USAGE;
	}
	if (i < 0) {
		/* the mount point in front (a path copied from a shell):
		 * name the cgroup that was meant, when it exists */
		const char *rest = mount_rest(c, norm);
		if (rest && cgoom_snapshot_find(&c->snap, rest) >= 0)
			log_error("%s: no such cgroup under %s: cgroup paths start at the cgroup root, "
				  "not at its mount point: use %s",
				  norm, c->roots.cgroup_path, rest);
		else
			log_error("%s: no such cgroup under %s", norm, c->roots.cgroup_path);
		return -EXIT_USAGE;
	}
	/* a deferred cgroup is a memcg (its parent's subtree_control lists
	 * memory); the plan reads it first when it is the domain */
	if (c->snap.cgroups[i].memcg != i) {
		log_error("%s: not a memory cgroup (cgroup.controllers does not list memory)", norm);
		return -EXIT_USAGE;
	}
	return i;
}

bool cli_killed;

int cli_stdout_flush(void)
{
	static bool said;
	errno = 0;
	if (fflush(stdout) == 0 && !ferror(stdout))
		return 0;
	if (!said)
		log_error("writing standard output: %s", strerror(errno ? errno : EIO));
	said = true;
	return -1;
}
