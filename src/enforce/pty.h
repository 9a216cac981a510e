/* SPDX-License-Identifier: ISC */
/*
 * enforce/pty.h - the command's pseudo-terminal and the supervisor's relay.
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

#include "lib/term-filter.h"
#include "policy/plan.h"

/* Sandbox side: open a pty on /dev/ptmx; set the user's modes and size. */
int	pty_open(const struct plan_tty *, int *ret_master, int *ret_slave);
/* Pass an fd over a unix socket (SCM_RIGHTS), and receive it. */
int	pty_send_fd(int sock, int fd);
/* The same, with the data byte the receiver checks. */
int	pty_send_fd_byte(int sock, int fd, char byte);
int	pty_recv_fd(int sock);

/* Supervisor side: raw mode on the user's terminal, restored by
 * pty_restore() on every exit path (it is safe to call twice); that also
 * writes the relay's reset (termfilter_reset) to the terminal once. */
int	pty_raw(int fd);
void	pty_restore(void);

/* Reads of the command's output; the filter may double them (C1 forms). */
#define PTY_BUF		(64 * 1024)
#define PTY_OUT_BUF	(2 * PTY_BUF + TF_SLACK)
#define PTY_IN_BUF	8192
/* The most one read of a pty master returns (the kernel's n_tty buffer). */
#define PTY_LDISC	4096
/* Reads of the master in a row, without a poll, while output comes. */
#define PTY_ROUNDS	16

struct pty_relay {
	int		master;	/* -1 once closed */
	int		in;	/* the user's terminal (input); -1: none, EOF */
	int		out;	/* where the command's output goes */
	int		tty;	/* the user's terminal: modes, size; or -1 */
	bool		out_tty;	/* out is a terminal: reset it */
	struct termfilter filter;
	size_t		to_master_len, to_out_off, to_out_len;
	char		to_master[PTY_IN_BUF];
	char		scratch[PTY_BUF];
	char		to_out[PTY_OUT_BUF];
};

/*
 * in: the user's terminal when stdin is one (else -1); out: the terminal
 * the command's output goes to.  Registers the relay for pty_restore.
 */
void	pty_relay_init(struct pty_relay *, int master, int in, int out,
	    bool allow_clipboard_write);
/* Fill up to 3 pollfds; returns how many. */
size_t	pty_relay_poll(const struct pty_relay *, struct pollfd *);
/* Move data for the ready pollfds.  Returns false once the master is done. */
bool	pty_relay_step(struct pty_relay *, const struct pollfd *, size_t);
/* Copy the window size of the user's terminal to the pty (the kernel sends
 * the command SIGWINCH when it changed). */
void	pty_relay_winch(const struct pty_relay *);
/* Write what is queued for the terminal, blocking. */
void	pty_relay_flush(struct pty_relay *);
/* Job control: give the terminal back as at exit (reset, the user's
 * modes), and take it again after fg (raw, the size, the screen). */
void	pty_relay_suspend(struct pty_relay *);
void	pty_relay_resume(struct pty_relay *);

#endif
