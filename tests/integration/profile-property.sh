#!/bin/sh
# SPDX-License-Identifier: ISC
# profile-property.sh - nothing a profile says is accepted and then dropped
# (confine-profile(5), FORMAT): random profiles, written in every form the
# format allows (LF or CRLF, a byte order mark, comments after a section
# header, inline comments, "key: value", continuation lines, repeated
# sections) and with the defects the parser must refuse (text after a
# section header, CR line endings or a CR inside a line, the root as a
# path, one path in two lists).  For each, "confine profile check" and a
# --dry-run must agree: a profile with no defect is accepted, and its
# --dry-run lists every rule the file holds, at its line, and mounts every
# path it names; a profile with a defect is refused (125) with FILE:LINE.
# PROFILE_PROPERTY_SEED and PROFILE_PROPERTY_N choose the profiles.
. "${TESTS_SRCDIR:-$(dirname "$0")/..}/lib.sh"
require_userns
command -v python3 >/dev/null || skip_all "python3 is needed to make the profiles"
plan 2

SEED=${PROFILE_PROPERTY_SEED:-1}
N=${PROFILE_PROPERTY_N:-60}

# gen DIR: writes DIR/NNN.ini and DIR/NNN.want: "ok", then one line per
# rule (KEY<tab>VALUE<tab>LINE), or "bad LINE" for a profile with a defect.
GEN='
import os, random, sys
d, seed, n = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
rnd = random.Random(seed)
roots = ["/srv", "/opt", "/var/lib", "/usr/share"]
for k in range(n):
    nl = rnd.choice(["\n", "\n", "\r\n"])
    lines, rules, bad = [], [], None
    used = set()
    def path():
        while True:
            p = "%s/pp-%d-%d" % (rnd.choice(roots), k, rnd.randrange(1000))
            if p not in used:
                used.add(p)
                return p
    def add(text):
        lines.append(text)
        return len(lines)
    bom = rnd.random() < 0.1
    add("[profile]" + rnd.choice(["", " ; the profile", "  # head"]))
    add(rnd.choice(["quadrant = offline", "quadrant: offline",
                    "  quadrant=offline"]))
    for s in range(rnd.randrange(1, 4)):
        sec = rnd.choice(["filesystem", "filesystem", "environment"])
        header = "[" + sec + "]"
        defect = rnd.random() < 0.12
        if defect:
            key = "hide" if sec == "filesystem" else "pass"
            val = path() if sec == "filesystem" else "PP_%d" % s
            ln = add(header + " " + key + " = " + val)
            bad = bad or ln
        else:
            add(header + rnd.choice(["", " ; c", " # c", "\t"]))
        last = None
        for r in range(rnd.randrange(0, 5)):
            if sec == "filesystem":
                key = rnd.choice(["read-only", "hide", "scratch"])
                val = path()
            else:
                key = "pass"
                val = "PP_%d_%d" % (s, r)
            form = rnd.random()
            if form < 0.15 and last == (sec, key) and key != "pass":
                ln = add("    " + val)          # a continuation line
            elif form < 0.3:
                ln = add("%s:%s" % (key, val))
            elif form < 0.45:
                ln = add("%s = %s ; why" % (key, val))
            else:
                ln = add("%s = %s" % (key, val))
            rules.append((sec + "." + key, val, ln))
            last = (sec, key)
            if rnd.random() < 0.2:
                add(rnd.choice(["", "; a comment", "# another"]))
    x = rnd.random()
    if x < 0.06 and rules:
        # The root as a path.
        ln = add("[filesystem]")
        ln = add("hide = /")
        bad = bad or ln
    elif x < 0.12:
        # One path in two lists.
        p = path()
        add("[filesystem]")
        add("read-only = " + p)
        ln = add("scratch = " + p)
        bad = bad or ln
    elif x < 0.18:
        # A CR inside a line, or CR line endings: inih would see one line.
        nl = "\r"
        bad = bad or 1
    elif x < 0.22:
        i = rnd.randrange(len(lines))
        lines[i] = lines[i] + "\rhide = " + path()
        bad = bad or i + 1
    text = nl.join(lines) + nl
    with open(os.path.join(d, "%03d.ini" % k), "wb") as f:
        f.write((b"\xef\xbb\xbf" if bom else b"") + text.encode())
    with open(os.path.join(d, "%03d.want" % k), "w") as f:
        if bad:
            f.write("bad %d\n" % bad)
        else:
            f.write("ok\n")
            for key, val, ln in rules:
                f.write("%s\t%s\t%d\n" % (key, val, ln))
'

mount_kind() {
	case $1 in
	filesystem.read-only) echo ro ;;
	filesystem.hide) echo hide ;;
	filesystem.scratch) echo scratch ;;
	*) echo ;;
	esac
}

t_property() {
	ws_new
	cfg_dir=$TEST_TMP/profiles
	mkdir -p "$cfg_dir"
	python3 -c "$GEN" "$cfg_dir" "$SEED" "$N" || fail "the generator failed"
	accepted=0
	refused=0
	for want in "$cfg_dir"/*.want; do
		f=${want%.want}.ini
		RC=0
		(cd "$WS" && "$CONFINE" profile check "$f") \
		    >"$TEST_TMP/check.out" 2>"$TEST_TMP/check.err" || RC=$?
		if [ "$(head -n 1 "$want")" != ok ]; then
			line=$(sed -n '1s/^bad //p' "$want")
			[ "$RC" -eq 125 ] || {
				diag "$(cat "$f" | od -c | head -n 8)"
				fail "$f: a defect at line $line, but profile check said $RC"
			}
			grep -q "^confine: $f:[0-9][0-9]*: " "$TEST_TMP/check.err" ||
			    fail "$f: refused without FILE:LINE: $(cat "$TEST_TMP/check.err")"
			# The run refuses it the same way.
			RC=0
			(cd "$WS" && "$CONFINE" -p "$f" -- true) \
			    >"$TEST_TMP/run.out" 2>"$TEST_TMP/run.err" || RC=$?
			assert_status "$RC" 125
			[ "$(head -n 1 "$TEST_TMP/run.err")" = \
			    "$(head -n 1 "$TEST_TMP/check.err")" ] ||
			    fail "$f: the run says otherwise: $(head -n 1 "$TEST_TMP/run.err")"
			refused=$((refused + 1))
			continue
		fi
		[ "$RC" -eq 0 ] || {
			diag "$(cat "$f")"
			fail "$f: no defect, but profile check refused it: $(cat "$TEST_TMP/check.err")"
		}
		RC=0
		(cd "$WS" && "$CONFINE" -p "$f" --dry-run -- true) \
		    >"$TEST_TMP/dry.out" 2>"$TEST_TMP/dry.err" || RC=$?
		assert_status "$RC" 0
		tail -n +2 "$want" | while IFS='	' read -r key val line; do
			grep -q -F -x "  $key = $val  ($f:$line)" "$TEST_TMP/dry.out" ||
			    fail "$f:$line: $key = $val is not in the --dry-run policy"
			kind=$(mount_kind "$key")
			# Mounted, or said to be skipped: a path the host
			# does not have (the generator's mostly).
			[ -z "$kind" ] ||
			    grep -q "^  $kind  *$val " "$TEST_TMP/dry.out" ||
			    grep -q -F -x "  skipped  $val ($kind: does not exist)" \
			    "$TEST_TMP/dry.out" ||
			    fail "$f:$line: $key = $val is not mounted in the --dry-run plan"
		done || exit 1
		accepted=$((accepted + 1))
	done
	diag "$N profiles (seed $SEED): $accepted accepted, every rule in the plan; $refused refused with FILE:LINE"
	[ "$accepted" -gt 0 ] && [ "$refused" -gt 0 ] ||
	    fail "the generator made no profile of one kind: $accepted accepted, $refused refused"
	assert_ws_unchanged
}

# profile check looks at the host as the run does: a direct path and the
# workspace a profile names must exist.
t_paths_exist() {
	ws_new
	f=$TEST_TMP/direct.ini
	printf '[profile]\nquadrant = trusted\nuntrusted = no\n[filesystem]\ndirect = %s\n' \
	    "$TEST_TMP/absent-out" >"$f"
	g=$TEST_TMP/ws.ini
	printf '[profile]\nquadrant = sealed\n[workspace]\npath = %s\n' \
	    "$TEST_TMP/absent-ws" >"$g"
	for p in "$f:5: filesystem.direct = $TEST_TMP/absent-out: no such file or directory" \
	    "$g:4: workspace.path: '$TEST_TMP/absent-ws': No such file or directory"; do
		file=${p%%:*}
		for how in check run; do
			RC=0
			if [ "$how" = check ]; then
				(cd "$WS" && "$CONFINE" profile check "$file") \
				    >"$OUT" 2>"$ERR" || RC=$?
			else
				(cd "$WS" && "$CONFINE" -p "$file" -- true) \
				    >"$OUT" 2>"$ERR" || RC=$?
			fi
			assert_status "$RC" 125
			assert_eq "$(head -n 1 "$ERR")" "confine: $p" "$how: the message"
		done
	done
	# The control: once they exist, both are accepted.
	mkdir "$TEST_TMP/absent-out" "$TEST_TMP/absent-ws"
	for file in "$f" "$g"; do
		RC=0
		(cd "$WS" && "$CONFINE" profile check "$file") >"$OUT" 2>"$ERR" || RC=$?
		assert_status "$RC" 0
	done
	assert_ws_unchanged
}

tcase "profile check: a missing direct path or workspace is refused with FILE:LINE, as by the run" t_paths_exist
tcase "random profiles: accepted ones keep every rule, defective ones are refused with FILE:LINE" t_property
tap_done
