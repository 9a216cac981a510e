/* SPDX-License-Identifier: ISC */
/*
 * run/limits.h - the resource limits' engine at run time: the sandbox's
 * cgroup made before the backend starts (a systemd scope, a delegated
 * cgroup, or a child of confine's own; policy/limits-engine.c chose the
 * order), killed and removed when the command is gone, and what it
 * reached.
 */
#ifndef CONFINE_LIMITS_H
#define CONFINE_LIMITS_H

#include "policy/plan.h"
#include "run/backend.h"

struct limits_run {
	enum plan_engine_kind	 kind;	/* the engine in use */
	int		 top;		/* X: the scope, the delegated cgroup,
					   or confine-ID made in confine's own;
					   -1: none */
	int		 parent;	/* X's parent (child engine), or -1 */
	int		 sandbox;	/* the command's cgroup: X/sandbox,
					   X/confine-ID, or X; -1: none */
	char		*top_path;	/* host paths */
	char		*sandbox_path;
	char		*line;		/* the engine in words */
};

/*
 * Before the backend starts: try the plan's engines in order, make the
 * sandbox's cgroup and write the limits; fill rs->cgroup_fd,
 * rs->cgroup_procs and rs->limits_cgroup, and record the engine in the
 * session ("limits", store/session-meta.h).  An asked limit that no engine
 * applies: the session is removed, one line says which, exit 125.
 */
void	limits_start(const struct plan *, struct run_state *,
	    struct limits_run *);

/*
 * The sandbox's first process, as clone(2) makes one with the CLONE_*
 * flags (0: as fork(2) does; 0 in the child, its pid here, or -1 with
 * errno), in the sandbox's cgroup from its first instruction where there
 * is one: clone3's CLONE_INTO_CGROUP.  A process moved in later
 * (cgroup.procs) waits for an RCU grace period, some 10 ms of each
 * launch.  Where a filter refuses clone3 (ENOSYS, as container runtimes
 * have), clone(2) without CLONE_NEWCGROUP, and *in_cgroup false: the
 * child then enters the cgroup itself (cgroup_enter(rs->cgroup_procs))
 * before anything else, and makes its cgroup namespace after.  *where is
 * set when the cgroup refused the clone, else left as it is.
 */
pid_t	limits_clone(const struct run_state *, unsigned long flags,
	    bool *in_cgroup, const char **where);

/*
 * The command is gone: kill what is left in its cgroup (cgroup.kill),
 * wait until it is empty, read what it reached into rs->limit_hit, remove
 * what confine made, close the fds; then say each limit reached on stderr
 * and record them in the session.  Nothing to do without a cgroup but the
 * saying.
 */
void	limits_end(const struct plan *, struct run_state *,
	    struct limits_run *);

/*
 * The command and all else of the sandbox are gone already (reaped by
 * the sandbox's first process, which alone is left): read what it reached
 * into rs->limit_hit, killing nothing and waiting for nothing.  True when
 * a limit was reached (rs->limit_hit, the watch's included).
 */
bool	limits_outcomes(const struct plan *, struct run_state *,
	    const struct limits_run *);

/*
 * limits_end() without a word and without the session's note, for a
 * session that is not kept: kill what is left, wait until the cgroup is
 * empty (the sandbox's first process gone too), remove what confine made.
 */
void	limits_undo(struct run_state *, struct limits_run *);
/* The supervisor lets go of its copy (memory, descriptors) once a detached
 * process tears the run down: the cgroup is left to that process. */
void	limits_forget(struct limits_run *);
/* That process, first: the cgroup's mark names it from now on (a later
 * confine's sweep takes a cgroup whose maker is gone for a killed
 * confine's, and kills and removes it; until the mark, a wait on the
 * cgroup ends all the same, cgroup_wait_empty()). */
void	limits_adopt(struct limits_run *);

#endif
