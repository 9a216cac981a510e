// SPDX-License-Identifier: ISC
/*
 * test-copy-mark.c - a copy's mark (store/copy-mark.h): an entry older
 * than since is as copied, one of the last tick only with its noted
 * ctime; the recent file is read whole or refused; a real copy's entries
 * are all as copied, and a write of the same size right after the copy
 * (in its last tick, when the machine is quick enough) is a change.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/log.h"
#include "lib/util.h"
#include "run/workspace-copy.h"
#include "store/copy-mark.h"

#include "tap.h"

static void
put(const char *dir, const char *name, const char *text)
{
	autofree char *path = path_join(dir, name);
	FILE *f = fopen(path, "w");

	if (f == NULL || fputs(text, f) == EOF || fclose(f) != 0)
		die_errno(errno, "cannot write '%s'", path);
}

static void
test_rule(void)
{
	struct copy_recent r[2] = {
		{ .ino = 7, .ctime = { 100, 500 } },
		{ .ino = 9, .ctime = { 100, 900 } },
	};
	struct copy_mark m = { .since = { 100, 0 }, .recent = r,
	    .nrecent = 2 };
	struct copy_mark none = { 0 };
	struct stat st = { 0 };

	st.st_ino = 5;
	st.st_ctim = (struct timespec){ 99, 999999999 };
	ok(copy_mark_unchanged(&m, &st), "older than since: as copied");
	ok(!copy_mark_unchanged(&none, &st), "no since: a change");
	st.st_ctim = (struct timespec){ 100, 0 };
	ok(!copy_mark_unchanged(&m, &st), "at since, not noted: a change");
	st.st_ino = 7;
	st.st_ctim = (struct timespec){ 100, 500 };
	ok(copy_mark_unchanged(&m, &st), "noted, the same ctime: as copied");
	st.st_ctim = (struct timespec){ 100, 501 };
	ok(!copy_mark_unchanged(&m, &st), "noted, another ctime: a change");
	st.st_ino = 9;
	st.st_ctim = (struct timespec){ 100, 500 };
	ok(!copy_mark_unchanged(&m, &st), "another entry's ctime: a change");
}

static void
test_granularity(void)
{
	struct timespec ns = { 5, 123456789 }, us = { 5, 123456000 };
	struct timespec s0 = { 5, 0 }, s1 = { 6, 0 }, cs = { 5, 120000000 };

	is_int(copy_ctime_granularity(&ns, &us), 1, "nanoseconds kept");
	is_int(copy_ctime_granularity(&us, &us), 1000, "microseconds kept");
	is_int(copy_ctime_granularity(&cs, &s0), 10000000, "hundredths kept");
	is_int(copy_ctime_granularity(&s0, &s1), 1000000000,
	    "whole seconds kept");
}

static void
test_load(const char *dir)
{
	autofree char *s = path_join(dir, "session");
	struct copy_mark m;

	if (mkdir(s, 0700) < 0)
		die_errno(errno, "mkdir");
	put(s, "meta", "id=x\nstarted_ns=5000000001\n");
	ok(copy_mark_load(s, &m) == 0 && m.since.tv_sec == 5 &&
	    m.since.tv_nsec == 1 && m.nrecent == 0,
	    "an older session: since is its start, nothing recent");
	copy_mark_free(&m);
	put(s, "meta", "id=x\nstarted_ns=5000000001\n"
	    "copy_since_ns=6000000000\n");
	ok(copy_mark_load(s, &m) == 0 && m.since.tv_sec == 6 &&
	    m.nrecent == 0, "copy_since_ns without a recent file");
	copy_mark_free(&m);
	put(s, COPY_RECENT_FILE, "9 6 10\n7 6 20\n");
	ok(copy_mark_load(s, &m) == 0 && m.nrecent == 2 &&
	    m.recent[0].ino == 7 && m.recent[0].ctime.tv_nsec == 20 &&
	    m.recent[1].ino == 9, "the recent file, sorted by inode");
	copy_mark_free(&m);
	put(s, COPY_RECENT_FILE, "9 6 10\n7 6\n");
	ok(copy_mark_load(s, &m) == -EINVAL, "a short line: refused");
	put(s, COPY_RECENT_FILE, "9 6 10");
	ok(copy_mark_load(s, &m) == -EINVAL, "no final newline: refused");
	put(s, COPY_RECENT_FILE, "9 6 1000000000\n");
	ok(copy_mark_load(s, &m) == -EINVAL, "nanoseconds past a second: "
	    "refused");
	put(s, "meta", "id=x\n");
	unlink(path_join(s, COPY_RECENT_FILE));
	ok(copy_mark_load(s, &m) == -ENOENT, "no since at all: refused");
}

/* Every entry at or below dir as the mark says the copy made it? */
static bool
all_unchanged(const struct copy_mark *m, const char *dir, const char *name)
{
	autofree char *path = path_join(dir, name);
	struct stat st;

	if (lstat(path, &st) < 0)
		return false;
	return copy_mark_unchanged(m, &st);
}

static void
test_copy(const char *dir)
{
	autofree char *src = path_join(dir, "src"), *dst = path_join(dir,
	    "dst"), *sub = path_join(src, "d"), *a = path_join(dst, "a");
	struct copy_mark m = { 0 };
	struct copy_stats st;
	const char *where;
	struct stat before, after;
	int fd, dfd;

	if (mkdir(src, 0755) < 0 || mkdir(sub, 0755) < 0)
		die_errno(errno, "mkdir");
	put(src, "a", "hello\n");
	put(sub, "b", "world\n");
	if (symlink("a", path_join(src, "l")) < 0)
		die_errno(errno, "symlink");
	ok(copy_tree_shown(src, dst, NULL, NULL, &m, NULL, NULL, &st,
	    &where) == 0, "the copy is made");
	if ((dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0)
		die_errno(errno, "open");
	/* Without multigrain timestamps: the wait the command would make. */
	if (copy_mark_seal(&m, dfd)) {
		struct timespec now;

		diag("no multigrain timestamps here: the command waits");
		do
			clock_gettime(CLOCK_REALTIME_COARSE, &now);
		while (!(now.tv_sec > m.since.tv_sec || (now.tv_sec ==
		    m.since.tv_sec && now.tv_nsec > m.since.tv_nsec)));
	}
	close(dfd);
	diag("since %lld.%09ld, %zu entries of its last tick noted",
	    (long long)m.since.tv_sec, m.since.tv_nsec, m.nrecent);
	ok(all_unchanged(&m, dst, "") && all_unchanged(&m, dst, "a") &&
	    all_unchanged(&m, dst, "l") && all_unchanged(&m, dst, "d") &&
	    all_unchanged(&m, dst, "d/b"), "every entry is as copied");
	/* At once: the same size, in place. */
	if ((fd = open(a, O_WRONLY | O_CLOEXEC)) < 0 || lstat(a, &before) < 0 ||
	    pwrite(fd, "HELLO\n", 6, 0) != 6 || close(fd) < 0 ||
	    lstat(a, &after) < 0)
		die_errno(errno, "cannot rewrite '%s'", a);
	diag("the file was %s of the copy's last tick",
	    timespec_ge(&before.st_ctim, &m.since) ? "one" : "not one");
	ok(after.st_size == before.st_size, "control: the same size");
	ok(!copy_mark_unchanged(&m, &after), "a write of the same size "
	    "right after the copy is a change");
	ok(all_unchanged(&m, dst, "d/b"), "the copy's other files are not");
	copy_mark_free(&m);
}

int
main(void)
{
	char tmpl[] = "/tmp/confine-test-mark-XXXXXX";
	char *dir = mkdtemp(tmpl);

	if (dir == NULL)
		die_errno(errno, "mkdtemp");
	test_rule();
	test_granularity();
	test_load(dir);
	test_copy(dir);
	{
		autofree char *cmd = xasprintf("rm -rf '%s'", dir);

		if (system(cmd) != 0)
			diag("cannot remove '%s'", dir);
	}
	return done();
}
