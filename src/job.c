// SPDX-License-Identifier: ISC
/*
 * job.c - job control for a session on a terminal (termios(3), "Job
 * control" in the glibc manual, proc_pid_stat(5)).
 *
 * The command runs in a session of its own on the sandbox's pty, so its
 * Ctrl-Z stops it there and nobody tells the user's shell.  The supervisor
 * notices (job_stopped), gives the terminal back, and stops itself with
 * SIGTSTP as any program would; the shell says "Stopped".  On fg the
 * supervisor continues the command's process group.
 *
 * Runs in: the supervisor.  Reads /proc/PID/stat, text the kernel writes,
 * with a bound.
 */
#include "config.h"

#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <termios.h>
#include <unistd.h>

#include "job.h"
#include "util.h"

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
