// SPDX-License-Identifier: ISC
/*
 * probe.c - read-only facts about the host.
 *
 * Runs in: the supervisor, before the plan is computed.
 * MUST: change nothing on the host.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include "env.h"
#include "probe.h"
#include "sys.h"
#include "util.h"

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

static char *
resolve_dir_abs(const char *p)
{
	return resolve_dir(p, false);
}

int
probe_host(char *const *env, const char *workspace, struct host *ret,
    char **cause)
{
	struct host h = { 0 };
	const char *s;
	struct passwd *pw;
	struct stat st;
	char buf[PATH_MAX];
	int i;

	*cause = NULL;
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
	h.runtime_dir = resolve_dir_abs(env_get(env, "XDG_RUNTIME_DIR"));
	h.has_run = lstat("/run", &st) == 0 && S_ISDIR(st.st_mode);
	h.var_run_is_dir = lstat("/var/run", &st) == 0 && S_ISDIR(st.st_mode);
	h.unix_sockets = unix_sockets();
	h.landlock_abi = landlock_abi(&h.landlock_errno);
	for (i = 0; i < 3; i++)
		h.is_tty[i] = isatty(i);
	for (i = 0; i < 3; i++) {
		if (h.is_tty[i]) {
			tcgetattr(i, &h.termios);
			ioctl(i, TIOCGWINSZ, &h.winsize);
			break;
		}
	}
	h.now = time(NULL);
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
	free(h->state_home);
	free(h->config_home);
	free(h->runtime_dir);
	strv_free(h->unix_sockets);
	memset(h, 0, sizeof(*h));
}
