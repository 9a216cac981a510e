// SPDX-License-Identifier: ISC
/*
 * run/backends.c - the bwrap and landlock backends' start, and confine's inner
 * stage, which bwrap runs in its sandbox.
 *
 * bwrap: the supervisor compiles the seccomp filter into a sealed memfd,
 * writes the stage (policy/plan-wire.c) into another, and runs bwrap with the argv
 * policy/bwrap-argv.c builds and an empty environment.  bwrap makes the namespaces and
 * mounts, drops the capabilities and loads the filter, then runs confine
 * again from /proc/self/fd as the inner stage: it takes the terminal,
 * makes the proxy's socket in bwrap's network namespace, applies Landlock
 * (after bwrap's mounts, which it would forbid) and execs the command.
 *
 * landlock: no namespaces at all.  The supervisor forks the keeper (in a
 * Landlock domain that scopes signals, a subreaper), which forks the
 * command's process: that drops capabilities, sets no_new_privs, applies
 * Landlock (a domain nested in the keeper's) and the filter, and execs.
 * The keeper ends the session with kill(-1, SIGKILL), which its domain
 * confines to the session's processes.
 *
 * Runs in: the supervisor (start), bwrap's sandbox (inner stage), the
 * landlock backend's keeper and command.
 * MUST: the inner stage reports every failure on the status pipe and
 * never execs the command unconfined.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/signalfd.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "enforce/capabilities.h"
#include "enforce/landlock.h"
#include "enforce/network.h"
#include "enforce/pty.h"
#include "enforce/seccomp.h"
#include "lib/env.h"
#include "lib/fdio.h"
#include "lib/log.h"
#include "lib/sys.h"
#include "lib/util.h"
#include "policy/bwrap-argv.h"
#include "policy/plan-wire.h"
#include "run/backend.h"
#include "run/inner-stage.h"
#include "run/notify.h"

#ifndef CLOSE_RANGE_CLOEXEC
#define CLOSE_RANGE_CLOEXEC	(1U << 2)
#endif

/* An fd of a memfd that nobody can change once written, at its start. */
static int
seal(int *fd)
{
	if (fcntl(*fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW |
	    F_SEAL_WRITE | F_SEAL_SEAL) < 0 || lseek(*fd, 0, SEEK_SET) < 0)
		return -errno;
	return steal_fd(fd);
}

/* The filter's BPF, for bwrap's --seccomp. */
static int
sealed_filter(const struct plan *p, const char **where)
{
	autoclose int fd = memfd_create("confine-seccomp", MFD_CLOEXEC |
	    MFD_ALLOW_SEALING);
	int r;

	if (fd < 0)
		return -errno;
	if ((r = syscall_filter_export(&p->sys, fd, where)) < 0)
		return r;
	*where = "seal the filter";
	return seal(&fd);
}

/* The inner stage's plan. */
static int
sealed_stage(const struct plan *p)
{
	autoclose int fd = memfd_create("confine-stage", MFD_CLOEXEC |
	    MFD_ALLOW_SEALING);
	FILE *f;
	int r;

	if (fd < 0)
		return -errno;
	if ((f = fdopen(dup(fd), "w")) == NULL)
		return -errno;
	r = stage_write(p, f);
	if (fclose(f) != 0 && r == 0)
		r = -EIO;
	if (r < 0)
		return r;
	return seal(&fd);
}

/*
 * Can this user, without any capability (as in the sandbox), search every
 * directory above path?  By the mode bits, for root too.
 */
static bool
searchable_above(const char *path)
{
	autofree char *p = xstrdup(path);
	gid_t groups[256];
	int ngroups = getgroups((int)nitems(groups), groups), i;
	uid_t uid = geteuid();
	char *slash = p;
	struct stat st;

	while ((slash = strchr(slash + 1, '/')) != NULL) {
		bool in_group = false;
		mode_t bit;

		*slash = '\0';
		if (stat(p[0] ? p : "/", &st) < 0)
			return false;
		*slash = '/';
		for (i = 0; i < ngroups; i++)
			in_group |= groups[i] == st.st_gid;
		bit = st.st_uid == uid ? S_IXUSR : (in_group ||
		    st.st_gid == getegid()) ? S_IXGRP : S_IXOTH;
		if (!(st.st_mode & bit))
			return false;
	}
	return true;
}

/*
 * The facts policy/bwrap-argv.c needs: is each mount's host dst a directory; is a
 * socket to mask gone since the probe, or in a directory the sandbox
 * cannot search (bwrap cannot make a mount point for it, and the command
 * cannot reach it)?
 */
static bool *
dst_facts(const struct plan *p, bool **gone)
{
	bool *v = xcalloc(p->mounts.n + 1, sizeof(*v));
	struct stat st;
	size_t i;

	*gone = xcalloc(p->mounts.n + 1, sizeof(**gone));
	for (i = 0; i < p->mounts.n; i++) {
		v[i] = stat(p->mounts.v[i].dst, &st) == 0 &&
		    S_ISDIR(st.st_mode);
		(*gone)[i] = p->mounts.v[i].kind == PLAN_MOUNT_MASK &&
		    ((lstat(p->mounts.v[i].dst, &st) < 0 && errno == ENOENT) ||
		    !searchable_above(p->mounts.v[i].dst));
		/* /proc/keys: a kernel without keys has nothing to hide. */
		(*gone)[i] |= p->mounts.v[i].kind == PLAN_MOUNT_HIDE &&
		    path_has_prefix(p->mounts.v[i].dst, "/proc") &&
		    lstat(p->mounts.v[i].dst, &st) < 0 && errno == ENOENT;
		/* A scratch path missing on the host has no copy: its place
		 * (checked by check_mount_points()) is scratch already. */
		(*gone)[i] |= p->mounts.v[i].kind == PLAN_MOUNT_COPY &&
		    lstat(p->mounts.v[i].upper, &st) < 0 && errno == ENOENT;
		/* No machine id on the host: none of the host's to replace. */
		(*gone)[i] |= p->mounts.v[i].kind == PLAN_MOUNT_DATA &&
		    lstat(p->mounts.v[i].dst, &st) < 0 && errno == ENOENT;
	}
	return v;
}

/* A credential is a file: refuse anything else, as the native mounts do. */
static int
check_files(const struct plan *p, const char **where)
{
	struct stat st;
	size_t i;

	for (i = 0; i < p->mounts.n; i++) {
		const struct plan_mount *m = &p->mounts.v[i];

		if (!m->file_only)
			continue;
		*where = m->src;
		if (stat(m->src, &st) < 0) {
			if (errno == ENOENT)
				continue;	/* not there: nothing shown */
			return -errno;
		}
		if (!S_ISREG(st.st_mode))
			return -EINVAL;
	}
	return 0;
}

/* Does path go through a symlink, at any component?  ENOENT ends it. */
static bool
through_symlink(const char *path)
{
	autofree char *p = xstrdup(path);
	char *slash = p;
	struct stat st;

	for (;;) {
		slash = strchr(slash + 1, '/');
		if (slash)
			*slash = '\0';
		if (lstat(p, &st) < 0)
			return false;
		if (S_ISLNK(st.st_mode))
			return true;
		if (slash == NULL)
			return false;
		*slash = '/';
	}
}

int
backend_check_paths(const struct plan *p, const char **where)
{
	size_t i;

	for (i = 0; i < p->mounts.n; i++) {
		const struct plan_mount *m = &p->mounts.v[i];
		const char *path = m->kind == PLAN_MOUNT_HIDE ? m->dst : m->src;

		if (m->kind != PLAN_MOUNT_BIND_RO &&
		    m->kind != PLAN_MOUNT_BIND_RW && m->kind != PLAN_MOUNT_COPY &&
		    m->kind != PLAN_MOUNT_LINK && m->kind != PLAN_MOUNT_HIDE)
			continue;
		if (path && through_symlink(path)) {
			*where = path;
			return -ELOOP;
		}
	}
	/* landlock: the profile's paths outside the home are rules only. */
	for (i = 0; p->backend == PLAN_BACKEND_LANDLOCK &&
	    i < p->landlock.npaths; i++) {
		const char *path = p->landlock.paths[i].path;

		if (streq(path, "/") || path_has_prefix(path, "/dev") ||
		    path_has_prefix(path, p->session_dir))
			continue;
		if (through_symlink(path)) {
			*where = path;
			return -ELOOP;
		}
	}
	return 0;
}

/*
 * bwrap makes a missing mount point only where the sandbox can write: in
 * a tmpfs of the plan or a writable bind.  Elsewhere (the read-only root)
 * refuse as native does, before bwrap fails with its own words.
 */
static int
check_mount_points(const struct plan *p, const char **where)
{
	struct stat st;
	size_t i, j;

	for (i = 0; i < p->mounts.n; i++) {
		const struct plan_mount *m = &p->mounts.v[i], *top = NULL;

		if (m->kind == PLAN_MOUNT_MASK || m->kind == PLAN_MOUNT_HIDE ||
		    m->kind == PLAN_MOUNT_DATA || m->kind == PLAN_MOUNT_SYMLINK ||
		    m->kind == PLAN_MOUNT_EMPTY_ROOT || lstat(m->dst, &st) == 0)
			continue;
		/* Nothing to show (bwrap's -try), or a missing scratch path,
		 * which needs a place the command can create it in. */
		if ((m->kind == PLAN_MOUNT_BIND_RO ||
		    m->kind == PLAN_MOUNT_BIND_RW) && lstat(m->src, &st) < 0)
			continue;
		for (j = 0; j < i; j++)
			if (path_has_prefix(m->dst, p->mounts.v[j].dst) &&
			    !streq(m->dst, p->mounts.v[j].dst))
				top = &p->mounts.v[j];
		/* The allow-list view's root is bwrap's own tmpfs. */
		if (top && (top->kind == PLAN_MOUNT_TMPFS ||
		    top->kind == PLAN_MOUNT_EMPTY_ROOT ||
		    top->kind == PLAN_MOUNT_COPY ||
		    top->kind == PLAN_MOUNT_BIND_RW))
			continue;
		*where = m->dst;
		return -EROFS;
	}
	return 0;
}

pid_t
backend_bwrap_start(const struct plan *p, struct fds *f, const char **where)
{
	autoclose int seccomp = -1, stage = -1, exe = -1;
	autofree char *empty = path_join(p->session_dir, "empty");
	autofree bool *is_dir = NULL, *gone = NULL;
	char **sys_net = sys_net_dirs("/sys");
	struct bwrap_in in;
	char **argv;
	size_t i;
	pid_t pid;
	int r, keep[8], nkeep = 0;

	if ((r = check_files(p, where)) < 0 ||
	    (r = check_mount_points(p, where)) < 0)
		return r;
	if ((r = seccomp = sealed_filter(p, where)) < 0)
		return r;
	*where = "the inner stage";
	if ((r = stage = sealed_stage(p)) < 0)
		return r;
	if ((exe = open("/proc/self/exe", O_RDONLY | O_CLOEXEC)) < 0)
		return -errno;
	is_dir = dst_facts(p, &gone);
	in = (struct bwrap_in){ .exe_fd = exe, .stage_fd = stage,
	    .status_fd = f->status[1], .proxy_fd = f->proxysock[1],
	    .pty_fd = f->ptysock[1], .notify_fd = f->notify[1],
	    .seccomp_fd = seccomp, .empty_file = empty, .is_dir = is_dir,
	    .gone = gone, .sys_net = sys_net };
	argv = bwrap_argv(p, &in);
	strv_free(sys_net);
	if (log_get_level() >= LOG_DEBUG)
		for (i = 0; argv[i]; i++)
			log_debug("bwrap argv[%zu]: %s", i, argv[i]);
	keep[nkeep++] = exe;
	keep[nkeep++] = stage;
	keep[nkeep++] = seccomp;
	keep[nkeep++] = f->status[1];
	if (f->proxysock[1] >= 0)
		keep[nkeep++] = f->proxysock[1];
	if (f->ptysock[1] >= 0)
		keep[nkeep++] = f->ptysock[1];
	keep[nkeep++] = f->notify[1];

	if ((pid = fork()) < 0) {
		strv_free(argv);
		return -errno;
	}
	if (pid == 0) {
		sigset_t none;
		int k;

		/* bwrap's own --die-with-parent covers the sandbox; this, bwrap. */
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		sigemptyset(&none);
		sigprocmask(SIG_SETMASK, &none, NULL);
		/* The user's terminal stays out: the inner stage makes a
		 * pty on bwrap's own devpts. */
		if (p->tty.pty && (k = open("/dev/null", O_RDWR)) >= 0) {
			int t;

			for (t = 0; t < 3; t++)
				if (p->tty.is_tty[t])
					dup2(k, t);
			if (k > 2)
				close(k);
		}
		/* Only 0, 1, 2 and the fds named on bwrap's command line. */
		sys_close_range(3, ~0U, CLOSE_RANGE_CLOEXEC);
		for (k = 0; k < nkeep; k++)
			fcntl(keep[k], F_SETFD, 0);
		execve(argv[0], argv, (char *[]){ NULL });
		dprintf(STDERR_FILENO, "confine: cannot run %s: %s\n", argv[0],
		    strerror(errno));
		_exit(EXIT_CONFINE);
	}
	strv_free(argv);
	return pid;
}

/*
 * The inner stage, inside bwrap's sandbox: confine STAGE_FD STATUS_FD
 * PROXY_FD PTY_FD NOTIFY_FD after BWRAP_INNER_ARG.  bwrap has made the namespaces and
 * mounts, dropped the capabilities, set no_new_privs and loaded the filter.
 */
int
inner_main(int argc, char **argv)
{
	struct plan p;
	int stage, status, proxy, ptysock, notify, slave, r = 0;
	const char *what;
	char ready = REC_READY;
	autofree char *wire = NULL;
	ssize_t n;

	if (argc != 7)
		return EXIT_CONFINE;
	stage = atoi(argv[2]);
	status = atoi(argv[3]);
	proxy = atoi(argv[4]);
	ptysock = atoi(argv[5]);
	notify = atoi(argv[6]);
	if (stage < 3 || status < 3 || fcntl(status, F_SETFD, FD_CLOEXEC) < 0)
		return EXIT_CONFINE;
	log_set_child(status);
	if ((n = fd_read_all(stage, STAGE_MAX, &wire)) < 0 ||
	    (r = stage_decode(wire, (size_t)n, &p)) < 0)
		die_errno(n < 0 ? (int)-n : -r,
		    "bwrap: the inner stage cannot read its plan");
	close(stage);
	/* What bwrap promised, checked. */
	if ((r = caps_verify(true, &what)) < 0)
		die_errno(-r, "capabilities: bwrap left the %s non-empty", what);
	if (prctl(PR_GET_NO_NEW_PRIVS, 0, 0, 0, 0) != 1)
		die("bwrap did not set no_new_privs");
	if (prctl(PR_GET_SECCOMP, 0, 0, 0, 0) != 2)
		die("seccomp: bwrap did not load the filter");
	/* A pty on bwrap's own devpts; the master goes out. */
	slave = sandbox_pty_out(&p.tty, ptysock < 3 ? -1 : ptysock);
	if (p.net == PLAN_NET_PROXY) {
		int l;

		if ((l = net_proxy_listener()) < 0)
			die_errno(-l, "network: cannot listen for the proxy");
		sandbox_send_out(proxy < 3 ? -1 : proxy, l,
		    "network: the proxy's socket");
	}
	/*
	 * Last before the command, as it hands sendmsg(2) to the supervisor:
	 * unix connects and sends, and file locks (run/notify.c).
	 */
	if (notify < 3)
		die("seccomp: no channel for the listener");
	if ((r = unotify_install(notify, &what)) < 0)
		die_errno(-r, "seccomp: %s", what);
	close(notify);
	if (write(status, &ready, 1) != 1)
		die_errno(errno, "status pipe");
	sandbox_command(&p, slave, status, -1, -1);
}

/* The command's process: capabilities, no_new_privs, then as native. */
static noreturn void
landlock_command(const struct plan *p, struct fds *f)
{
	const char *what;
	char ready = REC_READY;
	int r;

	sandbox_child_begin(f);
	/*
	 * With capabilities (root): drop them all.  Without (anyone else,
	 * or root inside another sandbox): check there are none;
	 * no_new_privs keeps execve from raising any.
	 */
	if (caps_verify(false, &what) < 0 && (r = caps_drop_all(&what)) < 0)
		die_errno(-r, "capabilities: cannot drop (%s)", what);
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
		die_errno(errno, "cannot set no_new_privs");
	if (write(f->status[1], &ready, 1) != 1)
		die_errno(errno, "status pipe");
	if (f->notify[0] >= 0)
		close(f->notify[0]);
	sandbox_command(p, f->slave, f->status[1], f->bpf[0], f->notify[1]);
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
 * exits with the command's status.  The command cannot signal or trace
 * it (D1 is not below D2), nor renice or limit it (the filter: another
 * process's pid is refused).
 */
static noreturn void
keeper(const struct plan *p, struct fds *f)
{
	int sigfd, devnull, status, r;
	sigset_t set;
	pid_t cmd, pid;

	sandbox_child_ends(f);
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
		landlock_command(p, f);
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
	if ((devnull = open("/dev/null", O_RDWR | O_CLOEXEC)) >= 0) {
		dup2(devnull, 0);
		dup2(devnull, 1);
		dup2(devnull, 2);
		close(devnull);
	}
	env_scrub();
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
		if (sig != SIGCHLD) {
			if (sig != SIGWINCH && kill(-cmd, sig) < 0)
				kill(cmd, sig);
			continue;
		}
		while ((pid = waitpid(-1, &status, WNOHANG)) > 0) {
			if (pid != cmd)
				continue;
			keeper_end();
			_exit(WIFSIGNALED(status) ? 128 + WTERMSIG(status) :
			    WEXITSTATUS(status));
		}
	}
}

pid_t
backend_landlock_start(const struct plan *p, struct fds *f,
    const char **where)
{
	pid_t pid;

	*where = NULL;
	if ((pid = fork()) < 0)
		return -errno;
	if (pid == 0)
		keeper(p, f);
	return pid;
}
