/* SPDX-License-Identifier: ISC */
/*
 * enforce/capabilities.h - capabilities.
 *
 * Runs in: the sandbox's first process, after mounts and network.
 */
#ifndef CONFINE_CAPS_H
#define CONFINE_CAPS_H

#include <stdbool.h>

/*
 * Lock the securebits so uid 0 gains nothing at execve, empty every
 * capability set (the bounding set one capability at a time, the ambient
 * set, then effective, permitted and inheritable with one capset(2)),
 * then verify with the kernel (capget(2), the bounding set read back).
 * 0 or -errno; on failure *what names the set that is not empty.
 */
int	caps_drop_all(const char **what);

/*
 * Are the effective, permitted, inheritable and ambient sets empty, and
 * with bounding the bounding set too?  0 or -EPERM with *what naming the
 * set; for a process that has no capabilities to drop (with no_new_privs
 * an execve cannot raise them from the bounding set).
 */
int	caps_verify(bool bounding, const char **what);

#endif
