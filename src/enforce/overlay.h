/* SPDX-License-Identifier: ISC */
/*
 * enforce/overlay.h - the bwrap backend's workspace overlay, mounted in a
 * mount namespace of confine's own before bwrap runs (enforce/overlay.c).
 *
 * Runs in: the child that execs bwrap, in its new user and mount
 * namespaces, the caller's ids mapped (ns_map_ids()).
 */
#ifndef CONFINE_OVERLAY_H
#define CONFINE_OVERLAY_H

#include "policy/plan.h"

/*
 * Mount m (PLAN_MOUNT_OVERLAY: src the lower layer, upper and work the
 * session's) over m->dst, which is m->src.  0, or -errno with *where the
 * path or layer that failed.
 */
int	overlay_mount_workspace(const struct plan_mount *m, const char **where);

#endif
