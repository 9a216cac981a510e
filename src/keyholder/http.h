/* SPDX-License-Identifier: ISC */
/*
 * keyholder/http.h - the keyholder's parsers of the agent's HTTP/1.1
 * (keyholder/transport.c): the request head and the chunked framing.
 * Internal to the keyholder; declared here so that the fuzzer
 * (fuzz/keyholder-http-fuzzer.c) reaches them.
 *
 * Runs in: confine-keyholder, on the agent's bytes.
 */
#ifndef CONFINE_KH_HTTP_H
#define CONFINE_KH_HTTP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "keyholder/hook.h"

/* The largest chunk size accepted (a chunk's hex size line). */
#define CHUNK_SIZE_MAX		((uint64_t)1 << 40)

/* How a request's body is framed, and what it asks of the connection. */
struct framing {
	bool		 chunked;
	bool		 has_length;
	uint64_t	 length;
	bool		 expect_continue;
	bool		 close;
	unsigned	 hosts;
	char		*untrusted_conn;	/* Connection's values; heap */
};

/* A growing buffer, at most max bytes. */
struct sink {
	char	*p;
	size_t	 len, cap;
};

enum chunk_state {
	CH_SIZE, CH_EXT, CH_SIZE_LF, CH_DATA, CH_DATA_CR, CH_DATA_LF,
	CH_TRAILER, CH_TRAILER_LINE, CH_END_LF, CH_DONE,
};

/* Where a chunked body's parser is; zeroed at the body's start. */
struct chunk {
	enum chunk_state st;
	uint64_t	 size;
	bool		 digits;
};

/*
 * Parses untrusted bytes: a request head, [head, head + len), that ends
 * with CR LF CR LF, into req (kh_request_clear frees it) and f (its
 * untrusted_conn the caller frees).  0, or the status to answer with (and
 * *why, a static string).
 */
int	kh_parse_head(const char *untrusted_head, size_t len,
	    struct kh_request *req, struct framing *f, const char **why);

/*
 * Parses untrusted bytes: the framing of a chunked body.  Takes up to n
 * bytes of p and returns how many it took (it stops at the body's end,
 * ch->st == CH_DONE), or -1 on malformed framing, -2 when the data would
 * pass max.  The data goes to out, when not NULL.
 */
ssize_t	kh_dechunk(struct chunk *ch, const char *p, size_t n,
	    struct sink *out, size_t max);

#endif
