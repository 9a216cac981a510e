/* SPDX-License-Identifier: ISC */
/*
 * policy/bwrap-argv.h - the bwrap backend's command line: the plan's namespaces and
 * mounts as bubblewrap options, and confine's inner stage as the command
 * bwrap runs (it applies Landlock after bwrap's mounts, and execs the
 * plan's command).
 *
 * Runs in: the supervisor.  Pure: what the host has is the plan's
 * (policy/compute.c, from the probe); what the run made, below.
 */
#ifndef CONFINE_BWRAP_H
#define CONFINE_BWRAP_H

#include <stdbool.h>

#include "policy/plan.h"

struct bwrap_in {
	int		 exe_fd;	/* confine itself, for the inner stage */
	int		 stage_fd;	/* stage_write()'s memfd */
	int		 status_fd;	/* status records to the supervisor */
	int		 proxy_fd;	/* the proxy's socket goes out here; -1 */
	int		 pty_fd;	/* the pty's master goes out here; -1 */
	int		 notify_fd;	/* the listener goes out here (run/notify.c) */
	int		 seccomp_fd;	/* sealed memfd with the BPF program */
	const char	*empty_file;	/* an empty read-only file (masks) */
	const bool	*no_copy;	/* per mount: a copy the supervisor did
					   not make (struct run_state); NULL:
					   each made */
	const bool	*gone;		/* per mount: a masked socket gone
					   since the probe (bwrap_check_
					   unchanged()); NULL: none */
	char *const	*sys_net;	/* sysfs: the host's net directories
					   (sys_net_dirs()) */
};

/* The whole argv, bwrap's path first.  strv_free() it. */
char	**bwrap_argv(const struct plan *, const struct bwrap_in *);

/* The option that starts confine's inner stage (argv[1]). */
#define BWRAP_INNER_ARG	"--inner-stage"

#endif
