// SPDX-License-Identifier: ISC
/*
 * export/patch.c - build the patch from the changed paths only: the old side of
 * each from the host workspace (the overlay's lower layer), the new side
 * from the merged view, as two sparse trees in a private in-memory object
 * database; diff them with rename detection and print a patch that
 * "git apply --binary" takes (research/ecosystem.md section 3).
 *
 * Runs in: confine-export, outside any sandbox, after it.  The upper layer
 * is untrusted input, read through fds only (export/changes.c).
 * MUST: never run git, hooks, filters or configuration of an agent-written
 * repository; never write to the host repository (the object database is
 * a private mempack; the host repository is only opened to read its
 * ignore rules, index and HEAD).
 * MUST: write outputs under a temporary name and rename them.
 * MUST: sanitise every agent-written string shown on a terminal.
 */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <git2.h>
#include <git2/sys/mempack.h>
#include <git2/sys/odb_backend.h>
#include <git2/sys/repository.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "export/changes.h"
#include "export/commits.h"
#include "export/diffstat.h"
#include "export/large.h"
#include "export/patch.h"
#include "export/review-flags.h"
#include "lib/fdio.h"
#include "lib/log.h"
#include "lib/term-escape.h"
#include "lib/untrusted.h"
#include "lib/util.h"
#include "store/session-meta.h"

struct host_repo {
	git_repository	*repo;	/* the user's, read only; NULL: none */
	git_index	*index;	/* loaded only when needed: O(repository) */
	bool		 index_tried;
	git_tree	*head;
	git_oid		 head_id;	/* its commit */
	bool		 has_head;
};

struct counts {
	size_t	added, modified, deleted, renamed, ignored;
	size_t	files, flagged, skipped;	/* for the summary */
	long	refused;	/* network refusals; -1: not known */
};

static const char *
git_err(void)
{
	const git_error *e = git_error_last();

	return e && e->message ? e->message : "unknown libgit2 error";
}

static void
host_open(const char *ws, struct host_repo *h)
{
	git_reference *ref = NULL;
	git_commit *c = NULL;

	memset(h, 0, sizeof(*h));
	if (git_repository_open_ext(&h->repo, ws,
	    GIT_REPOSITORY_OPEN_NO_SEARCH, NULL) < 0) {
		h->repo = NULL;
		return;
	}
	if (git_repository_head(&ref, h->repo) == 0 &&
	    git_reference_peel((git_object **)&c, ref, GIT_OBJECT_COMMIT) == 0) {
		git_commit_tree(&h->head, c);
		git_oid_cpy(&h->head_id, git_commit_id(c));
		h->has_head = true;
	}
	git_commit_free(c);
	git_reference_free(ref);
}

static void
host_close(struct host_repo *h)
{
	git_tree_free(h->head);
	git_index_free(h->index);
	git_repository_free(h->repo);
}

/*
 * Git's rule: an untracked path matching the ignore rules is left out.
 * Cheapest first: HEAD's tree, the rules, and only for an ignored path
 * not in HEAD the index (reading it costs as much as the repository).
 */
static bool
ignored(struct host_repo *h, const char *path)
{
	git_tree_entry *te = NULL;
	int ign = 0;

	if (h->repo == NULL)
		return false;
	if (h->head && git_tree_entry_bypath(&te, h->head, path) == 0) {
		git_tree_entry_free(te);
		return false;
	}
	if (git_ignore_path_is_ignored(&ign, h->repo, path) < 0 || !ign)
		return false;
	if (!h->index_tried) {
		/* A split or newer index is unreadable by libgit2 1.5. */
		h->index_tried = true;
		if (git_repository_index(&h->index, h->repo) < 0)
			h->index = NULL;
	}
	return !(h->index && git_index_get_bypath(h->index, path, 0));
}

/*
 * What one export reads: UPPER_MAX_TOTAL bytes in all; of which it holds
 * HELD_MAX in memory (the mempack), and the rest by reference (read again
 * when looked at, export/large.h), so that its memory does not grow with
 * the change: at most that, and a few times the largest file under
 * LARGE_MIN while libgit2 diffs it.
 */
#define HELD_MAX	(16UL * 1024 * 1024)

struct budget {
	size_t	left;
	size_t	held;
};

static size_t
count_lines(const char *buf, size_t len)
{
	const char *p = buf, *end = buf + len;
	size_t n = 0;

	while (p < end && (p = memchr(p, '\n', (size_t)(end - p))) != NULL) {
		n++;
		p++;
	}
	return n;
}

/*
 * Add one side of a change to idx.  0; 1 with *why set when the path is
 * left out (a name git refuses, or a file over a bound: agent data is
 * read with a bound, never whole); -1 on an error.
 */
static int
add_side(git_repository *repo, git_index *idx, const struct changes_src *src,
    const char *untrusted_path, const struct upper_state *st,
    struct budget *b, char **why, bool *large)
{
	git_index_entry e;
	autofree char *untrusted_buf = NULL, *safe = NULL;
	autoclose int fd = -1;
	size_t len = 0, lines = 0, max = b->left < UPPER_MAX_FILE ? b->left :
	    UPPER_MAX_FILE;
	ssize_t n;
	int r;

	memset(&e, 0, sizeof(e));
	if (st->type != UPPER_FILE)
		r = upper_read(src, untrusted_path, st, max, &untrusted_buf,
		    &len);
	else if ((r = fd = upper_open(src, untrusted_path, st, max,
	    &len)) >= 0) {
		/* A large file is hashed in pieces, never held whole. */
		if (len > LARGE_MIN) {
			r = large_add(repo, fd, len, src, untrusted_path, st,
			    &e.id, &lines);
			*large = true;
		} else if ((n = fd_read_all(fd, max, &untrusted_buf)) < 0)
			r = (int)n;
		else {
			len = (size_t)n;
			lines = count_lines(untrusted_buf, len);
			r = 0;
		}
	}
	if (r == -EFBIG) {
		*why = xstrdup(b->left < UPPER_MAX_FILE ? "too large, not "
		    "exported: over the export's total of 256 MiB" : "too "
		    "large, not exported: over 32 MiB");
		return 1;
	}
	if (r == -1)
		return -1;
	if (r < 0) {
		safe = untrusted_display(untrusted_wrap(untrusted_path,
		    strlen(untrusted_path)), 0);
		log_warn("export: cannot read '%s': %s", safe, strerror(-r));
		return -1;
	}
	if (st->type == UPPER_FILE && lines > UPPER_MAX_LINES) {
		*why = xstrdup("too large, not exported: over 200000 lines");
		return 1;
	}
	b->left -= len;
	e.path = untrusted_path;	/* git_index_add() refuses a bad one */
	e.mode = st->type == UPPER_LINK ? GIT_FILEMODE_LINK :
	    (st->mode & S_IXUSR) ? GIT_FILEMODE_BLOB_EXECUTABLE :
	    GIT_FILEMODE_BLOB;
	/* A large one has its id; any other is held, or read again. */
	if (git_oid_is_zero(&e.id)) {
		if (st->type == UPPER_FILE && b->held + len > HELD_MAX)
			r = large_add_whole(repo, src, untrusted_path, st,
			    untrusted_buf, len, &e.id);
		else if ((r = git_blob_create_from_buffer(&e.id, repo,
		    untrusted_buf, len)) == 0)
			b->held += len;
		if (r < 0)
			return -1;
	}
	/* A name git refuses (".GIT/x", "a/../b"): skipped, and said. */
	if (git_index_add(idx, &e) < 0) {
		*why = xasprintf("git refuses the name: %s", git_err());
		return 1;
	}
	return 0;
}

static void
drop_binary_line(git_buf *b)
{
	char *p = b->ptr, *end = b->ptr + b->size;

	while (p < end) {
		char *nl = memchr(p, '\n', (size_t)(end - p));
		char *next = nl ? nl + 1 : end;

		if ((size_t)(end - p) > 13 && strncmp(p, "Binary files ", 13) == 0) {
			memmove(p, next, (size_t)(end - next));
			b->size -= (size_t)(next - p);
			return;
		}
		p = next;
	}
}

/*
 * One name of a "diff --git" line as git quotes it (C style, octal for
 * the bytes outside printable ASCII), and also when it has a space.  git
 * apply reads a bare "a/X b/X" by splitting it where its halves match,
 * but gives up at a space followed by a slash ("dir /file"): the patch of
 * a binary, empty or mode-only file, which has no "---"/"+++" lines to
 * name it, then names no file and git apply refuses the whole patch.
 * Quoted, a name reads one way only, to git apply and libgit2 alike.
 */
static void
put_header_name(FILE *out, const char *prefix, const char *path)
{
	const unsigned char *p;

	if (strpbrk(path, " \"\\") == NULL) {
		for (p = (const unsigned char *)path; *p; p++)
			if (*p < ' ' || *p > '~')
				break;
		if (*p == '\0') {
			fprintf(out, "%s%s", prefix, path);
			return;
		}
	}
	fprintf(out, "\"%s", prefix);
	for (p = (const unsigned char *)path; *p; p++) {
		if (*p >= '\a' && *p <= '\r')
			fprintf(out, "\\%c", "abtnvfr"[*p - '\a']);
		else if (*p == '"' || *p == '\\')
			fprintf(out, "\\%c", *p);
		else if (*p < ' ' || *p > '~')
			fprintf(out, "\\%03o", *p);
		else
			fputc(*p, out);
	}
	fputc('"', out);
}

/* A file's patch from libgit2, its "diff --git" line confine's own. */
static void
put_patch(const git_buf *b, const git_diff_delta *d, FILE *out)
{
	const char *nl = memchr(b->ptr, '\n', b->size);

	if (nl == NULL || strncmp(b->ptr, "diff --git ", 11) != 0) {
		fwrite(b->ptr, 1, b->size, out);
		return;
	}
	fputs("diff --git ", out);
	put_header_name(out, "a/", d->old_file.path);
	fputc(' ', out);
	put_header_name(out, "b/", d->new_file.path);
	fwrite(nl, 1, b->size - (size_t)(nl - b->ptr), out);
}

/*
 * The patch of a change with a large side (export/large.c), as libgit2
 * writes a binary one: the headers, then the new side's literal and the
 * old side's; the headers alone when the bytes are the same (a rename, a
 * mode change).  0, or -1.
 */
static int
put_large(git_repository *repo, const git_diff_delta *d, FILE *out)
{
	static const git_oid zero;
	bool added = d->status == GIT_DELTA_ADDED;
	bool deleted = d->status == GIT_DELTA_DELETED;
	char a[GIT_OID_HEXSZ + 1], b[GIT_OID_HEXSZ + 1];

	fputs("diff --git ", out);
	put_header_name(out, "a/", d->old_file.path);
	fputc(' ', out);
	put_header_name(out, "b/", d->new_file.path);
	fputc('\n', out);
	if (added)
		fprintf(out, "new file mode %o\n", d->new_file.mode);
	else if (deleted)
		fprintf(out, "deleted file mode %o\n", d->old_file.mode);
	else if (d->old_file.mode != d->new_file.mode)
		fprintf(out, "old mode %o\nnew mode %o\n", d->old_file.mode,
		    d->new_file.mode);
	if (d->status == GIT_DELTA_RENAMED) {
		fprintf(out, "similarity index %u%%\nrename from ",
		    d->similarity);
		put_header_name(out, "", d->old_file.path);
		fputs("\nrename to ", out);
		put_header_name(out, "", d->new_file.path);
		fputc('\n', out);
	}
	if (git_oid_equal(&d->old_file.id, &d->new_file.id))
		return ferror(out) ? -1 : 0;
	git_oid_tostr(a, sizeof(a), added ? &zero : &d->old_file.id);
	git_oid_tostr(b, sizeof(b), deleted ? &zero : &d->new_file.id);
	fprintf(out, "index %s..%s", a, b);
	if (!added && !deleted && d->old_file.mode == d->new_file.mode)
		fprintf(out, " %o", d->new_file.mode);
	fputs("\nGIT binary patch\n", out);
	if (large_put_literal(repo, deleted ? &zero : &d->new_file.id,
	    out) < 0 || large_put_literal(repo, added ? &zero :
	    &d->old_file.id, out) < 0)
		return -1;
	return ferror(out) ? -1 : 0;
}

/*
 * libgit2 1.5's rename detection can put the ADDED half of a type change
 * before its DELETED half; git apply wants the deletion first.
 */
static int
print_patch(git_repository *repo, git_diff *diff, FILE *out)
{
	size_t n = git_diff_num_deltas(diff), i;

	for (i = 0; i < n; i++) {
		size_t order[2] = { i, i };
		size_t k, m = 1;

		if (i + 1 < n) {
			const git_diff_delta *a = git_diff_get_delta(diff, i);
			const git_diff_delta *b = git_diff_get_delta(diff, i + 1);

			if (a->status == GIT_DELTA_ADDED &&
			    b->status == GIT_DELTA_DELETED &&
			    streq(a->new_file.path, b->old_file.path)) {
				order[0] = i + 1;
				order[1] = i;
				m = 2;
				i++;
			}
		}
		for (k = 0; k < m; k++) {
			git_patch *patch = NULL;
			git_buf buf = { 0 };

			const git_diff_delta *d = git_diff_get_delta(diff,
			    order[k]);

			if (large_is(repo, &d->old_file.id) ||
			    large_is(repo, &d->new_file.id)) {
				if (put_large(repo, d, out) < 0)
					return -1;
				continue;
			}
			if (git_patch_from_diff(&patch, diff, order[k]) < 0)
				return -1;
			if (patch && git_patch_to_buf(&buf, patch) == 0) {
				/*
				 * Same binary content (a mode change, a pure
				 * rename): libgit2 still says "Binary files
				 * differ", which git apply refuses without an
				 * index line; the headers alone say it all.
				 */
				if ((d->flags & GIT_DIFF_FLAG_BINARY) &&
				    git_oid_equal(&d->old_file.id,
				    &d->new_file.id))
					drop_binary_line(&buf);
				put_patch(&buf, d, out);
			}
			git_buf_dispose(&buf);
			git_patch_free(patch);
		}
	}
	return ferror(out) ? -1 : 0;
}

/*
 * The export's files are written through a stream that keeps the errno of
 * its first failed write and hands it back from fclose(): stdio only keeps
 * an error flag, and errno is long overwritten (libgit2, the next fprintf)
 * by the time the caller looks, which once made a full disk "Success".
 */
struct sink {
	int	fd;
	int	err;	/* the first failed write's errno, or 0 */
};

/* All of buf, or -1: a short write (a disk filling up) is written on, so
 * that the next write says why; stdio takes a short count as an error. */
static ssize_t
sink_write(void *cookie, const char *buf, size_t n)
{
	struct sink *s = cookie;
	size_t done = 0;
	ssize_t r;

	while (done < n) {
		r = write(s->fd, buf + done, n - done);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0) {
			if (s->err == 0)
				s->err = r < 0 ? errno : EIO;
			return -1;
		}
		done += (size_t)r;
	}
	return (ssize_t)n;
}

static int
sink_close(void *cookie)
{
	struct sink *s = cookie;
	int err = s->err;

	if (close(s->fd) < 0 && err == 0)
		err = errno;
	free(s);
	if (err) {
		errno = err;
		return -1;
	}
	return 0;
}

/* A stream over fd (taken: closed by fclose), or NULL with fd closed. */
static FILE *
sink_open(int fd)
{
	static const cookie_io_functions_t io = {
		.write = sink_write, .close = sink_close,
	};
	struct sink *s;
	FILE *f;

	if (fd < 0)
		return NULL;
	s = xcalloc(1, sizeof(*s));
	s->fd = fd;
	if ((f = fopencookie(s, "w", io)) == NULL) {
		close(fd);
		free(s);
	}
	return f;
}

/* fclose(f): 0, or the errno of its first failed write (or of the close). */
static int
sink_finish(FILE *f)
{
	errno = 0;
	if (fclose(f) != 0)
		return errno ? errno : EIO;
	return 0;
}

static FILE	*tmp_file(int, const char *);
static int	 commit_file(int, const char *, FILE *);

/*
 * The most the proxy's record may hold: a line of counts and the first 100
 * refusals (run/proxy.c), each a host name (at most 255 bytes), a port and
 * a reason; a larger one was not written by confine.
 */
#define NETWORK_MAX	(64 * 1024)

/*
 * The proxy's counts and refusals, which the supervisor noted, into the
 * report as they are.  Their number is read from network.counts
 * (store/session-meta.h), not from the text.  A refusal alone keeps no
 * session: the supervisor said it at exit (and, with -v, as it happened).
 */
static void
network(const struct export_opts *o, int sdir, FILE *report,
    struct counts *c)
{
	autoclose int fd = openat(sdir, "network", O_RDONLY | O_NOFOLLOW |
	    O_CLOEXEC);
	autofree char *buf = NULL, *refused = NULL;
	ssize_t n;

	c->refused = 0;
	if (fd < 0) {
		fprintf(report, "network: no connection through the proxy\n");
		return;
	}
	c->refused = -1;
	if ((n = fd_read_all(fd, NETWORK_MAX, &buf)) < 0) {
		fprintf(report, "network: cannot read the proxy's record: %s\n",
		    n == -EFBIG ? "larger than 64 KiB" : strerror((int)-n));
		return;
	}
	fwrite(buf, 1, (size_t)n, report);
	refused = session_file_get(o->session_dir, "network.counts",
	    "refused");
	if (refused)
		c->refused = strtol(refused, NULL, 10);
}

/*
 * The session's stop, which the supervisor noted ("stopped": by=, killed=,
 * grace=; store/session-meta.h), as a line of the report.
 */
static void
stopped(const struct export_opts *o, FILE *report)
{
	autofree char *by = session_file_get(o->session_dir, "stopped", "by");
	autofree char *killed = NULL, *grace = NULL;

	if (by == NULL || !streq(by, "confine stop"))
		return;
	killed = session_file_get(o->session_dir, "stopped", "killed");
	grace = session_file_get(o->session_dir, "stopped", "grace");
	if (killed && streq(killed, "1"))
		fprintf(report, "stopped: by 'confine stop'; still running "
		    "%s s after SIGTERM, killed\n", grace ? grace : "?");
	else
		fprintf(report, "stopped: by 'confine stop'; ended within %s s "
		    "of SIGTERM\n", grace ? grace : "?");
}

/*
 * The resource limits' engine and the limits reached, which the
 * supervisor noted ("limits", store/session-meta.h), one line each.
 */
static void
limits(const struct export_opts *o, FILE *report)
{
	autofree char *line = session_file_get(o->session_dir, "limits",
	    "engine_line");
	autofree char *cgroup = session_file_get(o->session_dir, "limits",
	    "cgroup");
	autostrv char **reached = session_file_all(o->session_dir, "limits",
	    "reached");
	autostrv char **how = session_file_all(o->session_dir, "limits",
	    "how");
	size_t i;

	if (line == NULL)
		return;
	fprintf(report, "limits: %s\n", line);
	if (cgroup)
		fprintf(report, "  cgroup: %s\n", cgroup);
	for (i = 0; how[i]; i++)
		fprintf(report, "  %s\n", how[i]);
	for (i = 0; reached[i]; i++)
		fprintf(report, "  %s\n", reached[i]);
	if (reached[0] == NULL)
		fprintf(report, "  no limit reached\n");
}

/* Open NAME.tmp in the session for writing; renamed by commit_file(). */
static FILE *
tmp_file(int dirfd, const char *name)
{
	autofree char *tmp = xasprintf("%s.tmp", name);
	int fd;

	unlinkat(dirfd, tmp, 0);
	fd = openat(dirfd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC |
	    O_NOFOLLOW, 0600);
	return sink_open(fd);
}

static int
commit_file(int dirfd, const char *name, FILE *f)
{
	autofree char *tmp = xasprintf("%s.tmp", name);
	int err = 0;

	/*
	 * No fsync: the rename keeps a crash of this process from leaving
	 * half a file, and the upper layer itself is not synced either (the
	 * overlay is volatile); a lost export is redone by "confine show".
	 */
	err = sink_finish(f);
	if (err == 0 && renameat(dirfd, tmp, dirfd, name) < 0)
		err = errno;
	if (err) {
		unlinkat(dirfd, tmp, 0);
		return -err;
	}
	return 0;
}

/* The exit summary's width: the terminal's, else git's for a pipe. */
static int
stderr_width(void)
{
	struct winsize ws;

	if (isatty(STDERR_FILENO) && ioctl(STDERR_FILENO, TIOCGWINSZ, &ws) == 0 &&
	    ws.ws_col > 0)
		return ws.ws_col;
	return DIFFSTAT_WIDTH;
}

static void
count(git_diff *diff, struct counts *c)
{
	size_t n = git_diff_num_deltas(diff), i;

	for (i = 0; i < n; i++) {
		git_delta_t t = git_diff_get_delta(diff, i)->status;

		if (t == GIT_DELTA_ADDED)
			c->added++;
		else if (t == GIT_DELTA_DELETED)
			c->deleted++;
		else if (t == GIT_DELTA_RENAMED)
			c->renamed++;
		else
			c->modified++;
	}
}

/*
 * Is path inside the internals of a nested repository: under a directory
 * laid out as one (HEAD, objects/, refs/) on either side?  git run there
 * would obey its config and hooks.  The deltas come sorted, so the last
 * path's ancestors, cached by depth, answer most of the questions.
 */
#define REPO_DEPTH	32

/*
 * Where to look for a repository's layout: the layers (the working tree,
 * either side) or a commit's tree.
 */
struct repo_cache {
	const struct changes_src *src;	/* the layers, when tree is NULL */
	git_tree	*tree;
	char		*dir[REPO_DEPTH];
	bool		 is[REPO_DEPTH];
};

static bool
tree_has(git_tree *t, const char *dir, const char *name, git_object_t type)
{
	autofree char *p = dir[0] ? xasprintf("%s/%s", dir, name) :
	    xstrdup(name);
	git_tree_entry *te = NULL;
	bool ok;

	if (git_tree_entry_bypath(&te, t, p) < 0)
		return false;
	ok = git_tree_entry_type(te) == type;
	git_tree_entry_free(te);
	return ok;
}

/* As upper_git_layout(): HEAD, and objects/ and refs/, commondir or config. */
static bool
tree_git_layout(git_tree *t, const char *dir)
{
	return tree_has(t, dir, "HEAD", GIT_OBJECT_BLOB) &&
	    ((tree_has(t, dir, "objects", GIT_OBJECT_TREE) &&
	    tree_has(t, dir, "refs", GIT_OBJECT_TREE)) ||
	    tree_has(t, dir, "commondir", GIT_OBJECT_BLOB) ||
	    tree_has(t, dir, "config", GIT_OBJECT_BLOB));
}

static bool
nested_repo(struct repo_cache *rc, const char *path)
{
	const char *slash = path;
	size_t depth, len = 0;

	/* The workspace itself (""), then each directory above path. */
	for (depth = 0; slash; depth++) {
		autofree char *dir = xstrndup(path, len);
		bool is;

		if (depth < REPO_DEPTH && rc->dir[depth] &&
		    streq(rc->dir[depth], dir)) {
			is = rc->is[depth];
		} else {
			is = rc->tree ? tree_git_layout(rc->tree, dir) :
			    upper_git_layout(rc->src, dir);
			if (depth < REPO_DEPTH) {
				free(rc->dir[depth]);
				rc->dir[depth] = steal_ptr(&dir);
				rc->is[depth] = is;
			}
		}
		if (is)
			return true;
		if ((slash = strchr(path + len + (len > 0), '/')) != NULL)
			len = (size_t)(slash - path);
	}
	return false;
}

static void
repo_cache_free(struct repo_cache *rc)
{
	size_t i;

	for (i = 0; i < REPO_DEPTH; i++)
		free(rc->dir[i]);
}

/*
 * Why the new content of a changed file hides what the review shows
 * (flag_content), with the line; NULL for none, a link, a deletion.
 * Both blobs are agent data or host data in the private object database.
 */
static char *
content_flag(git_repository *repo, const git_diff_delta *d)
{
	git_blob *bold = NULL, *bnew = NULL;
	const char *why = NULL;
	char *ret = NULL;
	size_t line = 0;

	if (d->status == GIT_DELTA_DELETED || (d->new_file.mode !=
	    GIT_FILEMODE_BLOB && d->new_file.mode !=
	    GIT_FILEMODE_BLOB_EXECUTABLE) ||
	    git_blob_lookup(&bnew, repo, &d->new_file.id) < 0)
		return NULL;
	if (d->status != GIT_DELTA_ADDED && (d->old_file.mode ==
	    GIT_FILEMODE_BLOB || d->old_file.mode ==
	    GIT_FILEMODE_BLOB_EXECUTABLE) &&
	    git_blob_lookup(&bold, repo, &d->old_file.id) < 0)
		bold = NULL;
	why = flag_content(d->new_file.path,
	    bold ? git_blob_rawcontent(bold) : NULL,
	    bold ? (size_t)git_blob_rawsize(bold) : 0,
	    git_blob_rawcontent(bnew), (size_t)git_blob_rawsize(bnew), &line);
	if (why && line)
		ret = xasprintf("%s (line %zu)", why, line);
	else if (why)
		ret = xstrdup(why);
	git_blob_free(bold);
	git_blob_free(bnew);
	return ret;
}

/* "  LEADpathwhere: " and each reason given, "; " between. */
static void
flag_line(FILE *f, const char *lead, const char *path, const char *where,
    const char *why, const char *name, const char *content)
{
	const char *r[] = { why, name, content }, *sep = "";
	size_t k;

	fprintf(f, "  %s%s%s: ", lead, path, where);
	for (k = 0; k < nitems(r); k++)
		if (r[k]) {
			fprintf(f, "%s%s", sep, r[k]);
			sep = "; ";
		}
	fputc('\n', f);
}

/*
 * Flagged paths of one diff (the working tree's, or one commit's against
 * its parent: the same rules), with why, into the report and (sanitised)
 * stderr; commit is NULL or the commit's number, said after the path.
 */
static size_t
flags(git_repository *repo, git_diff *diff, struct repo_cache *rc,
    const char *commit, FILE *report, bool say)
{
	size_t n = git_diff_num_deltas(diff), i, nflag = 0;
	autofree char *where = commit ? xasprintf(" (commit %s)", commit) :
	    xstrdup("");

	for (i = 0; i < n; i++) {
		const git_diff_delta *d = git_diff_get_delta(diff, i);
		const char *path = d->new_file.path;
		const char *why = flag_path(path);
		/* A name the change brings (the host's own are not the
		 * agent's doing). */
		const char *name = d->status == GIT_DELTA_ADDED ||
		    d->status == GIT_DELTA_RENAMED ||
		    d->status == GIT_DELTA_COPIED ||
		    d->status == GIT_DELTA_UNTRACKED ? flag_name(path) : NULL;
		autofree char *safe = NULL, *more = content_flag(repo, d);
		autofree char *named = NULL;

		/* New bytes no content rule read: the review must look. */
		if (more == NULL && d->status != GIT_DELTA_DELETED &&
		    !git_oid_equal(&d->old_file.id, &d->new_file.id) &&
		    large_is(repo, &d->new_file.id))
			more = xstrdup("over 4 MiB: exported as binary, the "
			    "review shows no diff of it");

		if (why == NULL && d->status == GIT_DELTA_RENAMED)
			why = flag_path(d->old_file.path);
		if (why == NULL && (nested_repo(rc, path) ||
		    (d->status == GIT_DELTA_RENAMED &&
		    nested_repo(rc, d->old_file.path))))
			why = "a nested git repository's internals: git run "
			    "there obeys its config and hooks";
		if (why == NULL && d->new_file.mode == GIT_FILEMODE_LINK &&
		    d->status != GIT_DELTA_DELETED)
			why = "a symbolic link: applying creates it on the host";
		if (why == NULL && d->new_file.mode ==
		    GIT_FILEMODE_BLOB_EXECUTABLE && d->old_file.mode !=
		    GIT_FILEMODE_BLOB_EXECUTABLE && d->status != GIT_DELTA_DELETED)
			why = "made executable";
		if (why == NULL && name == NULL && more == NULL)
			continue;
		safe = term_sanitize(path, strlen(path), 0);
		named = name ? xasprintf("in its path, %s", name) : NULL;
		flag_line(report, "", safe, where, why, named, more);
		if (say)
			flag_line(stderr, "flagged: ", safe, where, why, named,
			    more);
		nflag++;
	}
	return nflag;
}

/*
 * The host changed a file the command changed too; and the flags the
 * collection of the changes raised (host data a change destroys, a file
 * too large to export), "path: why" each.
 */
static size_t
flags_host(const struct upper_changes *ch, char *const *extra, size_t nextra,
    const struct export_opts *o, FILE *report, bool say)
{
	size_t j, nflag = 0;

	for (j = 0; j < ch->n; j++) {
		const struct upper_change *c = &ch->v[j];
		autofree char *safe = NULL;

		if (c->old.type == UPPER_ABSENT ||
		    !timespec_ge(&c->old.ctime, &o->host_since))
			continue;
		safe = untrusted_display(untrusted_wrap(c->untrusted_path,
		    strlen(c->untrusted_path)), 0);
		fprintf(report, "  %s: changed on the host during the session; "
		    "the patch would undo that change\n", safe);
		if (say)
			fprintf(stderr, "  flagged: %s: changed on the host during "
			    "the session\n", safe);
		nflag++;
	}
	for (j = 0; j < nextra; j++) {
		autofree char *safe = term_sanitize(extra[j], strlen(extra[j]),
		    0);

		fprintf(report, "  %s\n", safe);
		if (say)
			fprintf(stderr, "  flagged: %s\n", safe);
		nflag++;
	}
	return nflag;
}

#define MAX_MESSAGE	(64 * 1024)
#define MAX_COMMITS	9999	/* 0001 to 9999 */

/* The commit section of the report, and what it adds to the whole. */
struct series {
	bool	 found;	/* commits made, exported or not: keep the session */
	size_t	 n;		/* commits in commits/ */
	size_t	 npaths;	/* distinct paths they change */
	size_t	 nflag;
	char	*text;		/* "commits: ..." lines for the report */
	size_t	 textlen;
	char	*flagged;	/* their flagged lines */
	size_t	 flaggedlen;
};

/* Remove dirfd/name, a directory of files we wrote (commits/). */
static void
remove_flat(int dirfd, const char *name)
{
	autoclose int fd = openat(dirfd, name, O_RDONLY | O_DIRECTORY |
	    O_NOFOLLOW | O_CLOEXEC);
	struct dirent *e;
	DIR *d;

	if (fd >= 0 && (d = fdopendir(dup(fd))) != NULL) {
		while ((e = readdir(d)) != NULL)
			if (!streq(e->d_name, ".") && !streq(e->d_name, ".."))
				unlinkat(fd, e->d_name, 0);
		closedir(d);
	}
	unlinkat(dirfd, name, AT_REMOVEDIR);
}

static FILE *
create_at(int dirfd, const char *name)
{
	int fd = openat(dirfd, name, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC |
	    O_NOFOLLOW, 0600);

	return sink_open(fd);
}

static int
close_checked(FILE *f)
{
	int err = sink_finish(f);

	if (err == 0)
		return 0;
	errno = err;
	return -1;
}

/*
 * NNNN.meta: "author NAME <EMAIL> SECONDS +HHMM", an empty line, then the
 * message (agent data, verbatim, cut at MAX_MESSAGE).  true when cut.
 */
static bool
write_meta(git_commit *c, FILE *f)
{
	const git_signature *a = git_commit_author(c);
	const char *msg = git_commit_message_raw(c);
	size_t len = msg ? strnlen(msg, MAX_MESSAGE + 1) : 0;
	int off = a->when.offset < 0 ? -a->when.offset : a->when.offset;

	fprintf(f, "author %s <%s> %lld %c%02d%02d\n\n", a->name, a->email,
	    (long long)a->when.time, a->when.offset < 0 ? '-' : '+', off / 60,
	    off % 60);
	fwrite(msg ? msg : "", 1, len > MAX_MESSAGE ? MAX_MESSAGE : len, f);
	return len > MAX_MESSAGE;
}

/* A tree of the entries of t (or of idx) at paths, a sparse tree. */
static int
sparse_tree(git_repository *repo, git_tree *t, char *const *paths,
    size_t n, git_tree **ret)
{
	git_index *idx = NULL;
	git_oid oid;
	size_t i;
	int r = -1;

	if (git_index_new(&idx) < 0)
		return -1;
	for (i = 0; i < n; i++) {
		git_tree_entry *te = NULL;
		git_index_entry e;

		if (git_tree_entry_bypath(&te, t, paths[i]) < 0)
			continue;
		memset(&e, 0, sizeof(e));
		e.path = paths[i];
		e.mode = git_tree_entry_filemode(te);
		git_oid_cpy(&e.id, git_tree_entry_id(te));
		r = git_index_add(idx, &e);
		git_tree_entry_free(te);
		if (r < 0)
			goto out;
	}
	r = git_index_write_tree_to(&oid, idx, repo) < 0 ||
	    git_tree_lookup(ret, repo, &oid) < 0 ? -1 : 0;
out:
	git_index_free(idx);
	return r;
}

static int
in_changes(const void *key, const void *elem)
{
	return strcmp(key, ((const struct upper_change *)elem)->untrusted_path);
}

/*
 * rest.patch: the working tree as left against the last commit's tree,
 * over every path the working tree or a commit changed.  A path only a
 * commit changed is, in the working tree, as the host has it.
 */
static int
write_rest(git_repository *repo, git_commit *last, char **paths,
    size_t npaths, const struct upper_changes *ch, git_index *inew,
    int lower, int dirfd)
{
	git_tree *lt = NULL, *told = NULL, *tnew = NULL;
	git_index *irest = NULL;
	git_diff *diff = NULL;
	git_diff_options dopts = GIT_DIFF_OPTIONS_INIT;
	struct budget b = { UPPER_MAX_TOTAL };
	/* The host's side only: upper_lower_state() never says in_upper. */
	const struct changes_src host = { .lower = lower, .upper = -1 };
	autostrv char **all = NULL;
	size_t nall = 0, i;
	git_oid oid;
	FILE *f = NULL;
	bool large = false;
	int r = -1;

	for (i = 0; i < ch->n; i++)
		strv_push(&all, &nall, xstrdup(ch->v[i].untrusted_path));
	for (i = 0; i < npaths; i++)
		strv_push(&all, &nall, xstrdup(paths[i]));
	if (git_commit_tree(&lt, last) < 0 ||
	    sparse_tree(repo, lt, all, nall, &told) < 0 ||
	    git_index_new(&irest) < 0)
		goto out;
	for (i = 0; i < git_index_entrycount(inew); i++)
		if (git_index_add(irest, git_index_get_byindex(inew, i)) < 0)
			goto out;
	for (i = 0; i < npaths; i++) {
		struct upper_state st;
		autofree char *why = NULL;

		if (bsearch(paths[i], ch->v, ch->n, sizeof(*ch->v),
		    in_changes))
			continue;
		upper_lower_state(lower, paths[i], &st);
		if (st.type != UPPER_ABSENT && add_side(repo, irest, &host,
		    paths[i], &st, &b, &why, &large) != 0)
			goto out;
	}
	dopts.flags = GIT_DIFF_SHOW_BINARY;
	if (git_index_write_tree_to(&oid, irest, repo) < 0 ||
	    git_tree_lookup(&tnew, repo, &oid) < 0 ||
	    git_diff_tree_to_tree(&diff, repo, told, tnew, &dopts) < 0 ||
	    (f = create_at(dirfd, "rest.patch")) == NULL)
		goto out;
	r = print_patch(repo, diff, f);
	if (close_checked(f) < 0)
		r = -1;
out:
	git_diff_free(diff);
	git_tree_free(lt);
	git_tree_free(told);
	git_tree_free(tnew);
	git_index_free(irest);
	return r;
}

/* One commit: NNNN.patch, NNNN.meta, its lines of the report. */
static int
write_commit(git_repository *repo, git_commit *c, size_t i, int dirfd,
    FILE *sect, FILE *flagged, char ***paths, size_t *npaths,
    size_t *nflag)
{
	char num[16], name[32];
	git_commit *parent = NULL;
	git_tree *t = NULL, *pt = NULL;
	git_diff *diff = NULL;
	git_diff_options dopts = GIT_DIFF_OPTIONS_INIT;
	const git_signature *a = git_commit_author(c);
	const char *subj = git_commit_summary(c);
	autofree char *ssubj = NULL, *sname = NULL, *smail = NULL;
	FILE *f;
	size_t k;
	bool cut;
	int r = -1;

	snprintf(num, sizeof(num), "%04zu", i + 1);
	/* Binary patches with full index, no rename detection: as apply. */
	dopts.flags = GIT_DIFF_SHOW_BINARY;
	if (git_commit_parent(&parent, c, 0) < 0 ||
	    git_commit_tree(&t, c) < 0 || git_commit_tree(&pt, parent) < 0 ||
	    git_diff_tree_to_tree(&diff, repo, pt, t, &dopts) < 0)
		goto out;
	snprintf(name, sizeof(name), "%s.patch", num);
	if ((f = create_at(dirfd, name)) == NULL)
		goto out;
	if ((print_patch(repo, diff, f) < 0) | (close_checked(f) < 0))
		goto out;
	snprintf(name, sizeof(name), "%s.meta", num);
	if ((f = create_at(dirfd, name)) == NULL)
		goto out;
	cut = write_meta(c, f);
	if (close_checked(f) < 0)
		goto out;
	/* Agent data, on one line each. */
	subj = subj ? subj : "";
	ssubj = term_sanitize(subj, strnlen(subj, 200), 0);
	sname = term_sanitize(a->name, strlen(a->name), 0);
	smail = term_sanitize(a->email, strlen(a->email), 0);
	fprintf(sect, "  %s %s\n    author %s <%s>\n", num, ssubj, sname,
	    smail);
	if (cut)
		fprintf(sect, "    message cut at 64 KiB in %s.meta\n", num);
	diffstat_print(repo, diff, sect, SIZE_MAX, "     ",
	    DIFFSTAT_WIDTH);
	{
		struct repo_cache rc = { .tree = t };

		*nflag += flags(repo, diff, &rc, num, flagged, false);
		repo_cache_free(&rc);
	}
	for (k = 0; k < git_diff_num_deltas(diff); k++) {
		const git_diff_delta *d = git_diff_get_delta(diff, k);

		strv_push(paths, npaths, xstrdup(d->new_file.path));
		if (!streq(d->old_file.path, d->new_file.path))
			strv_push(paths, npaths, xstrdup(d->old_file.path));
	}
	r = 0;
out:
	git_diff_free(diff);
	git_tree_free(t);
	git_tree_free(pt);
	git_commit_free(parent);
	return r;
}

static int
cmp_path(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Sort and make unique; the count left. */
static size_t
uniq(char **v, size_t n)
{
	size_t i, m = 0;

	if (n == 0)
		return 0;
	qsort(v, n, sizeof(*v), cmp_path);
	for (i = 0; i < n; i++) {
		if (m > 0 && streq(v[i], v[m - 1])) {
			free(v[i]);
			continue;
		}
		v[m++] = v[i];
	}
	v[m] = NULL;
	return m;
}

/* commits.tmp/ written whole: the series, its base, the rest. */
static int
write_series(git_repository *repo, struct host_repo *h, const git_oid *ids,
    size_t n, const struct upper_changes *ch, git_index *inew, int lower,
    int sdir, FILE *sect, FILE *flagged, struct series *s)
{
	autoclose int dirfd = -1;
	autostrv char **paths = NULL;
	size_t npaths = 0, i;
	char base[GIT_OID_HEXSZ + 1];
	git_commit *c = NULL;
	FILE *f;
	int r = -1;

	paths = xcalloc(1, sizeof(*paths));
	remove_flat(sdir, "commits.tmp");
	if (mkdirat(sdir, "commits.tmp", 0700) < 0 ||
	    (dirfd = openat(sdir, "commits.tmp", O_RDONLY | O_DIRECTORY |
	    O_NOFOLLOW | O_CLOEXEC)) < 0 ||
	    (f = create_at(dirfd, "base")) == NULL)
		return -1;
	git_oid_tostr(base, sizeof(base), &h->head_id);
	fprintf(f, "%s\n", base);
	if (close_checked(f) < 0)
		return -1;
	for (i = 0; i < n; i++) {
		git_commit_free(c);
		c = NULL;
		if (git_commit_lookup(&c, repo, &ids[i]) < 0 ||
		    write_commit(repo, c, i, dirfd, sect, flagged, &paths,
		    &npaths, &s->nflag) < 0)
			goto out;
	}
	npaths = uniq(paths, npaths);
	if (write_rest(repo, c, paths, npaths, ch, inew, lower, dirfd) < 0)
		goto out;
	s->n = n;
	s->npaths = npaths;
	remove_flat(sdir, "commits");
	r = renameat(sdir, "commits.tmp", sdir, "commits");
out:
	git_commit_free(c);
	return r;
}

/* The commits' flagged lines ("  path (commit N): why"), on stderr. */
static void
say_flagged(const char *text, size_t len)
{
	const char *p = text, *end = text + len, *nl;

	while (p < end && (nl = memchr(p, '\n', (size_t)(end - p)))) {
		fprintf(stderr, "  flagged: %.*s\n", (int)(nl - p - 2), p + 2);
		p = nl + 1;
	}
}

/* The command's own commits, as commits/, and the report's lines. */
static void
commits(git_repository *repo,
    struct host_repo *h, const struct changes_src *src, int sdir,
    const struct upper_changes *ch, git_index *inew, struct series *s)
{
	autofree char *objects = NULL, *note = NULL;
	autofree git_oid *ids = NULL;
	FILE *sect = open_memstream(&s->text, &s->textlen);
	FILE *flagged = open_memstream(&s->flagged, &s->flaggedlen);
	int n;

	if (sect == NULL || flagged == NULL)
		die_errno(errno, "open_memstream");
	if (h->repo)
		objects = path_join(git_repository_path(h->repo), "objects");
	n = commits_find(repo, objects, h->has_head ? &h->head_id : NULL,
	    src, &ids, &note);
	s->found = n != 0;
	if (n > MAX_COMMITS) {
		free(note);
		note = xasprintf("the series stops after %d commits (NNNN)",
		    MAX_COMMITS);
		n = MAX_COMMITS;
	}
	if (n > 0) {
		char base[GIT_OID_HEXSZ + 1];

		git_oid_tostr(base, sizeof(base), &h->head_id);
		fprintf(sect, "commits: %d, in commits/, on %s\n", n, base);
		if (write_series(repo, h, ids, (size_t)n, ch, inew, src->lower,
		    sdir, sect, flagged, s) < 0) {
			fprintf(sect, "commits: cannot be exported: %s\n",
			    errno ? strerror(errno) : git_err());
			remove_flat(sdir, "commits.tmp");
			remove_flat(sdir, "commits");
			s->n = 0;
		}
	} else
		remove_flat(sdir, "commits");
	if (note || n <= 0) {
		autofree char *safe = note ? term_sanitize(note, strlen(note),
		    0) : NULL;

		fprintf(sect, "commits: %s\n", safe ? safe : "none");
	}
	fclose(sect);
	fclose(flagged);
}

/* In the host's HEAD or index: git has a copy of it. */
static bool
tracked(struct host_repo *h, const char *path)
{
	git_tree_entry *te = NULL;

	if (h->head && git_tree_entry_bypath(&te, h->head, path) == 0) {
		git_tree_entry_free(te);
		return true;
	}
	if (!h->index_tried) {
		h->index_tried = true;
		if (git_repository_index(&h->index, h->repo) < 0)
			h->index = NULL;
	}
	/* An unreadable index: said untracked, flagged rather than not. */
	return h->index && git_index_get_bypath(h->index, path, 0);
}

/*
 * Does change i put something of another kind where the host has a file
 * or a directory: a file replacing a directory, a host file beneath it, a
 * directory replacing a host file, a new file beneath it?  Such a group
 * is exported whole, ignored or not, or the patch would delete host data
 * without saying what replaced it (or not apply).
 */
static bool
kind_changed(const struct upper_changes *ch, size_t i,
    const struct changes_src *src)
{
	const struct upper_change *c = &ch->v[i], *a;
	autofree char *anc = xstrdup(c->untrusted_path);
	char *slash;

	if (c->was_dir && c->new.type != UPPER_ABSENT)
		return true;
	if (c->old.type != UPPER_ABSENT && c->now_dir)
		return true;
	if (c->new.type == UPPER_ABSENT &&
	    upper_ancestor_replaced(src, c->untrusted_path))
		return true;
	if (c->old.type != UPPER_ABSENT)
		return false;
	while ((slash = strrchr(anc, '/')) != NULL) {
		*slash = '\0';
		a = bsearch(anc, ch->v, ch->n, sizeof(*ch->v), in_changes);
		if (a && a->old.type != UPPER_ABSENT && a->now_dir)
			return true;
	}
	return false;
}

/*
 * Both sides of every change into iold and inew.  Ignored untracked
 * files are left out (counted), unless the change destroys host data of
 * theirs (kind_changed): then exported and flagged.  A change to host
 * data git has no copy of is flagged; a path that cannot be exported is
 * left out whole and listed as skipped (and flagged when too large).
 * The flags are "path: why" heap strings in *extra.
 */
static int
collect(git_repository *repo, struct host_repo *h, struct upper_changes *ch,
    const struct changes_src *src, git_index *iold, git_index *inew,
    struct counts *cnt, char ***extra, size_t *nextra, char ***large,
    size_t *nlarge)
{
	struct budget b = { UPPER_MAX_TOTAL };
	autostrv char **cut = xcalloc(1, sizeof(*cut));
	size_t i, k, ncut = 0;
	bool large_old, large_new;
	int r;

	*extra = xcalloc(1, sizeof(**extra));
	*large = xcalloc(1, sizeof(**large));
	for (i = 0; i < ch->n; i++) {
		const struct upper_change *c = &ch->v[i];
		autofree char *why = NULL;
		const char *verb = c->new.type == UPPER_ABSENT ? "deletes" :
		    "replaces";
		bool ign = ignored(h, c->untrusted_path);

		/*
		 * Beneath a directory whose replacement is not exported: its
		 * deletions would remove host files for nothing shown.
		 */
		for (k = 0; k < ncut && !path_has_prefix(c->untrusted_path,
		    cut[k]); k++)
			;
		if (k < ncut) {
			strv_push(&ch->untrusted_skipped, &ch->nskipped,
			    xasprintf("%s (beneath %s, which is not exported)",
			    c->untrusted_path, cut[k]));
			continue;
		}
		if (ign && !kind_changed(ch, i, src)) {
			cnt->ignored++;
			continue;
		}
		r = 0;
		large_old = large_new = false;
		if (c->old.type != UPPER_ABSENT)
			r = add_side(repo, iold, src, c->untrusted_path,
			    &c->old, &b, &why, &large_old);
		if (r == 0 && c->new.type != UPPER_ABSENT)
			r = add_side(repo, inew, src, c->untrusted_path,
			    &c->new, &b, &why, &large_new);
		if (r < 0)
			return -1;
		if (r > 0) {
			git_index_remove_bypath(iold, c->untrusted_path);
			git_index_remove_bypath(inew, c->untrusted_path);
			strv_push(&ch->untrusted_skipped, &ch->nskipped,
			    xasprintf("%s (%s)", c->untrusted_path, why));
			if (c->was_dir)
				strv_push(&cut, &ncut,
				    xstrdup(c->untrusted_path));
			if (strncmp(why, "too large", 9) == 0)
				strv_push(extra, nextra, xasprintf("%s: %s",
				    c->untrusted_path, why));
			continue;
		}
		if (large_old || large_new)
			strv_push(large, nlarge, xstrdup(c->untrusted_path));
		if (h->repo == NULL)
			continue;
		if (ign && c->was_dir)
			strv_push(extra, nextra, xasprintf("%s: replaces an "
			    "ignored host directory (untracked, git has no "
			    "copy): applying deletes what it holds",
			    c->untrusted_path));
		if (c->old.type == UPPER_ABSENT)
			continue;
		if (ign)
			strv_push(extra, nextra, xasprintf("%s: ignored host "
			    "data (untracked, git has no copy): applying %s it",
			    c->untrusted_path, verb));
		else if (!tracked(h, c->untrusted_path))
			strv_push(extra, nextra, xasprintf("%s: untracked host "
			    "data (git has no copy): applying %s it",
			    c->untrusted_path, verb));
	}
	return 0;
}

/* confine's own facts of the export, for cmd/ (store/session-meta.h). */
static int
write_summary(const struct export_opts *o, const struct counts *c,
    const struct series *ser, int ret)
{
	autofree char *text = NULL, *refused = NULL;

	refused = c->refused < 0 ? xstrdup("") :
	    xasprintf("refused=%ld\n", c->refused);
	text = xasprintf("version=1\nfiles=%zu\nadded=%zu\nmodified=%zu\n"
	    "deleted=%zu\nrenamed=%zu\ncommits=%zu\ncommit_paths=%zu\n"
	    "flagged=%zu\nignored=%zu\nskipped=%zu\n%sreview=%d\n",
	    c->files, c->added, c->modified, c->deleted, c->renamed, ser->n,
	    ser->npaths, c->flagged, c->ignored, c->skipped, refused,
	    ret == 0);
	return session_file_put(o->session_dir, "summary", text);
}

static int
tree_of(git_repository *repo, git_index *idx, git_tree **ret)
{
	git_oid id;

	if (git_index_write_tree_to(&id, idx, repo) < 0 ||
	    git_tree_lookup(ret, repo, &id) < 0)
		return -1;
	return 0;
}

/* Move the entry at path, if any, from one index to another. */
static int
move_entry(git_index *from, git_index *to, const char *path)
{
	const git_index_entry *e = git_index_get_bypath(from, path, 0);

	if (e == NULL)
		return 0;
	if (git_index_add(to, e) < 0 || git_index_remove_bypath(from,
	    path) < 0)
		return -1;
	return 0;
}

/*
 * The diff of iold against inew, renames found.  The paths with a large
 * side (export/large.h) are diffed apart and renamed only when their bytes
 * are the same, then merged in: libgit2's similarity reads a blob whole,
 * which a large one refuses.  inew keeps all its entries.  0, or -1 (a
 * libgit2 error).
 */
static int
diff_changes(git_repository *repo, git_index *iold, git_index *inew,
    char *const *large, size_t nlarge, git_diff **ret)
{
	git_index *lold = NULL, *lnew = NULL;
	git_tree *told = NULL, *tnew = NULL, *ltold = NULL, *ltnew = NULL;
	git_diff *diff = NULL, *ldiff = NULL;
	git_diff_options dopts = GIT_DIFF_OPTIONS_INIT;
	git_diff_find_options fopts = GIT_DIFF_FIND_OPTIONS_INIT;
	size_t i;
	int r = -1;

	if (git_index_new(&lold) < 0 || git_index_new(&lnew) < 0)
		goto out;
	for (i = 0; i < nlarge; i++)
		if (move_entry(iold, lold, large[i]) < 0 ||
		    move_entry(inew, lnew, large[i]) < 0)
			goto out;
	/* No TYPECHANGE: git apply wants a type change as delete + add. */
	dopts.flags = GIT_DIFF_SHOW_BINARY;
	fopts.flags = GIT_DIFF_FIND_RENAMES;
	if (tree_of(repo, iold, &told) < 0 || tree_of(repo, inew, &tnew) < 0 ||
	    git_diff_tree_to_tree(&diff, repo, told, tnew, &dopts) < 0 ||
	    git_diff_find_similar(diff, &fopts) < 0)
		goto out;
	if (nlarge > 0) {
		fopts.flags = GIT_DIFF_FIND_RENAMES |
		    GIT_DIFF_FIND_EXACT_MATCH_ONLY;
		if (tree_of(repo, lold, &ltold) < 0 ||
		    tree_of(repo, lnew, &ltnew) < 0 ||
		    git_diff_tree_to_tree(&ldiff, repo, ltold, ltnew,
		    &dopts) < 0 || git_diff_find_similar(ldiff, &fopts) < 0 ||
		    git_diff_merge(diff, ldiff) < 0)
			goto out;
		for (i = 0; i < nlarge; i++)
			if (move_entry(lnew, inew, large[i]) < 0)
				goto out;
	}
	*ret = steal_ptr(&diff);
	r = 0;
out:
	git_diff_free(diff);
	git_diff_free(ldiff);
	git_tree_free(told);
	git_tree_free(tnew);
	git_tree_free(ltold);
	git_tree_free(ltnew);
	git_index_free(lold);
	git_index_free(lnew);
	return r;
}

static int
run(const struct export_opts *o, git_repository *repo,
    const struct changes_src *src, int sdir)
{
	struct upper_changes ch = { 0 };
	struct host_repo host;
	struct counts cnt = { 0 };
	git_index *iold = NULL, *inew = NULL;
	git_diff *diff = NULL;
	FILE *patch = NULL, *report = NULL;
	const char *where;
	autostrv char **extra = NULL, **large = NULL;
	struct series ser = { 0 };
	struct repo_cache rc = { .src = src };
	size_t i, nflag, nextra = 0, nlarge = 0;
	int r, ret = -1;

	if ((r = upper_changes(src, &ch, &where)) < 0) {
		log_warn("export: cannot read the %s: %s", where, strerror(-r));
		return -1;
	}
	host_open(o->workspace, &host);
	if (git_index_new(&iold) < 0 || git_index_new(&inew) < 0)
		goto out;
	if (collect(repo, &host, &ch, src, iold, inew, &cnt,
	    &extra, &nextra, &large, &nlarge) < 0)
		goto out;
	if (diff_changes(repo, iold, inew, large, nlarge, &diff) < 0)
		goto giterr;

	if ((patch = tmp_file(sdir, "changes.patch")) == NULL ||
	    (report = tmp_file(sdir, "report")) == NULL) {
		log_warn("export: cannot write in '%s': %s", o->session_dir,
		    strerror(errno));
		goto out;
	}
	if (print_patch(repo, diff, patch) < 0) {
		if (ferror(patch)) {
			r = sink_finish(patch);
			patch = NULL;
			unlinkat(sdir, "changes.patch.tmp", 0);
			log_warn("export: cannot write '%s/changes.patch': %s",
			    o->session_dir, strerror(r));
			goto out;
		}
		goto giterr;
	}
	count(diff, &cnt);

	fprintf(report, "session %s\nworkspace %s\n", o->session_id,
	    o->workspace);
	if (o->several)
		fprintf(report, "untrusted: what the agent wrote here (notes, "
		    "instructions, code) is untrusted content for whoever "
		    "reads it next: an agent that reads it processes untrusted "
		    "input (leg A)\n");
	stopped(o, report);
	commits(repo, &host, src, sdir, &ch, inew, &ser);
	fprintf(report, "changes: %zu added, %zu modified, %zu deleted, "
	    "%zu renamed", cnt.added, cnt.modified, cnt.deleted, cnt.renamed);
	if (ser.n > 0)
		fprintf(report, "; and %zu commit%s changing %zu path%s",
		    ser.n, ser.n == 1 ? "" : "s", ser.npaths,
		    ser.npaths == 1 ? "" : "s");
	fprintf(report, "\n");
	diffstat_print(repo, diff, report, SIZE_MAX, " ", DIFFSTAT_WIDTH);
	fwrite(ser.text, 1, ser.textlen, report);
	if (!o->quiet && (git_diff_num_deltas(diff) > 0 || ser.n > 0)) {
		fprintf(stderr, "confine: session %s: %zu file%s changed%s%s\n",
		    o->session_id, git_diff_num_deltas(diff),
		    git_diff_num_deltas(diff) == 1 ? "" : "s",
		    o->several ? " in " : "", o->several ? o->workspace : "");
		diffstat_print(repo, diff, stderr, 40, " ", stderr_width());
		if (ser.n > 0)
			fprintf(stderr, "  %zu commit%s changing %zu path%s, in "
			    "commits/ (confine show)\n", ser.n, ser.n == 1 ?
			    "" : "s", ser.npaths, ser.npaths == 1 ? "" : "s");
	}
	fprintf(report, "flagged (can run code on the host, hide what the "
	    "review shows, or undo a host change):\n");
	nflag = flags(repo, diff, &rc, NULL, report, !o->quiet);
	repo_cache_free(&rc);
	nflag += flags_host(&ch, extra, nextra, o, report, !o->quiet);
	fwrite(ser.flagged, 1, ser.flaggedlen, report);
	if (!o->quiet)
		say_flagged(ser.flagged, ser.flaggedlen);
	nflag += ser.nflag;
	if (nflag == 0)
		fprintf(report, "  none\n");
	fprintf(report, "ignored by .gitignore, not exported: %zu\n",
	    cnt.ignored);
	network(o, sdir, report, &cnt);
	limits(o, report);
	fprintf(report, "skipped:\n");
	for (i = 0; i < ch.nskipped; i++) {
		const char *untrusted_s = ch.untrusted_skipped[i];
		autofree char *safe = untrusted_display(untrusted_wrap(
		    untrusted_s, strlen(untrusted_s)), 0);

		fprintf(report, "  %s\n", safe);
	}
	if (ch.nskipped == 0)
		fprintf(report, "  none\n");
	if ((r = commit_file(sdir, "changes.patch", patch)) < 0 ||
	    (patch = NULL, (r = commit_file(sdir, "report", report)) < 0)) {
		report = NULL;
		log_warn("export: cannot write in '%s': %s", o->session_dir,
		    strerror(-r));
		goto out;
	}
	report = NULL;
	/*
	 * Nothing for the user: the caller drops the session.  What the
	 * proxy refused is no change to review: said at exit, not kept.
	 */
	ret = git_diff_num_deltas(diff) == 0 && ch.nskipped == 0 &&
	    !ser.found ? 1 : 0;
	cnt.files = git_diff_num_deltas(diff);
	cnt.flagged = nflag;
	cnt.skipped = ch.nskipped;
	if ((r = write_summary(o, &cnt, &ser, ret)) < 0) {
		log_warn("export: cannot write '%s/summary': %s",
		    o->session_dir, strerror(-r));
		ret = -1;
		goto out;
	}
	if (!o->quiet && ret == 0) {
		if (cnt.ignored)
			fprintf(stderr, "  %zu ignored by .gitignore, not "
			    "exported\n", cnt.ignored);
		fprintf(stderr, "  review: confine diff %s    apply: confine "
		    "apply %s\n", o->session_id, o->session_id);
	}
	goto out;
giterr:
	log_warn("export: %s", git_err());
out:
	if (patch) {
		fclose(patch);
		unlinkat(sdir, "changes.patch.tmp", 0);
	}
	if (report) {
		fclose(report);
		unlinkat(sdir, "report.tmp", 0);
	}
	git_diff_free(diff);
	git_index_free(iold);
	git_index_free(inew);
	host_close(&host);
	upper_changes_free(&ch);
	free(ser.text);
	free(ser.flagged);
	return ret;
}

int
export_session(const struct export_opts *o)
{
	git_repository *repo = NULL;
	git_odb *odb = NULL;
	git_odb_backend *mem = NULL;
	autoclose int lower = -1, upper = -1, sdir = -1;
	struct changes_src src = { .copy = o->copy };
	int r = -1;

	if ((lower = open(o->workspace, O_PATH | O_DIRECTORY | O_CLOEXEC)) < 0 ||
	    (sdir = open(o->session_dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
	    O_CLOEXEC)) < 0 ||
	    (upper = openat(sdir, "upper", O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
	    O_CLOEXEC)) < 0) {
		log_warn("export: cannot open the session's layers: %s",
		    strerror(errno));
		return -1;
	}
	git_libgit2_init();
	/* A repository of our own: objects in memory, no config, no hooks. */
	if (git_repository_new(&repo) < 0 || git_odb_new(&odb) < 0 ||
	    git_mempack_new(&mem) < 0 || git_odb_add_backend(odb, mem, 1) < 0) {
		log_warn("export: %s", git_err());
		goto out;
	}
	mem = NULL;
	if (large_backend_add(odb) < 0) {
		log_warn("export: %s", git_err());
		goto out;
	}
	git_repository_set_odb(repo, odb);
	src.lower = lower;
	src.upper = upper;
	r = run(o, repo, &src, sdir);
out:
	if (mem)
		mem->free(mem);
	git_odb_free(odb);
	git_repository_free(repo);
	git_libgit2_shutdown();
	return r;
}
