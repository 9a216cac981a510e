/* SPDX-License-Identifier: ISC */
/*
 * run/workspace-copy.h - a real copy of a host tree in the session, for the backends
 * that cannot mount an overlay (bwrap, landlock).
 *
 * Runs in: the supervisor, before the sandbox starts.
 */
#ifndef CONFINE_COPY_H
#define CONFINE_COPY_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <time.h>

#include "store/copy-mark.h"

struct copy_stats {
	size_t		files;		/* regular files copied */
	size_t		cloned;		/* of which shared by reflink */
	size_t		skipped;	/* unreadable files, fifos, sockets, devices */
	uint64_t	bytes;		/* of the files copied so far */
	size_t		total;		/* regular files to copy, once shown
					 * asked for them (copy_tree_shown());
					 * else 0 */
};

/*
 * Told how a copy goes (copy_tree_shown()): at the start, after each
 * file, and within a large one after each 16 MiB, with the counts so far.
 * It must be cheap (it runs once a file) and it cannot stop the copy.  It
 * returns true to have the total counted (once; it is told again then).
 */
typedef bool	copy_shown_fn(const struct copy_stats *, void *arg);

/*
 * Copy src (a directory, a file or a symlink on the host) to dst, which
 * must not exist: directories, regular files (reflinked where the
 * filesystem can, else copied; never hard-linked to the host's), symlinks
 * as they are, modes without setuid and setgid, and modification times.
 * Files that cannot be read, fifos, sockets and device nodes are left out
 * and counted; so are the paths except names, relative to src.  An entry
 * gone since its directory was read is left out (not the root).  With
 * dirs, each directory of the copy is written there as its inode number
 * and its path relative to dst ("" for dst), each NUL-terminated: the
 * export tells a directory moved by the command from it.  0 or -errno, with *where naming the path that failed.
 */
int	copy_tree(const char *src, const char *dst, char *const *except,
	    FILE *dirs, struct copy_stats *, const char **where);

/*
 * Is a SIGINT, SIGTERM, SIGHUP or SIGQUIT that the caller does not ignore
 * held pending (the caller blocks them while it copies)?  A copy checks
 * every 256 files and stops with -EINTR: the user asked to stop.
 */
bool	copy_stop_pending(void);

/*
 * copy_tree(), telling shown(stats, arg) how it goes, and with mark, noting
 * each entry of the copy (inode and ctime, after its last change by the
 * copy) as recent; those of ticks the coarse clock has left are dropped
 * as it goes, and copy_mark_seal() drops the rest.  When shown asks
 * for it, the regular files the copy will have made are counted into
 * stats->total, from the names and types in the directories alone: no
 * file is looked at twice.  With shown NULL it is copy_tree().
 */
int	copy_tree_shown(const char *src, const char *dst, char *const *except,
	    FILE *dirs, struct copy_mark *mark, copy_shown_fn *shown,
	    void *arg, struct copy_stats *, const char **where);

/*
 * Once the copy is whole, its mark, by what the filesystem of dirfd (the
 * copy's) does with ctimes, tried there on a file of its own.  Where a
 * change right after a stat always sets a new ctime and the nanoseconds
 * are kept (multigrain timestamps): since is the coarse clock now, the
 * recent entries are those of this tick, and false: the command starts at
 * once.  Elsewhere: since is past every copied entry's ctime (the fine
 * clock, rounded up to what the filesystem keeps), nothing recent, and
 * true: the command must not start before the coarse clock has passed
 * since (sandbox_wait_start()).  store/copy-mark.h says why.
 */
bool	copy_mark_seal(struct copy_mark *, int dirfd);

/*
 * The coarsest power of ten of nanoseconds (at most a second) that both
 * ctimes are whole multiples of: what a filesystem keeps of a ctime.
 */
long	copy_ctime_granularity(const struct timespec *, const struct timespec *);

/*
 * Has the command changed anything in the copy at dir: is any entry (the
 * root included) not as the mark says the copy made it?  Stops at the
 * first; true when something cannot be read.
 */
bool	copy_changed(const char *dir, const struct copy_mark *);

#endif
