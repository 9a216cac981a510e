// SPDX-License-Identifier: ISC
/*
 * sequence.c - the steps' names and reasons, and the sequence of each
 * backend (policy_sequence(), called by policy_compute()); see sequence.h.
 * Pure.
 */
#include "config.h"

#include <sched.h>

#include "lib/util.h"
#include "policy/plan.h"
#include "policy/sequence.h"

static const struct {
	const char	*name;
	const char	*why;
} steps[STEP_COUNT] = {
	[STEP_DIE_WITH_SUPERVISOR] = { "die-with-supervisor",
	    "nothing of the session outlives confine" },
	[STEP_IDENTITY] = { "identity",
	    "the caller's own uid and gid, nothing else mapped" },
	[STEP_HOSTNAME] = { "hostname",
	    "the uts namespace's own names" },
	[STEP_MOUNTS] = { "mounts",
	    "the filesystem view; while mounts are allowed" },
	[STEP_TERMINAL] = { "terminal",
	    "with 0, 1 or 2 a terminal: a pty on the sandbox's devpts" },
	[STEP_NETWORK] = { "network",
	    "the sandbox's loopback, the proxy's and keyholder's sockets" },
	[STEP_CAPABILITIES] = { "capabilities",
	    "every set empty, then checked with the kernel" },
	[STEP_NO_NEW_PRIVS] = { "no-new-privs",
	    "exec gains nothing; Landlock and seccomp need it" },
	[STEP_SECCOMP_BY_BWRAP] = { "seccomp",
	    "confine's filter, from a sealed memfd; allows what follows" },
	[STEP_LIMITS] = { "limits",
	    "RLIMIT_NPROC and nice, inherited by the command" },
	[STEP_NOT_DUMPABLE] = { "not-dumpable",
	    "this process holds confine's memory" },
	[STEP_ENVIRONMENT] = { "environment",
	    "this process's own environment emptied" },
	[STEP_NOTIFY] = { "notify",
	    "unix connects and sends, file locks: answered by confine; "
	    "taken while this process is dumpable" },
	[STEP_SESSION] = { "session",
	    "setsid: no controlling terminal of the user's" },
	[STEP_FDS] = { "file-descriptors",
	    "only 0, 1 and 2 pass" },
	[STEP_DIRECTORY] = { "directory",
	    "the command's working directory" },
	[STEP_LANDLOCK] = { "landlock",
	    "after no-new-privs; forbids mounts from here" },
	[STEP_SECCOMP] = { "seccomp",
	    "last: the filter may deny any step before it" },
	[STEP_FOREGROUND] = { "foreground",
	    "a process group of the command's own on its pty" },
	[STEP_START_AFTER] = { "start-after",
	    "changes are told by time: the clock past the session's start" },
	[STEP_EXEC] = { "exec",
	    "the command" },
};

const char *
plan_step_name(enum plan_step_id id)
{
	return id < STEP_COUNT ? steps[id].name : "?";
}

const char *
plan_step_why(enum plan_step_id id)
{
	return id < STEP_COUNT ? steps[id].why : "?";
}

static void
add(struct plan *p, enum plan_step_id id, enum plan_step_by by,
    enum plan_step_in in)
{
	if (p->nsteps < nitems(p->steps))
		p->steps[p->nsteps++] = (struct plan_step){ id, by, in };
}

void
policy_sequence(struct plan *p)
{
	const enum plan_step_by C = STEP_BY_CONFINE;
	const enum plan_step_in S = STEP_IN_SETUP, X = STEP_IN_COMMAND;
	bool bw = p->backend == PLAN_BACKEND_BWRAP;
	bool ll = p->backend == PLAN_BACKEND_LANDLOCK;
	enum plan_step_by ns = bw ? STEP_BY_BWRAP : C;
	enum plan_step_by priv = bw ? STEP_BY_BWRAP_CHECKED : C;

	p->nsteps = 0;
	add(p, STEP_DIE_WITH_SUPERVISOR, ns, S);
	if (!ll) {
		add(p, STEP_IDENTITY, ns, S);
		if (bw || (p->clone_flags & CLONE_NEWUTS))
			add(p, STEP_HOSTNAME, ns, S);
		add(p, STEP_MOUNTS, ns, S);
	}
	if (bw) {
		/* bwrap's own order; the inner stage checks the result. */
		add(p, STEP_CAPABILITIES, priv, S);
		add(p, STEP_NO_NEW_PRIVS, priv, S);
		add(p, STEP_SECCOMP_BY_BWRAP, priv, S);
	}
	if (!ll)
		add(p, STEP_TERMINAL, C, S);
	/* native: it needs CAP_NET_ADMIN, so before the capabilities go. */
	if (!ll && (!bw || p->net == PLAN_NET_PROXY || p->keyholder_port))
		add(p, STEP_NETWORK, C, S);
	if (!bw) {
		add(p, STEP_CAPABILITIES, C, S);
		add(p, STEP_NO_NEW_PRIVS, C, S);
	}
	/*
	 * bwrap: the supervisor takes the listener with pidfd_getfd(2),
	 * which a non-dumpable process refuses it where bwrap made no user
	 * namespace (setuid bwrap): before not-dumpable.
	 */
	if (bw)
		add(p, STEP_NOTIFY, C, S);
	if (p->limits.nproc || p->limits.nice)
		add(p, STEP_LIMITS, C, S);
	add(p, STEP_NOT_DUMPABLE, C, S);
	add(p, STEP_ENVIRONMENT, C, S);
	add(p, STEP_SESSION, C, X);
	add(p, STEP_FDS, C, X);
	add(p, STEP_DIRECTORY, C, X);
	add(p, STEP_LANDLOCK, C, X);
	if (!bw)
		add(p, STEP_SECCOMP, C, X);
	add(p, STEP_FOREGROUND, C, X);
	add(p, STEP_START_AFTER, C, X);
	add(p, STEP_EXEC, C, X);
}
