// SPDX-License-Identifier: ISC
/*
 * run/backend-landlock.c - the landlock backend: no namespaces at all.
 *
 * The supervisor forks the keeper (in a Landlock domain that scopes
 * signals, a subreaper), which forks the command's process: that takes
 * the plan's enforcement sequence (run/steps.c: capabilities,
 * no_new_privs, Landlock in a domain nested in the keeper's, the filter)
 * and execs.  The keeper ends the session
 * with kill(-1, SIGKILL), which its domain confines to the session's
 * processes.
 *
 * Runs in: the supervisor (start), the keeper and the command.
 * MUST: every failure in the keeper or the command is fatal and reported
 * on the status pipe.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/signalfd.h>
#include <sys/wait.h>
#include <unistd.h>

#include "enforce/cgroup.h"
#include "enforce/landlock.h"
#include "lib/env.h"
#include "lib/log.h"
#include "lib/util.h"
#include "run/backend.h"
#include "run/command-exec.h"
#include "run/limits.h"
#include "run/steps.h"

/*
 * The command's process: the plan's set-up steps (capabilities,
 * no_new_privs, ...), then the command's, as on every backend.
 */
static noreturn void
landlock_command(const struct plan *p, const struct run_state *rs,
    struct fds *f)
{
	struct step_ctx c;
	char ready = REC_READY;

	steps_ctx_run(&c, p, rs, f);
	c.notify_sock = f->notify[1];
	c.slave = f->slave;
	steps_run(&c, STEP_IN_SETUP);
	if (write(f->status[1], &ready, 1) != 1)
		die_errno(errno, "status pipe");
	if (f->notify[0] >= 0)
		close(f->notify[0]);
	steps_run_command(&c);
}

/*
 * Kill every process of the session and reap them all.  kill(-1) from
 * the keeper's domain reaches its domain and those nested in it only
 * (the signal scope), whoever the caller is, root included; the kernel
 * walks the task list under its lock, and a fork whose parent has a
 * fatal signal pending does not complete, so nothing is born behind the
 * walk.  Every orphan comes to the keeper (a subreaper): when it has no
 * child left, nothing of the session is left.  One round does it; the
 * second finds nothing.
 */
static void
keeper_end(void)
{
	size_t n;

	do {
		kill(-1, SIGKILL);
		for (n = 0; waitpid(-1, NULL, __WALL) > 0; n++)
			;
	} while (n > 0);
}

/*
 * The keeper: the command's parent, the landlock backend's pid 1.  Its
 * Landlock domain (D1) scopes signals and handles nothing else; the
 * command adds the plan's domain (D2) below it.  It forwards confine's
 * signals, and when the command exits, or confine is gone (its pidfd,
 * which SIGKILL closes as well), it ends the session (keeper_end) and
 * exits with the command's status; asked to end it (SANDBOX_STOP_SIGNAL,
 * "confine stop" past its grace period), it does so and exits 137.  The
 * command cannot signal or trace it (D1 is not below D2), nor renice or
 * limit it (the filter: another process's pid is refused).
 */
static noreturn void
keeper(const struct plan *p, const struct run_state *rs, struct fds *f,
    bool in_cgroup)
{
	int sigfd, code, r;
	sigset_t set;
	pid_t cmd;

	sandbox_child_ends(f);
	/* The sandbox's cgroup, before anything of it runs (born there
	 * unless clone3 was refused); its fds are the supervisor's. */
	if (rs->cgroup_procs >= 0) {
		if (!in_cgroup && (r = cgroup_enter(rs->cgroup_procs)) < 0)
			die_errno(-r, "limits: cannot enter the sandbox's "
			    "cgroup");
		close(rs->cgroup_procs);
		close(rs->cgroup_fd);
	}
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
		die_errno(errno, "cannot set no_new_privs");
	if ((r = landlock_scope_signals()) < 0)
		die_errno(-r, "landlock: cannot scope the keeper's signals "
		    "(it ends the session's processes)");
	if (prctl(PR_SET_CHILD_SUBREAPER, 1) < 0 ||
	    prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) < 0)
		die_errno(errno, "the keeper: prctl");
	/* The supervisor's blocked set: SIGCHLD and the forwarded ones. */
	if (sigprocmask(SIG_BLOCK, NULL, &set) < 0 ||
	    (sigfd = signalfd(-1, &set, SFD_CLOEXEC)) < 0)
		die_errno(errno, "the keeper: signalfd");
	if ((cmd = fork()) < 0)
		die_errno(errno, "fork");
	if (cmd == 0) {
		close(sigfd);
		landlock_command(p, rs, f);
	}
	/* Only the command holds the status pipe, the terminal, stdio. */
	close(f->status[1]);
	close(f->bpf[0]);
	if (f->notify[0] >= 0)
		close(f->notify[0]);
	if (f->notify[1] >= 0)
		close(f->notify[1]);
	if (f->slave >= 0)
		close(f->slave);
	sandbox_stdio_null();
	env_scrub(&rs->env_area);
	for (;;) {
		struct pollfd pfd[2] = { { .fd = sigfd, .events = POLLIN },
		    { .fd = f->parent, .events = POLLIN } };
		struct signalfd_siginfo si;
		int sig;

		if (poll(pfd, 2, -1) < 0)
			continue;
		if (pfd[1].revents) {
			/* confine is gone, killed maybe: so is the session. */
			keeper_end();
			_exit(EXIT_CONFINE);
		}
		if (read(sigfd, &si, sizeof(si)) != sizeof(si))
			continue;
		sig = (int)si.ssi_signo;
		/* From outside the session only (the command's domain is
		 * below the keeper's, which scopes signals): "end it now". */
		if (sig == SANDBOX_STOP_SIGNAL) {
			keeper_end();
			_exit(128 + SIGKILL);
		}
		if (sig != SIGCHLD)
			sandbox_forward(cmd, sig);
		else if (sandbox_reap(cmd, &code)) {
			keeper_end();
			_exit(code);
		}
	}
}

static pid_t
landlock_start(const struct plan *p, const struct run_state *rs,
    struct fds *f, const char **where)
{
	bool in_cgroup;
	pid_t pid;

	*where = NULL;
	if ((pid = limits_clone(rs, 0, &in_cgroup, where)) < 0)
		return -errno;
	if (pid == 0)
		keeper(p, rs, f, in_cgroup);
	return pid;
}

static noreturn void
landlock_refuse(int err, const char *where)
{
	die_errno(err, "landlock: cannot start the sandbox%s%s", where ?
	    ": " : "", where ? where : "");
}

/*
 * The keeper ends the session when asked (keeper()): the command's
 * processes are not its to kill from out here, only from inside the
 * keeper's Landlock domain.
 */
static void
landlock_kill(pid_t child)
{
	kill(child, SANDBOX_STOP_SIGNAL);
}

const struct backend_ops backend_landlock = {
	.name = "landlock",
	.flags = BACKEND_HOST_PTY | BACKEND_META_NOTIFY,
	.check = backend_check_paths,
	.start = landlock_start,
	.refuse = landlock_refuse,
	.kill = landlock_kill,
};
