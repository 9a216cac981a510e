// SPDX-License-Identifier: ISC
/*
 * input/trust-pins.c - repository profile pins (DESIGN.md section 5).
 *
 * A pin is for exact bytes: an agent that edits a trusted .confine.ini
 * changes its digest, and the file is refused until the user reviews it
 * and runs "confine trust" again.
 * MUST: write the pins file under a temporary name and rename it.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "input/trust-pins.h"
#include "lib/sys.h"
#include "lib/util.h"

/* Each line: 64 hex digits, two spaces, the absolute path. */
static bool
parse_line(const char *line, const char **hex, const char **path)
{
	size_t i;

	for (i = 0; i < 64; i++)
		if (!strchr("0123456789abcdef", line[i]) || line[i] == '\0')
			return false;
	if (line[64] != ' ' || line[65] != ' ' || line[66] != '/')
		return false;
	*hex = line;
	*path = line + 66;
	return true;
}

enum trust_state
trust_lookup(const char *pins, const char *path, const char *hex)
{
	AUTO(fclose_p) FILE *f = NULL;
	autofree char *line = NULL;
	size_t cap = 0;
	enum trust_state st = TRUST_NONE;
	ssize_t n;

	if ((f = fopen(pins, "re")) == NULL)
		return TRUST_NONE;
	while ((n = getline(&line, &cap, f)) > 0) {
		const char *h, *p;

		if (line[n - 1] == '\n')
			line[n - 1] = '\0';
		if (!parse_line(line, &h, &p) || !streq(p, path))
			continue;
		if (strncmp(h, hex, 64) == 0)
			return TRUST_PINNED;
		st = TRUST_CHANGED;
	}
	return st;
}

int
trust_pin(const char *pins, const char *path, const char *hex)
{
	autofree char *dir = xstrdup(pins), *tmp = NULL, *line = NULL;
	AUTO(fclose_p) FILE *in = NULL;
	FILE *out;
	size_t cap = 0;
	ssize_t n;
	int fd, r;

	if (strchr(path, '\n') || path[0] != '/')
		return -EINVAL;
	*strrchr(dir, '/') = '\0';
	if ((r = sys_mkdirs(dir)) < 0)
		return r;
	tmp = xasprintf("%s.tmp.%d", pins, (int)getpid());
	if ((fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600)) < 0)
		return -errno;
	if ((out = fdopen(fd, "w")) == NULL) {
		close(fd);
		unlink(tmp);
		return -errno;
	}
	if ((in = fopen(pins, "re")) != NULL) {
		while ((n = getline(&line, &cap, in)) > 0) {
			const char *h, *p;
			char *copy = xstrdup(line);

			if (copy[n - 1] == '\n')
				copy[n - 1] = '\0';
			/* Keep every other pin, drop this path's old one. */
			if (!parse_line(copy, &h, &p) || !streq(p, path))
				fputs(line, out);
			free(copy);
		}
	}
	fprintf(out, "%s  %s\n", hex, path);
	if (fflush(out) != 0 || fsync(fileno(out)) < 0 || ferror(out)) {
		r = -errno;
		fclose(out);
		unlink(tmp);
		return r ? r : -EIO;
	}
	fclose(out);
	if (rename(tmp, pins) < 0) {
		r = -errno;
		unlink(tmp);
		return r;
	}
	return 0;
}
