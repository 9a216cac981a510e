// SPDX-License-Identifier: ISC
/*
 * session-meta.c - the session store's names and metadata; see
 * session-meta.h.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "lib/fdio.h"
#include "lib/log.h"
#include "lib/sha256.h"
#include "lib/util.h"
#include "store/session-meta.h"

/*
 * Every value of key in the session's file name (all, or the first only).
 * confine wrote the file; it is still read with a bound, as everything in
 * the session directory is.
 */
static char **
file_values(const char *session_dir, const char *name, const char *key,
    bool all)
{
	autofree char *path = path_join(session_dir, name), *buf = NULL;
	autoclose int fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return xcalloc(1, sizeof(char *));
	if ((n = fd_read_all(fd, SESSION_FILE_MAX, &buf)) < 0) {
		log_warn("session: cannot read '%s': %s", path,
		    strerror((int)-n));
		return xcalloc(1, sizeof(char *));
	}
	return session_file_parse(buf, (size_t)n, key, all);
}

char **
session_file_parse(char *buf, size_t n, const char *key, bool all)
{
	size_t klen = strlen(key), nv = 0;
	char **v = xcalloc(1, sizeof(*v)), *line, *end, *nl;

	for (line = buf, end = buf + n; line < end; line = nl + 1) {
		if ((nl = memchr(line, '\n', (size_t)(end - line))) == NULL)
			nl = end;
		*nl = '\0';
		if (strncmp(line, key, klen) != 0 || line[klen] != '=')
			continue;
		strv_push(&v, &nv, xstrdup(line + klen + 1));
		if (!all)
			break;
	}
	return v;
}

char *
session_file_get(const char *session_dir, const char *name, const char *key)
{
	autostrv char **v = file_values(session_dir, name, key, false);

	return v[0] ? steal_ptr(&v[0]) : NULL;
}

char **
session_file_all(const char *session_dir, const char *name, const char *key)
{
	return file_values(session_dir, name, key, true);
}

char **
session_meta_all(const char *session_dir, const char *key)
{
	return file_values(session_dir, "meta", key, true);
}

char *
session_meta_get(const char *session_dir, const char *key)
{
	return session_file_get(session_dir, "meta", key);
}

char *
session_summary_get(const char *session_dir, const char *key)
{
	return session_file_get(session_dir, "summary", key);
}

int
session_file_put(const char *session_dir, const char *name, const char *text)
{
	autofree char *dst = path_join(session_dir, name);

	return fd_write_replace(dst, text, strlen(text));
}

char *
session_ws_name(const char *ws)
{
	char hex[65];

	sha256_hex(ws, strlen(ws), hex);
	return xstrdup(hex);
}
