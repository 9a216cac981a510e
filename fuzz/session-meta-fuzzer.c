// SPDX-License-Identifier: ISC
/*
 * session-meta-fuzzer.c - libFuzzer harness for the session store's
 * KEY=VALUE reader (store/session-meta.h): the input bytes are a session's
 * meta or summary file, given to session_file_parse for the keys cmd/ and
 * confine-export ask for, the first value and all of them.  Built only
 * with ./configure --enable-fuzzing CC=clang (see fuzz/fuzz.mk,
 * fuzz/run.sh).
 *
 * Besides what ASan, UBSan and LSan report, the harness aborts when the
 * reader breaks its contract: a value holding a newline, more values than
 * lines, or a first value that is not the first of all of them.
 */
#include "config.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "lib/util.h"
#include "store/session-meta.h"

int	LLVMFuzzerTestOneInput(const uint8_t *, size_t);

static char **
parse(const uint8_t *data, size_t size, const char *key, bool all)
{
	autofree char *buf = xmalloc(size + 1);

	memcpy(buf, data, size);
	buf[size] = '\0';
	return session_file_parse(buf, size, key, all);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const keys[] = { "version", "id", "workspace",
	    "arg", "hidden", "files", "review", "" };
	size_t i, j, lines;

	if (size > SESSION_FILE_MAX)
		return 0;
	lines = 1;
	for (j = 0; j < size; j++)
		lines += data[j] == '\n';
	for (i = 0; i < nitems(keys); i++) {
		autostrv char **one = parse(data, size, keys[i], false);
		autostrv char **all = parse(data, size, keys[i], true);

		if (one[0] && (one[1] || !all[0] || !streq(one[0], all[0])))
			abort();
		if (!one[0] && all[0])
			abort();
		for (j = 0; all[j]; j++)
			if (strchr(all[j], '\n') || j >= lines)
				abort();
	}
	return 0;
}
