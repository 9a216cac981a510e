/* SPDX-License-Identifier: ISC */
/*
 * cmd/profile-trust.h - "confine profile list | show | check" and "confine trust".
 *
 * Runs in: the supervisor; nothing is confined.  Each returns the exit
 * status.
 */
#ifndef CONFINE_SUBCMD_H
#define CONFINE_SUBCMD_H

#include "input/cli.h"

int	subcmd_profile_list(char *const *env);
int	subcmd_profile_show(const struct cli_opts *, char *const *env);
int	subcmd_profile_check(const struct cli_opts *, char *const *env);
int	subcmd_trust(const struct cli_opts *, char *const *env);

#endif
