#!/usr/bin/env python3
# SPDX-License-Identifier: ISC
"""pty-stderr.py - run a command with its stderr on a new pseudo-terminal
(stdin and stdout as given), for tests/integration/workspace-copy.sh.

  pty-stderr.py RAWFILE COLUMNS COMMAND [ARG...]

Every byte the command writes to the terminal goes to RAWFILE, as it
was written (carriage returns and all); the terminal is COLUMNS wide.
Exits with the command's status (128 + N for signal N).
"""
import fcntl
import os
import struct
import subprocess
import sys
import termios


def main():
    if len(sys.argv) < 4:
        sys.stderr.write(__doc__)
        return 2
    raw, cols, argv = sys.argv[1], int(sys.argv[2]), sys.argv[3:]
    master, slave = os.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 24, cols, 0, 0))
    proc = subprocess.Popen(argv, stderr=slave)
    os.close(slave)
    data = bytearray()
    while True:
        try:
            chunk = os.read(master, 65536)
        except OSError:  # EIO: the last writer is gone
            break
        if not chunk:
            break
        data += chunk
    rc = proc.wait()
    with open(raw, "wb") as f:
        f.write(data)
    return rc if rc >= 0 else 128 - rc


if __name__ == "__main__":
    sys.exit(main())
