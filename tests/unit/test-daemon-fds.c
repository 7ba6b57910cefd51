/* SPDX-License-Identifier: MIT */
/*
 * The fd budget (src/daemon/fds.c): the arithmetic, and which domains
 * give up their kept files when room is needed: quiet ones, newest
 * first; never one near its line, with a standby or a kill in flight.
 * The domains here hold no real fds (every fd field is -1): only the
 * counts are looked at.
 */
#include <stdlib.h>
#include <string.h>

#include "fake-daemon.h"
#include "tap.h"

static void test_fits_and_shortfall(void)
{
	struct fd_budget b = { .limit = 1024, .fixed = 12, .reserve = 512, .kept = 400, .decisions = 0 };
	/* 12 + 512 + 400 = 924: 100 more fit exactly, 101 do not */
	CHECK(fd_budget_fits(&b, 100));
	CHECK(!fd_budget_fits(&b, 101));
	CHECK_EQ_INT(fd_budget_shortfall(&b, 100), 0);
	CHECK_EQ_INT(fd_budget_shortfall(&b, 101), 1);
	CHECK_EQ_INT(fd_budget_shortfall(&b, 130), 30);
	/* a decision's fds count like kept ones */
	b.decisions = 90;
	CHECK(fd_budget_fits(&b, 10));
	CHECK(!fd_budget_fits(&b, 11));
	/* already over (a limit lowered under a running daemon): all of it */
	b.limit = 900;
	CHECK_EQ_INT(fd_budget_shortfall(&b, 0), 114);
	/* saturating, not wrapping */
	b.limit = UINT64_MAX / 2;
	b.kept = SIZE_MAX;
	CHECK(!fd_budget_fits(&b, SIZE_MAX));
	CHECK(fd_budget_shortfall(&b, SIZE_MAX) > 0);
}

static void test_make_room_quiet_newest_first(void)
{
	/* 10 + 500 + 40 x 10 = 910: 90 free beyond the reserve */
	struct daemon *dm = fake_daemon(40);
	CHECK(fds_make_room(dm, 90));
	for (size_t i = 1; i <= 40; i++)
		CHECK(dm->domains[i]->kept);
	/* 25 more: three domains (30 fds) must give theirs up, the newest */
	CHECK(fds_make_room(dm, 115));
	CHECK_EQ_INT(dm->fds.kept, 370);
	for (size_t i = 1; i <= 37; i++)
		CHECK(dm->domains[i]->kept);
	for (size_t i = 38; i <= 40; i++)
		CHECK(!dm->domains[i]->kept && !dm->domains[i]->files_open);
	CHECK_EQ_INT(dm->n_polled_news, 0); /* reported, and the list emptied */
	fake_free(dm);
}

static void test_make_room_spares_active_domains(void)
{
	struct daemon *dm = fake_daemon(40);
	/* the newest: near its line, a standby, a kill in flight */
	dm->domains[40]->approach = true;
	struct standby sb = { 0 };
	dm->domains[39]->standby = &sb;
	dm->domains[38]->kill.lc.state = KL_KILLED;
	CHECK(fds_make_room(dm, 110));
	for (size_t i = 38; i <= 40; i++)
		CHECK(dm->domains[i]->kept);
	CHECK(!dm->domains[37]->kept && !dm->domains[36]->kept);
	CHECK(dm->domains[35]->kept);
	dm->domains[39]->standby = NULL;
	/* more than every quiet domain holds: all quiet ones go, and it says no */
	CHECK(!fds_make_room(dm, 900));
	for (size_t i = 1; i <= 37; i++)
		CHECK(!dm->domains[i]->kept);
	CHECK(dm->domains[38]->kept && dm->domains[40]->kept);
	fake_free(dm);
}

/* A finished preparation finds its domain again by path (standby.c
 * standby_wait): the system domain "/" is none of discovery's cgroups,
 * and must be found too, or every system standby is thrown away (bench
 * a: "decided at the trigger", 50-60 ms instead of a few). */
static void test_find_system_domain(void)
{
	struct daemon *dm = fake_daemon(2);
	CHECK(domains_find(dm, "/") == dm->domains[0]);
	dm->domains[0]->dead = true;
	CHECK(domains_find(dm, "/") == NULL);
	fake_free(dm);
}

int main(void)
{
	return tap_run((struct tap_test[]){ TAP(test_fits_and_shortfall),
					    TAP(test_make_room_quiet_newest_first),
					    TAP(test_make_room_spares_active_domains),
					    TAP(test_find_system_domain), { 0 } });
}
