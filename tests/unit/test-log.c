/* SPDX-License-Identifier: MIT */
/* Log lines (src/shared/log.c): text and JSON, with and without the
 * journald priority prefix. stderr is pointed at a temporary file and
 * read back after each line. */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "log.h"
#include "tap.h"

static char out[64 * 1024];

/* Empties the captured stderr. */
static int capture_reset(void)
{
	fflush(stderr);
	if (ftruncate(STDERR_FILENO, 0) < 0 || lseek(STDERR_FILENO, 0, SEEK_SET) < 0)
		return -errno;
	return 0;
}

/* What was written to stderr since capture_reset(), NUL-terminated. */
static const char *captured(void)
{
	fflush(stderr);
	ssize_t n = pread(STDERR_FILENO, out, sizeof(out) - 1, 0);
	out[n > 0 ? n : 0] = '\0';
	return out;
}

/* Points JOURNAL_STREAM at stderr (or at something else) and re-inits. */
static void journal_env(bool match)
{
	struct stat st;
	char v[64];
	if (fstat(STDERR_FILENO, &st) < 0)
		return;
	snprintf(v, sizeof(v), "%llu:%llu", (unsigned long long)st.st_dev,
		 (unsigned long long)st.st_ino + (match ? 0 : 1));
	setenv("JOURNAL_STREAM", v, 1);
	cgoom_log_init(NULL);
}

static void plain_env(void)
{
	unsetenv("JOURNAL_STREAM");
	cgoom_log_init("cgoom");
	cgoom_log_set_format_name("text");
	cgoom_log_set_max_level(CGOOM_LOG_INFO);
}

static void test_text(void)
{
	plain_env();
	CHECK(capture_reset() == 0);
	log_info("hello %d", 42);
	log_error("second");
	CHECK_STREQ(captured(), "cgoom: hello 42\ncgoom: second\n");
}

static void test_text_progname(void)
{
	plain_env();
	cgoom_log_init("other");
	CHECK(capture_reset() == 0);
	log_warning("w");
	CHECK_STREQ(captured(), "other: w\n");
}

static void test_text_journal(void)
{
	plain_env();
	journal_env(true);
	CHECK(capture_reset() == 0);
	log_error("e");
	log_warning("w");
	log_notice("n");
	log_info("i");
	CHECK_STREQ(captured(), "<3>e\n<4>w\n<5>n\n<6>i\n");
}

/* JOURNAL_STREAM inherited by a process whose stderr went elsewhere. */
static void test_text_journal_other_stream(void)
{
	plain_env();
	journal_env(false);
	CHECK(capture_reset() == 0);
	log_info("i");
	CHECK_STREQ(captured(), "cgoom: i\n");
	setenv("JOURNAL_STREAM", "garbage", 1);
	cgoom_log_init(NULL);
	CHECK(capture_reset() == 0);
	log_info("j");
	CHECK_STREQ(captured(), "cgoom: j\n");
}

static void test_max_level(void)
{
	plain_env();
	CHECK(capture_reset() == 0);
	log_debug("hidden");
	CHECK_STREQ(captured(), "");
	cgoom_log_set_max_level(CGOOM_LOG_DEBUG);
	log_debug("shown");
	CHECK_STREQ(captured(), "cgoom: shown\n");
	cgoom_log_set_max_level(CGOOM_LOG_ERR);
	log_warning("hidden");
	CHECK_STREQ(captured(), "cgoom: shown\n");
}

static void test_errno_kept(void)
{
	plain_env();
	CHECK(capture_reset() == 0);
	errno = ENOENT;
	log_info("x");
	CHECK_EQ_INT(errno, ENOENT);
}

static void test_format_names(void)
{
	CHECK_EQ_INT(cgoom_log_set_format_name("text"), 0);
	CHECK_EQ_INT(cgoom_log_set_format_name("json"), 0);
	CHECK_EQ_INT(cgoom_log_set_format_name("JSON"), -EINVAL);
	CHECK_EQ_INT(cgoom_log_set_format_name(""), -EINVAL);
	CHECK_STREQ(cgoom_log_level_name(CGOOM_LOG_ERR), "err");
	CHECK_STREQ(cgoom_log_level_name(CGOOM_LOG_WARNING), "warning");
	CHECK_STREQ(cgoom_log_level_name(CGOOM_LOG_NOTICE), "notice");
	CHECK_STREQ(cgoom_log_level_name(CGOOM_LOG_INFO), "info");
	CHECK_STREQ(cgoom_log_level_name(CGOOM_LOG_DEBUG), "debug");
	CHECK(cgoom_log_level_name((enum cgoom_log_level)9) == NULL);
	plain_env();
}

/* Checks s starts with {"ts": "YYYY-MM-DDTHH:MM:SS.mmmZ" near now; returns
 * what follows the timestamp, or NULL. */
static const char *skip_ts(const char *s)
{
	static const char head[] = "{\"ts\": \"";
	if (strncmp(s, head, sizeof(head) - 1) != 0)
		return NULL;
	s += sizeof(head) - 1;
	/* shape first: digits where digits go, separators where they go */
	static const char shape[] = "dddd-dd-ddTdd:dd:dd.dddZ\"";
	for (size_t i = 0; shape[i]; i++) {
		if (shape[i] == 'd' ? !(s[i] >= '0' && s[i] <= '9') : s[i] != shape[i])
			return NULL;
	}
	struct tm tm = { 0 };
	int ms;
	if (sscanf(s, "%4d-%2d-%2dT%2d:%2d:%2d.%3dZ", &tm.tm_year, &tm.tm_mon, &tm.tm_mday,
		   &tm.tm_hour, &tm.tm_min, &tm.tm_sec, &ms) != 7)
		return NULL;
	tm.tm_year -= 1900;
	tm.tm_mon -= 1;
	time_t t = timegm(&tm), now = time(NULL);
	if (t < now - 60 || t > now + 60)
		return NULL; /* UTC, not local time, and roughly now */
	return s + sizeof(shape) - 1;
}

static void test_json(void)
{
	plain_env();
	CHECK(cgoom_log_set_format_name("json") == 0);
	CHECK(capture_reset() == 0);
	log_warning("killed %d in %s", 4242, "/cg3");
	const char *rest = skip_ts(captured());
	CHECK(rest != NULL);
	CHECK_STREQ(rest, ", \"level\": \"warning\", \"priority\": 4, \"msg\": \"killed 4242 in /cg3\"}\n");

	CHECK(capture_reset() == 0);
	log_error("e");
	rest = skip_ts(captured());
	CHECK(rest != NULL);
	CHECK_STREQ(rest, ", \"level\": \"err\", \"priority\": 3, \"msg\": \"e\"}\n");
	plain_env();
}

static void test_text_escaping(void)
{
	/* a cgroup named "w\r<3>cgoom: FORGED \e[2K\tx" (a delegated user
	 * can make one) in a text line: CR, ESC, TAB, DEL and invalid UTF-8
	 * as \xNN, so nothing rewrites the line on a terminal; valid UTF-8
	 * (é) and backslashes (a name escaped already) as they are. Raw
	 * before: the CR and ESC[2K erased the real line */
	plain_env();
	CHECK(capture_reset() == 0);
	log_warning("/w\r<3>cgoom: FORGED \033[2K\tx\x7f \xc3\xa9 \x80 a\\x0d: trigger");
	CHECK_STREQ(captured(), "cgoom: /w\\x0d<3>cgoom: FORGED \\x1b[2K\\x09x\\x7f \xc3\xa9 \\x80 "
				"a\\x0d: trigger\n");
	/* the journal's entry too: one line */
	journal_env(true);
	CHECK(capture_reset() == 0);
	log_warning("/w\r\nx");
	CHECK_STREQ(captured(), "<4>/w\\x0d\\x0ax\n");
	plain_env();
}

static void test_json_escaping(void)
{
	plain_env();
	CHECK(cgoom_log_set_format_name("json") == 0);
	CHECK(capture_reset() == 0);
	/* quote, backslash, newline, tab, control byte, DEL, valid UTF-8
	 * (é, U+00E9), a lone continuation byte and an overlong '/' */
	log_info("a\"b\\c\nd\te\x01 f\x7f g\xc3\xa9 h\x80 i\xc0\xaf");
	const char *rest = skip_ts(captured());
	CHECK(rest != NULL);
	CHECK_STREQ(rest, ", \"level\": \"info\", \"priority\": 6, \"msg\": "
			  "\"a\\\"b\\\\c\\nd\\te\\u0001 f\\u007f g\xc3\xa9 h\\u0080 i\\u00c0\\u00af\"}\n");
	plain_env();
}

static void test_json_journal(void)
{
	plain_env();
	CHECK(cgoom_log_set_format_name("json") == 0);
	journal_env(true);
	CHECK(capture_reset() == 0);
	log_notice("n");
	const char *s = captured();
	CHECK(strncmp(s, "<5>", 3) == 0);
	const char *rest = skip_ts(s + 3);
	CHECK(rest != NULL);
	CHECK_STREQ(rest, ", \"level\": \"notice\", \"priority\": 5, \"msg\": \"n\"}\n");
	plain_env();
}

/* A message longer than the buffer loses its middle, and the line is
 * still one complete JSON object, even when every byte needs a 6-byte
 * escape: whole \u0001 escapes on both sides of the mark. */
static void test_json_long(void)
{
	static char big[10000];
	plain_env();
	CHECK(cgoom_log_set_format_name("json") == 0);
	memset(big, '\x01', sizeof(big) - 1);
	CHECK(capture_reset() == 0);
	log_info("%s", big);
	const char *s = captured();
	size_t n = strlen(s);
	CHECK(n > 100);
	CHECK(strcmp(s + n - 3, "\"}\n") == 0);
	CHECK(strchr(s, '\n') == s + n - 1);
	const char *rest = skip_ts(s);
	CHECK(rest != NULL);
	const char *msg = strstr(rest, "\"msg\": \"");
	CHECK(msg != NULL);
	msg += 8;
	const char *mark = strstr(msg, " [... ");
	CHECK(mark != NULL);
	const char *after = mark ? strstr(mark, " bytes cut ...] ") : NULL;
	CHECK(after != NULL);
	if (!mark || !after)
		return;
	after += strlen(" bytes cut ...] ");
	size_t head = (size_t)(mark - msg), tail = (size_t)(s + n - 3 - after);
	CHECK(head % 6 == 0 && tail % 6 == 0);
	for (size_t i = 0; i < head; i += 6)
		CHECK(strncmp(msg + i, "\\u0001", 6) == 0);
	for (size_t i = 0; i < tail; i += 6)
		CHECK(strncmp(after + i, "\\u0001", 6) == 0);
	/* the count is of the bytes not shown */
	CHECK_EQ_U64(strtoull(mark + 6, NULL, 10), sizeof(big) - 1 - head / 6 - tail / 6);
	CHECK(head / 6 + tail / 6 >= 2000); /* a cut, not a loss */
	plain_env();
}

/* A line whose head is a path of 5000 bytes keeps its tail, the verb:
 * it was cut at 2 KiB, inside the path ("daemon lines about it lose
 * their verb"). */
static void test_text_long_keeps_tail(void)
{
	static char path[5001];
	plain_env();
	memset(path, 'p', sizeof(path) - 1);
	path[0] = '/';
	CHECK(capture_reset() == 0);
	log_notice("%s: sent SIGKILL to 1 process [42] via pidfd", path);
	const char *s = captured();
	size_t n = strlen(s);
	CHECK(strncmp(s, "cgoom: /ppp", 11) == 0);
	const char *end = ": sent SIGKILL to 1 process [42] via pidfd\n";
	CHECK(n > strlen(end) && strcmp(s + n - strlen(end), end) == 0);
	CHECK(strstr(s, " bytes cut ...] ") != NULL);
	CHECK(n < 2100);
	CHECK(strchr(s, '\n') == s + n - 1);
}

/* cgoom_log_elide: whole when it fits; else head, mark, tail in cap - 1
 * bytes, the mark counting exactly the bytes left out. */
static void test_elide(void)
{
	char res[64];
	cgoom_log_elide("short", 5, res, sizeof(res));
	CHECK_STREQ(res, "short");
	char in[200];
	for (size_t i = 0; i < sizeof(in); i++)
		in[i] = (char)('a' + i % 26);
	cgoom_log_elide(in, 63, res, sizeof(res)); /* fits, just */
	CHECK(strlen(res) == 63 && memcmp(res, in, 63) == 0);
	cgoom_log_elide(in, 64, res, sizeof(res)); /* one byte more: a mark */
	CHECK(strlen(res) == 63 && strstr(res, " bytes cut ...] ") != NULL);
	cgoom_log_elide(in, sizeof(in), res, sizeof(res));
	CHECK_EQ_U64(strlen(res), sizeof(res) - 1);
	const char *mark = strstr(res, " [... ");
	CHECK(mark != NULL);
	const char *end = mark ? strstr(mark, " bytes cut ...] ") : NULL;
	CHECK(end != NULL);
	if (!mark || !end)
		return;
	size_t head = (size_t)(mark - res);
	const char *tail = end + strlen(" bytes cut ...] ");
	size_t ntail = strlen(tail);
	CHECK(memcmp(res, in, head) == 0);
	CHECK(memcmp(tail, in + sizeof(in) - ntail, ntail) == 0);
	CHECK_EQ_U64(strtoull(mark + 6, NULL, 10), sizeof(in) - head - ntail);
	/* a buffer too small for a mark: the head and tail alone */
	char tiny[8];
	cgoom_log_elide(in, sizeof(in), tiny, sizeof(tiny));
	CHECK_EQ_U64(strlen(tiny), 7);
	CHECK(memcmp(tiny, in, 3) == 0 && memcmp(tiny + 3, in + sizeof(in) - 4, 4) == 0);
}

/* Lines logged from several threads at once (the loop and the
 * preparation threads) come out whole, each once: the line buffer is
 * one for all of them. */
#define LOG_THREADS 4
#define LOG_LINES 300

static void *log_many(void *arg)
{
	int t = (int)(long)arg;
	for (int k = 0; k < LOG_LINES; k++)
		cgoom_log(CGOOM_LOG_INFO, "thread %d line %03d %s", t, k,
			  "abcdefghijklmnopqrstuvwxyzabcdefghijklmnopqrstuvwxyzabcdefghijklmnop");
	return NULL;
}

static void test_threads_whole_lines(void)
{
	plain_env();
	CHECK(capture_reset() == 0);
	pthread_t th[LOG_THREADS];
	for (long t = 0; t < LOG_THREADS; t++)
		CHECK(pthread_create(&th[t], NULL, log_many, (void *)t) == 0);
	for (int t = 0; t < LOG_THREADS; t++)
		pthread_join(th[t], NULL);
	fflush(stderr);
	struct stat st;
	CHECK(fstat(STDERR_FILENO, &st) == 0);
	char *all = calloc(1, (size_t)st.st_size + 1);
	CHECK(all && pread(STDERR_FILENO, all, (size_t)st.st_size, 0) == st.st_size);
	int seen[LOG_THREADS][LOG_LINES] = { { 0 } };
	int whole = 0, bad = 0;
	for (char *line = all, *nl; line && *line; line = nl ? nl + 1 : NULL) {
		nl = strchr(line, '\n');
		if (nl)
			*nl = '\0';
		int t, k, n = 0;
		if (sscanf(line, "cgoom: thread %d line %d abcdefghijklmnopqrstuvwxyzabcdefghijklmnopqrstuvwxyzabcdefghijklmnop%n",
			   &t, &k, &n) == 2 && n == (int)strlen(line) && t >= 0 && t < LOG_THREADS &&
		    k >= 0 && k < LOG_LINES) {
			seen[t][k]++;
			whole++;
		} else {
			bad++;
		}
	}
	CHECK_EQ_INT(bad, 0);
	CHECK_EQ_INT(whole, LOG_THREADS * LOG_LINES);
	int once = 0;
	for (int t = 0; t < LOG_THREADS; t++)
		for (int k = 0; k < LOG_LINES; k++)
			once += seen[t][k] == 1;
	CHECK_EQ_INT(once, LOG_THREADS * LOG_LINES);
	free(all);
}

int main(void)
{
	int saved = dup(STDERR_FILENO);
	FILE *tf = tmpfile();
	if (saved < 0 || !tf || dup2(fileno(tf), STDERR_FILENO) < 0) {
		printf("1..0 # SKIP cannot redirect stderr to a temporary file\n");
		return 0;
	}
	int r = tap_run((struct tap_test[]){
		TAP(test_text),
		TAP(test_text_progname),
		TAP(test_text_journal),
		TAP(test_text_journal_other_stream),
		TAP(test_max_level),
		TAP(test_errno_kept),
		TAP(test_format_names),
		TAP(test_json),
		TAP(test_text_escaping),
		TAP(test_json_escaping),
		TAP(test_json_journal),
		TAP(test_json_long),
		TAP(test_text_long_keeps_tail),
		TAP(test_elide),
		TAP(test_threads_whole_lines),
		{ 0 },
	});
	dup2(saved, STDERR_FILENO);
	return r;
}
