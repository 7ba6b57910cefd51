/* SPDX-License-Identifier: MIT */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "cgoom/explain.h"

/* Unmapped shmem worth a word in the text and the reason (the JSON
 * always has it): below this it is the odd memfd or IPC segment every
 * cgroup holds, noise next to what footprints are made of. */
#define UNMAPPED_SHOWN (1ull << 20)

const char *cgoom_human_size(uint64_t b, char *buf, size_t cap)
{
	static const char *const units[] = { "KiB", "MiB", "GiB", "TiB", "PiB", "EiB" };
	if (b < 1024) {
		snprintf(buf, cap, "%" PRIu64 " B", b);
		return buf;
	}
	double v = (double)b / 1024;
	size_t u = 0;
	while (v >= 1024 && u + 1 < sizeof(units) / sizeof(units[0])) {
		v /= 1024;
		u++;
	}
	snprintf(buf, cap, "%.1f %s", v, units[u]);
	return buf;
}

/* "config", and for a config value its section: config [cgroup "/users/user-*.slice"] line 7 */
static void source_name(struct cgoom_strbuf *b, const struct cgoom_settings *set,
			const struct cgoom_setting *st)
{
	cgoom_strbuf_printf(b, "%s", cgoom_source_name(st->source));
	if (st->source != CGOOM_SRC_CONFIG || st->section < 1 || (size_t)st->section > set->n_sections)
		return;
	cgoom_strbuf_printf(b, " [cgroup \"");
	cgoom_strbuf_escaped(b, set->sections[st->section - 1]);
	cgoom_strbuf_printf(b, "\"] line %d", st->line);
}

static const char *const why_text[CGOOM_WHY_MAX] = {
	[CGOOM_WHY_NONE] = NULL,
	[CGOOM_WHY_KTHREAD] = "kernel thread",
	[CGOOM_WHY_PID1] = "PID 1",
	[CGOOM_WHY_SELF] = "cgoom itself",
	[CGOOM_WHY_ADJ_MIN] = "oom_score_adj -1000",
	[CGOOM_WHY_OMIT] = "preference omit",
	[CGOOM_WHY_ZOMBIE] = "zombie",
	[CGOOM_WHY_NO_MM] = "no address space",
	[CGOOM_WHY_NO_ELIGIBLE] = "no eligible process",
	[CGOOM_WHY_NO_MEMINFO] = "no /proc/meminfo",
	[CGOOM_WHY_ROOT_NONPOSITIVE] = "footprint <= 0 after subtracting the top-level cgroups",
	[CGOOM_WHY_NO_FOOTPRINT] = "footprint unknown: memory.stat and memory.current unreadable, or "
				   "memory.swap.current unreadable and unbounded",
	[CGOOM_WHY_ROOT_UNKNOWN] = "a top-level cgroup's footprint is unknown, so the root's own share "
				   "is too",
};

const char *cgoom_why_text(enum cgoom_why w)
{
	return (unsigned)w < CGOOM_WHY_MAX ? why_text[w] : NULL;
}

static const struct cgoom_process *find_proc(const struct cgoom_snapshot *s, int pid)
{
	for (size_t i = 0; i < s->n_procs; i++)
		if (s->procs[i].pid == pid)
			return &s->procs[i];
	return NULL;
}

/* Note i of the explanation, of s->n_notes + set->n_notes: the settings'
 * notes go where they were made, after the snapshot's first notes_at. */
static const char *note_at(const struct cgoom_snapshot *s, const struct cgoom_settings *set, size_t i)
{
	size_t at = set->notes_at < s->n_notes ? set->notes_at : s->n_notes;
	if (i < at)
		return s->notes[i];
	if (i < at + set->n_notes)
		return set->notes[i - at];
	return s->notes[i - set->n_notes];
}

static void victim_reason(struct cgoom_strbuf *b, const struct cgoom_snapshot *s,
			  const struct cgoom_decision *d)
{
	const struct cgoom_candidate *v = &d->candidates[d->victim];
	const struct cgoom_process *p = find_proc(s, d->victim_pid);
	char h1[32], h2[32];
	if (!p)
		return; /* cannot be: the victim is P of the snapshot */
	uint64_t psize = p->rss + p->swap + p->pte;
	if (psize < p->rss)
		psize = UINT64_MAX;
	if (v->kind == CGOOM_KIND_PROCESS)
		cgoom_strbuf_printf(b,
				    "policy none: process %d (%s) in %s ranks first of %zu by oom_badness "
				    "(%s, oom_score_adj %d, preference %s)",
				    p->pid, p->comm, s->cgroups[p->cgroup].path, d->n_eligible,
				    cgoom_human_size(v->footprint, h1, sizeof(h1)), p->oom_score_adj,
				    cgoom_pref_name(v->pref));
	else
		cgoom_strbuf_printf(b,
				    "policy %s: %s entity %s ranks first of %zu (footprint %s, bias %d, "
				    "preference %s%s); its largest process is %d (%s, %s)",
				    cgoom_policy_name(d->policy), cgoom_kind_name(v->kind),
				    s->cgroups[v->cgroup].path, d->n_eligible,
				    cgoom_human_size(v->footprint, h1, sizeof(h1)), v->bias,
				    cgoom_pref_name(v->pref),
				    v->fallback ? ", an upper bound: memory.stat or memory.swap.current "
						  "unreadable"
						: "",
				    p->pid,
				    p->comm, cgoom_human_size(psize, h2, sizeof(h2)));
	if (v->kind == CGOOM_KIND_UNATTRIBUTED)
		cgoom_strbuf_printf(b, "; the footprint is charge below delegation root %s that no cgroup "
				       "holding processes accounts for (empty and removed cgroups: cgroup v2 "
				       "never moves a charge with a process), so its largest process in %s is "
				       "chosen",
				    s->cgroups[v->cgroup].path, s->cgroups[v->cgroup].path);
	if (v->unmapped - v->held_shmem >= UNMAPPED_SHOWN)
		cgoom_strbuf_printf(b, "; %s of shmem and tmpfs no process maps is left out (no kill frees it: "
				       "none of its processes alone holds it open as a deleted file or memfd)",
				    cgoom_human_size(v->unmapped - v->held_shmem, h1, sizeof(h1)));
	if (v->held_shmem >= UNMAPPED_SHOWN)
		cgoom_strbuf_printf(b, "; it counts %s of deleted tmpfs files and memfds it holds open "
				       "(no process maps them, its death frees them)",
				    cgoom_human_size(v->held_shmem, h1, sizeof(h1)));
	if (v->mapped_elsewhere >= UNMAPPED_SHOWN)
		cgoom_strbuf_printf(b, "; %s of shmem none of its processes map is left out (no kill "
				       "in it frees it)",
				    cgoom_human_size(v->mapped_elsewhere, h1, sizeof(h1)));
	if (d->scope >= 0)
		cgoom_strbuf_printf(b, "; memory.oom.group=1 on %s: killing its %zu eligible processes%s",
				    s->cgroups[d->scope].path, d->n_pids,
				    d->use_cgroup_kill ? " with cgroup.kill" : " one by one (it holds protected ones)");
}

void cgoom_explain_reason(struct cgoom_strbuf *b, const struct cgoom_snapshot *s,
			  const struct cgoom_decision *d)
{
	const char *dom = s->cgroups[d->domain].path;
	switch (d->outcome) {
	case CGOOM_OUTCOME_VICTIM:
		if (d->has_victim)
			victim_reason(b, s, d);
		break;
	case CGOOM_OUTCOME_INFLIGHT:
		cgoom_strbuf_printf(b, "waiting: PID %d, killed earlier in %s, is still exiting",
				    d->inflight_pid, dom);
		break;
	case CGOOM_OUTCOME_NO_CANDIDATE:
		cgoom_strbuf_printf(b, "no eligible victim in %s (policy %s)", dom,
				    cgoom_policy_name(d->policy));
		break;
	case CGOOM_OUTCOME_NO_PROCESS:
		cgoom_strbuf_printf(b, "no eligible process in %s",
				    s->cgroups[d->candidates[0].cgroup].path);
		break;
	case CGOOM_OUTCOME_MAX:
		break;
	}
}

void cgoom_setting_source(struct cgoom_strbuf *b, const struct cgoom_snapshot *s,
			  const struct cgoom_settings *set, int cgroup, const struct cgoom_setting *st)
{
	if (st->origin < 0 || st->source == CGOOM_SRC_DEFAULT)
		cgoom_strbuf_printf(b, "default");
	else if (st->origin == cgroup)
		source_name(b, set, st);
	else {
		cgoom_strbuf_printf(b, "inherited from ");
		cgoom_strbuf_escaped(b, s->cgroups[st->origin].path);
		cgoom_strbuf_printf(b, " (");
		source_name(b, set, st);
		cgoom_strbuf_printf(b, ")");
	}
}

static void json_candidate(struct cgoom_strbuf *b, const struct cgoom_snapshot *s,
			   const struct cgoom_settings *set, const struct cgoom_candidate *c)
{
	cgoom_strbuf_printf(b, "{\"cgroup\": ");
	cgoom_strbuf_json_string(b, s->cgroups[c->cgroup].path);
	cgoom_strbuf_printf(b, ", \"kind\": \"%s\"", cgoom_kind_name(c->kind));
	if (c->kind == CGOOM_KIND_PROCESS)
		cgoom_strbuf_printf(b, ", \"pid\": %d", c->pid);
	cgoom_strbuf_printf(b, ", \"footprint\": %" PRIu64 ", \"score\": %" PRId64
			       ", \"preference\": \"%s\", \"%s\": %d, \"eligible\": %s",
			    c->footprint, c->score, cgoom_pref_name(c->pref),
			    c->kind == CGOOM_KIND_PROCESS ? "oom_score_adj" : "bias", c->bias,
			    c->eligible ? "true" : "false");
	if (c->fallback)
		cgoom_strbuf_printf(b, ", \"fallback\": true");
	if (c->unmapped)
		cgoom_strbuf_printf(b, ", \"unmapped_shmem\": %" PRIu64, c->unmapped);
	if (c->mapped_elsewhere)
		cgoom_strbuf_printf(b, ", \"shmem_not_mapped_by_it\": %" PRIu64, c->mapped_elsewhere);
	if (c->held_shmem)
		cgoom_strbuf_printf(b, ", \"held_shmem\": %" PRIu64, c->held_shmem);
	if (c->held_unread)
		cgoom_strbuf_printf(b, ", \"held_unread\": true");
	if (c->bounded)
		cgoom_strbuf_printf(b, ", \"bounded\": true");
	else if (c->unchecked)
		cgoom_strbuf_printf(b, ", \"unchecked\": true");
	if (c->why) {
		cgoom_strbuf_printf(b, ", \"why\": ");
		cgoom_strbuf_json_string(b, cgoom_why_text(c->why));
	}
	/* where the entity's preference (and a cgroup's bias) came from */
	const struct cgoom_cgroup_settings *cg = &set->cgroups[c->cgroup];
	struct cgoom_strbuf src = { 0 };
	cgoom_setting_source(&src, s, set, c->cgroup, &cg->pref);
	cgoom_strbuf_printf(b, ", \"preference_source\": ");
	cgoom_strbuf_json_string(b, src.buf ? src.buf : "");
	if (c->kind != CGOOM_KIND_PROCESS) {
		src.len = 0;
		cgoom_setting_source(&src, s, set, c->cgroup, &cg->bias);
		cgoom_strbuf_printf(b, ", \"bias_source\": ");
		cgoom_strbuf_json_string(b, src.buf ? src.buf : "");
	}
	cgoom_strbuf_free(&src);
	cgoom_strbuf_printf(b, "}");
}

void cgoom_explain_json(struct cgoom_strbuf *b, const struct cgoom_snapshot *s,
			const struct cgoom_settings *set, const struct cgoom_decision *d)
{
	const struct cgoom_cgroup *dom = &s->cgroups[d->domain];
	cgoom_strbuf_printf(b, "{\"domain\": ");
	cgoom_strbuf_json_string(b, dom->path);
	cgoom_strbuf_printf(b, ", \"policy\": \"%s\", \"policy_source\": ", cgoom_policy_name(d->policy));
	struct cgoom_strbuf src = { 0 };
	cgoom_setting_source(&src, s, set, d->domain, &set->cgroups[d->domain].policy);
	cgoom_strbuf_json_string(b, src.buf ? src.buf : "");
	cgoom_strbuf_free(&src);
	cgoom_strbuf_printf(b, ", \"domain_size\": %" PRIu64 ", \"candidates\": [", d->domain_size);
	for (size_t i = 0; i < d->n_candidates; i++) {
		if (i)
			cgoom_strbuf_printf(b, ", ");
		json_candidate(b, s, set, &d->candidates[i]);
	}
	cgoom_strbuf_printf(b, "], \"victim\": ");
	if (!d->has_victim)
		cgoom_strbuf_printf(b, "null");
	else {
		cgoom_strbuf_printf(b, "{\"cgroup\": ");
		cgoom_strbuf_json_string(b, s->cgroups[d->victim_cgroup].path);
		cgoom_strbuf_printf(b, ", \"kind\": \"%s\", \"process\": %d, \"scope\": ",
				    cgoom_kind_name(d->candidates[d->victim].kind), d->victim_pid);
		if (d->scope >= 0)
			cgoom_strbuf_json_string(b, s->cgroups[d->scope].path);
		else
			cgoom_strbuf_printf(b, "null");
		cgoom_strbuf_printf(b, ", \"cgroup_kill\": %s, \"pids\": [",
				    d->use_cgroup_kill ? "true" : "false");
		for (size_t i = 0; i < d->n_pids; i++)
			cgoom_strbuf_printf(b, "%s%d", i ? ", " : "", d->pids[i]);
		cgoom_strbuf_printf(b, "]}");
	}
	if (d->inflight)
		cgoom_strbuf_printf(b, ", \"inflight\": %d", d->inflight_pid);
	uint64_t dom_unmapped = cgoom_domain_unmapped_shmem(s, d->domain);
	if (dom_unmapped)
		cgoom_strbuf_printf(b, ", \"domain_unmapped_shmem\": %" PRIu64, dom_unmapped);
	cgoom_strbuf_printf(b, ", \"reason\": ");
	struct cgoom_strbuf reason = { 0 };
	cgoom_explain_reason(&reason, s, d);
	cgoom_strbuf_json_string(b, reason.buf ? reason.buf : "");
	cgoom_strbuf_free(&reason);
	cgoom_strbuf_printf(b, ", \"notes\": [");
	for (size_t i = 0; i < s->n_notes + set->n_notes; i++) {
		if (i)
			cgoom_strbuf_printf(b, ", ");
		cgoom_strbuf_json_string(b, note_at(s, set, i));
	}
	cgoom_strbuf_printf(b, "]}");
}

void cgoom_explain_text(struct cgoom_strbuf *b, const struct cgoom_snapshot *s,
			const struct cgoom_settings *set, const struct cgoom_decision *d)
{
	const struct cgoom_cgroup *dom = &s->cgroups[d->domain];
	char h1[32], h2[32];
	cgoom_strbuf_printf(b, "domain ");
	cgoom_strbuf_escaped(b, dom->path);
	cgoom_strbuf_printf(b, ": policy %s (", cgoom_policy_name(d->policy));
	cgoom_setting_source(b, s, set, d->domain, &set->cgroups[d->domain].policy);
	cgoom_strbuf_printf(b, "), size %s\n", cgoom_human_size(d->domain_size, h1, sizeof(h1)));

	/* column width for the cgroup paths */
	size_t w = strlen("CGROUP");
	for (size_t i = 0; i < d->n_candidates; i++) {
		size_t l = strlen(s->cgroups[d->candidates[i].cgroup].path);
		if (l > w)
			w = l < 48 ? l : 48;
	}
	/* "process" wide, wider only when an unattributed row is there */
	int kw = (int)strlen("process");
	for (size_t i = 0; i < d->n_candidates; i++) {
		int l = (int)strlen(cgoom_kind_name(d->candidates[i].kind));
		if (l > kw)
			kw = l;
	}
	cgoom_strbuf_printf(b, "  %4s %-*s %-*s %8s %12s %12s %-6s %6s\n", "RANK", kw, "KIND", (int)w,
			    "CGROUP", "PID", "FOOTPRINT", "SCORE", "PREF", "BIAS");
	int rank = 0;
	size_t bounded = 0;
	uint64_t unmapped = 0, elsewhere = 0, held = 0;
	for (size_t i = 0; i < d->n_candidates; i++) {
		const struct cgoom_candidate *c = &d->candidates[i];
		bounded += c->bounded;
		char rk[16] = "-", pid[16] = "";
		if (c->eligible)
			snprintf(rk, sizeof(rk), "%d", ++rank);
		if (c->kind == CGOOM_KIND_PROCESS)
			snprintf(pid, sizeof(pid), "%d", c->pid);
		char score[32];
		if (c->score < 0)
			snprintf(score, sizeof(score), "-%s",
				 cgoom_human_size(c->score == INT64_MIN ? (uint64_t)INT64_MAX + 1
									: (uint64_t)-c->score,
						  h2, sizeof(h2)));
		else
			cgoom_human_size((uint64_t)c->score, score, sizeof(score));
		cgoom_strbuf_printf(b, "%c %4s %-*s ", d->has_victim && (int)i == d->victim ? '>' : ' ', rk,
				    kw, cgoom_kind_name(c->kind));
		uint64_t left = c->held_unread ? 0 : c->unmapped - c->held_shmem;
		unmapped = unmapped + left < unmapped ? UINT64_MAX : unmapped + left;
		held = held + c->held_shmem < held ? UINT64_MAX : held + c->held_shmem;
		elsewhere = elsewhere + c->mapped_elsewhere < elsewhere ? UINT64_MAX
									: elsewhere + c->mapped_elsewhere;
		struct cgoom_strbuf path = { 0 };
		cgoom_strbuf_escaped(&path, s->cgroups[c->cgroup].path);
		char fp[40];
		snprintf(fp, sizeof(fp), "%s%s", c->bounded ? "<=" : "",
			 cgoom_human_size(c->footprint, h1, sizeof(h1)));
		char sc[40];
		snprintf(sc, sizeof(sc), "%s%s", c->bounded ? "<=" : "", score);
		cgoom_strbuf_printf(b, "%-*s %8s %12s %12s %-6s %6d", (int)w, path.buf ? path.buf : "", pid,
				    fp, sc,
				    cgoom_pref_name(c->pref), c->bias);
		cgoom_strbuf_free(&path);
		if (c->fallback)
			cgoom_strbuf_printf(b, "  (an upper bound: memory.stat or memory.swap.current "
					       "unreadable)");
		if (c->unchecked && !c->bounded)
			cgoom_strbuf_printf(b, "  (processes not read)");
		if (c->kind == CGOOM_KIND_UNATTRIBUTED)
			cgoom_strbuf_printf(b, "  (charge below it no cgroup holding processes accounts for)");
		if (c->held_unread && c->unmapped >= UNMAPPED_SHOWN)
			cgoom_strbuf_printf(b, "  (%s of unmapped shmem counted until its processes' open "
					       "files are read)",
					    cgoom_human_size(c->unmapped, h1, sizeof(h1)));
		else if (c->unmapped - c->held_shmem >= UNMAPPED_SHOWN)
			cgoom_strbuf_printf(b, "  (%s of unmapped shmem left out)",
					    cgoom_human_size(c->unmapped - c->held_shmem, h1, sizeof(h1)));
		if (c->held_shmem >= UNMAPPED_SHOWN)
			cgoom_strbuf_printf(b, "  (%s of deleted tmpfs files and memfds it holds open)",
					    cgoom_human_size(c->held_shmem, h1, sizeof(h1)));
		if (c->mapped_elsewhere >= UNMAPPED_SHOWN)
			cgoom_strbuf_printf(b, "  (%s of shmem none of its processes map left out)",
					    cgoom_human_size(c->mapped_elsewhere, h1, sizeof(h1)));
		if (c->why)
			cgoom_strbuf_printf(b, "  passed over: %s", cgoom_why_text(c->why));
		cgoom_strbuf_printf(b, "\n");
	}
	if (d->n_candidates == 0)
		cgoom_strbuf_printf(b, "  (no candidates)\n");
	if (bounded)
		cgoom_strbuf_printf(b, "  (%zu entit%s not read: <= is memory.current + "
				       "memory.swap.current + the kernel's unflushed stat error, which cannot beat "
				       "the victim; "
				       "explain --full reads them)\n",
				    bounded, bounded == 1 ? "y" : "ies");
	if (unmapped >= UNMAPPED_SHOWN)
		cgoom_strbuf_printf(b, "  (footprints leave out %s of shmem and tmpfs no process maps and "
				       "no entity's processes alone hold open as deleted files or memfds: no kill "
				       "frees it)\n",
				    cgoom_human_size(unmapped, h1, sizeof(h1)));
	if (held >= UNMAPPED_SHOWN)
		cgoom_strbuf_printf(b, "  (footprints count %s of deleted tmpfs files and memfds their "
				       "processes hold open, mapped by none: a holder's death frees them)\n",
				    cgoom_human_size(held, h1, sizeof(h1)));
	if (elsewhere >= UNMAPPED_SHOWN)
		cgoom_strbuf_printf(b, "  (footprints leave out %s of shmem that none of their own "
				       "processes map: no kill in them frees it)\n",
				    cgoom_human_size(elsewhere, h1, sizeof(h1)));
	/* what the domain holds beyond the candidates' share: tmpfs of
	 * empty and removed cgroups (a writer gone, its cgroup removed),
	 * which no ranking line shows and no kill frees */
	uint64_t dom_unmapped = cgoom_domain_unmapped_shmem(s, d->domain);
	uint64_t counted = unmapped + held < unmapped ? UINT64_MAX : unmapped + held;
	if (dom_unmapped >= UNMAPPED_SHOWN && dom_unmapped > counted &&
	    dom_unmapped - counted >= UNMAPPED_SHOWN)
		cgoom_strbuf_printf(b, "  (the domain holds %s of shmem and tmpfs no process maps, %s of it "
				       "in no footprint above (empty or removed cgroups, entities not read): "
				       "no kill frees it, unless a process whose open files were not read "
				       "holds it open as a deleted file or memfd)\n",
				    cgoom_human_size(dom_unmapped, h1, sizeof(h1)),
				    cgoom_human_size(dom_unmapped - counted, h2, sizeof(h2)));
	if (d->has_victim) {
		const struct cgoom_process *p = find_proc(s, d->victim_pid);
		cgoom_strbuf_printf(b, "victim: ");
		cgoom_strbuf_escaped(b, s->cgroups[d->victim_cgroup].path);
		cgoom_strbuf_printf(b, ", process %d (", d->victim_pid);
		cgoom_strbuf_escaped(b, p ? p->comm : "?");
		const struct cgoom_cgroup_settings *vc = &set->cgroups[d->candidates[d->victim].cgroup];
		cgoom_strbuf_printf(b, ")\nsettings: preference %s (", cgoom_pref_name((enum cgoom_pref)vc->pref.value));
		cgoom_setting_source(b, s, set, d->candidates[d->victim].cgroup, &vc->pref);
		cgoom_strbuf_printf(b, "), bias %d (", vc->bias.value);
		cgoom_setting_source(b, s, set, d->candidates[d->victim].cgroup, &vc->bias);
		cgoom_strbuf_printf(b, ")\nkill: ");
		if (d->scope >= 0) {
			cgoom_strbuf_printf(b, "memory.oom.group scope ");
			cgoom_strbuf_escaped(b, s->cgroups[d->scope].path);
			cgoom_strbuf_printf(b, " via %s, PIDs", d->use_cgroup_kill ? "cgroup.kill" : "pidfd");
		} else
			cgoom_strbuf_printf(b, "PID");
		for (size_t i = 0; i < d->n_pids; i++)
			cgoom_strbuf_printf(b, " %d", d->pids[i]);
		cgoom_strbuf_printf(b, "\n");
	} else
		cgoom_strbuf_printf(b, "victim: none\n");
	cgoom_strbuf_printf(b, "reason: ");
	struct cgoom_strbuf reason = { 0 };
	cgoom_explain_reason(&reason, s, d);
	cgoom_strbuf_escaped(b, reason.buf ? reason.buf : "");
	cgoom_strbuf_free(&reason);
	cgoom_strbuf_printf(b, "\n");
	for (size_t i = 0; i < s->n_notes + set->n_notes; i++) {
		cgoom_strbuf_printf(b, "note: ");
		cgoom_strbuf_printable(b, note_at(s, set, i));
		cgoom_strbuf_printf(b, "\n");
	}
}
