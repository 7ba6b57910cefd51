/* SPDX-License-Identifier: MIT */
#pragma once
/* Helpers for the config parser tests. */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "cgoom/config.h"
#include "tap.h"
/* The configuration file parser (SPEC 7, include/cgoom/config.h). */


#define MS UINT64_C(1000)
#define SEC UINT64_C(1000000)
#define KiB UINT64_C(1024)
#define MiB (KiB * 1024)
#define GiB (MiB * 1024)
#define TiB (GiB * 1024)

static inline int parse(const char *s, struct cgoom_config *c, struct cgoom_config_error *e)
{
	return cgoom_config_parse(s, strlen(s), c, e);
}

static inline bool is_default_and_empty(const struct cgoom_config *c)
{
	struct cgoom_config d;
	cgoom_config_init(&d);
	return c->n_cgroups == 0 && !c->cgroups && !c->pre_kill_hook && !c->event_log &&
	       !c->metrics_file && c->mem_available_min.value == d.mem_available_min.value &&
	       c->psi_full_window_us == d.psi_full_window_us && c->kill_wait_us == d.kill_wait_us;
}

/* Parses (buf, len) expecting -EINVAL on line `line` with a message that
 * contains `want`, and the config left empty. Explains any mismatch. */
static inline bool expect_error_buf(const char *buf, size_t len, int line, const char *want)
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

static inline bool expect_error(const char *text, int line, const char *want)
{
	return expect_error_buf(text, strlen(text), line, want);
}

