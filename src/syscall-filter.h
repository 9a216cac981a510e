/* SPDX-License-Identifier: ISC */
/*
 * syscall-filter.h - the seccomp deny-list (libseccomp).
 *
 * Runs in: the sandboxed command's process, last before execve.
 */
#ifndef CONFINE_SYSCALL_FILTER_H
#define CONFINE_SYSCALL_FILTER_H

#include "plan.h"

/*
 * Build the filter for the plan and load it into the calling process.
 * Returns 0, or -errno with *where naming the rule or step that failed.
 */
int	syscall_filter_load(const struct plan_syscalls *, const char **where);

#endif
