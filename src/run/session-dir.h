/* SPDX-License-Identifier: ISC */
/*
 * run/session-dir.h - the session directory that holds the workspace's overlay
 * layers: $XDG_STATE_HOME/confine/sessions/ID/{upper,work,meta}.
 *
 * Runs in: the supervisor, outside the sandbox.
 */
#ifndef CONFINE_WORKSPACE_H
#define CONFINE_WORKSPACE_H

#include <stdbool.h>
#include <time.h>

#include "policy/plan.h"

/*
 * Create the session directory of the plan (mode 0700, parents as needed)
 * with empty upper/ and work/ (native) or the copies (bwrap, landlock), and
 * the metadata file.  0 or -errno, with *where naming the path that
 * failed.  *start (native) is the session's start, which the command
 * must not begin before (sandbox_wait_start()); zero when the session is
 * entered again with its layers, and for copies, whose changes are told
 * by their mark (store/copy-mark.h) with no wait unless the filesystem's
 * ctimes need one.  no_copy[i] (one per mount of the plan) is set for a
 * copy it did not make: nothing on the host to copy.  copies_later (the
 * landlock backend, whose session is its copies): the directory and its
 * run lock only; workspace_session_copies() makes the rest.
 */
int	workspace_session_create(const struct plan *, const char **where,
	    struct timespec *start, bool *no_copy, bool copies_later);

/*
 * The rest of a session created with copies_later: the copies, the
 * session's home and tmp, their marks and the metadata, as
 * workspace_session_create() would have made them.  Same results.
 */
int	workspace_session_copies(const struct plan *, const char **where,
	    struct timespec *start, bool *no_copy);

/*
 * After the sandbox is gone: remove overlayfs's work directory; when the
 * command wrote nothing (for copies: nothing changed since the copy, by
 * its mark), remove the whole session and return false; else keep it and
 * return true.  keep: a limit was reached, the session is kept (its
 * report says which) even when nothing changed.
 */
bool	workspace_session_finish(const struct plan *, bool keep);

/* Remove the whole session directory (its layers hold nothing to review). */
void	workspace_session_remove(const struct plan *);

/*
 * Once nothing of the sandbox is left to write (native's overlay may
 * still be mounted): did the command leave the workspace untouched, as
 * workspace_session_finish() would judge it?  An overlay: its upper layer
 * empty, and on native its scratch layers too (bwrap's scratch is
 * discarded); a copy: nothing changed since its mark (copies_changed:
 * workspace_copies_changed()'s answer, taken once the sandbox ended).
 * Reads only; false when unsure.
 */
bool	workspace_session_untouched(const struct plan *, bool copies_changed);

/*
 * The copy of writable workspace i (bwrap where its workspace is no
 * overlay, landlock), heap; NULL: that workspace has none.
 */
char	*workspace_copy_dir(const struct plan *, size_t i);

/*
 * Has the command changed any writable workspace's copy since its mark
 * (each copy's tree walked up to the first change)?  A mark that cannot
 * be read: yes.  False where there is no copy.
 */
bool	workspace_copies_changed(const struct plan *);

/*
 * Take an untouched session out of the store: its directory is renamed
 * from STATE/confine/sessions/ID to STATE/confine/trash/ID, which no
 * listing reads ("confine ls" no longer sees it from here on), and
 * overlayfs's mode 000 work directories are opened to their owner (the
 * user may remove the trash at once).  0 or -errno; on failure it is
 * where it was.
 */
int	workspace_session_discard(const struct plan *);

/*
 * Remove the plan's session from the trash, and any other session there
 * whose run lock nobody holds (a removal that was cut short).
 */
void	workspace_trash_empty(const struct plan *);

/*
 * Remove dirfd/name and everything below it, never following a symlink,
 * opening up mode 000 directories of the caller's on the way.
 */
void	workspace_remove_tree(int dirfd, const char *name);

/*
 * Note the proxy's counts and refusals in the session's "network" file
 * (the export puts them in the report), and the keyholder's line when
 * the credential was injected (or NULL).  The proxy admits only printable
 * ASCII host names, so the lines are safe to show.
 */
struct net_note {
	unsigned	 allowed, refused, failed;	/* the proxy's */
	char *const	*refusals, *const *failures;	/* NULL: none */
	const char	*inference;	/* the keyholder's line, or NULL */
};
void	workspace_note_network(const struct plan *, const struct net_note *);
/* "network: N connections through the proxy, M refused[, F upstream
 * failures]": the exit line and the note's first. */
char	*workspace_network_line(const struct net_note *);

/*
 * Run the export program on the session (confine-export, next to this
 * binary in a build tree, else where it was installed; never looked up in
 * PATH) and wait for it.  Its exit status, or -1.
 */
int	workspace_export(const char *session_dir, bool quiet);
/* Run confine-export with ARGS (NULL-terminated, at most 6): its status. */
int	workspace_export_run(char *const args[]);

#endif
