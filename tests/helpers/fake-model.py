#!/usr/bin/env python3
# SPDX-License-Identifier: ISC
"""fake-model.py - a model endpoint on the host's loopback for the agent
tests: it speaks just enough of the Anthropic Messages API, the OpenAI
Responses and Chat Completions APIs and the Gemini API for claude, codex and
gemini to send one prompt and print a fixed reply.  Standard library only.

    fake-model.py [--cert PEM --key PEM] [--hold DIR] HOST REPLY LOG READY

Serves HTTPS when --cert is given (the agents reach it through confine's
proxy, which only makes CONNECT tunnels, or through confine-keyholder),
else plain HTTP.  Listens on HOST, on a free port that it writes to the
file READY once it accepts.  Appends to LOG, per request: "METHOD PATH";
"  header NAME: VALUE" for each header as received (the name in lower
case); "  prompt MARKER" for each distinct confine-prompt-DIGITS marker
in the request body; then "  model-call" when the request was a model
call answered with REPLY.  A Gemini request for JSON (responseMimeType
application/json) is answered with the smallest object of its schema,
whose strings are REPLY.  Event streams are sent chunked, one chunk an
event.

With --hold DIR, a streamed reply to a request whose body holds a
confine-hold-DIGITS marker stops after the event that carries REPLY and
a newline, logs "  held MARKER", and waits for the file DIR/MARKER to
exist (five minutes at most) before the rest: an event carrying
confine-stream-end, the end of the message, "  released MARKER".  A
client that shows REPLY while the stream is held got the first event
before the response ended.
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
HOLD_TAIL = "confine-stream-end"
# Between two events of a stream: where a held stream waits.
HOLD = object()


def log(path, line):
    with LOCK, open(path, "a", encoding="utf-8") as f:
        f.write(line + "\n")


def sse(events):
    """Server-sent events from (name or None, object) pairs and HOLD, one
    bytes object an event, HOLD kept in place."""
    out = []
    for ev in events:
        if ev is HOLD:
            out.append(HOLD)
            continue
        name, obj = ev
        data = obj if isinstance(obj, str) else json.dumps(obj)
        out.append((("event: %s\n" % name) if name else "").encode() +
                   ("data: %s\n\n" % data).encode())
    return out


def deltas(parts, event):
    """The events of the text's parts, HOLD between two."""
    out = []
    for i, text in enumerate(parts):
        if i:
            out.append(HOLD)
        out.append(event(text))
    return out


# ------------------------------------------------------------- Anthropic

def anthropic(req, parts):
    model = req.get("model", "claude-fake")
    usage = {"input_tokens": 10, "output_tokens": 5,
             "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0}
    msg = {"id": "msg_fake", "type": "message", "role": "assistant",
           "model": model, "content": [], "stop_reason": None,
           "stop_sequence": None, "usage": usage}
    if not req.get("stream"):
        msg["content"] = [{"type": "text", "text": "".join(parts)}]
        msg["stop_reason"] = "end_turn"
        return "application/json", json.dumps(msg).encode()
    return "text/event-stream", sse([
        ("message_start", {"type": "message_start", "message": msg}),
        ("content_block_start", {"type": "content_block_start", "index": 0,
                                 "content_block": {"type": "text",
                                                   "text": ""}}),
    ] + deltas(parts, lambda t: (
        "content_block_delta", {"type": "content_block_delta", "index": 0,
                                "delta": {"type": "text_delta",
                                          "text": t}})) + [
        ("content_block_stop", {"type": "content_block_stop", "index": 0}),
        ("message_delta", {"type": "message_delta",
                           "delta": {"stop_reason": "end_turn",
                                     "stop_sequence": None},
                           "usage": {"output_tokens": 5}}),
        ("message_stop", {"type": "message_stop"}),
    ])


# ---------------------------------------------------------------- OpenAI

def responses(req, parts):
    model = req.get("model", "gpt-fake")
    item = {"type": "message", "id": "msg_fake", "status": "completed",
            "role": "assistant",
            "content": [{"type": "output_text", "text": "".join(parts),
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
    ] + deltas(parts, lambda t: (
        "response.output_text.delta", {"type": "response.output_text.delta",
                                       "item_id": "msg_fake",
                                       "output_index": 0,
                                       "content_index": 0, "delta": t})) + [
        ("response.output_item.done", {"type": "response.output_item.done",
                                       "output_index": 0, "item": item}),
        ("response.completed", {"type": "response.completed",
                                "response": done}),
    ])


def chat(req, parts):
    model = req.get("model", "gpt-fake")
    if not req.get("stream"):
        return "application/json", json.dumps({
            "id": "chatcmpl-fake", "object": "chat.completion",
            "created": int(time.time()), "model": model,
            "choices": [{"index": 0, "finish_reason": "stop",
                         "message": {"role": "assistant",
                                     "content": "".join(parts)}}],
            "usage": {"prompt_tokens": 10, "completion_tokens": 5,
                      "total_tokens": 15}}).encode()
    base = {"id": "chatcmpl-fake", "object": "chat.completion.chunk",
            "created": int(time.time()), "model": model}
    return "text/event-stream", sse(deltas(parts, lambda t: (
        None, dict(base, choices=[{"index": 0, "delta": {
            "role": "assistant", "content": t}, "finish_reason": None}]))) + [
        (None, dict(base, choices=[{"index": 0, "delta": {},
                                    "finish_reason": "stop"}])),
        (None, "[DONE]"),
    ])


# ---------------------------------------------------------------- Gemini

def from_schema(schema, reply, depth=0):
    """The smallest value a JSON schema (OpenAPI's upper-case types or
    JSON Schema's) takes, its strings REPLY: what an agent's structured
    call (Gemini CLI's model router) reads back."""
    if not isinstance(schema, dict) or depth > 8:
        return None
    if schema.get("enum"):
        return schema["enum"][0]
    kind = str(schema.get("type", "")).lower()
    if kind == "object":
        props = schema.get("properties") or {}
        return {k: from_schema(v, reply, depth + 1) for k, v in props.items()}
    return {"array": [], "string": reply, "integer": 1, "number": 1,
            "boolean": False}.get(kind)


def gemini(req, parts, last=True):
    conf = req.get("generationConfig") or {}
    text = "".join(parts)
    if conf.get("responseMimeType") == "application/json":
        schema = conf.get("responseJsonSchema") or conf.get("responseSchema")
        text = json.dumps(from_schema(schema, text))
    out = {"candidates": [{"content": {"role": "model",
                                       "parts": [{"text": text}]},
                           "index": 0}],
           "modelVersion": "gemini-fake"}
    if last:
        out["candidates"][0]["finishReason"] = "STOP"
        out["usageMetadata"] = {"promptTokenCount": 10,
                                "candidatesTokenCount": 5,
                                "totalTokenCount": 15}
    return out


def gemini_stream(req, parts):
    return "text/event-stream", sse(deltas(range(len(parts)), lambda i: (
        None, gemini(req, [parts[i]], i == len(parts) - 1))))


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

    def stream(self, events, hold):
        """The events, a chunk each; at HOLD, when hold is a marker, wait
        for its release file."""
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()
        for ev in events:
            if ev is HOLD:
                if hold:
                    self.wait_release(hold)
                continue
            self.wfile.write(b"%x\r\n%s\r\n" % (len(ev), ev))
            self.wfile.flush()
        self.wfile.write(b"0\r\n\r\n")
        self.wfile.flush()

    def wait_release(self, marker):
        log(self.server.log_path, "  held " + marker)
        release = os.path.join(self.server.hold_dir, marker)
        for _ in range(3000):
            if os.path.exists(release):
                break
            time.sleep(0.1)
        log(self.server.log_path, "  released " + marker)

    def record(self):
        log(self.server.log_path, self.command + " " + self.path)
        for name, value in self.headers.items():
            log(self.server.log_path,
                "  header %s: %s" % (name.lower(), value))

    def do_GET(self):
        self.record()
        path = self.path.split("?", 1)[0]
        if path.endswith("/models"):
            self.answer(200, "application/json", json.dumps({
                "object": "list", "data": [], "models": []}).encode())
        else:
            self.answer(404, "application/json",
                        b'{"error":{"message":"not found"}}')

    def do_HEAD(self):
        self.record()
        self.answer(200, "text/plain", b"")

    def do_POST(self):
        self.record()
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
        hold = None
        if self.server.hold_dir:
            found = re.search(rb"confine-hold-[0-9]+", raw)
            hold = found.group().decode() if found else None
        reply = self.server.reply
        parts = [reply + "\n", HOLD_TAIL] if hold else [reply]
        path = self.path.split("?", 1)[0]
        out = None
        if path.endswith("/messages/count_tokens"):
            out = "application/json", b'{"input_tokens": 10}'
        elif path.endswith("/messages"):
            out = anthropic(req, parts)
        elif path.endswith("/responses"):
            out = responses(req, parts)
        elif path.endswith("/chat/completions"):
            out = chat(req, parts)
        elif path.endswith(":streamGenerateContent"):
            out = gemini_stream(req, parts)
        elif path.endswith(":generateContent"):
            out = "application/json", json.dumps(gemini(req, parts)).encode()
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
        if out[0] == "text/event-stream":
            self.stream(out[1], hold)
        else:
            self.answer(200, out[0], out[1])


def main(argv):
    cert = key = hold_dir = None
    while argv and argv[0].startswith("--"):
        if argv[0] == "--cert":
            cert = argv[1]
        elif argv[0] == "--key":
            key = argv[1]
        elif argv[0] == "--hold":
            hold_dir = argv[1]
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
    srv.hold_dir = hold_dir
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
