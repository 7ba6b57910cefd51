/* SPDX-License-Identifier: MIT */
#pragma once

/*
 * The guard band's record (SPEC 6, doc/SPEC.md section 10 "A guard
 * band outlives no daemon"): when `cgoom run` lowers a cgroup's
 * memory.high to memory.max - guard_band it first writes, in the
 * root-only xattr CGOOM_GUARD_XATTR on that cgroup, the memory.high it
 * found (the operator's) and the one it writes, with who wrote it (the
 * daemon's PID and start time). A clean exit restores the operator's
 * value and removes the record; a daemon killed by SIGKILL cannot, and
 * the next one to start finds the record: a memory.high still equal
 * to what the record says cgoom wrote is a band nobody is running any
 * more, and the operator's value is put back. trusted.* can be set by
 * CAP_SYS_ADMIN alone, so a delegated user can neither forge a record
 * nor remove one.
 *
 * Pure: no I/O.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define CGOOM_GUARD_XATTR "trusted.cgoom.guard"

/* Room for any record (the format's longest is well under this). */
#define CGOOM_GUARD_RECORD_MAX 128

/* "1 PID START OLD OURS [PREV]": format version 1, the writer's PID and
 * start time (/proc/PID/stat field 22), the memory.high found ("max" or
 * bytes), the one written (bytes) and, after a change of it (a new
 * memory.max, a reload), the one written before, which stands for a
 * moment between the record's update and the write (the record is
 * rewritten without it once the write is done). */
struct cgoom_guard_record {
	int pid;
	uint64_t start;
	uint64_t old;  /* UINT64_MAX: "max" */
	uint64_t ours;
	uint64_t prev; /* UINT64_MAX: none */
};

/* Parses a record (an xattr's value: a trailing NUL or newline is
 * allowed). -EPROTONOSUPPORT for a record of another format version (a
 * decimal VERSION >= 2, then nothing or a space and printable text: a
 * later cgoom's, which this one must keep, not remove); -EBADMSG when it
 * is no record at all: fields missing or extra, a number malformed or out
 * of range, OURS or PREV "max". */
int cgoom_guard_record_parse(const char *buf, size_t len, struct cgoom_guard_record *ret);

/* Writes rec as the xattr's value into buf (NUL-terminated); the
 * length without the NUL, or -ENOSPC when size is too small. */
int cgoom_guard_record_format(const struct cgoom_guard_record *rec, char *buf, size_t size);

/* What a daemon that starts (or first meets a cgroup) does with the
 * record it finds there. */
enum cgoom_guard_found {
	CGOOM_GUARD_ABSENT,    /* no record: memory.high is the operator's */
	CGOOM_GUARD_LEFT,      /* memory.high is still what a daemon no longer
				* running wrote: rec.old is the operator's */
	CGOOM_GUARD_LIVE,      /* written by a daemon still running (another
				* `cgoom run`): its band, which it restores;
				* leave memory.high and the record */
	CGOOM_GUARD_STALE,     /* memory.high was changed since it was
				* written: the operator's now; drop the record */
	CGOOM_GUARD_MALFORMED, /* not a record cgoom understands: drop it,
				* leave memory.high */
};

/* Judges a record against the memory.high read now. rec NULL: no
 * record (ABSENT); malformed: the parse failed (MALFORMED). writer_alive:
 * whether rec->pid still runs with start time rec->start and is not the
 * caller (the caller's own record is LEFT: it adopts it). */
enum cgoom_guard_found cgoom_guard_judge(const struct cgoom_guard_record *rec, bool malformed,
					 uint64_t high, bool writer_alive);

/* The memory.high the kernel stores for `bytes` (it keeps whole pages
 * and reads back that many pages' bytes): bytes rounded down to
 * page_size (a power of two; "max" stays UINT64_MAX). */
uint64_t cgoom_guard_high_value(uint64_t bytes, uint64_t page_size);
