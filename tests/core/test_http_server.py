"""Section 22, the embedded HTTP server: RFC 9112 framing (request smuggling),
read deadlines (slowloris), the per-client connection cap, the head's parsing,
sending, the Date header, and the edge process (its fds, stderr and SIGTERM).
"""

from tests._testing import HERE  # the repository's root
from tests._testing import python_command  # a server's command line, on the module under test

import http.client
import io
import json
import os
import random
import re
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import unittest
import unittest.mock
from typing import Any, Dict, List, Optional, Sequence, Tuple

import mcp_ref  # noqa: E402

from tests.core.test_http import ACCEPT, InProcess, META, MODERN, Response, ServerProcess, SharedServer


sys.path.insert(0, HERE)


EDGE_SERVER = os.path.join(HERE, "tests", "testdata", "http_edge_server.py")


def raw_exchange(port: int, raw: bytes, timeout: float = 10.0) -> Tuple[bytes, bool]:
    """Send ``raw``; everything the server answers, and whether it then closed the connection."""
    sock = socket.create_connection(("127.0.0.1", port), timeout=timeout)
    try:
        sock.sendall(raw)
        data = b""
        while True:
            try:
                chunk = sock.recv(65536)
            except socket.timeout:
                return data, False
            if not chunk:
                return data, True
            data += chunk
            if b"\r\n\r\n" in data and data.startswith(b"HTTP/1.1 4"):
                sock.settimeout(3)  # the answer is whole: does the connection close?
    finally:
        sock.close()


def ping_request(*extra: bytes, body: bytes = b'{"jsonrpc":"2.0","id":1,"method":"ping"}',
                 version: bytes = b"HTTP/1.1", host: bytes = b"Host: 127.0.0.1\r\n") -> bytes:
    return (b"POST /mcp " + version + b"\r\n" + host + b"Content-Type: application/json\r\n"
            b"Accept: application/json, text/event-stream\r\n" + b"".join(h + b"\r\n" for h in extra) + b"\r\n" + body)


class FramingTest(SharedServer):
    """RFC 9112 6.1 and 6.3: a request framed two ways (the request-smuggling
    vector behind a proxy) is refused with 400 and the connection closed."""

    def test_ambiguous_framing_is_refused_and_closes(self) -> None:
        cases = {
            b"gzip with Content-Length": ping_request(b"Transfer-Encoding: gzip", b"Content-Length: 40"),
            b"chunked with Content-Length": ping_request(b"Transfer-Encoding: chunked", b"Content-Length: 40"),
            b"a last coding not chunked": ping_request(b"Transfer-Encoding: chunked, gzip"),
            b"an empty coding": ping_request(b"Transfer-Encoding: ", b"Content-Length: 40"),
            b"Transfer-Encoding in HTTP/1.0": ping_request(b"Transfer-Encoding: chunked", version=b"HTTP/1.0"),
            b"two Content-Lengths": ping_request(b"Content-Length: 40", b"Content-Length: 4"),
            b"a list of two": ping_request(b"Content-Length: 40, 4"),
            b"a sign": ping_request(b"Content-Length: +40"),
            b"hexadecimal": ping_request(b"Content-Length: 0x28"),
            b"two Hosts": ping_request(b"Content-Length: 40", b"Host: evil.example"),
            b"no Host": ping_request(b"Content-Length: 40", host=b""),
            b"a bare CR in a value": ping_request(b"X-A: b\rContent-Length: 4", b"Content-Length: 40"),
            b"a space in a name": ping_request(b"Content Length: 4", b"Content-Length: 40"),
            b"a NUL in a value": ping_request(b"X-A: \0", b"Content-Length: 40"),
        }
        smuggled = ping_request(b"Content-Length: 40")  # what a proxy that read it otherwise sent next
        for label, raw in cases.items():
            with self.subTest(label):
                data, closed = raw_exchange(self.server.port, raw + smuggled)
                self.assertRegex(data.split(b"\r\n")[0], rb"^HTTP/1\.1 400 ")
                self.assertEqual(data.count(b"HTTP/1.1 "), 1)  # the smuggled request is never read
                self.assertTrue(closed)

    def test_the_common_case_read_from_fields_agrees_with_the_rule(self) -> None:
        host = ("Host", "h")
        cases: List[Tuple[str, List[Tuple[str, str]], Any]] = [
            ("HTTP/1.1", [host, ("Content-Length", "40")], 40),
            ("HTTP/1.1", [host], 0),
            ("HTTP/1.0", [], 0),
            ("HTTP/1.1", [], (400, "Bad Request")),
            ("HTTP/1.1", [host, ("host", "h")], (400, "Bad Request")),
            ("HTTP/1.1", [host, ("Content-Length", "40, 40")], 40),
            ("HTTP/1.1", [host, ("Content-Length", "40"), ("content-length", "41")], (400, "Bad Content-Length")),
            ("HTTP/1.1", [host, ("Content-Length", "9" * 19)], 10 ** 18),
            ("HTTP/1.1", [host, ("Content-Length", "+40")], (400, "Bad Content-Length")),
            ("HTTP/1.1", [host, ("Content-Length", "\u0664\u0660")], (400, "Bad Content-Length")),
            ("HTTP/1.1", [host, ("Transfer-Encoding", "chunked")], (411, "Length Required")),
            ("HTTP/1.0", [("Transfer-Encoding", "chunked")], (400, "Bad Request")),
        ]
        for version, headers, expected in cases:
            fields = {name.lower(): value for name, value in headers}
            self.assertEqual(mcp_ref._framing(version, headers, fields), expected, (version, headers))

    def test_field_names_found_to_be_tokens_are_remembered_and_only_they(self) -> None:
        long = "X-" + "a" * 63
        for name, token in (("Mcp-Name", True), (long, True), ("", False), ("Bad Name", False), ("a\0", False),
                            ("Caf\u00e9", False), ("X-Ok!#$%&'*+-.^_`|~", True)):
            self.assertEqual(mcp_ref._is_token(name), token, name)
            self.assertEqual(name in mcp_ref._TOKENS, token and name != long, name)
        data, closed = raw_exchange(self.server.port, ping_request(b"Content-Length: 40", b"Bad Name: x"))
        self.assertEqual(data.split(b"\r\n")[0], b"HTTP/1.1 400 Bad Request")
        self.assertTrue(closed)

    def test_one_value_repeated_is_that_value(self) -> None:  # RFC 9110, 8.6
        data, _ = raw_exchange(self.server.port, ping_request(b"Content-Length: 40, 40", b"Connection: close"))
        self.assertEqual(data.split(b"\r\n")[0], b"HTTP/1.1 200 OK")


# Generated heads (FramingGeneratedTest): seeds 0-3, 0-39 with MCP_REF_FUZZ_LONG=1.
SEEDS = range(40) if os.environ.get("MCP_REF_FUZZ_LONG") == "1" else range(4)
_NAMES = {"host": ("Host", "host", "HOST"), "length": ("Content-Length", "content-length", "CONTENT-LENGTH"),
          "coding": ("Transfer-Encoding", "transfer-encoding"),
          "other": ("X-A", "Connection", "Mcp-Name", "Content-Type", "Bad Name", "Caf\xe9", "", "X\0", "X-A ")}
_VALUES = {"host": ("127.0.0.1", "h", "", "evil.example"),
           "length": ("40", "040", "40, 40", "40,40", "40, 4", "40, , 40", "+40", "-1", "0x28", "", " 40 ", "4 0",
                      "9" * 18, "9" * 19, "9" * 25, "\u0664\u0660", "\u00b2", "0", "40 "),
           "coding": ("chunked", "Chunked", "gzip", "chunked, gzip", "gzip, chunked", "", " chunked", "identity",
                      "chunked,", "chunked, chunked"),
           "other": ("v", "", "a\rb", "a\0b", "close", " padded ")}


def _generated_head(rng: Any, lines: Sequence[str] = ()) -> bytes:
    """The header lines of a request head, drawn so that framing's cases meet:
    Host, Content-Length and Transfer-Encoding none, once or more, in any
    case and spelling, among other fields; now and then a line folded, ended
    by a bare LF or CR, or a space before its colon.  Given ``lines``, up to
    two drawn lines follow them."""
    lines = list(lines)
    for _ in range(rng.randrange(3) if lines else rng.randrange(7)):
        kind = rng.choice(("host", "host", "length", "length", "coding", "other"))
        name, value = rng.choice(_NAMES[kind]), rng.choice(_VALUES[kind])
        sep = rng.choice((": ", ": ", ":", ":\t", " : ")) if rng.random() < 0.2 else ": "
        end = rng.choice(("\n", "\r", "\r\n")) if rng.random() < 0.1 else "\r\n"
        lines.append(f"{name}{sep}{value}{end}")
        if rng.random() < 0.05:
            lines.append(" folded\r\n")
    return "".join(lines).encode("utf-8") + b"\r\n"


class FramingGeneratedTest(SharedServer):
    """The two speed choices of the head's reading, held to their rule over
    generated heads: a head split at once from the buffer (_buffered_fields)
    gives what the rule line by line gives (_read_fields), and the common case
    of _framing (read from ``fields``) what its rule gives; and the rule itself
    keeps RFC 9112's MUSTs whatever the head: Transfer-Encoding with
    Content-Length, or in HTTP/1.0, is refused (6.1), an HTTP/1.1 request
    without exactly one Host is refused (3.2), differing lengths are refused
    (6.3 (5)), and a refused request closes the connection, so a request
    smuggled behind it is never read."""

    def test_a_buffered_head_reads_as_the_rule_does(self) -> None:
        for seed in SEEDS:
            rng = random.Random(seed)
            for n in range(300):
                raw = b"POST /mcp HTTP/1.1\r\n" + _generated_head(rng) + b"body"
                fast, slow = io.BufferedReader(io.BytesIO(raw)), io.BufferedReader(io.BytesIO(raw))
                slow.readline()
                head, expected = mcp_ref._read_head(fast), mcp_ref._read_fields(slow)
                with self.subTest(seed=seed, n=n, raw=raw):
                    self.assertEqual(head if len(head) == 2 else head[3], expected)
                    if isinstance(expected, list):
                        self.assertEqual(fast.read(), slow.read())

    def test_framing_keeps_its_rule_and_the_rfc(self) -> None:
        refusals = {(400, "Bad Request"), (400, "Bad Content-Length"), (411, "Length Required")}
        for seed in SEEDS:
            rng = random.Random(seed)
            for n in range(500):
                headers = mcp_ref._read_fields(io.BufferedReader(io.BytesIO(_generated_head(rng))))
                if not isinstance(headers, list):
                    continue
                version = rng.choice(("HTTP/1.1", "HTTP/1.1", "HTTP/1.0"))
                fields = {name.lower(): value for name, value in headers}  # as the server builds them
                got = mcp_ref._framing(version, headers, fields)
                named = [name.lower() for name, _ in headers]
                lengths = {v.strip(" \t") for name, value in headers if name.lower() == "content-length"
                           for v in value.split(",")}
                with self.subTest(seed=seed, n=n, version=version, headers=headers):
                    self.assertEqual(got, mcp_ref._framing(version, headers, {}))  # {}: the rule, no common case
                    self.assertTrue(got in refusals or isinstance(got, int) and got >= 0, got)
                    if "transfer-encoding" in named and ("content-length" in named or version == "HTTP/1.0"):
                        self.assertEqual(got, (400, "Bad Request"))
                    if "transfer-encoding" not in named and version == "HTTP/1.1" and named.count("host") != 1:
                        self.assertEqual(got, (400, "Bad Request"))
                    if isinstance(got, int):
                        self.assertTrue("transfer-encoding" not in named and len(lengths) <= 1)
                        self.assertEqual(got, min(int(lengths.pop()), 10 ** 18) if lengths else 0)

    def test_a_refused_head_closes_before_the_request_behind_it(self) -> None:
        body = b'{"jsonrpc":"2.0","id":1,"method":"ping"}'  # 40 bytes
        behind = ping_request(b"Content-Length: 40", b"Connection: close")  # what a proxy framing it otherwise sent
        for seed in SEEDS:
            rng = random.Random(seed)
            for n in range(16):
                # A head of ping_request's fields and a few drawn after them, or all drawn
                # (their lengths are 40 and others: the body's and not).
                head = _generated_head(rng, [] if n % 2 else [
                    "Host: 127.0.0.1\r\n", "Content-Type: application/json\r\n",
                    "Accept: application/json, text/event-stream\r\n", "Content-Length: 40\r\n"])
                raw = b"POST /mcp HTTP/1.1\r\n" + head + body + behind
                read = mcp_ref._read_head(io.BufferedReader(io.BytesIO(raw)))  # (a head may not end where it seems)
                framing = read if len(read) == 2 else mcp_ref._framing("HTTP/1.1", read[3], {})
                data, closed = raw_exchange(self.server.port, raw)
                statuses = re.findall(rb"(?:^|\n)HTTP/1\.1 (\d{3}) ", data)
                with self.subTest(seed=seed, n=n, raw=raw):
                    self.assertTrue(closed)
                    if framing == len(body):  # read as sent: this request and the one behind it, answered
                        self.assertEqual(statuses[1:], [b"200"], data)
                    elif not isinstance(framing, int):  # refused: nothing after it is read
                        self.assertEqual([s.decode() for s in statuses], [str(framing[0])], data)


class StalledClientTest(unittest.TestCase):
    """Slowloris: a head, or a body, must arrive whole within read_timeout."""

    @classmethod
    def setUpClass(cls) -> None:
        cls.server = ServerProcess({"read_timeout": 1})

    @classmethod
    def tearDownClass(cls) -> None:
        cls.server.stop()

    def test_a_trickled_head_is_cut(self) -> None:
        import select

        sock = socket.create_connection(("127.0.0.1", self.server.port), timeout=10)
        raw, closed, deadline = ping_request(b"Content-Length: 40") * 10, False, time.monotonic() + 15
        for byte in raw:  # one byte every 0.1 s, well within any per-read timeout
            if time.monotonic() > deadline:
                break
            try:
                sock.send(bytes([byte]))
            except OSError:
                closed = True
                break
            if select.select([sock], [], [], 0.1)[0]:
                closed = sock.recv(100) == b""
                break
        sock.close()
        self.assertTrue(closed, "a client trickling its head held the connection")

    def test_a_stalled_body_gets_408(self) -> None:
        raw = ping_request(b"Content-Length: 100", body=b'{"jsonrpc"')
        data, closed = raw_exchange(self.server.port, raw, timeout=15)
        self.assertEqual(data.split(b"\r\n")[0], b"HTTP/1.1 408 Request Timeout")
        self.assertTrue(closed)


class ClientCapTest(unittest.TestCase):
    """One address holds at most max_client_connections connections. The read
    timeout is long here: a held connection cut for its silent head would free
    a place and let the fourth in (it did, under a loaded CI, with 1 s)."""

    @classmethod
    def setUpClass(cls) -> None:
        cls.server = ServerProcess({"read_timeout": 60, "max_client_connections": 3})

    @classmethod
    def tearDownClass(cls) -> None:
        cls.server.stop()

    def test_connections_per_client_are_capped(self) -> None:
        held = [socket.create_connection(("127.0.0.1", self.server.port), timeout=10) for _ in range(3)]
        try:
            time.sleep(0.3)  # (accepted in order, before the fourth: each waits for its head)
            data, closed = raw_exchange(self.server.port, b"", timeout=10)
            self.assertEqual(data.split(b"\r\n")[:2], [b"HTTP/1.1 503 Service Unavailable", b"Retry-After: 1"])
            self.assertTrue(closed)
            other = socket.socket()  # another address is not this one's count
            other.settimeout(10)
            other.bind(("127.0.0.2", 0))
            other.connect(("127.0.0.1", self.server.port))
            other.sendall(ping_request(b"Content-Length: 40", b"Connection: close"))
            self.assertEqual(other.recv(100).split(b"\r\n")[0], b"HTTP/1.1 200 OK")
            other.close()
        finally:
            for sock in held:
                sock.close()
        for _ in range(50):  # the count goes down as the connections end
            try:
                if self.server.request("POST", {"jsonrpc": "2.0", "id": 1, "method": "ping"}).status == 200:
                    break
            except (BrokenPipeError, ConnectionResetError):  # refused still: the 503 closes before the body is read
                pass
            time.sleep(0.1)
        else:
            self.fail("the cap never came down")


class DeadlineReaderTest(unittest.TestCase):
    """A read deadline costs no system call when the socket's own timeout
    already fits it: settimeout lets go of the GIL, and 8 busy connections
    paid two a request for nothing."""

    class Socket:
        def __init__(self, chunks: List[bytes]) -> None:
            self.chunks, self.timeouts, self.timeout = chunks, [], 30.0

        def gettimeout(self) -> float:
            return self.timeout

        def settimeout(self, seconds: float) -> None:
            self.timeouts.append(seconds)
            self.timeout = seconds

        def recv_into(self, buffer: Any) -> int:
            chunk = self.chunks.pop(0)
            if chunk == b"stall":
                raise socket.timeout("timed out")
            buffer[:len(chunk)] = chunk
            return len(chunk)

    def test_a_request_read_at_once_sets_no_timeout(self) -> None:
        sock = self.Socket([b"head", b"body"])
        reader = mcp_ref._deadline_reader()(sock)
        buffer = bytearray(10)
        for part in (b"head", b"body"):
            reader.start(30.0)
            self.assertEqual(reader.readinto(buffer), 4)
            self.assertEqual(bytes(buffer[:4]), part)
        reader.stop()
        self.assertEqual(sock.timeouts, [])

    def test_a_shorter_window_bounds_each_read_and_is_undone(self) -> None:
        sock = self.Socket([b"he", b"ad", b"stall"])
        reader = mcp_ref._deadline_reader()(sock)
        reader.start(1.0)
        reader.readinto(bytearray(10))
        reader.readinto(bytearray(10))
        with self.assertRaises(mcp_ref._ReadTimeout):
            reader.readinto(bytearray(10))
        self.assertEqual(sock.timeouts[0], 1.0)
        self.assertTrue(all(0 < t <= 1.0 for t in sock.timeouts[1:]) and len(sock.timeouts) == 3, sock.timeouts)
        reader.stop()
        self.assertEqual(sock.timeouts[-1], 30.0)


class HeadReadingTest(unittest.TestCase):
    """A head already whole in the buffer is split at once (_buffered_fields),
    one readline a request rather than one a line, with the same answer as
    the rule line by line (_read_fields) for every head."""

    class Reader(io.BufferedReader):
        readlines = 0

        def readline(self, size: Optional[int] = -1) -> bytes:
            self.readlines += 1
            return super().readline(size)

    def read(self, raw: bytes) -> Tuple[Any, Any, bytes, bytes]:
        fast = self.Reader(io.BytesIO(raw))
        slow = io.BufferedReader(io.BytesIO(raw))
        slow.readline()
        head, fields = mcp_ref._read_head(fast), mcp_ref._read_fields(slow)
        return head, fields, fast.read(), slow.read()

    def test_one_readline_for_a_buffered_head(self) -> None:
        raw = b"POST /mcp HTTP/1.1\r\nHost: h\r\nContent-Length: 2\r\nMcp-Name:  add \r\n\r\n{}"
        reader = self.Reader(io.BytesIO(raw))
        self.assertEqual(mcp_ref._read_head(reader), ("POST", "/mcp", "HTTP/1.1", [
            ("Host", "h"), ("Content-Length", "2"), ("Mcp-Name", "add")]))
        self.assertEqual((reader.readlines, reader.read()), (1, b"{}"))

    def test_the_same_answer_as_line_by_line(self) -> None:
        cases = [b"Host: h\r\n\r\n", b"\r\nX: y\r\n\r\n", b"\r\n\r\n", b"Host: h\nX: y\r\n\r\n",
                 b"Host: h\r\n\nX: y\r\n\r\n", b"X-A: b\rc\r\n\r\n", b"X-A: b\r\r\n\r\n", b"X: \0\r\n\r\n",
                 b"Bad Name: x\r\n\r\n", b"X: y\r\n z\r\n\r\n", b"Caf\xe9: 1\r\n\r\n", b": x\r\n\r\n",
                 b"X:y\r\n", b"X: y\r\n\r", b"", b"X: " + b"v" * 70000 + b"\r\n\r\n"]
        cases += [b"".join(b"X-%d: v\r\n" % i for i in range(count)) + b"\r\n" for count in (98, 99, 100)]
        for fields in cases:
            with self.subTest(fields[:40]):
                head, expected, rest, expected_rest = self.read(b"GET / HTTP/1.1\r\n" + fields + b"body")
                self.assertEqual(head if isinstance(head, tuple) and len(head) == 2 else head[3], expected)
                if isinstance(expected, list):
                    self.assertEqual(rest, expected_rest)


class EnvironKeyTest(unittest.TestCase):
    def test_a_token_is_remembered_with_its_environ_key(self) -> None:
        for name, key in (("Mcp-Name", "HTTP_MCP_NAME"), ("content-type", "CONTENT_TYPE"),
                          ("Content-Length", "CONTENT_LENGTH"), ("X-Content-Type", "HTTP_X_CONTENT_TYPE")):
            self.assertTrue(mcp_ref._is_token(name))
            self.assertEqual((mcp_ref._TOKENS[name], mcp_ref._environ_key(name)), (key, key))


class SendTest(unittest.TestCase):
    """A short answer goes in one sendall; a long one through the buffered
    file, whose writes each get the socket's own timeout."""

    class Connection:
        def __init__(self) -> None:
            self.sent: List[Any] = []
            self.sock = self.wfile = self

        def sendall(self, data: bytes) -> None:
            self.sent.append(("sendall", len(data)))

        def write(self, data: bytes) -> None:
            self.sent.append(("write", len(data)))

        def flush(self) -> None:
            self.sent.append(("flush",))

    def test_short_at_once_long_through_the_file(self) -> None:
        conn = self.Connection()
        mcp_ref._HttpConnection.send(conn, b"x" * 65536)  # type: ignore[arg-type]
        mcp_ref._HttpConnection.send(conn, b"x" * 65537)  # type: ignore[arg-type]
        self.assertEqual(conn.sent, [("sendall", 65536), ("write", 65537), ("flush",)])


class DateTest(unittest.TestCase):
    def test_the_date_is_formatted_once_a_second(self) -> None:
        from unittest import mock

        with mock.patch("time.time", return_value=1767225600.5), \
                mock.patch("time.strftime", wraps=time.strftime) as strftime:
            lines = [mcp_ref._date() for _ in range(3)]
        self.assertEqual(lines, ["Date: Thu, 01 Jan 2026 00:00:00 GMT"] * 3)
        self.assertLessEqual(strftime.call_count, 1)  # (none if another test made it in that second)
        wfile = io.BytesIO()
        mcp_ref._write_response(wfile.write, "HTTP/1.1", "POST", "200 OK", [], [b"{}"], True)
        self.assertRegex(wfile.getvalue().split(b"\r\n")[1], rb"^Date: \w{3}, \d\d \w{3} \d{4} \d\d:\d\d:\d\d GMT$")


class ConnectionsInAllTest(unittest.TestCase):
    def test_connections_in_all_are_capped(self) -> None:
        served = InProcess(mcp_ref.MCPServer("t"))
        served.httpd.max_connections = 2
        held = []
        try:
            for source in ("127.0.0.1", "127.0.0.2"):
                sock = socket.socket()
                sock.settimeout(10)
                sock.bind((source, 0))
                sock.connect(("127.0.0.1", served.port))
                held.append(sock)
            time.sleep(0.3)  # (accepted: each waits for its head)
            data, closed = raw_exchange(served.port, b"")
            self.assertEqual(data.split(b"\r\n")[:2], [b"HTTP/1.1 503 Service Unavailable", b"Retry-After: 1"])
            self.assertTrue(closed)
        finally:
            for sock in held:
                sock.close()
            served.stop()


class EdgeServer(ServerProcess):
    """testdata/http_edge_server.py: stdout to a file; stderr read past the first line only if ``drain``."""

    def __init__(self, options: Optional[Dict[str, Any]] = None, drain: bool = True) -> None:
        self.stdout = tempfile.TemporaryFile()
        self.process = subprocess.Popen(python_command(EDGE_SERVER, "0", json.dumps(options or {})),
                                        stdout=self.stdout, stderr=subprocess.PIPE)
        line = self.process.stderr.readline().decode()  # type: ignore[union-attr]
        assert "serving" in line, line
        self.port = int(line.rsplit(":", 1)[1].split("/")[0])
        self.drain = threading.Thread(target=self.process.stderr.read if drain else lambda: None,  # type: ignore
                                      daemon=True)
        self.drain.start()

    def call(self, name: str, arguments: Dict[str, Any]) -> Any:
        return self.modern("tools/call", {"name": name, "arguments": arguments})

    def stop(self) -> int:
        code = super().stop()
        self.stdout.seek(0)
        self.out = self.stdout.read()
        self.stdout.close()
        return code


class ProcessEdgeTest(unittest.TestCase):
    def test_an_address_it_cannot_serve_on_leaves_the_signal_handlers_as_they_were(self) -> None:
        # The handlers go in before the socket listens (a SIGTERM may come as soon as
        # a client can connect); when it cannot listen, the program's own come back.
        import contextlib
        import io

        app = mcp_ref.MCPServer("edge").streamable_http_app()
        before = signal.getsignal(signal.SIGTERM), signal.getsignal(signal.SIGINT)
        with contextlib.redirect_stderr(io.StringIO()) as said:
            self.assertEqual(mcp_ref._serve_http(app, "192.0.2.1", 8000, exit_process=False), 2)  # TEST-NET-1
        self.assertIn("cannot serve on 192.0.2.1:8000", said.getvalue())
        self.assertEqual((signal.getsignal(signal.SIGTERM), signal.getsignal(signal.SIGINT)), before)
        app.close()

    def test_a_closed_fd_1_never_becomes_a_clients_socket(self) -> None:
        server = EdgeServer()
        try:
            self.assertEqual(server.call("close_stdout", {}).status, 200)
            other = socket.create_connection(("127.0.0.1", server.port), timeout=10)
            other.sendall(ping_request(b"Content-Length: 40"))
            self.assertEqual(other.recv(4096).split(b"\r\n")[0], b"HTTP/1.1 200 OK")
            self.assertEqual(server.call("write_stdout", {"text": "LEAKED\n"}).status, 200)
            other.sendall(ping_request(b"Content-Length: 40"))
            self.assertEqual(other.recv(4096).split(b"\r\n")[0], b"HTTP/1.1 200 OK")  # nothing before it
            other.close()
            server.call("write_stdout", {"text": "PRINTED\n"})
        finally:
            self.assertEqual(server.stop(), 0)
        self.assertEqual(server.out, b"")  # print() and fd 1 went to stderr, as on stdio

    def test_stderr_nobody_reads_never_blocks_serving(self) -> None:
        server = EdgeServer(drain=False)
        try:
            for n in range(400):  # a traceback each: about 120 fill a pipe
                reply = server.call("fails", {"text": "x" * 200})
                self.assertTrue(reply.json()["result"]["isError"], n)
        finally:
            server.process.kill()
            server.process.wait(10)
            server.process.stderr.close()  # type: ignore[union-attr]
            server.stdout.close()

    def test_sigterm_lets_a_streaming_call_finish_and_refuses_new_connections(self) -> None:
        server = EdgeServer({"sse_after": 0.2, "keepalive": 0.2})
        try:
            conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=15)
            body = {"jsonrpc": "2.0", "id": 7, "method": "tools/call",
                    "params": {"name": "waits", "arguments": {"seconds": 2.0}, "_meta": META}}  # (2: an int
            # to the core, 2.0 to the SDK's lax conversion, section 25: "waited 2" or "waited 2.0")
            conn.request("POST", "/mcp", body=json.dumps(body), headers={
                "Content-Type": "application/json", "Accept": ACCEPT, "MCP-Protocol-Version": MODERN,
                "Mcp-Method": "tools/call", "Mcp-Name": "waits"})
            response = conn.getresponse()
            self.assertEqual(response.getheader("Content-Type"), "text/event-stream")
            first = response.readline()
            server.process.send_signal(signal.SIGTERM)
            refused, deadline = False, time.monotonic() + 10
            while time.monotonic() < deadline:
                try:
                    socket.create_connection(("127.0.0.1", server.port), timeout=1).close()
                except (ConnectionRefusedError, ConnectionResetError):  # (reset: caught in the closing backlog)
                    refused = True
                    break
                time.sleep(0.02)
            self.assertTrue(refused, "new connections were still taken")
            rest = Response(200, {}, first + response.read())
            self.assertEqual(rest.events()[-1]["result"]["content"][0]["text"], "waited 2.0")
            conn.close()
            # It exits by itself; stop()'s own SIGTERM, come while run() returns
            # (the default handler back), would kill it: -15 on a loaded machine.
            self.assertEqual(server.process.wait(30), 0)
        finally:
            self.assertEqual(server.stop(), 0)


if __name__ == "__main__":
    unittest.main()
