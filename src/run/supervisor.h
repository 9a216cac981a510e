/* SPDX-License-Identifier: ISC */
/*
 * run/supervisor.h - run the plan with its backend, and supervise it.
 * The backend is the plan's: nothing else is tried if it cannot start.
 *
 * Runs in: the supervisor, which stays outside the sandbox.
 */
#ifndef CONFINE_SANDBOX_H
#define CONFINE_SANDBOX_H

#include "lib/env.h"
#include "policy/plan.h"

/*
 * Run the plan's command confined and supervise it to the end.  Returns
 * the exit status for confine: the command's own, 128+N if it was killed by
 * signal N, 125 if setting up the confinement failed, 126 or 127 if the
 * command could not be executed or found.  area: where confine's argv and
 * environ strings lie (env_snapshot()), zeroed in the sandbox's processes.
 */
int	sandbox_run(const struct plan *, const struct env_area *);

#endif
