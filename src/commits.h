/* SPDX-License-Identifier: ISC */
/*
 * commits.h - the commits the command made, as a series "git am" takes.
 *
 * Runs in: confine-export.  The session's .git is agent-written: its HEAD,
 * refs and loose objects are read through fds beneath the upper layer and
 * parsed by us and libgit2; nothing of its configuration is used.
 */
#ifndef CONFINE_COMMITS_H
#define CONFINE_COMMITS_H

#include <git2.h>
#include <stdio.h>

/*
 * Write the commits from base (the host's HEAD when the session began) to
 * the session's HEAD into out, as mbox.  repo is export's private
 * repository; host_objects the host's object directory (read only).
 * Returns the number of commits written (0: none), with *ret_head the
 * last one's id, or -1 with *note set to why none could be (a heap string,
 * for the report).
 */
int	commits_export(git_repository *repo, const char *host_objects,
	    const git_oid *base, int lower_fd, int upper_fd, FILE *out,
	    git_oid *ret_head, char **note);

/*
 * Add the host repository's object directory dir to odb as read-only
 * alternates: read, never written or "freshened" (apply.c uses it too).
 */
void	commits_add_host_objects(git_odb *odb, const char *dir);

#endif
