/* SPDX-License-Identifier: MIT */
#pragma once

/* Rendering a decision: the JSON object of SPEC 8 and the text table.
 * Pure: both append to a string buffer. */

#include "cgoom/select.h"
#include "cgoom/strbuf.h"

/* {"domain", "policy", "policy_source", "domain_size", "candidates": [...],
 *  "victim": {...} | null, "reason", "notes": [...]} and, while a victim
 * is dying, "inflight": PID. One line, no trailing newline. */
void cgoom_explain_json(struct cgoom_strbuf *b, const struct cgoom_snapshot *s,
			const struct cgoom_settings *set, const struct cgoom_decision *d);

/* An aligned table, best first, the victim marked with '>', ineligible
 * entries with why; then the victim, the kill set, the reason, notes. */
void cgoom_explain_text(struct cgoom_strbuf *b, const struct cgoom_snapshot *s,
			const struct cgoom_settings *set, const struct cgoom_decision *d);

/* Why a decision came out as it did, in a sentence (from its outcome
 * code and numbers; the engine writes no text). */
void cgoom_explain_reason(struct cgoom_strbuf *b, const struct cgoom_snapshot *s,
			  const struct cgoom_decision *d);

/* The words for a why code; NULL for CGOOM_WHY_NONE. */
const char *cgoom_why_text(enum cgoom_why w);

/* "1.5 GiB", "250.0 MiB", "12.0 KiB", "512 B" */
const char *cgoom_human_size(uint64_t bytes, char *buf, size_t cap);

/* Where an effective setting came from: "config", "trusted.cgoom xattr",
 * "inherited from /cg3 (config)", "default". */
void cgoom_setting_source(struct cgoom_strbuf *b, const struct cgoom_snapshot *s,
			  const struct cgoom_settings *set, int cgroup, const struct cgoom_setting *st);
