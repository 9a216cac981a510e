// SPDX-License-Identifier: ISC
/*
 * pty.c - pseudo-terminal for the command, relay for the supervisor
 * (pty(7), termios(3), unix(7) SCM_RIGHTS).
 *
 * Runs in: the sandbox's first process (pty_open, pty_send_fd) and the
 * supervisor (the rest).  The relay's input from the master is the
 * command's output: untrusted bytes, copied, never interpreted.
 * MUST: restore the user's terminal modes on every exit path.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <termios.h>
#include <unistd.h>

#include "pty.h"
#include "util.h"

#ifndef TIOCGPTPEER
#define TIOCGPTPEER	_IO('T', 0x41)
#endif

static struct termios saved;
static int saved_fd = -1;

int
pty_open(const struct plan_tty *t, int *ret_master, int *ret_slave)
{
	autoclose int m = -1, s = -1;
	int unlock = 0;

	if ((m = open("/dev/ptmx", O_RDWR | O_NOCTTY | O_CLOEXEC)) < 0)
		return -errno;
	if (ioctl(m, TIOCSPTLCK, &unlock) < 0)
		return -errno;
	/* TIOCGPTPEER opens the peer of this master, not a path's. */
	if ((s = ioctl(m, TIOCGPTPEER, O_RDWR | O_NOCTTY | O_CLOEXEC)) < 0)
		return -errno;
	if (tcsetattr(s, TCSANOW, &t->termios) < 0)
		return -errno;
	if ((t->winsize.ws_row || t->winsize.ws_col) &&
	    ioctl(s, TIOCSWINSZ, &t->winsize) < 0)
		return -errno;
	*ret_master = steal_fd(&m);
	*ret_slave = steal_fd(&s);
	return 0;
}

int
pty_send_fd(int sock, int fd)
{
	char byte = 0, cbuf[CMSG_SPACE(sizeof(int))];
	struct iovec iov = { .iov_base = &byte, .iov_len = 1 };
	struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1,
	    .msg_control = cbuf, .msg_controllen = sizeof(cbuf) };
	struct cmsghdr *c;

	memset(cbuf, 0, sizeof(cbuf));
	c = CMSG_FIRSTHDR(&msg);
	c->cmsg_level = SOL_SOCKET;
	c->cmsg_type = SCM_RIGHTS;
	c->cmsg_len = CMSG_LEN(sizeof(int));
	memcpy(CMSG_DATA(c), &fd, sizeof(int));
	if (sendmsg(sock, &msg, MSG_NOSIGNAL) < 0)
		return -errno;
	return 0;
}

int
pty_recv_fd(int sock)
{
	char byte, cbuf[CMSG_SPACE(sizeof(int))];
	struct iovec iov = { .iov_base = &byte, .iov_len = 1 };
	struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1,
	    .msg_control = cbuf, .msg_controllen = sizeof(cbuf) };
	struct cmsghdr *c;
	ssize_t n;
	int fd;

	if ((n = recvmsg(sock, &msg, MSG_CMSG_CLOEXEC)) < 0)
		return -errno;
	c = CMSG_FIRSTHDR(&msg);
	if (n == 0 || c == NULL || c->cmsg_type != SCM_RIGHTS ||
	    c->cmsg_len != CMSG_LEN(sizeof(int)))
		return -EBADMSG;
	memcpy(&fd, CMSG_DATA(c), sizeof(int));
	return fd;
}

int
pty_raw(int fd)
{
	struct termios t;

	if (tcgetattr(fd, &saved) < 0)
		return -errno;
	saved_fd = fd;
	t = saved;
	cfmakeraw(&t);
	if (tcsetattr(fd, TCSADRAIN, &t) < 0)
		return -errno;
	return 0;
}

void
pty_restore(void)
{
	if (saved_fd >= 0) {
		tcsetattr(saved_fd, TCSADRAIN, &saved);
		saved_fd = -1;
	}
}

void
pty_relay_init(struct pty_relay *r, int master, int in, int out)
{
	memset(r, 0, sizeof(*r));
	r->master = master;
	r->in = in;
	r->out = out;
	fcntl(master, F_SETFL, fcntl(master, F_GETFL) | O_NONBLOCK);
}

size_t
pty_relay_poll(const struct pty_relay *r, struct pollfd *p)
{
	size_t n = 0;

	if (r->master < 0)
		return 0;
	/* Read a side only while its buffer has room: backpressure. */
	p[n++] = (struct pollfd){ .fd = r->master, .events =
	    (r->to_out.len < PTY_BUF ? POLLIN : 0) |
	    (r->to_master.len ? POLLOUT : 0) };
	if (r->in >= 0 && r->to_master.len < PTY_BUF)
		p[n++] = (struct pollfd){ .fd = r->in, .events = POLLIN };
	if (r->to_out.len)
		p[n++] = (struct pollfd){ .fd = r->out, .events = POLLOUT };
	return n;
}

static ssize_t
fill(struct pty_buf *b, int fd)
{
	ssize_t n = read(fd, b->data + b->len, PTY_BUF - b->len);

	if (n > 0)
		b->len += (size_t)n;
	return n;
}

static ssize_t
drain(struct pty_buf *b, int fd)
{
	ssize_t n = write(fd, b->data, b->len);

	if (n > 0) {
		memmove(b->data, b->data + n, b->len - (size_t)n);
		b->len -= (size_t)n;
	}
	return n;
}

bool
pty_relay_step(struct pty_relay *r, const struct pollfd *p, size_t n)
{
	size_t i;

	for (i = 0; i < n && r->master >= 0; i++) {
		if (p[i].revents == 0)
			continue;
		if (p[i].fd == r->master) {
			if ((p[i].revents & POLLOUT) && r->to_master.len)
				drain(&r->to_master, r->master);
			if (p[i].revents & (POLLIN | POLLHUP | POLLERR)) {
				ssize_t k = fill(&r->to_out, r->master);

				/* EIO: every slave end is closed. */
				if (k == 0 || (k < 0 && errno != EAGAIN &&
				    errno != EINTR)) {
					while (r->to_out.len &&
					    drain(&r->to_out, r->out) > 0)
						;
					r->master = -1;
				}
			}
		} else if (p[i].fd == r->in) {
			ssize_t k = fill(&r->to_master, r->in);

			if (k == 0 || (k < 0 && errno != EAGAIN &&
			    errno != EINTR))
				r->in = -1;
		} else if (p[i].fd == r->out) {
			if (drain(&r->to_out, r->out) < 0 && errno != EAGAIN &&
			    errno != EINTR)
				r->to_out.len = 0;	/* nobody reads */
		}
	}
	return r->master >= 0;
}

void
pty_relay_winch(const struct pty_relay *r)
{
	struct winsize ws;

	if (r->master >= 0 && saved_fd >= 0 &&
	    ioctl(saved_fd, TIOCGWINSZ, &ws) == 0)
		ioctl(r->master, TIOCSWINSZ, &ws);
}
