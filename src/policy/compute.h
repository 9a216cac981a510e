/* SPDX-License-Identifier: ISC */
/*
 * policy/compute.h - (command line, profile, host facts) to a plan, through the
 * rule of two (DESIGN.md section 2).
 *
 * Pure: no system calls, no file or environment reads.  The same inputs
 * always give the same plan.
 */
#ifndef CONFINE_POLICY_H
#define CONFINE_POLICY_H

#include "input/cli.h"
#include "input/host-probe.h"
#include "input/profile.h"
#include "policy/plan.h"

/*
 * Compute the plan.  Options override the profile's values.  Returns 0, or
 * -1 with *cause (and *hint, possibly NULL) set to heap strings when the
 * policy refuses: the rules grant a leg the quadrant does not allow, or all
 * three; the workspace would expose the home directory; a protection the
 * policy requires is missing from this kernel.
 */
int	policy_compute(const struct cli_opts *, const struct host *,
	    char *const *host_env, const struct profile *,
	    const char *profile_reason, struct plan *ret, char **cause,
	    char **hint);

/*
 * The host's trees a quadrant with leg C shows (confine(1), HOST VIEW),
 * beside the workspace and the profile's paths.  NULL-terminated.
 */
extern const char *const policy_system_trees[];

/*
 * The profile's state directory, where its persistent paths are kept
 * (confine-profile(5), PERSISTENT SCRATCH): STATE_HOME/confine/state/NAME,
 * NAME the profile's own when it is a valid profile name, else "file-"
 * and a hash of the file's path.  Owned; NULL for the built-in profile.
 */
char	*policy_state_dir(const char *state_home, const struct profile *);

/* The legs a quadrant allows (PLAN_LEG_*), or 0 for an unknown name. */
unsigned int	policy_quadrant_legs(const char *quadrant);
/*
 * Does the profile's quadrant allow leg C, so that the plan shows the host
 * from an allow-list (plan->allow_list)?  Asked before the plan, to scan
 * /etc only then (probe_etc_private()).
 */
bool		policy_allow_list(const struct profile *);

/* Landlock rights of an ABI version, from the exact table. */
uint64_t	policy_landlock_fs(int abi);
uint64_t	policy_landlock_net(int abi);
uint64_t	policy_landlock_scoped(int abi);

#endif
