/* SPDX-License-Identifier: ISC */
/*
 * input/profile-select.h - which profile applies to a run, and why (DESIGN.md section 5).
 *
 * Runs in: the supervisor, after the host is probed, before the policy.
 */
#ifndef CONFINE_CHOOSE_H
#define CONFINE_CHOOSE_H

#include "input/cli.h"
#include "input/host-probe.h"
#include "input/profile.h"

/*
 * The search dirs: user, system, shipped.  *ret owns the user dir's string
 * (ret->user): choose_dirs_free() frees it.
 */
void	choose_dirs(const struct host *, struct profile_dirs *ret);
/* Free what d owns; its dirs are then none.  NULL: nothing. */
void	choose_dirs_free(struct profile_dirs *d);
/* $XDG_CONFIG_HOME/confine/trust, heap string. */
char	*choose_pins(const struct host *);

/*
 * Pick and load the profile: -p, else the workspace's trusted .confine.ini
 * (present but not trusted, or changed: refused), else one named after the
 * command, else sealed, else the built-in sealed policy.  Returns 0 with
 * *ret and *reason (heap), or -1 with *cause and *hint.
 */
int	choose_profile(const struct cli_opts *, const struct host *,
	    struct profile *ret, char **reason, char **cause, char **hint);
/*
 * The profile's [workspace] path, when no option names one, into
 * h->workspace (its real path): 0, or -1 with *cause ("file:line: ...").
 */
int	choose_workspace(const struct cli_opts *, struct host *,
	    const struct profile *, char **cause);

#endif
