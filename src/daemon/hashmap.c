/* SPDX-License-Identifier: MIT */
/*
 * Two small hash maps for discovery (discover.c): cgroup path -> node
 * and inotify watch descriptor -> node, so that finding a cgroup costs
 * O(1) instead of a scan of every domain (which made each 3 s walk
 * O(n^2): 100 million string compares at 10,000 cgroups). Open
 * addressing with linear probing and tombstones; keys are not copied
 * (a path key lives in the value that owns it). A map holds one kind of
 * key, fixed by its first put: a call with the other kind (or a NULL
 * string) finds and adds nothing.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "daemon-internal.h"

#define TOMB ((void *)&tomb_marker)
static const char tomb_marker;

static uint64_t hash_str(const char *s)
{
	uint64_t h = 1469598103934665603ULL; /* FNV-1a */
	for (; *s; s++) {
		h ^= (unsigned char)*s;
		h *= 1099511628211ULL;
	}
	return h;
}

static uint64_t hash_int(int k)
{
	uint64_t h = (uint64_t)(unsigned)k * 0x9e3779b97f4a7c15ULL;
	return h ^ (h >> 29);
}

static uint64_t hash_key(bool str, const char *skey, int ikey)
{
	return str ? hash_str(skey) : hash_int(ikey);
}

static bool slot_used(const struct map_slot *s)
{
	return s->val && s->val != TOMB;
}

/* The slot holding key, or the one where it would go (the first
 * tombstone on its probe path, else the empty slot ending it). */
static size_t find(const struct map *m, const char *skey, int ikey, bool str, uint64_t h, bool *found)
{
	size_t mask = m->cap - 1, i = (size_t)h & mask, first_tomb = SIZE_MAX;
	*found = false;
	for (;;) {
		const struct map_slot *s = &m->slots[i];
		if (!s->val)
			return first_tomb != SIZE_MAX ? first_tomb : i;
		if (s->val == TOMB) {
			if (first_tomb == SIZE_MAX)
				first_tomb = i;
		} else if (str ? strcmp(s->skey, skey) == 0 : s->ikey == ikey) {
			*found = true;
			return i;
		}
		i = (i + 1) & mask;
	}
}

static int grow(struct map *m)
{
	/* rehash (dropping tombstones) into a table at most a quarter full
	 * of live keys: churn that adds and removes keeps it the same size */
	size_t ncap = 64;
	while (ncap < 4 * (m->n + 1))
		ncap *= 2;
	struct map_slot *old = m->slots;
	size_t ocap = m->cap;
	m->slots = calloc(ncap, sizeof(*m->slots));
	if (!m->slots) {
		m->slots = old;
		return -ENOMEM;
	}
	m->cap = ncap;
	m->n = m->used = 0;
	for (size_t i = 0; i < ocap; i++)
		if (slot_used(&old[i])) {
			bool found;
			size_t k = find(m, old[i].skey, old[i].ikey, m->str,
					hash_key(m->str, old[i].skey, old[i].ikey), &found);
			m->slots[k] = old[i];
			m->n++;
			m->used++;
		}
	free(old);
	return 0;
}

/* An empty table (none allocated yet, or freed) takes either kind; a
 * put that failed to allocate one fixes nothing. */
static bool kind_ok(const struct map *m, const char *skey, bool str)
{
	return (!str || skey) && (!m->cap || m->str == str);
}

static void *get(const struct map *m, const char *skey, int ikey, bool str)
{
	if (!m->cap || !kind_ok(m, skey, str))
		return NULL;
	bool found;
	size_t i = find(m, skey, ikey, str, hash_key(str, skey, ikey), &found);
	return found ? m->slots[i].val : NULL;
}

static int put(struct map *m, const char *skey, int ikey, bool str, void *val)
{
	if (!val || !kind_ok(m, skey, str))
		return -EINVAL;
	m->str = str;
	/* live keys and tombstones together at most 3/4 of the table */
	if (4 * (m->used + 1) > 3 * m->cap && grow(m) < 0)
		return -ENOMEM;
	bool found;
	size_t i = find(m, skey, ikey, str, hash_key(str, skey, ikey), &found);
	struct map_slot *s = &m->slots[i];
	if (!found) {
		m->n++;
		if (!s->val)
			m->used++;
	}
	s->skey = skey;
	s->ikey = ikey;
	s->val = val;
	return 0;
}

static void *del(struct map *m, const char *skey, int ikey, bool str)
{
	if (!m->cap || !kind_ok(m, skey, str))
		return NULL;
	bool found;
	size_t i = find(m, skey, ikey, str, hash_key(str, skey, ikey), &found);
	if (!found)
		return NULL;
	void *v = m->slots[i].val;
	m->slots[i].val = TOMB;
	m->n--;
	return v;
}

void *map_get_str(const struct map *m, const char *key)
{
	return get(m, key, 0, true);
}

int map_put_str(struct map *m, const char *key, void *val)
{
	return put(m, key, 0, true, val);
}

void *map_del_str(struct map *m, const char *key)
{
	return del(m, key, 0, true);
}

void *map_get_int(const struct map *m, int key)
{
	return get(m, NULL, key, false);
}

int map_put_int(struct map *m, int key, void *val)
{
	return put(m, NULL, key, false, val);
}

void *map_del_int(struct map *m, int key)
{
	return del(m, NULL, key, false);
}

void *map_next(const struct map *m, size_t *it)
{
	while (*it < m->cap) {
		const struct map_slot *s = &m->slots[(*it)++];
		if (slot_used(s))
			return s->val;
	}
	return NULL;
}

void map_free(struct map *m)
{
	free(m->slots);
	*m = (struct map){ 0 };
}
