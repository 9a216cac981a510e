/* SPDX-License-Identifier: ISC */
/*
 * export/commits.h - the commits the command made, found in its agent-written .git.
 *
 * Runs in: confine-export.  The session's .git is agent-written: its HEAD,
 * refs and loose objects are read through fds beneath the upper layer and
 * parsed by us and libgit2; nothing of its configuration is used.
 */
#ifndef CONFINE_COMMITS_H
#define CONFINE_COMMITS_H

#include <git2.h>
#include <stdio.h>

struct changes_src;

/*
 * The commits from base (the host's HEAD when the session began) to the
 * session's HEAD, oldest first, stopping before the first merge commit;
 * their objects are then in repo (export's private repository;
 * host_objects is the host's object directory, read only).  Returns how
 * many, with *ret_ids a heap array of them (NULL for none); *note is NULL
 * or a heap string for the report (why the series stops, or why there is
 * none: then -1).
 */
int	commits_find(git_repository *repo, const char *host_objects,
	    const git_oid *base, const struct changes_src *, git_oid **ret_ids,
	    char **note);

/*
 * Add the host repository's object directory dir to odb as read-only
 * alternates: read, never written or "freshened" (export/apply.c uses it too).
 */
void	commits_add_host_objects(git_odb *odb, const char *dir);

#endif
