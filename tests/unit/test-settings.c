/* SPDX-License-Identifier: MIT */
/* Settings resolution (SPEC 3, 7): inheritance, precedence, omit, delegation, systemd xattrs; snapshot duplicates. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "snapbuild.h"
#include "tap.h"

static void test_inherited_policy(void)
{
	/* /cg3 inherits cgroup from / (nearest explicit ancestor) */
	struct cgoom_snapshot s;
	seed_table(&s);
	struct cgoom_config c = cfg_of("[cgroup \"/\"]\noom_policy = cgroup\n");
	sb_done(&s, &c);
	int i = sb_idx(&s, "/cg3/cg31");
	CHECK_EQ_INT(sb_set.cgroups[i].policy.value, CGOOM_POLICY_CGROUP);
	CHECK_EQ_INT(sb_set.cgroups[i].policy.origin, 0);
	CHECK_EQ_INT(sb_set.cgroups[i].policy.source, CGOOM_SRC_CONFIG);
	struct cgoom_decision d = sb_select(&s, "/cg3");
	CHECK_EQ_INT(d.policy, CGOOM_POLICY_CGROUP);
	cgoom_decision_free(&d);
	cgoom_config_free(&c);
	cgoom_snapshot_free(&s);
}

static void test_omit_is_absolute(void)
{
	struct cgoom_snapshot s;
	sb_init(&s, 0);
	sb_cg(&s, "/sys", 900);
	sb_cg(&s, "/sys/x", 900);
	sb_cg(&s, "/other", 10);
	sb_proc(&s, 10, "/sys/x", 900, 0);
	sb_proc(&s, 11, "/other", 10, 0);
	s.cgroups[sb_idx(&s, "/sys/x")].raw.has_trusted_pref = true;
	s.cgroups[sb_idx(&s, "/sys/x")].raw.trusted_pref = CGOOM_PREF_PREFER;
	struct cgoom_config c = cfg_of("[cgroup \"/\"]\noom_policy = cgroup\n"
				       "[cgroup \"/sys\"]\npreference = omit\n");
	sb_done(&s, &c);
	CHECK_EQ_INT(sb_set.cgroups[sb_idx(&s, "/sys/x")].pref.value, CGOOM_PREF_OMIT);
	struct cgoom_decision d = sb_select(&s, "/");
	CHECK_EQ_INT(d.victim_pid, 11);
	cgoom_decision_free(&d);
	cgoom_config_free(&c);
	cgoom_snapshot_free(&s);
}

static void test_delegation(void)
{
	struct cgoom_snapshot s;
	sb_init(&s, 0);
	int users = sb_cg(&s, "/users", 600);
	int u1 = sb_cg(&s, "/users/u1", 100);
	int u2 = sb_cg(&s, "/users/u2", 300);
	int u3 = sb_cg(&s, "/users/u3", 200);
	int other = sb_cg(&s, "/other", 50);
	sb_proc(&s, 10, "/users/u1", 100, 0);
	sb_proc(&s, 11, "/users/u2", 300, 0);
	sb_proc(&s, 12, "/users/u3", 200, 0);
	sb_proc(&s, 13, "/other", 50, 0);
	s.cgroups[u1].raw.has_user_pref = true;
	s.cgroups[u1].raw.user_pref = CGOOM_PREF_PREFER; /* honoured */
	s.cgroups[u2].raw.has_user_pref = true;
	s.cgroups[u2].raw.user_pref = CGOOM_PREF_OMIT; /* ignored */
	s.cgroups[u3].raw.has_user_bias = true;
	s.cgroups[u3].raw.user_bias = -500; /* ignored */
	s.cgroups[users].raw.has_user_pref = true;
	s.cgroups[users].raw.user_pref = CGOOM_PREF_AVOID; /* not strictly inside: ignored */
	s.cgroups[other].raw.has_user_pref = true;
	s.cgroups[other].raw.user_pref = CGOOM_PREF_PREFER; /* not delegated: ignored */
	struct cgoom_config c = cfg_of("[cgroup \"/\"]\noom_policy = cgroup\n"
				       "[cgroup \"/users\"]\ndelegate = yes\n");
	sb_done(&s, &c);
	CHECK(!sb_set.cgroups[users].delegated);
	CHECK(sb_set.cgroups[u1].delegated);
	CHECK_EQ_INT(sb_set.cgroups[u1].pref.value, CGOOM_PREF_PREFER);
	CHECK_EQ_INT(sb_set.cgroups[u2].pref.value, CGOOM_PREF_NONE);
	CHECK_EQ_INT(sb_set.cgroups[u3].bias.value, 0);
	CHECK_EQ_INT(sb_set.cgroups[users].pref.value, CGOOM_PREF_NONE);
	CHECK_EQ_INT(sb_set.cgroups[other].pref.value, CGOOM_PREF_NONE);
	CHECK(sb_set.n_notes >= 4);
	struct cgoom_decision d = sb_select(&s, "/");
	CHECK_EQ_INT(d.victim_pid, 10);
	cgoom_decision_free(&d);
	cgoom_config_free(&c);
	cgoom_snapshot_free(&s);
}

/* SPEC 7: delegation roots are delegate = yes sections (patterns too)
 * and the cgroups the reader marks as the topmost with a user-owned
 * cgroup.procs; ownership grants no user.cgoom.* settings. */
static void test_deleg_roots(void)
{
	struct cgoom_snapshot s;
	sb_init(&s, 0);
	int users = sb_cg(&s, "/users", 0);
	int u1 = sb_cg(&s, "/users/u1", 0);
	int pods = sb_cg(&s, "/pods", 0);
	int p1 = sb_cg(&s, "/pods/p1", 0);
	int home = sb_cg(&s, "/home", 0);
	int off = sb_cg(&s, "/off", 0);
	s.cgroups[home].raw.procs_user_owned = true;
	s.cgroups[home].raw.has_user_pref = true;
	s.cgroups[home].raw.user_pref = CGOOM_PREF_PREFER; /* not delegated: ignored */
	s.cgroups[off].raw.procs_user_owned = true;
	struct cgoom_config c = cfg_of("[cgroup \"/users\"]\ndelegate = yes\n"
				       "[cgroup \"/pods/*\"]\ndelegate = yes\n"
				       "[cgroup \"/off\"]\ndelegate = no\n");
	sb_done(&s, &c);
	CHECK_EQ_INT(sb_set.cgroups[0].deleg_root, CGOOM_DELEG_ROOT_NO);
	CHECK_EQ_INT(sb_set.cgroups[users].deleg_root, CGOOM_DELEG_ROOT_CONFIG);
	CHECK_EQ_INT(sb_set.cgroups[u1].deleg_root, CGOOM_DELEG_ROOT_NO);
	CHECK_EQ_INT(sb_set.cgroups[pods].deleg_root, CGOOM_DELEG_ROOT_NO);
	CHECK_EQ_INT(sb_set.cgroups[p1].deleg_root, CGOOM_DELEG_ROOT_CONFIG);
	CHECK_EQ_INT(sb_set.cgroups[home].deleg_root, CGOOM_DELEG_ROOT_OWNER);
	CHECK(!sb_set.cgroups[home].delegated);
	CHECK_EQ_INT(sb_set.cgroups[home].pref.value, CGOOM_PREF_NONE);
	/* delegate = no turns off what the config grants, not what owning
	 * cgroup.procs makes possible */
	CHECK_EQ_INT(sb_set.cgroups[off].deleg_root, CGOOM_DELEG_ROOT_OWNER);
	cgoom_config_free(&c);
	cgoom_snapshot_free(&s);
}

static void test_delegatee_bias_max(void)
{
	struct cgoom_snapshot s;
	sb_init(&s, 0);
	sb_cg(&s, "/users", 600);
	int u1 = sb_cg(&s, "/users/u1", 100);
	int u2 = sb_cg(&s, "/users/u2", 100);
	s.cgroups[u1].raw.has_user_bias = true;
	s.cgroups[u1].raw.user_bias = 50;
	s.cgroups[u2].raw.has_user_bias = true;
	s.cgroups[u2].raw.user_bias = 5; /* below the inherited 20: no effect */
	struct cgoom_config c = cfg_of("[cgroup \"/users\"]\ndelegate = yes\nbias = 20\n");
	sb_done(&s, &c);
	CHECK_EQ_INT(sb_set.cgroups[u1].bias.value, 50);
	CHECK_EQ_INT(sb_set.cgroups[u1].bias.source, CGOOM_SRC_USER_XATTR);
	CHECK_EQ_INT(sb_set.cgroups[u2].bias.value, 20);
	cgoom_config_free(&c);
	cgoom_snapshot_free(&s);
}

static void test_systemd_xattrs(void)
{
	struct cgoom_snapshot s;
	sb_init(&s, 0);
	int a = sb_cg(&s, "/a.slice", 900);
	int b = sb_cg(&s, "/b.slice", 800);
	int c2 = sb_cg(&s, "/c.slice", 100);
	sb_proc(&s, 10, "/a.slice", 900, 0);
	sb_proc(&s, 11, "/b.slice", 800, 0);
	sb_proc(&s, 12, "/c.slice", 100, 0);
	s.cgroups[a].raw.oomd_omit = true;
	s.cgroups[a].raw.owner_is_root = true;
	s.cgroups[b].raw.oomd_avoid = true;
	s.cgroups[b].raw.owner_is_root = false; /* not root's: ignored */
	s.cgroups[c2].raw.owner_is_root = true;
	struct cgoom_config c = cfg_of("[cgroup \"/\"]\noom_policy = cgroup\n");
	sb_done(&s, &c);
	CHECK_EQ_INT(sb_set.cgroups[a].pref.value, CGOOM_PREF_OMIT);
	CHECK_EQ_INT(sb_set.cgroups[a].pref.source, CGOOM_SRC_SYSTEMD);
	CHECK_EQ_INT(sb_set.cgroups[b].pref.value, CGOOM_PREF_NONE);
	struct cgoom_decision d = sb_select(&s, "/");
	CHECK_EQ_INT(d.victim_pid, 11);
	cgoom_decision_free(&d);
	cgoom_config_free(&c);
	cgoom_snapshot_free(&s);
}

static void test_precedence_trusted_over_config(void)
{
	struct cgoom_snapshot s;
	seed_table(&s);
	int cg3 = sb_idx(&s, "/cg3");
	s.cgroups[cg3].raw.has_trusted_policy = true;
	s.cgroups[cg3].raw.trusted_policy = CGOOM_POLICY_TREE;
	s.cgroups[0].raw.has_trusted_policy = true;
	s.cgroups[0].raw.trusted_policy = CGOOM_POLICY_TREE; /* refused on the root */
	struct cgoom_config c = cfg_of("[cgroup \"/\"]\noom_policy = cgroup\n"
				       "[cgroup \"/cg3\"]\noom_policy = none\n"
				       "preference = avoid\n");
	sb_done(&s, &c);
	CHECK_EQ_INT(sb_set.cgroups[cg3].policy.value, CGOOM_POLICY_TREE);
	CHECK_EQ_INT(sb_set.cgroups[cg3].policy.source, CGOOM_SRC_TRUSTED_XATTR);
	CHECK_EQ_INT(sb_set.cgroups[cg3].pref.value, CGOOM_PREF_AVOID); /* per key */
	CHECK_EQ_INT(sb_set.cgroups[0].policy.value, CGOOM_POLICY_CGROUP);
	CHECK(sb_set.n_notes >= 1);
	cgoom_config_free(&c);
	cgoom_snapshot_free(&s);
}

static void test_tree_entity_takes_tree_settings(void)
{
	/* settings inside a tree entity do not split it; it takes its own */
	struct cgoom_snapshot s;
	seed_table(&s);
	struct cgoom_config c = cfg_of("[cgroup \"/\"]\noom_policy = cgroup\n"
				       "[cgroup \"/cg3\"]\noom_policy = tree\n"
				       "[cgroup \"/cg3/cg31\"]\npreference = avoid\n");
	sb_done(&s, &c);
	struct cgoom_decision d = sb_select(&s, "/");
	CHECK_STREQ(s.cgroups[d.victim_cgroup].path, "/cg3");
	CHECK_EQ_INT(d.candidates[0].pref, CGOOM_PREF_NONE);
	cgoom_decision_free(&d);
	cgoom_config_free(&c);
	cgoom_snapshot_free(&s);
}

static void test_snapshot_dedupe_and_dupes(void)
{
	struct cgoom_snapshot s;
	sb_init(&s, 0);
	sb_cg(&s, "/a", 1);
	sb_cg(&s, "/b", 1);
	sb_proc(&s, 10, "/a", 1, 0);
	sb_proc(&s, 10, "/b", 1, 0); /* moved mid-walk: first kept */
	CHECK_EQ_INT(cgoom_snapshot_finalize(&s), 0);
	CHECK_EQ_INT(s.n_procs, 1);
	CHECK_EQ_INT(s.procs[0].cgroup, sb_idx(&s, "/a"));
	CHECK_EQ_INT(s.n_notes, 1);
	CHECK(cgoom_snapshot_add_cgroup(&s, 0, "a") > 0);
	CHECK_EQ_INT(cgoom_snapshot_finalize(&s), -EEXIST);
	CHECK(cgoom_snapshot_add_cgroup(&s, 0, "..") == -EINVAL);
	CHECK(cgoom_snapshot_add_cgroup(&s, 0, "x/y") == -EINVAL);
	CHECK(cgoom_snapshot_add_cgroup(&s, 99, "x") == -EINVAL);
	cgoom_snapshot_free(&s);
	cgoom_snapshot_free(&s); /* idempotent */
}

/* A note of the resolver (in sb_set) or of the snapshot s. */
static bool has_note(const struct cgoom_snapshot *s, const char *a, const char *b)
{
	for (size_t i = 0; i < s->n_notes; i++)
		if (strstr(s->notes[i], a) && (!b || strstr(s->notes[i], b)))
			return true;
	for (size_t i = 0; i < sb_set.n_notes; i++)
		if (strstr(sb_set.notes[i], a) && (!b || strstr(sb_set.notes[i], b)))
			return true;
	return false;
}

/* The delegation attack of issue 15: the admin prefers /u/a/x, the
 * delegatee of /u sets tree on /u/a to fold x into a 150 MiB none-tier
 * entity, so the innocent 300 MiB /v would die. SPEC 7: that tree is
 * ignored (and noted), x is its own prefer-tier entity and dies. */
static struct cgoom_snapshot attack_tree(const char *conf_extra, struct cgoom_config *ret_cfg)
{
	struct cgoom_snapshot s;
	char text[512];
	sb_init(&s, 0);
	sb_cg(&s, "/u", 150);
	int a = sb_cg(&s, "/u/a", 150);
	sb_cg(&s, "/u/a/x", 50);
	sb_cg(&s, "/u/a/y", 100);
	sb_cg(&s, "/v", 300);
	sb_proc(&s, 10, "/u/a/x", 50, 0);
	sb_proc(&s, 11, "/u/a/y", 100, 0);
	sb_proc(&s, 12, "/v", 300, 0);
	s.cgroups[a].raw.has_user_policy = true;
	s.cgroups[a].raw.user_policy = CGOOM_POLICY_TREE;
	snprintf(text, sizeof(text),
		 "[cgroup \"/\"]\noom_policy = cgroup\n[cgroup \"/u\"]\ndelegate = yes\n%s", conf_extra);
	*ret_cfg = cfg_of(text);
	sb_done(&s, ret_cfg);
	return s;
}

static void test_delegatee_tree_cannot_hide_prefer(void)
{
	struct cgoom_config c;
	struct cgoom_snapshot s = attack_tree("[cgroup \"/u/a/x\"]\npreference = prefer\n", &c);
	int a = sb_idx(&s, "/u/a");
	CHECK_EQ_INT(sb_set.cgroups[a].policy.value, CGOOM_POLICY_CGROUP);
	CHECK_EQ_INT(sb_set.cgroups[a].policy.source, CGOOM_SRC_CONFIG); /* inherited from / */
	CHECK(has_note(&s, "/u/a: user.cgoom.oom_policy=tree ignored", "/u/a/x"));
	struct cgoom_decision d = sb_select(&s, "/");
	CHECK_STREQ(s.cgroups[d.victim_cgroup].path, "/u/a/x");
	CHECK_EQ_INT(d.victim_pid, 10);
	cgoom_decision_free(&d);
	cgoom_config_free(&c);
	cgoom_snapshot_free(&s);
}

static void test_delegatee_tree_cannot_hide_bias(void)
{
	/* same tier, a higher bias from the admin: x alone scores
	 * 50 MiB + 500 * T/1000, far above /v */
	struct cgoom_config c;
	struct cgoom_snapshot s = attack_tree("[cgroup \"/u/a/x\"]\nbias = 500\n", &c);
	CHECK_EQ_INT(sb_set.cgroups[sb_idx(&s, "/u/a")].policy.value, CGOOM_POLICY_CGROUP);
	struct cgoom_decision d = sb_select(&s, "/");
	CHECK_EQ_INT(d.victim_pid, 10);
	cgoom_decision_free(&d);
	cgoom_config_free(&c);
	cgoom_snapshot_free(&s);

	/* a trusted xattr counts as the admin too; one set between the tree
	 * and the member (on an intermediate cgroup) as well */
	sb_init(&s, 0);
	sb_cg(&s, "/u", 150);
	int a = sb_cg(&s, "/u/a", 150);
	int m = sb_cg(&s, "/u/a/m", 50);
	sb_cg(&s, "/u/a/m/x", 50);
	sb_cg(&s, "/u/a/y", 100);
	sb_cg(&s, "/v", 300);
	sb_proc(&s, 10, "/u/a/m/x", 50, 0);
	sb_proc(&s, 11, "/u/a/y", 100, 0);
	sb_proc(&s, 12, "/v", 300, 0);
	s.cgroups[a].raw.has_user_policy = true;
	s.cgroups[a].raw.user_policy = CGOOM_POLICY_TREE;
	s.cgroups[m].raw.has_trusted_pref = true;
	s.cgroups[m].raw.trusted_pref = CGOOM_PREF_PREFER;
	c = cfg_of("[cgroup \"/\"]\noom_policy = cgroup\n[cgroup \"/u\"]\ndelegate = yes\n");
	sb_done(&s, &c);
	CHECK_EQ_INT(sb_set.cgroups[a].policy.value, CGOOM_POLICY_CGROUP);
	d = sb_select(&s, "/");
	CHECK_EQ_INT(d.victim_pid, 10);
	cgoom_decision_free(&d);
	cgoom_config_free(&c);
	cgoom_snapshot_free(&s);
}

static void test_delegatee_tree_kept(void)
{
	static const char *const harmless[] = {
		/* the admin made x less killable: grouping makes it more */
		"[cgroup \"/u/a/x\"]\npreference = avoid\n",
		"[cgroup \"/u/a/x\"]\nbias = -300\n",
		/* a higher bias in a lower tier ranks behind the tree anyway */
		"[cgroup \"/u/a/x\"]\npreference = avoid\nbias = 900\n",
		/* set on the tree cgroup itself: the entity takes it */
		"[cgroup \"/u/a\"]\npreference = prefer\n",
		/* inherited from above the tree: the tree has it too */
		"[cgroup \"/u\"]\nbias = 100\n",
	};
	for (size_t k = 0; k < sizeof(harmless) / sizeof(harmless[0]); k++) {
		struct cgoom_config c;
		struct cgoom_snapshot s = attack_tree(harmless[k], &c);
		int a = sb_idx(&s, "/u/a");
		bool ok = sb_set.cgroups[a].policy.value == CGOOM_POLICY_TREE &&
			  sb_set.cgroups[a].policy.source == CGOOM_SRC_USER_XATTR &&
			  !has_note(&s, "oom_policy=tree ignored", NULL);
		if (!ok)
			printf("# case %zu: %s", k, harmless[k]);
		cgoom_config_free(&c);
		cgoom_snapshot_free(&s);
		CHECK(ok);
	}

	/* the delegatee's own prefer inside is its own business */
	struct cgoom_snapshot s;
	sb_init(&s, 0);
	sb_cg(&s, "/u", 150);
	int a = sb_cg(&s, "/u/a", 150);
	int x = sb_cg(&s, "/u/a/x", 50);
	s.cgroups[a].raw.has_user_policy = true;
	s.cgroups[a].raw.user_policy = CGOOM_POLICY_TREE;
	s.cgroups[x].raw.has_user_pref = true;
	s.cgroups[x].raw.user_pref = CGOOM_PREF_PREFER;
	s.cgroups[x].raw.has_user_bias = true;
	s.cgroups[x].raw.user_bias = 1000;
	struct cgoom_config c = cfg_of("[cgroup \"/u\"]\ndelegate = yes\n");
	sb_done(&s, &c);
	CHECK_EQ_INT(sb_set.cgroups[a].policy.value, CGOOM_POLICY_TREE);
	cgoom_config_free(&c);
	cgoom_snapshot_free(&s);
}

static void test_delegatee_moves_towards_prefer(void)
{
	/* SPEC 7: a delegatee's none counts over an inherited avoid; its
	 * bias is max(inherited, its own), negative ones included */
	struct cgoom_snapshot s;
	sb_init(&s, 0);
	sb_cg(&s, "/users", 600);
	int u1 = sb_cg(&s, "/users/u1", 100);
	int u2 = sb_cg(&s, "/users/u2", 100);
	int u3 = sb_cg(&s, "/users/u3", 100);
	s.cgroups[u1].raw.has_user_pref = true;
	s.cgroups[u1].raw.user_pref = CGOOM_PREF_NONE;
	s.cgroups[u1].raw.has_user_bias = true;
	s.cgroups[u1].raw.user_bias = -100; /* above the inherited -500 */
	s.cgroups[u2].raw.has_user_bias = true;
	s.cgroups[u2].raw.user_bias = -800; /* below it: ignored, noted */
	s.cgroups[u3].raw.has_user_pref = true;
	s.cgroups[u3].raw.user_pref = CGOOM_PREF_AVOID; /* no move: ignored */
	struct cgoom_config c = cfg_of("[cgroup \"/users\"]\ndelegate = yes\npreference = avoid\n"
				       "bias = -500\n");
	sb_done(&s, &c);
	CHECK_EQ_INT(sb_set.cgroups[u1].pref.value, CGOOM_PREF_NONE);
	CHECK_EQ_INT(sb_set.cgroups[u1].pref.source, CGOOM_SRC_USER_XATTR);
	CHECK_EQ_INT(sb_set.cgroups[u1].bias.value, -100);
	CHECK_EQ_INT(sb_set.cgroups[u1].bias.source, CGOOM_SRC_USER_XATTR);
	CHECK_EQ_INT(sb_set.cgroups[u2].bias.value, -500);
	CHECK_EQ_INT(sb_set.cgroups[u2].bias.source, CGOOM_SRC_CONFIG);
	CHECK(has_note(&s, "/users/u2: user.cgoom.bias=-800 ignored", NULL));
	CHECK_EQ_INT(sb_set.cgroups[u3].pref.value, CGOOM_PREF_AVOID);
	CHECK(has_note(&s, "/users/u3: user.cgoom.preference=avoid ignored", NULL));
	cgoom_config_free(&c);
	cgoom_snapshot_free(&s);
}

int main(void)
{
	return tap_run((struct tap_test[]){
		TAP(test_inherited_policy),
		TAP(test_omit_is_absolute),
		TAP(test_delegation),
		TAP(test_deleg_roots),
		TAP(test_delegatee_bias_max),
		TAP(test_systemd_xattrs),
		TAP(test_precedence_trusted_over_config),
		TAP(test_tree_entity_takes_tree_settings),
		TAP(test_snapshot_dedupe_and_dupes),
		TAP(test_delegatee_tree_cannot_hide_prefer),
		TAP(test_delegatee_tree_cannot_hide_bias),
		TAP(test_delegatee_tree_kept),
		TAP(test_delegatee_moves_towards_prefer),
		{ 0 },
	});
}
