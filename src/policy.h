/* SPDX-License-Identifier: ISC */
/*
 * policy.h - the sealed quadrant: (command line, host facts) to a plan.
 *
 * Pure: no system calls, no file or environment reads.  The same inputs
 * always give the same plan.
 */
#ifndef CONFINE_POLICY_H
#define CONFINE_POLICY_H

#include "cli.h"
#include "plan.h"
#include "probe.h"

/*
 * Compute the plan.  Returns 0, or -1 with *cause (and *hint, possibly
 * NULL) set to heap strings when the policy refuses to run: the workspace
 * would expose the home directory, or a protection the policy requires is
 * missing from this kernel.
 */
int	policy_compute(const struct cli_opts *, const struct host *,
	    char *const *host_env, struct plan *ret, char **cause,
	    char **hint);

/* Landlock rights of an ABI version, from the exact table. */
uint64_t	policy_landlock_fs(int abi);
uint64_t	policy_landlock_net(int abi);
uint64_t	policy_landlock_scoped(int abi);

#endif
