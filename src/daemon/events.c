/* SPDX-License-Identifier: MIT */
/*
 * What the daemon tells the outside world besides its log: the JSON-lines
 * event log (event_log = FILE), Prometheus textfile metrics
 * (metrics_file = FILE, written as FILE.tmp then renamed over FILE) and
 * the pre-kill hook (pre_kill_hook = COMMAND).
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "daemon-internal.h"
#include "log.h"
#include "safe-file.h"

extern char **environ;

/* ---- event log ---- */

void events_close(struct daemon *dm)
{
	if (dm->ev.fd >= 0)
		close(dm->ev.fd);
	dm->ev.fd = -1;
}

/* dm->ev.err and .metrics_err: the last write error of the event log
 * and of the metrics file (0: the last write went through): each
 * failure is logged once when it starts and once when it ends, not once
 * per event or tick (a full filesystem, a missing directory). */

void events_open(struct daemon *dm)
{
	events_close(dm);
	/* the textfile collector globs *.prom: any other name is written
	 * and never read, which nothing else would tell (doc/metrics.md) */
	const char *m = dm->cfg.metrics_file;
	size_t mn = m ? strlen(m) : 0;
	if (m && (mn < 5 || strcmp(m + mn - 5, ".prom") != 0))
		log_warning("metrics_file %s: node_exporter's textfile collector reads only files "
			    "ending in .prom; name it so (e.g. /var/lib/cgoom/cgoom.prom)", m);
	/* ev.err survives a re-open: a full filesystem stays reported
	 * once across a storm of SIGHUPs */
	if (!dm->cfg.event_log)
		return;
	/* root writing into a directory others may write to: no symlink,
	 * FIFO or foreign file (safe-file.h) */
	int r = sfile_open_append(dm->cfg.event_log, &dm->ev.fd);
	if (r < 0) {
		dm->ev.fd = -1;
		log_warning("event_log %s: %s; no event log", dm->cfg.event_log, sfile_strerror(r));
	}
}

static uint64_t clock_us(clockid_t c)
{
	struct timespec ts;
	clock_gettime(c, &ts);
	return (uint64_t)ts.tv_sec * 1000000ULL + (uint64_t)ts.tv_nsec / 1000;
}

void event_emit(struct daemon *dm, const char *name, const struct cgoom_strbuf *fields)
{
	if (dm->ev.fd < 0)
		return;
	struct cgoom_strbuf b = { 0 };
	uint64_t rt = clock_us(CLOCK_REALTIME);
	cgoom_strbuf_printf(&b, "{\"event\": ");
	cgoom_strbuf_json_string(&b, name);
	/* uptime_ms is CLOCK_BOOTTIME, the clock of /proc/uptime: scripts
	 * compare it with their own samples of that file. */
	cgoom_strbuf_printf(&b, ", \"ts\": %llu.%03llu, \"uptime_ms\": %llu, \"pid\": %d",
			    (unsigned long long)(rt / 1000000), (unsigned long long)(rt / 1000 % 1000),
			    (unsigned long long)(clock_us(CLOCK_BOOTTIME) / 1000), (int)getpid());
	if (fields && fields->len > 0) {
		cgoom_strbuf_append(&b, ", ", 2);
		cgoom_strbuf_append(&b, fields->buf, fields->len);
	}
	cgoom_strbuf_append(&b, "}\n", 2);
	if (fields && fields->failed)
		b.failed = true;
	if (!b.failed) {
		/* one write per line: O_APPEND keeps lines whole */
		ssize_t n = write(dm->ev.fd, b.buf, b.len);
		int r = n < 0 ? -errno : (size_t)n != b.len ? -EIO : 0;
		if (r < 0 && r != dm->ev.err)
			log_warning("event_log %s: %s; events are lost until a write succeeds",
				    dm->cfg.event_log, n < 0 ? strerror(-r) : "short write");
		else if (r == 0 && dm->ev.err != 0)
			log_info("event_log %s: writing again", dm->cfg.event_log);
		dm->ev.err = r;
	} else {
		log_warning("event_log: out of memory; %s event dropped", name);
	}
	cgoom_strbuf_free(&b);
}

/* ---- metrics ---- */

static struct metric_row *row(struct daemon *dm, const char *domain)
{
	for (size_t i = 0; i < dm->ev.n_rows; i++)
		if (strcmp(dm->ev.rows[i].domain, domain) == 0)
			return &dm->ev.rows[i];
	if (cgfs_grow(&dm->ev.rows, &dm->ev.cap_rows, dm->ev.n_rows + 1, sizeof(*dm->ev.rows)) < 0)
		return NULL;
	struct metric_row *r = &dm->ev.rows[dm->ev.n_rows];
	memset(r, 0, sizeof(*r));
	r->domain = strdup(domain);
	if (!r->domain)
		return NULL;
	dm->ev.n_rows++;
	return r;
}

void metrics_trigger(struct daemon *dm, const char *domain, enum cgoom_trigger kind)
{
	struct metric_row *r = row(dm, domain);
	if (r && (unsigned)kind < CGOOM_TRIGGER_N_)
		r->triggers[kind]++;
}

void metrics_kill(struct daemon *dm, const char *domain, enum cgoom_policy policy,
		  uint64_t reaction_us)
{
	struct metric_row *r = row(dm, domain);
	if (r && (unsigned)policy < CGOOM_POLICY_MAX)
		r->kills[policy]++;
	dm->ev.have_reaction = true;
	dm->ev.last_reaction_us = reaction_us;
}

void metrics_kernel_oom(struct daemon *dm, const char *domain, uint64_t n)
{
	struct metric_row *r = row(dm, domain);
	if (r)
		r->kernel_oom_kills += n;
}

void metrics_storm_hold(struct daemon *dm, const char *domain)
{
	struct metric_row *r = row(dm, domain);
	if (r)
		r->storm_holds++;
}

void metrics_kill_freed(struct daemon *dm, const char *domain, uint64_t freed, uint64_t expected,
			bool short_)
{
	struct metric_row *r = row(dm, domain);
	if (!r)
		return;
	r->freed_bytes += freed;
	r->expected_bytes += expected;
	r->kills_short += short_;
}

/* A Prometheus label value: backslash, double quote and newline escaped. */
void metrics_label(struct cgoom_strbuf *b, const char *s)
{
	cgoom_strbuf_append(b, "\"", 1);
	for (; *s; s++) {
		if (*s == '\\' || *s == '"')
			cgoom_strbuf_printf(b, "\\%c", *s);
		else if (*s == '\n')
			cgoom_strbuf_append(b, "\\n", 2);
		else
			cgoom_strbuf_append(b, s, 1);
	}
	cgoom_strbuf_append(b, "\"", 1);
}

static void render(struct daemon *dm, struct cgoom_strbuf *b)
{
	cgoom_strbuf_printf(b, "# HELP cgoom_up Whether the cgoom daemon is running.\n"
			       "# TYPE cgoom_up gauge\ncgoom_up %d\n", dm->quit ? 0 : 1);
	size_t n_domains = 0, n_polled = 0;
	for (size_t i = 0; i < dm->n_domains; i++) {
		n_domains += !dm->domains[i]->dead;
		n_polled += i > 0 && !dm->domains[i]->dead && !dm->domains[i]->kept;
	}
	cgoom_strbuf_printf(b, "# HELP cgoom_domains Domains watched (the system and each memcg with a finite memory.max).\n"
			       "# TYPE cgoom_domains gauge\ncgoom_domains %zu\n", n_domains);
	cgoom_strbuf_printf(b, "# HELP cgoom_domains_polled Domains whose files the fd budget does not keep open (opened for each sample).\n"
			       "# TYPE cgoom_domains_polled gauge\ncgoom_domains_polled %zu\n", n_polled);
	cgoom_strbuf_printf(b, "# HELP cgoom_kills_total Victims killed by cgoom.\n"
			       "# TYPE cgoom_kills_total counter\n");
	for (size_t i = 0; i < dm->ev.n_rows; i++)
		for (int p = 0; p < CGOOM_POLICY_MAX; p++) {
			if (!dm->ev.rows[i].kills[p])
				continue;
			cgoom_strbuf_printf(b, "cgoom_kills_total{domain=");
			metrics_label(b, dm->ev.rows[i].domain);
			cgoom_strbuf_printf(b, ",policy=\"%s\"} %llu\n", cgoom_policy_name(p),
					    (unsigned long long)dm->ev.rows[i].kills[p]);
		}
	cgoom_strbuf_printf(b, "# HELP cgoom_triggers_total Triggers that fired.\n"
			       "# TYPE cgoom_triggers_total counter\n");
	for (size_t i = 0; i < dm->ev.n_rows; i++)
		for (int k = 1; k < CGOOM_TRIGGER_N_; k++) {
			if (!dm->ev.rows[i].triggers[k])
				continue;
			cgoom_strbuf_printf(b, "cgoom_triggers_total{domain=");
			metrics_label(b, dm->ev.rows[i].domain);
			cgoom_strbuf_printf(b, ",kind=\"%s\"} %llu\n", cgoom_trigger_name(k),
					    (unsigned long long)dm->ev.rows[i].triggers[k]);
		}
	cgoom_strbuf_printf(b, "# HELP cgoom_kernel_oom_kills_total Kernel OOM kills observed.\n"
			       "# TYPE cgoom_kernel_oom_kills_total counter\n");
	for (size_t i = 0; i < dm->ev.n_rows; i++) {
		if (!dm->ev.rows[i].kernel_oom_kills)
			continue;
		cgoom_strbuf_printf(b, "cgoom_kernel_oom_kills_total{domain=");
		metrics_label(b, dm->ev.rows[i].domain);
		cgoom_strbuf_printf(b, "} %llu\n", (unsigned long long)dm->ev.rows[i].kernel_oom_kills);
	}
	storm_metrics_render(dm, b);
	if (dm->ev.have_reaction)
		cgoom_strbuf_printf(b, "# HELP cgoom_last_reaction_seconds From trigger detection to the signal, last kill.\n"
				       "# TYPE cgoom_last_reaction_seconds gauge\n"
				       "cgoom_last_reaction_seconds %llu.%06llu\n",
				    (unsigned long long)(dm->ev.last_reaction_us / 1000000),
				    (unsigned long long)(dm->ev.last_reaction_us % 1000000));
	pressure_metrics(dm, b);
}

void metrics_write(struct daemon *dm)
{
	const char *path = dm->cfg.metrics_file;
	if (!path)
		return;
	struct cgoom_strbuf b = { 0 };
	render(dm, &b);
	if (b.failed) {
		log_warning("metrics_file: out of memory");
		goto out_free;
	}
	/* FILE.tmp with O_EXCL|O_NOFOLLOW, renamed over FILE (safe-file.h) */
	bool tmp_bad = false;
	int r = sfile_replace(path, b.buf, b.len, &tmp_bad);
	if (r < 0 && r != dm->ev.metrics_err)
		log_warning("metrics_file %s%s: %s; not updated until this clears", path,
			    tmp_bad ? ".tmp" : "", sfile_strerror(r));
	else if (r == 0 && dm->ev.metrics_err != 0)
		log_info("metrics_file %s: written again", path);
	dm->ev.metrics_err = r;
out_free:
	cgoom_strbuf_free(&b);
}

void metrics_free(struct daemon *dm)
{
	for (size_t i = 0; i < dm->ev.n_rows; i++)
		free(dm->ev.rows[i].domain);
	free(dm->ev.rows);
	dm->ev.rows = NULL;
	dm->ev.cap_rows = 0;
	dm->ev.n_rows = 0;
}

void metrics_retire(const char *old, const char *now)
{
	int r = sfile_remove(old);
	if (r == 0)
		log_info("metrics_file %s: no longer written (now %s): removed", old, now ? now : "none");
	else if (r != -ENOENT)
		log_warning("metrics_file %s: no longer written (now %s), and not removed: %s", old,
			    now ? now : "none", sfile_strerror(r));
}

/* ---- pre-kill hook ---- */

static uint64_t mono_ms(void)
{
	return cgfs_now_us() / 1000;
}

/* Starts `/bin/sh -c cmd` with default signal handling and a pipe on its
 * stdin: *ret_pid, *ret_wfd (the pipe's write end). 0 or -errno. */
static int hook_spawn(const char *cmd, pid_t *ret_pid, int *ret_wfd)
{
	int p[2];
	if (pipe2(p, O_CLOEXEC) < 0)
		return -errno;
	posix_spawn_file_actions_t fa;
	posix_spawnattr_t at;
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_adddup2(&fa, p[0], 0);
	posix_spawnattr_init(&at);
	/* the daemon blocks its signals for signalfd: give the hook defaults */
	sigset_t none, def;
	sigemptyset(&none);
	sigemptyset(&def);
	sigaddset(&def, SIGPIPE);
	sigaddset(&def, SIGTERM);
	sigaddset(&def, SIGINT);
	sigaddset(&def, SIGHUP);
	posix_spawnattr_setsigmask(&at, &none);
	posix_spawnattr_setsigdefault(&at, &def);
	posix_spawnattr_setflags(&at, POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
	pid_t pid;
	char *argv[] = { "/bin/sh", "-c", (char *)cmd, NULL };
	int r = posix_spawn(&pid, "/bin/sh", &fa, &at, argv, environ);
	posix_spawn_file_actions_destroy(&fa);
	posix_spawnattr_destroy(&at);
	close(p[0]);
	if (r != 0) {
		close(p[1]);
		return -r;
	}
	*ret_pid = pid;
	*ret_wfd = p[1];
	return 0;
}

int hook_run(struct daemon *dm, const char *json, size_t len)
{
	const char *cmd = dm->cfg.pre_kill_hook;
	if (!cmd || !cmd[0])
		return 0;
	pid_t pid;
	int wfd;
	int r = hook_spawn(cmd, &pid, &wfd);
	if (r < 0) {
		log_warning("pre_kill_hook: spawning /bin/sh: %s", strerror(-r));
		return r;
	}
	int p[2] = { -1, wfd };
	/* feed stdin without blocking: a hook that never reads must not stall us */
	fcntl(p[1], F_SETFL, O_NONBLOCK);
	size_t off = 0;
	uint64_t deadline = mono_ms() + CGOOM_HOOK_TIMEOUT_MS;
	int status = -1;
	for (;;) {
		pid_t w = waitpid(pid, &status, WNOHANG);
		if (w == pid)
			break;
		uint64_t now = mono_ms();
		if (now >= deadline) {
			log_warning("pre_kill_hook: still running after %d ms; killed it",
				    CGOOM_HOOK_TIMEOUT_MS);
			kill(pid, SIGKILL);
			waitpid(pid, &status, 0);
			status = -ETIMEDOUT;
			break;
		}
		if (p[1] >= 0 && off < len) {
			ssize_t n = write(p[1], json + off, len - off);
			if (n > 0)
				off += (size_t)n;
			else if (n < 0 && errno != EAGAIN && errno != EINTR)
				off = len; /* EPIPE: it closed stdin; fine */
		}
		if (p[1] >= 0 && off >= len) {
			close(p[1]);
			p[1] = -1;
		}
		/* no pidfd for a child here: a short sleep bounds the wait */
		struct pollfd pf = { .fd = p[1], .events = POLLOUT };
		poll(&pf, p[1] >= 0 ? 1 : 0, 10);
	}
	if (p[1] >= 0)
		close(p[1]);
	if (status >= 0 && !(WIFEXITED(status) && WEXITSTATUS(status) == 0)) {
		if (WIFEXITED(status))
			log_warning("pre_kill_hook exited %d; killing anyway", WEXITSTATUS(status));
		else
			log_warning("pre_kill_hook died of signal %d; killing anyway",
				    WIFSIGNALED(status) ? WTERMSIG(status) : 0);
	}
	return status;
}

void domain_field(struct cgoom_strbuf *b, const struct domain *d)
{
	cgoom_strbuf_printf(b, "\"domain\": ");
	cgoom_strbuf_json_string(b, d->path);
}

/* ---- post_kill_hook: after the signal, never waited for ---- */

/* How long a post_kill_hook may run before it is killed. */
#define POST_HOOK_MAX_US 30000000ULL

void post_hook_start(struct daemon *dm, const char *json, size_t len)
{
	const char *cmd = dm->cfg.post_kill_hook;
	if (!cmd || !cmd[0])
		return;
	struct events *ev = &dm->ev;
	if (ev->n_hooks >= sizeof(ev->hooks) / sizeof(ev->hooks[0])) {
		log_warning("post_kill_hook: %zu still running; this kill's is not started", ev->n_hooks);
		return;
	}
	pid_t pid;
	int wfd;
	int r = hook_spawn(cmd, &pid, &wfd);
	if (r < 0) {
		log_warning("post_kill_hook: spawning /bin/sh: %s", strerror(-r));
		return;
	}
	/* the whole JSON fits in the pipe (grown to it where the kernel
	 * allows), so nothing waits for the hook to read it */
	if (len + 1 > 65536)
		fcntl(wfd, F_SETPIPE_SZ, (int)(len + 1 < (1 << 20) ? len + 1 : (1 << 20)));
	fcntl(wfd, F_SETFL, O_NONBLOCK);
	ssize_t n = write(wfd, json, len);
	if (n >= 0 && (size_t)n == len && write(wfd, "\n", 1) == 1)
		n = (ssize_t)len;
	else
		log_warning("post_kill_hook: the decision did not fit its stdin (%zu bytes)", len);
	close(wfd);
	ev->hooks[ev->n_hooks++] = (struct hook_child){ .pid = pid, .deadline_us = cgfs_now_us() + POST_HOOK_MAX_US };
}

void post_hooks_reap(struct daemon *dm, uint64_t now, bool all)
{
	struct events *ev = &dm->ev;
	size_t j = 0;
	for (size_t i = 0; i < ev->n_hooks; i++) {
		struct hook_child *h = &ev->hooks[i];
		int status;
		pid_t w = waitpid(h->pid, &status, WNOHANG);
		if (w == h->pid) {
			if (!(WIFEXITED(status) && WEXITSTATUS(status) == 0))
				log_warning("post_kill_hook %s %d", WIFEXITED(status) ? "exited" : "died of signal",
					    WIFEXITED(status) ? WEXITSTATUS(status) : WTERMSIG(status));
			continue;
		}
		if (all) { /* at exit: a moment to finish (a notification) */
			for (int t = 0; t < 200 && waitpid(h->pid, &status, WNOHANG) == 0; t++)
				poll(NULL, 0, 10);
			if (waitpid(h->pid, &status, WNOHANG) != 0)
				continue;
		}
		if (all || now >= h->deadline_us) {
			if (!all)
				log_warning("post_kill_hook still running after %llu s; killed it",
					    (unsigned long long)(POST_HOOK_MAX_US / 1000000));
			kill(h->pid, SIGKILL);
			waitpid(h->pid, &status, 0);
			continue;
		}
		ev->hooks[j++] = *h;
	}
	ev->n_hooks = j;
}
