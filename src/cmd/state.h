/* SPDX-License-Identifier: ISC */
/*
 * cmd/state.h - "confine state ls | show | drop": the agent state confine
 * keeps for a profile's persistent paths, in
 * $XDG_STATE_HOME/confine/state/PROFILE (run/agent-state.c).
 *
 * Runs in: the supervisor's process, outside any sandbox.  Each returns
 * the exit status.
 */
#ifndef CONFINE_STATE_H
#define CONFINE_STATE_H

#include "input/cli.h"

int	state_ls(char *const *env);
int	state_show(const struct cli_opts *, char *const *env);
int	state_drop(const struct cli_opts *, char *const *env);

#endif
