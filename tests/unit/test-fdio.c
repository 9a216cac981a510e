// SPDX-License-Identifier: ISC
/*
 * test-fdio.c - fd_read_all: the exact bytes up to its bound, EFBIG one
 * byte past it (never a silent cut), an empty file, a pipe that delivers
 * in pieces; fd_open_at beneath a directory refuses ".." and symlinks,
 * and its other resolutions refuse what they name.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "lib/fdio.h"
#include "lib/log.h"
#include "lib/util.h"

#include "tap.h"

#define BIG	200000	/* past fd_read_all's first 64 KiB buffer */

/* An unlinked file holding len bytes of data, at offset 0. */
static int
file_of(const char *data, size_t len)
{
	char path[] = "/tmp/confine-test-fdio-XXXXXX";
	int fd = mkstemp(path);

	if (fd < 0)
		die_errno(errno, "mkstemp");
	unlink(path);
	if (write(fd, data, len) != (ssize_t)len || lseek(fd, 0, SEEK_SET) < 0)
		die_errno(errno, "write");
	return fd;
}

static void
exact(const char *data, size_t len, const char *what)
{
	int fd = file_of(data, len);
	char *buf = NULL;
	ssize_t n = fd_read_all(fd, len, &buf);

	is_int(n, (long long)len, "%s: its length, at a bound of its size",
	    what);
	ok(n == (ssize_t)len && memcmp(buf, data, len) == 0 &&
	    buf[len] == '\0', "%s: the exact bytes, NUL-terminated", what);
	free(buf);
	lseek(fd, 0, SEEK_SET);
	buf = NULL;
	is_int(fd_read_all(fd, len - 1, &buf), -EFBIG,
	    "%s: EFBIG at a bound one byte short", what);
	ok(buf == NULL, "%s: nothing returned past the bound", what);
	close(fd);
}

static void
empty(void)
{
	int fd = file_of("", 0);
	char *buf = NULL;

	is_int(fd_read_all(fd, 16, &buf), 0, "empty file: length 0");
	ok(buf && buf[0] == '\0', "empty file: an empty string");
	free(buf);
	close(fd);
}

/* A writer that sends "piece N;" pieces with pauses between them. */
static void
pieces(void)
{
	autofree char *want = xstrdup(""), *buf = NULL;
	int p[2], status, i;
	pid_t pid;

	for (i = 0; i < 5; i++) {
		char *t = xasprintf("%spiece %d;", want, i);

		free(want);
		want = t;
	}
	if (pipe(p) < 0)
		die_errno(errno, "pipe");
	if ((pid = fork()) < 0)
		die_errno(errno, "fork");
	if (pid == 0) {
		close(p[0]);
		for (i = 0; i < 5; i++) {
			char s[16];
			int len = snprintf(s, sizeof(s), "piece %d;", i);

			if (write(p[1], s, (size_t)len) != len)
				_exit(1);
			usleep(20000);
		}
		_exit(0);
	}
	close(p[1]);
	is_int(fd_read_all(p[0], strlen(want), &buf), (long long)strlen(want),
	    "pipe in pieces: every piece, to its end");
	is_str(buf, want, "pipe in pieces: in order");
	close(p[0]);
	waitpid(pid, &status, 0);
}

static void
beneath(void)
{
	char dir[] = "/tmp/confine-test-fdio-XXXXXX";
	autofree char *link = NULL, *file = NULL;
	int dfd, fd;

	if (mkdtemp(dir) == NULL)
		die_errno(errno, "mkdtemp");
	link = path_join(dir, "link");
	file = path_join(dir, "file");
	if ((fd = open(file, O_WRONLY | O_CREAT, 0600)) < 0 ||
	    symlink("file", link) < 0)
		die_errno(errno, "set-up");
	close(fd);
	dfd = open(dir, O_PATH | O_DIRECTORY);
	fd = fd_open_at(dfd, "file", O_RDONLY, 0, FD_BENEATH);
	ok(fd >= 0, "fd_open_at: a file beneath");
	close(fd);
	is_int(fd_open_at(dfd, "link", O_RDONLY, 0, FD_BENEATH), -ELOOP,
	    "fd_open_at: a symlink beneath is refused");
	is_int(fd_open_at(dfd, "../", O_RDONLY, 0, FD_BENEATH), -EXDEV,
	    "fd_open_at: '..' out of the directory is refused");
	close(dfd);
	unlink(link);
	unlink(file);
	rmdir(dir);
}

/* The resolutions for paths the command sees: each refuses what it says. */
static void
resolutions(void)
{
	char dir[] = "/tmp/confine-test-fdio-XXXXXX", magic[64];
	autofree char *link = NULL, *file = NULL;
	int dfd, fd;

	if (mkdtemp(dir) == NULL)
		die_errno(errno, "mkdtemp");
	link = path_join(dir, "link");
	file = path_join(dir, "file");
	if ((fd = open(file, O_WRONLY | O_CREAT, 0600)) < 0 ||
	    symlink("file", link) < 0)
		die_errno(errno, "set-up");
	close(fd);
	dfd = open(dir, O_PATH | O_DIRECTORY);
	snprintf(magic, sizeof(magic), "/proc/self/fd/%d", dfd);
	fd = fd_open_at(dfd, "link", O_PATH, 0, FD_NO_MAGICLINKS);
	ok(fd >= 0, "FD_NO_MAGICLINKS: a symlink is followed");
	close(fd);
	fd = fd_open_at(dfd, "..", O_PATH, 0, FD_NO_MAGICLINKS);
	ok(fd >= 0, "FD_NO_MAGICLINKS: '..' leaves the directory");
	close(fd);
	is_int(fd_open_at(AT_FDCWD, magic, O_PATH, 0, FD_NO_MAGICLINKS),
	    -ELOOP, "FD_NO_MAGICLINKS: a magic link is refused");
	is_int(fd_open_at(dfd, "link", O_PATH, 0, FD_NO_SYMLINKS), -ELOOP,
	    "FD_NO_SYMLINKS: a symlink is refused");
	fd = fd_open_at(dfd, "..", O_PATH, 0, FD_NO_SYMLINKS);
	ok(fd >= 0, "FD_NO_SYMLINKS: '..' leaves the directory");
	close(fd);
	fd = fd_open_at(dfd, "/../file", O_PATH, 0, FD_IN_ROOT_NO_SYMLINKS);
	ok(fd >= 0, "FD_IN_ROOT_NO_SYMLINKS: '/' and '..' are the root");
	close(fd);
	is_int(fd_open_at(dfd, "/link", O_PATH, 0, FD_IN_ROOT_NO_SYMLINKS),
	    -ELOOP, "FD_IN_ROOT_NO_SYMLINKS: a symlink is refused");
	close(dfd);
	unlink(link);
	unlink(file);
	rmdir(dir);
}

/*
 * A file confine keeps for itself: written whole, mode 0600, read back;
 * refused when it is not confine's to trust (writable by others, a
 * symlink), whatever it holds.
 */
static void
owned_files(void)
{
	char dir[] = "/tmp/confine-test-fdio-XXXXXX";
	autofree char *file = NULL, *link = NULL, *buf = NULL;
	struct stat st;

	if (mkdtemp(dir) == NULL)
		die_errno(errno, "mkdtemp");
	file = path_join(dir, "note");
	link = path_join(dir, "link");
	is_int(fd_write_replace(file, "one\n", 4), 0, "a file written");
	is_int(fd_write_replace(file, "two two\n", 8), 0, "and replaced");
	ok(stat(file, &st) == 0 && (st.st_mode & 07777) == 0600,
	    "mode 0600");
	is_int((int)fd_read_owned(file, 64, &buf), 8, "read back whole");
	is_str(buf, "two two\n", "the second text");
	free(steal_ptr(&buf));
	is_int((int)fd_read_owned(file, 4, &buf), -EFBIG, "with its bound");
	free(steal_ptr(&buf));
	if (symlink("note", link) < 0)
		die_errno(errno, "symlink");
	ok(fd_read_owned(link, 64, &buf) < 0, "a symlink is not read");
	free(steal_ptr(&buf));
	if (chmod(file, 0620) < 0)
		die_errno(errno, "chmod");
	is_int((int)fd_read_owned(file, 64, &buf), -EPERM,
	    "writable by the group: refused");
	unlink(link);
	unlink(file);
	ok(rmdir(dir) == 0, "no temporary file left beside it");
}

int
main(void)
{
	static const char bytes[] = "a\0b\nc";
	autofree char *big = xmalloc(BIG);
	size_t i;

	for (i = 0; i < BIG; i++)
		big[i] = (char)('a' + i % 26);
	exact(bytes, sizeof(bytes) - 1, "five bytes with a NUL");
	exact(big, BIG, "200000 bytes");
	empty();
	pieces();
	beneath();
	resolutions();
	owned_files();
	return done();
}
