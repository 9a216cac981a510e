// SPDX-License-Identifier: ISC
/*
 * run/backend-bwrap.c - the bwrap backend's start.
 *
 * The supervisor compiles the seccomp filter (or takes the one an earlier
 * run kept, run/filter-cache.c) into a sealed memfd, writes the stage
 * (policy/plan-wire.c) into another, and runs bwrap with the argv
 * policy/bwrap-argv.c builds and an empty environment.  bwrap makes the
 * namespaces and mounts, drops the capabilities and loads the filter,
 * then runs confine-inner (run/inner-main.c) from /proc/self/fd as the
 * inner stage (run/inner-stage.c): it takes the terminal, makes the
 * proxy's socket in bwrap's network namespace, applies Landlock (after
 * bwrap's mounts, which it would forbid) and execs the command.
 *
 * Where the plan's workspace is an overlay (bwrap not setuid, user
 * namespaces working), the process that becomes bwrap first takes a user
 * and mount namespace of its own and mounts it there (enforce/overlay.c);
 * bwrap, run in them, binds it as any path: no copy is made.  Not the
 * inner stage, after bwrap: bwrap's mounts below the workspace (hidden
 * paths, masked sockets, the profile's paths) would be under the overlay,
 * its filter refuses mount(2), and confine's code in the sandbox would
 * have to hold CAP_SYS_ADMIN there.
 *
 * Runs in: the supervisor, and the child that execs bwrap.
 * MUST: bwrap gets no fd but 0, 1, 2 and those named on its command line.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "enforce/cgroup.h"
#include "enforce/namespaces.h"
#include "enforce/overlay.h"
#include "enforce/seccomp.h"
#include "input/host-probe.h"
#include "lib/log.h"
#include "lib/spawn.h"
#include "lib/sys.h"
#include "lib/util.h"
#include "policy/bwrap-argv.h"
#include "policy/plan-wire.h"
#include "run/backend.h"
#include "run/filter-cache.h"
#include "run/limits.h"

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
	/* Kept by an earlier run (run/filter-cache.c), or compiled now. */
	if ((r = filter_cache_export(p, fd, where)) < 0)
		return r;
	*where = "seal the filter";
	return seal(&fd);
}

/* The inner stage's plan, and what the run learned so far. */
static int
sealed_stage(const struct plan *p, const struct run_state *rs)
{
	autoclose int fd = memfd_create("confine-stage", MFD_CLOEXEC |
	    MFD_ALLOW_SEALING);
	FILE *f;
	int dfd, r;

	if (fd < 0 || (dfd = dup(fd)) < 0)
		return -errno;
	if ((f = fdopen(dfd, "w")) == NULL) {
		r = -errno;
		close(dfd);
		return r;
	}
	r = stage_write(p, &(struct stage_run){ .start_after = rs->start_after,
	    .log_level = log_get_level() }, f);
	if (fclose(f) != 0 && r == 0)
		r = -EIO;
	if (r < 0)
		return r;
	return seal(&fd);
}

/*
 * The plan chose bwrap's arguments for each path by what the probe found
 * there (policy/compute.c: a hidden directory or file, a socket gone or
 * out of reach, no machine id).  A run-time guard: refuse when the host
 * no longer is so (bwrap would fail, or a socket that came back would be
 * left unmasked); never choose.  As native's mounts meet the same facts
 * when they mount (enforce/mounts.c).
 */
int
bwrap_check_unchanged(const struct plan *p, bool *gone, const char **where)
{
	struct host_path now;
	size_t i;

	for (i = 0; i < p->mounts.n; i++) {
		const struct plan_mount *m = &p->mounts.v[i];
		bool changed;

		if (m->kind != PLAN_MOUNT_HIDE && m->kind != PLAN_MOUNT_MASK &&
		    m->kind != PLAN_MOUNT_DATA)
			continue;
		host_path_fact(m->dst, &now);
		if (m->kind == PLAN_MOUNT_HIDE)
			/* Absent, outside /proc: bwrap makes an empty file
			 * there, whatever came since. */
			changed = m->absent ? path_has_prefix(m->dst, "/proc") &&
			    now.exists : !now.exists || now.dir != m->dst_dir;
		else if (m->kind == PLAN_MOUNT_MASK) {
			bool none = !now.exists || !now.reachable;

			/* Gone since the probe: nothing to hide (the run's
			 * fact); back since: refused. */
			if (!m->absent && none && gone) {
				gone[i] = true;
				continue;
			}
			changed = m->absent != none;
		}
		else
			changed = m->absent == now.exists;
		if (changed) {
			*where = m->dst;
			return -ESTALE;
		}
	}
	return 0;
}

/*
 * A credential is a file: refuse anything else, as the native mounts do.
 * A run-time guard: what the path is now, not when the plan was made; it
 * only ever refuses, never chooses an argument.
 */
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


/*
 * bwrap makes a missing mount point only where the sandbox can write: in
 * a tmpfs of the plan or a writable bind.  Elsewhere (the read-only root)
 * refuse as native does, before bwrap fails with its own words.  A
 * run-time guard, as native's is at mount time: it only ever refuses,
 * never chooses an argument.
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
		    top->kind == PLAN_MOUNT_OVERLAY ||
		    top->kind == PLAN_MOUNT_BIND_RW))
			continue;
		*where = m->dst;
		return -EROFS;
	}
	return 0;
}

/*
 * In the child that becomes bwrap: the plan's workspace overlays (one a
 * writable workspace) in a user and mount namespace of this process's own
 * (the caller's ids), where bwrap then runs.  0 (none planned, or
 * mounted), or -errno with *where.
 */
static int
overlay_first(const struct plan *p, const char **where)
{
	size_t i;
	bool any = false;
	int r;

	for (i = 0; i < p->mounts.n; i++) {
		if (p->mounts.v[i].kind != PLAN_MOUNT_OVERLAY)
			continue;
		if (!any) {
			*where = "a user and mount namespace for the "
			    "workspace's overlay";
			if (unshare(CLONE_NEWUSER | CLONE_NEWNS) < 0)
				return -errno;
			if ((r = ns_map_ids(p->uid, p->gid)) < 0)
				return r;
			any = true;
		}
		if ((r = overlay_mount_workspace(&p->mounts.v[i], where)) < 0)
			return r;
	}
	return 0;
}

static pid_t
bwrap_start(const struct plan *p, const struct run_state *rs, struct fds *f,
    const char **where)
{
	autoclose int seccomp = -1, stage = -1, exe = -1;
	autofree char *empty = path_join(p->session_dir, "empty");
	autofree char *inner = NULL;
	autofree bool *gone = NULL;
	char **sys_net;
	struct bwrap_in in;
	char **argv;
	size_t i;
	pid_t pid;
	bool in_cgroup;
	int r, keep[8], nkeep = 0;

	gone = xcalloc(p->mounts.n + 1, sizeof(*gone));
	if ((r = bwrap_check_unchanged(p, gone, where)) < 0 ||
	    (r = check_files(p, where)) < 0 ||
	    (r = check_mount_points(p, where)) < 0)
		return r;
	if ((r = seccomp = sealed_filter(p, where)) < 0)
		return r;
	*where = "the inner stage";
	if ((r = stage = sealed_stage(p, rs)) < 0)
		return r;
	/* The inner stage: a program of its own, small to exec (its
	 * libraries only; run/inner-main.c), beside confine or installed. */
	*where = "the inner stage: cannot open confine-inner";
	inner = spawn_helper_path("confine-inner");
	if ((exe = open(inner, O_RDONLY | O_CLOEXEC)) < 0)
		return -errno;
	/* Run-time facts too: the host's network directories in sysfs, read
	 * now, as native's mounts read them (enforce/mounts.c). */
	sys_net = sys_net_dirs("/sys");
	/* What the host has there is the plan's (the probe's facts); what
	 * the supervisor copied, the run's: known as it made them. */
	in = (struct bwrap_in){ .exe_fd = exe, .stage_fd = stage,
	    .status_fd = f->status[1], .proxy_fd = f->proxysock[1],
	    .pty_fd = f->ptysock[1], .notify_fd = f->notify[1],
	    .seccomp_fd = seccomp, .empty_file = empty,
	    .no_copy = rs->no_copy, .gone = gone, .sys_net = sys_net };
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

	/* bwrap and all it makes: in the sandbox's cgroup. */
	*where = NULL;
	if ((pid = limits_clone(rs, 0, &in_cgroup, where)) < 0) {
		r = -errno;
		strv_free(argv);
		return r;
	}
	if (pid == 0) {
		sigset_t none;
		int k;

		/* bwrap's own --die-with-parent covers the sandbox; this, bwrap. */
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		/* Where clone3 was refused: it enters the cgroup itself. */
		if (!in_cgroup && rs->cgroup_procs >= 0 &&
		    (k = cgroup_enter(rs->cgroup_procs)) < 0) {
			dprintf(STDERR_FILENO, "confine: limits: cannot enter "
			    "the sandbox's cgroup: %s\n", strerror(-k));
			_exit(EXIT_CONFINE);
		}
		if ((k = overlay_first(p, where)) < 0) {
			dprintf(STDERR_FILENO, "confine: mount: cannot set up "
			    "'%s': %s\n", *where, strerror(-k));
			_exit(EXIT_CONFINE);
		}
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

static noreturn void
bwrap_refuse(int err, const char *where)
{
	if (err == ESTALE && where)
		die("mount: cannot set up '%s': the host changed between the "
		    "probe and the start", where);
	if (where && where[0] == '/')
		die_errno(err, "mount: cannot set up '%s'", where);
	die_errno(err, "bwrap: cannot start the sandbox%s%s", where ? ": " :
	    "", where ? where : "");
}

/*
 * bwrap killed, its sandbox's pid 1 gets SIGKILL (--die-with-parent), and
 * with it every process of the sandbox's pid namespace (--unshare-pid,
 * always given: policy/bwrap-argv.c).
 */
static void
bwrap_kill(pid_t child)
{
	kill(child, SIGKILL);
}

const struct backend_ops backend_bwrap = {
	.name = "bwrap",
	.flags = BACKEND_OWN_FILTER | BACKEND_UNOTIFY,
	.check = backend_check_paths,
	.start = bwrap_start,
	.refuse = bwrap_refuse,
	.kill = bwrap_kill,
};
