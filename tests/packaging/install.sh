#!/bin/sh
# SPDX-License-Identifier: ISC
# "make install DESTDIR=..." from the build tree puts exactly the expected
# files where configure's directories say (the program, the export helper,
# both manual pages, the three completions and every profile of the source
# tree's profiles/), with sane modes, nothing outside the prefix, and the
# installed confine runs; "make uninstall" removes every one of them.
. "${TESTS_SRCDIR:-$(dirname "$0")/..}/lib.sh"

top_build=$TESTS_BUILDDIR/..
top_src=$TESTS_SRCDIR/..
[ -f "$top_build/Makefile" ] || skip_all "no Makefile in $top_build (not run from a configured build tree)"
make=${MAKE:-make}
command -v "${make%% *}" >/dev/null 2>&1 || skip_all "no make"
# A make of our own, not a part of the make that runs the tests.
unset MAKEFLAGS MFLAGS MAKELEVEL MAKEOVERRIDES

# The directories as the Makefile has them, fully expanded.
printf '%s\n' 'print-dirs:' \
    '	@echo "prefix=$(prefix)"' \
    '	@echo "bindir=$(bindir)"' \
    '	@echo "libexecdir=$(libexecdir)"' \
    '	@echo "pkglibexecdir=$(pkglibexecdir)"' \
    '	@echo "datadir=$(datadir)"' \
    '	@echo "mandir=$(mandir)"' \
    '	@echo "man1dir=$(man1dir)"' \
    '	@echo "man5dir=$(man5dir)"' \
    '	@echo "profilesdir=$(profilesdir)"' \
    '	@echo "bashcompletiondir=$(bashcompletiondir)"' \
    '	@echo "zshcompletiondir=$(zshcompletiondir)"' \
    '	@echo "fishcompletiondir=$(fishcompletiondir)"' \
    >"$TEST_TMP/dirs.mk"
(cd "$top_build" && $make -s -f Makefile -f "$TEST_TMP/dirs.mk" print-dirs) \
    >"$TEST_TMP/dirs" 2>"$TEST_TMP/dirs.err" ||
    skip_all "this make cannot read a second makefile ($(head -n 1 "$TEST_TMP/dirs.err"))"
dir() {
	sed -n "s|^$1=||p" "$TEST_TMP/dirs"
}
prefix=$(dir prefix)

# The expected list, made from the directories and the source tree.
{
	echo "$(dir bindir)/confine"
	echo "$(dir pkglibexecdir)/confine-export"
	echo "$(dir pkglibexecdir)/confine-keyholder"
	echo "$(dir pkglibexecdir)/confine-inner"
	echo "$(dir man1dir)/confine.1"
	echo "$(dir man5dir)/confine-profile.5"
	for p in "$top_src"/profiles/*.ini; do
		echo "$(dir profilesdir)/$(basename "$p")"
	done
	d=$(dir bashcompletiondir)
	[ -n "$d" ] && [ "$d" != no ] && echo "$d/confine"
	d=$(dir zshcompletiondir)
	[ -n "$d" ] && [ "$d" != no ] && echo "$d/_confine"
	d=$(dir fishcompletiondir)
	[ -n "$d" ] && [ "$d" != no ] && echo "$d/confine.fish"
} | LC_ALL=C sort >"$TEST_TMP/expected"

DEST=$TEST_TMP/dest
list_installed() {
	(cd "$DEST" && find . ! -type d | sed 's|^\.||' | LC_ALL=C sort)
}

t_install() {
	(cd "$top_build" && $make install DESTDIR="$DEST") \
	    >"$TEST_TMP/install.log" 2>&1 || {
		diag_file "$TEST_TMP/install.log" "make install"
		fail "make install DESTDIR=$DEST failed"
	}
	list_installed >"$TEST_TMP/installed"
	if ! cmp -s "$TEST_TMP/expected" "$TEST_TMP/installed"; then
		diff -u "$TEST_TMP/expected" "$TEST_TMP/installed" | sed 's/^/# /'
		fail "the installed files are not the expected ones"
	fi
}

t_under_prefix() {
	[ -s "$TEST_TMP/installed" ] || fail "nothing was installed"
	while read -r f; do
		case $f in
		"$prefix"/*) ;;
		*) fail "$f is outside the prefix $prefix" ;;
		esac
	done <"$TEST_TMP/installed"
}

t_modes() {
	while read -r f; do
		m=$(stat -c %a "$DEST$f")
		case $f in
		"$(dir bindir)"/* | "$(dir pkglibexecdir)"/*) want=755 ;;
		*) want=644 ;;
		esac
		[ "$m" = "$want" ] || fail "$f has mode $m, expected $want"
		[ -L "$DEST$f" ] && fail "$f is a symbolic link"
	done <"$TEST_TMP/installed"
	# No directory is writable by group or others.
	w=$(cd "$DEST" && find . -type d -perm /022)
	[ -z "$w" ] || fail "directories writable by group or others: $w"
}

# Without explicit directory options, the layout is the FHS's under the prefix.
t_fhs() {
	args=$(cd "$top_build" && ./config.status --config 2>/dev/null)
	case $args in
	*--bindir* | *--libexecdir* | *--datadir* | *--datarootdir* | \
	*--mandir* | *--exec-prefix*)
		skip_case "configured with explicit directories: $args" ;;
	esac
	assert_eq "$(dir bindir)" "$prefix/bin" bindir
	assert_eq "$(dir pkglibexecdir)" "$prefix/libexec/confine" pkglibexecdir
	assert_eq "$(dir man1dir)" "$prefix/share/man/man1" man1dir
	assert_eq "$(dir man5dir)" "$prefix/share/man/man5" man5dir
	assert_eq "$(dir profilesdir)" "$prefix/share/confine/profiles" profilesdir
	case $args in
	*--with-zsh-completion-dir*) ;;
	*) assert_eq "$(dir zshcompletiondir)" "$prefix/share/zsh/site-functions" \
	    zshcompletiondir ;;
	esac
	for d in bashcompletiondir fishcompletiondir; do
		case $(dir $d) in
		"$prefix"/share/*) ;;
		*) case $args in
		   *--with-bash-completion-dir* | *--with-fish-completion-dir*) ;;
		   *) fail "$d $(dir $d) is not under $prefix/share" ;;
		   esac ;;
		esac
	done
}

# The installed program runs, and reads its manual page's version.
t_runs() {
	"$DEST$(dir bindir)/confine" --version >"$TEST_TMP/v" ||
	    fail "the installed confine does not run"
	v=$(awk '{ print $NF }' "$TEST_TMP/v")
	grep "^\.TH" "$DEST$(dir man1dir)/confine.1" | grep -q -F "\"confine $v\"" ||
	    fail "the installed confine(1) is not for confine $v"
}

t_uninstall() {
	(cd "$top_build" && $make uninstall DESTDIR="$DEST") \
	    >"$TEST_TMP/uninstall.log" 2>&1 || {
		diag_file "$TEST_TMP/uninstall.log" "make uninstall"
		fail "make uninstall failed"
	}
	left=$(list_installed)
	[ -z "$left" ] || fail "left after make uninstall: $left"
}

plan 6
tcase "make install DESTDIR puts exactly the expected files" t_install
tcase "every file is under the prefix" t_under_prefix
tcase "programs 0755, data 0644, no writable directory" t_modes
tcase "the default layout is the FHS's under the prefix" t_fhs
tcase "the installed confine runs and its page matches" t_runs
tcase "make uninstall removes every file" t_uninstall
tap_done
