/* SPDX-License-Identifier: ISC */
/*
 * export/apply.h - "confine apply": the session's reviewed patch (and, with
 * --commits, its commits) written into the host workspace by libgit2, with
 * no git binary, hook, filter or configured program run.
 *
 * Runs in: confine-export ("confine-export --apply SESSION_DIR" and
 * "confine-export --recover WORKSPACE"), so that libgit2 stays off
 * confine's launch path.
 */
#ifndef CONFINE_APPLY_H
#define CONFINE_APPLY_H

#include <stdbool.h>

struct apply_opts {
	const char	*session_dir;
	const char	*workspace;
	const char	*session_id;
	bool		 commits;	/* create the session's commits too */
	bool		 check;		/* every check, nothing written */
	const char	*into;		/* enter: write the result here, not
					   in the workspace (a new session's
					   upper/ layer or copy) */
	bool		 whiteouts;	/* into an overlay layer: a deleted
					   path is a whiteout, not removed */
	bool		 hold;		/* leave the journal armed: one of a
					   session's several workspaces, rolled
					   back (apply_recover()) when a later
					   one fails, else released */
};

/*
 * Apply the session: all checks first (the whole result is computed in
 * memory), then the writes under a journal.  0 on success; EXIT_CONFINE
 * after one line saying why (nothing changed).
 */
int	apply_session(const struct apply_opts *);
/*
 * With o->into set, the same checks and result, but only the paths the
 * result changes are written, beneath o->into (the workspace untouched, no
 * journal): what "confine enter" runs in.
 */

/*
 * Roll back an apply that was killed in WORKSPACE (its journal), unless
 * another apply holds the workspace's lock.  0: nothing to do or rolled
 * back; EXIT_CONFINE on failure.
 */
int	apply_recover(const char *workspace);
/*
 * An apply held (o->hold) in WORKSPACE undone: a later workspace of the
 * session failed.  0, or EXIT_CONFINE.
 */
int	apply_rollback(const char *workspace);
/*
 * An apply held (o->hold) in WORKSPACE is final: its journal removed.
 * 0, or EXIT_CONFINE when another apply holds the workspace's lock.
 */
int	apply_release(const char *workspace);

#endif
