/* SPDX-License-Identifier: ISC */
/*
 * run/command-exec.h - what the sandbox's processes share around the
 * enforcement steps (run/steps.h): the first process's fds, fds passed
 * out to the supervisor, the start time, and the exec.
 *
 * Runs in: the sandbox's processes (native pid 1 and command, bwrap's
 * inner stage, the landlock keeper and command).  Calls no backend and
 * not the supervisor.
 */
#ifndef CONFINE_COMMAND_EXEC_H
#define CONFINE_COMMAND_EXEC_H

#include <signal.h>
#include <stdbool.h>
#include <stdnoreturn.h>
#include <time.h>

#include "policy/plan.h"
#include "run/backend.h"

/* The signals the supervisor blocks and takes from a signalfd, and a
 * namespace's pid 1 waits for: SIGCHLD, SIGWINCH and the forwarded ones. */
void	sandbox_sigset(sigset_t *);

/*
 * A copy's changes are told by ctime >= the start (run/session-dir.c):
 * return only once the coarse clock is past t.  Zero: at once.
 */
void	sandbox_wait_start(const struct timespec *t);

/*
 * The sandbox's first process, first: die with the supervisor (and exit
 * if it is gone already), close the supervisor's ends, report failures on
 * the status pipe.
 */
void	sandbox_child_begin(struct fds *);

/* The same without dying with the supervisor, which stays watched
 * through f->parent (the landlock backend's keeper). */
void	sandbox_child_ends(struct fds *);

/* Pass fd out to the supervisor on sock, and close both; fatal if not. */
void	sandbox_send_out(int sock, int fd, const char *what);

/* With a pty in the plan, open one here and pass its master out on sock;
 * the slave, or -1 without. */
int	sandbox_pty_out(const struct plan_tty *, int sock);

/* A set-up process that stays (pid 1, the keeper): 0, 1, 2 on /dev/null,
 * so that it holds nothing of the user's terminal. */
void	sandbox_stdio_null(void);

/* Pass a signal confine forwarded on to the command's process group (or
 * the command alone); SIGWINCH is the pty's business. */
void	sandbox_forward(pid_t cmd, int sig);

/*
 * Reap every child that has exited; true once cmd is among them, with
 * *ret_code the status confine exits with (its own, or 128+N for signal N).
 */
bool	sandbox_reap(pid_t cmd, int *ret_code);

/* execvp(3) with the PATH of the plan's environment; on failure, die
 * with 127 (not found) or 126. */
noreturn void	exec_command(const struct plan *);

#endif
