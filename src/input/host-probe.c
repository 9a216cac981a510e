// SPDX-License-Identifier: ISC
/*
 * input/host-probe.c - read-only facts about the host.
 *
 * Runs in: the supervisor, before the plan is computed.
 * MUST: change nothing on the host.
 */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <pwd.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/syscall.h>
#include <sys/sysinfo.h>
#include <sys/wait.h>
#include <unistd.h>

#include "input/bwrap-cache.h"
#include "input/host-probe.h"
#include "lib/env.h"
#include "lib/fdio.h"
#include "lib/spawn.h"
#include "lib/sys.h"
#include "lib/term-escape.h"
#include "lib/util.h"

/* Bounds on what is read from the host's / and /etc. */
#define ROOT_LINKS_MAX	64
#define ETC_SCAN_MAX	100000
#define ETC_PRIVATE_MAX	1024

#define STR_(x)		#x
#define STR(x)		STR_(x)

/* The real path of a directory; relative only when relative_ok. */
static char *
resolve_dir(const char *p, bool relative_ok)
{
	char *r;
	struct stat st;

	if (p == NULL || p[0] == '\0' || (p[0] != '/' && !relative_ok) ||
	    (r = realpath(p, NULL)) == NULL)
		return NULL;
	if (stat(r, &st) < 0 || !S_ISDIR(st.st_mode)) {
		free(r);
		return NULL;
	}
	return r;
}

char *
probe_git_top(const char *dir)
{
	autofree char *d = xstrdup(dir);

	for (;;) {
		autofree char *g = path_join(d, ".git");
		char *slash;

		if (access(g, F_OK) == 0)
			return steal_ptr(&d);
		if (streq(d, "/"))
			return NULL;
		slash = strrchr(d, '/');
		if (slash == d)
			slash[1] = '\0';
		else
			*slash = '\0';
	}
}

/*
 * Pathname sockets bound on the host (this network namespace's view), from
 * /proc/net/unix: "Num RefCount Protocol Flags Type St Inode Path".  Each
 * is resolved to the socket it names now; stale entries are dropped.
 */
static char **
unix_sockets(void)
{
	AUTO(fclose_p) FILE *f = NULL;
	autofree char *line = NULL;
	size_t cap = 0, n = 0, i;
	char **v = xcalloc(1, sizeof(*v));

	if ((f = fopen("/proc/net/unix", "re")) == NULL)
		return v;
	while (getline(&line, &cap, f) > 0) {
		char *p = line, *real;
		struct stat st;
		int field;

		for (field = 0; field < 7 && p; field++) {
			p = strchr(p, ' ');
			while (p && *p == ' ')
				p++;
		}
		if (p == NULL || *p != '/')
			continue;
		p[strcspn(p, "\n")] = '\0';
		if ((real = realpath(p, NULL)) == NULL)
			continue;
		if (stat(real, &st) < 0 || !S_ISSOCK(st.st_mode)) {
			free(real);
			continue;
		}
		for (i = 0; i < n && !streq(v[i], real); i++)
			;
		if (i < n)
			free(real);
		else
			strv_push(&v, &n, real);
	}
	return v;
}

/* Symlinks directly under /, as pairs: /bin, usr/bin (a merged /usr). */
static char **
root_links(void)
{
	char **v = xcalloc(1, sizeof(*v));
	DIR *d;
	struct dirent *e;
	size_t n = 0;

	if ((d = opendir("/")) == NULL)
		return v;
	while ((e = readdir(d)) != NULL && n < 2 * ROOT_LINKS_MAX) {
		autofree char *path = path_join("/", e->d_name);
		char target[PATH_MAX];
		ssize_t len;

		if (e->d_type != DT_LNK && e->d_type != DT_UNKNOWN)
			continue;
		if ((len = readlink(path, target, sizeof(target) - 1)) < 0)
			continue;
		target[len] = '\0';
		strv_push(&v, &n, steal_ptr(&path));
		strv_push(&v, &n, xstrdup(target));
	}
	closedir(d);
	return v;
}

/*
 * The entries under dir (a path under /etc) that the world cannot read:
 * a file without o+r, a directory without o+r or o+x (not descended into).
 * Symlinks are judged where they point.  Bounded: past ETC_SCAN_MAX
 * entries, or ETC_PRIVATE_MAX private ones, the scan fails (-E2BIG).
 */
static int
etc_scan(int fd, const char *dir, char ***v, size_t *n, size_t *seen,
    int depth)
{
	DIR *d;
	struct dirent *e;
	int r = 0;

	if (depth > 32)
		return -ELOOP;
	if ((d = fdopendir(fd)) == NULL) {
		close(fd);
		return -errno;
	}
	while (r == 0 && (e = readdir(d)) != NULL) {
		autofree char *path = NULL;
		struct stat st;
		int sub;

		if (streq(e->d_name, ".") || streq(e->d_name, ".."))
			continue;
		if (++*seen > ETC_SCAN_MAX) {
			r = -E2BIG;
			break;
		}
		if (fstatat(dirfd(d), e->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0)
			continue;	/* gone meanwhile */
		if (S_ISLNK(st.st_mode))
			continue;
		path = path_join(dir, e->d_name);
		if (!(st.st_mode & S_IROTH) || (S_ISDIR(st.st_mode) &&
		    !(st.st_mode & S_IXOTH))) {
			if (*n >= ETC_PRIVATE_MAX) {
				r = -E2BIG;
				break;
			}
			strv_push(v, n, steal_ptr(&path));
			continue;
		}
		if (!S_ISDIR(st.st_mode))
			continue;
		if ((sub = openat(dirfd(d), e->d_name, O_RDONLY | O_DIRECTORY |
		    O_NOFOLLOW | O_CLOEXEC)) < 0)
			continue;
		r = etc_scan(sub, path, v, n, seen, depth + 1);
	}
	closedir(d);
	return r;
}

void
probe_etc_private(struct host *h)
{
	size_t n = 0, seen = 0;
	int fd, r;

	strv_free(h->etc_private);
	free(h->etc_why);
	h->etc_why = NULL;
	h->etc_private = xcalloc(1, sizeof(char *));
	if ((fd = open("/etc", O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0)
		r = -errno;
	else
		r = etc_scan(fd, "/etc", &h->etc_private, &n, &seen, 0);
	if (r < 0)
		h->etc_why = r == -E2BIG ? xasprintf("more than %d entries, or "
		    "more than %d of them not world-readable", ETC_SCAN_MAX,
		    ETC_PRIVATE_MAX) : xasprintf("%s", strerror(-r));
}

static int
landlock_abi(int *err)
{
	int abi = sys_landlock_create_ruleset(NULL, 0,
	    CONFINE_LL_CREATE_RULESET_VERSION);

	if (abi < 0) {
		*err = errno;
		return 0;
	}
	*err = 0;
	return abi;
}

/* The first number in a /proc/sys file, or -1. */
static long
sysctl_num(const char *path)
{
	char buf[32];
	ssize_t n;
	autoclose int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0 || (n = read(fd, buf, sizeof(buf) - 1)) <= 0)
		return -1;
	buf[n] = '\0';
	return strtol(buf, NULL, 10);
}

/*
 * Can this user create user namespaces?  The knobs that say no: the
 * namespace limit, Debian's and Ubuntu's switches for unprivileged users.
 * A container's seccomp filter is found only by trying:
 * probe_userns_trial().
 */
char *
probe_userns_why(uid_t uid)
{
	if (sysctl_num("/proc/sys/user/max_user_namespaces") == 0)
		return xstrdup("user.max_user_namespaces is 0");
	if (uid == 0)
		return NULL;
	if (sysctl_num("/proc/sys/kernel/unprivileged_userns_clone") == 0)
		return xstrdup("kernel.unprivileged_userns_clone is 0");
	if (sysctl_num("/proc/sys/kernel/apparmor_restrict_unprivileged_userns")
	    == 1)
		return xstrdup("kernel.apparmor_restrict_unprivileged_userns "
		    "is 1 (AppArmor takes the capabilities of the user "
		    "namespaces of unconfined programs)");
	return NULL;
}

/*
 * When the sysctls say yes, does creating one work?  A container's seccomp
 * filter (Docker's default, for one) refuses clone(2) with CLONE_NEWUSER,
 * which no sysctl shows.  One throwaway child, cloned into a new user
 * namespace, that exits at once: the answer is clone's own return.  See
 * user_namespaces(7).  Any other error (ENOMEM, EAGAIN) is no verdict:
 * native is chosen, and its start says what failed.  Only a process under
 * a seccomp filter can meet such a filter: without one (PR_GET_SECCOMP is
 * 0, the usual host) the trial, a few milliseconds of every launch, is
 * skipped.
 */
void
probe_userns_trial(struct host *h)
{
	pid_t pid;
	int err;

	if (h->userns_why || prctl(PR_GET_SECCOMP, 0, 0, 0, 0) == 0)
		return;
	pid = (pid_t)syscall(SYS_clone, (unsigned long)(CLONE_NEWUSER |
	    SIGCHLD), NULL, NULL, NULL, 0);
	if (pid == 0)
		_exit(0);
	if (pid > 0) {
		waitpid(pid, NULL, 0);
		return;
	}
	err = errno;
	if (err == EPERM || err == ENOSPC || err == EUSERS || err == EINVAL ||
	    err == EACCES)
		h->userns_why = xstrdup("creating them fails (a container's "
		    "seccomp filter, or a sysctl)");
}

/* Run argv (no shell, no environment, output to a pipe); its status. */
static int
run_quiet(const char *const *argv, char *out, size_t outlen)
{
	autoclose int devnull = open("/dev/null", O_RDWR | O_CLOEXEC);
	struct spawn_opts o = SPAWN_OPTS_INIT;
	char *const no_env[] = { NULL };
	size_t len = 0;
	int status;

	o.in = devnull;
	o.envp = no_env;
	/* At most outlen - 1 bytes: a version line is all we look at. */
	status = spawn_capture(argv[0], (char *const *)argv, &o, true, out,
	    outlen - 1, &len);
	out[len] = '\0';
	return status < 0 ? -1 : status;
}

void
probe_bwrap_found(struct host *h)
{
	struct stat st;

	if (stat(BWRAP_PATH, &st) == 0 && S_ISREG(st.st_mode) &&
	    access(BWRAP_PATH, X_OK) == 0) {
		h->bwrap.found = true;
		h->bwrap.setuid = (st.st_mode & S_ISUID) && st.st_uid == 0;
		h->bwrap.st = st;
	}
}

/* bwrap's probe sandbox: bwrap [userns options] ... cat status. */
static int
bwrap_try(bool unshare_user, bool disable_userns, char *out, size_t len)
{
	const char *argv[20];
	int n = 0;

	argv[n++] = BWRAP_PATH;
	argv[n++] = "--unshare-all";
	if (unshare_user)
		argv[n++] = "--unshare-user";
	if (disable_userns)
		argv[n++] = "--disable-userns";
	argv[n++] = "--cap-drop";
	argv[n++] = "ALL";
	argv[n++] = "--ro-bind";
	argv[n++] = "/";
	argv[n++] = "/";
	argv[n++] = "--proc";
	argv[n++] = "/proc";
	argv[n++] = "--dev";
	argv[n++] = "/dev";
	argv[n++] = "--";
	argv[n++] = "/bin/cat";
	argv[n++] = "/proc/self/status";
	argv[n] = NULL;
	return run_quiet(argv, out, len);
}

void
probe_bwrap_note(const struct host *h)
{
	if (h->bwrap.note_due && h->state_home)
		bwrap_cache_put(h->state_home, &h->bwrap.st, h->bwrap.major,
		    h->bwrap.minor);
}

void
probe_bwrap(struct host *h, bool trial)
{
	char out[4096];
	/* A setuid bwrap makes its namespaces as root, without these. */
	bool unshare_user = h->userns_why == NULL && !h->bwrap.setuid;
	int status, major = 0, minor = 0;

	if (!h->bwrap.found || h->bwrap.probed)
		return;
	h->bwrap.probed = true;
	if (!trial) {
		/* Asked for by name: its version is enough; a bwrap that
		 * cannot confine here fails at the start, and says why.  The
		 * version is asked once per binary (input/bwrap-cache.c). */
		if (h->state_home == NULL || bwrap_cache_get(h->state_home,
		    &h->bwrap.st, &major, &minor) < 0) {
			if (run_quiet((const char *[]){ BWRAP_PATH,
			    "--version", NULL }, out, sizeof(out)) != 0 ||
			    sscanf(out, "bubblewrap %d.%d", &major,
			    &minor) != 2)
				h->bwrap.why = xasprintf("%s --version fails",
				    BWRAP_PATH);
			else {
				h->bwrap.major = major;
				h->bwrap.minor = minor;
				h->bwrap.note_due = true;
			}
		}
		h->bwrap.disable_userns = unshare_user && (major > 0 ||
		    minor >= 8);
		return;
	}
	/*
	 * One sandbox, as small as can be, the way the backend will ask for
	 * it: can bwrap make one here, and does it take every capability
	 * away (as uid 0 without a user namespace, it keeps the bounding
	 * set)?  --disable-userns is tried first; bwrap before 0.8 has not.
	 */
	status = bwrap_try(unshare_user, unshare_user, out, sizeof(out));
	h->bwrap.disable_userns = unshare_user;
	if (status != 0 && unshare_user &&
	    strstr(out, "--disable-userns") != NULL) {
		h->bwrap.disable_userns = false;
		status = bwrap_try(unshare_user, false, out, sizeof(out));
	}
	if (status != 0) {
		out[strcspn(out, "\n")] = '\0';
		h->bwrap.why = xasprintf("%s cannot build a sandbox here: %s",
		    BWRAP_PATH, out[0] ? out : "no message");
	} else if (strstr(out, "CapBnd:\t0000000000000000\n") == NULL)
		h->bwrap.why = xasprintf("%s leaves capabilities in the bounding "
		    "set here (uid 0 without a user namespace)", BWRAP_PATH);
}

static char *
resolve_dir_abs(const char *p)
{
	return resolve_dir(p, false);
}

/*
 * The keys /proc/keys shows this user that are not the kernel's own
 * keyrings (_uid.N, _ses, .builtin_trusted_keys, ...): a key of any type,
 * or a keyring named by a program.  Only their names would show, but the
 * landlock backend cannot hide the file (confine(1)).  Bounded: 64 KiB.
 */
int
probe_keys_shown(void)
{
	char buf[65536], type[32], *line, *save = NULL;
	int fd, n = 0, at;
	ssize_t len;

	if ((fd = open("/proc/keys", O_RDONLY | O_CLOEXEC)) < 0)
		return 0;
	len = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (len <= 0)
		return 0;
	buf[len] = '\0';
	for (line = strtok_r(buf, "\n", &save); line;
	    line = strtok_r(NULL, "\n", &save)) {
		at = 0;
		if (sscanf(line, "%*s %*s %*s %*s %*s %*s %*s %31s %n", type,
		    &at) != 1 || at == 0)
			continue;
		if (!streq(type, "keyring") ||
		    (line[at] != '_' && line[at] != '.'))
			n++;
	}
	return n;
}

const char *
probe_git_value_why(const char *v, size_t len)
{
	autofree char *shown = NULL;

	if (len == 0)
		return "it is empty";
	if (len > HOST_GIT_IDENT_MAX)
		return "it is longer than " STR(HOST_GIT_IDENT_MAX)
		    " bytes";
	if (memchr(v, '\0', len) != NULL)
		return "it holds a NUL";
	if (memchr(v, '<', len) != NULL || memchr(v, '>', len) != NULL)
		return "it holds '<' or '>', which delimit the email in a "
		    "commit";
	/* Printable UTF-8 is what the terminal sanitiser keeps as it is. */
	shown = term_sanitize(v, len, 0);
	if (strlen(shown) != len || memcmp(shown, v, len) != 0)
		return "it holds a control character (a newline, say), "
		    "invalid UTF-8 or an invisible character";
	return NULL;
}

/*
 * GIT_PATH config --includes --null --get-regexp of user.name and
 * user.email, from /, in envp: one process for both (it is on every
 * launch), the global files only, as git reads them (both ~/.gitconfig
 * and $XDG_CONFIG_HOME/git/config, where --global reads only the first
 * of them that exists, in git 2.39 at least), never the system's
 * (GIT_CONFIG_NOSYSTEM) or a repository's (GIT_DIR names none, so none
 * is looked for).  Its wait status, or -1 when it did not run; *ret_len
 * bytes of its output in out (at most outlen: more is too long).
 */
static int
git_config_get(char *const *envp, char *out, size_t outlen, size_t *ret_len)
{
	const char *const argv[] = { GIT_PATH, "-C", "/", "config",
	    "--includes", "--null", "--get-regexp",
	    "^user\\.(name|email)$", NULL };
	autoclose int devnull = open("/dev/null", O_RDWR | O_CLOEXEC);
	struct spawn_opts o = SPAWN_OPTS_INIT;
	int status;

	if (devnull < 0)
		return -1;
	o.in = o.err = devnull;
	o.envp = envp;
	status = spawn_capture(GIT_PATH, (char *const *)argv, &o, false, out,
	    outlen, ret_len);
	return status < 0 ? -1 : status;
}

/* *why appended to: "KEY: BAD". */
static void
git_refuse(char **why, const char *key, const char *bad)
{
	char *w = xasprintf("%s%s%s: %s", *why ? *why : "", *why ? "; " : "",
	    key, bad);

	free(*why);
	*why = w;
}

/*
 * The value of key in git's answer ("KEY\nVALUE\0" an entry; the last
 * entry of a key wins, as with --get): NULL when unset or refused.
 */
static char *
git_value(const char *out, size_t len, const char *key, char **why)
{
	const char *e = out, *end = out + len, *nl, *nul, *v = NULL;
	size_t klen = strlen(key), vlen = 0;
	const char *bad;

	while (e < end && (nul = memchr(e, '\0', (size_t)(end - e)))) {
		if ((nl = memchr(e, '\n', (size_t)(nul - e))) != NULL &&
		    (size_t)(nl - e) == klen && memcmp(e, key, klen) == 0) {
			v = nl + 1;
			vlen = (size_t)(nul - v);
		}
		e = nul + 1;
	}
	if (v == NULL)
		return NULL;
	if ((bad = probe_git_value_why(v, vlen)) != NULL) {
		git_refuse(why, key, bad);
		return NULL;
	}
	return xstrndup(v, vlen);
}

int
probe_git_run(const struct host *h, char *const *env, struct git_answer *ret)
{
	autofree char *home = xasprintf("HOME=%s", h->home);
	autofree char *xdg = xasprintf("XDG_CONFIG_HOME=%s", h->config_home);
	autofree char *global = NULL;
	char *envp[6] = { home, xdg, NULL, NULL, NULL, NULL };
	const char *s;
	size_t n = 2;

	if (access(GIT_PATH, X_OK) < 0)
		return -1;
	/* The user's own choice of global file (git 2.32). */
	if ((s = env_get(env, "GIT_CONFIG_GLOBAL")) != NULL && s[0] != '\0') {
		global = xasprintf("GIT_CONFIG_GLOBAL=%s", s);
		envp[n++] = global;
	}
	envp[n++] = (char *)"GIT_CONFIG_NOSYSTEM=1";
	/* Not a repository: git looks for none, reads no local scope. */
	envp[n++] = (char *)"GIT_DIR=/dev/null";
	ret->len = 0;
	ret->status = git_config_get(envp, ret->out, sizeof(ret->out),
	    &ret->len);
	return 0;
}

void
probe_git_answer(struct host *h, const struct git_answer *a)
{
	const char *bad = NULL;
	int status = a->status;

	/* 1: neither is set; 127: no git after all. */
	if (status < 0 || (WIFEXITED(status) && (WEXITSTATUS(status) == 1 ||
	    WEXITSTATUS(status) == 127)))
		return;
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
		bad = "your global git configuration cannot be read (git "
		    "config fails)";
	else if (a->len >= sizeof(a->out))
		bad = "it is longer than " STR(HOST_GIT_IDENT_MAX) " bytes";
	else if (a->len == 0 || a->out[a->len - 1] != '\0')
		bad = "git's answer is not a value";
	if (bad) {
		git_refuse(&h->git_why, "user.name and user.email", bad);
		return;
	}
	h->git_name = git_value(a->out, a->len, "user.name", &h->git_why);
	h->git_email = git_value(a->out, a->len, "user.email", &h->git_why);
}

void
probe_git_identity(struct host *h, char *const *env)
{
	struct git_answer a;

	if (probe_git_run(h, env, &a) == 0)
		probe_git_answer(h, &a);
}

/* A global file larger than this is not kept: git is asked each time. */
#define GIT_FILE_MAX	(64 * 1024)
/* A file changed this recently may change again within its times'
 * granularity, unseen (git's "racy" entries): not kept. */
#define GIT_RACY_SECS	2

/* Does buf hold "include", in any case? */
static bool
has_include(const char *buf, size_t len)
{
	static const char word[] = "include";
	size_t i, j;

	for (i = 0; i + sizeof(word) - 1 <= len; i++) {
		for (j = 0; j < sizeof(word) - 1 &&
		    (buf[i + j] | 0x20) == word[j]; j++)
			;
		if (j == sizeof(word) - 1)
			return true;
	}
	return false;
}

/* The identity of a file git reads, appended to *key; false: not kept. */
static bool
key_file(char **key, const char *path, time_t now)
{
	autofree char *buf = NULL;
	autoclose int fd = -1;
	struct stat st;
	ssize_t n;
	char *k;

	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0) {
		if (errno != ENOENT)
			return false;
		k = xasprintf("%s%s: none\n", *key, path);
		free(*key);
		*key = k;
		return true;
	}
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) ||
	    st.st_size > GIT_FILE_MAX ||
	    now - st.st_mtim.tv_sec < GIT_RACY_SECS ||
	    now - st.st_ctim.tv_sec < GIT_RACY_SECS ||
	    (n = fd_read_all(fd, GIT_FILE_MAX, &buf)) < 0 ||
	    has_include(buf, (size_t)n))
		return false;
	k = xasprintf("%s%s: %ju %ju %jd %jd.%09ld %jd.%09ld\n", *key, path,
	    (uintmax_t)st.st_dev, (uintmax_t)st.st_ino, (intmax_t)st.st_size,
	    (intmax_t)st.st_mtim.tv_sec, st.st_mtim.tv_nsec,
	    (intmax_t)st.st_ctim.tv_sec, st.st_ctim.tv_nsec);
	free(*key);
	*key = k;
	return true;
}

char *
probe_git_key(const struct host *h, char *const *env)
{
	const char *global = env_get(env, "GIT_CONFIG_GLOBAL");
	autofree char *gitconfig = path_join(h->home, ".gitconfig");
	autofree char *xdg = path_join(h->config_home, "git/config");
	autofree char *key = NULL;
	struct stat st;

	if (global && global[0] == '\0')
		global = NULL;
	/* Relative: to git's directory, "/"; not worth keeping. */
	if ((global && global[0] != '/') || stat(GIT_PATH, &st) < 0)
		return NULL;
	key = xasprintf("git: %ju %ju %jd %jd.%09ld %jd.%09ld\n"
	    "home: %s\nconfig: %s\nglobal: %s\n",
	    (uintmax_t)st.st_dev, (uintmax_t)st.st_ino, (intmax_t)st.st_size,
	    (intmax_t)st.st_mtim.tv_sec, st.st_mtim.tv_nsec,
	    (intmax_t)st.st_ctim.tv_sec, st.st_ctim.tv_nsec, h->home,
	    h->config_home, global ? global : "");
	if (global ? !key_file(&key, global, h->now) :
	    !key_file(&key, xdg, h->now) || !key_file(&key, gitconfig, h->now))
		return NULL;
	return steal_ptr(&key);
}

/*
 * The host's RAM and CPUs, and the session store's filesystem (its
 * nearest directory that exists: the store is made on the first run):
 * what the limits' defaults are taken from (confine(1), LIMITS).
 */
static void
resources(struct host *h)
{
	autofree char *dir = path_join(h->state_home, "confine/sessions");
	struct sysinfo si;
	struct statvfs sv;
	long n;
	char *slash;

	if (sysinfo(&si) == 0 && si.mem_unit > 0 &&
	    si.totalram <= UINT64_MAX / si.mem_unit)
		h->mem_total = (uint64_t)si.totalram * si.mem_unit;
	if ((n = sysconf(_SC_NPROCESSORS_ONLN)) > 0)
		h->ncpus = (unsigned int)n;
	while (statvfs(dir, &sv) < 0) {
		if (errno != ENOENT || (slash = strrchr(dir, '/')) == NULL ||
		    slash == dir) {
			h->store_why = xasprintf("statvfs '%s': %s", dir,
			    strerror(errno));
			return;
		}
		*slash = '\0';
	}
	h->store_free = (uint64_t)sv.f_bavail * sv.f_frsize;
	h->store_size = (uint64_t)sv.f_blocks * sv.f_frsize;
}

static bool
path_exists(const char *path)
{
	struct stat st;

	return lstat(path, &st) == 0;
}

/*
 * Can this user, without any capability (as in the sandbox), search every
 * directory above path?  By the mode bits, for root too.
 */
static bool
searchable_above(const char *path)
{
	autofree char *p = xstrdup(path);
	gid_t groups[256];
	int ngroups = getgroups((int)nitems(groups), groups), i;
	uid_t uid = geteuid();
	char *slash = p;
	struct stat st;

	while ((slash = strchr(slash + 1, '/')) != NULL) {
		bool in_group = false;
		mode_t bit;

		*slash = '\0';
		if (stat(p[0] ? p : "/", &st) < 0)
			return false;
		*slash = '/';
		for (i = 0; i < ngroups; i++)
			in_group |= groups[i] == st.st_gid;
		bit = st.st_uid == uid ? S_IXUSR : (in_group ||
		    st.st_gid == getegid()) ? S_IXGRP : S_IXOTH;
		if (!(st.st_mode & bit))
			return false;
	}
	return true;
}

void
host_path_fact(const char *path, struct host_path *ret)
{
	struct stat st;

	/* An entry we cannot lstat for another reason than its absence
	 * is one: a backend meets it as something there. */
	ret->exists = lstat(path, &st) == 0 || errno != ENOENT;
	ret->dir = stat(path, &st) == 0 && S_ISDIR(st.st_mode);
	ret->reachable = searchable_above(path);
}

int
probe_host(char *const *env, const char *workspace, struct host *ret,
    char **cause)
{
	struct host h = { 0 };
	const char *s;
	struct passwd *pw;
	struct stat st;
	struct timespec now;
	char buf[PATH_MAX];
	int i;

	*cause = NULL;
	/* First: a native session starts here (plan->started). */
	clock_gettime(CLOCK_REALTIME, &now);
	h.now = now.tv_sec;
	h.now_ns = now.tv_nsec;
	h.uid = getuid();
	h.gid = getgid();
	/*
	 * The passwd home is hidden too when $HOME points elsewhere, so look
	 * it up whatever the environment says.
	 */
	pw = getpwuid(h.uid);
	h.pw_home = pw ? resolve_dir_abs(pw->pw_dir) : NULL;
	if ((s = env_get(env, "USER")) == NULL || s[0] == '\0')
		s = pw ? pw->pw_name : NULL;
	h.user = s ? xstrdup(s) : xasprintf("%u", (unsigned)h.uid);
	if ((s = env_get(env, "HOME")) == NULL || s[0] == '\0')
		s = pw ? pw->pw_dir : NULL;
	if ((h.home = resolve_dir_abs(s)) == NULL) {
		*cause = xasprintf("home directory '%s' is not a directory",
		    s ? s : "(unset)");
		host_free(&h);
		return -1;
	}
	if (getcwd(buf, sizeof(buf)) == NULL ||
	    (h.cwd = resolve_dir_abs(buf)) == NULL) {
		*cause = xasprintf("cannot resolve the working directory: %s",
		    strerror(errno));
		host_free(&h);
		return -1;
	}
	h.git_top = probe_git_top(h.cwd);
	if (workspace && (h.workspace = resolve_dir(workspace, true)) == NULL) {
		*cause = xasprintf("workspace '%s' is not a directory",
		    workspace);
		host_free(&h);
		return -1;
	}
	if ((s = env_get(env, "XDG_STATE_HOME")) && s[0] == '/')
		h.state_home = xstrdup(s);
	else
		h.state_home = path_join(h.home, ".local/state");
	if ((s = env_get(env, "XDG_CONFIG_HOME")) && s[0] == '/')
		h.config_home = xstrdup(s);
	else
		h.config_home = path_join(h.home, ".config");
	resources(&h);
	h.runtime_dir = resolve_dir_abs(env_get(env, "XDG_RUNTIME_DIR"));
	h.has_run = lstat("/run", &st) == 0 && S_ISDIR(st.st_mode);
	h.var_run_is_dir = lstat("/var/run", &st) == 0 && S_ISDIR(st.st_mode);
	h.unix_sockets = unix_sockets();
	h.root_links = root_links();
	/*
	 * /etc is scanned only for a plan that shows the host from an
	 * allow-list (probe_etc_private()): until then a plan that would
	 * need it is refused, as one whose scan failed.
	 */
	h.etc_why = xstrdup("not scanned (only a quadrant with leg C needs "
	    "it)");
	h.landlock_abi = landlock_abi(&h.landlock_errno);
	h.userns_why = probe_userns_why(h.uid);
	probe_bwrap_found(&h);
	probe_cgroup(&h.cgroup, env, h.uid);
	for (i = 0; i < 3; i++)
		h.is_tty[i] = isatty(i);
	for (i = 0; i < 3; i++) {
		if (h.is_tty[i]) {
			tcgetattr(i, &h.termios);
			ioctl(i, TIOCGWINSZ, &h.winsize);
			break;
		}
	}
	h.path_exists = path_exists;
	h.path_fact = host_path_fact;
	if (getrandom(&h.random, sizeof(h.random), GRND_NONBLOCK) !=
	    sizeof(h.random))
		h.random = (uint32_t)getpid() ^ (uint32_t)h.now;
	*ret = h;
	return 0;
}

void
host_free(struct host *h)
{
	free(h->user);
	free(h->home);
	free(h->pw_home);
	free(h->cwd);
	free(h->git_top);
	free(h->workspace);
	for (size_t i = 0; i < h->nmore_ws; i++) {
		free(h->more_ws[i].path);
		free(h->more_ws[i].origin);
		free(h->more_ws[i].private);
		free(h->more_ws[i].private_origin);
	}
	free(h->more_ws);
	free(h->state_home);
	free(h->config_home);
	free(h->state_busy);
	free(h->runtime_dir);
	free(h->store_why);
	strv_free(h->unix_sockets);
	strv_free(h->root_links);
	strv_free(h->etc_private);
	free(h->etc_why);
	free(h->userns_why);
	free(h->bwrap.why);
	free(h->git_name);
	free(h->git_email);
	free(h->git_why);
	host_cgroup_free(&h->cgroup);
	memset(h, 0, sizeof(*h));
}
