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

#include "cmd/sessions.h"
#include "input/host-probe.h"
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

/* Bytes at the end of buf[len] that may start a cut UTF-8 sequence. */
static size_t
cut_utf8(const unsigned char *buf, size_t len)
{
	size_t back, need;

	for (back = 1; back <= 3 && back <= len; back++) {
		unsigned char c = buf[len - back];

		if ((c & 0xc0) == 0x80)
			continue;
		need = c >= 0xf0 ? 4 : c >= 0xe0 ? 3 : c >= 0xc0 ? 2 : 1;
		return need > back ? back : 0;
	}
	return 0;
}

/*
 * Copy a file of the session (agent data: patch text, file names, commit
 * messages) to out: exact bytes, or sanitised for a terminal; never more
 * than MAX_SHOWN.
 */
static void
print_fd(int fd, FILE *out, bool safe)
{
	char chunk[65536];
	size_t total = 0, nc = 0;
	ssize_t n;

	while (total < MAX_SHOWN && (n = read(fd, chunk + nc, sizeof(chunk) -
	    nc)) > 0) {
		size_t len = nc + (size_t)n, keep;
		autofree char *clean = NULL;

		total += (size_t)n;
		if (!safe) {
			fwrite(chunk, 1, len, out);
			continue;
		}
		/* A UTF-8 sequence cut by the chunk: whole, in the next. */
		keep = cut_utf8((unsigned char *)chunk, len);
		clean = term_sanitize(chunk, len - keep, 1);
		fputs(clean, out);
		memmove(chunk, chunk + len - keep, keep);
		nc = keep;
	}
	if (nc > 0) {
		autofree char *clean = term_sanitize(chunk, nc, 1);

		fputs(clean, out);
	}
	if (total >= MAX_SHOWN)
		fprintf(out, "\n[confine: cut at %lu MiB]\n", MAX_SHOWN >> 20);
}

static void
print_file(int dirfd, const char *name, FILE *out, bool safe)
{
	autoclose int fd = openat(dirfd, name, O_RDONLY | O_NOFOLLOW |
	    O_CLOEXEC | O_NONBLOCK);

	if (fd < 0)
		die_errno(errno, "cannot read '%s'", name);
	print_fd(fd, out, safe);
}

static void
print_sanitized(const char *path, FILE *out)
{
	print_file(AT_FDCWD, path, out, true);
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

/* NNNN.meta then NNNN.patch, for each commit of commits/, in order. */
static void
print_commits(const char *sdir, FILE *out, bool safe)
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

		fprintf(out, "commit %.4s\n", metas[i]);
		print_file(fd, metas[i], out, safe);
		fprintf(out, "\n");
		print_file(fd, patch, out, safe);
	}
}

/* The pager and the pipe to its stdin. */
struct pager {
	FILE	*in;
	pid_t	 pid;
};

/*
 * The user's pager, reading sanitised bytes from a pipe, run by sh -c as
 * popen(3) would; less -FX when $PAGER is unset, stdout when there is
 * none.  Never anything of the session's: the environment is the user's
 * own.
 */
static bool
pager_open(struct pager *pg)
{
	const char *p = getenv("PAGER");
	struct spawn_opts o = SPAWN_OPTS_INIT;
	char *argv[] = { (char *)"sh", (char *)"-c", NULL, NULL };
	int fds[2];

	if (p && p[0] != '\0')
		argv[2] = (char *)p;
	else if (access("/usr/bin/less", X_OK) == 0)
		argv[2] = (char *)"/usr/bin/less -FX";
	else
		return false;
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
	struct pager pg;
	FILE *out = stdout;

	if (ensure_export(sdir) < 0)
		die("session '%s': cannot export its changes", sdir);
	/* Exact bytes for a pipe or file: "git apply" takes them. */
	if (tty && (paged = pager_open(&pg)))
		out = pg.in;
	if (o->commits)
		print_commits(sdir, out, tty);
	else
		print_file(AT_FDCWD, patch, out, tty);
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
