/* SPDX-License-Identifier: MIT */
#pragma once

/* A growable string. On allocation failure it sets `failed` and ignores
 * further appends, so callers check once at the end. */

#include <stdbool.h>
#include <stddef.h>

struct cgoom_strbuf {
	char *buf; /* NUL-terminated when len > 0 or after any append */
	size_t len, cap;
	bool failed;
};

void cgoom_strbuf_printf(struct cgoom_strbuf *b, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void cgoom_strbuf_append(struct cgoom_strbuf *b, const char *s, size_t len);
/* A JSON string literal, quotes included: control bytes, '"' and '\\'
 * escaped; bytes that are not valid UTF-8 become \u00XX (so any cgroup
 * name, whatever its bytes, yields valid JSON). */
void cgoom_strbuf_json_string(struct cgoom_strbuf *b, const char *s);
/* For text output: bytes < 0x20, 0x7f, '\\' and invalid UTF-8 as \xHH. */
void cgoom_strbuf_escaped(struct cgoom_strbuf *b, const char *s);
/* The same for text that holds escapes already (an explanation's notes
 * quote xattr values as "\x00" and '\\'): a backslash stays as it is,
 * so they are not escaped twice ("\x5cx00"). */
void cgoom_strbuf_printable(struct cgoom_strbuf *b, const char *s);
void cgoom_strbuf_free(struct cgoom_strbuf *b);

/* Length (1..4) of the valid UTF-8 sequence at s, or 0 if the bytes there
 * are not one (a NUL ends any sequence). Shared by every JSON writer so
 * they all escape alike. */
size_t cgoom_utf8_len(const unsigned char *s);
