// SPDX-License-Identifier: ISC
/*
 * export/commits.c - find the command's commits (research/ecosystem.md section
 * 3.4), which export/patch.c writes as SESSION/commits/, without git and
 * without trusting the session's .git: HEAD and refs are parsed here,
 * loose objects are inflated from fds beneath the upper layer into the
 * private object database (at most 32 MiB each, 256 MiB in all), the
 * host's objects are an alternate (read, never written).
 *
 * Runs in: confine-export, after the patch.
 * MUST: never follow a link in the upper layer, never read the session
 * repository's config, hooks or attributes.
 */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include <git2/sys/odb_backend.h>

#include "export/changes.h"
#include "export/commits.h"
#include "export/git-bytes.h"
#include "lib/fdio.h"
#include "lib/util.h"

/* One object inflated, and all of them: agent data, in memory. */
#define MAX_OBJECT	(33UL * 1024 * 1024)
#define MAX_IMPORT	(256UL * 1024 * 1024)

/* The commit the session's HEAD names, through its ref or packed-refs. */
static int
session_head(const struct changes_src *src, git_oid *ret)
{
	autofree char *untrusted_head = NULL, *untrusted_ref = NULL;
	autofree char *untrusted_packed = NULL, *path = NULL;
	const char *ref = NULL;
	size_t len;
	int r;

	if (upper_read_merged(src, ".git/HEAD", &untrusted_head, &len) < 0)
		return -1;
	untrusted_head = xreallocarray(untrusted_head, 1, len + 1);
	if ((r = git_bytes_head(untrusted_head, len, ret, &ref)) <= 0)
		return r;
	path = xasprintf(".git/%s", ref);
	if (upper_read_merged(src, path, &untrusted_ref, &len) == 0 &&
	    git_bytes_ref(untrusted_ref, len, ret) == 0)
		return 0;
	if (upper_read_merged(src, ".git/packed-refs", &untrusted_packed,
	    &len) < 0)
		return -1;
	untrusted_packed = xreallocarray(untrusted_packed, 1, len + 1);
	return git_bytes_packed_ref(untrusted_packed, len, ref, ret);
}

/*
 * The host's objects, read only.  libgit2 "freshens" an object it is asked
 * to write when a backend has it already: with the plain loose and pack
 * backends that touches the host's files (mtime).  This wrapper forwards
 * reads and has no write and no freshen, so nothing of the host's changes.
 */
struct ro_backend {
	git_odb_backend	 parent;
	git_odb_backend	*inner;
};

static int
ro_read(void **data, size_t *len, git_object_t *type, git_odb_backend *b,
    const git_oid *oid)
{
	git_odb_backend *in = ((struct ro_backend *)b)->inner;

	return in->read(data, len, type, in, oid);
}

static int
ro_read_prefix(git_oid *out, void **data, size_t *len, git_object_t *type,
    git_odb_backend *b, const git_oid *oid, size_t n)
{
	git_odb_backend *in = ((struct ro_backend *)b)->inner;

	return in->read_prefix(out, data, len, type, in, oid, n);
}

static int
ro_read_header(size_t *len, git_object_t *type, git_odb_backend *b,
    const git_oid *oid)
{
	git_odb_backend *in = ((struct ro_backend *)b)->inner;

	return in->read_header(len, type, in, oid);
}

static int
ro_exists(git_odb_backend *b, const git_oid *oid)
{
	git_odb_backend *in = ((struct ro_backend *)b)->inner;

	return in->exists(in, oid);
}

static int
ro_exists_prefix(git_oid *out, git_odb_backend *b, const git_oid *oid,
    size_t n)
{
	git_odb_backend *in = ((struct ro_backend *)b)->inner;

	return in->exists_prefix(out, in, oid, n);
}

static int
ro_refresh(git_odb_backend *b)
{
	git_odb_backend *in = ((struct ro_backend *)b)->inner;

	return in->refresh ? in->refresh(in) : 0;
}

static void
ro_free(git_odb_backend *b)
{
	git_odb_backend *in = ((struct ro_backend *)b)->inner;

	in->free(in);
	free(b);
}

static void
add_read_only(git_odb *odb, git_odb_backend *inner, int prio)
{
	struct ro_backend *r = xcalloc(1, sizeof(*r));

	git_odb_init_backend(&r->parent, GIT_ODB_BACKEND_VERSION);
	r->inner = inner;
	r->parent.read = ro_read;
	r->parent.read_prefix = ro_read_prefix;
	r->parent.read_header = ro_read_header;
	r->parent.exists = ro_exists;
	r->parent.exists_prefix = ro_exists_prefix;
	r->parent.refresh = ro_refresh;
	r->parent.free = ro_free;
	if (git_odb_add_alternate(odb, &r->parent, prio) < 0)
		ro_free(&r->parent);
}

/* The host repository's packs and loose objects, as read-only alternates. */
void
commits_add_host_objects(git_odb *odb, const char *dir)
{
	git_odb_backend *b = NULL;

	if (git_odb_backend_pack(&b, dir) == 0)
		add_read_only(odb, b, 2);
	b = NULL;
	if (git_odb_backend_loose(&b, dir, 0, 0, 0, 0) == 0)
		add_read_only(odb, b, 3);
}

/*
 * Inflate one loose object (agent data, at most MAX_OBJECT) and store it
 * in the private database; *budget is what is left of MAX_IMPORT.
 */
static int
import(git_odb *odb, const struct changes_src *src, int dirfd,
    const char *name, size_t *budget)
{
	autoclose int fd = openat(dirfd, name, O_RDONLY | O_NOFOLLOW |
	    O_CLOEXEC | O_NONBLOCK);
	autofree unsigned char *untrusted_out = NULL;
	unsigned char untrusted_in[65536];
	size_t cap = 65536, len = 0, off;
	z_stream z = { 0 };
	git_object_t type;
	git_oid oid;
	ssize_t n;
	int zr = Z_OK;
	struct stat st;

	if (fd < 0 || fstat(fd, &st) < 0)
		return -1;
	/* A whole copy holds the host's objects too: only the new ones. */
	if (upper_copy_unchanged(src, &st))
		return 0;
	if (!S_ISREG(st.st_mode))
		return -1;
	if (inflateInit(&z) != Z_OK)
		return -1;
	untrusted_out = xmalloc(cap);
	while (zr != Z_STREAM_END &&
	    (n = read(fd, untrusted_in, sizeof(untrusted_in))) > 0) {
		z.next_in = untrusted_in;
		z.avail_in = (unsigned)n;
		do {
			if (len == cap) {
				if (cap >= MAX_OBJECT || cap >= *budget)
					goto bad;
				untrusted_out = xreallocarray(untrusted_out, 2,
				    cap);
				cap *= 2;
			}
			z.next_out = untrusted_out + len;
			z.avail_out = (unsigned)(cap - len);
			zr = inflate(&z, Z_NO_FLUSH);
			len = cap - z.avail_out;
			if (zr != Z_OK && zr != Z_STREAM_END && zr != Z_BUF_ERROR)
				goto bad;
		} while (z.avail_in > 0 && zr != Z_STREAM_END);
	}
	inflateEnd(&z);
	if (zr != Z_STREAM_END ||
	    git_bytes_object(untrusted_out, len, &type, &off) < 0)
		return -1;
	*budget = len > *budget ? 0 : *budget - len;
	return git_odb_write(&oid, odb, untrusted_out + off, len - off, type);
bad:
	inflateEnd(&z);
	return -1;
}

/*
 * Every loose object the session wrote: .git/objects/XX/YYYY...  -1 when
 * they are over MAX_IMPORT in all (what is left would be a partial
 * history, read as missing objects).
 */
static int
import_all(git_odb *odb, const struct changes_src *src)
{
	autoclose int objs = -1;
	DIR *d;
	struct dirent *e;
	size_t budget = MAX_IMPORT;

	if ((objs = fd_open_at(src->upper, ".git/objects", O_RDONLY |
	    O_DIRECTORY, 0, FD_BENEATH)) < 0)
		return 0;
	if ((d = fdopendir(dup(objs))) == NULL)
		return 0;
	while ((e = readdir(d)) != NULL) {
		autoclose int sub = -1;
		DIR *sd;
		struct dirent *f;

		if (strlen(e->d_name) != 2 || !strchr("0123456789abcdef",
		    e->d_name[0]) || !strchr("0123456789abcdef", e->d_name[1]))
			continue;
		if ((sub = openat(objs, e->d_name, O_RDONLY | O_DIRECTORY |
		    O_NOFOLLOW | O_CLOEXEC)) < 0 ||
		    (sd = fdopendir(dup(sub))) == NULL)
			continue;
		while ((f = readdir(sd)) != NULL)
			if (strlen(f->d_name) == 38)
				import(odb, src, sub, f->d_name, &budget);
		closedir(sd);
	}
	closedir(d);
	return budget > 0 ? 0 : -1;
}

int
commits_find(git_repository *repo, const char *host_objects,
    const git_oid *base, const struct changes_src *src, git_oid **ret_ids,
    char **note)
{
	git_odb *odb = NULL;
	git_revwalk *walk = NULL;
	git_oid head, id;
	git_oid *ids = NULL;
	size_t n = 0, i;
	int ret = -1, r;

	*note = NULL;
	*ret_ids = NULL;
	if (session_head(src, &head) < 0)
		return 0;	/* no readable HEAD: nothing to say */
	if (base && git_oid_equal(&head, base))
		return 0;
	if (git_repository_odb(&odb, repo) < 0)
		goto giterr;
	/* Import first: the private database has only its own backend yet. */
	if (import_all(odb, src) < 0) {
		*note = xasprintf("not exported: the session's objects "
		    "are over %lu MiB", MAX_IMPORT >> 20);
		goto out;
	}
	if (host_objects)
		commits_add_host_objects(odb, host_objects);
	if (base == NULL) {
		*note = xasprintf("the workspace had no commit to start from");
		goto out;
	}
	if (!git_graph_descendant_of(repo, &head, base)) {
		*note = xasprintf("the session's HEAD does not descend from the "
		    "host's (history rewritten, or objects packed): not "
		    "exported");
		goto out;
	}
	if (git_revwalk_new(&walk, repo) < 0 ||
	    git_revwalk_sorting(walk, GIT_SORT_TOPOLOGICAL |
	    GIT_SORT_REVERSE) < 0 || git_revwalk_push(walk, &head) < 0 ||
	    git_revwalk_hide(walk, base) < 0)
		goto giterr;
	while ((r = git_revwalk_next(&id, walk)) == 0) {
		ids = xreallocarray(ids, n + 1, sizeof(*ids));
		ids[n++] = id;
	}
	if (r != GIT_ITEROVER)
		goto giterr;
	for (i = 0; i < n; i++) {
		git_commit *c = NULL;
		unsigned int np;

		if (git_commit_lookup(&c, repo, &ids[i]) < 0)
			goto giterr;
		np = git_commit_parentcount(c);
		git_commit_free(c);
		if (np != 1) {
			*note = xasprintf("a merge commit: the series stops before "
			    "it");
			break;
		}
	}
	ret = (int)i;
	*ret_ids = ids;
	ids = NULL;
	goto out;
giterr:
	{
		const git_error *e = git_error_last();

		free(*note);
		/* libgit2 walks no cut history: say what the user has. */
		if (faccessat(src->lower, ".git/shallow", F_OK,
		    AT_SYMLINK_NOFOLLOW) == 0)
			*note = xasprintf("not exported: the workspace "
			    "is a shallow clone, whose history is cut (%s)",
			    e && e->message ? e->message : "libgit2 error");
		else
			*note = xasprintf("not exported: %s",
			    e && e->message ? e->message : "libgit2 error");
	}
out:
	free(ids);
	git_revwalk_free(walk);
	git_odb_free(odb);
	if (ret <= 0) {
		free(*ret_ids);
		*ret_ids = NULL;
	}
	return *note && ret <= 0 ? -1 : ret;
}
