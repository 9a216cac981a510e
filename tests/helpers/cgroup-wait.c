// SPDX-License-Identifier: ISC
/*
 * cgroup-wait.c - enforce/cgroup.c's cgroup_wait_empty() on real cgroups,
 * for tests/integration/cgroup-wait.sh.
 *
 *   cgroup-wait wait|bare PARENT ROUNDS SECONDS
 *	ROUNDS times: a cgroup made in PARENT, a member process put in it,
 *	a waiter started on it (wait: cgroup_wait_empty(); bare: poll(2)
 *	on cgroup.events with no timer, read again after each wake-up),
 *	then, once the waiter waits, the member killed, reaped and the
 *	cgroup removed at once; the waiter given SECONDS to end.  Prints
 *	"stuck N of ROUNDS": the waiters still waiting then (killed).
 *
 * What a later confine does to an empty cgroup whose maker is gone, while
 * the detached tear-down of a run waits for it: the kernel sends the
 * wait's wake-up from a work item, and none for a cgroup removed first.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "enforce/cgroup.h"

static void
fatal(const char *what)
{
	perror(what);
	exit(1);
}

/* cgroup.events says populated 1: 1, 0, or -1 (unreadable). */
static int
populated(int fd)
{
	char buf[256];
	ssize_t n;

	if (lseek(fd, 0, SEEK_SET) < 0 ||
	    (n = read(fd, buf, sizeof(buf) - 1)) < 0)
		return -1;
	buf[n] = '\0';
	return strstr(buf, "populated 1") != NULL;
}

static void
bare_wait(int efd)
{
	while (populated(efd) == 1) {
		struct pollfd p = { .fd = efd, .events = POLLPRI };

		poll(&p, 1, -1);
	}
}

static void
sleep_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
}

int
main(int argc, char **argv)
{
	int rounds, seconds, stuck = 0, i;
	bool bare;

	if (argc != 5 || (strcmp(argv[1], "wait") != 0 &&
	    strcmp(argv[1], "bare") != 0)) {
		fprintf(stderr, "usage: cgroup-wait wait|bare PARENT ROUNDS "
		    "SECONDS\n");
		return 2;
	}
	bare = strcmp(argv[1], "bare") == 0;
	rounds = atoi(argv[3]);
	seconds = atoi(argv[4]);
	for (i = 0; i < rounds; i++) {
		char dir[4096], path[4200], c;
		int dfd, efd, ready[2], st, t;
		pid_t member, waiter;

		snprintf(dir, sizeof(dir), "%s/cgroup-wait.%d.%d", argv[2],
		    (int)getpid(), i);
		if (mkdir(dir, 0755) < 0)
			fatal(dir);
		if ((member = fork()) < 0)
			fatal("fork");
		if (member == 0) {
			FILE *f;

			snprintf(path, sizeof(path), "%s/cgroup.procs", dir);
			if ((f = fopen(path, "w")) == NULL ||
			    fprintf(f, "0\n") < 0 || fclose(f) != 0)
				_exit(1);
			pause();
			_exit(0);
		}
		snprintf(path, sizeof(path), "%s/cgroup.events", dir);
		if ((dfd = open(dir, O_RDONLY | O_DIRECTORY)) < 0 ||
		    (efd = open(path, O_RDONLY)) < 0)
			fatal(dir);
		for (t = 0; populated(efd) != 1; t++) {
			if (t == 10000)
				fatal("the member never joined");
			sleep_ms(1);
		}
		if (pipe(ready) < 0 || (waiter = fork()) < 0)
			fatal("fork");
		if (waiter == 0) {
			close(ready[0]);
			if (write(ready[1], "w", 1) != 1)
				_exit(1);
			if (bare)
				bare_wait(efd);
			else
				cgroup_wait_empty(dfd);
			_exit(0);
		}
		close(ready[1]);
		if (read(ready[0], &c, 1) != 1)
			fatal("the waiter");
		close(ready[0]);
		/* Ordering, not a bound: the waiter polls by now. */
		sleep_ms(2);
		kill(member, SIGKILL);
		waitpid(member, NULL, 0);
		while (rmdir(dir) < 0 && errno == EBUSY)
			;
		for (t = 0; t < seconds * 100; t++) {
			if (waitpid(waiter, &st, WNOHANG) == waiter)
				break;
			sleep_ms(10);
		}
		if (t == seconds * 100) {
			stuck++;
			kill(waiter, SIGKILL);
			waitpid(waiter, NULL, 0);
		}
		close(efd);
		close(dfd);
	}
	printf("stuck %d of %d\n", stuck, rounds);
	return 0;
}
