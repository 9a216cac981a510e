// SPDX-License-Identifier: ISC
/*
 * credential.c - the user's credential from the first of its sources that
 * yields one, and a login's tokens written back; see credential.h.  The
 * files and the command's output are the user's, read with a bound all
 * the same; the token endpoint's answer is parsed with jansson.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "keyholder/credential.h"
#include "lib/fdio.h"
#include "lib/log.h"
#include "lib/spawn.h"
#include "lib/util.h"

/* What one source gave: a credential, nothing, or a fault. */
enum {
	FOUND = 0,
	ABSENT = 1,	/* passed over: *why says what it lacked */
	BAD = -1,	/* the search ends: *why says what is wrong */
};

/* Wipe and free a secret. */
static void
wipe(char *s, size_t len)
{
	if (s == NULL)
		return;
	explicit_bzero(s, len);
	free(s);
}

/* A header value: printable ASCII, no blank; at most KH_CRED_MAX. */
static int
check_value(const char *v, size_t len, char **why, const char *where)
{
	size_t i;

	if (len == 0) {
		*why = xasprintf("%s: empty", where);
		return -1;
	}
	if (len > KH_CRED_MAX) {
		*why = xasprintf("%s: longer than %d bytes", where,
		    KH_CRED_MAX);
		return -1;
	}
	for (i = 0; i < len; i++)
		if (v[i] <= ' ' || v[i] > '~') {
			*why = xasprintf("%s: holds a character a header "
			    "cannot carry (byte %zu)", where, i + 1);
			return -1;
		}
	return 0;
}

/* The bytes without a trailing newline (a file or a command's line). */
static size_t
chomp(const char *s, size_t len)
{
	while (len > 0 && (s[len - 1] == '\n' || s[len - 1] == '\r'))
		len--;
	return len;
}

/*
 * The value at the dotted path field in root, or NULL when a step is
 * missing or not an object; *ret_parent: the object the last step was
 * looked up in, or NULL.
 */
static json_t *
json_at(json_t *root, const char *field, json_t **ret_parent)
{
	autofree char *copy = xstrdup(field);
	char *part, *save = NULL;
	json_t *v = root;

	*ret_parent = NULL;
	for (part = strtok_r(copy, ".", &save); part && v;
	    part = strtok_r(NULL, ".", &save)) {
		*ret_parent = json_is_object(v) ? v : NULL;
		v = *ret_parent ? json_object_get(v, part) : NULL;
	}
	return v;
}

/*
 * A field missing or null: passed over, saying which.  Beside a "tokens"
 * object (Codex's auth.json after a ChatGPT login), the credential is a
 * login the keyholder cannot put on requests: said so.
 */
static int
absent_field(json_t *v, json_t *parent, const char *field, char **why,
    const char *path)
{
	bool chatgpt = parent && json_is_object(json_object_get(parent,
	    "tokens"));

	*why = xasprintf("%s: field '%s' is %s%s", path, field,
	    v ? "null" : "not set", chatgpt ? " (a ChatGPT login: not "
	    "injected, use an API key)" : "");
	return ABSENT;
}

/* The string at the dotted path in a JSON document. */
static int
json_field(json_t *root, const char *field, char **ret, char **why,
    const char *path)
{
	json_t *parent, *v = json_at(root, field, &parent);

	if (v == NULL || json_is_null(v))
		return absent_field(v, parent, field, why, path);
	if (!json_is_string(v)) {
		*why = xasprintf("%s: field '%s' is not a string", path,
		    field);
		return BAD;
	}
	if (check_value(json_string_value(v), json_string_length(v), why,
	    path) < 0)
		return BAD;
	*ret = xstrndup(json_string_value(v), json_string_length(v));
	return FOUND;
}

/* A login object's string key: 0 (maybe *ret NULL when absent), or BAD. */
static int
login_string(json_t *obj, const char *key, char **ret, char **why,
    const char *path, const char *field)
{
	json_t *v = json_object_get(obj, key);
	autofree char *where = xasprintf("%s: field '%s%s%s'", path,
	    field ? field : "", field ? "." : "", key);

	*ret = NULL;
	if (v == NULL || json_is_null(v))
		return 0;
	if (!json_is_string(v)) {
		*why = xasprintf("%s is not a string", where);
		return BAD;
	}
	if (check_value(json_string_value(v), json_string_length(v), why,
	    where) < 0)
		return BAD;
	*ret = xstrndup(json_string_value(v), json_string_length(v));
	return 0;
}

/* A login object: the access token, the refresh token, the expiry. */
static int
json_login(json_t *root, const char *field, char **ret,
    struct kh_login *ret_login, char **why, const char *path)
{
	json_t *parent = NULL, *v = field ? json_at(root, field, &parent) :
	    root, *exp;
	char *access = NULL, *refresh = NULL;
	const char *name = field ? field : "(the document)";

	if (v == NULL || json_is_null(v))
		return absent_field(v, parent, name, why, path);
	if (!json_is_object(v)) {
		*why = xasprintf("%s: field '%s' is not an object", path,
		    name);
		return BAD;
	}
	if (login_string(v, "accessToken", &access, why, path, field) < 0)
		return BAD;
	if (access == NULL) {
		*why = xasprintf("%s: field '%s' holds no accessToken (not "
		    "logged in)", path, name);
		return ABSENT;
	}
	if (login_string(v, "refreshToken", &refresh, why, path, field) < 0) {
		wipe(access, strlen(access));
		return BAD;
	}
	exp = json_object_get(v, "expiresAt");
	if (exp && !json_is_null(exp) && !json_is_integer(exp)) {
		*why = xasprintf("%s: field '%s' has an expiresAt that is not "
		    "a whole number", path, name);
		wipe(access, strlen(access));
		wipe(refresh, refresh ? strlen(refresh) : 0);
		return BAD;
	}
	ret_login->refresh = refresh;
	ret_login->expires_ms = json_is_integer(exp) ? json_integer_value(exp)
	    : 0;
	*ret = access;
	return FOUND;
}

static int
from_bytes(const struct kh_source *src, char *buf, size_t len, char **ret,
    struct kh_login *ret_login, char **why, const char *where)
{
	AUTO(json_decrefp) json_t *root = NULL;
	json_error_t err;

	if (src->field == NULL && src->kind != KH_KIND_LOGIN) {
		len = chomp(buf, len);
		if (check_value(buf, len, why, where) < 0)
			return BAD;
		*ret = xstrndup(buf, len);
		return FOUND;
	}
	if ((root = json_loadb(buf, len, JSON_REJECT_DUPLICATES, &err)) ==
	    NULL) {
		*why = xasprintf("%s: not JSON (line %d)", where, err.line);
		return BAD;
	}
	if (src->kind == KH_KIND_LOGIN)
		return json_login(root, src->field, ret, ret_login, why, where);
	return json_field(root, src->field, ret, why, where);
}

static int
from_file(const struct kh_source *src, char **ret, struct kh_login *login,
    char **why)
{
	/* A login's file is written back: through no symbolic link. */
	int fd = open(src->spec, O_RDONLY | O_CLOEXEC | O_NOCTTY |
	    (src->kind == KH_KIND_LOGIN ? O_NOFOLLOW : 0));
	char *buf = NULL;
	ssize_t n;
	int r;

	if (fd < 0 && (errno == ENOENT || errno == ENOTDIR)) {
		*why = xasprintf("%s: not found", src->spec);
		return ABSENT;
	}
	if (fd < 0) {
		*why = xasprintf("%s: %s", src->spec, errno == ELOOP ?
		    "a symbolic link (a login's file is not followed)" :
		    strerror(errno));
		return BAD;
	}
	n = fd_read_all(fd, KH_CRED_FILE_MAX, &buf);
	close(fd);
	if (n < 0) {
		*why = xasprintf("%s: %s", src->spec, n == -EFBIG ?
		    "larger than 64 KiB" : strerror((int)-n));
		return BAD;
	}
	r = from_bytes(src, buf, (size_t)n, ret, login, why, src->spec);
	wipe(buf, (size_t)n);
	return r;
}

static int
from_command(const struct kh_source *src, char **ret,
    struct kh_login *login, char **why)
{
	char *const argv[] = { (char *)"sh", (char *)"-c", (char *)src->spec,
	    NULL };
	struct spawn_opts o = SPAWN_OPTS_INIT;
	int p[2], status, r;
	char *buf = NULL;
	ssize_t n;
	pid_t pid;

	if (pipe2(p, O_CLOEXEC) < 0) {
		*why = xasprintf("command: pipe: %s", strerror(errno));
		return BAD;
	}
	o.out = p[1];
	o.die_with_parent = true;
	o.clean_mask = true;
	o.name = "credential command";
	pid = spawn_start("/bin/sh", argv, &o);
	close(p[1]);
	if (pid < 0) {
		close(p[0]);
		*why = xasprintf("command: %s", strerror((int)-pid));
		return BAD;
	}
	n = fd_read_all(p[0], KH_CRED_FILE_MAX, &buf);
	close(p[0]);
	status = spawn_wait(pid);
	if (n < 0 || status < 0 || !WIFEXITED(status) ||
	    WEXITSTATUS(status) != 0) {
		*why = n == -EFBIG ? xstrdup("command: its output is larger "
		    "than 64 KiB") : status >= 0 && WIFEXITED(status) ?
		    xasprintf("command: exited with status %d",
		    WEXITSTATUS(status)) : xstrdup("command: did not finish");
		wipe(buf, n > 0 ? (size_t)n : 0);
		return BAD;
	}
	r = from_bytes(src, buf, (size_t)n, ret, login, why, "command");
	wipe(buf, (size_t)n);
	return r;
}

static int
from_variable(const struct kh_source *src, char **ret, char **why)
{
	const char *v = getenv(src->spec);

	if (v == NULL || *v == '\0') {
		*why = xasprintf("variable %s: %s", src->spec, v ? "empty" :
		    "not set");
		return ABSENT;
	}
	if (check_value(v, strlen(v), why, src->spec) < 0)
		return BAD;
	*ret = xstrdup(v);
	return FOUND;
}

static int
from_source(const struct kh_source *src, char **ret, struct kh_login *login,
    char **why)
{
	switch (src->from) {
	case KH_FROM_VARIABLE:
		return from_variable(src, ret, why);
	case KH_FROM_FILE:
		return from_file(src, ret, login, why);
	case KH_FROM_COMMAND:
		return from_command(src, ret, login, why);
	}
	*why = xstrdup("no such credential source");
	return BAD;
}

int
kh_credential_find(const struct kh_source *srcs, size_t n, char **ret,
    struct kh_login *ret_login, char **why)
{
	autofree char *all = NULL;
	char *one, *tmp;
	size_t i;
	int r;

	*ret = NULL;
	memset(ret_login, 0, sizeof(*ret_login));
	for (i = 0; i < n; i++) {
		one = NULL;
		if ((r = from_source(&srcs[i], ret, ret_login, &one)) ==
		    FOUND)
			return (int)i;
		if (r == BAD) {
			*why = one;
			return -1;
		}
		tmp = xasprintf("%s%s%s", all ? all : "", all ? "; " : "",
		    one);
		free(one);
		free(all);
		all = tmp;
	}
	*why = xasprintf("none found (%s)", all ? all : "no source given");
	return -1;
}

void
kh_login_clear(struct kh_login *l)
{
	if (l->refresh)
		wipe(l->refresh, strlen(l->refresh));
	l->refresh = NULL;
	l->expires_ms = 0;
}

/* The file's directory (an fd) and its last component. */
static int
open_parent(const char *path, const char **ret_base, char **why)
{
	autofree char *dir = xstrdup(path);
	char *slash = strrchr(dir, '/');
	int fd;

	*ret_base = slash ? path + (slash - dir) + 1 : path;
	if (slash)
		*(slash == dir ? slash + 1 : slash) = '\0';
	if (**ret_base == '\0') {
		*why = xasprintf("%s: not a file name", path);
		return -1;
	}
	if ((fd = open(slash ? dir : ".", O_RDONLY | O_DIRECTORY |
	    O_CLOEXEC)) < 0)
		*why = xasprintf("%s: its directory: %s", path,
		    strerror(errno));
	return fd;
}

/* The document with the login's three keys replaced, as text (heap). */
static char *
login_replaced(const char *buf, size_t len, const char *field,
    const char *access, const char *refresh, int64_t expires_ms,
    char **why, const char *path)
{
	AUTO(json_decrefp) json_t *root = NULL;
	json_t *parent, *obj;
	json_error_t err;

	if ((root = json_loadb(buf, len, JSON_REJECT_DUPLICATES, &err)) ==
	    NULL) {
		*why = xasprintf("%s: no longer JSON (line %d)", path,
		    err.line);
		return NULL;
	}
	obj = field ? json_at(root, field, &parent) : root;
	if (!json_is_object(obj)) {
		*why = xasprintf("%s: field '%s' is no longer an object", path,
		    field ? field : "(the document)");
		return NULL;
	}
	if (json_object_set_new(obj, "accessToken", json_string(access)) ||
	    (refresh && json_object_set_new(obj, "refreshToken",
	    json_string(refresh))) ||
	    (expires_ms && json_object_set_new(obj, "expiresAt",
	    json_integer(expires_ms)))) {
		*why = xasprintf("%s: cannot set the tokens", path);
		return NULL;
	}
	return json_dumps(root, JSON_COMPACT);
}

/* text into a new file beside base, synced, renamed over base. */
static int
replace_file(int dfd, const char *base, const char *text, mode_t mode,
    char **why, const char *path)
{
	char tmp[NAME_MAX + 1];
	int fd = -1, e = 0, i;

	for (i = 0; i < 16 && fd < 0; i++) {
		if (snprintf(tmp, sizeof(tmp), ".%.200s.confine-%ld-%d", base,
		    (long)getpid(), i) >= (int)sizeof(tmp))
			break;
		fd = openat(dfd, tmp, O_WRONLY | O_CREAT | O_EXCL |
		    O_NOFOLLOW | O_CLOEXEC, mode);
		if (fd < 0 && errno != EEXIST)
			break;
	}
	if (fd < 0) {
		*why = xasprintf("%s: cannot make a file beside it: %s", path,
		    strerror(errno));
		return -1;
	}
	if (fchmod(fd, mode) < 0 || (e = fd_write_all(fd, text, strlen(text)))
	    < 0 || fsync(fd) < 0 || close(steal_fd(&fd)) < 0 ||
	    renameat(dfd, tmp, dfd, base) < 0) {
		e = e ? -e : errno;
		if (fd >= 0)
			close(fd);
		unlinkat(dfd, tmp, 0);
		*why = xasprintf("%s: cannot replace it: %s", path,
		    strerror(e));
		return -1;
	}
	(void)fsync(dfd);
	return 0;
}

int
kh_login_store(const char *path, const char *field, const char *access,
    const char *refresh, int64_t expires_ms, char **why)
{
	autoclose int dfd = -1;
	autoclose int fd = -1;
	const char *base;
	char *buf = NULL, *text = NULL;
	struct stat st;
	ssize_t n;
	int r = -1;

	if ((dfd = open_parent(path, &base, why)) < 0)
		return -1;
	if ((fd = openat(dfd, base, O_RDONLY | O_NOFOLLOW | O_NOCTTY |
	    O_CLOEXEC)) < 0 || fstat(fd, &st) < 0) {
		*why = xasprintf("%s: %s", path, errno == ELOOP ? "a symbolic "
		    "link" : strerror(errno));
		return -1;
	}
	if (!S_ISREG(st.st_mode)) {
		*why = xasprintf("%s: not a regular file", path);
		return -1;
	}
	if ((n = fd_read_all(fd, KH_CRED_FILE_MAX, &buf)) < 0) {
		*why = xasprintf("%s: %s", path, n == -EFBIG ? "larger than "
		    "64 KiB" : strerror((int)-n));
		return -1;
	}
	text = login_replaced(buf, (size_t)n, field, access, refresh,
	    expires_ms, why, path);
	wipe(buf, (size_t)n);
	if (text) {
		r = replace_file(dfd, base, text, st.st_mode & 0600, why,
		    path);
		wipe(text, strlen(text));
	}
	return r;
}

char *
kh_login_grant_body(const char *refresh, const char *client_id)
{
	AUTO(json_decrefp) json_t *j = json_pack("{s:s, s:s, s:s}",
	    "grant_type", "refresh_token", "refresh_token", refresh,
	    "client_id", client_id);
	char *s = j ? json_dumps(j, JSON_COMPACT) : NULL;

	if (s == NULL)
		die("keyholder: cannot make a refresh request");
	return s;
}

/* The endpoint's "error" code, when it is short and plain; or "". */
static const char *
grant_error(json_t *root)
{
	const char *e = json_string_value(json_object_get(root, "error"));
	size_t i;

	if (e == NULL || strlen(e) > 64)
		return "";
	for (i = 0; e[i]; i++)
		if (!((e[i] >= 'a' && e[i] <= 'z') || e[i] == '_'))
			return "";
	return e;
}

int
kh_login_parse_grant(int status, const char *body, size_t len,
    int64_t now_ms, char **ret_access, struct kh_login *ret_login,
    char **why)
{
	AUTO(json_decrefp) json_t *root = NULL;
	char *access = NULL, *refresh = NULL;
	json_t *exp;
	json_int_t secs = 3600;

	*why = NULL;
	root = json_loadb(body, len, JSON_REJECT_DUPLICATES, NULL);
	if (status != 200) {
		*why = xasprintf("the token endpoint answered %d%s%s%s",
		    status, *grant_error(root) ? " (" : "", grant_error(root),
		    *grant_error(root) ? ")" : "");
		return -1;
	}
	if (!json_is_object(root)) {
		*why = xstrdup("the token endpoint's answer is not a JSON "
		    "object");
		return -1;
	}
	if (login_string(root, "access_token", &access, why, "the token "
	    "endpoint's answer", NULL) < 0 || access == NULL) {
		if (access == NULL && *why == NULL)
			*why = xstrdup("the token endpoint's answer holds no "
			    "access_token");
		return -1;
	}
	if (login_string(root, "refresh_token", &refresh, why, "the token "
	    "endpoint's answer", NULL) < 0) {
		wipe(access, strlen(access));
		return -1;
	}
	/* No expires_in: an hour, as the token endpoint gives today. */
	exp = json_object_get(root, "expires_in");
	if (exp && !json_is_null(exp) && (!json_is_integer(exp) ||
	    json_integer_value(exp) <= 0 || json_integer_value(exp) >
	    10LL * 365 * 86400)) {
		*why = xstrdup("the token endpoint's expires_in is not a "
		    "number of seconds");
		wipe(access, strlen(access));
		wipe(refresh, refresh ? strlen(refresh) : 0);
		return -1;
	}
	if (json_is_integer(exp))
		secs = json_integer_value(exp);
	if (refresh) {
		kh_login_clear(ret_login);
		ret_login->refresh = refresh;
	}
	ret_login->expires_ms = now_ms + (int64_t)secs * 1000;
	*ret_access = access;
	return 0;
}
