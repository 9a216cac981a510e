// SPDX-License-Identifier: ISC
/*
 * enforce/capabilities.c - drop every capability (capabilities(7)) and prove it.
 *
 * Runs in: the sandbox's first process, before no_new_privs and Landlock.
 * MUST: check every call, and verify with the kernel afterwards (a
 * library that logs a failed drop and carries on has been seen: Debian's
 * libcap-ng 0.8.3, which this replaced).
 */
#include "config.h"

#include <errno.h>
#include <linux/capability.h>
#include <linux/securebits.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "enforce/capabilities.h"

#ifndef PR_CAP_AMBIENT
#define PR_CAP_AMBIENT		47
#define PR_CAP_AMBIENT_CLEAR_ALL	4
#endif

/* Past any kernel's last capability (/proc/sys/kernel/cap_last_cap). */
#define CAP_BOUND	64

int
caps_verify(bool bounding, const char **what)
{
	struct __user_cap_header_struct hdr = {
		.version = _LINUX_CAPABILITY_VERSION_3, .pid = 0 };
	struct __user_cap_data_struct data[2];
	int i;

	if (syscall(SYS_capget, &hdr, data) < 0)
		return -errno;
	for (i = 0; i < 2; i++) {
		if (data[i].effective || data[i].permitted ||
		    data[i].inheritable) {
			*what = "effective, permitted or inheritable set";
			return -EPERM;
		}
	}
	/*
	 * The ambient set is empty too: the kernel keeps it within the
	 * permitted and inheritable sets (capabilities(7), "Ambient").  The
	 * bounding set has no bulk read: one PR_CAPBSET_READ a capability,
	 * up to the kernel's last.
	 */
	for (i = 0; bounding && i < CAP_BOUND; i++) {
		int r = prctl(PR_CAPBSET_READ, i, 0, 0, 0);

		if (r < 0 && errno == EINVAL)
			break;
		if (r != 0) {
			*what = "bounding set";
			return -EPERM;
		}
	}
	return 0;
}

int
caps_drop_all(const char **what)
{
	/*
	 * NOROOT: uid 0 gets no capabilities at execve; NO_SETUID_FIXUP and
	 * KEEP_CAPS locked; no ambient raise.  Needs CAP_SETPCAP, so first.
	 */
	const unsigned long bits = SECBIT_NOROOT | SECBIT_NOROOT_LOCKED |
	    SECBIT_NO_SETUID_FIXUP | SECBIT_NO_SETUID_FIXUP_LOCKED |
	    SECBIT_KEEP_CAPS_LOCKED | SECBIT_NO_CAP_AMBIENT_RAISE |
	    SECBIT_NO_CAP_AMBIENT_RAISE_LOCKED;

	struct __user_cap_header_struct hdr = {
		.version = _LINUX_CAPABILITY_VERSION_3, .pid = 0 };
	struct __user_cap_data_struct none[2] = { { 0 }, { 0 } };
	int i;

	*what = "securebits";
	if (prctl(PR_SET_SECUREBITS, bits, 0, 0, 0) < 0)
		return -errno;
	/* The bounding set, while CAP_SETPCAP is still there; EINVAL past
	 * the kernel's last capability. */
	*what = "bounding set";
	for (i = 0; i < CAP_BOUND; i++)
		if (prctl(PR_CAPBSET_DROP, i, 0, 0, 0) < 0) {
			if (errno == EINVAL && i > 0)
				break;
			return -errno;
		}
	*what = "ambient set";
	if (prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0) < 0)
		return -errno;
	/* One capset(2): effective, permitted and inheritable, all empty. */
	*what = "effective, permitted or inheritable set";
	if (syscall(SYS_capset, &hdr, none) < 0)
		return -errno;
	return caps_verify(true, what);
}
