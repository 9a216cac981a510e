// SPDX-License-Identifier: ISC
/*
 * enforce/capabilities.c - drop every capability (capabilities(7)) and prove it.
 *
 * Runs in: the sandbox's first process, before no_new_privs and Landlock.
 * MUST: verify with the kernel afterwards: Debian's libcap-ng 0.8.3 logs
 * and returns success when dropping the bounding set fails.
 */
#include "config.h"

#include <cap-ng.h>
#include <errno.h>
#include <linux/capability.h>
#include <linux/securebits.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "enforce/capabilities.h"

#ifndef PR_CAP_AMBIENT
#define PR_CAP_AMBIENT		47
#define PR_CAP_AMBIENT_IS_SET	1
#endif

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
	/* Walk the bounding and ambient sets up to the kernel's last cap. */
	for (i = 0; i < 64; i++) {
		int r = prctl(PR_CAPBSET_READ, i, 0, 0, 0);

		if (r < 0 && errno == EINVAL)
			break;
		if (r != 0 && bounding) {
			*what = "bounding set";
			return -EPERM;
		}
		if (prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_IS_SET, i, 0, 0) > 0) {
			*what = "ambient set";
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

	*what = "securebits";
	if (prctl(PR_SET_SECUREBITS, bits, 0, 0, 0) < 0)
		return -errno;
	*what = "libcap-ng";
	capng_clear(CAPNG_SELECT_ALL);
	if (capng_apply(CAPNG_SELECT_ALL) < 0)
		return -EPERM;
	return caps_verify(true, what);
}
