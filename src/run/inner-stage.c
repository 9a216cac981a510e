// SPDX-License-Identifier: ISC
/*
 * run/inner-stage.c - confine's inner stage, which bwrap runs in its
 * sandbox (run/backend-bwrap.c): it checks what bwrap promised, takes the
 * terminal, makes the proxy's socket in bwrap's network namespace, hands
 * the user-notification listener out, and runs the command's last steps
 * (run/command-exec.c).
 *
 * Runs in: bwrap's sandbox, with bwrap's namespaces, mounts, empty
 * capability sets, no_new_privs and filter in place.
 * MUST: report every failure on the status pipe and never exec the
 * command unconfined.
 * MUST: read the stage with a bound (STAGE_MAX), checked as any input.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "lib/fdio.h"
#include "lib/log.h"
#include "lib/util.h"
#include "policy/plan-wire.h"
#include "run/backend.h"
#include "run/inner-stage.h"
#include "run/steps.h"

/*
 * The inner stage, inside bwrap's sandbox: confine STAGE_FD STATUS_FD
 * PROXY_FD PTY_FD NOTIFY_FD after BWRAP_INNER_ARG.  bwrap has made the namespaces and
 * mounts, dropped the capabilities, set no_new_privs and loaded the filter.
 */
int
inner_main(int argc, char **argv)
{
	struct plan p;
	struct stage_run run;
	struct step_ctx c;
	int stage, status, proxy, ptysock, notify, r = 0;
	char ready = REC_READY;
	autofree char *wire = NULL;
	ssize_t n;

	if (argc != 7)
		return EXIT_CONFINE;
	stage = atoi(argv[2]);
	status = atoi(argv[3]);
	proxy = atoi(argv[4]);
	ptysock = atoi(argv[5]);
	notify = atoi(argv[6]);
	if (stage < 3 || status < 3 || fcntl(status, F_SETFD, FD_CLOEXEC) < 0)
		return EXIT_CONFINE;
	log_set_child(status);
	if ((n = fd_read_all(stage, STAGE_MAX, &wire)) < 0 ||
	    (r = stage_decode(wire, (size_t)n, &p, &run)) < 0)
		die_errno(n < 0 ? (int)-n : -r,
		    "bwrap: the inner stage cannot read its plan");
	if (p.backend != PLAN_BACKEND_BWRAP)
		die("bwrap: the inner stage's plan is not bwrap's");
	close(stage);
	log_set_level(run.log_level);
	/* What bwrap promised, checked; the terminal, the proxy's socket
	 * and the listener out; then the command's steps. */
	steps_ctx_init(&c, &p);
	c.start_after = run.start_after;
	c.status_fd = status;
	c.pty_sock = ptysock < 3 ? -1 : ptysock;
	c.proxy_sock = proxy < 3 ? -1 : proxy;
	c.notify_sock = notify < 3 ? -1 : notify;
	/* c.env_area stays empty: bwrap cleared this exec's environment
	 * (--clearenv), and its argv holds only fd numbers; the
	 * environment step empties environ.  c.sigpipe stays zero: the
	 * command gets SIGPIPE's default. */
	steps_run(&c, STEP_IN_SETUP);
	if (write(status, &ready, 1) != 1)
		die_errno(errno, "status pipe");
	steps_run_command(&c);
}
