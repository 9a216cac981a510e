/* SPDX-License-Identifier: ISC */
/*
 * export/review-flags.h - changed paths and contents a review must look at twice: paths
 * that tools on the host read and act on, and bytes that show otherwise
 * than they read (research: the write-down and persistence catalogue).
 * Pure: no allocation, no system call.
 */
#ifndef CONFINE_FLAG_H
#define CONFINE_FLAG_H

#include <stdbool.h>
#include <stddef.h>

/* How a rule's pattern meets a path's components. */
enum flag_kind {
	FLAG_NAME,	/* the file name (last component) */
	FLAG_GLOB,	/* the file name, '*' matching any run of bytes */
	FLAG_DIR,	/* a directory of that name anywhere: all below it */
	FLAG_SEQ,	/* "a/b": components in a row, anywhere */
};

struct flag_rule {
	const char	*pat;
	enum flag_kind	 kind;
	bool		 icase;		/* ASCII case ignored, as the tool does */
	const char	*category;
	const char	*why;
};

/* Why applying a change to path can run code on the host, or NULL. */
const char	*flag_path(const char *path);

/*
 * The rules flag_path() applies, in table order, *n of them (for the
 * documentation and its test).
 */
const struct flag_rule	*flag_rules(size_t *n);

/*
 * Why a path's name (agent data: any bytes but NUL) shows otherwise than
 * it is, or NULL: control characters (a tab or a newline too), invisible
 * or deceptive Unicode, invalid UTF-8 (the reasons of flag_content()).
 */
const char	*flag_name(const char *path);

/*
 * Why the new content of a file (agent data: any bytes) hides what a
 * review would see, or NULL: text with NUL bytes, a script or text file
 * made binary, invisible or deceptive Unicode, invalid UTF-8.  old is the
 * host's side (NULL for an added file).  *line is set to the line of the
 * first deceptive character (1-based), or 0 when the finding has none.
 */
const char	*flag_content(const char *path, const void *old, size_t oldlen,
		    const void *new, size_t newlen, size_t *line);

#endif
