// SPDX-License-Identifier: ISC
/*
 * run/job-control.c - job control for a session on a terminal (termios(3), "Job
 * control" in the glibc manual, proc_pid_stat(5)).
 *
 * The command runs in a session of its own on the sandbox's pty, so its
 * Ctrl-Z stops it there and nobody tells the user's shell.  The supervisor
 * notices (job_stopped), gives the terminal back, and stops itself with
 * SIGTSTP as any program would; the shell says "Stopped".  On fg the
 * supervisor continues the command's process group.
 *
 * Runs in: the supervisor (job_stopped, job_stop_self; reads
 * /proc/PID/stat, text the kernel writes, with a bound), and the command's
 * process before exec (job_foreground).
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <termios.h>
#include <sys/wait.h>
#include <unistd.h>

#include "lib/log.h"
#include "lib/sys.h"
#include "lib/util.h"
#include "run/job-control.h"

/* The state letter of /proc/PID/stat, or 0. */
static char
proc_state(pid_t pid)
{
	char path[64], buf[512], *p;
	autoclose int fd = -1;
	ssize_t n;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
		return 0;
	if ((n = read(fd, buf, sizeof(buf) - 1)) <= 0)
		return 0;
	buf[n] = '\0';
	/* The name in parentheses may hold anything, ')' too: the last. */
	if ((p = strrchr(buf, ')')) == NULL || p[1] != ' ')
		return 0;
	return p[2];
}

bool
job_stopped(int master, pid_t *ret_pgrp)
{
	/* On a master, the slave's foreground group, in our pid namespace;
	 * 0 when that group is not visible from here. */
	pid_t pgrp = tcgetpgrp(master);

	if (pgrp <= 0 || proc_state(pgrp) != 'T')
		return false;
	*ret_pgrp = pgrp;
	return true;
}

bool
job_stop_self(void)
{
	struct sigaction sa;

	if (sigaction(SIGTSTP, NULL, &sa) < 0 || sa.sa_handler == SIG_IGN)
		return false;
	raise(SIGTSTP);
	return true;
}

/*
 * Runs in: the command's process, confined, just before exec.  A session
 * leader's own process group is orphaned, and the kernel discards Ctrl-Z
 * (SIGTSTP) sent to an orphaned group: so the command runs in a group of
 * its own, in the foreground of the pty, and this process, the session's
 * leader, waits for it, forwards the signals the sandbox passes on, and
 * leaves with its status.
 */
void
job_foreground(int tty)
{
	sigset_t all, old, set;
	pid_t child, pid;
	int status, sig;

	/* SIGTTOU too: tcsetpgrp from the group not yet in front. */
	sigfillset(&all);
	sigprocmask(SIG_BLOCK, &all, &old);
	if ((child = fork()) < 0)
		die_errno(errno, "fork");
	if (child == 0) {
		setpgid(0, 0);
		tcsetpgrp(tty, getpid());
		sigprocmask(SIG_SETMASK, &old, NULL);
		return;
	}
	setpgid(child, child);
	tcsetpgrp(tty, child);
	/* Hold no end of the pty: the relay ends when the command's do. */
	sys_close_range(0, ~0U, 0);
	sigemptyset(&set);
	sigaddset(&set, SIGCHLD);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGHUP);
	sigaddset(&set, SIGQUIT);
	for (;;) {
		if ((sig = sigwaitinfo(&set, NULL)) < 0)
			continue;
		if (sig != SIGCHLD) {
			kill(-child, sig);
			continue;
		}
		while ((pid = waitpid(-1, &status, WNOHANG)) > 0) {
			if (pid != child)
				continue;
			if (WIFSIGNALED(status))
				_exit(128 + WTERMSIG(status));
			_exit(WEXITSTATUS(status));
		}
	}
}
