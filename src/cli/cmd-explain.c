/* SPDX-License-Identifier: MIT */
/* explain and kill: both select exactly the same way; kill then acts. */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <time.h>

#include "cgfs.h"
#include "cgoom/explain.h"
#include "cli.h"
#include "facts.h"
#include "kill.h"
#include "log.h"

static int print_buf(struct cgoom_strbuf *b, bool newline)
{
	if (b->failed) {
		log_error("out of memory");
		cgoom_strbuf_free(b);
		return EXIT_RUNTIME;
	}
	fputs(b->buf ? b->buf : "", stdout);
	if (newline)
		fputc('\n', stdout);
	cgoom_strbuf_free(b);
	return cli_stdout_flush() == 0 ? EXIT_OK : EXIT_RUNTIME;
}

/* What can be told wrong with the arguments before anything is read. */
static int check_args(const struct cli_opts *o)
{
	if (o->n_args > 1) {
		log_error("%s takes at most one DOMAIN", o->verb);
		return EXIT_USAGE;
	}
	char norm[4096];
	return o->n_args ? cli_check_path(o->args[0], norm, sizeof(norm)) : EXIT_OK;
}

/* Loads, finds the domain and selects. On success *ret_domain is set. */
static int decide(const struct cli_opts *o, struct cli_ctx *c, struct cgoom_decision *d)
{
	int rc = check_args(o);
	if (rc != EXIT_OK)
		return rc;
	rc = cli_load_lazy(o, c);
	if (rc != EXIT_OK)
		return rc;
	int domain = cli_find_memcg(c, o->n_args ? o->args[0] : "/");
	if (domain < 0)
		return -domain;
	int r = cgoom_select_lazy(c->rd, &c->snap, &c->settings, domain, d);
	if (r < 0) {
		const char *where = cgoom_reader_error_where();
		log_error("selecting in %s: %s", c->snap.cgroups[domain].path,
			  where[0] ? where : cgoom_select_strerror(r));
		return EXIT_RUNTIME;
	}
	return EXIT_OK;
}

/* explain --watch remembers the swap in use, for its rate. */
struct swap_seen {
	bool have, system;
	uint64_t used, at_us;
};

/* The domain's memory facts (swap, zram, PSI: cgoom/facts.h) after the
 * ranking: a "memory:" line, or a "memory" member of the JSON object. */
static void facts(const struct cli_opts *o, struct cli_ctx *c, const struct cgoom_decision *d,
		  struct swap_seen *prev, struct cgoom_strbuf *b)
{
	struct cgoom_memory_facts f;
	if (d->domain < 0 || (size_t)d->domain >= c->snap.n_cgroups ||
	    cgoom_memory_facts_read(&c->roots, c->snap.cgroups[d->domain].path,
				    cgoom_roots_are_live(&c->roots), &f) < 0)
		return;
	uint64_t now = cgfs_now_us();
	if (prev && prev->have && prev->system == f.system && now > prev->at_us) {
		f.have_prev = true;
		f.prev_swap_used = prev->used;
		f.prev_age_us = now - prev->at_us;
	}
	if (o->json) {
		/* the explain object ends with its closing brace: the facts go
		 * in before it */
		if (b->len == 0 || b->buf[b->len - 1] != '}')
			return;
		b->len--;
		cgoom_strbuf_printf(b, ", \"memory\": ");
		cgoom_memory_facts_json(b, &f);
		cgoom_strbuf_printf(b, "}");
	} else {
		cgoom_memory_facts_text(b, &f);
	}
	if (prev)
		*prev = (struct swap_seen){ .have = f.swap_ok, .system = f.system, .used = f.swap_used,
					    .at_us = now };
}

static void show(const struct cli_opts *o, struct cli_ctx *c, struct cgoom_decision *d,
		 struct swap_seen *prev, int *rc)
{
	struct cgoom_strbuf b = { 0 };
	if (o->json)
		cgoom_explain_json(&b, &c->snap, &c->settings, d);
	else
		cgoom_explain_text(&b, &c->snap, &c->settings, d);
	facts(o, c, d, prev, &b);
	*rc = print_buf(&b, o->json);
}

static int explain_once(const struct cli_opts *o, struct swap_seen *prev)
{
	struct cli_ctx c = { 0 }; /* freed on every path, the early ones too */
	struct cgoom_decision d;
	cgoom_decision_init(&d);
	int rc = decide(o, &c, &d);
	if (rc == EXIT_OK)
		show(o, &c, &d, prev, &rc);
	cgoom_decision_free(&d);
	cli_ctx_free(&c);
	return rc;
}

int cmd_explain(const struct cli_opts *o)
{
	if (!o->watch_ms)
		return explain_once(o, NULL);
	/* a bad DOMAIN ("--watch 5": the period goes after '=') is told on
	 * the screen as it was, not cleared first */
	int rc = check_args(o);
	if (rc != EXIT_OK) {
		if (o->n_args == 1 && strspn(o->args[0], "0123456789.") == strlen(o->args[0]))
			log_error("(--watch takes its period after '=': --watch=%s)", o->args[0]);
		return rc;
	}
	struct swap_seen prev = { 0 };
	/* the screen is cleared only on a terminal: into a pipe or a file
	 * each period follows the last (a log of them, not escape codes) */
	const char *clear = isatty(STDOUT_FILENO) ? "\033[H\033[2J" : "\n";
	/* --watch: a fresh snapshot each period, like watch(1); a usage or
	 * config error stops it, a runtime hiccup does not */
	for (;;) {
		time_t now = time(NULL);
		char ts[64];
		strftime(ts, sizeof(ts), "%F %T", localtime(&now));
		if (!o->json)
			printf("%s%s, every %.1fs (Ctrl-C to stop)\n", clear, ts, o->watch_ms / 1000.0);
		rc = explain_once(o, &prev);
		if (cli_stdout_flush() < 0)
			return EXIT_RUNTIME;
		if (rc == EXIT_USAGE)
			return rc;
		struct timespec ts_sleep = { o->watch_ms / 1000, (long)(o->watch_ms % 1000) * 1000000 };
		nanosleep(&ts_sleep, NULL);
	}
}

static uint64_t now_ms(void)
{
	return cgfs_now_us() / 1000;
}

/* Waits until every signalled target's pidfd is readable (it exited) or
 * the deadline passes; returns how many are still alive. */
static int wait_dead(struct cgoom_kill_result *res, uint64_t wait_ms)
{
	uint64_t deadline = now_ms() + wait_ms;
	for (;;) {
		struct pollfd fds[64];
		size_t n = 0;
		int alive = 0;
		for (size_t i = 0; i < res->n_targets; i++) {
			struct cgoom_kill_target *t = &res->targets[i];
			if (!t->signalled || t->pidfd < 0)
				continue;
			struct pollfd p = { .fd = t->pidfd, .events = POLLIN };
			if (poll(&p, 1, 0) == 1)
				continue;
			alive++;
			if (n < 64)
				fds[n++] = p;
		}
		uint64_t now = now_ms();
		if (alive == 0 || now >= deadline)
			return alive;
		int left = (int)(deadline - now);
		(void)poll(fds, n, left < 100 ? left : 100);
	}
}

int cmd_kill(const struct cli_opts *o)
{
	struct cli_ctx c = { 0 }; /* freed on every path, the early ones too */
	struct cgoom_decision d;
	struct cgoom_kill_result res = { 0 };
	cgoom_decision_init(&d);
	int rc = decide(o, &c, &d);
	if (rc != EXIT_OK)
		goto out;
	/* a usage error, as for run (SPEC 8): these roots are not for killing */
	if (!o->dry_run && !cgoom_roots_are_live(&c.roots)) {
		log_error("refusing to kill: %s is not a cgroup2 mount or %s is not procfs "
			  "(use --dry-run on a fixture tree)",
			  c.roots.cgroup_path, c.roots.proc_path);
		rc = EXIT_USAGE;
		goto out;
	}
	show(o, &c, &d, NULL, &rc);
	if (rc != EXIT_OK)
		goto out;
	if (!d.has_victim) {
		struct cgoom_strbuf why = { 0 };
		cgoom_explain_reason(&why, &c.snap, &d);
		log_error("nothing killed: %s", why.buf ? why.buf : "");
		cgoom_strbuf_free(&why);
		rc = EXIT_RUNTIME;
		goto out;
	}
	if (o->dry_run) {
		printf("dry run: would kill %zu process%s with %s\n", d.n_pids, d.n_pids == 1 ? "" : "es",
		       d.use_cgroup_kill ? "cgroup.kill" : "pidfd");
		goto out;
	}
	int r = cgoom_kill(&c.roots, &c.snap, &d, SIGKILL, &res);
	if (r < 0) {
		log_error("kill failed: %s", strerror(-r));
		rc = EXIT_RUNTIME;
		goto out;
	}
	int alive = wait_dead(&res, c.cfg.kill_wait_us / 1000);
	for (size_t i = 0; i < res.n_targets; i++) {
		const struct cgoom_kill_target *t = &res.targets[i];
		if (t->signalled)
			printf("killed %d via %s\n", t->pid, res.used_cgroup_kill ? "cgroup.kill" : "pidfd");
		else
			printf("skipped %d: %s%s\n", t->pid, t->err ? strerror(-t->err) : "vanished or reused",
			       t->err == -EPERM ? " (another user's process: signalling it needs root or "
						  "CAP_KILL)"
						: "");
	}
	if (alive > 0)
		log_warning("%d killed process%s still exiting after %llu ms", alive, alive == 1 ? "" : "es",
			    (unsigned long long)(c.cfg.kill_wait_us / 1000));
	cli_killed = res.n_signalled > 0;
	cli_stdout_flush();
	rc = res.n_signalled > 0 ? EXIT_OK : EXIT_RUNTIME;
out:
	cgoom_kill_result_free(&res);
	cgoom_decision_free(&d);
	cli_ctx_free(&c);
	return rc;
}
