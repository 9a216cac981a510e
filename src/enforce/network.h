/* SPDX-License-Identifier: ISC */
/*
 * enforce/network.h - the sandbox's network.
 *
 * Runs in: the sandbox's first process, after the mounts, before the
 * capabilities are dropped (bringing lo up needs CAP_NET_ADMIN).
 */
#ifndef CONFINE_NET_H
#define CONFINE_NET_H

#include "policy/plan.h"

/*
 * Set up the network of the plan's mode.  For proxy, *ret_listener is the
 * proxy's listening socket on the sandbox's loopback (else -1), for the
 * supervisor to accept on.  0 or -errno.
 */
int	net_setup(enum plan_net, int *ret_listener);
/* The proxy's listening socket on this namespace's 127.0.0.1.  fd or -errno. */
int	net_proxy_listener(void);
/* A listener on 127.0.0.1:PORT here: its fd, or -errno. */
int	net_listener(unsigned int port);

#endif
