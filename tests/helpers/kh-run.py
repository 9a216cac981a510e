#!/usr/bin/env python3
# SPDX-License-Identifier: ISC
# kh-run.py - start confine-keyholder as confine's supervisor will: a
# listening socket on 127.0.0.1 (any port) as --listen-fd, a pipe whose
# closing stops it as --stop-fd, a pipe for its counts as --stats-fd.
#
#   kh-run.py KEYHOLDER [ARG...]
#
# Prints "port N" once listening; when its standard input ends, closes
# the stop pipe, waits, and prints the keyholder's counts and
# "status N".  The keyholder's stderr is this script's.
import os
import socket
import subprocess
import sys


def main():
    lst = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    lst.bind(("127.0.0.1", 0))
    lst.listen(64)
    port = lst.getsockname()[1]
    stop_r, stop_w = os.pipe()
    stats_r, stats_w = os.pipe()
    fds = (lst.fileno(), stop_r, stats_w)
    argv = [sys.argv[1]] + sys.argv[2:] + [
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


if __name__ == "__main__":
    main()
