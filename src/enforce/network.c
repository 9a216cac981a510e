// SPDX-License-Identifier: ISC
/*
 * enforce/network.c - network modes.  "none": a new network namespace whose only
 * interface is lo, brought up, so loopback works inside and nothing
 * leaves (no route, no other interface).
 *
 * Runs in: the sandbox's first process, in its new network namespace.
 */
#include "config.h"

#include <errno.h>
#include <net/if.h>
#include <netinet/in.h>
#include <arpa/inet.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include "enforce/network.h"
#include "lib/util.h"

static int
lo_up(void)
{
	autoclose int fd = -1;
	struct ifreq ifr;

	if ((fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0)) < 0)
		return -errno;
	memset(&ifr, 0, sizeof(ifr));
	strncpy(ifr.ifr_name, "lo", IFNAMSIZ - 1);
	if (ioctl(fd, SIOCGIFFLAGS, &ifr) < 0)
		return -errno;
	ifr.ifr_flags |= IFF_UP | IFF_RUNNING;
	if (ioctl(fd, SIOCSIFFLAGS, &ifr) < 0)
		return -errno;
	return 0;
}

/* The proxy's socket, in this network namespace, for the supervisor. */
int
net_proxy_listener(void)
{
	return net_listener(PLAN_PROXY_PORT);
}

/* A listener on 127.0.0.1:port, in this network namespace. */
int
net_listener(unsigned int port)
{
	struct sockaddr_in a = { .sin_family = AF_INET,
	    .sin_port = htons((uint16_t)port),
	    .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);

	if (fd < 0)
		return -errno;
	if (bind(fd, (struct sockaddr *)&a, sizeof(a)) < 0 ||
	    listen(fd, 128) < 0) {
		int err = errno;

		close(fd);
		return -err;
	}
	return fd;
}

int
net_setup(enum plan_net mode, int *ret_listener)
{
	int r;

	*ret_listener = -1;
	switch (mode) {
	case PLAN_NET_NONE:
		return lo_up();
	case PLAN_NET_PROXY:
		if ((r = lo_up()) < 0)
			return r;
		if ((r = net_proxy_listener()) < 0)
			return r;
		*ret_listener = r;
		return 0;
	case PLAN_NET_HOST:
		/* The host's own network namespace: nothing to set up. */
		return 0;
	}
	return -EOPNOTSUPP;
}
