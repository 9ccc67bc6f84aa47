"""A fake MCP server over stdio for test_client_faults: it answers the
handshake, tools/list and ping as a server should, and the tools/call it is
told to spoil with the fault named in argv: python client_fault_server.py
FAULT SIZE DELAY LOG.  Every line it reads is appended to LOG (the test reads
what the client sent: each request once, a notifications/cancelled)."""

import json
import sys
import time

FAULT, SIZE, DELAY, LOG = sys.argv[1], int(sys.argv[2]), float(sys.argv[3]), sys.argv[4]
out = sys.stdout.buffer


def write(message: object) -> None:
    out.write(json.dumps(message).encode() + b"\n")
    out.flush()


def note(n: int) -> dict:
    return {"jsonrpc": "2.0", "method": "notifications/message", "params": {"level": "info", "data": n}}


def call(id_: object) -> None:
    """The tools/call answer, spoiled."""
    answer = {"jsonrpc": "2.0", "id": id_, "result": {"content": [{"type": "text", "text": "ok"}]}}
    if FAULT == "ok":
        write(answer)
    elif FAULT == "stall":
        pass
    elif FAULT in ("notes", "spam"):  # a notification every DELAY seconds for SIZE ms, never the answer
        stop = time.monotonic() + SIZE / 1000
        n = 0
        while time.monotonic() < stop:
            write(note(n))
            time.sleep(DELAY)
            n += 1
    elif FAULT == "late":  # the answer after the client gave up on it
        time.sleep(DELAY)
        write(answer)
    elif FAULT == "cut":
        out.write(json.dumps(answer).encode()[:SIZE % 40 + 1])
        out.flush()
        sys.exit(0)
    elif FAULT == "oversize":  # one line past the client's cap, then the answer (late: dropped)
        block = b"x" * 65536
        out.write(b'{"jsonrpc": "2.0", "method": "notifications/message", "params": {"data": "')
        for _ in range(SIZE // len(block)):
            out.write(block)
        out.write(b'"}}\n')
        write(answer)
    elif FAULT == "flood":  # notifications, each under the cap, SIZE bytes of them; then the answer
        text = "y" * 50_000
        for _ in range(SIZE // 50_000):
            write({"jsonrpc": "2.0", "method": "notifications/message", "params": {"level": "info", "data": text}})
        write(answer)
    elif FAULT == "repeat":
        write(answer)
        write(answer)
    elif FAULT == "garbage":
        out.write(b"\x00{not json\n")
        out.flush()
        write(answer)
    elif FAULT == "reorder":  # an answer to an id never asked, then the right one
        write(dict(answer, id=10_000))
        write(answer)


def main() -> None:
    with open(LOG, "ab", buffering=0) as log:
        for line in sys.stdin.buffer:
            log.write(line)
            message = json.loads(line)
            method, id_ = message.get("method"), message.get("id")
            if id_ is None:
                continue
            if method == "initialize":
                write({"jsonrpc": "2.0", "id": id_, "result": {
                    "protocolVersion": "2025-11-25", "capabilities": {"tools": {}},
                    "serverInfo": {"name": "fault", "version": "1"}}})
            elif method == "server/discover":
                write({"jsonrpc": "2.0", "id": id_, "result": {
                    "supportedVersions": ["2026-07-28"], "capabilities": {"tools": {}},
                    "serverInfo": {"name": "fault", "version": "1"}}})
            elif method == "tools/list":
                write({"jsonrpc": "2.0", "id": id_, "result": {"tools": [
                    {"name": "t", "inputSchema": {"type": "object"}}]}})
                if FAULT == "deaf":  # it reads nothing more: a long request fills the pipe
                    time.sleep(30)
            elif method == "tools/call":
                call(id_)
            else:
                write({"jsonrpc": "2.0", "id": id_, "result": {}})


main()
