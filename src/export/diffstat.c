// SPDX-License-Identifier: ISC
/*
 * export/diffstat.c - the summary of a diff as "git diff --stat" prints it:
 * the same names, counts, alignment and +/- graph, so that the exit summary
 * and the report read as git's would for the same change.
 *
 * Runs in: confine-export, outside any sandbox, after it.  The paths are
 * the agent's: quoted as git quotes them (core.quotePath), which leaves
 * printable ASCII only.
 * MUST: print no byte of a path unquoted but printable ASCII.
 */
#include "config.h"

#include <git2.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "export/diffstat.h"
#include "export/large.h"
#include "lib/util.h"

/* A line of the summary. */
struct stat_line {
	char	*name;		/* as git prints it: quoted, a rename folded */
	bool	 binary;
	size_t	 added;		/* lines; a binary file: its new size */
	size_t	 deleted;	/* lines; a binary file: its old size */
};

/* The widths of the columns, as git lays them out. */
struct stat_layout {
	int	name;		/* the name's column */
	int	number;		/* the count's column */
	int	graph;		/* room for the +/- graph */
	size_t	max_change;	/* the largest count, which fills the graph */
};

static bool
needs_quote(unsigned char c)
{
	return c < 0x20 || c >= 0x7f || c == '"' || c == '\\';
}

static int
digits(size_t n)
{
	int w = 1;

	while (n >= 10) {
		n /= 10;
		w++;
	}
	return w;
}

/*
 * A rename as git folds it: the common leading directories and trailing
 * components written once, around "{old => new}".
 */
static char *
rename_name(const char *a, const char *b)
{
	long la = (long)strlen(a), lb = (long)strlen(b), i, j, lo;
	long pfx = 0, sfx = 0, mida, midb;
	autofree char *qa = NULL, *qb = NULL;

	qa = diffstat_quote(a);
	qb = diffstat_quote(b);
	if (!streq(qa, a) || !streq(qb, b))
		return xasprintf("%s => %s", qa, qb);
	/* The prefix ends with a slash, */
	for (i = 0; a[i] && a[i] == b[i]; i++)
		if (a[i] == '/')
			pfx = i + 1;
	/* the suffix starts with one, which may be the prefix's last. */
	lo = pfx > 0 ? pfx - 1 : 0;
	for (i = la, j = lb; i >= lo && j >= lo && a[i] == b[j]; i--, j--)
		if (a[i] == '/')
			sfx = la - i;
	mida = la - pfx - sfx;
	midb = lb - pfx - sfx;
	if (mida < 0)
		mida = 0;
	if (midb < 0)
		midb = 0;
	if (pfx + sfx == 0)
		return xasprintf("%s => %s", a, b);
	return xasprintf("%.*s{%.*s => %.*s}%s", (int)pfx, a, (int)mida,
	    a + pfx, (int)midb, b + pfx, a + la - sfx);
}

/* A blob's size, 0 when there is none (an added or deleted side). */
static size_t
blob_size(git_odb *odb, const git_diff_file *f)
{
	size_t len = 0;
	git_object_t type;

	if (odb == NULL || git_oid_is_zero(&f->id) ||
	    git_odb_read_header(&len, &type, odb, &f->id) < 0)
		return 0;
	return len;
}

static void
line_fill(git_repository *repo, git_odb *odb, git_diff *diff, size_t i,
    struct stat_line *l)
{
	const git_diff_delta *d = git_diff_get_delta(diff, i);
	git_patch *patch = NULL;
	/* A large file's patch is binary (export/large.h), never loaded. */
	bool large = repo && (large_is(repo, &d->old_file.id) ||
	    large_is(repo, &d->new_file.id));

	memset(l, 0, sizeof(*l));
	if (d->status == GIT_DELTA_RENAMED &&
	    !streq(d->old_file.path, d->new_file.path))
		l->name = rename_name(d->old_file.path, d->new_file.path);
	else
		l->name = diffstat_quote(d->new_file.path);
	if (!large && git_patch_from_diff(&patch, diff, i) == 0 && patch) {
		d = git_patch_get_delta(patch);
		git_patch_line_stats(NULL, &l->added, &l->deleted, patch);
	}
	if (large || (d->flags & GIT_DIFF_FLAG_BINARY)) {
		l->binary = true;
		l->added = l->deleted = 0;
		/* git says nothing of the sizes when the bytes are the same. */
		if (!git_oid_equal(&d->old_file.id, &d->new_file.id)) {
			l->deleted = blob_size(odb, &d->old_file);
			l->added = blob_size(odb, &d->new_file);
		}
	}
	git_patch_free(patch);
}

/*
 * The columns: the name as long as the longest, the graph as wide as the
 * largest count; when that is wider than width, the graph gets at most
 * 3/8 of it (but 6 columns) and the name what is left.
 */
static void
layout(const struct stat_line *v, size_t n, int width, struct stat_layout *ly)
{
	size_t i, max_len = 0, bin_width = 0;
	int fixed;

	memset(ly, 0, sizeof(*ly));
	for (i = 0; i < n; i++) {
		size_t len = strlen(v[i].name);

		if (len > max_len)
			max_len = len;
		if (v[i].binary) {
			/* "Bin OLD -> NEW bytes", the counts under "Bin". */
			size_t w = 14 + (size_t)digits(v[i].added) +
			    (size_t)digits(v[i].deleted);

			if (w > bin_width)
				bin_width = w;
			ly->number = 3;
		} else if (v[i].added + v[i].deleted > ly->max_change)
			ly->max_change = v[i].added + v[i].deleted;
	}
	if (digits(ly->max_change) > ly->number)
		ly->number = digits(ly->max_change);
	fixed = ly->number + 6;		/* " ", " | ", the count, " " */
	if (width < 16 + fixed)
		width = 16 + fixed;
	ly->graph = (int)(ly->max_change + 4 > bin_width ? ly->max_change :
	    bin_width - 4);
	ly->name = (int)max_len;
	if (ly->name + fixed + ly->graph <= width)
		return;
	if (ly->graph > width * 3 / 8 - fixed) {
		ly->graph = width * 3 / 8 - fixed;
		if (ly->graph < 6)
			ly->graph = 6;
	}
	if (ly->name > width - fixed - ly->graph)
		ly->name = width - fixed - ly->graph;
	else
		ly->graph = width - fixed - ly->name;
}

/* A count scaled to the graph, at least one column when not zero. */
static size_t
scale(size_t it, const struct stat_layout *ly)
{
	if (it == 0)
		return 0;
	return 1 + (size_t)((uintmax_t)it * (uintmax_t)(ly->graph - 1) /
	    ly->max_change);
}

static void
repeat(FILE *out, int c, size_t n)
{
	while (n-- > 0)
		fputc(c, out);
}

static void
line_print(const struct stat_line *l, const struct stat_layout *ly,
    FILE *out, const char *ind)
{
	const char *name = l->name, *dots = "", *slash;
	size_t add = l->added, del = l->deleted, len = strlen(name);
	int room = ly->name, pad;

	/* Too long: "..." and its end, from a slash when there is one. */
	if ((size_t)room < len) {
		dots = "...";
		room = room > 3 ? room - 3 : 0;
		name += len - (size_t)room;
		if ((slash = strchr(name, '/')) != NULL)
			name = slash;
	}
	pad = room - (int)strlen(name);
	if (pad < 0)
		pad = 0;
	fprintf(out, "%s%s%s%*s | ", ind, dots, name, pad, "");
	if (l->binary) {
		fprintf(out, "%*s", ly->number, "Bin");
		if (add || del)
			fprintf(out, " %zu -> %zu bytes", del, add);
		fputc('\n', out);
		return;
	}
	if ((size_t)ly->graph <= ly->max_change) {
		size_t total = scale(add + del, ly);

		if (total < 2 && add && del)
			total = 2;
		if (add < del) {
			add = scale(add, ly);
			del = total - add;
		} else {
			del = scale(del, ly);
			add = total - del;
		}
	}
	fprintf(out, "%*zu%s", ly->number, l->added + l->deleted,
	    (l->added + l->deleted) ? " " : "");
	repeat(out, '+', add);
	repeat(out, '-', del);
	fputc('\n', out);
}

char *
diffstat_quote(const char *path)
{
	static const char esc[] = "\a\b\t\n\v\f\r";
	const unsigned char *s = (const unsigned char *)path;
	char *q, *p;
	size_t i;

	for (i = 0; s[i] && !needs_quote(s[i]); i++)
		;
	if (s[i] == '\0')
		return xstrdup(path);
	/* At most four bytes for one ("\ooo"), and the quotes. */
	p = q = xcalloc(4, strlen(path) + 1);
	*p++ = '"';
	for (i = 0; s[i]; i++) {
		const char *e = strchr(esc, s[i]);

		if (!needs_quote(s[i]))
			*p++ = (char)s[i];
		else if (s[i] == '"' || s[i] == '\\') {
			*p++ = '\\';
			*p++ = (char)s[i];
		} else if (e != NULL) {
			*p++ = '\\';
			*p++ = "abtnvfr"[e - esc];
		} else
			p += sprintf(p, "\\%03o", s[i]);
	}
	*p++ = '"';
	*p = '\0';
	return q;
}

void
diffstat_print(git_repository *repo, git_diff *diff, FILE *out, size_t max,
    const char *ind, int width)
{
	size_t n = git_diff_num_deltas(diff), shown = n < max ? n : max, i;
	size_t adds = 0, dels = 0;
	struct stat_line *v = xcalloc(n + 1, sizeof(*v));
	struct stat_layout ly;
	git_odb *odb = NULL;

	if (repo == NULL || git_repository_odb(&odb, repo) < 0)
		odb = NULL;
	for (i = 0; i < n; i++) {
		line_fill(repo, odb, diff, i, &v[i]);
		if (!v[i].binary) {
			adds += v[i].added;
			dels += v[i].deleted;
		}
	}
	git_odb_free(odb);
	/* git's width is the line's; ind stands for its one space. */
	layout(v, shown, width - (int)strlen(ind) + 1, &ly);
	for (i = 0; i < shown; i++)
		line_print(&v[i], &ly, out, ind);
	if (shown < n)
		fprintf(out, "%s... and %zu more (confine show)\n", ind,
		    n - shown);
	fprintf(out, "%s%zu file%s changed", ind, n, n == 1 ? "" : "s");
	/* As git: a zero is said only when both are, and not for no file. */
	if (n > 0 && (adds || dels == 0))
		fprintf(out, ", %zu insertion%s(+)", adds, adds == 1 ? "" : "s");
	if (n > 0 && (dels || adds == 0))
		fprintf(out, ", %zu deletion%s(-)", dels, dels == 1 ? "" : "s");
	fputc('\n', out);
	for (i = 0; i < n; i++)
		free(v[i].name);
	free(v);
}
