// SPDX-License-Identifier: ISC
/*
 * kh-serve.c - the keyholder's transport (src/keyholder/transport.c) with
 * a test hook, for tests/integration/keyholder-transport.sh and
 * bench/keyholder.  Test code, not part of confine.
 *
 *   kh-serve LISTEN_PORT UPSTREAM_HOST UPSTREAM_PORT [CA_FILE]
 *
 * Listens on 127.0.0.1:LISTEN_PORT (0: any), prints "port N", serves
 * until its standard input reaches its end, then prints the counts.  The
 * hook puts "x-api-key: REAL-KEY" in place of any Authorization or
 * x-api-key header, and refuses the target "/refuse" with 403 and JSON.
 * KH_CONNECT_SECONDS, KH_HEAD_SECONDS and KH_IDLE_SECONDS set the
 * timeouts (10, 10, 60); KH_QUIET=1 keeps the log quiet.
 *
 * Runs in: the test's process, on the host.
 */
#include "config.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "keyholder/hook.h"
#include "keyholder/transport.h"
#include "lib/log.h"
#include "lib/util.h"

static enum kh_verdict
test_hook(void *arg, struct kh_request *req, struct kh_refusal *ret)
{
	static const char body[] = "{\"type\":\"error\",\"error\":{\"type\":"
	    "\"permission_error\",\"message\":\"refused by the test hook\"}}";

	(void)arg;
	if (streq(req->target, "/refuse")) {
		ret->status = 403;
		ret->content_type = xstrdup("application/json");
		ret->body = xstrdup(body);
		ret->body_len = strlen(body);
		ret->reason = xstrdup("the test hook refuses /refuse");
		return KH_REFUSE;
	}
	kh_header_remove(req, "authorization");
	kh_header_remove(req, "x-api-key");
	kh_header_add(req, "x-api-key", "REAL-KEY");
	return KH_FORWARD;
}

static int
env_int(const char *name, int dflt)
{
	const char *v = getenv(name);

	return v && *v ? atoi(v) : dflt;
}

int
main(int argc, char **argv)
{
	struct sockaddr_in sa = { .sin_family = AF_INET };
	socklen_t sl = sizeof(sa);
	struct kh_upstream up = { 0 };
	struct kh_stats st = { 0 };
	int fd, one = 1, r;

	if (argc < 4 || argc > 5) {
		fprintf(stderr, "usage: kh-serve LISTEN_PORT UPSTREAM_HOST "
		    "UPSTREAM_PORT [CA_FILE]\n");
		return 2;
	}
	if (!getenv("KH_QUIET"))
		log_set_level(LOG_VERBOSE);
	up.host = argv[2];
	up.port = argv[3];
	up.ca_file = argc == 5 ? argv[4] : NULL;
	up.connect_seconds = env_int("KH_CONNECT_SECONDS", 10);
	up.head_seconds = env_int("KH_HEAD_SECONDS", 10);
	up.idle_seconds = env_int("KH_IDLE_SECONDS", 60);
	sa.sin_port = htons((unsigned short)atoi(argv[1]));
	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if ((fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0)) < 0 ||
	    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) < 0 ||
	    bind(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0 ||
	    listen(fd, 128) < 0 ||
	    getsockname(fd, (struct sockaddr *)&sa, &sl) < 0)
		die_errno(errno, "kh-serve: cannot listen");
	printf("port %u\n", ntohs(sa.sin_port));
	fflush(stdout);
	r = kh_serve(fd, STDIN_FILENO, &up, test_hook, NULL, &st);
	printf("forwarded %lu refused %lu failed %lu bad %lu\n",
	    atomic_load(&st.forwarded), atomic_load(&st.refused),
	    atomic_load(&st.failed), atomic_load(&st.bad));
	if (r < 0)
		die_errno(-r, "kh-serve: kh_serve");
	return 0;
}
