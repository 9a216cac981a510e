// SPDX-License-Identifier: ISC
/*
 * run/supervisor.c - the native backend: clone(2) into new namespaces, set up the
 * sandbox in its first process, run the command, and supervise.
 *
 * Processes: confine (the supervisor, outside) -> the sandbox's first
 * process (pid 1 of the new pid namespace: sets up, then reaps and forwards
 * signals) -> the command (pid 2).  When the command exits, pid 1 exits
 * with its status and the kernel kills everything else in the namespace;
 * when confine dies, even by SIGKILL, pid 1 gets SIGKILL (PR_SET_PDEATHSIG).
 *
 * Runs in: all three.  The order of the steps in the sandbox is fixed and
 * commented below; see STYLE.md section 3.
 * MUST: every failure after clone is fatal and reported over the status
 * pipe; nothing warns and carries on once enforcement has begun.
 * MUST: only fds 0, 1 and 2 reach the command.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "enforce/capabilities.h"
#include "enforce/landlock.h"
#include "enforce/mounts.h"
#include "enforce/namespaces.h"
#include "enforce/network.h"
#include "enforce/pty.h"
#include "enforce/seccomp.h"
#include "lib/env.h"
#include "lib/log.h"
#include "lib/sys.h"
#include "lib/util.h"
#include "run/backend.h"
#include "run/job-control.h"
#include "run/notify-meta.h"
#include "run/notify.h"
#include "run/proxy.h"
#include "run/session-dir.h"
#include "run/supervisor.h"
#include "store/session-meta.h"

static const int forwarded[] = { SIGINT, SIGTERM, SIGHUP, SIGQUIT };
struct sigaction sandbox_saved_sigpipe;

static void
sigset_all(sigset_t *set)
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
 * A copy's changes are told by ctime >= the start (run/session-dir.c): begin
 * only once the coarse clock, which most timestamps come from, is past it.
 * Usually already so: the set-up takes longer than a tick.
 */
static void
start_after(const struct timespec *t)
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
sandbox_command(const struct plan *p, int slave, int status_fd, int bpf_fd,
    int notify_fd)
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
	start_after(&p->start_after);
	exec_command(p);
}

/* pid 1: reap, forward signals, and leave with the command's status. */
static noreturn void
reaper(pid_t cmd)
{
	sigset_t set;
	siginfo_t si;
	int status, sig;
	pid_t pid;

	sigset_all(&set);
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

/* The sandbox's first process.  The order below is the security order. */
static noreturn void
sandbox_init(const struct plan *p, struct fds *f)
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
		die_errno(errno, "cannot make the sandbox's pid 1 non-dumpable");
	env_scrub();

	/* 7. The command: Landlock, seccomp and exec happen in it. */
	if (write(f->status[1], &ready, 1) != 1)
		die_errno(errno, "status pipe");
	if ((cmd = fork()) < 0)
		die_errno(errno, "fork");
	if (cmd == 0)
		sandbox_command(p, slave, f->status[1], f->bpf[0], -1);
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

static void
forward(pid_t child, int sig)
{
	if (child > 0)
		kill(child, sig);
}

struct record {
	bool	ready;
	int	code;		/* 0: none */
	char	msg[STATUS_MAX];
};

static void
read_record(int fd, struct record *rec, bool *open)
{
	char buf[STATUS_MAX + 1];
	ssize_t n = read(fd, buf, STATUS_MAX);

	if (n < 0 && (errno == EINTR || errno == EAGAIN))
		return;
	if (n <= 0) {
		*open = false;
		return;
	}
	if (buf[0] == REC_READY && n == 1) {
		rec->ready = true;
		return;
	}
	if (rec->code == 0) {
		buf[n] = '\0';
		rec->code = (unsigned char)buf[0];
		snprintf(rec->msg, sizeof(rec->msg), "%s", buf + 1);
	}
}

/*
 * The relay: the user's terminal on stdin is read in raw mode; the
 * command's output goes to the first terminal of stdout and stderr (else
 * to stdin's, the one a terminal's echo belongs on).
 */
static void
relay_start(const struct plan *p, struct pty_relay *relay, int master)
{
	int out = p->tty.is_tty[1] ? 1 : p->tty.is_tty[2] ? 2 : 0;
	int in = p->tty.is_tty[0] ? 0 : -1;
	int r;

	if (in >= 0 && (r = pty_raw(in)) < 0)
		log_warn("cannot put the terminal in raw mode: %s",
		    strerror(-r));
	pty_relay_init(relay, master, in, out, p->tty.clipboard);
}

/* What the filter dropped: clipboard and transfers always, all with -v. */
static void
relay_report(const struct pty_relay *relay)
{
	const struct termfilter *tf = &relay->filter;
	char line[512];
	size_t len = 0;
	int k;

	for (k = 0; k < TF_NKINDS; k++) {
		unsigned long n = tf->dropped[k];

		if (n == 0 || (log_get_level() < LOG_VERBOSE &&
		    k != TF_CLIP_WRITE && k != TF_CLIP_QUERY &&
		    k != TF_TRANSFER && k != TF_NOTIFY))
			continue;
		len += (size_t)snprintf(line + len, sizeof(line) - len,
		    "%s%lu %s", len ? ", " : "", n,
		    termfilter_kind_name((enum tf_kind)k, n));
		if (len >= sizeof(line))
			break;
	}
	if (len)
		log_msg("terminal: %s blocked%s", line,
		    tf->dropped[TF_CLIP_WRITE] && !relay->filter.allow_clip ?
		    " (--clipboard allows clipboard writes)" : "");
}

/* How often an idle relay checks whether the command stopped (Ctrl-Z). */
#define JOB_POLL_MS	200

/*
 * Job control: the command stopped in its pty; stop confine too, with the
 * terminal given back, and on fg take it again and continue the command.
 */
static void
suspend_if_stopped(struct pty_relay *relay, int master)
{
	pid_t pgrp;

	if (!job_stopped(master, &pgrp))
		return;
	pty_relay_suspend(relay);
	job_stop_self();
	pty_relay_resume(relay);
	kill(-pgrp, SIGCONT);
}

/*
 * The supervisor: relay, forward, wait.  Returns the wait status of the
 * sandbox's first process.
 */
static int
supervise(const struct plan *p, pid_t child, struct fds *f,
    struct record *rec)
{
	static struct pty_relay relay;
	struct proxy *px = NULL;
	struct unotify *un = NULL;
	bool done = false, relaying = false, status_open = true;
	bool relayed = false;
	int wstatus = 0, master = f->master, listener = -1, ready;
	pid_t keeper;
	autofree char *tmp = path_join(p->session_dir, "tmp");
	char *roots[] = { p->mounts.n ? p->mounts.v[0].upper : NULL, p->home,
	    tmp, NULL };

	if (master >= 0) {
		relay_start(p, &relay, master);
		relaying = relayed = true;
	}

	while (!done || relaying || status_open) {
		struct pollfd pfd[10 + 2 * 256 + 1];
		size_t n = 0, sfd = 0, stfd = 0, psfd = 0, rfd = 0, xfd = 0;
		size_t pxn = 0, xsfd = 0, nsfd = 0, nlfd = 0;

		pfd[sfd = n++] = (struct pollfd){ .fd = f->sigfd,
		    .events = POLLIN };
		if (status_open)
			pfd[stfd = n++] = (struct pollfd){
			    .fd = f->status[0], .events = POLLIN };
		if (f->ptysock[0] >= 0)
			pfd[psfd = n++] = (struct pollfd){
			    .fd = f->ptysock[0], .events = POLLIN };
		if (f->proxysock[0] >= 0)
			pfd[xsfd = n++] = (struct pollfd){
			    .fd = f->proxysock[0], .events = POLLIN };
		if (f->notify[0] >= 0)
			pfd[nsfd = n++] = (struct pollfd){
			    .fd = f->notify[0], .events = POLLIN };
		if (listener >= 0)
			pfd[nlfd = n++] = (struct pollfd){ .fd = listener,
			    .events = POLLIN };
		rfd = n;
		if (relaying)
			n += pty_relay_poll(&relay, pfd + n);
		xfd = n;
		if (px && !done)
			n += pxn = proxy_poll(px, pfd + n, nitems(pfd) - n);
		/* While relaying, look for a stopped command when idle. */
		if ((ready = poll(pfd, n, relaying ? JOB_POLL_MS : -1)) < 0) {
			if (errno == EINTR)
				continue;
			die_errno(errno, "poll");
		}
		if (ready == 0 && relaying && !done)
			suspend_if_stopped(&relay, master);
		if (pfd[sfd].revents) {
			struct signalfd_siginfo si;

			while (read(f->sigfd, &si, sizeof(si)) ==
			    sizeof(si)) {
				int sig = (int)si.ssi_signo;

				if (sig == SIGWINCH && relaying)
					pty_relay_winch(&relay);
				else if (sig != SIGCHLD && sig != SIGWINCH)
					forward(done ? -1 : child, sig);
			}
			if (!done && waitpid(child, &wstatus, WNOHANG) == child)
				done = true;
		}
		if (stfd && pfd[stfd].revents)
			read_record(f->status[0], rec, &status_open);
		if (psfd && pfd[psfd].revents) {
			master = pty_recv_fd(f->ptysock[0]);
			close(f->ptysock[0]);
			f->ptysock[0] = -1;
			if (master >= 0) {
				relay_start(p, &relay, master);
				relaying = relayed = true;
			}
		}
		if (xsfd && pfd[xsfd].revents) {
			int lfd = pty_recv_fd(f->proxysock[0]);

			close(f->proxysock[0]);
			f->proxysock[0] = -1;
			if (lfd >= 0)
				px = proxy_new(lfd, p->allow, p->endpoint);
		}
		if (nsfd && pfd[nsfd].revents) {
			if (p->backend != PLAN_BACKEND_BWRAP)
				listener = pty_recv_fd(f->notify[0]);
			else if ((un = unotify_receive(f->notify[0],
			    p->net == PLAN_NET_HOST, (p->landlock.handled_net &
			    LL_NET_CONNECT_TCP) != 0,
			    p->landlock.connect_port)) != NULL)
				listener = unotify_listener(un);
			close(f->notify[0]);
			f->notify[0] = -1;
		}
		/* The keeper once reaped, its pid may be another's: no
		 * process is the session's any more (run/notify-meta.c). */
		keeper = done ? 0 : child;
		if (nlfd && (((pfd[nlfd].revents & POLLIN) && (un ?
		    unotify_answer(un) : meta_answer(listener, roots,
		    p->uid, keeper)) < 0) || (!(pfd[nlfd].revents & POLLIN) &&
		    (pfd[nlfd].revents & (POLLHUP | POLLERR | POLLNVAL))))) {
			/* The command is gone: no more calls to answer.  Its
			 * threads may still hold it (run/notify.c): kept. */
			if (un == NULL)
				close(listener);
			listener = -1;
		}
		if (pxn)
			proxy_step(px, pfd + xfd, pxn);
		if (relaying && !pty_relay_step(&relay, pfd + rfd, xfd - rfd)) {
			/* EIO: every slave end is closed, the sandbox is gone. */
			relaying = false;
			close(master);
			pty_restore();
		}
	}
	if (un)
		unotify_free(un);
	else if (listener >= 0)
		close(listener);
	if (relayed)
		relay_report(&relay);
	if (px) {
		unsigned ok, no;

		proxy_counts(px, &ok, &no);
		if (ok || no) {
			log_msg("network: %u connection%s through the proxy, "
			    "%u refused%s", ok, ok == 1 ? "" : "s", no,
			    no && log_get_level() < LOG_VERBOSE ?
			    " (-v names them)" : "");
			workspace_note_network(p, ok, no, proxy_refusals(px));
		}
		proxy_free(px);
	}
	return wstatus;
}

/* Export the session's changes; on failure the layers stay for later. */
static void
export_run(const struct plan *p)
{
	int r = workspace_export(p->session_dir, log_get_level() < 0);

	if (r == WORKSPACE_EXPORT_NOTHING) {
		/* Nothing to review (a refreshed .git/index, a touch). */
		if (!p->reenter) {
			workspace_session_remove(p);
			log_info("session %s: nothing to review, removed",
			    p->session_id);
		}
	} else if (r != 0) {
		autofree char *upper = path_join(p->session_dir, "upper");
		struct stat st;

		/* Say what is true: removed under us, nothing is left. */
		if (lstat(upper, &st) < 0 || !S_ISDIR(st.st_mode))
			log_warn("session %s: the export failed, and %s is gone "
			    "(removed during the run?): the command's changes "
			    "are lost, nothing can export them", p->session_id,
			    upper);
		else
			log_warn("session %s: the export failed; the changes "
			    "are kept in %s, and 'confine show %s' exports "
			    "them again", p->session_id, upper,
			    p->session_id);
	}
}

/* native: clone(2) into new namespaces; pid 1 sets the sandbox up. */
static pid_t
native_start(const struct plan *p, struct fds *f)
{
	/* fork-like clone(2): no new stack, the child returns here too. */
	pid_t child = (pid_t)syscall(SYS_clone, (unsigned long)p->clone_flags |
	    SIGCHLD, NULL, NULL, NULL, 0);

	if (child < 0)
		return -errno;
	if (child == 0)
		sandbox_init(p, f);
	return child;
}

static bool
userns_refused(int err)
{
	return err == EPERM || err == ENOSPC || err == EUSERS ||
	    err == EINVAL || err == EACCES;
}

/*
 * enter: the new session's workspace starts as the host's plus the patch
 * of p->patch_from (agent data: confine-export applies it as apply would,
 * with every check, into upper/, never into the workspace).  A copy's
 * writes come after its start, so that its export shows them.  Refused:
 * confine-export said why; nothing is left.
 */
static void
seed_patch(const struct plan *p)
{
	autofree char *upper = path_join(p->session_dir, "upper");
	char *argv[] = { (char *)"--apply", p->patch_from, (char *)"--into",
	    upper, p->backend == PLAN_BACKEND_NATIVE ? (char *)"--whiteouts" :
	    NULL, NULL };

	start_after(&p->start_after);
	if (workspace_export_run(argv) != 0) {
		workspace_session_remove(p);
		exit(EXIT_CONFINE);
	}
	log_msg("session %s: %s plus the patch of session %s (what apply "
	    "would write)", p->session_id, p->workspace,
	    strrchr(p->patch_from, '/') + 1);
}

int
sandbox_run(const struct plan *plan)
{
	struct plan copy = *plan;
	const struct plan *p = &copy;
	struct fds f = { .status = { -1, -1 }, .bpf = { -1, -1 },
	    .ptysock = { -1, -1 }, .proxysock = { -1, -1 }, .master = -1,
	    .slave = -1, .notify = { -1, -1 } };
	struct record rec = { 0 };
	const bool native = p->backend == PLAN_BACKEND_NATIVE;
	const bool bwrap = p->backend == PLAN_BACKEND_BWRAP;
	const bool landlock = p->backend == PLAN_BACKEND_LANDLOCK;
	const char *where = NULL;
	sigset_t set;
	pid_t child;
	int r, wstatus, filter_err = 0;

	if (!native && (r = backend_check_paths(p, &where)) < 0)
		die_errno(-r, "mount: cannot set up '%s'", where);
	if ((r = workspace_session_create(p, &where, &copy.start_after)) < 0) {
		if (!p->reenter)
			workspace_session_remove(p);
		die_errno(-r, "session: cannot create '%s'", where);
	}
	if (p->patch_from)
		seed_patch(p);
	/*
	 * A sandbox that fails early closes the filter pipe: take EPIPE, not
	 * SIGPIPE, and read its reason.  The command gets the caller's own
	 * disposition back.
	 */
	sigaction(SIGPIPE, &(struct sigaction){ .sa_handler = SIG_IGN },
	    &sandbox_saved_sigpipe);
	if (pipe2(f.status, O_CLOEXEC | O_DIRECT) < 0 ||
	    (!bwrap && pipe2(f.bpf, O_CLOEXEC) < 0))
		die_errno(errno, "pipe");
	if ((!landlock && p->tty.pty && socketpair(AF_UNIX, SOCK_SEQPACKET |
	    SOCK_CLOEXEC, 0, f.ptysock) < 0) || (p->net == PLAN_NET_PROXY &&
	    socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0,
	    f.proxysock) < 0))
		die_errno(errno, "socketpair");
	if (((landlock && p->sys.no_path_metadata) || bwrap) &&
	    socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, f.notify) < 0)
		die_errno(errno, "socketpair");
	/* bwrap's inner stage writes its pid along (run/notify.c). */
	if (bwrap && (r = unotify_passcred(f.notify[0])) < 0)
		die_errno(-r, "socketpair");
	/* landlock's pty is on the host's devpts: opened here. */
	if (landlock && p->tty.pty &&
	    (r = pty_open(&p->tty, &f.master, &f.slave)) < 0)
		die_errno(-r, "pty: cannot open a pseudo-terminal");
	if ((f.parent = sys_pidfd_open(getpid(), 0)) < 0)
		die_errno(errno, "pidfd_open");
	sigset_all(&set);
	if (sigprocmask(SIG_BLOCK, &set, NULL) < 0 ||
	    (f.sigfd = signalfd(-1, &set, SFD_CLOEXEC | SFD_NONBLOCK)) < 0)
		die_errno(errno, "signalfd");
	log_set_exit_hook(pty_restore);

	if (native)
		child = native_start(p, &f);
	else if (bwrap)
		child = backend_bwrap_start(p, &f, &where);
	else
		child = backend_landlock_start(p, &f, &where);
	if (child < 0) {
		int err = (int)-child;

		sigprocmask(SIG_UNBLOCK, &set, NULL);
		log_set_exit_hook(NULL);
		workspace_session_finish(p);
		if (!p->reenter)
			workspace_session_remove(p);
		if (native && userns_refused(err))
			return SANDBOX_NO_USERNS;
		if (native)
			die_hint(EXIT_CONFINE, err, "unprivileged user namespaces "
			    "are needed and seem disabled here (a sysctl, "
			    "AppArmor's restriction, or a container); see "
			    "'confine doctor'", "namespaces: cannot create "
			    "them");
		if (bwrap && where && where[0] == '/')
			die_errno(err, "mount: cannot set up '%s'", where);
		die_errno(err, "%s: cannot start the sandbox%s%s",
		    bwrap ? "bwrap" : "landlock", where ? ": " : "",
		    where ? where : "");
	}

	close(f.status[1]);
	close(f.parent);
	if (f.slave >= 0)
		close(f.slave);
	if (!bwrap) {
		close(f.bpf[0]);
		/*
		 * Compile the filter while the sandbox sets itself up.  If
		 * that fails, closing the pipe makes the sandbox stop; if the
		 * sandbox failed first (EPIPE, or libseccomp's ECANCELED for
		 * it), its own status record says why, and that is what is
		 * reported.
		 */
		filter_err = syscall_filter_export(&p->sys, f.bpf[1], &where);
		close(f.bpf[1]);
	}
	if (f.ptysock[1] >= 0)
		close(f.ptysock[1]);
	if (f.proxysock[1] >= 0)
		close(f.proxysock[1]);
	if (f.notify[1] >= 0)
		close(f.notify[1]);
	wstatus = supervise(p, child, &f, &rec);
	if (filter_err < 0 && (rec.code == 0 ||
	    strncmp(rec.msg, "seccomp: no filter", 18) == 0)) {
		snprintf(rec.msg, sizeof(rec.msg), "seccomp: cannot build the "
		    "filter (%s): %s", where, strerror(-filter_err));
		rec.code = EXIT_CONFINE;
	}
	pty_restore();
	log_set_exit_hook(NULL);

	if (workspace_session_finish(p))
		export_run(p);	/* again after enter: its export is updated */
	if (rec.code) {
		fprintf(stderr, "confine: %s\n", rec.msg);
		return rec.code;
	}
	if (!rec.ready) {
		fprintf(stderr, "confine: the sandbox died while being set "
		    "up (%s %d)\n", WIFSIGNALED(wstatus) ? "signal" : "status",
		    WIFSIGNALED(wstatus) ? WTERMSIG(wstatus) :
		    WEXITSTATUS(wstatus));
		return EXIT_CONFINE;
	}
	if (WIFSIGNALED(wstatus))
		return 128 + WTERMSIG(wstatus);
	return WEXITSTATUS(wstatus);
}
