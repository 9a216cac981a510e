/* SPDX-License-Identifier: ISC */
/*
 * input/bwrap-cache.h - bwrap's version, remembered between runs, keyed on
 * the binary's identity (input/bwrap-cache.c).
 */
#ifndef CONFINE_BWRAP_CACHE_H
#define CONFINE_BWRAP_CACHE_H

#include <sys/stat.h>

/*
 * The version remembered for the binary whose stat(2) is bin: 0 with
 * *ret_major and *ret_minor, or -errno (none, not trusted, another
 * binary's): ask bwrap.
 */
int	bwrap_cache_get(const char *state_home, const struct stat *bin,
	    int *ret_major, int *ret_minor);
/* Remember it; a failure is silent (the next run asks bwrap again). */
void	bwrap_cache_put(const char *state_home, const struct stat *bin,
	    int major, int minor);

#endif
