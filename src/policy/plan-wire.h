/* SPDX-License-Identifier: ISC */
/*
 * policy/plan-wire.h - the part of the plan that confine's inner stage needs inside
 * bwrap's sandbox (the command, its environment and directory, Landlock,
 * the terminal and the proxy's socket, the limits), encoded to pass
 * through an fd.
 *
 * Runs in: the supervisor (encoding) and the inner stage (decoding).  The
 * bytes travel from confine to confine, but are checked as any input.
 */
#ifndef CONFINE_STAGE_H
#define CONFINE_STAGE_H

#include <stddef.h>
#include <stdio.h>
#include <time.h>

#include "policy/plan.h"

/* The most a stage may take: the inner stage reads no more. */
#define STAGE_MAX	(64U << 20)

/* What the run learned, or was told, that the inner stage needs too. */
struct stage_run {
	struct timespec	 start_after;	/* the command starts once the coarse
					   clock is past it; zero: at once */
	int		 log_level;	/* -q, -v, -vv */
};

/*
 * Encode the stage of p to f, then run.  0, or -EIO if f is in error.
 */
int	stage_write(const struct plan *p, const struct stage_run *run,
	    FILE *f);

/*
 * Decode what stage_write() wrote into a zeroed plan: argv, envp, cwd,
 * net, backend, tty, landlock, the limits' numbers (not their origins),
 * the enforcement sequence; and *ret_run.
 * 0, or -EBADMSG for bytes that are not a stage.  plan_free() frees it.
 */
int	stage_decode(const char *buf, size_t len, struct plan *ret,
	    struct stage_run *ret_run);

#endif
