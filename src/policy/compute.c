// SPDX-License-Identifier: ISC
/*
 * policy/compute.c - the profile and the options, checked against the rule of two
 * (DESIGN.md section 2), to a plan.  The base is the sealed quadrant: the
 * home directory is hidden, secrets are not passed, the network is a
 * private loopback, and writes go to the session, exported later as a diff;
 * a profile grants more, within the legs its quadrant allows.
 *
 * Runs in: the supervisor, with inputs already read.
 * MUST: stay pure; every degradation is decided here, with its reason.
 */
#include "config.h"

#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <time.h>

#include "input/values.h"
#include "lib/env.h"
#include "lib/sha256.h"
#include "lib/sys.h"
#include "lib/util.h"
#include "policy/compute.h"
#include "policy/git-identity.h"
#include "policy/limits.h"
#include "policy/limits-engine.h"
#include "policy/rule-of-two.h"
#include "policy/sequence.h"


/* Device nodes bound from the host into the minimal /dev. */
static const char *const dev_nodes[] = {
	"null", "zero", "full", "random", "urandom", "tty", NULL
};

/*
 * What a quadrant with leg C shows of the host: what programs need to run,
 * and nothing that holds the data of users or services.  Programs and
 * libraries (/usr, the /bin and /lib trees or their links into /usr, /opt
 * for software installed outside the package manager, the Nix and Guix
 * stores); their configuration (/etc, but its entries the world cannot
 * read, and the machine's identity replaced); the kernel's interface
 * (/sys, read-only).  Not shown: /home and /root (every user's files),
 * /var (logs, mail, spools, backups, databases and service state), /srv,
 * /mnt, /media, /boot, and whatever else lies at the top.
 */
const char *const policy_system_trees[] = {
	"/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/opt",
	"/etc", "/sys", "/nix/store", "/gnu/store", NULL
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

static struct plan_path *
add_path(struct plan *p, const char *path, unsigned int access)
{
	struct plan_path *r;

	p->landlock.paths = xreallocarray(p->landlock.paths,
	    p->landlock.npaths + 1, sizeof(*p->landlock.paths));
	r = &p->landlock.paths[p->landlock.npaths++];
	r->path = xstrdup(path);
	r->access = access;
	r->except = NULL;
	return r;
}

/* A rule on path, leaving out every one of hidden[] strictly beneath it. */
static void
add_path_except(struct plan *p, const char *path, unsigned int access,
    char *const *hidden)
{
	struct plan_path *r = add_path(p, path, access);
	size_t i, n = 0;

	for (i = 0; hidden[i]; i++)
		if (path_has_prefix(hidden[i], path) &&
		    !streq(hidden[i], path)) {
			if (r->except == NULL)
				r->except = xcalloc(1, sizeof(char *));
			strv_push(&r->except, &n, xstrdup(hidden[i]));
		}
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

/* The target of path when it is a symlink directly under /, or NULL. */
static const char *
root_link(const struct host *h, const char *path)
{
	size_t i;

	for (i = 0; h->root_links && h->root_links[i] &&
	    h->root_links[i + 1]; i += 2)
		if (streq(h->root_links[i], path))
			return h->root_links[i + 1];
	return NULL;
}

/* Is path in a system tree the allow-list shows (not through a link)? */
static bool
in_system_tree(const struct host *h, const char *path)
{
	size_t i;

	for (i = 0; policy_system_trees[i]; i++)
		if (path_has_prefix(path, policy_system_trees[i]) &&
		    root_link(h, policy_system_trees[i]) == NULL)
			return true;
	return false;
}

/* A per-session machine id: 32 hex digits, nothing of the host's. */
static char *
session_machine_id(const char *session_id)
{
	char hex[65];

	sha256_hex(session_id, strlen(session_id), hex);
	return xasprintf("%.32s\n", hex);
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


/*
 * The filesystem rules that cannot be applied as written are refused, each
 * with where it was set: the root as the path of any rule (it is the mount
 * tree's own root, never a mount on it); a rule on the workspace itself
 * (it is shown writable-by-diff); one path named by two rules (which would
 * hold is an accident of the order).
 */
static int
check_rules(const struct eff *e, const char *ws, char **cause, char **hint)
{
	const struct {
		const struct plist	*l;
		const char		*key;
	} lists[] = {
		{ &e->ro, "filesystem.read-only" },
		{ &e->hide, "filesystem.hide" },
		{ &e->scratch, "filesystem.scratch" },
		{ &e->persistent, "filesystem.persistent" },
		{ &e->direct, "filesystem.direct" },
		{ &e->cred_file, "credential.file" },
	};
	size_t i, j, k, m;

	for (i = 0; i < nitems(lists); i++) {
		for (k = 0; k < lists[i].l->n; k++) {
			const struct pvalue *v = &lists[i].l->v[k];

			if (streq(v->value, "/")) {
				*cause = xasprintf("%s: %s = /: the whole host "
				    "cannot be %s", v->origin, lists[i].key,
				    lists[i].l == &e->ro ? "one read-only path "
				    "(it is read-only already, but for the "
				    "trees the policy hides)" :
				    lists[i].l == &e->hide ? "hidden" :
				    lists[i].l == &e->scratch ? "scratch" :
				    lists[i].l == &e->persistent ? "kept" :
				    lists[i].l == &e->direct ? "writable" :
				    "a credential");
				*hint = xasprintf("name the directories "
				    "themselves");
				return -1;
			}
			if (streq(v->value, ws)) {
				*cause = xasprintf("%s: %s = %s names the "
				    "workspace, which is shown writable, its "
				    "changes kept for review", v->origin,
				    lists[i].key, v->value);
				*hint = xasprintf("drop the rule, or name "
				    "another workspace with --workspace");
				return -1;
			}
			for (j = i + 1; j < nitems(lists); j++)
				for (m = 0; m < lists[j].l->n; m++) {
					const struct pvalue *w = &lists[j].l->v[m];

					if (!streq(v->value, w->value))
						continue;
					*cause = xasprintf("%s: %s = %s, and "
					    "%s: %s names the same path",
					    v->origin, lists[i].key, v->value,
					    w->origin, lists[j].key);
					*hint = xasprintf("one rule a path: "
					    "drop one (an empty value clears "
					    "a list the profile extends)");
					return -1;
				}
		}
	}
	return 0;
}

/* A direct path must exist (a fact of the host, asked after the legs). */
static int
check_direct(const struct eff *e, const struct host *h, char **cause,
    char **hint)
{
	size_t k;

	for (k = 0; k < e->direct.n; k++) {
		const struct pvalue *v = &e->direct.v[k];

		if (h->path_exists && !h->path_exists(v->value)) {
			*cause = xasprintf("%s: filesystem.direct = %s: no "
			    "such file or directory", v->origin, v->value);
			*hint = xasprintf("a direct path must exist: create "
			    "it on the host first");
			return -1;
		}
	}
	return 0;
}


/* The handled rights of the host's ABI, and what is missing, said once. */
static void
landlock_rights_plan(struct plan *p, const struct host *h)
{
	const int abi = h->landlock_abi;
	const bool ll = p->backend == PLAN_BACKEND_LANDLOCK;

	p->landlock.abi = abi;
	p->landlock.handled_fs = policy_landlock_fs(abi);
	/*
	 * TCP.  Landlock's rules name ports, never addresses: they cannot
	 * tell the sandbox's loopback from the host's.  On native and bwrap
	 * the sandbox has a network namespace of its own (modes none and
	 * proxy), whose only interface is its own lo: the sockets there are
	 * its own, the proxy's and the keyholder's listeners, and nothing of
	 * the host's, its loopback included, can be reached through it.  So
	 * no TCP right is handled there, and a server inside (a test suite's,
	 * an MCP server over HTTP) answers a client inside on any port.
	 * Mode host is the host's network (leg C): no TCP rule either.  The
	 * landlock backend has no namespace: in mode none TCP is handled and
	 * no port granted (it refuses proxy mode and injection), beneath
	 * seccomp, which refuses the inet families first.
	 */
	if (ll && p->net != PLAN_NET_HOST)
		p->landlock.handled_net = policy_landlock_net(abi);
	p->landlock.scoped = policy_landlock_scoped(abi);
	if (abi < 2)
		degrade(p, "landlock ABI < 2: renaming or linking across "
		    "directories fails with EXDEV");
	if (abi < 3)
		degrade(p, "landlock ABI < 3: truncation is not restricted "
		    "by landlock (read-only mounts still apply)");
	if (abi < 4 && ll && p->net != PLAN_NET_HOST)
		degrade(p, "landlock ABI < 4: no TCP layer; the seccomp "
		    "socket families alone keep the network closed");
	if (abi < 5)
		degrade(p, "landlock ABI < 5: ioctl on devices is not "
		    "restricted by landlock");
	if (abi < 6)
		degrade(p, ll ? "landlock ABI < 6: no abstract-socket or signal "
		    "scope; socket(AF_UNIX) is refused, signals are not" :
		    "landlock ABI < 6: no abstract-socket or signal "
		    "scope; the network and pid namespaces alone apply");
	if (abi < 9)
		degrade(p, ll ? "landlock ABI < 9: pathname unix sockets are "
		    "not covered by landlock; socket(AF_UNIX) is refused" :
		    p->backend == PLAN_BACKEND_BWRAP ? "landlock ABI < 9: "
		    "pathname unix sockets are not covered by landlock; "
		    "confine answers unix connects and sends (seccomp user "
		    "notification): only the sandbox's own sockets" :
		    "landlock ABI < 9: pathname unix sockets are not "
		    "covered by landlock; the mount layout hides the host's");
}

static void
dev_paths(struct plan *p)
{
	size_t i;

	for (i = 0; dev_nodes[i]; i++) {
		autofree char *d = path_join("/dev", dev_nodes[i]);

		add_path(p, d, PLAN_FS_READ | PLAN_FS_WRITE | PLAN_FS_DEV);
	}
}

/*
 * allow_list: Landlock's side of the view: read and execute beneath each
 * system tree, /proc and /sys read-only, /etc but for its entries the
 * world cannot read (and, with no mount namespace to replace it, its
 * machine id).  The rules on /etc are made entry by entry when the
 * sandbox starts, so an entry the host makes there later has none.
 */
static void
view_rules(struct plan *p, const struct host *h, char *const *hidden,
    bool no_machine_id)
{
	char **etc = strv_copy(hidden);
	size_t n, i;

	for (n = 0; etc[n]; n++)
		;
	for (i = 0; h->etc_private && h->etc_private[i]; i++)
		strv_push(&etc, &n, xstrdup(h->etc_private[i]));
	if (no_machine_id)
		strv_push(&etc, &n, xstrdup("/etc/machine-id"));
	for (i = 0; policy_system_trees[i]; i++) {
		const char *t = policy_system_trees[i];

		if (root_link(h, t))
			continue;	/* reached through its target's rule */
		add_path_except(p, t, streq(t, "/sys") ? PLAN_FS_READ :
		    PLAN_FS_READ | PLAN_FS_EXEC, streq(t, "/etc") ? etc : hidden);
	}
	/* Its names may be listed (the rules are on what is in it). */
	if (no_machine_id)
		add_path(p, "/etc", PLAN_FS_LIST);
	add_path_except(p, "/proc", PLAN_FS_READ, hidden);
	strv_free(etc);
}

/* native and bwrap: paths as the sandbox's own mounts show them. */
static void
landlock_plan(struct plan *p, const struct host *h, const struct eff *e)
{
	size_t i;

	landlock_rights_plan(p, h);
	if (p->allow_list) {
		/* Listing is harmless: only the view is there to list. */
		char *none[] = { NULL };

		add_path(p, "/", PLAN_FS_LIST);
		view_rules(p, h, none, false);
		for (i = 0; i < e->ro.n; i++)
			add_path(p, e->ro.v[i].value, PLAN_FS_READ |
			    PLAN_FS_EXEC);
		for (i = 0; i < e->cred_file.n; i++)
			add_path(p, e->cred_file.v[i].value, PLAN_FS_READ);
		add_path(p, "/var/tmp", PLAN_FS_READ | PLAN_FS_WRITE |
		    PLAN_FS_EXEC);
	} else if (p->backend == PLAN_BACKEND_BWRAP) {
		/*
		 * bwrap mounts /dev/shm without noexec: Landlock keeps what
		 * is written there from running, as native's mount does.
		 */
		char shm_path[] = "/dev/shm";
		char *const shm[] = { shm_path, NULL };

		add_path(p, "/", PLAN_FS_READ);
		add_path_except(p, "/", PLAN_FS_EXEC, shm);
	} else
		add_path(p, "/", PLAN_FS_READ | PLAN_FS_EXEC);
	add_path(p, "/tmp", PLAN_FS_READ | PLAN_FS_WRITE | PLAN_FS_EXEC);
	add_path(p, "/dev/shm", PLAN_FS_READ | PLAN_FS_WRITE);
	add_path(p, "/dev/pts", PLAN_FS_READ | PLAN_FS_WRITE | PLAN_FS_DEV);
	dev_paths(p);
	add_path(p, h->home, PLAN_FS_READ | PLAN_FS_WRITE | PLAN_FS_EXEC);
	for (i = 0; i < p->nworkspaces; i++) {
		const struct plan_workspace *w = &p->workspaces[i];

		if (w->read_only) {
			if (p->allow_list)
				add_path(p, w->path, PLAN_FS_READ |
				    PLAN_FS_EXEC);
		} else if (!path_has_prefix(w->path, h->home) &&
		    !path_has_prefix(w->path, "/tmp"))
			add_path(p, w->path, PLAN_FS_READ | PLAN_FS_WRITE |
			    PLAN_FS_EXEC);
	}
	for (i = 0; i < e->scratch.n; i++)
		add_path(p, e->scratch.v[i].value, PLAN_FS_READ | PLAN_FS_WRITE |
		    PLAN_FS_EXEC);
	for (i = 0; i < e->persistent.n; i++)
		add_path(p, e->persistent.v[i].value, PLAN_FS_READ |
		    PLAN_FS_WRITE | PLAN_FS_EXEC);
	for (i = 0; i < e->direct.n; i++)
		add_path(p, e->direct.v[i].value, PLAN_FS_READ | PLAN_FS_WRITE |
		    PLAN_FS_EXEC);
}

static size_t
depth(const char *path)
{
	size_t n = 0;

	for (; *path; path++)
		n += *path == '/';
	return n;
}

static int
by_depth(const void *a, const void *b)
{
	const struct plan_mount *x = a, *y = b;
	size_t dx = depth(x->dst), dy = depth(y->dst);

	if (dx != dy)
		return dx < dy ? -1 : 1;
	/* Same depth: keep the order they were planned in (a stable sort). */
	return x->mode < y->mode ? -1 : x->mode > y->mode;
}

static void
add_list(struct plan *p, enum plan_mount_kind kind, const struct plist *l,
    unsigned int *seq, bool file_only)
{
	size_t i;

	for (i = 0; i < l->n; i++) {
		add_mount(p, kind, l->v[i].value, (*seq)++, false);
		p->mounts.v[p->mounts.n - 1].src = xstrdup(l->v[i].value);
		p->mounts.v[p->mounts.n - 1].file_only = file_only;
	}
}

/*
 * A persistent path's own directory in the profile's state: named by a
 * hash of the path, so that it stays the same whatever else the profile
 * lists, and a path never takes another's.
 */
static char *
state_entry(const struct plan *p, const char *path)
{
	char hex[65];

	sha256_hex(path, strlen(path), hex);
	hex[16] = '\0';
	return path_join(p->state_dir, hex);
}

/* The persistent paths, as add_list(), each with its state entry. */
static void
add_persistent(struct plan *p, enum plan_mount_kind kind,
    const struct plist *l, unsigned int *seq)
{
	size_t i, first = p->mounts.n;

	add_list(p, kind, l, seq, false);
	for (i = first; i < p->mounts.n; i++)
		p->mounts.v[i].state = state_entry(p, p->mounts.v[i].src);
}

/* Is path shown from the host again by a read-only, scratch, persistent or
 * direct rule? */
static bool
shown(const struct eff *e, const char *path)
{
	const struct plist *l[] = { &e->ro, &e->scratch, &e->persistent,
	    &e->direct, &e->cred_file };
	size_t i, j;

	for (j = 0; j < nitems(l); j++)
		for (i = 0; i < l[j]->n; i++)
			if (path_has_prefix(path, l[j]->v[i].value))
				return true;
	return false;
}

/* Is path in a direct (writable, the host's own) path? */
static bool
under_direct(const struct eff *e, const char *path)
{
	size_t i;

	for (i = 0; i < e->direct.n; i++)
		if (path_has_prefix(path, e->direct.v[i].value))
			return true;
	return false;
}

/* Is path in one of the plan's workspaces? */
static bool
in_workspaces(const struct plan *p, const char *path)
{
	size_t i;

	for (i = 0; i < p->nworkspaces; i++)
		if (path_has_prefix(path, p->workspaces[i].path))
			return true;
	return false;
}

/* allow_list: is path in the view (a system tree, the workspace, shown)? */
static bool
in_view(const struct plan *p, const struct host *h, const char *ws,
    const struct eff *e, const char *path)
{
	return !p->allow_list || in_system_tree(h, path) ||
	    path_has_prefix(path, ws) || in_workspaces(p, path) ||
	    shown(e, path);
}

/*
 * allow_list: the system trees on an empty root, as the host has them (a
 * link stays a link); /etc without its entries the world cannot read,
 * and with a machine id of the session's own.
 */
static void
view_mounts(struct plan *p, const struct host *h)
{
	size_t i;

	add_mount(p, PLAN_MOUNT_EMPTY_ROOT, "/", 0, false);
	for (i = 0; policy_system_trees[i]; i++) {
		const char *t = policy_system_trees[i], *link = root_link(h, t);
		struct plan_mount *m;

		add_mount(p, link ? PLAN_MOUNT_SYMLINK : PLAN_MOUNT_BIND_RO, t,
		    0, true);
		m = &p->mounts.v[p->mounts.n - 1];
		m->src = xstrdup(link ? link : t);
	}
	for (i = 0; h->etc_private && h->etc_private[i]; i++)
		add_mount(p, PLAN_MOUNT_HIDE, h->etc_private[i], 0, false);
	add_mount(p, PLAN_MOUNT_DATA, "/etc/machine-id", 0, false);
	p->mounts.v[p->mounts.n - 1].src = path_join(p->session_dir,
	    "machine-id");
	p->mounts.v[p->mounts.n - 1].data = session_machine_id(p->session_id);
	add_mount(p, PLAN_MOUNT_TMPFS, "/var/tmp", 01777, true);
}

/* Is there nothing at path on the host?  A host made up by a test: no. */
static bool
absent(const struct host *h, const char *path)
{
	return h->path_exists && !h->path_exists(path);
}

/* What is at path on the host, by the probe (input/host-probe.c). */
static void
fact(const struct host *h, const char *path, struct host_path *ret)
{
	if (h->path_fact) {
		h->path_fact(path, ret);
		return;
	}
	*ret = (struct host_path){ .exists = !absent(h, path),
	    .reachable = true };
}

/*
 * What the host has where the plan mounts, by the probe's facts, once:
 * the backends' mounts follow these, not what they find later.  A
 * read-only mount, a hidden path, a masked socket (or one in a directory
 * the sandbox cannot search: bwrap could not make its mount point, the
 * command cannot reach it) and the machine id are skipped when there is
 * nothing there (--dry-run says so); a hidden directory gets an empty
 * tmpfs, anything else the empty file (enforce/mounts.c, policy/
 * bwrap-argv.c); a Landlock rule on a host path grants nothing (enforce/
 * landlock.c).  The native backend, which mounts in its own view of the
 * host, meets the same facts there; bwrap's start only checks that they
 * still hold (run/backend-bwrap.c).
 */
static void
mark_absent(struct plan *p, const struct host *h, const struct eff *e)
{
	const struct plist *l[] = { &e->ro, &e->cred_file };
	struct host_path f;
	size_t i, j, k;

	for (i = 0; i < p->mounts.n; i++) {
		struct plan_mount *m = &p->mounts.v[i];

		if (m->kind == PLAN_MOUNT_BIND_RO) {
			m->absent = absent(h, m->src ? m->src : m->dst);
			continue;
		}
		if (m->kind != PLAN_MOUNT_HIDE && m->kind != PLAN_MOUNT_MASK &&
		    m->kind != PLAN_MOUNT_DATA)
			continue;
		fact(h, m->dst, &f);
		m->absent = !f.exists ||
		    (m->kind == PLAN_MOUNT_MASK && !f.reachable);
		m->dst_dir = m->kind == PLAN_MOUNT_HIDE && f.dir;
	}
	/* Only the rules on a host path: the others' are the sandbox's. */
	for (i = 0; i < p->landlock.npaths; i++) {
		struct plan_path *r = &p->landlock.paths[i];
		bool host = false;

		for (j = 0; policy_system_trees[j]; j++)
			host |= streq(r->path, policy_system_trees[j]);
		for (k = 0; k < nitems(l); k++)
			for (j = 0; j < l[k]->n; j++)
				host |= streq(r->path, l[k]->v[j].value);
		r->absent = host && absent(h, r->path);
	}
}

/* allow_list: the view in words, for --dry-run; what the host has. */
static void
view_list(struct plan *p, const struct host *h)
{
	size_t i, n = 0;

	p->view = xcalloc(1, sizeof(char *));
	for (i = 0; policy_system_trees[i]; i++) {
		const char *t = policy_system_trees[i], *link = root_link(h, t);

		if (link == NULL && absent(h, t))
			continue;

		strv_push(&p->view, &n, link ? xasprintf("%s -> %s", t, link) :
		    !streq(t, "/etc") ? xstrdup(t) :
		    xasprintf("/etc (world-readable entries only; machine-id "
		    "%s)", p->backend == PLAN_BACKEND_LANDLOCK ? "unreadable" :
		    "the session's"));
	}
	strv_push(&p->view, &n, xstrdup("/proc"));
	strv_push(&p->view, &n, xstrdup("the workspace"));
	strv_push(&p->view, &n, xstrdup("the profile's paths"));
}

/*
 * A copy leaves out the hidden paths below it (relative to it); so does
 * the landlock backend's first copy of a persistent path.  On landlock a
 * home copy leaves out the links below it too (a read-only path inside a
 * scratch one): the link takes that place.
 */
static void
copy_excepts(struct plan *p, const struct eff *e)
{
	size_t i, j, n;

	for (i = 0; i < p->mounts.n; i++) {
		struct plan_mount *m = &p->mounts.v[i];

		if (m->kind != PLAN_MOUNT_COPY && !(m->kind ==
		    PLAN_MOUNT_LINK && m->state))
			continue;
		n = 0;
		m->except = xcalloc(1, sizeof(char *));
		for (j = 0; j < e->hide.n; j++) {
			const char *h = e->hide.v[j].value;

			if (path_has_prefix(h, m->src) && !streq(h, m->src))
				strv_push(&m->except, &n, xstrdup(h +
				    strlen(m->src) + 1));
		}
		if (p->backend != PLAN_BACKEND_LANDLOCK ||
		    streq(m->src, p->workspace))
			continue;
		for (j = 0; j < p->mounts.n; j++) {
			const struct plan_mount *x = &p->mounts.v[j];

			if (x->kind == PLAN_MOUNT_LINK && !x->state &&
			    path_has_prefix(x->src, m->src) &&
			    !streq(x->src, m->src))
				strv_push(&m->except, &n, xstrdup(x->src +
				    strlen(m->src) + 1));
		}
	}
}

/*
 * native and bwrap: the sandbox's own mount tree; copy: for bwrap, whose
 * workspace is an overlay all the same where ws_overlay (made before bwrap
 * starts, run/backend-bwrap.c), else a copy too.
 */
static void
mounts_plan(struct plan *p, const struct host *h, const char *ws,
    const struct eff *e, bool copy, bool ws_overlay)
{
	struct plan_mount *m;
	unsigned int seq = 0;
	size_t i, first;

	if (p->allow_list)
		view_mounts(p, h);
	else
		add_mount(p, PLAN_MOUNT_ROOT, "/", 0, true);
	add_mount(p, PLAN_MOUNT_PROC, "/proc", 0, false);
	/* The names and owners of the user's keys (keyctl is refused). */
	add_mount(p, PLAN_MOUNT_HIDE, "/proc/keys", 0, false);
	add_mount(p, PLAN_MOUNT_HIDE, "/proc/key-users", 0, false);
	/* The host's interfaces, their addresses and statistics. */
	if (p->net != PLAN_NET_HOST)
		add_mount(p, PLAN_MOUNT_SYSFS, "/sys", 0, false);
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

	/*
	 * The workspace and the profile's paths, parents before children so
	 * that nothing covers what is meant to be seen through it.  "mode"
	 * holds the planning order while sorting.
	 */
	first = p->mounts.n;
	for (i = 0; i < p->nworkspaces; i++) {
		const struct plan_workspace *w = &p->workspaces[i];

		add_mount(p, w->read_only ? PLAN_MOUNT_BIND_RO : copy &&
		    !ws_overlay ? PLAN_MOUNT_COPY : PLAN_MOUNT_OVERLAY,
		    w->path, seq++, true);
		m = &p->mounts.v[p->mounts.n - 1];
		m->src = xstrdup(w->path);
		if (w->read_only)
			continue;
		m->upper = path_join(w->dir, "upper");
		if (!copy || ws_overlay)
			m->work = path_join(w->dir, "work");
	}
	add_list(p, PLAN_MOUNT_BIND_RO, &e->ro, &seq, false);
	/* A credential is a file; a directory would show far more. */
	add_list(p, PLAN_MOUNT_BIND_RO, &e->cred_file, &seq, true);
	add_list(p, copy ? PLAN_MOUNT_COPY : PLAN_MOUNT_SCRATCH, &e->scratch,
	    &seq, false);
	add_persistent(p, copy ? PLAN_MOUNT_COPY : PLAN_MOUNT_SCRATCH,
	    &e->persistent, &seq);
	add_list(p, PLAN_MOUNT_BIND_RW, &e->direct, &seq, false);
	for (i = 0; i < e->hide.n; i++) {
		/* allow_list: what is not shown needs no hiding. */
		if (!in_view(p, h, ws, e, e->hide.v[i].value))
			continue;
		add_mount(p, PLAN_MOUNT_HIDE, e->hide.v[i].value, seq++, false);
		p->mounts.v[p->mounts.n - 1].src = xstrdup(e->hide.v[i].value);
	}
	qsort(p->mounts.v + first, p->mounts.n - first, sizeof(*p->mounts.v),
	    by_depth);
	for (i = first; i < p->mounts.n; i++) {
		m = &p->mounts.v[i];
		if (m->state) {
			/* Kept: native's layers, or the copy, in the state. */
			m->upper = path_join(m->state, copy ? "copy" : "upper");
			if (!copy)
				m->work = path_join(m->state, "work");
		} else if (m->kind == PLAN_MOUNT_SCRATCH ||
		    (m->kind == PLAN_MOUNT_COPY && m->upper == NULL)) {
			autofree char *d = xasprintf("scratch/%u", m->mode);

			m->upper = path_join(p->session_dir, d);
			free(d);
			d = xasprintf("scratch/%u.work", m->mode);
			if (!copy)
				m->work = path_join(p->session_dir, d);
		}
		m->mode = 0;
		m->exec = m->kind != PLAN_MOUNT_HIDE;
	}

	/*
	 * native shows the host's trees through read-only overlays, where a
	 * socket is the overlay's inode, never the host's listener, whenever
	 * it was bound; on bwrap the supervisor makes every unix connect and
	 * send itself, to the sandbox's own sockets only (run/notify.c).  Only
	 * a direct path is the host's own: its sockets seen at start-up are
	 * covered too.  (A cover per host socket everywhere raced with
	 * sockets that vanish before bwrap mounts it: exit 125.)
	 */
	for (i = 0; h->unix_sockets[i]; i++) {
		const char *s = h->unix_sockets[i];

		if (!under_direct(e, s))
			continue;
		if ((!path_has_prefix(s, ws) && hidden(h, s) &&
		    !shown(e, s)) || !in_view(p, h, ws, e, s))
			continue;
		add_mount(p, PLAN_MOUNT_MASK, s, 0, false);
	}
}

/* The landlock backend's copy or link of a home path, in the session. */
static char *
in_session_home(const struct plan *p, const struct host *h, const char *path)
{
	const char *rel = path + strlen(h->home);

	while (*rel == '/')
		rel++;
	return *rel ? path_join(p->home, rel) : xstrdup(p->home);
}

static void
add_prepared(struct plan *p, enum plan_mount_kind kind, const char *src,
    char *upper)
{
	add_mount(p, kind, src, 0, true);
	p->mounts.v[p->mounts.n - 1].src = xstrdup(src);
	p->mounts.v[p->mounts.n - 1].upper = upper;
}

/*
 * The landlock backend: no mount namespace, so nothing is mounted; the
 * host is seen as it is, read-only, except the trees hidden[] names, which
 * Landlock leaves out.  The workspace is a copy in the session, and the
 * home is a directory of the session, where the profile's home paths
 * appear: scratch paths as copies, read-only and direct ones as links to
 * the host's, which Landlock grants.
 */
static int
landlock_backend_plan(struct plan *p, const struct host *h, const char *ws,
    const struct eff *e, char **cause, char **hint)
{
	const struct plist *ro[] = { &e->ro, &e->cred_file };
	autofree char *tmp = path_join(p->session_dir, "tmp");
	char **hidden = xcalloc(1, sizeof(char *));
	size_t nh = 0, i, j;

	strv_push(&hidden, &nh, xstrdup(h->home));
	if (h->pw_home && !streq(h->pw_home, h->home))
		strv_push(&hidden, &nh, xstrdup(h->pw_home));
	strv_push(&hidden, &nh, xstrdup("/tmp"));
	strv_push(&hidden, &nh, xstrdup("/dev"));
	if (h->has_run)
		strv_push(&hidden, &nh, xstrdup("/run"));
	if (h->var_run_is_dir)
		strv_push(&hidden, &nh, xstrdup("/var/run"));
	if (h->runtime_dir)
		strv_push(&hidden, &nh, xstrdup(h->runtime_dir));
	for (i = 0; i < e->hide.n; i++)
		strv_push(&hidden, &nh, xstrdup(e->hide.v[i].value));

	add_prepared(p, PLAN_MOUNT_COPY, ws, path_join(p->session_dir,
	    "upper"));
	for (i = 0; i < p->nworkspaces; i++) {
		const struct plan_workspace *w = &p->workspaces[i];

		if (streq(w->path, ws))
			continue;
		if (!w->read_only) {
			*cause = xasprintf("workspace '%s' (%s): the landlock "
			    "backend shows a workspace as a copy at another "
			    "path, so a session of it has one writable "
			    "workspace", w->path, w->origin);
			*hint = xasprintf("use the native or bwrap backend, or "
			    "make the workspace read-only (--ro-workspace)");
			strv_free(hidden);
			return -1;
		}
	}
	for (i = 0; i < e->scratch.n; i++) {
		const char *s = e->scratch.v[i].value;

		if (!path_has_prefix(s, h->home)) {
			*cause = xasprintf("scratch = %s (%s): the landlock "
			    "backend has no mount namespace, so only paths in "
			    "the home directory can be given a private copy",
			    s, e->scratch.v[i].origin);
			*hint = xasprintf("use the native or bwrap backend, or "
			    "drop the path");
			strv_free(hidden);
			return -1;
		}
		add_prepared(p, PLAN_MOUNT_COPY, s, in_session_home(p, h, s));
	}
	/*
	 * A persistent path: its copy is kept in the profile's state, made
	 * the first time, and the session's home links to it.
	 */
	for (i = 0; i < e->persistent.n; i++) {
		const char *s = e->persistent.v[i].value;
		autofree char *kept = NULL;
		struct plan_mount *m;

		if (!path_has_prefix(s, h->home)) {
			*cause = xasprintf("persistent = %s (%s): the landlock "
			    "backend has no mount namespace, so only paths in "
			    "the home directory can be kept", s,
			    e->persistent.v[i].origin);
			*hint = xasprintf("use the native or bwrap backend, or "
			    "drop the path");
			strv_free(hidden);
			return -1;
		}
		add_prepared(p, PLAN_MOUNT_LINK, s, in_session_home(p, h, s));
		m = &p->mounts.v[p->mounts.n - 1];
		m->state = state_entry(p, s);
		/* Where the link points: the kept copy, the command's. */
		kept = path_join(m->state, "copy");
		add_path(p, kept, PLAN_FS_READ | PLAN_FS_WRITE | PLAN_FS_EXEC);
	}
	for (j = 0; j < nitems(ro); j++)
		for (i = 0; i < ro[j]->n; i++) {
			const char *s = ro[j]->v[i].value;

			if (path_has_prefix(s, h->home))
				add_prepared(p, PLAN_MOUNT_LINK, s,
				    in_session_home(p, h, s));
			add_path_except(p, s, PLAN_FS_READ | PLAN_FS_EXEC, hidden);
		}
	for (i = 0; i < e->direct.n; i++) {
		const char *s = e->direct.v[i].value;

		if (path_has_prefix(s, h->home))
			add_prepared(p, PLAN_MOUNT_LINK, s,
			    in_session_home(p, h, s));
		add_path_except(p, s, PLAN_FS_READ | PLAN_FS_WRITE | PLAN_FS_EXEC,
		    hidden);
	}
	/* A read-only workspace: the host's, at its path, by a rule of its
	 * own (inside the home or /tmp too, which the rest leaves out). */
	for (i = 0; i < p->nworkspaces; i++)
		if (p->workspaces[i].read_only)
			add_path_except(p, p->workspaces[i].path, PLAN_FS_READ |
			    PLAN_FS_EXEC, hidden);

	landlock_rights_plan(p, h);
	if (p->allow_list)
		view_rules(p, h, hidden, true);
	else
		add_path_except(p, "/", PLAN_FS_READ | PLAN_FS_EXEC, hidden);
	dev_paths(p);
	add_path(p, p->mounts.v[0].upper, PLAN_FS_READ | PLAN_FS_WRITE |
	    PLAN_FS_EXEC);
	add_path(p, p->home, PLAN_FS_READ | PLAN_FS_WRITE | PLAN_FS_EXEC);
	add_path(p, tmp, PLAN_FS_READ | PLAN_FS_WRITE | PLAN_FS_EXEC);
	strv_free(hidden);
	return 0;
}

/* What the landlock backend does not give, said on every run. */
static void
landlock_backend_weaker(struct plan *p, const struct host *h)
{
	strv_push(&p->weaker, &p->nweaker, xstrdup("no pid namespace: the "
	    "command sees the host's processes (their command lines too)"));
	strv_push(&p->weaker, &p->nweaker, xstrdup("no mount namespace: "
	    "hidden paths can still be stat()ed and listed in "
	    "/proc/self/mountinfo; the directories above them (/, the home's "
	    "parent) cannot be listed; the host's /tmp is out of reach, "
	    "TMPDIR is the session's"));
	if (h->landlock_abi < 9)
		strv_push(&p->weaker, &p->nweaker, xstrdup("landlock ABI < 9: "
		    "the host's pathname unix sockets are kept out only by "
		    "refusing socket(AF_UNIX) (socketpair still works)"));
	/*
	 * Landlock cannot leave /proc/keys out of /proc and still grant
	 * /proc/self, whose directory is made after the rules are.
	 */
	strv_push(&p->weaker, &p->nweaker, xstrdup("no uts or network "
	    "namespace, the host's /proc and /sys: the host's name, its "
	    "network interfaces (/sys/class/net) and the names of the "
	    "kernel's own keyrings (/proc/keys) show; keyctl is refused, and "
	    "so is a run while any other key of this user would show"));
	strv_push(&p->weaker, &p->nweaker, xstrdup("no IPC namespace: SysV "
	    "shared memory, semaphores and message queues, and POSIX message "
	    "queues, are refused (EPERM) rather than private"));
	strv_push(&p->weaker, &p->nweaker, xstrdup("landlock has no right "
	    "for a file's mode, owner, times or extended attributes: confine "
	    "itself sets modes, times, extended attributes and inode flags "
	    "for the command, on its own files in the session only; chown is "
	    "refused (EPERM), and so are file locks on files outside the "
	    "session"));
	strv_push(&p->weaker, &p->nweaker, xstrdup("no pid namespace: "
	    "confine decides each call naming a process by pid (rlimits, "
	    "priorities, scheduling, pidfd_open): the session's only"));
}

/*
 * auto: native when user namespaces work; else bwrap when it can build a
 * sandbox here (setuid, or allowed by the host's policy); else landlock.
 */
static int
backend_choose(struct plan *p, const struct eff *e, const struct host *h,
    const char *layout, char **cause, char **hint)
{
	const char *want = e->backend.value, *origin = e->backend.origin;
	bool is_auto = streq(want, "auto");
	const char *no_bwrap = !h->bwrap.found ? "not installed" :
	    h->bwrap.why ? h->bwrap.why : NULL;

	if (layout && streq(layout, "overlay")) {
		/* bwrap's overlay is made in a user namespace of the
		 * supervisor's: not with a setuid bwrap. */
		if (streq(want, "bwrap") && (h->userns_why ||
		    h->bwrap.setuid)) {
			*cause = xasprintf("backend bwrap (%s): this session's "
			    "workspace is an overlay, which bwrap can enter "
			    "only where user namespaces work and bwrap is not "
			    "setuid", origin);
			return -1;
		}
		if (!is_auto && !streq(want, "native") &&
		    !streq(want, "bwrap")) {
			*cause = xasprintf("backend %s (%s): this session's "
			    "workspace is an overlay, which only the native "
			    "and bwrap backends can enter", want, origin);
			return -1;
		}
		if (is_auto)
			want = "native";
	} else if (layout && streq(layout, "copy") &&
	    streq(want, "native")) {
		*cause = xasprintf("backend native (%s): this session's "
		    "workspace is a copy, made by the bwrap or landlock "
		    "backend", origin);
		*hint = xasprintf("enter it with --backend bwrap or landlock");
		return -1;
	} else if (layout && streq(layout, "copy") && is_auto) {
		want = !no_bwrap ? "bwrap" : "landlock";
		origin = "auto: the session's workspace is a copy";
		is_auto = false;
	}
	if (streq(want, "native") || (is_auto && h->userns_why == NULL)) {
		if (h->userns_why) {
			*cause = xasprintf("backend native (%s): user namespaces "
			    "cannot be used here: %s", origin, h->userns_why);
			*hint = xasprintf("'confine doctor' says which backends "
			    "work here; --backend auto picks one");
			return -1;
		}
		p->backend = PLAN_BACKEND_NATIVE;
		p->backend_reason = is_auto ? xstrdup("native (auto: user "
		    "namespaces work)") : xasprintf("native (asked for: %s)",
		    origin);
		return 0;
	}
	if (streq(want, "bwrap") || (is_auto && !no_bwrap)) {
		if (!h->bwrap.found) {
			*cause = xasprintf("backend bwrap (%s): %s is not "
			    "installed", origin, BWRAP_PATH);
			*hint = xasprintf("install bubblewrap; its path is fixed "
			    "when confine is built (--with-bwrap)");
			return -1;
		}
		if (h->bwrap.why) {
			*cause = xasprintf("backend bwrap (%s): %s", origin,
			    h->bwrap.why);
			return -1;
		}
		p->backend = PLAN_BACKEND_BWRAP;
		p->bwrap = xstrdup(BWRAP_PATH);
		p->bwrap_setuid = h->bwrap.setuid;
		/* A setuid bwrap makes its own namespaces as root. */
		p->bwrap_unshare_user = h->userns_why == NULL &&
		    !h->bwrap.setuid;
		p->bwrap_disable_userns = h->bwrap.disable_userns &&
		    p->bwrap_unshare_user;
		p->backend_reason = is_auto ? xasprintf("bwrap (auto: no user "
		    "namespaces for confine: %s; %s%s can build the "
		    "sandbox)", h->userns_why, BWRAP_PATH, h->bwrap.setuid ?
		    ", setuid," : "") : xasprintf("bwrap (asked for: %s)",
		    origin);
		return 0;
	}
	/*
	 * ABI 6: the signal scope is what confines the keeper's kill(-1) to
	 * the session; without it nothing ends what the command leaves.
	 */
	if (h->landlock_abi < 6) {
		*cause = xasprintf("backend landlock (%s): it needs landlock ABI "
		    "6 or later (signal scoping: what keeps the command off "
		    "the host's processes and ends every process of the "
		    "session), this kernel has %d",
		    is_auto ? "auto: the last resort" : origin, h->landlock_abi);
		*hint = xasprintf("allow user namespaces, or install a setuid "
		    "bwrap; 'confine doctor' explains");
		if (is_auto) {
			free(*cause);
			*cause = xasprintf("no backend can confine here: user "
			    "namespaces: %s; bwrap: %s; landlock: ABI %d, 6 "
			    "needed", h->userns_why, no_bwrap, h->landlock_abi);
		}
		return -1;
	}
	/* Landlock cannot leave /proc/keys out of a readable /proc. */
	if (h->keys_shown > 0) {
		*cause = xasprintf("backend landlock (%s) would show the command "
		    "the names of %d of your kernel keys in /proc/keys, which "
		    "it cannot hide without a mount namespace",
		    is_auto ? "auto: no user namespaces, no usable bwrap" :
		    origin, h->keys_shown);
		*hint = xasprintf("use the native or bwrap backend, or run "
		    "from a session without those keys (keyctl show)");
		return -1;
	}
	if (p->net == PLAN_NET_PROXY || e->inject.value) {
		*cause = xasprintf("backend landlock (%s) cannot offer %s: "
		    "without a network namespace of its own, a connection to "
		    "its port on the loopback could go to any host",
		    is_auto ? "auto: no user namespaces, no usable bwrap" :
		    origin, p->net == PLAN_NET_PROXY ? "network mode proxy" :
		    "an injected credential (credential.inject)");
		*hint = xasprintf("%s allow user namespaces or install a setuid "
		    "bwrap (%s)", p->net == PLAN_NET_PROXY ? "use --network none, "
		    "or" : "inject with another backend:", BWRAP_PATH);
		return -1;
	}
	p->backend = PLAN_BACKEND_LANDLOCK;
	p->backend_reason = is_auto ? xasprintf("landlock (auto: no user "
	    "namespaces: %s; bwrap: %s)", h->userns_why, no_bwrap) :
	    xasprintf("landlock (asked for: %s)", origin);
	landlock_backend_weaker(p, h);
	return 0;
}

/*
 * The command, with the words a [command] argument of its name adds after
 * its name, in the profile's order (an agent's own configuration given on
 * its command line: confine-profile(5)).
 */
static char **
command_argv(char *const *argv, const struct eff *e)
{
	const char *base = argv[0] ? strrchr(argv[0], '/') : NULL;
	char **v = NULL;
	size_t n = 0, i;

	v = xcalloc(1, sizeof(*v));
	if (argv[0] == NULL)
		return v;
	base = base ? base + 1 : argv[0];
	strv_push(&v, &n, xstrdup(argv[0]));
	for (i = 0; i < e->cmd_argument.n; i++) {
		const char *s = e->cmd_argument.v[i].value, *w;
		size_t len = strcspn(s, " \t");

		if (strlen(base) != len || strncmp(s, base, len) != 0)
			continue;
		for (w = s + len; *w; ) {
			size_t k;

			w += strspn(w, " \t");
			if ((k = strcspn(w, " \t")) == 0)
				break;
			strv_push(&v, &n, xstrndup(w, k));
			w += k;
		}
	}
	for (i = 1; argv[i]; i++)
		strv_push(&v, &n, xstrdup(argv[i]));
	return v;
}

/*
 * What each provider's agents read their base URL and key from (as the
 * agents document): the keyholder's address and a placeholder, which the
 * keyholder replaces with the user's credential.
 */
static const struct {
	const char	*provider, *url, *key;
} inject_vars[] = {
	{ "anthropic", "ANTHROPIC_BASE_URL=http://127.0.0.1:3129",
	    "ANTHROPIC_AUTH_TOKEN" },
	{ "openai", "OPENAI_BASE_URL=http://127.0.0.1:3129/v1",
	    "OPENAI_API_KEY" },
	{ "gemini", "GOOGLE_GEMINI_BASE_URL=http://127.0.0.1:3129",
	    "GEMINI_API_KEY" },
};

static void
inject_env_vars(const struct plan *p, char *ret[3])
{
	size_t i;

	for (i = 0; p->inject.provider && i < nitems(inject_vars); i++)
		if (streq(inject_vars[i].provider, p->inject.provider)) {
			ret[0] = xstrdup(inject_vars[i].url);
			ret[1] = xasprintf("%s=%s", inject_vars[i].key,
			    PLAN_INJECT_PLACEHOLDER);
		}
}

/* The host's environment without the variables a source reads. */
static char **
inject_env_filter(const struct plan *p, char *const *host_env)
{
	char **v = NULL;
	size_t n = 0, i, j;

	v = xcalloc(1, sizeof(*v));
	for (i = 0; host_env && host_env[i]; i++) {
		bool drop = false;

		for (j = 0; p->inject.variables && p->inject.variables[j]; j++) {
			size_t len = strlen(p->inject.variables[j]);

			if (strncmp(host_env[i], p->inject.variables[j],
			    len) == 0 && host_env[i][len] == '=')
				drop = true;
		}
		if (!drop)
			strv_push(&v, &n, xstrdup(host_env[i]));
	}
	return v;
}

/*
 * Does the proxy's rule (HOST[:PORT]: any port when not given) name the
 * injected HOST[:PORT] (443 when not given)?  A pattern is left to the
 * proxy, which refuses the injected endpoint whatever its rules say.
 */
static bool
rule_names(const char *rule, const char *inj)
{
	autofree char *x = NULL, *y = NULL;
	const char *cr = strrchr(rule, ':'), *ci = strrchr(inj, ':');
	bool rport = cr && !strchr(cr, ']'), iport = ci && !strchr(ci, ']');

	y = iport ? xstrdup(inj) : xasprintf("%s:443", inj);
	if (rport)
		return strcasecmp(rule, y) == 0;
	x = xasprintf("%s:", rule);
	return strncasecmp(x, y, strlen(x)) == 0;
}

/*
 * [credential] inject: the keyholder's options, and what must not be
 * beside it: no way to the same endpoint but through the keyholder, no
 * source passed in raw, a network namespace of its own.
 */
static int
inject_plan(struct plan *p, const struct eff *e, char **cause, char **hint)
{
	const struct plist *ways[] = { &e->endpoint, &e->allow };
	const char *const wayname[] = { "network.endpoint", "network.allow" };
	autofree char *prov = NULL, *up = NULL, *why = NULL;
	bool login = false;
	size_t i, j, n = 0, ns = 0, nv = 0;

	if (e->inject.value == NULL) {
		/* Read only for an injected credential: say so. */
		if (e->cred_source.n == 0)
			return 0;
		*cause = xasprintf("%s: credential.source = %s, but the "
		    "credential is not injected", e->cred_source.v[0].origin,
		    e->cred_source.v[0].value);
		*hint = xasprintf("set credential.inject = PROVIDER HOST[:PORT] "
		    "(confine-profile(5)), or drop the sources");
		return -1;
	}
	if (syntax_inject(e->inject.value, &prov, &up, &why) < 0) {
		*cause = xasprintf("%s: credential.inject: %s",
		    e->inject.origin, why);
		return -1;
	}
	if (streq(e->net_mode.value, "host")) {
		*cause = xasprintf("credential.inject = %s (%s) needs a network "
		    "of the sandbox's own, not network mode host (%s)",
		    e->inject.value, e->inject.origin, e->net_mode.origin);
		*hint = xasprintf("use network mode none or proxy");
		return -1;
	}
	if (e->cred_source.n == 0) {
		*cause = xasprintf("credential.inject = %s (%s) has no "
		    "credential.source to read the credential from",
		    e->inject.value, e->inject.origin);
		*hint = xasprintf("add source = KIND variable NAME (or file, or "
		    "command): confine-profile(5)");
		return -1;
	}
	for (j = 0; j < nitems(ways); j++)
		for (i = 0; i < ways[j]->n; i++) {
			if (!rule_names(ways[j]->v[i].value, up))
				continue;
			*cause = xasprintf("%s = %s (%s) is the injected "
			    "endpoint (credential.inject, %s): it is reached "
			    "through confine's keyholder only, with your "
			    "credential", wayname[j], ways[j]->v[i].value,
			    ways[j]->v[i].origin, e->inject.origin);
			*hint = xasprintf("drop it (an empty value clears a list "
			    "the profile extends)");
			return -1;
		}
	p->inject.args = xcalloc(16 + 7 * e->cred_source.n, sizeof(char *));
	p->inject.sources = xcalloc(e->cred_source.n + 1, sizeof(char *));
	p->inject.args[n++] = xstrdup("--provider");
	p->inject.args[n++] = xstrdup(prov);
	p->inject.args[n++] = xstrdup("--upstream");
	p->inject.args[n++] = xstrdup(up);
	if (e->cred_ca.value) {
		p->inject.args[n++] = xstrdup("--ca");
		p->inject.args[n++] = xstrdup(e->cred_ca.value);
	}
	if (streq(e->web_search.value, "yes"))
		p->inject.args[n++] = xstrdup("--web-search");
	for (i = 0; i < e->cred_source.n; i++) {
		const struct pvalue *v = &e->cred_source.v[i];
		struct syntax_source src;
		static const char *const opt[] = { "--variable", "--file",
		    "--command" };

		free(why);
		why = NULL;
		if (syntax_source(v->value, &src, &why) < 0) {
			*cause = xasprintf("%s: credential.source: %s",
			    v->origin, why);
			return -1;
		}
		for (j = 0; j < e->cred_var.n; j++)
			if (src.type == SOURCE_VARIABLE &&
			    streq(e->cred_var.v[j].value, src.spec)) {
				*cause = xasprintf("%s: credential.variable = "
				    "%s passes into the sandbox what %s "
				    "injects", e->cred_var.v[j].origin,
				    src.spec, v->origin);
				*hint = xasprintf("drop the variable: an "
				    "injected credential stays outside");
				syntax_source_free(&src);
				return -1;
			}
		if (streq(src.kind, "login")) {
			if (!streq(prov, "anthropic")) {
				*cause = xasprintf("%s: credential.source = "
				    "%s: confine refreshes a login for "
				    "anthropic only", v->origin, v->value);
				*hint = xasprintf("inject an API key (kind "
				    "api-key or bearer)");
				syntax_source_free(&src);
				return -1;
			}
			login = true;
		}
		p->inject.args[n++] = xstrdup("--kind");
		p->inject.args[n++] = xstrdup(src.kind);
		p->inject.args[n++] = xstrdup(opt[src.type]);
		p->inject.args[n++] = xstrdup(src.spec);
		if (src.field) {
			p->inject.args[n++] = xstrdup("--field");
			p->inject.args[n++] = xstrdup(src.field);
		}
		p->inject.sources[ns++] = xstrdup(v->value);
		if (src.type == SOURCE_VARIABLE)
			strv_push(&p->inject.variables, &nv,
			    xstrdup(src.spec));
		syntax_source_free(&src);
	}
	if (login) {
		p->inject.args[n++] = xstrdup("--refresh");
		p->inject.args[n++] = xstrdup(e->refresh.value ?
		    e->refresh.value : PLAN_ANTHROPIC_REFRESH);
		p->inject.refresh = xstrdup(e->refresh.value ?
		    e->refresh.value : PLAN_ANTHROPIC_REFRESH);
	}
	p->inject.provider = steal_ptr(&prov);
	p->inject.upstream = steal_ptr(&up);
	p->keyholder_port = PLAN_KEYHOLDER_PORT;
	return 0;
}

static void
env_plan(struct plan *p, const struct host *h, char *const *host_env,
    const struct eff *e)
{
	autofree char *home = xasprintf("HOME=%s", p->home);
	autofree char *user = xasprintf("USER=%s", h->user);
	autofree char *logname = xasprintf("LOGNAME=%s", h->user);
	autofree char *session = xasprintf("CONFINE_SESSION=%s",
	    p->session_id);
	autofree char *tmpdir = p->backend == PLAN_BACKEND_LANDLOCK ?
	    xasprintf("TMPDIR=%s/tmp", p->session_dir) :
	    xstrdup("TMPDIR=/tmp");
	char path[] = "PATH=/usr/local/bin:/usr/bin:/bin";
	const char **allow = NULL, **opts = NULL;
	char *set[] = { home, user, logname, tmpdir, session, NULL, NULL };
	size_t na = 0, no = 0, nowned = 0, i;

	autostrv char **kept = inject_env_filter(p, host_env);
	char *inj[3] = { NULL, NULL, NULL };

	host_env = kept;
	if (env_get(host_env, "PATH") == NULL)
		set[5] = path;
	if (p->net == PLAN_NET_PROXY) {
		static const char *const names[] = { "HTTPS_PROXY",
		    "https_proxy", "HTTP_PROXY", "http_proxy", "ALL_PROXY",
		    "all_proxy" };

		for (i = 0; i < nitems(names); i++) {
			opts = xreallocarray(opts, no + 1, sizeof(*opts));
			opts[no++] = xasprintf("%s=http://127.0.0.1:%d",
			    names[i], PLAN_PROXY_PORT);
		}
		opts = xreallocarray(opts, no + 2, sizeof(*opts));
		opts[no++] = xstrdup("NO_PROXY=localhost,127.0.0.1,::1");
		opts[no++] = xstrdup("no_proxy=localhost,127.0.0.1,::1");
		nowned = no;
	}
	for (i = 0; legs_env_allow[i]; i++) {
		allow = xreallocarray(allow, na + 2, sizeof(*allow));
		allow[na++] = legs_env_allow[i];
	}
	/* Passed names join the allow-list: prefixes (NAME*) work there. */
	for (i = 0; i < e->pass.n; i++) {
		allow = xreallocarray(allow, na + 2, sizeof(*allow));
		allow[na++] = e->pass.v[i].value;
	}
	for (i = 0; i < e->cred_var.n; i++) {
		allow = xreallocarray(allow, na + 2, sizeof(*allow));
		allow[na++] = e->cred_var.v[i].value;
	}
	allow[na] = NULL;
	for (i = 0; i < e->set.n; i++) {
		opts = xreallocarray(opts, no + 1, sizeof(*opts));
		opts[no++] = e->set.v[i].value;
	}
	/* Last: the base URL and the placeholder replace any other value. */
	inject_env_vars(p, inj);
	for (i = 0; inj[i]; i++) {
		opts = xreallocarray(opts, no + 1, sizeof(*opts));
		opts[no++] = inj[i];
	}
	p->envp = env_build(host_env, allow, set, opts, no);
	for (i = 0; inj[i]; i++)
		free(inj[i]);
	free(allow);
	for (i = 0; i < nowned; i++)
		free((char *)opts[i]);
	free(opts);
}

/* What every plan needs of the kernel, and where destinations go. */
static int
check_kernel_and_net(const struct eff *e, const struct host *h,
    char **cause, char **hint)
{
	if (h->landlock_abi < 1) {
		*cause = xasprintf("landlock: not available on this kernel "
		    "(%s)", h->landlock_errno == 95 ?
		    "built in but disabled at boot" : "not built in");
		*hint = xasprintf("confine needs landlock as its second "
		    "filesystem layer; boot with landlock in lsm=, or use a "
		    "kernel of 5.13 or later");
		return -1;
	}
	if ((e->allow.n || e->endpoint.n) &&
	    !streq(e->net_mode.value, "proxy")) {
		*cause = xasprintf("network.%s = %s (%s) needs network mode "
		    "proxy, not %s (%s)", e->allow.n ? "allow" : "endpoint",
		    e->allow.n ? e->allow.v[0].value : e->endpoint.v[0].value,
		    e->allow.n ? e->allow.v[0].origin : e->endpoint.v[0].origin,
		    e->net_mode.value, e->net_mode.origin);
		*hint = xasprintf("destinations go through the proxy: use "
		    "network mode proxy, or drop them");
		return -1;
	}
	return 0;
}

/* The seccomp filter's facts: what this backend refuses or hands over. */
static void
plan_syscalls(struct plan *p, const struct host *h)
{
	static const int families[] = { AF_UNIX, AF_INET, AF_INET6,
	    AF_NETLINK };

	if (p->backend == PLAN_BACKEND_LANDLOCK && p->net == PLAN_NET_NONE) {
		/* No network namespace: no socket family but AF_UNIX. */
		p->sys.nfamilies = 1;
		p->sys.families = xcalloc(1, sizeof(int));
		p->sys.families[0] = AF_UNIX;
	} else {
		p->sys.nfamilies = nitems(families);
		p->sys.families = xcalloc(nitems(families), sizeof(int));
		memcpy(p->sys.families, families, sizeof(families));
	}
	p->sys.unix_pairs_only = p->backend == PLAN_BACKEND_LANDLOCK &&
	    h->landlock_abi < 9;
	p->sys.no_kill_all = p->backend == PLAN_BACKEND_LANDLOCK;
	/* No pid namespace; Landlock covers signals and ptrace, not these. */
	p->sys.self_only = p->backend == PLAN_BACKEND_LANDLOCK;
	/* No IPC namespace: the host's SysV objects would be shared. */
	p->sys.no_host_ipc = p->backend == PLAN_BACKEND_LANDLOCK;
	/* Landlock has no right for a file's mode, owner, times or xattrs. */
	p->sys.no_path_metadata = p->backend == PLAN_BACKEND_LANDLOCK;
	/* bwrap shows host trees by bind mounts, through which a host
	 * socket bound later is reachable, and a read-only file lockable. */
	p->sys.unix_notify = p->backend == PLAN_BACKEND_BWRAP;
}

/* The command's terminal: a pty of its own when it has the user's. */
static void
plan_terminal(struct plan *p, const struct cli_opts *o,
    const struct profile *pr, const struct host *h)
{
	/* Any terminal among 0, 1, 2: the command gets a pty instead. */
	p->tty.pty = h->is_tty[0] || h->is_tty[1] || h->is_tty[2];
	/* The profile's value is checked already: yes, no, true, false. */
	p->tty.clipboard = o->clipboard || (pr->clipboard.value &&
	    (streq(pr->clipboard.value, "yes") ||
	    streq(pr->clipboard.value, "true")));
	memcpy(p->tty.is_tty, h->is_tty, sizeof(p->tty.is_tty));
	p->tty.termios = h->termios;
	p->tty.winsize = h->winsize;
}

char *
policy_state_dir(const char *state_home, const struct profile *pr)
{
	autofree char *name = NULL, *dir = NULL;
	char hex[65];

	if (pr->name == NULL)
		return NULL;
	if (profile_name_ok(pr->name))
		name = xstrdup(pr->name);
	else {
		sha256_hex(pr->name, strlen(pr->name), hex);
		hex[16] = '\0';
		name = xasprintf("file-%s", hex);
	}
	dir = path_join(state_home, "confine/state");
	return path_join(dir, name);
}

/* A host path as the user wrote it: "~/x" for one in the home. */
static char *
home_tilde(const struct host *h, const char *path)
{
	if (!path_has_prefix(path, h->home))
		return xstrdup(path);
	return xasprintf("~%s", path + strlen(h->home));
}

/*
 * Persistent paths: kept in the profile's state, one session at a time.
 * The state held by another session (h->state_busy, found by the caller
 * holding the state's lock): they are plain scratch in this one.
 */
static void
state_plan(struct plan *p, struct eff *e, const struct host *h,
    const struct profile *pr)
{
	autofree char *dir = NULL, *paths = NULL, *more = NULL;
	size_t i;

	if (e->persistent.n == 0 ||
	    (dir = policy_state_dir(h->state_home, pr)) == NULL)
		return;
	if (h->state_busy == NULL) {
		p->state_dir = steal_ptr(&dir);
		return;
	}
	for (i = 0; i < e->persistent.n; i++) {
		autofree char *t = home_tilde(h, e->persistent.v[i].value);

		more = xasprintf("%s%s%s", paths ? paths : "", paths ? ", " :
		    "", t);
		free(paths);
		paths = steal_ptr(&more);
		plist_add(&e->scratch, e->persistent.v[i].value,
		    e->persistent.v[i].origin);
	}
	plist_clear(&e->persistent);
	p->state_busy = xasprintf("state of %s in use by session %s: this "
	    "session's changes to %s are discarded", strrchr(dir, '/') + 1,
	    h->state_busy, paths);
}

/*
 * The session's workspaces (confine(1), WORKSPACES): the first as named
 * (-w, the profile's [workspace] path, the default), then the further
 * ones; *ws is the first writable one, whose layers are the session's
 * own.  Refused: none writable, one named twice, two that nest, one
 * inside a hidden path or the home as a whole.
 */
static int
workspaces_list(struct plan *p, const struct cli_opts *o,
    const struct host *h, const struct profile *pr, const struct eff *e,
    const char *first, const char *first_origin, const char **ws,
    char **cause, char **hint)
{
	size_t i, j, k;

	p->nworkspaces = 1 + h->nmore_ws;
	p->workspaces = xcalloc(p->nworkspaces, sizeof(*p->workspaces));
	p->workspaces[0].path = xstrdup(first);
	p->workspaces[0].origin = xstrdup(first_origin ? first_origin :
	    "option --workspace");
	p->workspaces[0].read_only = !o->workspace && pr->ws_mode.value &&
	    streq(pr->ws_mode.value, "read-only");
	if (p->workspaces[0].read_only)
		p->workspaces[0].mode_origin = xstrdup(pr->ws_mode.origin);
	p->workspaces[0].private = streq(e->ws_private.value, "yes") ||
	    streq(e->ws_private.value, "true");
	for (i = 0; i < h->nmore_ws; i++) {
		struct plan_workspace *w = &p->workspaces[i + 1];

		w->path = xstrdup(h->more_ws[i].path);
		w->origin = xstrdup(h->more_ws[i].origin);
		w->read_only = h->more_ws[i].read_only;
		if (w->read_only)
			w->mode_origin = xstrdup(w->origin);
		w->private = h->more_ws[i].private &&
		    streq(h->more_ws[i].private, "yes");
	}
	*ws = NULL;
	for (i = 0; i < p->nworkspaces && *ws == NULL; i++)
		if (!p->workspaces[i].read_only)
			*ws = p->workspaces[i].path;
	if (*ws == NULL) {
		*cause = xasprintf("no writable workspace: %s is read-only "
		    "(%s)%s", first, pr->ws_mode.origin, p->nworkspaces > 1 ?
		    ", and so are the others" : "");
		*hint = xasprintf("name one the agent may change with "
		    "--workspace DIR, or a [workspace NAME] section of mode "
		    "read-write");
		return -1;
	}
	for (i = 0; i < p->nworkspaces; i++) {
		const struct plan_workspace *w = &p->workspaces[i];

		if (check_workspace(h, w->path, cause, hint) < 0 ||
		    check_rules(e, w->path, cause, hint) < 0)
			return -1;
		for (k = 0; k < e->hide.n; k++)
			if (path_has_prefix(w->path, e->hide.v[k].value)) {
				*cause = xasprintf("workspace '%s' (%s) is "
				    "inside %s, which is hidden (%s)", w->path,
				    w->origin, e->hide.v[k].value,
				    e->hide.v[k].origin);
				*hint = xasprintf("drop the hide rule or the "
				    "workspace");
				return -1;
			}
		for (j = i + 1; j < p->nworkspaces; j++) {
			const struct plan_workspace *x = &p->workspaces[j];

			if (!path_has_prefix(w->path, x->path) &&
			    !path_has_prefix(x->path, w->path))
				continue;
			if (streq(w->path, x->path))
				*cause = xasprintf("workspace '%s' is named "
				    "twice (%s, %s)", w->path, w->origin,
				    x->origin);
			else
				*cause = xasprintf("workspaces '%s' (%s) and "
				    "'%s' (%s) overlap: one is inside the "
				    "other", w->path, w->origin, x->path,
				    x->origin);
			*hint = xasprintf("name each tree once, none inside "
			    "another");
			return -1;
		}
	}
	return 0;
}

/* Where each workspace's files are kept in the session. */
static void
workspaces_dirs(struct plan *p)
{
	size_t i, n = 0;

	for (i = 0; i < p->nworkspaces; i++) {
		struct plan_workspace *w = &p->workspaces[i];

		if (w->read_only)
			continue;
		w->dir = n++ == 0 ? xstrdup(p->session_dir) :
		    xasprintf("%s/ws/%zu", p->session_dir, n - 1);
	}
}

int
policy_compute(const struct cli_opts *o, const struct host *h,
    char *const *host_env, const struct profile *pr,
    const char *profile_reason, struct plan *ret, char **cause, char **hint)
{
	struct plan p = { 0 };
	AUTO(legs_eff_free) struct eff e = { 0 };
	const char *ws, *ws_origin;
	autofree char *sessions = NULL;
	struct tm tm;
	char stamp[32];
	size_t i;

	*cause = *hint = NULL;
	legs_effective(&e, pr, o, h);
	if (h->workspace) {
		ws = h->workspace;
		ws_origin = o->workspace ? "option --workspace" :
		    pr->ws_path.origin;
	} else if (h->git_top) {
		ws = h->git_top;
		ws_origin = "built-in default: the git top level of the "
		    "current directory";
	} else {
		ws = h->cwd;
		ws_origin = "built-in default: the current directory";
	}
	if (workspaces_list(&p, o, h, pr, &e, ws, ws_origin, &ws, cause,
	    hint) < 0) {
		plan_free(&p);
		return -1;
	}
	if (check_kernel_and_net(&e, h, cause, hint) < 0) {
		plan_free(&p);
		return -1;
	}

	p.profile = xstrdup(pr->name ? pr->name : "sealed (built-in)");
	p.profile_reason = xstrdup(profile_reason);
	p.quadrant = xstrdup(e.quadrant.value);
	legs_compute(&p, &e, h);
	if (legs_check(&p, &e, cause, hint) < 0 ||
	    check_direct(&e, h, cause, hint) < 0) {
		plan_free(&p);
		return -1;
	}
	legs_explain(&p, &e, p.workspaces[0].path, ws_origin);
	for (i = 0; syntax_net_modes[i]; i++)
		if (streq(syntax_net_modes[i], e.net_mode.value))
			p.net = (enum plan_net)i;
	if (inject_plan(&p, &e, cause, hint) < 0) {
		plan_free(&p);
		return -1;
	}
	if (backend_choose(&p, &e, h, o->session_layout, cause, hint) < 0) {
		plan_free(&p);
		return -1;
	}
	/* Leg C: a way out; nothing of the host's own data may be seen. */
	p.allow_list = (p.quadrant_legs & PLAN_LEG_C) != 0;
	if (p.allow_list && h->etc_why) {
		*cause = xasprintf("quadrant %s shows the host from an "
		    "allow-list, without the entries of /etc the world cannot "
		    "read, but /etc could not be scanned: %s", p.quadrant,
		    h->etc_why);
		*hint = xasprintf("use a quadrant without leg C (sealed, "
		    "offline)");
		plan_free(&p);
		return -1;
	}
	if (p.allow_list && h->uid == 0)
		p.run_refused = xasprintf("the caller is root and quadrant %s "
		    "allows leg C: the command would run as the host's root, "
		    "the owner of root-only files, and confine does not map it "
		    "to an unprivileged user", p.quadrant);
	p.uid = h->uid;
	p.gid = h->gid;
	p.clone_flags = p.backend != PLAN_BACKEND_NATIVE ? 0 :
	    CLONE_NEWUSER | CLONE_NEWNS | CLONE_NEWPID | CLONE_NEWNET |
	    CLONE_NEWIPC | CLONE_NEWUTS | CLONE_NEWCGROUP;
	if (p.net == PLAN_NET_HOST) {
		/*
		 * The host's network: no network namespace, so only the
		 * Landlock scope keeps the host's abstract sockets away.
		 */
		if (h->landlock_abi < 6) {
			*cause = xasprintf("network mode host (%s) needs Landlock "
			    "ABI 6 (this kernel has %d) to keep the host's "
			    "abstract unix sockets unreachable",
			    e.net_mode.origin, h->landlock_abi);
			*hint = xasprintf("use network mode proxy with --allow");
			plan_free(&p);
			return -1;
		}
		p.clone_flags &= ~CLONE_NEWNET;
	}
	p.allow = xcalloc(e.allow.n + 1, sizeof(char *));
	for (i = 0; i < e.allow.n; i++)
		p.allow[i] = xstrdup(e.allow.v[i].value);
	p.endpoint = xcalloc(e.endpoint.n + 1, sizeof(char *));
	for (i = 0; i < e.endpoint.n; i++)
		p.endpoint[i] = xstrdup(e.endpoint.v[i].value);
	p.workspace = xstrdup(ws);
	p.argv = command_argv(o->argv ? o->argv : (char *[]){ NULL }, &e);

	p.started.tv_sec = h->now;
	p.started.tv_nsec = h->now_ns;
	gmtime_r(&h->now, &tm);
	strftime(stamp, sizeof(stamp), "%Y%m%d-%H%M%S", &tm);
	if (o->session_id) {
		p.session_id = xstrdup(o->session_id);
		p.reenter = true;
	} else
		/* Start order to the millisecond (store/session-store.h). */
		p.session_id = xasprintf("%s.%03ld-%08x", stamp,
		    h->now_ns / 1000000, h->random);
	p.profile_arg = xstrdup(o->profile ? o->profile : "");
	sessions = path_join(h->state_home, "confine/sessions");
	p.session_dir = path_join(sessions, p.session_id);
	workspaces_dirs(&p);
	if (o->enter_from)
		p.patch_from = xstrdup(o->enter_from);
	state_plan(&p, &e, h, pr);

	if (p.backend == PLAN_BACKEND_LANDLOCK) {
		const char *rel = path_has_prefix(h->cwd, ws) ?
		    h->cwd + strlen(ws) : "";

		p.home = path_join(p.session_dir, "home");
		if (landlock_backend_plan(&p, h, ws, &e, cause, hint) < 0) {
			plan_free(&p);
			return -1;
		}
		/* The command works in the copy: the host's path is not it. */
		p.cwd = xasprintf("%s%s", p.mounts.v[0].upper, rel);
	} else {
		p.home = xstrdup(h->home);
		/*
		 * bwrap: the workspace an overlay, as on native, where the
		 * supervisor can make one (a user namespace of its own: not
		 * with a setuid bwrap, which runs where none can be made),
		 * unless an entered session's workspace is a copy.  A copy:
		 * each writable workspace its own (the further ones in ws/N),
		 * bound at its host path.
		 */
		bool ws_overlay = p.backend == PLAN_BACKEND_BWRAP &&
		    p.bwrap_unshare_user && !(o->session_layout &&
		    streq(o->session_layout, "copy"));

		mounts_plan(&p, h, ws, &e, p.backend == PLAN_BACKEND_BWRAP,
		    ws_overlay);
		landlock_plan(&p, h, &e);
		p.cwd = xstrdup(in_workspaces(&p, h->cwd) ? h->cwd : ws);
	}

	if (p.allow_list)
		view_list(&p, h);
	mark_absent(&p, h, &e);
	copy_excepts(&p, &e);
	plan_syscalls(&p, h);
	if (policy_limits(&p, o, pr, h, cause, hint) < 0) {
		plan_free(&p);
		return -1;
	}

	plan_terminal(&p, o, pr, h);

	env_plan(&p, h, host_env, &e);
	policy_git_identity(&p, h);
	policy_sequence(&p);
#ifdef WITH_SYSTEMD
	limits_engine_plan(&p, &h->cgroup, true);
#else
	limits_engine_plan(&p, &h->cgroup, false);
#endif
	*ret = p;
	return 0;
}
