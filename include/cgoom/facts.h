/* SPDX-License-Identifier: MIT */
#pragma once

/*
 * What `explain` shows about a domain's memory besides the ranking: how
 * full it is, its swap and zram, its PSI (issue 19: the facts behind the
 * swap and thrash triggers). Read by src/shared/facts.c, rendered by
 * src/lib/explain-facts.c.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cgoom/parse.h"
#include "cgoom/strbuf.h"

struct cgoom_memory_facts {
	bool system;
	/* the system: MemTotal and MemAvailable; a cgroup: memory.max
	 * (UINT64_MAX: none) and memory.current */
	bool mem_ok;
	uint64_t mem_total, mem_available, mem_current;
	/* the system: SwapTotal, SwapTotal - SwapFree; a cgroup:
	 * min(memory.swap.max, SwapTotal) (UINT64_MAX: neither known to
	 * be finite) and memory.swap.current */
	bool swap_ok;
	uint64_t swap_total, swap_used;
	/* zram swap devices (the system, live roots) */
	unsigned n_zram;
	uint64_t zram_orig, zram_compr, zram_used, zram_limit; /* limit 0: none */
	/* zswap (the system: /proc/meminfo's Zswapped, what it stores, and
	 * Zswap, the RAM its pool takes; both lines there) */
	bool zswap_ok;
	uint64_t zswap_stored, zswap_ram;
	/* memory PSI (/proc/pressure/memory or memory.pressure) */
	bool psi_ok;
	struct cgoom_pressure psi;
	/* explain --watch: swap in use a period ago, to show its rate */
	bool have_prev;
	uint64_t prev_swap_used, prev_age_us;
};

/* Appends one "memory: ..." line (newline-terminated) for f. */
void cgoom_memory_facts_text(struct cgoom_strbuf *b, const struct cgoom_memory_facts *f);
/* Appends f as a JSON object. */
void cgoom_memory_facts_json(struct cgoom_strbuf *b, const struct cgoom_memory_facts *f);
/* The swap's growth per second from the previous facts (0 when it did
 * not grow, or without them). */
uint64_t cgoom_memory_facts_swap_rate(const struct cgoom_memory_facts *f);
