// SPDX-License-Identifier: ISC
/*
 * run/inner-main.c - confine-inner, the bwrap backend's inner stage as a
 * program of its own (run/inner-stage.c), run by bwrap inside its sandbox
 * as "confine-inner --inner-stage STAGE_FD STATUS_FD PROXY_FD PTY_FD
 * NOTIFY_FD" from an fd the supervisor opened (run/backend-bwrap.c).
 *
 * confine links libsystemd for the limits' scopes, and with it half a
 * dozen libraries more: loading them again for the inner stage was most
 * of its exec.  This program links only what the inner stage uses.
 *
 * Runs in: bwrap's sandbox; see run/inner-stage.c.
 * MUST: take nothing but the stage and the fds its argv names.
 */
#include "config.h"

#include <string.h>

#include "lib/log.h"
#include "lib/util.h"
#include "policy/bwrap-argv.h"
#include "run/inner-stage.h"

int
main(int argc, char **argv)
{
	if (argc < 2 || !streq(argv[1], BWRAP_INNER_ARG))
		return EXIT_CONFINE;
	return inner_main(argc, argv);
}
