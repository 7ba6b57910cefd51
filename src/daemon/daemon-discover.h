/* SPDX-License-Identifier: MIT */
/* The daemon's maps (hashmap.c) and discovery (discover.c) (part of daemon-internal.h, which includes it where it stood). */
#ifndef CGOOM_DAEMON_DISCOVER_H
#define CGOOM_DAEMON_DISCOVER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct daemon;
struct domain;
struct trigger_event;

/* ---- hashmap.c: string or int keys -> pointers (keys not copied) ---- */

struct map_slot {
	const char *skey;
	int ikey;
	void *val; /* NULL: empty */
};
struct map {
	struct map_slot *slots;
	size_t n, used, cap; /* live keys; live + tombstones; slots (a power of 2) */
	bool str;
};
void *map_get_str(const struct map *m, const char *key);
/* One kind of key per map, fixed by its first put: a call with the other
 * kind (or a NULL key) finds nothing, and its put is -EINVAL. */
int map_put_str(struct map *m, const char *key, void *val); /* 0, -ENOMEM, -EINVAL (NULL, or an int map) */
void *map_del_str(struct map *m, const char *key);          /* the value removed, or NULL */
void *map_get_int(const struct map *m, int key);
int map_put_int(struct map *m, int key, void *val);
void *map_del_int(struct map *m, int key);
/* The next live value from slot *it on (start at 0), or NULL. */
void *map_next(const struct map *m, size_t *it);
void map_free(struct map *m);

/* ---- discover.c: which cgroups are domains ---- */

/* A full walk as a consistency check, with inotify working ... */
#define DISCOVER_SLOW_US 120000000ULL
/* ... and without it (or some cgroup unwatched, or unreadable). */
#define DISCOVER_FAST_US 3000000ULL
/* A directory with DISCOVER_NOISE_MAX events within
 * DISCOVER_NOISE_WINDOW_US that nothing looks at (kernfs notifying a
 * throttled cgroup's memory.events) has its file writes checked every
 * DISCOVER_MUTE_US instead (discover.c). */
#define DISCOVER_NOISE_MAX 10U
#define DISCOVER_NOISE_WINDOW_US 1000000ULL
#define DISCOVER_MUTE_US 10000000ULL

struct cgnode;
struct discover {
	int ifd; /* inotify, or -1 */
	struct watch w;
	struct map by_path; /* path -> struct cgnode: every memcg directory */
	struct map by_wd;   /* watch descriptor -> struct cgnode */
	size_t n_unwatched; /* nodes without a watch: walked every 3 s */
	int watch_err;      /* the first watch error (said once) */
	bool overflowed;    /* the queue overflowed: a full walk is due */
	bool deep_said;     /* cgroups past MAX_DEPTH were found (said once) */
	uint64_t next_walk_us;
	size_t walk_fails, walk_fails_last; /* what the last walks could not read */
	char walk_first[320], walk_first_last[320];
	/* for the loop: domains found (to sample at once) and domains to
	 * sample now; vanished ones are marked d->vanished */
	struct domain **news, **pokes;
	size_t n_news, cap_news, n_pokes, cap_pokes;
	bool any_vanished; /* a domain marked d->vanished since the loop looked */
	/* noisy directories, in the order they get IN_MODIFY back */
	struct cgnode **muted;
	size_t n_muted, cap_muted;
	uint64_t mutes, events; /* times one was muted, events read (the debug line's) */
};
int discover_init(struct daemon *dm);
/* A full walk: nodes and watches made, domains added or marked vanished. */
void discover_walk(struct daemon *dm, uint64_t now);
/* Reads and handles the inotify events waiting; how many there were. */
size_t discover_read(struct daemon *dm, uint64_t now);
uint64_t discover_next_walk_us(const struct daemon *dm);
/* When the first noisy directory gets IN_MODIFY back (UINT64_MAX: none
 * muted), and giving it back to those due (within SCHED_EARLY_MAX_US). */
uint64_t discover_next_unmute_us(const struct daemon *dm);
void discover_unmute_due(struct daemon *dm, uint64_t now);
/* d gave up its kept files: its directory's events are its wake-up
 * again, so its watch gets IN_MODIFY back now if it was muted. */
void discover_domain_polled(struct daemon *dm, struct domain *d, uint64_t now);
/* For tests: -1 no such memcg directory, 0 watched, 1 muted. */
int discover_node_state(const struct daemon *dm, const char *path);

/* d is being torn down: its node forgets it. */
void discover_forget(struct daemon *dm, struct domain *d);
void discover_free(struct daemon *dm);

#endif
