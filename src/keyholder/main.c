// SPDX-License-Identifier: ISC
/*
 * main.c - confine-keyholder: hold the user's credential for one session
 * and put it on the agent's inference requests, outside the sandbox.
 *
 *   confine-keyholder --provider anthropic|openai|gemini
 *       --kind api-key|bearer --upstream HOST[:PORT] [--ca FILE]
 *       [--web-search] (--variable NAME | --file PATH [--field A.B] |
 *       --command CMD) --listen-fd N --stop-fd N [--stats-fd N] [-v]
 *
 * Started by confine's supervisor for a session that injects a credential
 * (a program of its own, as confine-export is, so that confine never
 * loads TLS or holds the credential): it serves the agent's connections
 * on the listener confine made in the sandbox's network, until stop-fd
 * is readable or closed, then writes its counts to stats-fd.
 *
 * Runs in: the host, outside the sandbox, as the user.
 * MUST: never print the credential, nor let it reach a core dump (not
 * dumpable, no core, memory locked where the limits allow).
 */
#include "config.h"

#include <errno.h>
#include <getopt.h>
#include <jansson.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <unistd.h>

#include "keyholder/credential.h"
#include "keyholder/policy.h"
#include "keyholder/transport.h"
#include "lib/log.h"
#include "lib/util.h"

struct opts {
	struct kh_policy	 pol;
	struct kh_upstream	 up;
	enum kh_cred_source	 src;
	const char		*spec, *field;
	int			 listen_fd, stop_fd, stats_fd;
};

static noreturn void
usage(const char *why)
{
	die("%s (confine-keyholder is started by confine)", why);
}

static int
fd_arg(const char *s)
{
	char *end;
	long v = strtol(s, &end, 10);

	if (*s == '\0' || *end != '\0' || v < 3 || v > 65535)
		usage("a file descriptor argument is not one");
	return (int)v;
}

/* HOST[:PORT]: the host kept in place, the port split off. */
static void
upstream_arg(struct opts *o, char *s)
{
	char *colon = strrchr(s, ':');

	o->up.host = s;
	o->up.port = "443";
	if (colon && strchr(colon, ']') == NULL) {
		*colon = '\0';
		o->up.port = colon + 1;
	}
	if (o->up.host[0] == '\0' || o->up.port[0] == '\0')
		usage("--upstream is HOST[:PORT]");
}

static void
parse(int argc, char **argv, struct opts *o)
{
	static const struct option longopts[] = {
		{ "provider", required_argument, NULL, 'p' },
		{ "kind", required_argument, NULL, 'k' },
		{ "upstream", required_argument, NULL, 'u' },
		{ "ca", required_argument, NULL, 'c' },
		{ "web-search", no_argument, NULL, 'w' },
		{ "variable", required_argument, NULL, 'V' },
		{ "file", required_argument, NULL, 'F' },
		{ "field", required_argument, NULL, 'f' },
		{ "command", required_argument, NULL, 'C' },
		{ "listen-fd", required_argument, NULL, 'l' },
		{ "stop-fd", required_argument, NULL, 's' },
		{ "stats-fd", required_argument, NULL, 'S' },
		{ "verbose", no_argument, NULL, 'v' },
		{ NULL, 0, NULL, 0 },
	};
	int c, p, verbose = 0, nsrc = 0;

	memset(o, 0, sizeof(*o));
	o->listen_fd = o->stop_fd = o->stats_fd = -1;
	o->up.connect_seconds = 30;
	o->up.head_seconds = 60;
	o->up.idle_seconds = 600;
	o->pol.provider = (enum kh_provider)-1;
	while ((c = getopt_long(argc, argv, "v", longopts, NULL)) != -1) {
		switch (c) {
		case 'p':
			if ((p = kh_provider_from_name(optarg)) < 0)
				usage("--provider is anthropic, openai or "
				    "gemini");
			o->pol.provider = (enum kh_provider)p;
			break;
		case 'k':
			if (streq(optarg, "api-key"))
				o->pol.kind = KH_CRED_API_KEY;
			else if (streq(optarg, "bearer"))
				o->pol.kind = KH_CRED_BEARER;
			else
				usage("--kind is api-key or bearer");
			break;
		case 'u':
			upstream_arg(o, optarg);
			break;
		case 'c':
			o->up.ca_file = optarg;
			break;
		case 'w':
			o->pol.web_search = true;
			break;
		case 'V': case 'F': case 'C':
			o->src = c == 'V' ? KH_FROM_VARIABLE : c == 'F' ?
			    KH_FROM_FILE : KH_FROM_COMMAND;
			o->spec = optarg;
			nsrc++;
			break;
		case 'f':
			o->field = optarg;
			break;
		case 'l':
			o->listen_fd = fd_arg(optarg);
			break;
		case 's':
			o->stop_fd = fd_arg(optarg);
			break;
		case 'S':
			o->stats_fd = fd_arg(optarg);
			break;
		case 'v':
			verbose++;
			break;
		default:
			usage("bad arguments");
		}
	}
	log_set_level(verbose);
	if (optind != argc || nsrc != 1 || o->up.host == NULL ||
	    (int)o->pol.provider < 0 || o->listen_fd < 0 || o->stop_fd < 0 ||
	    (o->field && o->src == KH_FROM_VARIABLE))
		usage("bad arguments");
}

/* Nothing of this process may be read or dumped: it holds the secret. */
static void
protect(void)
{
	struct rlimit none = { 0, 0 };

	if (prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) < 0 ||
	    setrlimit(RLIMIT_CORE, &none) < 0)
		die_errno(errno, "cannot make the keyholder non-dumpable");
}

/*
 * The secret in pages of its own: locked where RLIMIT_MEMLOCK allows (no
 * swap), left out of any dump.  The heap copy is wiped and freed.
 */
static char *
keep_secret(char *heap)
{
	size_t len = strlen(heap) + 1;
	long page = sysconf(_SC_PAGESIZE);
	size_t size = (len + (size_t)page - 1) / (size_t)page * (size_t)page;
	char *p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE |
	    MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED)
		die_errno(errno, "keyholder: mmap");
	if (mlock(p, size) < 0)
		log_info("keyholder: the credential's page is not locked "
		    "(%s)", strerror(errno));
	madvise(p, size, MADV_DONTDUMP);
	memcpy(p, heap, len);
	explicit_bzero(heap, len);
	free(heap);
	return p;
}

static void
write_stats(int fd, struct kh_stats *st)
{
	if (fd < 0)
		return;
	dprintf(fd, "forwarded=%lu\nrefused=%lu\nfailed=%lu\nbad=%lu\n",
	    atomic_load(&st->forwarded), atomic_load(&st->refused),
	    atomic_load(&st->failed), atomic_load(&st->bad));
	close(fd);
}

int
main(int argc, char **argv)
{
	struct opts o;
	struct kh_stats st = { 0 };
	autofree char *why = NULL;
	char *secret = NULL;
	int r;

	protect();
	parse(argc, argv, &o);
	/* jansson seeds its hash tables once, here, not from /dev/urandom
	 * on the first request. */
	json_object_seed(0);
	signal(SIGPIPE, SIG_IGN);
	if (kh_credential_read(o.src, o.spec, o.field, &secret, &why) < 0)
		die("credential: %s", why);
	/* Only this process needed it; nothing it runs will see it. */
	if (o.src == KH_FROM_VARIABLE)
		unsetenv(o.spec);
	o.pol.secret = secret = keep_secret(secret);
	r = kh_serve(o.listen_fd, o.stop_fd, &o.up, kh_policy_hook, &o.pol,
	    &st);
	explicit_bzero(secret, strlen(secret));
	write_stats(o.stats_fd, &st);
	if (r < 0)
		die_errno(-r, "keyholder");
	return 0;
}
