/* SPDX-License-Identifier: MIT */
/* explain's memory line (cgoom/facts.h). */
#include "cgoom/explain.h"
#include "cgoom/facts.h"

uint64_t cgoom_memory_facts_swap_rate(const struct cgoom_memory_facts *f)
{
	if (!f->have_prev || f->prev_age_us == 0 || f->swap_used <= f->prev_swap_used)
		return 0;
	uint64_t d = f->swap_used - f->prev_swap_used;
	return d > UINT64_MAX / 1000000ULL ? d / f->prev_age_us * 1000000ULL
					   : d * 1000000ULL / f->prev_age_us;
}

static const char *size(uint64_t v, char *buf, size_t cap)
{
	return v == UINT64_MAX ? "max" : cgoom_human_size(v, buf, cap);
}

void cgoom_memory_facts_text(struct cgoom_strbuf *b, const struct cgoom_memory_facts *f)
{
	char x[32], y[32], z[32], w[32];
	cgoom_strbuf_printf(b, "memory:");
	if (f->mem_ok && f->system)
		cgoom_strbuf_printf(b, " MemAvailable %s of %s", size(f->mem_available, x, sizeof(x)),
				    size(f->mem_total, y, sizeof(y)));
	else if (f->mem_ok)
		cgoom_strbuf_printf(b, " memory.current %s of memory.max %s",
				    size(f->mem_current, x, sizeof(x)), size(f->mem_total, y, sizeof(y)));
	else
		/* said, not dropped: a lone "memory:;" read as a typo (the
		 * file's own note says what is wrong with it) */
		cgoom_strbuf_printf(b, " %s unreadable", f->system ? "/proc/meminfo" : "memory.current or memory.max");
	if (f->swap_ok && f->swap_total == 0)
		cgoom_strbuf_printf(b, "; no swap");
	else if (f->swap_ok) {
		cgoom_strbuf_printf(b, "; swap %s of %s used", size(f->swap_used, x, sizeof(x)),
				    size(f->swap_total, y, sizeof(y)));
		uint64_t rate = cgoom_memory_facts_swap_rate(f);
		if (f->have_prev)
			cgoom_strbuf_printf(b, rate ? ", filling at %s/s" : ", not filling",
					    size(rate, z, sizeof(z)));
	}
	if (f->n_zram)
		cgoom_strbuf_printf(b, " (zram: %s stored, compressed to %s, %s of RAM, %s%s)",
				    size(f->zram_orig, x, sizeof(x)), size(f->zram_compr, y, sizeof(y)),
				    size(f->zram_used, z, sizeof(z)), f->zram_limit ? "limit " : "no limit",
				    f->zram_limit ? size(f->zram_limit, w, sizeof(w)) : "");
	if (f->zswap_ok && (f->zswap_stored || f->zswap_ram))
		cgoom_strbuf_printf(b, " (zswap: %s stored in %s of RAM)", size(f->zswap_stored, x, sizeof(x)),
				    size(f->zswap_ram, y, sizeof(y)));
	if (f->psi_ok) {
		const struct cgoom_pressure *p = &f->psi;
		cgoom_strbuf_printf(b, "; pressure some %u.%02u%%", p->some.avg10 / 100, p->some.avg10 % 100);
		if (p->full.present)
			cgoom_strbuf_printf(b, " full %u.%02u%%", p->full.avg10 / 100, p->full.avg10 % 100);
		cgoom_strbuf_printf(b, " (avg10), some %u.%02u%%", p->some.avg60 / 100, p->some.avg60 % 100);
		if (p->full.present)
			cgoom_strbuf_printf(b, " full %u.%02u%%", p->full.avg60 / 100, p->full.avg60 % 100);
		cgoom_strbuf_printf(b, " (avg60)");
	}
	cgoom_strbuf_printf(b, "\n");
}

static void json_u64(struct cgoom_strbuf *b, const char *key, uint64_t v)
{
	if (v == UINT64_MAX)
		cgoom_strbuf_printf(b, "\"%s\": null", key);
	else
		cgoom_strbuf_printf(b, "\"%s\": %llu", key, (unsigned long long)v);
}

static void json_psi(struct cgoom_strbuf *b, const char *key, const struct cgoom_psi_line *l,
		     bool first)
{
	cgoom_strbuf_printf(b, "%s\"%s\": ", first ? "" : ", ", key);
	if (!l->present) {
		cgoom_strbuf_printf(b, "null");
		return;
	}
	cgoom_strbuf_printf(b, "{\"avg10\": %u.%02u, \"avg60\": %u.%02u, \"avg300\": %u.%02u, "
			       "\"total_us\": %llu}",
			    l->avg10 / 100, l->avg10 % 100, l->avg60 / 100, l->avg60 % 100,
			    l->avg300 / 100, l->avg300 % 100, (unsigned long long)l->total_us);
}

void cgoom_memory_facts_json(struct cgoom_strbuf *b, const struct cgoom_memory_facts *f)
{
	cgoom_strbuf_printf(b, "{");
	if (f->system) {
		json_u64(b, "mem_total", f->mem_ok ? f->mem_total : UINT64_MAX);
		cgoom_strbuf_printf(b, ", ");
		json_u64(b, "mem_available", f->mem_ok ? f->mem_available : UINT64_MAX);
	} else {
		json_u64(b, "max", f->mem_ok ? f->mem_total : UINT64_MAX);
		cgoom_strbuf_printf(b, ", ");
		json_u64(b, "current", f->mem_ok ? f->mem_current : UINT64_MAX);
	}
	cgoom_strbuf_printf(b, ", ");
	json_u64(b, "swap_total", f->swap_ok ? f->swap_total : UINT64_MAX);
	cgoom_strbuf_printf(b, ", ");
	json_u64(b, "swap_used", f->swap_ok ? f->swap_used : UINT64_MAX);
	if (f->have_prev) {
		cgoom_strbuf_printf(b, ", ");
		json_u64(b, "swap_rate", cgoom_memory_facts_swap_rate(f));
	}
	if (f->n_zram)
		cgoom_strbuf_printf(b, ", \"zram\": {\"stored\": %llu, \"compressed\": %llu, \"ram\": %llu, "
				       "\"limit\": %llu}",
				    (unsigned long long)f->zram_orig, (unsigned long long)f->zram_compr,
				    (unsigned long long)f->zram_used, (unsigned long long)f->zram_limit);
	if (f->zswap_ok)
		cgoom_strbuf_printf(b, ", \"zswap\": {\"stored\": %llu, \"ram\": %llu}",
				    (unsigned long long)f->zswap_stored, (unsigned long long)f->zswap_ram);
	if (f->psi_ok) {
		cgoom_strbuf_printf(b, ", \"pressure\": {");
		json_psi(b, "some", &f->psi.some, true);
		json_psi(b, "full", &f->psi.full, false);
		cgoom_strbuf_printf(b, "}");
	}
	cgoom_strbuf_printf(b, "}");
}
