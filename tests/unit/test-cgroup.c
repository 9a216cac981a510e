// SPDX-License-Identifier: ISC
/*
 * test-cgroup.c - enforce/cgroup.c on a directory of plain files laid out
 * as a cgroup's: the keyed files read (memory.events, pids.events,
 * cpu.stat), controllers as limit bits, cgroup.events' populated, the
 * limits written (memory.max, memory.swap.max, pids.max, cpu.max or
 * cpu.weight), processes counted; nothing beneath the directory escaped.
 * The kernel's side (cgroup.kill, a real wait) is the integration tests'.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "enforce/cgroup.h"
#include "lib/fdio.h"
#include "lib/log.h"
#include "lib/util.h"

#include "tap.h"

static void
put(int dir, const char *name, const char *text)
{
	int fd = openat(dir, name, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC,
	    0600);

	if (fd < 0 || write(fd, text, strlen(text)) != (ssize_t)strlen(text))
		die_errno(errno, "write %s", name);
	close(fd);
}

/* The file's whole text (a test's own small file). */
static char *
get(int dir, const char *name)
{
	autoclose int fd = openat(dir, name, O_RDONLY | O_CLOEXEC);
	char *buf = NULL;
	ssize_t n;

	if (fd < 0 || (n = fd_read_all(fd, 4096, &buf)) < 0)
		return xstrdup("(unreadable)");
	buf[n] = '\0';
	return buf;
}

int
main(void)
{
	char tmpl[] = "/tmp/confine-test-cgroup-XXXXXX";
	const char *where = NULL;
	unsigned int bits = 99;
	uint64_t v = 0;
	size_t n = 0;
	int dir, sub;

	plan(26);
	if (mkdtemp(tmpl) == NULL || (dir = cgroup_open(tmpl)) < 0)
		die_errno(errno, "mkdtemp");

	put(dir, "memory.events", "low 0\nhigh 0\nmax 12\noom 2\noom_kill 1\n"
	    "oom_group_kill 0\n");
	put(dir, "pids.events", "max 37\nmax.imposed 0\n");
	put(dir, "cpu.stat", "usage_usec 100\nthrottled_usec 12300000\n");
	is_int(cgroup_key(dir, "memory.events", "oom_kill", &v), 0,
	    "memory.events: oom_kill");
	is_int(v, 1, "its value");
	is_int(cgroup_key(dir, "memory.events", "oom", &v), 0,
	    "oom, not oom_kill's prefix");
	is_int(v, 2, "its value");
	is_int(cgroup_key(dir, "pids.events", "max", &v), 0,
	    "pids.events: max, not max.imposed");
	is_int(v, 37, "its value");
	is_int(cgroup_key(dir, "cpu.stat", "throttled_usec", &v), 0,
	    "cpu.stat: throttled_usec");
	is_int(v, 12300000, "its value");
	is_int(cgroup_key(dir, "cpu.stat", "nr_bursts", &v), -ENOENT,
	    "a key not there: ENOENT");
	is_int(cgroup_key(dir, "io.stat", "rbytes", &v), -ENOENT,
	    "a file not there: ENOENT");
	put(dir, "bad.stat", "key 12x\n");
	is_int(cgroup_key(dir, "bad.stat", "key", &v), -EINVAL,
	    "a value that is not a number: EINVAL");
	is_int(cgroup_key(dir, "../x", "key", &v) < 0, 1,
	    "a file above the directory: refused");

	put(dir, "cgroup.controllers", "cpuset cpu io memory hugetlb pids "
	    "rdma misc\n");
	is_int(cgroup_controllers(dir, "cgroup.controllers", &bits), 0,
	    "controllers read");
	is_int(bits, PLAN_LIMIT_MEMORY | PLAN_LIMIT_TASKS | PLAN_LIMIT_CPUS,
	    "memory, pids and cpu, the others not limits");
	put(dir, "cgroup.subtree_control", "");
	is_int(cgroup_controllers(dir, "cgroup.subtree_control", &bits), 0,
	    "none enabled");
	is_int(bits, 0, "no bit");

	put(dir, "cgroup.events", "populated 1\nfrozen 0\n");
	is_int(cgroup_populated(dir), 1, "populated 1");
	put(dir, "cgroup.events", "populated 0\nfrozen 0\n");
	is_int(cgroup_populated(dir), 0, "populated 0");
	is_int(cgroup_wait_empty(dir), 0, "an empty cgroup: no wait");

	put(dir, "cgroup.procs", "12\n345\n6789\n");
	is_int(cgroup_count(dir, &n), 0, "cgroup.procs read");
	is_int(n, 3, "three processes");

	put(dir, "memory.max", "");
	put(dir, "memory.swap.max", "");
	put(dir, "pids.max", "");
	put(dir, "cpu.max", "");
	put(dir, "cpu.weight", "");
	is_int(cgroup_limit(dir, &(struct plan_limits){ .memory = 4ULL << 30,
	    .tasks = 512, .cpu_millis = 1500 }, PLAN_LIMIT_MEMORY |
	    PLAN_LIMIT_TASKS | PLAN_LIMIT_CPUS, &where), 0, "limits written");
	{
		autofree char *m = get(dir, "memory.max");
		autofree char *s = get(dir, "memory.swap.max");
		autofree char *t = get(dir, "pids.max");
		autofree char *c = get(dir, "cpu.max");
		autofree char *w = get(dir, "cpu.weight");
		autofree char *all = xasprintf("%s|%s|%s|%s|%s", m, s, t, c,
		    w);

		is_str(all, "4294967296|0|512|150000 100000|",
		    "memory.max, no swap, pids.max, cpu.max; no weight");
	}
	if ((sub = cgroup_mkdir(dir, "sub")) < 0)
		die_errno(-sub, "mkdir");
	put(sub, "cpu.weight", "");
	put(sub, "pids.max", "");
	is_int(cgroup_limit(sub, &(struct plan_limits){ .memory = 1 << 20,
	    .tasks = 64 }, PLAN_LIMIT_TASKS | PLAN_LIMIT_CPUS, &where), 0,
	    "no quota, no memory controller: weight and pids only");
	{
		autofree char *w = get(sub, "cpu.weight");
		autofree char *t = get(sub, "pids.max");
		autofree char *all = xasprintf("%s|%s", t, w);

		is_str(all, "64|50", "pids.max 64, cpu.weight 50");
	}
	close(sub);
	is_int(cgroup_mkdir(dir, "sub"), -EEXIST, "made twice: EEXIST");

	close(dir);
	{
		autofree char *rm = xasprintf("rm -rf '%s'", tmpl);

		if (system(rm) != 0)
			diag("cannot remove %s", tmpl);
	}
	return done();
}
