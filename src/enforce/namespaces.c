// SPDX-License-Identifier: ISC
/*
 * enforce/namespaces.c - uid/gid maps for the new user namespace (user_namespaces(7)),
 * and the new uts namespace's names.
 *
 * Runs in: the sandbox's first process, before any mount.
 * MUST: map only the caller's own ids, so the command keeps them and holds
 * nothing it did not hold outside.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "enforce/namespaces.h"
#include "lib/util.h"
#include "policy/plan.h"

static int
write_file(const char *path, const char *s)
{
	autoclose int fd = -1;
	size_t n = strlen(s);

	if ((fd = open(path, O_WRONLY | O_CLOEXEC)) < 0)
		return -errno;
	if (write(fd, s, n) != (ssize_t)n)
		return -errno;
	return 0;
}

int
ns_map_ids(uid_t uid, gid_t gid)
{
	char buf[64];
	int r;

	/*
	 * A process may write its own maps when it maps only its own ids,
	 * and setgroups must be denied before gid_map is written.
	 */
	if ((r = write_file("/proc/self/setgroups", "deny")) < 0)
		return r;
	snprintf(buf, sizeof(buf), "%u %u 1\n", (unsigned)uid, (unsigned)uid);
	if ((r = write_file("/proc/self/uid_map", buf)) < 0)
		return r;
	snprintf(buf, sizeof(buf), "%u %u 1\n", (unsigned)gid, (unsigned)gid);
	return write_file("/proc/self/gid_map", buf);
}

int
ns_name_uts(void)
{
	/*
	 * A new uts namespace starts with the host's names: the host name
	 * says whose machine this is.  "(none)" is the kernel's own
	 * default domain name.
	 */
	if (sethostname(PLAN_HOSTNAME, strlen(PLAN_HOSTNAME)) < 0 ||
	    setdomainname("(none)", strlen("(none)")) < 0)
		return -errno;
	return 0;
}
