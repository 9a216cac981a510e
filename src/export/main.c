// SPDX-License-Identifier: ISC
/*
 * export/main.c - confine-export SESSION_DIR: export a session's changes.
 *
 * A program of its own so that confine never loads libgit2 (about 6 ms of
 * start-up) on its launch path; confine runs it after the sandbox is gone,
 * and "confine show" runs it again for a session whose export failed.
 * It reads the session's metadata file, which only confine writes.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <unistd.h>

#include "export/apply.h"
#include "export/changes.h"
#include "export/patch.h"
#include "lib/fdio.h"
#include "lib/log.h"
#include "lib/util.h"
#include "store/copy-mark.h"
#include "store/session-meta.h"

static int
by_ino(const void *a, const void *b)
{
	ino_t x = ((const struct upper_dir *)a)->ino;
	ino_t y = ((const struct upper_dir *)b)->ino;

	return x < y ? -1 : x > y;
}

/*
 * The copy's directories as made: "INO\0PATH\0"... (run/session-dir.c),
 * read whole with a bound: a workspace of a million directories stays
 * well below it; a file over it is refused, never read in part.
 */
#define DIRS_MAX	(512UL * 1024 * 1024)

static struct upper_dir *
read_dirs(const char *session_dir, size_t *ret_n)
{
	autofree char *path = path_join(session_dir, "copy.dirs");
	autofree char *buf = NULL;
	autoclose int fd = open(path, O_RDONLY | O_CLOEXEC);
	struct upper_dir *v = NULL;
	const char *p, *end, *rel, *nul;
	size_t n = 0;
	ssize_t len;

	*ret_n = 0;
	if (fd < 0)
		return NULL;
	if ((len = fd_read_all(fd, DIRS_MAX, &buf)) < 0)
		die_errno((int)-len, "export: cannot read '%s'", path);
	end = buf + len;
	for (p = buf; p < end; p = nul ? nul + 1 : end) {
		if ((nul = memchr(p, '\0', (size_t)(end - p))) == NULL ||
		    (rel = nul + 1) >= end)
			break;
		nul = memchr(rel, '\0', (size_t)(end - rel));
		v = xreallocarray(v, n + 1, sizeof(*v));
		v[n].ino = (ino_t)strtoull(p, NULL, 10);
		v[n++].path = xstrdup(rel);	/* buf is NUL-terminated */
	}
	if (n)
		qsort(v, n, sizeof(*v), by_ino);
	*ret_n = n;
	return v;
}

/*
 * confine-export --apply SESSION_DIR [--commits] [--check]
 * confine-export --apply SESSION_DIR --into DIR [--whiteouts]
 * confine-export --apply SESSION_DIR [--commits] --hold
 * confine-export --recover WORKSPACE
 * confine-export --release WORKSPACE
 * confine-export --rollback WORKSPACE
 */
static int
apply_main(int argc, char **argv)
{
	struct apply_opts o = { 0 };
	autofree char *ws = NULL, *id = NULL;
	int i;

	if (streq(argv[1], "--recover") || streq(argv[1], "--release") ||
	    streq(argv[1], "--rollback")) {
		if (argc != 3 || argv[2][0] != '/')
			die("usage: confine-export %s WORKSPACE", argv[1]);
		return streq(argv[1], "--recover") ? apply_recover(argv[2]) :
		    streq(argv[1], "--rollback") ? apply_rollback(argv[2]) :
		    apply_release(argv[2]);
	}
	if (argc < 3)
		die("usage: confine-export --apply SESSION_DIR [--commits] "
		    "[--check]");
	o.session_dir = argv[2];
	for (i = 3; i < argc; i++)
		if (streq(argv[i], "--commits"))
			o.commits = true;
		else if (streq(argv[i], "--check"))
			o.check = true;
		else if (streq(argv[i], "--into") && i + 1 < argc &&
		    argv[i + 1][0] == '/')
			o.into = argv[++i];
		else if (streq(argv[i], "--whiteouts"))
			o.whiteouts = true;
		else if (streq(argv[i], "--hold"))
			o.hold = true;
		else
			die("confine-export: unknown option '%s'", argv[i]);
	ws = session_meta_get(o.session_dir, "workspace");
	id = session_meta_get(o.session_dir, "id");
	if (ws == NULL || id == NULL || ws[0] != '/')
		die("'%s' is not a session directory (no meta)", o.session_dir);
	if ((o.whiteouts && !o.into) || (o.into && o.commits))
		die("usage: confine-export --apply SESSION_DIR --into DIR "
		    "[--whiteouts]");
	o.workspace = ws;
	o.session_id = id;
	return apply_session(&o);
}

/*
 * One export of a session at a time: the session's own at exit, and a
 * "confine show" of it run meanwhile (or while the exporter of a killed
 * confine still runs), would write the same files.  The lock is held
 * until exit; a second export waits for the first, then exports again.
 */
static void
lock_export(const char *session_dir, const char *id, bool say)
{
	autofree char *path = path_join(session_dir, "export.lock");
	int fd;

	if ((fd = open(path, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC,
	    0600)) < 0)
		die_errno(errno, "export: cannot open '%s'", path);
	if (flock(fd, LOCK_EX | LOCK_NB) == 0)
		return;
	if (errno != EWOULDBLOCK)
		die_errno(errno, "export: cannot lock '%s'", path);
	if (say)
		fprintf(stderr, "confine: session %s: another export of it is "
		    "running; waiting for it\n", id);
	while (flock(fd, LOCK_EX) < 0)
		if (errno != EINTR)
			die_errno(errno, "export: cannot lock '%s'", path);
}

int
main(int argc, char **argv)
{
	struct export_opts o = { 0 };
	struct changes_copy copy = { 0 };
	AUTO(copy_mark_free) struct copy_mark mark = { 0 };
	autofree char *ws = NULL, *started = NULL, *id = NULL, *layout = NULL;
	autofree char *host_since = NULL, *several = NULL;
	autostrv char **hidden = NULL;
	struct upper_dir *dirs = NULL;
	size_t ndirs = 0;
	bool say_wait = false;
	int c, r;

	if (argc > 1 && (streq(argv[1], "--apply") ||
	    streq(argv[1], "--recover") || streq(argv[1], "--release") ||
	    streq(argv[1], "--rollback")))
		return apply_main(argc, argv);
	/* -q: no summary; -w: but say so when waiting for another export. */
	while ((c = getopt(argc, argv, "qw")) != -1) {
		if (c == 'w')
			say_wait = true;
		else if (c == 'q')
			o.quiet = true;
		else {
			fprintf(stderr, "usage: confine-export [-q] [-w] "
			    "SESSION_DIR\n");
			return EXIT_CONFINE;
		}
	}
	if (optind + 1 != argc) {
		fprintf(stderr, "usage: confine-export [-q] [-w] SESSION_DIR\n");
		return EXIT_CONFINE;
	}
	o.session_dir = argv[optind];
	ws = session_meta_get(o.session_dir, "workspace");
	started = session_meta_get(o.session_dir, "started_ns");
	host_since = session_meta_get(o.session_dir, "host_since_ns");
	id = session_meta_get(o.session_dir, "id");
	if (ws == NULL || id == NULL)
		die("export: '%s' is not a session directory (no meta)",
		    o.session_dir);
	o.workspace = ws;
	o.session_id = id;
	several = session_meta_get(o.session_dir, "workspaces");
	o.several = several != NULL;
	lock_export(o.session_dir, id, say_wait || !o.quiet);
	if (started) {
		long long ns = strtoll(started, NULL, 10);

		o.started.tv_sec = (time_t)(ns / 1000000000LL);
		o.started.tv_nsec = (long)(ns % 1000000000LL);
	}
	/* A session of an older confine has none: its start. */
	o.host_since = o.started;
	if (host_since) {
		long long ns = strtoll(host_since, NULL, 10);

		o.host_since.tv_sec = (time_t)(ns / 1000000000LL);
		o.host_since.tv_nsec = (long)(ns % 1000000000LL);
	}
	/* bwrap and landlock: the workspace's copy, judged by ctime. */
	layout = session_meta_get(o.session_dir, "layout");
	if (layout && streq(layout, "copy")) {
		if (started == NULL)
			die("export: session '%s' has no start time", id);
		if ((r = copy_mark_load(o.session_dir, &mark)) < 0)
			die_errno(-r, "export: cannot read the copy's mark "
			    "of session '%s'", id);
		hidden = session_meta_all(o.session_dir, "hidden");
		dirs = read_dirs(o.session_dir, &ndirs);
		copy.mark = &mark;
		copy.hidden = hidden;
		copy.dirs = dirs;
		copy.ndirs = ndirs;
		o.copy = &copy;
	}
	r = export_session(&o);
	while (ndirs > 0)
		free(dirs[--ndirs].path);
	free(dirs);
	switch (r) {
	case 0:
		return 0;
	case 1:
		return WORKSPACE_EXPORT_NOTHING;
	default:
		return EXIT_CONFINE;
	}
}
