// SPDX-License-Identifier: ISC
/*
 * run/path-guard.c - a run-time guard of the bwrap and landlock backends:
 * no profile path goes through a symlink.
 *
 * The plan was computed from the host as it was; the agent of an earlier
 * session, or anyone, may have planted a symlink since (in the workspace,
 * say).  bwrap's binds and Landlock's rules would follow it; native's
 * mounts refuse it (enforce/mounts.c).  So this is checked here, just
 * before the session starts, and not in the probe: it guards against the
 * host changing between plan and run, and fails closed.
 *
 * Runs in: the supervisor, before the session directory is made.
 */
#include "config.h"

#include <errno.h>
#include <string.h>
#include <sys/stat.h>

#include "lib/util.h"
#include "run/backend.h"

/* Does path go through a symlink, at any component?  ENOENT ends it. */
static bool
through_symlink(const char *path)
{
	autofree char *p = xstrdup(path);
	char *slash = p;
	struct stat st;

	for (;;) {
		slash = strchr(slash + 1, '/');
		if (slash)
			*slash = '\0';
		if (lstat(p, &st) < 0)
			return false;
		if (S_ISLNK(st.st_mode))
			return true;
		if (slash == NULL)
			return false;
		*slash = '/';
	}
}

int
backend_check_paths(const struct plan *p, const char **where)
{
	size_t i;

	for (i = 0; i < p->mounts.n; i++) {
		const struct plan_mount *m = &p->mounts.v[i];
		const char *path = m->kind == PLAN_MOUNT_HIDE ? m->dst : m->src;

		if (m->kind != PLAN_MOUNT_BIND_RO &&
		    m->kind != PLAN_MOUNT_BIND_RW && m->kind != PLAN_MOUNT_COPY &&
		    m->kind != PLAN_MOUNT_OVERLAY &&
		    m->kind != PLAN_MOUNT_LINK && m->kind != PLAN_MOUNT_HIDE)
			continue;
		if (path && through_symlink(path)) {
			*where = path;
			return -ELOOP;
		}
	}
	/* landlock: the profile's paths outside the home are rules only. */
	for (i = 0; p->backend == PLAN_BACKEND_LANDLOCK &&
	    i < p->landlock.npaths; i++) {
		const char *path = p->landlock.paths[i].path;

		if (streq(path, "/") || path_has_prefix(path, "/dev") ||
		    path_has_prefix(path, p->session_dir) ||
		    (p->state_dir && path_has_prefix(path, p->state_dir)))
			continue;
		if (through_symlink(path)) {
			*where = path;
			return -ELOOP;
		}
	}
	return 0;
}
