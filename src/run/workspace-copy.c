// SPDX-License-Identifier: ISC
/*
 * run/workspace-copy.c - copy a host tree into the session (FICLONE, copy_file_range(2)).
 *
 * Runs in: the supervisor, before the sandbox starts; the source is the
 * user's own tree, the destination confine's session directory.
 * MUST: look at each file once: what is told of the copy's progress is
 * counted while copying; the total, counted only when asked for (a copy
 * that takes a while), reads the directories alone.
 * MUST: never hard-link: a link would share the host's inode, and a write
 * through the copy would reach the host.
 * MUST: follow no symlink on either side; a link is copied as a link.
 */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/fs.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/fdio.h"
#include "lib/log.h"
#include "lib/util.h"
#include "run/workspace-copy.h"

#define MAX_DEPTH	256
#define COPY_CHUNK	(16 << 20)	/* bytes between two calls of shown */

struct copy {
	struct copy_stats	*st;
	copy_shown_fn		*shown;		/* or NULL */
	void			*arg;		/* shown's */
	int			 root;		/* src's parent, for the count */
	const char		*root_name;	/* src's name in it */
	bool			 counted;	/* st->total is */
	bool			 no_clone;	/* FICLONE failed: not here */
	bool			 no_range;	/* so did copy_file_range(2) */
	bool			 is_root;	/* euid 0: owners kept */
	mode_t			 umask;		/* the process's */
	FILE			*dirs;	/* "INO\0PATH\0" per directory */
	struct copy_mark	*mark;	/* or NULL: its recent entries */
	char *const		*except;
	char			 rel[PATH_MAX];	/* of the entry, below src */
};

/* Is the entry at c->rel one to leave out? */
static bool
excepted(const struct copy *c)
{
	size_t i;

	for (i = 0; c->except && c->except[i]; i++)
		if (streq(c->except[i], c->rel))
			return true;
	return false;
}

/*
 * Root reads every file; the copy must not hand a file of another user to
 * the command, which has no capability to read it on the host: it keeps
 * its owner.  Anyone else copies only what they could read anyway.
 */
static int
own(const struct copy *c, int fd, const struct stat *st)
{
	if (!c->is_root || (st->st_uid == 0 && st->st_gid == 0))
		return 0;
	return fchown(fd, st->st_uid, st->st_gid);
}

static void	count_entry(struct copy *, int, const char *);

/* Entries of ticks the coarse clock has left behind: not recent. */
static void
prune(struct copy_mark *m, const struct timespec *now)
{
	size_t i, k = 0;

	for (i = 0; i < m->nrecent; i++)
		if (timespec_ge(&m->recent[i].ctime, now))
			m->recent[k++] = m->recent[i];
	m->nrecent = k;
}

/*
 * The copy's entry name of dirfd (or dirfd itself: name NULL), after its
 * last change by the copy: noted with its ctime.  The stat is also what
 * makes a filesystem of multigrain timestamps give its next change a
 * ctime of its own.
 */
static int
note(struct copy *c, int dirfd, const char *name)
{
	struct copy_mark *m = c->mark;
	struct timespec now;
	struct stat st;

	if (m == NULL)
		return 0;
	if ((name ? fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW) :
	    fstat(dirfd, &st)) < 0)
		return -errno;
	if (m->nrecent > 0 && (m->nrecent & 1023) == 0) {
		clock_gettime(CLOCK_REALTIME_COARSE, &now);
		prune(m, &now);
	}
	if (m->nrecent == m->cap) {
		m->cap = m->cap ? 2 * m->cap : 256;
		m->recent = xreallocarray(m->recent, m->cap,
		    sizeof(*m->recent));
	}
	m->recent[m->nrecent].ino = (uint64_t)st.st_ino;
	m->recent[m->nrecent++].ctime = st.st_ctim;
	return 0;
}

bool
copy_stop_pending(void)
{
	static const int sigs[] = { SIGINT, SIGTERM, SIGHUP, SIGQUIT };
	struct sigaction sa;
	sigset_t set;
	size_t i;

	if (sigpending(&set) < 0)
		return false;
	/* One the caller ignores is held too, and stops nothing. */
	for (i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++)
		if (sigismember(&set, sigs[i]) == 1 &&
		    sigaction(sigs[i], NULL, &sa) == 0 &&
		    sa.sa_handler != SIG_IGN)
			return true;
	return false;
}

/* Tell shown; count the total first when it asks for it, once. */
static void
tell(struct copy *c)
{
	struct copy *count;

	if (c->shown == NULL || !c->shown(c->st, c->arg) || c->counted)
		return;
	c->counted = true;
	/* A walk of its own: c->rel is the copy's place. */
	count = xcalloc(1, sizeof(*count));
	count->st = c->st;
	count->except = c->except;
	count_entry(count, c->root, c->root_name);
	free(count);
	c->shown(c->st, c->arg);
}

/*
 * The bytes of in to out: a reflink (FICLONE: btrfs, xfs, bcachefs), else
 * the kernel's copy (copy_file_range(2), which reflinks where it can and
 * copies in the kernel elsewhere), else ours (another filesystem than
 * the session's, or an old kernel).  A method this filesystem refuses is
 * not asked again for every file.
 */
static int
copy_bytes(struct copy *c, int in, int out, off_t size, bool *cloned)
{
	char buf[65536];
	ssize_t n, w;
	off_t left = size;
	unsigned reads = 0;

	*cloned = false;
	if (size > 0 && !c->no_clone) {
		if (ioctl(out, FICLONE, in) == 0) {
			*cloned = true;
			c->st->bytes += (uint64_t)size;
			return 0;
		}
		if (errno == EOPNOTSUPP || errno == EXDEV || errno == EINVAL ||
		    errno == ENOTTY)
			c->no_clone = true;
	}
	while (left > 0 && !c->no_range) {
		n = copy_file_range(in, NULL, out, NULL,
		    (size_t)(left < COPY_CHUNK ? left : COPY_CHUNK), 0);
		if (n < 0 && (errno == EXDEV || errno == ENOSYS ||
		    errno == EINVAL || errno == EOPNOTSUPP)) {
			/* Refused before a byte was copied: the filesystem. */
			if (left == size)
				c->no_range = true;
			break;
		}
		if (n < 0)
			return -errno;
		if (n == 0)
			return 0;	/* shrank meanwhile: what is there */
		left -= n;
		c->st->bytes += (uint64_t)n;
		if (left > 0)
			tell(c);
		else
			return 0;	/* the size it had when looked at */
	}
	while ((n = read(in, buf, sizeof(buf))) > 0) {
		for (w = 0; w < n; ) {
			ssize_t k = write(out, buf + w, (size_t)(n - w));

			if (k < 0)
				return -errno;
			w += k;
		}
		c->st->bytes += (uint64_t)n;
		if (++reads % (COPY_CHUNK / sizeof(buf)) == 0)
			tell(c);
	}
	return n < 0 ? -errno : 0;
}

/*
 * The mode an entry is made with, and must it be set again after (the
 * umask took bits, or it has bits a creation does not set)?  A file has
 * its own mode from the start (the session's directories let nobody else
 * in); a directory is its owner's to fill until it is done.
 */
static mode_t
made_mode(const struct copy *c, mode_t want, bool dir, bool *again)
{
	mode_t made = (want & 0777) | (dir ? 0700 : 0);

	*again = (made & ~c->umask) != want;
	return made;
}

static int
copy_file(struct copy *c, int sdir, const char *name, int ddir,
    const char *dname, const struct stat *st)
{
	autoclose int in = -1, out = -1;
	struct timespec t[2] = { st->st_atim, st->st_mtim };
	const mode_t mode = st->st_mode & 01777;
	bool cloned, again;
	int r;

	if ((in = openat(sdir, name, O_RDONLY | O_NOFOLLOW | O_NOCTTY |
	    O_NONBLOCK | O_CLOEXEC)) < 0) {
		if (errno == EACCES || errno == EPERM) {
			c->st->skipped++;
			return 0;
		}
		return -errno;
	}
	if ((out = openat(ddir, dname, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW |
	    O_CLOEXEC, made_mode(c, mode, false, &again))) < 0)
		return -errno;
	if ((r = copy_bytes(c, in, out, st->st_size, &cloned)) < 0)
		return r;
	c->st->files++;
	c->st->cloned += cloned;
	if (own(c, out, st) < 0 || (again && fchmod(out, mode) < 0) ||
	    futimens(out, t) < 0)
		return -errno;
	if ((r = note(c, out, NULL)) < 0)
		return r;
	tell(c);
	/* Every 256 files: has the user asked to stop (a held signal)? */
	if ((c->st->files & 255) == 0 && copy_stop_pending())
		return -EINTR;
	return 0;
}

static int	copy_dir(struct copy *, int, int, int);

static int
copy_entry(struct copy *c, int sdir, const char *name, int ddir,
    const char *dname, int depth)
{
	struct stat st;
	int r;

	if (fstatat(sdir, name, &st, AT_SYMLINK_NOFOLLOW) < 0)
		return -errno;
	if (S_ISREG(st.st_mode))
		return copy_file(c, sdir, name, ddir, dname, &st);
	if (S_ISLNK(st.st_mode)) {
		char target[PATH_MAX];
		struct timespec t[2] = { st.st_atim, st.st_mtim };
		ssize_t n = readlinkat(sdir, name, target, sizeof(target) - 1);

		if (n < 0)
			return -errno;
		target[n] = '\0';
		if (symlinkat(target, ddir, dname) < 0)
			return -errno;
		/* A link's owner grants nothing: kept when it can be. */
		if (c->is_root && fchownat(ddir, dname, st.st_uid,
		    st.st_gid, AT_SYMLINK_NOFOLLOW) < 0)
			log_debug("copy: cannot keep the owner of link '%s': %s",
			    dname, strerror(errno));
		utimensat(ddir, dname, t, AT_SYMLINK_NOFOLLOW);
		return note(c, ddir, dname);
	}
	if (S_ISDIR(st.st_mode)) {
		autoclose int s = -1, d = -1;
		struct timespec t[2] = { st.st_atim, st.st_mtim };
		const mode_t mode = st.st_mode & 01777;
		bool again;

		if ((s = openat(sdir, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
		    O_CLOEXEC)) < 0) {
			if (errno == EACCES) {
				c->st->skipped++;
				return 0;
			}
			return -errno;
		}
		if (mkdirat(ddir, dname, made_mode(c, mode, true,
		    &again)) < 0 ||
		    (d = openat(ddir, dname, O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
		    O_CLOEXEC)) < 0)
			return -errno;
		if (c->dirs) {
			struct stat dst;

			if (fstat(d, &dst) < 0)
				return -errno;
			fprintf(c->dirs, "%llu%c%s%c",
			    (unsigned long long)dst.st_ino, '\0', c->rel, '\0');
		}
		if ((r = copy_dir(c, s, d, depth + 1)) < 0)
			return r;
		if (own(c, d, &st) < 0 || (again && fchmod(d, mode) < 0) ||
		    futimens(d, t) < 0)
			return -errno;
		return note(c, d, NULL);
	}
	c->st->skipped++;	/* fifo, socket, device */
	return 0;
}

static int
copy_dir(struct copy *c, int sdir, int ddir, int depth)
{
	struct dir_reader d;
	const char *name;
	int r = 0;

	if (depth > MAX_DEPTH)
		return -ELOOP;
	dir_begin(&d, sdir);
	while (r == 0 && (name = dir_next(&d, NULL)) != NULL) {
		size_t len = strlen(c->rel);

		if ((size_t)snprintf(c->rel + len, sizeof(c->rel) - len,
		    "%s%s", len ? "/" : "", name) >= sizeof(c->rel) - len) {
			r = -ENAMETOOLONG;
			break;
		}
		if (!excepted(c))
			r = copy_entry(c, sdir, name, ddir, name, depth);
		/*
		 * Gone since the directory was read (git gc pruning loose
		 * objects, an editor's save by rename): the copy has what is
		 * there.  Opened before anything is made for it, it left
		 * nothing behind.
		 */
		if (r == -ENOENT && faccessat(sdir, name, F_OK,
		    AT_SYMLINK_NOFOLLOW) < 0 && errno == ENOENT) {
			log_debug("copy: '%s' went away while copied", c->rel);
			r = 0;
		}
		c->rel[len] = '\0';
	}
	if (r == 0 && d.err)
		r = -d.err;
	dir_done(&d);
	return r;
}

/*
 * The regular files copy_dir() will meet below sdir, counted from the
 * directories' entries alone (their d_type; a filesystem that gives none
 * is asked with fstatat(2)).  A directory that cannot be read counts
 * nothing: the copy says what it left out.
 */
static void
count_dir(struct copy *c, int sdir, int depth)
{
	struct dir_reader d;
	unsigned char type;
	const char *name;
	int fd;

	if (depth > MAX_DEPTH)
		return;
	dir_begin(&d, sdir);
	while ((name = dir_next(&d, &type)) != NULL) {
		size_t len = strlen(c->rel);
		struct stat st;

		if ((size_t)snprintf(c->rel + len, sizeof(c->rel) - len,
		    "%s%s", len ? "/" : "", name) >= sizeof(c->rel) - len) {
			c->rel[len] = '\0';
			continue;
		}
		if (excepted(c)) {
			c->rel[len] = '\0';
			continue;
		}
		if (type == DT_UNKNOWN &&
		    fstatat(sdir, name, &st, AT_SYMLINK_NOFOLLOW) == 0)
			type = IFTODT(st.st_mode);
		if (type == DT_REG)
			c->st->total++;
		else if (type == DT_DIR && (fd = openat(sdir, name,
		    O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)) >= 0) {
			count_dir(c, fd, depth + 1);
			close(fd);
		}
		c->rel[len] = '\0';
	}
	dir_done(&d);
}

/* What copy_entry() will copy of the entry name of sdir, counted. */
static void
count_entry(struct copy *c, int sdir, const char *name)
{
	autoclose int fd = -1;
	struct stat st;

	if (fstatat(sdir, name, &st, AT_SYMLINK_NOFOLLOW) < 0)
		return;
	if (S_ISREG(st.st_mode))
		c->st->total = 1;
	else if (S_ISDIR(st.st_mode) && (fd = openat(sdir, name, O_RDONLY |
	    O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)) >= 0)
		count_dir(c, fd, 0);
}

int
copy_tree(const char *src, const char *dst, char *const *except,
    FILE *dirs, struct copy_stats *st, const char **where)
{
	return copy_tree_shown(src, dst, except, dirs, NULL, NULL, NULL, st,
	    where);
}

int
copy_tree_shown(const char *src, const char *dst, char *const *except,
    FILE *dirs, struct copy_mark *mark, copy_shown_fn *shown, void *arg,
    struct copy_stats *st, const char **where)
{
	autofree char *sparent = xstrdup(src), *dparent = xstrdup(dst);
	char *sname = strrchr(sparent, '/'), *dname = strrchr(dparent, '/');
	autoclose int s = -1, d = -1;
	struct copy c = { .st = st, .except = except, .dirs = dirs,
	    .mark = mark, .shown = shown, .arg = arg, .root = -1,
	    .is_root = geteuid() == 0 };
	struct stat sst;

	memset(st, 0, sizeof(*st));
	*where = src;
	if (sname == NULL || dname == NULL)
		return -EINVAL;
	c.umask = umask(0);
	umask(c.umask);
	*sname++ = '\0';
	*dname++ = '\0';
	if ((s = open(sparent[0] ? sparent : "/", O_PATH | O_DIRECTORY |
	    O_CLOEXEC)) < 0)
		return -errno;
	*where = dst;
	if ((d = open(dparent, O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
	    O_CLOEXEC)) < 0)
		return -errno;
	*where = src;
	if (*sname == '\0') {
		/* "/" itself: never a workspace, policy refuses it. */
		return -EINVAL;
	}
	if (fstatat(s, sname, &sst, 0) < 0)
		return -errno;
	if (S_ISDIR(sst.st_mode) && fstatat(s, sname, &sst,
	    AT_SYMLINK_NOFOLLOW) == 0 && S_ISLNK(sst.st_mode)) {
		/* The workspace is a resolved path; a link here is a race. */
		return -ELOOP;
	}
	c.root = s;
	c.root_name = sname;
	tell(&c);
	return copy_entry(&c, s, sname, d, dname, 0);
}

long
copy_ctime_granularity(const struct timespec *a, const struct timespec *b)
{
	long g = 1;

	while (g < 1000000000L && a->tv_nsec % (g * 10) == 0 &&
	    b->tv_nsec % (g * 10) == 0)
		g *= 10;
	return g;
}

/*
 * The ctimes of the filesystem of dirfd, tried on a file of its own there
 * (removed after): what they keep (*ret_gran: whole nanoseconds, tens ...
 * seconds), and does a change right after a stat set a new one, within
 * one tick of the coarse clock (multigrain timestamps)?  Three tries of
 * two changes with a stat between: a try over two ticks says nothing,
 * one in a tick that keeps the ctime says no.  Cannot tell: seconds, no.
 */
static bool
probe(int dirfd, long *ret_gran)
{
	static const char name[] = "ctime.probe";
	struct timespec before, after;
	struct stat a, b;
	bool seen = false, kept = false;
	long gran = 1000000000L;
	int fd, i;

	*ret_gran = gran;
	unlinkat(dirfd, name, 0);
	if ((fd = openat(dirfd, name, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW |
	    O_CLOEXEC, 0600)) < 0)
		return false;
	for (i = 0; i < 3; i++) {
		clock_gettime(CLOCK_REALTIME_COARSE, &before);
		if (fchmod(fd, 0400) < 0 || fstat(fd, &a) < 0 ||
		    fchmod(fd, 0600) < 0 || fstat(fd, &b) < 0)
			break;
		clock_gettime(CLOCK_REALTIME_COARSE, &after);
		if (before.tv_sec == after.tv_sec &&
		    before.tv_nsec == after.tv_nsec) {
			seen = true;
			kept |= a.st_ctim.tv_sec == b.st_ctim.tv_sec &&
			    a.st_ctim.tv_nsec == b.st_ctim.tv_nsec;
		}
		/* The finest any of them shows. */
		if (copy_ctime_granularity(&a.st_ctim, &b.st_ctim) < gran)
			gran = copy_ctime_granularity(&a.st_ctim, &b.st_ctim);
	}
	close(fd);
	unlinkat(dirfd, name, 0);
	if (i < 3)
		return false;
	*ret_gran = gran;
	return seen && !kept;
}

bool
copy_mark_seal(struct copy_mark *m, int dirfd)
{
	long gran;
	bool multigrain = probe(dirfd, &gran);

	if (multigrain && gran == 1) {
		clock_gettime(CLOCK_REALTIME_COARSE, &m->since);
		prune(m, &m->since);
		copy_mark_sort(m);
		return false;
	}
	/*
	 * Elsewhere a change in this tick may keep the ctime: since is past
	 * every copied entry's, the fine clock now, rounded up to what the
	 * filesystem keeps of a ctime (whole seconds: to an even one, as
	 * FAT's are), and the command waits for the coarse clock to pass it.
	 */
	m->nrecent = 0;
	clock_gettime(CLOCK_REALTIME, &m->since);
	m->since.tv_nsec -= m->since.tv_nsec % gran;
	if (gran >= 1000000000L)
		m->since.tv_sec += 2 - m->since.tv_sec % 2;
	else if ((m->since.tv_nsec += gran) >= 1000000000L) {
		m->since.tv_sec++;
		m->since.tv_nsec -= 1000000000L;
	}
	return true;
}

/* Anything at or below dirfd changed since the copy?  Unreadable: yes. */
static bool
changed_below(int dirfd, const struct copy_mark *m, int depth)
{
	struct dir_reader d;
	const char *name;
	bool changed = false;

	if (depth > MAX_DEPTH)
		return true;
	dir_begin(&d, dirfd);
	while ((name = dir_next(&d, NULL)) != NULL) {
		struct stat st;
		int sub;

		if (fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW) < 0 ||
		    !copy_mark_unchanged(m, &st)) {
			changed = true;
			break;
		}
		if (!S_ISDIR(st.st_mode))
			continue;
		if ((sub = openat(dirfd, name, O_RDONLY | O_DIRECTORY |
		    O_NOFOLLOW | O_CLOEXEC)) < 0) {
			changed = true;
			break;
		}
		changed = changed_below(sub, m, depth + 1);
		close(sub);
		if (changed)
			break;
	}
	changed |= d.err != 0;
	dir_done(&d);
	return changed;
}

bool
copy_changed(const char *dir, const struct copy_mark *m)
{
	autoclose int fd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
	    O_CLOEXEC);
	struct stat st;

	if (fd < 0 || fstat(fd, &st) < 0)
		return true;
	return !copy_mark_unchanged(m, &st) || changed_below(fd, m, 0);
}
