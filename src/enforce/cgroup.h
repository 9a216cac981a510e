/* SPDX-License-Identifier: ISC */
/*
 * enforce/cgroup.h - the cgroup v2 files of the sandbox's cgroup: made,
 * limited, entered, killed, waited for, read and removed, each through the
 * fd of a cgroup directory confine made or was given (cgroups(7), the
 * kernel's Documentation/admin-guide/cgroup-v2.rst).
 */
#ifndef CONFINE_CGROUP_H
#define CONFINE_CGROUP_H

#include <stdint.h>
#include <sys/types.h>

#include "policy/plan.h"

/* A cgroup directory, O_RDONLY | O_DIRECTORY (clone3's CLONE_INTO_CGROUP
 * takes it): the fd, or -errno. */
int	cgroup_open(const char *path);
/* Make the child name of dirfd (mode 0755) and open it: the fd, or -errno;
 * -EEXIST when it is there already. */
int	cgroup_mkdir(int dirfd, const char *name);
/*
 * Mark dirfd as made by the process pid that started at start (its
 * starttime in /proc/PID/stat), in the user.confine.maker attribute: so
 * that one left by a confine that was killed is known as such.  0 or
 * -errno.  cgroup_maker() reads it: 0, -ENODATA when there is none.
 */
int	cgroup_mark(int dirfd, pid_t pid, unsigned long long start);
int	cgroup_maker(int dirfd, pid_t *ret_pid, unsigned long long *ret_start);
/*
 * The children of dirfd named prefix*, a NULL-terminated list (empty on
 * an error); strv_free() it.
 */
char	**cgroup_children(int dirfd, const char *prefix);
/* Remove the empty child name of dirfd: 0 or -errno. */
int	cgroup_rmdir(int dirfd, const char *name);

/* Write val into dirfd's file (beneath it): 0 or -errno. */
int	cgroup_write(int dirfd, const char *file, const char *val);
/* Move pid (0: the caller) into dirfd: 0 or -errno. */
int	cgroup_move(int dirfd, pid_t pid);
/* An fd of dirfd's cgroup.procs open for writing, for a child to write
 * "0" into after a fork: the fd or -errno. */
int	cgroup_procs_fd(int dirfd);

/* After a fork, before its exec: the caller moves itself into the
 * cgroup whose cgroup.procs procs_fd is (cgroup_procs_fd()).  0 or -errno. */
int	cgroup_enter(int procs_fd);

/* The controllers of dirfd's file (cgroup.controllers or
 * cgroup.subtree_control) as PLAN_LIMIT_* bits: memory, pids, cpu. */
int	cgroup_controllers(int dirfd, const char *file, unsigned int *ret);
/* Enable these PLAN_LIMIT_* controllers for dirfd's children. */
int	cgroup_enable(int dirfd, unsigned int limits);
/*
 * Write l's limits the PLAN_LIMIT_* bits in have allow: memory.max and
 * memory.swap.max (0: no swap), pids.max, cpu.max ("QUOTA 100000"), and
 * cpu.weight 50 when no cpu quota is set.  0, or -errno with *where the
 * file.
 */
int	cgroup_limit(int dirfd, const struct plan_limits *l, unsigned int have,
	    const char **where);

/* cgroup.kill: every process in it and below is sent SIGKILL. */
int	cgroup_kill(int dirfd);
/* Does cgroup.events say populated 1?  1, 0, or -errno. */
int	cgroup_populated(int dirfd);
/* Wait until cgroup.events says populated 0 (poll(2) on the file, read
 * again at least every 200 ms): 0, or -errno (a cgroup removed meanwhile:
 * the read's error). */
int	cgroup_wait_empty(int dirfd);
/* The value of key in a flat-keyed file (memory.events, pids.events,
 * cpu.stat): 0, -ENOENT (no such file or key), or -errno. */
int	cgroup_key(int dirfd, const char *file, const char *key,
	    uint64_t *ret);
/* How many processes cgroup.procs lists. */
int	cgroup_count(int dirfd, size_t *ret);

#endif
