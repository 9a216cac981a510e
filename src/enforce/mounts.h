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
 * *where set to what failed (a plan path or a step name).
 */
int	mount_setup(const struct plan_mounts *, const char **where);
/* Set when a host tree cannot be shown read-only: why, for the hint. */
extern const char *mount_hint;

#endif
