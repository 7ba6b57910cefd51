/* SPDX-License-Identifier: MIT */
#pragma once

#include "cgoom/facts.h"
#include "reader.h"

/* Reads the facts of domain `path` ("/" for the system) under the roots:
 * /proc/meminfo, /proc/pressure/memory and /proc/swaps for the system,
 * with zram's mm_stat from /sys/block when live; memory.max, .current,
 * .swap.max, .swap.current and .pressure for a cgroup. What cannot be
 * read stays unset (its _ok false); -errno only when nothing could be. */
int cgoom_memory_facts_read(const struct cgoom_roots *r, const char *path, bool live,
			    struct cgoom_memory_facts *ret);
