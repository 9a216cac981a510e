// SPDX-License-Identifier: ISC
/*
 * run/inject.c - the supervisor's side of an injected credential: start
 * confine-keyholder (src/keyholder/), wait until it holds the credential,
 * hand it the listener the sandbox made, stop it and read its counts.
 *
 * The control socket (confine-keyholder --control-fd): the keyholder
 * writes "ready\n" once it holds the credential (or exits, having said
 * why); it receives the listener as one SCM_RIGHTS message; at EOF from
 * this side it stops and writes its counts, KEY=VALUE lines, then EOF.
 *
 * Runs in: the supervisor, on the host, as the caller.
 * MUST: never see the credential: the keyholder reads it itself, from
 * confine's environment or the host's files, and nothing of it comes
 * back on the control socket but the counts.
 */
#include "config.h"

#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "enforce/pty.h"
#include "lib/log.h"
#include "lib/spawn.h"
#include "lib/util.h"
#include "run/inject.h"

/* The counts are a few short lines; a stop is bounded in time. */
#define COUNTS_MAX	1024
#define STOP_WAIT_MS	10000

void
inject_start(const struct plan *p, struct inject *k)
{
	autofree char *prog = spawn_helper_path("confine-keyholder");
	autofree char *ctl = NULL;
	struct spawn_opts o = SPAWN_OPTS_INIT;
	char **argv = NULL, buf[8];
	size_t n = 0, i;
	ssize_t r;
	int sv[2], status;

	k->pid = -1;
	k->ctl = -1;
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) < 0)
		die_errno(errno, "keyholder: socketpair");
	ctl = xasprintf("%d", sv[1]);
	argv = xcalloc(strv_len(p->inject.args) + 5, sizeof(char *));
	argv[n++] = prog;
	for (i = 0; p->inject.args[i]; i++)
		argv[n++] = p->inject.args[i];
	argv[n++] = (char *)"--control-fd";
	argv[n++] = ctl;
	if (log_get_level() >= LOG_VERBOSE)
		argv[n++] = (char *)"-v";
	/* Its stdin is the user's: a command source (pass) may ask. */
	o.die_with_parent = true;
	o.clean_mask = true;
	o.name = "keyholder";
	o.fail_status = EXIT_CONFINE;
	o.keep = sv[1];
	k->pid = spawn_start(prog, argv, &o);
	free(argv);
	close(sv[1]);
	if (k->pid < 0) {
		close(sv[0]);
		die_errno((int)-k->pid, "keyholder: cannot start '%s'", prog);
	}
	k->ctl = sv[0];
	/* "ready\n", or EOF: it said why, on stderr. */
	for (i = 0; i < 6; i += (size_t)r) {
		if ((r = read(k->ctl, buf + i, 6 - i)) < 0 && errno == EINTR) {
			r = 0;
			continue;
		}
		if (r <= 0)
			break;
	}
	if (i == 6 && memcmp(buf, "ready\n", 6) == 0)
		return;
	close(k->ctl);
	k->ctl = -1;
	status = spawn_wait(k->pid);
	k->pid = -1;
	/* It said why, in one line (no source holds a credential...). */
	if (status >= 0 && WIFEXITED(status) && WEXITSTATUS(status) != 0) {
		fprintf(stderr, "hint: the profile's [credential] source lines "
		    "say where the credential is read (confine --dry-run lists "
		    "them); a ChatGPT or Google login is not injected: use an "
		    "API key\n");
		exit(EXIT_CONFINE);
	}
	die("keyholder: it stopped before it held the credential (%s %d)",
	    status >= 0 && WIFSIGNALED(status) ? "signal" : "status",
	    status < 0 ? status : WIFSIGNALED(status) ? WTERMSIG(status) :
	    WEXITSTATUS(status));
}

void
inject_listen(struct inject *k, int fd)
{
	int r;

	if (k->ctl >= 0 && (r = pty_send_fd_byte(k->ctl, fd, 'L')) < 0)
		log_warn("keyholder: cannot hand it the listener: %s",
		    strerror(-r));
	close(fd);
}

/* The count KEY from the keyholder's lines, or 0. */
static unsigned long
count(const char *text, const char *key)
{
	size_t len = strlen(key);
	const char *s;

	for (s = text; s && *s; s = strchr(s, '\n'), s = s ? s + 1 : NULL)
		if (strncmp(s, key, len) == 0 && s[len] == '=')
			return strtoul(s + len + 1, NULL, 10);
	return 0;
}

char *
inject_stop(struct inject *k, const struct plan *p)
{
	char buf[COUNTS_MAX + 1];
	size_t n = 0;
	ssize_t r;
	unsigned long fwd, ref, fail, bad, refreshed;
	struct pollfd pfd;
	char *line;

	if (k->ctl < 0)
		return NULL;
	shutdown(k->ctl, SHUT_WR);
	pfd = (struct pollfd){ .fd = k->ctl, .events = POLLIN };
	while (n < COUNTS_MAX) {
		if ((r = poll(&pfd, 1, STOP_WAIT_MS)) < 0 && errno == EINTR)
			continue;
		if (r <= 0) {
			log_warn("keyholder: it did not stop; killed");
			kill(k->pid, SIGKILL);
			break;
		}
		if ((r = read(k->ctl, buf + n, COUNTS_MAX - n)) < 0 &&
		    errno == EINTR)
			continue;
		if (r <= 0)
			break;
		n += (size_t)r;
	}
	buf[n] = '\0';
	close(k->ctl);
	k->ctl = -1;
	spawn_wait(k->pid);
	k->pid = -1;
	fwd = count(buf, "forwarded");
	ref = count(buf, "refused");
	fail = count(buf, "failed");
	bad = count(buf, "bad");
	refreshed = count(buf, "refreshed");
	if (fwd + ref + fail + bad == 0)
		return NULL;
	line = xasprintf("inference: %lu request%s to %s through the "
	    "keyholder, %lu refused, %lu failed%s", fwd, fwd == 1 ? "" : "s",
	    p->inject.upstream, ref + bad, fail, refreshed ?
	    ", the login refreshed" : "");
	/* The hint is for this terminal: the report names nothing more. */
	log_msg("%s%s", line, (ref + bad + fail) &&
	    log_get_level() < LOG_VERBOSE ? " (-v names them)" : "");
	return line;
}
