// SPDX-License-Identifier: ISC
/*
 * run/command-exec.c - what the sandbox's processes share around the
 * enforcement steps (run/steps.c): the exec itself, the helpers a
 * sandbox's first process starts with (its fds, passing fds out), the
 * start time a copy's command waits for.
 *
 * Runs in: the sandbox's processes, after the backend's own set-up.
 * MUST: every failure is fatal (die*(), reported on the status pipe once
 * log_set_child() ran); nothing warns and carries on.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "enforce/pty.h"
#include "lib/env.h"
#include "lib/log.h"
#include "lib/util.h"
#include "run/command-exec.h"

static const int forwarded[] = { SIGINT, SIGTERM, SIGHUP, SIGQUIT };

void
sandbox_sigset(sigset_t *set)
{
	size_t i;

	sigemptyset(set);
	sigaddset(set, SIGCHLD);
	sigaddset(set, SIGWINCH);
	for (i = 0; i < nitems(forwarded); i++)
		sigaddset(set, forwarded[i]);
}

/* execvp(3) with the PATH of the command's environment, not confine's. */
noreturn void
exec_command(const struct plan *p)
{
	const char *path = env_get(p->envp, "PATH");
	const char *file = p->argv[0];
	int err = ENOENT;
	bool eacces = false;

	if (strchr(file, '/')) {
		execve(file, p->argv, p->envp);
		err = errno;
	} else {
		autofree char *copy = xstrdup(path ? path : "/usr/bin:/bin");
		char *dir, *save = NULL;

		for (dir = strtok_r(copy, ":", &save); dir;
		    dir = strtok_r(NULL, ":", &save)) {
			autofree char *cand = path_join(dir, file);

			execve(cand, p->argv, p->envp);
			if (errno == ENOEXEC) {
				/* As execvp: a file without #! runs in sh. */
				size_t n = strv_len(p->argv);
				char **sh = xcalloc(n + 2, sizeof(*sh));

				sh[0] = xstrdup("sh");
				sh[1] = cand;
				memcpy(sh + 2, p->argv + 1,
				    (n - 1) * sizeof(*sh));
				execve("/bin/sh", sh, p->envp);
				err = errno;
				break;
			}
			if (errno == EACCES)
				eacces = true;
			else if (errno != ENOENT && errno != ENOTDIR &&
			    errno != ENAMETOOLONG && errno != ELOOP) {
				err = errno;
				break;
			}
		}
		if (eacces && err == ENOENT)
			err = EACCES;
	}
	if (err == ENOENT || err == ENOTDIR)
		die_hint(EXIT_NOTFOUND, err, strchr(file, '/') ? NULL :
		    "the sandbox's PATH has no such program; the home "
		    "directory is an empty tmpfs inside, so programs "
		    "installed under it are not visible",
		    "cannot run '%s'", file);
	die_hint(EXIT_NOEXEC, err, NULL, "cannot run '%s'", file);
}

/*
 * Usually the coarse clock, which most timestamps come from, is past the
 * start already: the set-up takes longer than a tick.
 */
void
sandbox_wait_start(const struct timespec *t)
{
	struct timespec now;

	if (t->tv_sec == 0 && t->tv_nsec == 0)
		return;
	for (;;) {
		clock_gettime(CLOCK_REALTIME_COARSE, &now);
		if (now.tv_sec > t->tv_sec || (now.tv_sec == t->tv_sec &&
		    now.tv_nsec > t->tv_nsec))
			return;
		nanosleep(&(struct timespec){ .tv_nsec = 500000 }, NULL);
	}
}

void
sandbox_send_out(int sock, int fd, const char *what)
{
	int r;

	if (sock < 0)
		die("%s: no channel to pass it out", what);
	if ((r = pty_send_fd(sock, fd)) < 0)
		die_errno(-r, "%s: cannot pass it out", what);
	close(fd);
	close(sock);
}

int
sandbox_pty_out(const struct plan_tty *t, int sock)
{
	int master = -1, slave = -1, r;	/* set by pty_open() */

	if (!t->pty)
		return -1;
	if ((r = pty_open(t, &master, &slave)) < 0)
		die_errno(-r, "pty: cannot open a pseudo-terminal");
	sandbox_send_out(sock, master, "pty: the terminal");
	return slave;
}

static void
close_fd(int *fd)
{
	if (*fd >= 0)
		close(*fd);
	*fd = -1;
}

void
sandbox_child_ends(struct fds *f)
{
	struct pollfd pfd = { .fd = f->parent, .events = POLLIN };

	if (poll(&pfd, 1, 0) != 0)
		_exit(EXIT_CONFINE);
	close_fd(&f->status[0]);
	close_fd(&f->sigfd);
	close_fd(&f->bpf[1]);
	close_fd(&f->ptysock[0]);
	close_fd(&f->proxysock[0]);
	close_fd(&f->master);
	log_set_child(f->status[1]);
}

void
sandbox_child_begin(struct fds *f)
{
	if (prctl(PR_SET_PDEATHSIG, SIGKILL) < 0)
		_exit(EXIT_CONFINE);
	sandbox_child_ends(f);
	close_fd(&f->parent);
}


void
sandbox_stdio_null(void)
{
	int devnull;

	if ((devnull = open("/dev/null", O_RDWR | O_CLOEXEC)) >= 0) {
		dup2(devnull, 0);
		dup2(devnull, 1);
		dup2(devnull, 2);
		close(devnull);
	}
}

void
sandbox_forward(pid_t cmd, int sig)
{
	if (sig != SIGWINCH && kill(-cmd, sig) < 0)
		kill(cmd, sig);
}

bool
sandbox_reap(pid_t cmd, int *ret_code)
{
	int status;
	pid_t pid;

	while ((pid = waitpid(-1, &status, WNOHANG)) > 0) {
		if (pid != cmd)
			continue;
		*ret_code = WIFSIGNALED(status) ? 128 + WTERMSIG(status) :
		    WEXITSTATUS(status);
		return true;
	}
	return false;
}
