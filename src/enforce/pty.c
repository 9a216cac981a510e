// SPDX-License-Identifier: ISC
/*
 * enforce/pty.c - pseudo-terminal for the command, relay for the supervisor
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

#include "enforce/pty.h"
#include "lib/util.h"

#ifndef TIOCGPTPEER
#define TIOCGPTPEER	_IO('T', 0x41)
#endif

/*
 * Process-wide on purpose: the user's terminal modes (saved, from
 * pty_raw()) and the relay whose reset is due (active) must be put back on
 * every exit path, and die() reaches pty_restore() through log's exit
 * hook, a function without arguments.  There is one user's terminal per
 * process.  active is borrowed: its owner (the supervisor) keeps the relay
 * alive until pty_restore() has let it go.
 */
static struct termios saved;
static int saved_fd = -1;
static struct pty_relay *active;

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
	return pty_send_fd_byte(sock, fd, 0);
}

int
pty_send_fd_byte(int sock, int fd, char byte)
{
	char cbuf[CMSG_SPACE(sizeof(int))];
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

	/* Bounded: one byte (iov) and one fd's control data (cbuf). */
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

/* Write all of buf, waiting for a non-blocking fd; false on an error. */
static bool
write_all(int fd, const char *buf, size_t len)
{
	struct pollfd p = { .fd = fd, .events = POLLOUT };
	ssize_t n;

	while (len > 0) {
		if ((n = write(fd, buf, len)) > 0) {
			buf += n;
			len -= (size_t)n;
		} else if (n < 0 && errno == EAGAIN)
			poll(&p, 1, 1000);
		else if (n < 0 && errno == EINTR)
			continue;
		else
			return false;
	}
	return true;
}

static void
write_reset(struct pty_relay *r)
{
	char buf[TF_RESET_MAX];

	if (r->out_tty)
		write_all(r->out, buf, termfilter_reset(&r->filter, buf));
}

static void
restore_modes(void)
{
	if (saved_fd >= 0) {
		tcsetattr(saved_fd, TCSADRAIN, &saved);
		saved_fd = -1;
	}
}

void
pty_restore(void)
{
	struct pty_relay *r = active;

	active = NULL;
	if (r != NULL) {
		pty_relay_flush(r);
		write_reset(r);
	}
	restore_modes();
}

void
pty_relay_init(struct pty_relay *r, int master, int in, int out,
    bool allow_clipboard_write)
{
	r->master = master;
	r->in = in;
	r->out = out;
	r->tty = in >= 0 ? in : isatty(out) ? out : -1;
	r->out_tty = isatty(out);
	r->to_master_len = r->to_out_off = r->to_out_len = 0;
	termfilter_init(&r->filter, allow_clipboard_write);
	fcntl(master, F_SETFL, fcntl(master, F_GETFL) | O_NONBLOCK);
	active = r;
}

/* How much of the master to read now: the filter's output must fit. */
static size_t
room(const struct pty_relay *r)
{
	size_t avail = PTY_OUT_BUF - r->to_out_off - r->to_out_len;

	if (avail < TF_SLACK + 2 * 4096)
		return 0;
	avail = (avail - TF_SLACK) / 2;
	return avail < PTY_BUF ? avail : PTY_BUF;
}

size_t
pty_relay_poll(const struct pty_relay *r, struct pollfd *p)
{
	size_t n = 0;

	if (r->master < 0)
		return 0;
	/* Read a side only while its buffer has room: backpressure. */
	p[n++] = (struct pollfd){ .fd = r->master, .events =
	    (room(r) ? POLLIN : 0) | (r->to_master_len ? POLLOUT : 0) };
	if (r->in >= 0 && r->to_master_len < PTY_IN_BUF)
		p[n++] = (struct pollfd){ .fd = r->in, .events = POLLIN };
	if (r->to_out_len)
		p[n++] = (struct pollfd){ .fd = r->out, .events = POLLOUT };
	return n;
}

/* The command's output (untrusted), through the filter. */
static ssize_t
fill_out(struct pty_relay *r)
{
	size_t want = room(r);
	ssize_t n;

	if (r->to_out_len == 0)
		r->to_out_off = 0;
	if (want == 0) {
		errno = EAGAIN;
		return -1;
	}
	/* Bounded: room() is at most PTY_BUF, scratch's size. */
	if ((n = read(r->master, r->scratch, want)) > 0)
		r->to_out_len += termfilter_run(&r->filter, r->scratch,
		    (size_t)n, r->to_out + r->to_out_off + r->to_out_len);
	return n;
}

static ssize_t
drain_out(struct pty_relay *r)
{
	ssize_t n = write(r->out, r->to_out + r->to_out_off, r->to_out_len);

	if (n > 0) {
		r->to_out_off += (size_t)n;
		r->to_out_len -= (size_t)n;
		if (r->to_out_len == 0)
			r->to_out_off = 0;
	}
	return n;
}

static ssize_t
fill_in(struct pty_relay *r)
{
	/* Bounded: what is left of to_master (PTY_IN_BUF). */
	ssize_t n = read(r->in, r->to_master + r->to_master_len,
	    PTY_IN_BUF - r->to_master_len);

	if (n > 0)
		r->to_master_len += (size_t)n;
	return n;
}

static void
drain_in(struct pty_relay *r)
{
	ssize_t n = write(r->master, r->to_master, r->to_master_len);

	if (n > 0) {
		memmove(r->to_master, r->to_master + n,
		    r->to_master_len - (size_t)n);
		r->to_master_len -= (size_t)n;
	}
}

/*
 * The command's output while it keeps coming: reads in a row, with no
 * poll(2) between, filtered into one buffer written once at the end.  A
 * read of a pty master returns at most 4 KiB (the line discipline's
 * buffer), and a poll that finds it empty waits for the kernel's flush of
 * the pty as a read does: the read in place of the poll saves a system
 * call per 4 KiB, the one write per round 15 of 16 writes (bench/terminal).
 * A shorter read found the pty emptied (a keystroke's echo): written at
 * once, then poll, not a read sure to fail.  Bounded, so the keyboard and
 * signals wait at most PTY_ROUNDS reads.  False once the master is done
 * (EIO: every slave end is closed); the caller flushes what is left.
 */
static bool
relay_output(struct pty_relay *r)
{
	bool more = true;
	ssize_t k;
	int i;

	for (i = 0; i < PTY_ROUNDS; i++) {
		if ((k = fill_out(r)) == 0 ||
		    (k < 0 && errno != EAGAIN && errno != EINTR)) {
			more = false;
			break;
		}
		if (k < PTY_LDISC / 2 || room(r) == 0)
			break;
	}
	if (r->to_out_len && drain_out(r) < 0 && errno != EAGAIN &&
	    errno != EINTR)
		r->to_out_len = 0;	/* nobody reads */
	return more;
}

void
pty_relay_flush(struct pty_relay *r)
{
	if (r->to_out_len && !write_all(r->out, r->to_out + r->to_out_off,
	    r->to_out_len))
		r->to_out_len = 0;
	r->to_out_off = r->to_out_len = 0;
}

bool
pty_relay_step(struct pty_relay *r, const struct pollfd *p, size_t n)
{
	size_t i;

	for (i = 0; i < n && r->master >= 0; i++) {
		if (p[i].revents == 0)
			continue;
		if (p[i].fd == r->master) {
			if ((p[i].revents & POLLOUT) && r->to_master_len)
				drain_in(r);
			if ((p[i].revents & (POLLIN | POLLHUP | POLLERR)) &&
			    !relay_output(r)) {
				pty_relay_flush(r);
				r->master = -1;
			}
		} else if (p[i].fd == r->in && (p[i].events & POLLIN)) {
			ssize_t k = fill_in(r);

			if (k == 0 || (k < 0 && errno != EAGAIN &&
			    errno != EINTR))
				r->in = -1;
			else if (r->to_master_len)
				drain_in(r);	/* a keystroke waits for no poll */
		} else if (p[i].fd == r->out && (p[i].events & POLLOUT)) {
			if (drain_out(r) < 0 && errno != EAGAIN &&
			    errno != EINTR)
				r->to_out_len = 0;	/* nobody reads */
		}
	}
	return r->master >= 0;
}

void
pty_relay_winch(const struct pty_relay *r)
{
	struct winsize ws;

	if (r->master >= 0 && r->tty >= 0 &&
	    ioctl(r->tty, TIOCGWINSZ, &ws) == 0)
		ioctl(r->master, TIOCSWINSZ, &ws);
}

void
pty_relay_suspend(struct pty_relay *r)
{
	pty_relay_flush(r);
	write_reset(r);
	restore_modes();
}

void
pty_relay_resume(struct pty_relay *r)
{
	/* In the background, this stops confine again (SIGTTOU), as for
	 * any program that takes the terminal: bg then fg. */
	if (r->in >= 0)
		pty_raw(r->in);
	pty_relay_winch(r);
	if (r->out_tty && (r->filter.modes & TF_MODE_ALT))
		write_all(r->out, "\033[?1049h", 8);
}
