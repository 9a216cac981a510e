// SPDX-License-Identifier: ISC
/*
 * export/git-bytes.c - HEAD, refs, packed-refs and loose objects' headers
 * of the session's .git, parsed as bytes (git's formats:
 * gitrepository-layout(5), git-pack-refs(1)).  Split from
 * export/commits.c, which reads the files, so that each parser can be
 * fuzzed alone.
 *
 * Runs in: confine-export, on agent-written bytes.
 * MUST: read no byte past len (and the NUL the caller left room for).
 */
#include "config.h"

#include <stdbool.h>
#include <string.h>

#include "export/git-bytes.h"
#include "lib/util.h"

static bool
hex40(const char *s)
{
	size_t i;

	for (i = 0; i < 40; i++)
		if (!((s[i] >= '0' && s[i] <= '9') ||
		    (s[i] >= 'a' && s[i] <= 'f')))
			return false;
	return true;
}

int
git_bytes_head(char *untrusted_head, size_t len, git_oid *ret,
    const char **ret_ref)
{
	char *nl;

	untrusted_head[len] = '\0';
	if ((nl = strchr(untrusted_head, '\n')))
		*nl = '\0';
	if (strlen(untrusted_head) == 40 && hex40(untrusted_head))
		return git_oid_fromstr(ret, untrusted_head) < 0 ? -1 : 0;
	if (strncmp(untrusted_head, "ref: refs/", 10) != 0 ||
	    strstr(untrusted_head, "..") || strlen(untrusted_head) > 250)
		return -1;
	*ret_ref = untrusted_head + 5;
	return 1;
}

int
git_bytes_ref(const char *untrusted_ref, size_t len, git_oid *ret)
{
	if (len < 40 || !hex40(untrusted_ref))
		return -1;
	return git_oid_fromstrn(ret, untrusted_ref, 40) < 0 ? -1 : 0;
}

int
git_bytes_packed_ref(char *untrusted_packed, size_t len, const char *ref,
    git_oid *ret)
{
	char *line, *save = NULL;

	untrusted_packed[len] = '\0';
	for (line = strtok_r(untrusted_packed, "\n", &save); line;
	    line = strtok_r(NULL, "\n", &save))
		if (strlen(line) > 41 && hex40(line) && line[40] == ' ' &&
		    streq(line + 41, ref))
			return git_oid_fromstrn(ret, line, 40) < 0 ? -1 : 0;
	return -1;
}

int
git_bytes_object(unsigned char *untrusted_obj, size_t len,
    git_object_t *ret_type, size_t *ret_off)
{
	git_object_t type;
	size_t hdr;
	char *sp;

	if ((hdr = strnlen((char *)untrusted_obj, len)) >= len)
		return -1;
	if ((sp = memchr(untrusted_obj, ' ', hdr)) == NULL)
		return -1;
	*sp = '\0';
	if ((type = git_object_string2type((char *)untrusted_obj)) ==
	    GIT_OBJECT_INVALID)
		return -1;
	*ret_type = type;
	*ret_off = hdr + 1;
	return 0;
}
