/* SPDX-License-Identifier: MIT */
/*
 * Effective settings (SPEC 3 and 7). One pass in pre-order, so every
 * parent is resolved before its children: a cgroup's value is its own
 * explicit one by precedence, else its parent's (dynamic inheritance:
 * the nearest explicit ancestor decides).
 */
#include <errno.h>
#include <stdbool.h>

#include "cgoom/select.h"

static struct cgoom_setting explicit_here(int value, enum cgoom_source src, int i)
{
	return (struct cgoom_setting){ .value = value, .source = src, .origin = i };
}

static int resolve_policy(struct cgoom_snapshot *s, int i, const struct cgoom_cgroup_conf *conf,
			  const struct cgoom_setting *inherited)
{
	struct cgoom_cgroup *c = &s->cgroups[i];
	const struct cgoom_raw_settings *raw = &c->raw;
	int r = 0;

	c->policy = *inherited;
	if (raw->has_trusted_policy) {
		if (i == 0 && raw->trusted_policy == CGOOM_POLICY_TREE)
			r = cgoom_snapshot_note(s, "/: trusted.cgoom.oom_policy=tree ignored: "
						   "tree is not allowed on the root cgroup");
		else {
			c->policy = explicit_here(raw->trusted_policy, CGOOM_SRC_TRUSTED_XATTR, i);
			return 0;
		}
	}
	if (conf && conf->has_policy) {
		/* the config parser already refuses tree on "/" */
		c->policy = explicit_here(conf->policy, CGOOM_SRC_CONFIG, i);
		return r;
	}
	if (raw->has_user_policy && c->delegated) {
		/* a delegatee chooses how its own subtree is judged */
		c->policy = explicit_here(raw->user_policy, CGOOM_SRC_USER_XATTR, i);
		return r;
	}
	return r;
}

static int resolve_pref(struct cgoom_snapshot *s, int i, const struct cgoom_cgroup_conf *conf,
			const struct cgoom_setting *inherited)
{
	struct cgoom_cgroup *c = &s->cgroups[i];
	const struct cgoom_raw_settings *raw = &c->raw;

	c->pref = *inherited;
	/* omit is absolute: nothing below an omit cgroup undoes it */
	if (inherited->value == CGOOM_PREF_OMIT)
		return 0;
	if (raw->has_trusted_pref) {
		c->pref = explicit_here(raw->trusted_pref, CGOOM_SRC_TRUSTED_XATTR, i);
		return 0;
	}
	if (conf && conf->has_pref) {
		c->pref = explicit_here(conf->pref, CGOOM_SRC_CONFIG, i);
		return 0;
	}
	if (raw->oomd_omit || raw->oomd_avoid) {
		if (raw->owner_is_root) {
			c->pref = explicit_here(raw->oomd_omit ? CGOOM_PREF_OMIT : CGOOM_PREF_AVOID,
						CGOOM_SRC_SYSTEMD, i);
			return 0;
		}
		int r = cgoom_snapshot_note(s, "%s: user.oomd_%s ignored: directory not owned by root",
					    c->path, raw->oomd_omit ? "omit" : "avoid");
		if (r < 0)
			return r;
	}
	if (raw->has_user_pref && c->delegated) {
		/* a delegatee may only make itself more killable */
		if (raw->user_pref == CGOOM_PREF_OMIT || raw->user_pref == CGOOM_PREF_AVOID)
			return cgoom_snapshot_note(s, "%s: user.cgoom.preference=%s ignored: a delegated "
						      "cgroup may not protect itself",
						   c->path, cgoom_pref_name(raw->user_pref));
		if (raw->user_pref > (enum cgoom_pref)inherited->value)
			c->pref = explicit_here(raw->user_pref, CGOOM_SRC_USER_XATTR, i);
	}
	return 0;
}

static int resolve_bias(struct cgoom_snapshot *s, int i, const struct cgoom_cgroup_conf *conf,
			const struct cgoom_setting *inherited)
{
	struct cgoom_cgroup *c = &s->cgroups[i];
	const struct cgoom_raw_settings *raw = &c->raw;

	c->bias = *inherited;
	if (raw->has_trusted_bias) {
		c->bias = explicit_here(raw->trusted_bias, CGOOM_SRC_TRUSTED_XATTR, i);
		return 0;
	}
	if (conf && conf->has_bias) {
		c->bias = explicit_here(conf->bias, CGOOM_SRC_CONFIG, i);
		return 0;
	}
	if (raw->has_user_bias && c->delegated) {
		if (raw->user_bias < 0)
			return cgoom_snapshot_note(s, "%s: user.cgoom.bias=%d ignored: a delegated cgroup "
						      "may not lower its own score",
						   c->path, raw->user_bias);
		if (raw->user_bias > inherited->value)
			c->bias = explicit_here(raw->user_bias, CGOOM_SRC_USER_XATTR, i);
	}
	return 0;
}

static bool has_user_xattrs(const struct cgoom_raw_settings *raw)
{
	return raw->has_user_policy || raw->has_user_pref || raw->has_user_bias;
}

int cgoom_settings_resolve(struct cgoom_snapshot *s, const struct cgoom_config *cfg)
{
	if (!s->preorder)
		return -EINVAL;
	const struct cgoom_setting def_policy = { CGOOM_POLICY_NONE, CGOOM_SRC_DEFAULT, -1 };
	const struct cgoom_setting def_pref = { CGOOM_PREF_NONE, CGOOM_SRC_DEFAULT, -1 };
	const struct cgoom_setting def_bias = { 0, CGOOM_SRC_DEFAULT, -1 };

	for (size_t k = 0; k < s->n_cgroups; k++) {
		int i = s->preorder[k];
		struct cgoom_cgroup *c = &s->cgroups[i];
		const struct cgoom_cgroup *p = c->parent >= 0 ? &s->cgroups[c->parent] : NULL;
		const struct cgoom_cgroup_conf *conf = cfg ? cgoom_config_find(cfg, c->path) : NULL;

		/* strictly inside a subtree marked delegate = yes: the nearest
		 * strict ancestor with an explicit delegate setting decides */
		c->delegated = false;
		if (p) {
			const struct cgoom_cgroup_conf *pconf = cfg ? cgoom_config_find(cfg, p->path) : NULL;
			c->delegated = pconf && pconf->has_delegate ? pconf->delegate : p->delegated;
		}
		if (has_user_xattrs(&c->raw) && !c->delegated) {
			int r = cgoom_snapshot_note(s, "%s: user.cgoom.* ignored: not inside a delegated subtree",
						    c->path);
			if (r < 0)
				return r;
		}

		int r = resolve_policy(s, i, conf, p ? &p->policy : &def_policy);
		if (r >= 0)
			r = resolve_pref(s, i, conf, p ? &p->pref : &def_pref);
		if (r >= 0)
			r = resolve_bias(s, i, conf, p ? &p->bias : &def_bias);
		if (r < 0)
			return r;
	}
	return 0;
}
