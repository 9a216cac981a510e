// SPDX-License-Identifier: ISC
/*
 * policy.c - the built-in sealed policy (DESIGN.md section 2): leg A only.
 * The home directory is hidden, secrets are not passed, the network is
 * loopback only, and writes go to the session, exported later as a diff.
 *
 * Runs in: the supervisor, with inputs already read.
 * MUST: stay pure; every degradation is decided here, with its reason.
 */
#include "config.h"

#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>

#include "env.h"
#include "policy.h"
#include "sys.h"
#include "util.h"

/* Variables that pass from confine's environment when set there. */
static const char *const env_allow[] = {
	"TERM", "COLORTERM", "NO_COLOR", "FORCE_COLOR", "CLICOLOR",
	"CLICOLOR_FORCE", "LANG", "LANGUAGE", "LC_*", "TZ", "PATH", "SHELL",
	"EDITOR", "VISUAL", "PAGER", NULL
};

/* Device nodes bound from the host into the minimal /dev. */
static const char *const dev_nodes[] = {
	"null", "zero", "full", "random", "urandom", "tty", NULL
};

/*
 * The exact rights of each Landlock ABI (landlock(7)); never "all bits up
 * to N": a right the kernel does not know makes the ruleset EINVAL.
 */
uint64_t
policy_landlock_fs(int abi)
{
	if (abi <= 0)
		return 0;
	if (abi == 1)
		return 0x1fff;		/* EXECUTE .. MAKE_SYM */
	if (abi == 2)
		return 0x3fff;		/* + REFER */
	if (abi <= 4)
		return 0x7fff;		/* + TRUNCATE */
	if (abi <= 8)
		return 0xffff;		/* + IOCTL_DEV */
	return 0x1ffff;			/* + RESOLVE_UNIX */
}

uint64_t
policy_landlock_net(int abi)
{
	return abi >= 4 ? (LL_NET_BIND_TCP | LL_NET_CONNECT_TCP) : 0;
}

uint64_t
policy_landlock_scoped(int abi)
{
	return abi >= 6 ? (LL_SCOPE_ABSTRACT_UNIX | LL_SCOPE_SIGNAL) : 0;
}

static void
add_mount(struct plan *p, enum plan_mount_kind kind, const char *dst,
    unsigned int mode, bool exec)
{
	struct plan_mount *m;

	p->mounts.v = xreallocarray(p->mounts.v, p->mounts.n + 1,
	    sizeof(*p->mounts.v));
	m = &p->mounts.v[p->mounts.n++];
	memset(m, 0, sizeof(*m));
	m->kind = kind;
	m->dst = xstrdup(dst);
	m->mode = mode;
	m->exec = exec;
}

static void
add_path(struct plan *p, const char *path, unsigned int access)
{
	struct plan_path *r;

	p->landlock.paths = xreallocarray(p->landlock.paths,
	    p->landlock.npaths + 1, sizeof(*p->landlock.paths));
	r = &p->landlock.paths[p->landlock.npaths++];
	r->path = xstrdup(path);
	r->access = access;
}

static void
degrade(struct plan *p, const char *why)
{
	strv_push(&p->degraded, &p->ndegraded, xstrdup(why));
}

/* Trees that are fresh and empty in the sandbox, whatever the host has. */
static bool
hidden_base(const struct host *h, const char *path)
{
	return path_has_prefix(path, "/tmp") ||
	    path_has_prefix(path, "/run") ||
	    path_has_prefix(path, "/var/run") ||
	    path_has_prefix(path, "/dev") ||
	    path_has_prefix(path, "/proc") ||
	    path_has_prefix(path, h->home) ||
	    (h->pw_home && path_has_prefix(path, h->pw_home));
}

/* ... and $XDG_RUNTIME_DIR, which gets a tmpfs of its own when outside. */
static bool
hidden(const struct host *h, const char *path)
{
	return hidden_base(h, path) ||
	    (h->runtime_dir && path_has_prefix(path, h->runtime_dir));
}

static int
check_workspace(const struct host *h, const char *ws, char **cause,
    char **hint)
{
	autofree char *state = path_join(h->state_home, "confine");

	if (path_has_prefix(h->home, ws) ||
	    (h->pw_home && path_has_prefix(h->pw_home, ws))) {
		*cause = xasprintf("workspace '%s' contains the home directory, "
		    "which the sealed policy hides", ws);
		*hint = xasprintf("run confine from a project directory, or "
		    "name one with --workspace DIR");
		return -1;
	}
	if (path_has_prefix(ws, state) || path_has_prefix(state, ws)) {
		*cause = xasprintf("workspace '%s' overlaps confine's state "
		    "directory '%s'", ws, state);
		*hint = xasprintf("name another directory with --workspace");
		return -1;
	}
	return 0;
}

static void
landlock_plan(struct plan *p, const struct host *h, const char *ws)
{
	const int abi = h->landlock_abi;
	size_t i;

	p->landlock.abi = abi;
	p->landlock.handled_fs = policy_landlock_fs(abi);
	p->landlock.handled_net = policy_landlock_net(abi);
	p->landlock.scoped = policy_landlock_scoped(abi);
	if (abi < 2)
		degrade(p, "landlock ABI < 2: renaming or linking across "
		    "directories fails with EXDEV");
	if (abi < 3)
		degrade(p, "landlock ABI < 3: truncation is not restricted "
		    "by landlock (read-only mounts still apply)");
	if (abi < 4)
		degrade(p, "landlock ABI < 4: no TCP layer; the network "
		    "namespace alone keeps the network closed");
	if (abi < 5)
		degrade(p, "landlock ABI < 5: ioctl on devices is not "
		    "restricted by landlock");
	if (abi < 6)
		degrade(p, "landlock ABI < 6: no abstract-socket or signal "
		    "scope; the network and pid namespaces alone apply");
	if (abi < 9)
		degrade(p, "landlock ABI < 9: pathname unix sockets are not "
		    "covered by landlock; the mount layout hides the host's");

	add_path(p, "/", PLAN_FS_READ | PLAN_FS_EXEC);
	add_path(p, "/tmp", PLAN_FS_READ | PLAN_FS_WRITE | PLAN_FS_EXEC);
	add_path(p, "/dev/shm", PLAN_FS_READ | PLAN_FS_WRITE);
	add_path(p, "/dev/pts", PLAN_FS_READ | PLAN_FS_WRITE | PLAN_FS_DEV);
	for (i = 0; dev_nodes[i]; i++) {
		autofree char *d = path_join("/dev", dev_nodes[i]);

		add_path(p, d, PLAN_FS_READ | PLAN_FS_WRITE | PLAN_FS_DEV);
	}
	add_path(p, h->home, PLAN_FS_READ | PLAN_FS_WRITE | PLAN_FS_EXEC);
	if (!path_has_prefix(ws, h->home) && !path_has_prefix(ws, "/tmp"))
		add_path(p, ws, PLAN_FS_READ | PLAN_FS_WRITE | PLAN_FS_EXEC);
}

static void
mounts_plan(struct plan *p, const struct host *h, const char *ws)
{
	struct plan_mount *m;
	size_t i;

	add_mount(p, PLAN_MOUNT_ROOT, "/", 0, true);
	add_mount(p, PLAN_MOUNT_PROC, "/proc", 0, false);
	add_mount(p, PLAN_MOUNT_DEV, "/dev", 0755, false);
	p->mounts.dev_nodes = strv_copy((char *const *)dev_nodes);
	add_mount(p, PLAN_MOUNT_TMPFS, "/tmp", 01777, true);
	if (h->has_run)
		add_mount(p, PLAN_MOUNT_TMPFS, "/run", 0755, false);
	if (h->var_run_is_dir)
		add_mount(p, PLAN_MOUNT_TMPFS, "/var/run", 0755, false);
	if (h->runtime_dir && !hidden_base(h, h->runtime_dir))
		add_mount(p, PLAN_MOUNT_TMPFS, h->runtime_dir, 0700, false);
	add_mount(p, PLAN_MOUNT_TMPFS, h->home, 0700, true);
	/* $HOME pointing elsewhere must not leave the real home visible. */
	if (h->pw_home && !path_has_prefix(h->pw_home, h->home) &&
	    !path_has_prefix(h->home, h->pw_home))
		add_mount(p, PLAN_MOUNT_TMPFS, h->pw_home, 0700, false);

	add_mount(p, PLAN_MOUNT_OVERLAY, ws, 0, true);
	m = &p->mounts.v[p->mounts.n - 1];
	m->src = xstrdup(ws);
	m->upper = path_join(p->session_dir, "upper");
	m->work = path_join(p->session_dir, "work");

	/*
	 * A host socket outside the fresh trees, or inside the workspace
	 * (the overlay shows the host's files), would still be reachable by
	 * path: cover each with an empty file.  Landlock ABI 9 closes this
	 * for sockets bound later too.
	 */
	for (i = 0; h->unix_sockets[i]; i++) {
		const char *s = h->unix_sockets[i];

		if (!path_has_prefix(s, ws) && hidden(h, s))
			continue;
		add_mount(p, PLAN_MOUNT_MASK, s, 0, false);
	}
}

int
policy_compute(const struct cli_opts *o, const struct host *h,
    char *const *host_env, struct plan *ret, char **cause, char **hint)
{
	struct plan p = { 0 };
	const char *ws;
	struct tm tm;
	char stamp[32];
	autofree char *home = NULL, *user = NULL, *logname = NULL;
	autofree char *session = NULL, *path = NULL;
	static const int families[] = { AF_UNIX, AF_INET, AF_INET6,
	    AF_NETLINK };

	*cause = *hint = NULL;
	ws = h->workspace ? h->workspace : h->git_top ? h->git_top : h->cwd;
	if (check_workspace(h, ws, cause, hint) < 0)
		return -1;
	if (h->landlock_abi < 1) {
		*cause = xasprintf("landlock: not available on this kernel "
		    "(%s)", h->landlock_errno == 95 ?
		    "built in but disabled at boot" : "not built in");
		*hint = xasprintf("the sealed policy needs landlock as its "
		    "second filesystem layer; boot with landlock in lsm=, "
		    "or use a kernel of 5.13 or later");
		return -1;
	}

	p.quadrant = xstrdup("sealed");
	p.backend = PLAN_BACKEND_NATIVE;
	p.backend_reason = xstrdup(o->backend == PLAN_BACKEND_NATIVE ?
	    "native (asked for with --backend native)" :
	    "native (auto: the only backend of this build)");
	p.uid = h->uid;
	p.gid = h->gid;
	p.clone_flags = CLONE_NEWUSER | CLONE_NEWNS | CLONE_NEWPID |
	    CLONE_NEWNET | CLONE_NEWIPC | CLONE_NEWUTS | CLONE_NEWCGROUP;
	p.net = o->net;
	p.workspace = xstrdup(ws);
	p.argv = strv_copy(o->argv);
	p.cwd = xstrdup(path_has_prefix(h->cwd, ws) ? h->cwd : ws);

	gmtime_r(&h->now, &tm);
	strftime(stamp, sizeof(stamp), "%Y%m%d-%H%M%S", &tm);
	p.session_id = xasprintf("%s-%08x", stamp, h->random);
	session = path_join(h->state_home, "confine/sessions");
	p.session_dir = path_join(session, p.session_id);

	mounts_plan(&p, h, ws);
	landlock_plan(&p, h, ws);

	p.sys.nfamilies = nitems(families);
	p.sys.families = xcalloc(nitems(families), sizeof(int));
	memcpy(p.sys.families, families, sizeof(families));

	p.tty.pty = h->is_tty[0];
	memcpy(p.tty.is_tty, h->is_tty, sizeof(p.tty.is_tty));
	p.tty.termios = h->termios;
	p.tty.winsize = h->winsize;

	home = xasprintf("HOME=%s", h->home);
	user = xasprintf("USER=%s", h->user);
	logname = xasprintf("LOGNAME=%s", h->user);
	session = (free(session), xasprintf("CONFINE_SESSION=%s",
	    p.session_id));
	path = xstrdup("PATH=/usr/local/bin:/usr/bin:/bin");
	{
		char tmpdir[] = "TMPDIR=/tmp";
		char *set[] = { home, user, logname, tmpdir, session,
		    NULL, NULL };
		char **env;

		if (env_get(host_env, "PATH") == NULL)
			set[5] = path;
		env = env_build(host_env, env_allow, set, o->env, o->nenv);
		p.envp = env;
	}
	*ret = p;
	return 0;
}
