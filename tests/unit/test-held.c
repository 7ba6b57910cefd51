/* SPDX-License-Identifier: MIT */
/* Deleted tmpfs files and memfds held open (doc/SPEC.md "Shmem held
 * open, not mapped", src/lib/charge.c sel_held_credit): unmapped shmem
 * by memory.stat, yet the holder's death frees it. The engine gives it
 * back to the holder's entity (once per file, to nobody when another
 * entity holds it too, never more than was left out, none of what its
 * processes map); the reader finds it in /proc/PID/fd
 * (src/shared/reader-held.c). */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cgoom/explain.h"
#include "cgoom/strbuf.h"
#include "reader-fixture.h"
#include "snapbuild.h"
#include "tap.h"

#define CFG_H "[cgroup \"/h\"]\noom_policy = cgroup\n"

/* the guest's case: /h (memory.max 300M); /h/holder, a shell (2 MiB)
 * holding 250 MiB of an unlinked tmpfs file; /h/other, an innocent
 * 60 MiB process. unmapped_extra: unheld tmpfs in holder besides;
 * mapped: of the held 250 MiB, what the holder also maps (file_mapped,
 * its RssShmem). */
static void guest(struct cgoom_snapshot *s, uint64_t unmapped_extra, uint64_t mapped)
{
	sb_init(s, 0);
	s->n_cpus = 2;
	uint64_t shmem = 250 + unmapped_extra;
	int h = sb_cg(s, "/h", 2 + shmem + 60);
	s->cgroups[h].max = 300 * MiB;
	int holder = sb_cg(s, "/h/holder", 2 + shmem);
	sb_cg(s, "/h/other", 60);
	for (int i = h; i <= holder; i++) {
		/* hierarchical: /h holds holder's shmem too */
		s->cgroups[i].stat.shmem = shmem * MiB;
		s->cgroups[i].stat.file_mapped = mapped * MiB;
		s->cgroups[i].stat.present |= CGOOM_MEMSTAT_SHMEM | CGOOM_MEMSTAT_FILE_MAPPED;
	}
	sb_proc(s, 901, "/h/holder", 2 + mapped, 0);
	sb_proc(s, 902, "/h/other", 60, 0);
	for (size_t k = 0; k < s->n_procs; k++) {
		s->procs[k].rss_shmem_known = true;
		s->procs[k].fds_read = true;
		if (s->procs[k].pid == 901)
			s->procs[k].rss_shmem = mapped * MiB;
	}
}

static void hold(struct cgoom_snapshot *s, int pid, const char *cg, uint64_t ino, uint64_t mib)
{
	struct cgoom_held_file f = {
		.pid = pid, .cgroup = sb_idx(s, cg), .dev = 42, .ino = ino, .bytes = mib * MiB
	};
	if (cgoom_snapshot_add_held(s, &f) < 0)
		abort();
}

static const struct cgoom_candidate *cand(const struct cgoom_snapshot *s,
					  const struct cgoom_decision *d, const char *path)
{
	for (size_t i = 0; i < d->n_candidates; i++)
		if (!strcmp(s->cgroups[d->candidates[i].cgroup].path, path))
			return &d->candidates[i];
	return NULL;
}

/* The decision for /h under CFG_H (sb_done, then sb_select); freed with
 * the snapshot by undecide */
struct decided {
	struct cgoom_config c;
	struct cgoom_decision d;
};

static void decide(struct cgoom_snapshot *s, struct decided *r)
{
	r->c = cfg_of(CFG_H);
	sb_done(s, &r->c);
	r->d = sb_select(s, "/h");
}

static void undecide(struct cgoom_snapshot *s, struct decided *r)
{
	cgoom_decision_free(&r->d);
	cgoom_config_free(&r->c);
	cgoom_snapshot_free(s);
}

/* The wrong kill: 902 died for 901's file; now /h/holder leads */
static void test_holder_credited(void)
{
	struct cgoom_snapshot s;
	guest(&s, 0, 0);
	hold(&s, 901, "/h/holder", 7, 250);
	hold(&s, 901, "/h/holder", 7, 250); /* a second descriptor: once */
	struct decided r;
	decide(&s, &r);
	CHECK_EQ_INT(s.n_held, 1);
	CHECK_EQ_INT(r.d.victim_pid, 901);
	const struct cgoom_candidate *e = cand(&s, &r.d, "/h/holder");
	CHECK(e && e->held_shmem == 250 * MiB && e->unmapped == 250 * MiB);
	CHECK(e && e->footprint == 252 * MiB && !e->held_unread);
	struct cgoom_strbuf b = { 0 };
	cgoom_explain_json(&b, &s, &sb_set, &r.d);
	CHECK(strstr(b.buf, "\"held_shmem\": 262144000") != NULL);
	cgoom_strbuf_free(&b);
	cgoom_explain_text(&b, &s, &sb_set, &r.d);
	CHECK(strstr(b.buf, "(250.0 MiB of deleted tmpfs files and memfds it holds open)") != NULL);
	CHECK(strstr(b.buf, "it counts 250.0 MiB of deleted tmpfs files and memfds it holds open") !=
	      NULL);
	CHECK(strstr(b.buf, "of unmapped shmem left out") == NULL);
	cgoom_strbuf_free(&b);
	undecide(&s, &r);
}

/* Held by a process of another entity too: no one death frees it. A
 * holder outside the domain is not looked at (a lazy read never reads
 * it, and must answer as the full read does): credited (i == 1). */
static void test_two_entities_nobody(void)
{
	static const char *const other[] = { "/h/other", "/" };
	for (int i = 0; i < 2; i++) {
		struct cgoom_snapshot s;
		guest(&s, 0, 0);
		if (i == 1)
			sb_proc(&s, 950, "/", 1, 0); /* outside the domain */
		hold(&s, 901, "/h/holder", 7, 250);
		hold(&s, i ? 950 : 902, other[i], 7, 250);
		struct decided r;
		decide(&s, &r);
		CHECK_EQ_INT(r.d.victim_pid, i ? 901 : 902);
		const struct cgoom_candidate *e = cand(&s, &r.d, "/h/holder");
		CHECK(e && e->held_shmem == (i ? 250 * MiB : 0));
		CHECK(e && e->footprint == (i ? 252 : 2) * MiB);
		undecide(&s, &r);
	}
}

/* A protected holder (oom_score_adj -1000) in the entity: no kill frees */
static void test_protected_holder(void)
{
	struct cgoom_snapshot s;
	guest(&s, 0, 0);
	sb_proc(&s, 903, "/h/holder", 1, -1000);
	hold(&s, 901, "/h/holder", 7, 250);
	hold(&s, 903, "/h/holder", 7, 250);
	struct decided r;
	decide(&s, &r);
	CHECK_EQ_INT(r.d.victim_pid, 902);
	CHECK(cand(&s, &r.d, "/h/holder")->held_shmem == 0);
	undecide(&s, &r);
}

/* Also mapped: 250 MiB held and mapped (file_mapped, RssShmem) beside
 * 100 MiB of tmpfs nobody holds: the footprint counts the mapped 250
 * once, and nothing of the 100 */
static void test_mapped_not_twice(void)
{
	for (int known = 0; known < 2; known++) {
		struct cgoom_snapshot s;
		guest(&s, 100, 250);
		if (!known)
			for (size_t k = 0; k < s.n_procs; k++)
				s.procs[k].rss_shmem_known = false;
		hold(&s, 901, "/h/holder", 7, 250);
		struct decided r;
		decide(&s, &r);
		const struct cgoom_candidate *e = cand(&s, &r.d, "/h/holder");
		CHECK(e && e->unmapped == 100 * MiB && e->held_shmem == 0);
		CHECK(e && e->footprint == 252 * MiB);
		undecide(&s, &r);
	}
}

/* Never more than was left out: 250 MiB held, 80 MiB unmapped by
 * memory.stat (file_mapped counts the page cache binaries map) */
static void test_capped_at_unmapped(void)
{
	struct cgoom_snapshot s;
	guest(&s, 0, 0);
	for (int i = 1; i < 3; i++)
		s.cgroups[i].stat.file_mapped = 170 * MiB;
	hold(&s, 901, "/h/holder", 7, 250);
	struct decided r;
	decide(&s, &r);
	const struct cgoom_candidate *e = cand(&s, &r.d, "/h/holder");
	CHECK(e && e->unmapped == 80 * MiB && e->held_shmem == 80 * MiB);
	/* (the 170 MiB file_mapped says is mapped, none of its processes
	 * map: mapped_elsewhere, left out too) */
	CHECK(e && e->mapped_elsewhere == 170 * MiB && e->footprint == 82 * MiB);
	cgoom_decision_free(&r.d);
	/* and no more than the domain left out (its memory.stat says 30) */
	s.cgroups[sb_idx(&s, "/h")].stat.file_mapped = 220 * MiB;
	r.d = sb_select(&s, "/h");
	e = cand(&s, &r.d, "/h/holder");
	CHECK(e && e->held_shmem == 30 * MiB);
	cgoom_decision_free(&r.d);
	/* under 1 MiB left out: nothing (its fds were not worth a read) */
	for (int i = 1; i < 3; i++)
		s.cgroups[i].stat.file_mapped = 250 * MiB - 4096;
	r.d = sb_select(&s, "/h");
	e = cand(&s, &r.d, "/h/holder");
	CHECK(e && e->held_shmem == 0 && !e->held_unread);
	undecide(&s, &r);
}

/* A tree entity holds what its leaves' processes hold */
static void test_tree_entity(void)
{
	struct cgoom_snapshot s;
	guest(&s, 0, 0);
	hold(&s, 901, "/h/holder", 7, 250);
	struct cgoom_config c = cfg_of("[cgroup \"/h\"]\noom_policy = tree\n");
	sb_done(&s, &c);
	struct cgoom_decision d = sb_select(&s, "/h");
	const struct cgoom_candidate *e = cand(&s, &d, "/h");
	CHECK(e && e->kind == CGOOM_KIND_TREE && e->held_shmem == 250 * MiB);
	cgoom_decision_free(&d);
	cgoom_config_free(&c);
	cgoom_snapshot_free(&s);
}

/* A record naming no process of the snapshot (a PID gone or listed
 * again elsewhere, kept in its first cgroup) is dropped */
static void test_stale_records(void)
{
	struct cgoom_snapshot s;
	guest(&s, 0, 0);
	hold(&s, 999, "/h/holder", 7, 250); /* no such process */
	hold(&s, 902, "/h/holder", 8, 250); /* 902 is in /h/other */
	struct cgoom_held_file bad = { .pid = 0, .cgroup = 1 };
	CHECK_EQ_INT(cgoom_snapshot_add_held(&s, &bad), -EINVAL);
	bad.pid = 5;
	bad.cgroup = 99;
	CHECK_EQ_INT(cgoom_snapshot_add_held(&s, &bad), -EINVAL);
	struct decided r;
	decide(&s, &r);
	CHECK_EQ_INT(s.n_held, 0);
	CHECK_EQ_INT(r.d.victim_pid, 902);
	undecide(&s, &r);
}

/* Branch and bound's first round on /h with cgroup `unread` left
 * unread (deferred): ranked, into d, with plan ready for cgoom_plan */
static void rank_deferred(struct cgoom_snapshot *s, struct cgoom_config *c, int unread,
			  struct cgoom_decision *d, struct cgoom_plan *plan)
{
	*c = cfg_of(CFG_H);
	sb_done(s, c);
	s->cgroups[unread].deferred = true;
	cgoom_decision_init(d);
	cgoom_plan_init(plan);
	CHECK_EQ_INT(cgoom_rank(s, &sb_set, sb_idx(s, "/h"), d), 0);
}

/* Branch and bound: the holder's body unread, its footprint keeps all
 * it left out (an upper bound), so the plan reads it; the answer is the
 * full read's, and an entity that cannot lead is not read */
static void test_bnb(void)
{
	for (int big = 0; big < 2; big++) {
		struct cgoom_snapshot s;
		guest(&s, 0, 0);
		if (big) /* an innocent no credit can beat: holder never read */
		{
			sb_cg(&s, "/h/zbig", 280);
			sb_proc(&s, 904, "/h/zbig", 280, 0);
		}
		hold(&s, 901, "/h/holder", 7, 250);
		int holder = sb_idx(&s, "/h/holder");
		struct cgoom_config c;
		struct cgoom_decision d;
		struct cgoom_plan plan;
		rank_deferred(&s, &c, holder, &d, &plan);
		const struct cgoom_candidate *e = cand(&s, &d, "/h/holder");
		CHECK(e && e->held_unread && e->unchecked && e->footprint == 252 * MiB);
		CHECK_EQ_INT(cgoom_plan(&s, &sb_set, &d, &plan), 0);
		if (big) {
			CHECK_EQ_INT(plan.kind, CGOOM_PLAN_DONE);
		} else {
			CHECK_EQ_INT(plan.kind, CGOOM_PLAN_BODIES);
			CHECK(plan.n_cgroups == 1 && plan.cgroups[0] == holder);
			s.cgroups[holder].deferred = false;
			CHECK_EQ_INT(cgoom_rank(&s, &sb_set, sb_idx(&s, "/h"), &d), 0);
			CHECK_EQ_INT(cgoom_plan(&s, &sb_set, &d, &plan), 0);
			CHECK_EQ_INT(plan.kind, CGOOM_PLAN_DONE);
			e = cand(&s, &d, "/h/holder");
			CHECK(e && !e->held_unread && e->held_shmem == 250 * MiB);
		}
		CHECK_EQ_INT(cgoom_decide(&s, &sb_set, &d), 0);
		CHECK_EQ_INT(d.victim_pid, big ? 904 : 901);
		cgoom_plan_free(&plan);
		cgoom_decision_free(&d);
		cgoom_config_free(&c);
		cgoom_snapshot_free(&s);
	}
}

/* Branch and bound: the holder read, but /h/other (which may hold the
 * same file) not: no credit is final, the plan reads the domain, and
 * the answer is the full read's (other holds it too: nobody's) */
static void test_bnb_sharer_unread(void)
{
	for (int shared = 0; shared < 2; shared++) {
		struct cgoom_snapshot s;
		guest(&s, 0, 0);
		hold(&s, 901, "/h/holder", 7, 250);
		int other = sb_idx(&s, "/h/other");
		struct cgoom_config c;
		struct cgoom_decision d;
		struct cgoom_plan plan;
		rank_deferred(&s, &c, other, &d, &plan);
		const struct cgoom_candidate *e = cand(&s, &d, "/h/holder");
		CHECK(e && e->held_unread && e->unchecked && e->held_shmem == 0);
		CHECK_EQ_INT(cgoom_plan(&s, &sb_set, &d, &plan), 0);
		CHECK_EQ_INT(plan.kind, CGOOM_PLAN_BODIES);
		CHECK(plan.n_cgroups == 1 && plan.cgroups[0] == other);
		s.cgroups[other].deferred = false; /* read: 902 holds it too */
		if (shared)
			hold(&s, 902, "/h/other", 7, 250);
		CHECK_EQ_INT(cgoom_snapshot_finalize(&s), 0);
		CHECK_EQ_INT(cgoom_rank(&s, &sb_set, sb_idx(&s, "/h"), &d), 0);
		CHECK_EQ_INT(cgoom_plan(&s, &sb_set, &d, &plan), 0);
		CHECK_EQ_INT(plan.kind, CGOOM_PLAN_DONE);
		CHECK_EQ_INT(cgoom_decide(&s, &sb_set, &d), 0);
		CHECK_EQ_INT(d.victim_pid, shared ? 902 : 901);
		cgoom_plan_free(&plan);
		cgoom_decision_free(&d);
		cgoom_config_free(&c);
		cgoom_snapshot_free(&s);
	}
}

/* ---- the reader ---- */

static const struct cgoom_process *rproc(int pid)
{
	for (size_t i = 0; i < g_snap.n_procs; i++)
		if (g_snap.procs[i].pid == pid)
			return &g_snap.procs[i];
	return NULL;
}

static void fd_link(int pid, const char *name, const char *target)
{
	mkdir_p(at("proc/%d/fd", pid));
	CHECK_EQ_INT(symlink(target, at("proc/%d/fd/%s", pid, name)), 0);
}

static void test_reader(void)
{
	int mfd = memfd_create("held", MFD_CLOEXEC);
	int lfd = open("/dev/shm", O_RDONLY | O_DIRECTORY);
	if (mfd < 0 || lfd < 0 || fallocate(mfd, 0, 0, 2 * MiB) < 0) {
		printf("# SKIP no memfd or /dev/shm here\n");
		if (mfd >= 0)
			close(mfd);
		if (lfd >= 0)
			close(lfd);
		return;
	}
	close(lfd);
	char shm[64], gone[64], disk[64], self[64];
	snprintf(shm, sizeof shm, "/dev/shm/cgoom-held-%d", (int)getpid());
	int sfd = open(shm, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600); /* linked: no */
	snprintf(gone, sizeof gone, "/dev/shm/cgoom-gone-%d", (int)getpid());
	int gfd = open(gone, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	CHECK(sfd >= 0 && gfd >= 0 && fallocate(sfd, 0, 0, MiB) == 0 &&
	      fallocate(gfd, 0, 0, MiB) == 0 && unlink(gone) == 0);
	fx_new();
	snprintf(disk, sizeof disk, "%s/ondisk", g_dir); /* deleted, not tmpfs */
	int dfd = open(disk, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
	CHECK(dfd >= 0 && write(dfd, "x", 1) == 1 && unlink(disk) == 0);

	/* /a leaves out 4 MiB (its processes' fds are read), /b nothing */
	mkcg("/a", true, "40\n41\n");
	mkcg("/b", true, "50\n");
	put_cg("/a", "memory.stat", "anon 4194304\nshmem 4194304\nfile_mapped 0\nkernel_stack 0\n"
				    "sock 0\nslab_unreclaimable 0\nactive_anon 4194304\n"
				    "inactive_anon 0\n");
	for (int pid = 40; pid <= 50; pid += pid == 41 ? 9 : 1)
		mkproc(&(struct fproc){ .pid = pid, .comm = "p", .start = 100, .rss_kb = 1024,
					.kthread = -1 });
	snprintf(self, sizeof self, "/proc/%d/fd/%d", (int)getpid(), mfd);
	fd_link(40, "3", self);
	fd_link(40, "9", self); /* the same file again: once */
	snprintf(self, sizeof self, "/proc/%d/fd/%d", (int)getpid(), gfd);
	fd_link(40, "4", self); /* a deleted /dev/shm file: 1 MiB */
	snprintf(self, sizeof self, "/proc/%d/fd/%d", (int)getpid(), sfd);
	fd_link(40, "5", self); /* linked: a kill frees nothing */
	snprintf(self, sizeof self, "/proc/%d/fd/%d", (int)getpid(), dfd);
	fd_link(40, "6", self); /* deleted, on disk */
	fd_link(40, "7", "/nonexistent/x (deleted)"); /* dangling */
	fd_link(40, "notanfd", "/memfd:x (deleted)");
	fd_link(40, "8", "/dev/null");
	/* 41: no fd directory (a fixture, or gone): nothing, no crash */
	snprintf(self, sizeof self, "/proc/%d/fd/%d", (int)getpid(), mfd);
	fd_link(50, "3", self); /* /b: not read */
	CHECK_EQ_INT(fx_read(), 0);
	CHECK(rproc(40) && rproc(40)->fds_read);
	CHECK(rproc(41) && !rproc(41)->fds_read);
	CHECK(rproc(50) && !rproc(50)->fds_read);
	CHECK_EQ_INT(g_snap.n_held, 2);
	uint64_t sum = 0;
	for (size_t i = 0; i < g_snap.n_held; i++) {
		CHECK_EQ_INT(g_snap.held[i].pid, 40);
		CHECK_EQ_INT(g_snap.held[i].cgroup, cgoom_snapshot_find(&g_snap, "/a"));
		sum += g_snap.held[i].bytes;
	}
	CHECK_EQ_U64(sum, 3 * MiB);
	fx_cleanup();
	close(mfd);
	close(sfd);
	close(gfd);
	close(dfd);
	unlink(shm);
}

int main(void)
{
	return tap_run((struct tap_test[]){
		TAP(test_holder_credited),
		TAP(test_two_entities_nobody),
		TAP(test_protected_holder),
		TAP(test_mapped_not_twice),
		TAP(test_capped_at_unmapped),
		TAP(test_tree_entity),
		TAP(test_stale_records),
		TAP(test_bnb),
		TAP(test_bnb_sharer_unread),
		TAP(test_reader),
		{ 0 },
	});
}
