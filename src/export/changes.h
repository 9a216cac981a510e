/* SPDX-License-Identifier: ISC */
/*
 * export/changes.h - what the command changed: a walk of the workspace overlay's
 * upper layer, and the old and new state of each changed path.
 *
 * Runs in: the export, after the sandbox is gone.  The upper layer is
 * agent-written: it is reached only through fds beneath its root, never
 * through a path that could follow a link.  Every path named here is the
 * agent's, and so is every byte read: untrusted_* (lib/untrusted.h).
 */
#ifndef CONFINE_UPPER_H
#define CONFINE_UPPER_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <time.h>

#include "store/copy-mark.h"

enum upper_type { UPPER_ABSENT, UPPER_FILE, UPPER_LINK, UPPER_DIR,
	UPPER_OTHER };

/* One side of a changed path. */
struct upper_state {
	enum upper_type	 type;
	mode_t		 mode;		/* st_mode */
	struct timespec	 ctime;		/* when it last changed */
	bool		 in_upper;	/* read it from upper, else from lower */
};

struct upper_change {
	char			*untrusted_path;	/* relative */
	struct upper_state	 old, new;
	bool			 was_dir;	/* lower had a directory here */
	bool			 now_dir;	/* the merged view has one */
};

struct upper_changes {
	struct upper_change	*v;
	size_t			 n;
	char			**untrusted_skipped;	/* "path (why)" */
	size_t			 nskipped;
};

/*
 * The "upper layer" may be a whole copy of the workspace (the bwrap and
 * landlock backends), not an overlay's: the merged view is the copy alone,
 * and what changed is told by ctime, against the copy's mark
 * (store/copy-mark.h).  The hidden paths
 * (relative) were left out of the copy: nothing at or below them is a
 * change.  dirs, sorted by inode, are the copy's directories as it was
 * made: one found at another path was moved, and all of it is looked at.
 */
struct upper_dir {
	ino_t	 ino;
	char	*path;		/* relative; "" for the root */
};

struct changes_copy {
	const struct copy_mark	*mark;		/* borrowed */
	char *const		*hidden;	/* borrowed; NULL-terminated */
	const struct upper_dir	*dirs;		/* borrowed; sorted by inode */
	size_t			 ndirs;
};

/*
 * Where the changes are read from: the caller's, in its frame, for as long
 * as it reads them.  Every function below that looks at the merged view
 * takes one; nothing of it is kept in the module.
 */
struct changes_src {
	int				 lower;	/* the host workspace */
	int				 upper;	/* upper layer, or the copy */
	const struct changes_copy	*copy;	/* borrowed; NULL: overlay */
};

/*
 * List every file or symlink path whose state differs between lower (the
 * host workspace) and the merged view (lower under upper), never under a
 * ".git" component.  Directories themselves are not changes: git tracks
 * files.  0, or -errno with *where naming the path that failed.
 */
int	upper_changes(const struct changes_src *, struct upper_changes *ret,
	    const char **where);
void	upper_changes_free(struct upper_changes *);

/* In copy mode: is this file of the copy as it was made (by the mark)? */
bool	upper_copy_unchanged(const struct changes_src *, const struct stat *);

/* The host's side of path, as a change's old side (a file or a link). */
void	upper_lower_state(int lower_fd, const char *untrusted_path,
	    struct upper_state *);

/* Is an ancestor of path a file or link in the merged view (a directory
 * replaced by one)? */
bool	upper_ancestor_replaced(const struct changes_src *,
	    const char *untrusted_path);

/*
 * Does dir ("" for the root) hold a git repository's layout (a HEAD, and
 * objects/ and refs/ or a commondir file), on the host's side or in the
 * merged view?  A bare repository, or a .git kept as data, in the tree.
 */
bool	upper_git_layout(const struct changes_src *, const char *untrusted_dir);

/*
 * Read path as the merged view shows it (upper over lower), a regular file
 * only; for the repository's own HEAD and refs.  0 or -errno (-ENOENT when
 * it is not there).
 */
int	upper_read_merged(const struct changes_src *,
	    const char *untrusted_path, char **ret, size_t *ret_len);

/*
 * The export's bounds (confine(1)): one file's bytes and lines, and the
 * new content of one export in all.
 */
#define UPPER_MAX_FILE	(32UL * 1024 * 1024)
#define UPPER_MAX_LINES	200000UL
#define UPPER_MAX_TOTAL	(256UL * 1024 * 1024)

/*
 * Read a side's content (file bytes, or a link's target) from the layer
 * it is in, at most max bytes (told by fstat before reading).  0 or
 * -errno: -EFBIG when the file is over max.
 */
int	upper_read(const struct changes_src *, const char *untrusted_path,
	    const struct upper_state *, size_t max, char **ret,
	    size_t *ret_len);

/*
 * Open a side that is a regular file, from the layer it is in, to read it
 * in pieces: its fd (O_CLOEXEC, the caller's), its size in *ret_size (at
 * most max, told by fstat before any read), or -errno: -EFBIG when it is
 * over max, -EINVAL when it is not a regular file.
 */
int	upper_open(const struct changes_src *, const char *untrusted_path,
	    const struct upper_state *, size_t max, size_t *ret_size);

#endif
