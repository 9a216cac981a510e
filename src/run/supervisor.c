// SPDX-License-Identifier: ISC
/*
 * run/supervisor.c - the supervisor, common to the three backends: it
 * makes the session and the fds between it and the sandbox, starts the
 * plan's backend through its ops table (run/backend.h), then relays the
 * terminal, forwards signals, answers the filter's notifications, runs the
 * proxy, waits, and finishes and exports the session.
 *
 * Runs in: the supervisor, outside the sandbox; the backends' children
 * start from here but never return into it.
 * MUST: fail closed: a backend that cannot start ends the run (125), and
 * nothing else is tried; the backend was chosen once, by policy.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/timerfd.h>
#include <sys/wait.h>
#include <unistd.h>

#include "enforce/cgroup.h"
#include "enforce/landlock.h"
#include "enforce/pty.h"
#include "enforce/seccomp.h"
#include "lib/fdio.h"
#include "lib/log.h"
#include "lib/sys.h"
#include "lib/util.h"
#include "run/agent-state.h"
#include "run/backend.h"
#include "run/command-exec.h"
#include "run/filter-cache.h"
#include "run/job-control.h"
#include "run/limits.h"
#include "run/notify-meta.h"
#include "run/notify.h"
#include "run/inject.h"
#include "run/proxy.h"
#include "run/session-dir.h"
#include "run/workspace-copy.h"
#include "run/supervisor.h"
#include "run/watch.h"
#include "store/session-meta.h"
#include "store/session-running.h"
#include "store/session-store.h"

static void
forward(pid_t child, int sig)
{
	if (child > 0)
		kill(child, sig);
}

/* How long the command has to end on SIGTERM after "confine stop". */
#define STOP_GRACE_SEC	5

/* "confine stop": asked, and the sandbox killed once the grace ran out. */
struct stop {
	bool	asked;
	bool	killed;
	int	timer;		/* timerfd, armed when asked, or -1 */
};

/*
 * The stop request: SIGTERM to the command (as a forwarded SIGTERM goes),
 * and the sandbox killed if it is still there after STOP_GRACE_SEC.
 * false: no timer to wait on, the caller kills it now.
 */
static bool
stop_ask(const struct plan *p, struct stop *st, pid_t child)
{
	struct itimerspec when = { .it_value = { .tv_sec = STOP_GRACE_SEC } };

	if (st->asked)
		return true;
	st->asked = true;
	log_msg("session %s: stopped by 'confine stop': SIGTERM to the "
	    "command, everything killed after %d s", p->session_id,
	    STOP_GRACE_SEC);
	forward(child, SIGTERM);
	if ((st->timer = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC |
	    TFD_NONBLOCK)) < 0 || timerfd_settime(st->timer, 0, &when,
	    NULL) < 0) {
		log_warn("session %s: no timer for the grace (%s): the sandbox "
		    "is killed now", p->session_id, strerror(errno));
		return false;
	}
	return true;
}

/*
 * The grace is over: kill the whole sandbox, through its cgroup when it
 * has one (cgroup.kill: every process in it, at once), and as its
 * backend ends it in any case.
 */
static void
stop_kill(const struct backend_ops *ops, const struct run_state *rs,
    struct stop *st)
{
	int r;

	if (st->timer >= 0)
		close(st->timer);
	st->timer = -1;
	st->killed = true;
	if (rs->cgroup_fd >= 0 && (r = cgroup_kill(rs->cgroup_fd)) < 0)
		log_warn("cannot kill the sandbox's cgroup: %s", strerror(-r));
	ops->kill(rs->child);
}

/* What the session keeps of a stop: the report says it (confine-export). */
static void
stop_note(const struct plan *p, const struct stop *st)
{
	autofree char *text = NULL;
	int r;

	if (!st->asked)
		return;
	text = xasprintf("by=confine stop\nkilled=%d\ngrace=%d\n",
	    st->killed ? 1 : 0, STOP_GRACE_SEC);
	if ((r = session_file_put(p->session_dir, "stopped", text)) < 0)
		log_warn("session %s: cannot note the stop: %s", p->session_id,
		    strerror(-r));
	if (st->killed)
		log_msg("session %s: stopped by 'confine stop': still running "
		    "%d s after SIGTERM, killed", p->session_id,
		    STOP_GRACE_SEC);
	else
		log_msg("session %s: stopped by 'confine stop': ended within "
		    "%d s of SIGTERM", p->session_id, STOP_GRACE_SEC);
}

/*
 * The running record (store/session-running.h): the supervisor and the
 * sandbox's first process, for "confine ls" and "confine stop".
 */
static void
running_put(const struct plan *p, const struct run_state *rs,
    const char *cgroup)
{
	struct session_running r = { .supervisor = getpid(),
	    .sandbox = rs->child, .cgroup = (char *)cgroup };
	int e;

	if ((e = session_proc_start(r.supervisor, &r.supervisor_start)) < 0 ||
	    (e = session_running_put(p->session_dir, &r)) < 0)
		log_warn("session %s: cannot write its running record "
		    "('confine ls' and 'confine stop' do not see it): %s",
		    p->session_id, strerror(-e));
}

struct record {
	bool	ready;
	bool	exited;		/* native: the command's status is known and
				   nothing of the sandbox is left but its
				   first process (run/backend-native.c) */
	int	exit_code;	/* the command's, when exited */
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
	if (buf[0] == REC_READY && n == 2) {
		rec->exited = true;
		rec->exit_code = (unsigned char)buf[1];
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
 * After a tunnel of the proxy passed bytes on, how long the loop polls
 * without sleeping: a reply that follows within it is passed on without
 * the wake-up of an idle CPU, which on a virtual machine costs as much as
 * a loopback round trip (docs/benchmarks/proxy.txt).  Once a burst,
 * with more than one CPU; an idle tunnel costs nothing.
 */
#define SPIN_NS		50000

/* The CPUs this process may run on (taskset, a container's cpuset). */
static int
cpus_usable(void)
{
	cpu_set_t set;

	if (sched_getaffinity(0, sizeof(set), &set) < 0)
		return 1;
	return CPU_COUNT(&set);
}

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
 * sandbox's first process, or, when that process said the command's
 * status before it was reaped (rec->exited; *reaped false), that status.
 */
static int
supervise(const struct plan *p, const struct backend_ops *ops,
    struct run_state *rs, struct fds *f, struct record *rec,
    struct inject *kh, struct watch *w, struct stop *stop, bool *reaped)
{
	const pid_t child = rs->child;
	/*
	 * Ours; enforce/pty.c points at it (for pty_restore() on die()'s
	 * exit hook) from relay_start() until relaying ends, which calls
	 * pty_restore(), and so lets it go, before the loop can end; the
	 * pty_restore() below makes sure before it is freed.  On the heap:
	 * its buffers are some 200 KiB.
	 */
	autofree struct pty_relay *relay = xmalloc(sizeof(*relay));
	struct proxy *px = NULL;
	struct unotify *un = NULL;
	struct unotify_jobs *jobs = NULL;	/* the landlock listener's */
	bool done = false, relaying = false, status_open = true;
	bool relayed = false;
	/* Listeners still to come from the network step, in its order. */
	bool want_kh = p->keyholder_port != 0;
	autofree char *kh_line = NULL;
	struct net_note note = { 0 };
	autofree char *line = NULL;
	int wstatus = 0, master = f->master, listener = -1, ready;
	bool can_spin = false;	/* with the proxy: more than one CPU */
	uint64_t spin_end = 0;
	pid_t keeper;
	autofree char *tmp = path_join(p->session_dir, "tmp");
	char *roots[] = { p->mounts.n ? p->mounts.v[0].upper : NULL, p->home,
	    tmp, NULL };

	if (master >= 0) {
		relay_start(p, relay, master);
		relaying = relayed = true;
	}

	/*
	 * The first process's status record is the last there is: no other
	 * process holds the pipe by then (run/backend-native.c), so its end
	 * of file (that process's exit) is not waited for.
	 */
	while ((!done && !rec->exited) || relaying ||
	    (status_open && !rec->exited)) {
		struct pollfd pfd[10 + 2 * 256 + 1];
		size_t n = 0, sfd = 0, stfd = 0, psfd = 0, rfd = 0, xfd = 0;
		size_t pxn = 0, xsfd = 0, nsfd = 0, nlfd = 0, wfd = 0, tfd = 0;

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
		if (!done && watch_fd(w) >= 0)
			pfd[wfd = n++] = (struct pollfd){ .fd = watch_fd(w),
			    .events = POLLIN };
		if (stop->timer >= 0 && !done)
			pfd[tfd = n++] = (struct pollfd){ .fd = stop->timer,
			    .events = POLLIN };
		rfd = n;
		if (relaying)
			n += pty_relay_poll(relay, pfd + n);
		xfd = n;
		if (px && !done)
			n += pxn = proxy_poll(px, pfd + n, nitems(pfd) - n);
		/* A tunnel's burst just passed on: a moment without sleep. */
		ready = 0;
		while (spin_end && (ready = poll(pfd, n, 0)) == 0 &&
		    monotonic_ns() < spin_end)
			;
		spin_end = 0;
		/* While relaying, look for a stopped command when idle. */
		if (ready == 0)
			ready = poll(pfd, n, relaying ? JOB_POLL_MS : -1);
		if (ready < 0) {
			if (errno == EINTR)
				continue;
			die_errno(errno, "poll");
		}
		if (ready == 0 && relaying && !done)
			suspend_if_stopped(relay, master);
		if (pfd[sfd].revents) {
			struct signalfd_siginfo si;

			while (read(f->sigfd, &si, sizeof(si)) ==
			    sizeof(si)) {
				int sig = (int)si.ssi_signo;

				if (sig == SIGWINCH && relaying)
					pty_relay_winch(relay);
				else if (sig == SANDBOX_STOP_SIGNAL && !done &&
				    !stop_ask(p, stop, child))
					stop_kill(ops, rs, stop);
				else if (sig != SIGCHLD && sig != SIGWINCH &&
				    sig != SANDBOX_STOP_SIGNAL)
					forward(done ? -1 : child, sig);
			}
			if (!done && waitpid(child, &wstatus, WNOHANG) == child)
				done = true;
		}
		if (tfd && pfd[tfd].revents && !done)
			stop_kill(ops, rs, stop);
		if (stfd && pfd[stfd].revents)
			read_record(f->status[0], rec, &status_open);
		if (wfd && pfd[wfd].revents)
			watch_tick(w, rs);
		if (psfd && pfd[psfd].revents) {
			master = pty_recv_fd(f->ptysock[0]);
			close(f->ptysock[0]);
			f->ptysock[0] = -1;
			if (master >= 0) {
				relay_start(p, relay, master);
				relaying = relayed = true;
			}
		}
		if (xsfd && pfd[xsfd].revents) {
			int lfd = pty_recv_fd(f->proxysock[0]);
			bool kh_fd = want_kh;

			want_kh = false;
			if (lfd < 0 || kh_fd == (p->net != PLAN_NET_PROXY)) {
				close(f->proxysock[0]);
				f->proxysock[0] = -1;
			}
			if (lfd >= 0 && kh_fd)
				inject_listen(kh, lfd);
			else if (lfd >= 0) {
				px = proxy_new(lfd, p->allow, p->endpoint,
				    p->inject.upstream, p->inject.refresh);
				can_spin = cpus_usable() > 1;
			}
		}
		if (nsfd && pfd[nsfd].revents) {
			if (!(ops->flags & BACKEND_UNOTIFY)) {
				listener = pty_recv_fd(f->notify[0]);
				jobs = unotify_jobs_new();
			}
			else if ((un = unotify_receive(f->notify[0],
			    p->net == PLAN_NET_HOST, (p->landlock.handled_net &
			    LL_NET_CONNECT_TCP) != 0,
			    p->landlock.connect_port,
			    p->landlock.connect_port2)) != NULL)
				listener = unotify_listener(un);
			close(f->notify[0]);
			f->notify[0] = -1;
		}
		/* The keeper once reaped, its pid may be another's: no
		 * process is the session's any more (run/notify-meta.c). */
		keeper = done ? 0 : child;
		if (nlfd && (((pfd[nlfd].revents & POLLIN) && (un ?
		    unotify_answer(un) : meta_answer(listener, jobs, roots,
		    p->uid, keeper)) < 0) || (!(pfd[nlfd].revents & POLLIN) &&
		    (pfd[nlfd].revents & (POLLHUP | POLLERR | POLLNVAL))))) {
			/* The command is gone: no more calls to answer.  Its
			 * threads may still hold it (run/notify.c): kept. */
			if (un == NULL)
				close(listener);
			listener = -1;
		}
		if (pxn && proxy_step(px, pfd + xfd, pxn) && can_spin)
			spin_end = monotonic_ns() + SPIN_NS;
		if (relaying && !pty_relay_step(relay, pfd + rfd, xfd - rfd)) {
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
	unotify_jobs_free(jobs);
	if (relayed)
		relay_report(relay);
	if (p->keyholder_port)
		kh_line = inject_stop(kh, p);
	if (px) {
		proxy_counts(px, &note.allowed, &note.refused, &note.failed);
		note.refusals = proxy_refusals(px);
		note.failures = proxy_failures(px);
		if (note.allowed || note.refused || note.failed) {
			line = workspace_network_line(&note);
			log_msg("%s%s", line, (note.refused || note.failed) &&
			    log_get_level() < LOG_VERBOSE ? " (-v names them)" :
			    "");
		}
	}
	note.inference = kh_line;
	if (note.allowed || note.refused || note.failed || kh_line)
		workspace_note_network(p, &note);
	proxy_free(px);
	pty_restore();
	*reaped = done;
	return done ? wstatus : W_EXITCODE(rec->exit_code, 0);
}

/*
 * Export the session's changes; on failure the layers stay for later.
 * keep: a limit was reached, the session stays even with nothing to
 * review (its report says which).
 */
static void
export_run(const struct plan *p, bool keep)
{
	int r = workspace_export(p->session_dir, log_get_level() < 0);
	bool nothing = r == WORKSPACE_EXPORT_NOTHING;
	size_t i;

	/* Each further workspace's own patch, from its ws/N. */
	for (i = 0; i < p->nworkspaces; i++) {
		const struct plan_workspace *w = &p->workspaces[i];
		int rw;

		if (plan_ws_rel(p, w) == NULL)
			continue;
		rw = workspace_export(w->dir, log_get_level() < 0);
		nothing &= rw == WORKSPACE_EXPORT_NOTHING;
		if (rw != 0 && rw != WORKSPACE_EXPORT_NOTHING)
			log_warn("session %s: the export of %s failed; its "
			    "changes are kept in %s/upper, and 'confine show "
			    "%s' exports them again", p->session_id, w->path,
			    w->dir, p->session_id);
	}
	if (nothing) {
		/* Nothing to review (a refreshed .git/index, a touch). */
		if (!p->reenter && !keep) {
			workspace_session_remove(p);
			log_info("session %s: nothing to review, removed",
			    p->session_id);
		}
	} else if (r != 0 && r != WORKSPACE_EXPORT_NOTHING) {
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

/*
 * enter, a session of several workspaces: each further one's patch (in
 * ws/K of the session entered, by its workspace) into its own layer.
 */
static void
seed_more(const struct plan *p)
{
	autostrv char **from = NULL;
	size_t i, k, n;

	from = session_ws_dirs(p->patch_from, &n);
	for (i = 0; i < p->nworkspaces; i++) {
		const struct plan_workspace *w = &p->workspaces[i];
		autofree char *upper = NULL;

		if (plan_ws_rel(p, w) == NULL)
			continue;
		upper = path_join(w->dir, "upper");
		for (k = 1; k < n; k++) {
			autofree char *ws = session_meta_get(from[k],
			    "workspace");
			char *argv[] = { (char *)"--apply", from[k],
			    (char *)"--into", upper, plan_ws_overlay(p) ?
			    (char *)"--whiteouts" : NULL, NULL };

			if (ws == NULL || !streq(ws, w->path))
				continue;
			if (workspace_export_run(argv) != 0) {
				workspace_session_remove(p);
				exit(EXIT_CONFINE);
			}
			break;
		}
	}
}

/*
 * enter: the new session's workspace starts as the host's plus the patch
 * of p->patch_from (agent data: confine-export applies it as apply would,
 * with every check, into upper/, never into the workspace).  A copy's
 * writes come after its start, so that its export shows them.  Refused:
 * confine-export said why; nothing is left.
 */
static void
seed_patch(const struct plan *p, const struct run_state *rs)
{
	autofree char *upper = path_join(p->session_dir, "upper");
	char *argv[] = { (char *)"--apply", p->patch_from, (char *)"--into",
	    upper, plan_ws_overlay(p) ? (char *)"--whiteouts" :
	    NULL, NULL };

	sandbox_wait_start(&rs->start_after);
	if (workspace_export_run(argv) != 0) {
		workspace_session_remove(p);
		exit(EXIT_CONFINE);
	}
	seed_more(p);
	log_msg("session %s: %s plus the patch of session %s (what apply "
	    "would write)", p->session_id, p->workspace,
	    strrchr(p->patch_from, '/') + 1);
}

static const struct backend_ops *
backend_ops(const struct plan *p)
{
	switch (p->backend) {
	case PLAN_BACKEND_NATIVE:
		return &backend_native;
	case PLAN_BACKEND_BWRAP:
		return &backend_bwrap;
	case PLAN_BACKEND_LANDLOCK:
		return &backend_landlock;
	case PLAN_BACKEND_AUTO:
		break;
	}
	die("no such backend: %d", (int)p->backend);
}

/*
 * The fds between the supervisor and the sandbox, as the backend's flags
 * ask, and the signals taken from a signalfd.
 */
static void
make_fds(const struct plan *p, const struct backend_ops *ops, struct fds *f)
{
	const bool own_filter = ops->flags & BACKEND_OWN_FILTER;
	const bool host_pty = ops->flags & BACKEND_HOST_PTY;
	const bool notify = (ops->flags & BACKEND_UNOTIFY) ||
	    ((ops->flags & BACKEND_META_NOTIFY) && p->sys.no_path_metadata);
	sigset_t set;
	int r;

	if (pipe2(f->status, O_CLOEXEC | O_DIRECT) < 0 ||
	    (!own_filter && pipe2(f->bpf, O_CLOEXEC) < 0))
		die_errno(errno, "pipe");
	if ((!host_pty && p->tty.pty && socketpair(AF_UNIX, SOCK_SEQPACKET |
	    SOCK_CLOEXEC, 0, f->ptysock) < 0) || ((p->net == PLAN_NET_PROXY || p->keyholder_port) &&
	    socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0,
	    f->proxysock) < 0))
		die_errno(errno, "socketpair");
	if (notify && socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0,
	    f->notify) < 0)
		die_errno(errno, "socketpair");
	/* bwrap's inner stage writes its pid along (run/notify.c). */
	if ((ops->flags & BACKEND_UNOTIFY) &&
	    (r = unotify_passcred(f->notify[0])) < 0)
		die_errno(-r, "socketpair");
	/* landlock's pty is on the host's devpts: opened here. */
	if (host_pty && p->tty.pty &&
	    (r = pty_open(&p->tty, &f->master, &f->slave)) < 0)
		die_errno(-r, "pty: cannot open a pseudo-terminal");
	if ((f->parent = sys_pidfd_open(getpid(), 0)) < 0)
		die_errno(errno, "pidfd_open");
	sandbox_sigset(&set);
	/* Blocked in the sandbox's first process too: never forwarded, the
	 * landlock keeper's "end it now" (backend.h). */
	sigaddset(&set, SANDBOX_STOP_SIGNAL);
	if (sigprocmask(SIG_BLOCK, &set, NULL) < 0 ||
	    (f->sigfd = signalfd(-1, &set, SFD_CLOEXEC | SFD_NONBLOCK)) < 0)
		die_errno(errno, "signalfd");
}

/*
 * Are the session's copies made once the sandbox has started, while it
 * sets itself up?  The landlock backend's: its session is its copies, and
 * its command, held before its first look at them (its filter is handed
 * over after them, close_sandbox_ends()), needs nothing of them until
 * then.  Not for a session entered again (its copies are there) nor one
 * seeded from a patch (applied into the copy before the start).
 */
static bool
copies_later(const struct plan *p, const struct backend_ops *ops)
{
	return p->backend == PLAN_BACKEND_LANDLOCK && !p->reenter &&
	    p->patch_from == NULL && !(ops->flags & BACKEND_OWN_FILTER);
}

/*
 * The copies made after the start failed, or a stop was asked meanwhile:
 * the sandbox, which ran nothing of the command, is ended, the half-made
 * session removed, and the failure said, or the held signal taken as it
 * would have been.
 */
static noreturn void
abandon(const struct plan *p, const struct backend_ops *ops,
    struct run_state *rs, struct limits_run *lr, struct fds *f,
    struct watch *w, int err, const char *where)
{
	sigset_t set;

	close(f->bpf[1]);
	ops->kill(rs->child);
	while (waitpid(rs->child, NULL, 0) < 0 && errno == EINTR)
		;
	log_set_exit_hook(NULL);
	watch_end(w, rs, false);
	limits_end(p, rs, lr);
	workspace_session_remove(p);
	if (err == 0 || err == -EINTR) {
		sandbox_sigset(&set);
		sigprocmask(SIG_UNBLOCK, &set, NULL);
		exit(EXIT_CONFINE);
	}
	die_errno(-err, "session: cannot create '%s'", where);
}

/*
 * The sandbox's ends, once it started; meanwhile, the disk budget's start
 * measured and the filter made, which the sandbox waits for before its
 * command runs.
 */
static int
close_sandbox_ends(const struct plan *p, const struct backend_ops *ops,
    struct fds *f, struct watch *w, const struct timespec *start_after,
    const char **where)
{
	int filter_err = 0;

	close(f->status[1]);
	close(f->parent);
	if (f->slave >= 0)
		close(f->slave);
	/*
	 * bwrap's inner stage waits for its notify filter: compiled here,
	 * while bwrap starts.  Failing, the socket is closed, the stage
	 * stops, and this says why.
	 */
	if ((ops->flags & BACKEND_UNOTIFY) && f->notify[0] >= 0 &&
	    (filter_err = syscall_filter_notify_send(f->notify[0],
	    where)) < 0) {
		close(f->notify[0]);
		f->notify[0] = -1;
	}
	if (!(ops->flags & BACKEND_OWN_FILTER)) {
		close(f->bpf[0]);
		/* Nothing of the command has run: its filter comes next,
		 * after the time it must not start before. */
		watch_measure(w);
		*where = "hand the start over";
		filter_err = fd_write_all(f->bpf[1], (const char *)start_after,
		    sizeof(*start_after));
		/*
		 * The filter, kept by an earlier run or compiled now, while
		 * the sandbox sets itself up (run/filter-cache.c).  If that
		 * fails, closing the pipe makes the sandbox stop; if the
		 * sandbox failed first (EPIPE), its own status record says
		 * why, and that is what is reported.
		 */
		if (filter_err == 0)
			filter_err = filter_cache_export(p, f->bpf[1], where);
		close(f->bpf[1]);
	}
	if (f->ptysock[1] >= 0)
		close(f->ptysock[1]);
	if (f->proxysock[1] >= 0)
		close(f->proxysock[1]);
	if (f->notify[1] >= 0)
		close(f->notify[1]);
	return filter_err;
}

static bool
limit_reached(const struct run_state *rs)
{
	size_t i;

	for (i = 0; i < nitems(rs->limit_hit); i++)
		if (rs->limit_hit[i][0])
			return true;
	return false;
}

/*
 * The rest of an untouched session's end, in a process of its own that
 * confine does not wait for: once the sandbox's first process is gone
 * (pidfd; -1: reaped already), and with it the overlay, remove the
 * sandbox's cgroup and the session from the trash.  Detached: its own
 * session, no terminal, stdio on /dev/null, so that neither the caller's
 * shell nor a pipe reading confine's output waits for it; and at
 * SCHED_IDLE, so that it runs on a CPU nothing else wants: the caller,
 * woken by confine's exit, and what it runs next take the CPU from it at
 * once instead of waiting out its time slice.
 */
static noreturn void
tear_down(const struct plan *p, struct run_state *rs, struct limits_run *lr,
    int pidfd)
{
	sigset_t none;
	int fd;

	/* The supervisor's signals were its signalfd's: the defaults here. */
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	setsid();
	/* Lowering one's own policy needs no privilege; failing, it runs
	 * as it was. */
	sched_setscheduler(0, SCHED_IDLE, &(struct sched_param){ 0 });
	limits_adopt(lr);
	if ((fd = open("/dev/null", O_RDWR | O_CLOEXEC)) >= 0) {
		dup2(fd, 0);
		dup2(fd, 1);
		dup2(fd, 2);
	}
	while (pidfd >= 0 && poll(&(struct pollfd){ .fd = pidfd,
	    .events = POLLIN }, 1, -1) < 0 && errno == EINTR)
		;
	limits_undo(rs, lr);
	workspace_trash_empty(p);
	_exit(0);
}

/*
 * Return the status before the tear-down, where that is safe: the
 * command's status known and nothing of the sandbox left to write (native:
 * its first process reaped everything, rec->exited; bwrap: its first
 * process reaped, and with bwrap's pid namespace every process of it;
 * landlock: the keeper reaped, which outlives every process of the
 * session), a session the run leaves untouched, nothing reached, nothing
 * kept (no persistent state, not a session entered again), not ended by
 * "confine stop".  The session leaves the store first
 * (workspace_session_discard(): "confine ls" and "show" no longer see it),
 * then a detached process removes it (on the copy backends, the copy) and
 * the cgroup (tear_down()).  False: the run ends as usual, with the
 * tear-down before the status; *changed then says that a copy was found
 * changed (workspace_session_finish() need not walk it again).
 */
static bool
leave_early(const struct plan *p, struct run_state *rs, struct limits_run *lr,
    bool reaped, bool copies_changed, bool *changed)
{
	int pidfd = -1;
	pid_t pid;

	if ((p->backend != PLAN_BACKEND_NATIVE && !reaped) || p->reenter ||
	    p->state_dir || p->patch_from || limits_outcomes(p, rs, lr))
		return false;
	if (!workspace_session_untouched(p, copies_changed)) {
		*changed = p->backend != PLAN_BACKEND_NATIVE &&
		    !plan_ws_overlay(p);
		return false;
	}
	if (!reaped && (pidfd = sys_pidfd_open(rs->child, 0)) < 0)
		return false;
	if (workspace_session_discard(p) < 0) {
		if (pidfd >= 0)
			close(pidfd);
		return false;
	}
	log_info("session %s: nothing to review, removed", p->session_id);
	fflush(NULL);
	if ((pid = fork()) == 0)
		tear_down(p, rs, lr, pidfd);
	if (pid < 0) {
		/* No process for it: done here, before the status. */
		while (pidfd >= 0 && poll(&(struct pollfd){ .fd = pidfd,
		    .events = POLLIN }, 1, -1) < 0 && errno == EINTR)
			;
		limits_undo(rs, lr);
		workspace_trash_empty(p);
	} else
		limits_forget(lr);
	if (pidfd >= 0)
		close(pidfd);
	return true;
}

/* confine's exit status, from the status record and the wait status. */
static int
exit_status(const struct record *rec, int wstatus)
{
	if (rec->code) {
		fprintf(stderr, "confine: %s\n", rec->msg);
		return rec->code;
	}
	if (!rec->ready) {
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

int
sandbox_run(const struct plan *p, const struct env_area *area)
{
	const struct backend_ops *ops = backend_ops(p);
	struct fds f = { .status = { -1, -1 }, .bpf = { -1, -1 },
	    .ptysock = { -1, -1 }, .proxysock = { -1, -1 }, .master = -1,
	    .slave = -1, .notify = { -1, -1 } };
	struct run_state rs = { .env_area = *area, .cgroup_fd = -1,
	    .cgroup_procs = -1 };
	struct limits_run lr;
	struct record rec = { 0 };
	struct inject kh = { .pid = -1, .ctl = -1 };
	struct stop stopping = { .timer = -1 };
	const char *where = NULL;
	struct watch *w = NULL;
	sigset_t set, stop, held;
	int r, wstatus, filter_err;
	bool reaped, copies_changed, changed = false;
	const bool later = copies_later(p, ops);

	rs.no_copy = xcalloc(p->mounts.n + 1, sizeof(*rs.no_copy));

	if (ops->check && (r = ops->check(p, &where)) < 0)
		die_errno(-r, "mount: cannot set up '%s'", where);
	/* First: a credential that is not there leaves nothing made. */
	if (p->keyholder_port)
		inject_start(p, &kh);
	if ((r = agent_state_prepare(p, &where, rs.no_copy)) < 0)
		die_errno(-r, "state: cannot prepare '%s'", where);
	/*
	 * A copy of a large workspace takes a while: a ^C meanwhile is held
	 * until the copy stops at it (workspace-copy.c), the half-made
	 * session is removed, and then it is taken as it would have been.
	 */
	sigemptyset(&stop);
	sigaddset(&stop, SIGINT);
	sigaddset(&stop, SIGTERM);
	sigaddset(&stop, SIGHUP);
	sigaddset(&stop, SIGQUIT);
	sigprocmask(SIG_BLOCK, &stop, &held);
	r = workspace_session_create(p, &where, &rs.start_after,
	    rs.no_copy, later);
	if (r < 0 || copy_stop_pending()) {
		if (!p->reenter)
			workspace_session_remove(p);
		if (r == 0 || r == -EINTR) {
			/* Taken now, as it would have been. */
			sigprocmask(SIG_SETMASK, &held, NULL);
			exit(EXIT_CONFINE);
		}
		die_errno(-r, "session: cannot create '%s'", where);
	}
	sigprocmask(SIG_SETMASK, &held, NULL);
	if (!later && (r = agent_state_links(p, &where)) < 0) {
		if (!p->reenter)
			workspace_session_remove(p);
		die_errno(-r, "session: cannot create '%s'", where);
	}
	/* The sandbox's cgroup, before anything of the command runs. */
	limits_start(p, &rs, &lr);
	if (p->patch_from)
		seed_patch(p, &rs);
	/* The disk budget is measured from here (a project quota, or the
	 * watch): what the session holds now is not the command's. */
	w = watch_new(p);
	/* bwrap's command waits for nothing of the supervisor's. */
	if (ops->flags & BACKEND_OWN_FILTER)
		watch_measure(w);
	/*
	 * A sandbox that fails early closes the filter pipe: take EPIPE, not
	 * SIGPIPE, and read its reason.  The command gets the caller's own
	 * disposition back.
	 */
	sigaction(SIGPIPE, &(struct sigaction){ .sa_handler = SIG_IGN },
	    &rs.sigpipe);
	make_fds(p, ops, &f);
	log_set_exit_hook(pty_restore);

	if ((rs.child = ops->start(p, &rs, &f, &where)) < 0) {
		sandbox_sigset(&set);
		sigprocmask(SIG_UNBLOCK, &set, NULL);
		log_set_exit_hook(NULL);
		watch_end(w, &rs, false);
		limits_end(p, &rs, &lr);
		workspace_session_finish(p, false);
		if (!p->reenter)
			workspace_session_remove(p);
		ops->refuse((int)-rs.child, where);
		exit(EXIT_CONFINE);
	}
	/*
	 * The copies, while the sandbox sets itself up: its command waits
	 * for its filter, which comes after them.
	 */
	if (later && ((r = workspace_session_copies(p, &where,
	    &rs.start_after, rs.no_copy)) < 0 || copy_stop_pending() ||
	    (r = agent_state_links(p, &where)) < 0))
		abandon(p, ops, &rs, &lr, &f, w, r, where);
	/* The backend has started: what it was made for is used. */
	free(rs.no_copy);
	rs.no_copy = NULL;
	filter_err = close_sandbox_ends(p, ops, &f, w, &rs.start_after,
	    &where);
	running_put(p, &rs, lr.sandbox_path);
	watch_start(w, &rs);
	wstatus = supervise(p, ops, &rs, &f, &rec, &kh, w, &stopping,
	    &reaped);
	session_running_clear(p->session_dir);
	if (stopping.timer >= 0)
		close(stopping.timer);
	if (filter_err < 0 && (rec.code == 0 ||
	    strncmp(rec.msg, "seccomp: no filter", 18) == 0)) {
		snprintf(rec.msg, sizeof(rec.msg), "seccomp: cannot build the "
		    "filter (%s): %s", where, strerror(-filter_err));
		rec.code = EXIT_CONFINE;
	}
	pty_restore();
	log_set_exit_hook(NULL);
	/*
	 * The copies, changed since their marks?  Asked once, the command
	 * gone: an unchanged copy is walked neither by the watch's last look
	 * nor again for the early return.
	 */
	copies_changed = workspace_copies_changed(p);
	watch_end(w, &rs, !copies_changed);
	/* A stop is said and noted: the usual end. */
	if (!stopping.asked && leave_early(p, &rs, &lr, reaped,
	    copies_changed, &changed))
		return exit_status(&rec, wstatus);
	/* The namespaces gone before the layers are read or removed. */
	while (!reaped && waitpid(rs.child, NULL, 0) < 0 && errno == EINTR)
		;
	/* Nothing of the command is left; what it reached is said. */
	limits_end(p, &rs, &lr);

	agent_state_collect(p);
	stop_note(p, &stopping);
	/* again after enter: its export is updated */
	/* A copy found changed is kept as a limit's would be: not walked
	 * again. */
	if (workspace_session_finish(p, limit_reached(&rs) || changed))
		export_run(p, limit_reached(&rs));
	agent_state_finish(p);
	return exit_status(&rec, wstatus);
}
