// SPDX-License-Identifier: ISC
/*
 * lib/log.c - stderr messages; die() is the single fatal path.
 *
 * Runs in: the supervisor and, after log_set_child(), the sandboxed child.
 * MUST: in child mode, never call exit() (atexit handlers belong to the
 * supervisor) and never return from die().
 */
#include "config.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/log.h"

static int level = LOG_NORMAL;
static int child_fd = -1;
static void (*exit_hook)(void);

void
log_set_level(int l)
{
	level = l;
}

int
log_get_level(void)
{
	return level;
}

void
log_set_child(int fd)
{
	child_fd = fd;
}

void
log_set_exit_hook(void (*fn)(void))
{
	exit_hook = fn;
}

/* The message is formatted by the caller, whose va_list is ended there. */
static noreturn void
fatal(int status, int err, const char *hint, const char *text)
{
	char msg[STATUS_MAX];
	int n;

	msg[0] = (char)status;
	n = snprintf(msg + 1, sizeof(msg) - 1, "%s", text);
	if (n < 0)
		n = 0;
	if ((size_t)n >= sizeof(msg) - 1)
		n = (int)sizeof(msg) - 2;
	if (err)
		n += snprintf(msg + 1 + n, sizeof(msg) - 1 - (size_t)n,
		    ": %s", strerror(err));
	if ((size_t)n >= sizeof(msg) - 1)
		n = (int)sizeof(msg) - 2;
	if (hint)
		n += snprintf(msg + 1 + n, sizeof(msg) - 1 - (size_t)n,
		    "\nhint: %s", hint);
	if ((size_t)n >= sizeof(msg) - 1)
		n = (int)sizeof(msg) - 2;
	if (child_fd >= 0) {
		/* The supervisor prints it, after restoring the terminal. */
		if (write(child_fd, msg, (size_t)n + 1) < 0)
			dprintf(STDERR_FILENO, "confine: %s\n", msg + 1);
		_exit(status);
	}
	if (exit_hook)
		exit_hook();
	fprintf(stderr, "confine: %.*s\n", n, msg + 1);
	exit(status);
}

void
die(const char *fmt, ...)
{
	char text[STATUS_MAX];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(text, sizeof(text), fmt, ap);
	va_end(ap);
	fatal(EXIT_CONFINE, 0, NULL, text);
}

void
die_errno(int err, const char *fmt, ...)
{
	char text[STATUS_MAX];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(text, sizeof(text), fmt, ap);
	va_end(ap);
	fatal(EXIT_CONFINE, err, NULL, text);
}

void
die_hint(int status, int err, const char *hint, const char *fmt, ...)
{
	char text[STATUS_MAX];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(text, sizeof(text), fmt, ap);
	va_end(ap);
	fatal(status, err, hint, text);
}

static void
say(int min, const char *prefix, const char *fmt, va_list ap)
{
	char buf[1024];

	if (level < min)
		return;
	vsnprintf(buf, sizeof(buf), fmt, ap);
	dprintf(STDERR_FILENO, "confine: %s%s\n", prefix, buf);
}

void
log_warn(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	say(LOG_NORMAL, "warning: ", fmt, ap);
	va_end(ap);
}

void
log_msg(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	say(LOG_NORMAL, "", fmt, ap);
	va_end(ap);
}

void
log_info(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	say(LOG_VERBOSE, "", fmt, ap);
	va_end(ap);
}

void
log_debug(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	say(LOG_DEBUG, "debug: ", fmt, ap);
	va_end(ap);
}
