/* SPDX-License-Identifier: ISC */
/*
 * enforce/mounts.h - the sandbox's filesystem view.
 *
 * Runs in: the sandbox's first process, in its new user and mount
 * namespaces, before Landlock (a Landlock-restricted thread may not mount).
 */
#ifndef CONFINE_MOUNT_H
#define CONFINE_MOUNT_H

#include "policy/plan.h"

/*
 * Build the new root from the plan's mounts, in order, and pivot into it;
 * the host's root is detached afterwards.  Returns 0, or -errno with
 * *where set to what failed (a plan path or a step name) and *ret_hint to
 * why, where that is known (a host tree that cannot be shown read-only),
 * else NULL: a heap string.
 */
int	mount_setup(const struct plan_mounts *, const char **where,
	    char **ret_hint);

#endif
