// SPDX-License-Identifier: ISC
/*
 * enforce/seccomp-load.c - a compiled seccomp filter taken in and loaded,
 * with seccomp(2) alone: what the sandbox's processes need of seccomp.
 * The compiling (libseccomp) is enforce/seccomp.c's, in the supervisor;
 * this file is apart so that the inner stage (confine-inner), which links
 * it, does not load libseccomp.
 *
 * Runs in: the sandboxed command's process (the filter, read from a pipe)
 * and the bwrap backend's inner stage (the notify filter, one message).
 */
#include "config.h"

#include <errno.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "enforce/seccomp-load.h"
#include "lib/fdio.h"
#include "lib/util.h"

/* A classic BPF program is at most BPF_MAXINSNS instructions (filter.h). */
#define FILTER_MAX	(BPF_MAXINSNS * sizeof(struct sock_filter))

/* What was read: whole instructions, at least one. */
static int
check(char *buf, ssize_t n, struct syscall_filter_prog *ret)
{
	if (n <= 0 || (size_t)n % sizeof(struct sock_filter) != 0) {
		free(buf);
		return -EBADMSG;
	}
	ret->insns = buf;
	ret->len = (size_t)n / sizeof(struct sock_filter);
	return 0;
}

int
syscall_filter_read(int fd, struct syscall_filter_prog *ret)
{
	char *buf = NULL;
	ssize_t n;

	if ((n = fd_read_all(fd, FILTER_MAX, &buf)) == -EFBIG)
		return -EBADMSG;
	if (n < 0)
		return (int)n;
	return check(buf, n, ret);
}

int
syscall_filter_recv(int sock, struct syscall_filter_prog *ret)
{
	char *buf = xmalloc(FILTER_MAX);
	ssize_t n;

	/* MSG_TRUNC: the message's whole length, even past the buffer. */
	while ((n = recv(sock, buf, FILTER_MAX, MSG_TRUNC)) < 0 &&
	    errno == EINTR)
		;
	if (n < 0) {
		n = -errno;
		free(buf);
		return (int)n;
	}
	if ((size_t)n > FILTER_MAX)
		n = -1;
	return check(buf, n, ret);
}

int
syscall_filter_load(const struct syscall_filter_prog *p, bool listener)
{
	struct sock_fprog prog = { .len = (unsigned short)p->len,
	    .filter = p->insns };
	long r = syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, listener ?
	    SECCOMP_FILTER_FLAG_NEW_LISTENER : 0, &prog);

	return r < 0 ? -errno : (int)r;
}
