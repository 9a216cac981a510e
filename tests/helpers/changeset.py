#!/usr/bin/env python3
# SPDX-License-Identifier: ISC
"""changeset.py - random repositories and change sets for the export
property test (tests/integration/export-property.sh).  Standard library
only; everything is drawn from a seeded generator, so a seed reproduces a
case exactly.

  changeset.py init SEED DIR
      Make DIR (new) a small random git repository: a committed base, then
      staged, unstaged and untracked changes, and ignored files (.gitignore
      at the top and in a subdirectory, .git/info/exclude).
  changeset.py apply SEED
      Apply a random change set to the tree in the current directory and
      print one line per operation.  The operations depend only on SEED
      and on the tree (listed in sorted order), never on the directory's
      path, inode order or time, so the same SEED on two copies of one
      tree gives the same result.  Exit status 3 when an operation fails.
  changeset.py compare RULES A B [PATCH]
      Compare trees A (the host copy with the patch applied) and B (the
      copy the change set was applied to directly): file contents, the
      executable bit, symlinks and their targets, missing files.  Leaves
      out .git and the untracked paths that RULES (a pristine copy of the
      host workspace) ignores, which the export does not carry.  With
      PATCH: no path of the patch is ignored or under a .git component.
      Prints "patch-entries N" (files in PATCH) and the differences;
      exit status 1 when there is any.

Reproduce a failing case by hand:
  python3 changeset.py init REPO_SEED /tmp/ws && cd /tmp/ws
  confine -- python3 /abs/path/changeset.py apply SEED
"""

import errno
import os
import random
import shutil
import stat
import subprocess
import sys

# ------------------------------------------------------------ vocabulary

WORDS = [b"alpha", b"beta", b"gamma", b"delta", b"epsilon", b"zeta", b"eta",
         b"theta", b"iota", b"kappa", b"lambda", b"mu", b"int", b"return",
         b"{", b"}", b"x = 1;", b"# comment", b"\t", b"  ", b"TODO"]

# File names: plain, and every kind a patch has to quote or escape.
PLAIN_NAMES = [b"a.txt", b"b.txt", b"notes.md", b"main.c", b"util.h",
               b"data.bin", b"run.sh", b"README", b"lib.py", b"x", b"y.cfg"]
ODD_NAMES = [
    b"with space.txt",
    "\u00fcn\u00efc\u00f6d\u00e9-\u540d\u524d.txt".encode(),
    b"-leading-dash.txt",
    b"--double-dash",
    b"#hash.txt",
    b"tab\there.txt",
    b'quote"d.txt',
    b"single'quote.txt",
    b"back\\slash.txt",
    b"latin1-\xe9.txt",          # not UTF-8
    b"..x",
    b"...dots",
    b" leading-space",
    b"trailing-space ",
    b"star*.txt",
    b"q?.txt",
    b"br[ack]et.txt",
    "emoji-\U0001f600.txt".encode(),
]
DIR_NAMES = [b"src", b"lib", b"docs", b"deep", b"er", b"still", b"dir with space",
             "\u00fcn\u00ef".encode(), b"-dash-dir", b"#dir", b"t\tab", b"q'd"]

# Always in .gitignore at the top, .git/info/exclude and a sub .gitignore.
TOP_IGNORE = b"build/\n*.log\n/secret.env\n"
SUB_IGNORE = b"*.tmp\n"
EXCLUDE = b"*.bak\n"
ABS_TARGETS = [b"/etc/hostname", b"/etc/passwd", b"/usr/bin/env",
               b"/nonexistent/confine-test/target", b"/"]


def words(rng, n):
    return b" ".join(rng.choice(WORDS) for _ in range(n))


def content(rng, kind=None):
    kind = kind or rng.choice(["text", "text", "text", "crlf", "nonl",
                               "binary", "empty", "nul"])
    lines = [words(rng, rng.randint(1, 8)) for _ in range(rng.randint(1, 30))]
    if kind == "text":
        return b"\n".join(lines) + b"\n"
    if kind == "crlf":
        return b"\r\n".join(lines) + b"\r\n"
    if kind == "nonl":
        return b"\n".join(lines)
    if kind == "binary":
        return rng.randbytes(rng.randint(1, 3000)) + b"\0"
    if kind == "nul":
        return b"\n".join(lines) + b"\0\n" + b"\n".join(lines[:3]) + b"\n"
    if kind == "empty":
        return b""
    raise ValueError(kind)


# ------------------------------------------------------------------ tree


def is_git(rel):
    return b".git" in rel.split(b"/")


def scan(root=b"."):
    """Sorted [(relpath, kind)] below root, kind in file/link/dir/other;
    never follows a link, never enters .git."""
    out = []

    def walk(rel):
        full = os.path.join(root, rel) if rel else root
        for name in sorted(os.listdir(full)):
            if name == b".git":
                continue
            r = rel + b"/" + name if rel else name
            st = os.lstat(os.path.join(root, r))
            if stat.S_ISLNK(st.st_mode):
                out.append((r, "link"))
            elif stat.S_ISDIR(st.st_mode):
                out.append((r, "dir"))
                walk(r)
            elif stat.S_ISREG(st.st_mode):
                out.append((r, "file"))
            else:
                out.append((r, "other"))

    walk(b"")
    return out


def kind_of(path):
    try:
        st = os.lstat(path)
    except FileNotFoundError:
        return None
    except NotADirectoryError:
        return None
    if stat.S_ISLNK(st.st_mode):
        return "link"
    if stat.S_ISDIR(st.st_mode):
        return "dir"
    if stat.S_ISREG(st.st_mode):
        return "file"
    return "other"


def write(path, data, mode=None):
    if mode is not None and not os.path.lexists(path):
        # A new file gets its mode when it is made: no chmod, which a
        # sandbox may refuse (confine's landlock backend).
        old = os.umask(0)
        try:
            fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, mode)
        finally:
            os.umask(old)
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        return
    with open(path, "wb") as f:
        f.write(data)
    if mode is not None:
        os.chmod(path, mode)


def remove(path):
    if kind_of(path) == "dir":
        shutil.rmtree(path)
    else:
        os.unlink(path)


def copy_tree(src, dst):
    """cp -a of a directory: links as links, modes kept."""
    os.mkdir(dst)
    for name in sorted(os.listdir(src)):
        s, d = src + b"/" + name, dst + b"/" + name
        k = kind_of(s)
        if k == "dir":
            copy_tree(s, d)
        elif k == "link":
            os.symlink(os.readlink(s), d)
        else:
            shutil.copy2(s, d)
    shutil.copystat(src, dst)


def move(src, dst):
    """mv(1): overlayfs without redirect_dir refuses to rename a merged
    directory (EXDEV); copy it, then remove it."""
    try:
        os.rename(src, dst)
    except OSError as e:
        if e.errno != errno.EXDEV:
            raise
        copy_tree(src, dst)
        shutil.rmtree(src)


def show(p):
    return p.decode("utf-8", "backslashreplace").encode(
        "unicode_escape").decode("ascii")


# ------------------------------------------------------------------ init


def git(args, cwd, check=True, **kw):
    env = dict(os.environ)
    env.update({
        "GIT_CONFIG_NOSYSTEM": "1", "GIT_CONFIG_GLOBAL": "/dev/null",
        "GIT_AUTHOR_NAME": "confine-test",
        "GIT_AUTHOR_EMAIL": "test@confine.invalid",
        "GIT_COMMITTER_NAME": "confine-test",
        "GIT_COMMITTER_EMAIL": "test@confine.invalid",
        "GIT_AUTHOR_DATE": "2000-01-01T00:00:00Z",
        "GIT_COMMITTER_DATE": "2000-01-01T00:00:00Z",
    })
    return subprocess.run([b"git"] + args, cwd=cwd, env=env, check=check, **kw)


def new_path(rng, tree, names=None, max_depth=2):
    """A path that does not exist yet, whose parents are dirs or absent."""
    dirs = [p for p, k in tree if k == "dir" and not is_ignored_name(p)]
    for _ in range(50):
        parent = rng.choice([b""] + dirs) if rng.random() < 0.7 else b""
        depth = rng.randint(0, max_depth)
        parts = [rng.choice(DIR_NAMES) + (b"%d" % rng.randint(0, 9)
                 if rng.random() < 0.5 else b"") for _ in range(depth)]
        name = rng.choice(names or (PLAIN_NAMES + ODD_NAMES))
        if rng.random() < 0.3:
            name = b"%d-" % rng.randint(0, 99) + name
        p = b"/".join([x for x in [parent] + parts + [name] if x])
        if creatable(p):
            return p
    return None


def creatable(p):
    """p is absent and each of its parents is a real dir or absent."""
    comps = p.split(b"/")
    for i in range(1, len(comps)):
        k = kind_of(b"/".join(comps[:i]))
        if k not in (None, "dir"):
            return False
    return kind_of(p) is None and not is_git(p)


def makedirs_for(p):
    d = os.path.dirname(p)
    if d:
        os.makedirs(d, exist_ok=True)


def is_ignored_name(p):
    """The generator's own ignore patterns (a conservative test, for picking
    paths that matter; the comparison asks git)."""
    comps = p.split(b"/")
    return (b"build" in comps or p.endswith((b".log", b".tmp", b".bak")) or
            p == b"secret.env")


def cmd_init(seed, dest):
    rng = random.Random("init:%s" % seed)
    os.makedirs(dest)
    os.chdir(dest)
    git([b"-c", b"init.defaultBranch=main", b"init", b"-q"], b".")
    write(b".gitignore", TOP_IGNORE)
    with open(b".git/info/exclude", "ab") as f:
        f.write(EXCLUDE)
    sub = rng.choice(DIR_NAMES)
    os.makedirs(sub, exist_ok=True)
    write(sub + b"/.gitignore", SUB_IGNORE)
    # The committed base.
    for _ in range(rng.randint(6, 14)):
        p = new_path(rng, scan())
        if p is None:
            continue
        makedirs_for(p)
        write(p, content(rng), 0o755 if rng.random() < 0.2 else 0o644)
    files = [p for p, k in scan() if k == "file" and not is_ignored_name(p)]
    for _ in range(rng.randint(1, 3)):
        p = new_path(rng, scan(), [b"link", b"lnk", b"to-abs", b"dangling"])
        if p is None:
            continue
        makedirs_for(p)
        r = rng.random()
        if r < 0.5 and files:
            t = rng.choice(files)
            depth = p.count(b"/")
            os.symlink(b"../" * depth + t, p)
        elif r < 0.75:
            os.symlink(rng.choice(ABS_TARGETS), p)
        else:
            os.symlink(b"missing/target", p)
    write(b"forced.log", b"tracked although ignored\n")
    git([b"add", b"-A"], b".")
    git([b"add", b"-f", b"forced.log"], b".")
    git([b"commit", b"-q", b"-m", b"base"], b".")
    # Ignored and untracked.
    os.makedirs(b"build/sub", exist_ok=True)
    write(b"build/out.o", content(rng, "binary"))
    write(b"build/sub/gen.c", content(rng, "text"))
    write(b"app.log", content(rng, "text"))
    write(b"secret.env", b"TOKEN=not-for-export\n")
    write(sub + b"/scratch.tmp", content(rng, "text"))
    write(b"old.bak", content(rng, "text"))
    tracked = [p for p, k in scan() if k in ("file", "link") and
               not is_ignored_name(p) and not p.endswith(b".gitignore")]
    rng.shuffle(tracked)
    # Staged: modified, new, deleted, and dropped from the index only.
    for p in tracked[:2]:
        if kind_of(p) == "file":
            with open(p, "ab") as f:
                f.write(b"staged " + words(rng, 3) + b"\n")
            git([b"add", b"--", p], b".")
    p = new_path(rng, scan())
    if p:
        makedirs_for(p)
        write(p, content(rng, "text"))
        git([b"add", b"--", p], b".")
    if len(tracked) > 4:
        git([b"rm", b"-q", b"--", tracked[2]], b".")
    if len(tracked) > 5:
        git([b"rm", b"-q", b"--cached", b"--", tracked[3]], b".")
    # Unstaged: modified, deleted, mode changes.
    for p in tracked[4:7]:
        k = kind_of(p)
        if k != "file":
            continue
        r = rng.random()
        if r < 0.5:
            with open(p, "ab") as f:
                f.write(b"unstaged " + words(rng, 3) + b"\n")
        elif r < 0.7:
            os.unlink(p)
        else:
            os.chmod(p, os.lstat(p).st_mode ^ 0o100)
    # Untracked, not ignored.
    for _ in range(rng.randint(1, 4)):
        p = new_path(rng, scan())
        if p:
            makedirs_for(p)
            write(p, content(rng))
    return 0


# ----------------------------------------------------------------- apply


class Skip(Exception):
    pass


class Applier:
    def __init__(self, seed):
        self.rng = random.Random("apply:%s" % seed)
        self.start_links = {p for p, k in scan() if k == "link"}

    def pick(self, kinds, ignored=None):
        tree = scan()
        c = [p for p, k in tree if k in kinds and not p.endswith(b".gitignore")]
        if ignored is not None:
            c = [p for p in c if is_ignored_name(p) == ignored]
        if not c:
            raise Skip()
        return self.rng.choice(c)

    def pick_any_file(self):
        # Mostly paths that are exported; now and then an ignored one.
        return self.pick(("file",), None if self.rng.random() < 0.1 else False)

    def dir_ok(self, p):
        """A directory may be made at p: not where a link was at the start
        (git check-ignore cannot judge paths beyond a host symlink)."""
        comps = p.split(b"/")
        return not any(b"/".join(comps[:i + 1]) in self.start_links
                       for i in range(len(comps)))

    def new(self, names=None, max_depth=2):
        p = new_path(self.rng, scan(), names, max_depth)
        if p is None or not self.dir_ok(os.path.dirname(p) or b"."):
            raise Skip()
        if is_ignored_name(p):
            raise Skip()
        return p

    # Each op returns a description.
    def op_modify(self):
        p = self.pick_any_file()
        data = open(p, "rb").read()
        lines = data.split(b"\n")
        i = self.rng.randrange(len(lines) + 1)
        if self.rng.random() < 0.5 and len(lines) > 1:
            lines[min(i, len(lines) - 1)] = words(self.rng, 4)
        else:
            lines.insert(i, words(self.rng, 5))
        write(p, b"\n".join(lines))
        return b"modify " + p

    def op_append_nonl(self):
        p = self.pick_any_file()
        with open(p, "ab") as f:
            f.write(b"appended, no final newline")
        return b"append-no-newline " + p

    def op_crlf(self):
        if self.rng.random() < 0.5:
            p = self.pick_any_file()
            data = open(p, "rb").read().replace(b"\r\n", b"\n")
            write(p, data.replace(b"\n", b"\r\n") + b"crlf\r\n")
            return b"to-crlf " + p
        p = self.new()
        makedirs_for(p)
        write(p, content(self.rng, "crlf"))
        return b"new-crlf " + p

    def op_create_nested(self):
        p = self.new(max_depth=4)
        makedirs_for(p)
        write(p, content(self.rng))
        return b"create " + p

    def op_create_empty(self):
        p = self.new()
        makedirs_for(p)
        write(p, b"")
        return b"create-empty " + p

    def op_truncate(self):
        p = self.pick_any_file()
        write(p, b"")
        return b"truncate " + p

    def op_delete(self):
        p = self.pick(("file", "link"),
                      None if self.rng.random() < 0.1 else False)
        os.unlink(p)
        return b"delete " + p

    def op_delete_dir(self):
        p = self.pick(("dir",))
        shutil.rmtree(p)
        return b"delete-dir " + p

    def op_recreate_dir(self):
        # rm -r then mkdir: an opaque directory in the upper layer.
        p = self.pick(("dir",), False)
        shutil.rmtree(p)
        os.mkdir(p)
        q = p + b"/" + self.rng.choice(PLAIN_NAMES)
        write(q, content(self.rng, "text"))
        return b"recreate-dir " + p

    def op_rename(self):
        p = self.pick(("file", "link"), False)
        q = self.new()
        makedirs_for(q)
        os.rename(p, q)
        edit = self.rng.random()
        if kind_of(q) == "file" and edit < 0.3:
            with open(q, "ab") as f:
                f.write(b"edited after the rename\n")
            return b"rename+edit " + p + b" -> " + q
        if kind_of(q) == "file" and edit < 0.4:
            write(q, content(self.rng))
            return b"rename+rewrite " + p + b" -> " + q
        return b"rename " + p + b" -> " + q

    def op_rename_replace(self):
        # Rename, then something new at the old name.
        p = self.pick(("file", "link"), False)
        q = self.new()
        makedirs_for(q)
        os.rename(p, q)
        r = self.rng.random()
        if r < 0.4:
            write(p, content(self.rng))
            what = b"file"
        elif r < 0.7:
            os.symlink(os.path.basename(q) if b"/" not in q else b"elsewhere", p)
            what = b"link"
        else:
            if not self.dir_ok(p):
                write(p, b"")
                what = b"empty file"
            else:
                os.mkdir(p)
                write(p + b"/inner", content(self.rng, "text"))
                what = b"dir"
        return b"rename " + p + b" -> " + q + b", new " + what + b" at " + p

    def op_swap(self):
        tree = [p for p, k in scan() if k == "file" and not is_ignored_name(p)
                and not p.endswith(b".gitignore")]
        if len(tree) < 2:
            raise Skip()
        a, b = self.rng.sample(tree, 2)
        tmp = a + b".swap-tmp"
        if kind_of(tmp):
            raise Skip()
        os.rename(a, tmp)
        os.rename(b, a)
        os.rename(tmp, b)
        return b"swap " + a + b" <-> " + b

    def op_rename_dir(self):
        p = self.pick(("dir",), False)
        q = self.new(DIR_NAMES, 1)
        if not self.dir_ok(q):
            raise Skip()
        makedirs_for(q)
        if (q + b"/").startswith(p + b"/"):
            raise Skip()
        # overlayfs without redirect_dir says EXDEV: move as mv(1) does.
        move(p, q)
        return b"rename-dir " + p + b" -> " + q

    no_modes = False

    def op_chmod(self):
        if self.no_modes:
            raise Skip()
        p = self.pick_any_file()
        m = os.lstat(p).st_mode
        os.chmod(p, m ^ 0o111 if m & 0o100 else m | 0o111)
        return (b"chmod -x " if m & 0o100 else b"chmod +x ") + p

    def op_chmod_edit(self):
        if self.no_modes:
            raise Skip()
        p = self.pick_any_file()
        m = os.lstat(p).st_mode
        with open(p, "ab") as f:
            f.write(b"#!/bin/sh\n")
        os.chmod(p, m | 0o111)
        return b"edit+chmod +x " + p

    def link_target(self, p):
        r = self.rng.random()
        depth = p.count(b"/")
        if r < 0.35:
            files = [q for q, k in scan() if k in ("file", "dir")]
            if files:
                return b"../" * depth + self.rng.choice(files)
        if r < 0.6:
            return self.rng.choice(ABS_TARGETS)
        if r < 0.75:
            return b"../" * (depth + self.rng.randint(0, 3)) + b"outside"
        if r < 0.85:
            return self.rng.choice([b".", b"..", b"./", b"../..", b"a b",
                                    "\u00fc".encode(), b"-dash", b"x\ty"])
        return b"dangling/" + self.rng.choice(PLAIN_NAMES)

    def op_symlink(self):
        p = self.new(names=[b"link", b"l", b"to abs", b"ln-" +
                            self.rng.choice(ODD_NAMES)])
        makedirs_for(p)
        t = self.link_target(p)
        os.symlink(t, p)
        return b"symlink " + p + b" -> " + t

    def op_retarget(self):
        p = self.pick(("link",))
        t = self.link_target(p)
        os.unlink(p)
        os.symlink(t, p)
        return b"retarget " + p + b" -> " + t

    def op_file_to_link(self):
        p = self.pick(("file",), False)
        os.unlink(p)
        t = self.link_target(p)
        os.symlink(t, p)
        return b"file->symlink " + p + b" -> " + t

    def op_link_to_file(self):
        p = self.pick(("link",))
        os.unlink(p)
        write(p, content(self.rng), 0o755 if self.rng.random() < 0.3 else None)
        return b"symlink->file " + p

    def op_file_to_dir(self):
        p = self.pick(("file",), False)
        if not self.dir_ok(p):
            raise Skip()
        os.unlink(p)
        os.mkdir(p)
        for n in self.rng.sample(PLAIN_NAMES, self.rng.randint(1, 3)):
            write(p + b"/" + n, content(self.rng))
        return b"file->dir " + p

    def op_dir_to_file(self):
        p = self.pick(("dir",), False)
        shutil.rmtree(p)
        write(p, content(self.rng))
        return b"dir->file " + p

    def op_dir_to_link(self):
        p = self.pick(("dir",), False)
        shutil.rmtree(p)
        t = self.link_target(p)
        os.symlink(t, p)
        return b"dir->symlink " + p + b" -> " + t

    def op_binary(self):
        if self.rng.random() < 0.5:
            p = self.pick_any_file()
            data = bytearray(open(p, "rb").read())
            n = self.rng.randint(1, 64)
            at = self.rng.randint(0, len(data))
            data[at:at + n] = self.rng.randbytes(n) + b"\0"
            write(p, bytes(data))
            return b"binary-edit " + p
        p = self.new([b"blob.bin", b"image.png", b"a.out"])
        makedirs_for(p)
        write(p, content(self.rng, "binary"))
        return b"binary-new " + p

    def op_large(self):
        p = self.new([b"large.bin", b"big data.bin"])
        makedirs_for(p)
        n = self.rng.randint(2 << 20, 4 << 20)
        write(p, self.rng.randbytes(n))
        return b"large %d " % n + p

    def op_odd_name(self):
        p = self.new(ODD_NAMES)
        makedirs_for(p)
        write(p, content(self.rng, "text"))
        return b"odd-name " + p

    def op_ignored(self):
        r = self.rng.random()
        tree = scan()
        ign = [p for p, k in tree if k == "file" and is_ignored_name(p)
               and p != b"forced.log"]
        if r < 0.3 and ign:
            p = self.rng.choice(ign)
            with open(p, "ab") as f:
                f.write(b"changed while ignored\n")
            return b"ignored-modify " + p
        if r < 0.45 and ign:
            p = self.rng.choice(ign)
            os.unlink(p)
            return b"ignored-delete " + p
        if r < 0.55 and kind_of(b"build") == "dir":
            shutil.rmtree(b"build")
            return b"ignored-delete-dir build"
        names = [b"new.log", b"build/new/deep.o", b"build/x.o", b"secret.env",
                 b"again.bak"]
        dirs = [p for p, k in tree if k == "dir" and
                kind_of(p + b"/.gitignore") == "file"]
        names += [d + b"/made.tmp" for d in dirs]
        p = self.rng.choice(names)
        if not creatable(p) and kind_of(p) != "file":
            raise Skip()
        makedirs_for(p)
        write(p, content(self.rng))
        return b"ignored-write " + p

    def op_forced(self):
        # Tracked although it matches an ignore rule: it is exported.
        if kind_of(b"forced.log") != "file":
            raise Skip()
        with open(b"forced.log", "ab") as f:
            f.write(b"more\n")
        return b"modify forced.log"

    def op_gitignore(self):
        p = b".gitignore"
        if kind_of(p) != "file":
            raise Skip()
        with open(p, "ab") as f:
            f.write(b"*.md\n")
        return b"edit .gitignore"

    def op_through_link(self):
        # Write through a relative link to a file in the workspace.
        here = os.path.realpath(b".")
        links = []
        for p, k in scan():
            if k != "link":
                continue
            t = os.readlink(p)
            if t.startswith(b"/"):
                continue
            real = os.path.realpath(p)
            if (real.startswith(here + b"/") and kind_of(real) == "file"
                    and not is_git(os.path.relpath(real, here))):
                links.append(p)
        if not links:
            raise Skip()
        p = self.rng.choice(links)
        with open(p, "ab") as f:
            f.write(b"written through a link\n")
        return b"write-through " + p

    def op_noop(self):
        p = self.pick_any_file()
        r = self.rng.random()
        if r < 0.4:
            data = open(p, "rb").read()
            write(p, data)
            return b"rewrite-same " + p
        if r < 0.7:
            os.utime(p, (1000000000, 1000000000))
            return b"touch " + p
        m = os.lstat(p).st_mode
        os.chmod(p, m ^ 0o100)
        os.chmod(p, m)
        return b"chmod-back " + p

    def op_revert(self):
        p = self.pick_any_file()
        data = open(p, "rb").read()
        write(p, data + b"temporary\n")
        write(p, data)
        return b"edit-and-revert " + p

    OPS = [("modify", 10), ("append_nonl", 4), ("crlf", 3),
           ("create_nested", 6), ("create_empty", 2), ("truncate", 1),
           ("delete", 5), ("delete_dir", 2), ("recreate_dir", 2),
           ("rename", 5), ("rename_replace", 2), ("swap", 1),
           ("rename_dir", 2), ("chmod", 4), ("chmod_edit", 1),
           ("symlink", 4), ("retarget", 2), ("file_to_link", 2),
           ("link_to_file", 2), ("file_to_dir", 2), ("dir_to_file", 2),
           ("dir_to_link", 1), ("binary", 3), ("large", 0.25),
           ("odd_name", 4), ("ignored", 4), ("forced", 2),
           ("gitignore", 0.5), ("through_link", 1), ("noop", 2),
           ("revert", 1)]

    def run(self):
        names = [n for n, _ in self.OPS]
        weights = [w for _, w in self.OPS]
        n = self.rng.randint(2, 8)
        done = 0
        tries = 0
        while done < n and tries < 100:
            tries += 1
            name = self.rng.choices(names, weights)[0]
            # Each attempt has its own generator: a Skip leaves the next
            # draws the same wherever the tree is listed.
            sub = random.Random(self.rng.random())
            saved, self.rng = self.rng, sub
            try:
                desc = getattr(self, "op_" + name)()
            except Skip:
                continue
            finally:
                self.rng = saved
            sys.stdout.write(show(desc) + "\n")
            done += 1


def cmd_apply(seed, no_modes=False):
    try:
        a = Applier(seed)
        a.no_modes = no_modes
        a.run()
    except Exception as e:   # any failure is the test's to report
        sys.stdout.flush()
        sys.stderr.write("changeset.py apply %s: %r\n" % (seed, e))
        return 3
    return 0


# --------------------------------------------------------------- compare


def git_env(home):
    env = dict(os.environ)
    env.update({"GIT_CONFIG_NOSYSTEM": "1", "HOME": home})
    env.pop("GIT_CONFIG_GLOBAL", None)
    env.pop("XDG_CONFIG_HOME", None)
    return env


def check_ignore(rules, paths, home):
    if not paths:
        return set()
    r = subprocess.run(["git", "check-ignore", "-z", "--stdin"], cwd=rules,
                       env=git_env(home), input=b"\0".join(paths) + b"\0",
                       stdout=subprocess.PIPE)
    if r.returncode not in (0, 1):
        raise SystemExit("git check-ignore failed in %r" % rules)
    return {p for p in r.stdout.split(b"\0") if p}


def beyond_link(root, p):
    comps = p.split(b"/")
    return any(kind_of(os.path.join(root, b"/".join(comps[:i]))) == "link"
               for i in range(1, len(comps)))


def ignored_set(rules, paths, home):
    """Untracked paths the host's rules ignore (what the export leaves
    out: not in the index, not in HEAD, and ignored)."""
    r = subprocess.run(["git", "ls-tree", "-r", "-z", "--name-only", "HEAD"],
                       cwd=rules, env=git_env(home), stdout=subprocess.PIPE,
                       check=True)
    head = set(r.stdout.split(b"\0"))
    plain = [p for p in paths if not beyond_link(rules, p)]
    ign = check_ignore(rules, plain, home)
    odd = [p for p in paths if beyond_link(rules, p)]
    if odd:
        raise SystemExit("compare: paths beyond a host symlink: %r" % odd)
    return {p for p in ign if p not in head}


def entries(root):
    out = {}
    for p, k in scan(root):
        full = os.path.join(root, p)
        if k == "link":
            out[p] = ("link", os.readlink(full))
        elif k == "file":
            st = os.lstat(full)
            with open(full, "rb") as f:
                out[p] = ("file", bool(st.st_mode & 0o100), f.read())
        elif k == "other":
            out[p] = ("other",)
    return out


def describe(e):
    if e is None:
        return "missing"
    if e[0] == "link":
        return "symlink -> %s" % show(e[1])
    if e[0] == "file":
        d = e[2]
        return "file%s, %d bytes%s" % (" +x" if e[1] else "", len(d),
                                       ": %r" % d[:60] if len(d) < 200 else "")
    return e[0]


def patch_paths(patch, home):
    r = subprocess.run(["git", "apply", "--numstat", "-z", patch],
                       env=git_env(home), stdout=subprocess.PIPE, check=True)
    f = r.stdout.split(b"\0")
    paths, entries_n, i = [], 0, 0
    while i < len(f) and f[i]:
        rec = f[i].split(b"\t", 2)
        entries_n += 1
        if rec[2]:
            paths.append(rec[2])
            i += 1
        else:                  # a rename: two more fields
            paths += [f[i + 1], f[i + 2]]
            i += 3
    return paths, entries_n


def cmd_compare(rules, a, b, patch=None):
    home = os.environ.get("CHANGESET_GIT_HOME", "/nonexistent")
    ea, eb = entries(a), entries(b)
    union = sorted(set(ea) | set(eb))
    ign = ignored_set(rules, union, home)
    bad = []
    if patch is not None:
        paths, n = patch_paths(patch, home) if os.path.getsize(patch) \
            else ([], 0)
        print("patch-entries %d" % n)
        for p in paths:
            if is_git(p) or p.startswith(b"/") or b".." in p.split(b"/"):
                bad.append("%s: in the patch, but a .git or outside path"
                           % show(p))
            elif p in ign:
                bad.append("%s: in the patch, but ignored and untracked"
                           % show(p))
    for p in union:
        if p in ign:
            continue
        x, y = ea.get(p), eb.get(p)
        if x != y:
            bad.append("%s: applied patch has %s, expected %s"
                       % (show(p), describe(x), describe(y)))
    for line in bad:
        print(line)
    return 1 if bad else 0


def main(argv):
    if len(argv) == 4 and argv[1] == "init":
        return cmd_init(argv[2], os.fsencode(argv[3]))
    if len(argv) == 3 and argv[1] == "apply":
        return cmd_apply(argv[2])
    # --no-modes: no chmod (a sandbox that refuses it, such as confine's
    # landlock backend); the other operations draw the same.
    if len(argv) == 4 and argv[1] == "apply" and argv[3] == "--no-modes":
        return cmd_apply(argv[2], True)
    if len(argv) in (5, 6) and argv[1] == "compare":
        return cmd_compare(*[os.fsencode(x) for x in argv[2:]])
    sys.stderr.write(__doc__)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
