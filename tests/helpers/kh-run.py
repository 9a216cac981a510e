#!/usr/bin/env python3
# SPDX-License-Identifier: ISC
# kh-run.py - start confine-keyholder as confine's supervisor does.
#
#   kh-run.py [MODE] KEYHOLDER [ARG...]
#
# Without MODE, the older form: a listening socket on 127.0.0.1 (any
# port) as --listen-fd, a pipe whose closing stops it as --stop-fd, a pipe
# for its counts as --stats-fd.  Prints "port N" once listening; when its
# standard input ends, closes the stop pipe, waits, and prints the
# keyholder's counts and "status N".
#
# MODE --control: the control socket (--control-fd), as confine speaks
# it: prints "ready" when the keyholder writes "ready\n" (else "no ready"
# and its status), passes it the listener (the byte 'L', SCM_RIGHTS) and
# prints "port N"; when its standard input ends, shuts down its side for
# writing, prints the counts the keyholder writes back and "status N".
# MODE --control-eof: after "ready", EOF instead of the listener.
# MODE --control-unlistening: after "ready", a socket that is not
# listening, in place of the listener.
#
# The keyholder's stderr is this script's.
import os
import socket
import subprocess
import sys


def older(argv):
    lst = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    lst.bind(("127.0.0.1", 0))
    lst.listen(64)
    port = lst.getsockname()[1]
    stop_r, stop_w = os.pipe()
    stats_r, stats_w = os.pipe()
    fds = (lst.fileno(), stop_r, stats_w)
    argv = argv + [
        "--listen-fd", str(fds[0]), "--stop-fd", str(fds[1]),
        "--stats-fd", str(fds[2])]
    proc = subprocess.Popen(argv, pass_fds=fds, stdin=subprocess.DEVNULL)
    lst.close()
    os.close(stop_r)
    os.close(stats_w)
    sys.stdout.write("port %d\n" % port)
    sys.stdout.flush()
    sys.stdin.read()
    os.close(stop_w)
    status = proc.wait()
    with os.fdopen(stats_r) as f:
        sys.stdout.write(f.read())
    sys.stdout.write("status %d\n" % status)
    sys.stdout.flush()


def read_to_end(sock):
    out = b""
    while True:
        b = sock.recv(4096)
        if not b:
            return out
        out += b


def control(mode, argv):
    ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
    argv = argv + ["--control-fd", str(theirs.fileno())]
    proc = subprocess.Popen(argv, pass_fds=(theirs.fileno(),),
                            stdin=subprocess.DEVNULL)
    theirs.close()
    got = b""
    while len(got) < 6:
        b = ours.recv(6 - len(got))
        if not b:
            break
        got += b
    if got != b"ready\n":
        sys.stdout.write("no ready%s\n" % (" (%r)" % got if got else ""))
        sys.stdout.write("status %d\n" % proc.wait())
        sys.stdout.flush()
        return
    sys.stdout.write("ready\n")
    sys.stdout.flush()
    if mode == "--control-eof":
        ours.shutdown(socket.SHUT_WR)
        rest = read_to_end(ours)
        sys.stdout.write(rest.decode(errors="replace"))
        sys.stdout.write("status %d\n" % proc.wait())
        sys.stdout.flush()
        return
    lst = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    lst.bind(("127.0.0.1", 0))
    if mode != "--control-unlistening":
        lst.listen(64)
    port = lst.getsockname()[1]
    socket.send_fds(ours, [b"L"], [lst.fileno()])
    lst.close()
    sys.stdout.write("port %d\n" % port)
    sys.stdout.flush()
    sys.stdin.read()
    ours.shutdown(socket.SHUT_WR)
    sys.stdout.write(read_to_end(ours).decode(errors="replace"))
    sys.stdout.write("status %d\n" % proc.wait())
    sys.stdout.flush()


def main():
    if sys.argv[1].startswith("--control"):
        control(sys.argv[1], sys.argv[2:])
    else:
        older(sys.argv[1:])


if __name__ == "__main__":
    main()
