/* SPDX-License-Identifier: ISC */
/*
 * policy/sequence.h - the enforcement sequence: the named steps that build
 * the sandbox, in their order, with who takes each on the plan's backend.
 *
 * One list for the three backends.  The native backend's pid 1 and the
 * command take every step themselves; on bwrap, bubblewrap takes the
 * namespace, mount and privilege steps and confine's inner stage checks
 * what it promised; the landlock backend has no namespaces and skips
 * those steps.  run/ runs the plan's steps with one loop; --dry-run prints
 * them.  The order is the security order: mounts before the capabilities
 * go, capabilities before no_new_privs, no_new_privs before Landlock,
 * seccomp last where confine loads it (it may deny any step before it).
 */
#ifndef CONFINE_SEQUENCE_H
#define CONFINE_SEQUENCE_H

#include <stddef.h>

enum plan_step_id {
	STEP_DIE_WITH_SUPERVISOR,
	STEP_IDENTITY,
	STEP_HOSTNAME,
	STEP_MOUNTS,
	STEP_TERMINAL,
	STEP_NETWORK,
	STEP_CAPABILITIES,
	STEP_NO_NEW_PRIVS,
	STEP_SECCOMP_BY_BWRAP,
	STEP_LIMITS,
	STEP_NOT_DUMPABLE,
	STEP_ENVIRONMENT,
	STEP_NOTIFY,
	STEP_SESSION,
	STEP_FDS,
	STEP_DIRECTORY,
	STEP_LANDLOCK,
	STEP_SECCOMP,
	STEP_FOREGROUND,
	STEP_START_AFTER,
	STEP_EXEC,
	STEP_COUNT
};

/* Who takes a step. */
enum plan_step_by {
	STEP_BY_CONFINE,	/* confine does it */
	STEP_BY_BWRAP,		/* bubblewrap does it */
	STEP_BY_BWRAP_CHECKED,	/* bubblewrap does it; confine checks */
};

/* In which process. */
enum plan_step_in {
	STEP_IN_SETUP,		/* native's pid 1, bwrap, the inner stage,
				   the landlock backend's child before it
				   becomes the command */
	STEP_IN_COMMAND,	/* the command's own process, before exec */
};

struct plan_step {
	enum plan_step_id	id;
	enum plan_step_by	by;
	enum plan_step_in	in;
};

struct plan;

/* Fill p->steps for p's backend (policy_compute() calls it last). */
void	policy_sequence(struct plan *p);

/* The step's name ("mounts") and why it is where it is. */
const char *plan_step_name(enum plan_step_id);
const char *plan_step_why(enum plan_step_id);

#endif
