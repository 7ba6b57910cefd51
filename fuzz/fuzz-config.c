/* SPDX-License-Identifier: MIT */
/*
 * cgoom_config_parse() on arbitrary bytes. Beyond "no crash, no leak",
 * checks what the rest of cgoom relies on: a config that parses has
 * normalized absolute unique paths and in-range values; an error names a
 * line that exists and a NUL-terminated message, and leaves no config.
 * Short inputs also go to the value parsers directly.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cgoom/config.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define REQUIRE(cond)            \
	do {                     \
		if (!(cond))     \
			abort(); \
	} while (0)

static void check_share(const struct cgoom_share *s)
{
	REQUIRE(!s->is_percent || s->value <= 10000);
}

static void check_config(const struct cgoom_config *c)
{
	check_share(&c->mem_available_min);
	check_share(&c->swap_free_min);
	check_share(&c->margin);
	REQUIRE(c->psi_full_stall_us > 0);
	REQUIRE(c->psi_full_stall_us <= c->psi_full_window_us);
	REQUIRE(c->psi_full_window_us >= 500000 && c->psi_full_window_us <= 10000000);
	REQUIRE(!c->pre_kill_hook || c->pre_kill_hook[0]);
	REQUIRE(!c->event_log || c->event_log[0]);
	REQUIRE(!c->metrics_file || c->metrics_file[0]);
	REQUIRE((c->n_cgroups == 0) == (c->cgroups == NULL));

	for (size_t i = 0; i < c->n_cgroups; i++) {
		const struct cgoom_cgroup_conf *g = &c->cgroups[i];
		size_t l = strlen(g->path);
		char *again = malloc(l + 1);
		REQUIRE(again);
		REQUIRE(g->path[0] == '/');
		REQUIRE(cgoom_path_normalize(g->path, again, l + 1) == 0);
		REQUIRE(strcmp(again, g->path) == 0);
		free(again);
		REQUIRE(cgoom_config_find(c, g->path) == g); /* so paths are unique */
		REQUIRE(g->line >= 1);
		REQUIRE(g->bias >= CGOOM_BIAS_MIN && g->bias <= CGOOM_BIAS_MAX);
		REQUIRE(!g->has_policy || g->policy_line > g->line);
		REQUIRE(!g->has_pref || g->pref_line > g->line);
		REQUIRE(!g->has_bias || g->bias_line > g->line);
		REQUIRE(cgoom_policy_name(g->policy) && cgoom_pref_name(g->pref));
		REQUIRE(!(l == 1 && g->policy == CGOOM_POLICY_TREE));
		check_share(&g->margin);
		/* patterns: a '*' stays within a component, and every section
		 * matches its own text (a '*' matches a literal '*' too) */
		REQUIRE(!strstr(g->path, "**"));
		unsigned stars = 0;
		for (const char *q = g->path; *q; q++)
			stars += *q == '*';
		REQUIRE(g->n_stars == stars && g->n_literal == l - stars);
		unsigned depth = 0;
		for (const char *q = g->path; *q; q++)
			depth += *q == '/' && q[1];
		REQUIRE(g->depth == depth && (depth == 0) == (l == 1));
		REQUIRE(cgoom_path_match(g->path, g->path));
		REQUIRE(stars == 0 || !cgoom_path_match(g->path, "/")); /* no pattern names the root */
		struct cgoom_conf_match m;
		cgoom_config_match(c, g->path, &m);
		for (int k = 0; k < CGOOM_CONF_KEY_MAX; k++) {
			const struct cgoom_cgroup_conf *w = m.by_key[k];
			REQUIRE(w == cgoom_config_lookup(c, g->path, (enum cgoom_conf_key)k));
			if (!cgoom_conf_has(g, (enum cgoom_conf_key)k)) {
				REQUIRE(!w || cgoom_conf_has(w, (enum cgoom_conf_key)k));
				continue;
			}
			/* g sets it and matches: the winner is g or more specific */
			REQUIRE(w && cgoom_conf_has(w, (enum cgoom_conf_key)k));
			REQUIRE(cgoom_path_match(w->path, g->path));
			REQUIRE(cgoom_conf_line(w, (enum cgoom_conf_key)k) > w->line);
			REQUIRE(w == g || w->n_literal > g->n_literal ||
				(w->n_literal == g->n_literal && w->n_stars <= g->n_stars));
			REQUIRE(stars > 0 || w == g); /* an exact path always wins */
		}
	}
}

static void fuzz_values(const uint8_t *data, size_t size)
{
	char s[65];
	uint64_t v;
	struct cgoom_share sh;

	if (size >= sizeof(s))
		return;
	memcpy(s, data, size);
	s[size] = '\0';
	if (cgoom_parse_size(s, &v) == 0)
		REQUIRE(s[0] >= '0' && s[0] <= '9');
	if (cgoom_parse_share(s, &sh) == 0)
		check_share(&sh);
	(void)cgoom_parse_duration_us(s, &v);
	char out[65];
	if (cgoom_path_normalize(s, out, sizeof(out)) == 0)
		REQUIRE(out[0] == '/' && strlen(out) <= strlen(s));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct cgoom_config c;
	struct cgoom_config_error err;

	memset(&err, 0x55, sizeof(err));
	int r = cgoom_config_parse((const char *)data, size, &c, &err);
	if (r == 0) {
		check_config(&c);
	} else {
		size_t lines = 1;
		for (size_t i = 0; i < size; i++)
			lines += data[i] == '\n';
		REQUIRE(r == -EINVAL || r == -ENOMEM);
		REQUIRE(err.line >= 0 && (size_t)err.line <= lines + 1);
		REQUIRE(memchr(err.msg, '\0', sizeof(err.msg)));
		REQUIRE(err.msg[0]);
		REQUIRE(c.n_cgroups == 0 && !c.cgroups);
		REQUIRE(!c.pre_kill_hook && !c.event_log && !c.metrics_file);
	}
	cgoom_config_free(&c);
	fuzz_values(data, size);
	return 0;
}
