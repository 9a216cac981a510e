# SPDX-License-Identifier: ISC
# apply-lib.sh - sourced by the tests of "confine apply" after lib.sh.
#
# The apply engine does not depend on the backend: a script makes its
# sessions once (on the backend under test) and applies them to copies of
# the host workspace, each through a copy of the session's directory whose
# meta names that copy.

# Every case uses the sessions the script made.
shared_state() {
	XDG_STATE_HOME=$TEST_TMP/state
	SESSIONS=$XDG_STATE_HOME/confine/sessions
	export XDG_STATE_HOME
}

# session_of FILE: the session id a confine run printed in FILE.
session_of() {
	sed -n 's/^confine: session \([^:]*\): .*/\1/p' "$1" | head -n 1
}

# ws_copy SRC: a copy of workspace SRC (mode, times, links kept) in CWS.
ws_copy() {
	CWS=$(mktemp -d "$TEST_TMP/copy.XXXXXX") || fail "mktemp"
	rmdir "$CWS"
	cp -a "$1" "$CWS" || fail "cannot copy $1"
	CWS=$(cd "$CWS" && pwd -P)
}

# session_for SID WS: a copy of session SID (its export, not its layers)
# whose workspace is WS; its id in CSID.
session_for() {
	_n=$(ls "$SESSIONS" | wc -l)
	CSID=$(printf '%s-%04x' "$1" "$_n")
	mkdir "$SESSIONS/$CSID"
	for _f in "$SESSIONS/$1"/*; do
		case ${_f##*/} in
		upper | work | copy | copy.* | applied) ;;
		*) cp -a "$_f" "$SESSIONS/$CSID/" ;;
		esac
	done
	sed -i -e "s|^workspace=.*|workspace=$2|" -e "s|^id=.*|id=$CSID|" \
	    "$SESSIONS/$CSID/meta"
}

# make_commits REPO SDIR BASE: the session's commits/ as confine-export
# writes it (DESIGN: the session's commits), made from REPO, a scratch
# repository where the same commands made the same commits on BASE.  Kept
# when the export wrote it.
make_commits() {
	[ ! -d "$2/commits" ] || return 0
	_d=$2/commits.tmp
	mkdir "$_d"
	printf '%s\n' "$3" >"$_d/base"
	_i=0
	for _c in $(git -C "$1" rev-list --reverse "$3..HEAD"); do
		_i=$((_i + 1))
		_n=$(printf %04d "$_i")
		git -C "$1" diff --binary --full-index --no-renames "$_c^" "$_c" \
		    >"$_d/$_n.patch"
		{
			git -C "$1" log -1 --format='author %an <%ae> %at %ad' \
			    --date=format:%z "$_c"
			echo
			git -C "$1" cat-file commit "$_c" | sed '1,/^$/d'
		} >"$_d/$_n.meta"
	done
	git -C "$1" add -A
	git -C "$1" diff --cached --binary --full-index --no-renames HEAD \
	    >"$_d/rest.patch"
	mv "$_d" "$2/commits"
}

# ws_state DIR: what an apply may change, for comparing: HEAD, the
# index's entries, the status, and every file's type, mode and content
# outside .git.
ws_state() {
	(
		cd "$1" || exit 1
		GIT_CONFIG_NOSYSTEM=1 GIT_CONFIG_GLOBAL=/dev/null
		export GIT_CONFIG_NOSYSTEM GIT_CONFIG_GLOBAL
		git rev-parse HEAD 2>/dev/null
		git ls-files -s 2>/dev/null
		git status --porcelain --untracked-files=all 2>/dev/null
		find . -path ./.git -prune -o -printf '%p %y %m %l\n' | sort
		find . -path ./.git -prune -o -type f -print0 | sort -z |
		    xargs -0r sha256sum
	)
}
