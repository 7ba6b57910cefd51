/* SPDX-License-Identifier: MIT */
/*
 * The trigger table and its runners (triggers.h). The rows come from
 * CGOOM_TRIGGER_KINDS: a kind listed there without its file
 * (src/daemon/trigger-NAME.c defining trigger_NAME) does not link.
 */
#include <errno.h>
#include <stdio.h>
#include <unistd.h>

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
	/* the system's memory kind may ask for more than a second (swap
	 * room, a stall wakes the loop: cgoom_system_interval_us) */
	*ret = (struct trigger_pace){ .next_us = d->system ? CGOOM_POLL_SWAP_MAX_US : CGOOM_POLL_MAX_US };
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
			       "\"swap_free\": %llu, \"swap_min\": %llu, \"psi_stall_us\": %llu, "
			       "\"zswap_stored\": %llu, \"zswap_ram\": %llu",
			    (unsigned long long)lv->mem_available, (unsigned long long)lv->mem_min,
			    (unsigned long long)lv->swap_total, (unsigned long long)lv->swap_free,
			    (unsigned long long)lv->swap_min, (unsigned long long)ev->s.psi_stall_us,
			    (unsigned long long)ev->s.zswap_stored, (unsigned long long)ev->s.zswap_ram);
}

int trigger_zswap_words(uint64_t stored, uint64_t ram, char *buf, size_t cap)
{
	char s[32], r[32];
	if (stored == 0 && ram == 0) {
		if (cap)
			buf[0] = '\0';
		return 0;
	}
	return snprintf(buf, cap, " (zswap: %s stored in %s of RAM)", trigger_size(stored, s, sizeof(s)),
			trigger_size(ram, r, sizeof(r)));
}

void trigger_fields_cgroup(const struct trigger_event *ev, struct cgoom_strbuf *f)
{
	const struct cgoom_cgroup_sample *s = &ev->s.cg;
	cgoom_strbuf_printf(f, "\"current\": %llu, \"max\": %llu, \"high\": %lld, \"unreclaimable\": %lld, "
			       "\"unfreeable\": %lld, "
			       "\"events\": {\"high\": %llu, \"max\": %llu, \"oom\": %llu, "
			       "\"oom_kill\": %llu}, \"psi_stall_us\": %llu",
			    (unsigned long long)s->current, (unsigned long long)s->max,
			    s->high == UINT64_MAX ? -1LL : (long long)s->high,
			    s->unreclaim_valid ? (long long)s->unreclaimable : -1LL,
			    s->unreclaim_valid ? (long long)s->unfreeable : -1LL,
			    (unsigned long long)s->ev.high, (unsigned long long)s->ev.max,
			    (unsigned long long)s->ev.oom, (unsigned long long)s->ev.oom_kill,
			    (unsigned long long)ev->s.psi_stall_us);
}

void trigger_fields_thrash(const struct trigger_event *ev, struct cgoom_strbuf *f)
{
	const struct cgoom_thrash_facts *t = &ev->s.thrash;
	cgoom_strbuf_printf(f, ", \"full_share\": %u.%02u, \"some_share\": %u.%02u, "
			       "\"full_share_2s\": %u.%02u, \"thrashing_ms\": %llu, "
			       "\"refault_pages_per_s\": %llu, \"swap_used\": %llu",
			    t->full_share / 100, t->full_share % 100, t->some_share / 100,
			    t->some_share % 100, t->full_share_2s / 100, t->full_share_2s % 100,
			    (unsigned long long)(t->thrashing_us / 1000),
			    (unsigned long long)t->refault_rate, (unsigned long long)t->swap_used);
	/* the system's own fields have SwapTotal already: a key once */
	if (!ev->d->system)
		cgoom_strbuf_printf(f, ", \"swap_total\": %llu", (unsigned long long)t->swap_total);
	cgoom_strbuf_printf(f, ", \"swap_rate\": %llu, \"swap_net_rate\": %llu, "
			       "\"swap_trend_ms\": %llu, "
			       "\"swap_full_in_ms\": %lld, \"zram_stored\": %llu, \"zram_ram\": %llu, "
			       "\"zram_limit\": %llu",
			    (unsigned long long)t->swap_rate,
			    (unsigned long long)t->swap_net_rate, (unsigned long long)(t->trend_us / 1000),
			    t->eta_us == UINT64_MAX ? -1LL : (long long)(t->eta_us / 1000),
			    (unsigned long long)t->zram_orig, (unsigned long long)t->zram_used,
			    (unsigned long long)t->zram_limit);
}

void trigger_fields_pressure(const struct trigger_event *ev, struct cgoom_strbuf *f)
{
	if (ev->d->system)
		trigger_fields_system(ev, f);
	else
		trigger_fields_cgroup(ev, f);
	trigger_fields_thrash(ev, f);
}

int trigger_swap_words(const struct cgoom_thrash_facts *t, char *buf, size_t cap)
{
	char u[32], tot[32], r[32], zo[32], zu[32], zl[32];
	unsigned pct = t->swap_total ? (unsigned)(t->swap_used * 100 / t->swap_total) : 0;
	int n = snprintf(buf, cap, "swap %u%% used (%s of %s)", pct, trigger_size(t->swap_used, u, sizeof(u)),
			 trigger_size(t->swap_total, tot, sizeof(tot)));
	if (n > 0 && (size_t)n < cap && t->swap_rate > 0 && t->trend_us > 0)
		n += snprintf(buf + n, cap - (size_t)n,
			      " and filling at %s/s under a memory stall for %llu.%llu s: full in %llu.%llu s",
			      trigger_size(t->swap_rate, r, sizeof(r)),
			      (unsigned long long)(t->trend_us / 1000000),
			      (unsigned long long)(t->trend_us / 100000 % 10),
			      (unsigned long long)(t->eta_us / 1000000),
			      (unsigned long long)(t->eta_us / 100000 % 10));
	if (n > 0 && (size_t)n < cap && t->zram_used > 0)
		n += snprintf(buf + n, cap - (size_t)n, " (zram: %s stored in %s of RAM%s%s)",
			      trigger_size(t->zram_orig, zo, sizeof(zo)),
			      trigger_size(t->zram_used, zu, sizeof(zu)),
			      t->zram_limit ? ", limit " : "",
			      t->zram_limit ? trigger_size(t->zram_limit, zl, sizeof(zl)) : "");
	return n;
}

void trigger_thrash_params(const struct cgoom_config *cfg, struct cgoom_thrash_params *ret)
{
	cgoom_thrash_params_default(ret);
	/* psi_full (STALL/WINDOW) is what counts as a memory stall */
	if (cfg->psi_full_window_us > 0)
		ret->full_min = (uint32_t)(cfg->psi_full_stall_us * 10000 / cfg->psi_full_window_us);
	ret->fill_max_us = cfg->swap_stall_max_us;
	ret->sustain_us = cfg->thrash_for_us;
	static uint64_t page;
	if (!page) {
		long v = sysconf(_SC_PAGESIZE);
		page = v > 0 ? (uint64_t)v : 4096;
	}
	ret->page_size = page;
	/* rounded up: a rate under a page a second asks for one, not none */
	ret->refault_min = cfg->thrash_refaults / page + (cfg->thrash_refaults % page != 0);
}
