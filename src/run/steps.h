/* SPDX-License-Identifier: ISC */
/*
 * run/steps.h - the enforcement sequence run: the plan's steps
 * (policy/sequence.h), taken in order by one loop, the same in the native
 * backend's pid 1, bwrap's inner stage and the landlock backend's child,
 * then in the command's own process.
 *
 * Runs in: the sandbox's processes.
 * MUST: a step the plan asks for and this process cannot take is fatal;
 * every failure is fatal (die*(), reported on the status pipe).
 */
#ifndef CONFINE_STEPS_H
#define CONFINE_STEPS_H

#include <stdbool.h>
#include <stdnoreturn.h>
#include <time.h>

#include "enforce/seccomp-load.h"
#include "policy/plan.h"
#include "run/backend.h"

/* What the steps work with; the backend fills it, the steps update it. */
struct step_ctx {
	const struct plan	*p;
	struct timespec		 start_after;	/* zero: at once; from the
						   filter's pipe, or the stage */
	struct fds		*f;	/* the supervisor's fds (native and
					   landlock); NULL in the inner stage */
	int			 status_fd;	/* the status pipe */
	int			 pty_sock;	/* the pty master goes out here */
	int			 proxy_sock;	/* the proxy's listener, here */
	int			 notify_sock;	/* a filter's listener, here */
	int			 bpf_fd;	/* the filter, or -1: loaded */
	int			 slave;		/* the command's pty, or -1 */
	struct syscall_filter_prog prog;	/* read in by the fds step */
	bool			 have_prog;
	struct env_area		 env_area;	/* scrubbed by the environment
						   step; none in the inner stage */
	struct sigaction	 sigpipe;	/* the command's SIGPIPE; the
						   default in the inner stage */
};

/* A context with no fd: every one -1. */
void	steps_ctx_init(struct step_ctx *, const struct plan *);

/* The same for a backend's first process: the run's state and the
 * supervisor's fds (status pipe, filter, pty and proxy channels). */
void	steps_ctx_run(struct step_ctx *, const struct plan *,
	    const struct run_state *, struct fds *);

/* Take the plan's steps that run in this process (in), in order. */
void	steps_run(struct step_ctx *, enum plan_step_in in);

/* The command's steps, which end in its exec: never returns. */
noreturn void	steps_run_command(struct step_ctx *);

#endif
