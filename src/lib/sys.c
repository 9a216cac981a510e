// SPDX-License-Identifier: ISC
/*
 * lib/sys.c - raw system call wrappers (syscall(2)); see lib/sys.h.
 */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "lib/sys.h"
#include "lib/util.h"

#ifndef __NR_landlock_create_ruleset
#define __NR_landlock_create_ruleset	444
#define __NR_landlock_add_rule		445
#define __NR_landlock_restrict_self	446
#endif
#ifndef __NR_pidfd_open
#define __NR_pidfd_open			434
#endif
#ifndef __NR_close_range
#define __NR_close_range		436
#endif
#ifndef __NR_mount_setattr
#define __NR_mount_setattr		442
#endif
#ifndef __NR_quotactl_fd
#define __NR_quotactl_fd		443
#endif

int
sys_landlock_create_ruleset(const struct confine_ll_ruleset_attr *attr,
    size_t size, uint32_t flags)
{
	return (int)syscall(__NR_landlock_create_ruleset, attr, size, flags);
}

int
sys_landlock_add_rule(int ruleset_fd, int type, const void *attr,
    uint32_t flags)
{
	return (int)syscall(__NR_landlock_add_rule, ruleset_fd, type, attr,
	    flags);
}

int
sys_landlock_restrict_self(int ruleset_fd, uint32_t flags)
{
	return (int)syscall(__NR_landlock_restrict_self, ruleset_fd, flags);
}

int
sys_pivot_root(const char *new_root, const char *put_old)
{
	return (int)syscall(SYS_pivot_root, new_root, put_old);
}

int
sys_pidfd_open(pid_t pid, unsigned int flags)
{
	return (int)syscall(__NR_pidfd_open, pid, flags);
}

/* include/uapi/linux/sched.h, CLONE_ARGS_SIZE_VER2 */
struct confine_clone_args {
	uint64_t	flags;
	uint64_t	pidfd;
	uint64_t	child_tid;
	uint64_t	parent_tid;
	uint64_t	exit_signal;
	uint64_t	stack;
	uint64_t	stack_size;
	uint64_t	tls;
	uint64_t	set_tid;
	uint64_t	set_tid_size;
	uint64_t	cgroup;
};
#define CONFINE_CLONE_INTO_CGROUP	0x200000000ULL

pid_t
sys_clone_into_cgroup(unsigned long flags, int cgroup_fd)
{
	struct confine_clone_args a = {
		.flags = (uint64_t)flags | CONFINE_CLONE_INTO_CGROUP,
		.exit_signal = SIGCHLD,
		.cgroup = (uint64_t)cgroup_fd,
	};

	return (pid_t)syscall(__NR_clone3, &a, sizeof(a));
}

int
sys_quotactl_fd(int fd, unsigned int cmd, int id, void *addr)
{
	return (int)syscall(__NR_quotactl_fd, fd, cmd, id, addr);
}

int
sys_close_range(unsigned int first, unsigned int last, unsigned int flags)
{
	return (int)syscall(__NR_close_range, first, last, flags);
}

int
sys_mount_setattr(int dfd, const char *path, unsigned int flags,
    struct confine_mount_attr *attr, size_t size)
{
	return (int)syscall(__NR_mount_setattr, dfd, path, flags, attr, size);
}

int
sys_mkdirs(const char *path)
{
	char p[4096];
	char *s;

	if (strlen(path) >= sizeof(p))
		return -ENAMETOOLONG;
	strcpy(p, path);
	for (s = p + 1; ; s++) {
		if (*s == '/' || *s == '\0') {
			char c = *s;

			*s = '\0';
			if (mkdir(p, 0700) < 0 && errno != EEXIST)
				return -errno;
			if (c == '\0')
				return 0;
			*s = c;
		}
	}
}

/* Append "/sys" + the part of path below sys, once. */
static void
push_net_dir(char ***v, size_t *n, const char *sys, const char *path)
{
	autofree char *d = xasprintf("/sys%s", path + strlen(sys));
	size_t i;

	for (i = 0; i < *n; i++)
		if (streq((*v)[i], d))
			return;
	strv_push(v, n, steal_ptr(&d));
}

char **
sys_net_dirs(const char *sys)
{
	autofree char *class = path_join(sys, "class/net");
	autofree char *virt = path_join(sys, "devices/virtual/net");
	autofree char *devices = path_join(sys, "devices");
	char **v = xcalloc(1, sizeof(*v)), real[PATH_MAX], *slash;
	struct dirent *de;
	size_t n = 0;
	DIR *d;

	push_net_dir(&v, &n, sys, class);
	push_net_dir(&v, &n, sys, virt);
	if ((d = opendir(class)) == NULL)
		return v;
	while ((de = readdir(d)) != NULL) {
		autofree char *link = path_join(class, de->d_name);

		if (de->d_name[0] == '.' || realpath(link, real) == NULL)
			continue;
		/* .../devices/pci0000:00/0000:00:03.0/net/eth0: its "net". */
		if ((slash = strrchr(real, '/')) == NULL)
			continue;
		*slash = '\0';
		if (path_has_prefix(real, devices) && !streq(real, devices))
			push_net_dir(&v, &n, sys, real);
	}
	closedir(d);
	return v;
}
