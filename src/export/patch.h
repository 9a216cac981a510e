/* SPDX-License-Identifier: ISC */
/*
 * export/patch.h - the session's changes as a git patch and a report (libgit2).
 *
 * Runs in: confine-export, a program of its own, started by the supervisor
 * after the sandbox is gone, so that libgit2 is never loaded on the launch
 * path.  Everything it reads from the session's upper layer is untrusted.
 */
#ifndef CONFINE_EXPORT_H
#define CONFINE_EXPORT_H

#include <stdbool.h>
#include <time.h>

struct changes_copy;

struct export_opts {
	const char	*session_dir;
	const char	*session_id;
	const char	*workspace;	/* the host tree the overlay showed */
	struct timespec	 started;	/* the command's start */
	struct timespec	 host_since;	/* host files changed from then on:
					   flagged */
	bool		 quiet;		/* no summary on stderr */
	bool		 several;	/* one of a session's several workspaces:
					   labelled, its writing untrusted for
					   the next reader */
	/* The workspace's copy (bwrap, landlock), or NULL: an overlay. */
	const struct changes_copy *copy;	/* borrowed */
};

/*
 * Write changes.patch, report and summary (confine's facts of the export,
 * store/session-meta.h) into the session directory (each under a
 * temporary name, then renamed), and a summary on stderr.  Returns 0, 1
 * when there is nothing to review (no change, commit or skipped file), or
 * -1 after printing why; the layers are kept either way.
 */
int	export_session(const struct export_opts *);

#endif
