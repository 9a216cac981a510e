// SPDX-License-Identifier: ISC
/*
 * export/changes.c - the changes in an overlayfs upper layer (overlayfs docs:
 * whiteouts are 0/0 character devices, an opaque directory carries the
 * user.overlay.opaque xattr when mounted with userxattr).
 *
 * Runs in: the export, outside the sandbox, after it is gone.  The upper
 * layer is untrusted input.
 * MUST: reach both layers only through fds and fd_open_at(FD_BENEATH), so
 * no agent-made link is ever followed.
 * MUST: read an agent-written file only with a bound (fd_read_all).
 * MUST: keep no state: what is read, and how, is the caller's changes_src.
 * MUST: never descend into or export a ".git" component.
 * MUST: cost what the change costs: walk the upper layer, and of the lower
 * layer only the paths the upper one names.
 */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/xattr.h>
#include <unistd.h>

#include "export/changes.h"
#include "lib/fdio.h"
#include "lib/util.h"
#include "store/copy-mark.h"

/*
 * How deep the walks go: a directory below is listed under "skipped" with
 * this reason, the rest is exported (git itself stops near 4096 bytes of
 * path, which 256 levels of real names reach long before).
 */
#define MAX_DEPTH	256
#define TOO_DEEP	"deeper than 256 directories: not exported"

struct walk {
	struct upper_changes		*out;
	char				**untrusted_paths;	/* candidates */
	size_t				 nuntrusted;
	int				 lower;
	const struct changes_copy	*copy;		/* NULL: an overlay */
};

static int
by_ino(const void *k, const void *e)
{
	ino_t a = *(const ino_t *)k, b = ((const struct upper_dir *)e)->ino;

	return a < b ? -1 : a > b;
}

/*
 * Was this directory of the copy made by the copy at another path: moved
 * by the command?  Its files keep their ctimes, so they must all be
 * looked at.
 */
static bool
moved(const struct changes_copy *cp, ino_t ino, const char *untrusted_path)
{
	const struct upper_dir *d = cp->ndirs ? bsearch(&ino, cp->dirs,
	    cp->ndirs, sizeof(*cp->dirs), by_ino) : NULL;

	return d && !streq(d->path, untrusted_path);
}

static bool
is_hidden(const struct changes_copy *cp, const char *untrusted_path)
{
	size_t i;

	for (i = 0; cp && cp->hidden && cp->hidden[i]; i++)
		if (path_has_prefix(untrusted_path, cp->hidden[i]))
			return true;
	return false;
}

/* Copy mode: did the command change it (not as the copy's mark says)? */
static bool
changed_since(const struct walk *w, const struct stat *st)
{
	return !copy_mark_unchanged(w->copy->mark, st);
}

/* Below root, following no link of the agent's (fdio.h). */
static int
open_beneath(int root, const char *untrusted_path, int flags)
{
	return fd_open_at(root, untrusted_path, flags, 0, FD_BENEATH);
}

static bool
is_whiteout(const struct stat *st)
{
	return S_ISCHR(st->st_mode) && st->st_rdev == makedev(0, 0);
}

static bool
is_opaque(int fd)
{
	char v[2];

	return fgetxattr(fd, "user.overlay.opaque", v, sizeof(v)) == 1 &&
	    v[0] == 'y';
}

/* A directory the command made unreadable is its own: opened to it. */
static void
open_up(int dirfd, const char *name, mode_t mode)
{
	if (fchmodat(dirfd, name, (mode & 07777) | S_IRWXU, 0) < 0) {
		/* The open after it fails and says why. */
	}
}

static void
skip(struct walk *w, const char *untrusted_path, const char *why)
{
	strv_push(&w->out->untrusted_skipped, &w->out->nskipped,
	    xasprintf("%s (%s)", untrusted_path, why));
}

static void
candidate(struct walk *w, const char *untrusted_path)
{
	/* Left out of the copy, so absent there: not a deletion. */
	if (is_hidden(w->copy, untrusted_path))
		return;
	strv_push(&w->untrusted_paths, &w->nuntrusted, xstrdup(untrusted_path));
}

/* Every file and link below lower's dir path: each may be gone now. */
static int
lower_subtree(struct walk *w, const char *untrusted_path, int depth)
{
	autoclose int fd = -1;
	DIR *d;
	struct dirent *e;
	int r = 0;

	if (depth > MAX_DEPTH) {
		skip(w, untrusted_path, TOO_DEEP);
		return 0;
	}
	if ((fd = open_beneath(w->lower, untrusted_path, O_RDONLY |
	    O_DIRECTORY | O_NOFOLLOW)) < 0)
		return fd == -ENOENT || fd == -ENOTDIR || fd == -ELOOP ? 0 : fd;
	if ((d = fdopendir(dup(fd))) == NULL)
		return -errno;
	while (r == 0 && (e = readdir(d)) != NULL) {
		autofree char *sub = NULL;

		if (streq(e->d_name, ".") || streq(e->d_name, "..") ||
		    strcasecmp(e->d_name, ".git") == 0)
			continue;
		sub = path_join_rel(untrusted_path, e->d_name);
		if (e->d_type == DT_DIR)
			r = lower_subtree(w, sub, depth + 1);
		else
			candidate(w, sub);
	}
	closedir(d);
	return r;
}

static enum upper_type
type_of(const struct stat *st)
{
	if (S_ISREG(st->st_mode))
		return UPPER_FILE;
	if (S_ISLNK(st->st_mode))
		return UPPER_LINK;
	if (S_ISDIR(st->st_mode))
		return UPPER_DIR;
	return UPPER_OTHER;
}

/* The type of path in lower, following no link; ABSENT when not there. */
static enum upper_type
lower_type(struct walk *w, const char *untrusted_path)
{
	autoclose int fd = open_beneath(w->lower, untrusted_path, O_PATH |
	    O_NOFOLLOW);
	struct stat st;

	if (fd < 0 || fstat(fd, &st) < 0)
		return UPPER_ABSENT;
	return type_of(&st);
}

static int
walk_upper(struct walk *w, int dirfd, const char *prefix, int depth,
    const char **where)
{
	DIR *d;
	struct dirent *e;
	int r = 0;

	if (depth > MAX_DEPTH) {
		skip(w, prefix, TOO_DEEP);
		return 0;
	}
	if ((d = fdopendir(dup(dirfd))) == NULL)
		return -errno;
	while (r == 0 && (e = readdir(d)) != NULL) {
		autofree char *untrusted_path = NULL;
		struct stat st;

		if (streq(e->d_name, ".") || streq(e->d_name, ".."))
			continue;
		untrusted_path = path_join_rel(prefix, e->d_name);
		/* Any case: git on a case-insensitive filesystem, and
		 * libgit2, treat ".GIT" as ".git". */
		if (strcasecmp(e->d_name, ".git") == 0) {
			skip(w, untrusted_path,
			    "git internals are never exported");
			continue;
		}
		if (fstatat(dirfd, e->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0) {
			*where = "upper layer";
			r = -errno;
			break;
		}
		if (is_whiteout(&st)) {
			/* Deleted: the file, or everything in the dir. */
			if (lower_type(w, untrusted_path) == UPPER_DIR)
				r = lower_subtree(w, untrusted_path, depth + 1);
			else
				candidate(w, untrusted_path);
		} else if (S_ISDIR(st.st_mode)) {
			autoclose int sub = -1;
			enum upper_type lt = lower_type(w, untrusted_path);

			/* A directory the command made 000: its own, opened. */
			if ((st.st_mode & S_IRWXU) != S_IRWXU &&
			    st.st_uid == geteuid())
				open_up(dirfd, e->d_name, st.st_mode);
			sub = openat(dirfd, e->d_name, O_RDONLY | O_DIRECTORY |
			    O_NOFOLLOW | O_CLOEXEC);

			if (sub < 0) {
				*where = "upper layer";
				r = -errno;
				break;
			}
			if (lt == UPPER_FILE || lt == UPPER_LINK)
				/* Replaced by a dir. */
				candidate(w, untrusted_path);
			else if (lt == UPPER_DIR && is_opaque(sub))
				r = lower_subtree(w, untrusted_path, depth + 1);
			if (r == 0)
				r = walk_upper(w, sub, untrusted_path,
				    depth + 1, where);
		} else if (S_ISREG(st.st_mode) || S_ISLNK(st.st_mode)) {
			/* A file or link where lower has a dir: its files go. */
			if (lower_type(w, untrusted_path) == UPPER_DIR)
				r = lower_subtree(w, untrusted_path, depth + 1);
			candidate(w, untrusted_path);
		} else {
			skip(w, untrusted_path, S_ISFIFO(st.st_mode) ?
			    "a fifo" : S_ISSOCK(st.st_mode) ? "a socket" :
			    "a device node");
		}
	}
	closedir(d);
	return r;
}

/* Is name an entry of dirfd?  Without following it. */
static bool
has_entry(int dirfd, const char *name)
{
	struct stat st;

	return fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW) == 0;
}

/*
 * A whole copy: a path is a candidate when it changed since the copy was
 * made (its ctime, which no program can set back), or when its directory
 * did (entries made, removed or renamed there); and lower's entries that
 * such a directory no longer has are gone.
 */
static int
walk_copy(struct walk *w, int dirfd, const char *prefix, int depth,
    bool force, const char **where)
{
	struct stat dst;
	bool dir_changed;
	DIR *d;
	struct dirent *e;
	int r = 0;

	if (depth > MAX_DEPTH) {
		skip(w, prefix, TOO_DEEP);
		return 0;
	}
	if (fstat(dirfd, &dst) < 0)
		return -errno;
	/* Forced: below a moved directory, every entry is a candidate. */
	dir_changed = force || changed_since(w, &dst);
	if ((d = fdopendir(dup(dirfd))) == NULL)
		return -errno;
	while (r == 0 && (e = readdir(d)) != NULL) {
		autofree char *untrusted_path = NULL;
		struct stat st;
		enum upper_type lt;

		if (streq(e->d_name, ".") || streq(e->d_name, ".."))
			continue;
		untrusted_path = path_join_rel(prefix, e->d_name);
		if (fstatat(dirfd, e->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0) {
			*where = "the workspace's copy";
			r = -errno;
			break;
		}
		/* As an overlay's upper layer would hold it: when written. */
		if (strcasecmp(e->d_name, ".git") == 0) {
			if (changed_since(w, &st) || (dir_changed &&
			    lower_type(w, untrusted_path) != type_of(&st)))
				skip(w, untrusted_path,
				    "git internals are never exported");
			continue;
		}
		if (S_ISDIR(st.st_mode)) {
			autoclose int sub = -1;

			if ((st.st_mode & S_IRWXU) != S_IRWXU &&
			    st.st_uid == geteuid())
				open_up(dirfd, e->d_name, st.st_mode);
			if ((sub = openat(dirfd, e->d_name, O_RDONLY |
			    O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)) < 0) {
				*where = "the workspace's copy";
				r = -errno;
				break;
			}
			if (dir_changed) {
				lt = lower_type(w, untrusted_path);
				if (lt == UPPER_FILE || lt == UPPER_LINK)
					candidate(w, untrusted_path);
			}
			r = walk_copy(w, sub, untrusted_path, depth + 1,
			    force || moved(w->copy, st.st_ino, untrusted_path),
			    where);
		} else if (S_ISREG(st.st_mode) || S_ISLNK(st.st_mode)) {
			if (!dir_changed && !changed_since(w, &st))
				continue;
			if (lower_type(w, untrusted_path) == UPPER_DIR)
				r = lower_subtree(w, untrusted_path, depth + 1);
			candidate(w, untrusted_path);
		} else if (changed_since(w, &st)) {
			skip(w, untrusted_path, S_ISFIFO(st.st_mode) ?
			    "a fifo" : S_ISSOCK(st.st_mode) ? "a socket" :
			    "a device node");
		}
	}
	closedir(d);
	if (r < 0 || !dir_changed)
		return r;
	/* What lower has here and the copy no longer does: removed. */
	{
		autoclose int lfd = prefix[0] ? open_beneath(w->lower, prefix,
		    O_RDONLY | O_DIRECTORY | O_NOFOLLOW) : openat(w->lower, ".",
		    O_RDONLY | O_DIRECTORY | O_CLOEXEC);

		if (lfd < 0 || (d = fdopendir(dup(lfd))) == NULL)
			return 0;
		while (r == 0 && (e = readdir(d)) != NULL) {
			autofree char *untrusted_path = NULL;

			if (streq(e->d_name, ".") || streq(e->d_name, "..") ||
			    strcasecmp(e->d_name, ".git") == 0 ||
			    has_entry(dirfd, e->d_name))
				continue;
			untrusted_path = path_join_rel(prefix, e->d_name);
			if (lower_type(w, untrusted_path) == UPPER_DIR)
				r = lower_subtree(w, untrusted_path, depth + 1);
			else
				candidate(w, untrusted_path);
		}
		closedir(d);
	}
	return r;
}

/*
 * The state of path in the merged view: upper over lower, with whiteouts
 * and opaque directories, one component at a time.
 */
static void
merged_state(const struct changes_src *src, const char *untrusted_path,
    struct upper_state *st)
{
	autofree char *copy = xstrdup(untrusted_path);
	int ufd = dup(src->upper), lfd = src->copy ? -1 : dup(src->lower), next;
	char *comp, *save = NULL, *following;
	struct stat s;

	memset(st, 0, sizeof(*st));
	for (comp = strtok_r(copy, "/", &save); comp; comp = following) {
		bool last;

		following = strtok_r(NULL, "/", &save);
		last = following == NULL;
		if (ufd >= 0) {
			if (fstatat(ufd, comp, &s, AT_SYMLINK_NOFOLLOW) < 0) {
				close(ufd);
				ufd = -1;
			} else if (is_whiteout(&s)) {
				goto absent;
			} else if (last) {
				st->type = type_of(&s);
				st->mode = s.st_mode;
				st->ctime = s.st_ctim;
				st->in_upper = true;
				goto done;
			} else if (!S_ISDIR(s.st_mode)) {
				goto absent;
			} else {
				next = openat(ufd, comp, O_PATH | O_DIRECTORY |
				    O_NOFOLLOW | O_CLOEXEC);
				close(ufd);
				ufd = next;
				if (ufd >= 0 && lfd >= 0) {
					autoclose int rd = openat(ufd, ".",
					    O_RDONLY | O_DIRECTORY | O_CLOEXEC);

					if (rd >= 0 && is_opaque(rd)) {
						close(lfd);
						lfd = -1;
					}
				}
			}
		}
		if (lfd >= 0) {
			if (fstatat(lfd, comp, &s, AT_SYMLINK_NOFOLLOW) < 0) {
				close(lfd);
				lfd = -1;
			} else if (last) {
				st->type = type_of(&s);
				st->mode = s.st_mode;
				st->ctime = s.st_ctim;
				goto done;
			} else if (!S_ISDIR(s.st_mode)) {
				close(lfd);
				lfd = -1;
			} else {
				next = openat(lfd, comp, O_PATH | O_DIRECTORY |
				    O_NOFOLLOW | O_CLOEXEC);
				close(lfd);
				lfd = next;
			}
		}
		if (ufd < 0 && lfd < 0)
			goto absent;
	}
absent:
	st->type = UPPER_ABSENT;
done:
	if (ufd >= 0)
		close(ufd);
	if (lfd >= 0)
		close(lfd);
}

static void
lower_state(int lower, const char *untrusted_path, struct upper_state *st)
{
	autoclose int fd = open_beneath(lower, untrusted_path, O_PATH |
	    O_NOFOLLOW);
	struct stat s;

	memset(st, 0, sizeof(*st));
	if (fd < 0 || fstat(fd, &s) < 0)
		return;
	st->type = type_of(&s);
	st->mode = s.st_mode;
	st->ctime = s.st_ctim;
}

void
upper_lower_state(int lower_fd, const char *untrusted_path,
    struct upper_state *st)
{
	lower_state(lower_fd, untrusted_path, st);
	if (st->type == UPPER_DIR || st->type == UPPER_OTHER)
		st->type = UPPER_ABSENT;
}

/* Both fds to their end, in step: the same bytes?  Memory: two buffers. */
static bool
same_bytes(int fa, int fb)
{
	char untrusted_a[65536], untrusted_b[sizeof(untrusted_a)];
	ssize_t na, nb;
	size_t got;

	for (;;) {
		if ((na = read(fa, untrusted_a, sizeof(untrusted_a))) < 0)
			return false;
		for (got = 0; got < (size_t)na; got += (size_t)nb)
			if ((nb = read(fb, untrusted_b + got,
			    (size_t)na - got)) <= 0)	/* Bounded: na */
				return false;
		if (na == 0)	/* b must end where a does */
			return read(fb, untrusted_b, 1) == 0;	/* Bounded: 1 */
		if (memcmp(untrusted_a, untrusted_b, (size_t)na) != 0)
			return false;
	}
}

/* Copy mode: same type, mode and bytes (or link target) on both sides? */
static bool
same(const struct changes_src *src, const char *untrusted_path,
    const struct upper_change *c)
{
	autofree char *a = NULL, *b = NULL;
	autoclose int fa = -1, fb = -1;
	size_t na = 0, nb = 0;

	if (c->old.type != c->new.type || (c->old.type != UPPER_FILE &&
	    c->old.type != UPPER_LINK) || (c->old.type == UPPER_FILE &&
	    (c->old.mode & 0111) != (c->new.mode & 0111)))
		return false;
	if (c->old.type == UPPER_LINK) {
		if (upper_read(src, untrusted_path, &c->old, PATH_MAX, &a,
		    &na) < 0 || upper_read(src, untrusted_path, &c->new,
		    PATH_MAX, &b, &nb) < 0)
			return false;
		return na == nb && memcmp(a, b, na) == 0;
	}
	/* Over the export's bound: a change, and the export says why. */
	if ((fa = upper_open(src, untrusted_path, &c->old, UPPER_MAX_FILE,
	    &na)) < 0 || (fb = upper_open(src, untrusted_path, &c->new,
	    UPPER_MAX_FILE, &nb)) < 0 || na != nb)
		return false;
	return same_bytes(fa, fb);
}

static int
cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

int
upper_changes(const struct changes_src *src, struct upper_changes *ret,
    const char **where)
{
	struct upper_changes out = { 0 };
	struct walk w = { .out = &out, .lower = src->lower, .copy = src->copy };
	size_t i;
	int r;

	*where = "upper layer";
	if ((r = src->copy ? walk_copy(&w, src->upper, "", 0, false, where) :
	    walk_upper(&w, src->upper, "", 0, where)) < 0) {
		strv_free(w.untrusted_paths);
		upper_changes_free(&out);
		return r;
	}
	if (w.nuntrusted)
		qsort(w.untrusted_paths, w.nuntrusted,
		    sizeof(*w.untrusted_paths), cmp);
	for (i = 0; i < w.nuntrusted; i++) {
		struct upper_change c = { 0 };

		if (i > 0 && streq(w.untrusted_paths[i],
		    w.untrusted_paths[i - 1]))
			continue;
		lower_state(src->lower, w.untrusted_paths[i], &c.old);
		merged_state(src, w.untrusted_paths[i], &c.new);
		/* Git tracks files and links; a directory is no change. */
		c.was_dir = c.old.type == UPPER_DIR;
		c.now_dir = c.new.type == UPPER_DIR;
		if (c.old.type == UPPER_DIR || c.old.type == UPPER_OTHER)
			c.old.type = UPPER_ABSENT;
		if (c.new.type == UPPER_DIR || c.new.type == UPPER_OTHER)
			c.new.type = UPPER_ABSENT;
		if (c.old.type == UPPER_ABSENT && c.new.type == UPPER_ABSENT)
			continue;
		/* A copy's candidate may be as it was: not a change. */
		if (src->copy && same(src, w.untrusted_paths[i], &c))
			continue;
		c.untrusted_path = xstrdup(w.untrusted_paths[i]);
		out.v = xreallocarray(out.v, out.n + 1, sizeof(*out.v));
		out.v[out.n++] = c;
	}
	strv_free(w.untrusted_paths);
	*ret = out;
	return 0;
}

bool
upper_copy_unchanged(const struct changes_src *src, const struct stat *st)
{
	return src->copy && copy_mark_unchanged(src->copy->mark, st);
}

void
upper_changes_free(struct upper_changes *c)
{
	size_t i;

	for (i = 0; i < c->n; i++)
		free(c->v[i].untrusted_path);
	free(c->v);
	strv_free(c->untrusted_skipped);
	memset(c, 0, sizeof(*c));
}

/*
 * The command may leave its files mode 000: in the session's own upper
 * layer (never on the host), give the owner read (and for a directory,
 * search) permission back.
 */
static int
readable(int root, const char *untrusted_path)
{
	autofree char *parent = xstrdup(untrusted_path);
	char *slash = strrchr(parent, '/');
	const char *name = slash ? slash + 1 : untrusted_path;
	autoclose int pfd = -1;
	struct stat st;

	if (slash)
		*slash = '\0';
	if ((pfd = slash ? open_beneath(root, parent, O_PATH | O_DIRECTORY |
	    O_NOFOLLOW) : dup(root)) < 0)
		return pfd;
	if (fstatat(pfd, name, &st, AT_SYMLINK_NOFOLLOW) < 0)
		return -errno;
	if (S_ISLNK(st.st_mode) || st.st_uid != geteuid())
		return -EPERM;
	if (fchmodat(pfd, name, st.st_mode | S_IRUSR |
	    (S_ISDIR(st.st_mode) ? S_IXUSR : 0), 0) < 0)
		return -errno;
	return 0;
}

int
upper_open(const struct changes_src *src, const char *untrusted_path,
    const struct upper_state *st, size_t max, size_t *ret_size)
{
	int root = st->in_upper ? src->upper : src->lower;
	struct stat sb;
	int fd, r;

	if ((fd = open_beneath(root, untrusted_path, O_RDONLY | O_NOFOLLOW |
	    O_NOCTTY | O_NONBLOCK)) == -EACCES && st->in_upper &&
	    readable(root, untrusted_path) == 0)
		fd = open_beneath(root, untrusted_path, O_RDONLY | O_NOFOLLOW |
		    O_NOCTTY | O_NONBLOCK);
	if (fd < 0)
		return fd;
	/* Agent data: its size first, then never more than max read. */
	if (fstat(fd, &sb) < 0)
		r = -errno;
	else if (!S_ISREG(sb.st_mode))
		r = -EINVAL;
	else if ((uint64_t)sb.st_size > max)
		r = -EFBIG;
	else {
		*ret_size = (size_t)sb.st_size;
		return fd;
	}
	close(fd);
	return r;
}

int
upper_read(const struct changes_src *src, const char *untrusted_path,
    const struct upper_state *st, size_t max, char **ret, size_t *ret_len)
{
	int root = st->in_upper ? src->upper : src->lower;
	autoclose int fd = -1;
	size_t size;
	ssize_t n;

	if (st->type == UPPER_LINK) {
		char untrusted_target[PATH_MAX + 1];

		if ((fd = open_beneath(root, untrusted_path, O_PATH |
		    O_NOFOLLOW)) < 0)
			return fd;
		if ((n = readlinkat(fd, "", untrusted_target,
		    sizeof(untrusted_target) - 1)) < 0)
			return -errno;
		*ret = xstrndup(untrusted_target, (size_t)n);
		*ret_len = (size_t)n;
		return 0;
	}
	if ((fd = upper_open(src, untrusted_path, st, max, &size)) < 0)
		return fd;
	/* -EFBIG too when it grew past max while read. */
	if ((n = fd_read_all(fd, max, ret)) < 0)
		return (int)n;
	*ret_len = (size_t)n;
	return 0;
}

int
upper_read_merged(const struct changes_src *src, const char *untrusted_path,
    char **ret, size_t *ret_len)
{
	struct upper_state st;

	merged_state(src, untrusted_path, &st);
	if (st.type == UPPER_ABSENT)
		return -ENOENT;
	if (st.type != UPPER_FILE)
		return -EINVAL;
	return upper_read(src, untrusted_path, &st, UPPER_MAX_FILE, ret,
	    ret_len);
}

/* The type of dir/name on one side: the host's, or the merged view. */
static enum upper_type
side_type(const struct changes_src *src, const char *dir, const char *name,
    bool merged)
{
	autofree char *p = *dir ? xasprintf("%s/%s", dir, name) :
	    xstrdup(name);
	struct upper_state st;

	if (merged)
		merged_state(src, p, &st);
	else
		lower_state(src->lower, p, &st);
	return st.type;
}

/*
 * git's own test, and wider: a HEAD (file or link), and objects/ and refs/
 * (directories, or links git would follow), or a commondir file naming
 * them elsewhere (a linked worktree's git directory), or a config (a
 * repository one mkdir away from being one, whose config git would obey).
 */
static bool
layout(const struct changes_src *src, const char *dir, bool merged)
{
	enum upper_type t;

	t = side_type(src, dir, "HEAD", merged);
	if (t != UPPER_FILE && t != UPPER_LINK)
		return false;
	t = side_type(src, dir, "commondir", merged);
	if (t == UPPER_FILE || t == UPPER_LINK)
		return true;
	t = side_type(src, dir, "config", merged);
	if (t == UPPER_FILE || t == UPPER_LINK)
		return true;
	t = side_type(src, dir, "objects", merged);
	if (t != UPPER_DIR && t != UPPER_LINK)
		return false;
	t = side_type(src, dir, "refs", merged);
	return t == UPPER_DIR || t == UPPER_LINK;
}

bool
upper_git_layout(const struct changes_src *src, const char *dir)
{
	return layout(src, dir, false) || layout(src, dir, true);
}

bool
upper_ancestor_replaced(const struct changes_src *src,
    const char *untrusted_path)
{
	autofree char *p = xstrdup(untrusted_path);
	char *slash;

	while ((slash = strrchr(p, '/')) != NULL) {
		struct upper_state st;

		*slash = '\0';
		merged_state(src, p, &st);
		if (st.type == UPPER_FILE || st.type == UPPER_LINK)
			return true;
	}
	return false;
}
