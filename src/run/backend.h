/* SPDX-License-Identifier: ISC */
/*
 * run/backend.h - a backend, as the supervisor (run/supervisor.c) sees it:
 * an ops table it calls, in the manner of a kernel driver; a backend never
 * calls back into the supervisor.  Also the fds between them, the status
 * records, and what the run learns (struct run_state).
 *
 * Private to run/: the supervisor, the backends (run/backend-*.c), the
 * command's last steps (run/command-exec.c) and the inner stage.
 */
#ifndef CONFINE_BACKEND_H
#define CONFINE_BACKEND_H

#include <signal.h>
#include <stdbool.h>
#include <sys/types.h>
#include <time.h>

#include "lib/env.h"
#include "policy/plan.h"
#include "store/session-running.h"

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

/*
 * What the run learns as it goes; the plan stays as policy_compute() made
 * it, const from there on.
 */
struct run_state {
	struct timespec	 start_after;	/* native: the command starts once
					   the coarse clock is past this;
					   zero: at once (copies, entered
					   again: run/session-dir.c) */
	pid_t		 child;		/* the sandbox's first process */
	/* confine's argv and environ strings, zeroed in the sandbox's
	 * processes that stay (a fork keeps the addresses). */
	struct env_area	 env_area;
	/* The caller's SIGPIPE disposition, for the command (saved before
	 * the supervisor ignores SIGPIPE). */
	struct sigaction sigpipe;
	/* Limits reached (run/limits.c and the supervisor's watch): one line
	 * each, indexed by the PLAN_LIMIT_* bit's position ("memory limit
	 * 4 GiB reached: the command was killed by the OOM killer"); an
	 * empty string: not reached.  Said at exit and kept in the session. */
	char		 limit_hit[4][192];
	/* The sandbox's cgroup (run/limits.c): its directory, O_RDONLY
	 * (clone3's CLONE_INTO_CGROUP), and its cgroup.procs open for
	 * writing (a forked child writes "0" there before its exec); -1
	 * both: none, the kernel engine.  Close-on-exec. */
	int		 cgroup_fd;
	int		 cgroup_procs;
	/* PLAN_LIMIT_* the cgroup's controllers enforce (CPUS: cpu.max, or
	 * cpu.weight 50 without a quota); the others are the kernel's means
	 * (tmpfs sizes, rlimits, the supervisor's watch; nice 5 for cpu). */
	unsigned int	 limits_cgroup;
	/* Per mount of the plan: a copy the supervisor did not make, as it
	 * made the others (nothing on the host to copy, no persistent copy
	 * kept: run/session-dir.c, run/agent-state.c).  Known by
	 * construction, never by looking: the bwrap backend binds the
	 * others (policy/bwrap-argv.c). */
	bool		*no_copy;
};

/* What the supervisor must make or do for a backend, around its start. */
enum backend_flag {
	/* It loads the seccomp filter itself (bwrap's --seccomp): no
	 * filter pipe, nothing for the supervisor to compile meanwhile. */
	BACKEND_OWN_FILTER	= 1 << 0,
	/* Its pty is on the host's devpts, opened by the supervisor; else
	 * the sandbox opens it and passes the master out (ptysock). */
	BACKEND_HOST_PTY	= 1 << 1,
	/* The sandbox passes out the full user-notification listener
	 * (run/notify.c), its pid along with it. */
	BACKEND_UNOTIFY		= 1 << 2,
	/* With the plan's sys.no_path_metadata, the command passes out the
	 * listener for chmod and utimes (run/notify-meta.c).  (Whether the
	 * workspace is an overlay is the plan's: plan_ws_overlay().) */
	BACKEND_META_NOTIFY	= 1 << 3,
};

struct backend_ops {
	const char	*name;
	unsigned	 flags;		/* enum backend_flag */
	/*
	 * A run-time guard, before the session is made; NULL: none.  0, or
	 * -errno with *where the path refused.
	 */
	int		(*check)(const struct plan *, const char **where);
	/*
	 * Start the sandbox; its first process's pid, or -errno with *where
	 * set (or NULL).  The supervisor has made the fds the flags ask for.
	 */
	pid_t		(*start)(const struct plan *, const struct run_state *,
			    struct fds *, const char **where);
	/* start() failed: say why in the backend's words, and exit 125
	 * (it does not return). */
	void		(*refuse)(int err, const char *where);
	/*
	 * End the sandbox whose first process is child now: every process
	 * of it, at once ("confine stop" after its grace period).  The
	 * supervisor still reaps child.
	 */
	void		(*kill)(pid_t child);
};

extern const struct backend_ops backend_native;
extern const struct backend_ops backend_bwrap;
extern const struct backend_ops backend_landlock;

/*
 * bwrap and landlock: a profile's path through a symlink (one planted in
 * the workspace, say) is refused, as native's mounts refuse it: bwrap and
 * Landlock would follow it.  0, or -ELOOP with *where the path.
 */
int	backend_check_paths(const struct plan *, const char **where);
/*
 * bwrap's guard at its start: the host still is what the probe found
 * where the plan chose bwrap's arguments by it (a hidden directory or
 * file, a socket there or not, the machine id).  0, or -ESTALE with
 * *where the path that changed.  It never chooses an argument; what the
 * run learns is one fact, in gone[] (one per mount, or NULL): a masked
 * socket the probe saw and that went away since, with nothing left to
 * hide (another program removed it: no mask, as when the probe found
 * none).
 */
int	bwrap_check_unchanged(const struct plan *, bool *gone,
	    const char **where);

/*
 * The stop request: "confine stop" sends it to the supervisor, which
 * takes it from its signalfd; the landlock backend's keeper, sent it by
 * the supervisor, ends the session (its kill op).  Never forwarded to the
 * command.
 */
#define SANDBOX_STOP_SIGNAL	SESSION_STOP_SIGNAL

#endif
