/* SPDX-License-Identifier: MIT */
#pragma once

/*
 * Settings resolution (SPEC 3, 7): a pure stage from (snapshot, config)
 * to the effective settings of every cgroup, kept in their own
 * structure; the snapshot is only read. Ranking, planning, deciding and
 * rendering take the result explicitly.
 */

#include <stdbool.h>
#include <stddef.h>

#include "cgoom/config.h"
#include "cgoom/snapshot.h"
#include "cgoom/types.h"

struct cgoom_setting {
	int value;                /* enum cgoom_policy / cgoom_pref, or the bias */
	enum cgoom_source source; /* of the value in force */
	int origin;               /* cgroup index it was set on; -1 = default */
	/* source CGOOM_SRC_CONFIG: the [cgroup "..."] section that set it, as
	 * a 1-based index into the settings' sections (0: none), and the
	 * line of the key */
	int section, line;
};

/* Why a cgroup is a delegation root (SPEC 7; SPEC 4 "unattributed
 * charge"): where a user may move processes, so park charge. */
enum cgoom_deleg_root {
	CGOOM_DELEG_ROOT_NO = 0,
	CGOOM_DELEG_ROOT_CONFIG, /* its config section says delegate = yes */
	CGOOM_DELEG_ROOT_OWNER,  /* the topmost cgroup whose cgroup.procs a user owns */
};

/* The effective settings of one cgroup. */
struct cgoom_cgroup_settings {
	struct cgoom_setting policy, pref, bias;
	bool delegated; /* strictly inside a delegate = yes subtree */
	enum cgoom_deleg_root deleg_root;
};

struct cgoom_settings {
	/* indexed like the snapshot's cgroups */
	struct cgoom_cgroup_settings *cgroups;
	size_t n_cgroups;

	/* Paths (or patterns) of the config sections settings came from,
	 * copied so that a decision or an explanation never points into a
	 * config reloaded since (owned). */
	char **sections;
	size_t n_sections;

	/* Values the resolver ignored, for the explanation: "/: trusted.
	 * cgoom.oom_policy=tree ignored: ..." (owned). They are rendered
	 * after the first notes_at notes of the snapshot (those it had when
	 * resolved), before what a later lazy fill noted: in the order
	 * things happened. */
	char **notes;
	size_t n_notes;
	size_t notes_at;
};

void cgoom_settings_init(struct cgoom_settings *set);
void cgoom_settings_free(struct cgoom_settings *set); /* NULL-safe, idempotent */

/* Fills *ret (freeing what it held) with the policy, pref, bias,
 * delegated and deleg_root of every cgroup of s (finalized), from the raw settings and
 * the config, with precedence
 *   trusted xattr > config > systemd user.oomd_* (root-owned dir)
 *   > user.cgoom xattr (strictly inside a delegate = yes subtree, and
 *     only where it makes the cgroup more killable) > inherited > default,
 * and omit absolute downwards. Values it ignores are recorded as notes
 * in *ret (tree on "/", a delegatee's avoid/omit/negative bias).
 * cfg may be NULL (no config). -EINVAL if s is not finalized, -ENOMEM;
 * on error *ret is left empty. */
int cgoom_settings_resolve(const struct cgoom_snapshot *s, const struct cgoom_config *cfg,
			   struct cgoom_settings *ret);
