// SPDX-License-Identifier: ISC
/*
 * export/apply.c - write a session's reviewed patch into the host workspace.
 *
 * The postimage is computed in memory by libgit2 (git_apply_to_tree on a
 * preimage built from the host's current files), checked whole, and only
 * then written, file by file, through fds beneath the workspace: raw
 * bytes, the patch's modes, links as links.  With --commits the series in
 * the session's commits/ is rebuilt from its per-commit patches on the
 * host's HEAD and proved to end, with rest.patch, on the same files as
 * changes.patch before anything is written.
 *
 * Runs in: confine-export, on the host, after the user said yes.
 * MUST: never run git, a hook, a filter or any configured program; never
 * use libgit2's checkout (it applies .gitattributes filters).
 * MUST: treat everything in the session directory as agent data: patches,
 * commit messages and names are read with a bound and never interpreted
 * beyond libgit2's patch parser.
 * MUST: all or nothing: every check before the first write; the writes
 * journaled so that a killed apply is rolled back by the next one.
 */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <git2.h>
#include <git2/sys/mempack.h>
#include <git2/sys/odb_backend.h>
#include <git2/sys/repository.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "export/apply.h"
#include "export/commits.h"
#include "input/host-probe.h"
#include "lib/fdio.h"
#include "lib/log.h"
#include "lib/sys.h"
#include "lib/term-escape.h"
#include "lib/util.h"
#include "store/session-meta.h"

/* Agent data: the largest patch or commit message read. */
#define MAX_PATCH	(1024UL * 1024 * 1024)
#define MAX_META	(64UL * 1024 + 1024)
/* A host file the patch changes, and its copy in the journal, read into
 * memory: a larger one is refused, as a larger patch is. */
#define HOST_FILE_MAX	MAX_PATCH
#define MAX_COMMITS	9999

enum { T_ABSENT, T_FILE, T_LINK, T_DIR, T_OTHER };

struct ent {
	int		type;
	uint32_t	mode;	/* git's: 100644, 100755, 120000 */
	git_oid		id;
};

/* One path the apply may change: the host's state and the result. */
struct item {
	char		*path;
	struct ent	 old, new;
	char		*data;	/* the host's bytes (file) or target (link) */
	size_t		 len;
	bool		 in_patch;	/* changes.patch names it */
	bool		 in_commits;	/* a commit of the series does */
};

struct ctx {
	const struct apply_opts *o;
	int		 wfd;		/* the workspace, O_PATH */
	git_repository	*mem;		/* objects in memory, host's as alternate */
	git_repository	*host;		/* the workspace's repository, or NULL */
	struct item	*v;
	size_t		 n;
	char		*state;		/* STATE_HOME/confine */
	char		*hash;		/* sha256 of the workspace's path */
	char		*journal;	/* STATE/journal/HASH */
	bool		 held;		/* rolled back for a later workspace
					   of the session (apply_rollback()) */
	const char	*ws;
	int		 lock;		/* the workspace's, held */
};

static const char *
git_err(void)
{
	const git_error *e = git_error_last();

	return e && e->message ? e->message : "unknown libgit2 error";
}

static char *
safe(const char *s)
{
	return term_sanitize(s, strlen(s), 0);
}

/* ------------------------------------------------------------ reading */

/*
 * A whole file of the session (agent data), at most max bytes: NULL when
 * it is absent or no regular file; more than max is refused.
 */
static char *
read_bounded(const char *path, size_t max, size_t *ret_len)
{
	autoclose int fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	struct stat st;
	char *buf;
	ssize_t n;

	if (fd < 0 || fstat(fd, &st) < 0 || !S_ISREG(st.st_mode))
		return NULL;
	if ((n = fd_read_all(fd, max, &buf)) == -EFBIG)
		die("'%s' is larger than %zu bytes; nothing was changed", path,
		    max);
	if (n < 0)
		die_errno((int)-n, "cannot read '%s'", path);
	*ret_len = (size_t)n;
	return buf;
}

/*
 * libgit2 1.5 parses a subset of the patches it prints: it reads a path
 * from "diff --git a/X b/X" only when X has no space (else from the
 * "---"/"+++" lines, which a binary, mode-only or empty file's patch
 * lacks), an unquoted name with a space in "rename from/to" not at all,
 * and the mode lines only before "similarity index".  So, and only in
 * these lines: a header whose two names are the same (git's own rule:
 * the line splits in the middle) and such a rename line get their names
 * quoted, and "old mode"/"new mode" move up to the "diff --git" line.
 * Nothing else of the text changes.
 */
struct nbuf {
	char	*p;
	size_t	 len, cap;
};

static void
nput(struct nbuf *b, const char *s, size_t n)
{
	if (b->len + n + 1 > b->cap) {
		b->cap = (b->len + n + 1) * 2;
		b->p = xreallocarray(b->p, 1, b->cap);
	}
	memcpy(b->p + b->len, s, n);
	b->len += n;
}

static bool
plain_name(const char *s, size_t n)
{
	return n > 0 && s[0] != '"' && memchr(s, '"', n) == NULL &&
	    memchr(s, '\\', n) == NULL && memchr(s, ' ', n) != NULL;
}

/* One line of a header, rewritten as described above, into b. */
static void
put_line(struct nbuf *b, const char *p, size_t n)
{
	static const char hdr[] = "diff --git ";
	static const char *const names[] = { "rename from ", "rename to ",
	    "copy from ", "copy to " };
	const size_t hl = sizeof(hdr) - 1;
	size_t i, k;

	if (n > hl + 5 && memcmp(p, hdr, hl) == 0 && (n - hl - 5) % 2 == 0) {
		const char *r = p + hl;

		k = (n - hl - 5) / 2;
		if (memcmp(r, "a/", 2) == 0 && memcmp(r + 2 + k, " b/", 3) == 0 &&
		    memcmp(r + 2, r + 5 + k, k) == 0 && plain_name(r + 2, k)) {
			nput(b, hdr, hl);
			nput(b, "\"a/", 3);
			nput(b, r + 2, k);
			nput(b, "\" \"b/", 5);
			nput(b, r + 2, k);
			nput(b, "\"", 1);
			return;
		}
	}
	for (i = 0; i < nitems(names); i++) {
		size_t l = strlen(names[i]);

		if (n > l && memcmp(p, names[i], l) == 0 &&
		    plain_name(p + l, n - l)) {
			nput(b, p, l);
			nput(b, "\"", 1);
			nput(b, p + l, n - l);
			nput(b, "\"", 1);
			return;
		}
	}
	nput(b, p, n);
}

static bool
starts(const char *p, size_t n, const char *w)
{
	size_t l = strlen(w);

	return n >= l && memcmp(p, w, l) == 0;
}

struct hline {
	const char	*p;
	size_t		 n;
};

/* A name of a rename line as a quoted "PREFIX NAME"; false: cannot be. */
static bool
put_quoted(struct nbuf *b, const char *prefix, const char *v, size_t n)
{
	if (n >= 2 && v[0] == '"' && v[n - 1] == '"') {
		nput(b, "\"", 1);
		nput(b, prefix, strlen(prefix));
		nput(b, v + 1, n - 1);
		return true;
	}
	if (n == 0 || memchr(v, '"', n) || memchr(v, '\\', n))
		return false;
	nput(b, "\"", 1);
	nput(b, prefix, strlen(prefix));
	nput(b, v, n);
	nput(b, "\"", 1);
	return true;
}

static bool
value(const struct hline *h, const char *a, const char *b, const char **v,
    size_t *n)
{
	const char *w = starts(h->p, h->n, a) ? a : starts(h->p, h->n, b) ? b :
	    NULL;

	if (w == NULL)
		return false;
	*v = h->p + strlen(w);
	*n = h->n - strlen(w);
	return true;
}

/* A header: the diff line (names from the rename lines), modes, the rest. */
static void
flush_header(struct nbuf *out, const struct hline *h, size_t nh)
{
	const char *from = NULL, *to = NULL, *v;
	size_t fn = 0, tn = 0, n, i, mark;
	bool done = false;

	for (i = 1; i < nh; i++) {
		if (value(&h[i], "rename from ", "copy from ", &v, &n))
			from = v, fn = n;
		if (value(&h[i], "rename to ", "copy to ", &v, &n))
			to = v, tn = n;
	}
	if (from && to) {
		mark = out->len;
		nput(out, "diff --git ", 11);
		done = put_quoted(out, "a/", from, fn);
		nput(out, " ", 1);
		done = done && put_quoted(out, "b/", to, tn);
		if (!done)
			out->len = mark;
	}
	if (!done)
		put_line(out, h[0].p, h[0].n);
	nput(out, "\n", 1);
	for (i = 1; i < nh; i++)
		if (starts(h[i].p, h[i].n, "old mode ") ||
		    starts(h[i].p, h[i].n, "new mode ")) {
			nput(out, h[i].p, h[i].n);
			nput(out, "\n", 1);
		}
	for (i = 1; i < nh; i++)
		if (!starts(h[i].p, h[i].n, "old mode ") &&
		    !starts(h[i].p, h[i].n, "new mode ")) {
			put_line(out, h[i].p, h[i].n);
			nput(out, "\n", 1);
		}
}

static bool
header_line(const char *p, size_t n)
{
	static const char *const w[] = { "old mode ", "new mode ",
	    "deleted file mode ", "new file mode ", "similarity index ",
	    "dissimilarity index ", "rename from ", "rename to ",
	    "copy from ", "copy to ", "index " };
	size_t i;

	for (i = 0; i < nitems(w); i++)
		if (starts(p, n, w[i]))
			return true;
	return false;
}

/* "--- a/X" or "+++ b/X" right after a header, X with a space: quoted. */
static void
put_file_line(struct nbuf *b, const char *p, size_t n)
{
	if (n > 6 && (p[4] == 'a' || p[4] == 'b') && p[5] == '/' &&
	    plain_name(p + 6, n - 6)) {
		char pre[3] = { p[4], '/', '\0' };

		nput(b, p, 4);
		put_quoted(b, pre, p + 6, n - 6);
		return;
	}
	nput(b, p, n);
}

static char *
normalize_headers(const char *buf, size_t len, size_t *ret_len)
{
	struct nbuf out = { 0 };
	const char *p = buf, *end = buf + len;
	struct hline h[32];
	size_t nh = 0;
	int files = 0;	/* the "---" and "+++" lines after a header */

	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t n = (size_t)((nl ? nl : end) - p);

		if (nh > 0 && header_line(p, n) && nh < nitems(h)) {
			h[nh].p = p;
			h[nh++].n = n;
			p = nl ? nl + 1 : end;
			continue;
		}
		if (nh > 0) {
			flush_header(&out, h, nh);
			nh = 0;
			files = 2;
		}
		if (starts(p, n, "diff --git ")) {
			h[0].p = p;
			h[0].n = n;
			nh = 1;
			p = nl ? nl + 1 : end;
			if (nl == NULL)
				break;
			continue;
		}
		if (files == 2 && starts(p, n, "--- "))
			files = 1, put_file_line(&out, p, n);
		else if (files == 1 && starts(p, n, "+++ "))
			files = 0, put_file_line(&out, p, n);
		else {
			files = 0;
			nput(&out, p, n);
		}
		if (nl)
			nput(&out, "\n", 1);
		p = nl ? nl + 1 : end;
	}
	if (nh > 0)
		flush_header(&out, h, nh);
	nput(&out, "", 0);
	*ret_len = out.len;
	return out.p ? out.p : xstrdup("");
}

static git_diff *
parse_patch(const char *sdir, const char *name)
{
	autofree char *path = path_join(sdir, name), *raw = NULL, *buf = NULL;
	git_diff *diff = NULL;
	size_t len = 0;

	if ((raw = read_bounded(path, MAX_PATCH, &len)) == NULL)
		die_errno(errno, "cannot read the session's '%s'", name);
	buf = normalize_headers(raw, len, &len);
	if (git_diff_from_buffer(&diff, buf, len) < 0) {
		autofree char *why = safe(git_err());

		die("the session's %s does not parse: %s; nothing was changed",
		    name, why);
	}
	return diff;
}

/* The parent directory of path beneath the workspace; *base: its name. */
static int
open_parent(int wfd, const char *path, const char **base)
{
	const char *slash = strrchr(path, '/');
	autofree char *dir = NULL;
	int fd;

	*base = slash ? slash + 1 : path;
	if (slash == NULL)
		return fcntl(wfd, F_DUPFD_CLOEXEC, 0);
	dir = xstrndup(path, (size_t)(slash - path));
	/* -1 and errno, as open(2): the callers report errno. */
	if ((fd = fd_open_at(wfd, dir, O_PATH | O_DIRECTORY, 0,
	    FD_BENEATH)) < 0) {
		errno = -fd;
		return -1;
	}
	return fd;
}

/* The host's path: its type, mode and (file, link) bytes and blob id. */
static int
host_read(struct ctx *c, const char *path, struct ent *e, char **data,
    size_t *len)
{
	const char *base;
	autoclose int pfd = open_parent(c->wfd, path, &base);
	struct stat st;

	memset(e, 0, sizeof(*e));
	*data = NULL;
	*len = 0;
	if (pfd < 0) {
		/* A parent that is no directory (a file, a link): absent. */
		if (errno == ENOENT || errno == ENOTDIR || errno == ELOOP)
			return 0;
		return -errno;
	}
	if (fstatat(pfd, base, &st, AT_SYMLINK_NOFOLLOW) < 0)
		return errno == ENOENT ? 0 : -errno;
	if (S_ISDIR(st.st_mode)) {
		e->type = T_DIR;
		return 0;
	}
	if (S_ISLNK(st.st_mode)) {
		char buf[PATH_MAX];
		ssize_t n = readlinkat(pfd, base, buf, sizeof(buf));

		if (n < 0)
			return -errno;
		e->type = T_LINK;
		e->mode = GIT_FILEMODE_LINK;
		*data = xstrndup(buf, (size_t)n);
		*len = (size_t)n;
	} else if (S_ISREG(st.st_mode)) {
		autoclose int fd = openat(pfd, base, O_RDONLY | O_NOFOLLOW |
		    O_CLOEXEC);
		ssize_t n;

		if (fd < 0)
			return -errno;
		if ((n = fd_read_all(fd, HOST_FILE_MAX, data)) < 0)
			return (int)n;
		*len = (size_t)n;
		e->type = T_FILE;
		e->mode = (st.st_mode & S_IXUSR) ? GIT_FILEMODE_BLOB_EXECUTABLE :
		    GIT_FILEMODE_BLOB;
	} else {
		e->type = T_OTHER;
		return 0;
	}
	if (git_blob_create_from_buffer(&e->id, c->mem, *data, *len) < 0)
		return -EIO;
	return 0;
}

/* ------------------------------------------------------------ items */

static int
by_path(const void *a, const void *b)
{
	return strcmp(((const struct item *)a)->path,
	    ((const struct item *)b)->path);
}

static struct item *
find(struct ctx *c, const char *path)
{
	struct item key = { .path = (char *)path };

	return c->n ? bsearch(&key, c->v, c->n, sizeof(*c->v), by_path) : NULL;
}

/*
 * A path of the patch (agent data): relative, no empty, "." or ".."
 * component, nothing of git's own (".git" in any case).  The export never
 * writes one; a session directory that holds one is refused.
 */
static bool
path_ok(const char *path)
{
	const char *p = path, *end;

	if (path[0] == '\0' || path[0] == '/')
		return false;
	for (; *p; p = *end ? end + 1 : end) {
		size_t n;

		end = strchrnul(p, '/');
		n = (size_t)(end - p);
		if (n == 0 || (n == 1 && p[0] == '.') ||
		    (n == 2 && p[0] == '.' && p[1] == '.') ||
		    (n == 4 && strncasecmp(p, ".git", 4) == 0))
			return false;
	}
	return true;
}

static void
add_path(struct ctx *c, const char *path, bool in_patch, bool in_commits)
{
	size_t i;

	if (!path_ok(path)) {
		autofree char *p = safe(path);

		die("the session's patches name '%s', a path confine never "
		    "writes; nothing was changed", p);
	}

	for (i = 0; i < c->n; i++)
		if (streq(c->v[i].path, path)) {
			c->v[i].in_patch |= in_patch;
			c->v[i].in_commits |= in_commits;
			return;
		}
	c->v = xreallocarray(c->v, c->n + 1, sizeof(*c->v));
	memset(&c->v[c->n], 0, sizeof(*c->v));
	c->v[c->n].path = xstrdup(path);
	c->v[c->n].in_commits = in_commits;
	c->v[c->n++].in_patch = in_patch;
}

static void
add_diff_paths(struct ctx *c, git_diff *diff, bool in_patch, bool in_commits)
{
	size_t i, n = git_diff_num_deltas(diff);

	for (i = 0; i < n; i++) {
		const git_diff_delta *d = git_diff_get_delta(diff, i);

		if (d->status != GIT_DELTA_ADDED)
			add_path(c, d->old_file.path, in_patch, in_commits);
		if (d->status != GIT_DELTA_DELETED)
			add_path(c, d->new_file.path, in_patch, in_commits);
	}
}

/* ------------------------------------------------------------ checks */

static bool
same(const struct ent *a, const struct ent *b)
{
	if (a->type == T_ABSENT || b->type == T_ABSENT)
		return a->type == b->type;
	return a->mode == b->mode && git_oid_equal(&a->id, &b->id);
}

/* Does the patch's old side (id, mode, as the patch gives them) match? */
static bool
old_side_ok(const git_diff_file *f, const struct ent *e)
{
	char want[GIT_OID_HEXSZ + 1], have[GIT_OID_HEXSZ + 1];

	if (e->type != T_FILE && e->type != T_LINK)
		return false;
	if (f->mode && f->mode != e->mode)
		return false;
	if (f->id_abbrev == 0 || git_oid_is_zero(&f->id))
		return true;	/* a pure rename or mode change: no index line */
	git_oid_tostr(want, sizeof(want), &f->id);
	git_oid_tostr(have, sizeof(have), &e->id);
	return strncmp(want, have, f->id_abbrev) == 0;
}

noreturn static void
refuse(const char *path, const char *why)
{
	autofree char *p = safe(path);

	die("'%s' %s; nothing was changed", p, why);
}

/* Is path deleted (a file or link the patch removes, not re-added)? */
static bool
deleted(struct ctx *c, const char *path)
{
	struct item *it = find(c, path);

	return it && it->in_patch && it->old.type != T_ABSENT &&
	    it->new.type == T_ABSENT;
}

/* A directory the result replaces: everything in it must go. */
static void
dir_all_deleted(struct ctx *c, const char *path, int depth)
{
	const char *base;
	autoclose int pfd = open_parent(c->wfd, path, &base);
	autoclose int fd = -1;
	DIR *d;
	struct dirent *e;

	if (pfd < 0 || depth > 256 || (fd = openat(pfd, base, O_RDONLY |
	    O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)) < 0 ||
	    (d = fdopendir(dup(fd))) == NULL)
		refuse(path, "cannot be read on the host");
	while ((e = readdir(d)) != NULL) {
		autofree char *sub = NULL;

		if (streq(e->d_name, ".") || streq(e->d_name, ".."))
			continue;
		sub = path_join_rel(path, e->d_name);
		if (e->d_type == DT_DIR)
			dir_all_deleted(c, sub, depth + 1);
		else if (!deleted(c, sub)) {
			closedir(d);
			refuse(sub, "is in the way of the change and not in the "
			    "reviewed patch (made on the host since the "
			    "session?)");
		}
	}
	closedir(d);
}

/* Every directory above a path the result creates: a directory, or gone. */
static void
parents_ok(struct ctx *c, const char *path)
{
	autofree char *p = xstrdup(path);
	char *s = p;

	while ((s = strchr(s, '/')) != NULL) {
		struct ent e;
		autofree char *data = NULL;
		size_t len;

		*s = '\0';
		if (host_read(c, p, &e, &data, &len) < 0)
			refuse(p, "cannot be read on the host");
		if (e.type == T_ABSENT)
			return;
		if (e.type != T_DIR && !deleted(c, p))
			refuse(p, "is in the way of the change on the host (not a "
			    "directory)");
		if (e.type != T_DIR)
			return;
		*s++ = '/';
	}
}

/* The host's state of every item; the patch's old sides checked. */
static void
check_old(struct ctx *c, git_diff *diff)
{
	size_t i, n = git_diff_num_deltas(diff);

	for (i = 0; i < c->n; i++) {
		int r = host_read(c, c->v[i].path, &c->v[i].old, &c->v[i].data,
		    &c->v[i].len);

		if (r < 0)
			refuse(c->v[i].path, "cannot be read on the host");
		if (c->v[i].old.type == T_OTHER)
			refuse(c->v[i].path, "is not a file, link or directory "
			    "on the host");
	}
	for (i = 0; i < n; i++) {
		const git_diff_delta *d = git_diff_get_delta(diff, i);

		if (d->status == GIT_DELTA_ADDED)
			continue;
		if (!old_side_ok(&d->old_file, &find(c, d->old_file.path)->old))
			refuse(d->old_file.path, "changed on the host since the "
			    "session");
	}
}

/* A sparse tree of the host's files at the items, in memory. */
static git_tree *
host_tree(struct ctx *c)
{
	git_index *idx = NULL;
	git_tree *t = NULL;
	git_oid oid;
	size_t i;

	if (git_index_new(&idx) < 0)
		die("apply: %s", git_err());
	for (i = 0; i < c->n; i++) {
		git_index_entry e;

		if (c->v[i].old.type != T_FILE && c->v[i].old.type != T_LINK)
			continue;
		memset(&e, 0, sizeof(e));
		e.path = c->v[i].path;
		e.mode = c->v[i].old.mode;
		e.id = c->v[i].old.id;
		if (git_index_add(idx, &e) < 0)
			refuse(c->v[i].path, "is a name git refuses");
	}
	if (git_index_write_tree_to(&oid, idx, c->mem) < 0 ||
	    git_tree_lookup(&t, c->mem, &oid) < 0)
		die("apply: %s", git_err());
	git_index_free(idx);
	return t;
}

static void
entry_of(git_index *idx, const char *path, struct ent *e)
{
	const git_index_entry *ie = git_index_get_bypath(idx, path, 0);

	memset(e, 0, sizeof(*e));
	if (ie == NULL)
		return;
	e->type = ie->mode == GIT_FILEMODE_LINK ? T_LINK : T_FILE;
	e->mode = ie->mode;
	e->id = ie->id;
}

static void
tree_entry_of(git_tree *t, const char *path, struct ent *e)
{
	git_tree_entry *te = NULL;

	memset(e, 0, sizeof(*e));
	if (git_tree_entry_bypath(&te, t, path) < 0)
		return;
	if (git_tree_entry_type(te) == GIT_OBJECT_BLOB) {
		e->mode = git_tree_entry_filemode(te);
		e->type = e->mode == GIT_FILEMODE_LINK ? T_LINK : T_FILE;
		e->id = *git_tree_entry_id(te);
	} else
		e->type = T_DIR;
	git_tree_entry_free(te);
}

/* The result of changes.patch on the host's files: each item's new. */
static void
postimage(struct ctx *c, git_diff *diff)
{
	git_tree *pre = host_tree(c);
	git_index *post = NULL;
	size_t i;

	if (git_apply_to_tree(&post, c->mem, pre, diff, NULL) < 0) {
		autofree char *why = safe(git_err());

		die("the patch does not apply to '%s' (%s): the workspace "
		    "changed since the session; nothing was changed",
		    c->o->workspace, why);
	}
	for (i = 0; i < c->n; i++)
		if (c->v[i].in_patch)
			entry_of(post, c->v[i].path, &c->v[i].new);
		else
			c->v[i].new = c->v[i].old;
	/* A pure rename says no mode: the file keeps its own. */
	for (i = 0; i < git_diff_num_deltas(diff); i++) {
		const git_diff_delta *d = git_diff_get_delta(diff, i);
		struct item *to = find(c, d->new_file.path);
		struct item *from = find(c, d->old_file.path);

		if (d->status == GIT_DELTA_DELETED || d->status ==
		    GIT_DELTA_ADDED || d->new_file.mode != 0 || to == NULL ||
		    from == NULL || to->new.type != from->old.type)
			continue;
		to->new.mode = from->old.mode;
	}
	git_index_free(post);
	git_tree_free(pre);
}

/* What the result creates must not meet anything the review did not show. */
static void
check_way(struct ctx *c)
{
	size_t i;

	for (i = 0; i < c->n; i++) {
		struct item *it = &c->v[i];

		if (it->new.type == T_ABSENT || same(&it->old, &it->new))
			continue;
		if (it->old.type == T_DIR)
			dir_all_deleted(c, it->path, 0);
		parents_ok(c, it->path);
	}
}

/* ------------------------------------------------------------ in progress */

static void
check_state(struct ctx *c)
{
	static const struct { int state; const char *what; } st[] = {
		{ GIT_REPOSITORY_STATE_MERGE, "merge" },
		{ GIT_REPOSITORY_STATE_REVERT, "revert" },
		{ GIT_REPOSITORY_STATE_REVERT_SEQUENCE, "revert" },
		{ GIT_REPOSITORY_STATE_CHERRYPICK, "cherry-pick" },
		{ GIT_REPOSITORY_STATE_CHERRYPICK_SEQUENCE, "cherry-pick" },
		{ GIT_REPOSITORY_STATE_BISECT, "bisect" },
		{ GIT_REPOSITORY_STATE_REBASE, "rebase" },
		{ GIT_REPOSITORY_STATE_REBASE_INTERACTIVE, "rebase" },
		{ GIT_REPOSITORY_STATE_REBASE_MERGE, "rebase" },
		{ GIT_REPOSITORY_STATE_APPLY_MAILBOX, "git am" },
		{ GIT_REPOSITORY_STATE_APPLY_MAILBOX_OR_REBASE, "rebase" },
	};
	static const struct { const char *file; const char *what; } files[] = {
		{ "rebase-merge", "rebase" }, { "rebase-apply", "rebase" },
		{ "MERGE_HEAD", "merge" }, { "CHERRY_PICK_HEAD", "cherry-pick" },
		{ "REVERT_HEAD", "revert" }, { "BISECT_LOG", "bisect" },
		{ "BISECT_START", "bisect" }, { "sequencer", "cherry-pick" },
	};
	const char *gd;
	const char *what = NULL;
	int s;
	size_t i;

	if (c->host == NULL)
		return;
	s = git_repository_state(c->host);
	for (i = 0; i < nitems(st); i++)
		if (st[i].state == s)
			what = st[i].what;
	gd = git_repository_path(c->host);
	for (i = 0; what == NULL && i < nitems(files); i++) {
		autofree char *p = path_join(gd, files[i].file);

		if (access(p, F_OK) == 0)
			what = files[i].what;
	}
	if (what)
		die_hint(EXIT_CONFINE, 0, "finish or abort it first",
		    "a %s%s is in progress in %s; nothing was changed",
		    strncmp(what, "git ", 4) == 0 ? "" : "git ", what,
		    c->o->workspace);
}

/* ------------------------------------------------------------ commits */

struct series {
	git_oid		 head;		/* the last commit */
	git_tree	*tree;		/* its tree */
	size_t		 n;
};

static char *
commit_file(const char *sdir, size_t i, const char *ext)
{
	return xasprintf("%s/commits/%04zu.%s", sdir, i, ext);
}

static size_t
count_commits(const char *sdir)
{
	size_t n = 0;

	for (;;) {
		autofree char *p = commit_file(sdir, n + 1, "patch");

		if (access(p, F_OK) < 0 || n >= MAX_COMMITS)
			return n;
		n++;
	}
}

/* NNNN.meta: "author NAME <EMAIL> SECONDS +HHMM\n\nMESSAGE" (agent data). */
static void
read_meta(const char *sdir, size_t i, git_signature **author, char **msg)
{
	autofree char *p = commit_file(sdir, i, "meta"), *buf = NULL;
	autofree char *line = NULL;
	char *nl;
	size_t len = 0;

	if ((buf = read_bounded(p, MAX_META, &len)) == NULL)
		die_errno(errno, "cannot read the session's commits/%04zu.meta",
		    i);
	if (strncmp(buf, "author ", 7) != 0 ||
	    (nl = strchr(buf, '\n')) == NULL || nl[1] != '\n')
		die("the session's commits/%04zu.meta is not a commit's "
		    "author and message; nothing was changed", i);
	if (memchr(buf, '\0', len) != NULL)
		die("the session's commits/%04zu.meta holds a NUL byte; "
		    "nothing was changed", i);
	line = xstrndup(buf + 7, (size_t)(nl - buf - 7));
	if (git_signature_from_buffer(author, line) < 0)
		die("the session's commits/%04zu.meta: bad author line; "
		    "nothing was changed", i);
	*msg = xstrdup(nl + 2);
}

/*
 * The series on base, in repo (memory first, for the proof; then the
 * host's object database): each patch applied to the tree so far.
 */
static void
build_series(struct ctx *c, git_repository *repo, const git_oid *base,
    const git_signature *committer, struct series *s)
{
	git_commit *parent = NULL;
	git_tree *tree = NULL;
	size_t i;

	if (git_commit_lookup(&parent, repo, base) < 0 ||
	    git_commit_tree(&tree, parent) < 0)
		die("apply: the base commit: %s", git_err());
	for (i = 1; i <= s->n; i++) {
		autofree char *name = xasprintf("commits/%04zu.patch", i);
		autofree char *msg = NULL;
		git_diff *diff = parse_patch(c->o->session_dir, name);
		git_signature *author = NULL;
		git_index *idx = NULL;
		git_tree *next = NULL;
		git_commit *commit = NULL;
		git_oid toid, cid;

		read_meta(c->o->session_dir, i, &author, &msg);
		if (git_apply_to_tree(&idx, repo, tree, diff, NULL) < 0)
			die("the session's commit %zu does not apply to the "
			    "one before it; nothing was changed", i);
		if (git_index_write_tree_to(&toid, idx, repo) < 0 ||
		    git_tree_lookup(&next, repo, &toid) < 0 ||
		    git_commit_create(&cid, repo, NULL, author,
		    committer ? committer : author, NULL, msg, next, 1,
		    (const git_commit **)&parent) < 0 ||
		    git_commit_lookup(&commit, repo, &cid) < 0)
			die("apply: commit %zu: %s", i, git_err());
		git_tree_free(tree);
		git_commit_free(parent);
		tree = next;
		parent = commit;
		git_index_free(idx);
		git_signature_free(author);
		git_diff_free(diff);
	}
	s->head = *git_commit_id(parent);
	s->tree = tree;
	git_commit_free(parent);
}

/* Every path any commit touches, into the items. */
static void
add_commit_paths(struct ctx *c, size_t n)
{
	size_t i;

	for (i = 1; i <= n; i++) {
		autofree char *name = xasprintf("commits/%04zu.patch", i);
		git_diff *diff = parse_patch(c->o->session_dir, name);

		add_diff_paths(c, diff, false, true);
		git_diff_free(diff);
	}
}

/* ------------------------------------------------------------ journal */

static void
put(int dfd, const char *name, const void *buf, size_t len)
{
	autoclose int fd = openat(dfd, name, O_WRONLY | O_CREAT | O_TRUNC |
	    O_NOFOLLOW | O_CLOEXEC, 0600);

	if (fd < 0 || write(fd, buf, len) != (ssize_t)len)
		die_errno(errno, "cannot write the apply journal");
}

static void
rm_tree_at(int dfd, const char *name)
{
	autoclose int fd = openat(dfd, name, O_RDONLY | O_DIRECTORY |
	    O_NOFOLLOW | O_CLOEXEC);
	DIR *d;
	struct dirent *e;

	if (fd >= 0 && (d = fdopendir(dup(fd))) != NULL) {
		while ((e = readdir(d)) != NULL)
			if (!streq(e->d_name, ".") && !streq(e->d_name, ".."))
				if (unlinkat(fd, e->d_name, 0) < 0)
					rm_tree_at(fd, e->d_name);
		closedir(d);
	}
	unlinkat(dfd, name, AT_REMOVEDIR);
}

static void
rm_tree(const char *path)
{
	rm_tree_at(AT_FDCWD, path);
}

/*
 * The journal: "entries" holds "KIND\0MODE\0PATH\0" per item (KIND: absent,
 * file, link), N.data the old bytes; "ref" the ref, old and new ids;
 * "index" the host's index file.  Written as HASH.tmp and renamed: the
 * rename is the point from which the next apply rolls back.
 */
static void
journal_write(struct ctx *c, const char *ref, const git_oid *old,
    const git_oid *new)
{
	autofree char *tmp = xasprintf("%s.tmp", c->journal);
	autoclose int dfd = -1;
	FILE *f;
	size_t i;
	int fd;

	rm_tree(tmp);
	if (sys_mkdirs(tmp) < 0 ||
	    (dfd = open(tmp, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0)
		die_errno(errno, "cannot make the apply journal '%s'", tmp);
	put(dfd, "workspace", c->o->workspace, strlen(c->o->workspace));
	put(dfd, "session", c->o->session_dir, strlen(c->o->session_dir));
	if ((fd = openat(dfd, "entries", O_WRONLY | O_CREAT | O_TRUNC |
	    O_CLOEXEC, 0600)) < 0 || (f = fdopen(fd, "w")) == NULL)
		die_errno(errno, "cannot write the apply journal");
	for (i = 0; i < c->n; i++) {
		struct item *it = &c->v[i];
		autofree char *name = xasprintf("%zu.data", i);

		if (same(&it->old, &it->new))
			continue;
		fprintf(f, "%zu%c%s%c%o%c%s%c", i, 0, it->old.type == T_ABSENT ?
		    "absent" : it->old.type == T_LINK ? "link" : "file", 0,
		    it->old.mode, 0, it->path, 0);
		if (it->old.type != T_ABSENT)
			put(dfd, name, it->data, it->len);
	}
	if (fclose(f) != 0)
		die_errno(errno, "cannot write the apply journal");
	if (ref) {
		char o[GIT_OID_HEXSZ + 1], n[GIT_OID_HEXSZ + 1];
		autofree char *line = NULL;
		autofree char *idx = path_join(git_repository_path(c->host),
		    "index");
		autofree char *copy = NULL;
		size_t len = 0;

		git_oid_tostr(o, sizeof(o), old);
		git_oid_tostr(n, sizeof(n), new);
		line = xasprintf("%s%c%s%c%s%c", ref, 0, o, 0, n, 0);
		put(dfd, "ref", line, strlen(ref) + 2 * GIT_OID_HEXSZ + 3);
		if ((copy = read_bounded(idx, SIZE_MAX / 2, &len)) != NULL)
			put(dfd, "index", copy, len);
	}
	if (rename(tmp, c->journal) < 0)
		die_errno(errno, "cannot arm the apply journal");
}

static int	recover_locked(struct ctx *);

/* ------------------------------------------------------------ writing */

static int
mkparents(int wfd, const char *path)
{
	autofree char *p = xstrdup(path);
	char *s = p;

	while ((s = strchr(s, '/')) != NULL) {
		const char *base;
		autoclose int pfd = -1;

		*s = '\0';
		if ((pfd = open_parent(wfd, p, &base)) < 0)
			return -errno;
		if (mkdirat(pfd, base, 0777) < 0 && errno != EEXIST)
			return -errno;
		*s++ = '/';
	}
	return 0;
}

/* Remove the now empty directories above path (git apply does too). */
static void
rmdir_up(int wfd, const char *path)
{
	autofree char *p = xstrdup(path);
	char *s;

	while ((s = strrchr(p, '/')) != NULL) {
		const char *base;
		autoclose int pfd = -1;

		*s = '\0';
		if ((pfd = open_parent(wfd, p, &base)) < 0 ||
		    unlinkat(pfd, base, AT_REMOVEDIR) < 0)
			return;
	}
}

/* Remove a directory that holds only directories (checked before). */
static void
rmdirs(int wfd, const char *path)
{
	const char *base;
	autoclose int pfd = open_parent(wfd, path, &base);
	autoclose int fd = -1;
	DIR *d;
	struct dirent *e;

	if (pfd < 0)
		return;
	if ((fd = openat(pfd, base, O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
	    O_CLOEXEC)) >= 0 && (d = fdopendir(dup(fd))) != NULL) {
		while ((e = readdir(d)) != NULL) {
			autofree char *sub = NULL;

			if (streq(e->d_name, ".") || streq(e->d_name, ".."))
				continue;
			sub = path_join_rel(path, e->d_name);
			rmdirs(wfd, sub);
		}
		closedir(d);
	}
	unlinkat(pfd, base, AT_REMOVEDIR);
}

/* The temporary name of item i in its directory. */
static char *
tmp_name(size_t i)
{
	return xasprintf(".confine-apply-%zu.tmp", i);
}

/* Write bytes as path (a file of mode, or a link): temporary, renamed. */
static int
put_path(int wfd, const char *path, size_t i, uint32_t mode,
    const void *buf, size_t len)
{
	const char *base;
	autofree char *tmp = tmp_name(i);
	autofree char *target = NULL;
	autoclose int pfd = -1;
	struct stat st;
	int r;

	if ((r = mkparents(wfd, path)) < 0)
		return r;
	if ((pfd = open_parent(wfd, path, &base)) < 0)
		return -errno;
	unlinkat(pfd, tmp, 0);
	if (mode == GIT_FILEMODE_LINK) {
		target = xstrndup(buf, len);
		if (symlinkat(target, pfd, tmp) < 0)
			return -errno;
	} else {
		autoclose int fd = openat(pfd, tmp, O_WRONLY | O_CREAT |
		    O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
		mode_t m = mode == GIT_FILEMODE_BLOB_EXECUTABLE ? 0777 : 0666;
		mode_t mask = umask(0);
		size_t done = 0;
		ssize_t n;

		umask(mask);
		if (fd < 0)
			return -errno;
		while (done < len && (n = write(fd, (const char *)buf + done,
		    len - done)) > 0)
			done += (size_t)n;
		if (done < len || fchmod(fd, m & ~mask) < 0)
			return -errno;
	}
	/* A directory of only directories in the way (checked): it goes. */
	if (fstatat(pfd, base, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
	    S_ISDIR(st.st_mode))
		rmdirs(wfd, path);
	if (renameat(pfd, tmp, pfd, base) < 0)
		return -errno;
	return 0;
}

static int
remove_path(int wfd, const char *path)
{
	const char *base;
	autoclose int pfd = open_parent(wfd, path, &base);

	if (pfd < 0 || (unlinkat(pfd, base, 0) < 0 && errno != ENOENT)) {
		if (errno == ENOENT || errno == ENOTDIR)
			return 0;
		return -errno;
	}
	rmdir_up(wfd, path);
	return 0;
}

static void
write_files(struct ctx *c)
{
	size_t i;
	int r = 0;

	/* Deletions first: a directory may become a file. */
	for (i = 0; i < c->n && r == 0; i++)
		if (c->v[i].new.type == T_ABSENT &&
		    (c->v[i].old.type == T_FILE || c->v[i].old.type == T_LINK))
			r = remove_path(c->wfd, c->v[i].path);
	for (i = 0; i < c->n && r == 0; i++) {
		struct item *it = &c->v[i];
		git_blob *b = NULL;

		if (it->new.type == T_ABSENT || same(&it->old, &it->new))
			continue;
		if (git_blob_lookup(&b, c->mem, &it->new.id) < 0) {
			r = -EIO;
			break;
		}
		r = put_path(c->wfd, it->path, i, it->new.mode,
		    git_blob_rawcontent(b), (size_t)git_blob_rawsize(b));
		git_blob_free(b);
	}
	if (r < 0) {
		autofree char *p = safe(c->v[i ? i - 1 : 0].path);

		log_warn("cannot write '%s' in %s: %s; rolling back", p,
		    c->o->workspace, strerror(-r));
		recover_locked(c);
		exit(EXIT_CONFINE);
	}
}

/*
 * enter: the result beneath dir, a new session's layer (whiteouts: a
 * deleted path is a 0/0 character device, which overlayfs hides the host's
 * file by, and which needs no privilege since Linux 5.8) or its copy of
 * the workspace (a deleted path is removed).
 */
/*
 * An overlay layer's directory is what the merged tree shows: one made
 * for a path's parents takes the host directory's mode, when there is one.
 */
static void
parent_modes(struct ctx *c, int dfd, const char *path)
{
	const int flags = O_PATH | O_DIRECTORY | O_NOFOLLOW;
	autofree char *p = xstrdup(path);
	char *s = p;
	struct stat st;

	while ((s = strchr(s, '/')) != NULL) {
		autoclose int hfd = -1, fd = -1;

		*s = '\0';
		hfd = fd_open_at(c->wfd, p, flags, 0, FD_BENEATH);
		fd = fd_open_at(dfd, p, flags, 0, FD_BENEATH);
		/* The host's own mode, as git would leave it; else as made. */
		if (hfd >= 0 && fd >= 0 && fstat(hfd, &st) == 0 &&
		    fchmodat(dfd, p, st.st_mode & 07777, 0) < 0)
			log_debug("apply: cannot give '%s' the host's mode: %s",
			    p, strerror(errno));
		*s++ = '/';
	}
}

static bool
is_whiteout(int dfd, const char *name)
{
	struct stat st;

	return fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
	    S_ISCHR(st.st_mode) && st.st_rdev == makedev(0, 0);
}

/* Are all of dir's entries, on the host and in the layer, whiteouts? */
static bool
emptied(struct ctx *c, int dfd, const char *dir)
{
	const int flags = O_RDONLY | O_DIRECTORY | O_NOFOLLOW;
	autoclose int hfd = fd_open_at(c->wfd, dir, flags, 0, FD_BENEATH);
	autoclose int ufd = fd_open_at(dfd, dir, flags, 0, FD_BENEATH);
	int fds[2] = { hfd, ufd };
	bool ok = hfd >= 0 && ufd >= 0;
	struct dirent *e;
	DIR *d;
	int k;

	for (k = 0; k < 2 && ok; k++) {
		if ((d = fdopendir(dup(fds[k]))) == NULL)
			return false;
		while (ok && (e = readdir(d)) != NULL)
			if (!streq(e->d_name, ".") && !streq(e->d_name, ".."))
				ok = is_whiteout(ufd, e->d_name);
		closedir(d);
	}
	return ok;
}

/*
 * An overlay layer, as apply's rmdir_up(): a host directory whose files
 * the patch all deletes goes too (a whiteout for it).
 */
static int
whiteout_up(struct ctx *c, int dfd, const char *path)
{
	autofree char *p = xstrdup(path);
	char *s;

	while ((s = strrchr(p, '/')) != NULL) {
		const char *base;
		autoclose int pfd = -1;

		*s = '\0';
		if (!emptied(c, dfd, p))
			return 0;
		if ((pfd = open_parent(dfd, p, &base)) < 0)
			return -errno;
		rm_tree_at(pfd, base);
		if (mknodat(pfd, base, S_IFCHR, makedev(0, 0)) < 0)
			return -errno;
	}
	return 0;
}

static int
write_one(struct ctx *c, int dfd, size_t i, bool whiteouts)
{
	struct item *it = &c->v[i];
	git_blob *b = NULL;
	const char *base;
	autoclose int pfd = -1;
	int r;

	if (it->new.type == T_ABSENT && !whiteouts)
		return remove_path(dfd, it->path);
	if (it->new.type == T_ABSENT) {
		if ((r = mkparents(dfd, it->path)) < 0)
			return r;
		if ((pfd = open_parent(dfd, it->path, &base)) < 0 ||
		    mknodat(pfd, base, S_IFCHR, makedev(0, 0)) < 0)
			return -errno;
		return 0;
	}
	if (git_blob_lookup(&b, c->mem, &it->new.id) < 0)
		return -EIO;
	r = put_path(dfd, it->path, i, it->new.mode, git_blob_rawcontent(b),
	    (size_t)git_blob_rawsize(b));
	git_blob_free(b);
	return r;
}

static void
write_into(struct ctx *c, const char *dir, bool whiteouts)
{
	autoclose int dfd = open(dir, O_PATH | O_DIRECTORY | O_NOFOLLOW |
	    O_CLOEXEC);
	size_t i;
	int r;

	if (dfd < 0)
		die_errno(errno, "enter: cannot open '%s'", dir);
	for (i = 0; i < c->n; i++) {
		struct item *it = &c->v[i];

		if (same(&it->old, &it->new) || (it->new.type == T_ABSENT &&
		    it->old.type != T_FILE && it->old.type != T_LINK))
			continue;
		if ((r = write_one(c, dfd, i, whiteouts)) < 0) {
			autofree char *p = safe(it->path);

			die_errno(-r, "enter: cannot write '%s' into %s", p,
			    dir);
		}
	}
	/* Last: a host directory's mode may forbid the writes above. */
	for (i = 0; whiteouts && i < c->n; i++) {
		struct item *it = &c->v[i];

		if (same(&it->old, &it->new))
			continue;
		if (it->new.type == T_ABSENT &&
		    (r = whiteout_up(c, dfd, it->path)) < 0) {
			autofree char *p = safe(it->path);

			die_errno(-r, "enter: cannot write '%s' into %s", p,
			    dir);
		}
		parent_modes(c, dfd, it->path);
	}
}

/* ------------------------------------------------------------ the host */

/* The host's index, read before the first write (libgit2 may not read it). */
static git_index *
host_index(struct ctx *c)
{
	git_index *idx = NULL;

	if (git_repository_index(&idx, c->host) < 0 ||
	    git_index_read(idx, 1) < 0)
		die("cannot read the index of %s: %s; nothing was changed",
		    c->o->workspace, git_err());
	return idx;
}

/* The committed paths' entries: the committed blob, the written file's stat. */
static int
update_index(struct ctx *c, git_index *idx, git_tree *final)
{
	size_t i;
	for (i = 0; i < c->n; i++) {
		struct item *it = &c->v[i];
		struct ent e;
		git_index_entry ie;
		struct stat st;
		const char *base;
		autoclose int pfd = -1;

		if (!it->in_commits)
			continue;
		tree_entry_of(final, it->path, &e);
		if (e.type != T_FILE && e.type != T_LINK) {
			git_index_remove_bypath(idx, it->path);
			continue;
		}
		memset(&ie, 0, sizeof(ie));
		ie.path = it->path;
		ie.mode = e.mode;
		ie.id = e.id;
		/* Stat data only where the file is what was committed. */
		if (same(&e, &it->new) &&
		    (pfd = open_parent(c->wfd, it->path, &base)) >= 0 &&
		    fstatat(pfd, base, &st, AT_SYMLINK_NOFOLLOW) == 0) {
			ie.ctime.seconds = (int32_t)st.st_ctim.tv_sec;
			ie.ctime.nanoseconds = (uint32_t)st.st_ctim.tv_nsec;
			ie.mtime.seconds = (int32_t)st.st_mtim.tv_sec;
			ie.mtime.nanoseconds = (uint32_t)st.st_mtim.tv_nsec;
			ie.dev = (uint32_t)st.st_dev;
			ie.ino = (uint32_t)st.st_ino;
			ie.uid = st.st_uid;
			ie.gid = st.st_gid;
			ie.file_size = (uint32_t)st.st_size;
		}
		if (git_index_add(idx, &ie) < 0)
			return -1;
	}
	return git_index_write(idx);
}

/* The ref HEAD moves (a branch, or HEAD itself when detached). */
static char *
head_ref(struct ctx *c)
{
	git_reference *h = NULL;
	char *name;

	if (git_reference_lookup(&h, c->host, "HEAD") < 0)
		die("cannot read HEAD of %s: %s", c->o->workspace, git_err());
	name = xstrdup(git_reference_type(h) == GIT_REFERENCE_SYMBOLIC ?
	    git_reference_symbolic_target(h) : "HEAD");
	git_reference_free(h);
	return name;
}

static int
move_ref(git_repository *repo, const char *ref, const git_oid *to,
    const git_oid *from, const char *msg)
{
	git_reference *r = NULL;
	int e = git_reference_create_matching(&r, repo, ref, to, 1, from, msg);

	git_reference_free(r);
	return e;
}

/* ------------------------------------------------------------ set-up */

static int
lock_ws(struct ctx *c)
{
	autofree char *dir = path_join(c->state, "locks");
	autofree char *path = xasprintf("%s/%s.lock", dir, c->hash);
	int fd;

	if (sys_mkdirs(dir) < 0 ||
	    (fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0600)) < 0)
		die_errno(errno, "cannot make the lock '%s'", path);
	if (flock(fd, LOCK_EX | LOCK_NB) < 0) {
		close(fd);
		return -1;
	}
	return fd;	/* held until exit */
}

static void
ctx_init(struct ctx *c, const char *ws)
{
	struct host h;
	autofree char *cause = NULL;
	extern char **environ;

	memset(c, 0, sizeof(*c));
	if (probe_host(environ, NULL, &h, &cause) < 0)
		die("%s", cause);
	c->state = path_join(h.state_home, "confine");
	host_free(&h);
	c->hash = session_ws_name(ws);
	c->ws = ws;
	c->journal = xasprintf("%s/journal/%s", c->state, c->hash);
	c->wfd = open(ws, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (c->wfd < 0)
		die_errno(errno, "cannot open the workspace '%s'", ws);
}

static void
mem_repo(struct ctx *c)
{
	git_odb *odb = NULL;
	git_odb_backend *mem = NULL;

	if (git_repository_new(&c->mem) < 0 || git_odb_new(&odb) < 0 ||
	    git_mempack_new(&mem) < 0 || git_odb_add_backend(odb, mem, 1000) < 0)
		die("apply: %s", git_err());
	if (c->host) {
		autofree char *objs = path_join(git_repository_path(c->host),
		    "objects");

		commits_add_host_objects(odb, objs);
	}
	git_repository_set_odb(c->mem, odb);
	git_odb_free(odb);
}

/* ------------------------------------------------------------ recovery */

static int
restore_entry(int wfd, int jfd, const char *idx, const char *kind,
    unsigned mode, const char *path, bool absent_pass)
{
	autofree char *name = xasprintf("%s.data", idx);
	autofree char *data = NULL;
	autofree char *tmp = tmp_name(strtoul(idx, NULL, 10));
	const char *base;
	int pfd;
	size_t len = 0;
	struct stat st;

	/* A temporary file the killed apply left. */
	if ((pfd = open_parent(wfd, path, &base)) >= 0) {
		unlinkat(pfd, tmp, 0);
		close(pfd);
	}
	if (absent_pass) {
		if (streq(kind, "absent"))
			return remove_path(wfd, path);
		return 0;
	}
	if (streq(kind, "absent"))
		return 0;
	{
		autoclose int fd = openat(jfd, name, O_RDONLY | O_CLOEXEC);
		ssize_t n;

		if (fd < 0 || (n = fd_read_all(fd, HOST_FILE_MAX, &data)) < 0)
			return -EIO;
		len = (size_t)n;
	}
	/* A file the apply made of this directory's path: empty again. */
	if ((pfd = open_parent(wfd, path, &base)) >= 0) {
		if (fstatat(pfd, base, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
		    S_ISDIR(st.st_mode))
			unlinkat(pfd, base, AT_REMOVEDIR);
		close(pfd);
	}
	return put_path(wfd, path, strtoul(idx, NULL, 10), streq(kind, "link") ?
	    GIT_FILEMODE_LINK : mode, data, len);
}

static int
rollback(struct ctx *c, const char *ws)
{
	autofree char *entries = path_join(c->journal, "entries");
	autofree char *buf = NULL;
	autoclose int jfd = open(c->journal, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	size_t len = 0;
	int pass, r = 0;

	if (jfd < 0 || (buf = read_bounded(entries, SIZE_MAX / 2, &len)) ==
	    NULL)
		return -1;
	for (pass = 0; pass < 2; pass++) {
		char *p = buf, *end = buf + len;

		while (p < end) {
			char *idx = p, *kind, *mode, *path;

			kind = idx + strlen(idx) + 1;
			mode = kind + strlen(kind) + 1;
			path = mode + strlen(mode) + 1;
			if (path >= end)
				break;
			p = path + strlen(path) + 1;
			if (restore_entry(c->wfd, jfd, idx, kind,
			    (unsigned)strtoul(mode, NULL, 8), path,
			    pass == 0) < 0)
				r = -1;
		}
	}
	/* The index, then the ref, as they were. */
	if (faccessat(jfd, "ref", F_OK, 0) == 0) {
		autofree char *ref = path_join(c->journal, "ref");
		autofree char *rb = NULL, *icopy = NULL;
		autofree char *ipath = path_join(c->journal, "index");
		git_repository *repo = NULL;
		git_oid old, new, cur;
		size_t rl = 0, il = 0;

		rb = read_bounded(ref, 4096, &rl);
		if (rb == NULL || git_repository_open_ext(&repo, ws,
		    GIT_REPOSITORY_OPEN_NO_SEARCH, NULL) < 0)
			return -1;
		if ((icopy = read_bounded(ipath, SIZE_MAX / 2, &il)) != NULL) {
			autofree char *dst = path_join(git_repository_path(repo),
			    "index");
			autofree char *tmp = xasprintf("%s.confine-tmp", dst);
			int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC |
			    O_CLOEXEC | O_NOFOLLOW, 0644);

			if (fd < 0 || write(fd, icopy, il) != (ssize_t)il ||
			    close(fd) < 0 || rename(tmp, dst) < 0)
				r = -1;
		}
		{
			const char *name = rb;
			const char *o = name + strlen(name) + 1;
			const char *n = o + strlen(o) + 1;

			if (git_oid_fromstr(&old, o) < 0 ||
			    git_oid_fromstr(&new, n) < 0)
				r = -1;
			else if (git_reference_name_to_id(&cur, repo, name) == 0 &&
			    git_oid_equal(&cur, &new) &&
			    move_ref(repo, name, &old, &new, "confine: roll "
			    "back a killed apply") < 0)
				r = -1;
		}
		git_repository_free(repo);
	}
	return r;
}

/* The journal, if any, rolled back; the caller holds the lock. */
static int
recover_locked(struct ctx *c)
{
	autofree char *tmp = xasprintf("%s.tmp", c->journal);
	autofree char *done = path_join(c->journal, "done");
	const char *ws = c->ws;

	rm_tree(tmp);	/* not armed: nothing was written */
	if (access(c->journal, F_OK) < 0)
		return 0;
	if (access(done, F_OK) < 0) {
		if (rollback(c, ws) < 0)
			die("cannot roll back the %s apply in %s; its "
			    "journal is in %s", c->held ? "held" : "killed", ws,
			    c->journal);
		if (c->held)
			log_msg("rolled back the apply to %s: a later "
			    "workspace of the session could not be applied",
			    ws);
		else
			log_msg("rolled back an apply to %s that was killed",
			    ws);
	}
	rm_tree(c->journal);
	return 0;
}

int
apply_recover(const char *ws)
{
	struct ctx c;

	git_libgit2_init();
	ctx_init(&c, ws);
	if ((c.lock = lock_ws(&c)) < 0)
		return 0;	/* an apply is running: its journal */
	return recover_locked(&c);
}

int
apply_rollback(const char *ws)
{
	struct ctx c;

	git_libgit2_init();
	ctx_init(&c, ws);
	c.held = true;
	if ((c.lock = lock_ws(&c)) < 0) {
		log_warn("cannot roll back the apply to %s: another apply "
		    "holds it", ws);
		return EXIT_CONFINE;
	}
	return recover_locked(&c);
}

int
apply_release(const char *ws)
{
	struct ctx c;
	autofree char *done = NULL;
	autoclose int fd = -1;

	git_libgit2_init();
	ctx_init(&c, ws);
	if ((c.lock = lock_ws(&c)) < 0) {
		log_warn("cannot release the apply to %s: another apply holds "
		    "it", ws);
		return EXIT_CONFINE;
	}
	done = path_join(c.journal, "done");
	if (access(c.journal, F_OK) == 0)
		fd = open(done, O_WRONLY | O_CREAT | O_CLOEXEC, 0600);
	rm_tree(c.journal);
	return 0;
}

/* ------------------------------------------------------------ apply */

static void
prove(struct ctx *c, git_tree *final, git_diff *rest)
{
	git_index *ri = NULL;
	size_t i;

	if (git_apply_to_tree(&ri, c->mem, final, rest, NULL) < 0)
		die("the session's commits and its reviewed changes disagree "
		    "(rest.patch does not apply to the last commit); nothing "
		    "was changed");
	for (i = 0; i < c->n; i++) {
		struct ent a = c->v[i].new, b;

		if (a.type == T_DIR)
			a.type = T_ABSENT;
		entry_of(ri, c->v[i].path, &b);
		if (!same(&a, &b)) {
			autofree char *p = safe(c->v[i].path);

			die("the session's commits and its reviewed changes "
			    "disagree (%s); nothing was changed", p);
		}
	}
	git_index_free(ri);
}

/* Every path a commit touches is as HEAD has it on the host. */
static void
check_clean(struct ctx *c, git_tree *head)
{
	size_t i;

	for (i = 0; i < c->n; i++) {
		struct ent h;

		if (!c->v[i].in_commits)
			continue;
		tree_entry_of(head, c->v[i].path, &h);
		if (h.type == T_DIR)
			h.type = T_ABSENT;
		if (!same(&c->v[i].old, &h) && !(c->v[i].old.type == T_DIR &&
		    h.type == T_ABSENT))
			refuse(c->v[i].path, "differs from HEAD on the host "
			    "(a change not committed); commit or stash it first");
	}
}

static void
base_of(const char *sdir, git_oid *base)
{
	autofree char *p = path_join(sdir, "commits/base"), *buf = NULL;
	size_t len = 0;

	if ((buf = read_bounded(p, 64, &len)) == NULL || len != 41 ||
	    buf[40] != '\n') {
		if (buf == NULL)
			die_hint(EXIT_CONFINE, 0, "use 'confine apply' for its "
			    "changes", "session made no commits");
		die("the session's commits/base is not a commit id");
	}
	buf[40] = '\0';
	if (git_oid_fromstr(base, buf) < 0)
		die("the session's commits/base is not a commit id");
}

int
apply_session(const struct apply_opts *o)
{
	struct ctx c;
	struct series s = { 0 };
	git_diff *diff;
	git_tree *head_tree = NULL;
	git_oid base, head;
	autofree char *ref = NULL, *msg = NULL;
	git_signature *me = NULL;
	git_index *hidx = NULL;
	size_t i;

	git_libgit2_init();
	ctx_init(&c, o->workspace);
	c.o = o;
	if ((c.lock = lock_ws(&c)) < 0)
		die("another confine apply is running on %s", o->workspace);
	recover_locked(&c);
	if (git_repository_open_ext(&c.host, o->workspace, 0, NULL) < 0)
		c.host = NULL;
	check_state(&c);
	if (o->commits) {
		git_commit *hc = NULL;
		const char *wd = c.host ? git_repository_workdir(c.host) : NULL;
		autofree char *top = wd ? xstrndup(wd, strlen(wd) -
		    (strlen(wd) > 1 && wd[strlen(wd) - 1] == '/')) : NULL;

		base_of(o->session_dir, &base);
		if (c.host == NULL || top == NULL || !streq(top, o->workspace))
			die("--commits needs the workspace to be the top of its "
			    "git repository");
		if (git_reference_name_to_id(&head, c.host, "HEAD") < 0 ||
		    !git_oid_equal(&head, &base))
			die_hint(EXIT_CONFINE, 0, "check out that commit, or apply "
			    "the changes without --commits", "the workspace's "
			    "HEAD is not the commit the session's commits were "
			    "made on (%s)", git_oid_tostr_s(&base));
		if (git_commit_lookup(&hc, c.host, &head) < 0 ||
		    git_commit_tree(&head_tree, hc) < 0)
			die("cannot read HEAD of %s: %s", o->workspace,
			    git_err());
		git_commit_free(hc);
		s.n = count_commits(o->session_dir);
		if (s.n == 0)
			die_hint(EXIT_CONFINE, 0, "use 'confine apply'",
			    "session made no commits");
	}
	mem_repo(&c);
	diff = parse_patch(o->session_dir, "changes.patch");
	add_diff_paths(&c, diff, true, false);
	if (o->commits)
		add_commit_paths(&c, s.n);
	if (o->commits) {
		autofree char *rp = path_join(o->session_dir, "commits/rest.patch");
		git_diff *rest = NULL;

		if (access(rp, F_OK) == 0)
			rest = parse_patch(o->session_dir, "commits/rest.patch");
		else if (git_diff_from_buffer(&rest, "", 0) < 0)
			die("apply: %s", git_err());

		add_diff_paths(&c, rest, false, false);
		qsort(c.v, c.n, sizeof(*c.v), by_path);
		check_old(&c, diff);
		postimage(&c, diff);
		check_clean(&c, head_tree);
		if (git_signature_default(&me, c.host) < 0)
			me = NULL;
		build_series(&c, c.mem, &base, me, &s);
		prove(&c, s.tree, rest);
		git_diff_free(rest);
	} else {
		qsort(c.v, c.n, sizeof(*c.v), by_path);
		check_old(&c, diff);
		postimage(&c, diff);
	}
	check_way(&c);
	if (o->commits)
		hidx = host_index(&c);
	if (o->check)
		goto out;
	if (o->into) {
		write_into(&c, o->into, o->whiteouts);
		goto out;
	}
	if (o->commits) {
		git_tree_free(s.tree);
		build_series(&c, c.host, &base, me, &s);
		ref = head_ref(&c);
		journal_write(&c, ref, &base, &s.head);
	} else
		journal_write(&c, NULL, NULL, NULL);
	write_files(&c);
	if (o->commits) {
		msg = xasprintf("confine apply --commits: session %s",
		    o->session_id);
		if (update_index(&c, hidx, s.tree) < 0 ||
		    move_ref(c.host, ref, &s.head, &base, msg) < 0) {
			log_warn("cannot update the index or move %s in %s: %s; "
			    "rolling back", ref, o->workspace, git_err());
			recover_locked(&c);
			return EXIT_CONFINE;
		}
	}
	if (!o->hold) {
		autofree char *done = path_join(c.journal, "done");
		autoclose int fd = open(done, O_WRONLY | O_CREAT | O_CLOEXEC,
		    0600);

		rm_tree(c.journal);
	}
out:
	for (i = 0; i < c.n; i++)
		free(c.v[i].path), free(c.v[i].data);
	free(c.v);
	free(c.state);
	free(c.hash);
	free(c.journal);
	if (c.wfd >= 0)
		close(c.wfd);
	git_diff_free(diff);
	git_signature_free(me);
	git_tree_free(head_tree);
	git_index_free(hidx);
	git_repository_free(c.mem);
	git_repository_free(c.host);
	return 0;
}
