// SPDX-License-Identifier: ISC
/*
 * ptybench.c - a terminal, for measuring what runs on it: it makes a pty,
 * runs a command on its slave and copies the master to a sink, as a
 * terminal emulator would; the same tool, so a plain pty and confine's
 * relay are measured alike (bench/terminal drives it).
 *
 *	ptybench [-r] [-p] [-b BYTES] [-o null|pty|-|FILE] -- COMMAND...
 *		throughput: COMMAND's output copied from the master (blocking
 *		reads of BYTES, default 65536; -p: poll(2) before each read,
 *		as script(1) does) to /dev/null, to the slave of a second pty
 *		that a child drains, to stdout (-: put in raw mode if it is a
 *		terminal, as confine does) or to FILE; the slave is raw with -r,
 *		else as a fresh pty is (cooked: OPOST, ONLCR).  Prints
 *		"BYTES SECONDS MIB/S" from the first byte to the end marker.
 *	ptybench -l [-n ROUNDS] -- COMMAND...
 *		keystroke latency: COMMAND is "ptybench --echo" (maybe inside
 *		confine); one byte is written to the master and read back,
 *		ROUNDS times (default 2000).  Prints "median p99 max" in us.
 *	ptybench --relay -- COMMAND...
 *		a plain two-way copy, as script(1) makes: stdin (raw if a
 *		terminal) to the master and the master to stdout, with
 *		poll(2); the baseline for the latency through two ptys.
 *	ptybench --write MIB
 *		the writer: MIB MiB of 80-column text on stdout, in writes
 *		of 64 KiB, then the end marker line.
 *	ptybench --echo
 *		raw mode on stdin, "R" when ready, then every byte read
 *		written back, until a 'q'.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/wait.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#define MARK	"ptybench-end"
#define WCHUNK	(64 * 1024)
#define K	512	/* the tail searched for it: confine adds its reset */

static double
now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static void
die(const char *what)
{
	perror(what);
	exit(1);
}

static int
writer(long mib)
{
	static char buf[WCHUNK];
	long long left = (long long)mib * 1048576;
	size_t i;
	ssize_t n;

	/* Lines of 80 printable characters: ordinary text. */
	for (i = 0; i < sizeof(buf); i++)
		buf[i] = i % 81 == 80 ? '\n' : (char)(33 + (i % 81) % 90);
	while (left > 0) {
		n = write(1, buf, left < WCHUNK ? (size_t)left : WCHUNK);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return 1;
		left -= n;
	}
	return write(1, "\n" MARK "\n", sizeof(MARK) + 1) > 0 ? 0 : 1;
}

static int
echo(void)
{
	struct termios t;
	char c;

	if (tcgetattr(0, &t) == 0) {
		cfmakeraw(&t);
		tcsetattr(0, TCSANOW, &t);
	}
	if (write(1, "R", 1) != 1)
		return 1;
	while (read(0, &c, 1) == 1 && c != 'q')
		if (write(1, &c, 1) != 1)
			return 1;
	return 0;
}

/* A pty whose slave is COMMAND's 0, 1, 2 and controlling terminal. */
static pid_t
spawn(char **argv, int raw, int *ret_master)
{
	struct winsize ws = { .ws_row = 24, .ws_col = 80 };
	struct termios t;
	int m, s;
	pid_t pid;

	if ((m = posix_openpt(O_RDWR | O_NOCTTY | O_CLOEXEC)) < 0 ||
	    grantpt(m) < 0 || unlockpt(m) < 0 ||
	    (s = open(ptsname(m), O_RDWR | O_NOCTTY)) < 0)
		die("pty");
	ioctl(s, TIOCSWINSZ, &ws);
	if (raw && tcgetattr(s, &t) == 0) {
		cfmakeraw(&t);
		tcsetattr(s, TCSANOW, &t);
	}
	if ((pid = fork()) < 0)
		die("fork");
	if (pid == 0) {
		setsid();
		if (ioctl(s, TIOCSCTTY, 0) < 0)
			die("TIOCSCTTY");
		dup2(s, 0);
		dup2(s, 1);
		dup2(s, 2);
		if (s > 2)
			close(s);
		execvp(argv[0], argv);
		die(argv[0]);
	}
	close(s);
	*ret_master = m;
	return pid;
}

/* The "pty" sink: the slave of a second pty, raw, its master drained. */
static int
pty_sink(pid_t *drainer)
{
	static char buf[WCHUNK];
	struct termios t;
	ssize_t n;
	int m, s, null;

	if ((m = posix_openpt(O_RDWR | O_NOCTTY)) < 0 || grantpt(m) < 0 ||
	    unlockpt(m) < 0 || (s = open(ptsname(m), O_RDWR | O_NOCTTY)) < 0)
		die("pty sink");
	if (tcgetattr(s, &t) == 0) {
		cfmakeraw(&t);
		tcsetattr(s, TCSANOW, &t);
	}
	if ((*drainer = fork()) < 0)
		die("fork");
	if (*drainer == 0) {
		close(s);
		null = open("/dev/null", O_WRONLY);
		while ((n = read(m, buf, sizeof(buf))) > 0 ||
		    (n < 0 && errno == EINTR))
			if (n > 0 && write(null, buf, (size_t)n) < 0)
				break;
		_exit(0);
	}
	close(m);
	return s;
}

static int
throughput(char **argv, int raw, int use_poll, size_t bsize,
    const char *sink)
{
	char *buf, tail[K + 1] = "";
	struct termios t;
	struct pollfd p;
	double t0 = 0, t1 = 0;
	long long total = 0;
	pid_t pid, drainer = -1;
	ssize_t n;
	size_t tl = 0, k;
	int m, out, st;

	if ((buf = malloc(bsize)) == NULL)
		die("malloc");
	if (strcmp(sink, "-") == 0) {
		/* A relay to a terminal, as confine: raw, so copied as is. */
		out = 1;
		if (tcgetattr(out, &t) == 0) {
			cfmakeraw(&t);
			tcsetattr(out, TCSANOW, &t);
		}
	} else if (strcmp(sink, "null") == 0)
		out = open("/dev/null", O_WRONLY);
	else if (strcmp(sink, "pty") == 0)
		out = pty_sink(&drainer);
	else
		out = open(sink, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	if (out < 0)
		die(sink);
	pid = spawn(argv, raw, &m);
	p = (struct pollfd){ .fd = m, .events = POLLIN };
	for (;;) {
		if (use_poll && poll(&p, 1, -1) < 0 && errno != EINTR)
			break;
		if ((n = read(m, buf, bsize)) < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;		/* EIO: the slave is closed */
		if (total == 0)
			t0 = now();
		total += n;
		if (write(out, buf, (size_t)n) != n)
			die("write");
		/* The end marker ends the last read (nothing follows it). */
		k = (size_t)n < K ? (size_t)n : K;
		if (tl + k > K) {
			memmove(tail, tail + tl + k - K, K - k);
			tl = K - k;
		}
		memcpy(tail + tl, buf + n - k, k);
		tl += k;
		tail[tl] = '\0';
		if (memmem(tail, tl, MARK, sizeof(MARK) - 1)) {
			t1 = now();
			break;
		}
	}
	if (t1 == 0)
		t1 = now();
	if (drainer > 0) {
		/* Counted until the second pty is drained too. */
		close(out);
		waitpid(drainer, NULL, 0);
		t1 = now();
	}
	/* The rest (confine's exit) is not timed, but read to the end. */
	while ((n = read(m, buf, bsize)) > 0 || (n < 0 && errno == EINTR))
		;
	waitpid(pid, &st, 0);
	if (t0 == 0 || !memmem(tail, tl, MARK, sizeof(MARK) - 1)) {
		fprintf(stderr, "ptybench: no end marker (%lld bytes)\n",
		    total);
		return 1;
	}
	printf("%lld %.4f %.1f\n", total, t1 - t0,
	    (double)total / 1048576.0 / (t1 - t0));
	return 0;
}

static int
relay(char **argv)
{
	char buf[WCHUNK];
	struct termios t;
	struct pollfd p[2];
	ssize_t n;
	pid_t pid;
	int m, st;

	if (tcgetattr(0, &t) == 0) {
		cfmakeraw(&t);
		tcsetattr(0, TCSANOW, &t);
	}
	pid = spawn(argv, 0, &m);
	p[0] = (struct pollfd){ .fd = m, .events = POLLIN };
	p[1] = (struct pollfd){ .fd = 0, .events = POLLIN };
	for (;;) {
		if (poll(p, 2, -1) < 0) {
			if (errno == EINTR)
				continue;
			break;
		}
		if (p[1].revents) {
			if ((n = read(0, buf, sizeof(buf))) <= 0)
				p[1].fd = -1;
			else if (write(m, buf, (size_t)n) != n)
				break;
		}
		if (p[0].revents) {
			if ((n = read(m, buf, sizeof(buf))) <= 0)
				break;		/* EIO: the slave is closed */
			if (write(1, buf, (size_t)n) != n)
				break;
		}
	}
	waitpid(pid, &st, 0);
	return 0;
}

static int
cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static int
latency(char **argv, int rounds)
{
	double *t = calloc((size_t)rounds, sizeof(double)), t0;
	char c;
	pid_t pid;
	int m, i, st;

	if (t == NULL)
		die("calloc");
	pid = spawn(argv, 0, &m);
	/* Whatever comes before the ready mark is not the echo's. */
	while (read(m, &c, 1) == 1 && c != 'R')
		;
	for (i = 0; i < rounds; i++) {
		c = (char)('0' + i % 10);
		t0 = now();
		if (write(m, &c, 1) != 1)
			die("write");
		do {
			if (read(m, &c, 1) != 1)
				die("read");
		} while (c != '0' + i % 10);
		t[i] = (now() - t0) * 1e6;
	}
	if (write(m, "q", 1) != 1)
		die("write");
	while (read(m, &c, 1) > 0)
		;
	waitpid(pid, &st, 0);
	qsort(t, (size_t)rounds, sizeof(double), cmp);
	printf("%.1f %.1f %.1f\n", t[rounds / 2], t[rounds * 99 / 100],
	    t[rounds - 1]);
	return 0;
}

static void
usage(void)
{
	fprintf(stderr, "usage: ptybench [-r] [-p] [-b BYTES] "
	    "[-o null|pty|-|FILE] -- COMMAND...\n"
	    "       ptybench -l [-n ROUNDS] -- COMMAND...\n"
	    "       ptybench --relay -- COMMAND...\n"
	    "       ptybench --write MIB | --echo\n");
	exit(2);
}

int
main(int argc, char **argv)
{
	const char *sink = "null";
	size_t bsize = WCHUNK;
	int raw = 0, use_poll = 0, lat = 0, rounds = 2000, c;

	if (argc == 3 && strcmp(argv[1], "--write") == 0)
		return writer(atol(argv[2]));
	if (argc == 2 && strcmp(argv[1], "--echo") == 0)
		return echo();
	signal(SIGPIPE, SIG_IGN);
	if (argc > 3 && strcmp(argv[1], "--relay") == 0 &&
	    strcmp(argv[2], "--") == 0)
		return relay(argv + 3);
	while ((c = getopt(argc, argv, "rpb:o:ln:")) != -1) {
		switch (c) {
		case 'r': raw = 1; break;
		case 'p': use_poll = 1; break;
		case 'b': bsize = (size_t)atol(optarg); break;
		case 'o': sink = optarg; break;
		case 'l': lat = 1; break;
		case 'n': rounds = atoi(optarg); break;
		default: usage();
		}
	}
	if (optind >= argc || bsize == 0 || rounds < 1)
		usage();
	if (lat)
		return latency(argv + optind, rounds);
	return throughput(argv + optind, raw, use_poll, bsize, sink);
}
