// SPDX-License-Identifier: ISC
/*
 * export/no-tls.c - no CA bundle decoded for a program that speaks no TLS.
 *
 * libgit2 built with mbedTLS (Debian's 1.5) loads its compiled-in CA
 * bundle (/etc/ssl/certs/ca-certificates.crt) in git_libgit2_init(),
 * whatever the caller will do: no option, setting or environment
 * variable turns it off, and GIT_OPT_SET_SSL_CERT_LOCATIONS can only be
 * given after it.  Decoding that bundle was 84% of the instructions of an
 * export of ten files.  confine-export reads local objects only and opens
 * no remote, so it has no use for certificates.  These definitions, in
 * the executable, take the place of mbedTLS's own (the dynamic linker
 * binds libgit2's calls to the first definition in its search order,
 * which is the program's): libgit2 gets an empty chain of trusted CAs.
 *
 * Runs in: confine-export, in git_libgit2_init(), before any other call.
 * MUST: be linked into confine-export only, never into a program that
 * verifies a certificate (confine-keyholder uses OpenSSL and links none
 * of this).
 * MUST: fail closed: an empty chain trusts no certificate, so a TLS
 * connection libgit2 were ever asked to make would fail its verification
 * (libgit2 checks every peer, mbedtls_ssl_get_verify_result()).
 */
#include "config.h"

/* mbedTLS's signatures (mbedtls/x509_crt.h); the chain is opaque here. */
struct mbedtls_x509_crt;
int	mbedtls_x509_crt_parse_file(struct mbedtls_x509_crt *, const char *);
int	mbedtls_x509_crt_parse_path(struct mbedtls_x509_crt *, const char *);

/* 0: no certificate failed to parse; the chain stays as initialised. */
int
mbedtls_x509_crt_parse_file(struct mbedtls_x509_crt *chain, const char *path)
{
	(void)chain;
	(void)path;
	return 0;
}

int
mbedtls_x509_crt_parse_path(struct mbedtls_x509_crt *chain, const char *path)
{
	(void)chain;
	(void)path;
	return 0;
}

