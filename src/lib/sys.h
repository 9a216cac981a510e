/* SPDX-License-Identifier: ISC */
/*
 * lib/sys.h - thin wrappers for system calls that glibc 2.36 does not wrap, the
 * Landlock ABI as confine knows it, and where sysfs lists network
 * interfaces.
 *
 * The installed kernel headers may be older than the running kernel (Debian
 * 12 ships 6.1 headers that know Landlock ABI 1-3), so every Landlock
 * constant and struct is defined here, from the kernel's uapi enforce/landlock.h.
 * Wrappers return what the system call returns and leave errno set.
 */
#ifndef CONFINE_SYS_H
#define CONFINE_SYS_H

#include <stdint.h>
#include <sys/types.h>

/* Landlock (landlock(7), include/uapi/linux/landlock.h). */
#define CONFINE_LL_CREATE_RULESET_VERSION	(1U << 0)
#define CONFINE_LL_CREATE_RULESET_ERRATA	(1U << 1)
#define CONFINE_LL_RULE_PATH_BENEATH		1
#define CONFINE_LL_RULE_NET_PORT		2

#define LL_FS_EXECUTE		(1ULL << 0)
#define LL_FS_WRITE_FILE	(1ULL << 1)
#define LL_FS_READ_FILE		(1ULL << 2)
#define LL_FS_READ_DIR		(1ULL << 3)
#define LL_FS_REMOVE_DIR	(1ULL << 4)
#define LL_FS_REMOVE_FILE	(1ULL << 5)
#define LL_FS_MAKE_CHAR		(1ULL << 6)
#define LL_FS_MAKE_DIR		(1ULL << 7)
#define LL_FS_MAKE_REG		(1ULL << 8)
#define LL_FS_MAKE_SOCK		(1ULL << 9)
#define LL_FS_MAKE_FIFO		(1ULL << 10)
#define LL_FS_MAKE_BLOCK	(1ULL << 11)
#define LL_FS_MAKE_SYM		(1ULL << 12)
#define LL_FS_REFER		(1ULL << 13)	/* ABI 2 */
#define LL_FS_TRUNCATE		(1ULL << 14)	/* ABI 3 */
#define LL_FS_IOCTL_DEV		(1ULL << 15)	/* ABI 5 */
#define LL_FS_RESOLVE_UNIX	(1ULL << 16)	/* ABI 9 */

#define LL_NET_BIND_TCP		(1ULL << 0)	/* ABI 4 */
#define LL_NET_CONNECT_TCP	(1ULL << 1)	/* ABI 4 */

#define LL_SCOPE_ABSTRACT_UNIX	(1ULL << 0)	/* ABI 6 */
#define LL_SCOPE_SIGNAL		(1ULL << 1)	/* ABI 6 */

/* Rights that a rule on a non-directory may carry (EINVAL otherwise). */
#define LL_FS_FILE_RIGHTS	(LL_FS_EXECUTE | LL_FS_WRITE_FILE | \
    LL_FS_READ_FILE | LL_FS_TRUNCATE | LL_FS_IOCTL_DEV | LL_FS_RESOLVE_UNIX)

struct confine_ll_ruleset_attr {
	uint64_t	handled_access_fs;
	uint64_t	handled_access_net;	/* ABI 4 */
	uint64_t	scoped;			/* ABI 6 */
};

struct confine_ll_path_beneath_attr {
	uint64_t	allowed_access;
	int32_t		parent_fd;
} __attribute__((packed));

struct confine_ll_net_port_attr {
	uint64_t	allowed_access;
	uint64_t	port;
};

/* The newest ABI confine knows the rights of. */
#define LL_ABI_KNOWN	9

int	sys_landlock_create_ruleset(const struct confine_ll_ruleset_attr *,
	    size_t, uint32_t);
int	sys_landlock_add_rule(int, int, const void *, uint32_t);
int	sys_landlock_restrict_self(int, uint32_t);

int	sys_pivot_root(const char *, const char *);
/*
 * The directories of the sysfs mounted at sys that name network
 * interfaces: class/net, devices/virtual/net and each device's "net"
 * directory, as paths under "/sys".  strv_free() it.
 */
char	**sys_net_dirs(const char *sys);
/* mkdir -p, each new directory mode 0700.  0 or -errno. */
int	sys_mkdirs(const char *);
int	sys_pidfd_open(pid_t, unsigned int);
int	sys_close_range(unsigned int, unsigned int, unsigned int);
/*
 * clone3(2) as a fork (no new stack; the child returns 0 here too), with
 * the CLONE_* flags and SIGCHLD at its exit, born in the cgroup of
 * cgroup_fd (CLONE_INTO_CGROUP, Linux 5.7).  The pid, or -1 with errno.
 */
pid_t	sys_clone_into_cgroup(unsigned long flags, int cgroup_fd);
/* quotactl_fd(2) (Linux 5.14): quotactl(2) on the filesystem of fd. */
int	sys_quotactl_fd(int fd, unsigned int cmd, int id, void *addr);

/* mount_setattr(2), Linux 5.12. */
struct confine_mount_attr {
	uint64_t	attr_set;
	uint64_t	attr_clr;
	uint64_t	propagation;
	uint64_t	userns_fd;
};
int	sys_mount_setattr(int, const char *, unsigned int,
	    struct confine_mount_attr *, size_t);

#endif
