// SPDX-License-Identifier: ISC
/*
 * lbench.c - an interleaved whole-process launch timer.
 *
 *	lbench [-n N] [-w WARMUP] [-r K] -- CMD1 ARG... ::: CMD2 ARG... ...
 *
 * Method: the commands run round-robin (A B C A B C ...), one at a time,
 * so drift in the machine's speed (other load, frequency, cache state)
 * hits every command alike.  Each run is fork(2) + execvp(3) with stdin,
 * stdout and stderr on /dev/null (stdin too, so nothing sees a terminal),
 * timed with CLOCK_MONOTONIC from just before fork to just after wait4(2)
 * has reaped the child.  wait4's rusage gives user+sys CPU and the largest
 * RSS of the child and every descendant it waited for.  The first WARMUP
 * rounds are discarded.
 *
 * Reported per command: median, p10 and p90 wall time (linear
 * interpolation between order statistics), median CPU, the largest RSS,
 * and two ratios: the median over rounds of (this run / the baseline's run
 * in the same round), the baseline being CMD1, and the same against a
 * reference command K (-r K, default 2).  Pairing within a round cancels
 * drift that a ratio of medians would keep.
 *
 * A benchmark, not a test: a failing command is counted and reported, and
 * lbench still exits 0; only bad usage (2) or a failing fork (1) exits
 * non-zero.
 *
 * Portable C11 + POSIX, plus wait4(2), which every Unix of interest has
 * (Linux, the BSDs, macOS, illumos).
 */
#define _DEFAULT_SOURCE		/* glibc, musl: POSIX 2008 and wait4 */
#define _DARWIN_C_SOURCE	/* macOS: wait4 */

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdnoreturn.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/time.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define MAXCMDS	32
#define SEP	":::"

struct cmd {
	char	**argv;		/* borrowed from main's argv */
	double	*wall;		/* ms, one per measured round */
	double	*cpu;		/* ms, user + sys */
	long	 maxrss;	/* KiB */
	int	 fails;		/* runs with a non-zero status */
	int	 last_status;	/* as the shell shows it: 128+N for signal N */
};

static const char *progname = "lbench";

static noreturn void
usage(void)
{
	fprintf(stderr, "usage: %s [-n N] [-w WARMUP] [-r K] -- CMD1 [ARG...] "
	    "[::: CMD2 [ARG...]] ...\n"
	    "  -n N       measured rounds (default 100)\n"
	    "  -w WARMUP  discarded rounds first (default 3)\n"
	    "  -r K       reference command for the second ratio "
	    "(default 2)\n", progname);
	exit(2);
}

static int
number(const char *s, int min, int max)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || end == s || *end != '\0' || v < min || v > max) {
		fprintf(stderr, "%s: bad number '%s' (want %d..%d)\n",
		    progname, s, min, max);
		usage();
	}
	return (int)v;
}

static double
now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static double
tv_ms(struct timeval tv)
{
	return (double)tv.tv_sec * 1e3 + (double)tv.tv_usec / 1e3;
}

static void *
xcalloc(size_t n, size_t size)
{
	void *p;

	if ((p = calloc(n, size)) == NULL) {
		fprintf(stderr, "%s: out of memory\n", progname);
		exit(1);
	}
	return p;
}

static int
cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* The q-quantile of v[0..n-1] (n > 0), interpolated; v is left alone. */
static double
quantile(const double *v, int n, double q)
{
	double *s = xcalloc((size_t)n, sizeof(*s)), pos, r;
	int i;

	memcpy(s, v, (size_t)n * sizeof(*s));
	qsort(s, (size_t)n, sizeof(*s), cmp_double);
	pos = q * (n - 1);
	i = (int)pos;
	r = i + 1 < n ? s[i] + (pos - i) * (s[i + 1] - s[i]) : s[i];
	free(s);
	return r;
}

/* The median over rounds of a[k] / b[k]. */
static double
paired_ratio(const double *a, const double *b, int n)
{
	double *r = xcalloc((size_t)n, sizeof(*r)), m;
	int k;

	for (k = 0; k < n; k++)
		r[k] = b[k] > 0 ? a[k] / b[k] : 0;
	m = quantile(r, n, 0.5);
	free(r);
	return m;
}

/* One run: fork, exec with stdio on /dev/null, reap; -1 if fork failed. */
static int
run(char **argv, int devnull, double *wall, double *cpu, long *maxrss,
    int *status)
{
	struct rusage ru;
	double t0;
	pid_t pid;
	int st;

	t0 = now_ms();
	if ((pid = fork()) < 0)
		return -1;
	if (pid == 0) {
		if (dup2(devnull, 0) < 0 || dup2(devnull, 1) < 0 ||
		    dup2(devnull, 2) < 0)
			_exit(126);
		execvp(argv[0], argv);
		_exit(errno == ENOENT ? 127 : 126);
	}
	while (wait4(pid, &st, 0, &ru) < 0)
		if (errno != EINTR)
			return -1;
	*wall = now_ms() - t0;
	*cpu = tv_ms(ru.ru_utime) + tv_ms(ru.ru_stime);
#ifdef __APPLE__
	*maxrss = ru.ru_maxrss / 1024;	/* bytes there, KiB elsewhere */
#else
	*maxrss = ru.ru_maxrss;
#endif
	*status = WIFEXITED(st) ? WEXITSTATUS(st) :
	    WIFSIGNALED(st) ? 128 + WTERMSIG(st) : 255;
	return 0;
}

static const char *
base_name(const char *path)
{
	const char *s = strrchr(path, '/');

	return s ? s + 1 : path;
}

static void
report(struct cmd *c, int nc, int n, int w, int ref)
{
	char refcol[16];
	int i, j;

	printf("lbench: %d commands, %d rounds interleaved (+%d warm-up); "
	    "wall = fork to reaped\n", nc, n, w);
	snprintf(refcol, sizeof(refcol), "vs#%d", ref + 1);
	printf("%2s %-10s %8s %8s %8s %8s %8s %6s %6s %5s\n", "#", "name",
	    "med_ms", "p10_ms", "p90_ms", "cpu_ms", "rss_MiB", "vs#1", refcol,
	    "fails");
	for (i = 0; i < nc; i++) {
		printf("%2d %-10.10s %8.3f %8.3f %8.3f %8.3f %8.1f %6.2f "
		    "%6.2f %5d\n", i + 1, base_name(c[i].argv[0]),
		    quantile(c[i].wall, n, 0.5), quantile(c[i].wall, n, 0.1),
		    quantile(c[i].wall, n, 0.9), quantile(c[i].cpu, n, 0.5),
		    (double)c[i].maxrss / 1024,
		    paired_ratio(c[i].wall, c[0].wall, n),
		    paired_ratio(c[i].wall, c[ref].wall, n), c[i].fails);
	}
	printf("vs#K: median over rounds of (this run / the run of #K in "
	    "the same round); cpu = user+sys\n");
	for (i = 0; i < nc; i++) {
		printf("%2d:", i + 1);
		for (j = 0; c[i].argv[j]; j++)
			printf(" %s", c[i].argv[j]);
		if (c[i].fails)
			printf("   [%d of %d runs failed, last status %d]",
			    c[i].fails, n + w, c[i].last_status);
		putchar('\n');
	}
}

int
main(int argc, char **argv)
{
	struct cmd c[MAXCMDS];
	int n = 100, w = 3, ref = 1, nc = 0, i, k, devnull;
	bool ref_set = false;

	memset(c, 0, sizeof(c));
	for (i = 1; i < argc; i++) {
		const char *a = argv[i];

		if (strcmp(a, "--") == 0) {
			i++;
			break;
		}
		if (a[0] != '-' || a[1] == '\0')
			break;
		if (strcmp(a, "-h") == 0)
			usage();
		if (a[2] == '\0' && i + 1 >= argc)
			usage();
		switch (a[1]) {
		case 'n':
			n = number(a[2] ? a + 2 : argv[++i], 1, 1000000);
			break;
		case 'w':
			w = number(a[2] ? a + 2 : argv[++i], 0, 1000000);
			break;
		case 'r':
			ref = number(a[2] ? a + 2 : argv[++i], 1, MAXCMDS) - 1;
			ref_set = true;
			break;
		default:
			usage();
		}
	}
	/* Split the rest at ":::" into NULL-terminated argvs. */
	while (i < argc) {
		if (nc == MAXCMDS) {
			fprintf(stderr, "%s: at most %d commands\n", progname,
			    MAXCMDS);
			return 2;
		}
		c[nc].argv = &argv[i];
		while (i < argc && strcmp(argv[i], SEP) != 0)
			i++;
		if (c[nc].argv == &argv[i])
			usage();	/* an empty command */
		if (i < argc)
			argv[i++] = NULL;
		nc++;
	}
	if (nc == 0)
		usage();
	if (ref_set && ref >= nc) {
		fprintf(stderr, "%s: -r %d: there are only %d commands\n",
		    progname, ref + 1, nc);
		return 2;
	}
	if (ref >= nc)
		ref = 0;	/* one command: the default has nothing to use */
	for (i = 0; i < nc; i++) {
		c[i].wall = xcalloc((size_t)n, sizeof(double));
		c[i].cpu = xcalloc((size_t)n, sizeof(double));
	}
	if ((devnull = open("/dev/null", O_RDWR)) < 0) {
		perror("/dev/null");
		return 1;
	}
	/* A child must not inherit an ignored SIGCHLD or SIGPIPE. */
	signal(SIGCHLD, SIG_DFL);
	signal(SIGPIPE, SIG_DFL);

	for (k = 0; k < w + n; k++) {
		for (i = 0; i < nc; i++) {
			double wall, cpu;
			long rss;
			int st;

			if (run(c[i].argv, devnull, &wall, &cpu, &rss,
			    &st) < 0) {
				fprintf(stderr, "%s: %s: %s\n", progname,
				    c[i].argv[0], strerror(errno));
				return 1;
			}
			if (st != 0) {
				c[i].fails++;
				c[i].last_status = st;
			}
			if (k < w)
				continue;
			c[i].wall[k - w] = wall;
			c[i].cpu[k - w] = cpu;
			if (rss > c[i].maxrss)
				c[i].maxrss = rss;
		}
	}
	report(c, nc, n, w, ref);
	return 0;
}
