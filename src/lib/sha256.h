/* SPDX-License-Identifier: ISC */
/*
 * lib/sha256.h - SHA-256 (FIPS 180-4), for pinning repository profiles.
 */
#ifndef CONFINE_SHA256_H
#define CONFINE_SHA256_H

#include <stddef.h>

/* The digest of buf as 64 lower-case hex digits and a NUL. */
void	sha256_hex(const void *buf, size_t len, char out[65]);

#endif
