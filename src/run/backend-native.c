// SPDX-License-Identifier: ISC
/*
 * run/backend-native.c - the native backend: clone(2) into new namespaces,
 * and set the sandbox up in its first process.
 *
 * Processes: confine (the supervisor, outside) -> the sandbox's first
 * process (pid 1 of the new pid namespace: sets up, then reaps and forwards
 * signals) -> the command (pid 2).  When the command exits, pid 1 kills and
 * reaps everything else in the namespace, tells the supervisor the
 * command's status (so that confine may return it before the namespaces
 * are torn down), and exits with it; when confine dies, even by SIGKILL,
 * pid 1 gets SIGKILL (PR_SET_PDEATHSIG).
 *
 * Runs in: the supervisor (start), the sandbox's pid 1.  The steps in the
 * sandbox are the plan's enforcement sequence (policy/sequence.c), taken
 * by run/steps.c; see STYLE.md section 3.
 * MUST: every failure after clone is fatal and reported over the status
 * pipe; nothing warns and carries on once enforcement has begun.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdbool.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "enforce/cgroup.h"
#include "lib/log.h"
#include "lib/util.h"
#include "run/backend.h"
#include "run/command-exec.h"
#include "run/limits.h"
#include "run/steps.h"

/*
 * The command is gone.  Every process of the namespace descends from this
 * one, and the command's orphans were given to it: with no child left (the
 * exited ones reaped), nothing of the sandbox is left to write in the
 * session.  Then the status record REC_READY + the command's status: the
 * supervisor may return the status while this process and the namespaces
 * are still being torn down.  With processes left, the kernel kills them
 * when this one exits (a pid namespace's end), and the supervisor waits
 * for that, as it reaps this process.
 */
static noreturn void
leave(int code, int status_fd)
{
	const unsigned char rec[2] = { REC_READY, (unsigned char)code };
	pid_t pid;

	while ((pid = waitpid(-1, NULL, WNOHANG)) > 0)
		;
	if (pid < 0 && errno == ECHILD &&
	    write(status_fd, rec, sizeof(rec)) != (ssize_t)sizeof(rec)) {
		/* The supervisor reaps this process instead. */
	}
	_exit(code);
}

/* pid 1: reap, forward signals, and leave with the command's status. */
static noreturn void
reaper(pid_t cmd, int status_fd)
{
	sigset_t set;
	siginfo_t si;
	int sig, code;

	sandbox_sigset(&set);
	for (;;) {
		if ((sig = sigwaitinfo(&set, &si)) < 0)
			continue;
		if (sig != SIGCHLD)
			sandbox_forward(cmd, sig);
		else if (sandbox_reap(cmd, &code))
			leave(code, status_fd);
	}
}

/*
 * The sandbox's first process: the plan's set-up steps (run/steps.c), in
 * the plan's order, then the command in a process of its own, which takes
 * the command's steps; this one stays pid 1 and reaps.
 */
static noreturn void
sandbox_init(const struct plan *p, const struct run_state *rs, struct fds *f,
    bool in_cgroup)
{
	struct step_ctx c;
	char ready = REC_READY;
	pid_t cmd;

	/*
	 * Cloned without clone3 (a filter refused it: ENOSYS): it enters
	 * its cgroup before anything else, through the fd the supervisor
	 * opened (the kernel checks the opener's credentials and cgroup
	 * namespace, Linux 5.16), then makes its cgroup namespace (not made
	 * by the clone: rooted there); a failure ends the run.  Its cgroup is
	 * the supervisor's to write, not the sandbox's: closed then.
	 */
	if (rs->cgroup_fd >= 0) {
		int r;

		if (!in_cgroup && (r = cgroup_enter(rs->cgroup_procs)) < 0)
			die_errno(-r, "limits: cannot enter the sandbox's "
			    "cgroup");
		/* Its cgroup namespace, rooted there once it is in it. */
		if (!in_cgroup && (p->clone_flags & CLONE_NEWCGROUP) &&
		    unshare(CLONE_NEWCGROUP) < 0)
			die_errno(errno, "limits: cannot make the cgroup "
			    "namespace");
		close(rs->cgroup_fd);
		close(rs->cgroup_procs);
	}
	steps_ctx_run(&c, p, rs, f);
	steps_run(&c, STEP_IN_SETUP);

	if (write(f->status[1], &ready, 1) != 1)
		die_errno(errno, "status pipe");
	if ((cmd = fork()) < 0)
		die_errno(errno, "fork");
	if (cmd == 0)
		steps_run_command(&c);
	close(f->bpf[0]);
	if (c.slave >= 0)
		close(c.slave);
	sandbox_stdio_null();
	reaper(cmd, f->status[1]);
}

/* native: clone(2) into new namespaces; pid 1 sets the sandbox up. */
static pid_t
native_start(const struct plan *p, const struct run_state *rs, struct fds *f,
    const char **where)
{
	bool in_cgroup;
	pid_t child;

	/* fork-like: no new stack, the child returns here too, in its
	 * cgroup from its first instruction where there is one. */
	*where = NULL;
	if ((child = limits_clone(rs, (unsigned long)p->clone_flags,
	    &in_cgroup, where)) < 0)
		return -errno;
	if (child == 0)
		sandbox_init(p, rs, f, in_cgroup);
	return child;
}

/*
 * The probe found user namespaces working (input/host-probe.c), or native
 * was asked for: a failure here is the host's, and nothing else is tried.
 */
static noreturn void
native_refuse(int err, const char *where)
{
	/* The sandbox's cgroup refused the clone (clone3). */
	if (where)
		die_errno(err, "limits: cannot %s", where);
	die_hint(EXIT_CONFINE, err, "unprivileged user namespaces are needed "
	    "and seem disabled here (a sysctl, AppArmor's restriction, or a "
	    "container); see 'confine doctor'", "namespaces: cannot create "
	    "them");
}

/*
 * pid 1 killed, the kernel kills every other process of its pid namespace
 * (pid_namespaces(7)).
 */
static void
native_kill(pid_t child)
{
	kill(child, SIGKILL);
}

const struct backend_ops backend_native = {
	.name = "native",
	.flags = 0,
	.check = NULL,
	.start = native_start,
	.refuse = native_refuse,
	.kill = native_kill,
};
