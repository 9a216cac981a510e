// SPDX-License-Identifier: ISC
/*
 * input/profile.c - read INI profiles with inih (confine-profile(5)).
 *
 * Runs in: the supervisor, before the policy is computed.  Repository
 * profiles are agent-writable content: they arrive here as the exact bytes
 * whose hash the user pinned, never re-read from the path.
 * MUST: treat any inih error as fatal and use nothing collected so far
 * (inih keeps calling the handler after an error).
 * MUST: refuse named profiles that are group- or other-writable, or owned
 * by someone other than the caller or root (as OpenDoas checks doas.conf).
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <ini.h>
#include <limits.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "input/profile.h"
#include "input/values.h"
#include "lib/fdio.h"
#include "lib/log.h"
#include "lib/term-escape.h"
#include "lib/util.h"

enum kind { SCALAR, LIST, EXTENDS };
enum check { C_ANY, C_QUADRANT, C_BOOL, C_PATH, C_HOME, C_NETMODE, C_HOST,
	C_ENVNAME, C_ENVGLOB, C_ENVSET, C_BACKEND, C_INJECT, C_SOURCE,
	C_ARGUMENT, C_SIZE, C_TASKS, C_CPUS, C_WSMODE, C_WSPATH };

static const struct key {
	const char	*section, *name;
	enum kind	 kind;
	enum check	 check;
	size_t		 off;
} keys[] = {
#define K(s, n, k, c, f) { s, n, k, c, offsetof(struct profile, f) }
	{ "profile", "extends", EXTENDS, C_ANY, 0 },
	K("profile", "quadrant", SCALAR, C_QUADRANT, quadrant),
	K("profile", "untrusted", SCALAR, C_BOOL, untrusted),
	K("profile", "description", SCALAR, C_ANY, description),
	K("filesystem", "read-only", LIST, C_PATH, read_only),
	K("filesystem", "hide", LIST, C_PATH, hide),
	K("filesystem", "scratch", LIST, C_PATH, scratch),
	K("filesystem", "persistent", LIST, C_PATH, persistent),
	K("filesystem", "direct", LIST, C_PATH, direct),
	K("filesystem", "home", LIST, C_HOME, home),
	K("workspace", "path", SCALAR, C_PATH, ws_path),
	K("workspace", "private", SCALAR, C_BOOL, ws_private),
	K("workspace", "mode", SCALAR, C_WSMODE, ws_mode),
	K("network", "mode", SCALAR, C_NETMODE, net_mode),
	K("network", "allow", LIST, C_HOST, allow),
	K("network", "endpoint", LIST, C_HOST, endpoint),
	K("environment", "pass", LIST, C_ENVGLOB, env_pass),
	K("environment", "set", LIST, C_ENVSET, env_set),
	K("credential", "file", LIST, C_PATH, cred_file),
	K("credential", "variable", LIST, C_ENVNAME, cred_var),
	K("credential", "inject", SCALAR, C_INJECT, inject),
	K("credential", "source", LIST, C_SOURCE, cred_source),
	K("credential", "ca", SCALAR, C_PATH, cred_ca),
	K("credential", "web-search", SCALAR, C_BOOL, web_search),
	K("credential", "refresh", SCALAR, C_HOST, refresh),
	K("sandbox", "backend", SCALAR, C_BACKEND, backend),
	K("terminal", "clipboard", SCALAR, C_BOOL, clipboard),
	K("command", "argument", LIST, C_ARGUMENT, cmd_argument),
	K("limits", "memory", SCALAR, C_SIZE, memory),
	K("limits", "tasks", SCALAR, C_TASKS, tasks),
	K("limits", "cpus", SCALAR, C_CPUS, cpus),
	K("limits", "disk", SCALAR, C_SIZE, disk),
#undef K
};

static const char *const sections[] = { "profile", "filesystem",
	"workspace", "network", "environment", "credential", "sandbox",
	"terminal", "command", "limits", NULL };

/* One file being read. */
struct ctx {
	const char	*path;
	const char	*buf;
	size_t		 len, pos;
	int		 lineno;
	int		 err_line;
	char		*err;
	char		*hint;
	char		*extends;	/* its "extends" value */
	int		 extends_line;
	struct profile	*p;		/* what this file adds, alone */
	const struct key *seen[64];	/* scalars already set in this file */
	size_t		 nseen;
};

static void
error_at(struct ctx *c, char *msg, char *hint)
{
	if (c->err == NULL) {
		/* Messages quote the file's bytes: keep them off the terminal. */
		c->err = term_sanitize(msg, strlen(msg), 0);
		free(msg);
		msg = NULL;
		c->hint = hint;
		c->err_line = c->lineno;
	} else {
		free(msg);
		free(hint);
	}
}

/* A further workspace's name: [workspace NAME]. */
static bool
ws_name_ok(const char *s)
{
	size_t i;

	if (s[0] == '\0' || s[0] == '.' || s[0] == '-' || strlen(s) > 64)
		return false;
	for (i = 0; s[i]; i++)
		if (!((s[i] >= 'a' && s[i] <= 'z') || (s[i] >= 'A' &&
		    s[i] <= 'Z') || (s[i] >= '0' && s[i] <= '9') ||
		    s[i] == '.' || s[i] == '_' || s[i] == '-'))
			return false;
	return true;
}

/*
 * A further workspace's path: absolute, ~/, or relative (to the first
 * workspace); resolved when the session is planned.
 */
static int
ws_path_ok(const char *s, char **why)
{
	size_t n = strlen(s);

	if (s[0] == '/' || s[0] == '~')
		return syntax_path(s, why);
	if (strstr(s, "//") || s[n - 1] == '/') {
		*why = xasprintf("'%s' is not a normal path (no '//' or "
		    "trailing '/')", s);
		return -1;
	}
	for (; *s; s++)
		if ((unsigned char)*s < 0x20 || *s == 0x7f) {
			*why = xasprintf("path has a control character");
			return -1;
		}
	return 0;
}

/*
 * inih calls the handler only for keys, so a section header is checked
 * here, where its line is: an unknown section is an error even when empty.
 */
static void
check_section(struct ctx *c, const char *line)
{
	const char *p = line, *close;
	size_t i, n;

	if (c->lineno == 1 && strncmp(p, "\xef\xbb\xbf", 3) == 0)
		p += 3;		/* inih skips a UTF-8 byte order mark */
	while (*p == ' ' || *p == '\t')
		p++;
	if (*p != '[' || (close = strchr(p, ']')) == NULL)
		return;
	n = (size_t)(close - p - 1);
	for (i = 0; sections[i]; i++)
		if (strlen(sections[i]) == n && strncmp(p + 1, sections[i], n) == 0)
			break;
	if (sections[i] == NULL && n > 10 && strncmp(p + 1, "workspace ", 10) == 0) {
		autofree char *name = xstrndup(p + 11, n - 10);

		if (!ws_name_ok(name))
			error_at(c, xasprintf("[workspace %s]: not a workspace "
			    "name", name), xasprintf("name a further workspace "
			    "with letters, digits, '.', '_' and '-', like "
			    "[workspace workflow]"));
		return;
	}
	if (sections[i] == NULL) {
		error_at(c, xasprintf("unknown section [%.*s]", (int)n, p + 1),
		    xasprintf("sections are [profile], [filesystem], "
		    "[workspace], [network], [environment], [credential], "
		    "[sandbox], [terminal], [command] and [limits]"));
		return;
	}
	/* inih ignores the rest of the line: what it holds would be lost. */
	for (p = close + 1; *p == ' ' || *p == '\t' || *p == '\r'; p++)
		;
	if (*p != '\0' && *p != '\n' && *p != ';' && *p != '#')
		error_at(c, xasprintf("text after the section header [%.*s]",
		    (int)n, close - n), xasprintf("put each key = value on a "
		    "line of its own, after the [section] line"));
}

/* inih's reader (an fgets over the buffer) that counts physical lines. */
static char *
reader(char *str, int num, void *stream)
{
	struct ctx *c = stream;
	const char *nl, *cr;
	size_t n;

	if (c->pos >= c->len)
		return NULL;
	c->lineno++;
	nl = memchr(c->buf + c->pos, '\n', c->len - c->pos);
	n = nl ? (size_t)(nl - (c->buf + c->pos)) : c->len - c->pos;
	if (memchr(c->buf + c->pos, '\0', n)) {
		error_at(c, xasprintf("a NUL byte in the line"), NULL);
		str[0] = '\0';
	} else if ((cr = memchr(c->buf + c->pos, '\r', n)) != NULL &&
	    cr != c->buf + c->pos + n - 1) {
		/* inih would read one line where an editor shows several. */
		error_at(c, xasprintf("a carriage return inside the line"),
		    xasprintf("lines end in LF or CRLF; convert a file with "
		    "CR line endings (dos2unix -c mac)"));
		str[0] = '\n';
		str[1] = '\0';
	} else if (n + 2 > (size_t)num) {
		/* inih would split it silently; hand it an empty line. */
		error_at(c, xasprintf("line too long (%zu characters; at most "
		    "%d)", n, num - 2), xasprintf("split a long list into "
		    "repeated keys, one value each"));
		str[0] = '\n';
		str[1] = '\0';
	} else {
		memcpy(str, c->buf + c->pos, n);
		str[n] = '\n';
		str[n + 1] = '\0';
		check_section(c, str);
	}
	c->pos += n + (nl ? 1 : 0);
	return str;
}

static int
check_value(enum check chk, const char *v, char **why)
{
	switch (chk) {
	case C_ANY:
		return 0;
	case C_QUADRANT:
		return syntax_word(v, syntax_quadrants, why);
	case C_BOOL: {
		bool b;

		return syntax_bool(v, &b, why);
	}
	case C_PATH:
		return syntax_path(v, why);
	case C_HOME:
		return syntax_home_entry(v, why);
	case C_NETMODE:
		return syntax_word(v, syntax_net_modes, why);
	case C_HOST:
		return syntax_host(v, why);
	case C_ENVNAME:
		return syntax_env_name(v, false, why);
	case C_ENVGLOB:
		return syntax_env_name(v, true, why);
	case C_ENVSET:
		return syntax_env_set(v, why);
	case C_BACKEND:
		return syntax_word(v, syntax_backends, why);
	case C_INJECT: {
		autofree char *prov = NULL, *up = NULL;

		return syntax_inject(v, &prov, &up, why);
	}
	case C_ARGUMENT:
		return syntax_argument(v, why);
	case C_SIZE:
	case C_TASKS:
	case C_CPUS: {
		uint64_t n;

		return chk == C_SIZE ? syntax_size(v, &n, why) :
		    chk == C_TASKS ? syntax_tasks(v, &n, why) :
		    syntax_cpus(v, &n, why);
	}
	case C_WSMODE:
		if (!streq(v, "read-write") && !streq(v, "read-only")) {
			*why = xasprintf("'%s' is not read-write or read-only",
			    v);
			return -1;
		}
		return 0;
	case C_WSPATH:
		return ws_path_ok(v, why);
	case C_SOURCE: {
		struct syntax_source src;

		if (syntax_source(v, &src, why) < 0)
			return -1;
		syntax_source_free(&src);
		return 0;
	}
	}
	return 0;
}

static struct profile_ws *
ws_find(struct profile *p, const char *name, const char *origin)
{
	struct profile_ws *w;
	size_t i;

	for (i = 0; i < p->nmore_ws; i++)
		if (streq(p->more_ws[i].name, name))
			return &p->more_ws[i];
	p->more_ws = xreallocarray(p->more_ws, p->nmore_ws + 1,
	    sizeof(*p->more_ws));
	w = &p->more_ws[p->nmore_ws++];
	memset(w, 0, sizeof(*w));
	w->name = xstrdup(name);
	w->origin = xstrdup(origin);
	return w;
}

/* A key of a [workspace NAME] section: path, mode, private. */
static int
ws_key(struct ctx *c, const char *ws, const char *name, const char *value)
{
	autofree char *origin = xasprintf("%s:%d", c->path, c->lineno);
	struct profile_ws *w;
	struct pvalue *v;
	char *why = NULL;
	bool b = false;

	if (!streq(name, "path") && !streq(name, "mode") &&
	    !streq(name, "private")) {
		error_at(c, xasprintf("unknown key '%s' in section "
		    "[workspace %s]", name, ws), xasprintf("a workspace's "
		    "keys are path, mode and private"));
		return 0;
	}
	if (value[0] == '\0') {
		error_at(c, xasprintf("%s: empty value", name), NULL);
		return 0;
	}
	if ((streq(name, "path") && ws_path_ok(value, &why) < 0) ||
	    (streq(name, "mode") && check_value(C_WSMODE, value, &why) < 0) ||
	    (streq(name, "private") && syntax_bool(value, &b, &why) < 0)) {
		error_at(c, xasprintf("%s: %s", name, why), NULL);
		free(why);
		return 0;
	}
	w = ws_find(c->p, ws, origin);
	v = streq(name, "path") ? &w->path : streq(name, "mode") ? &w->mode :
	    &w->private;
	if (v->value && strncmp(v->origin, c->path, strlen(c->path)) == 0 &&
	    v->origin[strlen(c->path)] == ':') {
		error_at(c, xasprintf("%s: set twice in [workspace %s]", name,
		    ws), xasprintf("a scalar key takes one value; remove one "
		    "of them"));
		return 0;
	}
	pvalue_set(v, streq(name, "private") ? b ? "yes" : "no" : value,
	    origin);
	return 1;
}

static int
handler(void *user, const char *section, const char *name, const char *value)
{
	struct ctx *c = user;
	const struct key *k = NULL;
	autofree char *origin = NULL;
	char *why = NULL;
	size_t i;

	if (c->err)
		return 0;
	if (section[0] == '\0') {
		error_at(c, xasprintf("key '%s' outside any section", name),
		    xasprintf("put it under its section, like [network]"));
		return 0;
	}
	if (strncmp(section, "workspace ", 10) == 0 &&
	    ws_name_ok(section + 10))
		return ws_key(c, section + 10, name, value);
	for (i = 0; sections[i] && !streq(sections[i], section); i++)
		;
	if (sections[i] == NULL) {
		error_at(c, xasprintf("unknown section [%s]", section),
		    xasprintf("sections are [profile], [filesystem], "
		    "[workspace], [network], [environment], [credential], "
		    "[sandbox], [terminal], [command] and [limits]"));
		return 0;
	}
	for (i = 0; i < nitems(keys); i++)
		if (streq(keys[i].section, section) && streq(keys[i].name, name))
			k = &keys[i];
	if (k == NULL) {
		error_at(c, xasprintf("unknown key '%s' in section [%s]", name,
		    section), xasprintf("see confine-profile(5) for the keys "
		    "of each section"));
		return 0;
	}
	/*
	 * inih strips " ;comment" on key lines but not on continuation lines:
	 * refuse the ambiguity instead of keeping a comment as a value.
	 */
	if (strstr(value, " ;") || strstr(value, "\t;")) {
		error_at(c, xasprintf("%s: ' ;' inside a value (a comment on a "
		    "continuation line is kept as text)", name),
		    xasprintf("put comments on lines of their own"));
		return 0;
	}
	/* An empty list value clears what was inherited; scalars need one. */
	if (value[0] == '\0' && k->kind != LIST) {
		error_at(c, xasprintf("%s: empty value", name), NULL);
		return 0;
	}
	if (value[0] && check_value(k->check, value, &why) < 0) {
		error_at(c, xasprintf("%s: %s", name, why), NULL);
		free(why);
		return 0;
	}
	origin = xasprintf("%s:%d", c->path, c->lineno);
	switch (k->kind) {
	case EXTENDS:
		if (c->extends) {
			error_at(c, xasprintf("extends: given twice"), NULL);
			return 0;
		}
		if (!profile_name_ok(value)) {
			error_at(c, xasprintf("extends: '%s' is not a profile "
			    "name", value), xasprintf("extend a profile by name "
			    "(like sealed), never by path"));
			return 0;
		}
		c->extends = xstrdup(value);
		c->extends_line = c->lineno;
		return 1;
	case SCALAR:
		for (i = 0; i < c->nseen; i++) {
			if (c->seen[i] == k) {
				error_at(c, xasprintf("%s: set twice in [%s]",
				    name, section), xasprintf("a scalar key takes "
				    "one value; remove one of them"));
				return 0;
			}
		}
		if (c->nseen < nitems(c->seen))
			c->seen[c->nseen++] = k;
		if (k->check == C_BOOL) {
			bool b = false;

			syntax_bool(value, &b, &why);
			value = b ? "yes" : "no";
		}
		pvalue_set((struct pvalue *)((char *)c->p + k->off), value,
		    origin);
		return 1;
	case LIST: {
		struct plist *l = (struct plist *)((char *)c->p + k->off);

		if (value[0] == '\0') {
			/* Mark "clear" with a NULL value, kept in order. */
			plist_add(l, NULL, origin);
			return 1;
		}
		plist_add(l, value, origin);
		return 1;
	}
	}
	return 0;
}

/* Parse one file's bytes into what it alone adds. */
static int
parse(const char *path, const char *buf, size_t len, struct profile *ret,
    char **extends, int *extends_line, char **cause, char **hint)
{
	struct ctx c = { .path = path, .buf = buf, .len = len, .p = ret };
	int r;

	r = ini_parse_stream(reader, &c, handler, &c);
	if (r == -2)
		die("out of memory");
	if (c.err && (r == 0 || c.err_line <= r)) {
		*cause = xasprintf("%s:%d: %s", path, c.err_line, c.err);
		*hint = c.hint;
		free(c.err);
		free(c.extends);
		return -1;
	}
	if (r != 0) {
		*cause = xasprintf("%s:%d: syntax error (expected [section] or "
		    "key = value)", path, r);
		*hint = xasprintf("a line is a [section], a key = value, or a "
		    "comment starting with ; or #");
		free(c.err);
		free(c.hint);
		free(c.extends);
		return -1;
	}
	*extends = c.extends;
	*extends_line = c.extends_line;
	return 0;
}

static void
pvalue_merge(struct pvalue *dst, const struct pvalue *src)
{
	if (src->value)
		pvalue_set(dst, src->value, src->origin);
}

static void
plist_merge(struct plist *dst, const struct plist *src)
{
	size_t i;

	for (i = 0; i < src->n; i++) {
		if (src->v[i].value == NULL)
			plist_clear(dst);
		else
			plist_add(dst, src->v[i].value, src->v[i].origin);
	}
}

/* Apply what one file adds (src) on top of what it extends (dst). */
static void
merge(struct profile *dst, const struct profile *src)
{
	size_t i;

	for (i = 0; i < nitems(keys); i++) {
		const struct key *k = &keys[i];

		if (k->kind == SCALAR)
			pvalue_merge((struct pvalue *)((char *)dst + k->off),
			    (const struct pvalue *)((const char *)src + k->off));
		else if (k->kind == LIST)
			plist_merge((struct plist *)((char *)dst + k->off),
			    (const struct plist *)((const char *)src + k->off));
	}
	for (i = 0; i < src->nmore_ws; i++) {
		const struct profile_ws *s = &src->more_ws[i];
		struct profile_ws *d = ws_find(dst, s->name, s->origin);

		pvalue_merge(&d->path, &s->path);
		pvalue_merge(&d->mode, &s->mode);
		pvalue_merge(&d->private, &s->private);
	}
}

bool
profile_name_ok(const char *s)
{
	size_t i;

	if (s == NULL || s[0] == '\0' || s[0] == '.' || strlen(s) > 64)
		return false;
	for (i = 0; s[i]; i++) {
		char c = s[i];

		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
		    (c >= '0' && c <= '9') || c == '.' || c == '_' || c == '-'))
			return false;
	}
	return true;
}

int
profile_read_file(const char *path, char **ret, size_t *ret_len)
{
	autoclose int fd = -1;
	struct stat st;
	ssize_t n;

	/* O_NONBLOCK: opening a fifo must not wait for a writer. */
	if ((fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK)) < 0)
		return -errno;
	if (fstat(fd, &st) < 0)
		return -errno;
	if (!S_ISREG(st.st_mode))
		return -EINVAL;
	if (st.st_size > PROFILE_MAX_SIZE)
		return -EFBIG;
	/* The file may grow after fstat: the bound holds anyway. */
	if ((n = fd_read_all(fd, PROFILE_MAX_SIZE, ret)) < 0)
		return (int)n;
	*ret_len = (size_t)n;
	return 0;
}

char *
profile_find(const struct profile_dirs *d, const char *name, int *dir_index)
{
	size_t i;

	if (!profile_name_ok(name))
		return NULL;
	for (i = 0; i < nitems(d->dir); i++) {
		char *p;

		if (d->dir[i] == NULL)
			continue;
		p = xasprintf("%s/%s.ini", d->dir[i], name);
		if (access(p, F_OK) == 0) {
			if (dir_index)
				*dir_index = (int)i;
			return p;
		}
		free(p);
	}
	return NULL;
}

/* OpenDoas's checkperms: owned by us or root, writable by nobody else. */
static int
check_perms(const struct profile_dirs *d, const char *path, char **cause,
    char **hint)
{
	struct stat st;

	if (stat(path, &st) < 0) {
		*cause = xasprintf("%s: %s", path, strerror(errno));
		return -1;
	}
	if ((st.st_uid != 0 && st.st_uid != d->uid) ||
	    (st.st_mode & (S_IWGRP | S_IWOTH))) {
		*cause = xasprintf("%s: refused: %s", path,
		    (st.st_mode & (S_IWGRP | S_IWOTH)) ?
		    "writable by group or others" : "owned by another user");
		*hint = xasprintf("a profile grants access: it must be owned by "
		    "you or root and writable only by its owner (chmod go-w)");
		return -1;
	}
	return 0;
}

static char *
find_unread(const struct profile_dirs *d, const char *name, char **chain,
    int depth)
{
	size_t i;
	int j;

	for (i = 0; i < nitems(d->dir); i++) {
		char *p;

		if (d->dir[i] == NULL)
			continue;
		p = xasprintf("%s/%s.ini", d->dir[i], name);
		for (j = 0; j <= depth && !streq(chain[j], p); j++)
			;
		if (j > depth && access(p, F_OK) == 0)
			return p;
		free(p);
	}
	return NULL;
}

/* Load the chain: path's bytes, then what it extends, depth-first. */
static int
load(const struct profile_dirs *d, const char *path, const char *buf,
    size_t len, char **chain, int depth, struct profile *acc, char **cause,
    char **hint)
{
	struct profile own = { 0 };
	autofree char *extends = NULL, *parent = NULL, *pbuf = NULL;
	size_t plen = 0;
	int eline = 0, r = 0;

	if (parse(path, buf, len, &own, &extends, &eline, cause, hint) < 0) {
		profile_free(&own);
		return -1;
	}
	if (extends) {
		if (depth + 1 >= PROFILE_MAX_DEPTH) {
			*cause = xasprintf("%s:%d: extends: more than %d "
			    "profiles deep", path, eline, PROFILE_MAX_DEPTH);
			profile_free(&own);
			return -1;
		}
		/*
		 * The first NAME.ini in the search order that is not already
		 * being read: a user's offline.ini may extend the shipped one.
		 */
		autofree char *named = NULL;

		if ((parent = find_unread(d, extends, chain, depth)) == NULL &&
		    streq(extends, "sealed") &&
		    (named = profile_find(d, extends, NULL)) == NULL) {
			/* sealed always exists: built in, it sets nothing. */
			merge(acc, &own);
			profile_free(&own);
			return 0;
		}
		if (parent == NULL) {
			autofree char *any = profile_find(d, extends, NULL);

			if (any)
				*cause = xasprintf("%s:%d: extends: '%s' makes a "
				    "cycle (%s is already being read)", path,
				    eline, extends, any);
			else {
				*cause = xasprintf("%s:%d: extends: no profile "
				    "named '%s'", path, eline, extends);
				*hint = xasprintf("'confine profile list' shows "
				    "the profiles there are");
			}
			profile_free(&own);
			return -1;
		}
		chain[depth + 1] = parent;
		if (check_perms(d, parent, cause, hint) < 0 ||
		    (r = profile_read_file(parent, &pbuf, &plen)) < 0) {
			if (*cause == NULL)
				*cause = xasprintf("%s: cannot read: %s",
				    parent, strerror(-r));
			profile_free(&own);
			return -1;
		}
		if (load(d, parent, pbuf, plen, chain, depth + 1, acc, cause,
		    hint) < 0) {
			profile_free(&own);
			return -1;
		}
	}
	merge(acc, &own);
	profile_free(&own);
	return 0;
}

int
profile_load_buffer(const struct profile_dirs *d, const char *path,
    const char *buf, size_t len, struct profile *ret, char **cause,
    char **hint)
{
	struct profile p = { 0 };
	char *chain[PROFILE_MAX_DEPTH + 1] = { 0 };

	*cause = *hint = NULL;
	chain[0] = (char *)path;
	if (load(d, path, buf, len, chain, 0, &p, cause, hint) < 0) {
		profile_free(&p);
		return -1;
	}
	p.name = xstrdup(path);
	p.path = xstrdup(path);
	*ret = p;
	return 0;
}

int
profile_load_file(const struct profile_dirs *d, const char *path,
    struct profile *ret, char **cause, char **hint)
{
	autofree char *buf = NULL;
	size_t len;
	int r;

	*cause = *hint = NULL;
	if ((r = profile_read_file(path, &buf, &len)) < 0) {
		*cause = xasprintf("%s: cannot read: %s", path, r == -EFBIG ?
		    "larger than 64 KiB" : r == -EINVAL ? "not a regular file" :
		    strerror(-r));
		return -1;
	}
	return profile_load_buffer(d, path, buf, len, ret, cause, hint);
}

int
profile_load_name(const struct profile_dirs *d, const char *name,
    struct profile *ret, char **cause, char **hint)
{
	autofree char *path = NULL;

	*cause = *hint = NULL;
	if ((path = profile_find(d, name, NULL)) == NULL) {
		*cause = xasprintf("no profile named '%s'", name);
		*hint = xasprintf("'confine profile list' shows the profiles "
		    "there are; -p also takes a file path");
		return -1;
	}
	if (check_perms(d, path, cause, hint) < 0)
		return -1;
	if (profile_load_file(d, path, ret, cause, hint) < 0)
		return -1;
	free(ret->name);
	ret->name = xstrdup(name);
	return 0;
}

void
pvalue_set(struct pvalue *v, const char *value, const char *origin)
{
	free(v->value);
	free(v->origin);
	v->value = value ? xstrdup(value) : NULL;
	v->origin = xstrdup(origin);
}

void
plist_add(struct plist *l, const char *value, const char *origin)
{
	l->v = xreallocarray(l->v, l->n + 1, sizeof(*l->v));
	l->v[l->n].value = value ? xstrdup(value) : NULL;
	l->v[l->n].origin = xstrdup(origin);
	l->n++;
}

void
plist_clear(struct plist *l)
{
	size_t i;

	for (i = 0; i < l->n; i++) {
		free(l->v[i].value);
		free(l->v[i].origin);
	}
	free(l->v);
	l->v = NULL;
	l->n = 0;
}

void
profile_free(struct profile *p)
{
	size_t i;

	if (p == NULL)
		return;
	for (i = 0; i < nitems(keys); i++) {
		const struct key *k = &keys[i];

		if (k->kind == SCALAR) {
			struct pvalue *v = (struct pvalue *)((char *)p + k->off);

			free(v->value);
			free(v->origin);
		} else if (k->kind == LIST)
			plist_clear((struct plist *)((char *)p + k->off));
	}
	for (i = 0; i < p->nmore_ws; i++) {
		struct pvalue *v[] = { &p->more_ws[i].path,
		    &p->more_ws[i].mode, &p->more_ws[i].private };
		size_t j;

		for (j = 0; j < nitems(v); j++) {
			free(v[j]->value);
			free(v[j]->origin);
		}
		free(p->more_ws[i].name);
		free(p->more_ws[i].origin);
	}
	free(p->more_ws);
	free(p->name);
	free(p->path);
	memset(p, 0, sizeof(*p));
}
