/* SPDX-License-Identifier: ISC */
/*
 * store/session-usage.h - what a running session's processes take now:
 * resident memory and tasks, for "confine ls".
 *
 * From the sandbox's cgroup when the record names one (memory.current,
 * pids.current; without those controllers, the cgroup's processes'
 * own), else from the process tree of the sandbox's first process
 * (/proc/PID/task/TID/children, walked with a bound).  A process's
 * memory is its own: the proportional share of its private pages and of
 * the shared memory it maps (smaps_rollup's Pss_Anon and Pss_Shmem), the
 * measure the supervisor's watch holds the memory limit to (run/watch.c);
 * files' pages are not counted, which memory.current would count.
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

/*
 * Add up the process tree of first (it and what descends from it, through
 * the children files of each thread, with a bound): its threads and
 * processes, and with memory their own memory (above).  A task_cap other
 * than 0 ends the walk once the threads counted pass it.  0, or -ESRCH
 * when first is gone.
 */
int	session_tree_usage(pid_t first, bool memory, uint64_t task_cap,
	    struct session_usage *u);

#endif
