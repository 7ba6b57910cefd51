/* SPDX-License-Identifier: MIT */
#pragma once

/*
 * The kill lifecycle of one victim set (STYLE 13): signal, grace, wait,
 * give up, as a state machine with a pure step function. No syscalls, no
 * clock: the daemon passes events and the time in, and carries out the
 * action the step returns (send SIGKILL, report).
 *
 *   IDLE --START_TERM--> TERM --tick >= grace_until--> KILLED (act: SIGKILL)
 *   IDLE --START_KILL--> KILLED
 *   TERM, KILLED --ALL_EXITED--> DONE (act: REPORT_EXIT)
 *   KILLED --tick >= wait_until--> GAVE_UP (act: REPORT_TIMEOUT)
 *
 * While TERM or KILLED the domain has a kill in flight: never a second
 * victim (SPEC 6). DONE and GAVE_UP are final; any event there does
 * nothing.
 */

#include <stdbool.h>
#include <stdint.h>

enum kl_state { KL_IDLE, KL_TERM, KL_KILLED, KL_DONE, KL_GAVE_UP };

enum kl_event {
	KL_EV_START_TERM, /* SIGTERM sent (term_grace > 0) */
	KL_EV_START_KILL, /* SIGKILL sent */
	KL_EV_ALL_EXITED, /* every signalled victim's pidfd became readable */
	KL_EV_TICK,       /* a deadline timer fired (or any wake-up) */
};

enum kl_action { KL_ACT_NONE, KL_ACT_SIGKILL, KL_ACT_REPORT_EXIT, KL_ACT_REPORT_TIMEOUT };

struct kill_lifecycle {
	enum kl_state state;
	uint64_t signal_us;      /* when the first signal went out */
	uint64_t grace_until_us; /* TERM: SIGKILL at this time */
	uint64_t wait_until_us;  /* give up waiting at this time */
};

struct kl_params {
	uint64_t term_grace_us, kill_wait_us;
};

/* One step at now_us. Updates *k and returns what the caller must do. */
enum kl_action kl_step(struct kill_lifecycle *k, enum kl_event ev, uint64_t now_us,
		       const struct kl_params *p);

/* Whether a kill is in flight (TERM or KILLED). */
bool kl_active(const struct kill_lifecycle *k);

/* The next time a KL_EV_TICK can change anything; UINT64_MAX if none. */
uint64_t kl_deadline(const struct kill_lifecycle *k);

const char *kl_state_name(enum kl_state s);
