// SPDX-License-Identifier: ISC
/*
 * run/agent-state.c - the profile's state: its persistent paths, kept
 * between the profile's sessions in STATE/confine/state/PROFILE/, one
 * entry a path (named by policy/compute.c), one session at a time.
 *
 * An entry holds the path's name (path), and on native a directory's
 * overlay layers (upper/, work/), else the copy the command writes
 * (copy: a file on every backend, a directory on bwrap and landlock).
 * Runs in: the supervisor, before the sandbox starts and after it.  What
 * the command wrote there (upper/, copy) is untrusted: never opened here
 * but to make the first copy, never followed through a symlink.
 * MUST: write nothing of the host's but the state directory: the host's
 * own files of a persistent path are never written.
 * MUST: keep nothing unless the state's lock is held for the session's
 * life; a second session of the profile gets plain scratch instead.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/fdio.h"
#include "lib/log.h"
#include "lib/sys.h"
#include "lib/util.h"
#include "policy/compute.h"
#include "run/agent-state.h"
#include "run/session-dir.h"
#include "run/workspace-copy.h"

/* A session id, as the lock holds it: what policy_compute() makes. */
#define HOLDER_MAX	64

/* Write text to name in dirfd, under a temporary name first. */
static int
put(int dirfd, const char *name, const char *text)
{
	autofree char *tmp = xasprintf("%s.tmp", name);
	size_t len = strlen(text);
	int fd, r = 0;

	unlinkat(dirfd, tmp, 0);
	if ((fd = openat(dirfd, tmp, O_WRONLY | O_CREAT | O_EXCL |
	    O_CLOEXEC | O_NOFOLLOW, 0600)) < 0)
		return -errno;
	if (write(fd, text, len) != (ssize_t)len)
		r = -EIO;
	if (close(fd) < 0 && r == 0)
		r = -errno;
	if (r == 0 && renameat(dirfd, tmp, dirfd, name) < 0)
		r = -errno;
	return r;
}

int
agent_state_lock(struct host *h, const struct profile *pr, int *fd)
{
	autofree char *dir = NULL, *lock = NULL, *text = NULL;
	autoclose int l = -1;
	ssize_t n;
	int r;

	*fd = -1;
	if (pr->persistent.n == 0 ||
	    (dir = policy_state_dir(h->state_home, pr)) == NULL)
		return 0;
	lock = path_join(dir, AGENT_STATE_LOCK);
	if ((r = sys_mkdirs(dir)) < 0)
		return r;
	if ((l = open(lock, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW,
	    0600)) < 0)
		return -errno;
	if (flock(l, LOCK_EX | LOCK_NB) == 0) {
		*fd = steal_fd(&l);
		return 0;
	}
	if (errno != EWOULDBLOCK)
		return -errno;
	/* Held: by which session (confine's own words, bounded all the same). */
	if ((n = fd_read_all(l, HOLDER_MAX, &text)) > 0 &&
	    strspn(text, "0123456789abcdef-") == strcspn(text, "\n") &&
	    text[0] != '\n')
		h->state_busy = xstrndup(text, strcspn(text, "\n"));
	else
		h->state_busy = xstrdup("another");
	return 0;
}

void
agent_state_claim(int fd, const char *session_id)
{
	autofree char *text = xasprintf("%s\n", session_id);
	size_t len = strlen(text);

	/* Its time is the state's last use, for confine state ls. */
	if (ftruncate(fd, 0) < 0 || pwrite(fd, text, len, 0) != (ssize_t)len)
		log_warn("state: cannot note the session in the lock: %s",
		    strerror(errno));
}

/* The first copy of the host's path, whole or not at all. */
static int
first_copy(int efd, const char *entry, const struct plan_mount *m,
    const char **where)
{
	autofree char *tmp = path_join(entry, "copy.new");
	struct copy_stats st;
	int r;

	workspace_remove_tree(efd, "copy.new");
	if ((r = copy_tree(m->dst, tmp, m->except, NULL, &st, where)) < 0)
		return r;
	if (renameat(efd, "copy.new", efd, "copy") < 0) {
		*where = entry;
		return -errno;
	}
	if (st.skipped)
		log_info("copy of %s: %zu unreadable or special files left out",
		    m->dst, st.skipped);
	return 0;
}

/* native, a directory: the layers; overlayfs wants an empty work dir. */
static int
layers(int efd, const struct stat *host)
{
	workspace_remove_tree(efd, "work");
	if (mkdirat(efd, "work", 0700) < 0)
		return -errno;
	if (mkdirat(efd, "upper", 0700) < 0) {
		if (errno != EEXIST)
			return -errno;
		return 0;
	}
	/* The overlay's root takes upper/'s mode: give it the host's. */
	return fchmodat(efd, "upper", host->st_mode & 07777, 0) < 0 ?
	    -errno : 0;
}

static int
prepare(const struct plan *p, const struct plan_mount *m, const char **where)
{
	autoclose int efd = -1;
	struct stat host, kept;
	bool on_host, has_copy, has_upper;
	int r;

	*where = m->state;
	if ((mkdir(m->state, 0700) < 0 && errno != EEXIST) ||
	    (efd = open(m->state, O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
	    O_CLOEXEC)) < 0)
		return -errno;
	if ((r = put(efd, AGENT_STATE_PATH, m->dst)) < 0)
		return r;
	on_host = stat(m->dst, &host) == 0;
	if (!on_host && errno != ENOENT) {
		*where = m->dst;
		return -errno;
	}
	has_copy = fstatat(efd, "copy", &kept, AT_SYMLINK_NOFOLLOW) == 0;
	has_upper = fstatat(efd, "upper", &kept, AT_SYMLINK_NOFOLLOW) == 0;
	if (p->backend == PLAN_BACKEND_NATIVE && on_host &&
	    S_ISDIR(host.st_mode))
		return layers(efd, &host);
	if (on_host && !has_copy && (S_ISREG(host.st_mode) ||
	    (p->backend != PLAN_BACKEND_NATIVE && S_ISDIR(host.st_mode))))
		return first_copy(efd, m->state, m, where);
	if (!on_host && !has_copy)
		log_msg("persistent %s: not on the host, so nothing of it is "
		    "kept%s: create it there to keep it", m->dst, has_upper ?
		    " (its layer stays in the state)" : "");
	return 0;
}

int
agent_state_prepare(const struct plan *p, const char **where)
{
	size_t i;
	int r;

	if (p->state_dir == NULL)
		return 0;
	for (i = 0; i < p->mounts.n; i++)
		if (p->mounts.v[i].state &&
		    (r = prepare(p, &p->mounts.v[i], where)) < 0)
			return r;
	return 0;
}

/*
 * bwrap: the mount points it made in a kept copy for the hidden paths
 * below it (an empty file or directory each), where the command could
 * not write.  Removed, not kept as the command's: reached beneath the
 * copy, a non-empty one left alone.
 */
static void
mount_points(const struct plan_mount *m)
{
	autofree char *copy = path_join(m->state, "copy");
	autoclose int root = -1;
	struct stat st;
	size_t i;

	if ((root = open(copy, O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
	    O_CLOEXEC)) < 0)
		return;
	for (i = 0; m->except && m->except[i]; i++) {
		autofree char *parent = xstrdup(m->except[i]);
		char *slash = strrchr(parent, '/');
		const char *name = slash ? slash + 1 : parent;
		autoclose int fd = -1;

		if (slash)
			*slash = '\0';
		if ((fd = slash ? fd_open_at(root, parent, O_RDONLY |
		    O_DIRECTORY, 0, FD_BENEATH) : dup(root)) < 0 ||
		    fstatat(fd, name, &st, AT_SYMLINK_NOFOLLOW) < 0)
			continue;
		if (S_ISREG(st.st_mode) && st.st_size == 0)
			unlinkat(fd, name, 0);
		else if (S_ISDIR(st.st_mode))
			unlinkat(fd, name, AT_REMOVEDIR);
	}
}

void
agent_state_finish(const struct plan *p)
{
	const char *name;
	size_t i;
	bool kept = false;

	if (p->state_dir == NULL)
		return;
	for (i = 0; i < p->mounts.n; i++) {
		const struct plan_mount *m = &p->mounts.v[i];
		autoclose int efd = -1;

		if (m->state == NULL)
			continue;
		kept = true;
		if (p->backend == PLAN_BACKEND_BWRAP)
			mount_points(m);
		if (m->work && (efd = open(m->state, O_RDONLY | O_DIRECTORY |
		    O_NOFOLLOW | O_CLOEXEC)) >= 0) {
			/* overlayfs's own scratch (mode 000 entries). */
			workspace_remove_tree(efd, "work");
		}
	}
	name = strrchr(p->state_dir, '/') + 1;
	if (kept)
		log_msg("agent state: kept in %s (confine state show %s)",
		    p->state_dir, name);
}
