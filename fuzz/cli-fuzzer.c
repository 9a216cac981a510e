// SPDX-License-Identifier: ISC
/*
 * cli-fuzzer.c - libFuzzer harness for the command line (input/cli.h):
 * the input bytes, split at NUL bytes, are the arguments after "confine"
 * (at most MAX_ARGS of them), given to cli_parse.  Built only with
 * ./configure --enable-fuzzing CC=clang (see fuzz/fuzz.mk, fuzz/run.sh).
 *
 * cli_parse resets getopt_long's global state itself (optind = 0, glibc's
 * full reset); the harness sets it too, so that no input depends on the
 * one before.  Besides what ASan, UBSan and LSan report, the harness
 * aborts when the parser breaks its contract: an error without a cause,
 * or a success with one.
 */
#include "config.h"

#include <getopt.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "input/cli.h"
#include "lib/util.h"

#define MAX_ARGS	64

int	LLVMFuzzerTestOneInput(const uint8_t *, size_t);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *argv[MAX_ARGS + 2], *copy, *p, *end;
	struct cli_opts o;
	char *cause = NULL;
	int argc = 0;

	/* A copy that ends in NUL: the last argument ends there too. */
	copy = xmalloc(size + 1);
	memcpy(copy, data, size);
	copy[size] = '\0';
	argv[argc++] = (char *)"confine";
	for (p = copy, end = copy + size; p <= end && argc <= MAX_ARGS;
	    p += strlen(p) + 1)
		argv[argc++] = p;
	argv[argc] = NULL;
	memset(&o, 0, sizeof(o));
	optind = 0;
	if (cli_parse(argc, argv, &o, &cause) < 0) {
		if (cause == NULL)
			abort();
	} else {
		if (cause != NULL)
			abort();
		cli_opts_free(&o);
	}
	free(cause);
	free(copy);
	return 0;
}
