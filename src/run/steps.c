// SPDX-License-Identifier: ISC
/*
 * steps.c - the enforcement sequence run by one loop; see steps.h.  Each
 * step is one function; a step bwrap takes and confine checks has a check
 * function instead.  The order is the plan's: this file decides nothing.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <unistd.h>

#include "enforce/capabilities.h"
#include "enforce/landlock.h"
#include "enforce/mounts.h"
#include "enforce/namespaces.h"
#include "enforce/network.h"
#include "enforce/pty.h"
#include "enforce/rlimits.h"
#include "lib/env.h"
#include "lib/log.h"
#include "lib/sys.h"
#include "lib/util.h"
#include "run/command-exec.h"
#include "run/job-control.h"
#include "run/notify.h"
#include "run/steps.h"

typedef void	(*step_fn)(struct step_ctx *);

void
steps_ctx_init(struct step_ctx *c, const struct plan *p)
{
	memset(c, 0, sizeof(*c));
	c->p = p;
	c->status_fd = c->pty_sock = c->proxy_sock = c->notify_sock = -1;
	c->bpf_fd = c->slave = -1;
}

void
steps_ctx_run(struct step_ctx *c, const struct plan *p,
    const struct run_state *rs, struct fds *f)
{
	steps_ctx_init(c, p);
	c->f = f;
	c->env_area = rs->env_area;
	c->sigpipe = rs->sigpipe;
	c->status_fd = f->status[1];
	c->bpf_fd = f->bpf[0];
	c->pty_sock = f->ptysock[1];
	c->proxy_sock = f->proxysock[1];
}

static void
die_with_supervisor(struct step_ctx *c)
{
	if (c->f == NULL)
		die("die-with-supervisor: no supervisor's fds here");
	sandbox_child_begin(c->f);
}

static void
identity(struct step_ctx *c)
{
	int r;

	if ((r = ns_map_ids(c->p->uid, c->p->gid)) < 0)
		die_errno(-r, "user namespace: cannot map uid %u and gid %u",
		    (unsigned)c->p->uid, (unsigned)c->p->gid);
}

static void
hostname(struct step_ctx *c)
{
	int r;

	(void)c;
	if ((r = ns_name_uts()) < 0)
		die_errno(-r, "uts namespace: cannot set the host name");
}

static void
mounts(struct step_ctx *c)
{
	const char *where;
	char *hint;
	int r;

	if ((r = mount_setup(&c->p->mounts, &where, &hint)) < 0)
		die_hint(EXIT_CONFINE, -r, hint ? hint :
		    r == -EINVAL && strstr(where, "/") ?
		    "the filesystem holding the session directory may not "
		    "support overlayfs upper layers in a user namespace "
		    "(it needs user extended attributes)" : NULL,
		    "mount: cannot set up '%s'", where);
}

static void
terminal(struct step_ctx *c)
{
	c->slave = sandbox_pty_out(&c->p->tty, c->pty_sock);
	c->pty_sock = -1;
}

/*
 * native: the namespace's loopback; bwrap made it.  Then the listeners,
 * passed out in this order: the keyholder's (an injected credential),
 * the proxy's.
 */
static void
network(struct step_ctx *c)
{
	int listener = -1, kh, r;

	if (c->p->backend == PLAN_BACKEND_BWRAP)
		r = c->p->net != PLAN_NET_PROXY ? 0 :
		    (listener = net_proxy_listener());
	else
		r = net_setup(c->p->net, &listener);
	if (r < 0)
		die_errno(-r, "network: cannot set up mode '%s'",
		    plan_net_name(c->p->net));
	if (c->p->keyholder_port) {
		if ((kh = net_listener(c->p->keyholder_port)) < 0)
			die_errno(-kh, "network: cannot make the keyholder's "
			    "socket (127.0.0.1:%u)", c->p->keyholder_port);
		if (c->proxy_sock < 0)
			die("network: no channel to pass the keyholder's "
			    "socket out");
		if ((r = pty_send_fd(c->proxy_sock, kh)) < 0)
			die_errno(-r, "network: the keyholder's socket: cannot "
			    "pass it out");
		close(kh);
	}
	if (listener >= 0)
		sandbox_send_out(c->proxy_sock, listener, "network: the "
		    "proxy's socket");
	else if (c->proxy_sock >= 0)
		close(c->proxy_sock);
	c->proxy_sock = -1;
}

/*
 * With capabilities (native's pid 1, root): drop them all.  Without
 * (anyone else on landlock): check there are none; no_new_privs keeps
 * execve from raising any.
 */
static void
capabilities(struct step_ctx *c)
{
	const char *what;
	int r;

	(void)c;
	if (caps_verify(false, &what) < 0 && (r = caps_drop_all(&what)) < 0)
		die_errno(-r, "capabilities: cannot drop (%s)", what);
}

static void
capabilities_checked(struct step_ctx *c)
{
	const char *what;
	int r;

	(void)c;
	if ((r = caps_verify(true, &what)) < 0)
		die_errno(-r, "capabilities: bwrap left the %s non-empty", what);
}

static void
no_new_privs(struct step_ctx *c)
{
	(void)c;
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
		die_errno(errno, "cannot set no_new_privs");
}

static void
no_new_privs_checked(struct step_ctx *c)
{
	(void)c;
	if (prctl(PR_GET_NO_NEW_PRIVS, 0, 0, 0, 0) != 1)
		die("bwrap did not set no_new_privs");
}

static void
seccomp_checked(struct step_ctx *c)
{
	(void)c;
	if (prctl(PR_GET_SECCOMP, 0, 0, 0, 0) != 2)
		die("seccomp: bwrap did not load the filter");
}

/* The kernel's bounds, inherited by every process the command makes. */
static void
limits(struct step_ctx *c)
{
	const char *what;
	int r;

	if ((r = rlimits_apply(&c->p->limits, &what)) < 0)
		die_errno(-r, "limits: cannot set %s", what);
}

/* This process holds a copy of confine's memory: keep it unreadable. */
static void
not_dumpable(struct step_ctx *c)
{
	(void)c;
	if (prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) < 0)
		die_errno(errno, "cannot make the sandbox's set-up process "
		    "non-dumpable");
}

static void
environment(struct step_ctx *c)
{
	env_scrub(&c->env_area);
}

/* bwrap: unix connects and sends, and file locks, to the supervisor. */
static void
notify(struct step_ctx *c)
{
	const char *what;
	int r;

	if (c->notify_sock < 0)
		die("seccomp: no channel for the listener");
	if ((r = unotify_install(c->notify_sock, &what)) < 0)
		die_errno(-r, "seccomp: %s", what);
	close(c->notify_sock);
	c->notify_sock = -1;
}

/* A new session: no controlling terminal of the user's (TIOCSTI). */
static void
session(struct step_ctx *c)
{
	sigset_t none;
	int i;

	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	sigaction(SIGPIPE, &c->sigpipe, NULL);
	if (setsid() < 0 && !(errno == EPERM && getsid(0) == getpid()))
		die_errno(errno, "setsid");
	if (c->slave < 0)
		return;
	if (ioctl(c->slave, TIOCSCTTY, 0) < 0)
		die_errno(errno, "pty: cannot make it the controlling terminal");
	for (i = 0; i < 3; i++)
		if (c->p->tty.is_tty[i] && dup2(c->slave, i) < 0)
			die_errno(errno, "pty: dup2");
	close(c->slave);
}

/*
 * The time the command must not start before (sandbox_wait_start()), the
 * first bytes on the filter's pipe: the supervisor decides it once the
 * session's copies are made, which may be after this process was forked.
 * 0 or -errno (-EPIPE: the supervisor closed the pipe first).
 */
static int
read_start(int fd, struct timespec *start)
{
	char *b = (char *)start;
	size_t got = 0;
	ssize_t n;

	while (got < sizeof(*start)) {
		if ((n = read(fd, b + got, sizeof(*start) - got)) < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		if (n == 0)
			return -EPIPE;
		got += (size_t)n;
	}
	return start->tv_nsec >= 0 && start->tv_nsec < 1000000000L ? 0 :
	    -EINVAL;
}

/*
 * Only 0, 1, 2 (and the status pipe, closed at exec) stay open; and the
 * socket a filter's listener goes out on, closed by the seccomp step.  The
 * start and the filter the supervisor sends meanwhile (after the
 * session's copies, where it makes them then) are read in first: nothing
 * of the command's looks at the session before.
 */
static void
fds(struct step_ctx *c)
{
	int sfd = c->status_fd, nfd = c->notify_sock, r;

	if (c->bpf_fd >= 0) {
		if ((r = read_start(c->bpf_fd, &c->start_after)) < 0 ||
		    (r = syscall_filter_read(c->bpf_fd, &c->prog)) < 0)
			die_errno(-r, "seccomp: no filter from the supervisor");
		c->have_prog = true;
	}
	if (nfd >= 0 && nfd != sfd + 1 && (dup2(nfd, sfd + 1) < 0 ||
	    fcntl(sfd + 1, F_SETFD, FD_CLOEXEC) < 0))
		die_errno(errno, "seccomp: the listener's socket");
	if (nfd >= 0)
		c->notify_sock = nfd = sfd + 1;
	if (sys_close_range(3, (unsigned)sfd - 1, 0) < 0 ||
	    sys_close_range((unsigned)(nfd >= 0 ? nfd : sfd) + 1, ~0U, 0) < 0)
		die_errno(errno, "close inherited file descriptors");
	c->bpf_fd = -1;
}

static void
directory(struct step_ctx *c)
{
	if (chdir(c->p->cwd) < 0)
		die_errno(errno, "cannot enter '%s'", c->p->cwd);
}

static void
landlock(struct step_ctx *c)
{
	const char *where;
	int r;

	if ((r = landlock_apply(&c->p->landlock, &where)) < 0)
		die_errno(-r, "landlock: cannot restrict (%s)", where);
}

/* Last before exec: the filter may deny any step before it. */
static void
seccomp(struct step_ctx *c)
{
	int r;

	if (!c->have_prog)
		die("seccomp: no filter to load");
	if ((r = syscall_filter_load(&c->prog, c->notify_sock >= 0)) < 0)
		die_errno(-r, "seccomp: cannot load the filter");
	/* landlock: the supervisor answers chmod and utimes
	 * (run/notify-meta.c); the command must never hold the listener. */
	if (c->notify_sock >= 0)
		sandbox_send_out(c->notify_sock, r, "seccomp: the listener");
	c->notify_sock = -1;
}

/* On a pty: a process group of the command's own (job control). */
static void
foreground(struct step_ctx *c)
{
	int i;

	for (i = 0; i < 3 && c->slave >= 0; i++)
		if (c->p->tty.is_tty[i]) {
			job_foreground(i);
			return;
		}
}

static void
start_after(struct step_ctx *c)
{
	sandbox_wait_start(&c->start_after);
}

static void
exec(struct step_ctx *c)
{
	exec_command(c->p);
}

static const step_fn does[STEP_COUNT] = {
	[STEP_DIE_WITH_SUPERVISOR] = die_with_supervisor,
	[STEP_IDENTITY] = identity,
	[STEP_HOSTNAME] = hostname,
	[STEP_MOUNTS] = mounts,
	[STEP_TERMINAL] = terminal,
	[STEP_NETWORK] = network,
	[STEP_CAPABILITIES] = capabilities,
	[STEP_NO_NEW_PRIVS] = no_new_privs,
	[STEP_LIMITS] = limits,
	[STEP_NOT_DUMPABLE] = not_dumpable,
	[STEP_ENVIRONMENT] = environment,
	[STEP_NOTIFY] = notify,
	[STEP_SESSION] = session,
	[STEP_FDS] = fds,
	[STEP_DIRECTORY] = directory,
	[STEP_LANDLOCK] = landlock,
	[STEP_SECCOMP] = seccomp,
	[STEP_FOREGROUND] = foreground,
	[STEP_START_AFTER] = start_after,
	[STEP_EXEC] = exec,
};

static const step_fn checks[STEP_COUNT] = {
	[STEP_CAPABILITIES] = capabilities_checked,
	[STEP_NO_NEW_PRIVS] = no_new_privs_checked,
	[STEP_SECCOMP_BY_BWRAP] = seccomp_checked,
};

void
steps_run(struct step_ctx *c, enum plan_step_in in)
{
	const struct plan *p = c->p;
	size_t i;

	for (i = 0; i < p->nsteps; i++) {
		const struct plan_step *s = &p->steps[i];
		step_fn fn = s->by == STEP_BY_CONFINE ? does[s->id] :
		    checks[s->id];

		if (s->in != in || s->by == STEP_BY_BWRAP)
			continue;
		if (fn == NULL)
			die("step %s: not one this process can take",
			    plan_step_name(s->id));
		log_debug("step %zu: %s%s", i + 1, plan_step_name(s->id),
		    s->by == STEP_BY_BWRAP_CHECKED ? " (checked)" : "");
		fn(c);
	}
}

noreturn void
steps_run_command(struct step_ctx *c)
{
	steps_run(c, STEP_IN_COMMAND);
	/* A plan whose sequence does not end in exec: run nothing. */
	die("the enforcement sequence ended without the command's exec");
}
