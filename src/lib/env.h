/* SPDX-License-Identifier: ISC */
/*
 * lib/env.h - the command's environment, built once from an allow-list.
 *
 * This is the only module that reads or changes environ (OpenDoas's
 * CVE-2019-25016 came from PATH being handled in several places).
 */
#ifndef CONFINE_ENV_H
#define CONFINE_ENV_H

#include <stdbool.h>
#include <stddef.h>

/* The longest codeset or modifier of a locale name that passes. */
#define ENV_LOCALE_PART	15

/*
 * Where a process's argv and environ strings lie: the block execve(2)
 * laid out, that /proc/PID/cmdline and environ show.  Both NULL: none
 * known (nothing to zero but environ's pointers).  Borrowed: it points
 * into the process's own stack, good in it and in its forks only.
 */
struct env_area {
	char	*start;
	char	*end;
};

/*
 * Copy of environ at start-up (owned, a strv); *ret_area is where argv
 * and environ live, for env_scrub().
 */
char	**env_snapshot(int argc, char **argv, struct env_area *ret_area);
/* Value of NAME in a snapshot, or NULL.  Pure. */
const char *env_get(char *const *env, const char *name);

/*
 * Has v the shape of a locale name?  Empty, "C", "POSIX", or LANGUAGE
 * (2 or 3 lower-case letters) then optionally _TERRITORY (2 upper-case
 * letters or 3 digits), .CODESET (letters, digits, '-') and @MODIFIER
 * (letters, digits); "C" may take a codeset too (C.UTF-8).  Codeset and
 * modifier: at most ENV_LOCALE_PART characters.  Pure.
 */
bool	env_locale_shaped(const char *v);

/*
 * Build the command's environment.  Pure.  In order: the names of allow[]
 * found in host_env (a trailing '*' matches a prefix; the entries "LC_*" and
 * "LANG" pass a value only when env_locale_shaped() says so), then set[] (NAME=VALUE
 * that confine itself sets), then each opt (NAME passes NAME from host_env
 * when it is set there; NAME=VALUE sets it).  Later entries replace earlier
 * ones of the same name.  The result is sorted by name.
 */
char	**env_build(char *const *host_env, const char *const *allow,
	    char *const *set, const char *const *opts, size_t nopts);

/*
 * Add entry (NAME=VALUE) to env, a vector from env_build(), unless NAME is
 * there already: a value confine offers that any other setting replaces.
 * Keeps env sorted by name.  Returns whether it was added.  Pure.
 */
bool	env_add_default(char ***env, const char *entry);

/*
 * Overwrite this process's copy of confine's argv and environment strings
 * (area, from env_snapshot() in this process or the one it forked from)
 * with zeros, and empty environ, so /proc/PID/cmdline and environ of the
 * process that stays in the sandbox show nothing of the caller's.
 */
void	env_scrub(const struct env_area *area);

#endif
