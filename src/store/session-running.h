/* SPDX-License-Identifier: ISC */
/*
 * store/session-running.h - a running session's record: which processes
 * are its own, for "confine ls" (memory, tasks) and "confine stop".
 *
 * The file "running" in the session's directory, KEY=VALUE lines written
 * by session_file_put() (whole or not at all):
 *
 *   supervisor_pid=N	the confine that runs the session
 *   supervisor_start=N	its start time, /proc/PID/stat field 22 (clock
 *			ticks after boot): a pid reused by another process
 *			does not match
 *   sandbox_pid=N	the sandbox's first process (as the supervisor's pid
 *			namespace sees it); absent until it started
 *   cgroup=PATH	the sandbox's cgroup directory (absolute, under
 *			/sys/fs/cgroup: run/limits.c's); absent when it has
 *			none
 *
 * Written once the sandbox started, removed when the command is gone.
 * The run lock (store/session-store.h) says whether the session runs; the
 * record says which processes: a record whose supervisor is gone (or not
 * the one that wrote it) is stale and read as none.
 *
 * Runs in: confine, on the host: the supervisor writes it, the session
 * commands read it.
 */
#ifndef CONFINE_SESSION_RUNNING_H
#define CONFINE_SESSION_RUNNING_H

#include <signal.h>
#include <stdint.h>
#include <sys/types.h>

/*
 * The stop request "confine stop" sends the supervisor: it sends the
 * command SIGTERM, and kills the sandbox if it is still there after a
 * grace of a few seconds; the run ends as any other (exported, kept).
 */
#define SESSION_STOP_SIGNAL	SIGUSR1

struct session_running {
	pid_t		 supervisor;
	uint64_t	 supervisor_start;
	pid_t		 sandbox;	/* 0: not known */
	char		*cgroup;	/* NULL: none */
};

/* Write the record of the session in dir: 0 or -errno. */
int	session_running_put(const char *dir,
	    const struct session_running *r);

/*
 * The record of the session in dir, its supervisor alive and the one that
 * wrote it: 0; -ENOENT when there is none, -ESRCH when it is stale, -EIO
 * when it is not one confine wrote.  Free with session_running_free().
 */
int	session_running_get(const char *dir, struct session_running *ret);

/* Remove the record (the command is gone). */
void	session_running_clear(const char *dir);

void	session_running_free(struct session_running *);

/*
 * A process's start time, field 22 of /proc/PID/stat (clock ticks after
 * boot): 0, or -errno.
 */
int	session_proc_start(pid_t pid, uint64_t *ret);

#endif
