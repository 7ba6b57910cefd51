/* SPDX-License-Identifier: MIT */
/* Path patterns in [cgroup "..."] sections (issue 14, SPEC 7): one '*'
 * matches within one path component; per key, the most specific
 * matching section decides; explain names the section. */
#include "config-helpers.h"
#undef MiB /* snapbuild.h has its own */
#include "snapbuild.h"
#include "cgoom/explain.h"

static void test_path_match(void)
{
	static const struct {
		const char *pat, *path;
		bool want;
	} cases[] = {
		{ "/user.slice/user-*.slice", "/user.slice/user-1000.slice", true },
		{ "/user.slice/user-*.slice", "/user.slice/user-.slice", true }, /* '*' may match nothing */
		{ "/user.slice/user-*.slice", "/user.slice/user-1000.slice/session-2.scope", false },
		{ "/user.slice/user-*.slice", "/user.slice/user-1000.slicex", false },
		{ "/user.slice/user-*.slice", "/user.slice", false },
		{ "/system.slice/*.service", "/system.slice/ssh.service", true },
		{ "/system.slice/*.service", "/system.slice/a/b.service", false }, /* never across '/' */
		{ "/system.slice/*.service", "/system.slice/ssh.socket", false },
		{ "/kubepods.slice/kubepods-*.slice/kubepods-*-pod*.slice",
		  "/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod1a2b.slice", true },
		{ "/kubepods.slice/kubepods-*.slice/kubepods-*-pod*.slice",
		  "/kubepods.slice/kubepods-burstable.slice", false },
		{ "/*", "/a", true },
		{ "/*", "/", false }, /* the root has no component to match */
		{ "/*", "/a/b", false },
		{ "/*/*", "/a/b", true },
		{ "/a*b*c", "/abc", true },
		{ "/a*b*c", "/aXbYbZc", true },
		{ "/a*b*c", "/aXbYcZ", false },
		{ "/*x", "/xxx", true },
		{ "/a", "/a", true },
		{ "/a", "/a/b", false },
		{ "/", "/", true },
		{ "/a*", "/a*", true }, /* a '*' also matches a literal '*' */
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		bool got = cgoom_path_match(cases[i].pat, cases[i].path);
		if (got != cases[i].want)
			printf("# %s vs %s: got %d\n", cases[i].pat, cases[i].path, got);
		CHECK(got == cases[i].want);
	}
	CHECK(!cgoom_path_match(NULL, "/"));
	CHECK(!cgoom_path_match("/", NULL));
}

static void test_specificity(void)
{
	struct cgoom_config c;
	struct cgoom_config_error e;
	const char *text = "[cgroup \"/u/*\"]\n"             /* 3 literal, 1 star */
			   "oom_policy = tree\npreference = avoid\nbias = 1\n"
			   "[cgroup \"/u/a*\"]\n"                /* 4 literal, 1 star */
			   "bias = 2\n"
			   "[cgroup \"/u/*b\"]\n"                /* 4 literal, 1 star: later */
			   "bias = 3\nmargin = 3%\n"
			   "[cgroup \"/u/a*b*\"]\n"              /* 5 literal, 2 stars */
			   "guard_band = 8M\n"
			   "[cgroup \"/u/ab\"]\n"                /* exact */
			   "preference = prefer\n"
			   "[cgroup \"/u/*ab\"]\n"               /* 5 literal, 1 star */
			   "guard_band = 16M\ndelegate = yes\n";
	CHECK_EQ_INT(parse(text, &c, &e), 0);
	CHECK_EQ_U64(c.n_cgroups, 6);
	CHECK_EQ_INT(c.cgroups[0].n_stars, 1);
	CHECK_EQ_U64(c.cgroups[0].n_literal, 3);
	CHECK_EQ_INT(c.cgroups[3].n_stars, 2);

	struct cgoom_conf_match m;
	cgoom_config_match(&c, "/u/ab", &m);
	CHECK(m.by_key[CGOOM_CONF_PREF] == cgoom_config_find(&c, "/u/ab"));  /* exact wins */
	CHECK(m.by_key[CGOOM_CONF_POLICY] == &c.cgroups[0]);  /* only the least specific sets it */
	CHECK(m.by_key[CGOOM_CONF_BIAS] == &c.cgroups[1]);    /* two tied: the first in the file */
	CHECK(m.by_key[CGOOM_CONF_MARGIN] == &c.cgroups[2]);
	CHECK(m.by_key[CGOOM_CONF_GUARD_BAND] == &c.cgroups[5]); /* 5 literal: fewer stars wins */
	CHECK_EQ_INT(cgoom_conf_line(m.by_key[CGOOM_CONF_GUARD_BAND], CGOOM_CONF_GUARD_BAND), 15);
	CHECK_EQ_INT(cgoom_conf_line(m.by_key[CGOOM_CONF_PREF], CGOOM_CONF_BIAS), 0); /* not set there */

	cgoom_config_match(&c, "/u/xb", &m);
	CHECK(m.by_key[CGOOM_CONF_BIAS] == &c.cgroups[2]);
	CHECK(m.by_key[CGOOM_CONF_PREF] == &c.cgroups[0]);
	CHECK(!m.by_key[CGOOM_CONF_GUARD_BAND]);
	CHECK(!m.by_key[CGOOM_CONF_DELEGATE]);

	cgoom_config_match(&c, "/u", &m);
	for (int k = 0; k < CGOOM_CONF_KEY_MAX; k++)
		CHECK(!m.by_key[k]);
	cgoom_config_match(&c, "/u/ab/c", &m); /* patterns do not reach below their depth */
	for (int k = 0; k < CGOOM_CONF_KEY_MAX; k++)
		CHECK(!m.by_key[k]);
	CHECK(cgoom_config_lookup(&c, "/u/zzab", CGOOM_CONF_DELEGATE) == &c.cgroups[5]);
	CHECK(!cgoom_config_lookup(&c, "/u/zzab", CGOOM_CONF_KEY_MAX));
	CHECK(!cgoom_config_lookup(NULL, "/u/zzab", CGOOM_CONF_BIAS));
	cgoom_config_free(&c);
}

/* Which sections match some cgroup of a tree: the caller marks every
 * path; a section that matches none stays unmarked (noted by explain). */
static void test_mark_matches(void)
{
	struct cgoom_config c;
	struct cgoom_config_error e;
	const char *text = "[cgroup \"/\"]\noom_policy = cgroup\n"
			   "[cgroup \"/sys/fs/cgroup/a\"]\npreference = omit\n" /* the mount point in front */
			   "[cgroup \"/b/*\"]\nbias = 1\n"
			   "[cgroup \"/c/*\"]\nbias = 1\n"
			   "[cgroup \"/b\"]\nbias = 2\n"
			   "[cgroup \"/b/x/y\"]\nbias = 3\n"; /* deeper than any cgroup */
	CHECK_EQ_INT(parse(text, &c, &e), 0);
	CHECK_EQ_U64(c.n_cgroups, 6);
	bool hit[6] = { false };
	const char *tree[] = { "/", "/a", "/b", "/b/x", "/c" };
	for (size_t i = 0; i < sizeof(tree) / sizeof(tree[0]); i++)
		cgoom_config_mark_matches(&c, tree[i], hit);
	CHECK(hit[0]);  /* "/" */
	CHECK(!hit[1]); /* no cgroup is /sys/fs/cgroup/a */
	CHECK(hit[2]);  /* /b/x */
	CHECK(!hit[3]); /* /c has no child */
	CHECK(hit[4]);
	CHECK(!hit[5]);
	/* marks stay; NULLs are no-ops */
	cgoom_config_mark_matches(&c, "/c/z", hit);
	CHECK(hit[3]);
	cgoom_config_mark_matches(NULL, "/", hit);
	cgoom_config_mark_matches(&c, NULL, hit);
	cgoom_config_mark_matches(&c, "/", NULL);
	cgoom_config_free(&c);
}

static void test_pattern_errors(void)
{
	CHECK(expect_error("[cgroup \"/a/**\"]\nbias = 1\n", 1, "'**' is not supported"));
	CHECK(expect_error("# x\n[cgroup \"/**/b\"]\n", 2, "never across '/'"));
	/* a pattern is a section like any other: keys twice in it are refused */
	CHECK(expect_error("[cgroup \"/a/*\"]\nbias = 1\n[cgroup \"/a//*/\"]\nbias = 2\n", 4,
			   "key 'bias' already set on line 2"));
}

/* SPEC 7 with patterns: per user one tree entity, delegation by pattern,
 * and explain naming the section a setting came from. */
static void test_patterns_resolve_and_explain(void)
{
	struct cgoom_snapshot s;
	sb_init(&s, 0);
	sb_cg(&s, "/user.slice", 0);
	sb_cg(&s, "/user.slice/user-1000.slice", 0);
	sb_cg(&s, "/user.slice/user-1000.slice/session-1.scope", 100);
	sb_cg(&s, "/user.slice/user-1000.slice/session-2.scope", 100);
	sb_cg(&s, "/user.slice/user-1001.slice", 0);
	sb_cg(&s, "/user.slice/user-1001.slice/session-3.scope", 150);
	sb_cg(&s, "/system.slice", 0);
	int ssh = sb_cg(&s, "/system.slice/ssh.service", 180);
	sb_proc(&s, 10, "/user.slice/user-1000.slice/session-1.scope", 100, 0);
	sb_proc(&s, 11, "/user.slice/user-1000.slice/session-2.scope", 100, 0);
	sb_proc(&s, 12, "/user.slice/user-1001.slice/session-3.scope", 150, 0);
	sb_proc(&s, 13, "/system.slice/ssh.service", 180, 0);
	struct cgoom_config c = cfg_of("[cgroup \"/\"]\noom_policy = cgroup\n"
				       "[cgroup \"/user.slice/user-*.slice\"]\noom_policy = tree\n"
				       "delegate = yes\n"
				       "[cgroup \"/system.slice/*.service\"]\npreference = avoid\n"
				       "[cgroup \"/system.slice/ssh.service\"]\nbias = 10\n");
	sb_done(&s, &c);
	int u0 = sb_idx(&s, "/user.slice/user-1000.slice");
	CHECK_EQ_INT(sb_set.cgroups[u0].policy.value, CGOOM_POLICY_TREE);
	CHECK(sb_set.cgroups[u0].policy.section >= 1 && (size_t)sb_set.cgroups[u0].policy.section <= sb_set.n_sections);
	CHECK_STREQ(sb_set.sections[sb_set.cgroups[u0].policy.section - 1], "/user.slice/user-*.slice");
	CHECK_EQ_U64(sb_set.n_sections, 4); /* one copy per section used */
	CHECK_EQ_INT(sb_set.cgroups[u0].policy.line, 4);
	CHECK(sb_set.cgroups[sb_idx(&s, "/user.slice/user-1001.slice/session-3.scope")].delegated);
	CHECK(!sb_set.cgroups[u0].delegated);
	CHECK_EQ_INT(sb_set.cgroups[ssh].pref.value, CGOOM_PREF_AVOID); /* per key: from the pattern */
	CHECK_EQ_INT(sb_set.cgroups[ssh].bias.value, 10);                /* and from the exact section */

	/* each user is one entity: user-1000 (200 MiB) beats user-1001 (150) */
	struct cgoom_decision d = sb_select(&s, "/");
	CHECK_STREQ(s.cgroups[d.victim_cgroup].path, "/user.slice/user-1000.slice");
	CHECK_EQ_INT(d.candidates[0].kind, CGOOM_KIND_TREE);
	cgoom_decision_free(&d);

	struct cgoom_strbuf b = { 0 };
	cgoom_setting_source(&b, &s, &sb_set, u0, &sb_set.cgroups[u0].policy);
	CHECK_STREQ(b.buf, "config [cgroup \"/user.slice/user-*.slice\"] line 4");
	cgoom_strbuf_free(&b);
	int sc = sb_idx(&s, "/user.slice/user-1000.slice/session-1.scope");
	cgoom_setting_source(&b, &s, &sb_set, sc, &sb_set.cgroups[sc].policy);
	CHECK_STREQ(b.buf, "inherited from /user.slice/user-1000.slice (config [cgroup "
			   "\"/user.slice/user-*.slice\"] line 4)");
	cgoom_strbuf_free(&b);
	cgoom_setting_source(&b, &s, &sb_set, 0, &sb_set.cgroups[0].policy);
	CHECK_STREQ(b.buf, "config [cgroup \"/\"] line 2");
	cgoom_strbuf_free(&b);

	/* the section names are the settings' own: freeing the config first is fine */
	cgoom_config_free(&c);
	cgoom_setting_source(&b, &s, &sb_set, ssh, &sb_set.cgroups[ssh].pref);
	CHECK_STREQ(b.buf, "config [cgroup \"/system.slice/*.service\"] line 7");
	cgoom_strbuf_free(&b);
	/* resolving again starts the copies afresh */
	c = cfg_of("[cgroup \"/system.slice/*\"]\nbias = 5\n");
	CHECK_EQ_INT(cgoom_settings_resolve(&s, &c, &sb_set), 0);
	CHECK_EQ_U64(sb_set.n_sections, 1);
	CHECK_EQ_INT(sb_set.cgroups[ssh].bias.value, 5);
	CHECK_EQ_INT(sb_set.cgroups[ssh].pref.section, 0);
	cgoom_config_free(&c);
	cgoom_snapshot_free(&s);
}

int main(void)
{
	return tap_run((struct tap_test[]){
		TAP(test_path_match),
		TAP(test_specificity),
		TAP(test_mark_matches),
		TAP(test_pattern_errors),
		TAP(test_patterns_resolve_and_explain),
		{ 0 },
	});
}
