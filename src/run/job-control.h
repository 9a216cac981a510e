/* SPDX-License-Identifier: ISC */
/*
 * run/job-control.h - job control for a session on a terminal: when the command stops
 * (Ctrl-Z in its pty, or SIGTSTP sent to itself), confine stops too, so
 * the user's shell takes its terminal back; fg continues both.
 */
#ifndef CONFINE_JOB_H
#define CONFINE_JOB_H

#include <stdbool.h>
#include <sys/types.h>

/*
 * Is the foreground process group of the pty (its master given) stopped?
 * Its id, as this process sees it, goes to *ret_pgrp when it is.
 */
bool	job_stopped(int master, pid_t *ret_pgrp);
/* Stop confine as the terminal's Ctrl-Z would (SIGTSTP); returns once
 * continued, true, or at once, false, when SIGTSTP is ignored here (no
 * job control in the caller's shell). */
bool	job_stop_self(void);
/*
 * In the sandbox, before exec: fork; the child returns, in a process group
 * of its own in the foreground of tty; the parent stays the session's
 * leader, forwards SIGINT, SIGTERM, SIGHUP and SIGQUIT to that group, and
 * exits with the child's status (128+N for signal N).
 */
void	job_foreground(int tty);

#endif
