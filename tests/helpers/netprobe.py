#!/usr/bin/env python3
# SPDX-License-Identifier: ISC
"""netprobe.py - servers and probes for tests/integration/network.sh and
host-sockets.sh.  Every probe prints one line and exits
0 when it got through, 1 when it did not (the line names the errno, of
socket() too: a sandbox may refuse the socket itself).

Servers (run outside, in the background; each writes its port or "ready"
to READYFILE once it listens):
  serve-http DIR READYFILE          HTTP/1.0 on 127.0.0.1, a free port
  serve-http-on ADDR DIR READYFILE  the same on ADDR (IPv4 or IPv6)
  serve-udp LOGFILE READYFILE       logs every datagram, one per line
  serve-unix PATH READYFILE         a pathname unix stream socket
  serve-abstract NAME READYFILE     an abstract unix stream socket (@NAME)
  serve-sink READYFILE              TCP: accepts and holds connections
  serve-log LOGFILE READYFILE       TCP: logs "conn" and the first bytes
                                    received for every connection
  serve-log-any LOGFILE READYFILE   the same on [::], IPv4 and IPv6: every
                                    loopback address of the host reaches it
  serve-relay TOTAL READYFILE       TCP, for the relay probe: the first
                                    byte of a connection says what it wants
                                    (see relay_one())

Probes:
  tcp HOST PORT                     connect()
  udp HOST PORT MESSAGE             sendto()
  bind HOST PORT                    bind() and listen() over TCP (SO_REUSEADDR)
  echo-tcp ADDR | echo-udp ADDR     a server and a client of its own on
                                    ADDR (a free port): "ping" there and
                                    back; prints "echoed", or "refused
                                    ERRNO (STEP)"
  unix PATH | abstract NAME         connect()
  raw HOST PORT HEXREQUEST          send the bytes, print the status line
  unix-list FILE                    connect() to every path of FILE (one a
                                    line, "@name" for abstract); prints
                                    "PATH errno" per line; exit 1 when any
                                    connect succeeded
  relay PROXYPORT DEST CASE [N]     a serve-relay case through a CONNECT
                                    tunnel (PROXYPORT 0: directly):
                                    client-eof N, server-eof N,
                                    slow-reader; prints what it saw
"""
import errno
import os
import socket
import sys
import threading
import time


def ready(path, what):
    with open(path + ".tmp", "w") as f:
        f.write("%s\n" % what)
    os.rename(path + ".tmp", path)


def err_name(e):
    return errno.errorcode.get(e.errno, str(e.errno)) if e.errno else str(e)


def serve_http(directory, readyfile, addr="127.0.0.1"):
    import functools
    import http.server

    class Quiet(http.server.SimpleHTTPRequestHandler):
        def log_message(self, *a):
            pass

    class Server(http.server.ThreadingHTTPServer):
        address_family = socket.AF_INET6 if ":" in addr else socket.AF_INET

    handler = functools.partial(Quiet, directory=directory)
    httpd = Server((addr, 0), handler)
    httpd.daemon_threads = True
    ready(readyfile, httpd.server_address[1])
    httpd.serve_forever()


def serve_udp(logfile, readyfile):
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.bind(("127.0.0.1", 0))
    ready(readyfile, s.getsockname()[1])
    while True:
        data, _ = s.recvfrom(65536)
        with open(logfile, "ab") as f:
            f.write(data + b"\n")


def serve_stream(s, readyfile, what):
    s.listen(64)
    ready(readyfile, what)
    while True:
        c, _ = s.accept()
        try:
            c.sendall(b"hello from the host\n")
        except OSError:
            pass
        c.close()


def serve_log(logfile, readyfile, any_address=False):
    """Log each connection ("conn DATA"), read for a second at most.

    On 127.0.0.1; with ANY_ADDRESS, on every address of the host, IPv4
    and IPv6 at once ([::], not IPv6-only): 127.0.0.2, 0.0.0.0, ::1 and
    ::ffff:127.0.0.1 reach it too.

    LOGFILE.busy holds how many accepted connections are not logged yet:
    a test empties the log only once it is 0, so that a late line of one
    case's connection is never taken for the next case's.
    """
    s = socket.socket(socket.AF_INET6 if any_address else socket.AF_INET,
                      socket.SOCK_STREAM)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    # Accept TCP Fast Open data too (the queue length is the option value).
    s.setsockopt(socket.IPPROTO_TCP, getattr(socket, "TCP_FASTOPEN", 23), 16)
    if any_address:
        s.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 0)
        s.bind(("::", 0))
    else:
        s.bind(("127.0.0.1", 0))
    s.listen(64)
    lock = threading.Lock()
    busy = [0]

    def note(delta):
        with lock:
            busy[0] += delta
            with open(logfile + ".busy.tmp", "w") as f:
                f.write("%d\n" % busy[0])
            os.rename(logfile + ".busy.tmp", logfile + ".busy")

    def one(c):
        c.settimeout(1)
        try:
            data = c.recv(256)
        except OSError:
            data = b""
        c.close()
        with lock:
            with open(logfile, "ab") as f:
                f.write(b"conn " + data.replace(b"\n", b" ") + b"\n")
        note(-1)

    note(0)
    ready(readyfile, s.getsockname()[1])
    while True:
        c, _ = s.accept()
        note(1)
        threading.Thread(target=one, args=(c,), daemon=True).start()


def serve_sink(readyfile):
    import threading
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    s.bind(("127.0.0.1", 0))
    s.listen(512)
    ready(readyfile, s.getsockname()[1])
    held = []

    def drain(c):
        try:
            while c.recv(65536):
                pass
        except OSError:
            pass
        c.close()
    while True:
        c, _ = s.accept()
        held.append(c)
        threading.Thread(target=drain, args=(c,), daemon=True).start()


# serve-relay's state, across its connections: the flood's progress and
# what the server-eof case received.
RELAY = {"sent": 0, "done": False, "eof_got": None}
RELAY_LOCK = threading.Lock()


def relay_pattern(total):
    """The flood's bytes: a cycle of 251 (a prime: a lost, doubled or
    reordered chunk of any power-of-two size shows), in 64 KiB chunks."""
    block = bytes(i % 251 for i in range(251)) * 263
    off = 0
    while off < total:
        n = min(65536, total - off)
        start = off % 251
        yield block[start:start + n]
        off += n


def read_to_eof(c):
    n = 0
    while True:
        d = c.recv(65536)
        if not d:
            return n
        n += len(d)


def relay_one(c, total):
    """One connection: "A" counts the bytes until the client's end, then
    answers "got N" (the client's half-close passed on, the way back still
    open); "B" sends "hello", ends its own side, and keeps what it reads
    until the client's end for "S" (the server's half-close passed on, the
    way there still open); "F" sends TOTAL bytes of relay_pattern(),
    counting them; "S" answers "sent N done D eof_got G"."""
    try:
        kind = c.recv(1)
        if kind == b"A":
            c.sendall(b"got %d\n" % read_to_eof(c))
        elif kind == b"B":
            with RELAY_LOCK:
                RELAY["eof_got"] = None
            c.sendall(b"hello\n")
            c.shutdown(socket.SHUT_WR)
            n = read_to_eof(c)
            with RELAY_LOCK:
                RELAY["eof_got"] = n
        elif kind == b"F":
            with RELAY_LOCK:
                RELAY["sent"], RELAY["done"] = 0, False
            for chunk in relay_pattern(total):
                c.sendall(chunk)
                with RELAY_LOCK:
                    RELAY["sent"] += len(chunk)
            with RELAY_LOCK:
                RELAY["done"] = True
        elif kind == b"S":
            with RELAY_LOCK:
                c.sendall(b"sent %d done %d eof_got %s\n" % (RELAY["sent"],
                          RELAY["done"], str(RELAY["eof_got"]).encode()))
    except OSError:
        pass
    c.close()


def serve_relay(total, readyfile):
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    s.bind(("127.0.0.1", 0))
    s.listen(64)
    ready(readyfile, s.getsockname()[1])
    while True:
        c, _ = s.accept()
        threading.Thread(target=relay_one, args=(c, int(total)),
                         daemon=True).start()


# A guard against a hang, far above what any of these takes: not a bound
# on how long they may take.
RELAY_GUARD = 300


def relay_dial(proxyport, dest, kind):
    host, port = dest.rsplit(":", 1)
    if proxyport == "0":
        s = socket.create_connection((host, int(port)), timeout=RELAY_GUARD)
    else:
        s = socket.create_connection(("127.0.0.1", int(proxyport)),
                                     timeout=RELAY_GUARD)
        s.sendall(("CONNECT %s HTTP/1.1\r\nHost: %s\r\n\r\n" %
                   (dest, dest)).encode())
        head = b""
        while b"\r\n\r\n" not in head:
            d = s.recv(1)
            if not d:
                raise OSError("the proxy closed: %r" % head)
            head += d
        if not head.startswith(b"HTTP/1.1 200"):
            raise OSError("the proxy refused: %r" % head[:40])
    s.sendall(kind)
    return s


def relay_status(proxyport, dest):
    s = relay_dial(proxyport, dest, b"S")
    w = s.makefile("rb").readline().split()
    s.close()
    return int(w[1]), w[3] == b"1", w[5].decode()


def probe_relay(proxyport, dest, case, n="0"):
    n = int(n)
    payload = b"".join(relay_pattern(n))
    if case in ("client-eof", "idle"):
        # N bytes, the client's end, and the server's count; "idle" holds
        # the tunnel open and idle between the two ("idle" said) until a
        # line comes on stdin.
        s = relay_dial(proxyport, dest, b"A")
        s.sendall(payload)
        if case == "idle":
            print("idle", flush=True)
            sys.stdin.readline()
        s.shutdown(socket.SHUT_WR)
        got = b""
        while True:
            d = s.recv(4096)
            if not d:
                break
            got += d
        print(got.decode("latin-1").strip() or "(nothing back)")
        return 0
    if case == "server-eof":
        s = relay_dial(proxyport, dest, b"B")
        got = b""
        while True:
            d = s.recv(4096)
            if not d:
                break
            got += d
        s.sendall(payload)
        s.shutdown(socket.SHUT_WR)
        s.close()
        # The server keeps the count once the end reaches it.
        for _ in range(RELAY_GUARD * 10):
            eof_got = relay_status(proxyport, dest)[2]
            if eof_got != "None":
                break
            time.sleep(0.1)
        print("read %r then EOF; the server got %s after its own end" %
              (got.decode("latin-1"), eof_got))
        return 0
    if case == "slow-reader":
        import hashlib
        s = relay_dial(proxyport, dest, b"F")
        # Read nothing until the sender is held: its count stands still
        # across three looks (or it is done, and nothing held it).
        last, same = -1, 0
        while same < 3:
            time.sleep(0.2)
            sent, done, _ = relay_status(proxyport, dest)
            if done:
                break
            same = same + 1 if sent == last else 0
            last = sent
        held = "held" if not done else "not held"
        h = hashlib.sha256()
        total = 0
        while True:
            d = s.recv(1 << 20)
            if not d:
                break
            h.update(d)
            total += len(d)
        want = hashlib.sha256()
        for chunk in relay_pattern(total):
            want.update(chunk)
        _, done, _ = relay_status(proxyport, dest)
        print("sender %s; then read %d bytes, %s; sender done %s" %
              (held, total, "intact" if h.digest() == want.digest()
               else "CORRUPT", "yes" if done else "no"))
        return 0
    print("netprobe: unknown relay case %s" % case, file=sys.stderr)
    return 2


def probe_tcp(host, port):
    try:
        s = socket.socket(socket.AF_INET6 if ":" in host else socket.AF_INET)
        s.settimeout(5)
        s.connect((host, int(port)))
    except OSError as e:
        print("refused %s" % err_name(e))
        return 1
    print("connected")
    return 0


def probe_udp(host, port, msg):
    try:
        s = socket.socket(socket.AF_INET6 if ":" in host else socket.AF_INET,
                          socket.SOCK_DGRAM)
        s.sendto(msg.encode(), (host, int(port)))
    except OSError as e:
        print("refused %s" % err_name(e))
        return 1
    print("sent")
    return 0


def probe_bind(host, port):
    try:
        s = socket.socket(socket.AF_INET6 if ":" in host else socket.AF_INET)
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        s.bind((host, int(port)))
        s.listen(1)
    except OSError as e:
        print("refused %s" % err_name(e))
        return 1
    print("bound")
    return 0


def probe_echo(kind, host):
    """A server on host, a free port, and a client, in this one process:
    the server listens (TCP) or is bound (UDP) before the client sends, so
    nothing waits on time; the socket timeout only keeps a lost datagram
    from hanging the test."""
    fam = socket.AF_INET6 if ":" in host else socket.AF_INET
    typ = socket.SOCK_STREAM if kind == "tcp" else socket.SOCK_DGRAM
    step = "socket"
    try:
        srv = socket.socket(fam, typ)
        cli = socket.socket(fam, typ)
        srv.settimeout(60)
        cli.settimeout(60)
        step = "bind"
        srv.bind((host, 0))
        port = srv.getsockname()[1]
        if typ == socket.SOCK_STREAM:
            step = "listen"
            srv.listen(1)
            step = "connect"
            cli.connect((host, port))
            step = "accept"
            c, _ = srv.accept()
            step = "send"
            cli.sendall(b"ping")
            c.sendall(c.recv(4))
        else:
            step = "sendto"
            cli.sendto(b"ping", (host, port))
            step = "recvfrom"
            data, peer = srv.recvfrom(16)
            srv.sendto(data, peer)
        step = "recv"
        back = cli.recv(16)
    except OSError as e:
        print("refused %s (%s)" % (err_name(e), step))
        return 1
    print("echoed" if back == b"ping" else "garbled %r" % back)
    return 0 if back == b"ping" else 1


def unix_connect(target):
    try:
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    except OSError as e:
        return err_name(e)
    s.settimeout(5)
    addr = "\0" + target[1:] if target.startswith("@") else target
    try:
        s.connect(addr)
    except OSError as e:
        return err_name(e)
    finally:
        s.close()
    return "connected"


def probe_unix(target):
    r = unix_connect(target)
    print(r)
    return 0 if r == "connected" else 1


def probe_unix_list(listfile):
    got = 0
    with open(listfile) as f:
        for line in f:
            t = line.rstrip("\n")
            if not t:
                continue
            r = unix_connect(t)
            print("%s %s" % (t, r))
            got |= r == "connected"
    return 1 if got else 0


def probe_raw(host, port, hexreq):
    s = socket.create_connection((host, int(port)), timeout=15)
    try:
        s.sendall(bytes.fromhex(hexreq))
    except OSError as e:
        print("send failed %s" % err_name(e))
    data = b""
    try:
        while b"\n" not in data:
            d = s.recv(4096)
            if not d:
                break
            data += d
    except OSError as e:
        if not data:
            print("recv failed %s" % err_name(e))
            return 1
    line = data.split(b"\r\n")[0].decode("latin-1")
    print(line if line else "(closed)")
    return 0


def probe_raw_all(host, port, hexreq):
    """The whole answer to one raw request, until the server closes."""
    s = socket.create_connection((host, int(port)), timeout=15)
    s.sendall(bytes.fromhex(hexreq))
    data = b""
    while True:
        d = s.recv(4096)
        if not d:
            break
        data += d
    sys.stdout.write(data.decode("latin-1").replace("\r\n", "\n"))
    return 0


def main(argv):
    cmd, args = argv[1], argv[2:]
    if cmd == "serve-http":
        serve_http(*args)
    elif cmd == "serve-http-on":
        serve_http(args[1], args[2], args[0])
    elif cmd == "serve-udp":
        serve_udp(*args)
    elif cmd == "serve-unix":
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        s.bind(args[0])
        serve_stream(s, args[1], "ready")
    elif cmd == "serve-abstract":
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        s.bind("\0" + args[0])
        serve_stream(s, args[1], "ready")
    elif cmd == "serve-sink":
        serve_sink(*args)
    elif cmd == "serve-log":
        serve_log(*args)
    elif cmd == "serve-log-any":
        serve_log(args[0], args[1], True)
    elif cmd == "tcp":
        return probe_tcp(*args)
    elif cmd == "udp":
        return probe_udp(*args)
    elif cmd == "bind":
        return probe_bind(*args)
    elif cmd == "echo-tcp":
        return probe_echo("tcp", args[0])
    elif cmd == "echo-udp":
        return probe_echo("udp", args[0])
    elif cmd == "unix":
        return probe_unix(args[0])
    elif cmd == "abstract":
        return probe_unix("@" + args[0])
    elif cmd == "unix-list":
        return probe_unix_list(args[0])
    elif cmd == "raw":
        return probe_raw(*args)
    elif cmd == "raw-all":
        return probe_raw_all(*args)
    elif cmd == "serve-relay":
        serve_relay(*args)
    elif cmd == "relay":
        return probe_relay(*args)
    else:
        print("netprobe: unknown command %s" % cmd, file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
