/* SPDX-License-Identifier: MIT */
/* The configuration file parser (SPEC 7, include/cgoom/config.h). */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cgoom/config.h"
#include "tap.h"

#define MS UINT64_C(1000)
#define SEC UINT64_C(1000000)
#define KiB UINT64_C(1024)
#define MiB (KiB * 1024)
#define GiB (MiB * 1024)
#define TiB (GiB * 1024)

static int parse(const char *s, struct cgoom_config *c, struct cgoom_config_error *e)
{
	return cgoom_config_parse(s, strlen(s), c, e);
}

static bool is_default_and_empty(const struct cgoom_config *c)
{
	struct cgoom_config d;
	cgoom_config_init(&d);
	return c->n_cgroups == 0 && !c->cgroups && !c->pre_kill_hook && !c->event_log &&
	       !c->metrics_file && c->mem_available_min.value == d.mem_available_min.value &&
	       c->psi_full_window_us == d.psi_full_window_us && c->kill_wait_us == d.kill_wait_us;
}

/* Parses (buf, len) expecting -EINVAL on line `line` with a message that
 * contains `want`, and the config left empty. Explains any mismatch. */
static bool expect_error_buf(const char *buf, size_t len, int line, const char *want)
{
	struct cgoom_config c;
	struct cgoom_config_error e;
	memset(&e, 'x', sizeof(e));
	int r = cgoom_config_parse(buf, len, &c, &e);
	bool ok = true;
	if (r != -EINVAL) {
		printf("# expected -EINVAL, got %d\n", r);
		ok = false;
	} else if (!memchr(e.msg, '\0', sizeof(e.msg))) {
		printf("# message not NUL-terminated\n");
		ok = false;
	} else if (e.line != line || !strstr(e.msg, want)) {
		printf("# got %d: %s\n# want %d: ...%s...\n", e.line, e.msg, line, want);
		ok = false;
	} else if (!is_default_and_empty(&c)) {
		printf("# config not left empty after an error\n");
		ok = false;
	}
	cgoom_config_free(&c);
	return ok;
}

static bool expect_error(const char *text, int line, const char *want)
{
	return expect_error_buf(text, strlen(text), line, want);
}

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
	CHECK(!c.pre_kill_hook && !c.event_log && !c.metrics_file);
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
				   "event_log = /var/log/cgoom.jsonl\n"
				   "metrics_file = /var/lib/node_exporter/cgoom.prom\n";
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
	CHECK_STREQ(c.event_log, "/var/log/cgoom.jsonl");
	CHECK_STREQ(c.metrics_file, "/var/lib/node_exporter/cgoom.prom");
	CHECK_EQ_U64(c.n_cgroups, 0);
	cgoom_config_free(&c);
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

/* ---- value parsers --------------------------------------------------- */

static void test_sizes(void)
{
	static const struct {
		const char *s;
		uint64_t v;
	} ok[] = {
		{ "0", 0 },
		{ "123", 123 },
		{ "123B", 123 },
		{ "64K", 64 * KiB },
		{ "64M", 64 * MiB },
		{ "1G", GiB },
		{ "1T", TiB },
		{ "64MiB", 64 * MiB },
		{ "64MB", 64 * MiB },
		{ "64k", 64 * KiB },
		{ "64m", 64 * MiB },
		{ "2g", 2 * GiB },
		{ "0K", 0 },
		{ "16777215T", 16777215 * TiB },
		{ "18446744073709551615", UINT64_MAX },
	};
	for (size_t i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
		uint64_t v = 1;
		CHECK_EQ_INT(cgoom_parse_size(ok[i].s, &v), 0);
		CHECK_EQ_U64(v, ok[i].v);
	}
	static const char *const bad[] = { "", "M", "-1", "+1", " 1", "1 ", "1.5G", "1X", "1Mi", "1MiBx",
					   "1iB", "0x10", "1GG", "1e3" };
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		uint64_t v = 42;
		CHECK_EQ_INT(cgoom_parse_size(bad[i], &v), -EINVAL);
		CHECK_EQ_U64(v, 42); /* untouched on failure */
	}
	uint64_t v = 42;
	CHECK_EQ_INT(cgoom_parse_size("18446744073709551616", &v), -ERANGE);
	CHECK_EQ_INT(cgoom_parse_size("16777216T", &v), -ERANGE);
	CHECK_EQ_INT(cgoom_parse_size("17179869184G", &v), -ERANGE);
	CHECK_EQ_INT(cgoom_parse_size("99999999999999999999999999K", &v), -ERANGE);
	CHECK_EQ_U64(v, 42);
}

static void test_size_errors_in_config(void)
{
	CHECK(expect_error("[daemon]\nguard_band = 64Q\n", 2, "guard_band must be 'no' or a size like 32M, got '64Q'"));
	CHECK(expect_error("[daemon]\nguard_band = 99999999999T\n", 2, "guard_band size is out of range"));
	CHECK(expect_error("[cgroup \"/a\"]\nguard_band = yes\n", 2, "guard_band must be 'no' or a size"));
}

static void test_shares(void)
{
	static const struct {
		const char *s;
		bool pct;
		uint64_t v;
	} ok[] = {
		{ "5%", true, 500 },     { "2.5%", true, 250 },  { "2.55%", true, 255 },
		{ "100%", true, 10000 }, { "0%", true, 0 },      { "100.00%", true, 10000 },
		{ "0.01%", true, 1 },    { "64M", false, 64 * MiB }, { "0", false, 0 },
	};
	for (size_t i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
		struct cgoom_share s = { 0 };
		CHECK_EQ_INT(cgoom_parse_share(ok[i].s, &s), 0);
		CHECK_EQ_INT(s.is_percent, ok[i].pct);
		CHECK_EQ_U64(s.value, ok[i].v);
	}
	static const char *const bad[] = { "", "%", "5", "5 %", ".5%", "5.%", "5.555%", "-5%", "5%%", "x%", "5%x" };
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct cgoom_share s = { .value = 42 };
		int r = cgoom_parse_share(bad[i], &s);
		/* "5" is a valid size: 5 bytes */
		if (strcmp(bad[i], "5") == 0) {
			CHECK_EQ_INT(r, 0);
			CHECK(!s.is_percent && s.value == 5);
			continue;
		}
		if (r != -EINVAL)
			printf("# share '%s' -> %d\n", bad[i], r);
		CHECK_EQ_INT(r, -EINVAL);
		CHECK_EQ_U64(s.value, 42);
	}
	struct cgoom_share s;
	CHECK_EQ_INT(cgoom_parse_share("101%", &s), -ERANGE);
	CHECK_EQ_INT(cgoom_parse_share("100.01%", &s), -ERANGE);
	CHECK_EQ_INT(cgoom_parse_share("99999999999999999999999%", &s), -ERANGE);
	CHECK(expect_error("[daemon]\nmem_available_min = 101%\n", 2, "mem_available_min is out of range"));
	CHECK(expect_error("[daemon]\nswap_free_min = lots\n", 2,
			   "swap_free_min must be a percentage like 5% or a size like 64M, got 'lots'"));
	CHECK(expect_error("[cgroup \"/a\"]\nmargin = 5 %\n", 2, "margin must be a percentage"));
}

static void test_share_of(void)
{
	struct cgoom_share pct5 = { true, 500 }, pct100 = { true, 10000 }, pct0 = { true, 0 };
	struct cgoom_share frac = { true, 1 }, abs64 = { false, 64 * MiB };
	CHECK_EQ_U64(cgoom_share_of(&pct5, 1000), 50);
	CHECK_EQ_U64(cgoom_share_of(&pct5, 16 * GiB), 16 * GiB / 20);
	CHECK_EQ_U64(cgoom_share_of(&pct100, UINT64_MAX), UINT64_MAX);
	CHECK_EQ_U64(cgoom_share_of(&pct0, UINT64_MAX), 0);
	CHECK_EQ_U64(cgoom_share_of(&frac, 9999), 0);
	CHECK_EQ_U64(cgoom_share_of(&frac, 10000), 1);
	CHECK_EQ_U64(cgoom_share_of(&pct5, UINT64_MAX), UINT64_MAX / 20);
	CHECK_EQ_U64(cgoom_share_of(&abs64, 1), 64 * MiB);
}

static void test_durations(void)
{
	static const struct {
		const char *s;
		uint64_t us;
	} ok[] = {
		{ "100ms", 100 * MS }, { "1s", SEC },  { "2m", 120 * SEC }, { "500us", 500 },
		{ "0s", 0 },           { "0us", 0 },   { "1h", 3600 * SEC }, { "10s", 10 * SEC },
	};
	for (size_t i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
		uint64_t v = 1;
		CHECK_EQ_INT(cgoom_parse_duration_us(ok[i].s, &v), 0);
		CHECK_EQ_U64(v, ok[i].us);
	}
	static const char *const bad[] = { "", "10", "0", "-1s", "+1s", "1 s", "s", "1S", "1sec", "1.5s", "1ns", "ms" };
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		uint64_t v = 42;
		CHECK_EQ_INT(cgoom_parse_duration_us(bad[i], &v), -EINVAL);
		CHECK_EQ_U64(v, 42);
	}
	uint64_t v;
	CHECK_EQ_INT(cgoom_parse_duration_us("18446744073709551615us", &v), 0);
	CHECK_EQ_INT(cgoom_parse_duration_us("18446744073709551616us", &v), -ERANGE);
	CHECK_EQ_INT(cgoom_parse_duration_us("18446744073710s", &v), -ERANGE);
	CHECK_EQ_INT(cgoom_parse_duration_us("99999999999999h", &v), -ERANGE);
}

static void test_duration_errors_in_config(void)
{
	CHECK(expect_error("[daemon]\nkill_wait = 10\n", 2, "kill_wait must be a duration with a unit"));
	CHECK(expect_error("[daemon]\nterm_grace = -1s\n", 2, "term_grace must be a duration with a unit"));
	CHECK(expect_error("[daemon]\nkill_wait = 99999999999999999h\n", 2, "kill_wait duration is out of range"));
}

static void test_psi_full(void)
{
	struct cgoom_config c;
	struct cgoom_config_error e;
	CHECK_EQ_INT(parse("[daemon]\npsi_full = 150ms / 500ms\n", &c, &e), 0);
	CHECK_EQ_U64(c.psi_full_stall_us, 150 * MS);
	CHECK_EQ_U64(c.psi_full_window_us, 500 * MS);
	cgoom_config_free(&c);
	CHECK_EQ_INT(parse("[daemon]\npsi_full = 10s/10s\n", &c, &e), 0);
	CHECK_EQ_U64(c.psi_full_stall_us, 10 * SEC);
	cgoom_config_free(&c);

	CHECK(expect_error("[daemon]\npsi_full = 2s/1s\n", 2, "psi_full stall must not be longer than its window, got '2s/1s'"));
	CHECK(expect_error("[daemon]\npsi_full = 0ms/1s\n", 2, "psi_full stall must be greater than 0"));
	CHECK(expect_error("[daemon]\npsi_full = 100ms/100ms\n", 2, "psi_full window must be between 500ms and 10s"));
	CHECK(expect_error("[daemon]\npsi_full = 1s/11s\n", 2, "psi_full window must be between 500ms and 10s"));
	CHECK(expect_error("[daemon]\npsi_full = 100ms\n", 2, "psi_full must be STALL/WINDOW durations"));
	CHECK(expect_error("[daemon]\npsi_full = 100/1000\n", 2, "psi_full must be STALL/WINDOW durations"));
	CHECK(expect_error("[daemon]\npsi_full = 100ms/1s/2s\n", 2, "psi_full must be STALL/WINDOW durations"));
	CHECK(expect_error("[daemon]\npsi_full = 1ms/99999999999999999999s\n", 2, "psi_full duration is out of range"));
}

static void test_bias(void)
{
	CHECK(expect_error("[cgroup \"/a\"]\nbias = 1001\n", 2, "bias must be an integer in -1000..1000, got '1001'"));
	CHECK(expect_error("[cgroup \"/a\"]\nbias = -1001\n", 2, "bias must be an integer in -1000..1000, got '-1001'"));
	CHECK(expect_error("[cgroup \"/a\"]\nbias = abc\n", 2, "bias must be an integer in -1000..1000, got 'abc'"));
	CHECK(expect_error("[cgroup \"/a\"]\nbias = 1.5\n", 2, "got '1.5'"));
	CHECK(expect_error("[cgroup \"/a\"]\nbias = 99999999999999999999999\n", 2, "bias must be an integer"));
	CHECK(expect_error("[cgroup \"/a\"]\nbias = --5\n", 2, "bias must be an integer"));
}

/* ---- errors ---------------------------------------------------------- */

static void test_error_unknown_key(void)
{
	CHECK(expect_error("[daemon]\n\nfoo = 1\n", 3, "unknown key 'foo' in [daemon]"));
	CHECK(expect_error("[cgroup \"/a/b\"]\nfoo = 1\n", 2, "unknown key 'foo' in [cgroup \"/a/b\"]"));
	CHECK(expect_error("[daemon]\nbias = 1\n", 2, "key 'bias' belongs in a [cgroup \"PATH\"] section"));
	CHECK(expect_error("[cgroup \"/a\"]\nkill_wait = 1s\n", 2, "key 'kill_wait' belongs in [daemon]"));
	CHECK(expect_error("[daemon]\nKill_Wait = 1s\n", 2, "invalid key 'Kill_Wait'"));
}

static void test_error_unknown_section(void)
{
	CHECK(expect_error("# hi\n[server]\n", 2, "unknown section 'server'"));
	CHECK(expect_error("[Daemon]\n", 1, "unknown section 'Daemon'"));
	CHECK(expect_error("[]\n", 1, "empty section name"));
}

static void test_error_key_outside_section(void)
{
	CHECK(expect_error("\n# first\nkill_wait = 1s\n[daemon]\n", 3, "key 'kill_wait' outside of any section"));
}

static void test_error_missing_equals(void)
{
	CHECK(expect_error("[daemon]\nkill_wait 1s\n", 2, "missing '=' after key 'kill_wait'"));
	CHECK(expect_error("[daemon]\nkill_wait\n", 2, "missing '=' after key 'kill_wait'"));
	CHECK(expect_error("[daemon]\n= 1s\n", 2, "missing key before '='"));
}

static void test_error_empty_value(void)
{
	CHECK(expect_error("[daemon]\nkill_wait =\n", 2, "empty value for key 'kill_wait'"));
	CHECK(expect_error("[daemon]\nmargin =   # nothing\n", 2, "empty value for key 'margin'"));
	CHECK(expect_error("[cgroup \"/a\"]\noom_policy = \"\"\n", 2, "empty value for key 'oom_policy'"));
	CHECK(expect_error("[cgroup \"/a\"]\nbias=\n", 2, "empty value for key 'bias'"));
}

static void test_error_bad_paths(void)
{
	CHECK(expect_error("[cgroup \"relative\"]\n", 1, "cgroup path 'relative' is not absolute"));
	CHECK(expect_error("\n[cgroup \"/a/../b\"]\n", 2, "cgroup path '/a/../b' must not contain '.' or '..' components"));
	CHECK(expect_error("[cgroup \"/a/./b\"]\n", 1, "must not contain '.' or '..' components"));
	CHECK(expect_error("[cgroup \"/a/..\"]\n", 1, "must not contain '.' or '..' components"));
	CHECK(expect_error("[cgroup \"\"]\n", 1, "cgroup path is empty"));
	CHECK(expect_error("[cgroup \"/a\tb\"]\n", 1, "cgroup path contains a control character"));
	CHECK(expect_error("[cgroup \"/a\\b\"]\n", 1, "invalid escape '\\b'"));
}

static void test_error_header_syntax(void)
{
	CHECK(expect_error("[cgroup \"/a]\n", 1, "unterminated quote in section header"));
	CHECK(expect_error("[cgroup \"/a\\\"]\n", 1, "unterminated quote in section header"));
	CHECK(expect_error("[daemon\n", 1, "missing ']'"));
	CHECK(expect_error("[cgroup \"/a\"\n", 1, "missing ']'"));
	CHECK(expect_error("[daemon] x\n", 1, "unexpected text after ']': 'x'"));
	CHECK(expect_error("[cgroup \"/a\"]]\n", 1, "unexpected text after ']'"));
	CHECK(expect_error("[cgroup /a]\n", 1, "a cgroup path must be quoted"));
	CHECK(expect_error("[cgroup \"/a\" \"/b\"]\n", 1, "unexpected '\"' in section header"));
	CHECK(expect_error("[cgroup]\n", 1, "section [cgroup] needs a quoted path"));
	CHECK(expect_error("[daemon \"x\"]\n", 1, "section [daemon] takes no name"));
}

static void test_error_unterminated_value_quote(void)
{
	CHECK(expect_error("[daemon]\nevent_log = \"/var/log\n", 2, "unterminated quote in value"));
	CHECK(expect_error("[daemon]\nevent_log = \"/var/log\\\"\n", 2, "unterminated quote in value"));
}

static void test_error_duplicate_key(void)
{
	CHECK(expect_error("[cgroup \"/a\"]\n# x\n\nbias = 1\nbias = 1\n", 5, "key 'bias' already set on line 4"));
	CHECK(expect_error("[cgroup \"/a\"]\ndelegate = yes\ndelegate = no\n", 3, "key 'delegate' already set on line 2"));
	CHECK(expect_error("[daemon]\nevent_log =\nevent_log = /x\n", 3, "key 'event_log' already set on line 2"));
	/* the same key in different sections is fine */
	struct cgoom_config c;
	struct cgoom_config_error e;
	CHECK_EQ_INT(parse("[daemon]\nmargin = 1%\n[cgroup \"/a\"]\nmargin = 1%\n[cgroup \"/b\"]\nmargin = 2%\n", &c, &e), 0);
	CHECK_EQ_U64(c.cgroups[1].margin.value, 200);
	cgoom_config_free(&c);
}

static void test_error_tree_on_root(void)
{
	CHECK(expect_error("[cgroup \"/\"]\noom_policy = tree\n", 2,
			   "oom_policy 'tree' is not allowed on the root cgroup"));
	CHECK(expect_error("[cgroup \"//\"]\n\noom_policy = tree\n", 3, "not allowed on the root cgroup"));
}

static void test_error_nul_byte(void)
{
	static const char text[] = "[daemon]\nkill_wait = 1s\nevent_log = /x\0y\n";
	CHECK(expect_error_buf(text, sizeof(text) - 1, 3, "NUL byte"));
	static const char text2[] = "# comment\0\n";
	CHECK(expect_error_buf(text2, sizeof(text2) - 1, 1, "NUL byte"));
	CHECK(expect_error("[daemon]\n\x1b[31m\n", 2, "control character 0x1b"));
}

static void test_error_long_line(void)
{
	size_t n = 10000;
	char *buf = malloc(n + 32);
	CHECK(buf);
	strcpy(buf, "[daemon]\n# ");
	size_t l = strlen(buf);
	memset(buf + l, 'a', n);
	strcpy(buf + l + n, "\n");
	bool ok = expect_error(buf, 2, "line is longer than 4096 bytes");
	free(buf);
	CHECK(ok);

	/* exactly CGOOM_CONFIG_LINE_MAX is fine */
	buf = malloc(CGOOM_CONFIG_LINE_MAX + 32);
	CHECK(buf);
	strcpy(buf, "[daemon]\nevent_log = ");
	l = strlen(buf);
	size_t fill = CGOOM_CONFIG_LINE_MAX - strlen("event_log = ");
	memset(buf + l, 'x', fill);
	strcpy(buf + l + fill, "\r\n");
	struct cgoom_config c;
	struct cgoom_config_error e;
	int r = parse(buf, &c, &e);
	free(buf);
	CHECK_EQ_INT(r, 0);
	CHECK_EQ_U64(strlen(c.event_log), fill);
	cgoom_config_free(&c);
}

static void test_error_long_values_are_elided(void)
{
	char buf[600];
	strcpy(buf, "[cgroup \"/a\"]\nbias = ");
	size_t l = strlen(buf);
	memset(buf + l, '9', 400);
	strcpy(buf + l + 400, "\n");
	struct cgoom_config c;
	struct cgoom_config_error e;
	CHECK_EQ_INT(parse(buf, &c, &e), -EINVAL);
	CHECK_EQ_INT(e.line, 2);
	CHECK(strstr(e.msg, "...'"));
	CHECK(strlen(e.msg) < sizeof(e.msg) - 1);
	cgoom_config_free(&c);
}

static void test_error_stops_at_first(void)
{
	/* the first error wins, later lines are never looked at */
	CHECK(expect_error("[daemon]\nkill_wait = x\nfoo = 1\n[bad\n", 2, "kill_wait must be a duration"));
	/* and a config with cgroups and strings is freed */
	CHECK(expect_error("[daemon]\nevent_log = /a\n[cgroup \"/a\"]\nbias = 1\n[cgroup \"/b\"]\nbias = x\n", 6,
			   "bias must be an integer"));
}

static void test_error_null_err(void)
{
	struct cgoom_config c;
	CHECK_EQ_INT(cgoom_config_parse("[x]\n", 4, &c, NULL), -EINVAL);
	CHECK(is_default_and_empty(&c));
	cgoom_config_free(&c);
}

static void test_bom(void)
{
	struct cgoom_config c;
	struct cgoom_config_error e;
	CHECK_EQ_INT(parse("\xEF\xBB\xBF[daemon]\nkill_wait = 1s\n", &c, &e), 0);
	CHECK_EQ_U64(c.kill_wait_us, SEC);
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
		TAP(test_sizes),
		TAP(test_size_errors_in_config),
		TAP(test_shares),
		TAP(test_share_of),
		TAP(test_durations),
		TAP(test_duration_errors_in_config),
		TAP(test_psi_full),
		TAP(test_bias),
		TAP(test_error_unknown_key),
		TAP(test_error_unknown_section),
		TAP(test_error_key_outside_section),
		TAP(test_error_missing_equals),
		TAP(test_error_empty_value),
		TAP(test_error_bad_paths),
		TAP(test_error_header_syntax),
		TAP(test_error_unterminated_value_quote),
		TAP(test_error_duplicate_key),
		TAP(test_error_tree_on_root),
		TAP(test_error_nul_byte),
		TAP(test_error_long_line),
		TAP(test_error_long_values_are_elided),
		TAP(test_error_stops_at_first),
		TAP(test_error_null_err),
		TAP(test_bom),
		TAP(test_path_normalize),
		TAP(test_config_find),
		TAP(test_many_sections),
		{ 0 },
	});
}
