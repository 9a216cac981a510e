// SPDX-License-Identifier: ISC
/*
 * cmd/diff-color.c - a session's patch coloured for a terminal as git
 * colours a diff (git-config(1), color.diff.<slot>: meta bold, frag cyan,
 * old red, new green, context plain).
 *
 * Runs in: the user's process on the host.  The patch's bytes are the
 * agent's: each line is made safe by term_sanitize() before it is
 * printed, and only this file's own sequences colour it.
 * MUST: print no byte of the patch but through term_sanitize().
 * MUST: end every coloured piece with a reset, before its newline.
 */
#include "config.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/diff-color.h"
#include "lib/term-escape.h"
#include "lib/util.h"

/*
 * The part of the patch a line is in.  A file's part starts with its
 * "diff " line and its hunks with "@@"; within a hunk every line starts
 * with ' ', '+', '-' or '\', so no line of the agent's can start a part.
 */
enum part { PART_NONE, PART_HEADER, PART_HUNK, PART_BINARY };

static bool
starts(const char *s, size_t len, const char *prefix)
{
	size_t n = strlen(prefix);

	return len >= n && memcmp(s, prefix, n) == 0;
}

/* Sanitised, in color when there is one, reset at its end. */
static void
piece(FILE *out, const char *color, const char *untrusted_s, size_t len)
{
	autofree char *safe = NULL;

	if (len == 0)
		return;
	/* No newline in a piece: keep_nl keeps its tabs. */
	safe = term_sanitize(untrusted_s, len, 1);
	if (color)
		fputs(color, out);
	fputs(safe, out);
	if (color)
		fputs(DIFF_COLOR_RESET, out);
}

/* The colour of a line starting with s, and the part it is in. */
static const char *
classify(struct diff_color *dc, const char *s, size_t len)
{
	if (starts(s, len, "diff ")) {
		dc->state = PART_HEADER;
		return DIFF_COLOR_META;
	}
	switch (dc->state) {
	case PART_HEADER:
		if (starts(s, len, "GIT binary patch"))
			dc->state = PART_BINARY;
		return DIFF_COLOR_META;
	case PART_HUNK:
		if (starts(s, len, "+"))
			return DIFF_COLOR_NEW;
		if (starts(s, len, "-"))
			return DIFF_COLOR_OLD;
		return NULL;
	default:
		return NULL;
	}
}

/*
 * The start of a hunk's header: "@@ -a,b +c,d @@" in cyan, the function
 * name after it plain, as git prints them.  The bytes of s it printed.
 */
static size_t
frag(FILE *out, const char *s, size_t len)
{
	size_t i;

	for (i = 2; i + 3 <= len; i++)
		if (memcmp(s + i, " @@", 3) == 0) {
			piece(out, DIFF_COLOR_FRAG, s, i + 3);
			return i + 3;
		}
	piece(out, DIFF_COLOR_FRAG, s, len);
	return len;
}

size_t
utf8_cut_tail(const unsigned char *buf, size_t len)
{
	size_t back, need;

	for (back = 1; back <= 3 && back <= len; back++) {
		unsigned char c = buf[len - back];

		if ((c & 0xc0) == 0x80)
			continue;
		need = c >= 0xf0 ? 4 : c >= 0xe0 ? 3 : c >= 0xc0 ? 2 : 1;
		return need > back ? back : 0;
	}
	return 0;
}

void
diff_color_init(struct diff_color *dc)
{
	memset(dc, 0, sizeof(*dc));
	dc->state = PART_NONE;
}

size_t
diff_color_print(struct diff_color *dc, const char *untrusted_buf, size_t len,
    enum diff_color_flush flush, FILE *out)
{
	size_t i = 0;

	while (i < len) {
		const char *s = untrusted_buf + i;
		const char *nl = memchr(s, '\n', len - i);
		size_t n, done = 0;

		if (nl != NULL)
			n = (size_t)(nl - s);
		else if (flush == DIFF_COLOR_LINES ||
		    (flush == DIFF_COLOR_FULL && i > 0))
			break;	/* the caller reads the rest of the line */
		else {
			/* A line longer than the buffer: in pieces. */
			n = len - i;
			if (flush == DIFF_COLOR_FULL)
				n -= utf8_cut_tail((const unsigned char *)s, n);
			if (n == 0)
				break;
		}
		if (!dc->mid_line) {
			if (starts(s, n, "@@") && (dc->state == PART_HEADER ||
			    dc->state == PART_HUNK)) {
				dc->state = PART_HUNK;
				dc->color = NULL;
				done = frag(out, s, n);
			} else
				dc->color = classify(dc, s, n);
		}
		piece(out, dc->color, s + done, n - done);
		if (nl != NULL) {
			fputc('\n', out);
			dc->mid_line = false;
			i += n + 1;
		} else {
			dc->mid_line = true;
			i += n;
		}
	}
	return i;
}
