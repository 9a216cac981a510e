// SPDX-License-Identifier: ISC
/*
 * hostfile-probe.c - what a command can do to a file it may only read, and
 * what the host sees of it, for tests/escape/hostfiles.sh.
 *
 * usage:
 *   hostfile-probe setup FILE...      give FILE the xattr user.confine=host,
 *                                     mtime 2020-01-01 and an atime in 2030
 *                                     (no read updates it, even relatime)
 *   hostfile-probe manifest FILE...   "FILE atime mtime flags xflags xattrs"
 *   hostfile-probe try [--hold] FILE...
 *                                     for each FILE, each call on a read-only
 *                                     descriptor (or the path), one line
 *                                     "CALL FILE OK|ERRNO": utimensat,
 *                                     futimens, setflags (FS_IOC_SETFLAGS
 *                                     + nodump), fssetxattr (FS_IOC_FSSETXATTR
 *                                     + nodump), setxattr, fsetxattr,
 *                                     removexattr, fremovexattr, flock
 *                                     (LOCK_EX), setlk (F_SETLK read lock),
 *                                     ofd_setlk, setlease (F_RDLCK); with
 *                                     --hold, keeps the locks and the leases,
 *                                     prints "held" and waits for a line (or
 *                                     the end) on standard input
 *   hostfile-probe check FILE...      from the host: would a lock or a lease
 *                                     taken inside block its programs?
 *                                     "check_flock|check_setlk|check_ofd|
 *                                     check_open_write FILE OK|ERRNO"
 *                                     (the last an open for writing that
 *                                     a read lease blocks: EWOULDBLOCK)
 *
 * Exit status 0 once everything was tried, 2 on a usage error.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/fs.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/xattr.h>
#include <time.h>
#include <unistd.h>

#define XATTR		"user.confine"
#define MTIME_2020	1577836800
#define ATIME_2030	1893456000

static const char *
res(int r)
{
	return r < 0 ? strerrorname_np(errno) ? strerrorname_np(errno) :
	    "E?" : "OK";
}

static void
say(const char *call, const char *file, int r)
{
	printf("%s %s %s\n", call, file, res(r));
	fflush(stdout);
}

static int
setup(const char *f)
{
	struct timespec ts[2] = { { ATIME_2030, 0 }, { MTIME_2020, 0 } };

	/* A file system without user xattrs just has none to compare. */
	(void)setxattr(f, XATTR, "host", 4, 0);
	if (utimensat(AT_FDCWD, f, ts, AT_SYMLINK_NOFOLLOW) < 0) {
		perror(f);
		return 1;
	}
	return 0;
}

static void
manifest(const char *f)
{
	struct stat st;
	struct fsxattr fsx = { 0 };
	char list[4096], val[256];
	int fd, flags = 0;
	ssize_t n, v;
	char *p;

	if (lstat(f, &st) < 0) {
		printf("%s %s\n", f, strerrorname_np(errno));
		return;
	}
	printf("%s %lld.%09ld %lld.%09ld", f, (long long)st.st_atim.tv_sec,
	    st.st_atim.tv_nsec, (long long)st.st_mtim.tv_sec,
	    st.st_mtim.tv_nsec);
	if ((fd = open(f, O_RDONLY | O_NOFOLLOW | O_CLOEXEC)) >= 0) {
		if (ioctl(fd, FS_IOC_GETFLAGS, &flags) < 0)
			flags = -1;
		if (ioctl(fd, FS_IOC_FSGETXATTR, &fsx) < 0)
			fsx.fsx_xflags = (unsigned)-1;
		close(fd);
	}
	printf(" flags %#x xflags %#x", flags, fsx.fsx_xflags);
	if ((n = llistxattr(f, list, sizeof(list))) > 0)
		for (p = list; p < list + n; p += strlen(p) + 1) {
			v = lgetxattr(f, p, val, sizeof(val) - 1);
			val[v > 0 ? v : 0] = '\0';
			printf(" %s=%s", p, val);
		}
	putchar('\n');
}

/* The calls on one file; the descriptors stay open (locks, leases). */
static void
try(const char *f)
{
	struct timespec ts[2] = { { MTIME_2020 + 1, 0 }, { MTIME_2020 + 1, 0 } };
	struct flock fl = { .l_type = F_RDLCK, .l_whence = SEEK_SET };
	struct fsxattr fsx;
	int fd, flags, r;

	say("utimensat", f, utimensat(AT_FDCWD, f, ts, 0));
	if ((fd = open(f, O_RDONLY | O_CLOEXEC)) < 0) {
		printf("open %s %s\n", f, strerrorname_np(errno));
		return;
	}
	say("futimens", f, futimens(fd, ts));
	r = ioctl(fd, FS_IOC_GETFLAGS, &flags);
	if (r == 0) {
		flags |= FS_NODUMP_FL;
		r = ioctl(fd, FS_IOC_SETFLAGS, &flags);
	}
	say("setflags", f, r);
	r = ioctl(fd, FS_IOC_FSGETXATTR, &fsx);
	if (r == 0) {
		fsx.fsx_xflags |= FS_XFLAG_NODUMP;
		r = ioctl(fd, FS_IOC_FSSETXATTR, &fsx);
	}
	say("fssetxattr", f, r);
	say("setxattr", f, setxattr(f, XATTR, "inside", 6, 0));
	say("fsetxattr", f, fsetxattr(fd, XATTR ".fd", "inside", 6, 0));
	/* The host's own (setup), or the one just set on an own file. */
	say("removexattr", f, removexattr(f, XATTR));
	say("fremovexattr", f, fremovexattr(fd, XATTR ".fd"));
	say("flock", f, flock(fd, LOCK_EX | LOCK_NB));
	say("setlk", f, fcntl(fd, F_SETLK, &fl));
	{
		int ofd = open(f, O_RDONLY | O_CLOEXEC);
		struct flock o = { .l_type = F_RDLCK, .l_whence = SEEK_SET };

		say("ofd_setlk", f, ofd < 0 ? ofd : fcntl(ofd, F_OFD_SETLK, &o));
	}
	{
		int lfd = open(f, O_RDONLY | O_CLOEXEC);

		say("setlease", f, lfd < 0 ? lfd : fcntl(lfd, F_SETLEASE,
		    F_RDLCK));
	}
}

static void
check(const char *f)
{
	struct flock fl = { .l_type = F_WRLCK, .l_whence = SEEK_SET };
	int fd, r;

	fd = open(f, O_RDONLY | O_CLOEXEC);
	r = fd < 0 ? fd : flock(fd, LOCK_EX | LOCK_NB);
	say("check_flock", f, r);
	if (fd >= 0)
		close(fd);
	/*
	 * Would a write lock be refused?  Asked with F_GETLK on a read-only
	 * descriptor: an open for writing would wait on a held lease.
	 */
	fd = open(f, O_RDONLY | O_CLOEXEC);
	r = fd < 0 ? fd : fcntl(fd, F_GETLK, &fl);
	if (r == 0 && fl.l_type != F_UNLCK) {
		errno = EAGAIN;
		r = -1;
	}
	say("check_setlk", f, r);
	fl = (struct flock){ .l_type = F_WRLCK, .l_whence = SEEK_SET };
	r = fd < 0 ? fd : fcntl(fd, F_OFD_GETLK, &fl);
	if (r == 0 && fl.l_type != F_UNLCK) {
		errno = EAGAIN;
		r = -1;
	}
	say("check_ofd", f, r);
	if (fd >= 0)
		close(fd);
	/* Last: a held read lease makes this open start breaking it. */
	fd = open(f, O_RDWR | O_NONBLOCK | O_CLOEXEC);
	say("check_open_write", f, fd);
	if (fd >= 0)
		close(fd);
}

int
main(int argc, char **argv)
{
	bool hold = false;
	int i = 2, rc = 0;
	char c;

	if (argc < 3)
		goto usage;
	/* A lease holder is sent SIGIO when a host program breaks it. */
	signal(SIGIO, SIG_IGN);
	if (strcmp(argv[1], "try") == 0 && strcmp(argv[2], "--hold") == 0) {
		hold = true;
		i = 3;
	}
	for (; i < argc; i++) {
		if (strcmp(argv[1], "setup") == 0)
			rc |= setup(argv[i]);
		else if (strcmp(argv[1], "manifest") == 0)
			manifest(argv[i]);
		else if (strcmp(argv[1], "try") == 0)
			try(argv[i]);
		else if (strcmp(argv[1], "check") == 0)
			check(argv[i]);
		else
			goto usage;
	}
	if (hold) {
		puts("held");
		fflush(stdout);
		while (read(0, &c, 1) == 1 && c != '\n')
			;
	}
	return rc;
usage:
	fprintf(stderr, "usage: hostfile-probe setup|manifest|try [--hold]|"
	    "check FILE...\n");
	return 2;
}
