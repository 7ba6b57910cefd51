/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "log.h"
#include "safe-file.h"

/* The config may be a symlink (unlike anything below the roots). */
static int read_path(const char *path, char **ret, size_t *ret_len)
{
	/* never blocks on a FIFO; a directory or a file over 1 MiB is refused */
	int fd = -1;
	int r0 = sfile_open_read(path, 1u << 20, &fd);
	if (r0 < 0)
		return r0;
	FILE *f = fdopen(fd, "re");
	if (!f) {
		r0 = -errno;
		close(fd);
		return r0;
	}
	size_t cap = 4096, len = 0;
	char *buf = malloc(cap);
	int r = 0;
	while (buf) {
		if (len + 1 >= cap) {
			if (cap >= (1u << 20)) {
				r = -EFBIG;
				break;
			}
			char *nb = realloc(buf, cap * 2);
			if (!nb)
				break;
			buf = nb;
			cap *= 2;
		}
		size_t n = fread(buf + len, 1, cap - len - 1, f);
		if (n == 0) {
			if (ferror(f))
				r = -EIO;
			break;
		}
		len += n;
	}
	fclose(f);
	if (!buf)
		return -ENOMEM;
	if (r < 0) {
		free(buf);
		return r;
	}
	buf[len] = '\0';
	*ret = buf;
	*ret_len = len;
	return 0;
}

static int load_config(const struct cli_opts *o, struct cgoom_config *ret)
{
	const char *path = o->config ? o->config : "/etc/cgoom.conf";
	char *buf = NULL;
	size_t len = 0;
	int r = read_path(path, &buf, &len);
	if (r == -ENOENT && !o->config_given) {
		cgoom_config_init(ret);
		return EXIT_OK;
	}
	if (r < 0) {
		log_error("%s: %s", path, sfile_strerror(r));
		return EXIT_USAGE;
	}
	struct cgoom_config_error err = { 0 };
	r = cgoom_config_parse(buf, len, ret, &err);
	free(buf);
	if (r < 0) {
		if (err.line > 0)
			fprintf(stderr, "%s:%d: %s\n", path, err.line, err.msg);
		else
			fprintf(stderr, "%s: %s\n", path, err.msg[0] ? err.msg : strerror(-r));
		return EXIT_USAGE;
	}
	return EXIT_OK;
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
		log_error("reading %s and %s: %s", o->cgroup_root, o->proc_root, strerror(-r));
		return EXIT_RUNTIME;
	}
	c->have_snap = true;
	r = cgoom_settings_resolve(&c->snap, &c->cfg, &c->settings);
	if (r < 0) {
		log_error("resolving settings: %s", strerror(-r));
		return EXIT_RUNTIME;
	}
	return EXIT_OK;
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

int cli_find_memcg(struct cli_ctx *c, const char *arg)
{
	char norm[4096];
	if (cgoom_path_normalize(arg, norm, sizeof(norm)) < 0) {
		log_error("%s: not a cgroup path (it must start with '/' and have no '.' or '..')", arg);
		return -EXIT_USAGE;
	}
	int i = cgoom_snapshot_find(&c->snap, norm);
	if (i < 0) {
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
