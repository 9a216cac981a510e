// SPDX-License-Identifier: ISC
/*
 * test-spawn.c - spawn_capture (lib/spawn.h), the one way confine runs a
 * program for its output: the exact bytes and the program's status; never
 * more than the caller's bound, even from a program that writes without
 * end (its status is still collected: no child left behind); stderr only
 * when asked; a program that cannot run is its exec status, not output.
 */
#include "config.h"

#include <errno.h>
#include <signal.h>
#include <stdbool.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "lib/spawn.h"
#include "lib/util.h"

#include "tap.h"

static int
capture(const char *script, bool with_stderr, char *buf, size_t cap,
    size_t *len)
{
	char *const argv[] = { (char *)"sh", (char *)"-c", (char *)script,
	    NULL };
	struct spawn_opts o = SPAWN_OPTS_INIT;

	return spawn_capture("/bin/sh", argv, &o, with_stderr, buf, cap, len);
}

int
main(void)
{
	char buf[64];
	size_t len = 99;
	int status;

	status = capture("printf 'one\\ntwo'; exit 3", false, buf, sizeof(buf),
	    &len);
	ok(WIFEXITED(status) && WEXITSTATUS(status) == 3,
	    "the program's exit status");
	ok(len == 7 && memcmp(buf, "one\ntwo", 7) == 0,
	    "the exact bytes it wrote (%zu)", len);

	/* A program that writes without end: the bound holds, and the wait
	 * returns (the closed pipe ends it). */
	memset(buf, 'x', sizeof(buf));
	status = capture("yes", false, buf, 16, &len);
	ok(len == 16, "no more than the bound from an endless writer (%zu)",
	    len);
	ok(buf[16] == 'x', "nothing written past the bound");
	/* SIGPIPE, or EPIPE where the test runs with SIGPIPE ignored. */
	ok(status >= 0 && ((WIFSIGNALED(status) &&
	    WTERMSIG(status) == SIGPIPE) || (WIFEXITED(status) &&
	    WEXITSTATUS(status) != 0)),
	    "the endless writer is waited for (ended by the closed pipe)");

	status = capture("echo out; echo err >&2", false, buf, sizeof(buf),
	    &len);
	ok(status == 0 && len == 4 && memcmp(buf, "out\n", 4) == 0,
	    "stderr is not captured unless asked");
	status = capture("echo out; echo err >&2", true, buf, sizeof(buf),
	    &len);
	ok(status == 0 && len == 8 && memcmp(buf, "out\nerr\n", 8) == 0,
	    "stderr is captured when asked (control)");

	{
		char *const argv[] = { (char *)"/nonexistent/prog", NULL };
		struct spawn_opts o = SPAWN_OPTS_INIT;

		status = spawn_capture(argv[0], argv, &o, true, buf,
		    sizeof(buf), &len);
		ok(WIFEXITED(status) && WEXITSTATUS(status) == 127 && len == 0,
		    "a program that cannot run: exit 127, no output");
	}
	return done();
}
