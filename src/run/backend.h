/* SPDX-License-Identifier: ISC */
/*
 * run/backend.h - what the backends share with the supervisor in
 * run/supervisor.c: the fds between them, the status records, the command's
 * last steps.  Private to run/supervisor.c and run/backends.c.
 */
#ifndef CONFINE_SANDBOX_INT_H
#define CONFINE_SANDBOX_INT_H

#include <signal.h>
#include <stdbool.h>
#include <sys/types.h>

#include "lib/log.h"
#include "policy/plan.h"

/* Status records: the first byte says what happened. */
#define REC_READY	0	/* set-up done, the command is being started */

struct fds {
	int	status[2];	/* packet pipe: sandbox -> supervisor */
	int	bpf[2];		/* the seccomp program: supervisor -> command */
	int	ptysock[2];	/* the pty master passes out through it */
	int	proxysock[2];	/* the proxy's listener, likewise */
	int	parent;		/* pidfd of the supervisor */
	int	sigfd;
	int	notify[2];	/* the filter's listener: command -> supervisor */
	int	master;		/* a pty the supervisor opened itself */
	int	slave;
};

/* The caller's SIGPIPE disposition, for the command. */
extern struct sigaction sandbox_saved_sigpipe;

/*
 * The sandbox's first process, first: die with the supervisor (and exit
 * if it is gone already), close the supervisor's ends, report failures on
 * the status pipe.
 */
void	sandbox_child_begin(struct fds *);

/* The same without dying with the supervisor, which stays watched
 * through f->parent (the landlock backend's keeper). */
void	sandbox_child_ends(struct fds *);

/* Pass fd out to the supervisor on sock, and close both; fatal if not. */
void	sandbox_send_out(int sock, int fd, const char *what);

/* With a pty in the plan, open one here and pass its master out on sock;
 * the slave, or -1 without. */
int	sandbox_pty_out(const struct plan_tty *, int sock);

/*
 * Terminal, fds, Landlock, seccomp (bpf_fd < 0: loaded already), exec.
 * notify_fd >= 0: the filter's listener goes out on it (landlock).
 */
noreturn void	sandbox_command(const struct plan *, int slave, int status_fd,
		    int bpf_fd, int notify_fd);

/*
 * Start the backend's sandbox; its first process's pid, or -errno with
 * *where set.  The supervisor has made the fds the backend uses.
 */
pid_t	backend_bwrap_start(const struct plan *, struct fds *,
	    const char **where);
pid_t	backend_landlock_start(const struct plan *, struct fds *,
	    const char **where);

/*
 * bwrap and landlock: a profile's path through a symlink (one planted in
 * the workspace, say) is refused, as native's mounts refuse it: bwrap and
 * Landlock would follow it.  0, or -ELOOP with *where the path.
 */
int	backend_check_paths(const struct plan *, const char **where);

#endif
