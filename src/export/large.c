// SPDX-License-Identifier: ISC
/*
 * export/large.c - the large files' blobs: hashed as they are read, in
 * pieces (git_odb_open_wstream), and never stored.  An object database
 * backend of their own, ahead of the private mempack, takes those streams
 * and answers for each blob its size and type, and where to read it again
 * (the layer and the path); it refuses to read one whole, so no libgit2
 * diff, similarity or content check ever holds it in memory.  Their patch
 * is git's binary literal, which "git apply" and libgit2 read: the bytes
 * deflated by zlib, in lines of base85 (git's base85.c, gitformat-diff(5)
 * "binary patch"), written here in pieces as the file is read again.
 *
 * Runs in: confine-export, after the sandbox is gone; the files are agent
 * data, or the host's.
 * The same backend holds, past what the export keeps in memory, the other
 * files' blobs by reference: read whole again, and checked, when libgit2
 * asks for one (large_add_whole()).
 *
 * MUST: hold no more of a large file than a buffer of it.
 * MUST: read a file only through upper_open() (beneath its layer, its size
 * told before any read), and no further than that size.
 * MUST: write a literal only of bytes that hash to the blob's id: a file
 * changed since fails the export, never a patch git would refuse.
 */
#include "config.h"

#include <errno.h>
#include <git2.h>
#include <git2/sys/odb_backend.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#include "export/changes.h"
#include "export/large.h"
#include "lib/util.h"

struct large_blob {
	git_oid			 id;
	size_t			 size;
	struct changes_src	 src;	/* its fds, borrowed from the export */
	struct upper_state	 st;
	char			*untrusted_path;
	bool			 whole;	/* not large: read whole when asked */
};

struct large_odb {
	git_odb_backend		 parent;
	struct large_blob	*v;
	size_t			 n;
	bool			 sorted;	/* v by id, for bsearch */
	bool			 armed;	/* the next stream is a large one */
};

/* A hash only: libgit2 hashes what is written; nothing is kept. */
struct hash_stream {
	git_odb_stream	 parent;
};

static int
by_id(const void *a, const void *b)
{
	return git_oid_cmp(&((const struct large_blob *)a)->id,
	    &((const struct large_blob *)b)->id);
}

/* Thousands of files may be read again: sorted once, then searched. */
static const struct large_blob *
find(struct large_odb *l, const git_oid *id)
{
	struct large_blob key = { 0 };

	if (!l->sorted && l->n > 1)
		qsort(l->v, l->n, sizeof(*l->v), by_id);
	l->sorted = true;
	git_oid_cpy(&key.id, id);
	return bsearch(&key, l->v, l->n, sizeof(*l->v), by_id);
}

static void
add_entry(struct large_odb *l, const git_oid *id, size_t size,
    const struct changes_src *src, const char *untrusted_path,
    const struct upper_state *st, bool whole)
{
	struct large_blob *e;

	if (find(l, id) != NULL)
		return;
	l->v = xreallocarray(l->v, l->n + 1, sizeof(*l->v));
	e = &l->v[l->n++];
	e->id = *id;
	e->size = size;
	e->src = *src;
	e->st = *st;
	e->untrusted_path = xstrdup(untrusted_path);
	e->whole = whole;
	l->sorted = false;
}

/* A blob not held in memory, read whole: still the bytes of its id. */
static int
read_whole(git_odb_backend *b, const struct large_blob *e, void **ret)
{
	autoclose int fd = -1;
	unsigned char *untrusted_data;
	size_t size, got = 0;
	git_oid again;
	ssize_t n;

	if ((fd = upper_open(&e->src, e->untrusted_path, &e->st, e->size,
	    &size)) < 0 || size != e->size)
		goto changed;
	if ((untrusted_data = git_odb_backend_data_alloc(b, size ? size : 1))
	    == NULL)
		return -1;
	while (got < size) {
		/* Bounded: size - got, what is left of the blob's size. */
		if ((n = read(fd, untrusted_data + got, size - got)) < 0 &&
		    errno == EINTR)
			continue;
		if (n <= 0)
			break;
		got += (size_t)n;
	}
	if (got != size || git_odb_hash(&again, untrusted_data, size,
	    GIT_OBJECT_BLOB) < 0 || !git_oid_equal(&again, &e->id)) {
		git_odb_backend_data_free(b, untrusted_data);
		goto changed;
	}
	*ret = untrusted_data;
	return 0;
changed:
	git_error_set_str(GIT_ERROR_ODB, "a file changed while it was "
	    "exported");
	return -1;
}

static int
l_read(void **data, size_t *len, git_object_t *type, git_odb_backend *b,
    const git_oid *id)
{
	const struct large_blob *e = find((struct large_odb *)b, id);

	if (e == NULL)
		return GIT_ENOTFOUND;
	if (!e->whole) {
		git_error_set_str(GIT_ERROR_ODB, "a large file's blob is not "
		    "read whole");
		return -1;
	}
	if (read_whole(b, e, data) < 0)
		return -1;
	*len = e->size;
	*type = GIT_OBJECT_BLOB;
	return 0;
}

static int
l_read_header(size_t *len, git_object_t *type, git_odb_backend *b,
    const git_oid *id)
{
	const struct large_blob *e = find((struct large_odb *)b, id);

	if (e == NULL)
		return GIT_ENOTFOUND;
	*len = e->size;
	*type = GIT_OBJECT_BLOB;
	return 0;
}

static int
l_exists(git_odb_backend *b, const git_oid *id)
{
	return find((struct large_odb *)b, id) != NULL;
}

static int
hs_write(git_odb_stream *s, const char *buf, size_t len)
{
	(void)s;
	(void)buf;
	(void)len;
	return 0;
}

static int
hs_finalize(git_odb_stream *s, const git_oid *id)
{
	(void)s;
	(void)id;
	return 0;
}

static void
hs_free(git_odb_stream *s)
{
	free(s);
}

static int
l_writestream(git_odb_stream **ret, git_odb_backend *b,
    git_object_size_t size, git_object_t type)
{
	struct hash_stream *s;

	(void)size;
	/* Every other blob (git_blob_create_from_buffer) to the mempack. */
	if (!((struct large_odb *)b)->armed)
		return GIT_PASSTHROUGH;
	if (type != GIT_OBJECT_BLOB) {
		git_error_set_str(GIT_ERROR_ODB, "large: blobs only");
		return -1;
	}
	s = xcalloc(1, sizeof(*s));
	s->parent.backend = b;
	s->parent.mode = GIT_STREAM_WRONLY;
	s->parent.write = hs_write;
	s->parent.finalize_write = hs_finalize;
	s->parent.free = hs_free;
	*ret = &s->parent;
	return 0;
}

static void
l_free(git_odb_backend *b)
{
	struct large_odb *l = (struct large_odb *)b;

	while (l->n > 0)
		free(l->v[--l->n].untrusted_path);
	free(l->v);
	free(l);
}

/* The repository's large backend, or NULL. */
static struct large_odb *
large_of(git_repository *repo)
{
	git_odb *odb = NULL;
	git_odb_backend *b;
	struct large_odb *l = NULL;
	size_t i, n;

	if (git_repository_odb(&odb, repo) < 0)
		return NULL;
	n = git_odb_num_backends(odb);
	for (i = 0; i < n && l == NULL; i++)
		if (git_odb_get_backend(&b, odb, i) == 0 && b->free == l_free)
			l = (struct large_odb *)b;
	git_odb_free(odb);
	return l;
}

/*
 * Hash up to size bytes of fd as a blob, feeding each piece to fn too;
 * the id in *ret.  -EFBIG when fd holds more than size, -EIO when less.
 */
static int
hash_fd(struct large_odb *l, git_odb *odb, int fd, size_t size, git_oid *ret,
    int (*fn)(const unsigned char *, size_t, void *), void *arg)
{
	unsigned char untrusted_buf[65536];
	git_odb_stream *s = NULL;
	size_t done = 0;
	ssize_t n;
	int r = 0;

	l->armed = true;
	r = git_odb_open_wstream(&s, odb, size, GIT_OBJECT_BLOB);
	l->armed = false;
	if (r < 0)
		return -1;
	while (done < size && r == 0) {
		size_t want = size - done < sizeof(untrusted_buf) ?
		    size - done : sizeof(untrusted_buf);

		/* Bounded: want, at most sizeof(untrusted_buf). */
		if ((n = read(fd, untrusted_buf, want)) < 0 && errno == EINTR)
			continue;
		if (n < 0)
			r = -errno;
		else if (n == 0)
			r = -EIO;	/* shrunk while read */
		else if (git_odb_stream_write(s, (char *)untrusted_buf,
		    (size_t)n) < 0 ||
		    (fn && fn(untrusted_buf, (size_t)n, arg) < 0))
			r = -1;
		else
			done += (size_t)n;
	}
	/* Bounded: one byte; a file that grew is over what was told. */
	if (r == 0 && (n = read(fd, untrusted_buf, 1)) != 0)
		r = n < 0 ? -errno : -EFBIG;
	if (r == 0 && git_odb_stream_finalize_write(ret, s) < 0)
		r = -1;
	git_odb_stream_free(s);
	return r;
}

static int
count_nl(const unsigned char *buf, size_t len, void *arg)
{
	size_t *lines = arg;
	const unsigned char *p = buf, *end = buf + len;

	while (p < end && (p = memchr(p, '\n', (size_t)(end - p))) != NULL) {
		(*lines)++;
		p++;
	}
	return 0;
}

int
large_backend_add(git_odb *odb)
{
	struct large_odb *l = xcalloc(1, sizeof(*l));

	git_odb_init_backend(&l->parent, GIT_ODB_BACKEND_VERSION);
	l->parent.read = l_read;
	l->parent.read_header = l_read_header;
	l->parent.exists = l_exists;
	l->parent.writestream = l_writestream;
	l->parent.free = l_free;
	/* Ahead of the mempack (1): its streams are ours. */
	if (git_odb_add_backend(odb, &l->parent, 3) < 0) {
		l_free(&l->parent);
		return -1;
	}
	return 0;
}

int
large_add(git_repository *repo, int fd, size_t size,
    const struct changes_src *src, const char *untrusted_path,
    const struct upper_state *st, git_oid *ret, size_t *ret_lines)
{
	struct large_odb *l = large_of(repo);
	git_odb *odb = NULL;
	git_oid id;
	size_t lines = 0;
	int r;

	if (l == NULL || git_repository_odb(&odb, repo) < 0) {
		git_error_set_str(GIT_ERROR_ODB, "large: no backend");
		return -1;
	}
	r = hash_fd(l, odb, fd, size, &id, count_nl, &lines);
	git_odb_free(odb);
	if (r < 0)
		return r;
	add_entry(l, &id, size, src, untrusted_path, st, false);
	*ret = id;
	*ret_lines = lines;
	return 0;
}

int
large_add_whole(git_repository *repo, const struct changes_src *src,
    const char *untrusted_path, const struct upper_state *st,
    const void *untrusted_buf, size_t len, git_oid *ret)
{
	struct large_odb *l = large_of(repo);

	if (l == NULL) {
		git_error_set_str(GIT_ERROR_ODB, "large: no backend");
		return -1;
	}
	if (git_odb_hash(ret, untrusted_buf, len, GIT_OBJECT_BLOB) < 0)
		return -1;
	add_entry(l, ret, len, src, untrusted_path, st, true);
	return 0;
}

bool
large_is(git_repository *repo, const git_oid *id)
{
	const struct large_blob *e;
	struct large_odb *l;

	if (git_oid_is_zero(id) || (l = large_of(repo)) == NULL)
		return false;
	return (e = find(l, id)) != NULL && !e->whole;
}

/* git's base85 (base85.c): 4 bytes, most significant first, as 5. */
static const char en85[] = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ"
    "abcdefghijklmnopqrstuvwxyz!#$%&()*+-;<=>?@^_`{|}~";

/* The deflated bytes, cut in lines of at most 52, as git writes them. */
struct literal {
	FILE		*out;
	z_stream	 z;
	unsigned char	 line[52];
	size_t		 n;
};

static void
put_line(struct literal *lt)
{
	size_t i, k;

	fputc(lt->n <= 26 ? 'A' + (int)lt->n - 1 : 'a' + (int)lt->n - 27,
	    lt->out);
	for (i = 0; i < lt->n; i += 4) {
		uint32_t acc = 0;
		char c[5];

		for (k = 0; k < 4; k++)
			acc = acc << 8 | (i + k < lt->n ? lt->line[i + k] : 0);
		for (k = 5; k-- > 0; acc /= 85)
			c[k] = en85[acc % 85];
		fwrite(c, 1, sizeof(c), lt->out);
	}
	fputc('\n', lt->out);
	lt->n = 0;
}

/* Deflate a piece (the last with Z_FINISH) into lines. */
static int
deflate_piece(struct literal *lt, const unsigned char *buf, size_t len,
    int flush)
{
	unsigned char z[16384];
	size_t got, i;
	int zr;

	lt->z.next_in = (unsigned char *)buf;
	lt->z.avail_in = (unsigned)len;
	do {
		lt->z.next_out = z;
		lt->z.avail_out = sizeof(z);
		if ((zr = deflate(&lt->z, flush)) == Z_STREAM_ERROR)
			return -1;
		got = sizeof(z) - lt->z.avail_out;
		for (i = 0; i < got; i++) {
			lt->line[lt->n++] = z[i];
			if (lt->n == sizeof(lt->line))
				put_line(lt);
		}
	} while (lt->z.avail_out == 0 || (flush == Z_FINISH &&
	    zr != Z_STREAM_END));
	return 0;
}

static int
feed(const unsigned char *buf, size_t len, void *arg)
{
	return deflate_piece(arg, buf, len, Z_NO_FLUSH);
}

int
large_put_literal(git_repository *repo, const git_oid *id, FILE *out)
{
	struct literal lt = { .out = out };
	struct large_odb *l = large_of(repo);
	const struct large_blob *e = l && !git_oid_is_zero(id) ? find(l, id) :
	    NULL;
	git_blob *blob = NULL;
	git_odb *odb = NULL;
	git_oid again;
	int fd = -1, r = -1;
	size_t size = 0;

	if (e && e->whole)	/* not large: read whole, from the database */
		e = NULL;
	if (e) {
		if ((fd = upper_open(&e->src, e->untrusted_path, &e->st,
		    e->size, &size)) < 0) {
			errno = fd == -EFBIG ? EFBIG : -fd;
			return -1;
		}
	} else if (!git_oid_is_zero(id)) {
		if (git_blob_lookup(&blob, repo, id) < 0)
			return -1;
		size = (size_t)git_blob_rawsize(blob);
	}
	if (deflateInit(&lt.z, Z_BEST_SPEED) != Z_OK) {
		close(fd);
		git_blob_free(blob);
		errno = ENOMEM;
		return -1;
	}
	fprintf(out, "literal %zu\n", size);
	if (e) {
		/* What was hashed, still: else the patch would not apply. */
		if (git_repository_odb(&odb, repo) == 0 && (r = hash_fd(l, odb,
		    fd, e->size, &again, feed, &lt)) == 0 &&
		    !git_oid_equal(&again, id))
			r = -1;
		if (r < 0 && r != -1)
			errno = -r;
		if (r < 0)
			git_error_set_str(GIT_ERROR_ODB, "a large file changed "
			    "while it was exported");
		git_odb_free(odb);
	} else
		r = deflate_piece(&lt, blob ? git_blob_rawcontent(blob) : NULL,
		    size, Z_NO_FLUSH);
	if (r == 0)
		r = deflate_piece(&lt, NULL, 0, Z_FINISH);
	if (r == 0 && lt.n > 0)
		put_line(&lt);
	if (r == 0)
		fputc('\n', out);
	deflateEnd(&lt.z);
	if (fd >= 0)
		close(fd);
	git_blob_free(blob);
	return r == 0 && !ferror(out) ? 0 : -1;
}
