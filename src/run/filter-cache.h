/* SPDX-License-Identifier: ISC */
/*
 * run/filter-cache.h - the compiled seccomp filter, kept between runs,
 * keyed on all it depends on (run/filter-cache.c).
 */
#ifndef CONFINE_FILTER_CACHE_H
#define CONFINE_FILTER_CACHE_H

#include "policy/plan.h"

/*
 * Write the plan's compiled filter to fd (a pipe, a memfd): the one an
 * earlier run kept, or compiled now and kept for the next.  0, or -errno
 * with *where saying what failed (compiling, or the write: -EPIPE when
 * the sandbox is gone).
 */
int	filter_cache_export(const struct plan *, int fd, const char **where);

#endif
