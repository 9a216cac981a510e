// SPDX-License-Identifier: ISC
/*
 * enforce/overlay.c - the bwrap backend's workspace overlay, mounted in a
 * user and mount namespace of confine's own before bwrap starts in it.
 *
 * bubblewrap (0.8, Debian 12's) mounts no overlay of its own; copying the
 * workspace made every launch and export grow with the repository.  The
 * process that becomes bwrap first takes a user namespace of its own with
 * the caller's ids, mounts the overlay at the workspace's path in its own
 * mount namespace, and execs bwrap there, which binds it like any host
 * path and mounts the profile's paths below it, in the plan's order.  The
 * upper and work directories are the session's, as native's
 * (enforce/mounts.c): the export is the same, O(changes).
 *
 * Runs in: the child that execs bwrap, before the exec (capabilities in
 * its own user namespace only; none survive the exec of a caller who is
 * not uid 0 there, and bwrap drops its own).
 * MUST: reach the layers and the mount point through fds opened without
 * following a last symlink, and mount through /proc/self/fd.
 * MUST: mount nosuid and nodev; never propagate to the host (a mount
 * namespace of a user namespace of its own gets its peers as slaves,
 * mount_namespaces(7)).
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <sys/mount.h>
#include <unistd.h>

#include "enforce/overlay.h"
#include "lib/util.h"

static int
open_dir(const char *path)
{
	int fd = open(path, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);

	return fd < 0 ? -errno : fd;
}

int
overlay_mount_workspace(const struct plan_mount *m, const char **where)
{
	autoclose int lower = -1, upper = -1, work = -1;
	autofree char *opts = NULL;
	char target[64];

	*where = m->src;
	if ((lower = open_dir(m->src)) < 0)
		return lower;
	*where = m->upper;
	if ((upper = open_dir(m->upper)) < 0)
		return upper;
	*where = m->work;
	if ((work = open_dir(m->work)) < 0)
		return work;
	/*
	 * volatile, as native's: no sync of the upper file system at
	 * unmount; the session is scratch until exported.
	 */
	opts = xasprintf("lowerdir=/proc/self/fd/%d,upperdir=/proc/self/fd/%d,"
	    "workdir=/proc/self/fd/%d,userxattr,volatile", lower, upper, work);
	snprintf(target, sizeof(target), "/proc/self/fd/%d", lower);
	*where = m->dst;
	if (mount("overlay", target, "overlay", MS_NOSUID | MS_NODEV,
	    opts) < 0)
		return -errno;
	return 0;
}
