// SPDX-License-Identifier: ISC
/*
 * cfloor.c - the floor of a native launch: the least kernel work any
 * program must do to give a command what confine's native backend gives
 * it, with nothing looked up, decided, checked or said.
 *
 *	cfloor [-o] SESSIONS COMMAND [ARG...]
 *
 * The working directory is the workspace.  What it does, each the
 * cheapest way the kernel offers:
 *
 *   the session: SESSIONS/s.PID with upper/ and work/ (3 mkdir);
 *   clone3 into a user, mount, pid, network, ipc, uts and cgroup namespace;
 *   in the sandbox's first process: its own uid and gid mapped, / made
 *   private, the host's whole tree cloned (open_tree, recursive) and made
 *   read-only, nosuid, nodev with one mount_setattr, attached, then a
 *   fresh proc, a /dev tmpfs with six host nodes bound, devpts and shm,
 *   a fresh sysfs, tmpfs on /tmp and /run, the workspace as an overlay
 *   with its upper layer in the session, the loopback up, a hostname,
 *   pivot_root and the host's tree detached;
 *   the command in a process of its own: a session of its own, every
 *   capability set emptied, no_new_privs, a Landlock ruleset of four
 *   rules, a seccomp filter of a few instructions, exec;
 *   the first process reaps it and hands its status over a pipe, and
 *   this process returns it at once; a detached process removes the
 *   session once the sandbox is gone.
 *
 * With -o the host's view is built as confine's native backend builds it,
 * at its cheapest (overlay_root() below): each of the root's directories
 * through a read-only overlay, the kernel's way of keeping the host's
 * sockets, locks and leases out of reach; without, the view is
 * bubblewrap's, which keeps none of them out.
 *
 * Neither keeps a cgroup, a report, a record or an export, or reads any
 * policy: a floor for confine, not a sandbox to use.  A benchmark
 * contender (bench/launch --floor), not a tool.
 *
 * Exit status: the command's; 125 when a step fails (said on stderr).
 */
#define _GNU_SOURCE

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/capability.h>
#include <linux/filter.h>
#include <linux/landlock.h>
#include <linux/mount.h>
#include <linux/sched.h>
#include <linux/seccomp.h>
#include <net/if.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <stdnoreturn.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/sendfile.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#ifndef MOVE_MOUNT_F_EMPTY_PATH
#define MOVE_MOUNT_F_EMPTY_PATH	0x00000004
#endif
#ifndef AT_RECURSIVE
#define AT_RECURSIVE		0x8000
#endif

static int overlays;
static char session[PATH_MAX - 16], upper[PATH_MAX], work[PATH_MAX],
    workwork[PATH_MAX];

static noreturn void
fail(const char *what)
{
	fprintf(stderr, "cfloor: %s: %s\n", what, strerror(errno));
	_exit(125);
}

static void
put(const char *path, const char *text)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC);

	if (fd < 0 || write(fd, text, strlen(text)) != (ssize_t)strlen(text))
		fail(path);
	close(fd);
}

/* A /dev node: an empty file in the tmpfs, the host's node bound on it. */
static void
dev_node(const char *name)
{
	char host[64], dst[64];
	int fd;

	snprintf(host, sizeof(host), "/dev/%s", name);
	snprintf(dst, sizeof(dst), "dev/%s", name);
	if ((fd = open(dst, O_CREAT | O_WRONLY | O_CLOEXEC, 0666)) < 0)
		fail(dst);
	close(fd);
	if (mount(host, dst, NULL, MS_BIND, NULL) < 0)
		fail(dst);
}

/* The workspace's path made where a tmpfs of the sandbox covers it. */
static void
mkdirs(char *path)
{
	char *p;

	for (p = path + 2; (p = strchr(p, '/')) != NULL; p++) {
		*p = '\0';
		mkdir(path, 0755);
		*p = '/';
	}
	mkdir(path, 0755);
}

static void
rule(int ruleset, const char *path, uint64_t access)
{
	struct landlock_path_beneath_attr pb = { .allowed_access = access };

	if ((pb.parent_fd = open(path, O_PATH | O_CLOEXEC)) < 0)
		fail(path);
	if (syscall(SYS_landlock_add_rule, ruleset, LANDLOCK_RULE_PATH_BENEATH,
	    &pb, 0) < 0)
		fail("landlock_add_rule");
	close(pb.parent_fd);
}

/* Does a host mount lie at or below path (mountinfo's fifth field)? */
static int
mounts_below(const char *mi, const char *path)
{
	size_t n = strlen(path);
	const char *l;

	for (l = mi; l && *l; l = strchr(l, '\n'), l = l ? l + 1 : NULL) {
		const char *f = l;
		int i;

		for (i = 0; i < 4 && f; i++)
			f = strchr(f, ' '), f = f ? f + 1 : NULL;
		if (f && strncmp(f, path, n) == 0 && (f[n] == '/' ||
		    f[n] == ' '))
			return 1;
	}
	return 0;
}

/*
 * -o: the host's view as confine's native backend shows it, at its
 * cheapest: a tmpfs root whose directories are each the host's through a
 * read-only overlay (which keeps host sockets, locks and leases out), a
 * directory holding host mounts an empty tmpfs instead of rebuilt, the
 * root's files copied.  Leaves the working directory at the new root.
 */
static void
overlay_root(void)
{
	static char mi[1 << 16];
	static const char *const fresh[] = { "proc", "sys", "dev", "tmp",
	    "run" };
	char path[NAME_MAX + 2], opts[128], link[PATH_MAX];
	struct dirent *e;
	struct stat st;
	ssize_t n;
	size_t i;
	int fd, rfd, src, dst, len = 0;
	DIR *d;

	if ((fd = open("/proc/self/mountinfo", O_RDONLY | O_CLOEXEC)) < 0)
		fail("mountinfo");
	while ((n = read(fd, mi + len, sizeof(mi) - 1 - (size_t)len)) > 0)
		len += (int)n;
	mi[len] = '\0';
	close(fd);
	if ((rfd = open("/", O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0 ||
	    mount("tmpfs", "/run", "tmpfs", MS_NOSUID | MS_NODEV,
	    "mode=0755") < 0 || mkdir("/run/e", 0755) < 0 ||
	    mkdir("/run/r", 0755) < 0 || mount("tmpfs", "/run/r", "tmpfs",
	    MS_NOSUID | MS_NODEV, "mode=0755") < 0 || chdir("/run/r") < 0)
		fail("the new root");
	if ((d = fdopendir(rfd)) == NULL)
		fail("/");
	while ((e = readdir(d)) != NULL) {
		if (e->d_name[0] == '.' && (e->d_name[1] == '\0' ||
		    (e->d_name[1] == '.' && e->d_name[2] == '\0')))
			continue;
		if (fstatat(rfd, e->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0)
			continue;
		if (S_ISLNK(st.st_mode)) {
			n = readlinkat(rfd, e->d_name, link, sizeof(link) - 1);
			if (n >= 0)
				link[n] = '\0';
			if (n < 0 || symlink(link, e->d_name) < 0)
				fail(e->d_name);
			continue;
		}
		if (S_ISREG(st.st_mode)) {
			if ((src = openat(rfd, e->d_name, O_RDONLY |
			    O_CLOEXEC)) < 0)
				continue;
			if ((dst = open(e->d_name, O_WRONLY | O_CREAT |
			    O_CLOEXEC, st.st_mode & 0777)) < 0)
				fail(e->d_name);
			while (sendfile(dst, src, NULL, 1 << 20) > 0)
				;
			close(src);
			close(dst);
			continue;
		}
		if (!S_ISDIR(st.st_mode))
			continue;
		if (mkdir(e->d_name, st.st_mode & 07777) < 0)
			fail(e->d_name);
		for (i = 0; i < sizeof(fresh) / sizeof(fresh[0]); i++)
			if (strcmp(e->d_name, fresh[i]) == 0)
				break;
		if (i < sizeof(fresh) / sizeof(fresh[0]))
			continue;
		snprintf(path, sizeof(path), "/%s", e->d_name);
		if (mounts_below(mi, path)) {
			if (mount("tmpfs", e->d_name, "tmpfs", MS_RDONLY |
			    MS_NOSUID | MS_NODEV, "mode=0755") < 0)
				fail(e->d_name);
			continue;
		}
		if ((src = openat(rfd, e->d_name, O_PATH | O_DIRECTORY |
		    O_CLOEXEC)) < 0)
			continue;
		snprintf(opts, sizeof(opts), "lowerdir=/proc/self/fd/%d:"
		    "/run/e", src);
		if (mount("overlay", e->d_name, "overlay", MS_RDONLY |
		    MS_NOSUID | MS_NODEV, opts) < 0)
			fail(e->d_name);
		close(src);
	}
	closedir(d);
}

/* The command's own steps, then exec. */
static void
command(const char *ws, char **argv)
{
	struct __user_cap_header_struct hdr = {
		.version = _LINUX_CAPABILITY_VERSION_3 };
	struct __user_cap_data_struct none[2] = { { 0 }, { 0 } };
	const uint64_t rx = LANDLOCK_ACCESS_FS_EXECUTE |
	    LANDLOCK_ACCESS_FS_READ_FILE | LANDLOCK_ACCESS_FS_READ_DIR;
	const uint64_t all = (LANDLOCK_ACCESS_FS_REFER << 1) - 1;
	struct landlock_ruleset_attr ra = { .handled_access_fs = all };
	/* x86-64 only, a few syscalls refused: the filter's shape, not
	 * confine's list. */
	struct sock_filter f[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
		    offsetof(struct seccomp_data, arch)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, 0xc000003e, 1, 0),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS),
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
		    offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_kexec_load, 4, 0),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_init_module, 3, 0),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_ptrace, 2, 0),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_keyctl, 1, 0),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | EPERM),
	};
	struct sock_fprog prog = { .len = sizeof(f) / sizeof(f[0]),
	    .filter = f };
	int i, ruleset;

	setsid();
	for (i = 0; i < 64; i++)
		if (prctl(PR_CAPBSET_DROP, i, 0, 0, 0) < 0 && errno == EINVAL)
			break;
	if (syscall(SYS_capset, &hdr, none) < 0)
		fail("capset");
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
		fail("no_new_privs");
	if ((ruleset = (int)syscall(SYS_landlock_create_ruleset, &ra,
	    sizeof(ra), 0)) < 0)
		fail("landlock_create_ruleset");
	rule(ruleset, "/", rx);
	rule(ruleset, ws, all);
	rule(ruleset, "/tmp", all);
	rule(ruleset, "/dev", all);
	if (syscall(SYS_landlock_restrict_self, ruleset, 0) < 0)
		fail("landlock_restrict_self");
	close(ruleset);
	if (prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog, 0, 0) < 0)
		fail("seccomp");
	execvp(argv[0], argv);
	fail(argv[0]);
}

/* The sandbox's first process. */
static void
pid1(int status_fd, const char *ws, uid_t uid, gid_t gid,
    char **argv)
{
	struct mount_attr ro = { .attr_set = MOUNT_ATTR_RDONLY |
	    MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV };
	static const char *const nodes[] = { "null", "zero", "full", "random",
	    "urandom", "tty" };
	char map[64], opts[3 * 64], dst[PATH_MAX + 2];
	struct ifreq ifr = { .ifr_name = "lo" };
	unsigned char code;
	pid_t cmd;
	size_t i;
	int s, st, wsfd, upfd, workfd;

	prctl(PR_SET_PDEATHSIG, SIGKILL);
	put("/proc/self/setgroups", "deny");
	snprintf(map, sizeof(map), "%u %u 1\n", uid, uid);
	put("/proc/self/uid_map", map);
	snprintf(map, sizeof(map), "%u %u 1\n", gid, gid);
	put("/proc/self/gid_map", map);

	if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0)
		fail("make / private");
	/* The layers, as this mount namespace has them. */
	if ((wsfd = open(ws, O_PATH | O_DIRECTORY | O_CLOEXEC)) < 0 ||
	    (upfd = open(upper, O_PATH | O_DIRECTORY | O_CLOEXEC)) < 0 ||
	    (workfd = open(work, O_PATH | O_DIRECTORY | O_CLOEXEC)) < 0)
		fail("the layers");
	if (overlays)
		overlay_root();
	else {
		int tree;

		if ((tree = (int)syscall(SYS_open_tree, AT_FDCWD, "/",
		    OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC | AT_RECURSIVE)) < 0)
			fail("open_tree");
		if (syscall(SYS_mount_setattr, tree, "", AT_EMPTY_PATH |
		    AT_RECURSIVE, &ro, sizeof(ro)) < 0)
			fail("mount_setattr");
		if (syscall(SYS_move_mount, tree, "", AT_FDCWD, "/tmp",
		    MOVE_MOUNT_F_EMPTY_PATH) < 0)
			fail("move_mount");
		close(tree);
		if (chdir("/tmp") < 0)
			fail("chdir");
	}

	if (mount("proc", "proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC,
	    NULL) < 0)
		fail("proc");
	if (mount("tmpfs", "dev", "tmpfs", MS_NOSUID | MS_NOEXEC,
	    "mode=0755") < 0)
		fail("dev");
	for (i = 0; i < sizeof(nodes) / sizeof(nodes[0]); i++)
		dev_node(nodes[i]);
	if (mkdir("dev/pts", 0755) < 0 || mkdir("dev/shm", 01777) < 0)
		fail("dev/pts, dev/shm");
	if (mount("devpts", "dev/pts", "devpts", MS_NOSUID | MS_NOEXEC,
	    "newinstance,ptmxmode=0666,mode=620") < 0)
		fail("devpts");
	if (mount("tmpfs", "dev/shm", "tmpfs", MS_NOSUID | MS_NODEV |
	    MS_NOEXEC, "mode=1777") < 0)
		fail("shm");
	if (mount("sysfs", "sys", "sysfs", MS_RDONLY | MS_NOSUID | MS_NODEV |
	    MS_NOEXEC, NULL) < 0)
		fail("sysfs");
	if (mount("tmpfs", "tmp", "tmpfs", MS_NOSUID | MS_NODEV,
	    "mode=1777") < 0 || mount("tmpfs", "run", "tmpfs", MS_NOSUID |
	    MS_NODEV | MS_NOEXEC, "mode=0755") < 0)
		fail("tmpfs");
	snprintf(opts, sizeof(opts), "lowerdir=/proc/self/fd/%d,upperdir="
	    "/proc/self/fd/%d,workdir=/proc/self/fd/%d", wsfd, upfd, workfd);
	snprintf(dst, sizeof(dst), ".%s", ws);
	mkdirs(dst);
	if (mount("overlay", dst, "overlay", MS_NOSUID | MS_NODEV, opts) < 0)
		fail("the workspace's overlay");
	close(wsfd);
	close(upfd);
	close(workfd);

	if ((s = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0)) < 0 ||
	    ioctl(s, SIOCGIFFLAGS, &ifr) < 0)
		fail("lo");
	ifr.ifr_flags |= IFF_UP;
	if (ioctl(s, SIOCSIFFLAGS, &ifr) < 0)
		fail("lo up");
	close(s);
	if (sethostname("sandbox", 7) < 0)
		fail("sethostname");
	if (overlays && syscall(SYS_mount_setattr, AT_FDCWD, ".", 0, &ro,
	    sizeof(ro)) < 0)
		fail("the new root read-only");

	if (syscall(SYS_pivot_root, ".", ".") < 0 ||
	    umount2(".", MNT_DETACH) < 0 || chdir(ws) < 0)
		fail("pivot_root");

	if ((cmd = fork()) < 0)
		fail("fork");
	if (cmd == 0)
		command(ws, argv);
	while (waitpid(cmd, &st, 0) < 0)
		if (errno != EINTR)
			fail("waitpid");
	code = WIFEXITED(st) ? (unsigned char)WEXITSTATUS(st) :
	    (unsigned char)(128 + WTERMSIG(st));
	if (write(status_fd, &code, 1) != 1)
		_exit(125);
	_exit(code);
}

int
main(int argc, char **argv)
{
	struct clone_args ca = { .flags = CLONE_NEWUSER | CLONE_NEWNS |
	    CLONE_NEWPID | CLONE_NEWNET | CLONE_NEWIPC | CLONE_NEWUTS |
	    CLONE_NEWCGROUP, .exit_signal = SIGCHLD };
	char ws[PATH_MAX];
	unsigned char code;
	const uid_t uid = getuid();
	const gid_t gid = getgid();
	int st[2], pidfd;
	pid_t child;

	if (argc > 1 && strcmp(argv[1], "-o") == 0) {
		overlays = 1;
		argv++;
		argc--;
	}
	if (argc < 3) {
		fprintf(stderr, "usage: cfloor [-o] SESSIONS COMMAND "
		    "[ARG...]\n");
		return 2;
	}
	if (getcwd(ws, sizeof(ws)) == NULL)
		fail("getcwd");
	if (strlen(argv[1]) > PATH_MAX - 64) {
		errno = ENAMETOOLONG;
		fail(argv[1]);
	}
	snprintf(session, sizeof(session), "%s/s.%d", argv[1], (int)getpid());
	snprintf(upper, sizeof(upper), "%s/upper", session);
	snprintf(work, sizeof(work), "%s/work", session);
	snprintf(workwork, sizeof(workwork), "%s/work/work", session);
	if (mkdir(session, 0700) < 0 || mkdir(upper, 0700) < 0 ||
	    mkdir(work, 0700) < 0)
		fail(session);
	if (pipe2(st, O_CLOEXEC) < 0)
		fail("setup");

	if ((child = (pid_t)syscall(SYS_clone3, &ca, sizeof(ca))) < 0)
		fail("clone3");
	if (child == 0) {
		close(st[0]);
		pid1(st[1], ws, uid, gid, argv + 2);
	}
	close(st[1]);
	if ((pidfd = (int)syscall(SYS_pidfd_open, child, 0)) < 0)
		fail("pidfd_open");
	if (read(st[0], &code, 1) != 1) {
		int wst;

		waitpid(child, &wst, 0);
		code = 125;
	}
	/* The session removed once the sandbox is gone, off the status's
	 * path. */
	if (fork() == 0) {
		setsid();
		poll(&(struct pollfd){ .fd = pidfd, .events = POLLIN }, 1, -1);
		rmdir(workwork);
		rmdir(work);
		rmdir(upper);
		rmdir(session);
		_exit(0);
	}
	return code;
}
