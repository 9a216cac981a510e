// SPDX-License-Identifier: ISC
/*
 * tfbench.c - the output filter alone (src/lib/term-filter.c) over a file held
 * in memory, in reads of 64 KiB as the relay makes them: MiB/s of CPU time
 * (the process's own, so a busy machine slows it little) on stdout.
 *
 *	tfbench FILE [PASSES]
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "lib/term-filter.h"

#define CHUNK	(64 * 1024)

int
main(int argc, char **argv)
{
	static char out[2 * CHUNK + TF_SLACK];
	struct termfilter tf;
	struct timespec t0, t1;
	FILE *f;
	char *buf;
	long len, passes = argc > 2 ? atol(argv[2]) : 4, p, off, n;
	size_t sink = 0;
	double s;

	if (argc < 2 || (f = fopen(argv[1], "rb")) == NULL)
		return 1;
	fseek(f, 0, SEEK_END);
	len = ftell(f);
	rewind(f);
	if (len <= 0 || (buf = malloc((size_t)len)) == NULL ||
	    fread(buf, 1, (size_t)len, f) != (size_t)len)
		return 1;
	termfilter_init(&tf, false);
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t0);
	for (p = 0; p < passes; p++)
		for (off = 0; off < len; off += n) {
			n = len - off < CHUNK ? len - off : CHUNK;
			sink += termfilter_run(&tf, buf + off, (size_t)n, out);
		}
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t1);
	s = (double)(t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) / 1e9;
	printf("%.0f\n", (double)len * passes / 1048576.0 / s);
	return sink == (size_t)(len * passes) ? 0 : 2;
}
