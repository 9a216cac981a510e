// SPDX-License-Identifier: ISC
/*
 * cmd/doctor.c - report the kernel's and system's confinement features, and
 * the backend "auto" would use.
 *
 * Runs in: the supervisor; probes in throwaway child processes only.
 */
#include "config.h"

#include <errno.h>
#include <limits.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cmd/doctor.h"
#include "enforce/namespaces.h"
#include "input/host-probe.h"
#include "lib/spawn.h"
#include "lib/sys.h"
#include "lib/util.h"
#include "policy/compute.h"
#include "policy/limits-engine.h"
#include "policy/limits.h"

/*
 * Can an unprivileged user namespace mount an overlay with user xattrs,
 * as the native backend does?  Tried in a throwaway child and directory.
 */
static int
userns_overlay(char **why)
{
	char dir[] = "/tmp/confine-doctor-XXXXXX";
	static const char *const sub[] = { "l", "u", "w", "m" };
	char path[PATH_MAX], opts[PATH_MAX * 4];
	int status = 0, err = 0;
	uid_t uid = getuid();
	gid_t gid = getgid();
	size_t i;
	pid_t pid;

	*why = NULL;
	if (mkdtemp(dir) == NULL) {
		*why = xasprintf("cannot make a directory in /tmp: %s",
		    strerror(errno));
		return -1;
	}
	for (i = 0; i < nitems(sub); i++) {
		snprintf(path, sizeof(path), "%s/%s", dir, sub[i]);
		mkdir(path, 0700);
	}
	snprintf(opts, sizeof(opts), "lowerdir=%s/l,upperdir=%s/u,"
	    "workdir=%s/w,userxattr", dir, dir, dir);
	snprintf(path, sizeof(path), "%s/m", dir);
	pid = (pid_t)syscall(SYS_clone, CLONE_NEWUSER | CLONE_NEWNS | SIGCHLD,
	    NULL, NULL, NULL, 0);
	if (pid == 0) {
		if (ns_map_ids(uid, gid) < 0)
			_exit(2);
		if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0)
			_exit(3);
		_exit(mount("overlay", path, "overlay", 0, opts) < 0 ? 4 : 0);
	}
	if (pid < 0)
		err = errno;
	else
		while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
			;
	snprintf(path, sizeof(path), "%s/w/work", dir);
	chmod(path, 0700);
	rmdir(path);
	for (i = 0; i < nitems(sub); i++) {
		snprintf(path, sizeof(path), "%s/%s", dir, sub[i]);
		rmdir(path);
	}
	rmdir(dir);
	if (pid < 0) {
		*why = xasprintf("no: cannot create a user namespace: %s",
		    strerror(err));
		return -1;
	}
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
		*why = xasprintf("no: %s", WEXITSTATUS(status) == 4 ?
		    "overlayfs cannot be mounted in a user namespace" :
		    "the user namespace cannot be set up");
		return -1;
	}
	return 0;
}

static void
print_file(const char *label, const char *path)
{
	char buf[256];
	FILE *f;

	if ((f = fopen(path, "re")) == NULL)
		return;
	if (fgets(buf, sizeof(buf), f)) {
		buf[strcspn(buf, "\n")] = '\0';
		printf("  %s: %s\n", label, buf);
	}
	fclose(f);
}

static void
landlock_report(int abi, int err)
{
	static const char *const missing[] = {
		[2] = "REFER (rename and link across directories)",
		[3] = "TRUNCATE",
		[4] = "TCP bind and connect rules",
		[5] = "IOCTL_DEV (ioctl on devices)",
		[6] = "scopes (abstract unix sockets, signals)",
		[9] = "RESOLVE_UNIX (pathname unix sockets)",
	};
	int v, errata;

	if (abi < 1) {
		printf("landlock: not available (%s)\n", err == EOPNOTSUPP ?
		    "built in but disabled at boot" : "not built in");
		return;
	}
	errata = sys_landlock_create_ruleset(NULL, 0,
	    CONFINE_LL_CREATE_RULESET_ERRATA);
	printf("landlock: ABI %d", abi);
	if (errata >= 0)
		printf(" (errata 0x%x)", errata);
	printf("; rights fs 0x%llx, net 0x%llx, scopes 0x%llx\n",
	    (unsigned long long)policy_landlock_fs(abi),
	    (unsigned long long)policy_landlock_net(abi),
	    (unsigned long long)policy_landlock_scoped(abi));
	for (v = abi + 1; v < (int)nitems(missing); v++)
		if (missing[v])
			printf("  lacks (ABI %d): %s\n", v, missing[v]);
}

/* Each backend: can it run here, and why not; then what auto picks. */
/*
 * The helper programs confine runs: the export (every session) and the
 * keyholder (a session that injects a credential).  A missing one is
 * said, not an error of doctor's: confine refuses what needs it.
 */
static void
helpers(void)
{
	static const char *const name[] = { "confine-export",
	    "confine-keyholder" };
	static const char *const what[] = { "exports every session",
	    "holds an injected credential" };
	size_t i;

	printf("helpers:\n");
	for (i = 0; i < nitems(name); i++) {
		autofree char *p = spawn_helper_path(name[i]);

		printf("  %s: %s (%s)\n", name[i], access(p, X_OK) == 0 ? p :
		    "missing", what[i]);
	}
}

static int
backends(int abi, const char *overlay_why)
{
	struct host h = { .uid = getuid(), .landlock_abi = abi };
	const char *native_why, *auto_pick;
	int status, keys;

	h.userns_why = probe_userns_why(h.uid);
	probe_userns_trial(&h);
	native_why = h.userns_why ? h.userns_why : overlay_why;
	probe_bwrap_found(&h);
	probe_bwrap(&h, true);
	printf("backends:\n");
	printf("  native: %s%s\n", native_why ? "no: " : "yes",
	    native_why ? native_why : "");
	if (!h.bwrap.found)
		printf("  bwrap: no: %s is not installed\n", BWRAP_PATH);
	else
		printf("  bwrap: %s%s (%s%s%s)\n", h.bwrap.why ? "no: " : "yes",
		    h.bwrap.why ? h.bwrap.why : "", BWRAP_PATH,
		    h.bwrap.setuid ? ", setuid" : "", h.bwrap.disable_userns ?
		    ", has --disable-userns" : "");
	/* Which mechanism keeps host sockets out, whenever they are bound. */
	if (h.bwrap.found && !h.bwrap.why)
		printf("    host unix sockets: unreachable: confine answers "
		    "unix connects and sends (seccomp user notification)\n");
	keys = probe_keys_shown();
	if (abi >= 6 && keys > 0) {
		printf("  landlock: no: /proc/keys shows %d of your kernel keys, "
		    "whose names the command would see (Landlock cannot hide "
		    "the file)\n", keys);
	} else if (abi >= 6) {
		printf("  landlock: yes (weaker: no pid or mount namespace; "
		    "the workspace is a copy; network none or host only%s)\n",
		    abi < 9 ? "; socket(AF_UNIX) refused, as landlock ABI < 9 "
		    "cannot keep the host's unix sockets out" : "");
	} else
		printf("  landlock: no: it needs landlock ABI 6 (signal "
		    "scoping, which ends the session's processes), this kernel "
		    "has %d\n", abi);
	{
		static const enum plan_backend b[] = { PLAN_BACKEND_NATIVE,
		    PLAN_BACKEND_BWRAP, PLAN_BACKEND_LANDLOCK };
		static const char *const name[] = { "native", "bwrap",
		    "landlock" };
		struct plan p = { .landlock.abi = abi };
		size_t i;

		printf("host unix sockets:\n");
		for (i = 0; i < nitems(b); i++) {
			p.backend = b[i];
			printf("  %s: %s\n", name[i], plan_sockets_why(&p));
		}
	}
	auto_pick = !native_why ? "native" : (h.bwrap.found && !h.bwrap.why) ?
	    "bwrap" : abi >= 6 && keys == 0 ? "landlock" : NULL;
	if (auto_pick) {
		printf("auto: %s\n", auto_pick);
		status = 0;
		helpers();
	} else {
		printf("auto: none: confine refuses to run here\n");
		printf("hint: allow unprivileged user namespaces, install a "
		    "setuid %s, or boot a kernel with landlock ABI 6 or "
		    "later\n", BWRAP_PATH);
		status = 1;
	}
	host_free(&h);
	return status;
}

/*
 * The limits' engine here, as a run would choose it with its defaults
 * (policy/limits-engine.c), and the facts it was chosen by.
 */
static void
limits_report(void)
{
	extern char **environ;
	struct host_cgroup c;
	struct plan p = { .session_id = (char *)"ID" };
	struct cli_opts o = { 0 };
	struct profile pr = { 0 };
	struct host h;
	autofree char *ctl = NULL, *avail = NULL, *cause = NULL, *hint = NULL;
	char b[5][32];
	size_t i;

	/* The defaults a run here starts from (no option, no profile). */
	if (probe_host(environ, NULL, &h, &cause) < 0) {
		printf("limits: defaults unknown: %s\n", cause);
		p.limits.memory = 1;
		p.limits.tasks = 1;
	} else {
		p.backend = PLAN_BACKEND_NATIVE;
		p.uid = h.uid;
		if (policy_limits(&p, &o, &pr, &h, &cause, &hint) < 0)
			printf("limits: %s\n", cause);
		else
			printf("limits (the defaults here, before any profile "
			    "or option): memory %s, tasks %s, cpus %s, disk "
			    "%s (the store keeps %s free)\n",
			    plan_limit_name(PLAN_LIMIT_MEMORY, p.limits.memory,
			    b[0]), plan_limit_name(PLAN_LIMIT_TASKS,
			    p.limits.tasks, b[1]), plan_limit_name(
			    PLAN_LIMIT_CPUS, p.limits.cpu_millis, b[2]),
			    plan_limit_name(PLAN_LIMIT_DISK, p.limits.disk, b[3]),
			    plan_size_name(p.limits.disk_reserve, b[4]));
		for (i = 0; i < nitems(p.limits.origin); i++)
			free(p.limits.origin[i]);
		strv_free(p.explain);
		host_free(&h);
	}
	probe_cgroup(&c, environ, getuid());
#ifdef WITH_SYSTEMD
	printf("limits: built with systemd (sd-bus): yes\n");
#else
	printf("limits: built with systemd (sd-bus): no (./configure "
	    "--without-systemd, or no libsystemd)\n");
#endif
	if (c.mount == NULL)
		printf("  cgroup2: not mounted\n");
	else
		printf("  cgroup2: %s; confine's cgroup: %s (%s, %s; "
		    "controllers: %s%s%s%s)\n", c.mount, c.dir ? c.dir :
		    "not found", c.delegated ? "delegated" : "not delegated",
		    c.writable ? "writable" : "not writable",
		    (c.available & HOST_CG_MEMORY) ? "memory " : "",
		    (c.available & HOST_CG_PIDS) ? "pids " : "",
		    (c.available & HOST_CG_CPU) ? "cpu " : "",
		    c.available ? "" : "none");
	printf("  systemd: %s; bus: %s%s%s\n", c.systemd ? "runs this host" :
	    "does not run this host", c.system_bus ? "the system bus" :
	    c.user_bus ? "the user's, " : "none", c.user_bus ? c.user_bus : "",
	    c.system_bus || c.user_bus ? "" : " (no $DBUS_SESSION_BUS_ADDRESS "
	    "or $XDG_RUNTIME_DIR/bus)");
#ifdef WITH_SYSTEMD
	limits_engine_plan(&p, &c, true);
#else
	limits_engine_plan(&p, &c, false);
#endif
	limits_engine_dump(&p.limits_engine, stdout);
	plan_engine_free(&p.limits_engine);
	host_cgroup_free(&c);
}

int
doctor_run(void)
{
	struct utsname u;
	autofree char *why = NULL;
	int err = 0, abi;
	bool userns;

	if (uname(&u) == 0)
		printf("kernel: %s %s %s\n", u.sysname, u.release, u.machine);
	abi = sys_landlock_create_ruleset(NULL, 0,
	    CONFINE_LL_CREATE_RULESET_VERSION);
	if (abi < 0) {
		err = errno;
		abi = 0;
	}
	landlock_report(abi, err);

	userns = userns_overlay(&why) == 0;
	printf("user namespaces with overlayfs: %s\n", userns ? "yes" :
	    why);
	print_file("kernel.unprivileged_userns_clone",
	    "/proc/sys/kernel/unprivileged_userns_clone");
	print_file("user.max_user_namespaces",
	    "/proc/sys/user/max_user_namespaces");
	print_file("kernel.apparmor_restrict_unprivileged_userns",
	    "/proc/sys/kernel/apparmor_restrict_unprivileged_userns");

	printf("seccomp: %s\n", prctl(PR_GET_SECCOMP, 0, 0, 0, 0) == 0 ?
	    "yes (filter mode)" : "already filtered: this process runs "
	    "under a seccomp filter");
	print_file("actions", "/proc/sys/kernel/seccomp/actions_avail");
	limits_report();

	return backends(abi, userns ? NULL : why);
}
