/* SPDX-License-Identifier: ISC */
/*
 * run/inject.h - the supervisor's side of an injected credential: the
 * keyholder started, handed the sandbox's listener, stopped.
 *
 * Runs in: the supervisor.
 */
#ifndef CONFINE_INJECT_H
#define CONFINE_INJECT_H

#include <sys/types.h>

#include "policy/plan.h"

struct inject {
	pid_t	pid;		/* confine-keyholder; -1: none */
	int	ctl;		/* our end of its control socket; -1: none */
};

/*
 * Start confine-keyholder with p's injection and wait until it holds the
 * credential.  When it cannot, it says why on stderr and confine exits
 * EXIT_CONFINE: nothing has been made yet.
 */
void	inject_start(const struct plan *p, struct inject *);
/* Hand it the listener the sandbox made; fd is closed here. */
void	inject_listen(struct inject *, int fd);
/*
 * Stop it: its counts, logged, as one line for the session's record
 * (heap), or NULL when it served nothing.
 */
char	*inject_stop(struct inject *, const struct plan *p);

#endif
