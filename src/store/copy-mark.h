/* SPDX-License-Identifier: ISC */
/*
 * store/copy-mark.h - how a workspace's copy tells what the command
 * changed in it (the bwrap and landlock backends): what the supervisor
 * noted when it made the copy, for the export and the supervisor's own
 * "anything changed?" at the end.
 *
 * Runs in: the supervisor (writes it, and reads it at the end) and the
 * export (reads it).
 *
 * A change sets an entry's ctime to the coarse clock or later (with
 * multigrain timestamps, a finer one, never below the coarse clock), and
 * no program can set a ctime back.  Where the session's filesystem has
 * multigrain timestamps and keeps the nanoseconds (probed there), since
 * is the coarse clock read once the copy was whole, and the command
 * starts at once: an entry whose ctime is below since is as copied; one
 * at or above it was made in the copy's last tick, or changed since: it
 * is as copied when it is one of "recent" (the copy's entries of that
 * tick, noted by inode with the ctime read after their last change, which
 * makes the next change set a new one) with that same ctime.  Elsewhere
 * since is past every copied entry's ctime (the fine clock, rounded up to
 * what the filesystem keeps of a ctime), nothing is recent, and the
 * command starts once the coarse clock has passed since.
 */
#ifndef CONFINE_COPY_MARK_H
#define CONFINE_COPY_MARK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>
#include <time.h>

struct copy_recent {
	uint64_t	 ino;
	struct timespec	 ctime;
};

struct copy_mark {
	struct timespec		 since;		/* the coarse clock; 0: none */
	struct copy_recent	*recent;	/* sorted by inode */
	size_t			 nrecent;
	size_t			 cap;		/* recent's room, while noted */
};

/* The session's file of recent entries, and its bound (read whole). */
#define COPY_RECENT_FILE	"copy.recent"
#define COPY_RECENT_MAX		(64UL * 1024 * 1024)

/* Sort recent by inode, as copy_mark_unchanged() needs it. */
void	copy_mark_sort(struct copy_mark *);

/*
 * Is the copy's entry, as st says, as the copy made it?  False for any
 * entry when the mark has no since.
 */
bool	copy_mark_unchanged(const struct copy_mark *, const struct stat *);

/*
 * The mark of session_dir: since from its meta (copy_since_ns; else
 * started_ns, the rule of an older confine, whose command started once
 * the coarse clock had passed it), recent from its file when there is
 * one.  0, or -errno (the file cannot be read: the caller fails closed).
 */
int	copy_mark_load(const char *session_dir, struct copy_mark *ret);
void	copy_mark_free(struct copy_mark *);

/*
 * Write recent (any order) to the session's file, under a temporary name
 * then renamed.  0 or -errno.
 */
int	copy_mark_write_recent(int session_fd, const struct copy_recent *,
	    size_t n);

#endif
