// SPDX-License-Identifier: ISC
/*
 * lib/env.c - environment snapshot, allow-list build, and scrubbing.
 *
 * Runs in: the supervisor (snapshot, build) and the sandbox's first process
 * (scrub), before anything of the command runs.
 * MUST: pass nothing the allow-list or --env does not name.
 */
#include "config.h"

#include <ctype.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "lib/env.h"
#include "lib/util.h"

extern char **environ;

static void
note(struct env_area *a, char *s)
{
	char *e = s + strlen(s) + 1;

	if (a->start == NULL || s < a->start)
		a->start = s;
	if (e > a->end)
		a->end = e;
}

char **
env_snapshot(int argc, char **argv, struct env_area *ret_area)
{
	struct env_area a = { NULL, NULL };
	int i;

	for (i = 0; i < argc; i++)
		note(&a, argv[i]);
	for (i = 0; environ && environ[i]; i++)
		note(&a, environ[i]);
	*ret_area = a;
	return strv_copy(environ);
}

void
env_scrub(const struct env_area *area)
{
	size_t i;

	/*
	 * The kernel shows /proc/PID/cmdline and environ from the stack area
	 * that execve(2) laid out; the strings there are what we zero.  Only
	 * zero an area that looks like one contiguous block of strings.
	 */
	if (area->start && area->end > area->start &&
	    (size_t)(area->end - area->start) < 16 * 1024 * 1024)
		memset(area->start, 0, (size_t)(area->end - area->start));
	for (i = 0; environ && environ[i]; i++)
		environ[i] = NULL;
}

const char *
env_get(char *const *env, const char *name)
{
	size_t n = strlen(name), i;

	for (i = 0; env && env[i]; i++)
		if (strncmp(env[i], name, n) == 0 && env[i][n] == '=')
			return env[i] + n + 1;
	return NULL;
}

/* Count the characters of s, at most max, that ok() accepts. */
static size_t
span(const char *s, int (*ok)(int), size_t max)
{
	size_t n = 0;

	while (n <= max && s[n] && ok((unsigned char)s[n]))
		n++;
	return n;
}

static int
is_codeset(int c)
{
	return isascii(c) && (isalnum(c) || c == '-');
}

static int
is_alnum(int c)
{
	return isascii(c) && isalnum(c);
}

static int
is_lower(int c)
{
	return c >= 'a' && c <= 'z';
}

bool
env_locale_shaped(const char *v)
{
	size_t n;

	if (v[0] == '\0' || streq(v, "POSIX"))
		return true;
	if (v[0] == 'C' && (v[1] == '\0' || v[1] == '.'))
		v++;
	else {
		if ((n = span(v, is_lower, 3)) < 2 || n > 3)
			return false;
		v += n;
		if (*v == '_') {
			/* A country (de_DE) or a UN M.49 region (es_419). */
			if (isupper((unsigned char)v[1]) &&
			    isupper((unsigned char)v[2]) && isascii(v[1]) &&
			    isascii(v[2]))
				v += 3;
			else if (span(v + 1, isdigit, 3) == 3)
				v += 4;
			else
				return false;
		}
	}
	if (*v == '.') {
		if ((n = span(v + 1, is_codeset, ENV_LOCALE_PART)) == 0 ||
		    n > ENV_LOCALE_PART)
			return false;
		v += 1 + n;
	}
	if (*v == '@') {
		if ((n = span(v + 1, is_alnum, ENV_LOCALE_PART)) == 0 ||
		    n > ENV_LOCALE_PART)
			return false;
		v += 1 + n;
	}
	return *v == '\0';
}

/*
 * The default list's locale entries pass a value only when it has the
 * shape of a locale name: ssh's "SendEnv LC_*" has taught people to carry
 * tokens in LC_ variables (LC_GITHUB_TOKEN=ghp_...).  A profile or --env
 * naming a variable exactly passes it as it is.
 */
static bool
allowed(const char *entry, const char *const *allow)
{
	size_t n = strcspn(entry, "="), i;

	for (i = 0; allow[i]; i++) {
		size_t m = strlen(allow[i]);
		bool locale = streq(allow[i], "LC_*") ||
		    streq(allow[i], "LANG");

		if (m && allow[i][m - 1] == '*') {
			if (n >= m - 1 && strncmp(entry, allow[i], m - 1) == 0)
				return !locale ||
				    env_locale_shaped(entry + n + 1);
		} else if (m == n && strncmp(entry, allow[i], n) == 0)
			return !locale || env_locale_shaped(entry + n + 1);
	}
	return false;
}

/* Append NAME=VALUE, or replace the entry of that name when replace. */
static void
put(char ***v, size_t *n, const char *entry, bool replace)
{
	size_t len = strcspn(entry, "="), i;

	for (i = 0; i < *n; i++) {
		if (strncmp((*v)[i], entry, len) == 0 &&
		    (*v)[i][len] == '=') {
			if (replace) {
				free((*v)[i]);
				(*v)[i] = xstrdup(entry);
			}
			return;
		}
	}
	strv_push(v, n, xstrdup(entry));
}

/* By name, so "A=y" sorts before "A1=x". */
static int
cmp(const void *a, const void *b)
{
	const char *x = *(char *const *)a, *y = *(char *const *)b;
	size_t nx = strcspn(x, "="), ny = strcspn(y, "=");
	int r = strncmp(x, y, nx < ny ? nx : ny);

	if (r != 0)
		return r;
	return (nx > ny) - (nx < ny);
}

char **
env_build(char *const *host_env, const char *const *allow, char *const *set,
    const char *const *opts, size_t nopts)
{
	char **v = NULL;
	size_t n = 0, i;

	v = xcalloc(1, sizeof(*v));	/* a vector even when empty */
	/* A name set twice in host_env: the first wins, as with getenv(3). */
	for (i = 0; host_env && host_env[i]; i++)
		if (strchr(host_env[i], '=') && allowed(host_env[i], allow))
			put(&v, &n, host_env[i], false);
	for (i = 0; set && set[i]; i++)
		put(&v, &n, set[i], true);
	for (i = 0; i < nopts; i++) {
		if (strchr(opts[i], '='))
			put(&v, &n, opts[i], true);
		else {
			const char *val = env_get(host_env, opts[i]);

			if (val) {
				autofree char *e = xasprintf("%s=%s",
				    opts[i], val);

				put(&v, &n, e, true);
			}
		}
	}
	qsort(v, n, sizeof(*v), cmp);
	return v;
}

bool
env_add_default(char ***env, const char *entry)
{
	size_t len = strcspn(entry, "="), n;
	autofree char *name = xstrndup(entry, len);

	if (entry[len] != '=' || env_get(*env, name) != NULL)
		return false;
	n = strv_len(*env);
	strv_push(env, &n, xstrdup(entry));
	qsort(*env, n, sizeof(**env), cmp);
	return true;
}
