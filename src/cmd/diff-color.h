/* SPDX-License-Identifier: ISC */
/*
 * cmd/diff-color.h - a session's patch (agent data) for a terminal,
 * sanitised and coloured the way git colours a diff.
 *
 * Runs in: the user's process on the host (confine diff).
 */
#ifndef CONFINE_DIFF_COLOR_H
#define CONFINE_DIFF_COLOR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

/* git's default colours (color.diff.*, color.decorate). */
#define DIFF_COLOR_META		"\033[1m"	/* bold: diff --git, index, ... */
#define DIFF_COLOR_FRAG		"\033[36m"	/* cyan: @@ -a,b +c,d @@ */
#define DIFF_COLOR_OLD		"\033[31m"	/* red: a removed line */
#define DIFF_COLOR_NEW		"\033[32m"	/* green: an added line */
#define DIFF_COLOR_COMMIT	"\033[33m"	/* yellow: commit NNNN */
#define DIFF_COLOR_RESET	"\033[m"

/* Where in a patch the next line is. */
struct diff_color {
	int		 state;		/* the part: none, header, hunk, binary */
	bool		 mid_line;	/* the last piece ended without '\n' */
	const char	*color;		/* that line's colour, or NULL */
};

/* How much of a buffer diff_color_print() prints. */
enum diff_color_flush {
	DIFF_COLOR_LINES,	/* whole lines only */
	DIFF_COLOR_FULL,	/* the buffer is full: a long line's piece too,
				   but for a UTF-8 sequence cut at its end */
	DIFF_COLOR_END,		/* the end of the patch: every byte */
};

void	diff_color_init(struct diff_color *);

/*
 * Print untrusted_buf (len bytes of a patch, read in pieces) to out, each
 * line through term_sanitize() and coloured by what it is in the patch:
 * a file's header bold, a hunk's header cyan, removed lines red, added
 * lines green, context and binary data plain; every colour reset before
 * the line's end, so no line's bytes act on the terminal or take another
 * line's colour.  Returns the bytes printed, from the start of the
 * buffer; the caller keeps the rest for the next call.
 */
size_t	diff_color_print(struct diff_color *, const char *untrusted_buf,
	    size_t len, enum diff_color_flush, FILE *out);

/*
 * The bytes at the end of buf[len] that may start a UTF-8 sequence cut
 * by the buffer's end (0 to 3): kept for the next piece.
 */
size_t	utf8_cut_tail(const unsigned char *buf, size_t len);

#endif
