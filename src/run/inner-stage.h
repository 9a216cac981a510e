/* SPDX-License-Identifier: ISC */
/*
 * run/inner-stage.h - confine's inner stage, run by bwrap inside its sandbox as
 * "confine --inner-stage STAGE_FD STATUS_FD PROXY_FD PTY_FD NOTIFY_FD"
 * (run/backend-bwrap.c, policy/bwrap-argv.c).
 */
#ifndef CONFINE_INNER_H
#define CONFINE_INNER_H

/* Never returns on success: it execs the plan's command. */
int	inner_main(int argc, char **argv);

#endif
