/* SPDX-License-Identifier: ISC */
/*
 * enforce/namespaces.h - user namespace identity.
 *
 * Runs in: the sandbox's first process, right after clone(2).
 */
#ifndef CONFINE_NS_H
#define CONFINE_NS_H

#include <sys/types.h>

/* Map the caller's own uid and gid, and deny setgroups.  0 or -errno. */
int	ns_map_ids(uid_t, gid_t);
/* In a new uts namespace: host name PLAN_HOSTNAME.  0 or -errno. */
int	ns_name_uts(void);

#endif
