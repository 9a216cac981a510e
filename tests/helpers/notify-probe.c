// SPDX-License-Identifier: ISC
/*
 * notify-probe.c - the calls tests/escape/notify-files.sh tries: what
 * changes a file without writing it, and unix sockets of its own.
 *
 * usage: notify-probe MODE:ARGS...
 *   files:TAG:FILE     try each call that changes FILE's times, inode flags,
 *                      extended attributes, locks or leases; one line each,
 *                      "TAG_CALL OK" or "TAG_CALL ERRNO-NAME"
 *   hold:FILE:READY:GO flock(LOCK_EX | LOCK_NB) on FILE ("hold RESULT"),
 *                      then create READY and wait for GO to exist (60 s)
 *   selftest:TAG:DIR   a unix stream server and client, and datagrams by
 *                      sendto and sendmsg, at DIR/TAG.s and DIR/TAG.d,
 *                      and an fd passed on a socket pair (SCM_RIGHTS):
 *                      "TAG_stream OK", "TAG_dgram OK", "TAG_sendmsg OK",
 *                      "TAG_fdpass OK"
 *   connect:TAG:PATH   connect a stream socket to PATH: "TAG RESULT"
 *   sendto:TAG:PATH    a datagram to PATH: "TAG RESULT"
 *   race:TAG:PATH      sendmsg(2) of datagrams to PATH on an fd another
 *                      thread keeps swapping (dup2) between an unconnected
 *                      unix datagram socket and a UDP one: "TAG_sent N",
 *                      the datagrams that went (MSG_DONTWAIT), and
 *                      "TAG_swapped yes" when both sockets were met
 *
 * A PATH or DIR that begins with '@' is an abstract name (the rest).
 *
 * MUST: act only on what the test names.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stddef.h>
#include <fcntl.h>
#include <linux/fs.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/xattr.h>
#include <time.h>
#include <unistd.h>

static void
result(const char *tag, const char *call, int r)
{
	const char *e = r < 0 ? strerrorname_np(errno) : "OK";

	printf("%s%s%s %s\n", tag, call ? "_" : "", call ? call : "",
	    e ? e : "EUNKNOWN");
	fflush(stdout);
}

static int
lock(int fd, int cmd, short type)
{
	struct flock fl = { .l_type = type, .l_whence = SEEK_SET };

	return fcntl(fd, cmd, &fl);
}

static void
files(const char *tag, const char *file)
{
	struct timespec ts[2] = { { 1, 0 }, { 1, 0 } };
	struct fsxattr fx;
	int fd, flags = 0;

	if ((fd = open(file, O_RDWR)) < 0 && (fd = open(file, O_RDONLY)) < 0) {
		result(tag, "open", -1);
		return;
	}
	result(tag, "futimens", futimens(fd, ts));
	result(tag, "utimensat", utimensat(AT_FDCWD, file, ts, 0));
	if (ioctl(fd, FS_IOC_GETFLAGS, &flags) < 0)
		flags = 0;
	flags |= FS_NODUMP_FL;
	result(tag, "setflags", ioctl(fd, FS_IOC_SETFLAGS, &flags));
	memset(&fx, 0, sizeof(fx));
	if (ioctl(fd, FS_IOC_FSGETXATTR, &fx) < 0)
		memset(&fx, 0, sizeof(fx));
	fx.fsx_xflags |= FS_XFLAG_NODUMP;
	result(tag, "fssetxattr", ioctl(fd, FS_IOC_FSSETXATTR, &fx));
	result(tag, "setxattr", setxattr(file, "user.confine", "1", 1, 0));
	result(tag, "lsetxattr", lsetxattr(file, "user.confine", "1", 1, 0));
	result(tag, "fsetxattr", fsetxattr(fd, "user.confine2", "1", 1, 0));
	result(tag, "removexattr", removexattr(file, "user.confine0"));
	result(tag, "flock_sh", flock(fd, LOCK_SH | LOCK_NB));
	result(tag, "flock_ex", flock(fd, LOCK_EX | LOCK_NB));
	flock(fd, LOCK_UN);
	result(tag, "setlk_rd", lock(fd, F_SETLK, F_RDLCK));
	result(tag, "setlkw_rd", lock(fd, F_SETLKW, F_RDLCK));
	lock(fd, F_SETLK, F_UNLCK);
	result(tag, "ofd_rd", lock(fd, F_OFD_SETLK, F_RDLCK));
	lock(fd, F_OFD_SETLK, F_UNLCK);
	result(tag, "lease_rd", fcntl(fd, F_SETLEASE, F_RDLCK));
	fcntl(fd, F_SETLEASE, F_UNLCK);
	close(fd);
}

static void
hold(const char *file, const char *ready, const char *go)
{
	int fd = open(file, O_RDONLY), i;

	result("hold", NULL, fd < 0 ? -1 : flock(fd, LOCK_EX | LOCK_NB));
	close(open(ready, O_WRONLY | O_CREAT, 0644));
	for (i = 0; i < 600 && access(go, F_OK) < 0; i++)
		usleep(100000);
}

/* The address of path ("@name": abstract); its length, or -1. */
static socklen_t alen;

static int
unix_addr(struct sockaddr_un *a, const char *path)
{
	memset(a, 0, sizeof(*a));
	a->sun_family = AF_UNIX;
	if (strlen(path) >= sizeof(a->sun_path)) {
		errno = ENAMETOOLONG;
		return -1;
	}
	strcpy(a->sun_path, path);
	alen = sizeof(*a);
	if (path[0] == '@') {
		a->sun_path[0] = '\0';
		alen = (socklen_t)(offsetof(struct sockaddr_un, sun_path) +
		    strlen(path));
	}
	return 0;
}

static int
stream(const char *path)
{
	struct sockaddr_un a;
	int s = socket(AF_UNIX, SOCK_STREAM, 0), r;

	if (s < 0 || unix_addr(&a, path) < 0)
		return -1;
	r = connect(s, (struct sockaddr *)&a, alen);
	close(s);
	return r;
}

static int
dgram(const char *path)
{
	struct sockaddr_un a;
	int s = socket(AF_UNIX, SOCK_DGRAM, 0), r;

	if (s < 0 || unix_addr(&a, path) < 0)
		return -1;
	r = (int)sendto(s, "x", 1, 0, (struct sockaddr *)&a, alen);
	close(s);
	return r < 0 ? -1 : 0;
}

/* A pipe's read end passed on a stream socket pair reads what was
 * written to the pipe. */
static int
fdpass(void)
{
	union {
		char		b[CMSG_SPACE(sizeof(int))];
		struct cmsghdr	h;
	} u;
	struct iovec iov = { (char *)"f", 1 };
	struct msghdr m = { .msg_iov = &iov, .msg_iovlen = 1,
	    .msg_control = u.b, .msg_controllen = sizeof(u.b) };
	struct cmsghdr *c;
	int sv[2], p[2] = { -1, -1 }, fd = -1, r = -1;
	char x = 0, y = 0;

	if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv) < 0)
		return -1;
	if (pipe(p) < 0 || write(p[1], "p", 1) != 1)
		goto out;
	memset(&u, 0, sizeof(u));
	c = CMSG_FIRSTHDR(&m);
	c->cmsg_level = SOL_SOCKET;
	c->cmsg_type = SCM_RIGHTS;
	c->cmsg_len = CMSG_LEN(sizeof(int));
	memcpy(CMSG_DATA(c), &p[0], sizeof(int));
	if (sendmsg(sv[0], &m, 0) != 1)
		goto out;
	memset(&u, 0, sizeof(u));
	iov.iov_base = &x;
	m.msg_controllen = sizeof(u.b);
	if (recvmsg(sv[1], &m, 0) != 1 || (c = CMSG_FIRSTHDR(&m)) == NULL ||
	    c->cmsg_type != SCM_RIGHTS)
		goto out;
	memcpy(&fd, CMSG_DATA(c), sizeof(int));
	r = x == 'f' && read(fd, &y, 1) == 1 && y == 'p' ? 0 : -1;
	close(fd);
out:
	close(sv[0]);
	close(sv[1]);
	if (p[0] >= 0) {
		close(p[0]);
		close(p[1]);
	}
	return r;
}

static void
selftest(const char *tag, const char *dir)
{
	char sp[108], dp[108], c = 0, call[16];
	struct sockaddr_un a;
	struct iovec iov = { (char *)"y", 1 };
	struct msghdr m = { .msg_name = &a, .msg_namelen = sizeof(a),
	    .msg_iov = &iov, .msg_iovlen = 1 };
	int l, cl, d, s, r;

	snprintf(sp, sizeof(sp), "%s/%s.s", dir, tag);
	snprintf(dp, sizeof(dp), "%s/%s.d", dir, tag);
	unlink(sp);
	unlink(dp);
	if ((l = socket(AF_UNIX, SOCK_STREAM, 0)) < 0) {
		/* Refused (the landlock backend below ABI 9): say so. */
		result(tag, "stream", -1);
		result(tag, "dgram", -1);
		result(tag, "sendmsg", -1);
		result(tag, "fdpass", -1);
		return;
	}
	unix_addr(&a, sp);
	r = bind(l, (struct sockaddr *)&a, alen) < 0 || listen(l, 4) < 0 ?
	    -1 : 0;
	if (r == 0) {
		cl = socket(AF_UNIX, SOCK_STREAM, 0);
		r = connect(cl, (struct sockaddr *)&a, alen);
		if (r == 0 && ((s = accept(l, NULL, NULL)) < 0 ||
		    write(cl, "x", 1) != 1 || read(s, &c, 1) != 1 || c != 'x'))
			r = -1;
		close(cl);
	}
	snprintf(call, sizeof(call), "stream");
	result(tag, call, r);
	close(l);
	d = socket(AF_UNIX, SOCK_DGRAM, 0);
	unix_addr(&a, dp);
	r = bind(d, (struct sockaddr *)&a, alen);
	if (r == 0 && (r = dgram(dp)) == 0 && (read(d, &c, 1) != 1 ||
	    c != 'x'))
		r = -1;
	result(tag, "dgram", r);
	if (r == 0) {
		unix_addr(&a, dp);
		m.msg_namelen = alen;
		s = socket(AF_UNIX, SOCK_DGRAM, 0);
		r = sendmsg(s, &m, 0) == 1 && read(d, &c, 1) == 1 &&
		    c == 'y' ? 0 : -1;
		close(s);
	}
	result(tag, "sendmsg", r);
	close(d);
	unlink(sp);
	unlink(dp);
	result(tag, "fdpass", fdpass());
}

/* The fd race() sends on and swapper() swaps. */
#define RACE_FD		200
#define RACE_TRIES	2000
static volatile int race_stop, race_started;

/* Each socket in place about as long as the other. */
static void *
swapper(void *v)
{
	const int *s = v;
	volatile int spin;

	race_started = 1;
	while (!race_stop) {
		dup2(s[0], RACE_FD);
		for (spin = 0; spin < 2000; spin++)
			;
		dup2(s[1], RACE_FD);
		for (spin = 0; spin < 2000; spin++)
			;
	}
	return NULL;
}

/*
 * The send race: a sendmsg decided on the UDP socket and made on the unix
 * one would carry its unix address unchecked.
 */
static void
race(const char *tag, const char *path)
{
	struct sockaddr_un a;
	struct iovec iov = { (char *)"r", 1 };
	struct msghdr m = { .msg_name = &a, .msg_iov = &iov, .msg_iovlen = 1 };
	pthread_t t;
	int s[2], i, sent = 0, udp = 0;

	if (unix_addr(&a, path) < 0 || (s[0] = socket(AF_UNIX, SOCK_DGRAM,
	    0)) < 0 || (s[1] = socket(AF_INET, SOCK_DGRAM, 0)) < 0) {
		printf("%s_sent 0\n", tag);
		return;
	}
	m.msg_namelen = alen;
	dup2(s[1], RACE_FD);
	race_stop = 0;
	if (pthread_create(&t, NULL, swapper, s) != 0)
		exit(2);
	while (!race_started)
		usleep(1000);
	/* A pause each time: the swapper runs, even on a loaded machine. */
	for (i = 0; i < RACE_TRIES; i++) {
		if (sendmsg(RACE_FD, &m, MSG_DONTWAIT) == 1)
			sent++;
		else if (errno == EAFNOSUPPORT)
			udp++;
		usleep(20);
	}
	race_stop = 1;
	pthread_join(t, NULL);
	close(RACE_FD);
	close(s[0]);
	close(s[1]);
	/* Both sockets met (the swaps happened): "TAG_swapped yes". */
	printf("%s_sent %d\n%s_swapped %s\n", tag, sent, tag, udp > 0 &&
	    udp < RACE_TRIES ? "yes" : "no");
	fflush(stdout);
}

int
main(int argc, char **argv)
{
	int i;

	for (i = 1; i < argc; i++) {
		char *spec = strdup(argv[i]), *mode = strtok(spec, ":"),
		    *a = strtok(NULL, ":"), *b = strtok(NULL, ""), *c;

		if (mode == NULL || a == NULL || b == NULL)
			return 2;
		if (strcmp(mode, "files") == 0)
			files(a, b);
		else if (strcmp(mode, "hold") == 0) {
			b = strtok(b, ":");
			c = strtok(NULL, "");
			if (c == NULL)
				return 2;
			hold(a, b, c);
		} else if (strcmp(mode, "selftest") == 0)
			selftest(a, b);
		else if (strcmp(mode, "connect") == 0)
			result(a, NULL, stream(b));
		else if (strcmp(mode, "sendto") == 0)
			result(a, NULL, dgram(b));
		else if (strcmp(mode, "race") == 0)
			race(a, b);
		else
			return 2;
		free(spec);
	}
	return 0;
}
