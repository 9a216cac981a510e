// SPDX-License-Identifier: ISC
/*
 * net.c - network modes.  "none": a new network namespace whose only
 * interface is lo, brought up, so loopback works inside and nothing
 * leaves (no route, no other interface).
 *
 * Runs in: the sandbox's first process, in its new network namespace.
 */
#include "config.h"

#include <errno.h>
#include <net/if.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include "net.h"
#include "util.h"

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

int
net_setup(enum plan_net mode)
{
	switch (mode) {
	case PLAN_NET_NONE:
		return lo_up();
	case PLAN_NET_PROXY:
	case PLAN_NET_HOST:
		break;
	}
	return -EOPNOTSUPP;
}
