/* SPDX-License-Identifier: ISC */
/*
 * run/proxy.h - the allow-list HTTP CONNECT proxy of the "proxy" network mode.
 *
 * Its listening socket is made inside the sandbox's network namespace, on
 * the sandbox's loopback at PROXY_PORT, and passed out: the supervisor
 * accepts on it, outside the sandbox, resolves names and connects from the
 * host's network.  Everything a client sends is untrusted input.
 */
#ifndef CONFINE_PROXY_H
#define CONFINE_PROXY_H

#include <poll.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/socket.h>

#include "lib/untrusted.h"

/* The port inside the sandbox's own network namespace: nothing else there. */
#define PROXY_PORT	3128

/*
 * Does destination host:port match a rule ("HOST[:PORT]", "*.domain", an
 * IP literal, "[IPv6]")?  host is lower-case, without brackets.  Pure.
 */
bool	proxy_rule_matches(const char *rule, const char *host, unsigned port);

/*
 * Parse the request head of a CONNECT ("CONNECT host:port HTTP/1.x"), the
 * client's bytes.  Returns 0 with the lower-cased host (heap) and port,
 * or -1 with *why.  Pure.  Refuses NUL and control bytes, a trailing dot,
 * non-ASCII names, absurd lengths, anything but digits in the port.
 */
int	proxy_parse_connect(struct untrusted untrusted_head, char **ret_host,
	    unsigned *ret_port, const char **why);

/*
 * Is sa this host, or an address no name may lead to?  own: this host's
 * interface addresses.  Also loopback, unspecified, this network (0/8),
 * link-local, multicast, 240/4 and broadcast, IPv6 site-local, and the
 * IPv6 forms that stand for an IPv4 address (mapped, compatible, SIIT's
 * translated form, NAT64's 64:ff9b::/96, 6to4's 2002::/16) when that
 * address is one of these.  Any family but IPv4 and IPv6: yes.  Pure.
 */
bool	proxy_host_address(const struct sockaddr *sa,
	    const struct sockaddr_storage *own, size_t nown);

struct proxy;

/* Runs in: the supervisor.  rules: allow and endpoint (borrowed);
 * injected, and refresh (where the keyholder refreshes a login):
 * HOST[:PORT] refused whatever the rules say, or NULL. */
struct proxy *proxy_new(int listen_fd, char *const *allow,
	    char *const *endpoint, const char *injected, const char *refresh);
/* Fill at most max pollfds; returns how many. */
size_t	proxy_poll(struct proxy *, struct pollfd *, size_t max);
/* Handle the ready ones (the pollfds proxy_poll filled).  True when a
 * tunnel passed bytes on. */
bool	proxy_step(struct proxy *, const struct pollfd *, size_t n);
/* Tunnels made, requests refused, allowed destinations not reached. */
void	proxy_counts(const struct proxy *, unsigned *allowed,
	    unsigned *refused, unsigned *failed);
/* The upstream failures, one "HOST:PORT: connect to ADDR: error" each
 * (at most the first 100); borrowed. */
char *const *proxy_failures(const struct proxy *);
/* The refused destinations and why, one "HOST:PORT: why" each (at most
 * the first 100); borrowed. */
char *const *proxy_refusals(const struct proxy *);
void	proxy_free(struct proxy *);

#endif
