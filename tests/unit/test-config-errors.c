/* SPDX-License-Identifier: MIT */
/* Config values (sizes, shares, durations, bias) and every error, with its line and message. */
#include "config-helpers.h"

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
		/* "5": 5 bytes or 5%? refused (-EDOM), see test_bare_shares */
		if (strcmp(bad[i], "5") == 0) {
			CHECK_EQ_INT(r, -EDOM);
			CHECK_EQ_U64(s.value, 42);
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

/* A bare number for a percentage-or-size key was bytes: mem_available_min
 * = 5 switched the system trigger off, margin = 5 was 5 B. Now it is
 * refused with the way out; 0 (the same as 0% and 0B) still stands alone. */
static void test_bare_shares(void)
{
	struct cgoom_share s = { .value = 42 };
	CHECK_EQ_INT(cgoom_parse_share("5", &s), -EDOM);
	CHECK_EQ_INT(cgoom_parse_share("4096", &s), -EDOM);
	CHECK_EQ_INT(cgoom_parse_share("99999999999999999999999", &s), -EDOM);
	CHECK_EQ_U64(s.value, 42);
	CHECK_EQ_INT(cgoom_parse_share("00", &s), 0);
	CHECK(!s.is_percent && s.value == 0);
	CHECK_EQ_INT(cgoom_parse_share("5B", &s), 0);
	CHECK(!s.is_percent && s.value == 5);
	CHECK(expect_error("[daemon]\nmem_available_min = 5\n", 2,
			   "mem_available_min = 5: add % or a size unit, e.g. 5% or 5M"));
	CHECK(expect_error("[daemon]\n\nswap_free_min = 10  # ten\n", 3,
			   "swap_free_min = 10: add % or a size unit, e.g. 10% or 10M"));
	CHECK(expect_error("[daemon]\nmargin = 5\n", 2, "margin = 5: add % or a size unit"));
	CHECK(expect_error("[cgroup \"/a\"]\nmargin = 64\n", 2, "margin = 64: add % or a size unit"));

	struct cgoom_config c;
	struct cgoom_config_error e;
	const char *zero = "[daemon]\nmem_available_min = 0\nswap_free_min = 0\nmargin = 0\n"
			   "[cgroup \"/a\"]\nmargin = 0\n";
	CHECK_EQ_INT(cgoom_config_parse(zero, strlen(zero), &c, &e), 0);
	CHECK(!c.mem_available_min.is_percent && c.mem_available_min.value == 0);
	CHECK(!c.margin.is_percent && c.margin.value == 0);
	CHECK(c.n_cgroups == 1 && c.cgroups[0].has_margin && c.cgroups[0].margin.value == 0);
	cgoom_config_free(&c);
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

/* SPEC 6's kill-storm guard: kill_storm = no | KILLS/WINDOW, in
 * [daemon] and per [cgroup] (the most specific section decides). */
static void test_kill_storm(void)
{
	struct cgoom_config c;
	struct cgoom_config_error e;
	cgoom_config_init(&c);
	CHECK_EQ_INT(c.kill_storm.kills, 3); /* the default, SPEC 6 */
	CHECK_EQ_U64(c.kill_storm.window_us, 60 * SEC);
	CHECK_EQ_INT(parse("[daemon]\nkill_storm = 5 / 30s\n[cgroup \"/ci\"]\nkill_storm = no\n"
			   "[cgroup \"/ci/*\"]\nkill_storm = 64/2h\n",
			   &c, &e),
		     0);
	CHECK_EQ_INT(c.kill_storm.kills, 5);
	CHECK_EQ_U64(c.kill_storm.window_us, 30 * SEC);
	CHECK(c.cgroups[0].has_kill_storm && c.cgroups[0].kill_storm.kills == 0);
	CHECK_EQ_INT(c.cgroups[0].kill_storm_line, 4);
	const struct cgoom_cgroup_conf *g = cgoom_config_lookup(&c, "/ci/job1", CGOOM_CONF_KILL_STORM);
	CHECK(g == &c.cgroups[1] && g->kill_storm.kills == 64 && g->kill_storm.window_us == 7200 * SEC);
	CHECK_EQ_INT(cgoom_conf_line(g, CGOOM_CONF_KILL_STORM), 6);
	CHECK(!cgoom_config_lookup(&c, "/other", CGOOM_CONF_KILL_STORM));
	cgoom_config_free(&c);
	CHECK_EQ_INT(parse("[daemon]\nkill_storm = NO\n", &c, &e), 0);
	CHECK_EQ_INT(c.kill_storm.kills, 0);
	cgoom_config_free(&c);

	CHECK(expect_error("[daemon]\nkill_storm = 3\n", 2, "kill_storm must be 'no' or KILLS/WINDOW like 3/1m, got '3'"));
	CHECK(expect_error("[daemon]\nkill_storm = 3/60\n", 2, "kill_storm must be 'no' or KILLS/WINDOW"));
	CHECK(expect_error("[daemon]\nkill_storm = x/1m\n", 2, "kill_storm must be 'no' or KILLS/WINDOW"));
	CHECK(expect_error("[daemon]\nkill_storm = -1/1m\n", 2, "kill_storm must be 'no' or KILLS/WINDOW"));
	CHECK(expect_error("[daemon]\nkill_storm = /1m\n", 2, "kill_storm must be 'no' or KILLS/WINDOW"));
	CHECK(expect_error("[daemon]\nkill_storm = 0/1m\n", 2, "kill_storm allows 1 to 64 kills per window (or 'no'), got '0/1m'"));
	CHECK(expect_error("[daemon]\nkill_storm = 65/1m\n", 2, "kill_storm allows 1 to 64 kills"));
	CHECK(expect_error("[daemon]\nkill_storm = 99999999999999999999999/1m\n", 2, "kill_storm allows 1 to 64 kills"));
	CHECK(expect_error("[daemon]\nkill_storm = 3/0s\n", 2, "kill_storm window must be longer than 0"));
	CHECK(expect_error("[cgroup \"/a\"]\nkill_storm = 3/1m/2m\n", 2, "kill_storm must be 'no' or KILLS/WINDOW"));
	CHECK(expect_error("[cgroup \"/a\"]\nkill_storm = 3/1m\nkill_storm = 4/1m\n", 3, "already set on line 2"));
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
	strcpy(buf, "[daemon]\nevent_log = /");
	l = strlen(buf);
	size_t fill = CGOOM_CONFIG_LINE_MAX - strlen("event_log = /");
	memset(buf + l, 'x', fill);
	strcpy(buf + l + fill, "\r\n");
	struct cgoom_config c;
	struct cgoom_config_error e;
	int r = parse(buf, &c, &e);
	free(buf);
	CHECK_EQ_INT(r, 0);
	CHECK_EQ_U64(strlen(c.event_log), fill + 1);
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

int main(void)
{
	return tap_run((struct tap_test[]){
		TAP(test_sizes),
		TAP(test_size_errors_in_config),
		TAP(test_shares),
		TAP(test_bare_shares),
		TAP(test_share_of),
		TAP(test_durations),
		TAP(test_duration_errors_in_config),
		TAP(test_psi_full),
		TAP(test_kill_storm),
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
		{ 0 },
	});
}
