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
#include <limits.h>
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
#include "store/session-meta.h"

/* A session id, as the lock holds it: what policy_compute() makes. */
#define HOLDER_MAX	64

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
	/* Held: by which session (confine's own words, read with a bound). */
	if ((n = fd_read_all(l, HOLDER_MAX, &text)) > 0 &&
	    strspn(text, "0123456789abcdef.-") == strcspn(text, "\n") &&
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

/*
 * The first copy of the host's path, whole or not at all: of what it is,
 * a file linked elsewhere (a dotfile) by its content, never a link, which
 * a bind would follow to the host's.
 */
static int
first_copy(int efd, const char *entry, const struct plan_mount *m,
    const char **where)
{
	autofree char *tmp = path_join(entry, "copy.new"), *real = NULL;
	struct copy_stats st;
	struct stat kept;
	int r;

	workspace_remove_tree(efd, "copy.new");
	*where = m->dst;
	if ((real = realpath(m->dst, NULL)) == NULL)
		return -errno;
	if ((r = copy_tree(real, tmp, m->except, NULL, &st, where)) < 0)
		return r;
	if (fstatat(efd, "copy.new", &kept, AT_SYMLINK_NOFOLLOW) < 0 ||
	    S_ISLNK(kept.st_mode)) {
		workspace_remove_tree(efd, "copy.new");
		return -ELOOP;
	}
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
prepare(const struct plan *p, const struct plan_mount *m, const char **where,
    bool *no_copy)
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
	if ((r = session_file_put(m->state, AGENT_STATE_PATH, m->dst)) < 0)
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
	/* A copy: none kept and none made now, none to bind. */
	*no_copy = m->kind == PLAN_MOUNT_COPY && !has_copy;
	if (!on_host && !has_copy)
		log_msg("persistent %s: not on the host, so nothing of it is "
		    "kept%s: create it there to keep it", m->dst, has_upper ?
		    " (its layer stays in the state)" : "");
	return 0;
}

/*
 * The links a landlock session made in m's kept copy for the paths shown
 * inside it (agent_state_links()): removed, so that the other backends
 * mount those paths there; the next landlock session makes them again.
 */
static void
unlink_links(const struct plan *p, const struct plan_mount *m)
{
	autofree char *copy = path_join(m->state, "copy");
	autoclose int root = -1;
	char target[PATH_MAX];
	size_t i;
	ssize_t n;

	if ((root = open(copy, O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
	    O_CLOEXEC)) < 0)
		return;
	for (i = 0; i < p->mounts.n; i++) {
		const struct plan_mount *x = &p->mounts.v[i];
		autofree char *rel = NULL;
		autoclose int dir = -1;
		const char *name;
		char *slash;

		if (x->state || !path_has_prefix(x->dst, m->dst) ||
		    streq(x->dst, m->dst))
			continue;
		rel = xstrdup(x->dst + strlen(m->dst) + 1);
		slash = strrchr(rel, '/');
		name = slash ? slash + 1 : rel;
		if (slash)
			*slash = '\0';
		if ((dir = slash ? fd_open_at(root, rel, O_RDONLY | O_DIRECTORY,
		    0, FD_BENEATH) : dup(root)) < 0)
			continue;
		n = readlinkat(dir, name, target, sizeof(target) - 1);
		if (n >= 0 && (size_t)n == strlen(x->dst) &&
		    memcmp(target, x->dst, (size_t)n) == 0)
			unlinkat(dir, name, 0);
	}
}

int
agent_state_prepare(const struct plan *p, const char **where,
    bool *no_copy)
{
	size_t i;
	int r;

	if (p->state_dir == NULL)
		return 0;
	for (i = 0; i < p->mounts.n; i++) {
		if (p->mounts.v[i].state == NULL)
			continue;
		if ((r = prepare(p, &p->mounts.v[i], where, &no_copy[i])) < 0)
			return r;
		unlink_links(p, &p->mounts.v[i]);
	}
	return 0;
}

/* The persistent path whose link the link x lies beneath, or NULL. */
static const struct plan_mount *
under(const struct plan *p, const struct plan_mount *x)
{
	size_t i;

	if (x->kind != PLAN_MOUNT_LINK || x->state)
		return NULL;
	for (i = 0; i < p->mounts.n; i++) {
		const struct plan_mount *m = &p->mounts.v[i];

		if (m->kind == PLAN_MOUNT_LINK && m->state &&
		    path_has_prefix(x->dst, m->dst) && !streq(x->dst, m->dst))
			return m;
	}
	return NULL;
}

/* A directory name in at, made where missing or not a directory. */
static int
subdir(int at, const char *name)
{
	int fd;

	if ((fd = openat(at, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
	    O_CLOEXEC)) >= 0 || (errno != ENOENT && errno != ENOTDIR &&
	    errno != ELOOP))
		return fd < 0 ? -errno : fd;
	workspace_remove_tree(at, name);
	if (mkdirat(at, name, 0700) < 0)
		return -errno;
	fd = openat(at, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	return fd < 0 ? -errno : fd;
}

static int
link_in_copy(const struct plan_mount *top, const struct plan_mount *x,
    const char **where)
{
	autofree char *copy = path_join(top->state, "copy");
	autofree char *rel = xstrdup(x->dst + strlen(top->dst) + 1);
	autofree char *parent = NULL;
	char *name = rel, *slash, target[PATH_MAX];
	int dir, next;
	ssize_t n;

	*where = x->upper;
	if ((dir = open(copy, O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
	    O_CLOEXEC)) < 0) {
		if (errno != ENOENT)
			return -errno;
		/* Nothing kept: the session's fresh home, as any link. */
		if (access(x->src, F_OK) < 0 && errno == ENOENT)
			return 0;
		parent = xstrdup(x->upper);
		*strrchr(parent, '/') = '\0';
		if ((next = sys_mkdirs(parent)) < 0)
			return next;
		return symlink(x->src, x->upper) < 0 ? -errno : 0;
	}
	/* The command wrote this tree: one component at a time, no link. */
	while ((slash = strchr(name, '/')) != NULL) {
		*slash = '\0';
		next = subdir(dir, name);
		close(dir);
		if ((dir = next) < 0)
			return dir;
		name = slash + 1;
	}
	n = readlinkat(dir, name, target, sizeof(target) - 1);
	if (n >= 0 && (size_t)n == strlen(x->src) &&
	    memcmp(target, x->src, (size_t)n) == 0) {
		close(dir);
		return 0;
	}
	workspace_remove_tree(dir, name);
	/* Nothing on the host: no link to nothing. */
	if ((access(x->src, F_OK) < 0 && errno == ENOENT) ||
	    symlinkat(x->src, dir, name) == 0) {
		close(dir);
		return 0;
	}
	n = -errno;
	close(dir);
	return (int)n;
}

int
agent_state_links(const struct plan *p, const char **where)
{
	const struct plan_mount *top;
	size_t i;
	int r;

	if (p->state_dir == NULL || p->backend != PLAN_BACKEND_LANDLOCK)
		return 0;
	for (i = 0; i < p->mounts.n; i++)
		if ((top = under(p, &p->mounts.v[i])) != NULL &&
		    (r = link_in_copy(top, &p->mounts.v[i], where)) < 0)
			return r;
	return 0;
}

void
agent_state_collect(const struct plan *p)
{
	autoclose int home = -1;
	size_t i;

	if (p->state_dir == NULL || p->backend != PLAN_BACKEND_LANDLOCK ||
	    (home = open(p->home, O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
	    O_CLOEXEC)) < 0)
		return;
	for (i = 0; i < p->mounts.n; i++) {
		const struct plan_mount *m = &p->mounts.v[i];
		autofree char *rel = NULL;
		autoclose int dir = -1, efd = -1;
		const char *name;
		char *slash;
		struct stat st;

		if (m->kind != PLAN_MOUNT_LINK || m->state == NULL ||
		    !path_has_prefix(m->upper, p->home))
			continue;
		rel = xstrdup(m->upper + strlen(p->home) + 1);
		slash = strrchr(rel, '/');
		name = slash ? slash + 1 : rel;
		if (slash)
			*slash = '\0';
		/* Beneath the session's home, the command's: no link. */
		if ((dir = slash ? fd_open_at(home, rel, O_RDONLY |
		    O_DIRECTORY, 0, FD_BENEATH) : dup(home)) < 0 ||
		    fstatat(dir, name, &st, AT_SYMLINK_NOFOLLOW) < 0 ||
		    (!S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode)) ||
		    (efd = open(m->state, O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
		    O_CLOEXEC)) < 0)
			continue;
		/* No copy, no link: the path was the session's alone. */
		if (fstatat(efd, "copy", &st, AT_SYMLINK_NOFOLLOW) < 0)
			continue;
		workspace_remove_tree(efd, "copy.new");
		workspace_remove_tree(efd, "copy.old");
		if (renameat(dir, name, efd, "copy.new") < 0 ||
		    (renameat(efd, "copy", efd, "copy.old") < 0 &&
		    errno != ENOENT) ||
		    renameat(efd, "copy.new", efd, "copy") < 0) {
			log_warn("state: %s was replaced in the session and "
			    "cannot be kept: %s", m->dst, strerror(errno));
			continue;
		}
		workspace_remove_tree(efd, "copy.old");
	}
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
