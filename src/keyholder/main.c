// SPDX-License-Identifier: ISC
/*
 * main.c - confine-keyholder: hold the user's credential for one session
 * and put it on the agent's inference requests, outside the sandbox.
 *
 *   confine-keyholder --provider anthropic|openai|gemini
 *       --upstream HOST[:PORT] [--ca FILE] [--web-search]
 *       SOURCE... [--refresh HOST[:PORT]]
 *       (--control-fd N | --listen-fd N --stop-fd N [--stats-fd N]) [-v]
 *
 *   SOURCE: [--kind api-key|bearer|login] (--variable NAME |
 *       --file PATH [--field A.B] | --command CMD)
 *
 * Each --variable, --file or --command adds a source, of the --kind last
 * given before it (api-key at first); --field is the JSON field of the
 * --file (or --command) just before it.  The first source that yields a
 * credential wins; one that does not exist is passed over, one that is
 * bad ends the search (credential.h).  A login (--kind login, a --file:
 * Claude's ~/.claude/.credentials.json, --field claudeAiOauth) is renewed
 * at the token endpoint --refresh names when it comes due, and written
 * back to its file.
 *
 * Started by confine's supervisor for a session that injects a credential
 * (a program of its own, as confine-export is, so that confine never
 * loads TLS or holds the credential).  With --control-fd, N is confine's
 * end of a socketpair (AF_UNIX, SOCK_STREAM):
 *   1. once it holds the credential, the keyholder writes "ready\n"; if
 *      it cannot, it says why in one line on stderr and exits 1, having
 *      written nothing;
 *   2. it receives one message, the byte 'L' with the listener (bound and
 *      listening in the sandbox's network) as SCM_RIGHTS; at EOF instead
 *      it exits 0;
 *   3. it serves until N reads EOF (or fails), then writes its counts,
 *      KEY=VALUE lines (forwarded, refused, failed, bad, refreshed), to N
 *      and exits 0.
 * The older form takes the listener as --listen-fd, stops when --stop-fd
 * is readable or closed, and writes its counts to --stats-fd.
 *
 * Runs in: the host, outside the sandbox, as the user.
 * MUST: never print the credential, nor let it reach a core dump (not
 * dumpable, no core, memory locked where the limits allow).
 * MUST: serialise a login's refreshes, and let no request see a token
 * while it is being replaced.
 */
#include "config.h"

#include <errno.h>
#include <getopt.h>
#include <jansson.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "keyholder/credential.h"
#include "keyholder/policy.h"
#include "keyholder/transport.h"
#include "lib/fdio.h"
#include "lib/log.h"
#include "lib/util.h"

#define SOURCES_MAX		16
/* A login is renewed when it expires within this. */
#define REFRESH_AHEAD_MS	(5 * 60 * 1000)
/* After a failed refresh, requests go on with the old token this long. */
#define REFRESH_BACKOFF_MS	(30 * 1000)
/* The token endpoint's answer at most. */
#define GRANT_MAX		(64 * 1024)

/*
 * Claude Code's login, as it refreshes it today: a POST of a JSON object
 * (grant_type "refresh_token", the refresh_token, Claude Code's public
 * OAuth client_id) to this path on the token endpoint's host
 * (platform.claude.com); the answer is a JSON object with access_token,
 * refresh_token (the old one is then spent) and expires_in (seconds).
 */
#define LOGIN_TOKEN_PATH	"/v1/oauth/token"
#define LOGIN_CLIENT_ID		"9d1c250a-e61b-44d9-88ed-5944d1962f5e"

struct opts {
	struct kh_policy	 pol;
	struct kh_upstream	 up;
	struct kh_upstream	 token;		/* --refresh, or host NULL */
	struct kh_source	 src[SOURCES_MAX];
	size_t			 nsrc;
	int			 listen_fd, stop_fd, stats_fd, control_fd;
};

/*
 * The credential while the keyholder serves: pol.secret is replaced only
 * under the write lock, read under the read lock.
 */
struct keeper {
	struct kh_policy	 pol;
	pthread_rwlock_t	 lock;
	const struct kh_source	*src;		/* the winner; borrowed */
	const struct kh_upstream *token;	/* borrowed */
	struct kh_login		 login;		/* a login's, under lock */
	bool			 is_login;
	int64_t			 retry_ms;	/* no refresh before this */
	atomic_ulong		 refreshed;
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
host_arg(struct kh_upstream *up, char *s, const char *opt)
{
	char *colon = strrchr(s, ':');

	up->host = s;
	up->port = "443";
	if (colon && strchr(colon, ']') == NULL) {
		*colon = '\0';
		up->port = colon + 1;
	}
	if (up->host[0] == '\0' || up->port[0] == '\0')
		usage(opt);
}

static void
source_arg(struct opts *o, int c, enum kh_source_kind kind, const char *spec)
{
	struct kh_source *s;

	if (o->nsrc == SOURCES_MAX)
		usage("more than 16 credential sources");
	s = &o->src[o->nsrc++];
	s->from = c == 'V' ? KH_FROM_VARIABLE : c == 'F' ? KH_FROM_FILE :
	    KH_FROM_COMMAND;
	s->kind = kind;
	s->spec = spec;
	if (kind == KH_KIND_LOGIN && s->from != KH_FROM_FILE)
		usage("--kind login takes a --file (its tokens are written "
		    "back)");
}

static void
field_arg(struct opts *o, const char *field)
{
	struct kh_source *s = o->nsrc ? &o->src[o->nsrc - 1] : NULL;

	if (s == NULL || s->from == KH_FROM_VARIABLE || s->field)
		usage("--field follows the --file it is a field of");
	s->field = field;
}

static void
defaults(struct opts *o)
{
	memset(o, 0, sizeof(*o));
	o->listen_fd = o->stop_fd = o->stats_fd = o->control_fd = -1;
	o->up.connect_seconds = o->token.connect_seconds = 30;
	o->up.head_seconds = o->token.head_seconds = 60;
	o->up.idle_seconds = 600;
	o->token.idle_seconds = 60;
	o->pol.provider = (enum kh_provider)-1;
}

/* What the command line says, checked as a whole. */
static void
check(const struct opts *o)
{
	bool login = false;
	size_t i;

	for (i = 0; i < o->nsrc; i++)
		login = login || o->src[i].kind == KH_KIND_LOGIN;
	if (o->nsrc == 0 || o->up.host == NULL || (int)o->pol.provider < 0)
		usage("bad arguments");
	if ((o->control_fd >= 0) == (o->listen_fd >= 0 || o->stop_fd >= 0 ||
	    o->stats_fd >= 0) || (o->control_fd < 0 && (o->listen_fd < 0 ||
	    o->stop_fd < 0)))
		usage("--control-fd, or --listen-fd and --stop-fd");
	if (login && o->pol.provider != KH_ANTHROPIC)
		usage("--kind login is Claude's login (--provider anthropic)");
	if (login && o->token.host == NULL)
		usage("--kind login needs --refresh HOST[:PORT]");
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
		{ "refresh", required_argument, NULL, 'r' },
		{ "control-fd", required_argument, NULL, 'x' },
		{ "listen-fd", required_argument, NULL, 'l' },
		{ "stop-fd", required_argument, NULL, 's' },
		{ "stats-fd", required_argument, NULL, 'S' },
		{ "verbose", no_argument, NULL, 'v' },
		{ NULL, 0, NULL, 0 },
	};
	enum kh_source_kind kind = KH_KIND_API_KEY;
	int c, p, verbose = 0;

	defaults(o);
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
				kind = KH_KIND_API_KEY;
			else if (streq(optarg, "bearer"))
				kind = KH_KIND_BEARER;
			else if (streq(optarg, "login"))
				kind = KH_KIND_LOGIN;
			else
				usage("--kind is api-key, bearer or login");
			break;
		case 'u':
			host_arg(&o->up, optarg, "--upstream is HOST[:PORT]");
			break;
		case 'c':
			o->up.ca_file = o->token.ca_file = optarg;
			break;
		case 'w':
			o->pol.web_search = true;
			break;
		case 'V': case 'F': case 'C':
			source_arg(o, c, kind, optarg);
			break;
		case 'f':
			field_arg(o, optarg);
			break;
		case 'r':
			host_arg(&o->token, optarg, "--refresh is HOST[:PORT]");
			break;
		case 'x':
			o->control_fd = fd_arg(optarg);
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
	if (optind != argc)
		usage("bad arguments");
	check(o);
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

static size_t
secret_size(size_t len)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE);

	return (len + 1 + page - 1) / page * page;
}

/*
 * The secret in pages of its own: locked where RLIMIT_MEMLOCK allows (no
 * swap), left out of any dump.  The heap copy is wiped and freed.
 */
static char *
keep_secret(char *heap)
{
	size_t len = strlen(heap) + 1, size = secret_size(len - 1);
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
drop_secret(const char *p)
{
	size_t len = strlen(p);

	explicit_bzero((char *)p, len);
	munmap((char *)p, secret_size(len));
}

/* The time of day in ms: a login's expiresAt is one. */
static int64_t
wall_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static bool
due(const struct keeper *k, int64_t now)
{
	return k->is_login && k->login.expires_ms != 0 &&
	    now + REFRESH_AHEAD_MS >= k->login.expires_ms;
}

/*
 * The login's file, read again: when the host's own client renewed it
 * meanwhile (another access token), its tokens replace the keyholder's,
 * whose refresh token that renewal spent.  Whether they did.
 */
static bool
adopt(struct keeper *k)
{
	struct kh_login disk = { 0 };
	char *access = NULL, *why = NULL;

	if (kh_credential_find(k->src, 1, &access, &disk, &why) < 0) {
		free(why);
		return false;
	}
	if (streq(access, k->pol.secret)) {
		explicit_bzero(access, strlen(access));
		free(access);
		kh_login_clear(&disk);
		return false;
	}
	kh_login_clear(&k->login);
	k->login = disk;
	drop_secret(k->pol.secret);
	k->pol.secret = keep_secret(access);
	log_info("keyholder: the login was renewed on the host; taken");
	return true;
}

/*
 * Renew a login, under the write lock: with the host's newer tokens if it
 * has some that are not due, else at the token endpoint; the new access
 * token replaces the old, the tokens go back to the file (a failure there
 * is logged: the new token is in memory).  0, or -1 with *why.
 */
static int
refresh(struct keeper *k, char **why)
{
	char *body, *resp = NULL, *access = NULL, *store_why = NULL;
	size_t len = 0;
	int st = 0, r;

	if (adopt(k) && !due(k, wall_ms()))
		return 0;
	if (k->login.refresh == NULL) {
		*why = xstrdup("the login holds no refresh token");
		return -1;
	}
	body = kh_login_grant_body(k->login.refresh, LOGIN_CLIENT_ID);
	r = kh_fetch(k->token, "POST", LOGIN_TOKEN_PATH, "application/json",
	    body, GRANT_MAX, &st, &resp, &len, why);
	explicit_bzero(body, strlen(body));
	free(body);
	if (r == 0) {
		r = kh_login_parse_grant(st, resp, len, wall_ms(), &access,
		    &k->login, why);
		explicit_bzero(resp, len);
		free(resp);
	}
	if (r < 0) {
		k->retry_ms = wall_ms() + REFRESH_BACKOFF_MS;
		return -1;
	}
	if (kh_login_store(k->src->spec, k->src->field, access,
	    k->login.refresh, k->login.expires_ms, &store_why) < 0) {
		log_info("keyholder: the renewed login is not saved: %s",
		    store_why);
		free(store_why);
	}
	drop_secret(k->pol.secret);
	k->pol.secret = keep_secret(access);
	atomic_fetch_add(&k->refreshed, 1);
	log_info("keyholder: the login was renewed");
	return 0;
}

/* A login that has come due, renewed (once, by one thread). */
static void
refresh_if_due(struct keeper *k)
{
	char *why = NULL;
	int64_t now = wall_ms();
	bool d;

	pthread_rwlock_rdlock(&k->lock);
	d = due(k, now) && now >= k->retry_ms;
	pthread_rwlock_unlock(&k->lock);
	if (!d)
		return;
	pthread_rwlock_wrlock(&k->lock);
	if (due(k, now) && now >= k->retry_ms && refresh(k, &why) < 0) {
		log_info("keyholder: cannot renew the login: %s", why);
		free(why);
	}
	pthread_rwlock_unlock(&k->lock);
}

static enum kh_verdict
hook(void *arg, struct kh_request *req, struct kh_refusal *ret)
{
	struct keeper *k = arg;
	enum kh_verdict v;

	if (k->is_login)
		refresh_if_due(k);
	pthread_rwlock_rdlock(&k->lock);
	v = kh_policy_hook(&k->pol, req, ret);
	pthread_rwlock_unlock(&k->lock);
	return v;
}

/*
 * The provider refused the login's token: renew it, unless another
 * request did since this one took it, and put the new one on req.
 */
static bool
renew(void *arg, struct kh_request *req)
{
	struct keeper *k = arg;
	AUTO(kh_refusal_clear) struct kh_refusal ref = { 0 };
	const char *sent = kh_header_get(req, "authorization");
	char *why = NULL;
	enum kh_verdict v;
	bool ok = true;

	pthread_rwlock_wrlock(&k->lock);
	if (sent && strncmp(sent, "Bearer ", 7) == 0 &&
	    streq(sent + 7, k->pol.secret) && (wall_ms() < k->retry_ms ||
	    refresh(k, &why) < 0)) {
		log_info("keyholder: cannot renew the login after a 401: %s",
		    why ? why : "a renewal failed a moment ago");
		free(why);
		ok = false;
	}
	pthread_rwlock_unlock(&k->lock);
	if (!ok)
		return false;
	pthread_rwlock_rdlock(&k->lock);
	v = kh_policy_hook(&k->pol, req, &ref);
	pthread_rwlock_unlock(&k->lock);
	return v == KH_FORWARD;
}

/* The one line of a keyholder that holds no credential. */
static noreturn void
no_credential(const struct opts *o, const char *why)
{
	if (o->control_fd < 0)
		die("credential: %s", why);
	/* confine sees EOF, and refuses to run (this line says why). */
	fprintf(stderr, "confine-keyholder: credential: %s\n", why);
	exit(1);
}

/* The credential, from the first source that yields one. */
static void
load(const struct opts *o, struct keeper *k)
{
	autofree char *why = NULL;
	pthread_rwlockattr_t attr;
	char *secret = NULL;
	size_t i;
	int w;

	memset(k, 0, sizeof(*k));
	k->pol = o->pol;
	k->token = &o->token;
	if ((w = kh_credential_find(o->src, o->nsrc, &secret, &k->login,
	    &why)) < 0)
		no_credential(o, why);
	/* Only this process needed them; nothing it runs will see them. */
	for (i = 0; i < o->nsrc; i++)
		if (o->src[i].from == KH_FROM_VARIABLE)
			unsetenv(o->src[i].spec);
	k->src = &o->src[w];
	k->is_login = k->src->kind == KH_KIND_LOGIN;
	k->pol.kind = k->src->kind == KH_KIND_API_KEY ? KH_CRED_API_KEY :
	    KH_CRED_BEARER;
	k->pol.secret = keep_secret(secret);
	/* A renewal waits for no stream of requests. */
	pthread_rwlockattr_init(&attr);
	pthread_rwlockattr_setkind_np(&attr,
	    PTHREAD_RWLOCK_PREFER_WRITER_NONRECURSIVE_NP);
	pthread_rwlock_init(&k->lock, &attr);
	pthread_rwlockattr_destroy(&attr);
	if (!due(k, wall_ms()))
		return;
	if (refresh(k, &why) == 0)
		return;
	if (wall_ms() >= k->login.expires_ms)
		no_credential(o, xasprintf("%s: the login has expired and "
		    "cannot be renewed: %s", k->src->spec, why));
	log_info("keyholder: cannot renew the login yet: %s", why);
}

static void
write_stats(int fd, struct kh_stats *st, struct keeper *k)
{
	char buf[256];
	int n;

	if (fd < 0)
		return;
	n = snprintf(buf, sizeof(buf), "forwarded=%lu\nrefused=%lu\n"
	    "failed=%lu\nbad=%lu\nrefreshed=%lu\n",
	    atomic_load(&st->forwarded), atomic_load(&st->refused),
	    atomic_load(&st->failed), atomic_load(&st->bad),
	    atomic_load(&k->refreshed));
	if (n > 0 && (size_t)n < sizeof(buf))
		(void)fd_write_all(fd, buf, (size_t)n);
	close(fd);
}

/* Close the fds of SCM_RIGHTS messages in m; how many there were. */
static int
close_passed(struct msghdr *m, int *ret_first)
{
	struct cmsghdr *c;
	size_t i, nfd;
	int count = 0, fd;

	for (c = CMSG_FIRSTHDR(m); c; c = CMSG_NXTHDR(m, c)) {
		if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS)
			continue;
		nfd = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);
		for (i = 0; i < nfd; i++) {
			memcpy(&fd, CMSG_DATA(c) + i * sizeof(int), sizeof(int));
			if (count++ == 0 && ret_first)
				*ret_first = fd;
			else
				close(fd);
		}
	}
	return count;
}

/*
 * The listener from confine: one message, the byte 'L' and one fd, a
 * listening stream socket.  At EOF (the sandbox did not start), exit 0.
 */
static int
recv_listener(int ctl)
{
	union {
		struct cmsghdr	 h;
		char		 buf[CMSG_SPACE(4 * sizeof(int))];
	} u;
	char byte = 0;
	struct iovec iov = { .iov_base = &byte, .iov_len = 1 };
	struct msghdr m = { .msg_iov = &iov, .msg_iovlen = 1,
	    .msg_control = u.buf, .msg_controllen = sizeof(u.buf) };
	int fd = -1, n, type = 0, listening = 0;
	socklen_t sl = sizeof(int);
	ssize_t r;

	/* Bounded: one byte, and the fds sizeof(u.buf) holds. */
	while ((r = recvmsg(ctl, &m, MSG_CMSG_CLOEXEC)) < 0 && errno == EINTR)
		;
	if (r == 0)
		exit(0);
	if (r < 0)
		die_errno(errno, "keyholder: the control socket");
	n = close_passed(&m, &fd);
	if (n != 1 || byte != 'L' || (m.msg_flags & MSG_CTRUNC)) {
		if (n >= 1)
			close(fd);
		die("keyholder: the control socket did not pass one listener");
	}
	if (getsockopt(fd, SOL_SOCKET, SO_TYPE, &type, &sl) < 0 ||
	    type != SOCK_STREAM || (sl = sizeof(int), getsockopt(fd,
	    SOL_SOCKET, SO_ACCEPTCONN, &listening, &sl)) < 0 || !listening)
		die("keyholder: the fd passed is not a listening stream "
		    "socket");
	return fd;
}

int
main(int argc, char **argv)
{
	struct opts o;
	struct keeper k;
	struct kh_stats st = { 0 };
	int r, listen_fd, stop_fd;

	protect();
	parse(argc, argv, &o);
	/* jansson seeds its hash tables once, here, not from /dev/urandom
	 * on the first request. */
	json_object_seed(0);
	signal(SIGPIPE, SIG_IGN);
	load(&o, &k);
	listen_fd = o.listen_fd;
	stop_fd = o.stop_fd;
	if (o.control_fd >= 0) {
		if (fd_write_all(o.control_fd, "ready\n", 6) < 0)
			die_errno(errno, "keyholder: the control socket");
		listen_fd = recv_listener(o.control_fd);
		stop_fd = o.stats_fd = o.control_fd;
	}
	r = kh_serve_renewing(listen_fd, stop_fd, &o.up, hook,
	    k.is_login ? renew : NULL, &k, &st);
	write_stats(o.stats_fd, &st, &k);
	drop_secret(k.pol.secret);
	kh_login_clear(&k.login);
	if (r < 0)
		die_errno(-r, "keyholder");
	return 0;
}
