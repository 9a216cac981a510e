/* SPDX-License-Identifier: ISC */
/*
 * export/large.h - the changed files too large to be held whole: over
 * LARGE_MIN bytes (and within the export's per-file bound), hashed and
 * written out in pieces, their blobs never in memory.
 *
 * Runs in: confine-export, after the sandbox is gone.  The files are agent
 * data (or the host's), read through export/changes.c's fds.
 */
#ifndef CONFINE_LARGE_H
#define CONFINE_LARGE_H

#include <git2.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "export/changes.h"

/*
 * A file over this is large: its patch is git's binary literal, whatever
 * its content, as git treats a file over core.bigFileThreshold; one under
 * it is diffed by libgit2 in memory, about seven times its size at most.
 */
#define LARGE_MIN	(4UL * 1024 * 1024)

/*
 * Add the large files' backend to odb, the repository's private database,
 * ahead of its other backends: 0, or -1 (a libgit2 error).  It answers for
 * the large blobs only (their size and type; reading one whole fails).
 */
int	large_backend_add(git_odb *odb);

/*
 * Hash fd, size bytes of one side of untrusted_path (upper_open()'s),
 * into a large blob of repo's private database, in pieces: its id in
 * *ret and its lines (newlines) in *ret_lines.  The blob is read again
 * from the same layer and path when its patch is written.  0; -EFBIG when
 * the file grew while read; -errno; or -1 (a libgit2 error).
 */
int	large_add(git_repository *repo, int fd, size_t size,
	    const struct changes_src *src, const char *untrusted_path,
	    const struct upper_state *st, git_oid *ret, size_t *ret_lines);

/*
 * Put untrusted_buf, the len bytes of one side of untrusted_path (not
 * large, just read whole), in repo's private database by reference: its
 * id in *ret; it is read again from the same layer and path, whole and
 * checked against the id, each time libgit2 asks for it, so that the
 * export holds no more than what it looks at.  0, or -1 (a libgit2 error).
 */
int	large_add_whole(git_repository *repo, const struct changes_src *src,
	    const char *untrusted_path, const struct upper_state *st,
	    const void *untrusted_buf, size_t len, git_oid *ret);

/* Is id a large blob of repo's private database? */
bool	large_is(git_repository *repo, const git_oid *id);

/*
 * One hunk of git's binary patch, "literal SIZE", the blob id deflated
 * and in base85, then an empty line; a zero id: the empty blob.  A large
 * blob is read from its file in pieces, and must still hash to id; any
 * other is read from repo.  0, or -1 with errno or a libgit2 error set.
 */
int	large_put_literal(git_repository *repo, const git_oid *id, FILE *out);

#endif
