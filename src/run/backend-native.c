// SPDX-License-Identifier: ISC
/*
 * run/backend-native.c - the native backend: clone(2) into new namespaces,
 * and set the sandbox up in its first process.
 *
 * Processes: confine (the supervisor, outside) -> the sandbox's first
 * process (pid 1 of the new pid namespace: sets up, then reaps and forwards
 * signals) -> the command (pid 2).  When the command exits, pid 1 exits
 * with its status and the kernel kills everything else in the namespace;
 * when confine dies, even by SIGKILL, pid 1 gets SIGKILL (PR_SET_PDEATHSIG).
 *
 * Runs in: the supervisor (start), the sandbox's pid 1.  The order of the
 * steps in the sandbox is fixed and commented below; see STYLE.md section 3.
 * MUST: every failure after clone is fatal and reported over the status
 * pipe; nothing warns and carries on once enforcement has begun.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "enforce/capabilities.h"
#include "enforce/mounts.h"
#include "enforce/namespaces.h"
#include "enforce/network.h"
#include "lib/env.h"
#include "lib/log.h"
#include "lib/util.h"
#include "run/backend.h"
#include "run/command-exec.h"

/* pid 1: reap, forward signals, and leave with the command's status. */
static noreturn void
reaper(pid_t cmd)
{
	sigset_t set;
	siginfo_t si;
	int status, sig;
	pid_t pid;

	sandbox_sigset(&set);
	for (;;) {
		if ((sig = sigwaitinfo(&set, &si)) < 0)
			continue;
		if (sig != SIGCHLD) {
			if (sig != SIGWINCH && kill(-cmd, sig) < 0)
				kill(cmd, sig);
			continue;
		}
		while ((pid = waitpid(-1, &status, WNOHANG)) > 0) {
			if (pid != cmd)
				continue;
			if (WIFSIGNALED(status))
				_exit(128 + WTERMSIG(status));
			_exit(WEXITSTATUS(status));
		}
	}
}

/* The sandbox's first process.  The order below is the security order. */
static noreturn void
sandbox_init(const struct plan *p, const struct run_state *rs, struct fds *f)
{
	int slave, listener = -1, devnull, r;
	const char *where, *what;
	char ready = REC_READY;
	pid_t cmd;

	/* 0. Die with the supervisor; keep only the sandbox's ends. */
	sandbox_child_begin(f);

	/* 1. Identity: the caller's own uid and gid. */
	if ((r = ns_map_ids(p->uid, p->gid)) < 0)
		die_errno(-r, "user namespace: cannot map uid %u and gid %u",
		    (unsigned)p->uid, (unsigned)p->gid);
	if ((p->clone_flags & CLONE_NEWUTS) && (r = ns_name_uts()) < 0)
		die_errno(-r, "uts namespace: cannot set the host name");
	/* 2. The filesystem view; before Landlock, which forbids mounts. */
	if ((r = mount_setup(&p->mounts, &where)) < 0)
		die_hint(EXIT_CONFINE, -r, mount_hint ? mount_hint :
		    r == -EINVAL && strstr(where, "/") ?
		    "the filesystem holding the session directory may not "
		    "support overlayfs upper layers in a user namespace "
		    "(it needs user extended attributes)" : NULL,
		    "mount: cannot set up '%s'", where);
	/* 3. The terminal, on the sandbox's own devpts. */
	slave = sandbox_pty_out(&p->tty, f->ptysock[1]);
	/* 4. The network; needs CAP_NET_ADMIN, so before the caps go. */
	if ((r = net_setup(p->net, &listener)) < 0)
		die_errno(-r, "network: cannot set up mode '%s'",
		    plan_net_name(p->net));
	if (listener >= 0)
		sandbox_send_out(f->proxysock[1], listener, "network: the "
		    "proxy's socket");
	/* 5. Capabilities: every set empty, and checked. */
	if ((r = caps_drop_all(&what)) < 0)
		die_errno(-r, "capabilities: cannot drop (%s)", what);
	/* 6. no_new_privs: needed by Landlock without CAP_SYS_ADMIN. */
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
		die_errno(errno, "cannot set no_new_privs");
	/* This process keeps a copy of confine's memory: keep it unreadable. */
	if (prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) < 0)
		die_errno(errno, "cannot make the sandbox's pid 1 "
		    "non-dumpable");
	env_scrub();

	/* 7. The command: Landlock, seccomp and exec happen in it. */
	if (write(f->status[1], &ready, 1) != 1)
		die_errno(errno, "status pipe");
	if ((cmd = fork()) < 0)
		die_errno(errno, "fork");
	if (cmd == 0)
		sandbox_command(p, &rs->start_after, slave, f->status[1],
		    f->bpf[0], -1);
	close(f->status[1]);
	close(f->bpf[0]);
	if (slave >= 0)
		close(slave);
	if ((devnull = open("/dev/null", O_RDWR | O_CLOEXEC)) >= 0) {
		dup2(devnull, 0);
		dup2(devnull, 1);
		dup2(devnull, 2);
		close(devnull);
	}
	reaper(cmd);
}

/* native: clone(2) into new namespaces; pid 1 sets the sandbox up. */
static pid_t
native_start(const struct plan *p, const struct run_state *rs, struct fds *f,
    const char **where)
{
	/* fork-like clone(2): no new stack, the child returns here too. */
	pid_t child = (pid_t)syscall(SYS_clone, (unsigned long)p->clone_flags |
	    SIGCHLD, NULL, NULL, NULL, 0);

	*where = NULL;
	if (child < 0)
		return -errno;
	if (child == 0)
		sandbox_init(p, rs, f);
	return child;
}

/*
 * The probe found user namespaces working (input/host-probe.c), or native
 * was asked for: a failure here is the host's, and nothing else is tried.
 */
static noreturn void
native_refuse(int err, const char *where)
{
	(void)where;
	die_hint(EXIT_CONFINE, err, "unprivileged user namespaces are needed "
	    "and seem disabled here (a sysctl, AppArmor's restriction, or a "
	    "container); see 'confine doctor'", "namespaces: cannot create "
	    "them");
}

const struct backend_ops backend_native = {
	.name = "native",
	.flags = BACKEND_OVERLAY,
	.check = NULL,
	.start = native_start,
	.refuse = native_refuse,
};
