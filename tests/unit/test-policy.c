// SPDX-License-Identifier: ISC
/*
 * test-policy.c - policy_compute as tables of {host facts, profile,
 * options, expected plan}: the workspace and its refusals, Landlock rights
 * and degradations per ABI, the mount layout, the environment, the
 * session; the rule of two over every combination of quadrant, untrusted,
 * a way to grant B and a way to grant C, from the profile and from the
 * options; destinations and the proxy, options over the profile, "~",
 * what this build cannot run; and a golden plan_dump for one fixed host.
 *
 * The golden file is $TESTS_SRCDIR/data/plan-dump.golden; run with
 * CONFINE_REGEN_GOLDEN=1 to rewrite it from the current policy.
 */
#include "config.h"

#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>
#include <time.h>

#include "input/host-probe.h"
#include "input/profile.h"
#include "input/values.h"
#include "lib/env.h"
#include "lib/util.h"
#include "policy/bwrap-argv.h"
#include "policy/compute.h"
#include "policy/plan-wire.h"
#include "run/backend.h"

#include "tap.h"

#define S(s)		((char *)(s))
#define V(...)		((const char *const[]){ __VA_ARGS__, NULL })

#define HOME		"/home/alice"
#define PROJ		HOME "/src/proj"
#define STATE		HOME "/.local/state"
#define SESSION_ID	"20231114-221320.000-0badf00d"
#define SESSION		STATE "/confine/sessions/" SESSION_ID
#define OVERLAY(ws)	"overlay " ws " lower=" ws " upper=" SESSION \
    "/upper work=" SESSION "/work"
#define MOUNTS_HEAD	"root /", "proc /proc", "hide /proc/keys", \
    "hide /proc/key-users", "sysfs /sys", "dev /dev", \
    "tmpfs /tmp 1777 exec"

static const char *const no_sockets[] = { NULL };

static bool	explains(const struct plan *, const char *);
static const char *const default_argv[] = { "make", "check", NULL };

/* A laptop: a project in the home directory, Landlock ABI 6. */
static struct host
base_host(void)
{
	struct host h = {
		.uid = 1000, .gid = 1000, .user = S("alice"), .home = S(HOME),
		.cwd = S(PROJ "/lib"), .git_top = S(PROJ),
		.state_home = S(STATE), .runtime_dir = S("/run/user/1000"),
		.has_run = true, .var_run_is_dir = false,
		.unix_sockets = (char **)no_sockets, .landlock_abi = 6,
		.now = 1700000000, .random = 0x0badf00d,
		.mem_total = 16ULL << 30, .ncpus = 8,
		.store_free = 80ULL << 30, .store_size = 200ULL << 30,
	};

	return h;
}

static struct cli_opts
base_opts(void)
{
	struct cli_opts o = { .cmd = CLI_RUN, .argv = (char **)default_argv };

	return o;
}

/* The built-in sealed policy: a profile that sets nothing. */
static const struct profile builtin = { .name = (char *)"sealed (built-in)" };

/* A profile of the offline quadrant that sets nothing else. */
static const struct profile offline = {
	.name = (char *)"offline", .path = (char *)"t.ini",
	.quadrant = { (char *)"offline", (char *)"t.ini:2" },
};

/* Compute, and report the cause when the policy refuses. */
static bool
compute_pr(const struct host *h, const struct cli_opts *o, char *const *env,
    const struct profile *pr, struct plan *p, const char *name)
{
	autofree char *cause = NULL, *hint = NULL;
	int r = policy_compute(o, h, env, pr, "test", p, &cause, &hint);

	if (!ok(r == 0, "%s: the policy accepts", name))
		diag("cause: %s; hint: %s", cause ? cause : "(NULL)",
		    hint ? hint : "(NULL)");
	return r == 0;
}

static bool
compute(const struct host *h, const struct cli_opts *o, char *const *env,
    struct plan *p, const char *name)
{
	return compute_pr(h, o, env, &builtin, p, name);
}

static char *
dump(const struct plan *p)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	if (f == NULL)
		abort();
	plan_dump(p, f);
	fclose(f);
	return buf;
}

/* A vector as one string, "[a][b]", for one comparison per row. */
static char *
join(const char *const *v, size_t n)
{
	char *s = xstrdup(""), *t;
	size_t i;

	for (i = 0; i < n && v[i]; i++) {
		t = xasprintf("%s[%s]", s, v[i]);
		free(s);
		s = t;
	}
	return s;
}

static char *
mount_str(const struct plan_mount *m)
{
	switch (m->kind) {
	case PLAN_MOUNT_ROOT:
		return xasprintf("root %s", m->dst);
	case PLAN_MOUNT_PROC:
		return xasprintf("proc %s", m->dst);
	case PLAN_MOUNT_DEV:
		return xasprintf("dev %s", m->dst);
	case PLAN_MOUNT_SYSFS:
		return xasprintf("sysfs %s", m->dst);
	case PLAN_MOUNT_TMPFS:
		return xasprintf("tmpfs %s %o%s", m->dst, m->mode,
		    m->exec ? " exec" : "");
	case PLAN_MOUNT_OVERLAY:
		return xasprintf("overlay %s lower=%s upper=%s work=%s",
		    m->dst, m->src, m->upper, m->work);
	case PLAN_MOUNT_MASK:
		return xasprintf("mask %s", m->dst);
	case PLAN_MOUNT_BIND_RO:
		return xasprintf("ro %s%s", m->dst, m->exec ? "" : " noexec");
	case PLAN_MOUNT_BIND_RW:
		return xasprintf("direct %s%s", m->dst, m->exec ? "" :
		    " noexec");
	case PLAN_MOUNT_SCRATCH:
		return xasprintf("scratch %s upper=%s work=%s", m->dst,
		    m->upper, m->work);
	case PLAN_MOUNT_HIDE:
		return xasprintf("hide %s%s", m->dst, m->exec ? " exec" : "");
	case PLAN_MOUNT_COPY:
		return xasprintf("copy %s upper=%s", m->dst, m->upper);
	case PLAN_MOUNT_LINK:
		return xasprintf("link %s upper=%s", m->dst, m->upper);
	case PLAN_MOUNT_EMPTY_ROOT:
		return xasprintf("empty-root %s", m->dst);
	case PLAN_MOUNT_SYMLINK:
		return xasprintf("symlink %s -> %s", m->dst, m->src);
	case PLAN_MOUNT_DATA:
		return xasprintf("data %s", m->dst);
	}
	return xstrdup("?");
}

static char *
mounts_str(const struct plan_mounts *m)
{
	char **v = xcalloc(m->n + 1, sizeof(*v));
	char *s;
	size_t i;

	for (i = 0; i < m->n; i++)
		v[i] = mount_str(&m->v[i]);
	s = join((const char *const *)v, m->n);
	strv_free(v);
	return s;
}

/*
 * What the last mount at or above path shows: the host's file (true), or
 * nothing of the host's.  Mounts stack in plan order.
 */
static bool
host_shows(const struct plan_mounts *m, const char *path,
    enum plan_mount_kind *kind)
{
	const struct plan_mount *top = NULL;
	size_t i;

	for (i = 0; i < m->n; i++)
		if (path_has_prefix(path, m->v[i].dst))
			top = &m->v[i];
	if (top == NULL)
		return false;
	*kind = top->kind;
	switch (top->kind) {
	case PLAN_MOUNT_ROOT:
	case PLAN_MOUNT_OVERLAY:
	case PLAN_MOUNT_BIND_RO:
	case PLAN_MOUNT_BIND_RW:
	case PLAN_MOUNT_SCRATCH:
	case PLAN_MOUNT_COPY:
	case PLAN_MOUNT_LINK:
	case PLAN_MOUNT_SYMLINK:
	case PLAN_MOUNT_SYSFS:		/* bwrap: the host's, partly covered */
		return true;
	case PLAN_MOUNT_EMPTY_ROOT:
	case PLAN_MOUNT_DATA:
	case PLAN_MOUNT_PROC:
	case PLAN_MOUNT_DEV:
	case PLAN_MOUNT_TMPFS:
	case PLAN_MOUNT_MASK:
	case PLAN_MOUNT_HIDE:
		return false;
	}
	return false;
}

/*
 * Can the sandbox reach host socket s by path?  Not where the host's file
 * is hidden; on native, not through an overlay either (the root's trees,
 * read-only paths, the workspace, scratch: the socket there is the
 * overlay's inode); only a direct path shows the host's own.
 */
static bool
socket_covered(const struct plan *p, const char *s)
{
	enum plan_mount_kind kind;

	if (!host_shows(&p->mounts, s, &kind))
		return true;
	return p->backend == PLAN_BACKEND_NATIVE &&
	    kind != PLAN_MOUNT_BIND_RW;
}

/* The workspace: the default choice and the refusals. */
static void
test_workspace(void)
{
	static const struct {
		const char	*name;
		const char	*cwd, *git_top, *workspace, *state_home;
		const char	*want;		/* NULL: refused */
		const char	*cause;		/* in the refusal */
	} rows[] = {
		{ "git top level", PROJ "/lib", PROJ, NULL, STATE, PROJ, NULL },
		{ "no git: cwd", PROJ "/lib", NULL, NULL, STATE, PROJ "/lib",
		    NULL },
		{ "--workspace beats git", PROJ "/lib", PROJ, "/srv/data",
		    STATE, "/srv/data", NULL },
		{ "--workspace beats cwd", PROJ, NULL, "/srv/data", STATE,
		    "/srv/data", NULL },
		{ "a sibling named like home", "/home/alicex/p", NULL, NULL,
		    STATE, "/home/alicex/p", NULL },
		{ "cwd is home, no git", HOME, NULL, NULL, STATE, NULL,
		    "home directory" },
		{ "git top is home (dotfiles)", PROJ, HOME, NULL, STATE, NULL,
		    "home directory" },
		{ "--workspace home", PROJ, PROJ, HOME, STATE, NULL,
		    "home directory" },
		{ "--workspace /", PROJ, PROJ, "/", STATE, NULL,
		    "home directory" },
		{ "--workspace /home", PROJ, PROJ, "/home", STATE, NULL,
		    "home directory" },
		{ "git top is /", "/srv", "/", NULL, STATE, NULL,
		    "home directory" },
		{ "--workspace the state dir", PROJ, PROJ, STATE "/confine",
		    STATE, NULL, "state directory" },
		{ "--workspace in the state dir", PROJ, PROJ,
		    STATE "/confine/sessions", STATE, NULL, "state directory" },
		{ "git top in a session", SESSION "/upper/sub", SESSION
		    "/upper", NULL, STATE, NULL, "state directory" },
		{ "--workspace holds the state dir", PROJ, PROJ, STATE, STATE,
		    NULL, "state directory" },
		{ "state outside home, --workspace holds it", PROJ, PROJ,
		    "/var/lib", "/var/lib/alice", NULL, "state directory" },
		{ "state outside home, --workspace is its parent", PROJ, PROJ,
		    "/var/lib/alice", "/var/lib/alice", NULL,
		    "state directory" },
		{ "state outside home, --workspace inside", PROJ, PROJ,
		    "/var/lib/alice/confine/x", "/var/lib/alice", NULL,
		    "state directory" },
		{ "state outside home, --workspace a sibling", PROJ, PROJ,
		    "/var/lib/alice/other", "/var/lib/alice",
		    "/var/lib/alice/other", NULL },
		{ "state outside home, --workspace named alike", PROJ, PROJ,
		    "/var/lib/alice/confine-old", "/var/lib/alice",
		    "/var/lib/alice/confine-old", NULL },
	};
	const struct cli_opts o = base_opts();
	size_t i;

	for (i = 0; i < nitems(rows); i++) {
		struct host h = base_host();
		struct plan p = { .cwd = S("sentinel") };
		char *cause = NULL, *hint = NULL;
		int r;

		h.cwd = S(rows[i].cwd);
		h.git_top = S(rows[i].git_top);
		h.workspace = S(rows[i].workspace);
		h.state_home = S(rows[i].state_home);
		r = policy_compute(&o, &h, NULL, &builtin, "test", &p, &cause, &hint);
		if (rows[i].want) {
			if (is_int(r, 0, "%s: accepted", rows[i].name))
				is_str(p.workspace, rows[i].want,
				    "%s: workspace %s", rows[i].name,
				    rows[i].want);
			else
				diag("cause: %s", cause);
			if (r == 0)
				plan_free(&p);
		} else {
			const char *ws = rows[i].workspace ?
			    rows[i].workspace : rows[i].git_top ?
			    rows[i].git_top : rows[i].cwd;
			autofree char *quoted = xasprintf("'%s'", ws);

			is_int(r, -1, "%s: refused", rows[i].name);
			if (!ok(cause && strstr(cause, rows[i].cause) &&
			    strstr(cause, quoted), "%s: the cause names the "
			    "%s and %s", rows[i].name, rows[i].cause, quoted))
				diag("cause: %s", cause ? cause : "(NULL)");
			ok(hint && hint[0], "%s: with a hint", rows[i].name);
			is_str(p.cwd, "sentinel", "%s: the plan is not written",
			    rows[i].name);
			if (r == 0)
				plan_free(&p);
		}
		free(cause);
		free(hint);
	}
}

/* No Landlock: refused, and the cause says why. */
static void
test_no_landlock(void)
{
	static const struct {
		int		 err;
		const char	*why;
	} rows[] = {
		{ EOPNOTSUPP, "disabled at boot" },
		{ ENOSYS, "not built in" },
	};
	const struct cli_opts o = base_opts();
	size_t i;

	for (i = 0; i < nitems(rows); i++) {
		struct host h = base_host();
		struct plan p = { 0 };
		char *cause = NULL, *hint = NULL;
		int r;

		h.landlock_abi = 0;
		h.landlock_errno = rows[i].err;
		r = policy_compute(&o, &h, NULL, &builtin, "test", &p, &cause, &hint);
		is_int(r, -1, "landlock ABI 0 (%s): refused", rows[i].why);
		if (!ok(cause && strstr(cause, "landlock") &&
		    strstr(cause, rows[i].why), "landlock ABI 0: the cause "
		    "says '%s'", rows[i].why))
			diag("cause: %s", cause ? cause : "(NULL)");
		if (!ok(hint && strstr(hint, "confine needs landlock"),
		    "landlock ABI 0: the hint says confine needs landlock"))
			diag("hint: %s", hint ? hint : "(NULL)");
		if (r == 0)
			plan_free(&p);
		free(cause);
		free(hint);
	}
}

/* Exact handled rights and degradation lines for each ABI. */
static void
test_landlock_abi(void)
{
	static const struct {
		int		 abi;
		uint64_t	 fs, net, scoped;
	} rows[] = {
		{ 1, 0x1fff, 0, 0 }, { 2, 0x3fff, 0, 0 }, { 3, 0x7fff, 0, 0 },
		{ 4, 0x7fff, 0x3, 0 }, { 5, 0xffff, 0x3, 0 },
		{ 6, 0xffff, 0x3, 0x3 }, { 7, 0xffff, 0x3, 0x3 },
		{ 8, 0xffff, 0x3, 0x3 }, { 9, 0x1ffff, 0x3, 0x3 },
	};
	/* The ABI that brings each feature, and a word its line must hold. */
	/* No TCP line: native handles no TCP right at any ABI (its network
	 * namespace is the sandbox's own: test_tcp_plan). */
	static const struct {
		int		 abi;
		const char	*word;
	} features[] = {
		{ 2, "EXDEV" }, { 3, "truncation" },
		{ 5, "ioctl" }, { 6, "signal" }, { 9, "unix sockets" },
	};
	const struct cli_opts o = base_opts();
	size_t i, j;

	for (i = 0; i < nitems(rows); i++) {
		struct host h = base_host();
		struct plan p = { 0 };
		const int abi = rows[i].abi;
		size_t want = 0, k = 0;
		char *text;

		is_int(policy_landlock_fs(abi), rows[i].fs,
		    "policy_landlock_fs(%d)", abi);
		is_int(policy_landlock_net(abi), rows[i].net,
		    "policy_landlock_net(%d)", abi);
		is_int(policy_landlock_scoped(abi), rows[i].scoped,
		    "policy_landlock_scoped(%d)", abi);
		h.landlock_abi = abi;
		if (!compute(&h, &o, NULL, &p, "ABI row"))
			continue;
		is_int(p.landlock.abi, abi, "ABI %d: the plan's ABI", abi);
		ok(p.landlock.handled_fs == rows[i].fs &&
		    p.landlock.handled_net == 0 &&
		    p.landlock.scoped == rows[i].scoped,
		    "ABI %d: the plan handles exactly fs %#llx net 0 "
		    "scoped %#llx", abi, (unsigned long long)rows[i].fs,
		    (unsigned long long)rows[i].scoped);
		for (j = 0; j < nitems(features); j++)
			want += features[j].abi > abi;
		is_int(p.ndegraded, want, "ABI %d: %zu degraded lines", abi,
		    want);
		for (j = 0; j < nitems(features) && k < p.ndegraded; j++) {
			autofree char *head = NULL;

			if (features[j].abi <= abi)
				continue;
			head = xasprintf("landlock ABI < %d:", features[j].abi);
			if (!ok(strncmp(p.degraded[k], head,
			    strlen(head)) == 0 &&
			    strstr(p.degraded[k], features[j].word),
			    "ABI %d: degraded line %zu is about %s", abi, k + 1,
			    features[j].word))
				diag("line: %s", p.degraded[k]);
			k++;
		}
		text = dump(&p);
		if (abi == 9)
			ok(strstr(text, "missing kernel features: none\n") !=
			    NULL, "ABI 9: the dump shows no missing features");
		else if (p.ndegraded)
			ok(strstr(text, p.degraded[0]) != NULL,
			    "ABI %d: the dump shows the missing features", abi);
		free(text);
		plan_free(&p);
	}
}

/* The mount layout, in order, and every host socket out of reach. */
static void
test_mounts(void)
{
	static const char *const sockets[] = {
		"/run/user/1000/bus", "/tmp/.X11-unix/X0", "/dev/log",
		HOME "/.gnupg/S.gpg-agent", "/var/run/nscd/socket",
		"/srv/app.sock", PROJ "/.dev/server.sock",
		PROJ "ect.sock", "/var/lib/mysql/mysql.sock", NULL
	};
	const struct {
		const char	*name;
		bool		 has_run, var_run_is_dir;
		const char	*runtime_dir, *workspace;
		const char *const *sockets;
		const char	*want[16];
	} rows[] = {
		{ "typical", true, false, "/run/user/1000", NULL, no_sockets,
		    { MOUNTS_HEAD, "tmpfs /run 755", "tmpfs " HOME " 700 exec",
		    OVERLAY(PROJ) } },
		{ "no /run", false, false, NULL, NULL, no_sockets,
		    { MOUNTS_HEAD, "tmpfs " HOME " 700 exec", OVERLAY(PROJ) } },
		{ "/var/run a directory", true, true, "/run/user/1000", NULL,
		    no_sockets, { MOUNTS_HEAD, "tmpfs /run 755",
		    "tmpfs /var/run 755", "tmpfs " HOME " 700 exec",
		    OVERLAY(PROJ) } },
		{ "no runtime dir", true, false, NULL, NULL, no_sockets,
		    { MOUNTS_HEAD, "tmpfs /run 755", "tmpfs " HOME " 700 exec",
		    OVERLAY(PROJ) } },
		{ "runtime dir outside the hidden trees", true, false,
		    "/srv/xdg/1000", NULL, no_sockets, { MOUNTS_HEAD,
		    "tmpfs /run 755", "tmpfs /srv/xdg/1000 700",
		    "tmpfs " HOME " 700 exec", OVERLAY(PROJ) } },
		{ "runtime dir in home", true, false, HOME "/.xdg", NULL,
		    no_sockets, { MOUNTS_HEAD, "tmpfs /run 755",
		    "tmpfs " HOME " 700 exec", OVERLAY(PROJ) } },
		{ "runtime dir in /tmp", true, false, "/tmp/xdg-1000", NULL,
		    no_sockets, { MOUNTS_HEAD, "tmpfs /run 755",
		    "tmpfs " HOME " 700 exec", OVERLAY(PROJ) } },
		{ "sockets", true, true, "/run/user/1000", NULL, sockets,
		    { MOUNTS_HEAD, "tmpfs /run 755", "tmpfs /var/run 755",
		    "tmpfs " HOME " 700 exec", OVERLAY(PROJ) } },
		{ "workspace outside home", true, false, "/run/user/1000",
		    "/srv/proj", V("/srv/proj/run.sock", "/srv/other.sock",
		    "/tmp/x.sock", "/srv/projx.sock"),
		    { MOUNTS_HEAD, "tmpfs /run 755", "tmpfs " HOME " 700 exec",
		    OVERLAY("/srv/proj") } },
		{ "workspace in /tmp", true, false, NULL, "/tmp/proj",
		    V("/tmp/proj/s", "/tmp/s"), { MOUNTS_HEAD,
		    "tmpfs /run 755", "tmpfs " HOME " 700 exec",
		    OVERLAY("/tmp/proj") } },
		{ "socket in a runtime dir outside the hidden trees", true,
		    false, "/srv/xdg/1000", NULL, V("/srv/xdg/1000/bus"),
		    { MOUNTS_HEAD, "tmpfs /run 755", "tmpfs /srv/xdg/1000 700",
		    "tmpfs " HOME " 700 exec", OVERLAY(PROJ) } },
	};
	const struct cli_opts o = base_opts();
	size_t i, j;

	for (i = 0; i < nitems(rows); i++) {
		struct host h = base_host();
		struct plan p = { 0 };
		autofree char *want = NULL, *got = NULL;

		h.has_run = rows[i].has_run;
		h.var_run_is_dir = rows[i].var_run_is_dir;
		h.runtime_dir = S(rows[i].runtime_dir);
		h.workspace = S(rows[i].workspace);
		h.unix_sockets = (char **)rows[i].sockets;
		if (!compute(&h, &o, NULL, &p, rows[i].name))
			continue;
		want = join(rows[i].want, nitems(rows[i].want));
		got = mounts_str(&p.mounts);
		is_str(got, want, "%s: the mounts, in order", rows[i].name);
		for (j = 0; rows[i].sockets[j]; j++)
			ok(socket_covered(&p, rows[i].sockets[j]),
			    "%s: host socket %s is out of reach", rows[i].name,
			    rows[i].sockets[j]);
		plan_free(&p);
	}
}

/* Landlock rules: the workspace gets its own only outside home and /tmp. */
static void
test_landlock_paths(void)
{
	static const struct {
		const char	*workspace;
		bool		 rule;
	} rows[] = {
		{ PROJ, false }, { "/srv/proj", true }, { "/tmp/proj", false },
		{ "/tmp", false }, { "/tmpx/proj", true },
		{ "/home/alicex/p", true },
	};
	const char *const base[] = { "r-x /", "rwx /tmp", "rw- /dev/shm",
	    "rw-d /dev/pts", "rw-d /dev/null", "rw-d /dev/zero",
	    "rw-d /dev/full", "rw-d /dev/random", "rw-d /dev/urandom",
	    "rw-d /dev/tty", "rwx " HOME, NULL };
	const struct cli_opts o = base_opts();
	autofree char *head = join(base, nitems(base));
	size_t i, j;

	for (i = 0; i < nitems(rows); i++) {
		struct host h = base_host();
		struct plan p = { 0 };
		char buf[8];
		char *got = xstrdup(""), *t;
		autofree char *want = NULL;

		h.workspace = S(rows[i].workspace);
		if (!compute(&h, &o, NULL, &p, "landlock rules")) {
			free(got);
			continue;
		}
		for (j = 0; j < p.landlock.npaths; j++) {
			t = xasprintf("%s[%s %s]", got, plan_access_name(
			    p.landlock.paths[j].access, buf),
			    p.landlock.paths[j].path);
			free(got);
			got = t;
		}
		want = rows[i].rule ? xasprintf("%s[rwx %s]", head,
		    rows[i].workspace) : xstrdup(head);
		is_str(got, want, "workspace %s: landlock rules%s",
		    rows[i].workspace, rows[i].rule ? " with the workspace" :
		    "");
		free(got);
		plan_free(&p);
	}
}

static void
test_cwd(void)
{
	static const struct {
		const char	*cwd, *git_top, *workspace, *want;
	} rows[] = {
		{ PROJ "/lib", PROJ, NULL, PROJ "/lib" },
		{ PROJ, PROJ, NULL, PROJ },
		{ HOME "/src/other", NULL, "/srv/data", "/srv/data" },
		{ "/srv/data2", NULL, "/srv/data", "/srv/data" },
		{ "/srv", NULL, "/srv/data", "/srv/data" },
		{ "/srv/data/a/b", PROJ, "/srv/data", "/srv/data/a/b" },
	};
	const struct cli_opts o = base_opts();
	size_t i;

	for (i = 0; i < nitems(rows); i++) {
		struct host h = base_host();
		struct plan p = { 0 };

		h.cwd = S(rows[i].cwd);
		h.git_top = S(rows[i].git_top);
		h.workspace = S(rows[i].workspace);
		if (!compute(&h, &o, NULL, &p, "cwd"))
			continue;
		is_str(p.cwd, rows[i].want, "cwd %s, workspace %s: starts "
		    "in %s", rows[i].cwd, p.workspace, rows[i].want);
		plan_free(&p);
	}
}

/* YYYYMMDD-HHMMSS.mmm-xxxxxxxx, digits and lower-case hex. */
static bool
id_well_formed(const char *id)
{
	size_t i;

	if (strlen(id) != 28)
		return false;
	for (i = 0; i < 28; i++) {
		char c = id[i];

		if (i == 8 || i == 19) {
			if (c != '-')
				return false;
		} else if (i == 15) {
			if (c != '.')
				return false;
		} else if (!((c >= '0' && c <= '9') ||
		    (i > 19 && c >= 'a' && c <= 'f')))
			return false;
	}
	return true;
}

static void
test_session(void)
{
	static const struct {
		time_t		 now;
		long		 now_ns;
		uint32_t	 random;
		const char	*state_home, *id, *dir;
	} rows[] = {
		{ 0, 0, 0, STATE, "19700101-000000.000-00000000",
		    STATE "/confine/sessions/19700101-000000.000-00000000" },
		{ 1700000000, 5000000, 0xdeadbeef, STATE,
		    "20231114-221320.005-deadbeef",
		    STATE "/confine/sessions/20231114-221320.005-deadbeef" },
		{ 1700000000, 999999999, 1, STATE,
		    "20231114-221320.999-00000001",
		    STATE "/confine/sessions/20231114-221320.999-00000001" },
		{ 951782400, 123456789, 0xffffffff, "/var/state",
		    "20000229-000000.123-ffffffff",
		    "/var/state/confine/sessions/20000229-000000.123-ffffffff" },
		{ 4102444799, 0, 0xa, "/var/state",
		    "20991231-235959.000-0000000a",
		    "/var/state/confine/sessions/20991231-235959.000-0000000a" },
	};
	const struct cli_opts o = base_opts();
	size_t i;

	/* The stamp is UTC: the caller's time zone must not show. */
	setenv("TZ", "JST-9", 1);
	tzset();
	for (i = 0; i < nitems(rows); i++) {
		struct host h = base_host();
		struct plan p = { 0 };
		autofree char *upper = NULL;

		h.now = rows[i].now;
		h.now_ns = rows[i].now_ns;
		h.random = rows[i].random;
		h.state_home = S(rows[i].state_home);
		if (!compute(&h, &o, NULL, &p, rows[i].id))
			continue;
		is_str(p.session_id, rows[i].id, "session id %s", rows[i].id);
		ok(id_well_formed(p.session_id), "%s is YYYYMMDD-HHMMSS.mmm-"
		    "xxxxxxxx", p.session_id);
		is_str(p.session_dir, rows[i].dir, "session dir %s",
		    rows[i].dir);
		is_str(env_get(p.envp, "CONFINE_SESSION"), rows[i].id,
		    "%s: CONFINE_SESSION is the id", rows[i].id);
		upper = path_join(rows[i].dir, "upper");
		is_str(p.mounts.v[p.mounts.n - 1].upper, upper,
		    "%s: overlay writes go to the session", rows[i].id);
		plan_free(&p);
	}
	unsetenv("TZ");
	tzset();
}

static void
test_env(void)
{
	static const char *const secrets[] = { "SSH_AUTH_SOCK",
	    "DBUS_SESSION_BUS_ADDRESS", "DISPLAY", "WAYLAND_DISPLAY",
	    "AWS_SECRET_ACCESS_KEY", "GITHUB_TOKEN", "XDG_RUNTIME_DIR",
	    "LD_PRELOAD", "XAUTHORITY", NULL };
	const char *const host_env[] = { "PATH=/opt/bin:/usr/bin",
	    "TERM=xterm-256color", "LANG=C.UTF-8", "LC_ALL=C",
	    "HOME=/elsewhere", "USER=mallory", "LOGNAME=mallory",
	    "TMPDIR=" HOME "/tmp", "CONFINE_SESSION=spoof",
	    "SSH_AUTH_SOCK=/run/user/1000/ssh", "DISPLAY=:0",
	    "DBUS_SESSION_BUS_ADDRESS=unix:path=/run/user/1000/bus",
	    "WAYLAND_DISPLAY=wayland-0", "AWS_SECRET_ACCESS_KEY=wJalr",
	    "GITHUB_TOKEN=ghp_x", "XDG_RUNTIME_DIR=/run/user/1000",
	    "LD_PRELOAD=/x.so", "XAUTHORITY=" HOME "/.Xauthority", NULL };
	const char *const no_path[] = { "TERM=dumb", NULL };
	static const char *const opts_env[] = { "DISPLAY", "FOO=bar",
	    "NOT_SET" };
	const struct {
		const char		*name;
		const char *const	*env;
		const char *const	*opts;
		size_t			 nopts;
		const char		*want;
	} rows[] = {
		{ "host env", host_env, NULL, 0,
		    "[CONFINE_SESSION=" SESSION_ID "][GIT_CONFIG_NOSYSTEM=1]"
		    "[HOME=" HOME "]"
		    "[LANG=C.UTF-8][LC_ALL=C][LOGNAME=alice]"
		    "[PATH=/opt/bin:/usr/bin][TERM=xterm-256color]"
		    "[TMPDIR=/tmp][USER=alice]" },
		{ "no PATH", no_path, NULL, 0,
		    "[CONFINE_SESSION=" SESSION_ID "][GIT_CONFIG_NOSYSTEM=1]"
		    "[HOME=" HOME "]"
		    "[LOGNAME=alice][PATH=/usr/local/bin:/usr/bin:/bin]"
		    "[TERM=dumb][TMPDIR=/tmp][USER=alice]" },
		{ "--env", host_env, opts_env, nitems(opts_env),
		    "[CONFINE_SESSION=" SESSION_ID "][DISPLAY=:0][FOO=bar]"
		    "[GIT_CONFIG_NOSYSTEM=1]"
		    "[HOME=" HOME "][LANG=C.UTF-8][LC_ALL=C][LOGNAME=alice]"
		    "[PATH=/opt/bin:/usr/bin][TERM=xterm-256color]"
		    "[TMPDIR=/tmp][USER=alice]" },
		{ "empty env", V(NULL), NULL, 0,
		    "[CONFINE_SESSION=" SESSION_ID "][GIT_CONFIG_NOSYSTEM=1]"
		    "[HOME=" HOME "]"
		    "[LOGNAME=alice][PATH=/usr/local/bin:/usr/bin:/bin]"
		    "[TMPDIR=/tmp][USER=alice]" },
	};
	size_t i, j;

	for (i = 0; i < nitems(rows); i++) {
		struct host h = base_host();
		struct cli_opts o = base_opts();
		struct plan p = { 0 };
		autofree char *got = NULL;

		o.env.v = (const char **)rows[i].opts;
		o.env.n = rows[i].nopts;
		/* --env DISPLAY is leg B: the offline quadrant allows it. */
		if (!compute_pr(&h, &o, (char *const *)rows[i].env,
		    rows[i].opts ? &offline : &builtin, &p, rows[i].name))
			continue;
		got = join((const char *const *)p.envp, SIZE_MAX);
		is_str(got, rows[i].want, "%s: the environment", rows[i].name);
		for (j = 0; secrets[j]; j++)
			if (env_get((char *const *)rows[i].env, secrets[j]) &&
			    rows[i].opts == NULL)
				is_str(env_get(p.envp, secrets[j]), NULL,
				    "%s: %s is not passed", rows[i].name,
				    secrets[j]);
		plan_free(&p);
	}
}

static void
test_tty(void)
{
	static const struct {
		bool	 tty[3];
		bool	 pty;
	} rows[] = {
		{ { true, true, true }, true },
		{ { true, false, false }, true },
		{ { false, true, true }, true },
		{ { false, false, true }, true },
		{ { false, false, false }, false },
	};
	const struct cli_opts o = base_opts();
	size_t i;

	for (i = 0; i < nitems(rows); i++) {
		struct host h = base_host();
		struct plan p = { 0 };
		autofree char *name = xasprintf("tty %d%d%d", rows[i].tty[0],
		    rows[i].tty[1], rows[i].tty[2]);

		memcpy(h.is_tty, rows[i].tty, sizeof(h.is_tty));
		if (!compute(&h, &o, NULL, &p, name))
			continue;
		ok(p.tty.pty == rows[i].pty, "%s: %s", name, rows[i].pty ?
		    "a new pty (stdin is a terminal)" : "no pty");
		ok(memcmp(p.tty.is_tty, rows[i].tty, sizeof(rows[i].tty)) == 0,
		    "%s: the plan knows which fds are terminals", name);
		plan_free(&p);
	}
}

/* What every sealed plan holds, whatever the host. */
static void
test_fixed(void)
{
	const int all_ns = CLONE_NEWUSER | CLONE_NEWNS | CLONE_NEWPID |
	    CLONE_NEWNET | CLONE_NEWIPC | CLONE_NEWUTS | CLONE_NEWCGROUP;
	struct host h = base_host();
	struct cli_opts o = base_opts();
	char *argv[] = { xstrdup("make"), xstrdup("check"), NULL };
	struct plan p = { 0 };

	h.uid = 1234;
	h.gid = 5678;
	h.is_tty[2] = true;
	h.winsize.ws_row = 42;
	h.winsize.ws_col = 132;
	h.termios.c_lflag = ECHO;
	o.argv = argv;
	o.backend = PLAN_BACKEND_NATIVE;
	o.backend_set = true;
	if (compute(&h, &o, NULL, &p, "fixed")) {
		argv[0][0] = 'X';
		is_str(p.argv[0], "make",
		    "the plan owns a copy of the command");
		is_str(p.argv[1], "check", "the command's arguments are kept");
		is_str(p.argv[2], NULL, "the command vector ends");
		ok(p.tty.winsize.ws_row == 42 && p.tty.winsize.ws_col == 132,
		    "the terminal's window size is copied to the plan");
		ok(p.tty.termios.c_lflag == ECHO,
		    "the terminal's modes are copied to the plan");
		is_int(p.uid, 1234, "the caller's uid is kept inside");
		is_int(p.gid, 5678, "the caller's gid is kept inside");
		is_int(p.clone_flags, all_ns, "every namespace is new");
		is_int(p.net, PLAN_NET_NONE, "network none");
		is_str(p.quadrant, "sealed", "the sealed quadrant");
		is_int(p.backend, PLAN_BACKEND_NATIVE, "the native backend");
		is_str(p.backend_reason,
		    "native (asked for: option --backend)",
		    "the backend reason: asked for, and by whom");
		ok(explains(&p, "backend = native  (option --backend)"),
		    "the effective policy names the option --backend");
		is_str(p.profile, "sealed (built-in)", "the built-in profile");
		is_str(p.profile_reason, "test", "the reason it was picked");
		is_int(p.quadrant_legs, PLAN_LEG_A, "sealed allows A");
		is_int(p.legs, PLAN_LEG_A, "the rules grant A only");
		ok(p.nlegs_why == 1 && streq(p.legs_why[0],
		    "A: untrusted = yes  (built-in default)"),
		    "A is granted by the built-in untrusted = yes");
		ok(!p.warn_trusted, "no trusted warning");
		ok(p.allow && p.allow[0] == NULL && p.endpoint &&
		    p.endpoint[0] == NULL, "no destinations, no endpoint");
		ok(p.sys.nfamilies == 4 && p.sys.families[0] == AF_UNIX &&
		    p.sys.families[1] == AF_INET &&
		    p.sys.families[2] == AF_INET6 &&
		    p.sys.families[3] == AF_NETLINK,
		    "socket families: unix, inet, inet6, netlink");
		plan_free(&p);
	}
	free(argv[0]);
	free(argv[1]);
}

/*
 * The rule of two (DESIGN.md section 2) over every combination: each
 * quadrant (unset, sealed, offline, online, trusted) x untrusted (unset,
 * yes, no) x each way to grant B (or not) x each way to grant C (or not),
 * each given through the profile and, where an option exists, through the
 * options.  The expected verdict is computed here from the table in
 * DESIGN.md, independently of src/policy/compute.c:
 *
 *	A unless untrusted = no; sealed = A, offline = A+B, online = A+C,
 *	trusted = B+C and needs untrusted = no; untrusted = no is refused
 *	outside trusted; all three legs are always refused.
 */
#define T_INI		"t.ini"

enum src { SRC_PROFILE, SRC_OPTION };

enum bway {
	BW_NONE,
	BW_RO_HOME,		/* read-only = ~/notes, --ro ~/notes */
	BW_RO_HOME_ITSELF,	/* read-only = ~, --ro ~ */
	BW_RO_RUNTIME,		/* read-only = the runtime dir's keyring */
	BW_HOME_ENTRY,		/* home = .gitconfig */
	BW_SCRATCH_HOME,	/* scratch = ~/.cache/x, --scratch */
	BW_PASS_SECRET,		/* pass = AWS_SECRET_ACCESS_KEY, --env */
	BW_PASS_PREFIX,		/* pass = AWS_* */
	BW_PASS_TERM,		/* pass = TERM: allow-listed, no B */
	BW_PASS_LC,		/* pass = LC_*, --env LC_ALL: no B */
	BW_SET_SECRET,		/* set = AWS_SECRET_ACCESS_KEY=x: no B */
	BW_PRIVATE_YES,		/* [workspace] private = yes */
	BW_PRIVATE_TRUE,	/* [workspace] private = true */
	BW_PRIVATE_NO,		/* [workspace] private = no: no B */
	BW_CRED_FILE,		/* [credential] file: B only with C */
	BW_CRED_VAR,		/* [credential] variable: B only with C */
	BW_RO_OUTSIDE,		/* read-only = /srv/data: no B */
	BW_SCRATCH_OUTSIDE,	/* scratch = /var/cache/x: no B */
	BW_HIDE_HOME,		/* hide = ~/.ssh: no B */
};

static const struct bway_row {
	enum bway	 way;
	const char	*name;
	bool		 option;	/* also as an option */
	int		 b;		/* 0 no B, 1 B, 2 B only with C */
	const char	*rule;		/* "key = value", as the policy says */
	const char	*opt;		/* the option's name in the origin */
} bways[] = {
	{ BW_NONE, "no B rule", false, 0, NULL, NULL },
	{ BW_RO_HOME, "read-only ~/notes", true, 1,
	    "read-only = " HOME "/notes", "--ro" },
	{ BW_RO_HOME_ITSELF, "read-only ~", true, 1, "read-only = " HOME,
	    "--ro" },
	{ BW_RO_RUNTIME, "read-only in the runtime dir", true, 1,
	    "read-only = /run/user/1000/keyring", "--ro" },
	{ BW_HOME_ENTRY, "home .gitconfig", false, 1,
	    "read-only = " HOME "/.gitconfig", NULL },
	{ BW_SCRATCH_HOME, "scratch ~/.cache/x", true, 1,
	    "scratch = " HOME "/.cache/x", "--scratch" },
	{ BW_PASS_SECRET, "pass AWS_SECRET_ACCESS_KEY", true, 1,
	    "environment.pass = AWS_SECRET_ACCESS_KEY", "--env" },
	{ BW_PASS_PREFIX, "pass AWS_*", false, 1,
	    "environment.pass = AWS_*", NULL },
	{ BW_PASS_TERM, "pass TERM", true, 0, NULL, NULL },
	{ BW_PASS_LC, "pass LC_* / --env LC_ALL", true, 0, NULL, NULL },
	{ BW_SET_SECRET, "set AWS_SECRET_ACCESS_KEY=x", true, 0, NULL, NULL },
	{ BW_PRIVATE_YES, "private = yes", false, 1,
	    "workspace.private = yes", NULL },
	{ BW_PRIVATE_TRUE, "private = true", false, 1,
	    "workspace.private = true", NULL },
	{ BW_PRIVATE_NO, "private = no", false, 0, NULL, NULL },
	{ BW_CRED_FILE, "credential file", false, 2,
	    "credential.file = " HOME "/.config/agent/token", NULL },
	{ BW_CRED_VAR, "credential variable", false, 2,
	    "credential.variable = AGENT_API_KEY", NULL },
	{ BW_RO_OUTSIDE, "read-only /srv/data", true, 0, NULL, NULL },
	{ BW_SCRATCH_OUTSIDE, "scratch /var/cache/x", true, 0, NULL, NULL },
	{ BW_HIDE_HOME, "hide ~/.ssh", true, 0, NULL, NULL },
};

enum cway {
	CW_NONE,
	CW_HOST,		/* mode = host, -n host */
	CW_ALLOW,		/* mode = proxy + allow, --allow */
	CW_ALLOW_ENDPOINT,	/* allow X + endpoint X: C (a raw endpoint) */
	CW_ENDPOINT,		/* mode = proxy + endpoint: C (a raw tunnel) */
	CW_PROXY,		/* mode = proxy alone: no C */
	CW_DIRECT,		/* direct = /srv/out, --direct */
};

static const struct cway_row {
	enum cway	 way;
	const char	*name;
	bool		 c;
	enum plan_net	 net;
	const char	*rule;
	const char	*opt;
} cways[] = {
	{ CW_NONE, "no C rule", false, PLAN_NET_NONE, NULL, NULL },
	{ CW_HOST, "mode host", true, PLAN_NET_HOST, "network.mode = host",
	    "--network" },
	{ CW_ALLOW, "allow example.com", true, PLAN_NET_PROXY,
	    "network.allow = example.com", "--allow" },
	{ CW_ALLOW_ENDPOINT, "allow = endpoint", true, PLAN_NET_PROXY,
	    "network.endpoint = api.example.com:443", "--endpoint" },
	{ CW_ENDPOINT, "endpoint", true, PLAN_NET_PROXY,
	    "network.endpoint = api.example.com:443", "--endpoint" },
	{ CW_PROXY, "mode proxy", false, PLAN_NET_PROXY, NULL, NULL },
	{ CW_DIRECT, "direct /srv/out", true, PLAN_NET_NONE,
	    "direct = /srv/out", "--direct" },
};

static const char *const quadrants[] = { NULL, "sealed", "offline",
	"online", "trusted" };
static const char *const untrusteds[] = { NULL, "yes", "no" };

#define LIST1(l, s)	((l).v = (const char **)(s), (l).n = nitems(s))

static void
give_b(enum bway w, enum src src, struct profile *pr, struct cli_opts *o)
{
	static const char *const notes[] = { "~/notes" };
	static const char *const home[] = { "~" };
	static const char *const keyring[] = { "/run/user/1000/keyring" };
	static const char *const cache[] = { "~/.cache/x" };
	static const char *const secret[] = { "AWS_SECRET_ACCESS_KEY" };
	static const char *const term[] = { "TERM" };
	static const char *const lc[] = { "LC_ALL" };
	static const char *const set[] = { "AWS_SECRET_ACCESS_KEY=x" };
	static const char *const data[] = { "/srv/data" };
	static const char *const vcache[] = { "/var/cache/x" };
	static const char *const ssh[] = { "~/.ssh" };
	const char *at = T_INI ":10";

	if (src == SRC_OPTION) {
		switch (w) {
		case BW_RO_HOME:	LIST1(o->ro, notes); break;
		case BW_RO_HOME_ITSELF:	LIST1(o->ro, home); break;
		case BW_RO_RUNTIME:	LIST1(o->ro, keyring); break;
		case BW_SCRATCH_HOME:	LIST1(o->scratch, cache); break;
		case BW_PASS_SECRET:	LIST1(o->env, secret); break;
		case BW_PASS_TERM:	LIST1(o->env, term); break;
		case BW_PASS_LC:	LIST1(o->env, lc); break;
		case BW_SET_SECRET:	LIST1(o->env, set); break;
		case BW_RO_OUTSIDE:	LIST1(o->ro, data); break;
		case BW_SCRATCH_OUTSIDE: LIST1(o->scratch, vcache); break;
		case BW_HIDE_HOME:	LIST1(o->hide, ssh); break;
		case BW_NONE:
		case BW_HOME_ENTRY:
		case BW_PASS_PREFIX:
		case BW_PRIVATE_YES:
		case BW_PRIVATE_TRUE:
		case BW_PRIVATE_NO:
		case BW_CRED_FILE:
		case BW_CRED_VAR:	abort();	/* no such option */
		}
		return;
	}
	switch (w) {
	case BW_NONE:		break;
	case BW_RO_HOME:	plist_add(&pr->read_only, notes[0], at); break;
	case BW_RO_HOME_ITSELF:	plist_add(&pr->read_only, home[0], at); break;
	case BW_RO_RUNTIME:	plist_add(&pr->read_only, keyring[0], at); break;
	case BW_HOME_ENTRY:	plist_add(&pr->home, ".gitconfig", at); break;
	case BW_SCRATCH_HOME:	plist_add(&pr->scratch, cache[0], at); break;
	case BW_PASS_SECRET:	plist_add(&pr->env_pass, secret[0], at); break;
	case BW_PASS_PREFIX:	plist_add(&pr->env_pass, "AWS_*", at); break;
	case BW_PASS_TERM:	plist_add(&pr->env_pass, "TERM", at); break;
	case BW_PASS_LC:	plist_add(&pr->env_pass, "LC_*", at); break;
	case BW_SET_SECRET:	plist_add(&pr->env_set, set[0], at); break;
	case BW_PRIVATE_YES:	pvalue_set(&pr->ws_private, "yes", at); break;
	case BW_PRIVATE_TRUE:	pvalue_set(&pr->ws_private, "true", at); break;
	case BW_PRIVATE_NO:	pvalue_set(&pr->ws_private, "no", at); break;
	case BW_CRED_FILE:
		plist_add(&pr->cred_file, "~/.config/agent/token", at);
		break;
	case BW_CRED_VAR:
		plist_add(&pr->cred_var, "AGENT_API_KEY", at);
		break;
	case BW_RO_OUTSIDE:	plist_add(&pr->read_only, data[0], at); break;
	case BW_SCRATCH_OUTSIDE: plist_add(&pr->scratch, vcache[0], at); break;
	case BW_HIDE_HOME:	plist_add(&pr->hide, ssh[0], at); break;
	}
}

/* The origin of the C rule: "t.ini:20" and on, or the option. */
static const char *const c_line[] = { T_INI ":20", T_INI ":21", T_INI ":22",
	T_INI ":23" };

static void
give_c(enum cway w, enum src src, struct profile *pr, struct cli_opts *o)
{
	static const char *const ex[] = { "example.com" };
	static const char *const api[] = { "api.example.com:443" };
	static const char *const out[] = { "/srv/out" };

	if (src == SRC_OPTION) {
		switch (w) {
		case CW_NONE:		break;
		case CW_HOST:
			o->net = PLAN_NET_HOST;
			o->net_set = true;
			break;
		case CW_ALLOW:		LIST1(o->allow, ex); break;
		case CW_ALLOW_ENDPOINT:
			LIST1(o->allow, api);
			LIST1(o->endpoint, api);
			break;
		case CW_ENDPOINT:	LIST1(o->endpoint, api); break;
		case CW_PROXY:
			o->net = PLAN_NET_PROXY;
			o->net_set = true;
			break;
		case CW_DIRECT:		LIST1(o->direct, out); break;
		}
		return;
	}
	switch (w) {
	case CW_NONE:
		break;
	case CW_HOST:
		pvalue_set(&pr->net_mode, "host", c_line[0]);
		break;
	case CW_ALLOW:
		pvalue_set(&pr->net_mode, "proxy", c_line[0]);
		plist_add(&pr->allow, ex[0], c_line[1]);
		break;
	case CW_ALLOW_ENDPOINT:
		pvalue_set(&pr->net_mode, "proxy", c_line[0]);
		plist_add(&pr->allow, api[0], c_line[1]);
		plist_add(&pr->endpoint, api[0], c_line[2]);
		break;
	case CW_ENDPOINT:
		pvalue_set(&pr->net_mode, "proxy", c_line[0]);
		plist_add(&pr->endpoint, api[0], c_line[2]);
		break;
	case CW_PROXY:
		pvalue_set(&pr->net_mode, "proxy", c_line[0]);
		break;
	case CW_DIRECT:
		plist_add(&pr->direct, out[0], c_line[3]);
		break;
	}
}

/* "key = value  (origin)", as leg() and the refusals write a rule. */
static char *
b_rule(const struct bway_row *b, enum src src)
{
	return xasprintf("%s  (%s%s)", b->rule, src == SRC_OPTION ?
	    "option " : "", src == SRC_OPTION ? b->opt : T_INI ":10");
}

static char *
c_rule(const struct cway_row *c, enum src src)
{
	const char *at = c->way == CW_HOST ? c_line[0] :
	    c->way == CW_ALLOW ? c_line[1] : c->way == CW_ENDPOINT ||
	    c->way == CW_ALLOW_ENDPOINT ? c_line[2] : c_line[3];

	return xasprintf("%s  (%s%s)", c->rule, src == SRC_OPTION ?
	    "option " : "", src == SRC_OPTION ? c->opt : at);
}

static bool
has(const char *hay, const char *needle)
{
	return hay && needle && strstr(hay, needle);
}

static size_t quadrant_cases;

static void
quadrant_case(const char *q, const char *u, const struct bway_row *b,
    enum src bsrc, const struct cway_row *c, enum src csrc)
{
	const char *qname = q ? q : "sealed";
	const char *qorigin = q ? T_INI ":2" : "built-in default";
	const char *uorigin = u ? T_INI ":3" : "built-in default";
	const bool untrusted_no = u && streq(u, "no");
	const bool A = !untrusted_no, C = c->c;
	const bool B = b->b == 1 || (b->b == 2 && C);
	const unsigned int allowed = policy_quadrant_legs(qname);
	const unsigned int legs = (A ? PLAN_LEG_A : 0) | (B ? PLAN_LEG_B : 0) |
	    (C ? PLAN_LEG_C : 0);
	autofree char *name = xasprintf("[q=%s u=%s B=%s%s C=%s%s]",
	    q ? q : "(unset)", u ? u : "(unset)", b->name,
	    bsrc == SRC_OPTION ? " (option)" : "", c->name,
	    csrc == SRC_OPTION ? " (option)" : "");
	autofree char *brule = b->rule ? b_rule(b, bsrc) : NULL;
	autofree char *crule = c->rule ? c_rule(c, csrc) : NULL;
	autofree char *arule = xasprintf("untrusted = %s  (%s)", u ? u : "yes",
	    uorigin);
	struct host h = base_host();
	struct cli_opts o = base_opts();
	struct profile pr = { 0 };
	struct plan p = { .cwd = S("sentinel") };
	char *cause = NULL, *hint = NULL;
	const char *want = NULL;	/* the refusal's words; NULL: accepted */
	autofree char *want2 = NULL, *want3 = NULL;
	char lb[8];
	int r;

	quadrant_cases++;
	pr.name = xstrdup("t");
	pr.path = xstrdup(T_INI);
	if (q)
		pvalue_set(&pr.quadrant, q, T_INI ":2");
	if (u)
		pvalue_set(&pr.untrusted, u, T_INI ":3");
	give_b(b->way, bsrc, &pr, &o);
	give_c(c->way, csrc, &pr, &o);
	r = policy_compute(&o, &h, NULL, &pr, "test", &p, &cause, &hint);

	if (streq(qname, "trusted") && !untrusted_no) {
		want = "the trusted quadrant needs untrusted = no";
		want2 = xasprintf("(%s says untrusted = %s)", uorigin,
		    u ? u : "yes");
	} else if (!streq(qname, "trusted") && untrusted_no) {
		want = "is only for the trusted quadrant";
		want2 = xasprintf("untrusted = no (%s) is only for the trusted "
		    "quadrant, not %s", uorigin, qname);
	} else if (A && B && C) {
		want = "would hold all three legs";
		want2 = xasprintf("A untrusted (%s)", arule);
		/* The credential comes after the C rules. */
		want3 = xasprintf("B private (%s), C external (%s)", brule,
		    crule);
	} else if (legs & ~allowed) {
		const unsigned int extra = legs & ~allowed;

		want = "rule of two: quadrant";
		want2 = xasprintf("quadrant %s (%s) allows %s", qname, qorigin,
		    plan_legs_name(allowed, lb));
		want3 = xasprintf("but leg %c is granted by %s",
		    extra & PLAN_LEG_B ? 'B' : 'C',
		    extra & PLAN_LEG_B ? brule : crule);
	}

	if (want) {
		if (!ok(r == -1 && has(cause, want) && has(cause, want2) &&
		    (want3 == NULL || has(cause, want3)) && hint && hint[0] &&
		    streq(p.cwd, "sentinel"), "%s: refused: %s", name, want)) {
			diag("got %d, cause: %s", r, cause ? cause : "(NULL)");
			diag("want: %s ... %s ... %s", want, want2,
			    want3 ? want3 : "");
		}
		if (r == 0)
			plan_free(&p);
	} else {
		char **why = xcalloc(4, sizeof(*why));
		autofree char *got = NULL, *wanted = NULL;
		size_t n = 0;

		if (A)
			why[n++] = xasprintf("A: %s", arule);
		if (B && b->b == 1)
			why[n++] = xasprintf("B: %s", brule);
		if (C)
			why[n++] = xasprintf("C: %s", crule);
		if (B && b->b == 2)
			why[n++] = xasprintf("B: %s", brule);
		wanted = join((const char *const *)why, n);
		strv_free(why);
		if (!ok(r == 0, "%s: accepted (legs %s)", name,
		    plan_legs_name(legs, lb))) {
			diag("cause: %s", cause ? cause : "(NULL)");
		} else {
			got = join((const char *const *)p.legs_why,
			    p.nlegs_why);
			ok(p.legs == legs && p.quadrant_legs == allowed &&
			    streq(p.quadrant, qname) && streq(got, wanted) &&
			    p.warn_trusted == streq(qname, "trusted") &&
			    p.net == c->net,
			    "%s: legs %s, why %s, warn_trusted %d, network %s, "
			    "runs here", name, plan_legs_name(legs, lb),
			    wanted, streq(qname, "trusted"),
			    plan_net_name(c->net));
			if (p.legs != legs || !streq(got, wanted))
				diag("got legs %#x, why %s", p.legs, got);
			plan_free(&p);
		}
	}
	free(cause);
	free(hint);
	profile_free(&pr);
}

static void
test_quadrants(void)
{
	size_t q, u, b, c;
	int bs, cs;

	for (q = 0; q < nitems(quadrants); q++)
		for (u = 0; u < nitems(untrusteds); u++)
			for (b = 0; b < nitems(bways); b++)
				for (bs = SRC_PROFILE; bs <= SRC_OPTION; bs++) {
					if (bs == SRC_OPTION && !bways[b].option)
						continue;
					for (c = 0; c < nitems(cways); c++)
						for (cs = SRC_PROFILE; cs <=
						    (c ? SRC_OPTION : SRC_PROFILE);
						    cs++)
							quadrant_case(
							    quadrants[q],
							    untrusteds[u],
							    &bways[b], bs,
							    &cways[c], cs);
				}
	diag("%zu rule-of-two combinations", quadrant_cases);
}

/* A profile in memory, as the loader leaves it; free with profile_free. */
static void
prof(struct profile *pr, const char *quadrant)
{
	memset(pr, 0, sizeof(*pr));
	pr->name = xstrdup("t");
	pr->path = xstrdup(T_INI);
	if (quadrant)
		pvalue_set(&pr->quadrant, quadrant, T_INI ":2");
}

/* Is "key = value  (origin)" among the effective policy's lines? */
static bool
explains(const struct plan *p, const char *line)
{
	size_t i;

	for (i = 0; i < p->nexplain; i++)
		if (streq(p->explain[i], line))
			return true;
	return false;
}

/* Destinations go through the proxy: with mode none or host, refused. */
static void
test_destinations(void)
{
	static const char *const ex[] = { "example.com" };
	static const char *const api[] = { "api.example.com:443" };
	static const struct {
		const char	*name;
		const char	*pmode;		/* profile network.mode */
		int		 omode;		/* -n, or -1 */
		bool		 pallow, pendpoint, oallow, oendpoint;
		const char	*want;		/* NULL: accepted, proxy */
		const char	*mode_origin;	/* of the mode in the plan */
	} rows[] = {
		/* The profile's destinations do not imply proxy. */
		{ "profile allow, mode unset", NULL, -1, true, false, false,
		    false, "network.allow = example.com (t.ini:21) needs "
		    "network mode proxy, not none (built-in default)", NULL },
		{ "profile allow, mode none", "none", -1, true, false, false,
		    false, "network.allow = example.com (t.ini:21) needs "
		    "network mode proxy, not none (t.ini:20)", NULL },
		{ "profile allow, mode host", "host", -1, true, false, false,
		    false, "network.allow = example.com (t.ini:21) needs "
		    "network mode proxy, not host (t.ini:20)", NULL },
		{ "profile endpoint, mode unset", NULL, -1, false, true, false,
		    false, "network.endpoint = api.example.com:443 (t.ini:22) "
		    "needs network mode proxy, not none (built-in default)",
		    NULL },
		{ "profile endpoint, mode host", "host", -1, false, true,
		    false, false, "network.endpoint = api.example.com:443 "
		    "(t.ini:22) needs network mode proxy, not host (t.ini:20)",
		    NULL },
		{ "profile allow, mode proxy", "proxy", -1, true, false, false,
		    false, NULL, T_INI ":20" },
		{ "profile allow and endpoint, mode proxy", "proxy", -1, true,
		    true, false, false, NULL, T_INI ":20" },
		/* --allow and --endpoint imply proxy when the mode is none. */
		{ "--allow, mode unset", NULL, -1, false, false, true, false,
		    NULL, "option --allow (implies proxy)" },
		{ "--allow, profile mode none", "none", -1, false, false, true,
		    false, NULL, "option --allow (implies proxy)" },
		{ "--allow, profile mode proxy", "proxy", -1, false, false,
		    true, false, NULL, T_INI ":20" },
		{ "--allow, profile mode host", "host", -1, false, false, true,
		    false, "network.allow = example.com (option --allow) needs "
		    "network mode proxy, not host (t.ini:20)", NULL },
		{ "--endpoint, mode unset", NULL, -1, false, false, false, true,
		    NULL, "option --endpoint (implies proxy)" },
		{ "--endpoint, profile mode none", "none", -1, false, false,
		    false, true, NULL, "option --endpoint (implies proxy)" },
		{ "--endpoint, profile mode host", "host", -1, false, false,
		    false, true, "network.endpoint = api.example.com:443 "
		    "(option --endpoint) needs network mode proxy, not host "
		    "(t.ini:20)", NULL },
		{ "--allow and --endpoint, mode unset", NULL, -1, false, false,
		    true, true, NULL, "option --allow (implies proxy)" },
		{ "--allow makes the profile's allow work", NULL, -1, true,
		    false, true, false, NULL,
		    "option --allow (implies proxy)" },
		{ "--endpoint makes the profile's allow work", "none", -1,
		    true, false, false, true, NULL,
		    "option --endpoint (implies proxy)" },
		/* -n says the mode: it is never implied over. */
		{ "-n none --allow", NULL, PLAN_NET_NONE, false, false, true,
		    false, "network.allow = example.com (option --allow) needs "
		    "network mode proxy, not none (option --network)", NULL },
		{ "-n host --allow", NULL, PLAN_NET_HOST, false, false, true,
		    false, "network.allow = example.com (option --allow) needs "
		    "network mode proxy, not host (option --network)", NULL },
		{ "-n none --endpoint", "proxy", PLAN_NET_NONE, false, false,
		    false, true, "network.endpoint = api.example.com:443 "
		    "(option --endpoint) needs network mode proxy, not none "
		    "(option --network)", NULL },
		{ "-n none, profile allow", "proxy", PLAN_NET_NONE, true, false,
		    false, false, "network.allow = example.com (t.ini:21) needs "
		    "network mode proxy, not none (option --network)", NULL },
		{ "-n proxy, profile allow, mode host", "host", PLAN_NET_PROXY,
		    true, false, false, false, NULL, "option --network" },
		{ "-n proxy --allow", NULL, PLAN_NET_PROXY, false, false, true,
		    false, NULL, "option --network" },
	};
	size_t i;

	for (i = 0; i < nitems(rows); i++) {
		struct host h = base_host();
		struct cli_opts o = base_opts();
		struct profile pr;
		struct plan p = { .cwd = S("sentinel") };
		char *cause = NULL, *hint = NULL;
		int r;

		/* online: A+C, so that an allow destination may stay. */
		prof(&pr, "online");
		if (rows[i].pmode)
			pvalue_set(&pr.net_mode, rows[i].pmode, c_line[0]);
		if (rows[i].pallow)
			plist_add(&pr.allow, ex[0], c_line[1]);
		if (rows[i].pendpoint)
			plist_add(&pr.endpoint, api[0], c_line[2]);
		if (rows[i].omode >= 0) {
			o.net = (enum plan_net)rows[i].omode;
			o.net_set = true;
		}
		if (rows[i].oallow)
			LIST1(o.allow, ex);
		if (rows[i].oendpoint)
			LIST1(o.endpoint, api);
		r = policy_compute(&o, &h, NULL, &pr, "test", &p, &cause,
		    &hint);
		if (rows[i].want) {
			if (!ok(r == -1 && has(cause, rows[i].want) &&
			    has(hint, "proxy") && streq(p.cwd, "sentinel"),
			    "%s: refused, naming the destination and the mode",
			    rows[i].name))
				diag("got %d, cause: %s", r, cause);
		} else if (ok(r == 0, "%s: accepted", rows[i].name)) {
			autofree char *line = xasprintf("network.mode = proxy  "
			    "(%s)", rows[i].mode_origin);

			ok(p.net == PLAN_NET_PROXY && explains(&p, line),
			    "%s: %s", rows[i].name, line);
			ok(p.landlock.handled_net == 0 &&
			    p.landlock.connect_port == 0 &&
			    (p.clone_flags & CLONE_NEWNET),
			    "%s: no landlock TCP rule: the proxy's port is on "
			    "the sandbox's own loopback", rows[i].name);
		} else
			diag("cause: %s", cause);
		if (r == 0)
			plan_free(&p);
		free(cause);
		free(hint);
		profile_free(&pr);
	}
}

/* An injected credential: the keyholder's options, what the sandbox holds. */
static void
test_inject_plan(void)
{
	static const char *const ini = "[profile]\nquadrant = offline\n"
	    "[environment]\npass = EXAMPLE_*\n[credential]\n"
	    "inject = anthropic api.example.com\nca = ~/ca.pem\n"
	    "source = api-key variable EXAMPLE_API_KEY\n"
	    "source = login file ~/.ex/creds.json ex.oauth\n";
	char *env[] = { (char *)"EXAMPLE_API_KEY=sk-secret",
	    (char *)"EXAMPLE_OTHER=shown", (char *)"ANTHROPIC_BASE_URL=elsewhere",
	    NULL };
	const struct profile_dirs d = { .dir = { NULL, NULL, NULL },
	    .uid = 1000 };
	struct host h = base_host();
	struct cli_opts o = base_opts();
	struct profile pr = { 0 };
	struct plan p = { 0 };
	char *cause = NULL, *hint = NULL;
	bool hidden = false;
	size_t i;

	if (!ok(profile_load_buffer(&d, "/p/t.ini", ini, strlen(ini), &pr,
	    &cause, &hint) == 0, "inject: the profile loads")) {
		diag("cause: %s", cause);
		return;
	}
	if (!compute_pr(&h, &o, env, &pr, &p, "inject")) {
		profile_free(&pr);
		return;
	}
	{
		autofree char *a = join((const char *const *)p.inject.args,
		    SIZE_MAX);

		is_str(a, "[--provider][anthropic][--upstream]"
		    "[api.example.com][--ca][" HOME "/ca.pem][--kind]"
		    "[api-key][--variable][EXAMPLE_API_KEY][--kind][login]"
		    "[--file][" HOME "/.ex/creds.json][--field][ex.oauth]"
		    "[--refresh][platform.claude.com:443]",
		    "inject: the keyholder's options, the sources in order");
	}
	is_int((int)p.keyholder_port, PLAN_KEYHOLDER_PORT,
	    "inject: the keyholder's listener");
	ok(p.landlock.handled_net == 0 && p.landlock.connect_port2 == 0 &&
	    (p.clone_flags & CLONE_NEWNET), "inject: no landlock TCP rule: "
	    "its port is on the sandbox's own loopback");
	ok(env_get(p.envp, "EXAMPLE_API_KEY") == NULL,
	    "inject: a source variable is not passed, though pass names it");
	is_str(env_get(p.envp, "EXAMPLE_OTHER"), "shown",
	    "inject: the other variables pass as before");
	is_str(env_get(p.envp, "ANTHROPIC_BASE_URL"), "http://127.0.0.1:3129",
	    "inject: the base URL replaces the host's");
	is_str(env_get(p.envp, "ANTHROPIC_AUTH_TOKEN"),
	    PLAN_INJECT_PLACEHOLDER, "inject: the agent holds a placeholder");
	for (i = 0; i < p.mounts.n; i++)
		if (p.mounts.v[i].kind == PLAN_MOUNT_HIDE &&
		    streq(p.mounts.v[i].dst, HOME "/.ex/creds.json"))
			hidden = true;
	ok(hidden, "inject: a source file is hidden");
	ok((p.legs & (PLAN_LEG_B | PLAN_LEG_C)) == PLAN_LEG_B,
	    "inject: no leg C (B is the pass of EXAMPLE_*)");
	plan_free(&p);
	profile_free(&pr);
}

/* [command] argument: words after the command's name, for that name only. */
static void
test_command_arguments(void)
{
	static const char *const ini = "[profile]\n[command]\n"
	    "argument = codex -c a=\"1\"  -c b=2\n"
	    "argument = other -x\nargument = codex --flag\n";
	static const char *const run[] = { "/opt/bin/codex", "exec", "hi",
	    NULL };
	static const char *const run2[] = { "codexx", "exec", NULL };
	const struct profile_dirs d = { .dir = { NULL, NULL, NULL },
	    .uid = 1000 };
	struct host h = base_host();
	struct cli_opts o = base_opts();
	struct profile pr = { 0 };
	struct plan p = { 0 };
	char *cause = NULL, *hint = NULL;

	if (!ok(profile_load_buffer(&d, "/p/t.ini", ini, strlen(ini), &pr,
	    &cause, &hint) == 0, "argument: the profile loads")) {
		diag("cause: %s", cause);
		return;
	}
	o.argv = (char **)run;
	if (compute_pr(&h, &o, NULL, &pr, &p, "argument")) {
		autofree char *a = join((const char *const *)p.argv, SIZE_MAX);

		is_str(a, "[/opt/bin/codex][-c][a=\"1\"][-c][b=2][--flag]"
		    "[exec][hi]", "argument: after the name, in order, split "
		    "on blanks");
		ok(explains(&p, "command.argument = other -x  (/p/t.ini:4)"),
		    "argument: explained with its origin");
		plan_free(&p);
	}
	o.argv = (char **)run2;
	if (compute_pr(&h, &o, NULL, &pr, &p, "argument, another name")) {
		autofree char *a = join((const char *const *)p.argv, SIZE_MAX);

		is_str(a, "[codexx][exec]", "argument: another command's name "
		    "gets none");
		plan_free(&p);
	}
	profile_free(&pr);
}

/* The plan's destinations, in order: the profile's, then the options'. */
static void
test_destination_lists(void)
{
	static const char *const oallow[] = { "c.example", "d.example:8443" };
	static const char *const oend[] = { "api2.example:443" };
	struct host h = base_host();
	struct cli_opts o = base_opts();
	struct profile pr;
	struct plan p = { 0 };

	prof(&pr, "online");
	pvalue_set(&pr.net_mode, "proxy", c_line[0]);
	plist_add(&pr.allow, "a.example", c_line[1]);
	plist_add(&pr.allow, "*.b.example", c_line[1]);
	plist_add(&pr.endpoint, "api.example:443", c_line[2]);
	LIST1(o.allow, oallow);
	LIST1(o.endpoint, oend);
	if (compute_pr(&h, &o, NULL, &pr, &p, "destination lists")) {
		autofree char *a = join((const char *const *)p.allow, SIZE_MAX);
		autofree char *e = join((const char *const *)p.endpoint,
		    SIZE_MAX);
		autofree char *w = join((const char *const *)p.legs_why,
		    p.nlegs_why);

		is_str(a, "[a.example][*.b.example][c.example][d.example:8443]",
		    "allow: the profile's, then --allow's, in order");
		is_str(e, "[api.example:443][api2.example:443]",
		    "endpoint: the profile's, then --endpoint's");
		is_str(w, "[A: untrusted = yes  (built-in default)]"
		    "[C: network.allow = a.example  (t.ini:21)]"
		    "[C: network.allow = *.b.example  (t.ini:21)]"
		    "[C: network.allow = c.example  (option --allow)]"
		    "[C: network.allow = d.example:8443  (option --allow)]"
		    "[C: network.endpoint = api.example:443  (t.ini:22)]"
		    "[C: network.endpoint = api2.example:443  (option "
		    "--endpoint)]", "every destination is a reason for C, a "
		    "raw endpoint too");
		ok(explains(&p, "network.allow = c.example  (option --allow)") &&
		    explains(&p, "network.endpoint = api2.example:443  "
		    "(option --endpoint)") && explains(&p,
		    "network.allow = a.example  (t.ini:21)"),
		    "the effective policy lists each with its origin");
		plan_free(&p);
	}
	profile_free(&pr);

	/* A raw endpoint is C, however it is named; the hint says why. */
	{
		static const char *const same[] = { "api.example:443" };
		struct cli_opts o2 = base_opts();
		char *cause0 = NULL, *hint0 = NULL;
		int r0;

		prof(&pr, "sealed");
		pvalue_set(&pr.net_mode, "proxy", c_line[0]);
		plist_add(&pr.endpoint, "api.example:443", c_line[2]);
		LIST1(o2.allow, same);
		r0 = policy_compute(&o2, &h, NULL, &pr, "test", &p, &cause0,
		    &hint0);
		ok(r0 == -1 && has(cause0, "leg C is granted by "
		    "network.endpoint = api.example:443"), "a raw endpoint in "
		    "sealed: refused, leg C");
		ok(has(hint0, "a raw endpoint carries whatever the agent sends") &&
		    has(hint0, "[credential] inject"), "the hint names "
		    "injection");
		if (r0 == 0)
			plan_free(&p);
		free(cause0);
		free(hint0);
		profile_free(&pr);
		/* Near misses are other destinations: C. */
		{
			static const char *const near[] = { "api.example",
			    "api.example:444", "*.api.example:443" };
			size_t i;

			for (i = 0; i < nitems(near); i++) {
				struct cli_opts o3 = base_opts();
				char *cause = NULL, *hint = NULL;
				int r;

				prof(&pr, "sealed");
				pvalue_set(&pr.net_mode, "proxy", c_line[0]);
				plist_add(&pr.endpoint, "api.example:443",
				    c_line[2]);
				o3.allow.v = (const char **)&near[i];
				o3.allow.n = 1;
				r = policy_compute(&o3, &h, NULL, &pr, "test",
				    &p, &cause, &hint);
				ok(r == -1 && has(cause, "leg C"),
				    "--allow %s beside endpoint api.example:443 "
				    "is another destination: C, refused in "
				    "sealed", near[i]);
				if (r == 0)
					plan_free(&p);
				free(cause);
				free(hint);
				profile_free(&pr);
			}
		}
	}
}

/* Options override the profile's scalars; lists add up. */
static void
test_overrides(void)
{
	static const struct {
		const char	*name;
		const char	*pmode, *pbackend;
		int		 omode, obackend;	/* -1: not given */
		enum plan_net	 net;
		const char	*mode_line, *backend_line, *reason;
		enum plan_backend backend;
	} rows[] = {
		{ "nothing set", NULL, NULL, -1, -1, PLAN_NET_NONE,
		    "network.mode = none  (built-in default)",
		    "backend = auto  (built-in default)",
		    "native (auto: user namespaces work)", PLAN_BACKEND_NATIVE },
		{ "profile host, -n none", "host", NULL, PLAN_NET_NONE, -1,
		    PLAN_NET_NONE, "network.mode = none  (option --network)",
		    "backend = auto  (built-in default)", NULL,
		    PLAN_BACKEND_NATIVE },
		{ "profile proxy, -n none", "proxy", NULL, PLAN_NET_NONE, -1,
		    PLAN_NET_NONE, "network.mode = none  (option --network)",
		    NULL, NULL, PLAN_BACKEND_NATIVE },
		{ "profile none, -n host", "none", NULL, PLAN_NET_HOST, -1,
		    PLAN_NET_HOST, "network.mode = host  (option --network)",
		    NULL, NULL, PLAN_BACKEND_NATIVE },
		{ "profile host, -n proxy", "host", NULL, PLAN_NET_PROXY, -1,
		    PLAN_NET_PROXY, "network.mode = proxy  (option --network)",
		    NULL, NULL, PLAN_BACKEND_NATIVE },
		{ "profile host", "host", NULL, -1, -1, PLAN_NET_HOST,
		    "network.mode = host  (t.ini:20)", NULL, NULL,
		    PLAN_BACKEND_NATIVE },
		{ "profile bwrap, --backend native", NULL, "bwrap", -1,
		    PLAN_BACKEND_NATIVE, PLAN_NET_NONE, NULL,
		    "backend = native  (option --backend)",
		    "native (asked for: option --backend)",
		    PLAN_BACKEND_NATIVE },
		{ "profile landlock, --backend auto", NULL, "landlock", -1,
		    PLAN_BACKEND_AUTO, PLAN_NET_NONE, NULL,
		    "backend = auto  (option --backend)",
		    "native (auto: user namespaces work)", PLAN_BACKEND_NATIVE },
		{ "profile native, --backend bwrap", NULL, "native", -1,
		    PLAN_BACKEND_BWRAP, PLAN_NET_NONE, NULL,
		    "backend = bwrap  (option --backend)",
		    "bwrap (asked for: option --backend)", PLAN_BACKEND_BWRAP },
		{ "profile native", NULL, "native", -1, -1, PLAN_NET_NONE,
		    NULL, "backend = native  (t.ini:30)",
		    "native (asked for: t.ini:30)", PLAN_BACKEND_NATIVE },
		{ "profile auto, --backend landlock", NULL, "auto", -1,
		    PLAN_BACKEND_LANDLOCK, PLAN_NET_NONE, NULL,
		    "backend = landlock  (option --backend)",
		    "landlock (asked for: option --backend)",
		    PLAN_BACKEND_LANDLOCK },
	};
	size_t i;

	for (i = 0; i < nitems(rows); i++) {
		struct host h = base_host();
		struct cli_opts o = base_opts();
		struct profile pr;
		struct plan p = { 0 };

		h.bwrap.found = h.bwrap.probed = true;
		/* online: A+C, so that -n host may stay. */
		prof(&pr, "online");
		if (rows[i].pmode)
			pvalue_set(&pr.net_mode, rows[i].pmode, c_line[0]);
		if (rows[i].pbackend)
			pvalue_set(&pr.backend, rows[i].pbackend, T_INI ":30");
		if (rows[i].omode >= 0) {
			o.net = (enum plan_net)rows[i].omode;
			o.net_set = true;
		}
		if (rows[i].obackend >= 0) {
			o.backend = (enum plan_backend)rows[i].obackend;
			o.backend_set = true;
		}
		if (!compute_pr(&h, &o, NULL, &pr, &p, rows[i].name)) {
			profile_free(&pr);
			continue;
		}
		is_int(p.net, rows[i].net, "%s: network %s", rows[i].name,
		    plan_net_name(rows[i].net));
		is_int(p.legs, PLAN_LEG_A | (rows[i].net == PLAN_NET_HOST ?
		    PLAN_LEG_C : 0), "%s: the legs follow the effective mode",
		    rows[i].name);
		if (rows[i].mode_line)
			ok(explains(&p, rows[i].mode_line), "%s: %s",
			    rows[i].name, rows[i].mode_line);
		if (rows[i].backend_line)
			ok(explains(&p, rows[i].backend_line), "%s: %s",
			    rows[i].name, rows[i].backend_line);
		if (rows[i].reason)
			is_str(p.backend_reason, rows[i].reason,
			    "%s: backend reason", rows[i].name);
		is_int(p.backend, rows[i].backend, "%s: the backend planned",
		    rows[i].name);
		plan_free(&p);
		profile_free(&pr);
	}

	/* -n none drops the C that the profile's mode host granted. */
	{
		struct host h = base_host();
		struct cli_opts o = base_opts();
		struct profile pr;
		struct plan p = { 0 };

		prof(&pr, "offline");
		pvalue_set(&pr.ws_private, "yes", T_INI ":10");
		pvalue_set(&pr.net_mode, "host", c_line[0]);
		o.net = PLAN_NET_NONE;
		o.net_set = true;
		if (compute_pr(&h, &o, NULL, &pr, &p, "offline, private, "
		    "profile host, -n none")) {
			is_int(p.legs, PLAN_LEG_A | PLAN_LEG_B, "-n none beats "
			    "the profile's mode host: A+B, no C");
			plan_free(&p);
		}
		profile_free(&pr);
	}
}

/* "~" and "~/..." are the host's home; home entries are under it. */
static bool
fake_exists(const char *path)
{
	return !streq(path, "/srv/missing");
}

/* Rules that cannot be applied as written: refused with their origin. */
static void
test_rules_refused(void)
{
	static const struct {
		const char	*quadrant;
		const char	*key, *a, *key2, *b;
		const char	*want;
	} rows[] = {
		{ "sealed", "hide", "/", NULL, NULL,
		    "t.ini:7: filesystem.hide = /: the whole host cannot be "
		    "hidden" },
		{ "sealed", "hide", "/srv/proj", NULL, NULL,
		    "t.ini:7: filesystem.hide = /srv/proj names the workspace" },
		{ "offline", "scratch", "/srv/proj", NULL, NULL,
		    "t.ini:7: filesystem.scratch = /srv/proj names the "
		    "workspace" },
		{ "offline", "read-only", "/srv/data", "hide", "/srv/data",
		    "t.ini:7: filesystem.read-only = /srv/data, and t.ini:8: "
		    "filesystem.hide names the same path" },
		{ "offline", "scratch", "/srv/data", "direct", "/srv/data",
		    "t.ini:7: filesystem.scratch = /srv/data, and t.ini:8: "
		    "filesystem.direct names the same path" },
		{ "trusted", "direct", "/srv/missing", NULL, NULL,
		    "t.ini:7: filesystem.direct = /srv/missing: no such file "
		    "or directory" },
		/* Allowed: a path inside another, or the same in one list. */
		{ "offline", "read-only", "/srv/data", "hide", "/srv/data/keys",
		    NULL },
		{ "sealed", "hide", "/srv/proj/secret", NULL, NULL, NULL },
		{ "trusted", "direct", "/srv/out", "direct", "/srv/out", NULL },
	};
	size_t i;

	for (i = 0; i < nitems(rows); i++) {
		struct host h = base_host();
		struct cli_opts o = base_opts();
		struct profile pr;
		struct plan p = { 0 };
		char *cause = NULL, *hint = NULL;
		int r;

		prof(&pr, rows[i].quadrant);
		if (streq(rows[i].quadrant, "trusted"))
			pvalue_set(&pr.untrusted, "no", T_INI ":3");
		plist_add(streq(rows[i].key, "hide") ? &pr.hide :
		    streq(rows[i].key, "scratch") ? &pr.scratch :
		    streq(rows[i].key, "direct") ? &pr.direct : &pr.read_only,
		    rows[i].a, T_INI ":7");
		if (rows[i].key2)
			plist_add(streq(rows[i].key2, "hide") ? &pr.hide :
			    streq(rows[i].key2, "direct") ? &pr.direct :
			    &pr.read_only, rows[i].b, T_INI ":8");
		h.cwd = h.git_top = S("/srv/proj");
		h.path_exists = fake_exists;
		r = policy_compute(&o, &h, NULL, &pr, "test", &p, &cause,
		    &hint);
		if (rows[i].want) {
			if (!ok(r == -1 && has(cause, rows[i].want) &&
			    hint != NULL, "rules: %s = %s%s%s: refused with "
			    "its origin", rows[i].key, rows[i].a,
			    rows[i].key2 ? ", " : "", rows[i].key2 ?
			    rows[i].key2 : ""))
				diag("got %d, cause: %s", r, cause);
		} else {
			if (!ok(r == 0, "rules: %s = %s%s%s: accepted",
			    rows[i].key, rows[i].a, rows[i].key2 ? ", " : "",
			    rows[i].key2 ? rows[i].key2 : ""))
				diag("cause: %s", cause);
			if (r == 0)
				plan_free(&p);
		}
		free(cause);
		free(hint);
		profile_free(&pr);
	}
}

static void
test_tilde(void)
{
	static const char *const oro[] = { "~/notes", "~" };
	static const char *const ohide[] = { "~/.ssh", "/srv/keys" };
	static const char *const oscratch[] = { "~/.cache/go" };
	static const char *const odirect[] = { "~/out" };
	struct host h = base_host();
	struct cli_opts o = base_opts();
	struct profile pr;
	struct plan p = { 0 };

	/* trusted, untrusted = no: B+C, so every path may stay. */
	prof(&pr, "trusted");
	pvalue_set(&pr.untrusted, "no", T_INI ":3");
	plist_add(&pr.read_only, "~/.config/git", T_INI ":10");
	plist_add(&pr.home, ".gitconfig", T_INI ":11");
	plist_add(&pr.home, ".config/gh/hosts.yml", T_INI ":12");
	plist_add(&pr.hide, "~/.aws", T_INI ":13");
	plist_add(&pr.scratch, "~/.cache", T_INI ":14");
	plist_add(&pr.direct, "~/.cache/out", T_INI ":15");
	plist_add(&pr.cred_file, "~/.config/agent/token", T_INI ":16");
	LIST1(o.ro, oro);
	LIST1(o.hide, ohide);
	LIST1(o.scratch, oscratch);
	LIST1(o.direct, odirect);
	h.home = S("/home/bob");
	h.pw_home = S("/export/home/bob");
	h.state_home = S("/home/bob/.local/state");
	h.cwd = S("/srv/proj");
	h.git_top = S("/srv/proj");
	if (compute_pr(&h, &o, NULL, &pr, &p, "tilde")) {
		static const char *const want[] = {
			"filesystem.read-only = /home/bob/.config/git  (t.ini:10)",
			"filesystem.read-only = /home/bob/.gitconfig  (t.ini:11)",
			"filesystem.read-only = /home/bob/.config/gh/hosts.yml  "
			    "(t.ini:12)",
			"filesystem.read-only = /home/bob/notes  (option --ro)",
			"filesystem.read-only = /home/bob  (option --ro)",
			"filesystem.hide = /home/bob/.aws  (t.ini:13)",
			"filesystem.hide = /home/bob/.ssh  (option --hide)",
			"filesystem.hide = /srv/keys  (option --hide)",
			"filesystem.scratch = /home/bob/.cache  (t.ini:14)",
			"filesystem.scratch = /home/bob/.cache/go  "
			    "(option --scratch)",
			"filesystem.direct = /home/bob/.cache/out  (t.ini:15)",
			"filesystem.direct = /home/bob/out  (option --direct)",
			"credential.file = /home/bob/.config/agent/token  "
			    "(t.ini:16)",
		};
		size_t i, j, tilde = 0;

		for (i = 0; i < nitems(want); i++)
			ok(explains(&p, want[i]), "tilde: %s", want[i]);
		for (i = 0; i < p.nexplain; i++)
			tilde += strchr(p.explain[i], '~') != NULL;
		is_int(tilde, 0, "tilde: no '~' is left in the effective "
		    "policy");
		for (i = 0; i < p.mounts.n; i++)
			tilde += strchr(p.mounts.v[i].dst, '~') != NULL ||
			    (p.mounts.v[i].src &&
			    strchr(p.mounts.v[i].src, '~') != NULL);
		is_int(tilde, 0, "tilde: no '~' is left in the mounts");
		for (i = 0; i < p.nlegs_why; i++)
			tilde += strchr(p.legs_why[i], '~') != NULL;
		is_int(tilde, 0, "tilde: no '~' is left in the legs");
		for (i = j = 0; i < p.nlegs_why; i++)
			j += p.legs_why[i][0] == 'B';
		/* 5 read-only, 2 scratch, 2 direct, and the credential. */
		is_int(j, 10, "tilde: every path under the home is B, the "
		    "credential too (C is held)");
		is_int(p.legs, PLAN_LEG_B | PLAN_LEG_C, "tilde: B+C");
		ok(p.warn_trusted, "tilde: trusted warns");
		plan_free(&p);
	}
	profile_free(&pr);
}

/* Compute with a host and a backend; NULL cause when it is accepted. */
static char *
try_backend(const struct host *h, struct cli_opts *o, const struct profile *pr,
    const char *want, struct plan *p)
{
	char *cause = NULL, *hint = NULL;
	int w;

	for (w = 0; syntax_backends[w]; w++)
		if (streq(syntax_backends[w], want)) {
			o->backend = (enum plan_backend)w;
			o->backend_set = true;
		}
	memset(p, 0, sizeof(*p));
	if (policy_compute(o, h, NULL, pr, "test", p, &cause, &hint) < 0) {
		free(hint);
		return cause;
	}
	free(hint);
	return NULL;
}

/* auto's order, each backend's refusals, and what each one plans. */
static void
test_backends(void)
{
	static const struct {
		const char	*name;
		bool		 userns, bwrap_found, bwrap_ok;
		int		 abi;
		const char	*want, *quadrant;
		const char	*backend;	/* NULL: refused */
		const char	*says;		/* in the reason or the cause */
	} rows[] = {
		{ "auto, user namespaces work", true, true, true, 6, "auto",
		    "sealed", "native", "native (auto: user namespaces work)" },
		{ "auto, no user namespaces, bwrap works", false, true, true,
		    6, "auto", "sealed", "bwrap", "bwrap (auto: no user "
		    "namespaces for confine: user.max_user_namespaces is 0; "
		    BWRAP_PATH " can build the sandbox)" },
		{ "auto, no user namespaces, no bwrap", false, false, false, 6,
		    "auto", "sealed", "landlock", "landlock (auto: no user "
		    "namespaces: user.max_user_namespaces is 0; bwrap: not "
		    "installed)" },
		{ "auto, no user namespaces, bwrap fails", false, true, false,
		    6, "auto", "sealed", "landlock", "bwrap: it failed" },
		{ "auto, nothing works", false, true, false, 2, "auto",
		    "sealed", NULL, "no backend can confine here: user "
		    "namespaces: user.max_user_namespaces is 0; bwrap: it "
		    "failed; landlock: ABI 2, 6 needed" },
		{ "auto, landlock only, proxy", false, false, false, 6, "auto",
		    "online", NULL, "cannot offer network mode proxy" },
		{ "native asked for, no user namespaces", false, true, true, 6,
		    "native", "sealed", NULL, "backend native (option "
		    "--backend): user namespaces cannot be used here: "
		    "user.max_user_namespaces is 0" },
		{ "bwrap asked for, not installed", true, false, false, 6,
		    "bwrap", "sealed", NULL, "is not installed" },
		{ "bwrap asked for, it fails", true, true, false, 6, "bwrap",
		    "sealed", NULL, "backend bwrap (option --backend): it "
		    "failed" },
		{ "landlock asked for, ABI 2", true, true, true, 2, "landlock",
		    "sealed", NULL, "needs landlock ABI 6 or later" },
		{ "landlock asked for, ABI 5", true, true, true, 5, "landlock",
		    "sealed", NULL, "signal scoping" },
		{ "landlock asked for, proxy", true, true, true, 6, "landlock",
		    "online", NULL, "without a network namespace of its own" },
		{ "bwrap asked for, proxy", true, true, true, 6, "bwrap",
		    "online", "bwrap", "bwrap (asked for: option --backend)" },
	};
	size_t i;

	for (i = 0; i < nitems(rows); i++) {
		static const char *const allow[] = { "example.com" };
		struct host h = base_host();
		struct cli_opts o = base_opts();
		struct profile pr;
		struct plan p;
		autofree char *cause = NULL;

		prof(&pr, rows[i].quadrant);
		if (streq(rows[i].quadrant, "online"))
			LIST1(o.allow, allow);
		if (!rows[i].userns)
			h.userns_why = S("user.max_user_namespaces is 0");
		h.bwrap.found = rows[i].bwrap_found;
		h.bwrap.probed = true;
		if (rows[i].bwrap_found && !rows[i].bwrap_ok)
			h.bwrap.why = S("it failed");
		h.landlock_abi = rows[i].abi;
		cause = try_backend(&h, &o, &pr, rows[i].want, &p);
		if (rows[i].backend == NULL) {
			if (!ok(cause && has(cause, rows[i].says), "%s: refused: "
			    "%s", rows[i].name, rows[i].says))
				diag("cause: %s", cause ? cause : "(accepted)");
		} else if (ok(cause == NULL, "%s: accepted", rows[i].name)) {
			is_str(syntax_backends[p.backend], rows[i].backend,
			    "%s: backend", rows[i].name);
			if (!ok(has(p.backend_reason, rows[i].says), "%s: the "
			    "reason says %s", rows[i].name, rows[i].says))
				diag("reason: %s", p.backend_reason);
			is_int(p.nweaker > 0, streq(rows[i].backend,
			    "landlock"), "%s: what is weaker is said for "
			    "landlock only", rows[i].name);
			is_int(p.bwrap_unshare_user, rows[i].userns &&
			    streq(rows[i].backend, "bwrap"), "%s: bwrap gets "
			    "--unshare-user only where user namespaces work",
			    rows[i].name);
			plan_free(&p);
		} else
			diag("cause: %s", cause);
		h.userns_why = NULL;
		h.bwrap.why = NULL;
		profile_free(&pr);
	}
}

static const struct plan_mount *
find_mount(const struct plan *p, enum plan_mount_kind kind, const char *dst)
{
	size_t i;

	for (i = 0; i < p->mounts.n; i++)
		if (p->mounts.v[i].kind == kind &&
		    streq(p->mounts.v[i].dst, dst))
			return &p->mounts.v[i];
	return NULL;
}

/* bwrap: the same mounts, but copies where native has overlays. */
static void
test_bwrap_plan(void)
{
	struct host h = base_host();
	struct cli_opts o = base_opts();
	struct profile pr;
	struct plan p;
	autofree char *cause = NULL;
	const struct plan_mount *m;
	size_t i, overlays = 0;

	prof(&pr, "trusted");
	pvalue_set(&pr.untrusted, "no", T_INI ":3");
	plist_add(&pr.scratch, "~/.cache/go", T_INI ":13");
	h.bwrap.found = h.bwrap.probed = true;
	if ((cause = try_backend(&h, &o, &pr, "bwrap", &p)) != NULL) {
		ok(false, "bwrap plan: accepted (%s)", cause);
		profile_free(&pr);
		return;
	}
	for (i = 0; i < p.mounts.n; i++)
		overlays += p.mounts.v[i].kind == PLAN_MOUNT_OVERLAY ||
		    p.mounts.v[i].kind == PLAN_MOUNT_SCRATCH ||
		    p.mounts.v[i].kind == PLAN_MOUNT_LINK;
	is_int(overlays, 1, "bwrap plan: one overlay, no scratch overlay");
	m = find_mount(&p, PLAN_MOUNT_OVERLAY, PROJ);
	ok(m && streq(m->upper, SESSION "/upper") &&
	    streq(m->work, SESSION "/work") && streq(m->src, PROJ),
	    "bwrap plan: the workspace is an overlay, its layers in the "
	    "session");
	ok(plan_ws_overlay(&p), "bwrap plan: the workspace's layout is an "
	    "overlay");
	m = find_mount(&p, PLAN_MOUNT_COPY, HOME "/.cache/go");
	ok(m && has(m->upper, SESSION "/scratch/") && m->work == NULL,
	    "bwrap plan: a scratch path is a copy in the session's scratch/");
	is_int(p.clone_flags, 0, "bwrap plan: confine makes no namespace");
	is_str(p.cwd, PROJ "/lib", "bwrap plan: the command starts where "
	    "the caller is");
	is_str(env_get(p.envp, "HOME"), HOME, "bwrap plan: HOME is the "
	    "caller's (a tmpfs inside)");
	plan_free(&p);

	/* A setuid bwrap runs where confine can make no user namespace. */
	h.bwrap.setuid = true;
	if ((cause = try_backend(&h, &o, &pr, "bwrap", &p)) != NULL) {
		ok(false, "setuid bwrap plan: accepted (%s)", cause);
		profile_free(&pr);
		return;
	}
	m = find_mount(&p, PLAN_MOUNT_COPY, PROJ);
	ok(m && streq(m->upper, SESSION "/upper") && m->work == NULL &&
	    find_mount(&p, PLAN_MOUNT_OVERLAY, PROJ) == NULL,
	    "setuid bwrap plan: the workspace is a copy in the session's "
	    "upper/");
	ok(!plan_ws_overlay(&p), "setuid bwrap plan: the layout is a copy");
	plan_free(&p);
	profile_free(&pr);
}

/* landlock: nothing mounted; the home and the workspace in the session. */
static void
test_landlock_plan(void)
{
	struct host h = base_host();
	struct cli_opts o = base_opts();
	struct profile pr;
	struct plan p;
	autofree char *cause = NULL;
	const struct plan_mount *m;
	const struct plan_path *root;
	size_t i, j;
	bool gitconfig = false, token_ro = false;

	/* offline: no leg C, so the whole host, read-only, but the hidden. */
	prof(&pr, "offline");
	plist_add(&pr.scratch, "~/.cache/go", T_INI ":13");
	plist_add(&pr.home, ".gitconfig", T_INI ":11");
	plist_add(&pr.hide, "/srv/keys", T_INI ":12");
	if ((cause = try_backend(&h, &o, &pr, "landlock", &p)) != NULL) {
		ok(false, "landlock plan: accepted (%s)", cause);
		profile_free(&pr);
		return;
	}
	is_int(p.clone_flags, 0, "landlock plan: no namespaces");
	is_str(p.cwd, SESSION "/upper/lib", "landlock plan: the command "
	    "starts in the copy, where the caller is in the workspace");
	is_str(env_get(p.envp, "HOME"), SESSION "/home", "landlock plan: "
	    "HOME is the session's");
	is_str(env_get(p.envp, "TMPDIR"), SESSION "/tmp", "landlock plan: "
	    "TMPDIR is the session's");
	m = find_mount(&p, PLAN_MOUNT_COPY, PROJ);
	ok(m && streq(m->upper, SESSION "/upper"), "landlock plan: the "
	    "workspace is a copy in the session");
	m = find_mount(&p, PLAN_MOUNT_COPY, HOME "/.cache/go");
	ok(m && streq(m->upper, SESSION "/home/.cache/go"), "landlock plan: "
	    "a scratch path under the home is a copy in the session's home");
	m = find_mount(&p, PLAN_MOUNT_LINK, HOME "/.gitconfig");
	ok(m && streq(m->upper, SESSION "/home/.gitconfig"), "landlock plan: "
	    "a read-only path under the home is a link in the session's home");
	for (i = 0; i < p.mounts.n; i++)
		ok(p.mounts.v[i].kind == PLAN_MOUNT_COPY ||
		    p.mounts.v[i].kind == PLAN_MOUNT_LINK, "landlock plan: "
		    "%s is prepared, not mounted", p.mounts.v[i].dst);
	root = &p.landlock.paths[0];
	for (i = 0; i < p.landlock.npaths; i++)
		if (streq(p.landlock.paths[i].path, "/"))
			root = &p.landlock.paths[i];
		else if (streq(p.landlock.paths[i].path, HOME "/.gitconfig"))
			gitconfig = p.landlock.paths[i].access ==
			    (PLAN_FS_READ | PLAN_FS_EXEC);
	ok(gitconfig, "landlock plan: the linked file is granted read-only");
	ok(streq(root->path, "/") && root->access == (PLAN_FS_READ |
	    PLAN_FS_EXEC), "landlock plan: the host is read-only");
	{
		static const char *const want[] = { HOME, "/tmp", "/dev",
		    "/run", "/run/user/1000", "/srv/keys" };

		for (i = 0; i < nitems(want); i++) {
			bool found = false;

			for (j = 0; root->except && root->except[j]; j++)
				found |= streq(root->except[j], want[i]);
			ok(found, "landlock plan: %s is left out of /", want[i]);
		}
	}
	ok(p.sys.nfamilies == 1 && p.sys.families[0] == AF_UNIX,
	    "landlock plan: network none is no socket family but AF_UNIX");
	ok(p.sys.unix_pairs_only, "landlock plan: ABI < 9: socket(AF_UNIX) "
	    "is refused");
	ok(p.sys.no_kill_all, "landlock plan: kill(-1) is refused");
	ok(p.landlock.handled_net != 0 && p.landlock.connect_port == 0,
	    "landlock plan: TCP handled, nothing granted");
	plan_free(&p);
	(void)token_ro;

	/* Outside the home, a scratch path cannot be given a copy. */
	plist_add(&pr.scratch, "/var/cache/x", T_INI ":14");
	cause = try_backend(&h, &o, &pr, "landlock", &p);
	ok(cause && has(cause, "scratch = /var/cache/x (t.ini:14)"),
	    "landlock plan: a scratch path outside the home is refused");
	if (cause == NULL)
		plan_free(&p);
	profile_free(&pr);
}

/* A kept path's landlock rule, by where it points. */
static const struct plan_path *
rule_at(const struct plan *p, const char *path)
{
	size_t i;

	for (i = 0; i < p->landlock.npaths; i++)
		if (streq(p->landlock.paths[i].path, path))
			return &p->landlock.paths[i];
	return NULL;
}

/*
 * Persistent paths: kept in the profile's state, an entry a path, named
 * by the path alone; native's layers, the copy backends' copy; scratch
 * with one line when another session holds the state.
 */
static void
test_persistent(void)
{
	struct host h = base_host();
	struct cli_opts o = base_opts();
	struct profile pr;
	struct plan p, q;
	autofree char *cause = NULL, *entry = NULL, *entry2 = NULL, *d = NULL;
	const struct plan_mount *m;
	const struct plan_path *r;
	static const char *const backends[] = { "native", "bwrap",
	    "landlock" };
	size_t b;

	prof(&pr, "offline");
	plist_add(&pr.persistent, "~/.agent", T_INI ":13");
	plist_add(&pr.persistent, "~/.agent.json", T_INI ":14");
	plist_add(&pr.hide, "~/.agent/.credentials.json", T_INI ":15");
	plist_add(&pr.read_only, "~/.agent/local", T_INI ":17");
	h.bwrap.found = h.bwrap.probed = true;
	d = policy_state_dir(STATE, &pr);
	is_str(d, STATE "/confine/state/t", "persistent: the state of a "
	    "named profile is named after it");
	for (b = 0; b < nitems(backends); b++) {
		const char *w = backends[b];
		autofree char *kept = NULL;

		if ((cause = try_backend(&h, &o, &pr, w, &p)) != NULL) {
			ok(false, "persistent, %s: accepted (%s)", w, cause);
			free(steal_ptr(&cause));
			continue;
		}
		is_str(p.state_dir, STATE "/confine/state/t", "persistent, "
		    "%s: the profile's state directory", w);
		ok(p.state_busy == NULL, "persistent, %s: nothing said", w);
		ok(explains(&p, "filesystem.persistent = " HOME "/.agent  "
		    "(t.ini:13)"), "persistent, %s: explained", w);
		m = find_mount(&p, streq(w, "native") ? PLAN_MOUNT_SCRATCH :
		    streq(w, "bwrap") ? PLAN_MOUNT_COPY : PLAN_MOUNT_LINK,
		    HOME "/.agent");
		if (!ok(m && m->state, "persistent, %s: ~/.agent is kept", w))
			goto next;
		ok(has(m->state, STATE "/confine/state/t/") &&
		    strlen(m->state) == strlen(STATE "/confine/state/t/") + 16,
		    "persistent, %s: its entry is in the state, by a hash", w);
		if (entry == NULL)
			entry = xstrdup(m->state);
		is_str(m->state, entry, "persistent, %s: the same entry on "
		    "every backend", w);
		kept = path_join(entry, "copy");
		if (streq(w, "native")) {
			autofree char *up = path_join(entry, "upper");
			autofree char *wk = path_join(entry, "work");

			ok(streq(m->upper, up) && streq(m->work, wk),
			    "persistent, native: the layers are the entry's");
		} else if (streq(w, "bwrap")) {
			ok(streq(m->upper, kept) && m->work == NULL,
			    "persistent, bwrap: the copy is the entry's");
			ok(m->except && m->except[0] &&
			    streq(m->except[0], ".credentials.json") &&
			    !m->except[1], "persistent, bwrap: the hidden "
			    "file is left out of the copy");
		} else {
			ok(streq(m->upper, SESSION "/home/.agent"),
			    "persistent, landlock: a link in the session's "
			    "home");
			ok(m->except && m->except[0] && m->except[1] &&
			    streq(m->except[0], ".credentials.json") &&
			    streq(m->except[1], "local") && !m->except[2],
			    "persistent, landlock: the hidden file and the "
			    "read-only path (a link) are left out of the copy");
			r = rule_at(&p, kept);
			ok(r && r->access == (PLAN_FS_READ | PLAN_FS_WRITE |
			    PLAN_FS_EXEC), "persistent, landlock: the kept "
			    "copy is writable");
		}
		if (!streq(w, "landlock"))
			ok(find_mount(&p, PLAN_MOUNT_HIDE, HOME
			    "/.agent/.credentials.json") != NULL,
			    "persistent, %s: the hidden file is covered", w);
		m = find_mount(&p, streq(w, "native") ? PLAN_MOUNT_SCRATCH :
		    streq(w, "bwrap") ? PLAN_MOUNT_COPY : PLAN_MOUNT_LINK,
		    HOME "/.agent.json");
		ok(m && m->state && !streq(m->state, entry), "persistent, %s: "
		    "a second path, a second entry", w);
		if (m && entry2 == NULL)
			entry2 = xstrdup(m->state);
		ok(m && streq(m->state, entry2), "persistent, %s: the file's "
		    "entry is the same on every backend", w);
	next:
		plan_free(&p);
	}

	/* Another session holds the state: scratch, said once. */
	h.state_busy = S("20231114-221000-00000001");
	if ((cause = try_backend(&h, &o, &pr, "native", &q)) == NULL) {
		ok(q.state_dir == NULL, "persistent, busy: no state kept");
		is_str(q.state_busy, "state of t in use by session "
		    "20231114-221000-00000001: this session's changes to "
		    "~/.agent, ~/.agent.json are discarded", "persistent, "
		    "busy: the line says so");
		m = find_mount(&q, PLAN_MOUNT_SCRATCH, HOME "/.agent");
		ok(m && m->state == NULL && has(m->upper, SESSION
		    "/scratch/"), "persistent, busy: plain scratch in the "
		    "session");
		plan_free(&q);
	} else
		ok(false, "persistent, busy: accepted (%s)", cause);
	h.state_busy = NULL;

	/* A profile named by its file: the state by the path's hash. */
	free(pr.name);
	pr.name = xstrdup("./my profile.ini");
	free(d);
	d = policy_state_dir(STATE, &pr);
	ok(has(d, STATE "/confine/state/file-") && strlen(d) ==
	    strlen(STATE "/confine/state/file-") + 16, "persistent: a "
	    "profile's file gives a state named by its hash");
	/* landlock: only the home's paths can be kept. */
	plist_add(&pr.persistent, "/var/lib/agent", T_INI ":16");
	free(cause);
	cause = try_backend(&h, &o, &pr, "landlock", &p);
	ok(cause && has(cause, "persistent = /var/lib/agent (t.ini:16)"),
	    "persistent, landlock: a path outside the home is refused");
	if (cause == NULL)
		plan_free(&p);
	profile_free(&pr);
}

/* Does bwrap's command line give the sandbox a network namespace? */
static bool
bwrap_unshares_net(const struct plan *p)
{
	struct bwrap_in in = { .exe_fd = 10, .stage_fd = 11, .status_fd = 12,
	    .proxy_fd = -1, .pty_fd = 14, .notify_fd = 15, .seccomp_fd = 13,
	    .empty_file = SESSION "/empty" };
	char **argv = bwrap_argv(p, &in);
	bool unshare = false, share = false;
	size_t i;

	for (i = 0; argv[i]; i++) {
		unshare |= streq(argv[i], "--unshare-net") ||
		    streq(argv[i], "--unshare-all");
		share |= streq(argv[i], "--share-net");
	}
	strv_free(argv);
	return unshare && !share;
}

/*
 * Landlock's TCP rules per backend and network mode.  They name ports,
 * not addresses; where the sandbox has a network namespace of its own
 * (native, bwrap: none and proxy) its loopback is its own, so no TCP
 * right is handled and a server inside answers a client inside; mode
 * host has no rule, as before; the landlock backend (no namespace)
 * handles TCP and grants nothing.  Never unhandled where the sandbox
 * would share the host's loopback but in mode host.  The dump says which.
 */
static void
test_tcp_plan(void)
{
	static const char *const allow[] = { "example.com" };
	static const char own[] = "  tcp: not handled: bind, listen and "
	    "connect on any port of the sandbox's own loopback, in a network "
	    "namespace of its own (no host address in it, the host's loopback "
	    "neither)\n";
	static const char host[] = "  tcp: not handled: the host's network "
	    "(mode host)\n";
	static const char denied[] = "  tcp: bind and connect denied on every "
	    "port, loopback included (no network namespace of the sandbox's "
	    "own)\n";
	static const struct {
		const char	*backend;
		enum plan_net	 net;
		int		 abi;
		bool		 own_net;	/* a network namespace of
						   the sandbox's own */
		uint64_t	 handled;
		const char	*says;
	} rows[] = {
		{ "native", PLAN_NET_NONE, 4, true, 0, own },
		{ "native", PLAN_NET_NONE, 9, true, 0, own },
		{ "native", PLAN_NET_PROXY, 6, true, 0, own },
		{ "native", PLAN_NET_HOST, 6, false, 0, host },
		{ "bwrap", PLAN_NET_NONE, 4, true, 0, own },
		{ "bwrap", PLAN_NET_NONE, 6, true, 0, own },
		{ "bwrap", PLAN_NET_PROXY, 6, true, 0, own },
		{ "bwrap", PLAN_NET_HOST, 6, false, 0, host },
		{ "landlock", PLAN_NET_NONE, 6, false, 0x3, denied },
		{ "landlock", PLAN_NET_NONE, 9, false, 0x3, denied },
		{ "landlock", PLAN_NET_HOST, 6, false, 0, host },
	};
	size_t i;

	for (i = 0; i < nitems(rows); i++) {
		struct host h = base_host();
		struct cli_opts o = base_opts();
		struct profile pr;
		struct plan p;
		autofree char *cause = NULL, *name = NULL, *text = NULL;
		bool own_net;

		name = xasprintf("tcp, %s, %s, ABI %d", rows[i].backend,
		    plan_net_name(rows[i].net), rows[i].abi);
		/* online: leg C, which host and --allow need. */
		prof(&pr, rows[i].net == PLAN_NET_NONE ? "sealed" : "online");
		if (rows[i].net == PLAN_NET_PROXY)
			LIST1(o.allow, allow);
		o.net = rows[i].net;
		o.net_set = true;
		h.landlock_abi = rows[i].abi;
		h.bwrap.found = h.bwrap.probed = true;
		if ((cause = try_backend(&h, &o, &pr, rows[i].backend,
		    &p)) != NULL) {
			ok(false, "%s: accepted (%s)", name, cause);
			profile_free(&pr);
			continue;
		}
		is_int(p.net, rows[i].net, "%s: the mode", name);
		ok(p.landlock.handled_net == rows[i].handled &&
		    p.landlock.connect_port == 0 &&
		    p.landlock.connect_port2 == 0, "%s: TCP handled %#llx, "
		    "no port granted", name,
		    (unsigned long long)rows[i].handled);
		own_net = p.backend == PLAN_BACKEND_NATIVE ?
		    (p.clone_flags & CLONE_NEWNET) != 0 :
		    p.backend == PLAN_BACKEND_BWRAP && bwrap_unshares_net(&p);
		is_int(own_net, rows[i].own_net, "%s: %s network namespace "
		    "of its own", name, rows[i].own_net ? "a" : "no");
		ok(p.landlock.handled_net != 0 || p.net == PLAN_NET_HOST ||
		    own_net, "%s: TCP unhandled only in a network namespace "
		    "of the sandbox's own, or in mode host", name);
		text = dump(&p);
		if (!ok(has(text, rows[i].says), "%s: the dump's tcp line",
		    name))
			diag("dump: %s", text);
		/* No plan grants a port where TCP is handled today; were
		 * one to, the dump names it. */
		if (p.landlock.handled_net) {
			free(text);
			p.landlock.connect_port = PLAN_PROXY_PORT;
			p.landlock.connect_port2 = PLAN_KEYHOLDER_PORT;
			text = dump(&p);
			ok(has(text, "  tcp: bind denied on every port; "
			    "connect denied but to 3128 (the proxy's), 3129 "
			    "(the keyholder's)\n"), "%s: the dump names the "
			    "ports a plan would grant", name);
		}
		plan_free(&p);
		profile_free(&pr);
	}
}

/* Entering a session: its layout decides which backends can. */
static void
test_backend_layout(void)
{
	static const struct {
		const char *layout, *want, *backend, *says;
		bool setuid;
	} rows[] = {
		{ "overlay", "auto", "native", NULL, false },
		{ "overlay", "bwrap", "bwrap", NULL, false },
		{ "overlay", "bwrap", NULL, "bwrap is not setuid", true },
		{ "overlay", "landlock", NULL, "only the native and bwrap",
		    false },
		{ "copy", "native", NULL, "made by the bwrap or landlock",
		    false },
		{ "copy", "auto", "bwrap", NULL, false },
		{ "copy", "landlock", "landlock", NULL, false },
	};
	size_t i;

	for (i = 0; i < nitems(rows); i++) {
		struct host h = base_host();
		struct cli_opts o = base_opts();
		struct plan p;
		autofree char *cause = NULL;

		h.bwrap.found = h.bwrap.probed = true;
		h.bwrap.setuid = rows[i].setuid;
		o.session_layout = rows[i].layout;
		o.session_id = (char *)SESSION_ID;
		cause = try_backend(&h, &o, &builtin, rows[i].want, &p);
		if (rows[i].backend == NULL)
			ok(cause && has(cause, rows[i].says), "enter a %s "
			    "session with %s: refused", rows[i].layout,
			    rows[i].want);
		else if (ok(cause == NULL, "enter a %s session with %s: "
		    "accepted", rows[i].layout, rows[i].want)) {
			is_str(syntax_backends[p.backend], rows[i].backend,
			    "enter a %s session with %s: backend %s",
			    rows[i].layout, rows[i].want, rows[i].backend);
			plan_free(&p);
		} else
			diag("cause: %s", cause);
	}
}

/* The rule of the path exactly, or NULL. */
static const struct plan_path *
find_rule(const struct plan *p, const char *path)
{
	size_t i;

	for (i = 0; i < p->landlock.npaths; i++)
		if (streq(p->landlock.paths[i].path, path))
			return &p->landlock.paths[i];
	return NULL;
}

static bool
strv_has(char *const *v, const char *s)
{
	for (; v && *v; v++)
		if (streq(*v, s))
			return true;
	return false;
}

/*
 * A quadrant with leg C shows the host from the allow-list: an empty root
 * with the system trees, /etc without its private entries and with the
 * session's machine id; Landlock grants nothing beneath / but listing on
 * native and bwrap, and nothing at all beneath / on landlock.
 */
static void
test_allow_list(void)
{
	static const char *const links[] = { "/bin", "usr/bin", NULL };
	static const char *const etc_private[] = { "/etc/shadow",
	    "/etc/ssl/private", NULL };
	static const char *const backends[] = { "native", "bwrap",
	    "landlock" };
	static const char *const quads[] = { "online", "trusted",
	    "sealed", "offline" };
	size_t b, q, i;

	for (q = 0; q < nitems(quads); q++)
	for (b = 0; b < nitems(backends); b++) {
		struct host h = base_host();
		struct cli_opts o = base_opts();
		struct profile pr;
		struct plan p;
		autofree char *cause = NULL;
		const struct plan_path *r;
		const bool narrow = q < 2, ll = b == 2;
		const char *bk = backends[b], *qd = quads[q];
		bool shown_home = false;

		h.bwrap.found = h.bwrap.probed = true;
		h.root_links = (char **)links;
		h.etc_private = (char **)etc_private;
		prof(&pr, qd);
		if (streq(qd, "trusted"))
			pvalue_set(&pr.untrusted, "no", T_INI ":3");
		cause = try_backend(&h, &o, &pr, bk, &p);
		profile_free(&pr);
		if (!ok(cause == NULL, "allow-list %s %s: accepted", qd, bk)) {
			diag("cause: %s", cause);
			continue;
		}
		is_int(p.allow_list, narrow, "allow-list %s %s: %s", qd, bk,
		    narrow ? "leg C: the allow-list" : "no leg C: the host");
		r = find_rule(&p, "/");
		if (!narrow)
			ok(r && (r->access & PLAN_FS_READ), "allow-list %s %s: "
			    "/ is read-only as before", qd, bk);
		else if (ll)
			ok(r == NULL, "allow-list %s %s: no rule on /", qd, bk);
		else
			ok(r && r->access == PLAN_FS_LIST, "allow-list %s %s: "
			    "/ may be listed, nothing read", qd, bk);
		if (!narrow) {
			ok(p.mounts.n && p.mounts.v[0].kind != PLAN_MOUNT_EMPTY_ROOT
			    && p.run_refused == NULL, "allow-list %s %s: the "
			    "host's root, runs as root too", qd, bk);
			plan_free(&p);
			continue;
		}
		r = find_rule(&p, "/usr");
		ok(r && r->access == (PLAN_FS_READ | PLAN_FS_EXEC),
		    "allow-list %s %s: /usr r-x", qd, bk);
		ok(find_rule(&p, "/bin") == NULL, "allow-list %s %s: a "
		    "linked tree has no rule of its own", qd, bk);
		r = find_rule(&p, "/etc");
		for (i = 0; i < p.landlock.npaths; i++)
			if (streq(p.landlock.paths[i].path, "/etc") &&
			    p.landlock.paths[i].access & PLAN_FS_READ)
				r = &p.landlock.paths[i];
		ok(r && strv_has(r->except, "/etc/shadow") &&
		    strv_has(r->except, "/etc/ssl/private") &&
		    strv_has(r->except, "/etc/machine-id") == ll,
		    "allow-list %s %s: /etc without its private entries%s",
		    qd, bk, ll ? " and the machine id" : "");
		for (i = 0; i < p.landlock.npaths; i++)
			shown_home |= (p.landlock.paths[i].access &
			    PLAN_FS_READ) && (path_has_prefix("/home",
			    p.landlock.paths[i].path) || path_has_prefix("/srv",
			    p.landlock.paths[i].path));
		ok(!shown_home, "allow-list %s %s: nothing read on /home or /srv",
		    qd, bk);
		if (!ll) {
			const struct plan_mount *m = &p.mounts.v[0];

			ok(m->kind == PLAN_MOUNT_EMPTY_ROOT, "allow-list %s %s: "
			    "an empty root", qd, bk);
			m = find_mount(&p, PLAN_MOUNT_SYMLINK, "/bin");
			ok(m && streq(m->src, "usr/bin"), "allow-list %s %s: "
			    "/bin -> usr/bin as the host's", qd, bk);
			ok(find_mount(&p, PLAN_MOUNT_BIND_RO, "/etc") &&
			    find_mount(&p, PLAN_MOUNT_HIDE, "/etc/shadow") &&
			    find_mount(&p, PLAN_MOUNT_HIDE, "/etc/ssl/private"),
			    "allow-list %s %s: /etc shown, its private entries "
			    "hidden", qd, bk);
			m = find_mount(&p, PLAN_MOUNT_DATA, "/etc/machine-id");
			ok(m && strlen(m->data) == 33, "allow-list %s %s: a "
			    "machine id of the session's", qd, bk);
			ok(find_mount(&p, PLAN_MOUNT_BIND_RO, "/srv") == NULL &&
			    find_mount(&p, PLAN_MOUNT_BIND_RO, "/var") == NULL,
			    "allow-list %s %s: /srv and /var not shown", qd, bk);
		}
		ok(p.run_refused == NULL, "allow-list %s %s: runs for uid "
		    "1000", qd, bk);
		plan_free(&p);
		/* Root: printed, refused at run time. */
		h = base_host();
		h.uid = h.gid = 0;
		h.bwrap.found = h.bwrap.probed = true;
		prof(&pr, qd);
		if (streq(qd, "trusted"))
			pvalue_set(&pr.untrusted, "no", T_INI ":3");
		free(cause);
		cause = try_backend(&h, &o, &pr, bk, &p);
		profile_free(&pr);
		if (ok(cause == NULL, "allow-list %s %s, root: planned", qd,
		    bk)) {
			ok(p.run_refused && has(p.run_refused, "root"),
			    "allow-list %s %s, root: refused at run time", qd,
			    bk);
			plan_free(&p);
		}
		/* /etc not scanned: refused, fail closed. */
		h = base_host();
		h.bwrap.found = h.bwrap.probed = true;
		h.etc_why = (char *)"Permission denied";
		prof(&pr, qd);
		if (streq(qd, "trusted"))
			pvalue_set(&pr.untrusted, "no", T_INI ":3");
		free(cause);
		cause = try_backend(&h, &o, &pr, bk, &p);
		profile_free(&pr);
		ok(cause && has(cause, "/etc could not be scanned"),
		    "allow-list %s %s: /etc not scanned: refused", qd, bk);
		if (cause == NULL)
			plan_free(&p);
	}
}

/* The profile's paths as mounts: parents first, in planning order. */
static void
test_profile_mounts(void)
{
	static const char *const oro[] = { "/srv/share/docs" };
	struct host h = base_host();
	struct cli_opts o = base_opts();
	struct profile pr;
	struct plan p = { 0 };

	/* trusted, untrusted = no: anything goes. */
	prof(&pr, "trusted");
	pvalue_set(&pr.untrusted, "no", T_INI ":3");
	plist_add(&pr.read_only, "~/notes", T_INI ":10");	/* seq 1 */
	plist_add(&pr.home, ".gitconfig", T_INI ":11");		/* seq 2 */
	plist_add(&pr.cred_file, "~/.config/agent/token", T_INI ":12");
	plist_add(&pr.scratch, "~/.cache/go", T_INI ":13");	/* seq 5 */
	plist_add(&pr.scratch, "/var/tmp/x", T_INI ":14");	/* seq 6 */
	plist_add(&pr.direct, "/srv/out", T_INI ":15");		/* seq 7 */
	plist_add(&pr.hide, PROJ "/secrets", T_INI ":16");	/* seq 8 */
	plist_add(&pr.hide, "/srv", T_INI ":17");		/* seq 9 */
	LIST1(o.ro, oro);					/* seq 3 */
	if (compute_pr(&h, &o, NULL, &pr, &p, "profile mounts")) {
		/* trusted has leg C: the allow-list, where /srv is not. */
		const char *const want[] = {
			"empty-root /", "ro /usr", "ro /bin",
			"ro /sbin", "ro /lib", "ro /lib32",
			"ro /lib64", "ro /libx32", "ro /opt",
			"ro /etc", "ro /sys", "ro /nix/store",
			"ro /gnu/store", "data /etc/machine-id",
			"tmpfs /var/tmp 1777 exec",
			"proc /proc", "hide /proc/keys",
			"hide /proc/key-users", "sysfs /sys",
			"dev /dev", "tmpfs /tmp 1777 exec",
			"tmpfs /run 755",
			"tmpfs " HOME " 700 exec",
			/* depth 1, 2 */
			"direct /srv/out",
			/* depth 3, in planning order */
			"ro " HOME "/notes", "ro " HOME "/.gitconfig",
			"ro /srv/share/docs",
			"scratch /var/tmp/x upper=" SESSION "/scratch/6 work="
			    SESSION "/scratch/6.work",
			/* depth 4: the workspace was planned first */
			OVERLAY(PROJ),
			"scratch " HOME "/.cache/go upper=" SESSION
			    "/scratch/5 work=" SESSION "/scratch/5.work",
			/* depth 5 */
			"ro " HOME "/.config/agent/token",
			"hide " PROJ "/secrets",
			NULL };
		autofree char *w = NULL, *got = mounts_str(&p.mounts);
		char buf[8];
		char *ll = xstrdup(""), *t;
		size_t i;

		w = join(want, SIZE_MAX);
		is_str(got, w, "profile mounts: by depth, then in planning "
		    "order");
		for (i = 0; i < p.landlock.npaths; i++) {
			t = xasprintf("%s[%s %s]", ll, plan_access_name(
			    p.landlock.paths[i].access, buf),
			    p.landlock.paths[i].path);
			free(ll);
			ll = t;
		}
		ok(has(ll, "[rwx " HOME "/.cache/go][rwx /var/tmp/x]"
		    "[rwx /srv/out]"), "profile mounts: landlock lets the "
		    "scratch and direct paths be written");
		ok(has(ll, "[r-x " HOME "/notes]") &&
		    has(ll, "[r-x /srv/share/docs]"), "profile mounts: the "
		    "allow-list: landlock grants the read-only paths");
		free(ll);
		plan_free(&p);
	}
	profile_free(&pr);
}

/* The environment from the profile: pass (with prefixes), set, credential. */
static void
test_env_profile(void)
{
	static const char *const env[] = { "PATH=/usr/bin", "TERM=dumb",
	    "AWS_ACCESS_KEY_ID=id", "AWS_SECRET_ACCESS_KEY=key",
	    "AWSX=no", "AGENT_API_KEY=tok", "GITHUB_TOKEN=ghp", "A=host",
	    NULL };
	static const char *const oenv[] = { "A=opt", "GITHUB_TOKEN" };
	struct host h = base_host();
	struct cli_opts o = base_opts();
	struct profile pr;
	struct plan p = { 0 };

	prof(&pr, "offline");
	plist_add(&pr.env_pass, "AWS_*", T_INI ":10");
	plist_add(&pr.env_set, "A=profile", T_INI ":11");
	plist_add(&pr.env_set, "B=1", T_INI ":12");
	plist_add(&pr.cred_var, "AGENT_API_KEY", T_INI ":13");
	LIST1(o.env, oenv);
	if (compute_pr(&h, &o, (char *const *)env, &pr, &p, "profile env")) {
		autofree char *got = join((const char *const *)p.envp,
		    SIZE_MAX);
		autofree char *why = join((const char *const *)p.legs_why,
		    p.nlegs_why);

		is_str(got, "[A=opt][AGENT_API_KEY=tok][AWS_ACCESS_KEY_ID=id]"
		    "[AWS_SECRET_ACCESS_KEY=key][B=1][CONFINE_SESSION="
		    SESSION_ID "][GITHUB_TOKEN=ghp][GIT_CONFIG_NOSYSTEM=1]"
		    "[HOME=" HOME "]"
		    "[LOGNAME=alice][PATH=/usr/bin][TERM=dumb][TMPDIR=/tmp]"
		    "[USER=alice]", "profile env: AWS_* passes by prefix, "
		    "--env A= beats set A=, the credential variable passes");
		is_str(why, "[A: untrusted = yes  (built-in default)]"
		    "[B: environment.pass = AWS_*  (t.ini:10)]"
		    "[B: environment.pass = GITHUB_TOKEN  (option --env)]",
		    "profile env: the passed secrets are B, the credential "
		    "(no C) and the set values are not");
		plan_free(&p);
	}
	profile_free(&pr);
}

#define GIT_ALL		"GIT_AUTHOR_NAME GIT_COMMITTER_NAME GIT_AUTHOR_EMAIL " \
    "GIT_COMMITTER_EMAIL"

/* The GIT_AUTHOR_* and GIT_COMMITTER_* entries of p's environment. */
static char *
git_vars(const struct plan *p)
{
	const char *v[8];
	size_t i, n = 0;

	for (i = 0; p->envp[i] && n < nitems(v); i++)
		if (strncmp(p->envp[i], "GIT_", 4) == 0 &&
		    !streq(p->envp[i], "GIT_CONFIG_NOSYSTEM=1"))
			v[n++] = p->envp[i];
	return join(v, n);
}

static bool
no_system_config(const struct plan *p)
{
	size_t i;

	for (i = 0; p->envp[i]; i++)
		if (streq(p->envp[i], "GIT_CONFIG_NOSYSTEM=1"))
			return true;
	return false;
}

/*
 * The user's git identity: in every quadrant and on every backend, as
 * git's four variables, without a leg; the profile's [environment] and
 * --env win; none on the host, none inside; nothing else of git's.
 */
static void
test_git_identity(void)
{
	static const char *const quads[] = { "sealed", "offline", "online",
	    "trusted" };
	static const char *const backends[] = { "native", "bwrap",
	    "landlock" };
	static const char *const both = "[GIT_AUTHOR_EMAIL=alice@example.org]"
	    "[GIT_AUTHOR_NAME=Alice Liddell]"
	    "[GIT_COMMITTER_EMAIL=alice@example.org]"
	    "[GIT_COMMITTER_NAME=Alice Liddell]";
	size_t i;

	for (i = 0; i < nitems(quads) * nitems(backends); i++) {
		const char *q = quads[i / nitems(backends)];
		const char *b = backends[i % nitems(backends)];
		struct host h = base_host(), bare = base_host();
		struct cli_opts o = base_opts();
		struct profile pr;
		struct plan p, without;
		autofree char *cause = NULL, *cause2 = NULL;

		h.git_name = S("Alice Liddell");
		h.git_email = S("alice@example.org");
		h.bwrap.found = h.bwrap.probed = true;
		bare.bwrap.found = bare.bwrap.probed = true;
		prof(&pr, q);
		if (streq(q, "trusted"))
			pvalue_set(&pr.untrusted, "no", T_INI ":3");
		if ((cause = try_backend(&h, &o, &pr, b, &p)) != NULL ||
		    (cause2 = try_backend(&bare, &o, &pr, b, &without)) !=
		    NULL) {
			if (cause == NULL)
				plan_free(&p);
			ok(false, "git identity, %s on %s: accepted (%s)", q, b,
			    cause ? cause : cause2);
			profile_free(&pr);
			continue;
		}
		{
			autofree char *got = git_vars(&p);
			autofree char *none = git_vars(&without);
			autofree char *d = dump(&p), *dw = dump(&without);

			is_str(got, both, "git identity, %s on %s: the four "
			    "variables", q, b);
			is_int(p.legs, without.legs, "git identity, %s on %s: "
			    "no leg of its own", q, b);
			is_str(none, "", "git identity, %s on %s: none on the "
			    "host, none inside", q, b);
			ok(no_system_config(&p) && no_system_config(&without),
			    "git identity, %s on %s: the system's git "
			    "configuration left out, identity or none", q, b);
			ok(has(d, "\ngit identity: name 'Alice Liddell', "
			    "email 'alice@example.org' (your global git "
			    "configuration, nothing else of it); set: "
			    GIT_ALL "\n"), "git identity, %s on %s: --dry-run "
			    "says so", q, b);
			ok(!has(dw, "git identity"), "git identity, %s on %s: "
			    "none: --dry-run says nothing", q, b);
		}
		plan_free(&p);
		plan_free(&without);
		profile_free(&pr);
	}

	/* The profile's set, --env NAME=VALUE, a passed name: theirs win. */
	{
		static const char *const env[] = {
		    "GIT_AUTHOR_NAME=from the caller's environment",
		    "GIT_CONFIG_GLOBAL=/x", "GIT_DIR=/x", NULL };
		static const char *const oenv[] = { "GIT_COMMITTER_NAME=Bot" };
		struct host h = base_host();
		struct cli_opts o = base_opts();
		struct profile pr;
		struct plan p = { 0 };

		h.git_name = S("Alice Liddell");
		h.git_email = S("alice@example.org");
		prof(&pr, "offline");
		plist_add(&pr.env_set, "GIT_AUTHOR_EMAIL=bot@example.org",
		    T_INI ":10");
		LIST1(o.env, oenv);
		if (compute_pr(&h, &o, (char *const *)env, &pr, &p,
		    "git identity, set")) {
			autofree char *got = git_vars(&p);
			autofree char *d = dump(&p);

			is_str(got, "[GIT_AUTHOR_EMAIL=bot@example.org]"
			    "[GIT_AUTHOR_NAME=Alice Liddell]"
			    "[GIT_COMMITTER_EMAIL=alice@example.org]"
			    "[GIT_COMMITTER_NAME=Bot]", "git identity: the "
			    "profile's set and --env win; the caller's "
			    "variables are not read");
			ok(has(d, "; set: GIT_AUTHOR_NAME GIT_COMMITTER_EMAIL; "
			    "left as [environment] or --env give them: "
			    "GIT_COMMITTER_NAME GIT_AUTHOR_EMAIL\n"),
			    "git identity, set: --dry-run says which are "
			    "confine's");
			plan_free(&p);
		}
		profile_free(&pr);

		prof(&pr, "offline");
		plist_add(&pr.env_pass, "GIT_AUTHOR_NAME", T_INI ":10");
		o = base_opts();
		if (compute_pr(&h, &o, (char *const *)env, &pr, &p,
		    "git identity, pass")) {
			is_str(env_get(p.envp, "GIT_AUTHOR_NAME"),
			    "from the caller's environment", "git identity: "
			    "a passed variable wins");
			plan_free(&p);
		}
		profile_free(&pr);
	}

	/* Half an identity; a refused value; nothing. */
	{
		struct host h = base_host();
		struct cli_opts o = base_opts();
		struct plan p = { 0 };

		h.git_email = S("alice@example.org");
		h.git_why = S("user.name: it holds a control character");
		if (compute(&h, &o, NULL, &p, "git identity, email only")) {
			autofree char *got = git_vars(&p);
			autofree char *d = dump(&p);

			is_str(got, "[GIT_AUTHOR_EMAIL=alice@example.org]"
			    "[GIT_COMMITTER_EMAIL=alice@example.org]",
			    "git identity: the email alone");
			ok(has(d, "git identity: name none, email "
			    "'alice@example.org' (your global git "
			    "configuration, nothing else of it); set: "
			    "GIT_AUTHOR_EMAIL GIT_COMMITTER_EMAIL; refused: "
			    "user.name: it holds a control character\n"),
			    "git identity: --dry-run says what was refused");
			plan_free(&p);
		}
	}
}

/* What confine takes of a user.name or user.email, as it is. */
static void
test_git_values(void)
{
	static const struct {
		const char	*v;
		const char	*why;	/* NULL: taken */
	} rows[] = {
		{ "Alice Liddell", NULL },
		{ "Jos\xc3\xa9 M\xc3\xbcller", NULL },
		{ "\xe5\xbc\xa0\xe4\xbc\x9f", NULL },
		{ "alice+confine@example.org", NULL },
		{ "O'Brien, \"Pat\" (ops) [x] = y; z", NULL },
		{ "", "it is empty" },
		{ "Alice\nEve", "control character" },
		{ "\"]\n[core]\n\thooksPath = /tmp/h", "control character" },
		{ "Alice\r", "control character" },
		{ "Alice\x1b[31m", "control character" },
		{ "Alice\x7f", "control character" },
		{ "Alice\xc2\x9b", "control character" },
		{ "Alice\xff", "invalid UTF-8" },
		{ "Ali\xe2\x80\x8b" "ce", "invisible" },
		{ "Ali\xe2\x80\xae" "ce", "invisible" },
		{ "Alice <eve@example.org>", "'<' or '>'" },
		{ "eve>", "'<' or '>'" },
	};
	char longv[HOST_GIT_IDENT_MAX + 2];
	size_t i;

	for (i = 0; i < nitems(rows); i++) {
		const char *why = probe_git_value_why(rows[i].v,
		    strlen(rows[i].v));

		if (rows[i].why == NULL)
			ok(why == NULL, "git value %zu: taken (%s)", i,
			    why ? why : "");
		else
			ok(has(why, rows[i].why), "git value %zu: refused: %s",
			    i, rows[i].why);
	}
	ok(has(probe_git_value_why("a\0b", 3), "NUL"),
	    "git value: a NUL is refused");
	memset(longv, 'a', sizeof(longv));
	ok(probe_git_value_why(longv, HOST_GIT_IDENT_MAX) == NULL,
	    "git value: %d bytes are taken", HOST_GIT_IDENT_MAX);
	ok(has(probe_git_value_why(longv, HOST_GIT_IDENT_MAX + 1), "longer"),
	    "git value: %d bytes are refused", HOST_GIT_IDENT_MAX + 1);
}

/*
 * Can the sandbox read path?  The last mount at or above it decides: the
 * host's file shows through root, overlay, ro, direct and scratch.
 */
static bool
visible(const struct plan_mounts *m, const char *path)
{
	enum plan_mount_kind kind;

	return host_shows(m, path, &kind);
}

/*
 * A path that *contains* the home directory or the runtime directory
 * shows it again (bound recursively over the tmpfs that hid it): that is
 * leg B like a path under it.  Siblings named alike are not.
 */
static void
test_parents_of_home(void)
{
	static const struct {
		const char	*quadrant, *opt, *path;
		const char	*want;		/* NULL: accepted */
		unsigned int	 legs;
	} rows[] = {
		{ "sealed", "--ro", "/home", "leg B is granted by read-only = "
		    "/home  (option --ro)", 0 },
		/* The root: refused as a path of any rule. */
		{ "sealed", "--ro", "/", "the whole host cannot be one "
		    "read-only path", 0 },
		{ "sealed", "--ro", "/run", "leg B is granted by read-only = "
		    "/run  (option --ro)", 0 },
		{ "sealed", "--ro", "/run/user", "leg B is granted by "
		    "read-only = /run/user  (option --ro)", 0 },
		{ "sealed", "--scratch", "/home", "leg B is granted by "
		    "scratch = /home  (option --scratch)", 0 },
		{ "online", "--direct", "/home", "all three legs", 0 },
		{ "online", "--direct", "/", "the whole host cannot be "
		    "writable", 0 },
		{ "offline", "--ro", "/home", NULL, PLAN_LEG_A | PLAN_LEG_B },
		{ "offline", "--scratch", "/", "the whole host cannot be "
		    "scratch", 0 },
		{ "trusted", "--direct", "/home", NULL,
		    PLAN_LEG_B | PLAN_LEG_C },
		/* Siblings and other trees: no B. */
		{ "sealed", "--ro", "/home/alicex", NULL, PLAN_LEG_A },
		{ "sealed", "--ro", "/home/al", NULL, PLAN_LEG_A },
		{ "sealed", "--ro", "/run/userx", NULL, PLAN_LEG_A },
		{ "sealed", "--ro", "/srv", NULL, PLAN_LEG_A },
		{ "sealed", "--scratch", "/var", NULL, PLAN_LEG_A },
		{ "online", "--direct", "/srv", NULL, PLAN_LEG_A | PLAN_LEG_C },
	};
	size_t i;

	for (i = 0; i < nitems(rows); i++) {
		struct host h = base_host();
		struct cli_opts o = base_opts();
		struct profile pr;
		struct plan p = { .cwd = S("sentinel") };
		struct cli_list *l = streq(rows[i].opt, "--ro") ? &o.ro :
		    streq(rows[i].opt, "--scratch") ? &o.scratch : &o.direct;
		char *cause = NULL, *hint = NULL;
		int r;

		prof(&pr, rows[i].quadrant);
		if (streq(rows[i].quadrant, "trusted"))
			pvalue_set(&pr.untrusted, "no", T_INI ":3");
		h.cwd = h.git_top = S("/srv/proj");
		l->v = (const char **)&rows[i].path;
		l->n = 1;
		r = policy_compute(&o, &h, NULL, &pr, "test", &p, &cause,
		    &hint);
		if (rows[i].want) {
			if (!ok(r == -1 && has(cause, rows[i].want),
			    "%s %s in %s: refused: %s", rows[i].opt,
			    rows[i].path, rows[i].quadrant, rows[i].want))
				diag("got %d, cause: %s; the mounts %s show "
				    HOME "/.ssh/id_ed25519", r, cause,
				    r == 0 && visible(&p.mounts, HOME
				    "/.ssh/id_ed25519") ? "do" : "do not");
		} else if (ok(r == 0, "%s %s in %s: accepted", rows[i].opt,
		    rows[i].path, rows[i].quadrant))
			is_int(p.legs, rows[i].legs, "%s %s in %s: legs %#x",
			    rows[i].opt, rows[i].path, rows[i].quadrant,
			    rows[i].legs);
		else
			diag("cause: %s", cause);
		if (r == 0)
			plan_free(&p);
		free(cause);
		free(hint);
		profile_free(&pr);
	}
}

/*
 * A path shown again inside a hidden tree (/tmp, /run, the home) shows
 * the host's sockets there: through an overlay on native (no mask
 * needed); a direct path is the host's own: its sockets get their mask,
 * after the path's mount.
 */
static void
test_reshown_sockets(void)
{
	static const struct {
		const char	*quadrant, *opt, *path, *socket;
		bool		 masked;
	} rows[] = {
		{ "sealed", "--ro", "/tmp/.X11-unix", "/tmp/.X11-unix/X0",
		    false },
		{ "sealed", "--scratch", "/tmp/ssh-XXXXabcd",
		    "/tmp/ssh-XXXXabcd/agent.1234", false },
		{ "sealed", "--ro", "/run/dbus", "/run/dbus/system_bus_socket",
		    false },
		{ "sealed", "--ro", "/tmp", "/tmp/.X11-unix/X0", false },
		{ "offline", "--ro", "~/.gnupg", HOME "/.gnupg/S.gpg-agent",
		    false },
		{ "offline", "--ro", "/run/user/1000",
		    "/run/user/1000/bus", false },
		{ "online", "--direct", "/tmp/.X11-unix",
		    "/tmp/.X11-unix/X0", true },
		{ "online", "--direct", "/srv/data", "/srv/data/app.sock",
		    true },
		/* Not shown again: the tree hides it, no mask needed. */
		{ "sealed", "--ro", "/tmp/other", "/tmp/.X11-unix/X0", false },
		{ "sealed", "--ro", "/tmp/.X11-unixx", "/tmp/.X11-unix/X0",
		    false },
	};
	size_t i, j;

	for (i = 0; i < nitems(rows); i++) {
		const char *sock[] = { rows[i].socket, NULL };
		struct host h = base_host();
		struct cli_opts o = base_opts();
		struct profile pr;
		struct plan p = { 0 };
		struct cli_list *l = streq(rows[i].opt, "--ro") ? &o.ro :
		    streq(rows[i].opt, "--direct") ? &o.direct : &o.scratch;
		autofree char *name = xasprintf("%s %s, host socket %s",
		    rows[i].opt, rows[i].path, rows[i].socket);
		size_t masks = 0;

		prof(&pr, rows[i].quadrant);
		h.unix_sockets = (char **)sock;
		l->v = (const char **)&rows[i].path;
		l->n = 1;
		if (!compute_pr(&h, &o, NULL, &pr, &p, name)) {
			profile_free(&pr);
			continue;
		}
		ok(socket_covered(&p, rows[i].socket),
		    "%s: the socket is out of reach", name);
		for (j = 0; j < p.mounts.n; j++)
			masks += p.mounts.v[j].kind == PLAN_MOUNT_MASK;
		is_int(masks, rows[i].masked, "%s: %s", name, rows[i].masked ?
		    "masked" : "no mask (an overlay or a hidden tree)");
		plan_free(&p);
		profile_free(&pr);
	}
}

/*
 * The loader and the policy together: booleans are normalised (true and
 * false mean yes and no), and origins are the file's lines.
 */
static void
test_loader_to_policy(void)
{
	static const struct {
		const char	*name, *ini;
		const char	*want;		/* NULL: accepted */
		unsigned int	 legs;
		const char	*why;		/* the legs, joined */
	} rows[] = {
		{ "trusted, untrusted = false",
		    "[profile]\nquadrant = trusted\nuntrusted = false\n"
		    "[network]\nmode = host\n", NULL, PLAN_LEG_C,
		    "[C: network.mode = host  (/p/t.ini:5)]" },
		{ "sealed, untrusted = false",
		    "[profile]\nquadrant = sealed\nuntrusted = false\n",
		    "untrusted = no (/p/t.ini:3) is only for the trusted "
		    "quadrant, not sealed", 0, NULL },
		{ "offline, private = true",
		    "[profile]\nquadrant = offline\n[workspace]\n"
		    "private = true\n", NULL, PLAN_LEG_A | PLAN_LEG_B,
		    "[A: untrusted = yes  (built-in default)]"
		    "[B: workspace.private = yes  (/p/t.ini:4)]" },
		{ "sealed, home entry",
		    "[profile]\nquadrant = sealed\n\n[filesystem]\n"
		    "home = .gitconfig\n", "quadrant sealed (/p/t.ini:2) "
		    "allows A, but leg B is granted by read-only = "
		    HOME "/.gitconfig  (/p/t.ini:5)", 0, NULL },
		{ "offline, allow",
		    "[profile]\nquadrant = offline\n[network]\nmode = proxy\n"
		    "allow = pypi.org:443\n", "quadrant offline (/p/t.ini:2) "
		    "allows A+B, but leg C is granted by network.allow = "
		    "pypi.org:443  (/p/t.ini:5)", 0, NULL },
		{ "sealed, endpoint and credential",
		    "[profile]\nquadrant = sealed\n[network]\nmode = proxy\n"
		    "endpoint = api.example.com:443\n[credential]\n"
		    "variable = EXAMPLE_API_KEY\nfile = ~/.config/ex/key\n",
		    "C external (network.endpoint = api.example.com:443  "
		    "(/p/t.ini:5))", 0, NULL },
		{ "sealed, endpoint, credential and allow",
		    "[profile]\nquadrant = sealed\n[network]\nmode = proxy\n"
		    "endpoint = api.example.com:443\nallow = pypi.org\n"
		    "[credential]\nvariable = EXAMPLE_API_KEY\n",
		    "A untrusted (untrusted = yes  (built-in default)), "
		    "B private (credential.variable = EXAMPLE_API_KEY  "
		    "(/p/t.ini:8)), C external (network.allow = pypi.org  "
		    "(/p/t.ini:6); network.endpoint = api.example.com:443  "
		    "(/p/t.ini:5))", 0, NULL },
		{ "sealed, injected",
		    "[profile]\nquadrant = sealed\n[credential]\n"
		    "inject = anthropic api.example.com\n"
		    "source = api-key variable EXAMPLE_API_KEY\n"
		    "source = login file ~/.ex/creds.json ex.oauth\n",
		    NULL, PLAN_LEG_A,
		    "[A: untrusted = yes  (built-in default)]" },
		{ "sealed, injected, proxy and allow",
		    "[profile]\nquadrant = online\n[network]\nmode = proxy\n"
		    "allow = pypi.org\n[credential]\n"
		    "inject = openai api.example.com\n"
		    "source = bearer command pass show ex\n",
		    NULL, PLAN_LEG_A | PLAN_LEG_C,
		    "[A: untrusted = yes  (built-in default)]"
		    "[C: network.allow = pypi.org  (/p/t.ini:5)]" },
		{ "injected and the same endpoint raw",
		    "[profile]\nquadrant = online\n[network]\nmode = proxy\n"
		    "endpoint = api.example.com:443\n[credential]\n"
		    "inject = anthropic api.example.com\n"
		    "source = api-key variable EXAMPLE_API_KEY\n",
		    "network.endpoint = api.example.com:443 (/p/t.ini:5) is the "
		    "injected endpoint (credential.inject, /p/t.ini:7)", 0,
		    NULL },
		{ "injected and the same host allowed",
		    "[profile]\nquadrant = online\n[network]\nmode = proxy\n"
		    "allow = api.example.com:443\n[credential]\n"
		    "inject = anthropic api.example.com:443\n"
		    "source = api-key variable EXAMPLE_API_KEY\n",
		    "network.allow = api.example.com:443 (/p/t.ini:5) is the "
		    "injected endpoint", 0, NULL },
		{ "injected, network host",
		    "[profile]\nquadrant = online\n[network]\nmode = host\n"
		    "[credential]\ninject = gemini api.example.com\n"
		    "source = api-key variable EXAMPLE_API_KEY\n",
		    "needs a network of the sandbox's own, not network mode host",
		    0, NULL },
		{ "injected, no source",
		    "[profile]\n[credential]\ninject = gemini api.example.com\n",
		    "has no credential.source", 0, NULL },
		{ "a source, not injected",
		    "[profile]\n[credential]\n"
		    "source = api-key variable EXAMPLE_API_KEY\n",
		    "/p/t.ini:3: credential.source = api-key variable "
		    "EXAMPLE_API_KEY, but the credential is not injected", 0,
		    NULL },
		{ "injected and passed",
		    "[profile]\n[credential]\ninject = openai api.example.com\n"
		    "source = api-key variable EXAMPLE_API_KEY\n"
		    "variable = EXAMPLE_API_KEY\n",
		    "credential.variable = EXAMPLE_API_KEY passes into the "
		    "sandbox what /p/t.ini:4 injects", 0, NULL },
		{ "a login for another provider",
		    "[profile]\n[credential]\ninject = openai api.example.com\n"
		    "source = login file ~/.codex/auth.json tokens\n",
		    "confine refreshes a login for anthropic only", 0, NULL },
		{ "inject = none",
		    "[profile]\nquadrant = offline\n[credential]\n"
		    "inject = none\n", NULL, PLAN_LEG_A,
		    "[A: untrusted = yes  (built-in default)]" },
	};
	const struct profile_dirs d = { .dir = { NULL, NULL, NULL },
	    .uid = 1000 };
	size_t i;

	for (i = 0; i < nitems(rows); i++) {
		struct host h = base_host();
		struct cli_opts o = base_opts();
		struct profile pr = { 0 };
		struct plan p = { 0 };
		char *cause = NULL, *hint = NULL;
		int r;

		if (profile_load_buffer(&d, "/p/t.ini", rows[i].ini,
		    strlen(rows[i].ini), &pr, &cause, &hint) < 0) {
			ok(false, "%s: the profile loads", rows[i].name);
			diag("cause: %s", cause);
			free(cause);
			free(hint);
			continue;
		}
		r = policy_compute(&o, &h, NULL, &pr, "test", &p, &cause,
		    &hint);
		if (rows[i].want) {
			if (!ok(r == -1 && has(cause, rows[i].want),
			    "%s: refused: %s", rows[i].name, rows[i].want))
				diag("got %d, cause: %s", r, cause);
		} else if (ok(r == 0, "%s: accepted", rows[i].name)) {
			autofree char *why = join(
			    (const char *const *)p.legs_why, p.nlegs_why);

			is_int(p.legs, rows[i].legs, "%s: legs %#x",
			    rows[i].name, rows[i].legs);
			is_str(why, rows[i].why, "%s: why", rows[i].name);
		} else
			diag("cause: %s", cause);
		if (r == 0)
			plan_free(&p);
		free(cause);
		free(hint);
		profile_free(&pr);
	}
}

/*
 * The plan of the golden host: a profile of the online quadrant with
 * origins, every kind of mount, an old ABI, a pty.
 */
#define GOLDEN_INI	"/etc/confine/profiles/golden.ini"

/* The golden host has no /libx32, no Guix and no secrets to hide. */
static bool
golden_exists(const char *path)
{
	return !streq(path, "/libx32") && !streq(path, "/gnu/store") &&
	    !streq(path, "/srv/work/proj/secrets");
}

/* The golden host's facts: /etc/ssl/private is a directory, the rest
 * files. */
static void
golden_fact(const char *path, struct host_path *ret)
{
	*ret = (struct host_path){ .exists = golden_exists(path),
	    .dir = streq(path, "/etc/ssl/private"),
	    .reachable = true };
}

static bool
golden_plan_with(struct plan *p, const char *backend,
    void (*path_fact)(const char *, struct host_path *))
{
	static const char *const sockets[] = { "/run/user/1000/bus",
	    "/srv/work/proj/.devserver.sock", "/tmp/.X11-unix/X0",
	    "/var/lib/postgresql/.s.PGSQL.5432", NULL };
	static const char *const env[] = { "PATH=/usr/local/bin:/usr/bin",
	    "TERM=xterm-256color", "LANG=en_US.UTF-8", "LC_TIME=C",
	    "EDITOR=vi", "SSH_AUTH_SOCK=/run/user/1000/ssh",
	    "AWS_SECRET_ACCESS_KEY=wJalr", "DISPLAY=:0", NULL };
	static const char *const argv[] = { "claude", "--model", "opus",
	    NULL };
	static const char *const opts_env[] = { "COLORTERM", "GIT_PAGER=cat" };
	static const char *const opts_ro[] = { "/opt/sdk" };
	static const char *const opts_hide[] = { "/srv/work/proj/secrets" };
	static const char *const opts_direct[] = { "/srv/work/out" };
	static const char *const links[] = { "/bin", "usr/bin", "/lib",
	    "usr/lib", "/lib64", "usr/lib64", "/sbin", "usr/sbin", NULL };
	static const char *const etc_private[] = { "/etc/shadow",
	    "/etc/ssl/private", NULL };
	struct host h = base_host();
	struct cli_opts o = base_opts();
	struct profile pr = { 0 };
	bool r;

	pr.name = xstrdup("golden");
	pr.path = xstrdup(GOLDEN_INI);
	pvalue_set(&pr.quadrant, "online", GOLDEN_INI ":2");
	pvalue_set(&pr.description, "the golden plan", GOLDEN_INI ":3");
	plist_add(&pr.hide, "/srv/keys", GOLDEN_INI ":6");
	/* landlock copies scratch paths into the session's home only. */
	if (!streq(backend, "landlock"))
		plist_add(&pr.scratch, "/var/cache/golden", GOLDEN_INI ":7");
	pvalue_set(&pr.ws_private, "no", GOLDEN_INI ":10");
	pvalue_set(&pr.net_mode, "none", GOLDEN_INI ":13");
	plist_add(&pr.env_set, "NO_COLOR=1", GOLDEN_INI ":16");
	pvalue_set(&pr.backend, backend, GOLDEN_INI ":19");
	pvalue_set(&pr.memory, "6G", GOLDEN_INI ":22");
	pvalue_set(&pr.tasks, "1024", GOLDEN_INI ":23");
	h.bwrap.found = h.bwrap.probed = h.bwrap.disable_userns = true;
	h.cwd = S("/srv/work/proj/src");
	h.git_top = S("/srv/work/proj");
	h.var_run_is_dir = true;
	h.unix_sockets = (char **)sockets;
	h.root_links = (char **)links;
	h.etc_private = (char **)etc_private;
	h.path_exists = golden_exists;
	h.path_fact = path_fact;
	/* landlock needs ABI 6 (signal scoping); the others show ABI 4. */
	h.landlock_abi = streq(backend, "landlock") ? 6 : 4;
	h.is_tty[0] = h.is_tty[1] = true;
	o.argv = (char **)argv;
	o.env.v = (const char **)opts_env;
	o.env.n = nitems(opts_env);
	o.ro.v = (const char **)opts_ro;
	o.ro.n = nitems(opts_ro);
	o.hide.v = (const char **)opts_hide;
	o.hide.n = nitems(opts_hide);
	o.direct.v = (const char **)opts_direct;
	o.direct.n = nitems(opts_direct);
	o.tasks.value = 512;
	o.tasks.set = true;
	r = compute_pr(&h, &o, (char *const *)env, &pr, p, "golden host");
	profile_free(&pr);
	return r;
}

static bool
golden_plan(struct plan *p, const char *backend)
{
	return golden_plan_with(p, backend, golden_fact);
}

static char *
read_all(const char *path)
{
	FILE *f = fopen(path, "re");
	char *buf = NULL;
	size_t len = 0;
	FILE *m;
	int c;

	if (f == NULL)
		return NULL;
	if ((m = open_memstream(&buf, &len)) == NULL)
		abort();
	while ((c = getc(f)) != EOF)
		putc(c, m);
	fclose(m);
	fclose(f);
	return buf;
}

/* Line-by-line differences, "-" expected, "+" got, as diag lines. */
static void
diff_lines(const char *want, const char *got)
{
	size_t line = 1;

	while (*want || *got) {
		size_t a = strcspn(want, "\n"), b = strcspn(got, "\n");

		if (a != b || strncmp(want, got, a) != 0) {
			diag("line %zu:", line);
			diag("-%.*s", (int)a, want);
			diag("+%.*s", (int)b, got);
		}
		want += a + (want[a] == '\n');
		got += b + (got[b] == '\n');
		line++;
	}
}

/* got against the golden file NAME, or rewritten with it. */
static void
golden_check(const char *name, const char *got)
{
	const char *srcdir = getenv("TESTS_SRCDIR");
	const char *regen = getenv("CONFINE_REGEN_GOLDEN");
	autofree char *path = xasprintf("%s/data/%s",
	    srcdir ? srcdir : "tests", name);
	autofree char *want = NULL;
	FILE *f;

	if (regen && streq(regen, "1")) {
		bool written = (f = fopen(path, "we")) != NULL &&
		    fputs(got, f) >= 0;

		written = (f && fclose(f) == 0) && written;
		ok(written, "golden %s # SKIP regenerated %s", name, path);
		return;
	}
	if ((want = read_all(path)) == NULL) {
		ok(false, "golden: cannot read %s", path);
		diag("make it with CONFINE_REGEN_GOLDEN=1 TESTS_SRCDIR=DIR");
		return;
	}
	if (!ok(streq(got, want), "matches %s", path)) {
		diff_lines(want, got);
		diag("if the change is intended: CONFINE_REGEN_GOLDEN=1 "
		    "TESTS_SRCDIR=<srcdir>/tests tests/unit/test-policy");
	}
}

static void
test_golden(void)
{
	static const char *const backends[][2] = {
		{ "native", "plan-dump.golden" },
		{ "bwrap", "plan-dump-bwrap.golden" },
		{ "landlock", "plan-dump-landlock.golden" },
	};
	size_t i;

	for (i = 0; i < nitems(backends); i++) {
		autofree char *got = NULL;
		struct plan p = { 0 };

		if (!golden_plan(&p, backends[i][0]))
			continue;
		got = dump(&p);
		plan_free(&p);
		golden_check(backends[i][1], got);
	}
}

/* Where step id is in p's sequence, or -1. */
static int
step_at(const struct plan *p, enum plan_step_id id)
{
	size_t i;

	for (i = 0; i < p->nsteps; i++)
		if (p->steps[i].id == id)
			return (int)i;
	return -1;
}

/*
 * The enforcement sequence of every backend: the security order, the
 * steps all three share, and the process each runs in.
 */
static void
test_sequence(void)
{
	static const char *const backends[] = { "native", "bwrap",
	    "landlock" };
	static const enum plan_step_id shared[] = { STEP_DIE_WITH_SUPERVISOR,
	    STEP_CAPABILITIES, STEP_NO_NEW_PRIVS, STEP_NOT_DUMPABLE,
	    STEP_ENVIRONMENT, STEP_SESSION, STEP_FDS, STEP_DIRECTORY,
	    STEP_LANDLOCK, STEP_FOREGROUND, STEP_START_AFTER, STEP_EXEC };
	size_t i, j;

	for (i = 0; i < nitems(backends); i++) {
		const char *b = backends[i];
		struct plan p = { 0 };
		int mounts, caps, nnp, ll, sc, cmd = -1;
		bool ok_in = true;

		if (!golden_plan(&p, b))
			continue;
		mounts = step_at(&p, STEP_MOUNTS);
		caps = step_at(&p, STEP_CAPABILITIES);
		nnp = step_at(&p, STEP_NO_NEW_PRIVS);
		ll = step_at(&p, STEP_LANDLOCK);
		sc = step_at(&p, streq(b, "bwrap") ? STEP_SECCOMP_BY_BWRAP :
		    STEP_SECCOMP);
		for (j = 0; j < nitems(shared); j++)
			ok(step_at(&p, shared[j]) >= 0, "%s: runs step %s", b,
			    plan_step_name(shared[j]));
		ok(streq(b, "landlock") ? mounts < 0 : mounts >= 0 &&
		    mounts < caps, "%s: mounts before capabilities", b);
		ok(caps >= 0 && caps < nnp, "%s: capabilities before "
		    "no_new_privs", b);
		ok(nnp >= 0 && nnp < ll, "%s: no_new_privs before landlock", b);
		/* bwrap loads confine's filter itself, before the inner
		 * stage; the filter allows Landlock's calls. */
		ok(streq(b, "bwrap") ? sc > nnp && sc < ll : sc > ll,
		    "%s: seccomp %s", b, streq(b, "bwrap") ? "by bwrap, "
		    "after no_new_privs" : "after landlock");
		ok(step_at(&p, STEP_EXEC) == (int)p.nsteps - 1,
		    "%s: exec last", b);
		/* The supervisor takes bwrap's listener with pidfd_getfd(),
		 * refused by a non-dumpable process without a user ns. */
		if (streq(b, "bwrap"))
			ok(step_at(&p, STEP_NOTIFY) >= 0 &&
			    step_at(&p, STEP_NOTIFY) <
			    step_at(&p, STEP_NOT_DUMPABLE),
			    "%s: notify before not-dumpable", b);
		if (!streq(b, "landlock"))
			ok(step_at(&p, STEP_NETWORK) < 0 ||
			    streq(b, "bwrap") ||
			    step_at(&p, STEP_NETWORK) < caps,
			    "%s: network before the capabilities go", b);
		/* Set-up steps first, then the command's, never mixed. */
		for (j = 0; j < p.nsteps; j++) {
			if (p.steps[j].in == STEP_IN_COMMAND && cmd < 0)
				cmd = (int)j;
			if (cmd >= 0 && p.steps[j].in != STEP_IN_COMMAND)
				ok_in = false;
		}
		ok(ok_in && cmd == step_at(&p, STEP_SESSION),
		    "%s: the command's steps begin with its session", b);
		plan_free(&p);
	}
}

/*
 * The limits: option over profile over the defaults from the host's
 * facts; the disk budget and its reserve; the kernel's bounds per
 * backend; the explain lines; and the wire carries them.
 */
static void
test_limits(void)
{
	static const struct {
		const char	*name;
		uint64_t	 free, size;	/* the store's filesystem */
		uint64_t	 disk, reserve;	/* 0 disk: refused */
	} disks[] = {
		{ "a roomy filesystem", 80ULL << 30, 200ULL << 30,
		    10ULL << 30, 1ULL << 30 },
		{ "a quarter of the free space", 8ULL << 30, 200ULL << 30,
		    2ULL << 30, 1ULL << 30 },
		{ "near the reserve", 1536ULL << 20, 200ULL << 30,
		    384ULL << 20, 1ULL << 30 },
		{ "the reserve: 5% of a small filesystem", 1ULL << 30,
		    10ULL << 30, 256ULL << 20, 512ULL << 20 },
		{ "the free space past the reserve", 640ULL << 20,
		    10ULL << 30, 128ULL << 20, 512ULL << 20 },
		{ "at the reserve", 512ULL << 20, 200ULL << 30, 0,
		    1ULL << 30 },
		{ "unmeasured", 0, 0, 0, 0 },
	};
	struct host h = base_host();
	struct cli_opts o = base_opts();
	struct profile pr = { 0 };
	struct plan p = { 0 }, q = { 0 };
	struct stage_run run = { .log_level = 0 }, qrun;
	char *buf = NULL;
	size_t len = 0, i;
	FILE *f;

	o.backend = PLAN_BACKEND_NATIVE;
	o.backend_set = true;
	if (compute(&h, &o, NULL, &p, "limits: defaults")) {
		ok(p.limits.memory == 8ULL << 30 && p.limits.tasks == 4096 &&
		    p.limits.cpu_millis == 0 && p.limits.disk == 10ULL << 30,
		    "defaults: half the RAM, 4096 tasks, no cpu quota, 10 GiB");
		is_int(p.limits.asked, 0, "defaults: none asked");
		ok(p.mounts.tmpfs_size == 8ULL << 30 &&
		    p.mounts.tmpfs_inodes == 524288,
		    "defaults: every tmpfs holds 8 GiB, 512Ki inodes");
		ok(p.limits.nproc == 4096 && p.limits.nice == 5,
		    "defaults: RLIMIT_NPROC 4096, nice +5 on native");
		ok(explains(&p, "limits.memory = 8 GiB  (built-in default: "
		    "half of the host's 16 GiB)"), "the memory default is "
		    "explained");
		ok(explains(&p, "limits.tasks = 4096  (built-in default)"),
		    "the tasks default is explained");
		ok(step_at(&p, STEP_LIMITS) >= 0, "native: the limits step");
		plan_free(&p);
	}

	/* The option wins over the profile; none given is none asked. */
	pr.name = xstrdup("t");
	pvalue_set(&pr.memory, "2G", "t.ini:3");
	pvalue_set(&pr.tasks, "64", "t.ini:4");
	pvalue_set(&pr.cpus, "none", "t.ini:5");
	pvalue_set(&pr.disk, "512M", "t.ini:6");
	o.memory = (struct cli_limit){ 1ULL << 30, true };
	o.disk = (struct cli_limit){ 0, true };
	if (compute_pr(&h, &o, NULL, &pr, &p, "limits: option and profile")) {
		ok(p.limits.memory == 1ULL << 30 && p.limits.tasks == 64 &&
		    p.limits.cpu_millis == 0 && p.limits.disk == 0,
		    "the option's memory and disk, the profile's tasks and "
		    "cpus");
		is_int(p.limits.asked, PLAN_LIMIT_MEMORY | PLAN_LIMIT_TASKS |
		    PLAN_LIMIT_CPUS | PLAN_LIMIT_DISK, "all four asked");
		ok(explains(&p, "limits.memory = 1 GiB  (option --memory)") &&
		    explains(&p, "limits.tasks = 64  (t.ini:4)") &&
		    explains(&p, "limits.cpus = none  (t.ini:5)") &&
		    explains(&p, "limits.disk = none  (option --disk)"),
		    "each explained with its origin");
		is_int(p.limits.nice, 0, "cpus none asked: no nice");
		ok(p.mounts.tmpfs_size == 1ULL << 30 &&
		    p.mounts.tmpfs_inodes == 65536, "a tmpfs holds 1 GiB, "
		    "65536 inodes at least");
		is_int((int)p.limits.nproc, 64, "RLIMIT_NPROC = tasks");
		plan_free(&p);
	}
	o.memory = (struct cli_limit){ 0, true };
	o.cpus = (struct cli_limit){ 1500, true };
	if (compute_pr(&h, &o, NULL, &pr, &p, "limits: memory none")) {
		ok(p.limits.memory == 0 && p.mounts.tmpfs_size == 0 &&
		    p.mounts.tmpfs_inodes == 0, "memory none: tmpfs left to "
		    "the kernel's defaults");
		ok(p.limits.cpu_millis == 1500 && p.limits.nice == 0,
		    "cpus 1.5: a quota, no nice");
		ok(explains(&p, "limits.cpus = 1.5  (option --cpus)"),
		    "cpus explained as CPUs");
		plan_free(&p);
	}
	profile_free(&pr);
	o = base_opts();

	/* The disk budget: 10 GiB, a quarter of the free space, the reserve. */
	for (i = 0; i < nitems(disks); i++) {
		autofree char *cause = NULL, *hint = NULL;
		int r;

		h.store_free = disks[i].free;
		h.store_size = disks[i].size;
		h.store_why = disks[i].size ? NULL : S("statvfs: EACCES");
		r = policy_compute(&o, &h, NULL, &builtin, "test", &p, &cause,
		    &hint);
		if (disks[i].disk == 0 && disks[i].size) {
			ok(r < 0 && has(cause, "no room for a session") &&
			    has(hint, "--disk none"), "disk, %s: refused",
			    disks[i].name);
			if (r == 0)
				plan_free(&p);
			continue;
		}
		if (!ok(r == 0, "disk, %s: accepted", disks[i].name)) {
			diag("cause: %s", cause);
			continue;
		}
		if (!ok(p.limits.disk == disks[i].disk &&
		    p.limits.disk_reserve == disks[i].reserve,
		    "disk, %s: budget and reserve", disks[i].name))
			diag("disk %llu, reserve %llu",
			    (unsigned long long)p.limits.disk,
			    (unsigned long long)p.limits.disk_reserve);
		if (disks[i].size == 0)
			ok(has(p.limits.origin[3], "could not be measured: "
			    "statvfs: EACCES"), "disk, unmeasured: says why");
		plan_free(&p);
	}
	h = base_host();
	o.disk = (struct cli_limit){ 0, true };
	h.store_free = 512ULL << 20;
	if (compute(&h, &o, NULL, &p, "disk at the reserve, --disk none")) {
		ok(p.limits.disk == 0 && p.limits.asked == PLAN_LIMIT_DISK,
		    "--disk none runs at the reserve");
		plan_free(&p);
	}
	h = base_host();
	o = base_opts();
	h.mem_total = 0;
	if (compute(&h, &o, NULL, &p, "memory unknown")) {
		ok(p.limits.memory == 0 && has(p.limits.origin[0], "unknown"),
		    "memory unknown: no default, said");
		plan_free(&p);
	}

	/* RLIMIT_NPROC only where the sandbox has a user namespace, and
	 * not for root, whom the kernel exempts. */
	h = base_host();
	h.uid = 0;
	if (compute(&h, &o, NULL, &p, "limits: root")) {
		ok(p.limits.nproc == 0 && p.limits.tasks == 4096,
		    "root: tasks 4096, no RLIMIT_NPROC");
		plan_free(&p);
	}
	h = base_host();
	h.bwrap.found = h.bwrap.probed = true;
	o.backend_set = true;
	o.backend = PLAN_BACKEND_LANDLOCK;
	if (compute(&h, &o, NULL, &p, "limits: landlock")) {
		ok(p.limits.nproc == 0 && p.limits.nice == 5,
		    "landlock: no RLIMIT_NPROC, nice");
		plan_free(&p);
	}
	o.backend = PLAN_BACKEND_BWRAP;
	if (compute(&h, &o, NULL, &p, "limits: bwrap")) {
		is_int((int)p.limits.nproc, 4096, "bwrap in a user namespace: "
		    "RLIMIT_NPROC");
		ok(step_at(&p, STEP_LIMITS) >= 0 &&
		    step_at(&p, STEP_LIMITS) < step_at(&p, STEP_NOT_DUMPABLE),
		    "bwrap: the inner stage takes the limits step");
		plan_free(&p);
	}
	h.bwrap.setuid = true;
	h.userns_why = S("user.max_user_namespaces is 0");
	if (compute(&h, &o, NULL, &p, "limits: setuid bwrap, no userns")) {
		ok(p.limits.nproc == 0, "setuid bwrap without a user "
		    "namespace: no RLIMIT_NPROC");
		plan_free(&p);
	}

	/* The inner stage gets the limits over the wire. */
	h = base_host();
	h.bwrap.found = h.bwrap.probed = true;
	o.tasks = (struct cli_limit){ 99, true };
	o.cpus = (struct cli_limit){ 250, true };
	if (compute(&h, &o, NULL, &p, "limits: the wire")) {
		if ((f = open_memstream(&buf, &len)) == NULL)
			abort();
		stage_write(&p, &run, f);
		fclose(f);
		if (ok(stage_decode(buf, len, &q, &qrun) == 0,
		    "the stage decodes")) {
			ok(q.limits.memory == p.limits.memory &&
			    q.limits.tasks == 99 && q.limits.cpu_millis == 250 &&
			    q.limits.disk == p.limits.disk &&
			    q.limits.asked == p.limits.asked &&
			    q.limits.disk_reserve == p.limits.disk_reserve &&
			    q.limits.nproc == 99 && q.limits.nice == 0,
			    "the limits cross the wire");
			plan_free(&q);
		}
		free(buf);
		plan_free(&p);
	}
}

/* The bwrap backend's command line for the golden plan. */
static void
test_bwrap_argv(void)
{
	struct plan p = { 0 };
	struct bwrap_in in = { .exe_fd = 10, .stage_fd = 11, .status_fd = 12,
	    .proxy_fd = -1, .pty_fd = 14, .notify_fd = 15, .seccomp_fd = 13,
	    .empty_file = SESSION "/empty",
	    .sys_net = (char *const[]){ (char *)"/sys/class/net",
	    (char *)"/sys/devices/virtual/net",
	    (char *)"/sys/devices/pci0000:00/0000:00:03.0/virtio2/net",
	    NULL } };
	char **argv, *got = NULL;
	size_t i, len = 0;
	FILE *f;

	if (!golden_plan(&p, "bwrap"))
		return;
	argv = bwrap_argv(&p, &in);
	if ((f = open_memstream(&got, &len)) == NULL)
		abort();
	for (i = 0; argv[i]; i++)
		fprintf(f, "%s\n", argv[i]);
	fclose(f);
	golden_check("bwrap-argv.golden", got);
	ok(strv_len(argv) > 4 && streq(argv[0], BWRAP_PATH) &&
	    streq(argv[strv_len(argv) - 7], "/proc/self/fd/10") &&
	    streq(argv[strv_len(argv) - 6], BWRAP_INNER_ARG),
	    "bwrap argv: bwrap first, confine's inner stage last, from its fd");
	{
		bool clearenv = false, die = false, caps = false;

		for (i = 0; argv[i]; i++) {
			clearenv |= streq(argv[i], "--clearenv");
			die |= streq(argv[i], "--die-with-parent");
			caps |= streq(argv[i], "--cap-drop") && argv[i + 1] &&
			    streq(argv[i + 1], "ALL");
		}
		ok(clearenv && die && caps, "bwrap argv: --clearenv, "
		    "--die-with-parent, --cap-drop ALL");
	}
	strv_free(argv);
	free(got);
	plan_free(&p);
}

/* The golden host, but /etc/ssl/private a file, and a kernel without keys
 * (no /proc/keys). */
static void
changed_fact(const char *path, struct host_path *ret)
{
	golden_fact(path, ret);
	ret->dir &= !streq(path, "/etc/ssl/private");
	ret->exists &= !streq(path, "/proc/keys");
}

/* Is there "a b c" in argv, one after the other (c NULL: "a b")? */
static bool
argv_has(char **argv, const char *a, const char *b, const char *c)
{
	size_t i;

	for (i = 0; argv[i] && argv[i + 1]; i++)
		if (streq(argv[i], a) && streq(argv[i + 1], b) &&
		    (c == NULL || (argv[i + 2] && streq(argv[i + 2], c))))
			return true;
	return false;
}

/*
 * bwrap's arguments for a path follow the probe's facts, carried by the
 * plan, and the copies the run made: a fact changed changes the argv.
 */
static void
test_bwrap_facts(void)
{
	struct plan p = { 0 }, q = { 0 };
	struct bwrap_in in = { .exe_fd = 10, .stage_fd = 11, .status_fd = 12,
	    .proxy_fd = -1, .pty_fd = 14, .notify_fd = 15, .seccomp_fd = 13,
	    .empty_file = SESSION "/empty" };
	char **a, **b;
	bool *no_copy;
	const char *copy = NULL;
	size_t i;

	if (!golden_plan(&p, "bwrap") ||
	    !golden_plan_with(&q, "bwrap", changed_fact))
		return;
	a = bwrap_argv(&p, &in);
	b = bwrap_argv(&q, &in);
	ok(argv_has(a, "--tmpfs", "/etc/ssl/private", NULL) &&
	    !argv_has(a, "--ro-bind", SESSION "/empty", "/etc/ssl/private"),
	    "bwrap facts: a hidden directory gets an empty tmpfs");
	ok(argv_has(b, "--ro-bind", SESSION "/empty", "/etc/ssl/private") &&
	    !argv_has(b, "--tmpfs", "/etc/ssl/private", NULL),
	    "bwrap facts: the same path a file, by the probe: the empty file");
	ok(argv_has(a, "--ro-bind", SESSION "/empty", "/proc/keys") &&
	    !argv_has(b, "--ro-bind", SESSION "/empty", "/proc/keys"),
	    "bwrap facts: /proc/keys hidden; a kernel without it, no mount");
	strv_free(a);
	strv_free(b);
	/* A copy the run did not make (nothing on the host) is not bound. */
	no_copy = xcalloc(p.mounts.n + 1, sizeof(*no_copy));
	for (i = 0; i < p.mounts.n; i++)
		if (p.mounts.v[i].kind == PLAN_MOUNT_COPY &&
		    streq(p.mounts.v[i].dst, "/var/cache/golden")) {
			no_copy[i] = true;
			copy = p.mounts.v[i].upper;
		}
	a = bwrap_argv(&p, &in);
	in.no_copy = no_copy;
	b = bwrap_argv(&p, &in);
	ok(copy && argv_has(a, "--bind", copy, "/var/cache/golden") &&
	    !argv_has(b, "--bind", copy, "/var/cache/golden"),
	    "bwrap facts: a copy bound; one the run did not make, not");
	strv_free(a);
	strv_free(b);
	free(no_copy);
	plan_free(&p);
	plan_free(&q);
}

/*
 * bwrap's start refuses a host that changed since the probe where the
 * plan chose its arguments by it (run/backend-bwrap.c); an unchanged one
 * passes.
 */
static void
test_bwrap_guard(void)
{
	char dir[] = "/tmp/test-policy-guard.XXXXXX";
	autofree char *hide = NULL, *sock = NULL;
	struct plan_mount m[2] = { 0 };
	struct plan p = { 0 };
	const char *where = NULL;
	FILE *f;

	if (mkdtemp(dir) == NULL)
		abort();
	hide = path_join(dir, "hidden");
	sock = path_join(dir, "sock");
	if (mkdir(hide, 0700) < 0)
		abort();
	m[0] = (struct plan_mount){ .kind = PLAN_MOUNT_HIDE, .dst = hide,
	    .dst_dir = true };
	m[1] = (struct plan_mount){ .kind = PLAN_MOUNT_MASK, .dst = sock,
	    .absent = true };
	p.mounts.v = m;
	p.mounts.n = 2;
	ok(bwrap_check_unchanged(&p, NULL, &where) == 0,
	    "bwrap guard: the host as probed passes");
	rmdir(hide);
	if ((f = fopen(hide, "we")) == NULL)
		abort();
	fclose(f);
	ok(bwrap_check_unchanged(&p, NULL, &where) == -ESTALE && where &&
	    streq(where, hide), "bwrap guard: a hidden directory now a file "
	    "is refused, named");
	m[0].dst_dir = false;
	ok(bwrap_check_unchanged(&p, NULL, &where) == 0,
	    "bwrap guard: planned a file, a file passes");
	if ((f = fopen(sock, "we")) == NULL)
		abort();
	fclose(f);
	where = NULL;
	ok(bwrap_check_unchanged(&p, NULL, &where) == -ESTALE && where &&
	    streq(where, sock), "bwrap guard: a masked path gone at the "
	    "probe and back at the start is refused");
	/* A socket the probe saw and another program removed since: the
	 * run's fact (no mask), not a refusal; without gone[] it is one. */
	{
		bool gone[3] = { false };

		unlink(sock);
		m[1].absent = false;
		where = NULL;
		ok(bwrap_check_unchanged(&p, NULL, &where) == -ESTALE &&
		    where && streq(where, sock), "bwrap guard: a masked "
		    "socket gone since the probe, with nowhere to say so: "
		    "refused");
		ok(bwrap_check_unchanged(&p, gone, &where) == 0 && gone[1] &&
		    !gone[0], "bwrap guard: a masked socket gone since the "
		    "probe: nothing to hide, said in gone[]");
	}
	unlink(sock);
	unlink(hide);
	rmdir(dir);
}

/* The same inputs give the same plan, whatever the process around them. */
static void
test_deterministic(void)
{
	struct plan a = { 0 }, b = { 0 };
	autofree char *da = NULL, *db = NULL;

	if (!golden_plan(&a, "native"))
		return;
	da = dump(&a);
	setenv("TZ", "America/New_York", 1);
	setenv("HOME", "/nowhere", 1);
	setenv("PATH", "/evil/bin", 1);
	setenv("XDG_STATE_HOME", "/evil/state", 1);
	setenv("XDG_RUNTIME_DIR", "/evil/run", 1);
	tzset();
	if (golden_plan(&b, "native")) {
		db = dump(&b);
		is_str(db, da, "the same inputs give the same plan_dump");
		plan_free(&b);
	}
	plan_free(&a);
}

/* Several workspaces: each at its own path, its own layers or a read-only
 * bind; refused when two nest or one is named twice; privacy per
 * workspace, named by the quadrant check. */
static void
test_workspaces(void)
{
	struct host_ws more[2];
	struct host h = base_host();
	struct cli_opts o = base_opts();
	struct profile pr;
	struct plan p;
	char *cause;
	size_t i, nover = 0, nro = 0;

	memset(more, 0, sizeof(more));
	more[0].path = S("/srv/workflow");
	more[0].origin = S("option --workspace");
	more[1].path = S("/srv/docs");
	more[1].origin = S("option --ro-workspace");
	more[1].read_only = true;
	h.more_ws = more;
	h.nmore_ws = 2;
	if ((cause = try_backend(&h, &o, &builtin, "native", &p)) != NULL) {
		ok(false, "workspaces: accepted (%s)", cause);
		free(cause);
	} else {
		is_str(p.workspace, PROJ, "workspaces: the first writable one "
		    "keeps the session's own layers");
		ok(p.nworkspaces == 3, "workspaces: three in the plan");
		for (i = 0; i < p.mounts.n; i++) {
			const struct plan_mount *m = &p.mounts.v[i];

			if (m->kind == PLAN_MOUNT_OVERLAY &&
			    streq(m->dst, "/srv/workflow")) {
				nover++;
				ok(m->upper && strstr(m->upper, "/ws/1/upper"),
				    "workspaces: the further one's upper is "
				    "ws/1/upper");
			}
			if (m->kind == PLAN_MOUNT_BIND_RO &&
			    streq(m->dst, "/srv/docs"))
				nro++;
			ok(!(m->kind == PLAN_MOUNT_OVERLAY &&
			    streq(m->dst, "/srv/docs")), "workspaces: the "
			    "read-only one has no overlay (%s)", m->dst);
		}
		ok(nover == 1 && nro == 1, "workspaces: an overlay and a "
		    "read-only bind at their own paths");
		ok(explains(&p, "workspace.mode = read-only  (option "
		    "--ro-workspace)"), "workspaces: --dry-run says which is "
		    "read-only");
		plan_free(&p);
	}
	/* A setuid bwrap: each writable workspace its own copy, bound at
	 * its path (the further one's in ws/1), the read-only one a bind. */
	o = base_opts();
	h.bwrap.found = h.bwrap.probed = h.bwrap.setuid = true;
	if ((cause = try_backend(&h, &o, &builtin, "bwrap", &p)) != NULL) {
		ok(false, "workspaces: setuid bwrap accepted (%s)", cause);
		free(cause);
	} else {
		const struct plan_mount *m;
		size_t further = 0, first = 0, ro = 0;

		ok(!plan_ws_overlay(&p), "workspaces: setuid bwrap, copies");
		nover = 0;
		for (i = 0; i < p.mounts.n; i++) {
			m = &p.mounts.v[i];
			nover += m->kind == PLAN_MOUNT_OVERLAY;
			further += m->kind == PLAN_MOUNT_COPY &&
			    streq(m->dst, "/srv/workflow") && m->upper &&
			    strstr(m->upper, "/ws/1/upper") &&
			    m->work == NULL && streq(m->src, "/srv/workflow");
			first += m->kind == PLAN_MOUNT_COPY &&
			    streq(m->dst, PROJ) && m->upper &&
			    !strstr(m->upper, "/ws/");
			ro += m->kind == PLAN_MOUNT_BIND_RO &&
			    streq(m->dst, "/srv/docs");
		}
		ok(further == 1, "workspaces: setuid bwrap, the further one a "
		    "copy in ws/1/upper, bound at its path");
		ok(first == 1, "workspaces: setuid bwrap, the first a copy in "
		    "the session's upper/");
		ok(ro == 1, "workspaces: setuid bwrap, the read-only one a "
		    "read-only bind");
		ok(nover == 0, "workspaces: setuid bwrap, no overlay");
		plan_free(&p);
	}
	h.bwrap.found = h.bwrap.probed = h.bwrap.setuid = false;
	/* landlock: one writable workspace, a copy elsewhere. */
	memset(&o, 0, sizeof(o));
	o = base_opts();
	cause = try_backend(&h, &o, &builtin, "landlock", &p);
	ok(cause && strstr(cause, "/srv/workflow"), "workspaces: landlock "
	    "refuses a further writable one, naming it");
	if (cause == NULL)
		plan_free(&p);
	free(cause);
	/* Nested, twice. */
	o = base_opts();
	more[0].path = S(PROJ "/sub");
	cause = try_backend(&h, &o, &builtin, "native", &p);
	ok(cause && strstr(cause, "overlap"), "workspaces: nested ones "
	    "refused");
	if (cause == NULL)
		plan_free(&p);
	free(cause);
	more[0].path = S(PROJ);
	cause = try_backend(&h, &o, &builtin, "native", &p);
	ok(cause && strstr(cause, "named twice"), "workspaces: the same one "
	    "twice refused");
	if (cause == NULL)
		plan_free(&p);
	free(cause);
	/* Private, read-only, in the sealed quadrant: named. */
	more[0].path = S("/srv/workflow");
	more[1].private = S("yes");
	more[1].private_origin = S(T_INI ":9");
	cause = try_backend(&h, &o, &builtin, "native", &p);
	ok(cause && strstr(cause, "workspace /srv/docs: private = yes") &&
	    strstr(cause, T_INI ":9"), "workspaces: the quadrant check names "
	    "the private workspace (%s)", cause ? cause : "accepted");
	if (cause == NULL)
		plan_free(&p);
	free(cause);
	prof(&pr, "offline");
	if ((cause = try_backend(&h, &o, &pr, "native", &p)) == NULL) {
		ok(p.legs & PLAN_LEG_B, "workspaces: a private read-only one "
		    "is leg B");
		plan_free(&p);
	} else
		ok(false, "workspaces: offline accepted (%s)", cause);
	free(cause);
	profile_free(&pr);
	/* None writable. */
	prof(&pr, "sealed");
	pvalue_set(&pr.ws_mode, "read-only", T_INI ":5");
	h.nmore_ws = 0;
	cause = try_backend(&h, &o, &pr, "native", &p);
	ok(cause && strstr(cause, "no writable workspace") &&
	    strstr(cause, T_INI ":5"), "workspaces: none writable refused");
	if (cause == NULL)
		plan_free(&p);
	free(cause);
	profile_free(&pr);
}

int
main(void)
{
	test_workspace();
	test_workspaces();
	test_no_landlock();
	test_landlock_abi();
	test_mounts();
	test_landlock_paths();
	test_cwd();
	test_session();
	test_env();
	test_tty();
	test_fixed();
	test_quadrants();
	test_destinations();
	test_destination_lists();
	test_inject_plan();
	test_command_arguments();
	test_overrides();
	test_tilde();
	test_rules_refused();
	test_backends();
	test_bwrap_plan();
	test_landlock_plan();
	test_persistent();
	test_tcp_plan();
	test_backend_layout();
	test_profile_mounts();
	test_allow_list();
	test_env_profile();
	test_git_identity();
	test_git_values();
	test_parents_of_home();
	test_reshown_sockets();
	test_loader_to_policy();
	test_golden();
	test_sequence();
	test_limits();
	test_bwrap_argv();
	test_bwrap_facts();
	test_bwrap_guard();
	test_deterministic();
	return done();
}
