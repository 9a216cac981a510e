/* SPDX-License-Identifier: ISC */
/*
 * enforce/landlock.h - the plan's filesystem, TCP and scope rules as a Landlock
 * domain.
 *
 * Runs in: the sandboxed command's process, after pivot_root and
 * no_new_privs, before seccomp.
 */
#ifndef CONFINE_LANDLOCK_H
#define CONFINE_LANDLOCK_H

#include "policy/plan.h"

/*
 * Create the ruleset the plan describes, add every rule, and restrict the
 * calling thread.  Returns 0, or -errno with *where naming the rule (a
 * path) or the step that failed.
 */
int	landlock_apply(const struct plan_landlock *, const char **where);

/*
 * The landlock backend's keeper: a domain that handles no right and
 * scopes signals only (ABI 6), so that its kill(-1) reaches exactly the
 * processes of this domain and of the domains nested in it.  no_new_privs
 * must be set.  0 or -errno.
 */
int	landlock_scope_signals(void);

/* The Landlock rights for PLAN_FS_* access on a directory or a file. */
uint64_t	landlock_rights(unsigned int access, bool is_dir);

#endif
