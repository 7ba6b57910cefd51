/* SPDX-License-Identifier: MIT */
/*
 * cgoom: the command line. Global options may stand before or after the
 * verb; verb options anywhere after it.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "daemon.h"
#include "log.h"

static void usage(FILE *f)
{
	fputs("usage: cgoom [GLOBAL OPTIONS] VERB [ARGS]\n"
	      "\n"
	      "  run     [--dry-run]               the daemon\n"
	      "  explain [DOMAIN] [--json] [--watch[=SECONDS]] [--full]\n"
	      "                                    rank and show the victim, kill nothing\n"
	      "  kill    [DOMAIN] [--dry-run] [--full]\n"
	      "                                    select and kill once, now\n"
	      "  (--full: read every cgroup whole; by default cgroups that cannot win\n"
	      "   are bounded by memory.current + memory.swap.current + the kernel's\n"
	      "   unflushed stat error and not read)\n"
	      "  policy  CGROUP [none|cgroup|tree] read or set a policy\n"
	      "\n"
	      "DOMAIN and CGROUP are paths from the cgroup root, as /system.slice (default /).\n"
	      "\n"
	      "global options:\n"
	      "  --cgroup-root DIR   cgroup2 mount (default /sys/fs/cgroup)\n"
	      "  --proc-root DIR     procfs mount (default /proc)\n"
	      "  --config FILE       settings (default /etc/cgoom.conf; missing default = none)\n"
	      "  --log-format text|json   log lines as text (journald priority prefixes under\n"
	      "                      systemd) or as JSON objects\n"
	      "  --version, --help\n"
	      "\n"
	      "exit status: 0 success, 1 runtime failure, 2 usage or config error\n",
	      f);
}

/* "--name VALUE" or "--name=VALUE"; advances *i past a separate value. */
static int take_value(int argc, char **argv, int *i, const char *name, const char **ret)
{
	size_t n = strlen(name);
	const char *a = argv[*i];
	if (strncmp(a, name, n) != 0)
		return 0;
	if (a[n] == '=') {
		*ret = a + n + 1;
		return 1;
	}
	if (a[n] != '\0')
		return 0;
	if (*i + 1 >= argc) {
		log_error("%s needs a value", name);
		return -1;
	}
	*ret = argv[++*i];
	return 1;
}

static int parse_args(int argc, char **argv, struct cli_opts *o)
{
	bool no_more_opts = false;
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		if (!no_more_opts && a[0] == '-' && a[1] != '\0') {
			if (strcmp(a, "--") == 0) {
				no_more_opts = true;
				continue;
			}
			if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
				usage(stdout);
				return 1; /* done */
			}
			if (strcmp(a, "--version") == 0) {
				printf("cgoom %s\n", CGOOM_VERSION);
				return 1; /* done */
			}
			if (strcmp(a, "--json") == 0) {
				o->json = true;
				continue;
			}
			if (strcmp(a, "--watch") == 0 || strncmp(a, "--watch=", 8) == 0) {
				double secs = 2.0;
				char *end = NULL;
				if (a[7] == '=') {
					/* decimal only: strtod also takes 0x10, 1e1, " 5" */
					const char *v = a + 8;
					size_t n = strspn(v, "0123456789"), frac = 0;
					if (v[n] == '.')
						frac = strspn(v + n + 1, "0123456789");
					size_t len = n + (v[n] == '.' ? 1 + frac : 0);
					secs = n + frac == 0 || v[len] ? -1 : strtod(v, &end);
					if (secs < 0 || end == v || *end || !(secs >= 0.1 && secs <= 3600)) {
						log_error("--watch=SECONDS takes 0.1 to 3600, not '%s'", a + 8);
						return -1;
					}
				}
				o->watch_ms = (unsigned)(secs * 1000);
				continue;
			}
			if (strcmp(a, "--dry-run") == 0) {
				o->dry_run = true;
				continue;
			}
			if (strcmp(a, "--full") == 0) {
				o->full = true;
				continue;
			}
			int r;
			if ((r = take_value(argc, argv, &i, "--cgroup-root", &o->cgroup_root)) ||
			    (r = take_value(argc, argv, &i, "--proc-root", &o->proc_root)) ||
			    (r = take_value(argc, argv, &i, "--config", &o->config)) ||
			    (r = take_value(argc, argv, &i, "--log-format", &o->log_format))) {
				if (r < 0)
					return -1;
				if (o->config && !o->config_given)
					o->config_given = true;
				continue;
			}
			log_error("unknown option '%s' (see --help)", a);
			return -1;
		}
		if (!o->verb)
			o->verb = a;
		else if (o->n_args < (int)(sizeof(o->args) / sizeof(o->args[0])))
			o->args[o->n_args++] = a;
		else {
			log_error("too many arguments");
			return -1;
		}
	}
	return 0;
}

static int cli_main(int argc, char **argv);

/* Output that could not be written (a full disk, a closed pipe or
 * stdout) is an error, said with its reason and exit 1, as gnulib's
 * close_stdout has it: `cgoom policy /x > /dev/full` exited 0, and
 * explain exited 1 without a word. */
static int stdout_done(int rc)
{
	if (cli_stdout_flush() == 0 || cli_killed)
		return rc;
	return rc == EXIT_OK ? EXIT_RUNTIME : rc;
}

int main(int argc, char **argv)
{
	return stdout_done(cli_main(argc, argv));
}

/* --log-format json before the rest is parsed, so that a mistake in the
 * other options is told in JSON too (doc/logging.md: outside the
 * journal every line is JSON); a bad value is told by the parse. */
static void early_log_format(int argc, char **argv)
{
	for (int i = 1; i < argc && strcmp(argv[i], "--") != 0; i++) {
		const char *v = NULL;
		if (strncmp(argv[i], "--log-format=", 13) == 0)
			v = argv[i] + 13;
		else if (strcmp(argv[i], "--log-format") == 0 && i + 1 < argc)
			v = argv[i + 1];
		if (v)
			(void)cgoom_log_set_format_name(v);
	}
}

static int cli_main(int argc, char **argv)
{
	cgoom_log_init("cgoom");
	early_log_format(argc, argv);
	struct cli_opts o = {
		.cgroup_root = "/sys/fs/cgroup",
		.proc_root = "/proc",
	};
	int r = parse_args(argc, argv, &o);
	if (r > 0)
		return EXIT_OK;
	if (r < 0)
		return EXIT_USAGE;
	if (o.log_format && cgoom_log_set_format_name(o.log_format) < 0) {
		log_error("--log-format takes text or json, not '%s'", o.log_format);
		return EXIT_USAGE;
	}
	if (o.config && !o.config[0]) {
		log_error("--config needs a file name");
		return EXIT_USAGE;
	}
	if (!o.cgroup_root[0] || !o.proc_root[0]) {
		log_error("%s needs a directory", !o.cgroup_root[0] ? "--cgroup-root" : "--proc-root");
		return EXIT_USAGE;
	}
	static const char *const verbs[] = { "run", "explain", "kill", "policy" };
	bool known = false, config_is_verb = false;
	for (size_t i = 0; i < sizeof(verbs) / sizeof(verbs[0]); i++) {
		known = known || (o.verb && strcmp(o.verb, verbs[i]) == 0);
		config_is_verb = config_is_verb || (o.config && strcmp(o.config, verbs[i]) == 0);
	}
	/* "--config explain [/]": the verb was taken as the file */
	if (!known && config_is_verb) {
		log_error("no verb: --config took '%s' as its FILE (write --config FILE %s)", o.config,
			  o.config);
		return EXIT_USAGE;
	}
	if (!o.verb) {
		usage(stderr);
		return EXIT_USAGE;
	}
	/* the verb first: an option misapplied to a verb that does not exist
	 * is not the problem */
	if (!known) {
		log_error("unknown verb '%s' (see --help)", o.verb);
		return EXIT_USAGE;
	}
	bool selects = strcmp(o.verb, "explain") == 0 || strcmp(o.verb, "kill") == 0;
	/* SPEC 8: --json is explain's (kill's lines after the object would
	 * make its output no JSON) */
	if (o.json && strcmp(o.verb, "explain") != 0) {
		log_error("--json applies to explain only");
		return EXIT_USAGE;
	}
	if (o.watch_ms && strcmp(o.verb, "explain") != 0) {
		log_error("--watch applies to explain only");
		return EXIT_USAGE;
	}
	if (o.full && !selects) {
		log_error("--full applies to explain and kill only");
		return EXIT_USAGE;
	}
	if (o.dry_run && strcmp(o.verb, "kill") != 0 && strcmp(o.verb, "run") != 0) {
		log_error("--dry-run does not apply to '%s'", o.verb);
		return EXIT_USAGE;
	}
	if (strcmp(o.verb, "explain") == 0)
		return cmd_explain(&o);
	if (strcmp(o.verb, "kill") == 0)
		return cmd_kill(&o);
	if (strcmp(o.verb, "run") == 0) {
		if (o.n_args) {
			log_error("run takes no arguments");
			return EXIT_USAGE;
		}
		struct cgoom_daemon_opts d = { .cgroup_root = o.cgroup_root, .proc_root = o.proc_root,
					       .config = o.config, .config_given = o.config_given,
					       .dry_run = o.dry_run };
		return cgoom_daemon_run(&d);
	}
	return cmd_policy(&o);
}
