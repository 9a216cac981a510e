/* SPDX-License-Identifier: ISC */
/*
 * pty.h - the command's pseudo-terminal and the supervisor's relay.
 *
 * The pty is made inside the sandbox, on its own devpts instance, so the
 * command sees /dev/pts/0 and never the user's terminal; its master end is
 * passed out to the supervisor, which relays it to the user's terminal.
 */
#ifndef CONFINE_PTY_H
#define CONFINE_PTY_H

#include <poll.h>
#include <stdbool.h>
#include <stddef.h>

#include "plan.h"

/* Sandbox side: open a pty on /dev/ptmx; set the user's modes and size. */
int	pty_open(const struct plan_tty *, int *ret_master, int *ret_slave);
/* Pass an fd over a unix socket (SCM_RIGHTS), and receive it. */
int	pty_send_fd(int sock, int fd);
int	pty_recv_fd(int sock);

/* Supervisor side: raw mode on the user's terminal, restored by
 * pty_restore() on every exit path (it is safe to call twice). */
int	pty_raw(int fd);
void	pty_restore(void);

#define PTY_BUF	8192

struct pty_buf {
	char	data[PTY_BUF];
	size_t	len;
};

struct pty_relay {
	int		master;	/* -1 once closed */
	int		in;	/* the user's terminal (input); -1 at EOF */
	int		out;	/* where the command's output goes */
	struct pty_buf	to_master, to_out;
};

void	pty_relay_init(struct pty_relay *, int master, int in, int out);
/* Fill up to 4 pollfds; returns how many. */
size_t	pty_relay_poll(const struct pty_relay *, struct pollfd *);
/* Move data for the ready pollfds.  Returns false once the master is done. */
bool	pty_relay_step(struct pty_relay *, const struct pollfd *, size_t);
/* Copy the window size of the user's terminal to the pty. */
void	pty_relay_winch(const struct pty_relay *);

#endif
