/* SPDX-License-Identifier: ISC */
/*
 * enforce/seccomp-load.h - a compiled seccomp filter (enforce/seccomp.h
 * compiles it) taken in and loaded with seccomp(2) alone: no libseccomp
 * in the processes that only load one (the command's, the bwrap
 * backend's inner stage).
 */
#ifndef CONFINE_SECCOMP_LOAD_H
#define CONFINE_SECCOMP_LOAD_H

#include <stdbool.h>
#include <stddef.h>

/* A compiled filter: sock_filter instructions, 8 bytes each. */
struct syscall_filter_prog {
	void	*insns;
	size_t	 len;		/* in instructions */
};

/* Runs in: the command.  Read a whole BPF program from fd (to EOF). */
int	syscall_filter_read(int fd, struct syscall_filter_prog *ret);

/* Runs in: the inner stage.  A BPF program, one message of sock. */
int	syscall_filter_recv(int sock, struct syscall_filter_prog *ret);

/*
 * Load it with seccomp(2); no_new_privs must already be set.  With
 * listener, the fd of its user notifications (the plan's
 * no_path_metadata); else 0.  -errno on failure.
 */
int	syscall_filter_load(const struct syscall_filter_prog *, bool listener);

#endif
