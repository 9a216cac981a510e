// SPDX-License-Identifier: ISC
/*
 * run/command-exec.c - the sandboxed command's last steps, the same for
 * every backend: terminal, fds, Landlock, seccomp, exec; and the helpers
 * a sandbox's first process starts with (its fds, passing fds out).
 *
 * Runs in: the sandbox's processes, after the backend's own set-up.
 * MUST: every failure is fatal (die*(), reported on the status pipe once
 * log_set_child() ran); nothing warns and carries on.
 * MUST: only fds 0, 1 and 2 reach the command.
 * MUST: seccomp last before exec: the filter may deny any step above it.
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
#include <time.h>
#include <unistd.h>

#include "enforce/landlock.h"
#include "enforce/pty.h"
#include "enforce/seccomp.h"
#include "lib/env.h"
#include "lib/log.h"
#include "lib/sys.h"
#include "lib/util.h"
#include "run/command-exec.h"
#include "run/job-control.h"

static const int forwarded[] = { SIGINT, SIGTERM, SIGHUP, SIGQUIT };
struct sigaction sandbox_saved_sigpipe;

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
static noreturn void
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

/*
 * The command's process: terminal, fds, then Landlock and seccomp, exec.
 * bpf_fd < 0: the filter is loaded already (bwrap loads it).
 */
noreturn void
sandbox_command(const struct plan *p, const struct timespec *start_after,
    int slave, int status_fd, int bpf_fd, int notify_fd)
{
	struct syscall_filter_prog prog;
	const char *where;
	sigset_t none;
	int i, r;

	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	sigaction(SIGPIPE, &sandbox_saved_sigpipe, NULL);
	/* A new session: no controlling terminal of the user's (TIOCSTI). */
	if (setsid() < 0 && !(errno == EPERM && getsid(0) == getpid()))
		die_errno(errno, "setsid");
	if (slave >= 0) {
		if (ioctl(slave, TIOCSCTTY, 0) < 0)
			die_errno(errno, "pty: cannot make it the controlling "
			    "terminal");
		for (i = 0; i < 3; i++)
			if (p->tty.is_tty[i] && dup2(slave, i) < 0)
				die_errno(errno, "pty: dup2");
		close(slave);
	}
	/* The supervisor compiled the filter while we were setting up. */
	if (bpf_fd >= 0 && (r = syscall_filter_read(bpf_fd, &prog)) < 0)
		die_errno(-r, "seccomp: no filter from the supervisor");
	/*
	 * Only 0, 1, 2 (and the status pipe, closed at exec) stay open; and
	 * the socket the filter's listener goes out on, closed below.
	 */
	if (notify_fd >= 0 && notify_fd != status_fd + 1 &&
	    (dup2(notify_fd, status_fd + 1) < 0 ||
	    fcntl(status_fd + 1, F_SETFD, FD_CLOEXEC) < 0))
		die_errno(errno, "seccomp: the listener's socket");
	if (notify_fd >= 0)
		notify_fd = status_fd + 1;
	if (sys_close_range(3, (unsigned)status_fd - 1, 0) < 0 ||
	    sys_close_range((unsigned)(notify_fd >= 0 ? notify_fd :
	    status_fd) + 1, ~0U, 0) < 0)
		die_errno(errno, "close inherited file descriptors");
	if (chdir(p->cwd) < 0)
		die_errno(errno, "cannot enter '%s'", p->cwd);
	if ((r = landlock_apply(&p->landlock, &where)) < 0)
		die_errno(-r, "landlock: cannot restrict (%s)", where);
	/* Last: the filter may deny any of the steps above. */
	if (bpf_fd >= 0 && (r = syscall_filter_load(&prog, notify_fd >= 0)) <
	    0)
		die_errno(-r, "seccomp: cannot load the filter");
	if (notify_fd >= 0) {
		/* The supervisor answers chmod and utimes (run/notify-meta.c); the
		 * command must never hold the listener: it could answer. */
		sandbox_send_out(notify_fd, r, "seccomp: the listener");
	}
	/* On a pty: a process group of the command's own (job control). */
	for (i = 0; i < 3 && slave >= 0; i++)
		if (p->tty.is_tty[i]) {
			job_foreground(i);
			break;
		}
	sandbox_wait_start(start_after);
	exec_command(p);
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
	int master, slave, r;

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

