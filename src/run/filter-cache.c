// SPDX-License-Identifier: ISC
/*
 * run/filter-cache.c - the compiled seccomp filter, kept between runs in
 * $XDG_STATE_HOME/confine/filters/KEY.bpf.
 *
 * Compiling the plan's filter with libseccomp costs a few hundred
 * microseconds of every bwrap launch, in series (bwrap needs it before it
 * starts).  The filter is a function of the plan's system-call rules, of
 * the libseccomp that compiles them, of the kernel it asks, and of
 * confine's own code: KEY is the SHA-256 of all of them (the rules
 * written out field by field, libseccomp's version, the kernel's release
 * and machine, and the device, inode, size, mtime and ctime of confine's
 * binary).  Any change is another key, and so a new compile.
 *
 * The file is the user's own, in confine's state directory, which no
 * sandbox shows (the home is a tmpfs there; the session directories are
 * below the state directory and are never bound).  A filter the sandboxed
 * command could write would be its own filter: this one it cannot reach.
 * A profile that makes the state directory itself direct would let it;
 * confine refuses nothing there, so the file is checked as below, and the
 * supervisor alone ever reads it.
 *
 * Runs in: the supervisor, before bwrap starts.
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

/* The key: what the compiled filter depends on, hashed. */
static char *
cache_path(const struct plan *p)
{
	const struct plan_syscalls *s = &p->sys;
	autofree char *dir = cache_dir(p), *text = NULL, *fam = xstrdup("");
	struct utsname u;
	struct stat st;
	char hex[65], engine[64];
	size_t i;

	if (dir == NULL || stat("/proc/self/exe", &st) < 0 || uname(&u) < 0)
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

int
filter_cache_get(const struct plan *p, int fd)
{
	autofree char *path = cache_path(p), *dir = NULL, *bpf = NULL;
	struct stat st;
	ssize_t n;

	if (path == NULL)
		return -ENOENT;
	dir = xstrdup(path);
	*strrchr(dir, '/') = '\0';
	if (lstat(dir, &st) < 0 || !S_ISDIR(st.st_mode) || !owned(&st))
		return -ENOENT;
	if ((n = fd_read_owned(path, FILTER_MAX, &bpf)) == -EPERM)
		return -EPERM;
	if (n < 0 && n != -EFBIG)
		return -ENOENT;
	if (n <= 0 || n % 8 != 0)
		return -EBADMSG;
	return fd_write_all(fd, bpf, (size_t)n);
}

void
filter_cache_put(const struct plan *p, int fd)
{
	autofree char *path = cache_path(p), *dir = NULL;
	autofree char *bpf = NULL;
	struct stat st;
	ssize_t n;

	if (path == NULL || lseek(fd, 0, SEEK_SET) < 0 ||
	    (n = fd_read_all(fd, FILTER_MAX, &bpf)) <= 0 || n % 8 != 0)
		return;
	dir = xstrdup(path);
	*strrchr(dir, '/') = '\0';
	if ((mkdir(dir, 0700) < 0 && errno != EEXIST) ||
	    lstat(dir, &st) < 0 || !S_ISDIR(st.st_mode) || !owned(&st))
		return;
	fd_write_replace(path, bpf, (size_t)n);
}
