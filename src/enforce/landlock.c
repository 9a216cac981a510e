// SPDX-License-Identifier: ISC
/*
 * enforce/landlock.c - apply the plan's Landlock rules (landlock(7); the kernel's
 * samples/landlock/sandboxer.c).
 *
 * Runs in: the sandboxed command's process, after pivot_root, before seccomp.
 * MUST: open every rule target with O_PATH inside the new root.
 * MUST: never drop a right on its own: the plan's handled masks are already
 * those of the host's ABI; a rule that cannot be added is an error.
 */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "enforce/landlock.h"
#include "lib/fdio.h"
#include "lib/sys.h"
#include "lib/util.h"

/* Everything that creates, changes or removes, except device nodes. */
#define WRITE_RIGHTS	(LL_FS_WRITE_FILE | LL_FS_REMOVE_DIR | \
    LL_FS_REMOVE_FILE | LL_FS_MAKE_DIR | LL_FS_MAKE_REG | LL_FS_MAKE_SOCK | \
    LL_FS_MAKE_FIFO | LL_FS_MAKE_SYM | LL_FS_REFER | LL_FS_TRUNCATE)

uint64_t
landlock_rights(unsigned int access, bool is_dir)
{
	uint64_t r = 0;

	if (access & PLAN_FS_READ)
		r |= LL_FS_READ_FILE | LL_FS_READ_DIR;
	if (access & PLAN_FS_LIST)
		r |= LL_FS_READ_DIR;
	if (access & PLAN_FS_EXEC)
		r |= LL_FS_EXECUTE;
	if (access & PLAN_FS_WRITE)
		r |= WRITE_RIGHTS;
	if (access & PLAN_FS_DEV)
		r |= LL_FS_IOCTL_DEV;
	if (!is_dir)
		r &= LL_FS_FILE_RIGHTS;
	return r;
}

/* A rule on fd; st: its fstat(2), or NULL to take it here. */
static int
add_fd(int ruleset, int fd, const struct stat *st, unsigned int access,
    uint64_t handled)
{
	struct confine_ll_path_beneath_attr attr = { .parent_fd = fd };
	struct stat own;

	if (st == NULL) {
		if (fstat(fd, &own) < 0)
			return -errno;
		st = &own;
	}
	attr.allowed_access = landlock_rights(access, S_ISDIR(st->st_mode)) &
	    handled;
	if (sys_landlock_add_rule(ruleset, CONFINE_LL_RULE_PATH_BENEATH,
	    &attr, 0) < 0)
		return -errno;
	return 0;
}

/* Is some exception strictly beneath path?  Is path one of them? */
static bool
holds_exception(char *const *except, const char *path, bool *is_one)
{
	bool below = false;
	size_t i;

	*is_one = false;
	for (i = 0; except[i]; i++) {
		if (streq(except[i], path))
			*is_one = true;
		else if (path_has_prefix(except[i], path))
			below = true;
	}
	return below;
}

/*
 * A rule on every entry of dir but the exceptions, going down only into
 * the directories that hold one.  Symlinks get no rule: what they point
 * to is reached by its own path and its own rule, or not at all.
 */
static int
add_except(int ruleset, int dirfd, const char *path, unsigned int access,
    char *const *except, uint64_t handled, int depth)
{
	autoclose int list = -1;
	struct dir_reader d;
	const char *name;
	unsigned char type;
	int r = 0;

	if (depth > 64)
		return -ELOOP;
	if ((list = openat(dirfd, ".", O_RDONLY | O_DIRECTORY |
	    O_CLOEXEC)) < 0)
		return -errno;
	dir_begin(&d, list);
	while (r == 0 && (name = dir_next(&d, &type)) != NULL) {
		autofree char *sub = NULL;
		autoclose int fd = -1;
		struct stat st;
		bool is_one;

		/* A link is not opened at all (the fstat below decides for
		 * what the listing did not say). */
		if (type == DT_LNK)
			continue;
		sub = path_join(path, name);
		if ((fd = openat(dirfd, name, O_PATH | O_NOFOLLOW |
		    O_CLOEXEC)) < 0 || fstat(fd, &st) < 0)
			continue;	/* gone meanwhile */
		if (S_ISLNK(st.st_mode))
			continue;
		/* An exception is left out whole, whatever lies below it
		 * (another exception too: $XDG_RUNTIME_DIR under /run). */
		if (holds_exception(except, sub, &is_one) && !is_one &&
		    S_ISDIR(st.st_mode))
			r = add_except(ruleset, fd, sub, access, except, handled,
			    depth + 1);
		else if (!is_one)
			r = add_fd(ruleset, fd, &st, access, handled);
	}
	dir_done(&d);
	return r;
}

static int
add_path(int ruleset, const struct plan_path *p, uint64_t handled)
{
	autoclose int fd = -1;
	bool is_one;

	/* A path that is not there grants nothing: a profile may name
	 * places an agent might be installed in, not all of them. */
	if ((fd = open(p->path, O_PATH | O_CLOEXEC)) < 0)
		return errno == ENOENT ? 0 : -errno;
	if (p->except && holds_exception(p->except, p->path, &is_one))
		return add_except(ruleset, fd, p->path, p->access, p->except,
		    handled, 0);
	if (p->except && is_one)
		return 0;	/* the rule's own path is hidden: no rule */
	return add_fd(ruleset, fd, NULL, p->access, handled);
}

int
landlock_apply(const struct plan_landlock *ll, const char **where)
{
	struct confine_ll_ruleset_attr attr = {
		.handled_access_fs = ll->handled_fs,
		.handled_access_net = ll->handled_net,
		.scoped = ll->scoped,
	};
	size_t size = sizeof(attr);
	autoclose int ruleset = -1;
	size_t i;
	int r;

	/* Older kernels reject a struct longer than theirs (E2BIG) only when
	 * the tail is non-zero; send the size that holds what we use. */
	if (ll->scoped == 0)
		size = ll->handled_net ? 16 : 8;
	*where = "create the ruleset";
	if ((ruleset = sys_landlock_create_ruleset(&attr, size, 0)) < 0)
		return -errno;
	for (i = 0; i < ll->npaths; i++) {
		*where = ll->paths[i].path;
		if ((r = add_path(ruleset, &ll->paths[i], ll->handled_fs)) < 0)
			return r;
	}
	/* TCP, where the plan handles it (no network namespace of the
	 * sandbox's own): connect granted to the ports it names, if any. */
	for (i = 0; ll->handled_net && i < 2; i++) {
		struct confine_ll_net_port_attr np = {
			.allowed_access = LL_NET_CONNECT_TCP,
			.port = i == 0 ? ll->connect_port : ll->connect_port2,
		};

		if (np.port == 0)
			continue;
		*where = i == 0 ? "the proxy's port" : "the keyholder's port";
		if (sys_landlock_add_rule(ruleset, CONFINE_LL_RULE_NET_PORT, &np,
		    0) < 0)
			return -errno;
	}
	*where = "restrict the process";
	if (sys_landlock_restrict_self(ruleset, 0) < 0)
		return -errno;
	return 0;
}

int
landlock_scope_signals(void)
{
	/*
	 * Every Landlock layer denies a rename or link into another
	 * directory (REFER) unless a rule of its own grants it, even one
	 * that handles no other file access: grant it beneath /, so that
	 * this layer restricts signals only.
	 */
	struct confine_ll_ruleset_attr attr = {
	    .handled_access_fs = LL_FS_REFER, .scoped = LL_SCOPE_SIGNAL };
	struct confine_ll_path_beneath_attr rule = {
	    .allowed_access = LL_FS_REFER };
	autoclose int ruleset = sys_landlock_create_ruleset(&attr,
	    sizeof(attr), 0);
	autoclose int root = open("/", O_PATH | O_DIRECTORY | O_CLOEXEC);

	if (ruleset < 0 || root < 0)
		return -errno;
	rule.parent_fd = root;
	if (sys_landlock_add_rule(ruleset, CONFINE_LL_RULE_PATH_BENEATH,
	    &rule, 0) < 0 || sys_landlock_restrict_self(ruleset, 0) < 0)
		return -errno;
	return 0;
}
