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
#include <sys/prctl.h>
#include <time.h>
#include <unistd.h>

#include "enforce/capabilities.h"
#include "enforce/network.h"
#include "lib/fdio.h"
#include "lib/log.h"
#include "lib/util.h"
#include "policy/plan-wire.h"
#include "run/backend.h"
#include "run/command-exec.h"
#include "run/inner-stage.h"
#include "run/notify.h"

/*
 * The inner stage, inside bwrap's sandbox: confine STAGE_FD STATUS_FD
 * PROXY_FD PTY_FD NOTIFY_FD after BWRAP_INNER_ARG.  bwrap has made the namespaces and
 * mounts, dropped the capabilities, set no_new_privs and loaded the filter.
 */
int
inner_main(int argc, char **argv)
{
	struct plan p;
	struct timespec start_after;
	int stage, status, proxy, ptysock, notify, slave, r = 0;
	const char *what;
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
	    (r = stage_decode(wire, (size_t)n, &p, &start_after)) < 0)
		die_errno(n < 0 ? (int)-n : -r,
		    "bwrap: the inner stage cannot read its plan");
	close(stage);
	/* What bwrap promised, checked. */
	if ((r = caps_verify(true, &what)) < 0)
		die_errno(-r, "capabilities: bwrap left the %s non-empty", what);
	if (prctl(PR_GET_NO_NEW_PRIVS, 0, 0, 0, 0) != 1)
		die("bwrap did not set no_new_privs");
	if (prctl(PR_GET_SECCOMP, 0, 0, 0, 0) != 2)
		die("seccomp: bwrap did not load the filter");
	/* A pty on bwrap's own devpts; the master goes out. */
	slave = sandbox_pty_out(&p.tty, ptysock < 3 ? -1 : ptysock);
	if (p.net == PLAN_NET_PROXY) {
		int l;

		if ((l = net_proxy_listener()) < 0)
			die_errno(-l, "network: cannot listen for the proxy");
		sandbox_send_out(proxy < 3 ? -1 : proxy, l,
		    "network: the proxy's socket");
	}
	/*
	 * Last before the command, as it hands sendmsg(2) to the supervisor:
	 * unix connects and sends, and file locks (run/notify.c).
	 */
	if (notify < 3)
		die("seccomp: no channel for the listener");
	if ((r = unotify_install(notify, &what)) < 0)
		die_errno(-r, "seccomp: %s", what);
	close(notify);
	if (write(status, &ready, 1) != 1)
		die_errno(errno, "status pipe");
	sandbox_command(&p, &start_after, slave, status, -1, -1);
}
