/* SPDX-License-Identifier: MIT */
#pragma once

/*
 * The trigger table (doc/architecture.md "Adding a trigger"). Every kind
 * of CGOOM_TRIGGER_KINDS (include/cgoom/trigger.h) has one file,
 * src/daemon/trigger-NAME.c, that defines `trigger_NAME` with
 * TRIGGER_DEFINE: its classes (system, cgroup) and five hooks, every one a
 * required argument, so a kind without a confirm (or any other hook)
 * does not build, and a kind missing its file does not link.
 *
 * The hooks are pure: they see one sample of one domain (detect.c reads
 * it through the domain's kept fds), the domain's trigger memory and the
 * configuration, and write nothing but that memory. detect.c runs the
 * checks of a domain's class in table order (an earlier kind that fires
 * preempts the later ones), asks every kind for its pace, and act.c asks
 * the fired kind to confirm on a fresh sample before it kills.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cgoom/config.h"
#include "cgoom/strbuf.h"
#include "cgoom/thrash.h"
#include "cgoom/trigger.h"

struct domain;
struct trigger_event;

enum trigger_class {
	TRIGGER_SYSTEM = 1u << 0,
	TRIGGER_CGROUP = 1u << 1,
};

/* One sample of one domain, as the hooks see it. */
struct trigger_sample {
	uint64_t at_us;
	bool kill_active;       /* a victim of this domain is still dying */
	/* PSI: the kernel's trigger on the domain went off, or the polled
	 * stall (psi_stall_us, scaled to one window) crossed psi_full */
	bool psi_fired;
	uint64_t psi_stall_us;
	struct cgoom_psi_sample psi; /* the "full" total at this sample (when read) */
	/* the system domain */
	uint64_t mem_total;
	struct cgoom_system_levels lv;
	/* zswap's Zswapped and Zswap from the same read of /proc/meminfo
	 * (read while MemAvailable is under its watch line, with swap) */
	uint64_t zswap_stored, zswap_ram;
	/* thrashing and swap (both classes; pressure.c): whether the domain
	 * is watched, and what its history says */
	bool watched;
	struct cgoom_thrash_facts thrash;
	/* cgroup domains */
	struct cgoom_cgroup_sample cg;
	struct cgoom_memevents prev_ev; /* memory.events at the previous check */
};

/* The pace of a domain after a sample: each kind may shorten the next
 * sample's delay and ask for a standby decision; the kind that watches a
 * byte line reports where the domain stands against it. */
struct trigger_pace {
	uint64_t next_us;  /* delay to the next sample (the shortest asked) */
	bool approach;     /* near a line: keep a standby decision */
	uint64_t level;    /* the quantity the standby is judged on (bytes in use) */
	uint64_t headroom; /* bytes from level to the line */
	uint64_t rate;     /* measured growth of level, bytes/s */
};

struct trigger_ops {
	enum cgoom_trigger kind;
	unsigned classes; /* enum trigger_class bits */
	/* Whether the kind fires on sample s. preempted: an earlier kind of
	 * the table fired on it; the hook then only keeps its memory. */
	bool (*check)(struct domain *d, const struct trigger_sample *s, const struct cgoom_config *cfg,
		      bool preempted);
	/* Whether the domain is still in trouble for this kind on a sample
	 * read after the decision (`fresh`; ev holds the one it fired on). It
	 * confirms; it does not ask for a fresh event. false: stand down. */
	bool (*confirm)(const struct domain *d, const struct trigger_event *ev,
			const struct trigger_sample *fresh, const struct cgoom_config *cfg);
	/* The reason, in words and numbers an operator can act on. */
	void (*why)(const struct trigger_event *ev, const struct cgoom_config *cfg, char *buf,
		    size_t cap);
	/* The trigger's numbers as JSON members (no braces). */
	void (*fields)(const struct trigger_event *ev, struct cgoom_strbuf *f);
	/* Its say in the domain's pace: may lower acc->next_us, set
	 * acc->approach, and (a byte-line kind) level, headroom and rate. */
	void (*pace)(const struct domain *d, const struct trigger_sample *s,
		     const struct cgoom_config *cfg, struct trigger_pace *acc);
};

#define TRIGGER_DEFINE(NAME, KIND, CLASSES, CHECK, CONFIRM, WHY, FIELDS, PACE)                     \
	const struct trigger_ops trigger_##NAME = {                                                \
		.kind = CGOOM_TRIGGER_##KIND,                                                      \
		.classes = (CLASSES),                                                              \
		.check = (CHECK),                                                                  \
		.confirm = (CONFIRM),                                                              \
		.why = (WHY),                                                                      \
		.fields = (FIELDS),                                                                \
		.pace = (PACE),                                                                    \
	}

/* A no-op pace hook for kinds that do not pace the domain. */
void trigger_pace_none(const struct domain *d, const struct trigger_sample *s,
		       const struct cgoom_config *cfg, struct trigger_pace *acc);

/* Shared by the kinds of one class: the domain's numbers as JSON
 * members, and a size in words ("max" for UINT64_MAX). */
void trigger_fields_system(const struct trigger_event *ev, struct cgoom_strbuf *f);
void trigger_fields_cgroup(const struct trigger_event *ev, struct cgoom_strbuf *f);
const char *trigger_size(uint64_t v, char *buf, size_t cap);
/* The thrashing history's facts as JSON members, after a ", ". */
void trigger_fields_thrash(const struct trigger_event *ev, struct cgoom_strbuf *f);
/* The fields hook of the kinds that judge the pressure history (swap,
 * thrash): the domain's class's numbers, then the history's facts. */
void trigger_fields_pressure(const struct trigger_event *ev, struct cgoom_strbuf *f);
/* "swap 88% used (900 MiB of 1.0 GiB) and filling at 40 MiB/s under a
 * memory stall for 12.0 s: full in 3.0 s" (with zram's RAM use when known); what snprintf returns. */
int trigger_swap_words(const struct cgoom_thrash_facts *t, char *buf, size_t cap);
/* " (zswap: X stored in Y of RAM)", or nothing when zswap holds nothing
 * (or was not read); snprintf's return. */
int trigger_zswap_words(uint64_t stored, uint64_t ram, char *buf, size_t cap);

/* The thrashing history's parameters from the config (cgoom/thrash.h). */
void trigger_thrash_params(const struct cgoom_config *cfg, struct cgoom_thrash_params *ret);

/* The table, indexed by kind (NONE: NULL). */
extern const struct trigger_ops *const trigger_table[CGOOM_TRIGGER_N_];

/* 0 when every row names its own kind and has every hook; else -EINVAL
 * and *ret_kind the first bad row. The daemon refuses to start on it. */
int trigger_table_check(enum cgoom_trigger *ret_kind);

/* Runs the checks of d's class on s in table order: the first kind that
 * fires (NONE if none). Every check sees the sample (later ones as
 * preempted). */
enum cgoom_trigger trigger_check_all(struct domain *d, const struct trigger_sample *s,
				     const struct cgoom_config *cfg);

/* The pace of d after s: every kind of its class has its say, from
 * next_us = CGOOM_POLL_MAX_US (the system: CGOOM_POLL_SWAP_MAX_US, its
 * memory kind always asks) and no approach. */
void trigger_pace_all(const struct domain *d, const struct trigger_sample *s,
		      const struct cgoom_config *cfg, struct trigger_pace *ret);

/* ev's kind confirms on a fresh sample (false for NONE or a bad kind). */
bool trigger_confirm_kind(const struct domain *d, const struct trigger_event *ev,
			  const struct trigger_sample *fresh, const struct cgoom_config *cfg);
