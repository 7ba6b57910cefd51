/* SPDX-License-Identifier: MIT */
/* What the trigger table's tests share (test-daemon-triggers.c,
 * test-daemon-triggers-swap.c): the configuration, a cgroup sample. */
#ifndef CGOOM_TEST_TRIGGERS_H
#define CGOOM_TEST_TRIGGERS_H

#include "daemon-internal.h"

#define MiB (1ULL << 20)
#define GiB (1ULL << 30)

static struct cgoom_config cfg;

static inline struct cgoom_cgroup_sample cg(uint64_t current, uint64_t max, uint64_t high,
					    uint64_t ev_max, uint64_t ev_high)
{
	struct cgoom_cgroup_sample s = { 0 };
	s.current = current;
	s.max = max;
	s.high = high;
	s.ev.max = ev_max;
	s.ev.high = ev_high;
	return s;
}

#endif
