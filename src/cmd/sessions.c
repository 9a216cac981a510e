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
#include "store/session-running.h"
#include "store/session-store.h"
#include "store/session-usage.h"

extern char **environ;

/* Where the sessions are, and the workspace a run here would have. */
struct here {
	char	*store;		/* STATE/confine/sessions */
	char	*ws;		/* the git top level of ".", else "." */
};

static void
here_load(char *const *env, struct here *ret)
{
	struct host h;
	autofree char *cause = NULL;

	if (probe_host(env, NULL, &h, &cause) < 0)
		die("%s", cause);
	ret->store = path_join(h.state_home, "confine/sessions");
	ret->ws = xstrdup(h.git_top ? h.git_top : h.cwd);
	host_free(&h);
}

static void
here_free(struct here *w)
{
	free(w->store);
	free(w->ws);
}

static char *
sessions_dir(char *const *env)
{
	struct here w;

	here_load(env, &w);
	free(w.ws);
	return w.store;
}

/*
 * The session named, or the latest of the current workspace that no
 * confine runs now; dies when there is none.
 */
static char *
pick(char *const *env, const char *id)
{
	struct here w;
	struct session_info *v;
	size_t n, i, others = 0;
	char *p = NULL;

	here_load(env, &w);
	if (id) {
		struct stat st;

		if (!session_id_ok(id))
			die("'%s' is not a session id", id);
		p = path_join(w.store, id);
		if (stat(p, &st) < 0)
			die_hint(EXIT_CONFINE, 0, "'confine ls --all' lists the "
			    "sessions", "no session '%s'", id);
		here_free(&w);
		return p;
	}
	v = session_list(w.store, &n);
	for (i = n; i-- > 0 && p == NULL;) {
		if (!session_has_workspace(&v[i], w.ws))
			others++;
		else if (v[i].state != SESSION_RUNNING)
			p = xstrdup(v[i].dir);
	}
	session_list_free(v, n);
	if (n == 0)
		die("no sessions in %s", w.store);
	if (p == NULL && others == n)
		die_hint(EXIT_CONFINE, 0, "'confine ls --all' lists the "
		    "sessions of every workspace: name one", "no sessions of "
		    "%s", w.ws);
	if (p == NULL)
		die_hint(EXIT_CONFINE, 0, "'confine ls' lists them",
		    "no session of %s but running ones", w.ws);
	here_free(&w);
	return p;
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

/* The sessions' disk use without CONFINE_SESSION_CAP: 10 GiB. */
#define SESSION_CAP_DEFAULT	(10ULL << 30)

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

/* "45s", "12m", "3h", "5d": how long ago t was. */
static void
age_format(long long t, time_t now, char *buf, size_t len)
{
	long long d = (long long)now - t;

	if (t <= 0)
		snprintf(buf, len, "?");
	else if (d < 60)
		snprintf(buf, len, "%llds", d < 0 ? 0 : d);
	else if (d < 3600)
		snprintf(buf, len, "%lldm", d / 60);
	else if (d < 86400)
		snprintf(buf, len, "%lldh", d / 3600);
	else
		snprintf(buf, len, "%lldd", d / 86400);
}

enum { COL_ID, COL_AGE, COL_FILES, COL_SIZE, COL_STATE, COL_MEM, COL_TASKS,
	COL_WS, COL_CMD, NCOLS };

/* A running session's memory and tasks, now; "?" when not known. */
static void
ls_usage(const struct session_info *s, char **col)
{
	struct session_running r = { 0 };
	struct session_usage u;
	char buf[32];

	if (session_running_get(s->dir, &r) < 0 ||
	    session_usage_get(&r, &u) < 0) {
		col[COL_MEM] = xstrdup("?");
		col[COL_TASKS] = xstrdup("?");
	} else {
		session_size_format(u.memory, buf, sizeof(buf));
		col[COL_MEM] = xstrdup(buf);
		col[COL_TASKS] = xasprintf("%llu", (unsigned long long)u.tasks);
	}
	session_running_free(&r);
}

/* One line of "confine ls": every column's text, for the terminal. */
static void
ls_row(const struct session_info *s, time_t now, char **col)
{
	char buf[32];
	bool noted;

	col[COL_ID] = xstrdup(s->id);
	age_format(s->started, now, buf, sizeof(buf));
	col[COL_AGE] = xstrdup(buf);
	col[COL_FILES] = s->files < 0 ? xstrdup("-") :
	    xasprintf("%ld", s->files);
	session_size_format(session_disk_use(s->dir, &noted), buf,
	    sizeof(buf));
	col[COL_SIZE] = xstrdup(buf);
	col[COL_STATE] = xstrdup(session_state_name(s->state));
	if (s->state == SESSION_RUNNING)
		ls_usage(s, col);
	else {
		col[COL_MEM] = xstrdup("-");
		col[COL_TASKS] = xstrdup("-");
	}
	/* confine wrote both; the user typed them: shown safe all the same. */
	col[COL_WS] = s->workspace ? term_sanitize(s->workspace,
	    strlen(s->workspace), 0) : xstrdup("?");
	col[COL_CMD] = s->command ? term_sanitize(s->command,
	    strlen(s->command), 0) : xstrdup("");
}

int
session_ls(const struct cli_opts *o, char *const *env)
{
	static const char *const head[NCOLS] = { "ID", "AGE", "FILES",
	    "SIZE", "STATE", "MEMORY", "TASKS", "WORKSPACE", "COMMAND" };
	/* Numbers to the right. */
	static const bool right[NCOLS] = { [COL_AGE] = true,
	    [COL_FILES] = true, [COL_SIZE] = true, [COL_MEM] = true,
	    [COL_TASKS] = true };
	struct here w;
	struct session_info *v;
	char *(*rows)[NCOLS];
	bool *more;
	size_t n, i, j, c, nrows = 0, nmore = 0, width[NCOLS] = { 0 };
	time_t now = time(NULL);
	bool running = false;

	here_load(env, &w);
	v = session_list(w.store, &n);
	/* --all: a session's further workspaces each a line of their own. */
	for (i = 0; o->all && i < n; i++)
		for (j = 0; v[i].also && v[i].also[j]; j++)
			nmore++;
	rows = xcalloc(n + nmore + 1, sizeof(*rows));
	more = xcalloc(n + nmore + 1, sizeof(*more));
	for (c = 0; c < NCOLS; c++)
		rows[0][c] = xstrdup(head[c]);
	for (i = 0; i < n; i++) {
		if (!o->all && !session_has_workspace(&v[i], w.ws))
			continue;
		ls_row(&v[i], now, rows[++nrows]);
		running |= v[i].state == SESSION_RUNNING;
		for (j = 0; o->all && v[i].also && v[i].also[j]; j++) {
			more[++nrows] = true;
			for (c = 0; c < NCOLS; c++)
				rows[nrows][c] = c != COL_WS ? xstrdup("") :
				    term_sanitize(v[i].also[j],
				    strlen(v[i].also[j]), 0);
		}
	}
	for (i = 0; i <= nrows; i++)
		for (c = 0; c < NCOLS; c++)
			if (strlen(rows[i][c]) > width[c])
				width[c] = strlen(rows[i][c]);
	/* The header for people, on a terminal; a pipe gets the rows. */
	for (i = isatty(STDOUT_FILENO) ? 0 : 1; nrows > 0 && i <= nrows; i++)
		for (c = 0; c < NCOLS; c++) {
			if (c == COL_WS && !o->all)
				continue;
			/* Memory and tasks: when a session listed runs. */
			if ((c == COL_MEM || c == COL_TASKS) && !running)
				continue;
			/* A further workspace: under the first, nothing after. */
			if (more[i] && c == COL_WS) {
				printf("%s\n", rows[i][c]);
				break;
			}
			if (c == COL_CMD)
				printf("%s\n", rows[i][c]);
			else
				printf("%*s  ", right[c] ? (int)width[c] :
				    -(int)width[c], rows[i][c]);
		}
	if (nrows == 0 && n > 0 && !o->all)
		fprintf(stderr, "confine: no sessions of %s; 'confine ls --all' "
		    "lists %zu of other workspaces\n", w.ws, n);
	for (i = 0; i <= nrows; i++)
		for (c = 0; c < NCOLS; c++)
			free(rows[i][c]);
	free(rows);
	free(more);
	session_list_free(v, n);
	here_free(&w);
	return 0;
}

int
session_show(const struct cli_opts *o, char *const *env)
{
	autofree char *sdir = pick(env, o->argv[0]);
	autostrv char **dirs = NULL;
	size_t n, i;

	/* Several workspaces: each report, labelled by its workspace line. */
	dirs = session_ws_dirs(sdir, &n);
	for (i = 0; i < n; i++) {
		autofree char *report = path_join(dirs[i], "report");

		if (ensure_export(dirs[i]) < 0)
			die("session '%s': cannot export its changes", dirs[i]);
		if (i > 0)
			putchar('\n');
		print_sanitized(report, stdout);
	}
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
 * popen(3) would: $PAGER (none when it is empty or "cat"), else the
 * system's choice, sensible-pager, where PATH has it (Debian's), else
 * less -FRX when less is in PATH, else none (stdout).  LESS=FRX and LV=-c unless
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
	else if (in_path(env, "sensible-pager"))
		argv[2] = (char *)"sensible-pager";
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
	size_t n, i;
	autofree char *sdir = pick(env, o->argv[0]);
	autostrv char **dirs = session_ws_dirs(sdir, &n);
	bool tty = isatty(STDOUT_FILENO), paged = false;
	const char *no_color = env_get(env, "NO_COLOR");
	const char *term = env_get(env, "TERM");
	enum view view = VIEW_RAW;
	struct pager pg = { .in = NULL, .pid = -1 };
	FILE *out = stdout;

	for (i = 0; i < n; i++)
		if (ensure_export(dirs[i]) < 0)
			die("session '%s': cannot export its changes", dirs[i]);
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
	for (i = 0; i < n; i++) {
		autofree char *ws = NULL;

		if (n > 1) {
			/* A label git apply passes over as commentary. */
			ws = session_meta_get(dirs[i], "workspace");
			fprintf(out, "%s# confine: workspace %s\n", i ? "\n" : "",
			    ws ? ws : "?");
		}
		if (o->commits)
			print_commits(dirs[i], out, view);
		else {
			autofree char *p = path_join(dirs[i], "changes.patch");

			print_file(AT_FDCWD, p, out, view);
		}
	}
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
export_apply(const char *sdir, bool commits, bool check, bool hold)
{
	char *argv[] = { (char *)"--apply", (char *)sdir, NULL, NULL, NULL,
	    NULL };
	size_t n = 2;

	if (commits)
		argv[n++] = (char *)"--commits";
	if (check)
		argv[n++] = (char *)"--check";
	if (hold)
		argv[n++] = (char *)"--hold";
	return workspace_export_run(argv);
}

static int
apply_one(const struct cli_opts *o, const char *sdir)
{
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
	if ((r = export_apply(sdir, o->commits, true, false)) != 0)
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
	if ((r = export_apply(sdir, o->commits, false, false)) != 0)
		return r < 0 ? EXIT_CONFINE : r;
	if ((fd = open(applied, O_WRONLY | O_CREAT | O_CLOEXEC, 0600)) >= 0)
		close(fd);
	log_msg("applied to %s", ws);
	return 0;
}

/* confine-export --release or --rollback WS: its exit status. */
static int
export_ws(const char *how, const char *ws)
{
	char *argv[] = { (char *)how, (char *)ws, NULL };

	return workspace_export_run(argv);
}

/*
 * A session of several workspaces: every check of every one first, one
 * question, then each applied with its journal held, so that a failure
 * in a later one rolls back the earlier ones; all or none.
 */
static int
apply_all(const struct cli_opts *o, char **dirs, size_t n)
{
	autostrv char **ws = xcalloc(n + 1, sizeof(char *));
	bool *todo = xcalloc(n, sizeof(bool)), *commits = xcalloc(n,
	    sizeof(bool));
	size_t i, j, ntodo = 0, ncommits = 0, napplied = 0;
	int r = 0, fd;

	for (i = 0; i < n; i++) {
		if ((ws[i] = session_meta_get(dirs[i], "workspace")) == NULL)
			die("'%s' is not a session directory", dirs[i]);
		if (ensure_export(dirs[i]) < 0)
			die("session '%s': cannot export its changes", dirs[i]);
	}
	if (!o->yes && !isatty(STDIN_FILENO))
		die_hint(EXIT_CONFINE, 0, "review it with 'confine diff', then "
		    "run 'confine apply --yes'", "not applying without a "
		    "terminal to ask on");
	for (i = 0; i < n; i++) {
		if (has(dirs[i], "applied")) {
			napplied++;
			continue;
		}
		commits[i] = o->commits && has(dirs[i], "commits");
		ncommits += commits[i];
		todo[i] = commits[i] || !nothing_to_apply(dirs[i]);
		ntodo += todo[i];
	}
	if (napplied == n)
		die_hint(EXIT_CONFINE, 0, "its changes are on the host already",
		    "session '%s' was applied", dirs[0]);
	if (o->commits && ncommits == 0)
		die_hint(EXIT_CONFINE, 0, "use 'confine apply'", "session made "
		    "no commits");
	if (ntodo == 0) {
		log_msg("nothing to apply");
		goto out;
	}
	for (i = 0; i < n; i++)
		if (todo[i]) {
			autofree char *report = path_join(dirs[i], "report");

			print_sanitized(report, stderr);
		}
	for (i = 0; i < n; i++)
		if (todo[i] && (r = export_apply(dirs[i], commits[i], true,
		    false)) != 0) {
			r = r < 0 ? EXIT_CONFINE : r;
			goto out;
		}
	if (!o->yes) {
		char answer[16] = "";

		fprintf(stderr, "apply these changes to");
		for (i = j = 0; i < n; i++)
			if (todo[i])
				fprintf(stderr, "%s %s", j++ ? "," : "", ws[i]);
		fprintf(stderr, "? [y/N] ");
		if (fgets(answer, sizeof(answer), stdin) == NULL ||
		    (answer[0] != 'y' && answer[0] != 'Y')) {
			fprintf(stderr, "not applied\n");
			r = 1;
			goto out;
		}
	}
	for (i = 0; i < n; i++) {
		if (!todo[i])
			continue;
		if ((r = export_apply(dirs[i], commits[i], false, true)) == 0)
			continue;
		r = r < 0 ? EXIT_CONFINE : r;
		/* The ones before: their journals roll them back. */
		for (j = 0; j < i; j++)
			if (todo[j] && export_ws("--rollback", ws[j]) != 0)
				die("the apply to %s cannot be rolled back",
				    ws[j]);
		goto out;
	}
	for (i = 0; i < n; i++) {
		autofree char *applied = NULL;

		if (!todo[i])
			continue;
		export_ws("--release", ws[i]);
		applied = path_join(dirs[i], "applied");
		if ((fd = open(applied, O_WRONLY | O_CREAT | O_CLOEXEC,
		    0600)) >= 0)
			close(fd);
		log_msg("applied to %s", ws[i]);
	}
out:
	free(todo);
	free(commits);
	return r;
}

int
session_apply(const struct cli_opts *o, char *const *env)
{
	autofree char *sdir = pick(env, o->argv[0]);
	autostrv char **dirs = NULL;
	autofree char *want = NULL;
	size_t n, i;

	dirs = session_ws_dirs(sdir, &n);
	if (o->workspace) {
		/* One workspace of the session: its patch alone. */
		if ((want = realpath(o->workspace, NULL)) == NULL)
			die("--workspace '%s': %s", o->workspace,
			    strerror(errno));
		for (i = 0; i < n; i++) {
			autofree char *ws = session_meta_get(dirs[i],
			    "workspace");

			if (ws && streq(ws, want))
				return apply_one(o, dirs[i]);
		}
		die_hint(EXIT_CONFINE, 0, "'confine show' names its "
		    "workspaces", "session '%s' has no writable workspace %s",
		    sdir, want);
	}
	return n == 1 ? apply_one(o, sdir) : apply_all(o, dirs, n);
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

/* Remove session id from the store dfd: 0, or EXIT_CONFINE, said. */
static int
drop_one(int dfd, const char *id)
{
	if (!session_id_ok(id) || dfd < 0 ||
	    faccessat(dfd, id, F_OK, AT_SYMLINK_NOFOLLOW) < 0) {
		fprintf(stderr, "confine: no session '%s'\n", id);
		return EXIT_CONFINE;
	}
	if (session_is_running_at(dfd, id)) {
		fprintf(stderr, "confine: session '%s' is running\nhint: "
		    "'confine stop %s' ends it\n", id, id);
		return EXIT_CONFINE;
	}
	workspace_remove_tree(dfd, id);
	if (faccessat(dfd, id, F_OK, AT_SYMLINK_NOFOLLOW) == 0) {
		fprintf(stderr, "confine: cannot remove session '%s'\n", id);
		return EXIT_CONFINE;
	}
	return 0;
}

/*
 * Does "drop --empty | --applied | --older-than | --all" take s?  The
 * states named add up; an age narrows them; a running session never.
 */
static bool
drop_selects(const struct cli_opts *o, const struct session_info *s,
    time_t now)
{
	bool any = o->all || (!o->drop_empty && !o->drop_applied);

	if (s->state == SESSION_RUNNING)
		return false;
	if (!any && !(o->drop_empty && s->state == SESSION_EMPTY) &&
	    !(o->drop_applied && s->state == SESSION_APPLIED))
		return false;
	return o->older_than < 0 || (s->started > 0 &&
	    (long long)now - s->started > o->older_than);
}

/* More than one session to drop: asked on a terminal, or --yes. */
static bool
drop_confirmed(const struct cli_opts *o, const struct session_info *v,
    const bool *sel, size_t n, size_t nsel)
{
	char answer[16] = "";
	size_t i;

	if (nsel < 2 || o->yes)
		return true;
	if (!isatty(STDIN_FILENO))
		die_hint(EXIT_CONFINE, 0, "'confine ls --all' lists them; add "
		    "--yes to drop them", "not dropping %zu sessions without a "
		    "terminal to ask on", nsel);
	for (i = 0; i < n; i++) {
		autofree char *ws = NULL;

		if (!sel[i])
			continue;
		ws = v[i].workspace ? term_sanitize(v[i].workspace,
		    strlen(v[i].workspace), 0) : xstrdup("?");
		fprintf(stderr, "  %s  %-12s  %s\n", v[i].id,
		    session_state_name(v[i].state), ws);
	}
	fprintf(stderr, "drop these %zu sessions? [y/N] ", nsel);
	return fgets(answer, sizeof(answer), stdin) != NULL &&
	    (answer[0] == 'y' || answer[0] == 'Y');
}

/* drop --empty | --applied | --older-than DURATION | --all [--yes]. */
static int
drop_selected(const struct cli_opts *o, const char *dir, int dfd)
{
	struct session_info *v;
	autofree bool *sel = NULL;
	size_t n, i, nsel = 0, dropped = 0;
	time_t now = time(NULL);
	int status = 0;

	v = session_list(dir, &n);
	sel = xcalloc(n + 1, sizeof(*sel));
	for (i = 0; i < n; i++)
		if ((sel[i] = drop_selects(o, &v[i], now)))
			nsel++;
	if (nsel == 0)
		log_msg("no session to drop");
	else if (!drop_confirmed(o, v, sel, n, nsel)) {
		fprintf(stderr, "nothing dropped\n");
		status = 1;
	} else {
		for (i = 0; i < n; i++)
			if (sel[i] && drop_one(dfd, v[i].id) == 0)
				dropped++;
			else if (sel[i])
				status = EXIT_CONFINE;
		log_msg("dropped %zu session%s", dropped,
		    dropped == 1 ? "" : "s");
	}
	session_list_free(v, n);
	return status;
}

int
session_drop(const struct cli_opts *o, char *const *env)
{
	autofree char *dir = sessions_dir(env);
	autoclose int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	size_t i;
	int status = 0;

	if (o->argv[0] == NULL)
		return drop_selected(o, dir, dfd);
	for (i = 0; o->argv[i]; i++)
		if (drop_one(dfd, o->argv[i]) != 0)
			status = EXIT_CONFINE;
	return status;
}

/*
 * How often stop looks whether the session ended, and how many times: for
 * its record while it is being set up (a copy of a large workspace), and
 * for its end (the grace, then the export of a large session).
 */
#define STOP_POLL_NS		(100 * 1000 * 1000L)
#define STOP_RECORD_POLLS	600		/* a minute */
#define STOP_END_POLLS		(30 * 600)	/* half an hour */

static void
stop_pause(void)
{
	struct timespec ts = { .tv_nsec = STOP_POLL_NS };

	nanosleep(&ts, NULL);
}

/* The session ended (stopped, or on its own): what it left, as a run's
 * end says it. */
static void
stop_said(const char *sdir, const char *id)
{
	struct stat st;

	if (lstat(sdir, &st) < 0) {
		log_msg("session %s ended: nothing to review, removed", id);
		return;
	}
	if (!has(sdir, "changes.patch")) {
		log_msg("session %s ended; its export did not happen", id);
		fprintf(stderr, "hint: 'confine show %s' exports it\n", id);
		return;
	}
	log_msg("session %s ended", id);
	fprintf(stderr, "  review: confine diff %s    apply: confine apply "
	    "%s\n", id, id);
}

int
session_stop(const struct cli_opts *o, char *const *env)
{
	const char *id = o->argv[0];
	autofree char *sdir = NULL;
	struct session_running r = { 0 };
	struct here w;
	struct stat st;
	int i, e;

	if (!session_id_ok(id))
		die("'%s' is not a session id", id);
	here_load(env, &w);
	sdir = path_join(w.store, id);
	here_free(&w);
	if (stat(sdir, &st) < 0)
		die_hint(EXIT_CONFINE, 0, "'confine ls --all' lists the "
		    "sessions", "no session '%s'", id);
	if (!session_is_running(sdir)) {
		fprintf(stderr, "confine: session %s is not running\n", id);
		return 1;
	}
	/* Its record comes once its sandbox started. */
	for (i = 0; (e = session_running_get(sdir, &r)) < 0; i++) {
		if (!session_is_running(sdir)) {
			stop_said(sdir, id);
			return 0;
		}
		if (e == -EIO)
			die("session %s: its running record is not one confine "
			    "wrote", id);
		if (i >= STOP_RECORD_POLLS)
			die("session %s runs, but names no process to stop (a "
			    "confine older than 'confine stop' runs it?)", id);
		stop_pause();
	}
	if (kill(r.supervisor, SESSION_STOP_SIGNAL) < 0 && errno != ESRCH) {
		if (errno == EPERM)
			die_hint(EXIT_CONFINE, 0, "only its own user (or root) "
			    "can stop it", "session %s: not allowed to signal "
			    "its confine (pid %d)", id, (int)r.supervisor);
		die_errno(errno, "session %s: cannot signal its confine (pid "
		    "%d)", id, (int)r.supervisor);
	}
	session_running_free(&r);
	for (i = 0; session_is_running(sdir); i++) {
		if (i >= STOP_END_POLLS)
			die("session %s still runs, half an hour after it was "
			    "asked to stop", id);
		stop_pause();
	}
	stop_said(sdir, id);
	return 0;
}

void
session_enter_opts(struct cli_opts *o, char *const *env, char ***keep)
{
	autofree char *sdir = pick(env, o->session_id);
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
	/* Its further workspaces named by options (a profile's come with
	 * the profile), in their order: each ws/N is the same again. */
	{
		const char *keys[] = { "more_ws", "ro_ws" };
		struct cli_list *l[] = { &o->more_ws, &o->ro_ws };

		for (i = 0; i < nitems(keys); i++) {
			char **v = session_meta_all(sdir, keys[i]);
			size_t j;

			for (j = 0; v && v[j]; j++) {
				l[i]->v = xreallocarray(l[i]->v, l[i]->n + 1,
				    sizeof(*l[i]->v));
				l[i]->v[l[i]->n++] = v[j];
				strv_push(keep, &n, v[j]);
			}
			free(v);
		}
	}
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

int
session_cap(char *const *env, uint64_t *ret, char **cause)
{
	const char *v = env_get(env, "CONFINE_SESSION_CAP");

	*ret = SESSION_CAP_DEFAULT;
	if (v == NULL || v[0] == '\0')
		return 0;
	if (session_size_parse(v, ret) < 0) {
		*cause = xasprintf("CONFINE_SESSION_CAP '%s': not a size (bytes, "
		    "or a number and K, M, G or T: 500M, 10G; 0: no cap)", v);
		return -1;
	}
	return 0;
}

/*
 * The store over the cap: drop its applied sessions, oldest first, until
 * it is not; say what went, and when that is not enough.
 */
static void
trim(const char *store, struct session_info *v, const uint64_t *use,
    size_t n, uint64_t total, uint64_t cap)
{
	autoclose int dfd = open(store, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	char size[32], limit[32];
	size_t i;

	session_size_format(cap, limit, sizeof(limit));
	for (i = 0; i < n && total > cap; i++) {
		if (v[i].state != SESSION_APPLIED || dfd < 0)
			continue;
		workspace_remove_tree(dfd, v[i].id);
		if (faccessat(dfd, v[i].id, F_OK, AT_SYMLINK_NOFOLLOW) == 0)
			continue;
		total -= use[i] < total ? use[i] : total;
		session_size_format(use[i], size, sizeof(size));
		log_msg("session %s dropped (applied, %s): the sessions took "
		    "more than %s (CONFINE_SESSION_CAP)", v[i].id, size, limit);
	}
	if (total <= cap)
		return;
	session_size_format(total, size, sizeof(size));
	log_warn("sessions: %s on disk, more than the cap of %s "
	    "(CONFINE_SESSION_CAP), and no applied session is left to drop",
	    size, limit);
	if (log_get_level() >= 0)
		fprintf(stderr, "hint: 'confine ls --all' lists them; 'confine "
		    "drop --empty' or 'confine drop --older-than 7d' frees "
		    "space\n");
}

void
session_settle(const char *session_dir, uint64_t cap)
{
	autofree char *store = xstrdup(session_dir);
	autofree uint64_t *use = NULL;
	struct session_info *v;
	uint64_t total = 0;
	struct stat st;
	size_t n, i;
	bool noted;

	*strrchr(store, '/') = '\0';
	if (lstat(session_dir, &st) < 0 || !S_ISDIR(st.st_mode))
		return;
	session_disk_note(session_dir);
	if (cap == 0)
		return;
	v = session_list(store, &n);
	use = xcalloc(n + 1, sizeof(*use));
	for (i = 0; i < n; i++) {
		use[i] = session_disk_use(v[i].dir, &noted);
		/* Walked once: a session of an older confine, or killed. */
		if (!noted && v[i].state != SESSION_RUNNING &&
		    v[i].state != SESSION_BROKEN)
			use[i] = session_disk_note(v[i].dir);
		total += use[i];
	}
	if (total > cap)
		trim(store, v, use, n, total, cap);
	session_list_free(v, n);
}
