/* SPDX-License-Identifier: MIT */
#pragma once
/*
 * Children of a unit test that only pause until killed: real processes
 * for the kill path (pidfds, signals, start times) to act on. Each dies
 * with the test (PR_SET_PDEATHSIG). Header-only, for tests/unit.
 */
#include <signal.h>
#include <stdbool.h>
#include <sys/prctl.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#define MAX_CHILDREN 8

static pid_t g_children[MAX_CHILDREN];

/* Forks a child that pauses; remembered for reap_all(). */
static inline pid_t spawn(void)
{
	pid_t pid = fork();

	if (pid == 0) {
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		for (;;)
			pause();
	}
	for (int i = 0; pid > 0 && i < MAX_CHILDREN; i++)
		if (!g_children[i]) {
			g_children[i] = pid;
			break;
		}
	return pid;
}

/* Kills (if needed) and reaps one of our children; returns its wait status. */
static inline int reap(pid_t pid)
{
	int status = 0;

	for (int i = 0; i < MAX_CHILDREN; i++)
		if (g_children[i] == pid) {
			g_children[i] = 0;
			kill(pid, SIGKILL);
			waitpid(pid, &status, 0);
		}
	return status;
}

static inline void reap_all(void)
{
	for (int i = 0; i < MAX_CHILDREN; i++)
		if (g_children[i])
			reap(g_children[i]);
}

/* Not yet exited (a zombie counts as exited: it is reaped here). */
static inline bool alive(pid_t pid)
{
	return waitpid(pid, NULL, WNOHANG) == 0;
}
