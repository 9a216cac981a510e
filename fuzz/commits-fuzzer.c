// SPDX-License-Identifier: ISC
/*
 * commits-fuzzer.c - libFuzzer harness for the reader of the session's
 * agent-written .git (export/git-bytes.h, what export/commits.c parses):
 * the input's first byte picks the file, the rest are its bytes: 0, HEAD;
 * 1, a loose ref; 2, packed-refs (the ref looked up: "refs/heads/main");
 * 3, a loose object as stored (zlib: inflated here with a bound as
 * commits.c does, then parsed; not zlib: parsed as it is).  Built only
 * with ./configure --enable-fuzzing CC=clang (see fuzz/fuzz.mk,
 * fuzz/run.sh).
 *
 * Besides what ASan, UBSan and LSan report, the harness aborts when a
 * parser breaks its contract: a symbolic HEAD that is not "refs/..." or
 * holds "..", or an object whose content starts past its end.
 */
#include "config.h"

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "export/git-bytes.h"
#include "lib/util.h"

/* Far less than commits.c's 33 MiB: enough for the parser, fast. */
#define MAX_INFLATED	(64UL * 1024)

int	LLVMFuzzerTestOneInput(const uint8_t *, size_t);

static void
head(char *buf, size_t len)
{
	const char *ref = NULL;
	git_oid oid;
	int r;

	r = git_bytes_head(buf, len, &oid, &ref);
	if (r == 1 && (ref == NULL || strncmp(ref, "refs/", 5) != 0 ||
	    strstr(ref, "..") || strchr(ref, '\n')))
		abort();
}

static void
object(unsigned char *buf, size_t len)
{
	git_object_t type;
	size_t off;

	if (git_bytes_object(buf, len, &type, &off) == 0 &&
	    (off > len || buf[off - 1] != '\0'))
		abort();
}

static void
loose(const uint8_t *data, size_t size)
{
	unsigned char *out = xmalloc(MAX_INFLATED);
	z_stream z = { 0 };
	int zr;

	if (inflateInit(&z) != Z_OK)
		abort();
	z.next_in = (unsigned char *)(uintptr_t)data;
	z.avail_in = (unsigned)size;
	z.next_out = out;
	z.avail_out = MAX_INFLATED;
	zr = inflate(&z, Z_FINISH);
	inflateEnd(&z);
	if (zr == Z_STREAM_END)
		object(out, MAX_INFLATED - z.avail_out);
	else {
		memcpy(out, data, size < MAX_INFLATED ? size : MAX_INFLATED);
		object(out, size < MAX_INFLATED ? size : MAX_INFLATED);
	}
	free(out);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *buf;
	git_oid oid;
	size_t len;

	if (size < 1 || size > MAX_INFLATED)
		return 0;
	len = size - 1;
	/* Room for the NUL the callers leave after the bytes. */
	buf = xmalloc(len + 1);
	memcpy(buf, data + 1, len);
	switch (data[0] & 3) {
	case 0:
		head(buf, len);
		break;
	case 1:
		(void)git_bytes_ref(buf, len, &oid);
		break;
	case 2:
		(void)git_bytes_packed_ref(buf, len, "refs/heads/main", &oid);
		break;
	default:
		loose(data + 1, len);
		break;
	}
	free(buf);
	return 0;
}
