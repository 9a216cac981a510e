// SPDX-License-Identifier: ISC
/*
 * enforce/cgroup.c - the sandbox's cgroup, file by file: the directory
 * made and removed, the limits written, processes moved in, the whole
 * cgroup killed (cgroup.kill) and waited for (cgroup.events), the
 * outcomes read (memory.events, pids.events, cpu.stat).
 *
 * Runs in: the supervisor (all), and a backend's child after its fork
 * (the write of "0" into cgroup.procs).
 * MUST: reach every file beneath the fd of a cgroup directory confine made
 * or was given (openat2, RESOLVE_BENEATH); never a cgroup of v1, never a
 * cgroup confine was not given.
 * MUST: read with a bound: the command can make cgroup files long (many
 * processes in cgroup.procs).
 */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/xattr.h>
#include <unistd.h>

#include "enforce/cgroup.h"
#include "lib/fdio.h"
#include "lib/util.h"

/* How often cgroup_wait_empty() reads cgroup.events without a wake-up. */
#define WAIT_RECHECK_MS	200
/* The most a keyed file (cpu.stat, memory.events) holds: a few lines. */
#define KEYED_MAX	(64UL * 1024)
/* cgroup.procs: a pid a line; far more than pids.max allows. */
#define PROCS_MAX	(8UL * 1024 * 1024)

int
cgroup_open(const char *path)
{
	int fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);

	return fd < 0 ? -errno : fd;
}

int
cgroup_mkdir(int dirfd, const char *name)
{
	if (mkdirat(dirfd, name, 0755) < 0)
		return -errno;
	return fd_open_at(dirfd, name, O_RDONLY | O_DIRECTORY, 0, FD_BENEATH);
}

#define MAKER_XATTR	"user.confine.maker"

int
cgroup_mark(int dirfd, pid_t pid, unsigned long long start)
{
	char v[48];
	int n = snprintf(v, sizeof(v), "%d %llu", (int)pid, start);

	return fsetxattr(dirfd, MAKER_XATTR, v, (size_t)n, 0) < 0 ? -errno : 0;
}

int
cgroup_maker(int dirfd, pid_t *ret_pid, unsigned long long *ret_start)
{
	char v[48];
	ssize_t n = fgetxattr(dirfd, MAKER_XATTR, v, sizeof(v) - 1);
	unsigned long long start;
	int pid;

	if (n < 0)
		return -errno;
	v[n] = '\0';
	if (sscanf(v, "%d %llu", &pid, &start) != 2 || pid <= 0)
		return -EINVAL;
	*ret_pid = (pid_t)pid;
	*ret_start = start;
	return 0;
}

char **
cgroup_children(int dirfd, const char *prefix)
{
	int fd = fd_open_at(dirfd, ".", O_RDONLY | O_DIRECTORY, 0, FD_BENEATH);
	char **v = NULL;
	size_t n = 0, plen = strlen(prefix);
	struct dirent *e;
	DIR *d;

	if (fd < 0 || (d = fdopendir(fd)) == NULL) {
		if (fd >= 0)
			close(fd);
		return xcalloc(1, sizeof(*v));
	}
	while ((e = readdir(d)) != NULL)
		if (e->d_type == DT_DIR && strncmp(e->d_name, prefix, plen) == 0)
			strv_push(&v, &n, xstrdup(e->d_name));
	closedir(d);
	return v ? v : xcalloc(1, sizeof(*v));
}

int
cgroup_rmdir(int dirfd, const char *name)
{
	return unlinkat(dirfd, name, AT_REMOVEDIR) < 0 ? -errno : 0;
}

int
cgroup_write(int dirfd, const char *file, const char *val)
{
	autoclose int fd = fd_open_at(dirfd, file, O_WRONLY, 0, FD_BENEATH);
	size_t len = strlen(val);
	ssize_t n;

	if (fd < 0)
		return fd;
	/* One write: the kernel takes a cgroup file's value whole. */
	if ((n = write(fd, val, len)) < 0)
		return -errno;
	return (size_t)n == len ? 0 : -EIO;
}

int
cgroup_move(int dirfd, pid_t pid)
{
	char v[24];

	snprintf(v, sizeof(v), "%d", (int)pid);
	return cgroup_write(dirfd, "cgroup.procs", v);
}

int
cgroup_procs_fd(int dirfd)
{
	return fd_open_at(dirfd, "cgroup.procs", O_WRONLY, 0, FD_BENEATH);
}

int
cgroup_enter(int procs_fd)
{
	/* "0": the writer itself (cgroup-v2.rst, cgroup.procs); the
	 * permission is the opener's, checked when it was opened. */
	ssize_t n = write(procs_fd, "0", 1);

	return n == 1 ? 0 : n < 0 ? -errno : -EIO;
}

/* dirfd's file, NUL-terminated, at most max bytes: its length or -errno. */
static ssize_t
read_file(int dirfd, const char *file, size_t max, char **ret)
{
	autoclose int fd = fd_open_at(dirfd, file, O_RDONLY, 0, FD_BENEATH);
	ssize_t n;

	if (fd < 0)
		return fd;
	if ((n = fd_read_all(fd, max, ret)) < 0)
		return n;
	(*ret)[n] = '\0';
	return n;
}

int
cgroup_controllers(int dirfd, const char *file, unsigned int *ret)
{
	autofree char *buf = NULL;
	unsigned int bits = 0;
	char *tok, *save = NULL;
	ssize_t n;

	if ((n = read_file(dirfd, file, KEYED_MAX, &buf)) < 0)
		return (int)n;
	for (tok = strtok_r(buf, " \n", &save); tok;
	    tok = strtok_r(NULL, " \n", &save)) {
		if (streq(tok, "memory"))
			bits |= PLAN_LIMIT_MEMORY;
		else if (streq(tok, "pids"))
			bits |= PLAN_LIMIT_TASKS;
		else if (streq(tok, "cpu"))
			bits |= PLAN_LIMIT_CPUS;
	}
	*ret = bits;
	return 0;
}

int
cgroup_enable(int dirfd, unsigned int limits)
{
	char v[32];

	if (limits == 0)
		return 0;
	snprintf(v, sizeof(v), "%s%s%s", (limits & PLAN_LIMIT_MEMORY) ?
	    "+memory " : "", (limits & PLAN_LIMIT_TASKS) ? "+pids " : "",
	    (limits & PLAN_LIMIT_CPUS) ? "+cpu" : "");
	return cgroup_write(dirfd, "cgroup.subtree_control", v);
}

/* A number into one of the cgroup's files. */
static int
write_u64(int dirfd, const char *file, uint64_t v, const char **where)
{
	char s[24];

	*where = file;
	snprintf(s, sizeof(s), "%" PRIu64, v);
	return cgroup_write(dirfd, file, s);
}

int
cgroup_limit(int dirfd, const struct plan_limits *l, unsigned int have,
    const char **where)
{
	char v[48];
	int r;

	if ((have & PLAN_LIMIT_MEMORY) && l->memory) {
		if ((r = write_u64(dirfd, "memory.max", l->memory, where)) < 0)
			return r;
		/* No swap: past the limit is the OOM killer, not the disk.
		 * A kernel without swap accounting has no such file. */
		if ((r = write_u64(dirfd, "memory.swap.max", 0, where)) < 0 &&
		    r != -ENOENT)
			return r;
	}
	if ((have & PLAN_LIMIT_TASKS) && l->tasks &&
	    (r = write_u64(dirfd, "pids.max", l->tasks, where)) < 0)
		return r;
	if ((have & PLAN_LIMIT_CPUS) && l->cpu_millis) {
		/* Microseconds a period of 100 ms: millis * 100. */
		*where = "cpu.max";
		snprintf(v, sizeof(v), "%" PRIu64 " 100000",
		    l->cpu_millis * 100);
		if ((r = cgroup_write(dirfd, "cpu.max", v)) < 0)
			return r;
	} else if ((have & PLAN_LIMIT_CPUS) &&
	    (r = write_u64(dirfd, "cpu.weight", 50, where)) < 0)
		return r;
	return 0;
}

int
cgroup_kill(int dirfd)
{
	return cgroup_write(dirfd, "cgroup.kill", "1");
}

/* populated's value in an open cgroup.events, read from its start. */
static int
populated(int fd)
{
	char buf[256], *s;
	ssize_t n;

	if (lseek(fd, 0, SEEK_SET) < 0 || (n = read(fd, buf,
	    sizeof(buf) - 1)) < 0)
		return -errno;
	buf[n] = '\0';
	if ((s = strstr(buf, "populated ")) == NULL)
		return -EINVAL;
	return s[10] == '1';
}

int
cgroup_populated(int dirfd)
{
	autoclose int fd = fd_open_at(dirfd, "cgroup.events", O_RDONLY, 0,
	    FD_BENEATH);

	return fd < 0 ? fd : populated(fd);
}

int
cgroup_wait_empty(int dirfd)
{
	autoclose int fd = fd_open_at(dirfd, "cgroup.events", O_RDONLY, 0,
	    FD_BENEATH);
	int r;

	if (fd < 0)
		return fd;
	/*
	 * A change of the file wakes poll with POLLPRI (cgroup-v2.rst,
	 * "cgroup.events"); read again after each.  The kernel sends that
	 * wake-up later, from a work item, and sends none for a cgroup
	 * removed meanwhile: read again every WAIT_RECHECK_MS as well (a
	 * removed cgroup's file fails the read).
	 */
	while ((r = populated(fd)) == 1) {
		struct pollfd pfd = { .fd = fd, .events = POLLPRI };

		if (poll(&pfd, 1, WAIT_RECHECK_MS) < 0 && errno != EINTR)
			return -errno;
	}
	return r;
}

int
cgroup_key(int dirfd, const char *file, const char *key, uint64_t *ret)
{
	autofree char *buf = NULL;
	size_t klen = strlen(key);
	char *line, *save = NULL;
	ssize_t n;

	if ((n = read_file(dirfd, file, KEYED_MAX, &buf)) < 0)
		return (int)n;
	for (line = strtok_r(buf, "\n", &save); line;
	    line = strtok_r(NULL, "\n", &save))
		if (strncmp(line, key, klen) == 0 && line[klen] == ' ') {
			char *end;

			errno = 0;
			*ret = strtoull(line + klen + 1, &end, 10);
			return errno || *end ? -EINVAL : 0;
		}
	return -ENOENT;
}

int
cgroup_count(int dirfd, size_t *ret)
{
	autofree char *buf = NULL;
	size_t n = 0;
	ssize_t len, i;

	if ((len = read_file(dirfd, "cgroup.procs", PROCS_MAX, &buf)) < 0)
		return (int)len;
	for (i = 0; i < len; i++)
		n += buf[i] == '\n';
	*ret = n;
	return 0;
}
