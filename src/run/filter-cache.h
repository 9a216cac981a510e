/* SPDX-License-Identifier: ISC */
/*
 * run/filter-cache.h - the compiled seccomp filter, kept between runs,
 * keyed on all it depends on (run/filter-cache.c).
 */
#ifndef CONFINE_FILTER_CACHE_H
#define CONFINE_FILTER_CACHE_H

#include "policy/plan.h"

/*
 * Write the plan's filter, compiled by an earlier run, to fd: 0, or
 * -errno (none kept, or not trusted): compile it.
 */
int	filter_cache_get(const struct plan *, int fd);
/* Keep the filter in fd (read from its start) for later runs; silent on
 * failure. */
void	filter_cache_put(const struct plan *, int fd);

#endif
