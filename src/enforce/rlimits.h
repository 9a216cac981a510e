/* SPDX-License-Identifier: ISC */
/*
 * enforce/rlimits.h - the kernel's own bounds on the sandbox's processes:
 * RLIMIT_NPROC and the nice value (confine(1), LIMITS).
 *
 * Runs in: the sandbox's set-up process (native's pid 1, bwrap's inner
 * stage, the landlock backend's child), before the command; the command
 * inherits them.
 */
#ifndef CONFINE_RLIMITS_H
#define CONFINE_RLIMITS_H

#include "policy/plan.h"

/*
 * Set RLIMIT_NPROC (soft and hard) to l->nproc when it is not 0, or to
 * the hard limit already there when that is lower; add l->nice to this
 * process's nice value (at most 19).  Each checked with the kernel.  0,
 * or -errno with *what naming the bound that failed.
 */
int	rlimits_apply(const struct plan_limits *l, const char **what);

#endif
