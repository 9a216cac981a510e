// SPDX-License-Identifier: ISC
/*
 * run/filter-cache.c - the compiled seccomp filter, kept between runs in
 * $XDG_STATE_HOME/confine/filters/KEY.bpf.
 *
 * Compiling the plan's filter with libseccomp costs up to a millisecond
 * and more of the supervisor's CPU on every launch, in series where the
 * sandbox waits for it (bwrap needs it before it starts; the landlock
 * backend's command is ready before the compile is done), and on the
 * machine's other CPU where it does not (native).  Every backend takes
 * the filter from here.  The filter is a function of the plan's
 * system-call rules, of the libseccomp that compiles them, of the kernel
 * it asks, and of confine's own code: KEY is the SHA-256 of all of them
 * (the rules written out field by field, libseccomp's version, the
 * kernel's release and machine, and the device, inode, size, mtime and
 * ctime of confine's binary).  Any change is another key, and so a new
 * compile.
 *
 * The file is the user's own, in confine's state directory, which no
 * sandbox may write (native and bwrap show a tmpfs home; the landlock
 * backend grants writes to the session's own directories only, and the
 * filters are beside them, not below).  A filter the sandboxed command
 * could write would be the next sandbox's filter: where the plan makes
 * the cache's directory or one above it writable (a direct path, a
 * persistent scratch's state, a Landlock write rule of the landlock
 * backend, whose paths are the host's), the cache is neither read nor
 * written, and the filter is compiled on every run.  The file is checked
 * as below, and the supervisor alone ever reads it.
 *
 * Runs in: the supervisor, before bwrap starts, or while the sandbox
 * sets itself up (native, landlock).
 * MUST: use a file only when it is a regular file of this user's, writable
 * by nobody else, in a directory of this user's writable by nobody else,
 * a whole number of BPF instructions, read with a bound.
 * MUST: never fail a run: a cache that cannot be read or written is no
 * cache; compile instead.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "enforce/seccomp.h"
#include "lib/fdio.h"
#include "lib/sha256.h"
#include "lib/util.h"
#include "run/filter-cache.h"

/* The largest classic BPF program (BPF_MAXINSNS instructions, 8 bytes). */
#define FILTER_MAX	(4096 * 8)

/* $XDG_STATE_HOME/confine, from the session's directory two levels down. */
static char *
cache_dir(const struct plan *p)
{
	char *d = xstrdup(p->session_dir), *s;
	int i;

	for (i = 0; i < 2; i++) {
		if ((s = strrchr(d, '/')) == NULL || s == d) {
			free(d);
			return NULL;
		}
		*s = '\0';
	}
	s = path_join(d, "filters");
	free(d);
	return s;
}

/* The file in dir: its name the key, what the filter depends on, hashed. */
static char *
cache_path(const struct plan *p, const char *dir)
{
	const struct plan_syscalls *s = &p->sys;
	autofree char *text = NULL, *fam = xstrdup("");
	struct utsname u;
	struct stat st;
	char hex[65], engine[64];
	size_t i;

	if (stat("/proc/self/exe", &st) < 0 || uname(&u) < 0)
		return NULL;
	syscall_filter_engine(engine, sizeof(engine));
	for (i = 0; i < s->nfamilies; i++) {
		char *n = xasprintf("%s %d", fam, s->families[i]);

		free(fam);
		fam = n;
	}
	text = xasprintf("confine-filter 1\n%s\n%s %s\n%llu %llu %lld "
	    "%lld.%09ld %lld.%09ld\nfamilies%s\n%d %d %d %d %d %d\n",
	    engine, u.release, u.machine,
	    (unsigned long long)st.st_dev, (unsigned long long)st.st_ino,
	    (long long)st.st_size, (long long)st.st_mtim.tv_sec,
	    st.st_mtim.tv_nsec, (long long)st.st_ctim.tv_sec,
	    st.st_ctim.tv_nsec, fam, s->unix_pairs_only, s->no_kill_all,
	    s->self_only, s->no_host_ipc, s->no_path_metadata,
	    s->unix_notify);
	sha256_hex(text, strlen(text), hex);
	return xasprintf("%s/%s.bpf", dir, hex);
}

/* This user's, and nobody else may write it. */
static bool
owned(const struct stat *st)
{
	return st->st_uid == geteuid() && !(st->st_mode & (S_IWGRP | S_IWOTH));
}

/* Does the plan let the sandbox write host path dir, or above it? */
static bool
writable_by_sandbox(const struct plan *p, const char *dir)
{
	size_t i;

	for (i = 0; i < p->mounts.n; i++) {
		const struct plan_mount *m = &p->mounts.v[i];
		const char *host[3] = { NULL, m->state, m->upper };
		size_t j;

		if (m->kind == PLAN_MOUNT_BIND_RW)
			host[0] = m->src ? m->src : m->dst;
		for (j = 0; j < nitems(host); j++)
			if (host[j] && path_has_prefix(dir, host[j]))
				return true;
	}
	/* The landlock backend's rules name the host's paths. */
	if (p->backend == PLAN_BACKEND_LANDLOCK)
		for (i = 0; i < p->landlock.npaths; i++)
			if ((p->landlock.paths[i].access & PLAN_FS_WRITE) &&
			    path_has_prefix(dir, p->landlock.paths[i].path))
				return true;
	return false;
}

/* A filter of n bytes read into *ret: whole instructions, else freed. */
static ssize_t
whole(ssize_t n, char **ret)
{
	if (n < 0 || (n > 0 && n % 8 == 0))
		return n;
	free(*ret);
	*ret = NULL;
	return -EBADMSG;
}

/* The directory dir, this user's and nobody else's to write? */
static bool
dir_owned(const char *dir)
{
	struct stat st;

	return lstat(dir, &st) == 0 && S_ISDIR(st.st_mode) && owned(&st);
}

/* The filter kept at path in dir, its length, or -errno: none kept, or
 * not trusted. */
static ssize_t
kept(const char *dir, const char *path, char **ret)
{
	if (!dir_owned(dir))
		return -ENOENT;
	return whole(fd_read_owned(path, FILTER_MAX, ret), ret);
}

/* Keep the filter at path in dir for later runs; silent on failure. */
static void
keep(const char *dir, const char *path, const char *bpf, size_t n)
{
	if ((mkdir(dir, 0700) < 0 && errno != EEXIST) || !dir_owned(dir))
		return;
	fd_write_replace(path, bpf, n);
}

/* The plan's filter compiled now, into *ret: its length, or -errno. */
static ssize_t
compile(const struct plan *p, char **ret, const char **where)
{
	autoclose int fd = memfd_create("confine-seccomp", MFD_CLOEXEC);
	int r;

	if (fd < 0)
		return -errno;
	if ((r = syscall_filter_export(&p->sys, fd, where)) < 0)
		return r;
	*where = "read the compiled filter";
	if (lseek(fd, 0, SEEK_SET) < 0)
		return -errno;
	return whole(fd_read_all(fd, FILTER_MAX, ret), ret);
}

int
filter_cache_export(const struct plan *p, int fd, const char **where)
{
	autofree char *dir = cache_dir(p), *path = NULL, *bpf = NULL;
	ssize_t n = -ENOENT;

	/* Where the sandbox could write it, no cache at all. */
	if (dir && !writable_by_sandbox(p, dir))
		path = cache_path(p, dir);
	if (path == NULL || (n = kept(dir, path, &bpf)) < 0) {
		if ((n = compile(p, &bpf, where)) < 0)
			return (int)n;
		if (path)
			keep(dir, path, bpf, (size_t)n);
	}
	*where = "hand the filter over";
	return fd_write_all(fd, bpf, (size_t)n);
}
