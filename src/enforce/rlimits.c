// SPDX-License-Identifier: ISC
/*
 * enforce/rlimits.c - RLIMIT_NPROC and nice for the sandbox
 * (getrlimit(2), setpriority(2)).
 *
 * RLIMIT_NPROC counts the tasks of a user in one user namespace (Linux
 * 5.14 and later: ucounts): in the sandbox's own, the sandbox's tasks
 * alone, threads included, its first process too.  The kernel ignores it
 * for a task with CAP_SYS_RESOURCE or CAP_SYS_ADMIN in the initial user
 * namespace, which no task in a user namespace of its own has; none can
 * raise the hard limit back for the same reason.  It never applies to
 * the host's uid 0.  policy/limits.c sets nproc only where the sandbox
 * has such a namespace and the caller is not root.
 *
 * Runs in: the sandbox's set-up process, before the command exists.
 * MUST: lower, never raise: a hard limit lower than the plan's is kept.
 * MUST: check what the kernel holds afterwards.
 */
#include "config.h"

#include <errno.h>
#include <sys/resource.h>

#include "enforce/rlimits.h"

static int
nproc(uint64_t n)
{
	struct rlimit rl;

	if (getrlimit(RLIMIT_NPROC, &rl) < 0)
		return -errno;
	if (rl.rlim_max == RLIM_INFINITY || rl.rlim_max > n)
		rl.rlim_max = (rlim_t)n;
	rl.rlim_cur = rl.rlim_max;
	if (setrlimit(RLIMIT_NPROC, &rl) < 0)
		return -errno;
	if (getrlimit(RLIMIT_NPROC, &rl) < 0)
		return -errno;
	return rl.rlim_cur != RLIM_INFINITY && rl.rlim_cur <= n &&
	    rl.rlim_max == rl.rlim_cur ? 0 : -EPERM;
}

/* Raising the nice value needs no privilege (setpriority(2)). */
static int
nice_add(int inc)
{
	int cur, want;

	errno = 0;
	cur = getpriority(PRIO_PROCESS, 0);
	if (cur == -1 && errno)
		return -errno;
	want = cur + inc > 19 ? 19 : cur + inc;
	if (setpriority(PRIO_PROCESS, 0, want) < 0)
		return -errno;
	errno = 0;
	cur = getpriority(PRIO_PROCESS, 0);
	if (cur == -1 && errno)
		return -errno;
	return cur == want ? 0 : -EPERM;
}

int
rlimits_apply(const struct plan_limits *l, const char **what)
{
	int r;

	*what = "RLIMIT_NPROC";
	if (l->nproc && (r = nproc(l->nproc)) < 0)
		return r;
	*what = "nice";
	if (l->nice && (r = nice_add(l->nice)) < 0)
		return r;
	return 0;
}
