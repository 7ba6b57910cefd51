/* SPDX-License-Identifier: MIT */
/*
 * Guard bands (SPEC 6): memory.high = memory.max - guard_band, written
 * by the loop only (sampling never writes) and restored on exit. Each
 * band is recorded first in the cgroup's trusted.cgoom.guard
 * (cgoom/guard.h: the operator's memory.high, ours, and who wrote it),
 * so that a daemon killed before it could restore leaves nothing the
 * next one cannot undo: without the record, the next daemon took the
 * band it found for the operator's value, "restored" it on a clean
 * exit, and with the band switched off never touched it, leaving the
 * cgroup throttled at it for good.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <sys/file.h>
#include <sys/xattr.h>
#include <unistd.h>

#include "cgoom/explain.h"
#include "cgoom/guard.h"
#include "cgoom/parse.h"
#include "daemon-internal.h"
#include "log.h"

/* Guard band: usage must stay in the band this long before cgoom acts
 * (page-cache spikes that reclaim resolves at once do not count). */
#define BAND_DWELL_US 100000ULL

/* ---- the record ---- */

/* This daemon's PID and start time in the proc root, read once. */
static void self_id(struct daemon *dm)
{
	if (dm->guard_pid)
		return;
	int fd = openat(dm->roots.proc_fd, "self/stat", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return;
	size_t len;
	struct cgoom_pid_stat st;
	if (cgfs_reread(fd, dm->buf, sizeof(dm->buf), &len) == 0 &&
	    cgoom_parse_pid_stat(dm->buf, len, &st) == 0 && st.pid > 0) {
		dm->guard_pid = st.pid;
		dm->guard_start = st.starttime;
	}
	close(fd);
}

/* Whether the record's writer still runs (the same PID with the same
 * start time) and is another daemon: this one's own record is its to
 * take over. */
static bool writer_alive(struct daemon *dm, const struct cgoom_guard_record *rec)
{
	self_id(dm);
	if (rec->pid == dm->guard_pid && rec->start == dm->guard_start)
		return false;
	char name[32];
	snprintf(name, sizeof(name), "%d/stat", rec->pid);
	int fd = openat(dm->roots.proc_fd, name, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	if (fd < 0)
		return false;
	size_t len;
	struct cgoom_pid_stat st;
	bool alive = cgfs_reread(fd, dm->buf, sizeof(dm->buf), &len) == 0 &&
		     cgoom_parse_pid_stat(dm->buf, len, &st) == 0 && st.starttime == rec->start &&
		     st.state != 'Z' && st.state != 'X';
	close(fd);
	return alive;
}

/* 1 with *ret and *ret_parse filled when d has a record (*ret_parse: 0
 * parsed, -EPROTONOSUPPORT another format version, -EBADMSG not a
 * record), 0 when it has none, -errno when it cannot be read (no
 * CAP_SYS_ADMIN reads as none: the kernel hides trusted.* from it). raw
 * gets the value as found, for the log. */
static int record_read(int dirfd, struct cgoom_guard_record *ret, int *ret_parse, char *raw,
		       size_t rawcap)
{
	ssize_t n = fgetxattr(dirfd, CGOOM_GUARD_XATTR, raw, rawcap - 1);
	if (n < 0 && errno == ERANGE) {
		/* longer than any record: not one */
		memcpy(raw, "(too long)", 11);
		*ret_parse = -EBADMSG;
		return 1;
	}
	if (n < 0)
		return errno == ENODATA || errno == ENOTSUP ? 0 : -errno;
	raw[n] = '\0';
	*ret_parse = cgoom_guard_record_parse(raw, (size_t)n, ret);
	if (*ret_parse < 0 && *ret_parse != -EPROTONOSUPPORT)
		*ret_parse = -EBADMSG;
	/* for the log: one line, printable */
	for (ssize_t i = 0; i < n; i++)
		if ((unsigned char)raw[i] < 0x20 || (unsigned char)raw[i] > 0x7e)
			raw[i] = '?';
	return 1;
}

/* Removes d's record: only from the judging of a record (a dead
 * writer's consumed, a stale or malformed one) under guard_lock;
 * anywhere else record_remove_ours. */
static void record_remove(int dirfd, const char *path)
{
	if (fremovexattr(dirfd, CGOOM_GUARD_XATTR) < 0 && errno != ENODATA)
		log_warning("%s: removing %s: %s", path, CGOOM_GUARD_XATTR, strerror(errno));
}

/* Whose record dirfd has. */
enum record_owner {
	RECORD_NONE,  /* none, or it cannot be read */
	RECORD_OURS,  /* this daemon's (its PID and start time) */
	RECORD_OTHER, /* another writer's, or another format version's */
	RECORD_JUNK,  /* no record at all */
};

static enum record_owner record_owner(struct daemon *dm, int dirfd, struct cgoom_guard_record *ret)
{
	int parse;
	char raw[CGOOM_GUARD_RECORD_MAX];
	if (record_read(dirfd, ret, &parse, raw, sizeof(raw)) <= 0)
		return RECORD_NONE;
	if (parse == -EPROTONOSUPPORT)
		return RECORD_OTHER;
	if (parse < 0)
		return RECORD_JUNK;
	self_id(dm);
	return dm->guard_pid && ret->pid == dm->guard_pid && ret->start == dm->guard_start ?
		       RECORD_OURS : RECORD_OTHER;
}

/* Removes d's record when it names this daemon: a record is another
 * daemon's to remove (it overwrote ours, or it took over a band): one
 * removed under it left that daemon's band without a record, and a
 * value of theirs taken for the operator's. */
static void record_remove_ours(struct daemon *dm, int dirfd, const char *path)
{
	struct cgoom_guard_record rec;
	if (record_owner(dm, dirfd, &rec) == RECORD_OURS)
		record_remove(dirfd, path);
}

/* Exclusion between daemons: reading a record, judging it and acting on
 * it (taking a dead writer's band over, restoring it, removing a stale
 * record) is done under flock(LOCK_EX) on the cgroup's directory (each
 * daemon opens its own, so the locks conflict; one dies with its
 * holder). Without it two daemons started at once both judged a dead
 * daemon's band LEFT and both took it over (the record is rewritten,
 * not created, there: XATTR_CREATE cannot tell them apart), each then
 * taking the other's later band for the operator's value. A record
 * written under the lock names a daemon that is alive, so the second
 * one finds it LIVE and leaves it. A first band (no record) needs no
 * lock: XATTR_CREATE lets one of two writers record it. Held for a few
 * syscalls: waited for up to 1 s (a holder stopped meanwhile: no band
 * this time, the next look tries again); where flock() fails otherwise,
 * none (XATTR_CREATE still decides the first band). */
static bool guard_lock(int dirfd, const char *path)
{
	for (int i = 0; i < 100; i++) {
		if (flock(dirfd, LOCK_EX | LOCK_NB) == 0)
			return true;
		if (errno != EWOULDBLOCK && errno != EINTR) {
			log_debug("%s: flock: %s", path, strerror(errno));
			return true;
		}
		nanosleep(&(struct timespec){ .tv_nsec = 10 * 1000 * 1000 }, NULL);
	}
	log_warning("%s: another cgoom holds this cgroup's guard-band lock (1 s): "
		    "no guard band from this daemon here for now", path);
	return false;
}

static void guard_unlock(int dirfd)
{
	flock(dirfd, LOCK_UN);
}

/* Records the band about to be written: old is the operator's
 * memory.high, ours what is written, prev what stood before (a band of
 * ours; UINT64_MAX: none). flags: XATTR_CREATE for a first band, so
 * that of two daemons started at once only one records (-EEXIST for the
 * other), XATTR_REPLACE to take over a dead writer's (under guard_lock)
 * or to replace a record of ours. */
static int record_write(struct daemon *dm, struct domain *d, uint64_t ours, uint64_t prev, int flags)
{
	self_id(dm);
	if (!dm->guard_pid)
		return -ESRCH;
	struct cgoom_guard_record rec = {
		.pid = dm->guard_pid, .start = dm->guard_start,
		.old = d->old_high, .ours = ours, .prev = prev,
	};
	char v[CGOOM_GUARD_RECORD_MAX];
	int n = cgoom_guard_record_format(&rec, v, sizeof(v));
	if (n < 0)
		return n;
	if (fsetxattr(d->dirfd, CGOOM_GUARD_XATTR, v, (size_t)n, flags) < 0)
		return -errno;
	return 0;
}

/* What the record below dirfd (path; memory.high through high_fd, or
 * opened below dirfd when -1) says: the verdict, the record and
 * memory.high in *ret_rec and *ret_high. MALFORMED and STALE records
 * are removed here (not in a dry run), LIVE ones logged; ABSENT also
 * when either cannot be read (no CAP_SYS_ADMIN: the kernel hides
 * trusted.*). */
static enum cgoom_guard_found record_find(struct daemon *dm, int dirfd, int high_fd,
					  const char *path, struct cgoom_guard_record *ret_rec,
					  uint64_t *ret_high)
{
	int parse = 0;
	char raw[CGOOM_GUARD_RECORD_MAX];
	int r = record_read(dirfd, ret_rec, &parse, raw, sizeof(raw));
	if (r < 0)
		log_debug("%s: %s: %s", path, CGOOM_GUARD_XATTR, strerror(-r));
	if (r <= 0)
		return CGOOM_GUARD_ABSENT;
	if (parse == -EPROTONOSUPPORT) {
		/* a later cgoom's format (a downgrade since): only its writer
		 * can judge it, and removing it would strand its band; as
		 * for a daemon still running, it and memory.high stay, and
		 * this daemon writes no band here */
		if (!dm->guard_version_warned)
			log_warning("%s: %s \"%s\" is of a format version this cgoom does not know "
				    "(a newer cgoom's): left as it is, with memory.high, and no guard band "
				    "from this daemon there (said once)",
				    path, CGOOM_GUARD_XATTR, raw);
		dm->guard_version_warned = true;
		return CGOOM_GUARD_LIVE;
	}
	bool malformed = parse < 0;
	int fd = high_fd >= 0 ? high_fd : openat(dirfd, "memory.high", O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	r = fd < 0 ? -errno : daemon_reread_limit(dm, fd, ret_high);
	if (fd >= 0 && fd != high_fd)
		close(fd);
	if (r < 0) {
		log_debug("%s: memory.high: %s", path, strerror(-r));
		return CGOOM_GUARD_ABSENT;
	}
	char h[32], w[32];
	guard_fmt_high(*ret_high, h, sizeof(h));
	bool alive = !malformed && writer_alive(dm, ret_rec);
	enum cgoom_guard_found f = cgoom_guard_judge(malformed ? NULL : ret_rec, malformed, *ret_high, alive);
	switch (f) {
	case CGOOM_GUARD_ABSENT:
	case CGOOM_GUARD_LEFT:
		break;
	case CGOOM_GUARD_MALFORMED:
		log_warning("%s: %s \"%s\" is malformed (not a guard band cgoom recorded): %s; "
			    "memory.high %s left as it is",
			    path, CGOOM_GUARD_XATTR, raw, dm->dry_run ? "a dry run leaves it" : "removed", h);
		if (!dm->dry_run)
			record_remove(dirfd, path);
		break;
	case CGOOM_GUARD_STALE:
		guard_fmt_high(ret_rec->ours, w, sizeof(w));
		log_info("%s: memory.high %s was set since a cgoom (PID %d) wrote its guard band (%s): "
			 "it stays; %s",
			 path, h, ret_rec->pid, w,
			 dm->dry_run ? "a dry run leaves the record" : "the record is removed");
		if (!dm->dry_run)
			record_remove(dirfd, path);
		break;
	case CGOOM_GUARD_LIVE:
		/* (a dry run writes no band anyway: nothing to say) */
		if (!dm->dry_run)
			log_warning("%s: memory.high %s is the guard band of cgoom PID %d, still running: "
				    "left to it, and no guard band from this daemon here",
				    path, h, ret_rec->pid);
		break;
	}
	return f;
}

/* A band left (LEFT) that this daemon will not take over: in a dry run
 * said, else memory.high restored to the operator's value. */
static void left_restore(struct daemon *dm, int dirfd, const char *path,
			 const struct cgoom_guard_record *rec, uint64_t high, const char *why)
{
	char h[32], o[32];
	guard_fmt_high(high, h, sizeof(h));
	guard_fmt_high(rec->old, o, sizeof(o));
	if (dm->dry_run) {
		log_warning("%s: memory.high %s was left by a cgoom (PID %d) that did not exit cleanly "
			    "(it was %s before); a dry run leaves it: start cgoom without --dry-run, or "
			    "write %s to memory.high",
			    path, h, rec->pid, o, o);
		return;
	}
	int r = guard_write_high(dirfd, rec->old);
	if (r < 0) {
		log_warning("%s: memory.high %s was left by a cgoom (PID %d) that did not exit cleanly; "
			    "restoring it to %s: %s", path, h, rec->pid, o, strerror(-r));
		return;
	}
	record_remove(dirfd, path);
	log_notice("%s: memory.high %s was left by a cgoom (PID %d) that did not exit cleanly%s: "
		   "restored to %s", path, h, rec->pid, why, o);
}

/* Before d's memory.high is first taken for the operator's: what a
 * record there says about it, judged and acted on under guard_lock.
 * True when d may have a band of this daemon's (false: another daemon,
 * still running, has one there, or holds the lock). */
static bool guard_recover_locked(struct daemon *dm, struct domain *d)
{
	struct cgoom_guard_record rec;
	uint64_t high;
	enum cgoom_guard_found f = record_find(dm, d->dirfd, d->high_fd, d->path, &rec, &high);
	if (f == CGOOM_GUARD_LIVE)
		return false;
	if (f != CGOOM_GUARD_LEFT)
		return true;
	if (dm->dry_run) {
		left_restore(dm, d->dirfd, d->path, &rec, high, "");
		return true;
	}
	/* taken over: kept while the band still applies here, restored
	 * (guard_restore) when it does not */
	char h[32], o[32];
	guard_fmt_high(high, h, sizeof(h));
	guard_fmt_high(rec.old, o, sizeof(o));
	log_notice("%s: memory.high %s was left by a cgoom (PID %d) that did not exit cleanly; "
		   "it was %s before: taken over, and restored to that when no guard band applies",
		   d->path, h, rec.pid, o);
	d->old_high = rec.old;
	d->our_high = high;
	d->high_written = true;
	int r = record_write(dm, d, high, UINT64_MAX, XATTR_REPLACE); /* ours now */
	if (r < 0)
		log_warning("%s: %s: %s", d->path, CGOOM_GUARD_XATTR, strerror(-r));
	return true;
}

static bool guard_recover(struct daemon *dm, struct domain *d)
{
	if (!guard_lock(d->dirfd, d->path))
		return false;
	bool mine = guard_recover_locked(dm, d);
	guard_unlock(d->dirfd);
	return mine;
}

void guard_recover_unlimited(struct daemon *dm, int dirfd, const char *path)
{
	if (!dm->live)
		return;
	struct cgoom_guard_record rec;
	uint64_t high;
	if (!guard_lock(dirfd, path))
		return;
	if (record_find(dm, dirfd, -1, path, &rec, &high) == CGOOM_GUARD_LEFT)
		left_restore(dm, dirfd, path, &rec, high, ", and memory.max is max now");
	guard_unlock(dirfd);
}

/* ---- apply and restore ---- */

void guard_restore(struct daemon *dm, struct domain *d)
{
	if (!d->high_written)
		return;
	d->high_written = false;
	uint64_t high;
	int r = daemon_reread_limit(dm, d->high_fd, &high);
	if (r < 0) {
		log_debug("%s: memory.high gone (%s); nothing to restore", d->path, strerror(-r));
		return;
	}
	char now[32], old[32];
	guard_fmt_high(d->old_high, old, sizeof(old));
	if (high != d->our_high) {
		guard_fmt_high(high, now, sizeof(now));
		log_warning("%s: memory.high was changed by someone else (now %s); leaving it",
			    d->path, now);
		record_remove_ours(dm, d->dirfd, d->path);
		return;
	}
	struct cgoom_guard_record rec;
	if (record_owner(dm, d->dirfd, &rec) == RECORD_OTHER) {
		/* another daemon recorded this value as its band since (one
		 * that does not lock, or a newer one): its to restore */
		guard_fmt_high(high, now, sizeof(now));
		log_warning("%s: memory.high %s is recorded as another cgoom's guard band now; "
			    "left to it", d->path, now);
		return;
	}
	r = guard_write_high(d->dirfd, d->old_high);
	if (r < 0) {
		/* the record stays: the next start restores it */
		log_warning("%s: restoring memory.high to %s: %s", d->path, old, strerror(-r));
		return;
	}
	record_remove_ours(dm, d->dirfd, d->path);
	log_info("%s: memory.high restored to %s", d->path, old);
}

/* The margin of d from the config (warned when it is most of the
 * limit). */
static void margin_apply(struct daemon *dm, struct domain *d)
{
	const struct cgoom_cgroup_conf *cm = cgoom_config_lookup(&dm->cfg, d->path, CGOOM_CONF_MARGIN);
	const struct cgoom_share *margin = cm ? &cm->margin : &dm->cfg.margin;
	uint64_t max = d->sample.max;
	d->params.margin = max == UINT64_MAX ? 0 : cgoom_share_of(margin, max);
	if (max != UINT64_MAX && d->params.margin >= max) {
		/* the whole limit as margin: every sample would be "near" and
		 * the unreclaimable trigger fire on an empty cgroup */
		struct cgoom_share def = CGOOM_MARGIN_DEFAULT;
		char m1[32], m2[32];
		log_warning("%s: margin %s >= memory.max %s; using the default margin (2%%)", d->path,
			    cgoom_human_size(d->params.margin, m1, sizeof(m1)),
			    cgoom_human_size(max, m2, sizeof(m2)));
		d->params.margin = cgoom_share_of(&def, max);
	} else if (max != UINT64_MAX && d->params.margin > max / 2) {
		/* as for the guard band below: a [daemon] size that is most
		 * of a small domain's limit makes it fire at a fraction */
		char m1[32], m2[32];
		log_warning("%s: margin %s is more than half of memory.max %s: it is out of memory "
			    "as soon as what cannot be reclaimed comes within that of its limit; give it "
			    "a smaller one ([cgroup \"%s\"] margin = SHARE)",
			    d->path, cgoom_human_size(d->params.margin, m1, sizeof(m1)),
			    cgoom_human_size(max, m2, sizeof(m2)), d->path);
	}
	d->params.dwell_us = BAND_DWELL_US;
}

void guard_apply(struct daemon *dm, struct domain *d)
{
	margin_apply(dm, d);
	const struct cgoom_cgroup_conf *cg = cgoom_config_lookup(&dm->cfg, d->path, CGOOM_CONF_GUARD_BAND);
	uint64_t max = d->sample.max;
	d->guard_band = cg ? cg->guard_band : dm->cfg.guard_band;

	bool want = d->guard_band > 0 && max != UINT64_MAX && d->guard_band < max;
	/* the value the kernel keeps (whole pages) is the one read back:
	 * compared with it at restore, an unaligned one never matched */
	long page = sysconf(_SC_PAGESIZE);
	uint64_t high =
		want ? cgoom_guard_high_value(max - d->guard_band, page > 0 ? (uint64_t)page : 4096) : 0;
	char g1[32], g2[32], g3[32];
	if (d->guard_band > 0 && max != UINT64_MAX && d->guard_band >= max)
		log_warning("%s: guard_band %s >= memory.max %s; no guard band", d->path,
			    cgoom_human_size(d->guard_band, g1, sizeof(g1)), cgoom_human_size(max, g2, sizeof(g2)));
	else if (want && high == 0) {
		/* less than a page left: memory.high 0 throttles the cgroup
		 * whole, nothing a band is for */
		log_warning("%s: guard_band %s leaves less than a page of memory.max %s; no guard band",
			    d->path, cgoom_human_size(d->guard_band, g1, sizeof(g1)),
			    cgoom_human_size(max, g2, sizeof(g2)));
		want = false;
	} else if (want && d->guard_band > max / 2)
		/* one [daemon] guard_band for every domain is easily larger
		 * than a small one's whole headroom: its memory.high then
		 * throttles it, and cgoom kills in it, at a fraction of its
		 * limit, which nobody asked for */
		log_warning("%s: guard_band %s is more than half of memory.max %s: memory.high %s "
			    "throttles it from there and cgoom kills in it as soon as its usage stays "
			    "above; give it a smaller one ([cgroup \"%s\"] guard_band = SIZE, or no)",
			    d->path, cgoom_human_size(d->guard_band, g1, sizeof(g1)),
			    cgoom_human_size(max, g2, sizeof(g2)), cgoom_human_size(max - d->guard_band, g3, sizeof(g3)),
			    d->path);
	/* a band a daemon killed before it could restore left, looked for
	 * whether or not one applies now (guard_band = no since must still
	 * put the operator's value back) */
	/* a band of ours someone replaced since (by hand; systemd when a
	 * unit's properties change): their value is the operator's from now
	 * on, never raised by a new band over it */
	uint64_t now;
	if (d->high_written && dm->live && daemon_reread_limit(dm, d->high_fd, &now) == 0 &&
	    now != d->our_high) {
		char h[32];
		guard_fmt_high(now, h, sizeof(h));
		log_info("%s: memory.high was changed by someone else (now %s): theirs from now on",
			 d->path, h);
		d->high_written = false;
		/* only a record of ours goes: one naming another daemon is
		 * judged by guard_recover below (a live one's band is its own,
		 * not a value of the operator's for a band over it) */
		record_remove_ours(dm, d->dirfd, d->path);
	}
	bool mine = true;
	if (dm->live && !d->high_written)
		mine = guard_recover(dm, d);
	if (!want || dm->dry_run || !dm->live || !mine) {
		guard_restore(dm, d);
		d->params.guarded = false;
		return;
	}
	if (!d->high_written) {
		int r = daemon_reread_limit(dm, d->high_fd, &d->old_high);
		if (r < 0) {
			log_warning("%s: memory.high: %s; no guard band", d->path, strerror(-r));
			d->params.guarded = false;
			return;
		}
	}
	/* a memory.high the operator (or systemd's MemoryHigh=) set below
	 * the band's line throttles the cgroup there by design: raising it
	 * would undo that, and the band's trigger would kill a cgroup meant
	 * to sit at it; so also when a reload or a new memory.max moves the
	 * line above a value of theirs the band was under so far */
	if (d->old_high < high) {
		char t1[32], t2[32];
		log_warning("%s: memory.high %s, set by someone else, is below memory.max - guard_band "
			    "(%s): leaving it, and no guard band here (cgoom still acts when what "
			    "cannot be reclaimed nears memory.max)",
			    d->path, cgoom_human_size(d->old_high, t1, sizeof(t1)),
			    cgoom_human_size(high, t2, sizeof(t2)));
		guard_restore(dm, d); /* theirs back, where a band of ours was under it */
		d->params.guarded = false;
		return;
	}
	if (d->high_written && d->our_high == high) {
		d->params.guarded = true;
		return;
	}
	/* the record first: a crash between the two leaves a record whose
	 * value does not stand (removed at the next start), never a band
	 * without one */
	int r = record_write(dm, d, high, d->high_written ? d->our_high : UINT64_MAX,
			     d->high_written ? 0 : XATTR_CREATE);
	bool with_prev = r == 0 && d->high_written;
	if (r == -EEXIST) {
		/* another daemon recorded its band since this one looked (two
		 * started at once): its band, said as such */
		if (guard_recover(dm, d))
			log_warning("%s: another cgoom recorded a guard band here meanwhile: "
				    "no guard band from this daemon here", d->path);
		guard_restore(dm, d); /* (a band taken over just now) */
		d->params.guarded = false;
		return;
	}
	if (r < 0 && !dm->guard_record_warned) {
		char h[32];
		log_warning("%s: cannot record the guard band in %s (%s): if cgoom is killed, "
			    "memory.high stays at %s until it is set by hand (said once)",
			    d->path, CGOOM_GUARD_XATTR, strerror(-r), cgoom_human_size(high, h, sizeof(h)));
		dm->guard_record_warned = true;
	}
	char v[32], old[32];
	guard_fmt_high(high, v, sizeof(v));
	guard_fmt_high(d->old_high, old, sizeof(old));
	r = guard_write_band(dm, d, high); /* guard-write.c: the reclaim off the loop */
	if (r < 0) {
		log_warning("%s: writing memory.high %s: %s; no guard band", d->path, v, strerror(-r));
		if (!d->high_written)
			record_remove_ours(dm, d->dirfd, d->path); /* nothing of ours stands */
		d->params.guarded = d->high_written; /* an older value of ours may stand */
		return;
	}
	char h1[32], h2[32];
	log_info("%s: guard band %s: memory.high = %s (memory.max %s, was %s)", d->path,
		 cgoom_human_size(d->guard_band, h1, sizeof(h1)), v,
		 cgoom_human_size(max, h2, sizeof(h2)), old);
	d->high_written = true;
	d->our_high = high;
	d->params.guarded = true;
	d->sample.high = high;
	/* PREV stood for the moment between the record and the write;
	 * kept after it, a crash later restored a memory.high someone set
	 * to that old band meanwhile as if it were ours */
	if (with_prev) {
		r = record_write(dm, d, high, UINT64_MAX, XATTR_REPLACE);
		if (r < 0)
			log_debug("%s: %s without PREV: %s", d->path, CGOOM_GUARD_XATTR, strerror(-r));
	}
}
