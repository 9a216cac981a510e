/* SPDX-License-Identifier: ISC */
/*
 * export/diffstat.h - a diff's summary in the form of "git diff --stat".
 *
 * Runs in: confine-export, after the sandbox is gone.  The paths are agent
 * data; what it prints of them is quoted as git quotes a path (printable
 * ASCII only), so no name reaches a terminal raw or spans two lines.
 */
#ifndef CONFINE_DIFFSTAT_H
#define CONFINE_DIFFSTAT_H

#include <git2.h>
#include <stddef.h>
#include <stdio.h>

/* The width git gives the summary when its output is not a terminal. */
#define DIFFSTAT_WIDTH	80

/*
 * Print the summary of diff to out as "git diff --stat" does for the same
 * change at that width: a line for each file (its name, its changed lines
 * and their graph, or "Bin OLD -> NEW bytes"), then the totals.  Each line
 * starts with ind in place of git's one space; at most max files are
 * listed, then a line says how many more (the totals count them all).
 * repo holds the diff's blobs (a binary file's sizes are read from it).
 */
void	diffstat_print(git_repository *repo, git_diff *diff, FILE *out,
	    size_t max, const char *ind, int width);

/*
 * path as git prints it (core.quotePath): as it is, or in double quotes
 * with C escapes when it holds a control character, a byte above 0x7e, a
 * double quote or a backslash.  Heap string.
 */
char	*diffstat_quote(const char *path);

#endif
