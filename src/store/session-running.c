// SPDX-License-Identifier: ISC
/*
 * session-running.c - a running session's record, and what its processes
 * take now; see session-running.h and session-usage.h.
 *
 * Runs in: confine, on the host.  /proc's files of the sandbox's
 * processes are the kernel's (a comm the command chose is skipped, never
 * parsed); read with a bound all the same.
 * MUST: write nothing in a session but its "running" record.
 */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/fdio.h"
#include "lib/util.h"
#include "store/session-meta.h"
#include "store/session-running.h"
#include "store/session-usage.h"

/* /proc/PID/stat: pid, (comm, 16 bytes), then some 50 numbers. */
#define STAT_MAX	4096
/* A task's children, one pid each: a bound far past any sandbox's. */
#define CHILDREN_MAX	(1024 * 1024)
/* The most processes a process tree's walk counts. */
#define WALK_MAX	65536
/* cgroup.procs: one pid a line. */
#define PROCS_MAX	(8 * 1024 * 1024)

/*
 * Field k (counted from 1, as proc(5) counts) of /proc/PID/stat, k > 2:
 * after the last ')', which ends the comm whatever it holds.
 */
static int
stat_field(pid_t pid, int k, uint64_t *ret)
{
	autofree char *path = xasprintf("/proc/%d/stat", (int)pid);
	autofree char *buf = NULL;
	char *p, *end;
	int i, r;

	if ((r = (int)fd_read_path(path, STAT_MAX, &buf)) < 0)
		return r;
	if ((p = strrchr(buf, ')')) == NULL)
		return -EIO;
	p++;
	/* p is at the space before field 3. */
	for (i = 3; i <= k; i++) {
		while (*p == ' ')
			p++;
		if (*p == '\0')
			return -EIO;
		if (i == k)
			break;
		p += strcspn(p, " ");
	}
	errno = 0;
	*ret = strtoull(p, &end, 10);
	if (errno != 0 || end == p)
		return -EIO;
	return 0;
}

int
session_proc_start(pid_t pid, uint64_t *ret)
{
	return stat_field(pid, 22, ret);
}

static bool
pid_parse(const char *s, pid_t *ret)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (errno != 0 || end == s || *end != '\0' || v <= 0 || v > INT32_MAX)
		return false;
	*ret = (pid_t)v;
	return true;
}

static bool
u64_parse(const char *s, uint64_t *ret)
{
	char *end;

	if (s[0] < '0' || s[0] > '9')
		return false;
	errno = 0;
	*ret = strtoull(s, &end, 10);
	return errno == 0 && *end == '\0';
}

/* The record as it is, alive or not: 0, -ENOENT or -EIO. */
static int
record_load(const char *dir, struct session_running *ret)
{
	autofree char *path = path_join(dir, "running");
	autofree char *sup = NULL, *start = NULL, *sb = NULL, *cg = NULL;
	struct session_running r = { 0 };

	if (access(path, F_OK) < 0)
		return errno == ENOENT ? -ENOENT : -EIO;
	sup = session_file_get(dir, "running", "supervisor_pid");
	start = session_file_get(dir, "running", "supervisor_start");
	sb = session_file_get(dir, "running", "sandbox_pid");
	cg = session_file_get(dir, "running", "cgroup");
	if (sup == NULL || start == NULL || !pid_parse(sup, &r.supervisor) ||
	    !u64_parse(start, &r.supervisor_start) ||
	    (sb && !pid_parse(sb, &r.sandbox)) || (cg && cg[0] != '/'))
		return -EIO;
	r.cgroup = steal_ptr(&cg);
	*ret = r;
	return 0;
}

int
session_running_put(const char *dir, const struct session_running *r)
{
	autofree char *text = xasprintf("supervisor_pid=%d\n"
	    "supervisor_start=%llu\n", (int)r->supervisor,
	    (unsigned long long)r->supervisor_start);
	char *more;

	if (r->sandbox > 0) {
		more = xasprintf("%ssandbox_pid=%d\n", text, (int)r->sandbox);
		free(text);
		text = more;
	}
	if (r->cgroup) {
		if (r->cgroup[0] != '/' || strchr(r->cgroup, '\n'))
			return -EINVAL;
		more = xasprintf("%scgroup=%s\n", text, r->cgroup);
		free(text);
		text = more;
	}
	return session_file_put(dir, "running", text);
}

int
session_running_get(const char *dir, struct session_running *ret)
{
	struct session_running r = { 0 };
	uint64_t start;
	int e;

	if ((e = record_load(dir, &r)) < 0)
		return e;
	/* Gone, or its pid another process's now. */
	if (session_proc_start(r.supervisor, &start) < 0 ||
	    start != r.supervisor_start) {
		session_running_free(&r);
		return -ESRCH;
	}
	*ret = r;
	return 0;
}

void
session_running_clear(const char *dir)
{
	autofree char *path = path_join(dir, "running");

	unlink(path);
}

void
session_running_free(struct session_running *r)
{
	free(r->cgroup);
	r->cgroup = NULL;
}

/* The most of /proc/PID/smaps_rollup or status read: a few KiB. */
#define STATUS_MAX	8192

/* A "Key:   N kB" line of /proc/PID/status or smaps_rollup, in bytes. */
static uint64_t
kib_line(const char *buf, const char *key)
{
	const char *line = strstr(buf, key);
	unsigned long long v;

	if (line == NULL || (line != buf && line[-1] != '\n') ||
	    sscanf(line + strlen(key), "%llu", &v) != 1)
		return 0;
	return (uint64_t)v * 1024;
}

/*
 * The memory pid takes of its own: the proportional share (Pss: a page
 * shared by n processes, as after a fork, counts 1/n in each) of its
 * private pages and of the shared memory it maps; where smaps_rollup has
 * no Pss_Anon (before Linux 5.7), the resident counts of status, which
 * count a shared page in each process.  Files' pages, shared and
 * reclaimable, are not counted.
 */
static uint64_t
own_memory(pid_t pid)
{
	autofree char *path = xasprintf("/proc/%d/smaps_rollup", (int)pid);
	autofree char *buf = NULL;

	if (fd_read_path(path, STATUS_MAX, &buf) >= 0 &&
	    strstr(buf, "\nPss_Anon:"))
		return kib_line(buf, "Pss_Anon:") + kib_line(buf, "Pss_Shmem:");
	free(steal_ptr(&buf));
	free(path);
	path = xasprintf("/proc/%d/status", (int)pid);
	if (fd_read_path(path, STATUS_MAX, &buf) >= 0)
		return kib_line(buf, "RssAnon:") + kib_line(buf, "RssShmem:");
	return 0;
}

/* A process's threads, and its own memory when memory. */
static void
proc_add(pid_t pid, bool memory, struct session_usage *u)
{
	uint64_t threads;

	if (memory)
		u->memory += own_memory(pid);
	if (stat_field(pid, 20, &threads) == 0)
		u->tasks += threads;
	u->processes++;
}

/*
 * The pids in buf (whitespace apart) pushed on the stack v, at most
 * WALK_MAX in all.
 */
static void
push_pids(char *buf, pid_t **v, size_t *n, size_t *cap)
{
	char *tok, *save = NULL;
	pid_t pid;

	for (tok = strtok_r(buf, " \n", &save); tok && *n < WALK_MAX;
	    tok = strtok_r(NULL, " \n", &save)) {
		if (!pid_parse(tok, &pid))
			continue;
		if (*n == *cap) {
			*cap = *cap ? *cap * 2 : 64;
			*v = xreallocarray(*v, *cap, sizeof(**v));
		}
		(*v)[(*n)++] = pid;
	}
}

/* Every child of every thread of pid, onto the stack. */
static void
push_children(pid_t pid, pid_t **v, size_t *n, size_t *cap)
{
	autofree char *tdir = xasprintf("/proc/%d/task", (int)pid);
	struct dirent *e;
	DIR *d;

	if ((d = opendir(tdir)) == NULL)
		return;
	while ((e = readdir(d)) != NULL && *n < WALK_MAX) {
		autofree char *path = NULL, *buf = NULL;

		if (e->d_name[0] == '.')
			continue;
		path = xasprintf("%s/%s/children", tdir, e->d_name);
		if (fd_read_path(path, CHILDREN_MAX, &buf) >= 0)
			push_pids(buf, v, n, cap);
	}
	closedir(d);
}

int
session_tree_usage(pid_t first, bool memory, uint64_t task_cap,
    struct session_usage *u)
{
	autofree pid_t *v = NULL;
	size_t n = 0, cap = 0, seen = 0;
	char one[16];

	if (kill(first, 0) < 0 && errno == ESRCH)
		return -ESRCH;
	snprintf(one, sizeof(one), "%d", (int)first);
	push_pids(one, &v, &n, &cap);
	while (n > 0 && seen < WALK_MAX &&
	    (task_cap == 0 || u->tasks <= task_cap)) {
		pid_t pid = v[--n];

		seen++;
		proc_add(pid, memory, u);
		push_children(pid, &v, &n, &cap);
	}
	return 0;
}

static bool
cgroup_number(const char *cg, const char *name, uint64_t *ret)
{
	autofree char *path = path_join(cg, name), *buf = NULL;
	size_t len;

	if (fd_read_path(path, 64, &buf) < 0)
		return false;
	len = strcspn(buf, "\n");
	buf[len] = '\0';
	return u64_parse(buf, ret);
}

/* The processes of the cgroup cg (not of cgroups below it). */
static void
cgroup_procs(const char *cg, struct session_usage *u, bool memory,
    bool tasks)
{
	autofree char *path = path_join(cg, "cgroup.procs"), *buf = NULL;
	autofree pid_t *v = NULL;
	size_t n = 0, cap = 0, i;
	struct session_usage one = { 0 };

	if (fd_read_path(path, PROCS_MAX, &buf) < 0)
		return;
	push_pids(buf, &v, &n, &cap);
	for (i = 0; i < n; i++)
		proc_add(v[i], memory, &one);
	if (memory)
		u->memory = one.memory;
	if (tasks)
		u->tasks = one.tasks;
	u->processes = one.processes;
}

int
session_usage_get(const struct session_running *r,
    struct session_usage *ret)
{
	struct session_usage u = { 0 };
	bool mem, tasks;
	uint64_t ppid;

	if (r->cgroup) {
		mem = cgroup_number(r->cgroup, "memory.current", &u.memory);
		tasks = cgroup_number(r->cgroup, "pids.current", &u.tasks);
		u.from_cgroup = true;
		/* A cgroup without the controllers: its processes' own. */
		cgroup_procs(r->cgroup, &u, !mem, !tasks);
		*ret = u;
		return 0;
	}
	/* The first process still the supervisor's child, not a reused pid. */
	if (r->sandbox <= 0 || stat_field(r->sandbox, 4, &ppid) < 0 ||
	    ppid != (uint64_t)r->supervisor)
		return -ESRCH;
	if (session_tree_usage(r->sandbox, true, 0, &u) < 0)
		return -ESRCH;
	*ret = u;
	return 0;
}
