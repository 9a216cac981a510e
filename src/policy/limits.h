/* SPDX-License-Identifier: ISC */
/*
 * policy/limits.h - the resource limits of the plan (confine(1), LIMITS):
 * each from its option, else the profile's [limits], else the default
 * taken from the host's facts; and the kernel's own bounds that follow
 * from them on the plan's backend.
 */
#ifndef CONFINE_POLICY_LIMITS_H
#define CONFINE_POLICY_LIMITS_H

#include "input/cli.h"
#include "input/host-probe.h"
#include "input/profile.h"
#include "policy/plan.h"

/* The default disk budget's ceiling and the reserve's. */
#define LIMITS_DISK_MAX		(10ULL << 30)
#define LIMITS_RESERVE_MAX	(1ULL << 30)
#define LIMITS_TASKS_DEFAULT	4096

/*
 * Fill p->limits, p->mounts.tmpfs_size and tmpfs_inodes, and the
 * "limits.*" lines of p->explain, for p->backend (chosen already).  0, or
 * -1 with *cause and *hint set when the default disk budget leaves
 * nothing to write (the session store's filesystem is at its reserve).
 * A profile value is trusted to be checked (input/profile.c); it is
 * parsed again here.  Pure.
 */
int	policy_limits(struct plan *p, const struct cli_opts *,
	    const struct profile *, const struct host *, char **cause,
	    char **hint);

#endif
