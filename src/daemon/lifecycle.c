/* SPDX-License-Identifier: MIT */
/* The kill lifecycle's step function: pure (see lifecycle.h). */
#include "lifecycle.h"

static uint64_t add_sat(uint64_t a, uint64_t b)
{
	return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

enum kl_action kl_step(struct kill_lifecycle *k, enum kl_event ev, uint64_t now_us,
		       const struct kl_params *p)
{
	switch (k->state) {
	case KL_IDLE:
	case KL_DONE:
	case KL_GAVE_UP:
		/* a new kill may start once the previous one is over */
		if (ev == KL_EV_START_TERM) {
			k->state = KL_TERM;
			k->signal_us = now_us;
			k->grace_until_us = add_sat(now_us, p->term_grace_us);
			k->wait_until_us = add_sat(k->grace_until_us, p->kill_wait_us);
		} else if (ev == KL_EV_START_KILL) {
			k->state = KL_KILLED;
			k->signal_us = now_us;
			k->grace_until_us = now_us;
			k->wait_until_us = add_sat(now_us, p->kill_wait_us);
		}
		return KL_ACT_NONE;
	case KL_TERM:
		if (ev == KL_EV_ALL_EXITED) {
			k->state = KL_DONE;
			return KL_ACT_REPORT_EXIT;
		}
		if (ev == KL_EV_TICK && now_us >= k->grace_until_us) {
			k->state = KL_KILLED;
			return KL_ACT_SIGKILL;
		}
		return KL_ACT_NONE;
	case KL_KILLED:
		if (ev == KL_EV_ALL_EXITED) {
			k->state = KL_DONE;
			return KL_ACT_REPORT_EXIT;
		}
		if (ev == KL_EV_TICK && now_us >= k->wait_until_us) {
			k->state = KL_GAVE_UP;
			return KL_ACT_REPORT_TIMEOUT;
		}
		return KL_ACT_NONE;
	}
	return KL_ACT_NONE;
}

bool kl_active(const struct kill_lifecycle *k)
{
	return k->state == KL_TERM || k->state == KL_KILLED;
}

uint64_t kl_deadline(const struct kill_lifecycle *k)
{
	if (k->state == KL_TERM)
		return k->grace_until_us;
	if (k->state == KL_KILLED)
		return k->wait_until_us;
	return UINT64_MAX;
}

const char *kl_state_name(enum kl_state s)
{
	static const char *const names[] = { "idle", "term", "killed", "done", "gave_up" };
	return (unsigned)s < sizeof(names) / sizeof(names[0]) ? names[s] : "?";
}
