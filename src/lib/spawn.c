// SPDX-License-Identifier: ISC
/*
 * spawn.c - fork, exec and wait for a helper program; see spawn.h.
 *
 * Runs in: the child between fork and execve, then the parent.
 * MUST: the child does nothing but set itself up and execve; it allocates
 * nothing (signal-safety(7): the parent may have threads).
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "lib/spawn.h"
#include "lib/util.h"

extern char **environ;

/* fd onto target, without O_CLOEXEC; -1 leaves target as inherited. */
static int
move_fd(int fd, int target)
{
	if (fd < 0)
		return 0;
	if (fd == target)
		return fcntl(fd, F_SETFD, 0);
	return dup2(fd, target) < 0 ? -1 : 0;
}

static void __attribute__((noreturn))
child(const char *prog, char *const argv[], const struct spawn_opts *o,
    pid_t parent)
{
	sigset_t none;
	int err;

	if (o->clean_mask) {
		sigemptyset(&none);
		sigprocmask(SIG_SETMASK, &none, NULL);
	}
	if (o->die_with_parent) {
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		/* The parent died before prctl: nothing would kill us. */
		if (getppid() != parent)
			_exit(o->fail_status);
	}
	if (move_fd(o->in, 0) < 0 || move_fd(o->out, 1) < 0 ||
	    move_fd(o->err, 2) < 0 || (o->keep > 2 &&
	    fcntl(o->keep, F_SETFD, 0) < 0))
		_exit(o->fail_status);
	execve(prog, argv, o->envp ? o->envp : environ);
	err = errno;
	if (o->name)
		dprintf(STDERR_FILENO, "confine: %s: cannot run '%s': %s\n",
		    o->name, prog, strerror(err));
	_exit(o->fail_status);
}

char *
spawn_helper_path(const char *name)
{
	char self[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	char *slash, *p;

	if (n > 0) {
		self[n] = '\0';
		if ((slash = strrchr(self, '/')) != NULL) {
			*slash = '\0';
			p = xasprintf("%s/%s", self, name);
			if (access(p, X_OK) == 0)
				return p;
			free(p);
		}
	}
	return xasprintf("%s/%s", PKGLIBEXECDIR, name);
}

pid_t
spawn_start(const char *prog, char *const argv[], const struct spawn_opts *o)
{
	pid_t pid, parent = getpid();

	if ((pid = fork()) < 0)
		return -errno;
	if (pid == 0)
		child(prog, argv, o, parent);
	return pid;
}

int
spawn_wait(pid_t pid)
{
	int status;

	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return -errno;
	return status;
}

int
spawn_run(const char *prog, char *const argv[], const struct spawn_opts *o)
{
	pid_t pid;

	if ((pid = spawn_start(prog, argv, o)) < 0)
		return (int)pid;
	return spawn_wait(pid);
}

int
spawn_capture(const char *prog, char *const argv[], const struct spawn_opts *o,
    bool with_stderr, char *buf, size_t cap, size_t *ret_len)
{
	struct spawn_opts oo = *o;
	size_t len = 0;
	ssize_t n;
	int p[2];
	pid_t pid;

	*ret_len = 0;
	if (pipe2(p, O_CLOEXEC) < 0)
		return -errno;
	oo.out = p[1];
	if (with_stderr)
		oo.err = p[1];
	pid = spawn_start(prog, argv, &oo);
	close(p[1]);
	while (pid > 0 && len < cap) {
		/* Bounded: what is left of the caller's cap bytes. */
		if ((n = read(p[0], buf + len, cap - len)) < 0 &&
		    errno == EINTR)
			continue;
		if (n <= 0)
			break;
		len += (size_t)n;
	}
	close(p[0]);
	if (pid < 0)
		return (int)pid;
	*ret_len = len;
	return spawn_wait(pid);
}
