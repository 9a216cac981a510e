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

A model call whose body holds a confine-tool-B64 marker (B64, a shell
command in URL-safe base64 without padding) and no tool result yet, and
that offers the agent's shell tool (Claude Code's Bash, Codex's
shell_command, exec_command or shell, or, in its code mode, its exec
tool, which runs JavaScript that calls exec_command; Gemini CLI's
run_shell_command), is answered with one call of that tool running the
command, logged as
"  tool-call NAME"; a request that carries a tool result logs each line
of it (the first 50) as "  tool-result LINE" and is answered with REPLY.

With --hold DIR, a streamed reply to a request whose body holds a
confine-hold-DIGITS marker stops after the event that carries REPLY and
a newline, logs "  held MARKER", and waits for the file DIR/MARKER to
exist (five minutes at most) before the rest: an event carrying
confine-stream-end, the end of the message, "  released MARKER".  A
client that shows REPLY while the stream is held got the first event
before the response ended.
Runs until killed.
"""

import base64
import json
import os
import re
import ssl
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

LOCK = threading.Lock()
TOOL_MARK = re.compile(rb"confine-tool-([A-Za-z0-9_-]+)")
# The shell tool of each agent, in the order one is taken when several
# are offered, and the arguments it takes.
SHELL_TOOLS = [
    ("Bash", lambda c: {"command": c, "description": "confine test"}),
    ("shell_command", lambda c: {"command": c}),
    ("exec_command", lambda c: {"cmd": c}),
    ("shell", lambda c: {"command": ["sh", "-c", c]}),
    ("run_shell_command", lambda c: {"command": c}),
    # Codex's code mode: JavaScript that calls its nested exec_command.
    ("exec", lambda c: "text((await tools.exec_command({cmd: %s, "
     "yield_time_ms: 30000})).output);" % json.dumps(c)),
]
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


# ------------------------------------------------------------ tool calls

def texts(value):
    """The strings in a tool result, however it nests them."""
    if isinstance(value, str):
        return [value]
    if isinstance(value, list):
        return [t for v in value for t in texts(v)]
    if isinstance(value, dict):
        return [t for k, v in value.items() if k != "type"
                for t in texts(v)]
    return []


def tool_results(req):
    """The outputs of the tool calls a request carries, in each API's
    form: Anthropic's tool_result blocks, the Responses API's
    function_call_output items, Gemini's functionResponse parts."""
    out = []
    for m in req.get("messages") or []:
        content = m.get("content") if isinstance(m, dict) else None
        for b in content if isinstance(content, list) else []:
            if isinstance(b, dict) and b.get("type") == "tool_result":
                out += texts(b.get("content"))
    for item in req.get("input") if isinstance(req.get("input"), list) else []:
        if isinstance(item, dict) and item.get("type") in (
                "function_call_output", "custom_tool_call_output"):
            out += texts(item.get("output"))
    for c in req.get("contents") or []:
        parts = c.get("parts") if isinstance(c, dict) else None
        for p in parts if isinstance(parts, list) else []:
            if isinstance(p, dict) and "functionResponse" in p:
                out += texts(p["functionResponse"].get("response"))
    return out


def offered_tools(req):
    """The names of the tools a request offers: in its tools (Gemini's
    in their functionDeclarations), or in the Responses API's
    additional_tools input items, namespaces opened."""
    names = set()
    tools = list(req.get("tools") or [])
    for item in req.get("input") if isinstance(req.get("input"), list) else []:
        if isinstance(item, dict) and item.get("type") == "additional_tools":
            tools += item.get("tools") or []
    while tools:
        t = tools.pop()
        if not isinstance(t, dict):
            continue
        names.add(t.get("name"))
        tools += t.get("tools") or []
        tools += t.get("functionDeclarations") or []
    return names


def tool_call(req, raw):
    """(name, arguments) of the shell tool call the request asks for, or
    None."""
    found = TOOL_MARK.search(raw)
    if not found or tool_results(req):
        return None
    b64 = found.group(1).decode()
    command = base64.urlsafe_b64decode(b64 + "=" * (-len(b64) % 4)).decode()
    offered = offered_tools(req)
    for name, args in SHELL_TOOLS:
        if name in offered:
            return name, args(command)
    return None


# ------------------------------------------------------------- Anthropic

def anthropic(req, parts, call=None):
    model = req.get("model", "claude-fake")
    usage = {"input_tokens": 10, "output_tokens": 5,
             "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0}
    msg = {"id": "msg_fake", "type": "message", "role": "assistant",
           "model": model, "content": [], "stop_reason": None,
           "stop_sequence": None, "usage": usage}
    if call:
        block = {"type": "tool_use", "id": "toolu_fake", "name": call[0],
                 "input": call[1]}
        if not req.get("stream"):
            msg["content"] = [block]
            msg["stop_reason"] = "tool_use"
            return "application/json", json.dumps(msg).encode()
        return "text/event-stream", sse([
            ("message_start", {"type": "message_start", "message": msg}),
            ("content_block_start", {"type": "content_block_start",
                                     "index": 0, "content_block":
                                     dict(block, input={})}),
            ("content_block_delta", {"type": "content_block_delta",
                                     "index": 0, "delta": {
                                         "type": "input_json_delta",
                                         "partial_json":
                                         json.dumps(call[1])}}),
            ("content_block_stop", {"type": "content_block_stop",
                                    "index": 0}),
            ("message_delta", {"type": "message_delta",
                               "delta": {"stop_reason": "tool_use",
                                         "stop_sequence": None},
                               "usage": {"output_tokens": 5}}),
            ("message_stop", {"type": "message_stop"}),
        ])
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

def responses(req, parts, call=None):
    model = req.get("model", "gpt-fake")
    item = {"type": "message", "id": "msg_fake", "status": "completed",
            "role": "assistant",
            "content": [{"type": "output_text", "text": "".join(parts),
                         "annotations": []}]}
    if call and isinstance(call[1], str):
        item = {"type": "custom_tool_call", "id": "ctc_fake",
                "call_id": "call_fake", "status": "completed",
                "name": call[0], "input": call[1]}
        parts = []
    elif call:
        item = {"type": "function_call", "id": "fc_fake",
                "call_id": "call_fake", "status": "completed",
                "name": call[0], "arguments": json.dumps(call[1])}
        parts = []
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
    started = dict(item, status="in_progress")
    if "content" in item:
        started["content"] = []
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


def gemini(req, parts, last=True, call=None):
    conf = req.get("generationConfig") or {}
    text = "".join(parts)
    if conf.get("responseMimeType") == "application/json":
        schema = conf.get("responseJsonSchema") or conf.get("responseSchema")
        text = json.dumps(from_schema(schema, text))
    part = {"text": text}
    if call:
        part = {"functionCall": {"name": call[0], "args": call[1]}}
    out = {"candidates": [{"content": {"role": "model",
                                       "parts": [part]},
                           "index": 0}],
           "modelVersion": "gemini-fake"}
    if last:
        out["candidates"][0]["finishReason"] = "STOP"
        out["usageMetadata"] = {"promptTokenCount": 10,
                                "candidatesTokenCount": 5,
                                "totalTokenCount": 15}
    return out


def gemini_stream(req, parts, call=None):
    if call:
        return "text/event-stream", sse([(None, gemini(req, [], True,
                                                       call))])
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
        for line in "\n".join(tool_results(req)).splitlines()[:50]:
            log(self.server.log_path, "  tool-result " + line)
        call = tool_call(req, raw)
        if call:
            log(self.server.log_path, "  tool-call " + call[0])
        out = None
        if path.endswith("/messages/count_tokens"):
            out = "application/json", b'{"input_tokens": 10}'
        elif path.endswith("/messages"):
            out = anthropic(req, parts, call)
        elif path.endswith("/responses"):
            out = responses(req, parts, call)
        elif path.endswith("/chat/completions"):
            out = chat(req, parts)
        elif path.endswith(":streamGenerateContent"):
            out = gemini_stream(req, parts, call)
        elif path.endswith(":generateContent"):
            out = "application/json", json.dumps(
                gemini(req, parts, True, call)).encode()
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
