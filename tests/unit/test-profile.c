// SPDX-License-Identifier: ISC
/*
 * test-profile.c - the profile loader (src/input/profile.c) and the value checks it
 * shares with the options (src/input/values.c).
 *
 * The data is in $TESTS_SRCDIR/data/profiles:
 *   bad/NAME.ini	one defect each; NAME.err holds the first line of the
 *			error, with @FILE@ for the path the file was loaded as
 *			and @DIRS@ for the directory of the profile dirs;
 *   good/NAME.ini	NAME.expect is the merged profile as dump() prints it,
 *			with the same two placeholders;
 *   dirs/{user,system,shipped}/	the profile directories for "extends".
 * The dirs are copied to a temporary directory, mode 0644, because every
 * extended file must pass the permission check whatever the umask of the
 * checkout was.  The source tree is never changed.
 *
 * Where glibc can count the heap (mallinfo2, with its per-thread cache off:
 * the test re-executes itself with GLIBC_TUNABLES for that), every load is
 * also checked to keep no memory once its results are freed.
 *
 * Directives: "# SKIP" for a case this process cannot set up (chown when not
 * root).
 */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#if defined(__GLIBC__) && (__GLIBC__ > 2 || \
    (__GLIBC__ == 2 && __GLIBC_MINOR__ >= 33))
#include <malloc.h>
#define HAVE_MALLINFO2	1
#endif

#include "input/profile.h"
#include "input/values.h"
#include "lib/util.h"

#include "tap.h"

/* A result that does not count as a failure either way. */
#define skip(why, ...) \
	(printf("ok %d - ", ++tap_run), printf(__VA_ARGS__), \
	    printf(" # SKIP %s\n", (why)), fflush(stdout))

static const char *srcdir;	/* $TESTS_SRCDIR */
static char *tmp;		/* removed at the end */
static char *dirs_root;		/* tmp/dirs: @DIRS@ */
static struct profile_dirs dirs;

/* ---------------------------------------------------------------------- */
/* Helpers */

/* A value fit for a TAP line: control bytes, '#' and '\\' as \xNN. */
static char *
vis(const char *s)
{
	char *r = xmalloc(strlen(s) * 4 + 1), *t = r;

	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c < 0x20 || c == 0x7f || c == '#' || c == '\\')
			t += sprintf(t, "\\x%02x", c);
		else
			*t++ = (char)c;
	}
	*t = '\0';
	return r;
}

static bool
has_control(const char *s)
{
	for (; s && *s; s++)
		if ((unsigned char)*s < 0x20 || *s == 0x7f)
			return true;
	return false;
}

/* The whole file, NUL-terminated (it may hold NULs: see *ret_len). */
static char *
slurp(const char *path, size_t *ret_len)
{
	FILE *f = fopen(path, "rb");
	char *buf = NULL;
	size_t len = 0, n;

	if (f == NULL)
		return NULL;
	do {
		buf = xreallocarray(buf, len + 4096 + 1, 1);
		n = fread(buf + len, 1, 4096, f);
		len += n;
	} while (n > 0);
	fclose(f);
	buf[len] = '\0';
	if (ret_len)
		*ret_len = len;
	return buf;
}

static void
spew(const char *path, const char *buf, size_t len, mode_t mode)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);

	if (fd < 0 || write(fd, buf, len) != (ssize_t)len ||
	    fchmod(fd, mode) < 0) {
		printf("Bail out! cannot write %s: %s\n", path,
		    strerror(errno));
		exit(99);
	}
	close(fd);
}

/* s with every "from" replaced by "to". */
static char *
replace(const char *s, const char *from, const char *to)
{
	size_t nf = strlen(from), n = 0;
	const char *p;
	char *r, *t;

	for (p = s; (p = strstr(p, from)); p += nf)
		n++;
	r = t = xmalloc(strlen(s) + n * strlen(to) + 1);
	for (p = s; *p; ) {
		if (strncmp(p, from, nf) == 0) {
			t = stpcpy(t, to);
			p += nf;
		} else
			*t++ = *p++;
	}
	*t = '\0';
	return r;
}

static char *
placeholders(const char *s, const char *file)
{
	autofree char *a = replace(s, "@FILE@", file);

	return replace(a, "@DIRS@", dirs_root);
}

static char *
first_line(const char *s)
{
	return s ? xstrndup(s, strcspn(s, "\n")) : NULL;
}

static void
diff_lines(const char *want, const char *got)
{
	size_t line = 1;

	while (*want || *got) {
		size_t a = strcspn(want, "\n"), b = strcspn(got, "\n");

		if (a != b || strncmp(want, got, a) != 0) {
			diag("line %zu:", line);
			diag("-%.*s", (int)a, want);
			diag("+%.*s", (int)b, got);
		}
		want += a + (want[a] == '\n');
		got += b + (got[b] == '\n');
		line++;
	}
}

static int
is_ini(const struct dirent *e)
{
	size_t n = strlen(e->d_name);

	return n > 4 && streq(e->d_name + n - 4, ".ini");
}

/* The names of dir's *.ini files, without ".ini", sorted. */
static char **
list_ini(const char *dir)
{
	struct dirent **e;
	char **v = NULL;
	size_t n = 0;
	int i, m;

	if ((m = scandir(dir, &e, is_ini, alphasort)) < 0) {
		printf("Bail out! %s: %s\n", dir, strerror(errno));
		exit(99);
	}
	for (i = 0; i < m; i++) {
		strv_push(&v, &n, xstrndup(e[i]->d_name,
		    strlen(e[i]->d_name) - 4));
		free(e[i]);
	}
	free(e);
	if (v == NULL)
		v = xcalloc(1, sizeof(*v));
	return v;
}

/* Copy the regular files of src into a new directory dst, mode 0644. */
static void
copy_dir(const char *src, const char *dst)
{
	DIR *d = opendir(src);
	struct dirent *e;

	if (d == NULL || mkdir(dst, 0755) < 0) {
		printf("Bail out! cannot copy %s to %s: %s\n", src, dst,
		    strerror(errno));
		exit(99);
	}
	while ((e = readdir(d))) {
		autofree char *from = xasprintf("%s/%s", src, e->d_name);
		autofree char *to = xasprintf("%s/%s", dst, e->d_name);
		autofree char *buf = NULL;
		struct stat st;
		size_t len;

		if (stat(from, &st) < 0 || !S_ISREG(st.st_mode))
			continue;
		if ((buf = slurp(from, &len)) == NULL) {
			printf("Bail out! cannot read %s\n", from);
			exit(99);
		}
		spew(to, buf, len, 0644);
	}
	closedir(d);
}

static int
rm_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st, (void)flag, (void)ftw;
	if (remove(path) < 0)
		diag("cannot remove %s: %s", path, strerror(errno));
	return 0;
}

static void
rm_rf(const char *path)
{
	nftw(path, rm_one, 16, FTW_DEPTH | FTW_PHYS);
}

/* ---------------------------------------------------------------------- */
/* The heap, to see that nothing is kept */

static bool heap_ok;

static size_t
heap_used(void)
{
#ifdef HAVE_MALLINFO2
	struct mallinfo2 m = mallinfo2();

	return m.uordblks + m.hblkhd;
#else
	return 0;
#endif
}

/*
 * glibc keeps freed chunks in a per-thread cache that mallinfo2 counts as
 * used: turn it off (a tunable, read at start-up only, hence the exec),
 * then check that a malloc and a free show.
 */
static void
heap_setup(char **argv)
{
#ifdef HAVE_MALLINFO2
	size_t a, b, c;
	void *p;

	if (getenv("CONFINE_TEST_HEAP") == NULL) {
		const char *t = getenv("GLIBC_TUNABLES");
		char *v = xasprintf("%s%sglibc.malloc.tcache_count=0",
		    t ? t : "", t ? ":" : "");

		setenv("GLIBC_TUNABLES", v, 1);
		setenv("CONFINE_TEST_HEAP", "1", 1);
		free(v);
		execv("/proc/self/exe", argv);
		/* Go on without: heap_ok stays false. */
		return;
	}
	free(xmalloc(1));	/* the arena exists from the first malloc */
	a = heap_used();
	p = xmalloc(100);
	b = heap_used();
	free(p);
	c = heap_used();
	heap_ok = b >= a + 100 && c == a;
#else
	(void)argv;
#endif
}

/* ---------------------------------------------------------------------- */
/* input/values.c */

struct row {
	const char	*s;
	bool		 ok;
	const char	*why;		/* refused: the exact message */
};

#define HN	" is not a host name (lower-case letters, digits, '-' " \
		"and '.'), '*.domain' or an IP address"
#define PORT	": the port must be 1 to 65535"
#define BRACKET	": an IPv6 address goes in brackets: [::1]:443"
#define ABS	" is not an absolute path (start it with / or ~/)"
#define NORMAL	" is not a normal path (no '.', '..', '//' or " \
		"trailing '/')"
#define CTRL	"path has a control character"
#define HOMEREL	": name an entry of the home directory, relative " \
		"to it (like .gitconfig)"
#define RELNORM	" is not a normal relative path"
#define VARNAME	" is not a variable name (letters, digits and _, not " \
		"starting with a digit"
#define VARGLOB	VARNAME "; or a prefix ending in *)"

static void
check_rows(const char *what, const struct row *rows, size_t n,
    int (*fn)(const char *, char **))
{
	size_t i;

	for (i = 0; i < n; i++) {
		const struct row *t = &rows[i];
		autofree char *v = vis(t->s);
		char *why = NULL;
		int r = fn(t->s, &why);

		if (t->ok) {
			if (!ok(r == 0 && why == NULL, "%s accepts '%s'",
			    what, v))
				diag("why: %s", why ? why : "(NULL)");
		} else if (ok(r == -1 && why, "%s refuses '%s'", what, v) &&
		    t->why)
			is_str(why, t->why, "%s: the message for '%s'",
			    what, v);
		free(why);
	}
}

static int
host(const char *s, char **why)
{
	return syntax_host(s, why);
}

static void
test_syntax_host(void)
{
	static char label63[80], label64[80], name253[300], name254[300];
	const struct row rows[] = {
		{ "example.com", true, NULL },
		{ "a", true, NULL },
		{ "localhost", true, NULL },
		{ "a-b.example", true, NULL },
		{ "a--b.example", true, NULL },
		{ "xn--bcher-kva.example", true, NULL },
		{ "0day.example", true, NULL },
		{ "*.example.com", true, NULL },
		{ "*.com", true, NULL },
		{ "*.example.com:443", true, NULL },
		{ "example.com:1", true, NULL },
		{ "example.com:443", true, NULL },
		{ "example.com:65535", true, NULL },
		{ "10.0.0.1", true, NULL },
		{ "10.0.0.1:8080", true, NULL },
		{ "[::1]", true, NULL },
		{ "[::1]:443", true, NULL },
		{ "[2001:db8::1]:8443", true, NULL },
		{ "[::ffff:10.0.0.1]", true, NULL },
		{ "[fe80::1]:1", true, NULL },
		{ label63, true, NULL },
		{ name253, true, NULL },
		{ "", false, "''" HN },
		{ "example.com.", false,
		    "'example.com.': no trailing dot, please" },
		{ "example.com.:443", false,
		    "'example.com.:443': no trailing dot, please" },
		{ "*.example.com.", false,
		    "'*.example.com.': no trailing dot, please" },
		{ "Example.com", false, "'Example.com'" HN },
		{ "EXAMPLE.COM:443", false, "'EXAMPLE.COM'" HN },
		{ "exa mple.com", false, "'exa mple.com'" HN },
		{ "my_host.example.com", false, "'my_host.example.com'" HN },
		{ "-a.example.com", false, "'-a.example.com'" HN },
		{ "a.-b.example.com", false, "'a.-b.example.com'" HN },
		{ "a-.example.com", false, "'a-.example.com'" HN },
		{ "example-", false, "'example-'" HN },
		{ "a..b", false, "'a..b'" HN },
		{ ".a", false, "'.a'" HN },
		{ "*", false, "'*'" HN },
		{ "*.", false, "'*.'" HN },
		{ "*.*.com", false, "'*.*.com'" HN },
		{ "a.*.com", false, "'a.*.com'" HN },
		{ "**.com", false, "'**.com'" HN },
		{ "*example.com", false, "'*example.com'" HN },
		{ "\xc3\xa9t\xc3\xa9.example", false, NULL },
		{ label64, false, NULL },
		{ name254, false, NULL },
		{ "a\x1b.com", false, NULL },
		{ "a\t.com", false, NULL },
		{ "example.com:0", false, "'example.com:0'" PORT },
		{ "example.com:0443", false, "'example.com:0443'" PORT },
		{ "example.com:65536", false, "'example.com:65536'" PORT },
		{ "example.com:99999", false, "'example.com:99999'" PORT },
		{ "example.com:123456", false, "'example.com:123456'" PORT },
		{ "example.com:-1", false, "'example.com:-1'" PORT },
		{ "example.com:https", false, "'example.com:https'" PORT },
		{ "example.com:443x", false, "'example.com:443x'" PORT },
		{ "example.com:", false, "'example.com:'" PORT },
		{ "example.com:443:1", false, "'example.com:443:1' is not HOST[:PORT]" },
		{ "example.com:+443", false, "'example.com:+443'" PORT },
		{ "example.com: 443", false, "'example.com: 443'" PORT },
		{ "[::1", false, "'[::1'" BRACKET },
		{ "[::g]", false, "'::g': not an IPv6 address" },
		{ "[10.0.0.1]", false, "'10.0.0.1': not an IPv6 address" },
		{ "[]", false, "'': not an IPv6 address" },
		{ "[::1]x", false, "'[::1]x' is not HOST[:PORT]" },
		{ "[::1]:", false, "'[::1]:'" PORT },
		{ "[::1]:0", false, "'[::1]:0'" PORT },
		{ "[::1]:65536", false, "'[::1]:65536'" PORT },
		{ "::1", false, "'::1'" BRACKET },
		{ "2001:db8::1", false, "'2001:db8::1'" BRACKET },
		{ "2001:db8::1:443", false, "'2001:db8::1:443'" BRACKET },
	};
	/* Numbers that are no dotted quad, yet getaddrinfo takes for IPv4. */
	static const char *const numeric[] = { "999.1.1.1", "10.0.0.256",
	    "1.2.3", "2130706433", "0x7f.1", "017.0.0.1" };
	size_t i;

	memset(label63, 'a', 63);
	memcpy(label63 + 63, ".com", 5);
	memset(label64, 'a', 64);
	memcpy(label64 + 64, ".com", 5);
	/* 63 + 1 + 63 + 1 + 63 + 1 + 61 = 253 */
	memset(name253, 'b', 253);
	name253[63] = name253[127] = name253[191] = '.';
	name253[253] = '\0';
	memcpy(name254, name253, 254);
	name254[252] = '.';
	name254[253] = 'c';
	name254[254] = '\0';
	check_rows("syntax_host", rows, nitems(rows), host);

	for (i = 0; i < nitems(numeric); i++) {
		char *why = NULL;

		/* getaddrinfo may read these as IPv4 (inet_aton forms). */
		ok(syntax_host(numeric[i], &why) == -1,
		    "syntax_host refuses '%s'", numeric[i]);
		free(why);
	}
}

static int
path(const char *s, char **why)
{
	return syntax_path(s, why);
}

static void
test_syntax_path(void)
{
	const struct row rows[] = {
		{ "/", true, NULL },
		{ "/usr", true, NULL },
		{ "/usr/lib/x86_64-linux-gnu", true, NULL },
		{ "/a b", true, NULL },
		{ "/.hidden", true, NULL },
		{ "/..a", true, NULL },
		{ "/a..", true, NULL },
		{ "/...", true, NULL },
		{ "/a/b.c/d", true, NULL },
		{ "/\xc3\xa9t\xc3\xa9", true, NULL },
		{ "~", true, NULL },
		{ "~/.ssh", true, NULL },
		{ "~/a/b", true, NULL },
		{ "", false, "''" ABS },
		{ "usr", false, "'usr'" ABS },
		{ "usr/lib", false, "'usr/lib'" ABS },
		{ "./x", false, "'./x'" ABS },
		{ "../x", false, "'../x'" ABS },
		{ "~user", false, "'~user'" ABS },
		{ "~user/x", false, "'~user/x'" ABS },
		{ " /usr", false, "' /usr'" ABS },
		{ "/a/../b", false, "'/a/../b'" NORMAL },
		{ "/a/./b", false, "'/a/./b'" NORMAL },
		{ "/a//b", false, "'/a//b'" NORMAL },
		{ "/a/", false, "'/a/'" NORMAL },
		{ "//", false, "'//'" NORMAL },
		{ "/.", false, "'/.'" NORMAL },
		{ "/..", false, "'/..'" NORMAL },
		{ "/a/..", false, "'/a/..'" NORMAL },
		{ "~/..", false, "'~/..'" NORMAL },
		{ "~/.", false, "'~/.'" NORMAL },
		{ "~//x", false, "'~//x'" NORMAL },
		{ "~/x/", false, "'~/x/'" NORMAL },
		{ "~/", false, NULL },		/* "~" with a trailing '/' */
		{ "/a\tb", false, CTRL },
		{ "/a\nb", false, CTRL },
		{ "/a\x7f", false, CTRL },
		{ "~/\x1b[2J", false, CTRL },
	};

	check_rows("syntax_path", rows, nitems(rows), path);
}

static int
home_entry(const char *s, char **why)
{
	return syntax_home_entry(s, why);
}

static void
test_syntax_home_entry(void)
{
	const struct row rows[] = {
		{ ".gitconfig", true, NULL },
		{ ".config/git", true, NULL },
		{ "a", true, NULL },
		{ "a/b/c", true, NULL },
		{ "..a", true, NULL },
		{ "a b", true, NULL },
		{ "", false, "''" HOMEREL },
		{ "/x", false, "'/x'" HOMEREL },
		{ "/home/u/.gitconfig", false, "'/home/u/.gitconfig'" HOMEREL },
		{ "~", false, "'~'" HOMEREL },
		{ "~/.gitconfig", false, "'~/.gitconfig'" HOMEREL },
		{ "..", false, "'..'" RELNORM },
		{ ".", false, "'.'" RELNORM },
		{ "./a", false, "'./a'" RELNORM },
		{ "a/..", false, "'a/..'" RELNORM },
		{ ".config/../.ssh", false, "'.config/../.ssh'" RELNORM },
		{ "a/./b", false, "'a/./b'" RELNORM },
		{ "a//b", false, "'a//b'" RELNORM },
		{ "a/", false, "'a/'" RELNORM },
		{ "a\x01", false, NULL },
	};

	check_rows("syntax_home_entry", rows, nitems(rows), home_entry);
}

static int
env_name(const char *s, char **why)
{
	return syntax_env_name(s, false, why);
}

static int
env_glob(const char *s, char **why)
{
	return syntax_env_name(s, true, why);
}

static int
env_set(const char *s, char **why)
{
	return syntax_env_set(s, why);
}

static void
test_syntax_env(void)
{
	const struct row names[] = {
		{ "A", true, NULL },
		{ "_", true, NULL },
		{ "_A1", true, NULL },
		{ "PATH", true, NULL },
		{ "lower_ok", true, NULL },
		{ "a1", true, NULL },
		{ "", false, "''" VARNAME ")" },
		{ "1A", false, "'1A'" VARNAME ")" },
		{ "A-B", false, "'A-B'" VARNAME ")" },
		{ "A=B", false, "'A=B'" VARNAME ")" },
		{ "A*", false, "'A*'" VARNAME ")" },
		{ "*", false, "'*'" VARNAME ")" },
		{ "A B", false, "'A B'" VARNAME ")" },
		{ "\xc3\x89T\xc3\x89", false, NULL },
	};
	const struct row globs[] = {
		{ "LC_*", true, NULL },
		{ "A*", true, NULL },
		{ "_*", true, NULL },
		{ "PATH", true, NULL },
		{ "", false, "''" VARGLOB },
		{ "*", false, "'*'" VARGLOB },
		{ "**", false, "'**'" VARGLOB },
		{ "A**", false, "'A**'" VARGLOB },
		{ "1*", false, "'1*'" VARGLOB },
		{ "*A", false, "'*A'" VARGLOB },
		{ "A*B", false, "'A*B'" VARGLOB },
		{ "MY-VAR", false, "'MY-VAR'" VARGLOB },
	};
	const struct row sets[] = {
		{ "A=", true, NULL },
		{ "A=b", true, NULL },
		{ "A=b=c", true, NULL },
		{ "_X=/a:/b", true, NULL },
		{ "A=hello world", true, NULL },
		{ "A", false, "'A': expected NAME=VALUE" },
		{ "", false, "'': expected NAME=VALUE" },
		{ "=x", false, "''" VARNAME ")" },
		{ "1A=x", false, "'1A'" VARNAME ")" },
		{ "A-B=x", false, "'A-B'" VARNAME ")" },
		{ "A*=x", false, "'A*'" VARNAME ")" },
	};

	check_rows("syntax_env_name", names, nitems(names), env_name);
	check_rows("syntax_env_name (glob)", globs, nitems(globs), env_glob);
	check_rows("syntax_env_set", sets, nitems(sets), env_set);
}

static void
test_syntax_bool(void)
{
	static const struct {
		const char	*s;
		int		 r;
		bool		 b;
	} rows[] = {
		{ "yes", 0, true }, { "true", 0, true },
		{ "no", 0, false }, { "false", 0, false },
		{ "", -1, false }, { "YES", -1, false }, { "True", -1, false },
		{ "1", -1, false }, { "0", -1, false }, { "on", -1, false },
		{ "off", -1, false }, { "y", -1, false }, { " yes", -1, false },
	};
	size_t i;

	for (i = 0; i < nitems(rows); i++) {
		char *why = NULL;
		bool b = !rows[i].b;
		int r = syntax_bool(rows[i].s, &b, &why);

		if (rows[i].r == 0)
			ok(r == 0 && b == rows[i].b && why == NULL,
			    "syntax_bool: '%s' is %s", rows[i].s,
			    rows[i].b ? "yes" : "no");
		else
			ok(r == -1 && why, "syntax_bool refuses '%s'",
			    rows[i].s);
		free(why);
	}
	{
		char *why = NULL;
		bool b;

		syntax_bool("on", &b, &why);
		is_str(why, "expected yes or no, got 'on'",
		    "syntax_bool: the message");
		free(why);
	}
}

static void
test_syntax_word(void)
{
	static const struct {
		const char *const	*words;
		const char		*list;
	} sets[] = {
		{ syntax_quadrants, "sealed, offline, online, trusted" },
		{ syntax_net_modes, "none, proxy, host" },
		{ syntax_backends, "auto, native, bwrap, landlock" },
	};
	static const char *const bad[] = { "", "Sealed", "seal", "sealed ",
	    " none", "NONE", "hostx", "auto,native" };
	size_t i, j;

	for (i = 0; i < nitems(sets); i++) {
		for (j = 0; sets[i].words[j]; j++) {
			char *why = NULL;

			ok(syntax_word(sets[i].words[j], sets[i].words,
			    &why) == 0 && why == NULL, "syntax_word accepts "
			    "'%s'", sets[i].words[j]);
			free(why);
		}
		for (j = 0; j < nitems(bad); j++) {
			autofree char *want = xasprintf("expected one of %s, "
			    "got '%s'", sets[i].list, bad[j]);
			char *why = NULL;
			int r = syntax_word(bad[j], sets[i].words, &why);

			if (ok(r == -1, "syntax_word refuses '%s' (one of %s)",
			    bad[j], sets[i].list))
				is_str(why, want, "syntax_word: the message "
				    "for '%s'", bad[j]);
			free(why);
		}
	}
	is_int(strv_len((char *const *)syntax_quadrants), 4, "four quadrants");
	is_int(strv_len((char *const *)syntax_net_modes), 3, "three modes");
	is_int(strv_len((char *const *)syntax_backends), 4, "four backends");
}

static void
test_syntax_expand(void)
{
	static const struct {
		const char	*path, *home, *want;
	} rows[] = {
		{ "~", "/home/u", "/home/u" },
		{ "~/x", "/home/u", "/home/u/x" },
		{ "~/.config/git", "/home/u", "/home/u/.config/git" },
		{ "/abs", "/home/u", "/abs" },
		{ "/", "/home/u", "/" },
		{ "~/x", "/", "/x" },
		{ "~", "/", "/" },
		{ "/home/u/~", "/root", "/home/u/~" },
	};
	size_t i;

	for (i = 0; i < nitems(rows); i++) {
		autofree char *got = syntax_expand(rows[i].path, rows[i].home);

		is_str(got, rows[i].want, "syntax_expand('%s', '%s')",
		    rows[i].path, rows[i].home);
		ok(path_is_normal(got), "syntax_expand('%s', '%s') is normal",
		    rows[i].path, rows[i].home);
	}
}

/* ---------------------------------------------------------------------- */
/* Names and directories */

static void
test_name_ok(void)
{
	char n64[66], n65[67];
	const struct {
		const char	*s;
		bool		 ok;
	} rows[] = {
		{ "sealed", true }, { "a", true }, { "claude-code", true },
		{ "my_profile.v2", true }, { "A1", true }, { "a..b", true },
		{ "x.", true }, { "-x", true }, { n64, true },
		{ "", false }, { ".hidden", false }, { ".", false },
		{ "..", false }, { "a/b", false }, { "/etc/x", false },
		{ "../x", false }, { "a b", false }, { "a\n", false },
		{ "\xc3\xa9", false }, { "a:b", false }, { "a*", false },
		{ n65, false },
	};
	size_t i;

	memset(n64, 'n', 64);
	n64[64] = '\0';
	memset(n65, 'n', 65);
	n65[65] = '\0';
	for (i = 0; i < nitems(rows); i++) {
		autofree char *v = vis(rows[i].s);

		ok(profile_name_ok(rows[i].s) == rows[i].ok,
		    "profile_name_ok('%s') is %s", strlen(v) > 20 ? "(long)" :
		    v, rows[i].ok ? "true" : "false");
	}
	ok(!profile_name_ok(NULL), "profile_name_ok(NULL) is false");
}

static void
test_find(void)
{
	static const struct {
		const char	*name, *dir;
		int		 index;
	} rows[] = {
		{ "shadow", "user", 0 },
		{ "sys-shadow", "system", 1 },
		{ "only-shipped", "shipped", 2 },
		{ "middle", "system", 1 },
		{ "base", "shipped", 2 },
	};
	static const char *const absent[] = { "absent", "base.ini",
	    "../shipped/base", "shipped/base", ".base", "" };
	struct profile_dirs d = dirs;
	size_t i;

	for (i = 0; i < nitems(rows); i++) {
		autofree char *want = xasprintf("%s/%s/%s.ini", dirs_root,
		    rows[i].dir, rows[i].name);
		autofree char *got = NULL;
		int index = -1;

		got = profile_find(&dirs, rows[i].name, &index);
		is_str(got, want, "profile_find('%s') finds the %s one",
		    rows[i].name, rows[i].dir);
		is_int(index, rows[i].index, "profile_find('%s'): dir %d",
		    rows[i].name, rows[i].index);
		free(got);
		got = profile_find(&dirs, rows[i].name, NULL);
		is_str(got, want, "profile_find('%s') without dir_index",
		    rows[i].name);
	}
	for (i = 0; i < nitems(absent); i++) {
		int index = 42;
		autofree char *got = profile_find(&dirs, absent[i], &index);

		ok(got == NULL && index == 42, "profile_find('%s') finds "
		    "nothing", absent[i]);
	}

	/* A NULL dir is skipped: the system one shows through. */
	d.dir[0] = NULL;
	{
		autofree char *want = xasprintf("%s/system/shadow.ini",
		    dirs_root);
		autofree char *got = NULL;
		int index = -1;

		got = profile_find(&d, "shadow", &index);
		is_str(got, want, "no user dir: the system shadow.ini");
		is_int(index, 1, "no user dir: dir 1");
	}
	d.dir[1] = d.dir[2] = NULL;
	{
		autofree char *got = profile_find(&d, "shadow", NULL);

		ok(got == NULL, "no dirs at all: nothing found");
	}
}

/* ---------------------------------------------------------------------- */
/* Loading */

/* The merged profile, one line per value, in the order of profile.h. */
static const struct field {
	const char	*name;
	size_t		 off;
	bool		 list;
} fields[] = {
#define F(n, f, l)	{ n, offsetof(struct profile, f), l }
	F("profile.quadrant", quadrant, false),
	F("profile.untrusted", untrusted, false),
	F("profile.description", description, false),
	F("filesystem.read-only", read_only, true),
	F("filesystem.hide", hide, true),
	F("filesystem.scratch", scratch, true),
	F("filesystem.persistent", persistent, true),
	F("filesystem.direct", direct, true),
	F("filesystem.home", home, true),
	F("workspace.path", ws_path, false),
	F("workspace.private", ws_private, false),
	F("network.mode", net_mode, false),
	F("network.allow", allow, true),
	F("network.endpoint", endpoint, true),
	F("environment.pass", env_pass, true),
	F("environment.set", env_set, true),
	F("credential.file", cred_file, true),
	F("credential.variable", cred_var, true),
	F("credential.inject", inject, false),
	F("credential.source", cred_source, true),
	F("credential.ca", cred_ca, false),
	F("credential.web-search", web_search, false),
	F("credential.refresh", refresh, false),
	F("sandbox.backend", backend, false),
	F("command.argument", cmd_argument, true),
	F("limits.memory", memory, false),
	F("limits.tasks", tasks, false),
	F("limits.cpus", cpus, false),
	F("limits.disk", disk, false),
#undef F
};

static void
dump_value(FILE *f, const char *name, const struct pvalue *v)
{
	fprintf(f, "%s = %s (%s)\n", name, v->value ? v->value : "(NULL)",
	    v->origin ? v->origin : "(NULL)");
}

static char *
dump(const struct profile *p)
{
	char *buf = NULL;
	size_t len = 0, i, j;
	FILE *f = open_memstream(&buf, &len);

	if (f == NULL)
		abort();
	fprintf(f, "name = %s\npath = %s\n", p->name ? p->name : "(NULL)",
	    p->path ? p->path : "(NULL)");
	for (i = 0; i < nitems(fields); i++) {
		const void *at = (const char *)p + fields[i].off;
		const struct plist *l = at;
		const struct pvalue *v = at;

		if (fields[i].list) {
			for (j = 0; j < l->n; j++)
				dump_value(f, fields[i].name, &l->v[j]);
		} else if (v->value || v->origin)
			dump_value(f, fields[i].name, v);
	}
	fclose(f);
	return buf;
}

/* Messages that say there is a hint ("confine: ...", then "hint: ..."). */
static bool
hint_promised(const char *msg)
{
	static const char *const with[] = { "unknown section",
	    "unknown key", "outside any section", "set twice",
	    "is not a profile name", "no profile named", "line too long",
	    "syntax error", ": refused: ", "inside a value",
	    "text after the section header", "a carriage return" };
	size_t i;

	for (i = 0; i < nitems(with); i++)
		if (strstr(msg, with[i]))
			return true;
	return false;
}

static void
test_bad(void)
{
	autofree char *dir = xasprintf("%s/data/profiles/bad", srcdir);
	autostrv char **names = list_ini(dir);
	size_t i;

	ok(strv_len(names) >= 35, "at least 35 bad profiles (%zu)",
	    strv_len(names));
	for (i = 0; names[i]; i++) {
		const char *n = names[i];
		autofree char *file = xasprintf("%s/%s.ini", dir, n);
		autofree char *errf = xasprintf("%s/%s.err", dir, n);
		autofree char *raw = slurp(errf, NULL), *bytes = NULL;
		autofree char *want = NULL, *got = NULL, *got_buf = NULL;
		char *cause = NULL, *hint = NULL;
		struct profile p, sentinel;
		size_t len, before;
		int r;

		if (!ok(raw != NULL, "%s: has %s.err", n, n))
			continue;
		want = placeholders(raw, file);
		want[strcspn(want, "\n")] = '\0';

		memset(&p, 0x5a, sizeof(p));
		sentinel = p;
		r = profile_load_file(&dirs, file, &p, &cause, &hint);
		if (!is_int(r, -1, "%s: refused", n)) {
			if (r == 0)
				profile_free(&p);
			continue;
		}
		ok(memcmp(&p, &sentinel, sizeof(p)) == 0,
		    "%s: *ret untouched", n);
		got = first_line(cause);
		is_str(got, want, "%s: the error", n);
		if (hint_promised(want) && !ok(hint != NULL, "%s: a hint", n))
			diag("cause: %s", cause ? cause : "(NULL)");
		ok(!has_control(cause) && !has_control(hint),
		    "%s: no control character in the message", n);
		free(cause);
		free(hint);

		/* The same bytes as a buffer: the same error. */
		bytes = slurp(file, &len);
		r = profile_load_buffer(&dirs, file, bytes, len, &p, &cause,
		    &hint);
		got_buf = first_line(cause);
		ok(r == -1 && memcmp(&p, &sentinel, sizeof(p)) == 0 &&
		    got && got_buf && streq(got, got_buf),
		    "%s: profile_load_buffer says the same", n);
		free(cause);
		free(hint);

		if (heap_ok) {
			before = heap_used();
			r = profile_load_file(&dirs, file, &p, &cause, &hint);
			free(cause);
			free(hint);
			if (!is_int((long long)heap_used() - (long long)before,
			    0, "%s: no memory kept after the error", n))
				diag("bytes still allocated after the refusal "
				    "and free(cause), free(hint)");
		}
	}
}

static void
test_good(void)
{
	autofree char *dir = xasprintf("%s/data/profiles/good", srcdir);
	autostrv char **names = list_ini(dir);
	size_t i;

	ok(strv_len(names) >= 8, "at least 8 good profiles (%zu)",
	    strv_len(names));
	for (i = 0; names[i]; i++) {
		const char *n = names[i];
		autofree char *file = xasprintf("%s/%s.ini", dir, n);
		autofree char *expf = xasprintf("%s/%s.expect", dir, n);
		autofree char *raw = slurp(expf, NULL), *bytes = NULL;
		autofree char *want = NULL, *got = NULL, *got_buf = NULL;
		char *cause = NULL, *hint = NULL;
		struct profile p = { 0 };
		size_t len, before;
		int r;

		if (!ok(raw != NULL, "%s: has %s.expect", n, n))
			continue;
		want = placeholders(raw, file);
		r = profile_load_file(&dirs, file, &p, &cause, &hint);
		if (!is_int(r, 0, "%s: loads", n)) {
			diag("cause: %s", cause ? cause : "(NULL)");
			diag("hint: %s", hint ? hint : "(NULL)");
			free(cause);
			free(hint);
			continue;
		}
		ok(cause == NULL && hint == NULL, "%s: no cause, no hint", n);
		got = dump(&p);
		if (!ok(streq(got, want), "%s: the merged values and their "
		    "origins", n))
			diff_lines(want, got);
		profile_free(&p);

		bytes = slurp(file, &len);
		r = profile_load_buffer(&dirs, file, bytes, len, &p, &cause,
		    &hint);
		if (r == 0)
			got_buf = dump(&p);
		ok(r == 0 && streq(got_buf, got), "%s: profile_load_buffer "
		    "gives the same", n);
		profile_free(&p);
		free(cause);
		free(hint);

		if (heap_ok) {
			before = heap_used();
			r = profile_load_file(&dirs, file, &p, &cause, &hint);
			profile_free(&p);
			free(cause);
			free(hint);
			is_int((long long)heap_used() - (long long)before, 0,
			    "%s: no memory kept after profile_free", n);
		}
	}
}

/* Refusals made up here: control bytes in what the message quotes. */
static void
test_quoting(void)
{
	static const struct {
		const char	*what, *text;
	} rows[] = {
		{ "a value", "[profile]\nquadrant = \x1b]0;pwned\x07\n" },
		{ "a key", "[profile]\n\x1b[2Jkey = x\n" },
		{ "a section", "[\x1b[2J]\nkey = x\n" },
		{ "a host", "[network]\nallow = a\x1b[2J.com\n" },
		{ "extends", "[profile]\nextends = \x1b[2J\n" },
	};
	size_t i;

	for (i = 0; i < nitems(rows); i++) {
		struct profile p = { 0 };
		char *cause = NULL, *hint = NULL;
		int r = profile_load_buffer(&dirs, "quoting.ini", rows[i].text,
		    strlen(rows[i].text), &p, &cause, &hint);

		if (r == 0)
			profile_free(&p);
		ok(r == -1, "an escape sequence in %s is refused",
		    rows[i].what);
		/* A profile must not write to the terminal of who checks it. */
		ok(r == -1 && !has_control(cause), "the message for an "
		    "escape sequence in %s holds no control character",
		    rows[i].what);
		free(cause);
		free(hint);
	}
}

static void
test_read_file(void)
{
	autofree char *d = xasprintf("%s/size", tmp);
	autofree char *max = xasprintf("%s/max.ini", d);
	autofree char *over = xasprintf("%s/over.ini", d);
	autofree char *missing = xasprintf("%s/missing.ini", d);
	autofree char *fifo = xasprintf("%s/fifo.ini", d);
	autofree char *buf = xmalloc(PROFILE_MAX_SIZE + 1), *got = NULL;
	autofree char *want = NULL;
	char *cause = NULL, *hint = NULL;
	struct profile p = { 0 };
	size_t i, len = 0;
	int r, status;
	pid_t pid;

	if (mkdir(d, 0755) < 0) {
		printf("Bail out! mkdir %s: %s\n", d, strerror(errno));
		exit(99);
	}
	/* 64 KiB of comment lines, 16 bytes each: the largest profile. */
	for (i = 0; i < PROFILE_MAX_SIZE; i += 16)
		memcpy(buf + i, "; fifteen bytes\n", 16);
	spew(max, buf, PROFILE_MAX_SIZE, 0644);
	buf[PROFILE_MAX_SIZE] = '\n';
	spew(over, buf, PROFILE_MAX_SIZE + 1, 0644);

	r = profile_read_file(max, &got, &len);
	ok(r == 0 && len == PROFILE_MAX_SIZE && got[len] == '\0',
	    "profile_read_file: 64 KiB is read, NUL-terminated");
	r = profile_load_file(&dirs, max, &p, &cause, &hint);
	ok(r == 0, "profile_load_file: a 64 KiB profile loads");
	profile_free(&p);
	free(cause);
	free(hint);

	is_int(profile_read_file(over, &got, &len), -EFBIG,
	    "profile_read_file: 64 KiB + 1 is too big");
	is_int(profile_read_file(d, &got, &len), -EINVAL,
	    "profile_read_file: a directory is not a regular file");
	is_int(profile_read_file(missing, &got, &len), -ENOENT,
	    "profile_read_file: a missing file");

	r = profile_load_file(&dirs, over, &p, &cause, &hint);
	want = xasprintf("%s: cannot read: larger than 64 KiB", over);
	ok(r == -1, "profile_load_file refuses 64 KiB + 1");
	is_str(cause, want, "profile_load_file: the message for a big file");
	free(cause), free(hint), free(want);
	r = profile_load_file(&dirs, d, &p, &cause, &hint);
	want = xasprintf("%s: cannot read: not a regular file", d);
	is_str(cause, want, "profile_load_file: the message for a directory");
	free(cause), free(hint), free(want);
	r = profile_load_file(&dirs, missing, &p, &cause, &hint);
	want = xasprintf("%s: cannot read: %s", missing, strerror(ENOENT));
	is_str(cause, want, "profile_load_file: the message for a missing "
	    "file");
	free(cause), free(hint);

	/* A FIFO: refused at once, not a read that waits for a writer. */
	if (mkfifo(fifo, 0644) < 0) {
		skip(strerror(errno), "profile_read_file refuses a FIFO");
		return;
	}
	if ((pid = fork()) == 0) {
		char *b = NULL;
		size_t l;

		alarm(2);
		_exit(profile_read_file(fifo, &b, &l) == -EINVAL ? 0 : 1);
	}
	waitpid(pid, &status, 0);
	if (!ok(WIFEXITED(status) && WEXITSTATUS(status) == 0,
	    "profile_read_file refuses a FIFO without blocking"))
		diag("%s", WIFSIGNALED(status) && WTERMSIG(status) == SIGALRM ?
		    "still blocked in open() after 2 s" : "another result");
}

/* profile_load_name: search, name, and the permission checks. */
static void
test_load_name(void)
{
	autofree char *pd = xasprintf("%s/perm", tmp);
	autofree char *okf = xasprintf("%s/ok.ini", pd);
	autofree char *child = xasprintf("%s/child.ini", pd);
	autofree char *parent = xasprintf("%s/parent.ini", pd);
	struct profile_dirs d = { { pd, NULL, NULL }, getuid(), NULL };
	static const char text[] = "[profile]\ndescription = ok\n";
	static const struct {
		mode_t		 mode;
		bool		 ok;
	} modes[] = {
		{ 0644, true }, { 0600, true }, { 0400, true }, { 0755, true },
		{ 0666, false }, { 0664, false }, { 0646, false },
		{ 0620, false }, { 0602, false }, { 0777, false },
	};
	const char *refused_w = "writable by group or others";
	struct profile p, sentinel;
	char *cause = NULL, *hint = NULL;
	size_t i;
	int r;

	/* Found by name: the user's, named as asked, at the path found. */
	r = profile_load_name(&dirs, "shadow", &p, &cause, &hint);
	if (is_int(r, 0, "profile_load_name('shadow') loads")) {
		autofree char *want = xasprintf("%s/user/shadow.ini",
		    dirs_root);

		is_str(p.name, "shadow", "profile_load_name: the name asked "
		    "for");
		is_str(p.path, want, "profile_load_name: the path found");
		is_str(p.description.value, "user shadow",
		    "profile_load_name: the user's shadows the others");
		profile_free(&p);
	} else
		diag("cause: %s", cause);
	free(cause), free(hint);

	r = profile_load_name(&dirs, "no-such", &p, &cause, &hint);
	is_str(cause, "no profile named 'no-such'", "profile_load_name: a "
	    "name not found");
	ok(r == -1 && hint, "profile_load_name: ... with a hint");
	free(cause), free(hint);
	r = profile_load_name(&dirs, "../shipped/base", &p, &cause, &hint);
	is_str(cause, "no profile named '../shipped/base'",
	    "profile_load_name: a path is no name");
	free(cause), free(hint);

	r = profile_load_name(&dirs, "self", &p, &cause, &hint);
	{
		autofree char *self = xasprintf("%s/user/self.ini", dirs_root);
		autofree char *want = xasprintf("%s:3: extends: 'self' makes a "
		    "cycle (%s is already being read)", self, self);

		ok(r == -1, "profile_load_name: a profile extending its own "
		    "name is refused");
		is_str(cause, want, "profile_load_name: ... as a cycle");
	}
	free(cause), free(hint);

	/* A user's profile may extend the one it shadows. */
	r = profile_load_name(&dirs, "layered", &p, &cause, &hint);
	if (ok(r == 0, "profile_load_name('layered'): extends its own name")) {
		is_str(p.quadrant.value, "offline", "... the user's value");
		is_str(p.description.value, "shipped layered",
		    "... over the shipped one");
		profile_free(&p);
	} else
		diag("cause: %s", cause);
	free(cause), free(hint);

	if (mkdir(pd, 0755) < 0) {
		printf("Bail out! mkdir %s: %s\n", pd, strerror(errno));
		exit(99);
	}

	/*
	 * "sealed" is built in when no sealed.ini exists, but a sealed.ini
	 * that extends sealed, alone, is a cycle.
	 */
	spew(child, "[profile]\nextends = sealed\n", 27, 0644);
	r = profile_load_name(&d, "child", &p, &cause, &hint);
	if (ok(r == 0, "extends = sealed without any sealed.ini: the "
	    "built-in one"))
		profile_free(&p);
	else
		diag("cause: %s", cause);
	free(cause), free(hint);
	{
		autofree char *sealed = xasprintf("%s/sealed.ini", pd);
		autofree char *want = xasprintf("%s:2: extends: 'sealed' "
		    "makes a cycle (%s is already being read)", sealed, sealed);
		size_t before;

		spew(sealed, "[profile]\nextends = sealed\n", 27, 0644);
		r = profile_load_name(&d, "sealed", &p, &cause, &hint);
		is_str(cause, want, "a sealed.ini that extends sealed, alone, "
		    "is a cycle");
		free(cause), free(hint);
		if (heap_ok) {
			before = heap_used();
			r = profile_load_name(&d, "sealed", &p, &cause, &hint);
			free(cause), free(hint);
			is_int((long long)heap_used() - (long long)before, 0,
			    "... and keeps no memory");
		}
		unlink(sealed);
	}

	/* Modes. */
	spew(okf, text, sizeof(text) - 1, 0644);
	for (i = 0; i < nitems(modes); i++) {
		autofree char *want = xasprintf("%s: refused: %s", okf,
		    refused_w);

		chmod(okf, modes[i].mode);
		memset(&p, 0x5a, sizeof(p));
		sentinel = p;
		cause = hint = NULL;
		r = profile_load_name(&d, "ok", &p, &cause, &hint);
		if (modes[i].ok) {
			if (!ok(r == 0, "profile_load_name: mode %04o is "
			    "accepted", (unsigned)modes[i].mode))
				diag("cause: %s", cause);
			if (r == 0)
				profile_free(&p);
		} else {
			is_str(cause, want, "profile_load_name: mode %04o is "
			    "refused", (unsigned)modes[i].mode);
			ok(r == -1 && hint && memcmp(&p, &sentinel,
			    sizeof(p)) == 0, "profile_load_name: mode %04o: "
			    "a hint, *ret untouched", (unsigned)modes[i].mode);
		}
		free(cause), free(hint);
	}
	chmod(okf, 0644);

	/*
	 * Owners.  root can give a file to another uid, except in a user
	 * namespace that maps root alone (a build chroot made with
	 * "unshare -r"): chown(2) then fails with EINVAL.
	 */
	if (getuid() == 0 && chown(okf, 4242, 4242) == 0 &&
	    chown(okf, 0, 0) == 0) {
		autofree char *want = xasprintf("%s: refused: owned by another "
		    "user", okf);

		/* root's file, for a caller of another uid: accepted. */
		d.uid = 4242;
		r = profile_load_name(&d, "ok", &p, &cause, &hint);
		ok(r == 0, "profile_load_name: a file of root's is accepted "
		    "whoever the caller is");
		if (r == 0)
			profile_free(&p);
		free(cause), free(hint);

		/* uid 4242's file: accepted for 4242, refused for root. */
		if (chown(okf, 4242, 4242) < 0)
			diag("chown: %s", strerror(errno));
		r = profile_load_name(&d, "ok", &p, &cause, &hint);
		ok(r == 0, "profile_load_name: the caller's own file is "
		    "accepted");
		if (r == 0)
			profile_free(&p);
		free(cause), free(hint);
		d.uid = 0;
		r = profile_load_name(&d, "ok", &p, &cause, &hint);
		is_str(cause, want, "profile_load_name: a file owned by "
		    "another user is refused");
		ok(r == -1 && hint, "profile_load_name: ... with a hint");
		free(cause), free(hint);
		if (chown(okf, 0, 0) < 0)
			diag("chown: %s", strerror(errno));
	} else
		skip(getuid() == 0 ? "uid 4242 is not mapped here: cannot "
		    "chown a file to another uid" : "not root: cannot chown a "
		    "file to another uid",
		    "profile_load_name: a file owned by another user is "
		    "refused");
	d.uid = getuid();

	/* A parent reached through extends is checked, whoever reads. */
	spew(child, "[profile]\nextends = parent\n", 27, 0644);
	spew(parent, "[profile]\nquadrant = offline\n", 29, 0666);
	{
		autofree char *want = xasprintf("%s: refused: %s", parent,
		    refused_w);

		r = profile_load_name(&d, "child", &p, &cause, &hint);
		is_str(cause, want, "profile_load_name: a group-writable "
		    "parent is refused");
		ok(r == -1 && hint, "profile_load_name: ... with a hint");
		free(cause), free(hint);
		r = profile_load_file(&d, child, &p, &cause, &hint);
		is_str(cause, want, "profile_load_file: a group-writable "
		    "parent is refused too");
		free(cause), free(hint);
	}
	chmod(parent, 0644);
	r = profile_load_name(&d, "child", &p, &cause, &hint);
	if (ok(r == 0, "profile_load_name: the parent, fixed, is accepted")) {
		is_str(p.quadrant.value, "offline", "... and inherited");
		profile_free(&p);
	}
	free(cause), free(hint);

	/* The file named by the user is read as it is. */
	chmod(okf, 0666);
	r = profile_load_file(&d, okf, &p, &cause, &hint);
	ok(r == 0, "profile_load_file: the file named is not "
	    "permission-checked");
	if (r == 0)
		profile_free(&p);
	free(cause), free(hint);
	chmod(okf, 0644);
}

/* [workspace NAME]: several workspaces, their keys, their errors. */
static void
test_more_workspaces(void)
{
	static const struct {
		const char	*what, *text, *cause;
	} bad[] = {
		{ "an unknown key", "[workspace wf]\npath = /srv\nfoo = x\n",
		    "ws.ini:3: unknown key 'foo' in section [workspace wf]" },
		{ "a bad mode", "[workspace wf]\nmode = rw\n",
		    "ws.ini:2: mode: 'rw' is not read-write or read-only" },
		{ "a bad name", "[workspace a b]\npath = /srv\n",
		    "ws.ini:1: [workspace a b]: not a workspace name" },
		{ "a key twice", "[workspace wf]\npath = /a\npath = /b\n",
		    "ws.ini:3: path: set twice in [workspace wf]" },
		{ "a bad first mode", "[workspace]\nmode = no\n",
		    "ws.ini:2: mode: 'no' is not read-write or read-only" },
	};
	const char *good = "[workspace]\nmode = read-only\nprivate = yes\n"
	    "[workspace workflow]\npath = ../workflow\n"
	    "[workspace docs]\npath = /srv/docs\nmode = read-only\n"
	    "private = true\n";
	struct profile p = { 0 };
	char *cause = NULL, *hint = NULL;
	size_t i;
	int r;

	for (i = 0; i < nitems(bad); i++) {
		r = profile_load_buffer(&dirs, "ws.ini", bad[i].text,
		    strlen(bad[i].text), &p, &cause, &hint);
		if (r == 0)
			profile_free(&p);
		if (!ok(r == -1 && cause && streq(cause, bad[i].cause),
		    "workspaces: %s refused with file:line", bad[i].what))
			diag("cause: %s", cause ? cause : "(NULL)");
		free(cause);
		free(hint);
		cause = hint = NULL;
	}
	r = profile_load_buffer(&dirs, "ws.ini", good, strlen(good), &p,
	    &cause, &hint);
	if (!ok(r == 0, "workspaces: a profile of three is read"))
		diag("cause: %s", cause ? cause : "(NULL)");
	else {
		ok(p.ws_mode.value && streq(p.ws_mode.value, "read-only") &&
		    streq(p.ws_mode.origin, "ws.ini:2"), "workspaces: the "
		    "first's mode");
		ok(p.nmore_ws == 2 && streq(p.more_ws[0].name, "workflow") &&
		    streq(p.more_ws[0].path.value, "../workflow") &&
		    p.more_ws[0].mode.value == NULL &&
		    streq(p.more_ws[1].name, "docs") &&
		    streq(p.more_ws[1].mode.value, "read-only") &&
		    streq(p.more_ws[1].private.value, "yes") &&
		    streq(p.more_ws[1].private.origin, "ws.ini:9"),
		    "workspaces: the further ones, in order, with their keys");
		profile_free(&p);
	}
	free(cause);
	free(hint);
}

int
main(int argc, char **argv)
{
	char t[PATH_MAX];
	const char *base = getenv("TMPDIR");
	static const char *const sub[] = { "user", "system", "shipped" };
	size_t i;

	(void)argc;
	heap_setup(argv);
	srcdir = getenv("TESTS_SRCDIR");
	if (srcdir == NULL)
		srcdir = "tests";
	snprintf(t, sizeof(t), "%s/confine-test-profile.XXXXXX",
	    base && base[0] == '/' ? base : "/tmp");
	if (mkdtemp(t) == NULL) {
		printf("Bail out! mkdtemp %s: %s\n", t, strerror(errno));
		return 99;
	}
	tmp = xstrdup(t);
	dirs_root = xasprintf("%s/dirs", tmp);
	if (mkdir(dirs_root, 0755) < 0) {
		printf("Bail out! mkdir %s: %s\n", dirs_root, strerror(errno));
		return 99;
	}
	for (i = 0; i < nitems(sub); i++) {
		autofree char *from = xasprintf("%s/data/profiles/dirs/%s",
		    srcdir, sub[i]);

		dirs.dir[i] = xasprintf("%s/%s", dirs_root, sub[i]);
		copy_dir(from, dirs.dir[i]);
	}
	dirs.uid = getuid();
	if (!heap_ok)
		diag("cannot count the heap here: no checks for leaks");

	test_syntax_bool();
	test_syntax_word();
	test_syntax_path();
	test_syntax_home_entry();
	test_syntax_host();
	test_syntax_env();
	test_syntax_expand();
	test_name_ok();
	test_find();
	test_bad();
	test_good();
	test_quoting();
	test_read_file();
	test_load_name();
	test_more_workspaces();

	rm_rf(tmp);
	free(tmp);
	free(dirs_root);
	for (i = 0; i < nitems(sub); i++)
		free((char *)dirs.dir[i]);
	return done();
}
