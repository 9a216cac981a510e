// SPDX-License-Identifier: ISC
/*
 * input/cgroup-probe.c - the host's cgroup facts, for the resource limits'
 * engine (policy/limits-engine.c): where the cgroup2 hierarchy is mounted,
 * the cgroup confine runs in, whether it was delegated to confine or may
 * be written, its controllers, whether systemd runs the host, and which
 * bus a transient scope would be asked on.
 *
 * Runs in: confine, on the host, before the policy.
 * MUST: stay cheap: no D-Bus connection, no process started; a handful of
 * bounded reads.
 * MUST: change nothing: no cgroup is made or written here.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/xattr.h>
#include <unistd.h>

#include "input/host-probe.h"
#include "lib/env.h"
#include "lib/fdio.h"
#include "lib/util.h"

/* The most /proc/self/mountinfo and /proc/self/cgroup may hold here. */
#define MOUNTINFO_MAX	(4UL * 1024 * 1024)
#define CGROUP_FILE_MAX	(64UL * 1024)

/* The text of a small /proc or /sys file, or NULL. */
static char *
read_path(const char *path, size_t max)
{
	char *buf = NULL;

	return fd_read_path(path, max, &buf) < 0 ? NULL : buf;
}

/*
 * The first cgroup2 mount whose root is the hierarchy's own
 * (proc_pid_mountinfo(5): "ID PARENT MAJ:MIN ROOT POINT OPTS ... - TYPE
 * SOURCE SUPER").  A mount point with an escaped character (\040) is
 * passed over: none of the usual ones has one.
 */
static char *
cgroup2_mount(void)
{
	autofree char *buf = read_path("/proc/self/mountinfo", MOUNTINFO_MAX);
	char *line, *save = NULL;

	if (buf == NULL)
		return NULL;
	for (line = strtok_r(buf, "\n", &save); line;
	    line = strtok_r(NULL, "\n", &save)) {
		char *f[5], *sep = strstr(line, " - "), *s = line, *tok;
		int i;

		if (sep == NULL || strncmp(sep, " - cgroup2 ", 11) != 0)
			continue;
		*sep = '\0';
		for (i = 0; i < 5 && (tok = strsep(&s, " ")) != NULL; i++)
			f[i] = tok;
		if (i < 5 || strcmp(f[3], "/") != 0 || f[4][0] != '/' ||
		    strchr(f[4], '\\'))
			continue;
		return xstrdup(f[4]);
	}
	return NULL;
}

char *
probe_own_cgroup(const char *mount)
{
	autofree char *buf = read_path("/proc/self/cgroup", CGROUP_FILE_MAX);
	char *line, *save = NULL;

	if (buf == NULL)
		return NULL;
	for (line = strtok_r(buf, "\n", &save); line;
	    line = strtok_r(NULL, "\n", &save))
		if (strncmp(line, "0::/", 4) == 0 && !strstr(line, "/../") &&
		    !strstr(line, " (deleted)"))
			return streq(line + 3, "/") ? xstrdup(mount) :
			    xasprintf("%s%s", mount, line + 3);
	return NULL;
}

/* cgroup.controllers or cgroup.subtree_control as HOST_CG_* bits. */
static unsigned int
controllers(const char *dir, const char *file)
{
	autofree char *path = path_join(dir, file);
	autofree char *buf = read_path(path, CGROUP_FILE_MAX);
	unsigned int bits = 0;
	char *tok, *save = NULL;

	if (buf == NULL)
		return 0;
	for (tok = strtok_r(buf, " \n", &save); tok;
	    tok = strtok_r(NULL, " \n", &save)) {
		if (streq(tok, "memory"))
			bits |= HOST_CG_MEMORY;
		else if (streq(tok, "pids"))
			bits |= HOST_CG_PIDS;
		else if (streq(tok, "cpu"))
			bits |= HOST_CG_CPU;
	}
	return bits;
}

/* systemd marks a delegated cgroup (systemd.resource-control(5), Delegate=). */
static bool
is_delegated(const char *dir)
{
	static const char *const names[] = { "trusted.delegate",
	    "user.delegate" };
	char v[8];
	size_t i;
	ssize_t n;

	for (i = 0; i < nitems(names); i++)
		if ((n = getxattr(dir, names[i], v, sizeof(v))) == 1 &&
		    v[0] == '1')
			return true;
	return false;
}

static bool
is_socket(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && S_ISSOCK(st.st_mode);
}

/* A D-Bus address's value escaped (the D-Bus specification, Addresses). */
static char *
bus_address(const char *path)
{
	static const char hex[] = "0123456789abcdef";
	size_t len = strlen(path), i, o = 0;
	char *v = xmalloc(3 * len + sizeof("unix:path="));

	o = (size_t)sprintf(v, "unix:path=");
	for (i = 0; i < len; i++) {
		unsigned char c = (unsigned char)path[i];

		if ((c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') ||
		    (c >= 'A' && c <= 'Z') || strchr("-_/.\\*", c)) {
			v[o++] = (char)c;
			continue;
		}
		v[o++] = '%';
		v[o++] = hex[c >> 4];
		v[o++] = hex[c & 15];
	}
	v[o] = '\0';
	return v;
}

void
probe_cgroup(struct host_cgroup *ret, char *const *env, uid_t uid)
{
	struct host_cgroup c = { 0 };
	autofree char *procs = NULL, *bus = NULL;
	const char *s;

	c.systemd = access("/run/systemd/system", F_OK) == 0;
	c.system_bus = uid == 0 && (is_socket("/run/dbus/system_bus_socket") ||
	    is_socket("/run/systemd/private"));
	if (!c.system_bus) {
		if ((s = env_get(env, "DBUS_SESSION_BUS_ADDRESS")) && s[0])
			c.user_bus = xstrdup(s);
		else if ((s = env_get(env, "XDG_RUNTIME_DIR")) && s[0] == '/' &&
		    is_socket(bus = path_join(s, "bus")))
			c.user_bus = bus_address(bus);
	}
	if ((c.mount = cgroup2_mount()) != NULL &&
	    (c.dir = probe_own_cgroup(c.mount)) != NULL) {
		if (access(c.dir, F_OK) < 0) {
			free(c.dir);
			c.dir = NULL;
		}
	}
	if (c.mount)
		c.root_controllers = controllers(c.mount, "cgroup.controllers");
	if (c.dir) {
		procs = path_join(c.dir, "cgroup.procs");
		c.delegated = is_delegated(c.dir);
		c.writable = access(c.dir, W_OK) == 0 &&
		    access(procs, W_OK) == 0;
		c.controllers = controllers(c.dir, "cgroup.subtree_control");
		c.available = controllers(c.dir, "cgroup.controllers");
	}
	*ret = c;
}

void
host_cgroup_free(struct host_cgroup *c)
{
	free(c->mount);
	free(c->dir);
	free(c->user_bus);
	memset(c, 0, sizeof(*c));
}
