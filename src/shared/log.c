/* SPDX-License-Identifier: MIT */
/*
 * Logging to stderr, as text or as JSON lines. The daemon logs on its kill
 * path, so a line is built in a stack buffer (no allocation) and handed to
 * stderr with one write, which keeps concurrent writers' lines whole.
 */
#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cgoom/strbuf.h"
#include "log.h"

/* Longest message kept; longer ones lose their middle (on a byte, which
 * the JSON escaper copes with: a cut UTF-8 sequence becomes \u00XX
 * escapes), so both the head (whose line it is) and the tail (what
 * happened: "sent SIGKILL ...") stay. Formatted in FMT_MAX first. */
#define MSG_MAX 2048
#define FMT_MAX (MSG_MAX * 8)
/* JSON escaping grows a byte to at most 6 ("\u00XX"); the rest of the
 * object (ts, level, priority, keys) needs well under 128 bytes. */
#define LINE_MAX_ (MSG_MAX * 6 + 128)

static const char *prog = "cgoom";
static enum cgoom_log_level max_level = CGOOM_LOG_INFO;
static bool journal;
static enum cgoom_log_format format = CGOOM_LOG_TEXT;

int cgoom_log_set_format_name(const char *name)
{
	if (strcmp(name, "text") == 0)
		format = CGOOM_LOG_TEXT;
	else if (strcmp(name, "json") == 0)
		format = CGOOM_LOG_JSON;
	else
		return -EINVAL;
	return 0;
}

/* systemd sets JOURNAL_STREAM=DEV:INO for the stream it connected to
 * stdout/stderr; stderr is the journal only if it is still that stream
 * (not, say, redirected to a file by a script run from a unit). */
static bool stderr_is_journal(void)
{
	const char *e = getenv("JOURNAL_STREAM");
	if (!e || !*e)
		return false;
	unsigned long long dev, ino;
	char tail;
	if (sscanf(e, "%llu:%llu%c", &dev, &ino, &tail) != 2)
		return false;
	struct stat st;
	if (fstat(STDERR_FILENO, &st) < 0)
		return false;
	return (unsigned long long)st.st_dev == dev && (unsigned long long)st.st_ino == ino;
}

void cgoom_log_init(const char *progname)
{
	if (progname)
		prog = progname;
	journal = stderr_is_journal();
}

void cgoom_log_set_max_level(enum cgoom_log_level level)
{
	max_level = level;
}

const char *cgoom_log_level_name(enum cgoom_log_level level)
{
	switch (level) {
	case CGOOM_LOG_ERR:
		return "err";
	case CGOOM_LOG_WARNING:
		return "warning";
	case CGOOM_LOG_NOTICE:
		return "notice";
	case CGOOM_LOG_INFO:
		return "info";
	case CGOOM_LOG_DEBUG:
		return "debug";
	}
	return NULL;
}

/* Appends to a fixed buffer; past its end appends are dropped (the
 * caller sized it so that does not happen). */
struct line {
	char buf[LINE_MAX_];
	size_t len;
};

static void put(struct line *l, const char *s, size_t n)
{
	if (n > sizeof(l->buf) - l->len)
		n = sizeof(l->buf) - l->len;
	memcpy(l->buf + l->len, s, n);
	l->len += n;
}

__attribute__((format(printf, 2, 3))) static void putf(struct line *l, const char *fmt, ...)
{
	size_t room = sizeof(l->buf) - l->len;
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(l->buf + l->len, room, fmt, ap);
	va_end(ap);
	if (n > 0)
		l->len += (size_t)n < room ? (size_t)n : room - 1;
}

/* A JSON string literal: '"', '\\', control bytes and bytes that are not
 * valid UTF-8 escaped, so the line is valid JSON whatever the message. */
static void put_json_string(struct line *l, const char *str)
{
	const unsigned char *s = (const unsigned char *)str;
	put(l, "\"", 1);
	while (*s) {
		size_t n = cgoom_utf8_len(s);
		if (*s == '"' || *s == '\\') {
			char e[2] = { '\\', (char)*s };
			put(l, e, 2);
			s++;
		} else if (*s == '\n') {
			put(l, "\\n", 2);
			s++;
		} else if (*s == '\t') {
			put(l, "\\t", 2);
			s++;
		} else if (*s < 0x20 || *s == 0x7f || n == 0) {
			putf(l, "\\u%04x", *s);
			s++;
		} else {
			put(l, (const char *)s, n);
			s += n;
		}
	}
	put(l, "\"", 1);
}

/* The text formats' message: control bytes, DEL and bytes that are not
 * valid UTF-8 as \xNN (as explain's text and the decision block write a
 * cgroup name), so a cgroup named with a CR or an escape sequence (any
 * delegated user can make one) cannot rewrite a line on a terminal or in
 * a file, and the journal gets one readable entry. Backslashes stay: the
 * decision block's names come here escaped already. */
static void put_text(struct line *l, const char *str)
{
	const unsigned char *s = (const unsigned char *)str;
	while (*s) {
		size_t n = cgoom_utf8_len(s);
		if (*s < 0x20 || *s == 0x7f || n == 0) {
			putf(l, "\\x%02x", *s);
			s++;
		} else {
			put(l, (const char *)s, n);
			s += n;
		}
	}
}

/* "2024-05-01T12:34:56.789Z": RFC 3339, UTC, milliseconds. */
static void put_timestamp(struct line *l)
{
	struct timespec ts;
	struct tm tm;
	char when[32];
	if (clock_gettime(CLOCK_REALTIME, &ts) < 0 || !gmtime_r(&ts.tv_sec, &tm) ||
	    strftime(when, sizeof(when), "%Y-%m-%dT%H:%M:%S", &tm) == 0) {
		put(l, "null", 4);
		return;
	}
	putf(l, "\"%s.%03ldZ\"", when, ts.tv_nsec / 1000000L);
}

void cgoom_log_elide(const char *s, size_t n, char *out, size_t cap)
{
	if (cap == 0)
		return;
	if (n < cap) {
		memcpy(out, s, n);
		out[n] = '\0';
		return;
	}
	/* the mark says how many bytes it stands for: its own length and
	 * that count settle in a round or two */
	char mark[64];
	size_t mk = 0, keep = cap - 1;
	for (int round = 0; round < 3; round++) {
		int m = snprintf(mark, sizeof(mark), " [... %zu bytes cut ...] ", n - keep);
		mk = m > 0 && (size_t)m < cap / 2 ? (size_t)m : 0;
		if (cap - 1 - mk == keep)
			break;
		keep = cap - 1 - mk;
	}
	size_t head = keep / 2, tail = keep - head;
	memcpy(out, s, head);
	memcpy(out + head, mark, mk);
	memcpy(out + head + mk, s + n - tail, tail);
	out[head + mk + tail] = '\0';
}

void cgoom_log(enum cgoom_log_level level, const char *fmt, ...)
{
	if (level > max_level)
		return;
	int saved = errno;
	/* too big for a thread's stack to be polite: one line, shared by the
	 * loop and the preparation threads, so one of them at a time (each
	 * line whole on stderr, none garbled by another's) */
	static struct line l;
	static char whole[FMT_MAX], msg[MSG_MAX];
	static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
	pthread_mutex_lock(&lock);
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(whole, sizeof(whole), fmt, ap);
	va_end(ap);
	if (n < 0)
		n = 0;
	else if ((size_t)n >= sizeof(whole))
		n = sizeof(whole) - 1;
	cgoom_log_elide(whole, (size_t)n, msg, sizeof(msg));
	l.len = 0;
	/* journald strips "<N>" and records N as the priority; in JSON mode
	 * the journal's MESSAGE is then exactly the JSON object */
	if (journal)
		putf(&l, "<%d>", (int)level);
	if (format == CGOOM_LOG_JSON) {
		const char *name = cgoom_log_level_name(level);
		put(&l, "{\"ts\": ", 7);
		put_timestamp(&l);
		putf(&l, ", \"level\": \"%s\", \"priority\": %d, \"msg\": ", name ? name : "info",
		     (int)level);
		put_json_string(&l, msg);
		put(&l, "}", 1);
	} else {
		if (!journal)
			putf(&l, "%s: ", prog);
		put_text(&l, msg);
	}
	/* the newline always fits: cut the line short if it must */
	if (l.len >= sizeof(l.buf))
		l.len = sizeof(l.buf) - 1;
	l.buf[l.len++] = '\n';
	fwrite(l.buf, 1, l.len, stderr);
	fflush(stderr);
	pthread_mutex_unlock(&lock);
	errno = saved;
}
