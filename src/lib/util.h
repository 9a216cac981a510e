/* SPDX-License-Identifier: ISC */
/*
 * lib/util.h - allocation that never fails, string vectors, path helpers and
 * cleanup attributes.  Memory only: no other side effects.
 */
#ifndef CONFINE_UTIL_H
#define CONFINE_UTIL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

#define autofree	__attribute__((cleanup(freep)))
#define autoclose	__attribute__((cleanup(closep)))
#define autostrv	__attribute__((cleanup(strv_freep)))
#define AUTO(fn)	__attribute__((cleanup(fn)))
#define steal_ptr(pp) \
	({ __typeof__(*(pp)) steal_tmp_ = *(pp); *(pp) = NULL; steal_tmp_; })
#define steal_fd(fdp) \
	({ int steal_fd_ = *(fdp); *(fdp) = -1; steal_fd_; })
#define nitems(a)	(sizeof(a) / sizeof((a)[0]))
#define streq(a, b)	(strcmp((a), (b)) == 0)

/* The x-allocators die (exit 125) instead of returning NULL. */
void	*xmalloc(size_t);
void	*xcalloc(size_t, size_t);
void	*xreallocarray(void *, size_t, size_t);
char	*xstrdup(const char *);
char	*xstrndup(const char *, size_t);
char	*xasprintf(const char *, ...) __attribute__((format(printf, 1, 2)));

void	 freep(void *);		/* free(*(void **)p) */
void	 fclose_p(void *);	/* fclose(*(FILE **)p) when not NULL */
void	 closep(int *);		/* close(*p) when >= 0, keeping errno */

/* NULL-terminated string vectors; the vector owns its strings. */
size_t	 strv_len(char *const *);
void	 strv_push(char ***, size_t *, char *);	/* takes ownership */
char	**strv_copy(char *const *);
void	 strv_free(char **);
void	 strv_freep(char ***);

/* Paths: absolute, no "." or ".." components, no duplicate or final '/'. */
bool	 path_is_normal(const char *);
/* Is "path" equal to "dir" or below it?  Both must be normal. */
bool	 path_has_prefix(const char *path, const char *dir);
/* Join a normal directory and a relative or absolute tail. */
/* Is the time a at or after b? */
bool	 timespec_ge(const struct timespec *a, const struct timespec *b);
/* CLOCK_MONOTONIC in nanoseconds. */
uint64_t monotonic_ns(void);
char	*path_join(const char *, const char *);
/* Join two relative paths; an empty prefix gives the name alone. */
char	*path_join_rel(const char *prefix, const char *name);

#endif
