// SPDX-License-Identifier: ISC
/*
 * test-policy.c - policy_compute as tables of {host facts, options,
 * expected plan}: the workspace and its refusals, Landlock rights and
 * degradations per ABI, the mount layout, the environment, the session,
 * and a golden plan_dump for one fixed host.
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
#include <time.h>

#include "env.h"
#include "policy.h"
#include "util.h"

#include "tap.h"

#define S(s)		((char *)(s))
#define V(...)		((const char *const[]){ __VA_ARGS__, NULL })

#define HOME		"/home/alice"
#define PROJ		HOME "/src/proj"
#define STATE		HOME "/.local/state"
#define SESSION_ID	"20231114-221320-0badf00d"
#define SESSION		STATE "/confine/sessions/" SESSION_ID
#define OVERLAY(ws)	"overlay " ws " lower=" ws " upper=" SESSION \
    "/upper work=" SESSION "/work"
#define MOUNTS_HEAD	"root /", "proc /proc", "dev /dev", \
    "tmpfs /tmp 1777 exec"

static const char *const no_sockets[] = { NULL };
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
	};

	return h;
}

static struct cli_opts
base_opts(void)
{
	struct cli_opts o = { .cmd = CLI_RUN, .argv = (char **)default_argv };

	return o;
}

/* Compute, and report the cause when the policy refuses. */
static bool
compute(const struct host *h, const struct cli_opts *o, char *const *env,
    struct plan *p, const char *name)
{
	autofree char *cause = NULL, *hint = NULL;
	int r = policy_compute(o, h, env, p, &cause, &hint);

	if (!ok(r == 0, "%s: the policy accepts", name))
		diag("cause: %s; hint: %s", cause ? cause : "(NULL)",
		    hint ? hint : "(NULL)");
	return r == 0;
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
	case PLAN_MOUNT_TMPFS:
		return xasprintf("tmpfs %s %o%s", m->dst, m->mode,
		    m->exec ? " exec" : "");
	case PLAN_MOUNT_OVERLAY:
		return xasprintf("overlay %s lower=%s upper=%s work=%s",
		    m->dst, m->src, m->upper, m->work);
	case PLAN_MOUNT_MASK:
		return xasprintf("mask %s", m->dst);
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
 * Can the sandbox reach host socket s by path?  Mounts stack in plan
 * order, so the last one at or above s decides what s shows.
 */
static bool
socket_covered(const struct plan_mounts *m, const char *s)
{
	const struct plan_mount *top = NULL;
	size_t i;

	for (i = 0; i < m->n; i++)
		if (path_has_prefix(s, m->v[i].dst))
			top = &m->v[i];
	if (top == NULL)
		return false;
	switch (top->kind) {
	case PLAN_MOUNT_ROOT:
	case PLAN_MOUNT_OVERLAY:
		return false;
	case PLAN_MOUNT_PROC:
	case PLAN_MOUNT_DEV:
	case PLAN_MOUNT_TMPFS:
	case PLAN_MOUNT_MASK:
		return true;
	}
	return false;
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
		r = policy_compute(&o, &h, NULL, &p, &cause, &hint);
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
		r = policy_compute(&o, &h, NULL, &p, &cause, &hint);
		is_int(r, -1, "landlock ABI 0 (%s): refused", rows[i].why);
		if (!ok(cause && strstr(cause, "landlock") &&
		    strstr(cause, rows[i].why), "landlock ABI 0: the cause "
		    "says '%s'", rows[i].why))
			diag("cause: %s", cause ? cause : "(NULL)");
		ok(hint && strstr(hint, "landlock"), "landlock ABI 0: a hint");
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
	static const struct {
		int		 abi;
		const char	*word;
	} features[] = {
		{ 2, "EXDEV" }, { 3, "truncation" }, { 4, "TCP" },
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
		    p.landlock.handled_net == rows[i].net &&
		    p.landlock.scoped == rows[i].scoped,
		    "ABI %d: the plan handles exactly fs %#llx net %#llx "
		    "scoped %#llx", abi, (unsigned long long)rows[i].fs,
		    (unsigned long long)rows[i].net,
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
		    "tmpfs " HOME " 700 exec", OVERLAY(PROJ),
		    "mask /srv/app.sock", "mask " PROJ "/.dev/server.sock",
		    "mask /var/lib/mysql/mysql.sock" } },
		{ "workspace outside home", true, false, "/run/user/1000",
		    "/srv/proj", V("/srv/proj/run.sock", "/srv/other.sock",
		    "/tmp/x.sock", "/srv/projx.sock"),
		    { MOUNTS_HEAD, "tmpfs /run 755", "tmpfs " HOME " 700 exec",
		    OVERLAY("/srv/proj"), "mask /srv/proj/run.sock",
		    "mask /srv/other.sock", "mask /srv/projx.sock" } },
		{ "workspace in /tmp", true, false, NULL, "/tmp/proj",
		    V("/tmp/proj/s", "/tmp/s"), { MOUNTS_HEAD,
		    "tmpfs /run 755", "tmpfs " HOME " 700 exec",
		    OVERLAY("/tmp/proj"), "mask /tmp/proj/s" } },
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
			ok(socket_covered(&p.mounts, rows[i].sockets[j]),
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

/* YYYYMMDD-HHMMSS-xxxxxxxx, digits and lower-case hex. */
static bool
id_well_formed(const char *id)
{
	size_t i;

	if (strlen(id) != 24)
		return false;
	for (i = 0; i < 24; i++) {
		char c = id[i];

		if (i == 8 || i == 15) {
			if (c != '-')
				return false;
		} else if (!((c >= '0' && c <= '9') ||
		    (i > 15 && c >= 'a' && c <= 'f')))
			return false;
	}
	return true;
}

static void
test_session(void)
{
	static const struct {
		time_t		 now;
		uint32_t	 random;
		const char	*state_home, *id, *dir;
	} rows[] = {
		{ 0, 0, STATE, "19700101-000000-00000000",
		    STATE "/confine/sessions/19700101-000000-00000000" },
		{ 1700000000, 0xdeadbeef, STATE, "20231114-221320-deadbeef",
		    STATE "/confine/sessions/20231114-221320-deadbeef" },
		{ 1700000000, 1, STATE, "20231114-221320-00000001",
		    STATE "/confine/sessions/20231114-221320-00000001" },
		{ 951782400, 0xffffffff, "/var/state",
		    "20000229-000000-ffffffff",
		    "/var/state/confine/sessions/20000229-000000-ffffffff" },
		{ 4102444799, 0xa, "/var/state", "20991231-235959-0000000a",
		    "/var/state/confine/sessions/20991231-235959-0000000a" },
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
		h.random = rows[i].random;
		h.state_home = S(rows[i].state_home);
		if (!compute(&h, &o, NULL, &p, rows[i].id))
			continue;
		is_str(p.session_id, rows[i].id, "session id %s", rows[i].id);
		ok(id_well_formed(p.session_id), "%s is YYYYMMDD-HHMMSS-"
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
		    "[CONFINE_SESSION=" SESSION_ID "][HOME=" HOME "]"
		    "[LANG=C.UTF-8][LC_ALL=C][LOGNAME=alice]"
		    "[PATH=/opt/bin:/usr/bin][TERM=xterm-256color]"
		    "[TMPDIR=/tmp][USER=alice]" },
		{ "no PATH", no_path, NULL, 0,
		    "[CONFINE_SESSION=" SESSION_ID "][HOME=" HOME "]"
		    "[LOGNAME=alice][PATH=/usr/local/bin:/usr/bin:/bin]"
		    "[TERM=dumb][TMPDIR=/tmp][USER=alice]" },
		{ "--env", host_env, opts_env, nitems(opts_env),
		    "[CONFINE_SESSION=" SESSION_ID "][DISPLAY=:0][FOO=bar]"
		    "[HOME=" HOME "][LANG=C.UTF-8][LC_ALL=C][LOGNAME=alice]"
		    "[PATH=/opt/bin:/usr/bin][TERM=xterm-256color]"
		    "[TMPDIR=/tmp][USER=alice]" },
		{ "empty env", V(NULL), NULL, 0,
		    "[CONFINE_SESSION=" SESSION_ID "][HOME=" HOME "]"
		    "[LOGNAME=alice][PATH=/usr/local/bin:/usr/bin:/bin]"
		    "[TMPDIR=/tmp][USER=alice]" },
	};
	size_t i, j;

	for (i = 0; i < nitems(rows); i++) {
		struct host h = base_host();
		struct cli_opts o = base_opts();
		struct plan p = { 0 };
		autofree char *got = NULL;

		o.env = (const char **)rows[i].opts;
		o.nenv = rows[i].nopts;
		if (!compute(&h, &o, (char *const *)rows[i].env, &p,
		    rows[i].name))
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
		{ { false, true, true }, false },
		{ { false, false, true }, false },
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
		ok(p.backend_reason && strstr(p.backend_reason,
		    "--backend native"), "the backend reason names the option");
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

/* The plan of the golden host: every kind of mount, an old ABI, a pty. */
static bool
golden_plan(struct plan *p)
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
	static const char *const opts_env[] = { "DISPLAY", "GIT_PAGER=cat" };
	struct host h = base_host();
	struct cli_opts o = base_opts();

	h.cwd = S("/srv/work/proj/src");
	h.git_top = S("/srv/work/proj");
	h.var_run_is_dir = true;
	h.unix_sockets = (char **)sockets;
	h.landlock_abi = 4;
	h.is_tty[0] = h.is_tty[1] = true;
	o.argv = (char **)argv;
	o.env = (const char **)opts_env;
	o.nenv = nitems(opts_env);
	return compute(&h, &o, (char *const *)env, p, "golden host");
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

static void
test_golden(void)
{
	const char *srcdir = getenv("TESTS_SRCDIR");
	const char *regen = getenv("CONFINE_REGEN_GOLDEN");
	autofree char *path = xasprintf("%s/data/plan-dump.golden",
	    srcdir ? srcdir : "tests");
	autofree char *got = NULL, *want = NULL;
	struct plan p = { 0 };
	FILE *f;

	if (!golden_plan(&p))
		return;
	got = dump(&p);
	plan_free(&p);
	if (regen && streq(regen, "1")) {
		bool written = (f = fopen(path, "we")) != NULL &&
		    fputs(got, f) >= 0;

		written = (f && fclose(f) == 0) && written;
		ok(written, "golden plan # SKIP regenerated %s", path);
		return;
	}
	if ((want = read_all(path)) == NULL) {
		ok(false, "golden plan: cannot read %s", path);
		diag("make it with CONFINE_REGEN_GOLDEN=1 TESTS_SRCDIR=DIR");
		return;
	}
	if (!ok(streq(got, want), "plan_dump matches %s", path)) {
		diff_lines(want, got);
		diag("if the change is intended: CONFINE_REGEN_GOLDEN=1 "
		    "TESTS_SRCDIR=<srcdir>/tests tests/unit/test-policy");
	}
}

/* The same inputs give the same plan, whatever the process around them. */
static void
test_deterministic(void)
{
	struct plan a = { 0 }, b = { 0 };
	autofree char *da = NULL, *db = NULL;

	if (!golden_plan(&a))
		return;
	da = dump(&a);
	setenv("TZ", "America/New_York", 1);
	setenv("HOME", "/nowhere", 1);
	setenv("PATH", "/evil/bin", 1);
	setenv("XDG_STATE_HOME", "/evil/state", 1);
	setenv("XDG_RUNTIME_DIR", "/evil/run", 1);
	tzset();
	if (golden_plan(&b)) {
		db = dump(&b);
		is_str(db, da, "the same inputs give the same plan_dump");
		plan_free(&b);
	}
	plan_free(&a);
}

int
main(void)
{
	test_workspace();
	test_no_landlock();
	test_landlock_abi();
	test_mounts();
	test_landlock_paths();
	test_cwd();
	test_session();
	test_env();
	test_tty();
	test_fixed();
	test_golden();
	test_deterministic();
	return done();
}
