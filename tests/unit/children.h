/* SPDX-License-Identifier: MIT */
#pragma once
/*
 * Children of a unit test that only pause until killed: real processes
 * for the kill path (pidfds, signals, start times) to act on. Each dies
 * with the test (PR_SET_PDEATHSIG). Header-only, for tests/unit.
 */
#include <dirent.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
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

static inline void *pause_forever(void *arg)
{
	(void)arg;
	for (;;)
		pause();
	return NULL;
}

/* Reads /proc/PID/stat's state letter, 0 if it cannot. */
static inline char child_state(pid_t pid)
{
	char path[64], buf[512];
	snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
	FILE *f = fopen(path, "re");
	size_t n = f ? fread(buf, 1, sizeof buf - 1, f) : 0;
	if (f)
		fclose(f);
	buf[n] = '\0';
	const char *close = strrchr(buf, ')');
	return close && close[1] == ' ' ? close[2] : 0;
}

/* Forks a child whose main thread exits (pthread_exit) while a second
 * thread pauses on: its leader shows state Z and no Vm* lines, the
 * process lives (SPEC 2). Returns once the leader shows Z; the TID of
 * the live thread in *ret_tid. */
static inline pid_t spawn_leader_exited(int *ret_tid)
{
	pid_t pid = fork();

	if (pid == 0) {
		pthread_t th;
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		if (pthread_create(&th, NULL, pause_forever, NULL) != 0)
			_exit(1);
		pthread_exit(NULL);
	}
	for (int i = 0; pid > 0 && i < MAX_CHILDREN; i++)
		if (!g_children[i]) {
			g_children[i] = pid;
			break;
		}
	for (int i = 0; pid > 0 && i < 2000 && child_state(pid) != 'Z'; i++)
		usleep(1000);
	*ret_tid = 0;
	char path[64];
	snprintf(path, sizeof path, "/proc/%d/task", (int)pid);
	DIR *d = pid > 0 ? opendir(path) : NULL;
	for (struct dirent *de; d && (de = readdir(d));)
		if (atoi(de->d_name) > 0 && atoi(de->d_name) != pid)
			*ret_tid = atoi(de->d_name);
	if (d)
		closedir(d);
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
