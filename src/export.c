// SPDX-License-Identifier: ISC
/*
 * export.c - build the patch from the changed paths only: the old side of
 * each from the host workspace (the overlay's lower layer), the new side
 * from the merged view, as two sparse trees in a private in-memory object
 * database; diff them with rename detection and print a patch that
 * "git apply --binary" takes (research/ecosystem.md section 3).
 *
 * Runs in: confine-export, outside any sandbox, after it.  The upper layer
 * is untrusted input, read through fds only (upper.c).
 * MUST: never run git, hooks, filters or configuration of an agent-written
 * repository; never write to the host repository (the object database is
 * a private mempack; the host repository is only opened to read its
 * ignore rules, index and HEAD).
 * MUST: write outputs under a temporary name and rename them.
 * MUST: sanitise every agent-written string shown on a terminal.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <git2.h>
#include <git2/sys/mempack.h>
#include <git2/sys/odb_backend.h>
#include <git2/sys/repository.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "commits.h"
#include "export.h"
#include "flag.h"
#include "log.h"
#include "term.h"
#include "upper.h"
#include "util.h"

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

static int
add_side(git_repository *repo, git_index *idx, int lower, int upper,
    const char *path, const struct upper_state *st)
{
	git_index_entry e;
	autofree char *buf = NULL;
	size_t len = 0;
	int r;

	if ((r = upper_read(lower, upper, path, st, &buf, &len)) < 0) {
		log_warn("export: cannot read '%s': %s", path, strerror(-r));
		return -1;
	}
	memset(&e, 0, sizeof(e));
	e.path = path;
	e.mode = st->type == UPPER_LINK ? GIT_FILEMODE_LINK :
	    (st->mode & S_IXUSR) ? GIT_FILEMODE_BLOB_EXECUTABLE :
	    GIT_FILEMODE_BLOB;
	if (git_blob_create_from_buffer(&e.id, repo, buf, len) < 0)
		return -1;
	/* A name git refuses (".GIT/x", "a/../b"): skipped, and said. */
	if (git_index_add(idx, &e) < 0)
		return 1;
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
 * libgit2 1.5's rename detection can put the ADDED half of a type change
 * before its DELETED half; git apply wants the deletion first.
 */
static int
print_patch(git_diff *diff, FILE *out)
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
				fwrite(buf.ptr, 1, buf.size, out);
			}
			git_buf_dispose(&buf);
			git_patch_free(patch);
		}
	}
	return ferror(out) ? -1 : 0;
}

static FILE	*tmp_file(int, const char *);
static int	 commit_file(int, const char *, FILE *);

/* The proxy's counts and refusals, which the supervisor noted. */
static bool
network(int sdir, FILE *report)
{
	autoclose int fd = openat(sdir, "network", O_RDONLY | O_NOFOLLOW |
	    O_CLOEXEC);
	char buf[16384];
	bool refused = false;
	ssize_t n;

	if (fd < 0) {
		fprintf(report, "network: no connection through the proxy\n");
		return false;
	}
	/* confine wrote it: "  refused HOST:PORT" lines after the counts. */
	while ((n = read(fd, buf, sizeof(buf))) > 0) {
		fwrite(buf, 1, (size_t)n, report);
		refused |= memmem(buf, (size_t)n, "\n  refused ", 11) != NULL;
	}
	return refused;
}

/* Open NAME.tmp in the session for writing; renamed by commit_file(). */
static FILE *
tmp_file(int dirfd, const char *name)
{
	autofree char *tmp = xasprintf("%s.tmp", name);
	int fd;
	FILE *f;

	unlinkat(dirfd, tmp, 0);
	if ((fd = openat(dirfd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC |
	    O_NOFOLLOW, 0600)) < 0)
		return NULL;
	if ((f = fdopen(fd, "w")) == NULL)
		close(fd);
	return f;
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
	if (fflush(f) != 0 || ferror(f))
		err = errno ? errno : EIO;
	if (fclose(f) != 0 && err == 0)
		err = errno;
	if (err == 0 && renameat(dirfd, tmp, dirfd, name) < 0)
		err = errno;
	if (err) {
		unlinkat(dirfd, tmp, 0);
		return -err;
	}
	return 0;
}

/*
 * A diffstat of our own: libgit2's prints a name with a newline in it as
 * two lines, so a file name could forge a line of the summary.
 */
static void
diffstat(git_diff *diff, FILE *out, size_t max)
{
	size_t n = git_diff_num_deltas(diff), i, adds = 0, dels = 0;

	for (i = 0; i < n; i++) {
		const git_diff_delta *d = git_diff_get_delta(diff, i);
		const char *np = d->new_file.path, *op = d->old_file.path;
		autofree char *name = term_sanitize(np, strlen(np), 0);
		autofree char *old = term_sanitize(op, strlen(op), 0);
		git_patch *patch = NULL;
		size_t a = 0, del = 0;

		if (git_patch_from_diff(&patch, diff, i) == 0 && patch)
			git_patch_line_stats(NULL, &a, &del, patch);
		git_patch_free(patch);
		adds += a;
		dels += del;
		if (i >= max) {
			if (i == max)
				fprintf(out, " ... and %zu more (confine show)\n",
				    n - max);
			continue;
		}
		if (d->status == GIT_DELTA_RENAMED)
			fprintf(out, " %s => %s |", old, name);
		else
			fprintf(out, " %s |", name);
		if (d->flags & GIT_DIFF_FLAG_BINARY)
			fprintf(out, " Bin\n");
		else
			fprintf(out, " %zu +, %zu -\n", a, del);
	}
	fprintf(out, " %zu file%s changed, %zu insertion%s(+), %zu deletion%s"
	    "(-)\n", n, n == 1 ? "" : "s", adds, adds == 1 ? "" : "s", dels,
	    dels == 1 ? "" : "s");
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
 * A HEAD, config or packed-refs beside a HEAD: the internals of a nested
 * (bare) repository, whose config git would obey when run there.
 */
static bool
nested_repo(git_index *inew, const char *path)
{
	const char *base = strrchr(path, '/');
	autofree char *head = NULL;

	base = base ? base + 1 : path;
	if (!streq(base, "HEAD") && !streq(base, "config") &&
	    !streq(base, "packed-refs"))
		return false;
	head = xasprintf("%.*sHEAD", (int)(base - path), path);
	return git_index_get_bypath(inew, head, 0) != NULL;
}

/* Flagged paths, with why, into the report and (sanitised) stderr. */
static size_t
flags(git_diff *diff, const struct upper_changes *ch, git_index *inew,
    const struct export_opts *o, FILE *report, bool say)
{
	size_t n = git_diff_num_deltas(diff), i, j, nflag = 0;

	for (i = 0; i < n; i++) {
		const git_diff_delta *d = git_diff_get_delta(diff, i);
		const char *path = d->new_file.path;
		const char *why = flag_path(path);
		autofree char *safe = NULL;

		if (why == NULL && d->status != GIT_DELTA_DELETED &&
		    nested_repo(inew, path))
			why = "a nested git repository's internals: git run "
			    "there obeys its config and hooks";
		if (why == NULL && d->new_file.mode == GIT_FILEMODE_LINK &&
		    d->status != GIT_DELTA_DELETED)
			why = "a symbolic link: applying creates it on the host";
		if (why == NULL && d->new_file.mode ==
		    GIT_FILEMODE_BLOB_EXECUTABLE && d->old_file.mode !=
		    GIT_FILEMODE_BLOB_EXECUTABLE && d->status != GIT_DELTA_DELETED)
			why = "made executable";
		if (why == NULL)
			continue;
		safe = term_sanitize(path, strlen(path), 0);
		fprintf(report, "  %s: %s\n", safe, why);
		if (say)
			fprintf(stderr, "  flagged: %s: %s\n", safe, why);
		nflag++;
	}
	/* The host changed a file the command changed too. */
	for (j = 0; j < ch->n; j++) {
		const struct upper_change *c = &ch->v[j];
		autofree char *safe = NULL;

		if (c->old.type == UPPER_ABSENT ||
		    !timespec_ge(&c->old.ctime, &o->started))
			continue;
		safe = term_sanitize(c->path, strlen(c->path), 0);
		fprintf(report, "  %s: changed on the host during the session; "
		    "the patch would undo that change\n", safe);
		if (say)
			fprintf(stderr, "  flagged: %s: changed on the host during "
			    "the session\n", safe);
		nflag++;
	}
	return nflag;
}

/*
 * What is left after the commits: the final tree against the last
 * commit's, over the changed paths, for "apply --commits".
 */
static int
uncommitted(git_repository *repo, const git_oid *head,
    const struct upper_changes *ch, git_index *inew, int sdir)
{
	git_commit *c = NULL;
	git_tree *ht = NULL, *told = NULL, *tnew = NULL;
	git_index *iold = NULL;
	git_diff *diff = NULL;
	git_diff_options dopts = GIT_DIFF_OPTIONS_INIT;
	git_oid oid;
	FILE *f = NULL;
	size_t i;
	int r = -1;

	if (git_commit_lookup(&c, repo, head) < 0 ||
	    git_commit_tree(&ht, c) < 0 || git_index_new(&iold) < 0)
		goto out;
	for (i = 0; i < ch->n; i++) {
		git_tree_entry *te = NULL;
		git_index_entry e;

		if (git_tree_entry_bypath(&te, ht, ch->v[i].path) < 0)
			continue;
		memset(&e, 0, sizeof(e));
		e.path = ch->v[i].path;
		e.mode = git_tree_entry_filemode(te);
		git_oid_cpy(&e.id, git_tree_entry_id(te));
		r = git_index_add(iold, &e);
		git_tree_entry_free(te);
		if (r < 0)
			goto out;
	}
	r = -1;
	dopts.flags = GIT_DIFF_SHOW_BINARY;
	if (git_index_write_tree_to(&oid, iold, repo) < 0 ||
	    git_tree_lookup(&told, repo, &oid) < 0 ||
	    git_index_write_tree_to(&oid, inew, repo) < 0 ||
	    git_tree_lookup(&tnew, repo, &oid) < 0 ||
	    git_diff_tree_to_tree(&diff, repo, told, tnew, &dopts) < 0 ||
	    (f = tmp_file(sdir, "uncommitted.patch")) == NULL ||
	    print_patch(diff, f) < 0)
		goto out;
	r = commit_file(sdir, "uncommitted.patch", f);
	f = NULL;
out:
	if (f) {
		fclose(f);
		unlinkat(sdir, "uncommitted.patch.tmp", 0);
	}
	git_diff_free(diff);
	git_tree_free(told);
	git_tree_free(tnew);
	git_tree_free(ht);
	git_index_free(iold);
	git_commit_free(c);
	return r;
}

/* The command's own commits, as commits.mbox, and a line of report. */
static bool
commits(const struct export_opts *o, git_repository *repo,
    struct host_repo *h, int lower, int upper, int sdir, FILE *report,
    const struct upper_changes *ch, git_index *inew)
{
	autofree char *objects = NULL, *note = NULL;
	git_oid head;
	FILE *mbox;
	int n, r;

	if (h->repo)
		objects = path_join(git_repository_path(h->repo), "objects");
	if ((mbox = tmp_file(sdir, "commits.mbox")) == NULL) {
		fprintf(report, "commits: cannot write commits.mbox: %s\n",
		    strerror(errno));
		return false;
	}
	n = commits_export(repo, objects, h->has_head ? &h->head_id : NULL,
	    lower, upper, mbox, &head, &note);
	if (n > 0 && (r = commit_file(sdir, "commits.mbox", mbox)) == 0) {
		char base[GIT_OID_HEXSZ + 1];

		git_oid_tostr(base, sizeof(base), &h->head_id);
		fprintf(report, "commits: %d, in commits.mbox (git am), on "
		    "%s\n", n, base);
		if (uncommitted(repo, &head, ch, inew, sdir) < 0)
			fprintf(report, "commits: the changes after the last "
			    "commit could not be exported separately\n");
		if (!o->quiet)
			fprintf(stderr, "  %d commit%s, in commits.mbox\n", n,
			    n == 1 ? "" : "s");
	} else {
		if (n > 0)
			fprintf(report, "commits: cannot write commits.mbox: "
			    "%s\n", strerror(-r));
		else
			fclose(mbox);
		unlinkat(sdir, "commits.mbox.tmp", 0);
		fprintf(report, "commits: %s\n", note ? note : "none");
	}
	return n > 0;
}

static int
run(const struct export_opts *o, git_repository *repo, int lower, int upper,
    int sdir)
{
	struct upper_changes ch = { 0 };
	struct host_repo host;
	struct counts cnt = { 0 };
	git_index *iold = NULL, *inew = NULL;
	git_oid toid, tnew;
	git_tree *told = NULL, *tnewt = NULL;
	git_diff *diff = NULL;
	git_diff_options dopts = GIT_DIFF_OPTIONS_INIT;
	git_diff_find_options fopts = GIT_DIFF_FIND_OPTIONS_INIT;
	FILE *patch = NULL, *report = NULL;
	const char *where;
	size_t i, nflag;
	int r, ret = -1;
	bool has_commits, refused;

	if ((r = upper_changes(lower, upper, &ch, &where)) < 0) {
		log_warn("export: cannot read the %s: %s", where, strerror(-r));
		return -1;
	}
	host_open(o->workspace, &host);
	if (git_index_new(&iold) < 0 || git_index_new(&inew) < 0)
		goto out;
	for (i = 0; i < ch.n; i++) {
		const struct upper_change *c = &ch.v[i];

		/*
		 * Ignored untracked files are not exported, except the
		 * deletions that let a directory become a file or a link:
		 * without them the patch could not apply.
		 */
		if (ignored(&host, c->path) && !(c->new.type == UPPER_ABSENT &&
		    upper_ancestor_replaced(lower, upper, c->path))) {
			cnt.ignored++;
			continue;
		}
		r = 0;
		if (c->old.type != UPPER_ABSENT)
			r = add_side(repo, iold, lower, upper, c->path, &c->old);
		if (r == 0 && c->new.type != UPPER_ABSENT)
			r = add_side(repo, inew, lower, upper, c->path, &c->new);
		if (r < 0)
			goto out;
		if (r > 0) {
			git_index_remove_bypath(iold, c->path);
			strv_push(&ch.skipped, &ch.nskipped, xasprintf("%s (git "
			    "refuses the name: %s)", c->path, git_err()));
		}
	}
	if (git_index_write_tree_to(&toid, iold, repo) < 0 ||
	    git_index_write_tree_to(&tnew, inew, repo) < 0 ||
	    git_tree_lookup(&told, repo, &toid) < 0 ||
	    git_tree_lookup(&tnewt, repo, &tnew) < 0)
		goto giterr;
	/* No TYPECHANGE: git apply wants a type change as delete + add. */
	dopts.flags = GIT_DIFF_SHOW_BINARY;
	if (git_diff_tree_to_tree(&diff, repo, told, tnewt, &dopts) < 0)
		goto giterr;
	fopts.flags = GIT_DIFF_FIND_RENAMES;
	if (git_diff_find_similar(diff, &fopts) < 0)
		goto giterr;

	if ((patch = tmp_file(sdir, "changes.patch")) == NULL ||
	    (report = tmp_file(sdir, "report")) == NULL) {
		log_warn("export: cannot write in '%s': %s", o->session_dir,
		    strerror(errno));
		goto out;
	}
	if (print_patch(diff, patch) < 0) {
		if (ferror(patch)) {
			log_warn("export: cannot write '%s/changes.patch': %s",
			    o->session_dir, strerror(errno));
			goto out;
		}
		goto giterr;
	}
	count(diff, &cnt);

	fprintf(report, "session %s\nworkspace %s\n", o->session_id,
	    o->workspace);
	fprintf(report, "changes: %zu added, %zu modified, %zu deleted, "
	    "%zu renamed\n", cnt.added, cnt.modified, cnt.deleted,
	    cnt.renamed);
	diffstat(diff, report, SIZE_MAX);
	if (!o->quiet && git_diff_num_deltas(diff) > 0) {
		fprintf(stderr, "confine: session %s: %zu file%s changed\n",
		    o->session_id, git_diff_num_deltas(diff),
		    git_diff_num_deltas(diff) == 1 ? "" : "s");
		diffstat(diff, stderr, 40);
	}
	has_commits = commits(o, repo, &host, lower, upper, sdir, report, &ch,
	    inew);
	fprintf(report, "flagged (can run code on the host, or undo a host "
	    "change):\n");
	nflag = flags(diff, &ch, inew, o, report, !o->quiet);
	if (nflag == 0)
		fprintf(report, "  none\n");
	fprintf(report, "ignored by .gitignore, not exported: %zu\n",
	    cnt.ignored);
	refused = network(sdir, report);
	fprintf(report, "skipped:\n");
	for (i = 0; i < ch.nskipped; i++) {
		autofree char *safe = term_sanitize(ch.skipped[i],
		    strlen(ch.skipped[i]), 0);

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
	/* Nothing for the user: the caller drops the session. */
	/* A refused connection is worth a look too: the session stays. */
	ret = git_diff_num_deltas(diff) == 0 && ch.nskipped == 0 &&
	    !has_commits && !refused ? 1 : 0;
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
	git_tree_free(told);
	git_tree_free(tnewt);
	git_index_free(iold);
	git_index_free(inew);
	host_close(&host);
	upper_changes_free(&ch);
	return ret;
}

int
export_session(const struct export_opts *o)
{
	git_repository *repo = NULL;
	git_odb *odb = NULL;
	git_odb_backend *mem = NULL;
	autoclose int lower = -1, upper = -1, sdir = -1;
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
	git_repository_set_odb(repo, odb);
	r = run(o, repo, lower, upper, sdir);
out:
	if (mem)
		mem->free(mem);
	git_odb_free(odb);
	git_repository_free(repo);
	git_libgit2_shutdown();
	return r;
}
