/* SPDX-License-Identifier: MIT */
/* The kill lifecycle's pure step function (src/daemon/lifecycle.c), on a
 * fake clock: signal, grace, wait, give up; never a second start while
 * a kill is in flight. */
#include "lifecycle.h"
#include "tap.h"

#define MS 1000ULL

static const struct kl_params grace2s = { .term_grace_us = 2000 * MS, .kill_wait_us = 10000 * MS };
static const struct kl_params nograce = { .term_grace_us = 0, .kill_wait_us = 10000 * MS };

static void test_sigkill_then_exit(void)
{
	struct kill_lifecycle k = { 0 };
	CHECK(!kl_active(&k));
	CHECK_EQ_U64(kl_deadline(&k), UINT64_MAX);
	CHECK_EQ_INT(kl_step(&k, KL_EV_START_KILL, 1000 * MS, &nograce), KL_ACT_NONE);
	CHECK_EQ_INT(k.state, KL_KILLED);
	CHECK(kl_active(&k));
	CHECK_EQ_U64(kl_deadline(&k), 11000 * MS);
	/* ticks before the deadline change nothing */
	CHECK_EQ_INT(kl_step(&k, KL_EV_TICK, 5000 * MS, &nograce), KL_ACT_NONE);
	CHECK_EQ_INT(k.state, KL_KILLED);
	CHECK_EQ_INT(kl_step(&k, KL_EV_ALL_EXITED, 1033 * MS, &nograce), KL_ACT_REPORT_EXIT);
	CHECK_EQ_INT(k.state, KL_DONE);
	CHECK(!kl_active(&k));
	CHECK_EQ_U64(kl_deadline(&k), UINT64_MAX);
	/* final: more events do nothing */
	CHECK_EQ_INT(kl_step(&k, KL_EV_ALL_EXITED, 2000 * MS, &nograce), KL_ACT_NONE);
	CHECK_EQ_INT(kl_step(&k, KL_EV_TICK, 99000 * MS, &nograce), KL_ACT_NONE);
}

static void test_term_grace_escalates(void)
{
	struct kill_lifecycle k = { 0 };
	kl_step(&k, KL_EV_START_TERM, 0, &grace2s);
	CHECK_EQ_INT(k.state, KL_TERM);
	CHECK_EQ_U64(kl_deadline(&k), 2000 * MS);
	CHECK_EQ_INT(kl_step(&k, KL_EV_TICK, 1999 * MS, &grace2s), KL_ACT_NONE);
	CHECK_EQ_INT(kl_step(&k, KL_EV_TICK, 2000 * MS, &grace2s), KL_ACT_SIGKILL);
	CHECK_EQ_INT(k.state, KL_KILLED);
	/* the wait runs from the SIGTERM: grace + kill_wait */
	CHECK_EQ_U64(kl_deadline(&k), 12000 * MS);
	CHECK_EQ_INT(kl_step(&k, KL_EV_ALL_EXITED, 2100 * MS, &grace2s), KL_ACT_REPORT_EXIT);
	CHECK_EQ_U64(k.signal_us, 0);
}

static void test_term_exits_in_grace(void)
{
	struct kill_lifecycle k = { 0 };
	kl_step(&k, KL_EV_START_TERM, 0, &grace2s);
	CHECK_EQ_INT(kl_step(&k, KL_EV_ALL_EXITED, 500 * MS, &grace2s), KL_ACT_REPORT_EXIT);
	CHECK_EQ_INT(k.state, KL_DONE);
	/* the grace deadline passing later sends nothing */
	CHECK_EQ_INT(kl_step(&k, KL_EV_TICK, 3000 * MS, &grace2s), KL_ACT_NONE);
}

static void test_gives_up(void)
{
	struct kill_lifecycle k = { 0 };
	kl_step(&k, KL_EV_START_KILL, 0, &nograce);
	CHECK_EQ_INT(kl_step(&k, KL_EV_TICK, 9999 * MS, &nograce), KL_ACT_NONE);
	CHECK_EQ_INT(kl_step(&k, KL_EV_TICK, 10000 * MS, &nograce), KL_ACT_REPORT_TIMEOUT);
	CHECK_EQ_INT(k.state, KL_GAVE_UP);
	CHECK(!kl_active(&k));
	/* a victim that exits after the give-up is not reported twice */
	CHECK_EQ_INT(kl_step(&k, KL_EV_ALL_EXITED, 10001 * MS, &nograce), KL_ACT_NONE);
}

static void test_grace_and_wait_zero(void)
{
	/* kill_wait 0 with a grace: SIGKILL at the grace, give up at once after */
	struct kl_params p = { .term_grace_us = 100 * MS, .kill_wait_us = 0 };
	struct kill_lifecycle k = { 0 };
	kl_step(&k, KL_EV_START_TERM, 0, &p);
	CHECK_EQ_INT(kl_step(&k, KL_EV_TICK, 100 * MS, &p), KL_ACT_SIGKILL);
	CHECK_EQ_INT(kl_step(&k, KL_EV_TICK, 100 * MS, &p), KL_ACT_REPORT_TIMEOUT);
}

static void test_no_second_start_in_flight(void)
{
	/* never a second victim for one event: a start while a kill is in
	 * flight leaves the first one's clock and state alone */
	struct kill_lifecycle k = { 0 };
	kl_step(&k, KL_EV_START_KILL, 100 * MS, &nograce);
	CHECK_EQ_INT(kl_step(&k, KL_EV_START_KILL, 200 * MS, &nograce), KL_ACT_NONE);
	CHECK_EQ_INT(kl_step(&k, KL_EV_START_TERM, 300 * MS, &grace2s), KL_ACT_NONE);
	CHECK_EQ_INT(k.state, KL_KILLED);
	CHECK_EQ_U64(k.signal_us, 100 * MS);
	CHECK_EQ_U64(kl_deadline(&k), 10100 * MS);
	/* once over, the next kill may start */
	kl_step(&k, KL_EV_ALL_EXITED, 400 * MS, &nograce);
	kl_step(&k, KL_EV_START_KILL, 500 * MS, &nograce);
	CHECK_EQ_INT(k.state, KL_KILLED);
	CHECK_EQ_U64(k.signal_us, 500 * MS);
}

static void test_saturating_deadlines(void)
{
	struct kl_params huge = { .term_grace_us = UINT64_MAX, .kill_wait_us = UINT64_MAX };
	struct kill_lifecycle k = { 0 };
	kl_step(&k, KL_EV_START_TERM, 5, &huge);
	CHECK_EQ_U64(k.grace_until_us, UINT64_MAX);
	CHECK_EQ_U64(k.wait_until_us, UINT64_MAX);
	CHECK_EQ_INT(kl_step(&k, KL_EV_TICK, UINT64_MAX - 1, &huge), KL_ACT_NONE);
	CHECK_STREQ(kl_state_name(KL_TERM), "term");
	CHECK_STREQ(kl_state_name((enum kl_state)99), "?");
}

int main(void)
{
	return tap_run((struct tap_test[]){
		TAP(test_sigkill_then_exit),
		TAP(test_term_grace_escalates),
		TAP(test_term_exits_in_grace),
		TAP(test_gives_up),
		TAP(test_grace_and_wait_zero),
		TAP(test_no_second_start_in_flight),
		TAP(test_saturating_deadlines),
		{ 0 },
	});
}
