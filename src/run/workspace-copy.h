/* SPDX-License-Identifier: ISC */
/*
 * run/workspace-copy.h - a real copy of a host tree in the session, for the backends
 * that cannot mount an overlay (bwrap, landlock).
 *
 * Runs in: the supervisor, before the sandbox starts.
 */
#ifndef CONFINE_COPY_H
#define CONFINE_COPY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <time.h>

struct copy_stats {
	size_t	files;		/* regular files copied */
	size_t	cloned;		/* of which shared by reflink */
	size_t	skipped;	/* unreadable files, fifos, sockets, devices */
};

/*
 * Copy src (a directory, a file or a symlink on the host) to dst, which
 * must not exist: directories, regular files (reflinked where the
 * filesystem can, else copied; never hard-linked to the host's), symlinks
 * as they are, modes without setuid and setgid, and modification times.
 * Files that cannot be read, fifos, sockets and device nodes are left out
 * and counted; so are the paths except names, relative to src.  With
 * dirs, each directory of the copy is written there as its inode number
 * and its path relative to dst ("" for dst), each NUL-terminated: the
 * export tells a directory moved by the command from it.  0 or -errno, with *where naming the path that failed.
 */
int	copy_tree(const char *src, const char *dst, char *const *except,
	    FILE *dirs, struct copy_stats *, const char **where);

/*
 * Has the command changed anything in the copy at dir: is any entry's
 * ctime (the root's included) at or after t?  Stops at the first; true
 * when something cannot be read.
 */
bool	copy_changed_since(const char *dir, const struct timespec *t);

#endif
