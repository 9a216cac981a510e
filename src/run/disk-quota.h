/* SPDX-License-Identifier: ISC */
/*
 * run/disk-quota.h - the disk budget as a project quota: the strong path,
 * where the filesystem itself refuses the session's writes past its
 * budget (ENOSPC) and the command keeps running.
 *
 * Runs in: the supervisor, as root, before the sandbox starts and after
 * it is gone.
 */
#ifndef CONFINE_DISK_QUOTA_H
#define CONFINE_DISK_QUOTA_H

#include <stdbool.h>
#include <stdint.h>

#include "policy/plan.h"

/*
 * Project ids confine gives its sessions: DISK_QUOTA_ID_BASE plus a number
 * below DISK_QUOTA_IDS taken from the session id; the next one when that
 * is in use (some usage or a limit already recorded for it).
 */
#define DISK_QUOTA_ID_BASE	1900000000U
#define DISK_QUOTA_IDS		65536U

struct disk_quota {
	bool		 on;	/* the quota is in place */
	const char	*dir;	/* the session directory: its
				   filesystem's quotas (borrowed; no fd
				   is kept, none reaches the sandbox) */
	uint32_t	 id;	/* the session's project id */
	uint64_t	 start;	/* bytes the project held at start */
	uint64_t	 limit;	/* bytes: its hard block limit */
	const char	*refusal; /* the errno a write past it gets: "ENOSPC"
				   (XFS), "EDQUOT" (ext4) */
};

/*
 * Give the session's writable directories (upper, work, scratch, home
 * and tmp in the session directory, and the profile's kept state, when
 * the plan has one) a project id of their own and a hard block limit of what they hold
 * now plus budget bytes.  sdir: the session directory (its filesystem's
 * quotas are used).  0, with *q filled; or -errno with *why a few words
 * (the quota is not used: no project quota here, not root, another
 * filesystem), nothing limited.
 */
int	disk_quota_start(const struct plan *, int sdir, uint64_t budget,
	    struct disk_quota *q, const char **why);

/* The bytes the project holds now; -errno on failure. */
int64_t	disk_quota_used(const struct disk_quota *);

/*
 * The command is gone: true when the project's usage reached its limit
 * (the command got ENOSPC); the limit is lifted, the project id stays on
 * the files (confine drop frees them).
 */
bool	disk_quota_end(struct disk_quota *);

#endif
