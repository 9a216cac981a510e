/* SPDX-License-Identifier: ISC */
/*
 * run/copy-progress.h - the line that shows a long copy of the workspace
 * (bwrap, landlock) on the user's terminal, and its -v summary.
 *
 * Runs in: the supervisor, before the sandbox starts: stderr is still the
 * user's own, not yet in raw mode.
 */
#ifndef CONFINE_COPY_PROGRESS_H
#define CONFINE_COPY_PROGRESS_H

#include <stdbool.h>
#include <stddef.h>
#include <time.h>

#include "run/workspace-copy.h"

struct copy_progress {
	const char	*what;		/* borrowed: "the workspace", a path */
	struct timespec	 start;		/* CLOCK_MONOTONIC */
	struct timespec	 next;		/* no redraw before (the coarse one) */
	size_t		 drawn;		/* columns of the line shown; 0: none */
	unsigned	 cols;		/* the terminal's width */
	bool		 on;		/* stderr a terminal, not -q */
	bool		 counted;	/* the copy was asked for its total */
};

/*
 * Start the clock of a copy of what.  The line is on when stderr is a
 * terminal and -q was not given; then copy_progress_show() is the copy's
 * copy_shown_fn, with the struct as its argument.
 */
void	copy_progress_begin(struct copy_progress *, const char *what);

/*
 * Draw or redraw the line (files, bytes, rate, time left), in place, at
 * most five times a second, once the copy has taken a quarter of a
 * second or copied COPY_PROGRESS_FILES files; the first time, it asks the
 * copy for its total.  A copy_shown_fn; progress is the struct.
 */
#define COPY_PROGRESS_FILES	5000
bool	copy_progress_show(const struct copy_stats *, void *progress);

/*
 * The copy is over: clear the line if one was drawn; when it went well,
 * one line with -v (on a terminal or not): files, bytes and seconds.
 */
void	copy_progress_end(struct copy_progress *, const struct copy_stats *,
	    bool ok);

#endif
