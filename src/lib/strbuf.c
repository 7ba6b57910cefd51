/* SPDX-License-Identifier: MIT */
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cgoom/strbuf.h"

static bool reserve(struct cgoom_strbuf *b, size_t extra)
{
	if (b->failed)
		return false;
	if (b->len + extra + 1 <= b->cap)
		return true;
	size_t cap = b->cap ? b->cap : 256;
	while (cap < b->len + extra + 1) {
		if (cap > SIZE_MAX / 2) {
			b->failed = true;
			return false;
		}
		cap *= 2;
	}
	char *nb = realloc(b->buf, cap);
	if (!nb) {
		b->failed = true;
		return false;
	}
	b->buf = nb;
	b->cap = cap;
	return true;
}

void cgoom_strbuf_append(struct cgoom_strbuf *b, const char *s, size_t len)
{
	if (!reserve(b, len))
		return;
	memcpy(b->buf + b->len, s, len);
	b->len += len;
	b->buf[b->len] = '\0';
}

void cgoom_strbuf_printf(struct cgoom_strbuf *b, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0 || !reserve(b, (size_t)n)) {
		b->failed = true;
		return;
	}
	va_start(ap, fmt);
	vsnprintf(b->buf + b->len, (size_t)n + 1, fmt, ap);
	va_end(ap);
	b->len += (size_t)n;
}

size_t cgoom_utf8_len(const unsigned char *s)
{
	unsigned char c = s[0];
	size_t n;
	unsigned min;
	if (c < 0x80)
		return 1;
	if (c >= 0xc2 && c <= 0xdf)
		n = 2, min = 0x80;
	else if (c >= 0xe0 && c <= 0xef)
		n = 3, min = 0x800;
	else if (c >= 0xf0 && c <= 0xf4)
		n = 4, min = 0x10000;
	else
		return 0;
	unsigned cp = c & (0x7f >> n);
	for (size_t i = 1; i < n; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = (cp << 6) | (s[i] & 0x3f);
	}
	if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
		return 0;
	return n;
}

void cgoom_strbuf_json_string(struct cgoom_strbuf *b, const char *str)
{
	const unsigned char *s = (const unsigned char *)str;
	cgoom_strbuf_append(b, "\"", 1);
	while (*s) {
		size_t n = cgoom_utf8_len(s);
		if (*s == '"' || *s == '\\') {
			char e[2] = { '\\', (char)*s };
			cgoom_strbuf_append(b, e, 2);
			s++;
		} else if (*s < 0x20 || *s == 0x7f || n == 0) {
			cgoom_strbuf_printf(b, "\\u%04x", *s);
			s++;
		} else {
			cgoom_strbuf_append(b, (const char *)s, n);
			s += n;
		}
	}
	cgoom_strbuf_append(b, "\"", 1);
}

static void escaped(struct cgoom_strbuf *b, const char *str, bool backslash)
{
	const unsigned char *s = (const unsigned char *)str;
	while (*s) {
		size_t n = cgoom_utf8_len(s);
		if (*s < 0x20 || *s == 0x7f || n == 0 || (backslash && *s == '\\')) {
			cgoom_strbuf_printf(b, "\\x%02x", *s);
			s++;
		} else {
			cgoom_strbuf_append(b, (const char *)s, n);
			s += n;
		}
	}
}

void cgoom_strbuf_escaped(struct cgoom_strbuf *b, const char *str)
{
	escaped(b, str, true);
}

void cgoom_strbuf_printable(struct cgoom_strbuf *b, const char *str)
{
	escaped(b, str, false);
}

void cgoom_strbuf_free(struct cgoom_strbuf *b)
{
	if (!b)
		return;
	free(b->buf);
	memset(b, 0, sizeof(*b));
}
