// SPDX-License-Identifier: ISC
/*
 * test-diffcolor.c - cmd/diff-color.c: a patch coloured as git colours it,
 * whatever the pieces it is read in; none of the agent's bytes acts on a
 * terminal.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/diff-color.h"
#include "lib/term-escape.h"
#include "lib/util.h"
#include "tap.h"

#define M	DIFF_COLOR_META
#define F	DIFF_COLOR_FRAG
#define O	DIFF_COLOR_OLD
#define N	DIFF_COLOR_NEW
#define R	DIFF_COLOR_RESET

/* A patch with the agent's escapes, a name, a binary file, no newline. */
static const char patch[] =
    "diff --git a/f.c b/f.c\n"
    "index 1111111..2222222 100644\n"
    "--- a/f.c\n"
    "+++ b/f.c\n"
    "@@ -1,3 +1,3 @@ int main(void)\n"
    " keep\tthis\n"
    "-old \033[2J line\n"
    "+new \033]52;c;Zm9v\007 line\r\n"
    "+diff --git a/x b/x\n"
    "+@@ -9 +9 @@ not a hunk\n"
    "--- a/not a header\n"
    "\\ No newline at end of file\n"
    "diff --git a/b.bin b/b.bin\n"
    "GIT binary patch\n"
    "literal 3\n"
    "KcmZQzWB>pF\n"
    "\n";

static const char want[] =
    M "diff --git a/f.c b/f.c" R "\n"
    M "index 1111111..2222222 100644" R "\n"
    M "--- a/f.c" R "\n"
    M "+++ b/f.c" R "\n"
    F "@@ -1,3 +1,3 @@" R " int main(void)\n"
    " keep\tthis\n"
    O "-old \\x1b[2J line" R "\n"
    N "+new \\x1b]52;c;Zm9v\\x07 line\\x0d" R "\n"
    N "+diff --git a/x b/x" R "\n"
    N "+@@ -9 +9 @@ not a hunk" R "\n"
    O "--- a/not a header" R "\n"
    "\\ No newline at end of file\n"
    M "diff --git a/b.bin b/b.bin" R "\n"
    M "GIT binary patch" R "\n"
    "literal 3\n"
    "KcmZQzWB>pF\n"
    "\n";

/* The patch printed as confine diff reads it: bufsize bytes at a time. */
static char *
render(const char *in, size_t len, size_t bufsize)
{
	char *out = NULL, *chunk = xmalloc(bufsize);
	size_t outlen = 0, pos = 0, nc = 0;
	struct diff_color dc;
	FILE *f = open_memstream(&out, &outlen);

	if (f == NULL)
		abort();
	diff_color_init(&dc);
	while (pos < len) {
		size_t n = bufsize - nc < len - pos ? bufsize - nc : len - pos;
		size_t l, used;

		memcpy(chunk + nc, in + pos, n);
		pos += n;
		l = nc + n;
		used = diff_color_print(&dc, chunk, l, l == bufsize ?
		    DIFF_COLOR_FULL : DIFF_COLOR_LINES, f);
		memmove(chunk, chunk + used, l - used);
		nc = l - used;
	}
	if (nc > 0)
		diff_color_print(&dc, chunk, nc, DIFF_COLOR_END, f);
	fclose(f);
	free(chunk);
	return out;
}

/* s without the colours diff-color prints; NULL when another ESC is in. */
static char *
strip(const char *s)
{
	static const char *const sgr[] = { M, F, O, N, R, DIFF_COLOR_COMMIT };
	char *out = xstrdup(s), *w = out;
	size_t i;

	while (*s) {
		bool hit = false;

		for (i = 0; i < nitems(sgr) && !hit; i++)
			if (strncmp(s, sgr[i], strlen(sgr[i])) == 0) {
				s += strlen(sgr[i]);
				hit = true;
			}
		if (hit)
			continue;
		if (*s == '\033') {
			free(out);
			return NULL;
		}
		*w++ = *s++;
	}
	*w = '\0';
	return out;
}

/* A long line of multibyte characters: read in pieces, cut nowhere. */
static void
test_long_line(void)
{
	const char *e = "\xc3\xa9";	/* U+00E9 */
	char *in = NULL, *out, *plain, *safe;
	size_t len = 0, i;
	FILE *f = open_memstream(&in, &len);

	fputs("diff --git a/l b/l\n@@ -0,0 +1 @@\n+", f);
	for (i = 0; i < 3000; i++)
		fputs(e, f);
	fputs("\n", f);
	fclose(f);
	safe = term_sanitize(in, len, 1);
	for (i = 7; i <= 4099; i += 1023) {
		out = render(in, len, i);
		plain = strip(out);
		ok(plain && streq(plain, safe), "a 6000-byte line read %zu "
		    "bytes at a time: every character whole", i);
		ok(strstr(out, N "+\xc3\xa9") != NULL,
		    "... and green from its start");
		free(plain);
		free(out);
	}
	free(safe);
	free(in);
}

int
main(void)
{
	size_t len = sizeof(patch) - 1, i, longest = 0, n = 0;
	char *whole = render(patch, len, 65536), *safe, *plain;
	bool same = true, clean = true, visible = true;

	is_str(whole, want, "git's colours, the agent's bytes made visible");
	plain = strip(whole);
	ok(plain != NULL, "no escape sequence but the colours");
	safe = term_sanitize(patch, len, 1);
	is_str(plain, safe, "the text is the sanitised patch");
	free(plain);
	for (i = 0; i < len; i++, n++) {
		if (patch[i] == '\n')
			n = 0;
		if (n > longest)
			longest = n;
	}
	/* Every size of read: the same colours once a line fits in it. */
	for (i = 4; i < len + 8; i++) {
		char *out = render(patch, len, i);
		char *p = strip(out);

		if (i > longest + 1 && !streq(out, whole)) {
			diag("read %zu at a time:\n%s", i, out);
			same = false;
		}
		clean &= p != NULL;
		visible &= p && streq(p, safe);
		free(p);
		free(out);
	}
	ok(same, "read in any pieces that hold a line: the same output");
	ok(clean, "read in any pieces: no escape sequence but the colours");
	ok(visible, "read in any pieces: the text is the sanitised patch");
	free(safe);
	free(whole);
	test_long_line();
	return done();
}
