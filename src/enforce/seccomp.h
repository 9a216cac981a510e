/* SPDX-License-Identifier: ISC */
/*
 * enforce/seccomp.h - the seccomp deny-list (libseccomp).
 *
 * The filter is compiled by the supervisor in parallel with the sandbox's
 * set-up, passed as BPF over a pipe, and loaded by the command's process
 * last before execve.
 */
#ifndef CONFINE_SYSCALL_FILTER_H
#define CONFINE_SYSCALL_FILTER_H

#include <stdbool.h>
#include <stddef.h>

#include "policy/plan.h"

/* A compiled filter: sock_filter instructions, 8 bytes each. */
struct syscall_filter_prog {
	void	*insns;
	size_t	 len;		/* in instructions */
};

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

/* Runs in: the command.  Read a whole BPF program from fd (to EOF). */
int	syscall_filter_read(int fd, struct syscall_filter_prog *ret);
/*
 * Load it with seccomp(2); no_new_privs must already be set.  With
 * listener, the fd of its user notifications (the plan's
 * no_path_metadata); else 0.  -errno on failure.
 */
int	syscall_filter_load(const struct syscall_filter_prog *, bool listener);

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
