/* SPDX-License-Identifier: MIT */
/*
 * The trigger table and its runners (triggers.h). The rows come from
 * CGOOM_TRIGGER_KINDS: a kind listed there without its file
 * (src/daemon/trigger-NAME.c defining trigger_NAME) does not link.
 */
#include <errno.h>

#include "cgoom/explain.h"

#include "daemon-internal.h"
#include "triggers.h"

#define DECLARE_(K, n) extern const struct trigger_ops trigger_##n;
CGOOM_TRIGGER_KINDS(DECLARE_)
#undef DECLARE_

const struct trigger_ops *const trigger_table[CGOOM_TRIGGER_N_] = {
#define ROW_(K, n) [CGOOM_TRIGGER_##K] = &trigger_##n,
	CGOOM_TRIGGER_KINDS(ROW_)
#undef ROW_
};

int trigger_table_check(enum cgoom_trigger *ret_kind)
{
	for (int k = CGOOM_TRIGGER_NONE + 1; k < CGOOM_TRIGGER_N_; k++) {
		const struct trigger_ops *o = trigger_table[k];
		if (!o || o->kind != (enum cgoom_trigger)k || !o->classes || !o->check || !o->confirm ||
		    !o->why || !o->fields || !o->pace) {
			*ret_kind = (enum cgoom_trigger)k;
			return -EINVAL;
		}
	}
	return 0;
}

static unsigned class_of(const struct domain *d)
{
	return d->system ? TRIGGER_SYSTEM : TRIGGER_CGROUP;
}

enum cgoom_trigger trigger_check_all(struct domain *d, const struct trigger_sample *s,
				     const struct cgoom_config *cfg)
{
	enum cgoom_trigger fired = CGOOM_TRIGGER_NONE;
	for (int k = CGOOM_TRIGGER_NONE + 1; k < CGOOM_TRIGGER_N_; k++) {
		const struct trigger_ops *o = trigger_table[k];
		if (!(o->classes & class_of(d)))
			continue;
		bool f = o->check(d, s, cfg, fired != CGOOM_TRIGGER_NONE);
		if (f && fired == CGOOM_TRIGGER_NONE)
			fired = (enum cgoom_trigger)k;
	}
	return fired;
}

void trigger_pace_all(const struct domain *d, const struct trigger_sample *s,
		      const struct cgoom_config *cfg, struct trigger_pace *ret)
{
	*ret = (struct trigger_pace){ .next_us = CGOOM_POLL_MAX_US };
	for (int k = CGOOM_TRIGGER_NONE + 1; k < CGOOM_TRIGGER_N_; k++) {
		const struct trigger_ops *o = trigger_table[k];
		if (o->classes & class_of(d))
			o->pace(d, s, cfg, ret);
	}
}

bool trigger_confirm_kind(const struct domain *d, const struct trigger_event *ev,
			  const struct trigger_sample *fresh, const struct cgoom_config *cfg)
{
	if (ev->kind <= CGOOM_TRIGGER_NONE || ev->kind >= CGOOM_TRIGGER_N_)
		return false;
	return trigger_table[ev->kind]->confirm(d, ev, fresh, cfg);
}

void trigger_pace_none(const struct domain *d, const struct trigger_sample *s,
		       const struct cgoom_config *cfg, struct trigger_pace *acc)
{
	(void)d, (void)s, (void)cfg, (void)acc;
}

const char *trigger_size(uint64_t v, char *buf, size_t cap)
{
	if (v == UINT64_MAX)
		return "max";
	return cgoom_human_size(v, buf, cap);
}

void trigger_fields_system(const struct trigger_event *ev, struct cgoom_strbuf *f)
{
	const struct cgoom_system_levels *lv = &ev->s.lv;
	cgoom_strbuf_printf(f, "\"mem_available\": %llu, \"mem_min\": %llu, \"swap_total\": %llu, "
			       "\"swap_free\": %llu, \"swap_min\": %llu, \"psi_stall_us\": %llu",
			    (unsigned long long)lv->mem_available, (unsigned long long)lv->mem_min,
			    (unsigned long long)lv->swap_total, (unsigned long long)lv->swap_free,
			    (unsigned long long)lv->swap_min, (unsigned long long)ev->s.psi_stall_us);
}

void trigger_fields_cgroup(const struct trigger_event *ev, struct cgoom_strbuf *f)
{
	const struct cgoom_cgroup_sample *s = &ev->s.cg;
	cgoom_strbuf_printf(f, "\"current\": %llu, \"max\": %llu, \"high\": %lld, \"unreclaimable\": %lld, "
			       "\"events\": {\"high\": %llu, \"max\": %llu, \"oom\": %llu, "
			       "\"oom_kill\": %llu}, \"psi_stall_us\": %llu",
			    (unsigned long long)s->current, (unsigned long long)s->max,
			    s->high == UINT64_MAX ? -1LL : (long long)s->high,
			    s->unreclaim_valid ? (long long)s->unreclaimable : -1LL,
			    (unsigned long long)s->ev.high, (unsigned long long)s->ev.max,
			    (unsigned long long)s->ev.oom, (unsigned long long)s->ev.oom_kill,
			    (unsigned long long)ev->s.psi_stall_us);
}
