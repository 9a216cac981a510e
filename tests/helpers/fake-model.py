#!/usr/bin/env python3
# SPDX-License-Identifier: ISC
"""fake-model.py - a model endpoint on the host's loopback for the agent
tests: it speaks just enough of the Anthropic Messages API, the OpenAI
Responses and Chat Completions APIs and the Gemini API for claude, codex and
gemini to send one prompt and print a fixed reply.  Standard library only.

    fake-model.py [--cert PEM --key PEM] HOST REPLY LOG READY

Serves HTTPS when --cert is given (the agents reach it through confine's
proxy, which only makes CONNECT tunnels), else plain HTTP.  Listens on
HOST, on a free port that it writes to the file READY once it accepts.
Appends one line per request to LOG: "METHOD PATH", then "  prompt
MARKER" for each distinct confine-prompt-DIGITS marker in the request body,
then "  model-call" when the request was a model call answered with REPLY.
Runs until killed.
"""

import json
import os
import re
import ssl
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

LOCK = threading.Lock()


def log(path, line):
    with LOCK, open(path, "a", encoding="utf-8") as f:
        f.write(line + "\n")


def sse(events):
    """Server-sent events: (name or None, object) pairs."""
    out = []
    for name, obj in events:
        if name:
            out.append("event: %s\n" % name)
        data = obj if isinstance(obj, str) else json.dumps(obj)
        out.append("data: %s\n\n" % data)
    return "".join(out).encode()


# ------------------------------------------------------------- Anthropic

def anthropic(req, reply):
    model = req.get("model", "claude-fake")
    usage = {"input_tokens": 10, "output_tokens": 5,
             "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0}
    msg = {"id": "msg_fake", "type": "message", "role": "assistant",
           "model": model, "content": [], "stop_reason": None,
           "stop_sequence": None, "usage": usage}
    if not req.get("stream"):
        msg["content"] = [{"type": "text", "text": reply}]
        msg["stop_reason"] = "end_turn"
        return "application/json", json.dumps(msg).encode()
    return "text/event-stream", sse([
        ("message_start", {"type": "message_start", "message": msg}),
        ("content_block_start", {"type": "content_block_start", "index": 0,
                                 "content_block": {"type": "text",
                                                   "text": ""}}),
        ("content_block_delta", {"type": "content_block_delta", "index": 0,
                                 "delta": {"type": "text_delta",
                                           "text": reply}}),
        ("content_block_stop", {"type": "content_block_stop", "index": 0}),
        ("message_delta", {"type": "message_delta",
                           "delta": {"stop_reason": "end_turn",
                                     "stop_sequence": None},
                           "usage": {"output_tokens": 5}}),
        ("message_stop", {"type": "message_stop"}),
    ])


# ---------------------------------------------------------------- OpenAI

def responses(req, reply):
    model = req.get("model", "gpt-fake")
    item = {"type": "message", "id": "msg_fake", "status": "completed",
            "role": "assistant",
            "content": [{"type": "output_text", "text": reply,
                         "annotations": []}]}
    usage = {"input_tokens": 10, "input_tokens_details": {"cached_tokens": 0},
             "output_tokens": 5,
             "output_tokens_details": {"reasoning_tokens": 0},
             "total_tokens": 15}
    resp = {"id": "resp_fake", "object": "response", "created_at": int(time.time()),
            "status": "in_progress", "model": model, "output": [],
            "usage": None}
    done = dict(resp, status="completed", output=[item], usage=usage)
    if not req.get("stream"):
        return "application/json", json.dumps(done).encode()
    started = dict(item, status="in_progress", content=[])
    return "text/event-stream", sse([
        ("response.created", {"type": "response.created", "response": resp}),
        ("response.output_item.added", {"type": "response.output_item.added",
                                        "output_index": 0, "item": started}),
        ("response.output_text.delta", {"type": "response.output_text.delta",
                                        "item_id": "msg_fake",
                                        "output_index": 0,
                                        "content_index": 0, "delta": reply}),
        ("response.output_item.done", {"type": "response.output_item.done",
                                       "output_index": 0, "item": item}),
        ("response.completed", {"type": "response.completed",
                                "response": done}),
    ])


def chat(req, reply):
    model = req.get("model", "gpt-fake")
    if not req.get("stream"):
        return "application/json", json.dumps({
            "id": "chatcmpl-fake", "object": "chat.completion",
            "created": int(time.time()), "model": model,
            "choices": [{"index": 0, "finish_reason": "stop",
                         "message": {"role": "assistant",
                                     "content": reply}}],
            "usage": {"prompt_tokens": 10, "completion_tokens": 5,
                      "total_tokens": 15}}).encode()
    base = {"id": "chatcmpl-fake", "object": "chat.completion.chunk",
            "created": int(time.time()), "model": model}
    return "text/event-stream", sse([
        (None, dict(base, choices=[{"index": 0, "delta": {
            "role": "assistant", "content": reply}, "finish_reason": None}])),
        (None, dict(base, choices=[{"index": 0, "delta": {},
                                    "finish_reason": "stop"}])),
        (None, "[DONE]"),
    ])


# ---------------------------------------------------------------- Gemini

def gemini(reply):
    return {"candidates": [{"content": {"role": "model",
                                        "parts": [{"text": reply}]},
                            "finishReason": "STOP", "index": 0}],
            "usageMetadata": {"promptTokenCount": 10,
                              "candidatesTokenCount": 5,
                              "totalTokenCount": 15},
            "modelVersion": "gemini-fake"}


# ----------------------------------------------------------------- server

class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server_version = "fake-model"

    def log_message(self, fmt, *args):
        pass

    def answer(self, code, ctype, body):
        self.send_response(code)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_GET(self):
        log(self.server.log_path, "GET " + self.path)
        path = self.path.split("?", 1)[0]
        if path.endswith("/models"):
            self.answer(200, "application/json", json.dumps({
                "object": "list", "data": [], "models": []}).encode())
        else:
            self.answer(404, "application/json",
                        b'{"error":{"message":"not found"}}')

    def do_HEAD(self):
        log(self.server.log_path, "HEAD " + self.path)
        self.answer(200, "text/plain", b"")

    def do_POST(self):
        log(self.server.log_path, "POST " + self.path)
        n = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(n) if n else b""
        try:
            req = json.loads(raw or b"{}")
        except ValueError:
            req = {}
        if not isinstance(req, dict):
            req = {}
        for marker in sorted(set(re.findall(rb"confine-prompt-[0-9]+", raw))):
            log(self.server.log_path, "  prompt " + marker.decode())
        reply = self.server.reply
        path = self.path.split("?", 1)[0]
        out = None
        if path.endswith("/messages/count_tokens"):
            out = "application/json", b'{"input_tokens": 10}'
        elif path.endswith("/messages"):
            out = anthropic(req, reply)
        elif path.endswith("/responses"):
            out = responses(req, reply)
        elif path.endswith("/chat/completions"):
            out = chat(req, reply)
        elif path.endswith(":streamGenerateContent"):
            out = "text/event-stream", sse([(None, gemini(reply))])
        elif path.endswith(":generateContent"):
            out = "application/json", json.dumps(gemini(reply)).encode()
        elif path.endswith(":countTokens"):
            out = "application/json", b'{"totalTokens": 10}'
        if out is None:
            self.answer(404, "application/json",
                        b'{"error":{"message":"not found"}}')
            return
        if out[0] == "text/event-stream" or path.endswith(("/messages",
                                                           "/responses",
                                                           ":generateContent")):
            log(self.server.log_path, "  model-call")
        self.answer(200, out[0], out[1])


def main(argv):
    cert = key = None
    while argv and argv[0].startswith("--"):
        if argv[0] == "--cert":
            cert = argv[1]
        elif argv[0] == "--key":
            key = argv[1]
        else:
            sys.exit("fake-model.py: unknown option " + argv[0])
        argv = argv[2:]
    if len(argv) != 4:
        sys.exit(__doc__)
    host, reply, log_path, ready = argv
    srv = ThreadingHTTPServer((host, 0), Handler)
    srv.daemon_threads = True
    srv.reply = reply
    srv.log_path = log_path
    if cert:
        ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        ctx.load_cert_chain(cert, key)
        srv.socket = ctx.wrap_socket(srv.socket, server_side=True,
                                     do_handshake_on_connect=False)
    with open(ready + ".tmp", "w", encoding="ascii") as f:
        f.write("%d\n" % srv.server_address[1])
    os.rename(ready + ".tmp", ready)
    srv.serve_forever()


if __name__ == "__main__":
    main(sys.argv[1:])
