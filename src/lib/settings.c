/* SPDX-License-Identifier: MIT */
/*
 * Effective settings (SPEC 3 and 7). Pre-order, so every parent is
 * resolved before its children: a cgroup's value is its own explicit one
 * by precedence, else its parent's (dynamic inheritance: the nearest
 * explicit ancestor decides). Two passes: preference and bias first,
 * then policy, because whether a delegatee's `tree` stands depends on
 * the preferences and biases inside it.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cgoom/select.h"
#include "cgoom/settings.h"
#include "notes-internal.h"

struct resolver {
	const struct cgoom_snapshot *s;
	const struct cgoom_config *cfg;
	struct cgoom_settings *set;
	struct cgoom_conf_match *match; /* per cgroup */
	int *section_of;                /* per config section: 1-based index into set->sections */
};

void cgoom_settings_init(struct cgoom_settings *set)
{
	memset(set, 0, sizeof(*set));
}

void cgoom_settings_free(struct cgoom_settings *set)
{
	if (!set)
		return;
	free(set->cgroups);
	for (size_t i = 0; i < set->n_sections; i++)
		free(set->sections[i]);
	free(set->sections);
	for (size_t i = 0; i < set->n_notes; i++)
		free(set->notes[i]);
	free(set->notes);
	memset(set, 0, sizeof(*set));
}

/* Appends a note (printf-style); -ENOMEM. */
__attribute__((format(printf, 2, 3))) static int note(struct cgoom_settings *set, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int r = cgoom_notes_vadd(&set->notes, &set->n_notes, fmt, ap);
	va_end(ap);
	return r;
}

static struct cgoom_setting explicit_here(int value, enum cgoom_source src, int i)
{
	return (struct cgoom_setting){ .value = value, .source = src, .origin = i };
}

/* The settings' own copy of a section path, so explanations outlive a
 * config reload. Returns its 1-based index, or -ENOMEM. */
static int intern_section(struct resolver *rv, const struct cgoom_cgroup_conf *g)
{
	struct cgoom_settings *set = rv->set;
	size_t k = (size_t)(g - rv->cfg->cgroups);

	if (rv->section_of[k])
		return rv->section_of[k];
	char **n = realloc(set->sections, (set->n_sections + 1) * sizeof(*n));
	if (!n)
		return -ENOMEM;
	set->sections = n;
	n[set->n_sections] = strdup(g->path);
	if (!n[set->n_sections])
		return -ENOMEM;
	rv->section_of[k] = (int)++set->n_sections;
	return rv->section_of[k];
}

/* ret = value set on cgroup i by the section deciding key k. */
static int from_config(struct resolver *rv, int i, enum cgoom_conf_key k, int value,
		       struct cgoom_setting *ret)
{
	const struct cgoom_cgroup_conf *g = rv->match[i].by_key[k];
	int sec = intern_section(rv, g);

	if (sec < 0)
		return sec;
	*ret = explicit_here(value, CGOOM_SRC_CONFIG, i);
	ret->section = sec;
	ret->line = cgoom_conf_line(g, k);
	return 0;
}

/* Sources a delegatee ranks below (SPEC 7 precedence). */
static bool more_trusted_than_user(enum cgoom_source src)
{
	return src == CGOOM_SRC_TRUSTED_XATTR || src == CGOOM_SRC_CONFIG || src == CGOOM_SRC_SYSTEMD;
}

/* A setting of member y that originates strictly inside x's subtree
 * from a source more trusted than the delegatee. */
static bool trusted_inside(const struct cgoom_snapshot *s, const struct cgoom_setting *st, int x)
{
	return more_trusted_than_user(st->source) && st->origin >= 0 &&
	       s->cgroups[st->origin].depth > s->cgroups[x].depth;
}

/* SPEC 7: a delegatee's tree on x may not hide a more trusted setting
 * inside x that makes a member more killable than the tree entity would
 * be: a higher tier, or in the same tier a higher bias. Returns such a
 * memcg and which setting (*ret_bias), or -1. Needs preference and bias
 * resolved for the whole subtree. */
static int hidden_by_tree(const struct cgoom_snapshot *s, const struct cgoom_settings *set, int x,
			  bool *ret_bias)
{
	const struct cgoom_cgroup *cx = &s->cgroups[x];
	const struct cgoom_cgroup_settings *sx = &set->cgroups[x];

	for (size_t k = (size_t)s->prepos[x] + 1; k < s->n_cgroups; k++) {
		int y = s->preorder[k];
		const struct cgoom_cgroup *cy = &s->cgroups[y];
		const struct cgoom_cgroup_settings *sy = &set->cgroups[y];
		if (cy->depth <= cx->depth)
			break; /* left x's subtree */
		if (cy->memcg != y)
			continue; /* not a memcg: never an entity */
		if (sy->pref.value > sx->pref.value && trusted_inside(s, &sy->pref, x)) {
			*ret_bias = false;
			return y;
		}
		if (sy->pref.value == sx->pref.value && sy->bias.value > sx->bias.value &&
		    trusted_inside(s, &sy->bias, x)) {
			*ret_bias = true;
			return y;
		}
	}
	return -1;
}

static int resolve_policy(struct resolver *rv, int i, const struct cgoom_setting *inherited)
{
	const struct cgoom_snapshot *s = rv->s;
	const struct cgoom_cgroup *cg = &s->cgroups[i];
	struct cgoom_cgroup_settings *c = &rv->set->cgroups[i];
	const struct cgoom_raw_settings *raw = &cg->raw;
	const struct cgoom_cgroup_conf *g = rv->match[i].by_key[CGOOM_CONF_POLICY];
	int r = 0;

	c->policy = *inherited;
	if (raw->has_trusted_policy) {
		const struct cgoom_policy_ops *ops = cgoom_policy_ops(raw->trusted_policy);
		if (i == 0 && ops && !ops->on_root)
			r = note(rv->set, "/: trusted.cgoom.oom_policy=%s ignored: "
					  "%s is not allowed on the root cgroup",
				 ops->name, ops->name);
		else {
			c->policy = explicit_here(raw->trusted_policy, CGOOM_SRC_TRUSTED_XATTR, i);
			return 0;
		}
	}
	if (r < 0)
		return r;
	if (g) /* the config parser refuses on "/" what may not be the root's policy
		* (ops->on_root), and no pattern matches "/" */
		return from_config(rv, i, CGOOM_CONF_POLICY, g->policy, &c->policy);
	if (!raw->has_user_policy || !c->delegated)
		return 0;
	/* a delegatee chooses how its own subtree is judged, but a tree
	 * may not shield what a more trusted source marked inside it (an
	 * inherited tree already groups everything below: nothing to add) */
	if (raw->user_policy == CGOOM_POLICY_TREE && inherited->value != CGOOM_POLICY_TREE) {
		bool is_bias = false;
		int y = hidden_by_tree(s, rv->set, i, &is_bias);
		if (y >= 0) {
			const struct cgoom_cgroup_settings *sy = &rv->set->cgroups[y];
			const struct cgoom_setting *st = is_bias ? &sy->bias : &sy->pref;
			if (is_bias)
				return note(
					rv->set, "%s: user.cgoom.oom_policy=tree ignored: it would hide bias=%d of %s "
						 "(set on %s by %s), above the tree's %d",
					cg->path, st->value, s->cgroups[y].path, s->cgroups[st->origin].path,
					cgoom_source_name(st->source), c->bias.value);
			return note(
				rv->set, "%s: user.cgoom.oom_policy=tree ignored: it would hide preference=%s of %s "
					 "(set on %s by %s), above the tree's %s",
				cg->path, cgoom_pref_name((enum cgoom_pref)st->value), s->cgroups[y].path,
				s->cgroups[st->origin].path, cgoom_source_name(st->source),
				cgoom_pref_name((enum cgoom_pref)c->pref.value));
		}
	}
	c->policy = explicit_here(raw->user_policy, CGOOM_SRC_USER_XATTR, i);
	return 0;
}

static int resolve_pref(struct resolver *rv, int i, const struct cgoom_setting *inherited)
{
	const struct cgoom_cgroup *cg = &rv->s->cgroups[i];
	struct cgoom_cgroup_settings *c = &rv->set->cgroups[i];
	const struct cgoom_raw_settings *raw = &cg->raw;
	const struct cgoom_cgroup_conf *g = rv->match[i].by_key[CGOOM_CONF_PREF];

	c->pref = *inherited;
	/* omit is absolute: nothing below an omit cgroup undoes it */
	if (inherited->value == CGOOM_PREF_OMIT)
		return 0;
	if (raw->has_trusted_pref) {
		c->pref = explicit_here(raw->trusted_pref, CGOOM_SRC_TRUSTED_XATTR, i);
		return 0;
	}
	if (g)
		return from_config(rv, i, CGOOM_CONF_PREF, g->pref, &c->pref);
	if (raw->oomd_omit || raw->oomd_avoid) {
		if (raw->owner_is_root) {
			c->pref = explicit_here(raw->oomd_omit ? CGOOM_PREF_OMIT : CGOOM_PREF_AVOID,
						CGOOM_SRC_SYSTEMD, i);
			return 0;
		}
		int r = note(rv->set, "%s: user.oomd_%s ignored: directory not owned by root", cg->path,
			     raw->oomd_omit ? "omit" : "avoid");
		if (r < 0)
			return r;
	}
	if (raw->has_user_pref && c->delegated) {
		/* a delegatee's preference moves only towards prefer */
		if (raw->user_pref > (enum cgoom_pref)inherited->value)
			c->pref = explicit_here(raw->user_pref, CGOOM_SRC_USER_XATTR, i);
		else
			return note(rv->set, "%s: user.cgoom.preference=%s ignored: a delegated "
					     "cgroup may not protect itself (inherited %s)",
				    cg->path, cgoom_pref_name(raw->user_pref),
						   cgoom_pref_name((enum cgoom_pref)inherited->value));
	}
	return 0;
}

static int resolve_bias(struct resolver *rv, int i, const struct cgoom_setting *inherited)
{
	const struct cgoom_cgroup *cg = &rv->s->cgroups[i];
	struct cgoom_cgroup_settings *c = &rv->set->cgroups[i];
	const struct cgoom_raw_settings *raw = &cg->raw;
	const struct cgoom_cgroup_conf *g = rv->match[i].by_key[CGOOM_CONF_BIAS];

	c->bias = *inherited;
	if (raw->has_trusted_bias) {
		c->bias = explicit_here(raw->trusted_bias, CGOOM_SRC_TRUSTED_XATTR, i);
		return 0;
	}
	if (g)
		return from_config(rv, i, CGOOM_CONF_BIAS, g->bias, &c->bias);
	if (raw->has_user_bias && c->delegated) {
		/* bias = max(inherited, delegatee's) */
		if (raw->user_bias > inherited->value)
			c->bias = explicit_here(raw->user_bias, CGOOM_SRC_USER_XATTR, i);
		else
			return note(rv->set, "%s: user.cgoom.bias=%d ignored: a delegated cgroup "
					     "may not lower its own score (inherited %d)",
				    cg->path, raw->user_bias, inherited->value);
	}
	return 0;
}

static bool has_user_xattrs(const struct cgoom_raw_settings *raw)
{
	return raw->has_user_policy || raw->has_user_pref || raw->has_user_bias;
}

/* Pass 1: delegation, preference, bias. */
static int resolve_prefs(struct resolver *rv)
{
	const struct cgoom_snapshot *s = rv->s;
	const struct cgoom_setting def_pref = { CGOOM_PREF_NONE, CGOOM_SRC_DEFAULT, -1, 0, 0 };
	const struct cgoom_setting def_bias = { 0, CGOOM_SRC_DEFAULT, -1, 0, 0 };

	for (size_t k = 0; k < s->n_cgroups; k++) {
		int i = s->preorder[k];
		const struct cgoom_cgroup *cg = &s->cgroups[i];
		struct cgoom_cgroup_settings *c = &rv->set->cgroups[i];
		const struct cgoom_cgroup_settings *p = cg->parent >= 0 ? &rv->set->cgroups[cg->parent] : NULL;

		cgoom_config_match(rv->cfg, cg->path, &rv->match[i]);
		/* strictly inside a subtree marked delegate = yes: the nearest
		 * strict ancestor with an explicit delegate setting decides */
		c->delegated = false;
		if (p) {
			const struct cgoom_cgroup_conf *pd = rv->match[cg->parent].by_key[CGOOM_CONF_DELEGATE];
			c->delegated = pd ? pd->delegate : p->delegated;
		}
		/* SPEC 7: delegation roots, for SPEC 4's unattributed charge (the
		 * reader marks only the topmost user-owned cgroup.procs) */
		const struct cgoom_cgroup_conf *dg = rv->match[i].by_key[CGOOM_CONF_DELEGATE];
		c->deleg_root = dg && dg->delegate      ? CGOOM_DELEG_ROOT_CONFIG
				: cg->raw.procs_user_owned ? CGOOM_DELEG_ROOT_OWNER
							   : CGOOM_DELEG_ROOT_NO;
		if (has_user_xattrs(&cg->raw) && !c->delegated) {
			int r = note(rv->set, "%s: user.cgoom.* ignored: not inside a delegated subtree",
				     cg->path);
			if (r < 0)
				return r;
		}
		int r = resolve_pref(rv, i, p ? &p->pref : &def_pref);
		if (r >= 0)
			r = resolve_bias(rv, i, p ? &p->bias : &def_bias);
		if (r < 0)
			return r;
	}
	return 0;
}

/* A preference or bias made on a memcg inside another's tree entity
 * (oom_policy tree on an ancestor, the outermost: SPEC 4) ranks nothing:
 * the entity is ranked with its top's settings. Said as a note, as
 * cgoom.conf(5) promises for every setting ignored. */
static int note_in_tree(struct resolver *rv, int i)
{
	const struct cgoom_snapshot *s = rv->s;
	int top = -1;
	for (int a = s->cgroups[i].parent; a >= 0; a = s->cgroups[a].parent)
		if (s->cgroups[a].memcg == a && rv->set->cgroups[a].policy.value == CGOOM_POLICY_TREE)
			top = a;
	if (top < 0)
		return 0;
	const struct cgoom_cgroup_settings *cs = &rv->set->cgroups[i];
	const char *tp = s->cgroups[top].path, *path = s->cgroups[i].path;
	int r = 0;
	if (cs->pref.origin == i && cs->pref.source != CGOOM_SRC_DEFAULT && cs->pref.value != CGOOM_PREF_OMIT)
		r = note(rv->set, "%s: preference %s (%s) has no effect: it is inside %s's tree entity "
			 "(oom_policy tree), ranked with %s's preference", path,
			 cgoom_pref_name(cs->pref.value), cgoom_source_name(cs->pref.source), tp, tp);
	if (r >= 0 && cs->bias.origin == i && cs->bias.source != CGOOM_SRC_DEFAULT)
		r = note(rv->set, "%s: bias %d (%s) has no effect: it is inside %s's tree entity "
			 "(oom_policy tree), ranked with %s's bias", path, cs->bias.value,
			 cgoom_source_name(cs->bias.source), tp, tp);
	return r;
}

/* A setting made on a cgroup without the memory controller (a child a
 * Delegate=yes unit or a container runtime left without +memory): its
 * processes are charged to its nearest memcg and, under policy cgroup and
 * tree, ranked in that memcg's entity with that memcg's preference and
 * bias; only policy none reads a process's own cgroup's (and omit keeps
 * its processes out under every policy). An oom_policy there governs
 * nothing. Said as notes: silent, an operator's `avoid` there did not
 * save the process it was set for. */
static int note_non_memcg(struct resolver *rv)
{
	const struct cgoom_snapshot *s = rv->s;
	for (size_t i = 0; i < s->n_cgroups; i++) {
		const struct cgoom_cgroup *c = &s->cgroups[i];
		int m = c->memcg;
		if (m == (int)i) {
			int r = note_in_tree(rv, (int)i);
			if (r < 0)
				return r;
			continue;
		}
		if (m < 0)
			continue;
		const struct cgoom_cgroup_settings *cs = &rv->set->cgroups[i];
		const char *mp = s->cgroups[m].path;
		int r = 0;
		if (cs->policy.origin == (int)i && cs->policy.source != CGOOM_SRC_DEFAULT)
			r = note(rv->set, "%s: oom_policy %s (%s) has no effect: it has no memory controller "
				 "(its processes are charged to %s, whose policy counts)", c->path,
				 cgoom_policy_name(cs->policy.value), cgoom_source_name(cs->policy.source), mp);
		enum cgoom_policy mpol = rv->set->cgroups[m].policy.value;
		if (r >= 0 && mpol != CGOOM_POLICY_NONE && cs->pref.origin == (int)i &&
		    cs->pref.source != CGOOM_SRC_DEFAULT && cs->pref.value != CGOOM_PREF_OMIT)
			r = note(rv->set, "%s: preference %s (%s) counts only under policy none: it has no "
				 "memory controller, so under policy %s its processes are ranked in %s's "
				 "entity, with %s's preference", c->path, cgoom_pref_name(cs->pref.value),
				 cgoom_source_name(cs->pref.source), cgoom_policy_name(mpol), mp, mp);
		if (r >= 0 && mpol != CGOOM_POLICY_NONE && cs->bias.origin == (int)i &&
		    cs->bias.source != CGOOM_SRC_DEFAULT)
			r = note(rv->set, "%s: bias %d (%s) counts only under policy none: it has no memory "
				 "controller, so under policy %s its processes are ranked in %s's entity, "
				 "with %s's bias", c->path, cs->bias.value, cgoom_source_name(cs->bias.source),
				 cgoom_policy_name(mpol), mp, mp);
		if (r < 0)
			return r;
	}
	return 0;
}

int cgoom_settings_resolve(const struct cgoom_snapshot *s, const struct cgoom_config *cfg,
			   struct cgoom_settings *ret)
{
	const struct cgoom_setting def_policy = { CGOOM_POLICY_NONE, CGOOM_SRC_DEFAULT, -1, 0, 0 };
	struct resolver rv = { .s = s, .cfg = cfg, .set = ret };
	int r = 0;

	/* resolving again (a new config) starts afresh */
	cgoom_settings_free(ret);
	if (!s->preorder || !s->prepos)
		return -EINVAL;
	ret->notes_at = s->n_notes;
	ret->cgroups = calloc(s->n_cgroups ? s->n_cgroups : 1, sizeof(*ret->cgroups));
	rv.match = calloc(s->n_cgroups ? s->n_cgroups : 1, sizeof(*rv.match));
	rv.section_of = calloc(cfg && cfg->n_cgroups ? cfg->n_cgroups : 1, sizeof(*rv.section_of));
	if (!ret->cgroups || !rv.match || !rv.section_of) {
		r = -ENOMEM;
		goto out;
	}
	ret->n_cgroups = s->n_cgroups;
	r = resolve_prefs(&rv);
	for (size_t k = 0; r >= 0 && k < s->n_cgroups; k++) {
		int i = s->preorder[k];
		const struct cgoom_cgroup *c = &s->cgroups[i];
		r = resolve_policy(&rv, i, c->parent >= 0 ? &ret->cgroups[c->parent].policy : &def_policy);
	}
	if (r >= 0)
		r = note_non_memcg(&rv);
out:
	free(rv.match);
	free(rv.section_of);
	if (r < 0)
		cgoom_settings_free(ret);
	return r < 0 ? r : 0;
}
