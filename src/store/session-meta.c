// SPDX-License-Identifier: ISC
/*
 * session-meta.c - the session store's names and metadata; see
 * session-meta.h.
 */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "lib/sha256.h"
#include "lib/util.h"
#include "store/session-meta.h"

char **
session_meta_all(const char *session_dir, const char *key)
{
	autofree char *path = path_join(session_dir, "meta"), *line = NULL;
	AUTO(fclose_p) FILE *f = fopen(path, "re");
	size_t cap = 0, n = strlen(key), nv = 0;
	char **v = xcalloc(1, sizeof(*v));
	ssize_t len;

	while (f && (len = getline(&line, &cap, f)) > 0) {
		if (line[len - 1] == '\n')
			line[len - 1] = '\0';
		if (strncmp(line, key, n) == 0 && line[n] == '=')
			strv_push(&v, &nv, xstrdup(line + n + 1));
	}
	return v;
}

char *
session_meta_get(const char *session_dir, const char *key)
{
	autofree char *path = path_join(session_dir, "meta"), *line = NULL;
	AUTO(fclose_p) FILE *f = fopen(path, "re");
	size_t cap = 0, n = strlen(key);
	ssize_t len;

	if (f == NULL)
		return NULL;
	while ((len = getline(&line, &cap, f)) > 0) {
		if (line[len - 1] == '\n')
			line[len - 1] = '\0';
		if (strncmp(line, key, n) == 0 && line[n] == '=')
			return xstrdup(line + n + 1);
	}
	return NULL;
}

char *
session_ws_name(const char *ws)
{
	char hex[65];

	sha256_hex(ws, strlen(ws), hex);
	return xstrdup(hex);
}
