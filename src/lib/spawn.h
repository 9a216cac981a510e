/* SPDX-License-Identifier: ISC */
/*
 * lib/spawn.h - run a helper program and wait for it: confine-export, the
 * bwrap probe, the pager; or run one for its output, read with a bound
 * (the bwrap and git probes).  No shell unless the caller runs one.
 *
 * Runs in: confine on the host (never in the sandbox's supervisor, whose
 * children are the backends' own).
 */
#ifndef CONFINE_SPAWN_H
#define CONFINE_SPAWN_H

#include <stdbool.h>
#include <sys/types.h>

struct spawn_opts {
	int		  in, out, err;	/* fds for 0, 1, 2; -1: inherited */
	char *const	 *envp;		/* NULL: confine's environ */
	bool		  die_with_parent; /* PR_SET_PDEATHSIG, SIGKILL */
	bool		  clean_mask;	/* start with no signal blocked */
	const char	 *name;		/* "NAME: cannot run" on stderr; NULL:
					   silent */
	int		  fail_status;	/* the child's exit when exec fails */
	int		  keep;		/* an fd above 2 the program gets as
					   itself (its close-on-exec cleared);
					   0: none */
};

/* Options with every fd inherited; exec failure exits 127, silently. */
#define SPAWN_OPTS_INIT { .in = -1, .out = -1, .err = -1, .fail_status = 127 }

/*
 * fork and execve prog with argv as o says.  The pid, or -errno when
 * there is no child.  The fds in o are duplicated in the child only: the
 * caller closes its own.
 */
pid_t	spawn_start(const char *prog, char *const argv[],
	    const struct spawn_opts *o);

/*
 * The path of confine's helper program NAME (confine-export,
 * confine-keyholder): beside confine's own executable when it is there
 * (a build tree), else in PKGLIBEXECDIR.  Heap string.
 */
char	*spawn_helper_path(const char *name);

/* Wait for pid (EINTR retried): its wait status, or -errno. */
int	spawn_wait(pid_t pid);

/* spawn_start, then spawn_wait: the wait status, or -errno. */
int	spawn_run(const char *prog, char *const argv[],
	    const struct spawn_opts *o);

/*
 * spawn_start with the program's stdout (and its stderr too, with
 * with_stderr) on a pipe, of which at most cap bytes are read into buf
 * (not NUL-terminated; *ret_len says how many), then spawn_wait.  Output
 * past cap is not read: the pipe is closed, and the program may see
 * EPIPE.  The wait status, or -errno when there is no child.
 */
int	spawn_capture(const char *prog, char *const argv[],
	    const struct spawn_opts *o, bool with_stderr, char *buf,
	    size_t cap, size_t *ret_len);

#endif
