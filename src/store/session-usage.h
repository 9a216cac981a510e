/* SPDX-License-Identifier: ISC */
/*
 * store/session-usage.h - what a running session's processes take now:
 * resident memory and tasks, for "confine ls".
 *
 * From the sandbox's cgroup when the record names one (memory.current,
 * pids.current; without those controllers, the cgroup's processes'
 * own), else from the process tree of the sandbox's first process
 * (/proc/PID/task/TID/children, walked with a bound).  Resident memory
 * is the processes' RSS summed (shared pages count once per process), so
 * it may exceed what the cgroup's memory.current would say.
 *
 * Runs in: confine, on the host.
 */
#ifndef CONFINE_SESSION_USAGE_H
#define CONFINE_SESSION_USAGE_H

#include <stdbool.h>
#include <stdint.h>

#include "store/session-running.h"

struct session_usage {
	uint64_t	memory;		/* bytes */
	uint64_t	tasks;		/* threads of every process */
	uint64_t	processes;
	bool		from_cgroup;
};

/*
 * The usage of the session whose live record is r: 0, or -ESRCH when its
 * processes are gone (or not the record's any more).
 */
int	session_usage_get(const struct session_running *r,
	    struct session_usage *ret);

#endif
