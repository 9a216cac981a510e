// SPDX-License-Identifier: ISC
/*
 * plan-wire-fuzzer.c - libFuzzer harness for the plan's wire form
 * (policy/plan-wire.h): the input bytes are a stage as the inner stage
 * reads it from its pipe, given to stage_decode.  Built only with
 * ./configure --enable-fuzzing CC=clang (see fuzz/fuzz.mk, fuzz/run.sh).
 *
 * Besides what ASan, UBSan and LSan report, the harness aborts when the
 * decoder breaks its contract: an error other than -EBADMSG, or a plan
 * decoded without an argv.
 */
#include "config.h"

#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "policy/plan-wire.h"
#include "policy/plan.h"

int	LLVMFuzzerTestOneInput(const uint8_t *, size_t);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct plan p = { 0 };
	struct stage_run run = { 0 };
	int r;

	r = stage_decode((const char *)data, size, &p, &run);
	if (r != 0 && r != -EBADMSG)
		abort();
	plan_free(&p);
	return 0;
}
