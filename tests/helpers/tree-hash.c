/* SPDX-License-Identifier: ISC */
/*
 * tree-hash.c - one hash of a whole tree, for the tests' "the host is
 * unchanged" checks: every entry's path, type, mode, owners, size, mtime
 * (to the nanosecond), inode, link count and symbolic link target, and
 * every regular file's content, in a fixed order.
 *
 *	tree-hash DIR
 *
 * Prints 64 hex digits.  What find | sha256sum | sort | sha256sum did in
 * four processes (tests/lib.sh tree_hash), in one: the escape suite hashes
 * trees several times a case, and on a VM a process costs milliseconds.
 * Unreadable files and directories are part of the hash as such.  Files
 * are read in chunks of 1 MiB, each hashed, so a large file costs no
 * memory.  Symbolic links are never followed.
 *
 * Runs in: the test suite, on the host.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../../src/lib/sha256.h"

#define CHUNK	(1024 * 1024)

struct lines {
	char	**v;
	size_t	n, cap;
};

static char *chunk;

static void
die(const char *what)
{
	fprintf(stderr, "tree-hash: %s: %s\n", what, strerror(errno));
	exit(2);
}

static void
add(struct lines *l, char *s)
{
	if (l->n == l->cap) {
		l->cap = l->cap ? l->cap * 2 : 1024;
		l->v = realloc(l->v, l->cap * sizeof(*l->v));
		if (l->v == NULL)
			die("realloc");
	}
	l->v[l->n++] = s;
}

/* The content's hash: the hash of the chunks' hashes. */
static void
content(int dfd, const char *name, char out[65])
{
	char *hashes = NULL, hex[65];
	size_t len = 0, have;
	ssize_t r;
	int fd;

	fd = openat(dfd, name, O_RDONLY | O_NOFOLLOW | O_NOCTTY | O_NONBLOCK |
	    O_CLOEXEC);
	if (fd < 0) {
		snprintf(out, 65, "unreadable");
		return;
	}
	for (;;) {
		have = 0;
		while (have < CHUNK &&
		    (r = read(fd, chunk + have, CHUNK - have)) > 0)
			have += (size_t)r;
		if (have == 0)
			break;
		sha256_hex(chunk, have, hex);
		if ((hashes = realloc(hashes, len + 64)) == NULL)
			die("realloc");
		memcpy(hashes + len, hex, 64);
		len += 64;
		if (have < CHUNK)
			break;
	}
	close(fd);
	sha256_hex(hashes ? hashes : "", len, out);
	free(hashes);
}

static char
type_of(mode_t m)
{
	return S_ISREG(m) ? 'f' : S_ISDIR(m) ? 'd' : S_ISLNK(m) ? 'l' :
	    S_ISFIFO(m) ? 'p' : S_ISSOCK(m) ? 's' : S_ISCHR(m) ? 'c' :
	    S_ISBLK(m) ? 'b' : '?';
}

static void
walk(int dfd, const char *name, const char *path, struct lines *l)
{
	char target[4096] = "", hash[65] = "", *line;
	struct dirent *e;
	struct stat st;
	ssize_t n;
	DIR *d;
	int fd;

	if (fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) < 0) {
		if (asprintf(&line, "%s\tgone", path) < 0)
			die("asprintf");
		add(l, line);
		return;
	}
	if (S_ISLNK(st.st_mode) &&
	    (n = readlinkat(dfd, name, target, sizeof(target) - 1)) >= 0)
		target[n] = '\0';
	if (S_ISREG(st.st_mode))
		content(dfd, name, hash);
	if (asprintf(&line, "%s\t%c\t%o\t%u:%u\t%lld\t%lld.%09ld\t%llu\t%lu\t%s\t%s",
	    path, type_of(st.st_mode), (unsigned)(st.st_mode & 07777),
	    (unsigned)st.st_uid, (unsigned)st.st_gid, (long long)st.st_size,
	    (long long)st.st_mtim.tv_sec, st.st_mtim.tv_nsec,
	    (unsigned long long)st.st_ino, (unsigned long)st.st_nlink,
	    target, hash) < 0)
		die("asprintf");
	add(l, line);
	if (!S_ISDIR(st.st_mode))
		return;
	fd = openat(dfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0 || (d = fdopendir(fd)) == NULL) {
		if (fd >= 0)
			close(fd);
		if (asprintf(&line, "%s\tunlistable", path) < 0)
			die("asprintf");
		add(l, line);
		return;
	}
	while ((e = readdir(d)) != NULL) {
		char *sub;

		if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
			continue;
		if (asprintf(&sub, "%s/%s", path, e->d_name) < 0)
			die("asprintf");
		walk(dirfd(d), e->d_name, sub, l);
		free(sub);
	}
	closedir(d);
}

static int
cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

int
main(int argc, char **argv)
{
	struct lines l = { 0 };
	char *all, hex[65];
	size_t len = 0, i, k;

	if (argc != 2) {
		fprintf(stderr, "usage: tree-hash DIR\n");
		return 2;
	}
	if ((chunk = malloc(CHUNK)) == NULL)
		die("malloc");
	walk(AT_FDCWD, argv[1], ".", &l);
	qsort(l.v, l.n, sizeof(*l.v), cmp);
	for (i = 0; i < l.n; i++)
		len += strlen(l.v[i]) + 1;
	if ((all = malloc(len + 1)) == NULL)
		die("malloc");
	for (i = 0, k = 0; i < l.n; i++) {
		size_t n = strlen(l.v[i]);

		memcpy(all + k, l.v[i], n);
		all[k + n] = '\n';
		k += n + 1;
	}
	sha256_hex(all, len, hex);
	printf("%s\n", hex);
	for (i = 0; i < l.n; i++)
		free(l.v[i]);
	free(l.v);
	free(all);
	free(chunk);
	return 0;
}
