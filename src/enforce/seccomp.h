/* SPDX-License-Identifier: ISC */
/*
 * enforce/seccomp.h - the seccomp deny-list (libseccomp).
 *
 * The filter is compiled by the supervisor in parallel with the sandbox's
 * set-up, passed as BPF over a pipe, and loaded by the command's process
 * last before execve; the bwrap backend's notify filter likewise, over
 * the inner stage's socket.  Compiling is here (libseccomp); taking in and
 * loading is enforce/seccomp-load.h's (seccomp(2) alone).
 */
#ifndef CONFINE_SYSCALL_FILTER_H
#define CONFINE_SYSCALL_FILTER_H

#include <stdbool.h>
#include <stddef.h>

#include "policy/plan.h"

/*
 * Runs in: the supervisor, while the sandbox sets itself up.
 * Compile the plan's filter and write the BPF program to fd.  Returns 0,
 * or -errno with *where naming the rule or step that failed.
 */
int	syscall_filter_export(const struct plan_syscalls *, int fd,
	    const char **where);

/* What compiles the filter, in words ("libseccomp 2.5.4 api 6"), in buf:
 * a compiled filter is kept for this alone (run/filter-cache.c). */
void	syscall_filter_engine(char *buf, size_t len);

/*
 * Runs in: the supervisor, while the bwrap backend's inner stage starts.
 * Compile that stage's filter, unix connects and sends and file locks to
 * a listener (run/notify.c), and send its BPF program over sock, one
 * message.  0, or -errno with *where.
 */
int	syscall_filter_notify_send(int sock, const char **where);

/*
 * Add to filter (a libseccomp scmp_filter_ctx) the rules every filter
 * with a listener for the supervisor has: file locks and leases handed to
 * it (run/notify.c: flock but LOCK_UN alone, fcntl's lock and lease
 * commands), and seccomp(2) asking for a new listener refused, as one of
 * the command's own would take the supervisor's notifications.  0 or
 * -errno, *where the call that failed.
 */
int	syscall_filter_notify_rules(void *filter, const char **where);

#endif
