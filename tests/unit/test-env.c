// SPDX-License-Identifier: ISC
/*
 * test-env.c - env_build: the command's environment from an allow-list,
 * confine's own settings and --env; env_get; env_snapshot's area and
 * env_scrub.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "lib/env.h"
#include "lib/util.h"

#include "tap.h"

extern char **environ;

#define V(...)		((char *const[]){ __VA_ARGS__, NULL })
#define C(...)		((const char *const[]){ __VA_ARGS__, NULL })

/* An allow-list of the policy's shape: exact names and one prefix. */
static const char *const allow[] = {
	"TERM", "LANG", "LC_*", "PATH", "TZ", NULL
};

/* A host environment with secrets and session plumbing in it. */
static char *const host[] = {
	(char *)"TERM=xterm-256color",
	(char *)"SSH_AUTH_SOCK=/run/user/1000/ssh-agent.sock",
	(char *)"PATH=/usr/local/bin:/usr/bin",
	(char *)"DBUS_SESSION_BUS_ADDRESS=unix:path=/run/user/1000/bus",
	(char *)"LC_ALL=C.UTF-8",
	(char *)"DISPLAY=:0",
	(char *)"WAYLAND_DISPLAY=wayland-0",
	(char *)"AWS_SECRET_ACCESS_KEY=wJalrXUtnFEMI",
	(char *)"GITHUB_TOKEN=ghp_0123",
	(char *)"LC_CTYPE=en_US.UTF-8",
	(char *)"TERMINFO=/home/u/.terminfo",	/* TERM is exact, no prefix */
	(char *)"TER=x",
	(char *)"LANGUAGE=fr",
	(char *)"LC=x",				/* "LC_*" needs the '_' */
	(char *)"XLC_ALL=x",
	(char *)"NOVALUE",			/* no '=': ignored */
	(char *)"TZ",				/* allowed name, no '=' */
	(char *)"EMPTY=",
	NULL
};

static void
expect(char **got, const char *want, const char *what)
{
	autofree char *s = tap_strv(got);

	is_str(s, want, "%s", what);
	strv_free(got);
}

/* Is each name (up to '=') strictly after the one before it? */
static bool
sorted_by_name(char *const *v, char **ret_why)
{
	size_t i;

	for (i = 0; v[i] && v[i + 1]; i++) {
		size_t a = strcspn(v[i], "="), b = strcspn(v[i + 1], "=");
		int c = strncmp(v[i], v[i + 1], a < b ? a : b);

		if (c > 0 || (c == 0 && a >= b)) {
			*ret_why = xasprintf("'%.*s' before '%.*s'", (int)a,
			    v[i], (int)b, v[i + 1]);
			return false;
		}
	}
	return true;
}

static void
test_allow(void)
{
	expect(env_build(host, allow, NULL, NULL, 0),
	    "[LC_ALL=C.UTF-8][LC_CTYPE=en_US.UTF-8]"
	    "[PATH=/usr/local/bin:/usr/bin][TERM=xterm-256color]",
	    "only allowed names pass, LC_* by prefix, sorted");
	expect(env_build(host, C("SSH_AUTH_SOCK*"), NULL, NULL, 0),
	    "[SSH_AUTH_SOCK=/run/user/1000/ssh-agent.sock]",
	    "a '*' entry matches the whole name too");
	expect(env_build(host, C("EMPTY"), NULL, NULL, 0), "[EMPTY=]",
	    "an allowed variable with an empty value passes");
	expect(env_build(host, C("TZ", "NOVALUE"), NULL, NULL, 0), "",
	    "host entries without '=' never pass");
	expect(env_build(host, C(NULL), NULL, NULL, 0), "",
	    "an empty allow-list passes nothing");
}

/*
 * A name twice in the host environment (execve(2) allows it): the
 * allow-list and --env NAME must pass the same value, the one getenv(3)
 * and env_get() see.
 */
static void
test_duplicate(void)
{
	char *const h[] = { (char *)"A=first", (char *)"A=second", NULL };

	expect(env_build(h, C("A"), NULL, NULL, 0), "[A=first]",
	    "a name twice in the host: allow-list passes getenv's value");
	expect(env_build(h, C(NULL), NULL, C("A"), 1), "[A=first]",
	    "a name twice in the host: --env NAME passes getenv's value");
}

static void
test_secrets_dropped(void)
{
	static const char *const secret[] = { "SSH_AUTH_SOCK",
	    "DBUS_SESSION_BUS_ADDRESS", "DISPLAY", "WAYLAND_DISPLAY",
	    "AWS_SECRET_ACCESS_KEY", "GITHUB_TOKEN", "TERMINFO", "LANGUAGE",
	    "XLC_ALL", "LC" };
	char **env = env_build(host, allow, NULL, NULL, 0);
	size_t i;

	for (i = 0; i < nitems(secret); i++)
		is_str(env_get(env, secret[i]), NULL, "%s is dropped",
		    secret[i]);
	strv_free(env);
}

static void
test_set_and_opts(void)
{
	char *const set[] = { (char *)"PATH=/usr/bin:/bin",
	    (char *)"HOME=/home/u", (char *)"TERM=dumb", NULL };

	expect(env_build(host, allow, set, NULL, 0),
	    "[HOME=/home/u][LC_ALL=C.UTF-8][LC_CTYPE=en_US.UTF-8]"
	    "[PATH=/usr/bin:/bin][TERM=dumb]",
	    "set entries override the host's and add names not allowed");
	expect(env_build(host, allow, NULL, C("DISPLAY"), 1),
	    "[DISPLAY=:0][LC_ALL=C.UTF-8][LC_CTYPE=en_US.UTF-8]"
	    "[PATH=/usr/local/bin:/usr/bin][TERM=xterm-256color]",
	    "--env NAME passes NAME from the host");
	expect(env_build(host, C(NULL), NULL,
	    C("NOT_SET", "NOVALUE", "EMPTY"), 3), "[EMPTY=]",
	    "--env NAME passes nothing when the host lacks NAME=");
	expect(env_build(host, C(NULL), NULL, C("FOO=bar=baz", "E="), 2),
	    "[E=][FOO=bar=baz]", "--env NAME=VALUE sets, value kept whole");
	expect(env_build(host, allow, set, C("HOME=/x", "TERM"), 2),
	    "[HOME=/x][LC_ALL=C.UTF-8][LC_CTYPE=en_US.UTF-8]"
	    "[PATH=/usr/bin:/bin][TERM=xterm-256color]",
	    "--env beats set entries");
	expect(env_build(host, C(NULL), NULL, C("X=1", "X=2"), 2), "[X=2]",
	    "the later --env wins");
	expect(env_build(V((char *)"X=host"), C(NULL), NULL,
	    C("X=1", "X"), 2), "[X=host]", "the later --env NAME wins");
	expect(env_build(host, allow, NULL, C("TERM"), 1),
	    "[LC_ALL=C.UTF-8][LC_CTYPE=en_US.UTF-8]"
	    "[PATH=/usr/local/bin:/usr/bin][TERM=xterm-256color]",
	    "--env of an allowed name gives one entry");
	expect(env_build(host, allow, set, C("Z=1", "A=1"), 2),
	    "[A=1][HOME=/home/u][LC_ALL=C.UTF-8][LC_CTYPE=en_US.UTF-8]"
	    "[PATH=/usr/bin:/bin][TERM=dumb][Z=1]",
	    "entries from every source are sorted together");
}

static void
test_sorted(void)
{
	char **env = env_build(host, allow, NULL,
	    C("A1=x", "A=y", "A_B=z", "B=1", "AB=2", "LC_ALL0=3"), 6);
	char *why = NULL;

	if (!ok(sorted_by_name(env, &why), "sorted by name when one name "
	    "prefixes another")) {
		autofree char *s = tap_strv(env);

		diag("%s in %s", why, s);
	}
	free(why);
	strv_free(env);
}

static void
test_empty(void)
{
	char **env;

	env = env_build(NULL, C(NULL), NULL, NULL, 0);
	ok(env != NULL && env[0] == NULL, "no input: an empty vector");
	strv_free(env);
	env = env_build(V(NULL), allow, V(NULL), NULL, 0);
	ok(env != NULL && env[0] == NULL, "empty vectors: an empty vector");
	strv_free(env);
	env = env_build(NULL, allow, NULL, C("DISPLAY"), 1);
	ok(env != NULL && env[0] == NULL,
	    "--env NAME with no host env: an empty vector");
	strv_free(env);
}

static void
test_owned(void)
{
	char term[] = "TERM=xterm", opt[] = "X=1";
	char *const h[] = { term, NULL };
	const char *const opts[] = { opt, NULL };
	char **env = env_build(h, allow, NULL, opts, 1);

	term[5] = opt[2] = '!';
	expect(env, "[TERM=xterm][X=1]", "the result owns copies of its "
	    "strings");
}

static void
test_get(void)
{
	char *const e[] = { (char *)"AB=2", (char *)"A=1", (char *)"B",
	    (char *)"C=", (char *)"D=x=y", NULL };

	is_str(env_get(e, "A"), "1", "env_get: exact name, not a prefix");
	is_str(env_get(e, "AB"), "2", "env_get: the longer name");
	is_str(env_get(e, "B"), NULL, "env_get: an entry without '='");
	is_str(env_get(e, "C"), "", "env_get: an empty value");
	is_str(env_get(e, "D"), "x=y", "env_get: a value holding '='");
	is_str(env_get(e, "ABC"), NULL, "env_get: a longer name is absent");
	is_str(env_get(e, "E"), NULL, "env_get: an absent name");
	is_str(env_get(NULL, "A"), NULL, "env_get: a NULL environment");
	is_str(env_get(V((char *)"A=1", (char *)"A=2"), "A"), "1",
	    "env_get: the first of two entries, as getenv(3)");
}

/* The default list passes locale variables only with a locale's shape. */
static void
test_locale(void)
{
	static const char *const good[] = { "", "C", "POSIX", "C.UTF-8",
	    "C.utf8", "en_US.UTF-8", "en_US", "de_DE@euro", "fr", "ast_ES",
	    "es_419.UTF-8", "sr_RS.UTF-8@latin", "ja_JP.eucJP",
	    "uz_UZ.ISO-8859-15@cyrillic" };
	static const char *const bad[] = { "ghp_0123456789abcdef",
	    "ghp_ABC", "sk-live-1234", "x", "abcd_EF", "en_us", "en_USA",
	    "EN_US", "en_US.", "en_US@", "en_US.UTF-8@", "en_US.UTF_8",
	    "en_US.0123456789abcdef", "en_US@0123456789abcdef", "C.",
	    "Cx", "POSIX.UTF-8x", "en US", "en_US.UTF-8 ", "en_US/../x",
	    "en_12", "\xc3\xa9n_US" };
	char *const h[] = { (char *)"LC_ALL=en_US.UTF-8",
	    (char *)"LC_GITHUB_TOKEN=ghp_0123456789abcdef",
	    (char *)"LANG=ghp_x", (char *)"LC_CTYPE=C.UTF-8",
	    (char *)"LC_X=", NULL };
	size_t i;

	for (i = 0; i < nitems(good); i++)
		ok(env_locale_shaped(good[i]), "'%s' is a locale name",
		    good[i]);
	for (i = 0; i < nitems(bad); i++)
		ok(!env_locale_shaped(bad[i]), "'%s' is not a locale name",
		    bad[i]);
	expect(env_build(h, allow, NULL, NULL, 0),
	    "[LC_ALL=en_US.UTF-8][LC_CTYPE=C.UTF-8][LC_X=]",
	    "LC_* and LANG pass locale names only");
	expect(env_build(h, C("LC_GITHUB_TOKEN"), NULL, NULL, 0),
	    "[LC_GITHUB_TOKEN=ghp_0123456789abcdef]",
	    "a variable named exactly passes as it is");
	expect(env_build(h, C(NULL), NULL, C("LANG"), 1), "[LANG=ghp_x]",
	    "--env NAME passes as it is");
}

/*
 * env_snapshot notes the block argv and environ lie in, and env_scrub
 * zeroes that block and empties environ; with no block known, it empties
 * environ only.  A buffer laid out as execve(2) would stands for the
 * stack.
 */
static void
test_snapshot_scrub(void)
{
	static const char strings[] = "confine\0-v\0A=1\0B=2";
	char block[sizeof(strings)], copy[sizeof(strings)], **snap;
	char *argv[] = { block, block + 8, NULL };
	char *env[] = { block + 11, block + 15, NULL };
	char **saved = environ;
	struct env_area area = { NULL, NULL }, none = { NULL, NULL };
	size_t i;
	bool zero = true;

	memcpy(block, strings, sizeof(block));
	environ = env;
	snap = env_snapshot(2, argv, &area);
	ok(area.start == block && area.end == block + sizeof(block),
	    "env_snapshot: the area spans argv and environ's strings");
	expect(snap, "[A=1][B=2]", "env_snapshot: a copy of environ");
	env_scrub(&area);
	for (i = 0; i < sizeof(block); i++)
		zero = zero && block[i] == '\0';
	ok(zero, "env_scrub: every byte of the area zeroed");
	ok(environ[0] == NULL, "env_scrub: environ emptied");

	memcpy(block, strings, sizeof(block));
	memcpy(copy, strings, sizeof(copy));
	env[0] = block + 11;
	env_scrub(&none);
	ok(memcmp(block, copy, sizeof(block)) == 0 && environ[0] == NULL,
	    "env_scrub: no area known, environ emptied, nothing zeroed");
	environ = saved;
}

/* A value confine offers: added in its place, never over another. */
static void
test_add_default(void)
{
	char *const set[] = { (char *)"HOME=/h", NULL };
	char **env = env_build(host, allow, set, C("X=opt"), 1);
	autofree char *why = NULL;

	ok(env_add_default(&env, "GIT_AUTHOR_NAME=Alice"),
	    "add_default: an absent name is added");
	ok(!env_add_default(&env, "X=default"),
	    "add_default: a name set by an option stays");
	ok(!env_add_default(&env, "TERM=default"),
	    "add_default: a name passed from the host stays");
	ok(!env_add_default(&env, "NOEQUALS"),
	    "add_default: an entry without '=' is not added");
	is_str(env_get(env, "X"), "opt", "add_default: X keeps its value");
	is_str(env_get(env, "TERM"), "xterm-256color",
	    "add_default: TERM keeps its value");
	is_str(env_get(env, "GIT_AUTHOR_NAME"), "Alice",
	    "add_default: the added value");
	ok(sorted_by_name(env, &why), "add_default: still sorted by name%s%s",
	    why ? ": " : "", why ? why : "");
	strv_free(env);
}

int
main(void)
{
	test_locale();
	test_allow();
	test_duplicate();
	test_secrets_dropped();
	test_set_and_opts();
	test_sorted();
	test_empty();
	test_owned();
	test_get();
	test_snapshot_scrub();
	test_add_default();
	return done();
}
