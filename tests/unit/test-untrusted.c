// SPDX-License-Identifier: ISC
/*
 * test-untrusted.c - the three ways to use the agent's bytes
 * (lib/untrusted.h) keep their promises: untrusted_copy() refuses a NUL
 * and a length past its bound and never reads past the length (the bytes
 * after it are not the agent's name); untrusted_open_beneath() opens a
 * name beneath its root and refuses "..", an absolute path, a symlink
 * (to a file outside, or to one inside), an empty name, a NUL and a name
 * past PATH_MAX; untrusted_display() shows no escape sequence.  Each
 * refusal has its positive control: the same call with the harmless form
 * of the bytes succeeds.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/log.h"
#include "lib/untrusted.h"
#include "lib/util.h"

#include "tap.h"

static struct untrusted
str(const char *s)
{
	return untrusted_wrap(s, strlen(s));
}

static void
copy(void)
{
	/* The agent's name is "abc"; what follows it in memory is not. */
	static const char mem[] = "abcSECRET";
	static const char nul[] = "ab\0c";
	char *out = NULL;

	is_int(untrusted_copy(untrusted_wrap(mem, 3), 16, &out), 0,
	    "copy: three bytes of a longer buffer");
	ok(out && streq(out, "abc"), "copy: exactly the three bytes, "
	    "NUL-terminated (got '%s')", out ? out : "(null)");
	free(out);
	out = NULL;
	is_int(untrusted_copy(untrusted_wrap(nul, 4), 16, &out), -EINVAL,
	    "copy: a NUL inside is refused");
	ok(out == NULL, "copy: nothing returned for a NUL");
	is_int(untrusted_copy(untrusted_wrap(nul, 2), 16, &out), 0,
	    "copy: the bytes before the NUL alone are a name (control)");
	free(out);
	out = NULL;
	is_int(untrusted_copy(untrusted_wrap(mem, 9), 8, &out), -EFBIG,
	    "copy: nine bytes past a bound of eight are refused");
	ok(out == NULL, "copy: nothing returned past the bound");
	is_int(untrusted_copy(untrusted_wrap(mem, 8), 8, &out), 0,
	    "copy: eight bytes at a bound of eight (control)");
	free(out);
}

static void
beneath(void)
{
	char dir[] = "/tmp/confine-test-untrusted-XXXXXX";
	char outside[] = "/tmp/confine-test-untrusted-out-XXXXXX";
	autofree char *long_name = NULL, *p = NULL;
	static const char sub_x[] = "sub/xTRAILING";
	int root, fd, ofd;

	if (mkdtemp(dir) == NULL || (ofd = mkstemp(outside)) < 0)
		die_errno(errno, "mkdtemp");
	close(ofd);
	p = xasprintf("%s/sub", dir);
	if (mkdir(p, 0700) < 0)
		die_errno(errno, "mkdir");
	free(p);
	p = xasprintf("%s/sub/x", dir);
	if ((fd = open(p, O_WRONLY | O_CREAT, 0600)) < 0)
		die_errno(errno, "create");
	close(fd);
	free(p);
	p = xasprintf("%s/up", dir);
	if (symlink(outside, p) < 0)
		die_errno(errno, "symlink");
	free(p);
	p = xasprintf("%s/in", dir);
	if (symlink("sub/x", p) < 0)
		die_errno(errno, "symlink");
	if ((root = open(dir, O_PATH | O_DIRECTORY | O_CLOEXEC)) < 0)
		die_errno(errno, "open");

	fd = untrusted_open_beneath(root, str("sub/x"), O_RDONLY);
	ok(fd >= 0, "beneath: a file beneath the root opens (control)");
	if (fd >= 0)
		close(fd);
	fd = untrusted_open_beneath(root, untrusted_wrap(sub_x, 5), O_RDONLY);
	ok(fd >= 0, "beneath: only the name's length is read (the bytes "
	    "after it are no part of the path)");
	if (fd >= 0)
		close(fd);
	is_int(untrusted_open_beneath(root, str("../x"), O_RDONLY),
	    -EXDEV, "beneath: '..' out of the root is refused");
	is_int(untrusted_open_beneath(root, str("sub/../../x"), O_RDONLY),
	    -EXDEV, "beneath: '..' in the middle is refused");
	is_int(untrusted_open_beneath(root, str(outside), O_RDONLY), -EXDEV,
	    "beneath: an absolute path is refused");
	fd = untrusted_open_beneath(root, str("up"), O_RDONLY);
	ok(fd < 0, "beneath: a symlink to a file outside is not followed "
	    "(%d)", fd);
	if (fd >= 0)
		close(fd);
	fd = untrusted_open_beneath(root, str("in"), O_RDONLY);
	ok(fd < 0, "beneath: a symlink is not followed even to a file "
	    "inside (%d)", fd);
	if (fd >= 0)
		close(fd);
	is_int(untrusted_open_beneath(root, str(""), O_RDONLY), -EINVAL,
	    "beneath: an empty name is refused");
	is_int(untrusted_open_beneath(root, untrusted_wrap("sub\0/x", 6),
	    O_RDONLY), -EINVAL, "beneath: a name holding a NUL is refused");
	long_name = xmalloc(PATH_MAX + 1);
	memset(long_name, 'a', PATH_MAX);
	long_name[PATH_MAX] = '\0';
	is_int(untrusted_open_beneath(root, str(long_name), O_RDONLY),
	    -ENAMETOOLONG, "beneath: a name of PATH_MAX bytes is refused");

	close(root);
	unlink(outside);
	free(p);
	p = xasprintf("rm -rf '%s'", dir);
	if (system(p) != 0)
		diag("cannot remove %s", dir);
}

static void
display(void)
{
	static const char esc[] = "name\033]0;title\007\033[2Jend";
	autofree char *shown = untrusted_display(untrusted_wrap(esc,
	    sizeof(esc) - 1), 0);
	autofree char *plain = untrusted_display(str("plain name"), 0);
	size_t i;
	bool control = false;

	for (i = 0; shown && shown[i]; i++)
		control |= (unsigned char)shown[i] < 0x20 ||
		    (unsigned char)shown[i] == 0x7f;
	ok(shown && !control, "display: no control byte reaches the "
	    "terminal (got '%s')", shown ? shown : "(null)");
	ok(shown && strstr(shown, "name") && strstr(shown, "end"),
	    "display: the printable bytes are kept");
	ok(plain && streq(plain, "plain name"), "display: a plain name is "
	    "shown as it is (control)");
}

int
main(void)
{
	copy();
	beneath();
	display();
	return done();
}
