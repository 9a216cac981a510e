// SPDX-License-Identifier: ISC
/*
 * session-store.c - the sessions of the store as a list; see
 * session-store.h.
 *
 * Runs in: confine, on the host.  upper/ and the copies below a session
 * hold what the command wrote: walked through fds, never following a
 * symlink, never read.
 * MUST: write nothing in a session but its "disk" note and its run lock.
 */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "lib/util.h"
#include "store/session-meta.h"
#include "store/session-store.h"

/* Deeper than this, a walk counts the directory but not what it holds. */
#define WALK_DEPTH_MAX	128

static const char *const state_names[] = {
	[SESSION_RUNNING] = "running",
	[SESSION_NOT_EXPORTED] = "not exported",
	[SESSION_EXPORTED] = "exported",
	[SESSION_EMPTY] = "empty",
	[SESSION_APPLIED] = "applied",
	[SESSION_BROKEN] = "no metadata",
};

static bool
has(const char *dir, const char *name)
{
	autofree char *p = path_join(dir, name);

	return access(p, F_OK) == 0;
}

static int
cmp_id(const void *a, const void *b)
{
	return strcmp(((const struct session_info *)a)->id,
	    ((const struct session_info *)b)->id);
}

/* The id's time (UTC, to the second), for a session whose meta has none. */
static long long
id_time(const char *id)
{
	struct tm tm = { 0 };
	const char *end;

	end = strptime(id, "%Y%m%d-%H%M%S", &tm);
	if (end == NULL || (*end != '-' && *end != '.'))
		return 0;
	return (long long)timegm(&tm);
}

/* meta's arguments, one line: "arg" values (escaped there) and spaces. */
static char *
command_line(const char *dir)
{
	autostrv char **args = session_meta_all(dir, "arg");
	char *line = NULL, *more;
	size_t i;

	for (i = 0; args[i]; i++) {
		more = xasprintf("%s%s%s", line ? line : "", line ? " " : "",
		    args[i]);
		free(line);
		line = more;
	}
	return line;
}

static long
summary_num(const char *dir, const char *key)
{
	autofree char *v = session_summary_get(dir, key);

	return v ? strtol(v, NULL, 10) : -1;
}

/* Exported: is there nothing in it, no file, commit or skipped entry? */
static bool
exported_empty(const char *dir, long files)
{
	autofree char *patch = NULL;
	struct stat st;

	if (files >= 0)
		return files == 0 && summary_num(dir, "commits") <= 0 &&
		    summary_num(dir, "skipped") <= 0;
	/* An export of an older confine: no summary, an empty patch. */
	patch = path_join(dir, "changes.patch");
	return stat(patch, &st) == 0 && st.st_size == 0 &&
	    !has(dir, "commits");
}

char **
session_ws_dirs(const char *sdir, size_t *ret_n)
{
	char **v = xcalloc(1, sizeof(char *));
	size_t n = 0, i;

	strv_push(&v, &n, xstrdup(sdir));
	for (i = 1; i < 1000; i++) {
		char *d = xasprintf("%s/ws/%zu", sdir, i);

		if (!has(d, "meta")) {
			free(d);
			break;
		}
		strv_push(&v, &n, d);
	}
	*ret_n = n;
	return v;
}

/*
 * A session of several workspaces (its ws/N, confine(1) WORKSPACES): the
 * files of all, applied when all are, empty when all are, not exported
 * when one is not.
 */
static void
more_load(struct session_info *s)
{
	bool missing = s->state == SESSION_NOT_EXPORTED;
	bool any_applied = s->state == SESSION_APPLIED;
	bool all_done = s->state == SESSION_APPLIED ||
	    s->state == SESSION_EMPTY;
	bool all_empty = s->state == SESSION_EMPTY;
	autostrv char **dirs = NULL;
	size_t i, n;

	if (s->state == SESSION_RUNNING || s->state == SESSION_BROKEN)
		return;
	dirs = session_ws_dirs(s->dir, &n);
	for (i = 1; i < n; i++) {
		const char *d = dirs[i];
		bool applied, empty;
		long files;

		if (!has(d, "changes.patch")) {
			missing = true;
			continue;
		}
		files = summary_num(d, "files");
		if (files > 0)
			s->files = (s->files > 0 ? s->files : 0) + files;
		applied = has(d, "applied");
		empty = exported_empty(d, files);
		any_applied |= applied;
		all_done &= applied || empty;
		all_empty &= empty && !applied;
	}
	if (n == 1)
		return;
	s->state = missing ? SESSION_NOT_EXPORTED : all_empty ? SESSION_EMPTY :
	    all_done && any_applied ? SESSION_APPLIED : SESSION_EXPORTED;
}

static void
info_load(struct session_info *s, const char *store, const char *id)
{
	autofree char *ns = NULL;

	s->id = xstrdup(id);
	s->dir = path_join(store, id);
	s->workspace = session_meta_get(s->dir, "workspace");
	s->also = session_meta_all(s->dir, "also");
	s->command = command_line(s->dir);
	s->files = -1;
	if ((ns = session_meta_get(s->dir, "started_ns")) != NULL)
		s->started = strtoll(ns, NULL, 10) / 1000000000LL;
	if (s->started <= 0)
		s->started = id_time(id);
	if (has(s->dir, "changes.patch"))
		s->files = summary_num(s->dir, "files");
	if (session_is_running(s->dir))
		s->state = SESSION_RUNNING;
	else if (s->workspace == NULL)
		s->state = SESSION_BROKEN;
	else if (has(s->dir, "applied"))
		s->state = SESSION_APPLIED;
	else if (has(s->dir, "changes.patch"))
		s->state = exported_empty(s->dir, s->files) ? SESSION_EMPTY :
		    SESSION_EXPORTED;
	else
		s->state = SESSION_NOT_EXPORTED;
	more_load(s);
}

bool
session_id_ok(const char *id)
{
	size_t i;

	if (id[0] == '\0' || id[0] == '.' || strlen(id) > 64)
		return false;
	for (i = 0; id[i]; i++)
		if (!(id[i] == '-' || id[i] == '.' ||
		    (id[i] >= '0' && id[i] <= '9') ||
		    (id[i] >= 'a' && id[i] <= 'f')))
			return false;
	return true;
}

struct session_info *
session_list(const char *store, size_t *ret_n)
{
	struct session_info *v = NULL;
	size_t n = 0;
	struct dirent *e;
	DIR *d;

	if ((d = opendir(store)) != NULL) {
		while ((e = readdir(d)) != NULL) {
			if (!session_id_ok(e->d_name))
				continue;
			v = xreallocarray(v, n + 1, sizeof(*v));
			memset(&v[n], 0, sizeof(v[n]));
			info_load(&v[n++], store, e->d_name);
		}
		closedir(d);
	}
	if (n > 1)
		qsort(v, n, sizeof(*v), cmp_id);
	*ret_n = n;
	return v;
}

void
session_list_free(struct session_info *v, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		free(v[i].id);
		free(v[i].dir);
		free(v[i].workspace);
		strv_free(v[i].also);
		free(v[i].command);
	}
	free(v);
}

bool
session_has_workspace(const struct session_info *s, const char *ws)
{
	size_t i;

	if (s->workspace && streq(s->workspace, ws))
		return true;
	for (i = 0; s->also && s->also[i]; i++)
		if (streq(s->also[i], ws))
			return true;
	return false;
}

const char *
session_state_name(enum session_state s)
{
	return state_names[s];
}

int
session_run_lock(int dirfd, bool wait)
{
	int fd;

	if ((fd = openat(dirfd, "run.lock", O_RDWR | O_CREAT | O_NOFOLLOW |
	    O_CLOEXEC, 0600)) < 0)
		return -errno;
	/* A list looking at it holds it shared, for a moment only. */
	while (flock(fd, LOCK_EX | (wait ? 0 : LOCK_NB)) < 0) {
		int err = errno;

		if (err == EINTR)
			continue;
		close(fd);
		return err == EWOULDBLOCK ? -EBUSY : -err;
	}
	return fd;
}

bool
session_is_running(const char *dir)
{
	return session_is_running_at(AT_FDCWD, dir);
}

bool
session_is_running_at(int dirfd, const char *dir)
{
	autofree char *path = path_join(dir, "run.lock");
	autoclose int fd = openat(dirfd, path, O_RDONLY | O_NOFOLLOW |
	    O_CLOEXEC);

	if (fd < 0)
		return false;
	if (flock(fd, LOCK_SH | LOCK_NB) < 0)
		return errno == EWOULDBLOCK;
	flock(fd, LOCK_UN);
	return false;
}

static uint64_t
walk(int dirfd, const char *name, int depth)
{
	struct stat st;
	struct dirent *e;
	uint64_t sum;
	DIR *d;
	int fd;

	if (fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW) < 0)
		return 0;
	sum = (uint64_t)st.st_blocks * 512;
	if (!S_ISDIR(st.st_mode) || depth >= WALK_DEPTH_MAX)
		return sum;
	if ((fd = openat(dirfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
	    O_CLOEXEC)) < 0)
		return sum;
	if ((d = fdopendir(fd)) == NULL) {
		close(fd);
		return sum;
	}
	while ((e = readdir(d)) != NULL)
		if (!streq(e->d_name, ".") && !streq(e->d_name, ".."))
			sum += walk(fd, e->d_name, depth + 1);
	closedir(d);
	return sum;
}

uint64_t
session_disk_walk(int dirfd, const char *name)
{
	return walk(dirfd, name, 0);
}

uint64_t
session_disk_use(const char *dir, bool *noted)
{
	autofree char *v = session_file_get(dir, "disk", "bytes");
	char *end;
	unsigned long long n;

	*noted = false;
	if (v) {
		errno = 0;
		n = strtoull(v, &end, 10);
		if (errno == 0 && end != v && *end == '\0') {
			*noted = true;
			return (uint64_t)n;
		}
	}
	return session_disk_walk(AT_FDCWD, dir);
}

uint64_t
session_disk_note(const char *dir)
{
	uint64_t n = session_disk_walk(AT_FDCWD, dir);
	autofree char *text = xasprintf("bytes=%llu\n", (unsigned long long)n);

	/* A note of a few bytes: itself not worth counting. */
	session_file_put(dir, "disk", text);
	return n;
}

int
session_size_parse(const char *s, uint64_t *ret)
{
	static const char units[] = "KMGT";
	unsigned long long n;
	const char *u;
	char *end;
	int shift = 0;

	if (s[0] < '0' || s[0] > '9')
		return -1;
	errno = 0;
	n = strtoull(s, &end, 10);
	if (errno != 0)
		return -1;
	if (*end != '\0') {
		/* strchr() finds the NUL too: a space masks to one. */
		if ((end[0] & ~0x20) == 0 ||
		    (u = strchr(units, end[0] & ~0x20)) == NULL ||
		    !(end[1] == '\0' || ((end[1] == 'B' || end[1] == 'b') &&
		    end[2] == '\0') || (end[1] == 'i' && end[2] == 'B' &&
		    end[3] == '\0')))
			return -1;
		shift = 10 * (int)(u - units + 1);
	}
	if (shift && n > (UINT64_MAX >> shift))
		return -1;
	*ret = (uint64_t)n << shift;
	return 0;
}

void
session_size_format(uint64_t bytes, char *buf, size_t len)
{
	static const char units[] = "KMGTP";
	double v = (double)bytes;
	size_t i = 0;

	if (bytes < 1024) {
		snprintf(buf, len, "%lluB", (unsigned long long)bytes);
		return;
	}
	v /= 1024;
	while (v >= 1024 && i + 1 < sizeof(units) - 1) {
		v /= 1024;
		i++;
	}
	if (bytes % (1ULL << (10 * (i + 1))) == 0)
		snprintf(buf, len, "%.0f%c", v, units[i]);
	else if (v < 10)
		snprintf(buf, len, "%.1f%c", v, units[i]);
	else
		snprintf(buf, len, "%.0f%c", v, units[i]);
}
