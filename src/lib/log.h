/* SPDX-License-Identifier: ISC */
/*
 * lib/log.h - messages on stderr and the fatal exits.
 *
 * Messages read "confine: <what failed>[: <strerror>]", lower case, no final
 * period.  die*() exit with status 125 (confine itself failed or refused).
 * In the sandboxed child, log_set_child() routes the fatal message to the
 * supervisor over the status pipe and makes die*() use _exit().
 */
#ifndef CONFINE_LOG_H
#define CONFINE_LOG_H

#include <stdnoreturn.h>

#define EXIT_CONFINE	125	/* confine failed or refused */
#define EXIT_NOEXEC	126	/* the command cannot be executed */
#define EXIT_NOTFOUND	127	/* the command was not found */

enum log_level { LOG_QUIET = -1, LOG_NORMAL = 0, LOG_VERBOSE = 1, LOG_DEBUG = 2 };

void	log_set_level(int);
int	log_get_level(void);
/* Child mode: fatal messages go to fd (a status record) and die uses _exit. */
void	log_set_child(int fd);
/* Called before exit() in the parent, to restore the terminal. */
void	log_set_exit_hook(void (*)(void));

noreturn void die(const char *, ...) __attribute__((format(printf, 1, 2)));
noreturn void die_errno(int, const char *, ...)
    __attribute__((format(printf, 2, 3)));
/* As die_errno, with a "hint:" line and an exit status of the caller's. */
noreturn void die_hint(int status, int err, const char *hint,
    const char *, ...) __attribute__((format(printf, 4, 5)));
void	log_warn(const char *, ...) __attribute__((format(printf, 1, 2)));
/* A message at normal verbosity (hidden by -q). */
void	log_msg(const char *, ...) __attribute__((format(printf, 1, 2)));
void	log_info(const char *, ...) __attribute__((format(printf, 1, 2)));
void	log_debug(const char *, ...) __attribute__((format(printf, 1, 2)));

/*
 * The status record a child sends before it exits: one exit status byte,
 * then the message text.  At most STATUS_MAX bytes, so one write is atomic.
 */
#define STATUS_MAX	512

#endif
