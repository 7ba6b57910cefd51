/* SPDX-License-Identifier: MIT */
#pragma once

/* Shared between config.c (the file's syntax) and config-values.c (the
 * values and paths it holds). */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define USEC_PER_MSEC UINT64_C(1000)
#define USEC_PER_SEC UINT64_C(1000000)

/* Locale-independent: the config is ASCII syntax whatever LC_CTYPE says. */
static inline char ascii_lower(char ch)
{
	return ch >= 'A' && ch <= 'Z' ? (char)(ch - 'A' + 'a') : ch;
}

static inline bool ascii_strcaseeq(const char *a, const char *b)
{
	for (; *a && *b; a++, b++)
		if (ascii_lower(*a) != ascii_lower(*b))
			return false;
	return *a == *b;
}

enum path_err { PATH_OK, PATH_EMPTY, PATH_RELATIVE, PATH_DOT, PATH_BAD_BYTE, PATH_TOO_LONG };

/* Validates in a first pass and writes in a second, so out is untouched
 * on failure. */
enum path_err config_normalize(const char *in, char *out, size_t cap);
int config_parse_bool(const char *s, bool *ret);
int config_parse_bias(const char *s, int *ret);
