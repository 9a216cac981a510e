/* SPDX-License-Identifier: ISC */
/*
 * stage.h - the part of the plan that confine's inner stage needs inside
 * bwrap's sandbox (the command, its environment and directory, Landlock,
 * the terminal and the proxy's socket), encoded to pass through an fd.
 *
 * Runs in: the supervisor (encoding) and the inner stage (decoding).  The
 * bytes travel from confine to confine, but are checked as any input.
 */
#ifndef CONFINE_STAGE_H
#define CONFINE_STAGE_H

#include <stddef.h>

#include "plan.h"

/* Encode the stage of p to fd (a memfd).  0 or -errno. */
int	stage_write(const struct plan *p, int fd);

/*
 * Decode what stage_write() wrote into a zeroed plan: argv, envp, cwd,
 * net, tty, landlock.  0, or -EBADMSG for bytes that are not a stage.
 * plan_free() frees it.
 */
int	stage_decode(const char *buf, size_t len, struct plan *ret);

/* Read fd to its end and decode it. */
int	stage_read(int fd, struct plan *ret);

#endif
