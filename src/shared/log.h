/* SPDX-License-Identifier: MIT */
#pragma once

/* Logging for the CLI and daemon (never the library). Messages go to
 * stderr, one line each, as text ("cgoom: message") or as JSON
 * ({"ts": "2024-05-01T12:34:56.789Z", "level": "info", "priority": 6,
 * "msg": "..."}). When stderr is the journal (JOURNAL_STREAM names the
 * stream stderr is) each line starts with a syslog priority prefix "<N>"
 * that journald strips and records; text lines then drop "cgoom: ".
 * Not thread-safe (one static line buffer: no allocation while logging
 * on the kill path). doc/logging.md describes the formats. */

#include <stdbool.h>

enum cgoom_log_level {
	CGOOM_LOG_ERR = 3,
	CGOOM_LOG_WARNING = 4,
	CGOOM_LOG_NOTICE = 5,
	CGOOM_LOG_INFO = 6,
	CGOOM_LOG_DEBUG = 7,
};

enum cgoom_log_format {
	CGOOM_LOG_TEXT = 0, /* "cgoom: message", or "<N>message" under journald */
	CGOOM_LOG_JSON,     /* one JSON object per line */
};

/* Sets the program name for text lines (NULL keeps it) and decides,
 * from JOURNAL_STREAM and stderr as they are now, whether to prefix "<N>". */
void cgoom_log_init(const char *progname);
/* "text" or "json"; -EINVAL otherwise. */
int cgoom_log_set_format_name(const char *name);
void cgoom_log_set_max_level(enum cgoom_log_level level);
/* "err", "warning", "notice", "info", "debug"; NULL for anything else. */
const char *cgoom_log_level_name(enum cgoom_log_level level);
/* s (n bytes) into out (cap bytes, NUL-terminated): whole when it fits,
 * else its head and tail around " [... N bytes cut ...] " (N: the bytes
 * of s not shown). Messages longer than 2 KiB are logged so: a path of
 * 4 KiB at the head of a line cost the line its verb. */
#include <stddef.h>
void cgoom_log_elide(const char *s, size_t n, char *out, size_t cap);
void cgoom_log(enum cgoom_log_level level, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#define log_error(...) cgoom_log(CGOOM_LOG_ERR, __VA_ARGS__)
#define log_warning(...) cgoom_log(CGOOM_LOG_WARNING, __VA_ARGS__)
#define log_notice(...) cgoom_log(CGOOM_LOG_NOTICE, __VA_ARGS__)
#define log_info(...) cgoom_log(CGOOM_LOG_INFO, __VA_ARGS__)
#define log_debug(...) cgoom_log(CGOOM_LOG_DEBUG, __VA_ARGS__)
