// SPDX-License-Identifier: ISC
/*
 * run/session-dir.c - session directory lifecycle.
 *
 * Runs in: the supervisor.  Before the run the directory is confine's own;
 * after it, upper/ holds what the command wrote: untrusted, reached only
 * relative to the session's directory fd, never followed through symlinks.
 * MUST: write nothing inside the workspace or anywhere else on the host
 * but the session directory.
 * MUST: write the metadata file under a temporary name, then rename it.
 */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "lib/fdio.h"
#include "lib/log.h"
#include "lib/spawn.h"
#include "lib/sys.h"
#include "lib/term-escape.h"
#include "lib/util.h"
#include "run/copy-progress.h"
#include "run/session-dir.h"
#include "run/workspace-copy.h"
#include "store/copy-mark.h"
#include "store/session-meta.h"
#include "store/session-store.h"

/*
 * How deep a removal goes: as deep as a copy is made (workspace-copy.c),
 * a directory's fd open at each level.  A tree the command made deeper
 * stays.
 */
#define REMOVE_DEPTH	256

static int	remove_tree(int, const char *, int);
static bool	dir_empty(int, const char *);
static bool	more_written(const struct plan *, int);


/*
 * start: the session's; copy_since (copies only, else NULL): the command's
 * changes to a copy are told from it (store/copy-mark.h); host_since: the
 * host's changes to the workspace from then on are flagged
 * (export/patch.c).
 */
/* How many of p's workspaces are writable (each with its own patch). */
static size_t
writable_count(const struct plan *p)
{
	size_t i, n = 0;

	for (i = 0; i < p->nworkspaces; i++)
		n += !p->workspaces[i].read_only;
	return n;
}

/*
 * ws: the workspace whose files dirfd holds (p->workspace, or a further
 * one's in ws/N).  A session of several workspaces says so in each meta
 * (workspaces=N, read by the export), and its own meta names the others
 * (also=PATH: "confine ls" and the latest session of a workspace).
 */
static int
write_meta_ws(int dirfd, const struct plan *p, const char *ws,
    const struct timespec *start, const struct timespec *host_since,
    const struct timespec *copy_since)
{
	AUTO(fclose_p) FILE *f = NULL;
	char stamp[32];
	struct tm tm;
	time_t now = time(NULL);
	size_t i;
	int fd;

	if ((fd = openat(dirfd, "meta.tmp", O_WRONLY | O_CREAT | O_EXCL |
	    O_CLOEXEC | O_NOFOLLOW, 0600)) < 0)
		return -errno;
	if ((f = fdopen(fd, "w")) == NULL) {
		close(fd);
		return -errno;
	}
	gmtime_r(&now, &tm);
	strftime(stamp, sizeof(stamp), "%Y-%m-%dT%H:%M:%SZ", &tm);
	fprintf(f, "version=1\nid=%s\nstarted=%s\nstarted_ns=%lld\n"
	    "host_since_ns=%lld\n"
	    "workspace=%s\nbackend=%s\nlayout=%s\nquadrant=%s\nprofile=%s\n"
	    "profile_arg=%s\n", p->session_id, stamp,
	    (long long)start->tv_sec * 1000000000LL + start->tv_nsec,
	    (long long)host_since->tv_sec * 1000000000LL + host_since->tv_nsec,
	    ws,
	    p->backend == PLAN_BACKEND_BWRAP ? "bwrap" :
	    p->backend == PLAN_BACKEND_LANDLOCK ? "landlock" : "native",
	    plan_ws_overlay(p) ? "overlay" : "copy",
	    p->quadrant, p->profile, p->profile_arg);
	if (p->nworkspaces > 1) {
		fprintf(f, "workspaces=%zu\n", writable_count(p));
		for (i = 0; streq(ws, p->workspace) && i < p->nworkspaces; i++)
			if (!streq(p->workspaces[i].path, ws))
				fprintf(f, "also=%s\n", p->workspaces[i].path);
		/* The options' (a profile's come again with it): enter. */
		for (i = 1; streq(ws, p->workspace) && i < p->nworkspaces; i++)
			if (streq(p->workspaces[i].origin, "option --workspace"))
				fprintf(f, "more_ws=%s\n", p->workspaces[i].path);
			else if (streq(p->workspaces[i].origin,
			    "option --ro-workspace"))
				fprintf(f, "ro_ws=%s\n", p->workspaces[i].path);
	}
	if (copy_since)
		fprintf(f, "copy_since_ns=%lld\n",
		    (long long)copy_since->tv_sec * 1000000000LL +
		    copy_since->tv_nsec);
	/* Left out of the workspace's copy: the export leaves them alone. */
	for (i = 0; i < p->mounts.n; i++) {
		const struct plan_mount *m = &p->mounts.v[i];
		size_t j;

		if (m->kind != PLAN_MOUNT_COPY || !streq(m->src, ws))
			continue;
		for (j = 0; m->except && m->except[j]; j++)
			if (!strchr(m->except[j], '\n'))
				fprintf(f, "hidden=%s\n", m->except[j]);
	}
	for (i = 0; p->argv[i]; i++) {
		/* One argument a line; a newline inside one is escaped. */
		const char *c;

		fputs("arg=", f);
		for (c = p->argv[i]; *c; c++) {
			if (*c == '\n')
				fputs("\\n", f);
			else if (*c == '\\')
				fputs("\\\\", f);
			else
				fputc(*c, f);
		}
		fputc('\n', f);
	}
	if (fflush(f) != 0 || ferror(f))
		return -EIO;
	if (renameat(dirfd, "meta.tmp", dirfd, "meta") < 0)
		return -errno;
	return 0;
}

static int
write_meta(int dirfd, const struct plan *p, const struct timespec *start,
    const struct timespec *host_since, const struct timespec *copy_since)
{
	return write_meta_ws(dirfd, p, p->workspace, start, host_since,
	    copy_since);
}

/*
 * The writable workspace whose copy m is (its upper in the workspace's
 * own directory: the session's, or ws/N), or NULL.
 */
static const struct plan_workspace *
copy_of(const struct plan *p, const struct plan_mount *m, size_t *idx)
{
	size_t i;

	if (m->kind != PLAN_MOUNT_COPY || m->state)
		return NULL;
	for (i = 0; i < p->nworkspaces; i++) {
		const struct plan_workspace *w = &p->workspaces[i];
		autofree char *upper = NULL;

		if (w->read_only || w->dir == NULL || !streq(w->path, m->src))
			continue;
		upper = path_join(w->dir, "upper");
		if (!streq(upper, m->upper))
			continue;
		if (idx)
			*idx = i;
		return w;
	}
	return NULL;
}

/*
 * One copy or link of the plan, made in the session; a workspace's copy
 * (ws: the workspace) noted in mark, its directories in its copy.dirs.
 * 0, or 1 for a copy with nothing on the host to copy (none made).
 */
static int
prepare(const struct plan *p, const struct plan_mount *m,
    const struct plan_workspace *ws, struct copy_mark *mark,
    const char **where)
{
	autofree char *parent = xstrdup(m->upper), *what = NULL;
	struct copy_stats st;
	struct copy_progress pg;
	FILE *dirs = NULL;
	int r;

	*strrchr(parent, '/') = '\0';
	*where = m->upper;
	if ((r = sys_mkdirs(parent)) < 0)
		return r;
	if (m->kind == PLAN_MOUNT_LINK) {
		/* A persistent path: to its copy in the state (agent-state.c
		 * made it, or nothing is kept of it). */
		autofree char *to = m->state ? path_join(m->state, "copy") :
		    xstrdup(m->src);

		/* Nothing on the host: no link to nothing. */
		if (access(to, F_OK) < 0 && errno == ENOENT)
			return 0;
		return symlink(to, m->upper) < 0 ? -errno : 0;
	}
	/*
	 * A scratch path missing on the host: nothing to copy; in the home
	 * (a tmpfs, or the session's) the command makes it as it likes.
	 */
	if (access(m->src, F_OK) < 0 && errno == ENOENT)
		return 1;
	if (ws) {
		/* The workspace's directories by inode, for the export. */
		autofree char *idx = path_join(ws->dir, "copy.dirs");
		int fd = open(idx, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW |
		    O_CLOEXEC, 0600);

		if (fd < 0 || (dirs = fdopen(fd, "w")) == NULL) {
			*where = ws->dir;
			r = -errno;
			if (fd >= 0)
				close(fd);
			return r;
		}
	}
	/* A large workspace takes a while: the user's terminal says so. */
	what = streq(m->src, p->workspace) ? xstrdup("the workspace") :
	    term_sanitize(m->src, strlen(m->src), 0);
	copy_progress_begin(&pg, what);
	r = copy_tree_shown(m->src, m->upper, m->except, dirs,
	    ws ? mark : NULL,
	    pg.on ? copy_progress_show : NULL, &pg, &st, where);
	if (dirs && fclose(dirs) != 0 && r == 0) {
		*where = ws->dir;
		r = -EIO;
	}
	copy_progress_end(&pg, &st, r == 0);
	if (r < 0)
		return r;
	if (st.skipped)
		log_info("copy of %s: %zu unreadable or special files left out",
		    m->src, st.skipped);
	return 0;
}

/* landlock: is m a link of a path inside a persistent one? */
static bool
in_persistent(const struct plan *p, const struct plan_mount *m)
{
	size_t i;

	if (m->kind != PLAN_MOUNT_LINK || m->state)
		return false;
	for (i = 0; i < p->mounts.n; i++)
		if (p->mounts.v[i].kind == PLAN_MOUNT_LINK &&
		    p->mounts.v[i].state && path_has_prefix(m->dst,
		    p->mounts.v[i].dst) && !streq(m->dst, p->mounts.v[i].dst))
			return true;
	return false;
}

/* bwrap, the allow-list view: the session's machine id, for bwrap to bind. */
static int
machine_id(const struct plan *p, int dirfd)
{
	size_t i, len;
	int fd;

	for (i = 0; i < p->mounts.n; i++) {
		const struct plan_mount *m = &p->mounts.v[i];

		if (m->kind != PLAN_MOUNT_DATA)
			continue;
		unlinkat(dirfd, "machine-id", 0);
		if ((fd = openat(dirfd, "machine-id", O_WRONLY | O_CREAT |
		    O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0444)) < 0)
			return -errno;
		len = strlen(m->data);
		if (write(fd, m->data, len) != (ssize_t)len) {
			close(fd);
			return -EIO;
		}
		close(fd);
	}
	return 0;
}

/* The marks of a session's copied workspaces, one a workspace. */
static void
marks_free(struct copy_mark **marks, size_t n)
{
	size_t i;

	for (i = 0; *marks && i < n; i++)
		copy_mark_free(&(*marks)[i]);
	free(*marks);
	*marks = NULL;
}

/*
 * A workspace's copy, whole: its mark (store/copy-mark.h) and meta in
 * its own directory (the session's, or ws/N), written last.  *start: the
 * latest since the command must wait for, if any.
 */
static int
copy_sealed(const struct plan *p, int fd, const struct plan_workspace *w,
    struct copy_mark *mark, const struct timespec *host_since,
    struct timespec *start, const char **where)
{
	autoclose int wfd = -1;
	struct timespec now;
	int r;

	*where = w->dir;
	if (!streq(w->dir, p->session_dir) && (wfd = openat(fd, w->dir +
	    strlen(p->session_dir) + 1, O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
	    O_CLOEXEC)) < 0)
		return -errno;
	if (wfd < 0)
		wfd = dup(fd);
	if (wfd < 0)
		return -errno;
	if (copy_mark_seal(mark, wfd) && (start->tv_sec < mark->since.tv_sec ||
	    (start->tv_sec == mark->since.tv_sec &&
	    start->tv_nsec < mark->since.tv_nsec)))
		*start = mark->since;
	if ((r = copy_mark_write_recent(wfd, mark->recent, mark->nrecent)) < 0)
		return r;
	clock_gettime(CLOCK_REALTIME, &now);
	return write_meta_ws(wfd, p, w->path, &now, host_since, &mark->since);
}

/*
 * bwrap and landlock: real copies of the workspaces and the scratch paths;
 * landlock: the session's home (holding its copies and links) and tmp.
 * Entered again, the workspaces' copies stay and the rest is made anew.
 * Each writable workspace's copy (bwrap: the further ones in ws/N) has
 * its own mark and meta.
 */
static int
copies_create(const struct plan *p, int fd, const char **where,
    struct timespec *start, bool *no_copy)
{
	struct copy_mark *marks = xcalloc(p->nworkspaces + 1, sizeof(*marks));
	const struct plan_workspace *w;
	struct timespec host_since, now;
	size_t i, k;
	int r;

	/*
	 * The host's own changes are flagged from before the copy: one made
	 * while it runs may be in the copy or not.
	 */
	clock_gettime(CLOCK_REALTIME, &host_since);
	if (p->backend == PLAN_BACKEND_LANDLOCK) {
		remove_tree(fd, "home", 0);
		remove_tree(fd, "tmp", 0);
		*where = p->session_dir;
		if (mkdirat(fd, "home", 0700) < 0 ||
		    mkdirat(fd, "tmp", 0700) < 0) {
			r = -errno;
			goto out;
		}
	}
	if (p->backend == PLAN_BACKEND_BWRAP) {
		/* Over a socket or a hidden file: an empty file of mode 0, as
		 * native's mask (reading it is EACCES, not an empty file). */
		unlinkat(fd, "empty", 0);
		if ((r = openat(fd, "empty", O_WRONLY | O_CREAT | O_EXCL |
		    O_CLOEXEC | O_NOFOLLOW, 0)) < 0) {
			r = -errno;
			goto out;
		}
		close(r);
		remove_tree(fd, "scratch", 0);
		if ((r = machine_id(p, fd)) < 0)
			goto out;
	}
	for (i = 0; i < p->mounts.n; i++) {
		const struct plan_mount *m = &p->mounts.v[i];

		if (m->kind != PLAN_MOUNT_COPY && m->kind != PLAN_MOUNT_LINK)
			continue;
		/* A persistent copy is the state's (run/agent-state.c). */
		if (m->kind == PLAN_MOUNT_COPY && m->state)
			continue;
		k = 0;
		w = copy_of(p, m, &k);
		if (p->reenter && w)
			continue;
		/* landlock: a link inside a persistent path is made where
		 * its copy is kept (run/agent-state.c), after the session. */
		if (in_persistent(p, m))
			continue;
		if ((r = prepare(p, m, w, &marks[k], where)) < 0)
			goto out;
		no_copy[i] = r == 1;
	}
	*where = p->session_dir;
	r = 0;
	if (p->reenter)
		goto out;
	/*
	 * bwrap's workspace an overlay: no mark, and no probe of the
	 * filesystem's ctimes for one.  Only a copied workspace is judged
	 * by it (the export's "copy" layout, workspace_session_finish()); the
	 * overlay's changes are its upper layer, and its start the run's
	 * first moment (workspace_session_create()).
	 */
	if (plan_ws_overlay(p)) {
		clock_gettime(CLOCK_REALTIME, &now);
		r = write_meta(fd, p, &now, &host_since, NULL);
		goto out;
	}
	/*
	 * The export tells the command's changes by each copy's mark
	 * (store/copy-mark.h): its since, and the entries copied in its
	 * last tick.  With multigrain timestamps the command starts at once
	 * (the caller's start stays zero); elsewhere once the coarse clock
	 * has passed the latest since.  The session's own meta comes last.
	 */
	for (i = 0; i < p->nworkspaces; i++) {
		w = &p->workspaces[i];
		if (plan_ws_rel(p, w) == NULL)
			continue;
		if ((mkdirat(fd, "ws", 0700) < 0 && errno != EEXIST) ||
		    (mkdirat(fd, plan_ws_rel(p, w), 0700) < 0 &&
		    errno != EEXIST)) {
			*where = w->dir;
			r = -errno;
			goto out;
		}
		if ((r = copy_sealed(p, fd, w, &marks[i], &host_since, start,
		    where)) < 0)
			goto out;
	}
	for (i = 0; i < p->nworkspaces; i++) {
		w = &p->workspaces[i];
		if (!w->read_only && w->dir && streq(w->dir, p->session_dir))
			break;
	}
	if (i == p->nworkspaces) {
		r = -EINVAL;
		goto out;
	}
	r = copy_sealed(p, fd, w, &marks[i], &host_since, start, where);
	if (r == 0)
		*where = p->session_dir;
out:
	marks_free(&marks, p->nworkspaces + 1);
	return r;
}

/*
 * The session's run lock, held until confine exits: the fd is left open
 * on purpose (close-on-exec, so the command never has it).  "confine ls"
 * says "running" and "confine drop" leaves the session alone while it is
 * held.  A session entered again may be running in another confine.
 */
static int
run_lock(const struct plan *p, int dirfd)
{
	int r;

	if ((r = session_run_lock(dirfd, !p->reenter)) == -EBUSY) {
		log_msg("session %s is running in another confine; waiting "
		    "for it to end", p->session_id);
		r = session_run_lock(dirfd, true);
	}
	return r < 0 ? r : 0;
}

/* The workspace overlay's layers: upper/ and a fresh, empty work/. */
static int
overlay_layers(const struct plan *p, int fd, const char **where)
{
	struct stat st;

	*where = p->session_dir;
	/* The overlay's root takes upper/'s mode: give it the workspace's. */
	if (stat(p->workspace, &st) < 0)
		return -errno;
	if (p->reenter) {
		/* The layers stay; overlayfs wants a fresh, empty work dir. */
		remove_tree(fd, "work", 0);
		if (mkdirat(fd, "work", 0700) < 0)
			return -errno;
	} else if (mkdirat(fd, "upper", 0700) < 0 ||
	    mkdirat(fd, "work", 0700) < 0 ||
	    fchmodat(fd, "upper", st.st_mode & 07777, 0) < 0)
		return -errno;
	return 0;
}

/*
 * The further writable workspaces' overlay layers, each in ws/N with a
 * meta of its own (its workspace, the session's id and start): the
 * export and apply take ws/N as they take the session.
 */
static int
more_layers(const struct plan *p, int fd, const char **where,
    const struct timespec *start)
{
	size_t i;
	int r;

	for (i = 0; i < p->nworkspaces; i++) {
		const struct plan_workspace *w = &p->workspaces[i];
		const char *rel;
		autoclose int wfd = -1;
		struct stat st;

		if ((rel = plan_ws_rel(p, w)) == NULL)
			continue;
		*where = w->dir;
		if (stat(w->path, &st) < 0)
			return -errno;
		if ((mkdirat(fd, "ws", 0700) < 0 && errno != EEXIST) ||
		    (mkdirat(fd, rel, 0700) < 0 && !(p->reenter &&
		    errno == EEXIST)))
			return -errno;
		if ((wfd = openat(fd, rel, O_RDONLY | O_DIRECTORY |
		    O_NOFOLLOW | O_CLOEXEC)) < 0)
			return -errno;
		if (p->reenter) {
			remove_tree(wfd, "work", 0);
			if (mkdirat(wfd, "work", 0700) < 0)
				return -errno;
			continue;
		}
		if (mkdirat(wfd, "upper", 0700) < 0 ||
		    mkdirat(wfd, "work", 0700) < 0 ||
		    fchmodat(wfd, "upper", st.st_mode & 07777, 0) < 0)
			return -errno;
		if ((r = write_meta_ws(wfd, p, w->path, start, start,
		    NULL)) < 0)
			return r;
	}
	*where = p->session_dir;
	return 0;
}

int
workspace_session_copies(const struct plan *p, const char **where,
    struct timespec *start, bool *no_copy)
{
	autoclose int fd = -1;

	*where = p->session_dir;
	start->tv_sec = start->tv_nsec = 0;
	if ((fd = open(p->session_dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
	    O_CLOEXEC)) < 0)
		return -errno;
	return copies_create(p, fd, where, start, no_copy);
}

int
workspace_session_create(const struct plan *p, const char **where,
    struct timespec *start, bool *no_copy, bool copies_later)
{
	autofree char *parent = xstrdup(p->session_dir);
	autoclose int fd = -1;
	size_t i;
	int r;

	*strrchr(parent, '/') = '\0';
	*where = p->session_dir;
	if ((r = sys_mkdirs(parent)) < 0)
		return r;
	if (mkdir(p->session_dir, 0700) < 0 && !(p->reenter && errno == EEXIST))
		return -errno;
	if ((fd = open(p->session_dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
	    O_CLOEXEC)) < 0)
		return -errno;
	if ((r = run_lock(p, fd)) < 0)
		return r;
	start->tv_sec = start->tv_nsec = 0;
	/* bwrap: its other paths are copies, its workspace may be an
	 * overlay all the same (enforce/overlay.c). */
	if (copies_later)
		return 0;
	if (p->backend != PLAN_BACKEND_NATIVE) {
		if ((r = copies_create(p, fd, where, start, no_copy)) < 0 ||
		    !plan_ws_overlay(p))
			return r;
		/* The workspace an overlay: the host's changes flagged from
		 * the run's first moment, as native's below. */
		if (!p->reenter && start->tv_sec == 0 && p->started.tv_sec)
			*start = p->started;
		if ((r = overlay_layers(p, fd, where)) < 0)
			return r;
		return more_layers(p, fd, where, start);
	}
	/*
	 * The overlay shows the host's files as they are: the export flags
	 * one whose ctime is the start's or later as changed on the host
	 * during the session.  The start is the fine clock, taken before
	 * the overlay is made: a file written before it has an older ctime,
	 * coarse or fine (multigrain); a coarse one may be older even when
	 * written after it, so the command starts only once the coarse clock
	 * has passed it (sandbox_command()), and such a write came before
	 * the command, which saw it.  (The coarse clock as the start flagged
	 * a file written in the same tick before the launch.)  It is the
	 * run's first moment, the host probe's (plan->started): the launch
	 * itself, not a wait, mostly covers the rest of the coarse clock's
	 * tick; a host write during the launch is flagged, which it may be.
	 */
	if (!p->reenter && p->started.tv_sec != 0)
		*start = p->started;
	else if (!p->reenter)
		clock_gettime(CLOCK_REALTIME, start);
	if ((r = overlay_layers(p, fd, where)) < 0 ||
	    (r = more_layers(p, fd, where, start)) < 0)
		return r;
	/* Scratch directories of the profile: their layers live here too. */
	for (i = 0; i < p->mounts.n; i++) {
		const struct plan_mount *m = &p->mounts.v[i];

		if (m->kind != PLAN_MOUNT_SCRATCH || m->state)
			continue;
		*where = m->upper;
		if ((mkdirat(fd, "scratch", 0700) < 0 && errno != EEXIST) ||
		    (mkdir(m->upper, 0700) < 0 && !(p->reenter &&
		    errno == EEXIST)) || mkdir(m->work, 0700) < 0)
			return -errno;
	}
	*where = p->session_dir;
	/* Re-entered: the first start stays the session's start. */
	return p->reenter ? 0 : write_meta(fd, p, start, start, NULL);
}

/*
 * Remove name below dirfd, a tree or not: 0 or -errno.  A directory is
 * opened up to its owner (mode 0700) only where its owner could not
 * read it or remove from it: a copy keeps the modes of the workspace's,
 * and overlayfs makes work directories of mode 0.
 */
static int
remove_tree(int dirfd, const char *name, int depth)
{
	autoclose int fd = -1;
	struct dir_reader d;
	const char *entry;
	bool opened = false;

	if (unlinkat(dirfd, name, 0) == 0)
		return 0;
	if (errno != EISDIR)
		return -errno;
	if (depth > REMOVE_DEPTH)
		return -ELOOP;
	if ((fd = openat(dirfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
	    O_CLOEXEC)) < 0 && errno == EACCES &&
	    fchmodat(dirfd, name, 0700, AT_SYMLINK_NOFOLLOW) == 0) {
		opened = true;
		fd = openat(dirfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
		    O_CLOEXEC);
	}
	if (fd < 0)
		return -errno;
	dir_begin(&d, fd);
	while ((entry = dir_next(&d, NULL)) != NULL)
		if (remove_tree(fd, entry, depth + 1) == -EACCES && !opened &&
		    fchmod(fd, 0700) == 0) {
			opened = true;
			remove_tree(fd, entry, depth + 1);
		}
	dir_done(&d);
	return unlinkat(dirfd, name, AT_REMOVEDIR) < 0 ? -errno : 0;
}

char *
workspace_copy_dir(const struct plan *p, size_t i)
{
	const struct plan_workspace *w = &p->workspaces[i];

	if (p->backend == PLAN_BACKEND_NATIVE || plan_ws_overlay(p) ||
	    w->read_only || w->dir == NULL)
		return NULL;
	return path_join(w->dir, "upper");
}

/*
 * Copies (bwrap where its workspace is no overlay, landlock): has the
 * command changed any writable workspace's copy since its mark (its own,
 * in the session or ws/N)?  A mark that cannot be read: yes, kept for the
 * export to say.
 */
bool
workspace_copies_changed(const struct plan *p)
{
	size_t i;

	for (i = 0; i < p->nworkspaces; i++) {
		autofree char *upper = workspace_copy_dir(p, i);
		struct copy_mark mark;
		bool changed;

		if (upper == NULL)
			continue;
		if (copy_mark_load(p->workspaces[i].dir, &mark) < 0)
			return true;
		changed = copy_changed(upper, &mark);
		copy_mark_free(&mark);
		if (changed)
			return true;
	}
	return false;
}

bool
workspace_session_finish(const struct plan *p, bool keep)
{
	autoclose int fd = -1;
	size_t i;

	if ((fd = open(p->session_dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
	    O_CLOEXEC)) < 0)
		return true;
	if (p->backend != PLAN_BACKEND_NATIVE) {
		/* Scratch is discarded; the copy is for the export to judge. */
		remove_tree(fd, "home", 0);
		remove_tree(fd, "tmp", 0);
		remove_tree(fd, "scratch", 0);
		unlinkat(fd, "empty", 0);
		unlinkat(fd, "machine-id", 0);
		/*
		 * Untouched: nothing to export (the export would say so).
		 * What the proxy refused is no change: the exit line said it.
		 */
		if (!plan_ws_overlay(p)) {
			if (p->reenter || keep || workspace_copies_changed(p))
				return true;
			workspace_session_remove(p);
			return false;
		}
		/* bwrap's overlay: as native's, below. */
	}
	/* overlayfs's own scratch (mode 000 entries, volatile markers). */
	remove_tree(fd, "work", 0);
	for (i = 0; i < p->nworkspaces; i++) {
		autofree char *work = NULL;

		if (plan_ws_rel(p, &p->workspaces[i]) == NULL)
			continue;
		work = path_join(plan_ws_rel(p, &p->workspaces[i]), "work");
		remove_tree(fd, work, 0);
	}
	for (i = 0; i < p->mounts.n; i++) {
		const struct plan_mount *m = &p->mounts.v[i];
		const char *rel;

		if (m->kind != PLAN_MOUNT_SCRATCH || m->state)
			continue;
		rel = m->work + strlen(p->session_dir) + 1;
		remove_tree(fd, rel, 0);
		if (!p->reenter)
			unlinkat(fd, m->upper + strlen(p->session_dir) + 1,
			    AT_REMOVEDIR);
	}
	if (p->reenter || keep)
		return true;
	unlinkat(fd, "scratch", AT_REMOVEDIR);
	if (faccessat(fd, "scratch", F_OK, AT_SYMLINK_NOFOLLOW) == 0)
		return true;
	/* A further workspace written: the whole session is kept. */
	if (more_written(p, fd))
		return true;
	/* Nothing written: the proxy's record alone is no change. */
	if (unlinkat(fd, "upper", AT_REMOVEDIR) < 0)
		return true;
	workspace_session_remove(p);
	return false;
}

void
workspace_session_remove(const struct plan *p)
{
	autofree char *parent = xstrdup(p->session_dir);
	autoclose int fd = -1;
	char *slash = strrchr(parent, '/');

	*slash = '\0';
	if ((fd = open(parent, O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
	    O_CLOEXEC)) >= 0)
		remove_tree(fd, slash + 1, 0);
}

/* Does dirfd/rel hold nothing (a directory with no entry)? */
static bool
dir_empty(int dirfd, const char *rel)
{
	autoclose int fd = openat(dirfd, rel, O_RDONLY | O_DIRECTORY |
	    O_NOFOLLOW | O_CLOEXEC);
	struct dir_reader d;
	bool empty;

	if (fd < 0)
		return false;
	dir_begin(&d, fd);
	empty = dir_next(&d, NULL) == NULL && d.err == 0;
	dir_done(&d);
	return empty;
}

/* Has a further writable workspace's upper (ws/N/upper) anything in it? */
static bool
more_written(const struct plan *p, int fd)
{
	size_t i;

	for (i = 0; i < p->nworkspaces; i++) {
		autofree char *upper = NULL;

		if (plan_ws_rel(p, &p->workspaces[i]) == NULL)
			continue;
		upper = path_join(plan_ws_rel(p, &p->workspaces[i]), "upper");
		if (!dir_empty(fd, upper))
			return true;
	}
	return false;
}

bool
workspace_session_untouched(const struct plan *p, bool copies_changed)
{
	autoclose int fd = -1;
	size_t i;

	if (p->reenter || (fd = open(p->session_dir, O_RDONLY |
	    O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)) < 0)
		return false;
	/* Copies: each unchanged since its mark, as the finish judges it. */
	if (p->backend != PLAN_BACKEND_NATIVE && !plan_ws_overlay(p))
		return !copies_changed;
	if (!dir_empty(fd, "upper"))
		return false;
	/* A further workspace written: kept. */
	if (more_written(p, fd))
		return false;
	/* bwrap's scratch is discarded, whatever it holds (the finish). */
	if (p->backend != PLAN_BACKEND_NATIVE)
		return true;
	for (i = 0; i < p->mounts.n; i++) {
		const struct plan_mount *m = &p->mounts.v[i];

		if (m->kind == PLAN_MOUNT_SCRATCH && m->state == NULL &&
		    !dir_empty(fd, m->upper + strlen(p->session_dir) + 1))
			return false;
	}
	return true;
}

/* STATE/confine/trash, beside the store of p's session. */
static char *
trash_dir(const struct plan *p)
{
	autofree char *store = xstrdup(p->session_dir);

	*strrchr(store, '/') = '\0';
	*strrchr(store, '/') = '\0';
	return path_join(store, "trash");
}

/*
 * overlayfs leaves its work directory's entries mode 000 (work/work,
 * work/incompat/volatile): opened to their owner, directories only, never
 * through a symlink, so that the user may remove the trash at once too.
 */
static void
open_up(int at, const char *name, int depth)
{
	struct dirent *e;
	DIR *d;
	int fd;

	if (depth > 4 || fchmodat(at, name, 0700, AT_SYMLINK_NOFOLLOW) < 0 ||
	    (fd = openat(at, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
	    O_CLOEXEC)) < 0)
		return;
	if ((d = fdopendir(fd)) == NULL) {
		close(fd);
		return;
	}
	while ((e = readdir(d)) != NULL)
		if (e->d_type == DT_DIR && !streq(e->d_name, ".") &&
		    !streq(e->d_name, ".."))
			open_up(dirfd(d), e->d_name, depth + 1);
	closedir(d);
}

int
workspace_session_discard(const struct plan *p)
{
	autofree char *trash = trash_dir(p);
	autofree char *to = path_join(trash, p->session_id);
	autoclose int fd = -1;
	size_t i;

	if (mkdir(trash, 0700) < 0 && errno != EEXIST)
		return -errno;
	if (rename(p->session_dir, to) < 0)
		return -errno;
	if ((fd = open(to, O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
	    O_CLOEXEC)) < 0)
		return 0;
	open_up(fd, "work", 0);
	for (i = 0; i < p->nworkspaces; i++) {
		autofree char *work = NULL;

		if (plan_ws_rel(p, &p->workspaces[i]) == NULL)
			continue;
		work = path_join(plan_ws_rel(p, &p->workspaces[i]), "work");
		open_up(fd, work, 0);
	}
	for (i = 0; i < p->mounts.n; i++) {
		const struct plan_mount *m = &p->mounts.v[i];

		if (m->kind == PLAN_MOUNT_SCRATCH && m->state == NULL &&
		    m->work)
			open_up(fd, m->work + strlen(p->session_dir) + 1, 0);
	}
	return 0;
}

void
workspace_trash_empty(const struct plan *p)
{
	autofree char *trash = trash_dir(p);
	autoclose int fd = open(trash, O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
	    O_CLOEXEC);
	struct dirent *e;
	DIR *d;

	if (fd < 0)
		return;
	remove_tree(fd, p->session_id, 0);
	if ((d = fdopendir(dup(fd))) == NULL)
		return;
	while ((e = readdir(d)) != NULL) {
		autoclose int dir = -1, lock = -1;

		if (!session_id_ok(e->d_name) || (dir = openat(fd, e->d_name,
		    O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)) < 0)
			continue;
		/* Held: its own confine is removing it now. */
		if ((lock = session_run_lock(dir, false)) < 0)
			continue;
		remove_tree(fd, e->d_name, 0);
	}
	closedir(d);
}

void
workspace_remove_tree(int dirfd, const char *name)
{
	remove_tree(dirfd, name, 0);
}

char *
workspace_network_line(const struct net_note *n)
{
	autofree char *failed = n->failed == 0 ? xstrdup("") :
	    xasprintf(", %u upstream failure%s", n->failed,
	    n->failed == 1 ? "" : "s");

	return xasprintf("network: %u connection%s through the proxy, %u "
	    "refused%s", n->allowed, n->allowed == 1 ? "" : "s", n->refused,
	    failed);
}

void
workspace_note_network(const struct plan *p, const struct net_note *n)
{
	autofree char *text = NULL, *counts = NULL, *more = NULL;
	autofree char *line = p->net != PLAN_NET_PROXY ? NULL :
	    workspace_network_line(n);
	char *const *lists[] = { n->refusals, n->failures };
	const char *const verb[] = { "refused", "failed" };
	size_t i, j, listed = 0;
	int r;

	text = line ? xasprintf("%s\n", line) : xstrdup("");
	/* Names the proxy parsed: printable ASCII only, by its rules; the
	 * errors are strerror's. */
	for (j = 0; j < nitems(lists); j++)
		for (i = 0; lists[j] && lists[j][i]; i++) {
			more = xasprintf("%s  %s %s\n", text, verb[j],
			    lists[j][i]);
			free(text);
			text = steal_ptr(&more);
			if (j == 0)
				listed++;
		}
	if (n->inference) {
		more = xasprintf("%s%s\n", text, n->inference);
		free(text);
		text = steal_ptr(&more);
	}
	/* For people (the report shows it), and the facts for the export. */
	counts = xasprintf("allowed=%u\nrefused=%u\nfailed=%u\nlisted=%zu\n",
	    n->allowed, n->refused, n->failed, listed);
	if ((r = session_file_put(p->session_dir, "network", text)) < 0 ||
	    (r = session_file_put(p->session_dir, "network.counts",
	    counts)) < 0)
		log_warn("session: cannot note the proxy's counts in '%s': %s",
		    p->session_dir, strerror(-r));
}

int
workspace_export(const char *session_dir, bool quiet)
{
	char *argv[] = { quiet ? (char *)"-q" : (char *)"--",
	    (char *)session_dir, NULL };

	return workspace_export_run(argv);
}

int
workspace_export_run(char *const args[])
{
	autofree char *prog = spawn_helper_path("confine-export");
	char *argv[8] = { prog };
	/* Killed with confine: an apply stops where confine did. */
	struct spawn_opts o = { .in = -1, .out = -1, .err = -1,
	    .die_with_parent = true, .clean_mask = true, .name = "export",
	    .fail_status = 125 };
	size_t i;
	int status;

	for (i = 0; args[i] && i + 2 < nitems(argv); i++)
		argv[i + 1] = args[i];
	if ((status = spawn_run(prog, argv, &o)) < 0)
		return -1;
	return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}
