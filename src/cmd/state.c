// SPDX-License-Identifier: ISC
/*
 * cmd/state.c - "confine state ls | show PROFILE | drop PROFILE": the
 * agent state kept for the profiles' persistent paths (run/agent-state.c
 * makes it; confine-profile(5), PERSISTENT SCRATCH).
 *
 * Runs in: the supervisor's process, outside any sandbox, after the
 * sessions.  The kept layers and copies hold what the commands wrote:
 * their names are untrusted, shown through untrusted_display(), walked
 * by fd without following a symlink, their contents compared with the
 * host's through fixed buffers.
 * MUST: never write to the host's files of a persistent path.
 * MUST: drop a state only while holding its lock: never under a session.
 */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <time.h>
#include <unistd.h>

#include "cmd/state.h"
#include "input/host-probe.h"
#include "input/profile.h"
#include "lib/fdio.h"
#include "lib/log.h"
#include "lib/untrusted.h"
#include "lib/util.h"
#include "run/agent-state.h"
#include "run/session-dir.h"
#include "store/session-store.h"

/* Deeper than any agent's state; a tree past it is not walked further. */
#define DEPTH_MAX	128

/* The state directory and the host's facts it needs. */
struct where {
	char	*root;		/* STATE/confine/state */
	char	*home;
};

static void
where_get(char *const *env, struct where *w)
{
	struct host h;
	autofree char *cause = NULL;

	if (probe_host(env, NULL, &h, &cause) < 0)
		die("%s", cause);
	w->root = path_join(h.state_home, "confine/state");
	w->home = xstrdup(h.home);
	host_free(&h);
}

static void
where_free(struct where *w)
{
	free(w->root);
	free(w->home);
}

/* The bytes a tree takes, not following links. */
/* The disk a tree takes (the walk confine ls makes of a session). */
static char *
human(int at, const char *name)
{
	uint64_t n = session_disk_walk(at, name);

	if (n < 1024 * 1024)
		return xasprintf("%llu KiB", (unsigned long long)(n + 1023) /
		    1024);
	if (n < 1024ULL * 1024 * 1024)
		return xasprintf("%.1f MiB", (double)n / (1024 * 1024));
	return xasprintf("%.1f GiB", (double)n / (1024 * 1024 * 1024));
}

/* The session holding the state's lock now, or NULL: free. */
static char *
holder(int sfd)
{
	autoclose int fd = -1;
	autofree char *text = NULL;

	if ((fd = openat(sfd, AGENT_STATE_LOCK, O_RDONLY | O_NOFOLLOW |
	    O_CLOEXEC)) < 0 || flock(fd, LOCK_SH | LOCK_NB) == 0 ||
	    errno != EWOULDBLOCK)
		return NULL;
	if (fd_read_all(fd, 64, &text) <= 0 || text[0] == '\n')
		return xstrdup("another session");
	text[strcspn(text, "\n")] = '\0';
	if (strspn(text, "0123456789abcdef.-") != strlen(text))
		return xstrdup("another session");
	return xasprintf("session %s", text);
}

/* "2026-12-02 14:05" of the lock's last write: the state's last use. */
static void
last_use(int sfd, char buf[32])
{
	struct stat st;
	struct tm tm;

	if (fstatat(sfd, AGENT_STATE_LOCK, &st, AT_SYMLINK_NOFOLLOW) < 0) {
		snprintf(buf, 32, "never");
		return;
	}
	localtime_r(&st.st_mtime, &tm);
	strftime(buf, 32, "%Y-%m-%d %H:%M", &tm);
}

/* A name as a profile's state may have (policy_state_dir()). */
static void
check_name(const char *name)
{
	if (!profile_name_ok(name))
		die_hint(EXIT_CONFINE, 0, "'confine state ls' lists them",
		    "'%s' is not a profile's name", name);
}

int
state_ls(char *const *env)
{
	struct where w = { 0 };
	struct dirent **v = NULL;
	int n, i;

	where_get(env, &w);
	if ((n = scandir(w.root, &v, NULL, alphasort)) < 0) {
		if (errno != ENOENT)
			die_errno(errno, "state: cannot read '%s'", w.root);
		n = 0;
	}
	if (n <= 2)
		log_msg("no agent state kept (a profile's persistent paths "
		    "keep it: confine-profile(5))");
	else
		printf("%-20s %10s  %-16s  %s\n", "PROFILE", "SIZE",
		    "LAST USE", "IN USE");
	for (i = 0; i < n; i++) {
		const char *name = v[i]->d_name;
		autofree char *size = NULL, *busy = NULL;
		autoclose int sfd = -1;
		char when[32];

		if (name[0] != '.' && profile_name_ok(name) &&
		    (sfd = openat(AT_FDCWD, w.root, O_RDONLY | O_DIRECTORY |
		    O_CLOEXEC)) >= 0) {
			int fd = openat(sfd, name, O_RDONLY | O_DIRECTORY |
			    O_NOFOLLOW | O_CLOEXEC);

			if (fd >= 0) {
				size = human(sfd, name);
				close(sfd);
				sfd = fd;
				last_use(sfd, when);
				busy = holder(sfd);
				printf("%-20s %10s  %-16s  %s\n", name, size,
				    when, busy ? busy : "-");
			}
		}
		free(v[i]);
	}
	free(v);
	where_free(&w);
	return 0;
}

/* Do two open files hold the same bytes? */
static bool
same_bytes(int a, int b)
{
	char x[65536], y[65536];
	ssize_t n, m;

	for (;;) {
		if ((n = read(a, x, sizeof(x))) < 0 ||
		    (m = read(b, y, n > 0 ? (size_t)n : 1)) < 0)
			return false;
		if (n == 0)
			return m == 0;
		if (m != n || memcmp(x, y, (size_t)n) != 0)
			return false;
	}
}

static void
say(const char *what, const char *untrusted_rel)
{
	autofree char *shown = untrusted_display(untrusted_wrap(untrusted_rel,
	    strlen(untrusted_rel)), 0);

	if (shown[0] == '\0')
		printf("  %s\n", what);	/* the kept file itself */
	else
		printf("  %-8s %s\n", what, shown);
}

/*
 * The kept file at fd (name in at) against the host's at host:
 * changed, added (not on the host), or nothing said when the same.
 */
static void
compare_file(int at, const char *name, const struct stat *st,
    const char *host, const char *untrusted_rel)
{
	autoclose int a = -1, b = -1;
	struct stat hs;
	char x[PATH_MAX], y[PATH_MAX];
	ssize_t n, m;

	if (lstat(host, &hs) < 0) {
		say("added", untrusted_rel);
		return;
	}
	if (S_ISLNK(st->st_mode)) {
		n = readlinkat(at, name, x, sizeof(x));
		m = S_ISLNK(hs.st_mode) ? readlink(host, y, sizeof(y)) : -1;
		if (n < 0 || m != n || memcmp(x, y, (size_t)n) != 0)
			say("changed", untrusted_rel);
		return;
	}
	if (!S_ISREG(hs.st_mode) || hs.st_size != st->st_size ||
	    (a = openat(at, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC)) < 0 ||
	    (b = open(host, O_RDONLY | O_NOFOLLOW | O_CLOEXEC)) < 0 ||
	    !same_bytes(a, b))
		say("changed", untrusted_rel);
}

/*
 * Walk a kept tree (native's layer or a copy), saying what differs from
 * the host's tree at host.  A layer's whiteout (a 0/0 character device)
 * is a removal; a copy's removals are not seen (it lacks the hidden
 * paths too).
 */
static void
walk_kept(int at, const char *name, const char *host,
    const char *untrusted_rel, bool layer, int depth)
{
	struct stat st;
	struct dirent *e;
	DIR *d;
	int fd;

	if (fstatat(at, name, &st, AT_SYMLINK_NOFOLLOW) < 0)
		return;
	if (layer && S_ISCHR(st.st_mode) && st.st_rdev == makedev(0, 0)) {
		say("removed", untrusted_rel);
		return;
	}
	if (!S_ISDIR(st.st_mode)) {
		if (S_ISREG(st.st_mode) || S_ISLNK(st.st_mode))
			compare_file(at, name, &st, host, untrusted_rel);
		return;
	}
	if (depth > DEPTH_MAX || (fd = openat(at, name, O_RDONLY |
	    O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)) < 0)
		return;
	if ((d = fdopendir(fd)) == NULL) {
		close(fd);
		return;
	}
	while ((e = readdir(d)) != NULL) {
		autofree char *h = NULL, *r = NULL;

		if (streq(e->d_name, ".") || streq(e->d_name, ".."))
			continue;
		h = path_join(host, e->d_name);
		r = untrusted_rel[0] ? xasprintf("%s/%s", untrusted_rel,
		    e->d_name) : xstrdup(e->d_name);
		walk_kept(dirfd(d), e->d_name, h, r, layer, depth + 1);
	}
	closedir(d);
}

/* One entry of the state: its path, how it is kept, what changed. */
static void
show_entry(int sfd, const char *entry, const char *home)
{
	autoclose int efd = -1, pfd = -1;
	autofree char *path = NULL;
	struct stat st;
	bool layer;

	if ((efd = openat(sfd, entry, O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
	    O_CLOEXEC)) < 0 || (pfd = openat(efd, AGENT_STATE_PATH,
	    O_RDONLY | O_NOFOLLOW | O_CLOEXEC)) < 0 ||
	    fd_read_all(pfd, PATH_MAX, &path) <= 0 || path[0] != '/' ||
	    strchr(path, '\n'))
		return;
	layer = fstatat(efd, "upper", &st, AT_SYMLINK_NOFOLLOW) == 0;
	if (path_has_prefix(path, home))
		printf("~%s", path + strlen(home));
	else
		printf("%s", path);
	if (layer)
		printf(" (native: a layer over the host's)\n");
	if (layer)
		walk_kept(efd, "upper", path, "", true, 0);
	if (fstatat(efd, "copy", &st, AT_SYMLINK_NOFOLLOW) == 0) {
		printf("%s(%sa copy of the host's, made at its first "
		    "session)\n", layer ? "  and " : " ", S_ISREG(st.st_mode) ?
		    "" : "bwrap and landlock: ");
		walk_kept(efd, "copy", path, "", false, 0);
	} else if (!layer)
		printf(" (nothing kept yet)\n");
}

int
state_show(const struct cli_opts *o, char *const *env)
{
	struct where w = { 0 };
	autofree char *dir = NULL, *size = NULL, *busy = NULL;
	autoclose int sfd = -1;
	struct dirent **v = NULL;
	char when[32];
	int n, i;

	check_name(o->argv[0]);
	where_get(env, &w);
	dir = path_join(w.root, o->argv[0]);
	if ((sfd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
	    O_CLOEXEC)) < 0) {
		if (errno == ENOENT)
			die_hint(EXIT_CONFINE, 0, "'confine state ls' lists "
			    "them", "no state kept for profile '%s'",
			    o->argv[0]);
		die_errno(errno, "state: cannot open '%s'", dir);
	}
	{
		autoclose int up = open(w.root, O_RDONLY | O_DIRECTORY |
		    O_CLOEXEC);

		size = up >= 0 ? human(up, o->argv[0]) : xstrdup("0 KiB");
	}
	last_use(sfd, when);
	busy = holder(sfd);
	printf("state of %s: %s (%s, last used %s%s%s)\n", o->argv[0], dir,
	    size, when, busy ? "; in use by " : "", busy ? busy : "");
	if ((n = scandirat(sfd, ".", &v, NULL, alphasort)) < 0)
		die_errno(errno, "state: cannot read '%s'", dir);
	for (i = 0; i < n; i++) {
		if (strspn(v[i]->d_name, "0123456789abcdef") == 16 &&
		    v[i]->d_name[16] == '\0')
			show_entry(sfd, v[i]->d_name, w.home);
		free(v[i]);
	}
	free(v);
	where_free(&w);
	return 0;
}

int
state_drop(const struct cli_opts *o, char *const *env)
{
	struct where w = { 0 };
	autofree char *dir = NULL, *size = NULL, *busy = NULL;
	autoclose int up = -1, sfd = -1, lock = -1;
	const char *name = o->argv[0];
	struct dirent **v = NULL;
	int n, i;

	check_name(name);
	where_get(env, &w);
	dir = path_join(w.root, name);
	if ((up = open(w.root, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0 ||
	    (sfd = openat(up, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
	    O_CLOEXEC)) < 0) {
		if (errno == ENOENT)
			die_hint(EXIT_CONFINE, 0, "'confine state ls' lists "
			    "them", "no state kept for profile '%s'", name);
		die_errno(errno, "state: cannot open '%s'", dir);
	}
	/* Held through the removal: no session starts on half a state. */
	if ((lock = openat(sfd, AGENT_STATE_LOCK, O_RDWR | O_CREAT |
	    O_NOFOLLOW | O_CLOEXEC, 0600)) < 0)
		die_errno(errno, "state: cannot open the lock in '%s'", dir);
	if (flock(lock, LOCK_EX | LOCK_NB) < 0) {
		busy = holder(sfd);
		die_hint(EXIT_CONFINE, 0, "drop it once that session has "
		    "ended", "state of %s in use by %s", name, busy ? busy :
		    "another session");
	}
	size = human(up, name);
	if (!o->yes) {
		char answer[16] = "";

		if (!isatty(STDIN_FILENO))
			die_hint(EXIT_CONFINE, 0, "run 'confine state drop "
			    "--yes PROFILE'", "not dropping the state of %s "
			    "without a terminal to ask on", name);
		fprintf(stderr, "drop the agent state of %s (%s in %s)? the "
		    "next session starts from the host's files [y/N] ", name,
		    size, dir);
		if (fgets(answer, sizeof(answer), stdin) == NULL ||
		    (answer[0] != 'y' && answer[0] != 'Y')) {
			fprintf(stderr, "not dropped\n");
			return 1;
		}
	}
	/* The entries first, the lock last: then the directory itself. */
	if ((n = scandirat(sfd, ".", &v, NULL, NULL)) < 0)
		die_errno(errno, "state: cannot read '%s'", dir);
	for (i = 0; i < n; i++) {
		if (!streq(v[i]->d_name, ".") && !streq(v[i]->d_name, "..") &&
		    !streq(v[i]->d_name, AGENT_STATE_LOCK))
			workspace_remove_tree(sfd, v[i]->d_name);
		free(v[i]);
	}
	free(v);
	unlinkat(sfd, AGENT_STATE_LOCK, 0);
	if (unlinkat(up, name, AT_REMOVEDIR) < 0)
		die_errno(errno, "state: cannot remove all of '%s'", dir);
	log_msg("dropped the agent state of %s (%s)", name, size);
	where_free(&w);
	return 0;
}
