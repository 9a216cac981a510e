#!/bin/sh
# SPDX-License-Identifier: ISC
#
# build-and-test.sh - build the Debian package of confine from the release
# tarball, check it with lintian, install it, and run the installed confine.
#
#	sh contrib/debian/build-and-test.sh [--tarball FILE] [--keep] [--out DIR]
#
#   --tarball FILE  the release tarball (default: made with "make dist"
#                   from a copy of this source tree)
#   --keep          leave the package installed (default: purge it at the end)
#   --out DIR       where the .deb, .changes and the lintian report go
#                   (default: a temporary directory, printed)
#
# Steps: the tarball unpacked as confine-VERSION with this directory copied
# to debian/; "dpkg-buildpackage -us -uc -b" (DEB_BUILD_OPTIONS applies:
# nocheck skips "make check"); "lintian --fail-on error"; "apt-get install"
# of the .deb (with its Recommends, bubblewrap); "confine --version",
# "confine doctor", and "confine -- sh -c ..." in a throwaway git repository,
# as root and, when there is one, as an unprivileged user; then the
# package is purged (unless --keep).
#
# Runs as root (it installs packages), on Debian 12 or a derivative.  Exits
# 0 when every step passed.

set -eu

here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
tarball=
keep=0
out=

while [ $# -gt 0 ]; do
	case $1 in
	--tarball) tarball=$(cd "$(dirname "$2")" && pwd)/$(basename "$2"); shift ;;
	--keep) keep=1 ;;
	--out) out=$2; shift ;;
	-h|--help) sed -n '4,24p' "$0"; exit 0 ;;
	*) echo "build-and-test.sh: unknown argument '$1'" >&2; exit 2 ;;
	esac
	shift
done

step() {
	printf '\n=== deb: %s\n' "$*"
}

die() {
	echo "build-and-test.sh: $*" >&2
	exit 1
}

[ "$(id -u)" -eq 0 ] || die "run as root (it installs the build tools and the package)"

work=$(mktemp -d "${TMPDIR:-/tmp}/confine-deb.XXXXXX")
if [ -z "$out" ]; then
	out=$work/out
fi
mkdir -p "$out"
out=$(cd "$out" && pwd)
installed=0
cleanup() {
	if [ "$installed" -eq 1 ] && [ "$keep" -eq 0 ]; then
		apt-get purge -y -q confine >/dev/null 2>&1 || true
	fi
	chmod -R u+rwX "$work" 2>/dev/null || true
	rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

step "build tools"
export DEBIAN_FRONTEND=noninteractive
need=
for p in dpkg-dev debhelper fakeroot lintian dh-autoreconf; do
	dpkg-query -W -f '${Status}' "$p" 2>/dev/null | grep -q 'ok installed' ||
	    need="$need $p"
done
if [ -n "$need" ]; then
	apt-get update -q
	# shellcheck disable=SC2086 # a list of names
	apt-get install -y -q --no-install-recommends $need
fi

if [ -z "$tarball" ]; then
	step "the release tarball (make dist in a copy of the tree)"
	mkdir "$work/src"
	if [ -d "$top/.git" ] && command -v git >/dev/null 2>&1; then
		git -C "$top" archive --format=tar HEAD | tar -x -C "$work/src"
	else
		(cd "$top" && tar -c --exclude=.git .) | tar -x -C "$work/src"
	fi
	(cd "$work/src" && autoreconf -fi && ./configure -q && make -s dist) \
	    >"$work/dist.log" 2>&1 || { tail -n 30 "$work/dist.log"; die "make dist failed"; }
	tarball=$(ls "$work"/src/confine-*.tar.xz)
fi
[ -f "$tarball" ] || die "no tarball at '$tarball'"
echo "tarball: $tarball"

step "unpack, with debian/ from contrib/debian"
base=$(basename "$tarball" .tar.xz)	# confine-VERSION
version=${base#confine-}
mkdir "$work/build"
tar -x -C "$work/build" -f "$tarball"
cp "$tarball" "$work/build/confine_$version.orig.tar.xz"
srcdir=$work/build/$base
[ -d "$srcdir" ] || die "the tarball does not unpack to $base/"
cp -r "$here" "$srcdir/debian"
rm -f "$srcdir/debian/build-and-test.sh"
upstream=$(dpkg-parsechangelog -l "$srcdir/debian/changelog" -S Version | sed 's/-[^-]*$//')
[ "$upstream" = "$version" ] ||
    die "debian/changelog is for $upstream, the tarball is $version"

step "build dependencies"
# The Build-Depends, from debian/control (nocheck drops the test ones).
deps=$(cd "$srcdir" && dpkg-checkbuilddeps 2>&1 |
    sed -n 's/.*Unmet build dependencies: //p' |
    sed 's/([^)]*)//g; s/<[^>]*>//g; s/|[^ ]*//g')
if [ -n "$deps" ]; then
	apt-get update -q
	# shellcheck disable=SC2086 # a list of names
	apt-get install -y -q --no-install-recommends $deps
fi

step "dpkg-buildpackage -us -uc -b (DEB_BUILD_OPTIONS='${DEB_BUILD_OPTIONS:-}')"
(cd "$srcdir" && dpkg-buildpackage -us -uc -b) >"$out/build.log" 2>&1 || {
	tail -n 60 "$out/build.log"
	die "dpkg-buildpackage failed; the log is $out/build.log"
}
grep -E '^# (TOTAL|PASS|SKIP|FAIL|ERROR):' "$out/build.log" || true
cp "$work"/build/*.deb "$work"/build/*.changes "$work"/build/*.buildinfo "$out/"
deb=$(ls "$out"/confine_*.deb | grep -v dbgsym)
echo "package: $deb"
dpkg-deb -c "$deb" | awk '{ print $NF }' | grep -v '/$' | sed 's/^\.//'

step "lintian"
changes=$(ls "$out"/*.changes)
lintian --fail-on error --display-info "$changes" | tee "$out/lintian.txt" || {
	die "lintian reports errors (in $out/lintian.txt)"
}
echo "lintian: no error ($(grep -c '^[EWIP]:' "$out/lintian.txt" || true) tags in all; see $out/lintian.txt)"

step "install the package"
apt-get install -y -q "$deb" >"$out/install.log" 2>&1 || {
	tail -n 30 "$out/install.log"
	die "apt-get install failed"
}
installed=1
dpkg-query -W -f '${Package} ${Version} ${Status}\n' confine bubblewrap

step "run the installed confine"
[ "$(command -v confine)" = /usr/bin/confine ] ||
    die "confine is not /usr/bin/confine: $(command -v confine)"
for p in confine-export confine-keyholder confine-inner; do
	[ -x /usr/libexec/confine/$p ] || die "/usr/libexec/confine/$p is not installed"
done
/usr/bin/confine --version
man -w confine >/dev/null 2>&1 || die "man confine: no page found"
man -w 5 confine-profile >/dev/null 2>&1 || die "man 5 confine-profile: no page found"
/usr/bin/confine profile list

# run_as USER COMMAND: as root, or through su as USER.
run_as() {
	if [ "$1" = root ]; then
		sh -c "$2"
	else
		su "$1" -s /bin/sh -c "$2"
	fi
}

check_user() {
	u=$1
	echo "--- as $u"
	home=$(getent passwd "$u" | cut -d: -f6)
	ws=$(run_as "$u" 'mktemp -d /tmp/confine-deb-ws.XXXXXX')
	run_as "$u" "confine doctor" ||
	    die "confine doctor says confine cannot run here (as $u)"
	# A confined command: its write lands in the session, not the host.
	run_as "$u" "cd '$ws' && git init -q . && echo base >file &&
	    git add file && git -c user.name=t -c user.email=t@t.invalid commit -q -m base &&
	    confine -q -- sh -c 'echo changed >file; cat file' >'$ws.out' 2>'$ws.err'" || {
		cat "$ws.err" >&2
		die "a confined command failed (as $u)"
	}
	grep -qx changed "$ws.out" || die "the confined command's output is wrong (as $u)"
	grep -qx base "$ws/file" || die "the host file changed (as $u)"
	# The installed keyholder: an agent profile with no credential to
	# inject is refused by it, naming the sources it tried.
	st=0
	run_as "$u" "mkdir -p '$ws.home' && cd '$ws' &&
	    env -u ANTHROPIC_API_KEY -u ANTHROPIC_AUTH_TOKEN \
	    -u CLAUDE_CODE_OAUTH_TOKEN HOME='$ws.home' confine -p claude -- true" \
	    >"$ws.kh" 2>&1 || st=$?
	[ "$st" -eq 125 ] && grep -q 'credential' "$ws.kh" &&
	    grep -q 'ANTHROPIC_API_KEY' "$ws.kh" || {
		cat "$ws.kh" >&2
		die "the installed keyholder did not refuse a missing credential (as $u, status $st)"
	}
	rm -f "$ws.kh"
	run_as "$u" "cd '$ws' && confine diff" | grep -q '^+changed$' ||
	    die "confine diff does not show the change (as $u)"
	run_as "$u" "cd '$ws' && confine drop \$(confine ls | awk 'END { print \$1 }')" >/dev/null
	rm -rf "$ws" "$ws.out" "$ws.err" "$ws.home"
	echo "ok: doctor, a confined run, its diff (as $u, home $home)"
}

check_user root
user=$(getent passwd 1000 | cut -d: -f1 || true)
[ -n "$user" ] || user=$(getent passwd | awk -F: '$3 >= 1000 && $3 < 60000 { print $1; exit }')
if [ -n "$user" ]; then
	check_user "$user"
else
	echo "note: no unprivileged user here; checked as root only"
fi

step "done"
echo "the package, its .changes and the lintian report are in $out"
[ "$keep" -eq 1 ] && echo "confine stays installed (--keep)"
exit 0
