#!/usr/bin/env python3
# SPDX-License-Identifier: ISC
# tls-upstream.py - a loopback HTTPS server standing in for a provider, for
# tests/integration/keyholder-transport.sh and bench/keyholder.
#
#   tls-upstream.py CERT KEY RECORD DIR
#
# Listens on 127.0.0.1 (any port; prints "port N"), speaks HTTP/1.1 with
# keep-alive, and appends one JSON line a request to RECORD: the method,
# the target, the headers as received, the body's length and SHA-256 and
# the client's port (one port for requests on one connection).  Serves:
#   /v1/echo       the request body back
#   /v1/messages, /v1/models   a small JSON body (an inference route)
#   /v1/sink       {"len": N, "sha256": "..."} of the request body
#   /v1/small      a small JSON body
#   /v1/stream     an event stream, chunked: one event, then it waits for
#                  DIR/release (?release=NAME: DIR/NAME) to exist (a
#                  minute at most) before the second and the end
#   /v1/chunked    a chunked response: "alpha", "beta", "gamma"
#   /v1/big?mib=N  N MiB (Content-Length)
#   /v1/slow       nothing (a stall) until DIR/slow (?release=NAME:
#                  DIR/NAME) exists (ten minutes at most), then a small
#                  body
#   /v1/close      a body without a length, ended by closing
#   /v1/interim    103 Early Hints, then a small body
#   /v1/upclose    a small body with a length, then the connection closed
#   /v1/oauth/token  a login's token endpoint: records the request's body
#                  too, and answers new tokens (access_token AT-NEW-N,
#                  refresh_token RT-NEW-N, expires_in 3600; N counts the
#                  answers); with DIR/token-fail, 400 invalid_grant; with
#                  DIR/token-malformed, 200 and a body that is not JSON
# /v1/messages answers 401 to a bearer token listed in DIR/revoked (one a
# line).
# Test code, not part of confine.
import hashlib
import http.server
import json
import os
import socket
import socketserver
import ssl
import sys
import threading
import time
import urllib.parse

CERT, KEY, RECORD, DIR = sys.argv[1:5]
LOCK = threading.Lock()
TOKENS = 0
MIB = 1 << 20


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def setup(self):
        # Head and body go in separate writes: no wait for delayed ACKs.
        self.request.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        # The handshake in this connection's thread, not the acceptor's.
        self.request.do_handshake()
        super().setup()

    def log_message(self, *args):
        pass

    def read_body(self):
        if self.headers.get("Transfer-Encoding", "").lower() == "chunked":
            out = b""
            while True:
                size = int(self.rfile.readline().split(b";")[0], 16)
                if size == 0:
                    while self.rfile.readline() not in (b"\r\n", b""):
                        pass
                    return out
                out += self.rfile.read(size)
                self.rfile.readline()
        return self.rfile.read(int(self.headers.get("Content-Length") or 0))

    def record(self, body):
        rec = {
            "method": self.command, "target": self.path,
            "headers": [[k, v] for k, v in self.headers.items()],
            "body_len": len(body),
            "body_sha256": hashlib.sha256(body).hexdigest(),
            "peer_port": self.client_address[1]}
        if self.path == "/v1/oauth/token":
            rec["body"] = body.decode(errors="replace")
        line = json.dumps(rec)
        with LOCK, open(RECORD, "a") as f:
            f.write(line + "\n")

    def reply(self, body, ctype="application/json", status=200):
        self.send_response(status)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)

    def chunk(self, data):
        self.wfile.write(b"%x\r\n%s\r\n" % (len(data), data))
        self.wfile.flush()

    def chunked_head(self, ctype):
        self.send_response(200)
        self.send_header("Content-Type", ctype)
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()
        self.wfile.flush()

    def serve(self):
        body = self.read_body()
        self.record(body)
        url = urllib.parse.urlsplit(self.path)
        query = urllib.parse.parse_qs(url.query)
        path = url.path
        if path == "/v1/oauth/token":
            self.token()
        elif path == "/v1/messages" and self.revoked():
            self.reply(b'{"type":"error","error":{"type":'
                       b'"authentication_error","message":"revoked"}}',
                       status=401)
        elif path == "/v1/echo":
            self.reply(body, "application/octet-stream")
        elif path in ("/v1/messages", "/v1/models"):
            self.reply(b'{"type":"message","id":"msg_test"}')
        elif path == "/v1/sink":
            self.reply(json.dumps({"len": len(body), "sha256":
                       hashlib.sha256(body).hexdigest()}).encode())
        elif path == "/v1/stream":
            self.chunked_head("text/event-stream")
            self.chunk(b"event: one\ndata: first\n\n")
            release = os.path.join(DIR, os.path.basename(
                query.get("release", ["release"])[0]))
            for _ in range(1200):
                if os.path.exists(release):
                    break
                time.sleep(0.05)
            self.chunk(b"event: two\ndata: second\n\n")
            self.wfile.write(b"0\r\n\r\n")
        elif path == "/v1/chunked":
            self.chunked_head("text/plain")
            for part in (b"alpha", b"beta", b"gamma"):
                self.chunk(part)
            self.wfile.write(b"0\r\n\r\n")
        elif path == "/v1/big":
            n = int(query.get("mib", ["1"])[0])
            self.send_response(200)
            self.send_header("Content-Type", "application/octet-stream")
            self.send_header("Content-Length", str(n * MIB))
            self.end_headers()
            block = b"x" * MIB
            for _ in range(n):
                self.wfile.write(block)
        elif path == "/v1/slow":
            release = os.path.join(DIR, os.path.basename(
                query.get("release", ["slow"])[0]))
            for _ in range(12000):
                if os.path.exists(release):
                    break
                time.sleep(0.05)
            self.reply(b'{"late":true}')
        elif path == "/v1/interim":
            self.wfile.write(b"HTTP/1.1 103 Early Hints\r\nLink: </x>; "
                             b"rel=preload\r\n\r\n")
            self.wfile.flush()
            self.reply(b'{"after":"interim"}')
        elif path == "/v1/upclose":
            self.close_connection = True
            self.send_response(200)
            self.send_header("Connection", "close")
            self.send_header("Content-Length", "7")
            self.end_headers()
            self.wfile.write(b"closing")
        elif path == "/v1/close":
            self.close_connection = True
            self.wfile.write(b"HTTP/1.1 200 OK\r\nContent-Type: text/plain"
                             b"\r\nConnection: close\r\n\r\nuntil-close body")
        else:
            self.reply(b'{"ok":true}')
        self.wfile.flush()

    def revoked(self):
        auth = self.headers.get("Authorization", "")
        try:
            with open(os.path.join(DIR, "revoked")) as f:
                return auth.startswith("Bearer ") and \
                    auth[7:] in f.read().split()
        except FileNotFoundError:
            return False

    def token(self):
        global TOKENS
        if os.path.exists(os.path.join(DIR, "token-fail")):
            self.reply(b'{"error":"invalid_grant","error_description":'
                       b'"Refresh token not found or invalid"}', status=400)
        elif os.path.exists(os.path.join(DIR, "token-malformed")):
            self.reply(b"<html>not json</html>", "text/html")
        else:
            with LOCK:
                TOKENS += 1
                n = TOKENS
            self.reply(json.dumps({
                "token_type": "Bearer", "access_token": "AT-NEW-%d" % n,
                "refresh_token": "RT-NEW-%d" % n, "expires_in": 3600,
                "scope": "user:inference"}).encode())

    do_GET = do_POST = do_PUT = do_DELETE = do_HEAD = serve


class Server(socketserver.ThreadingMixIn, http.server.HTTPServer):
    daemon_threads = True
    request_queue_size = 128

    def handle_error(self, request, client_address):
        pass


def main():
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    ctx.load_cert_chain(CERT, KEY)
    srv = Server(("127.0.0.1", 0), Handler)
    srv.socket = ctx.wrap_socket(srv.socket, server_side=True,
                                 do_handshake_on_connect=False)
    print("port %d" % srv.server_address[1], flush=True)
    srv.serve_forever()


main()
