/* SPDX-License-Identifier: MIT */
/* policy CGROUP [none|cgroup|tree]: read in the seed's memory.oom_policy
 * format, or set trusted.cgoom.oom_policy on the cgroup directory. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/xattr.h>
#include <unistd.h>

#include "cgfs.h"
#include "cgoom/explain.h"
#include "cli.h"
#include "log.h"

/* The seed's memory.oom_policy format: every policy, the one in force
 * in brackets ("none [cgroup] tree"). */
static void print_policy(enum cgoom_policy p)
{
	for (int i = 0; i < CGOOM_POLICY_MAX; i++)
		printf(i == (int)p ? "%s[%s]" : "%s%s", i ? " " : "", cgoom_policy_name((enum cgoom_policy)i));
	putchar('\n');
}

static int set_policy(struct cli_ctx *c, int i, enum cgoom_policy p)
{
	const char *path = c->snap.cgroups[i].path;
	int fd = cgfs_open_beneath(c->roots.cgroup_fd, path, CGFS_DIR_FLAGS);
	if (fd < 0) {
		log_error("%s: %s", path, strerror(-fd));
		return EXIT_RUNTIME;
	}
	const char *v = cgoom_policy_name(p);
	int r = fsetxattr(fd, "trusted.cgoom.oom_policy", v, strlen(v), 0);
	int e = errno;
	close(fd);
	if (r < 0) {
		log_error("%s: setting trusted.cgoom.oom_policy: %s%s", path, strerror(e),
			  e == EPERM ? " (trusted.* xattrs need CAP_SYS_ADMIN)" : "");
		return EXIT_RUNTIME;
	}
	return EXIT_OK;
}

int cmd_policy(const struct cli_opts *o)
{
	if (o->n_args < 1 || o->n_args > 2) {
		log_error("usage: cgoom policy CGROUP [none|cgroup|tree]");
		return EXIT_USAGE;
	}
	enum cgoom_policy want = CGOOM_POLICY_NONE;
	bool set = o->n_args == 2;
	if (set && cgoom_policy_from_string(o->args[1], strlen(o->args[1]), &want) < 0) {
		log_error("'%s' is not a policy: use none, cgroup or tree", o->args[1]);
		return EXIT_USAGE;
	}
	struct cli_ctx c = { 0 }; /* freed on every path, the early ones too */
	int rc = cli_load(o, &c);
	if (rc != EXIT_OK)
		goto out;
	int i = cli_find_memcg(&c, o->args[0]);
	if (i < 0) {
		rc = -i;
		goto out;
	}
	if (set) {
		if (i == 0 && !cgoom_policy_ops(want)->on_root) {
			log_error("/: policy %s is not allowed on the root cgroup", cgoom_policy_name(want));
			rc = EXIT_USAGE;
			goto out;
		}
		rc = set_policy(&c, i, want);
		if (rc == EXIT_OK)
			print_policy(want);
		goto out;
	}
	const struct cgoom_cgroup *cg = &c.snap.cgroups[i];
	const struct cgoom_setting *pol = &c.settings.cgroups[i].policy;
	print_policy((enum cgoom_policy)pol->value);
	struct cgoom_strbuf b = { 0 };
	cgoom_setting_source(&b, &c.snap, &c.settings, i, pol);
	printf("source: %s\n", b.buf ? b.buf : "?");
	cgoom_strbuf_free(&b);
	/* a config value shadowed by an xattr deserves a mention */
	const struct cgoom_cgroup_conf *conf = cgoom_config_lookup(&c.cfg, cg->path, CGOOM_CONF_POLICY);
	if (conf && pol->source == CGOOM_SRC_TRUSTED_XATTR &&
	    pol->origin == i && conf->policy != (enum cgoom_policy)pol->value)
		printf("note: config sets %s on line %d, overridden by the xattr\n",
		       cgoom_policy_name(conf->policy), conf->policy_line);
	if (cli_trusted_note())
		printf("note: %s\n", cli_trusted_note());
	/* what explain notes of this cgroup's oom_policy (an xattr with a
	 * value it does not take, one not allowed here): checking a setfattr
	 * with `cgoom policy`, the operator was told where the policy came
	 * from and nothing of the xattr that was ignored */
	size_t plen = strlen(cg->path);
	char *const *lists[] = { c.snap.notes, c.settings.notes };
	size_t counts[] = { c.snap.n_notes, c.settings.n_notes };
	for (size_t l = 0; l < 2; l++)
		for (size_t k = 0; k < counts[l]; k++) {
			const char *n = lists[l][k];
			if (strncmp(n, cg->path, plen) == 0 && strncmp(n + plen, ": ", 2) == 0 &&
			    strstr(n + plen, "oom_policy"))
				printf("note: %s\n", n);
		}
out:
	cli_ctx_free(&c);
	return rc;
}
