#!/usr/bin/env python3
"""A loopback HTTP proxy in front of a real Kinto that injects faults on demand (tests only).

    fault-proxy.py --upstream http://127.0.0.1:8888 [--port 0]

Prints its port on the first line of stdout once it listens. Every request is forwarded to the
upstream unchanged (Host included, so Kinto's Next-Page links point back at the proxy), one request
per connection: each answer carries `Connection: close`, so a client never reuses a connection and
libcurl never silently retries a request on a fresh one after a reset.

Faults are set at run time on the proxy itself (never forwarded):

    POST /__fault__  {"mode": "status_500", "count": 1, "match": "/batch", "seconds": 2}
    GET  /__fault__  -> {"fault": {...}, "log": [{"method", "path", "status", "fault"}, ...]}

`count` matching requests get the fault (default 1; -1 means every one until the next POST), then
the proxy passes again. `match` is a substring of the request path and query ("" matches all),
or, after a leading `=`, the whole of it (`=/v1/`: the server's root only).
`seconds` is N for delay, Retry-After and Backoff (default 1); `skip` lets that many matching
requests pass first (default 0), e.g. to fail the second chunk of a batch; `message` is the
`message` of the error body status_500 answers with (default "fault injected"), e.g. one
holding terminal escapes, as a hostile server would. Modes:

    pass                    forward and answer normally
    reset_before            drop the connection (TCP reset) without forwarding: nothing applied
    reset_after             forward to Kinto, then reset without answering: commit unknown
    status_500              answer 500 without forwarding
    status_503_retry_after  answer 503 with Retry-After: N without forwarding
    status_401              answer 401 with WWW-Authenticate: Basic without forwarding
    status_404              answer 404 (Kinto's "not found" body) without forwarding
    backoff_header          forward, add Backoff: N to the real answer
    garbled_json            forward, replace the body with invalid JSON, keep the status
    replace_body            forward, replace the body with `message`, keep the status (a server
                            answering with well-formed JSON of its own)
    truncated               forward, send the full Content-Length but only half the body, close
    delay                   sleep N seconds, then forward and answer (a client timeout; the
                            request still reaches Kinto after the client gave up)
    batch_409               forward a POST /batch, then turn its last sub-response into a 409 with
                            Retry-After: N (the PostgreSQL "commit unknown" case)
    shift_date              forward, move the answer's Date header by N seconds (may be negative):
                            a server whose clock differs from the device's
    endless_next_page       forward, then answer a 200 with a Next-Page link back to the same
                            listing with a new `_fault_page=K` each time (in place of Kinto's own
                            link): with count -1, a listing that never ends. The proxy strips its
                            `_fault_page` from every request it forwards.
    huge_body               forward, then answer with N MiB of spaces before the real body (still
                            the same JSON): an answer larger than a client should read
"""

import argparse
import asyncio
import email.utils
import json
import signal
import socket
import struct
import sys
from urllib.parse import urlsplit, urlunsplit

MODES = {
    "pass", "reset_before", "reset_after", "status_500", "status_503_retry_after", "status_401",
    "status_404", "backoff_header", "garbled_json", "truncated", "delay", "batch_409", "shift_date",
    "endless_next_page", "huge_body", "replace_body",
}
FAULT_PAGE = "_fault_page"
LOG_LIMIT = 2000
HOP_BY_HOP = {"connection", "keep-alive", "transfer-encoding", "content-length", "proxy-connection",
              "te", "trailer", "upgrade"}


class ProxyState:
    def __init__(self):
        self.fault = {"mode": "pass", "remaining": 0, "match": "", "seconds": 1.0, "skip": 0,
                      "message": "fault injected"}
        self.log = []

    def set_fault(self, spec):
        mode = spec.get("mode", "pass")
        if mode not in MODES:
            raise ValueError("unknown mode %r; known: %s" % (mode, ", ".join(sorted(MODES))))
        count = int(spec.get("count", 1))
        self.fault = {
            "mode": mode,
            "remaining": count if mode != "pass" else 0,
            "match": str(spec.get("match", "")),
            "seconds": float(spec.get("seconds", 1)),
            "skip": int(spec.get("skip", 0)),
            "message": str(spec.get("message", "fault injected")),
        }

    def take(self, path):
        """The fault for a request to `path`, counting it down; "pass" when none applies."""
        fault = self.fault
        match = fault["match"]
        matched = path == match[1:] if match.startswith("=") else match in path
        if fault["mode"] == "pass" or fault["remaining"] == 0 or not matched:
            return "pass", fault["seconds"]
        if fault["skip"] > 0:
            fault["skip"] -= 1
            return "pass", fault["seconds"]
        if fault["remaining"] > 0:
            fault["remaining"] -= 1
        return fault["mode"], fault["seconds"]

    def record(self, method, path, status, mode):
        self.log.append({"method": method, "path": path, "status": status, "fault": mode})
        del self.log[:-LOG_LIMIT]


class Message:
    """An HTTP request or response: start line, headers in order, body."""

    def __init__(self, start, headers, body):
        self.start = start
        self.headers = headers
        self.body = body

    def header(self, name):
        for key, value in self.headers:
            if key.lower() == name.lower():
                return value
        return None


async def read_message(reader, is_response=False, method=None):
    try:
        head = await reader.readuntil(b"\r\n\r\n")
    except (asyncio.IncompleteReadError, asyncio.LimitOverrunError, ConnectionError):
        return None
    lines = head.decode("latin-1").split("\r\n")
    start = lines[0]
    headers = []
    for line in lines[1:]:
        if line:
            name, _, value = line.partition(":")
            headers.append((name.strip(), value.strip()))
    message = Message(start, headers, b"")
    status = int(start.split(" ")[1]) if is_response else None
    if is_response and (method == "HEAD" or status in (204, 304) or 100 <= status < 200):
        return message
    length = message.header("Content-Length")
    if (message.header("Transfer-Encoding") or "").lower() == "chunked":
        message.body = await read_chunked(reader)
    elif length is not None:
        message.body = await reader.readexactly(int(length))
    elif is_response:
        message.body = await reader.read()
    return message


async def read_chunked(reader):
    body = b""
    while True:
        size = int((await reader.readline()).split(b";")[0].strip(), 16)
        if size == 0:
            while (await reader.readline()) not in (b"\r\n", b""):
                pass
            return body
        body += await reader.readexactly(size)
        await reader.readexactly(2)


def encode_headers(headers):
    return "".join("%s: %s\r\n" % (name, value) for name, value in headers).encode("latin-1")


async def forward(upstream, request):
    """Sends the request to Kinto on a fresh connection and reads the whole answer."""
    reader, writer = await asyncio.open_connection(upstream.hostname, upstream.port or 80)
    try:
        headers = [(k, v) for k, v in request.headers if k.lower() not in HOP_BY_HOP]
        headers.append(("Content-Length", str(len(request.body))))
        headers.append(("Connection", "close"))
        writer.write(request.start.encode("latin-1") + b"\r\n" + encode_headers(headers) + b"\r\n" + request.body)
        await writer.drain()
        method = request.start.split(" ")[0]
        response = await read_message(reader, is_response=True, method=method)
        if response is None:
            raise ConnectionError("upstream closed without answering")
        return response
    finally:
        writer.close()


def kinto_error(status, reason, message, errno=999):
    body = json.dumps({"code": status, "errno": errno, "error": reason, "message": message}).encode()
    return Message("HTTP/1.1 %d %s" % (status, reason), [("Content-Type", "application/json")], body)


async def answer(writer, response, extra_headers=(), body=None, declared_length=None):
    body = response.body if body is None else body
    headers = [(k, v) for k, v in response.headers if k.lower() not in HOP_BY_HOP]
    headers.extend(extra_headers)
    status = int(response.start.split(" ")[1])
    if status not in (204, 304):
        headers.append(("Content-Length", str(len(body) if declared_length is None else declared_length)))
    headers.append(("Connection", "close"))
    writer.write(response.start.encode("latin-1") + b"\r\n" + encode_headers(headers) + b"\r\n" + body)
    await writer.drain()


def with_shifted_date(response, seconds):
    """The answer with its Date header moved by `seconds` (whole seconds, as servers send it)."""
    headers = []
    for name, value in response.headers:
        if name.lower() == "date":
            moved = email.utils.parsedate_to_datetime(value).timestamp() + seconds
            value = email.utils.formatdate(int(moved), usegmt=True)
        headers.append((name, value))
    return Message(response.start, headers, response.body)


def without_fault_page(path):
    """`path` without the proxy's own `_fault_page` parameter, and that parameter's value (0)."""
    parts = urlsplit(path)
    kept, page = [], 0
    for pair in parts.query.split("&") if parts.query else []:
        name, _, value = pair.partition("=")
        if name == FAULT_PAGE:
            page = int(value or 0)
        else:
            kept.append(pair)
    return urlunsplit(("", "", parts.path, "&".join(kept), "")), page


def with_next_page(response, link):
    """The answer with `link` as its only Next-Page header."""
    headers = [(k, v) for k, v in response.headers if k.lower() != "next-page"]
    headers.append(("Next-Page", link))
    return Message(response.start, headers, response.body)


def reset(writer):
    """Closes with a TCP reset (SO_LINGER 0) rather than an orderly FIN."""
    sock = writer.get_extra_info("socket")
    if sock is not None:
        try:
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        except OSError:
            pass
    writer.transport.abort()


def with_batch_409(response, seconds):
    try:
        document = json.loads(response.body)
        last = document["responses"][-1]
    except (ValueError, KeyError, IndexError, TypeError):
        return response.body
    last["status"] = 409
    last["headers"] = {"Content-Type": "application/json", "Retry-After": str(int(seconds))}
    last["body"] = {"code": 409, "errno": 122, "error": "Conflict",
                    "message": "Integrity constraint violated, please retry."}
    return json.dumps(document).encode()


async def control(state, request, writer):
    method = request.start.split(" ")[0]
    if method == "POST":
        try:
            state.set_fault(json.loads(request.body or b"{}"))
        except (ValueError, TypeError) as error:
            await answer(writer, kinto_error(400, "Bad Request", str(error)))
            return
    body = json.dumps({"fault": state.fault, "log": state.log}).encode()
    await answer(writer, Message("HTTP/1.1 200 OK", [("Content-Type", "application/json")], body))


async def handle(state, upstream, reader, writer):
    aborted = False
    try:
        request = await read_message(reader)
        if request is None:
            return
        method, path = request.start.split(" ")[0], request.start.split(" ")[1]
        if urlsplit(path).path == "/__fault__":
            await control(state, request, writer)
            return
        forwarded_path, page = without_fault_page(path)
        if forwarded_path != path:
            request.start = " ".join([method, forwarded_path] + request.start.split(" ")[2:])
        mode, seconds = state.take(path)
        status = None
        if mode == "reset_before":
            aborted = True
            reset(writer)
        elif mode == "status_500":
            status = 500
            await answer(writer, kinto_error(500, "Internal Server Error", state.fault["message"]))
        elif mode == "status_503_retry_after":
            status = 503
            await answer(writer, kinto_error(503, "Service Unavailable", "fault injected", errno=201),
                         extra_headers=[("Retry-After", str(int(seconds)))])
        elif mode == "status_401":
            status = 401
            await answer(writer, kinto_error(401, "Unauthorized", "Please authenticate yourself to use this endpoint.",
                                             errno=104),
                         extra_headers=[("WWW-Authenticate", 'Basic realm="Realm"')])
        elif mode == "status_404":
            status = 404
            await answer(writer, kinto_error(404, "Not Found", "fault injected", errno=111))
        else:
            if mode == "delay":
                await asyncio.sleep(seconds)
            try:
                response = await forward(upstream, request)
            except (OSError, asyncio.IncompleteReadError) as error:
                response = kinto_error(502, "Bad Gateway", "upstream: %s" % error)
                mode = "pass"
            status = int(response.start.split(" ")[1])
            has_body = status not in (204, 304)
            if mode == "reset_after":
                aborted = True
                reset(writer)
            elif mode == "backoff_header":
                await answer(writer, response, extra_headers=[("Backoff", str(int(seconds)))])
            elif mode == "garbled_json" and has_body:
                await answer(writer, response, body=b'{"data": [{"id": "garbled", ')
            elif mode == "replace_body" and has_body:
                await answer(writer, response, body=state.fault["message"].encode())
            elif mode == "truncated" and has_body:
                await answer(writer, response, body=response.body[: len(response.body) // 2],
                             declared_length=len(response.body))
            elif mode == "batch_409":
                await answer(writer, response, body=with_batch_409(response, seconds))
            elif mode == "shift_date":
                await answer(writer, with_shifted_date(response, seconds))
            elif mode == "huge_body" and has_body:
                await answer(writer, response, body=b" " * int(seconds * (1 << 20)) + response.body)
            elif mode == "endless_next_page" and status == 200:
                separator = "&" if "?" in forwarded_path else "?"
                link = "http://%s%s%s%s=%d" % (request.header("Host"), forwarded_path, separator, FAULT_PAGE, page + 1)
                await answer(writer, with_next_page(response, link))
            else:
                await answer(writer, response)
        state.record(method, path, status, mode)
    except (ConnectionError, asyncio.IncompleteReadError) as error:
        print("fault-proxy: %s" % error, file=sys.stderr, flush=True)
        # The client hung up while a faulted answer went out (a delay past its timeout, on a body
        # too large for the socket's buffer): the fault still hit this request.
        if "mode" in locals() and mode != "pass":
            state.record(method, path, status, mode)
    finally:
        if not aborted:
            writer.close()


async def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--upstream", required=True, help="Kinto's origin, e.g. http://127.0.0.1:8888")
    parser.add_argument("--port", type=int, default=0, help="port to listen on (0: any free one)")
    arguments = parser.parse_args()
    upstream = urlsplit(arguments.upstream)
    state = ProxyState()
    server = await asyncio.start_server(lambda r, w: handle(state, upstream, r, w), "127.0.0.1", arguments.port,
                                        limit=1 << 20)
    print(server.sockets[0].getsockname()[1], flush=True)
    async with server:
        await server.serve_forever()


if __name__ == "__main__":
    # A process started from a Swift concurrency (or dispatch) thread inherits that thread's
    # signal mask, which blocks SIGTERM: without this the proxy could never be stopped politely.
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGTERM, signal.SIGINT, signal.SIGHUP})
    try:
        asyncio.run(main())
    except KeyboardInterrupt:
        pass
