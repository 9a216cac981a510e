#!/bin/sh
# install-deps.sh - install what building and testing confine needs, on
# Debian 12 (bookworm) or Ubuntu 24.04 (noble) and their derivatives.
# strace is for export-cost.sh (it skips without it); bash-completion,
# zsh, fish and man-db are for the tests of the
# completions and manual pages (they skip without them); bench/run-all
# installs gnuplot and firejail itself, contrib/debian/build-and-test.sh
# the Debian packaging tools.  systemd and dbus-user-session give the
# tests a user manager to ask for scopes (tests/user-manager.sh).  rpm is
# for CI's build of contrib/rpm/confine.spec (rpmbuild -ta).
#
#   sudo sh contrib/install-deps.sh
#
# Run as root, or as a user who may use sudo: the script re-runs itself
# through sudo when it is not root.
set -eu

packages='
	build-essential autoconf automake pkg-config
	libseccomp-dev libinih-dev libgit2-dev zlib1g-dev
	libjansson-dev libssl-dev libsystemd-dev
	systemd dbus-user-session
	git scdoc bubblewrap tmux hyperfine python3 procps iproute2 strace
	ca-certificates curl openssl
	bash-completion zsh fish man-db xfsprogs cppcheck rpm
'
# The agent tests install the agents with npm: the distribution's Node.js
# and npm, unless a Node.js is installed already (from NodeSource, say,
# whose package bundles npm and conflicts with the npm package).
if ! command -v node >/dev/null 2>&1; then
	packages="$packages nodejs npm"
fi

if [ "$(id -u)" -ne 0 ]; then
	if ! command -v sudo >/dev/null 2>&1; then
		echo "install-deps.sh: run this as root (sudo is not installed)" >&2
		exit 1
	fi
	exec sudo -- sh "$0" "$@"
fi

if ! command -v apt-get >/dev/null 2>&1; then
	echo "install-deps.sh: apt-get not found; this script is for" \
	    "Debian 12 and Ubuntu 24.04 (see README.md for the package list)" >&2
	exit 1
fi

export DEBIAN_FRONTEND=noninteractive
apt-get update
# shellcheck disable=SC2086 # the list is split on purpose
apt-get install -y --no-install-recommends $packages
