// SPDX-License-Identifier: ISC
/*
 * policy/bwrap-argv.c - the plan as a bubblewrap command line (bwrap(1)).
 *
 * bwrap makes the namespaces (user where it may, mount, pid, net, ipc,
 * uts, named PLAN_HOSTNAME, cgroup where it may), the mounts in the plan's order, drops every
 * capability, sets no_new_privs, loads the seccomp filter and runs
 * confine's inner stage from /proc/self/fd (confine itself may live where
 * the sandbox hides, under a home directory).  A workspace overlay of the
 * plan is mounted before bwrap runs (enforce/overlay.c): bwrap binds it.
 *
 * Runs in: the supervisor.
 * MUST: take what a path on the host is from the plan (policy/compute.c,
 * by the probe's facts) and what the supervisor made from the run
 * (struct bwrap_in): never look.
 * MUST: stay pure: the argv is golden-tested.
 * MUST: bound every tmpfs it asks for with the plan's size (--size); make
 * bwrap's /dev, which takes none, read-only.
 * MUST: pass no environment through bwrap (pid 1's environ is readable);
 * the command's comes through the stage.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>

#include "lib/util.h"
#include "policy/bwrap-argv.h"

struct args {
	char	**v;
	size_t	  n;
};

static void
add(struct args *a, const char *s)
{
	strv_push(&a->v, &a->n, xstrdup(s));
}

static void
add2(struct args *a, const char *opt, const char *x)
{
	add(a, opt);
	add(a, x);
}

static void
add3(struct args *a, const char *opt, const char *x, const char *y)
{
	add(a, opt);
	add(a, x);
	add(a, y);
}

static void
add_fd(struct args *a, const char *opt, int fd)
{
	autofree char *s = xasprintf("%d", fd);

	add2(a, opt, s);
}

/*
 * A tmpfs at dst: its mode, and the plan's size (bwrap's --size; bwrap
 * has no option for nr_inodes: the kernel's default holds there).
 */
static void
add_tmpfs(struct args *a, const char *mode, uint64_t size, const char *dst)
{
	add2(a, "--perms", mode);
	if (size) {
		autofree char *n = xasprintf("%llu", (unsigned long long)size);

		add2(a, "--size", n);
	}
	add2(a, "--tmpfs", dst);
}

static void
mount_args(struct args *a, const struct plan_mount *m, const char *empty, char *const *sys_net, uint64_t size)
{
	autofree char *shm = NULL;
	char mode[16];
	size_t i;

	switch (m->kind) {
	case PLAN_MOUNT_ROOT:
		add3(a, "--ro-bind", "/", "/");
		break;
	case PLAN_MOUNT_EMPTY_ROOT:
		/* bwrap's own root is an empty tmpfs: made read-only last. */
		break;
	case PLAN_MOUNT_SYMLINK:
		add3(a, "--symlink", m->src, m->dst);
		break;
	case PLAN_MOUNT_DATA:
		/* The supervisor wrote it in the session (run/session-dir.c). */
		add3(a, "--ro-bind-try", m->src, m->dst);
		break;
	case PLAN_MOUNT_PROC:
		add2(a, "--proc", m->dst);
		break;
	case PLAN_MOUNT_DEV:
		/*
		 * bwrap's minimal /dev: the plan's nodes, pts and shm.  Its
		 * tmpfs takes no --size: it is made read-only last, and shm
		 * gets a tmpfs of its own, as on native.
		 */
		add2(a, "--dev", m->dst);
		shm = path_join(m->dst, "shm");
		add_tmpfs(a, "1777", size, shm);
		break;
	case PLAN_MOUNT_SYSFS:
		/* bwrap mounts no sysfs: cover the host's net directories. */
		for (i = 0; sys_net && sys_net[i]; i++) {
			add_tmpfs(a, "0555", size, sys_net[i]);
			add2(a, "--remount-ro", sys_net[i]);
		}
		break;
	case PLAN_MOUNT_TMPFS:
		snprintf(mode, sizeof(mode), "%04o", m->mode);
		add_tmpfs(a, mode, size, m->dst);
		break;
	case PLAN_MOUNT_COPY:
		add3(a, "--bind", m->upper, m->dst);
		break;
	case PLAN_MOUNT_BIND_RO:
		/* -try: a path a profile names may not be there. */
		add3(a, "--ro-bind-try", m->src, m->dst);
		break;
	case PLAN_MOUNT_BIND_RW:
		add3(a, "--bind-try", m->src, m->dst);
		break;
	case PLAN_MOUNT_MASK:
		add3(a, "--ro-bind", empty, m->dst);
		break;
	case PLAN_MOUNT_HIDE:
		/* What the probe found there (policy/compute.c). */
		if (m->dst_dir) {
			add_tmpfs(a, "0555", size, m->dst);
			add2(a, "--remount-ro", m->dst);
		} else
			add3(a, "--ro-bind", empty, m->dst);
		break;
	case PLAN_MOUNT_OVERLAY:
		/* The workspace's overlay, mounted there before bwrap runs
		 * (enforce/overlay.c): writable again, as the root is not. */
		add3(a, "--bind", m->dst, m->dst);
		break;
	case PLAN_MOUNT_SCRATCH:
	case PLAN_MOUNT_LINK:
		/* Never planned for bwrap (policy/compute.c): copies instead. */
		abort();
	}
}

/*
 * Nothing to do at m: by the plan's facts (policy/compute.c), a socket to
 * mask gone or out of the sandbox's reach, no machine id to replace, a
 * /proc file the kernel does not have (no keys); by the run's, a copy the
 * supervisor did not make (nothing on the host to copy: its place is
 * scratch already), a masked socket another program removed since the
 * probe (nothing left to hide).
 */
static bool
skipped(const struct plan_mount *m, const struct bwrap_in *in, size_t i)
{
	if (m->kind == PLAN_MOUNT_MASK)
		return m->absent || (in->gone && in->gone[i]);
	if (m->kind == PLAN_MOUNT_DATA)
		return m->absent;
	if (m->kind == PLAN_MOUNT_HIDE)
		return m->absent && path_has_prefix(m->dst, "/proc");
	if (m->kind == PLAN_MOUNT_COPY)
		return in->no_copy && in->no_copy[i];
	return false;
}

char **
bwrap_argv(const struct plan *p, const struct bwrap_in *in)
{
	struct args a = { xcalloc(1, sizeof(char *)), 0 };
	autofree char *exe = xasprintf("/proc/self/fd/%d", in->exe_fd);
	char fd[5][16];
	size_t i;

	add(&a, p->bwrap);
	/*
	 * A setuid bwrap's --unshare-all makes a user namespace where it
	 * can, owned by root: confine, outside it, could then not take the
	 * command's fds (pidfd_getfd(2)), which the supervisor must (unix
	 * connects and file locks, run/notify.c).  Without a user namespace
	 * the command runs under the caller's own credentials.
	 */
	if (p->bwrap_setuid && !p->bwrap_unshare_user) {
		add(&a, "--unshare-ipc");
		add(&a, "--unshare-pid");
		add(&a, "--unshare-net");
		add(&a, "--unshare-uts");
		add(&a, "--unshare-cgroup-try");
	} else
		add(&a, "--unshare-all");
	/* Either way the uts namespace is the sandbox's own. */
	add2(&a, "--hostname", PLAN_HOSTNAME);
	if (p->net == PLAN_NET_HOST)
		add(&a, "--share-net");
	if (p->bwrap_unshare_user) {
		/*
		 * A user namespace for certain, not "where it can": uid 0
		 * without one keeps the bounding set; --disable-userns needs
		 * one to take away.
		 */
		add(&a, "--unshare-user");
		if (p->bwrap_disable_userns)
			add(&a, "--disable-userns");
	}
	add(&a, "--die-with-parent");
	add(&a, "--new-session");
	add2(&a, "--cap-drop", "ALL");
	add(&a, "--clearenv");
	for (i = 0; i < p->mounts.n; i++)
		if (!skipped(&p->mounts.v[i], in, i))
			mount_args(&a, &p->mounts.v[i], in->empty_file,
			    in->sys_net, p->mounts.tmpfs_size);
	/* Nothing new may appear in /dev itself, as on native. */
	for (i = 0; i < p->mounts.n; i++)
		if (p->mounts.v[i].kind == PLAN_MOUNT_DEV)
			add2(&a, "--remount-ro", p->mounts.v[i].dst);
	if (p->mounts.n && p->mounts.v[0].kind == PLAN_MOUNT_EMPTY_ROOT)
		add2(&a, "--remount-ro", "/");
	add_fd(&a, "--seccomp", in->seccomp_fd);
	add(&a, "--");
	add(&a, exe);
	add(&a, BWRAP_INNER_ARG);
	snprintf(fd[0], sizeof(fd[0]), "%d", in->stage_fd);
	snprintf(fd[1], sizeof(fd[1]), "%d", in->status_fd);
	snprintf(fd[2], sizeof(fd[2]), "%d", in->proxy_fd);
	snprintf(fd[3], sizeof(fd[3]), "%d", in->pty_fd);
	snprintf(fd[4], sizeof(fd[4]), "%d", in->notify_fd);
	for (i = 0; i < 5; i++)
		add(&a, fd[i]);
	return a.v;
}
