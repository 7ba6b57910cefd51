/* SPDX-License-Identifier: MIT */
#pragma once

#include <stdbool.h>
#include <stddef.h>

/* The oom_policy values, each implemented by one src/lib/policy-*.c
 * behind struct cgoom_policy_ops (select.h); names come from there. */
enum cgoom_policy {
	CGOOM_POLICY_NONE = 0,
	CGOOM_POLICY_CGROUP = 1,
	CGOOM_POLICY_TREE = 2,
	CGOOM_POLICY_MAX,
};

/* Ordered by killability: a higher value is killed first. */
enum cgoom_pref {
	CGOOM_PREF_OMIT = 0,
	CGOOM_PREF_AVOID = 1,
	CGOOM_PREF_NONE = 2,
	CGOOM_PREF_PREFER = 3,
};

#define CGOOM_BIAS_MIN (-1000)
#define CGOOM_BIAS_MAX 1000

/* Where an effective setting came from (SPEC 7, highest first). */
enum cgoom_source {
	CGOOM_SRC_DEFAULT = 0,   /* nothing set anywhere up the tree */
	CGOOM_SRC_TRUSTED_XATTR, /* trusted.cgoom.* */
	CGOOM_SRC_CONFIG,        /* [cgroup "..."] in the config file */
	CGOOM_SRC_SYSTEMD,       /* user.oomd_avoid / user.oomd_omit */
	CGOOM_SRC_USER_XATTR,    /* user.cgoom.* inside a delegated subtree */
};

/* Names as used in the CLI, config and JSON. NULL for out-of-range. */
const char *cgoom_policy_name(enum cgoom_policy p);
const char *cgoom_pref_name(enum cgoom_pref p);
const char *cgoom_source_name(enum cgoom_source s);

/* "none, cgroup or tree": every policy name, for messages. */
const char *cgoom_policy_name_list(void);

/* Exact, case-sensitive names, with an optional trailing '\n' or NUL
 * (xattr values written by `setfattr` or `echo`). -EINVAL otherwise. */
int cgoom_policy_from_string(const char *buf, size_t len, enum cgoom_policy *ret);
int cgoom_pref_from_string(const char *buf, size_t len, enum cgoom_pref *ret);
