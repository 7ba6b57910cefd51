/* SPDX-License-Identifier: MIT */
/* The config file: the SPEC 7 example, defaults, comments, whitespace, sections, paths. */
#include "config-helpers.h"

/* ---- the SPEC 7 examples and defaults ------------------------------- */

static void test_spec_example(void)
{
	static const char text[] = "[daemon]\n"
				   "mem_available_min = 5%\n"
				   "[cgroup \"/\"]\n"
				   "oom_policy = cgroup\n"
				   "[cgroup \"/cg3\"]\n"
				   "oom_policy = tree\n"
				   "preference = avoid\n"
				   "bias = -200\n"
				   "delegate = yes\n";
	struct cgoom_config c;
	struct cgoom_config_error e;
	CHECK_EQ_INT(parse(text, &c, &e), 0);
	CHECK(c.mem_available_min.is_percent);
	CHECK_EQ_U64(c.mem_available_min.value, 500);
	CHECK_EQ_U64(c.n_cgroups, 2);

	const struct cgoom_cgroup_conf *root = &c.cgroups[0];
	CHECK_STREQ(root->path, "/");
	CHECK_EQ_INT(root->line, 3);
	CHECK(root->has_policy);
	CHECK_EQ_INT(root->policy, CGOOM_POLICY_CGROUP);
	CHECK_EQ_INT(root->policy_line, 4);
	CHECK(!root->has_pref && !root->has_bias && !root->has_delegate);
	CHECK(!root->has_margin && !root->has_guard_band);

	const struct cgoom_cgroup_conf *cg3 = &c.cgroups[1];
	CHECK_STREQ(cg3->path, "/cg3");
	CHECK_EQ_INT(cg3->line, 5);
	CHECK(cg3->has_policy && cg3->has_pref && cg3->has_bias && cg3->has_delegate);
	CHECK_EQ_INT(cg3->policy, CGOOM_POLICY_TREE);
	CHECK_EQ_INT(cg3->policy_line, 6);
	CHECK_EQ_INT(cg3->pref, CGOOM_PREF_AVOID);
	CHECK_EQ_INT(cg3->pref_line, 7);
	CHECK_EQ_INT(cg3->bias, -200);
	CHECK_EQ_INT(cg3->bias_line, 8);
	CHECK(cg3->delegate);
	CHECK(cgoom_config_find(&c, "/cg3") == cg3);
	cgoom_config_free(&c);
}

/* The commented defaults block of SPEC 7, verbatim. */
static void test_spec_defaults_block(void)
{
	static const char text[] =
		"[daemon]\n"
		"mem_available_min = 5%        # system domain: both of these low ...\n"
		"swap_free_min = 10%           # ... (ignored when there is no swap)\n"
		"psi_full = 100ms/1s           # or a PSI stall this long in this window\n"
		"margin = 2%                   # cgroup domain: act within this of max\n"
		"guard_band = no               # or SIZE: memory.high = max - SIZE\n"
		"kill_wait = 10s               # most to wait for a dying victim\n"
		"term_grace = 0s               # SIGTERM first, SIGKILL after this\n"
		"pre_kill_hook =               # command run (with the decision as JSON\n"
		"                              #   on stdin, bounded time) before a kill\n"
		"post_kill_hook =              # empty, as data/cgoom.conf ships it: none\n"
		"event_log =                   # JSON-lines file, one object per event\n"
		"metrics_file =                # Prometheus textfile\n"
		"[cgroup \"/work\"]\n"
		"guard_band = 32M              # per-domain override of margin/guard_band\n";
	struct cgoom_config c, d;
	struct cgoom_config_error e;
	CHECK_EQ_INT(parse(text, &c, &e), 0);
	cgoom_config_init(&d);
	CHECK(c.mem_available_min.is_percent == d.mem_available_min.is_percent && c.mem_available_min.value == d.mem_available_min.value);
	CHECK(c.swap_free_min.is_percent == d.swap_free_min.is_percent && c.swap_free_min.value == d.swap_free_min.value);
	CHECK(c.margin.is_percent == d.margin.is_percent && c.margin.value == d.margin.value);
	CHECK_EQ_U64(c.psi_full_stall_us, d.psi_full_stall_us);
	CHECK_EQ_U64(c.psi_full_window_us, d.psi_full_window_us);
	CHECK_EQ_U64(c.guard_band, 0);
	CHECK_EQ_U64(c.kill_wait_us, d.kill_wait_us);
	CHECK_EQ_U64(c.term_grace_us, 0);
	CHECK(!c.pre_kill_hook && !c.post_kill_hook && !c.event_log && !c.metrics_file);
	CHECK_EQ_U64(c.n_cgroups, 1);
	CHECK_STREQ(c.cgroups[0].path, "/work");
	CHECK(c.cgroups[0].has_guard_band);
	CHECK_EQ_U64(c.cgroups[0].guard_band, 32 * MiB);
	CHECK(!c.cgroups[0].has_margin);
	cgoom_config_free(&c);
}

static void test_defaults(void)
{
	struct cgoom_config c;
	cgoom_config_init(&c);
	CHECK(c.mem_available_min.is_percent);
	CHECK_EQ_U64(c.mem_available_min.value, 500);
	CHECK(c.swap_free_min.is_percent);
	CHECK_EQ_U64(c.swap_free_min.value, 1000);
	CHECK_EQ_U64(c.psi_full_stall_us, 100 * MS);
	CHECK_EQ_U64(c.psi_full_window_us, 1 * SEC);
	CHECK(c.margin.is_percent);
	CHECK_EQ_U64(c.margin.value, 200);
	CHECK_EQ_U64(c.guard_band, 0);
	CHECK_EQ_U64(c.kill_wait_us, 10 * SEC);
	CHECK_EQ_U64(c.term_grace_us, 0);
	CHECK(!c.pre_kill_hook && !c.event_log && !c.metrics_file);
	CHECK(!c.cgroups && c.n_cgroups == 0);
	cgoom_config_free(&c);
	cgoom_config_free(&c); /* idempotent */
	cgoom_config_free(NULL);
}

static void test_empty_inputs_are_defaults(void)
{
	static const char *const texts[] = { "", "\n\n", "# nothing\n; here\n", "[daemon]\n", "   \t\n" };
	for (size_t i = 0; i < sizeof(texts) / sizeof(texts[0]); i++) {
		struct cgoom_config c;
		struct cgoom_config_error e;
		CHECK_EQ_INT(parse(texts[i], &c, &e), 0);
		CHECK(is_default_and_empty(&c));
		CHECK_EQ_U64(c.swap_free_min.value, 1000);
		CHECK_EQ_U64(c.term_grace_us, 0);
		cgoom_config_free(&c);
	}
	struct cgoom_config c;
	CHECK_EQ_INT(cgoom_config_parse(NULL, 0, &c, NULL), 0);
	cgoom_config_free(&c);
}

static void test_all_daemon_keys(void)
{
	static const char text[] = "[daemon]\n"
				   "mem_available_min = 2.5%\n"
				   "swap_free_min = 512M\n"
				   "psi_full = 200ms/2s\n"
				   "margin = 64M\n"
				   "guard_band = 1G\n"
				   "kill_wait = 2m\n"
				   "term_grace = 500ms\n"
				   "pre_kill_hook = /usr/local/bin/notify --why oom\n"
				   "post_kill_hook = /usr/local/bin/tell\n"
				   "event_log = /var/log/cgoom.jsonl\n"
				   "metrics_file = /var/lib/node_exporter/cgoom.prom\n"
				   "swap_stall_max = 20s\n"
				   "thrash_for = 3500ms\n"
				   "thrash_refaults = 32M/s\n";
	struct cgoom_config c;
	struct cgoom_config_error e;
	CHECK_EQ_INT(parse(text, &c, &e), 0);
	CHECK(c.mem_available_min.is_percent);
	CHECK_EQ_U64(c.mem_available_min.value, 250);
	CHECK(!c.swap_free_min.is_percent);
	CHECK_EQ_U64(c.swap_free_min.value, 512 * MiB);
	CHECK_EQ_U64(c.psi_full_stall_us, 200 * MS);
	CHECK_EQ_U64(c.psi_full_window_us, 2 * SEC);
	CHECK(!c.margin.is_percent);
	CHECK_EQ_U64(c.margin.value, 64 * MiB);
	CHECK_EQ_U64(c.guard_band, GiB);
	CHECK_EQ_U64(c.kill_wait_us, 120 * SEC);
	CHECK_EQ_U64(c.term_grace_us, 500 * MS);
	CHECK_STREQ(c.pre_kill_hook, "/usr/local/bin/notify --why oom");
	CHECK_STREQ(c.post_kill_hook, "/usr/local/bin/tell");
	CHECK_STREQ(c.event_log, "/var/log/cgoom.jsonl");
	CHECK_STREQ(c.metrics_file, "/var/lib/node_exporter/cgoom.prom");
	CHECK_EQ_U64(c.swap_stall_max_us, 20 * SEC);
	CHECK_EQ_U64(c.thrash_for_us, 3500 * MS);
	CHECK_EQ_U64(c.thrash_refaults, 32 * MiB);
	CHECK_EQ_U64(c.n_cgroups, 0);
	cgoom_config_free(&c);
}

static void test_thrash_keys(void)
{
	struct cgoom_config c;
	struct cgoom_config_error e;
	/* the defaults (SPEC 6, doc/triggers.md) */
	CHECK_EQ_INT(parse("", &c, &e), 0);
	CHECK_EQ_U64(c.swap_stall_max_us, 25 * SEC);
	CHECK_EQ_U64(c.thrash_for_us, 2 * SEC);
	CHECK_EQ_U64(c.thrash_refaults, 15 * MiB);
	cgoom_config_free(&c);
	CHECK_EQ_INT(parse("[daemon]\nthrash_refaults = 4M\n", &c, &e), 0);
	CHECK_EQ_U64(c.thrash_refaults, 4 * MiB);
	cgoom_config_free(&c);
	/* shorter than a window of the history, longer than it keeps, zero */
	static const char *const bad[] = {
		"[daemon]\nswap_stall_max = 100ms\n", "[daemon]\nthrash_for = 2m\n",
		"[daemon]\nthrash_for = 10\n", "[daemon]\nthrash_refaults = 0\n",
		"[daemon]\nthrash_refaults = fast\n", "[daemon]\nthrash_refaults = 10M/m\n",
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		CHECK_EQ_INT(parse(bad[i], &c, &e), -EINVAL);
		CHECK_EQ_INT(e.line, 2);
	}
}

/* thrash_refaults = 18446744073709551615 was taken, and wrapped to 0
 * pages a second in the daemon (a stall with no refaults fired); over
 * 64 bits it was a syntax error quoting the value without its "/s". A
 * rate is at most 1 TiB/s, and the messages quote the value as written. */
static void test_rate_range(void)
{
	struct cgoom_config c;
	struct cgoom_config_error e;
	CHECK_EQ_INT(parse("[daemon]\nthrash_refaults = 1T/s\n", &c, &e), 0);
	CHECK_EQ_U64(c.thrash_refaults, 1ULL << 40);
	cgoom_config_free(&c);
	CHECK(expect_error("[daemon]\nthrash_refaults = 18446744073709551615\n", 2,
			   "thrash_refaults is out of range (at most 1T/s), got '18446744073709551615'"));
	CHECK(expect_error("[daemon]\nthrash_refaults = 1025G/s\n", 2,
			   "thrash_refaults is out of range (at most 1T/s), got '1025G/s'"));
	CHECK(expect_error("[daemon]\nthrash_refaults = 99999999999999999999/s\n", 2,
			   "thrash_refaults is out of range (at most 1T/s), got '99999999999999999999/s'"));
	CHECK(expect_error("[daemon]\nthrash_refaults = fast/s\n", 2,
			   "thrash_refaults must be a size per second like 10M/s, got 'fast/s'"));
}

static void test_all_cgroup_keys(void)
{
	static const char text[] = "[cgroup \"/a\"]\n"
				   "oom_policy = none\n"
				   "preference = prefer\n"
				   "bias = 1000\n"
				   "delegate = off\n"
				   "margin = 7.25%\n"
				   "guard_band = 16K\n"
				   "[cgroup \"/b\"]\n"
				   "preference = omit\n"
				   "bias = -1000\n"
				   "guard_band = no\n"
				   "[cgroup \"/c\"]\n"
				   "preference = none\n"
				   "bias = +0\n";
	struct cgoom_config c;
	struct cgoom_config_error e;
	CHECK_EQ_INT(parse(text, &c, &e), 0);
	CHECK_EQ_U64(c.n_cgroups, 3);
	const struct cgoom_cgroup_conf *a = &c.cgroups[0], *b = &c.cgroups[1], *cc = &c.cgroups[2];
	CHECK(a->has_policy && a->policy == CGOOM_POLICY_NONE);
	CHECK(a->has_pref && a->pref == CGOOM_PREF_PREFER);
	CHECK(a->has_bias && a->bias == 1000);
	CHECK(a->has_delegate && !a->delegate);
	CHECK(a->has_margin && a->margin.is_percent);
	CHECK_EQ_U64(a->margin.value, 725);
	CHECK(a->has_guard_band);
	CHECK_EQ_U64(a->guard_band, 16 * KiB);
	CHECK(!b->has_policy && b->has_pref && b->pref == CGOOM_PREF_OMIT);
	CHECK_EQ_INT(b->bias, -1000);
	CHECK(b->has_guard_band && b->guard_band == 0);
	CHECK_EQ_INT(b->line, 8);
	CHECK_EQ_INT(b->pref_line, 9);
	CHECK_EQ_INT(b->bias_line, 10);
	CHECK(cc->has_pref && cc->pref == CGOOM_PREF_NONE);
	CHECK(cc->has_bias && cc->bias == 0);
	cgoom_config_free(&c);
}

static void test_booleans(void)
{
	static const char *const yes[] = { "yes", "YES", "true", "True", "on", "ON", "1" };
	static const char *const no[] = { "no", "No", "false", "FALSE", "off", "Off", "0" };
	char text[128];
	for (int v = 0; v < 2; v++)
		for (size_t i = 0; i < 7; i++) {
			struct cgoom_config c;
			struct cgoom_config_error e;
			snprintf(text, sizeof(text), "[cgroup \"/x\"]\ndelegate = %s\n", v ? yes[i] : no[i]);
			CHECK_EQ_INT(parse(text, &c, &e), 0);
			CHECK(c.cgroups[0].has_delegate);
			CHECK_EQ_INT(c.cgroups[0].delegate, v);
			cgoom_config_free(&c);
		}
	CHECK(expect_error("[cgroup \"/x\"]\ndelegate = maybe\n", 2, "delegate must be yes or no, got 'maybe'"));
	CHECK(expect_error("[cgroup \"/x\"]\ndelegate = 2\n", 2, "delegate must be yes or no"));
}

static void test_enum_values(void)
{
	struct cgoom_config c;
	struct cgoom_config_error e;
	CHECK_EQ_INT(parse("[cgroup \"/x\"]\noom_policy = \"cgroup\"\n", &c, &e), 0);
	CHECK_EQ_INT(c.cgroups[0].policy, CGOOM_POLICY_CGROUP);
	cgoom_config_free(&c);
	CHECK(expect_error("[cgroup \"/x\"]\noom_policy = Tree\n", 2,
			   "oom_policy must be none, cgroup or tree, got 'Tree'"));
	CHECK(expect_error("[cgroup \"/x\"]\noom_policy = trees\n", 2, "got 'trees'"));
	CHECK(expect_error("[cgroup \"/x\"]\n\npreference = never\n", 3,
			   "preference must be omit, avoid, none or prefer, got 'never'"));
}

/* ---- comments and whitespace ----------------------------------------- */

static void test_comments(void)
{
	static const char text[] = "# hash comment\n"
				   "; semicolon comment\n"
				   "   # indented comment\n"
				   "\t; indented with a tab\n"
				   "[daemon] # after a header\n"
				   "kill_wait = 5s # trailing hash\n"
				   "term_grace = 1s ; trailing semicolon\n"
				   "event_log = /var/log/a#b;c\n"
				   "metrics_file = \"/x # not a comment\" # a comment\n"
				   "[cgroup \"/a\"] ; after a header\n"
				   "bias = 5\t# after a tab\n";
	struct cgoom_config c;
	struct cgoom_config_error e;
	CHECK_EQ_INT(parse(text, &c, &e), 0);
	CHECK_EQ_U64(c.kill_wait_us, 5 * SEC);
	CHECK_EQ_U64(c.term_grace_us, 1 * SEC);
	CHECK_STREQ(c.event_log, "/var/log/a#b;c"); /* not preceded by whitespace */
	CHECK_STREQ(c.metrics_file, "/x # not a comment");
	CHECK_EQ_U64(c.n_cgroups, 1);
	CHECK_EQ_INT(c.cgroups[0].bias, 5);
	cgoom_config_free(&c);
}

static void test_whitespace_variants(void)
{
	static const char text[] = "  [ daemon ]  \n"
				   "\tkill_wait\t=\t3s\t\n"
				   "term_grace=2s\n"
				   "margin   =5%\n"
				   "pre_kill_hook =   /bin/hook  arg  \n"
				   "[cgroup   \"/a\"   ]\n"
				   "bias=-7\n";
	struct cgoom_config c;
	struct cgoom_config_error e;
	CHECK_EQ_INT(parse(text, &c, &e), 0);
	CHECK_EQ_U64(c.kill_wait_us, 3 * SEC);
	CHECK_EQ_U64(c.term_grace_us, 2 * SEC);
	CHECK_EQ_U64(c.margin.value, 500);
	CHECK_STREQ(c.pre_kill_hook, "/bin/hook  arg");
	CHECK_EQ_INT(c.cgroups[0].bias, -7);
	cgoom_config_free(&c);
}

static void test_crlf(void)
{
	static const char text[] = "[daemon]\r\n"
				   "kill_wait = 4s\r\n"
				   "event_log = /log\r\n"
				   "\r\n"
				   "[cgroup \"/a\"]\r\n"
				   "oom_policy = tree # c\r\n"
				   "preference = prefer"; /* no final newline */
	struct cgoom_config c;
	struct cgoom_config_error e;
	CHECK_EQ_INT(parse(text, &c, &e), 0);
	CHECK_EQ_U64(c.kill_wait_us, 4 * SEC);
	CHECK_STREQ(c.event_log, "/log");
	CHECK_EQ_INT(c.cgroups[0].policy, CGOOM_POLICY_TREE);
	CHECK_EQ_INT(c.cgroups[0].pref, CGOOM_PREF_PREFER);
	CHECK_EQ_INT(c.cgroups[0].pref_line, 7);
	cgoom_config_free(&c);
	/* a lone CR inside a line is a control character */
	CHECK(expect_error("[daemon]\nkill_wait = 4s\r \n", 2, "control character 0x0d"));
	/* line numbers count CRLF lines */
	CHECK(expect_error("[daemon]\r\n\r\nfoo = 1\r\n", 3, "unknown key 'foo' in [daemon]"));
}

static void test_quoted_values(void)
{
	static const char text[] = "[daemon]\n"
				   "pre_kill_hook = \"  /bin/sh -c \\\"echo \\\\o/\\\"  \"\n"
				   "event_log = \"\"\n"
				   "metrics_file = \"/m;x\"   ; trailing\n";
	struct cgoom_config c;
	struct cgoom_config_error e;
	CHECK_EQ_INT(parse(text, &c, &e), 0);
	CHECK_STREQ(c.pre_kill_hook, "  /bin/sh -c \"echo \\o/\"  ");
	CHECK(!c.event_log); /* empty means unset */
	CHECK_STREQ(c.metrics_file, "/m;x");
	cgoom_config_free(&c);
	CHECK(expect_error("[daemon]\nevent_log = \"/x\" y\n", 2, "unexpected text after the quoted value"));
	/* the files the daemon writes are absolute: a relative one would be
	 * relative to wherever it was started (/ under systemd) */
	CHECK(expect_error("[daemon]\nevent_log = events.jsonl\n", 2,
			   "event_log must be an absolute path, as /var/log/cgoom/events.jsonl (a relative "
			   "one would depend on the directory cgoom was started in), got 'events.jsonl'"));
	CHECK(expect_error("[daemon]\nmetrics_file = \"var/lib/cgoom/cgoom.prom\"\n", 2,
			   "metrics_file must be an absolute path, as /var/lib/cgoom/cgoom.prom"));
	CHECK(expect_error("[daemon]\nmetrics_file = ./cgoom.prom\n", 2, "got './cgoom.prom'"));
	/* a hook's ' ;' would cut a shell list short: refused; quoted, or
	 * with '#' comments, or ';' without a space before it, it stands */
	CHECK(expect_error("[daemon]\npost_kill_hook = logger -t cgoom killed ; touch /run/cgoom/k\n", 2,
			   "post_kill_hook: ' ;' starts a comment here, so only 'logger -t cgoom killed' "
			   "would run: quote the whole command (post_kill_hook = \"...\") or put the "
			   "comment on its own line"));
	CHECK(expect_error("[daemon]\npre_kill_hook = a\t; b\n", 2, "only 'a' would run"));
	{
		struct cgoom_config h;
		struct cgoom_config_error he;
		CHECK_EQ_INT(parse("[daemon]\npre_kill_hook = \"a ; b\" ; the hook\n"
				   "post_kill_hook = a;b   # the hook\n"
				   "event_log = /x ; a comment\n",
				   &h, &he),
			     0);
		CHECK_STREQ(h.pre_kill_hook, "a ; b");
		CHECK_STREQ(h.post_kill_hook, "a;b");
		CHECK_STREQ(h.event_log, "/x");
		cgoom_config_free(&h);
	}
	CHECK(expect_error("[daemon]\nevent_log = \"/x\\n\"\n", 2, "invalid escape '\\n'"));
}

static void test_repeated_sections_merge(void)
{
	static const char text[] = "[cgroup \"/a\"]\n"
				   "oom_policy = tree\n"
				   "[daemon]\n"
				   "kill_wait = 1s\n"
				   "[cgroup \"/b\"]\n"
				   "bias = 1\n"
				   "[cgroup \"//a/\"]\n"
				   "bias = 2\n"
				   "[daemon]\n"
				   "term_grace = 1s\n";
	struct cgoom_config c;
	struct cgoom_config_error e;
	CHECK_EQ_INT(parse(text, &c, &e), 0);
	CHECK_EQ_U64(c.n_cgroups, 2);
	CHECK_STREQ(c.cgroups[0].path, "/a");
	CHECK_EQ_INT(c.cgroups[0].line, 1);
	CHECK(c.cgroups[0].has_policy && c.cgroups[0].has_bias);
	CHECK_EQ_INT(c.cgroups[0].bias, 2);
	CHECK_EQ_INT(c.cgroups[0].bias_line, 8);
	CHECK_STREQ(c.cgroups[1].path, "/b");
	CHECK_EQ_U64(c.kill_wait_us, 1 * SEC);
	CHECK_EQ_U64(c.term_grace_us, 1 * SEC);
	cgoom_config_free(&c);
	/* merged sections are one section: a key still may not repeat */
	CHECK(expect_error("[cgroup \"/a\"]\nbias = 1\n[cgroup \"/b\"]\n[cgroup \"/a/\"]\nbias = 2\n", 5,
			   "key 'bias' already set on line 2"));
	CHECK(expect_error("[daemon]\nkill_wait = 1s\n[daemon]\nkill_wait = 2s\n", 4,
			   "key 'kill_wait' already set on line 2"));
}

static void test_cgroup_paths_in_headers(void)
{
	static const char text[] = "[cgroup \"/system.slice/a b.service\"]\n"
				   "bias = 1\n"
				   "[cgroup \"/q\\\"uote/back\\\\slash\"]\n"
				   "bias = 2\n"
				   "[cgroup \"///\"]\n"
				   "oom_policy = cgroup\n";
	struct cgoom_config c;
	struct cgoom_config_error e;
	CHECK_EQ_INT(parse(text, &c, &e), 0);
	CHECK_EQ_U64(c.n_cgroups, 3);
	CHECK_STREQ(c.cgroups[0].path, "/system.slice/a b.service");
	CHECK_STREQ(c.cgroups[1].path, "/q\"uote/back\\slash");
	CHECK_STREQ(c.cgroups[2].path, "/");
	CHECK(cgoom_config_find(&c, "/") == &c.cgroups[2]);
	cgoom_config_free(&c);
}

/* ---- paths and lookup ------------------------------------------------ */

static void test_path_normalize(void)
{
	static const struct {
		const char *in, *out;
	} ok[] = {
		{ "/a//b/", "/a/b" }, { "/", "/" },   { "//", "/" },         { "/a", "/a" },
		{ "///a///", "/a" },  { "/a.b/..c/...", "/a.b/..c/..." }, { "/ a /b c", "/ a /b c" },
	};
	char buf[64];
	for (size_t i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
		CHECK_EQ_INT(cgoom_path_normalize(ok[i].in, buf, sizeof(buf)), 0);
		CHECK_STREQ(buf, ok[i].out);
	}
	static const char *const bad[] = { "a", "", "a/b", "/a/./b", "/a/../b", "/..", "/.", "/a/.", "/a\nb",
					   "/a\x7f" };
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		strcpy(buf, "untouched");
		CHECK_EQ_INT(cgoom_path_normalize(bad[i], buf, sizeof(buf)), -EINVAL);
		CHECK_STREQ(buf, "untouched");
	}
	CHECK_EQ_INT(cgoom_path_normalize(NULL, buf, sizeof(buf)), -EINVAL);
	/* capacity: "/a/b" needs 5 bytes */
	CHECK_EQ_INT(cgoom_path_normalize("/a//b/", buf, 5), 0);
	CHECK_STREQ(buf, "/a/b");
	strcpy(buf, "untouched");
	CHECK_EQ_INT(cgoom_path_normalize("/a//b/", buf, 4), -ENOBUFS);
	CHECK_STREQ(buf, "untouched");
	CHECK_EQ_INT(cgoom_path_normalize("//", buf, 2), 0);
	CHECK_STREQ(buf, "/");
	CHECK_EQ_INT(cgoom_path_normalize("/", buf, 1), -ENOBUFS);
}

static void test_config_find(void)
{
	struct cgoom_config c;
	struct cgoom_config_error e;
	CHECK_EQ_INT(parse("[cgroup \"/a/b/\"]\nbias = 3\n[cgroup \"/a\"]\n[cgroup \"/\"]\n", &c, &e), 0);
	CHECK_EQ_U64(c.n_cgroups, 3);
	const struct cgoom_cgroup_conf *ab = cgoom_config_find(&c, "/a/b");
	CHECK(ab);
	CHECK_EQ_INT(ab->bias, 3);
	CHECK(cgoom_config_find(&c, "/a") == &c.cgroups[1]);
	CHECK(cgoom_config_find(&c, "/") == &c.cgroups[2]);
	CHECK(!cgoom_config_find(&c, "/a/b/")); /* exact match only */
	CHECK(!cgoom_config_find(&c, "/b"));
	CHECK(!cgoom_config_find(&c, "/a/b/c"));
	CHECK(!cgoom_config_find(&c, NULL));
	CHECK(!cgoom_config_find(NULL, "/a"));
	/* a section without keys exists, with nothing set */
	const struct cgoom_cgroup_conf *a = cgoom_config_find(&c, "/a");
	CHECK(!a->has_policy && !a->has_pref && !a->has_bias && !a->has_delegate);
	CHECK_EQ_INT(a->line, 3);
	cgoom_config_free(&c);

	struct cgoom_config empty;
	cgoom_config_init(&empty);
	CHECK(!cgoom_config_find(&empty, "/"));
}

static void test_many_sections(void)
{
	/* enough to make the arrays grow several times */
	size_t n = 300, cap = n * 40 + 1;
	char *buf = malloc(cap);
	CHECK(buf);
	size_t l = 0;
	for (size_t i = 0; i < n; i++)
		l += (size_t)snprintf(buf + l, cap - l, "[cgroup \"/s%zu\"]\nbias = %d\n", i, (int)(i % 1000));
	struct cgoom_config c;
	struct cgoom_config_error e;
	int r = parse(buf, &c, &e);
	free(buf);
	CHECK_EQ_INT(r, 0);
	CHECK_EQ_U64(c.n_cgroups, n);
	const struct cgoom_cgroup_conf *g = cgoom_config_find(&c, "/s299");
	CHECK(g);
	CHECK_EQ_INT(g->bias, 299);
	CHECK_EQ_INT(g->line, 599);
	CHECK_EQ_INT(g->bias_line, 600);
	cgoom_config_free(&c);
}

int main(void)
{
	return tap_run((struct tap_test[]){
		TAP(test_thrash_keys),
		TAP(test_rate_range),
		TAP(test_spec_example),
		TAP(test_spec_defaults_block),
		TAP(test_defaults),
		TAP(test_empty_inputs_are_defaults),
		TAP(test_all_daemon_keys),
		TAP(test_all_cgroup_keys),
		TAP(test_booleans),
		TAP(test_enum_values),
		TAP(test_comments),
		TAP(test_whitespace_variants),
		TAP(test_crlf),
		TAP(test_quoted_values),
		TAP(test_repeated_sections_merge),
		TAP(test_cgroup_paths_in_headers),
		TAP(test_path_normalize),
		TAP(test_config_find),
		TAP(test_many_sections),
		{ 0 },
	});
}
