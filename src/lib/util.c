// SPDX-License-Identifier: ISC
/*
 * lib/util.c - memory helpers.  Allocation failure is fatal: confine cannot
 * enforce anything half-allocated, so it stops with exit status 125.
 */
#include "config.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "lib/log.h"
#include "lib/util.h"

void *
xmalloc(size_t n)
{
	void *p;

	if ((p = malloc(n ? n : 1)) == NULL)
		die("out of memory");
	return p;
}

void *
xcalloc(size_t n, size_t size)
{
	void *p;

	if ((p = calloc(n ? n : 1, size ? size : 1)) == NULL)
		die("out of memory");
	return p;
}

void *
xreallocarray(void *old, size_t n, size_t size)
{
	void *p;

	if (size && n > SIZE_MAX / size)
		die("out of memory");
	if ((p = realloc(old, (n && size) ? n * size : 1)) == NULL)
		die("out of memory");
	return p;
}

char *
xstrdup(const char *s)
{
	char *p;

	if ((p = strdup(s)) == NULL)
		die("out of memory");
	return p;
}

char *
xstrndup(const char *s, size_t n)
{
	char *p;

	if ((p = strndup(s, n)) == NULL)
		die("out of memory");
	return p;
}

char *
xasprintf(const char *fmt, ...)
{
	va_list ap;
	char *p;
	int r;

	va_start(ap, fmt);
	r = vasprintf(&p, fmt, ap);
	va_end(ap);
	if (r < 0)
		die("out of memory");
	return p;
}

void
freep(void *p)
{
	free(*(void **)p);
}

void
fclose_p(void *p)
{
	FILE *f = *(FILE **)p;

	if (f)
		fclose(f);
}

void
closep(int *fd)
{
	int saved = errno;

	if (*fd >= 0)
		close(*fd);
	errno = saved;
}

size_t
strv_len(char *const *v)
{
	size_t n = 0;

	while (v && v[n])
		n++;
	return n;
}

void
strv_push(char ***v, size_t *n, char *s)
{
	*v = xreallocarray(*v, *n + 2, sizeof(**v));
	(*v)[(*n)++] = s;
	(*v)[*n] = NULL;
}

char **
strv_copy(char *const *v)
{
	size_t n = strv_len(v), i;
	char **c = xcalloc(n + 1, sizeof(*c));

	for (i = 0; i < n; i++)
		c[i] = xstrdup(v[i]);
	return c;
}

void
strv_free(char **v)
{
	size_t i;

	for (i = 0; v && v[i]; i++)
		free(v[i]);
	free(v);
}

void
strv_freep(char ***v)
{
	strv_free(*v);
}

bool
path_is_normal(const char *p)
{
	const char *c;

	if (p == NULL || p[0] != '/')
		return false;
	if (p[1] == '\0')
		return true;
	for (c = p; *c; ) {
		const char *e;
		size_t n;

		c++;			/* skip the '/' */
		e = strchrnul(c, '/');
		n = (size_t)(e - c);
		if (n == 0 || (n == 1 && c[0] == '.') ||
		    (n == 2 && c[0] == '.' && c[1] == '.'))
			return false;
		c = e;
	}
	return true;
}

bool
path_has_prefix(const char *path, const char *dir)
{
	size_t n = strlen(dir);

	if (streq(dir, "/"))
		return path[0] == '/';
	return strncmp(path, dir, n) == 0 &&
	    (path[n] == '\0' || path[n] == '/');
}

bool
timespec_ge(const struct timespec *a, const struct timespec *b)
{
	return a->tv_sec > b->tv_sec || (a->tv_sec == b->tv_sec &&
	    a->tv_nsec >= b->tv_nsec);
}

uint64_t
monotonic_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

char *
path_join(const char *dir, const char *tail)
{
	while (*tail == '/')
		tail++;
	if (*tail == '\0')
		return xstrdup(dir);
	if (streq(dir, "/"))
		return xasprintf("/%s", tail);
	return xasprintf("%s/%s", dir, tail);
}

char *
path_join_rel(const char *prefix, const char *name)
{
	if (prefix[0] == '\0')
		return xstrdup(name);
	return xasprintf("%s/%s", prefix, name);
}
