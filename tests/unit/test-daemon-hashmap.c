/* SPDX-License-Identifier: MIT */
/* The discovery's maps (src/daemon/hashmap.c) against a plain array:
 * string and int keys, churn that does not grow the table, and a map
 * asked with the other kind of key than it holds. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "daemon-internal.h"
#include "tap.h"

enum { N = 500 };

static void test_str_model(void)
{
	static char keys[N][32];
	static int vals[N];
	bool in[N] = { false };
	struct map m = { 0 };
	srand(7);
	for (int i = 0; i < N; i++) {
		snprintf(keys[i], sizeof(keys[i]), "/fleet/c%d", i);
		vals[i] = i;
	}
	for (int step = 0; step < 50000; step++) {
		int i = rand() % N;
		if (rand() % 2) {
			/* a key equal in content but another pointer finds it too */
			CHECK_EQ_INT(map_put_str(&m, keys[i], &vals[i]), 0);
			in[i] = true;
		} else {
			void *v = map_del_str(&m, keys[i]);
			CHECK(v == (in[i] ? &vals[i] : NULL));
			in[i] = false;
		}
		int j = rand() % N;
		char copy[32];
		memcpy(copy, keys[j], sizeof(copy));
		CHECK(map_get_str(&m, copy) == (in[j] ? &vals[j] : NULL));
	}
	size_t n = 0;
	for (int i = 0; i < N; i++)
		n += in[i];
	CHECK_EQ_INT(m.n, n);
	CHECK(map_get_str(&m, "/not/there") == NULL);
	CHECK_EQ_INT(map_put_str(&m, "/x", NULL), -EINVAL);
	map_free(&m);
	CHECK(map_get_str(&m, keys[0]) == NULL);
}

static void test_int_churn(void)
{
	struct map m = { 0 };
	int v = 1;
	/* watch descriptors come and go for ever: the table stays small */
	for (int wd = 1; wd < 200000; wd++) {
		CHECK_EQ_INT(map_put_int(&m, wd, &v), 0);
		if (wd > 10)
			CHECK(map_del_int(&m, wd - 10) == &v);
		CHECK(map_get_int(&m, wd) == &v);
		CHECK(map_get_int(&m, wd - 10) == NULL);
	}
	CHECK_EQ_INT(m.n, 10);
	CHECK(m.cap <= 256);
	map_free(&m);
}

/* A map holds one kind of key, fixed by its first put: asking a string
 * map by int (or with a NULL string) or an int map by string finds
 * nothing and adds nothing, rather than hashing a NULL string. */
static void test_kind_mismatch(void)
{
	static int a = 1, b = 2;
	struct map s = { 0 }, i = { 0 };
	CHECK_EQ_INT(map_put_str(&s, "/a", &a), 0);
	CHECK(map_get_int(&s, 0) == NULL);
	CHECK(map_del_int(&s, 0) == NULL);
	CHECK_EQ_INT(map_put_int(&s, 0, &b), -EINVAL);
	CHECK(map_get_str(&s, NULL) == NULL);
	CHECK_EQ_INT(map_put_str(&s, NULL, &b), -EINVAL);
	CHECK(map_get_str(&s, "/a") == &a);
	CHECK_EQ_INT((int)s.n, 1);

	CHECK_EQ_INT(map_put_int(&i, 7, &a), 0);
	CHECK(map_get_str(&i, "/a") == NULL);
	CHECK(map_del_str(&i, "/a") == NULL);
	CHECK_EQ_INT(map_put_str(&i, "/a", &b), -EINVAL);
	CHECK(map_get_int(&i, 7) == &a);
	CHECK_EQ_INT((int)i.n, 1);
	map_free(&s);
	map_free(&i);
}

int main(void)
{
	return tap_run((struct tap_test[]){ TAP(test_str_model), TAP(test_int_churn), TAP(test_kind_mismatch), { 0 } });
}
