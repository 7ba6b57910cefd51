/* SPDX-License-Identifier: MIT */
#pragma once
/* A list of explanation notes (owned strings), as the snapshot and the
 * settings each keep one. */
#include <stdarg.h>
#include <stddef.h>

/* Appends vprintf(fmt, ap) to *notes; 0 or -ENOMEM (nothing added). */
__attribute__((format(printf, 3, 0))) int cgoom_notes_vadd(char ***notes, size_t *n_notes,
							   const char *fmt, va_list ap);
