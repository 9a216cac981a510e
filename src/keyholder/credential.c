// SPDX-License-Identifier: ISC
/*
 * credential.c - the user's credential from a variable, a file or a
 * command; see credential.h.  The file and the command's output are the
 * user's, read with a bound all the same.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "keyholder/credential.h"
#include "lib/fdio.h"
#include "lib/spawn.h"
#include "lib/util.h"

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

/* The string at the dotted path in a JSON document. */
static int
json_field(const char *buf, size_t len, const char *field, char **ret,
    char **why, const char *path)
{
	json_error_t err;
	json_t *root = json_loadb(buf, len, JSON_REJECT_DUPLICATES, &err);
	json_t *v = root;
	autofree char *copy = xstrdup(field);
	char *part, *save = NULL;
	int r = -1;

	if (root == NULL) {
		*why = xasprintf("%s: not JSON (line %d)", path, err.line);
		return -1;
	}
	for (part = strtok_r(copy, ".", &save); part && v;
	    part = strtok_r(NULL, ".", &save))
		v = json_is_object(v) ? json_object_get(v, part) : NULL;
	if (v == NULL || !json_is_string(v))
		*why = xasprintf("%s: field '%s' is not a string", path,
		    field);
	else if (check_value(json_string_value(v), json_string_length(v), why,
	    path) == 0) {
		*ret = xstrndup(json_string_value(v), json_string_length(v));
		r = 0;
	}
	json_decref(root);
	return r;
}

/* The bytes without a trailing newline (a file or a command's line). */
static size_t
chomp(const char *s, size_t len)
{
	while (len > 0 && (s[len - 1] == '\n' || s[len - 1] == '\r'))
		len--;
	return len;
}

static int
from_bytes(char *buf, size_t len, const char *field, char **ret, char **why,
    const char *where)
{
	if (field)
		return json_field(buf, len, field, ret, why, where);
	len = chomp(buf, len);
	if (check_value(buf, len, why, where) < 0)
		return -1;
	*ret = xstrndup(buf, len);
	return 0;
}

static int
from_file(const char *path, const char *field, char **ret, char **why)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
	char *buf = NULL;
	ssize_t n;
	int r;

	if (fd < 0) {
		*why = xasprintf("%s: %s", path, strerror(errno));
		return -1;
	}
	n = fd_read_all(fd, KH_CRED_FILE_MAX, &buf);
	close(fd);
	if (n < 0) {
		*why = xasprintf("%s: %s", path, n == -EFBIG ?
		    "larger than 64 KiB" : strerror((int)-n));
		return -1;
	}
	r = from_bytes(buf, (size_t)n, field, ret, why, path);
	wipe(buf, (size_t)n);
	return r;
}

static int
from_command(const char *cmd, const char *field, char **ret, char **why)
{
	char *const argv[] = { (char *)"sh", (char *)"-c", (char *)cmd, NULL };
	struct spawn_opts o = SPAWN_OPTS_INIT;
	int p[2], status, r;
	char *buf = NULL;
	ssize_t n;
	pid_t pid;

	if (pipe2(p, O_CLOEXEC) < 0) {
		*why = xasprintf("command: pipe: %s", strerror(errno));
		return -1;
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
		return -1;
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
		return -1;
	}
	r = from_bytes(buf, (size_t)n, field, ret, why, "command");
	wipe(buf, (size_t)n);
	return r;
}

int
kh_credential_read(enum kh_cred_source src, const char *spec,
    const char *field, char **ret, char **why)
{
	const char *v;

	*ret = NULL;
	switch (src) {
	case KH_FROM_VARIABLE:
		if ((v = getenv(spec)) == NULL) {
			*why = xasprintf("variable %s: not set", spec);
			return -1;
		}
		if (check_value(v, strlen(v), why, spec) < 0)
			return -1;
		*ret = xstrdup(v);
		return 0;
	case KH_FROM_FILE:
		return from_file(spec, field, ret, why);
	case KH_FROM_COMMAND:
		return from_command(spec, field, ret, why);
	}
	*why = xstrdup("no such credential source");
	return -1;
}
