// SPDX-License-Identifier: ISC
/*
 * cmd/sessions.c - list, show, diff, apply and drop sessions.
 *
 * Runs in: the user's process on the host.  A session's patch holds
 * agent-written bytes: shown on a terminal only through term_sanitize();
 * applied by confine-export's apply engine (export/apply.c: libgit2, no git
 * binary, nothing of the workspace's or the session's run), which checks
 * everything before its first write and journals the writes.
 */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cmd/diff-color.h"
#include "cmd/sessions.h"
#include "input/host-probe.h"
#include "lib/env.h"
#include "lib/log.h"
#include "lib/sha256.h"
#include "lib/spawn.h"
#include "lib/term-escape.h"
#include "lib/util.h"
#include "run/session-dir.h"
#include "store/session-meta.h"

extern char **environ;

static char *
sessions_dir(char *const *env)
{
	struct host h;
	autofree char *cause = NULL;
	char *dir;

	if (probe_host(env, NULL, &h, &cause) < 0)
		die("%s", cause);
	dir = path_join(h.state_home, "confine/sessions");
	host_free(&h);
	return dir;
}

static bool
id_ok(const char *id)
{
	size_t i;

	if (id[0] == '\0' || id[0] == '.' || strlen(id) > 64)
		return false;
	for (i = 0; id[i]; i++)
		if (!(id[i] == '-' || (id[i] >= '0' && id[i] <= '9') ||
		    (id[i] >= 'a' && id[i] <= 'f')))
			return false;
	return true;
}

static int
cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Session ids, oldest first (ids start with the UTC time). */
static char **
list_ids(const char *dir, size_t *ret_n)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	char **v = xcalloc(1, sizeof(*v));
	size_t n = 0;

	if (d) {
		while ((e = readdir(d)) != NULL)
			if (id_ok(e->d_name))
				strv_push(&v, &n, xstrdup(e->d_name));
		closedir(d);
	}
	if (n)
		qsort(v, n, sizeof(*v), cmp_str);
	*ret_n = n;
	return v;
}

/* The session named, or the latest; dies when there is none. */
static char *
pick(const char *dir, const char *id)
{
	autostrv char **ids = NULL;
	size_t n;

	if (id) {
		char *p;
		struct stat st;

		if (!id_ok(id))
			die("'%s' is not a session id", id);
		p = path_join(dir, id);
		if (stat(p, &st) < 0)
			die_hint(EXIT_CONFINE, 0, "'confine ls' lists the "
			    "sessions", "no session '%s'", id);
		return p;
	}
	ids = list_ids(dir, &n);
	if (n == 0)
		die("no sessions in %s", dir);
	return path_join(dir, ids[n - 1]);
}

static bool
has(const char *sdir, const char *name)
{
	autofree char *p = path_join(sdir, name);

	return access(p, F_OK) == 0;
}

/* Make sure the session has its export (after a crash, or a failure). */
static int
ensure_export(const char *sdir)
{
	/* Quiet, but for a wait on another export of it. */
	char *argv[] = { (char *)"-q", (char *)"-w", (char *)sdir, NULL };
	int r;

	if (has(sdir, "changes.patch") && has(sdir, "report"))
		return 0;
	if (!has(sdir, "upper"))
		return -1;
	r = workspace_export_run(argv);
	return r == 0 || r == WORKSPACE_EXPORT_NOTHING ? 0 : -1;
}

/* Agent data: read with this bound, said when cut. */
#define MAX_SHOWN	(256UL * 1024 * 1024)

/* How a file of the session is shown. */
enum view {
	VIEW_RAW,	/* its exact bytes: a pipe or a file */
	VIEW_SAFE,	/* sanitised for a terminal */
	VIEW_COLOR,	/* sanitised, and coloured as git colours a diff */
};

/*
 * Copy a file of the session (agent data: patch text, file names, commit
 * messages) to out: exact bytes, sanitised for a terminal, or sanitised
 * and coloured; never more than MAX_SHOWN.
 */
static void
print_fd(int fd, FILE *out, enum view view)
{
	char chunk[65536];
	size_t total = 0, nc = 0;
	struct diff_color dc;
	ssize_t n;

	diff_color_init(&dc);
	while (total < MAX_SHOWN && (n = read(fd, chunk + nc, sizeof(chunk) -
	    nc)) > 0) {
		size_t len = nc + (size_t)n, keep;
		autofree char *clean = NULL;

		total += (size_t)n;
		if (view == VIEW_RAW) {
			fwrite(chunk, 1, len, out);
			continue;
		}
		if (view == VIEW_COLOR) {
			/* Whole lines, or a piece of one as long as chunk. */
			keep = len - diff_color_print(&dc, chunk, len,
			    len == sizeof(chunk) ? DIFF_COLOR_FULL :
			    DIFF_COLOR_LINES, out);
		} else {
			/* A UTF-8 sequence cut by the chunk: whole, in the
			 * next. */
			keep = utf8_cut_tail((unsigned char *)chunk, len);
			clean = term_sanitize(chunk, len - keep, 1);
			fputs(clean, out);
		}
		memmove(chunk, chunk + len - keep, keep);
		nc = keep;
	}
	if (nc > 0 && view == VIEW_COLOR)
		diff_color_print(&dc, chunk, nc, DIFF_COLOR_END, out);
	else if (nc > 0) {
		autofree char *clean = term_sanitize(chunk, nc, 1);

		fputs(clean, out);
	}
	if (total >= MAX_SHOWN)
		fprintf(out, "\n[confine: cut at %lu MiB]\n", MAX_SHOWN >> 20);
}

static void
print_file(int dirfd, const char *name, FILE *out, enum view view)
{
	autoclose int fd = openat(dirfd, name, O_RDONLY | O_NOFOLLOW |
	    O_CLOEXEC | O_NONBLOCK);

	if (fd < 0)
		die_errno(errno, "cannot read '%s'", name);
	print_fd(fd, out, view);
}

static void
print_sanitized(const char *path, FILE *out)
{
	print_file(AT_FDCWD, path, out, VIEW_SAFE);
}

int
session_ls(char *const *env)
{
	autofree char *dir = sessions_dir(env);
	autostrv char **ids = NULL;
	size_t n, i;

	ids = list_ids(dir, &n);
	for (i = 0; i < n; i++) {
		autofree char *sdir = path_join(dir, ids[i]);
		autofree char *ws = session_meta_get(sdir, "workspace");
		autofree char *safe = ws ? term_sanitize(ws, strlen(ws), 0) :
		    xstrdup("?");
		const char *state = has(sdir, "applied") ? "applied" :
		    has(sdir, "changes.patch") ? "exported" :
		    has(sdir, "upper") ? "not exported" : "empty";

		printf("%s  %-12s  %s\n", ids[i], state, safe);
	}
	return 0;
}

int
session_show(const struct cli_opts *o, char *const *env)
{
	autofree char *dir = sessions_dir(env);
	autofree char *sdir = pick(dir, o->argv[0]);
	autofree char *report = path_join(sdir, "report");

	if (ensure_export(sdir) < 0)
		die("session '%s': cannot export its changes", sdir);
	print_sanitized(report, stdout);
	return 0;
}

static int
cmp_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/*
 * NNNN.meta then NNNN.patch, for each commit of commits/, in order; the
 * author and message never coloured.
 */
static void
print_commits(const char *sdir, FILE *out, enum view view)
{
	autofree char *path = path_join(sdir, "commits");
	autoclose int fd = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
	    O_CLOEXEC);
	autostrv char **metas = xcalloc(1, sizeof(*metas));
	size_t n = 0, i;
	struct dirent *e;
	DIR *d;

	if (fd < 0 || (d = fdopendir(dup(fd))) == NULL)
		die_hint(EXIT_CONFINE, 0, "'confine diff' shows its changes",
		    "session '%s' has no commits", sdir);
	while ((e = readdir(d)) != NULL) {
		size_t len = strlen(e->d_name);

		if (len == 9 && strspn(e->d_name, "0123456789") == 4 &&
		    streq(e->d_name + 4, ".meta"))
			strv_push(&metas, &n, xstrdup(e->d_name));
	}
	closedir(d);
	if (n > 0)
		qsort(metas, n, sizeof(*metas), cmp_name);
	for (i = 0; i < n; i++) {
		autofree char *patch = xasprintf("%.4s.patch", metas[i]);

		if (view == VIEW_COLOR)
			fprintf(out, DIFF_COLOR_COMMIT "commit %.4s"
			    DIFF_COLOR_RESET "\n", metas[i]);
		else
			fprintf(out, "commit %.4s\n", metas[i]);
		print_file(fd, metas[i], out, view == VIEW_COLOR ? VIEW_SAFE :
		    view);
		fprintf(out, "\n");
		print_file(fd, patch, out, view);
	}
}

/* The pager and the pipe to its stdin. */
struct pager {
	FILE	*in;
	pid_t	 pid;
};

/* Is there a program name in a directory of the user's PATH? */
static bool
in_path(char *const *env, const char *name)
{
	const char *path = env_get(env, "PATH");
	autofree char *copy = xstrdup(path ? path : "/usr/bin:/bin");
	char *dir, *save = NULL;

	for (dir = strtok_r(copy, ":", &save); dir; dir = strtok_r(NULL, ":",
	    &save)) {
		autofree char *p = path_join(dir[0] ? dir : ".", name);

		if (access(p, X_OK) == 0)
			return true;
	}
	return false;
}

/*
 * The user's pager, reading sanitised bytes from a pipe, run by sh -c as
 * popen(3) would: $PAGER (none when it is empty or "cat"), else less -FRX
 * when less is in PATH, else none (stdout).  LESS=FRX and LV=-c unless
 * set, as git sets them, so that a pager named less shows the colours.
 * Never anything of the session's: the environment is the user's own.
 */
static bool
pager_open(char *const *env, struct pager *pg)
{
	const char *p = env_get(env, "PAGER");
	struct spawn_opts o = SPAWN_OPTS_INIT;
	char *argv[] = { (char *)"sh", (char *)"-c", NULL, NULL };
	autostrv char **penv = strv_copy(env);
	size_t n = strv_len(penv);
	int fds[2];

	if (p && (p[0] == '\0' || streq(p, "cat")))
		return false;
	if (p)
		argv[2] = (char *)p;
	else if (in_path(env, "less"))
		argv[2] = (char *)"less -FRX";
	else
		return false;
	if (env_get(env, "LESS") == NULL)
		strv_push(&penv, &n, xstrdup("LESS=FRX"));
	if (env_get(env, "LV") == NULL)
		strv_push(&penv, &n, xstrdup("LV=-c"));
	o.envp = penv;
	if (pipe2(fds, O_CLOEXEC) < 0)
		return false;
	o.in = fds[0];
	pg->pid = spawn_start("/bin/sh", argv, &o);
	close(fds[0]);
	if (pg->pid < 0 || (pg->in = fdopen(fds[1], "w")) == NULL) {
		close(fds[1]);
		if (pg->pid > 0)
			spawn_wait(pg->pid);
		return false;
	}
	return true;
}

static void
pager_close(struct pager *pg)
{
	fclose(pg->in);
	spawn_wait(pg->pid);
}

int
session_diff(const struct cli_opts *o, char *const *env)
{
	autofree char *dir = sessions_dir(env);
	autofree char *sdir = pick(dir, o->argv[0]);
	autofree char *patch = path_join(sdir, "changes.patch");
	bool tty = isatty(STDOUT_FILENO), paged = false;
	const char *no_color = env_get(env, "NO_COLOR");
	const char *term = env_get(env, "TERM");
	enum view view = VIEW_RAW;
	struct pager pg;
	FILE *out = stdout;

	if (ensure_export(sdir) < 0)
		die("session '%s': cannot export its changes", sdir);
	/*
	 * Exact bytes for a pipe or file: "git apply" takes them.  Colours
	 * as git's color.ui=auto gives them (a terminal, not "dumb"), but
	 * for NO_COLOR (no-color.org) or --no-color; --color forces them,
	 * sanitised, into a pipe too.
	 */
	if (tty)
		view = VIEW_SAFE;
	if (o->color > 0 || (o->color == 0 && tty && !(no_color &&
	    no_color[0]) && !(term && streq(term, "dumb"))))
		view = VIEW_COLOR;
	if (tty && (paged = pager_open(env, &pg)))
		out = pg.in;
	if (o->commits)
		print_commits(sdir, out, view);
	else
		print_file(AT_FDCWD, patch, out, view);
	if (paged)
		pager_close(&pg);
	else
		fflush(stdout);
	return 0;
}

/*
 * Does the export's patch change no file?  confine-export's summary says;
 * a session exported by an older confine has none: its patch is empty.
 */
static bool
nothing_to_apply(const char *sdir)
{
	autofree char *files = session_summary_get(sdir, "files");
	autofree char *patch = NULL;
	struct stat st;

	if (files)
		return streq(files, "0");
	patch = path_join(sdir, "changes.patch");
	return stat(patch, &st) == 0 && st.st_size == 0;
}

/* confine-export --apply SDIR [--commits] [--check]: its exit status. */
static int
export_apply(const char *sdir, bool commits, bool check)
{
	char *argv[] = { (char *)"--apply", (char *)sdir, NULL, NULL, NULL };
	size_t n = 2;

	if (commits)
		argv[n++] = (char *)"--commits";
	if (check)
		argv[n++] = (char *)"--check";
	return workspace_export_run(argv);
}

int
session_apply(const struct cli_opts *o, char *const *env)
{
	autofree char *dir = sessions_dir(env);
	autofree char *sdir = pick(dir, o->argv[0]);
	autofree char *report = path_join(sdir, "report");
	autofree char *ws = session_meta_get(sdir, "workspace");
	autofree char *applied = path_join(sdir, "applied");
	int fd, r;

	if (ws == NULL)
		die("'%s' is not a session directory", sdir);
	if (ensure_export(sdir) < 0)
		die("session '%s': cannot export its changes", sdir);
	if (!o->yes && !isatty(STDIN_FILENO))
		die_hint(EXIT_CONFINE, 0, "review it with 'confine diff', then "
		    "run 'confine apply --yes'", "not applying without a "
		    "terminal to ask on");
	if (has(sdir, "applied"))
		die_hint(EXIT_CONFINE, 0, "its changes are on the host already",
		    "session '%s' was applied", sdir);
	if (o->commits && !has(sdir, "commits"))
		die_hint(EXIT_CONFINE, 0, "use 'confine apply'", "session made "
		    "no commits");
	if (!o->commits && nothing_to_apply(sdir)) {
		log_msg("nothing to apply");
		return 0;
	}
	print_sanitized(report, stderr);
	/* All or nothing: every check before asking, again before writing. */
	if ((r = export_apply(sdir, o->commits, true)) != 0)
		return r < 0 ? EXIT_CONFINE : r;
	if (!o->yes) {
		char answer[16] = "";

		fprintf(stderr, "apply these changes to %s? [y/N] ", ws);
		if (fgets(answer, sizeof(answer), stdin) == NULL ||
		    (answer[0] != 'y' && answer[0] != 'Y')) {
			fprintf(stderr, "not applied\n");
			return 1;
		}
	}
	if ((r = export_apply(sdir, o->commits, false)) != 0)
		return r < 0 ? EXIT_CONFINE : r;
	if ((fd = open(applied, O_WRONLY | O_CREAT | O_CLOEXEC, 0600)) >= 0)
		close(fd);
	log_msg("applied to %s", ws);
	return 0;
}

/*
 * A workspace's name under STATE/confine/journal and .../locks: the
 * sha256 of its path, shared by apply (confine-export) and the launch.
 */
void
session_recover(const char *session_dir, const char *ws)
{
	autofree char *state = xstrdup(session_dir), *journal = NULL;
	autofree char *hash = NULL;
	char *slash;
	struct stat st;
	char *argv[] = { (char *)"--recover", (char *)ws, NULL };
	int i;

	/* SESSION_DIR is STATE/confine/sessions/ID. */
	for (i = 0; i < 2; i++) {
		if ((slash = strrchr(state, '/')) == NULL)
			return;
		*slash = '\0';
	}
	hash = session_ws_name(ws);
	journal = xasprintf("%s/journal/%s", state, hash);
	if (stat(journal, &st) < 0)
		return;
	if (workspace_export_run(argv) != 0)
		die("an apply to %s was killed and cannot be rolled back", ws);
}

int
session_drop(const struct cli_opts *o, char *const *env)
{
	autofree char *dir = sessions_dir(env);
	autoclose int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	size_t i;
	int status = 0;

	for (i = 0; o->argv[i]; i++) {
		if (!id_ok(o->argv[i]) || dfd < 0 ||
		    faccessat(dfd, o->argv[i], F_OK, AT_SYMLINK_NOFOLLOW) < 0) {
			fprintf(stderr, "confine: no session '%s'\n", o->argv[i]);
			status = EXIT_CONFINE;
			continue;
		}
		workspace_remove_tree(dfd, o->argv[i]);
		if (faccessat(dfd, o->argv[i], F_OK, AT_SYMLINK_NOFOLLOW) == 0) {
			fprintf(stderr, "confine: cannot remove session '%s'\n",
			    o->argv[i]);
			status = EXIT_CONFINE;
		}
	}
	return status;
}

void
session_enter_opts(struct cli_opts *o, char *const *env, char ***keep)
{
	autofree char *dir = sessions_dir(env);
	autofree char *sdir = pick(dir, o->session_id);
	char *ws = session_meta_get(sdir, "workspace");
	char *prof = session_meta_get(sdir, "profile_arg");
	char *layout = session_meta_get(sdir, "layout");
	char *id = xstrdup(strrchr(sdir, '/') + 1);
	const char *shell = NULL;
	size_t n = 0, i;

	if (ws == NULL)
		die("'%s' is not a session directory", sdir);
	if (o->as_left && !has(sdir, "upper"))
		die("session '%s' has no layers left to enter", id);
	if (has(sdir, "applied"))
		die_hint(EXIT_CONFINE, 0, "its changes are on the host; start a "
		    "new session there", "session '%s' was applied", id);
	*keep = xcalloc(1, sizeof(**keep));
	strv_push(keep, &n, ws);
	strv_push(keep, &n, id);
	o->workspace = ws;
	/* Sessions older than the copy layout have none: an overlay. */
	if (layout == NULL)
		layout = xstrdup("overlay");
	strv_push(keep, &n, layout);
	if (o->as_left) {
		o->session_id = id;
		o->session_layout = layout;
	} else {
		/*
		 * A new session on the workspace plus this one's patch, as
		 * apply would write it (sandbox_run() has confine-export
		 * write it in before the command starts).
		 */
		o->session_id = NULL;
		o->enter_from = sdir;
		strv_push(keep, &n, sdir);
		sdir = NULL;
	}
	if (prof && prof[0]) {
		strv_push(keep, &n, prof);
		o->profile = prof;
	} else
		free(prof);
	if (o->argv == NULL || o->argv[0] == NULL) {
		/* A shell; the command runs with the sandbox's environment. */
		for (i = 0; env[i]; i++)
			if (strncmp(env[i], "SHELL=/", 7) == 0)
				shell = env[i] + 6;
		o->argv = xcalloc(2, sizeof(char *));
		o->argv[0] = xstrdup(shell ? shell : "/bin/sh");
		strv_push(keep, &n, o->argv[0]);
		strv_push(keep, &n, (char *)o->argv);
	}
	o->cmd = CLI_RUN;
}
