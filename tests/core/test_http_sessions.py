"""Streamable HTTP, several clients on one app (section 19, 21, and the pool
of section 17): sessions and requestState bound to the token's principal,
idle sessions expiring on a timer, caps per client on sessions and streams
(503 with Retry-After), and the pool's fair share per client.

The WSGI app is called directly, so that each request can come from its own
peer address (REMOTE_ADDR) and its own bearer token.  Fairness is checked by
the order calls start in, never by timings.
"""

from tests._testing import HERE  # the repository's root

import dataclasses
import io
import json
import sys
import threading
import time
import unittest
from typing import Any, Dict, Iterable, List, Optional, Tuple

import mcp_ref  # noqa: E402


sys.path.insert(0, HERE)


MODERN = "2026-07-28"

ACCEPT = "application/json, text/event-stream"

INIT = {"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
    "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}}

NOT_FOUND = {"jsonrpc": "2.0", "id": None, "error": {
    "code": -32600, "message": "Session not found: it ended, or never began"}}


class Reply:
    def __init__(self, status: str, headers: List[Tuple[str, str]], body: Iterable[bytes]) -> None:
        self.status = int(status.split()[0])
        self.headers = {name.lower(): value for name, value in headers}
        self.body = body

    def json(self) -> Any:
        data = b"".join(self.body)
        self.close()
        return json.loads(data)

    def close(self) -> None:
        close = getattr(self.body, "close", None)
        if close is not None:
            close()


def request(app: Any, method: str, body: Any = None, headers: Optional[Dict[str, str]] = None,
            peer: str = "192.0.2.1") -> Reply:
    """One request to the WSGI app, from ``peer``."""
    data = b"" if body is None else json.dumps(body).encode()
    environ: Dict[str, Any] = {
        "REQUEST_METHOD": method, "PATH_INFO": "/mcp", "HTTP_HOST": "127.0.0.1:8000", "REMOTE_ADDR": peer,
        "CONTENT_TYPE": "application/json", "CONTENT_LENGTH": str(len(data)), "HTTP_ACCEPT": ACCEPT,
        "wsgi.input": io.BytesIO(data)}
    for name, value in (headers or {}).items():
        environ["HTTP_" + name.upper().replace("-", "_")] = value
    return Reply(*app.respond(environ))


def initialize(app: Any, headers: Optional[Dict[str, str]] = None, peer: str = "192.0.2.1") -> str:
    reply = request(app, "POST", INIT, headers, peer)
    assert reply.status == 200, reply.json()
    session = reply.headers["mcp-session-id"]
    request(app, "POST", {"jsonrpc": "2.0", "method": "notifications/initialized"},
            dict(headers or {}, **{"Mcp-Session-Id": session}), peer)
    return session


def modern(app: Any, method: str, params: Dict[str, Any], id_: Any = 1, headers: Optional[Dict[str, str]] = None,
           peer: str = "192.0.2.1") -> Reply:
    meta = {"io.modelcontextprotocol/protocolVersion": MODERN,
            "io.modelcontextprotocol/clientCapabilities": {"elicitation": {}}}
    standard = {"MCP-Protocol-Version": MODERN, "Mcp-Method": method}
    if method == "tools/call":
        standard["Mcp-Name"] = params["name"]
    standard.update(headers or {})
    return request(app, "POST", {"jsonrpc": "2.0", "id": id_, "method": method, "params": dict(params, _meta=meta)},
                   standard, peer)


def wait_for(condition: Any, what: str, timeout: float = 30.0) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.01)


@dataclasses.dataclass
class Name:
    name: str


RESOURCE = "http://127.0.0.1:8000/mcp"  # the server's own resource identifier: its tokens' audience


class Token:
    """The shape of the SDK's AccessToken that the app reads."""

    def __init__(self, client_id: str, subject: Optional[str]) -> None:
        self.client_id, self.subject, self.scopes, self.expires_at, self.claims = client_id, subject, [], None, None
        self.resource = RESOURCE


class Auth:
    """The SDK's AuthSettings, as far as the app reads them."""

    issuer_url, resource_server_url, required_scopes = "https://auth.example.com", RESOURCE, None


class Verifier:
    # Two users of one OAuth client: told apart by their subject, as the SDK does.
    tokens = {"alice": Token("app", "alice"), "bob": Token("app", "bob"), "carol": Token("other", None)}

    def verify_token(self, token: str) -> Optional[Token]:
        return self.tokens.get(token)


def bearer(user: str) -> Dict[str, str]:
    return {"Authorization": f"Bearer {user}"}


def auth_server() -> mcp_ref.MCPServer:
    server = mcp_ref.MCPServer("users", token_verifier=Verifier(), auth=Auth())

    @server.tool()
    async def greet(ctx: mcp_ref.Context) -> str:
        """Ask for a name (2026-07-28: one InputRequiredResult round)."""
        answer = await ctx.elicit("Your name?", Name)
        return f"hello {answer.data.name}" if answer.action == "accept" else answer.action

    return server


class PrincipalTest(unittest.TestCase):
    """basic/security_best_practices, "Session Hijacking": with a token verifier,
    a session is its user's; another user's valid token finds nothing there."""

    def setUp(self) -> None:
        self.app = auth_server().streamable_http_app()
        self.addCleanup(self.app.close)

    def test_another_user_cannot_use_stream_from_or_delete_a_session(self) -> None:
        session = initialize(self.app, bearer("alice"))
        ping = {"jsonrpc": "2.0", "id": 1, "method": "ping"}
        for user in ("bob", "carol"):
            with self.subTest(user=user):
                mine = dict(bearer(user), **{"Mcp-Session-Id": session})
                post = request(self.app, "POST", ping, mine)
                self.assertEqual((post.status, post.json()), (404, NOT_FOUND))
                get = request(self.app, "GET", None, dict(mine, Accept="text/event-stream"))
                self.assertEqual((get.status, get.json()), (404, NOT_FOUND))
                delete = request(self.app, "DELETE", None, mine)
                self.assertEqual((delete.status, delete.json()), (404, NOT_FOUND))
        own = dict(bearer("alice"), **{"Mcp-Session-Id": session})
        self.assertEqual(request(self.app, "POST", ping, own).json(), {"jsonrpc": "2.0", "id": 1, "result": {}})
        self.assertEqual(request(self.app, "DELETE", None, own).status, 200)
        self.assertEqual(request(self.app, "POST", ping, own).status, 404)

    def test_a_request_state_is_refused_to_another_user(self) -> None:
        asked = modern(self.app, "tools/call", {"name": "greet", "arguments": {}}, 1, bearer("alice")).json()
        self.assertEqual(asked["result"]["resultType"], "input_required")
        retry = {"name": "greet", "arguments": {}, "requestState": asked["result"]["requestState"],
                 "inputResponses": {"elicitation_0": {"action": "accept", "content": {"name": "Al"}}}}
        for n, user in enumerate(("bob", "carol"), 2):
            with self.subTest(user=user):
                reply = modern(self.app, "tools/call", retry, n, bearer(user))
                self.assertEqual((reply.status, reply.json()), (400, {"jsonrpc": "2.0", "id": n, "error": {
                    "code": -32602, "message": "Invalid params: requestState belongs to another request"}}))
        done = modern(self.app, "tools/call", retry, 4, bearer("alice")).json()
        self.assertEqual(done["result"]["content"], [{"type": "text", "text": "hello Al"}])


class IdleTest(unittest.TestCase):
    def test_an_idle_session_ends_on_time_not_at_the_next_initialize(self) -> None:
        app = mcp_ref.MCPServer("idle").streamable_http_app(session_idle_timeout=1.0)
        self.addCleanup(app.close)
        idle = initialize(app)
        listening = initialize(app)
        stream = request(app, "GET", None, {"Accept": "text/event-stream", "Mcp-Session-Id": listening})
        self.assertEqual(stream.status, 200)
        frames = iter(stream.body)
        self.assertEqual(next(frames), b"id: 1\nretry: 1000\ndata: \n\n")  # the priming event (2025-11-25)
        # No request comes: the timer alone ends the idle one.
        wait_for(lambda: idle not in app.sessions, "the idle session to expire")
        ping = {"jsonrpc": "2.0", "id": 1, "method": "ping"}
        self.assertEqual(request(app, "POST", ping, {"Mcp-Session-Id": idle}).status, 404)
        # A session whose GET stream is open is in use; once closed, it too expires.
        self.assertIn(listening, app.sessions)
        stream.close()
        wait_for(lambda: listening not in app.sessions, "the session whose stream closed to expire")
        self.assertEqual(app.table.owned, {})
        wait_for(lambda: app.table.sweeper is None, "the timer to stop with no session left")


class EndTest(unittest.TestCase):
    def test_deleting_a_session_fails_its_calls_open_questions(self) -> None:
        # The client that ended its session answers nothing more: a call
        # waiting on its answer ends now, not at request_timeout.
        server = mcp_ref.MCPServer("end")
        outcome: List[str] = []

        @server.tool()
        async def ask(ctx: mcp_ref.Context) -> str:
            try:
                await ctx.elicit("Your name?", Name)
            except Exception as exc:
                outcome.append(str(exc))
                raise
            return "answered"

        app = server.streamable_http_app()
        self.addCleanup(app.close)
        init = dict(INIT, params=dict(INIT["params"], capabilities={"elicitation": {}}))
        session = request(app, "POST", init).headers["mcp-session-id"]
        headers = {"Mcp-Session-Id": session}
        request(app, "POST", {"jsonrpc": "2.0", "method": "notifications/initialized"}, headers).close()
        call = request(app, "POST", {"jsonrpc": "2.0", "id": 1, "method": "tools/call",
                                     "params": {"name": "ask", "arguments": {}}}, headers)
        frames = iter(call.body)  # an SSE stream: the question comes before the response
        first = next(frames)
        while first.startswith(b":"):  # a comment (a slow machine): the question follows
            first = next(frames)
        self.assertIn(b'"method":"elicitation/create"', first)
        self.assertEqual(request(app, "DELETE", None, headers).status, 200)
        wait_for(lambda: outcome, "the question to fail")
        self.assertEqual(outcome, ["the session has ended"])
        call.close()


class ClientLimitsTest(unittest.TestCase):
    def test_sessions_per_client(self) -> None:
        app = mcp_ref.MCPServer("caps").streamable_http_app(max_sessions_per_client=2, max_sessions=3)
        self.addCleanup(app.close)
        first = initialize(app, peer="192.0.2.1")
        initialize(app, peer="192.0.2.1")
        refused = request(app, "POST", INIT, peer="192.0.2.1")
        self.assertEqual((refused.status, refused.headers["retry-after"], refused.json()), (503, "10", {
            "jsonrpc": "2.0", "id": 0, "error": {
                "code": -32603, "message": "Server busy: 2 sessions open for this client, the limit"}}))
        initialize(app, peer="192.0.2.2")  # another client is not held up by the first
        full = request(app, "POST", INIT, peer="192.0.2.3")
        self.assertEqual((full.status, full.headers["retry-after"], full.json()["error"]["message"]),
                         (503, "10", "Server busy: 3 sessions open, the limit"))
        self.assertEqual(request(app, "DELETE", None, {"Mcp-Session-Id": first}, peer="192.0.2.1").status, 200)
        initialize(app, peer="192.0.2.1")  # a slot freed

    def test_sessions_per_principal_not_per_address(self) -> None:
        app = auth_server().streamable_http_app(max_sessions_per_client=1)
        self.addCleanup(app.close)
        initialize(app, bearer("alice"))
        self.assertEqual(request(app, "POST", INIT, bearer("alice"), peer="192.0.2.9").status, 503)
        initialize(app, bearer("bob"))  # same address, another user

    def test_streams_per_client(self) -> None:
        app = mcp_ref.MCPServer("streams").streamable_http_app(max_streams_per_client=2)
        self.addCleanup(app.close)
        sessions = [initialize(app) for _ in range(3)]
        get = {"Accept": "text/event-stream"}
        streams = [request(app, "GET", None, dict(get, **{"Mcp-Session-Id": s})) for s in sessions[:2]]
        self.assertEqual([s.status for s in streams], [200, 200])
        refused = request(app, "GET", None, dict(get, **{"Mcp-Session-Id": sessions[2]}))
        self.assertEqual((refused.status, refused.headers["retry-after"], refused.json()["error"]["message"]),
                         (503, "10", "Server busy: 2 streams open by this client, the limit"))
        listen = modern(app, "subscriptions/listen", {"notifications": {"toolsListChanged": True}}, 7)
        self.assertEqual((listen.status, listen.json()["error"]["message"]),
                         (503, "Server busy: 2 streams open by this client, the limit"))
        other = request(app, "GET", None, dict(get, **{"Mcp-Session-Id": initialize(app, peer="192.0.2.2")}),
                        peer="192.0.2.2")
        self.assertEqual(other.status, 200)  # another client has its own count
        streams[0].close()
        again = request(app, "GET", None, dict(get, **{"Mcp-Session-Id": sessions[2]}))
        self.assertEqual(again.status, 200)
        for stream in (streams[1], other, again):
            stream.close()
        self.assertEqual(app.table.streaming, {})
        # A listen stream counts while open; one answered at once (an error) is
        # a whole body, sent with its Content-Length, and holds nothing.
        listen = modern(app, "subscriptions/listen", {"notifications": {"toolsListChanged": True}}, 8)
        self.assertIn(b"notifications/subscriptions/acknowledged", next(iter(listen.body)))
        self.assertEqual(app.table.streaming, {"address 192.0.2.1": 1})
        listen.close()
        refused = modern(app, "subscriptions/listen", {"notifications": 1}, 9)
        self.assertIsInstance(refused.body, list)
        self.assertEqual((refused.status, refused.json()["error"]["code"]), (400, -32602))
        self.assertEqual(app.table.streaming, {})


class FairPoolTest(unittest.TestCase):
    """Sync tools that take a Context run on the app's pool: one client's slow
    calls must not hold up another client's."""

    def test_one_clients_slow_calls_do_not_delay_anothers(self) -> None:
        server = mcp_ref.MCPServer("fair", workers=2)
        started: List[str] = []
        release = threading.Event()

        @server.tool()
        def slow(who: str, ctx: mcp_ref.Context) -> str:
            started.append(who)
            release.wait(60)
            return who

        app = server.streamable_http_app(sse_after=60)
        self.addCleanup(app.close)
        self.addCleanup(release.set)
        answers: Dict[str, Any] = {}

        def call(who: str, peer: str) -> None:
            reply = modern(app, "tools/call", {"name": "slow", "arguments": {"who": who}}, who, peer=peer)
            answers[who] = reply.json()["result"]["content"][0]["text"]

        threads = [threading.Thread(target=call, args=(f"a{n}", "192.0.2.1"), daemon=True) for n in range(6)]
        for thread in threads:
            thread.start()
        wait_for(lambda: len(started) == 2, "the first client's calls to start")
        late = threading.Thread(target=call, args=("b", "192.0.2.2"), daemon=True)
        late.start()
        # The second client's call starts while the first's four others still wait.
        wait_for(lambda: "b" in started, "the second client's call to start")
        self.assertEqual(len(started), 3)
        release.set()
        for thread in threads + [late]:
            thread.join(60)
        self.assertEqual(sorted(answers), ["a0", "a1", "a2", "a3", "a4", "a5", "b"])

    def test_waiting_calls_are_served_one_client_at_a_time(self) -> None:
        # One thread, one call at a time per client: the order calls start in
        # is round-robin over the clients with calls waiting.
        pool = mcp_ref._Workers(1, per_client=1)
        order: List[str] = []
        gate = threading.Event()
        pool.submit(lambda: order.append("x") or gate.wait(30), "x")  # type: ignore[func-returns-value]
        wait_for(lambda: order == ["x"], "the one thread to be taken")  # held while the queues fill
        for name, client in [("a1", "a"), ("a2", "a"), ("a3", "a"), ("b1", "b"), ("c1", "c"), ("b2", "b")]:
            pool.submit(lambda name=name: order.append(name), client)  # type: ignore[misc]
        gate.set()
        wait_for(lambda: len(order) == 7, "every call to run")
        self.assertEqual(order, ["x", "a1", "b1", "c1", "a2", "b2", "a3"])

    def test_a_closed_pool_runs_what_is_queued_then_its_threads_end(self) -> None:
        # An app closed (SIGTERM) or a stdio run ended: no thread is kept, and
        # nothing submitted is dropped, before close() or after it.
        pool = mcp_ref._Workers(3, per_client=1)
        ran: List[str] = []
        gate = threading.Event()
        pool.submit(lambda: gate.wait(30) and ran.append("held"), "a")  # type: ignore[func-returns-value]
        pool.submit(lambda: ran.append("queued"), "a")  # waits: client a is at its cap
        pool.close()
        gate.set()
        wait_for(lambda: len(ran) == 2 and not threads_of(pool), "the calls queued to run and the threads to end")
        pool.submit(lambda: ran.append("late"), "b")
        wait_for(lambda: len(ran) == 3 and not threads_of(pool), "the late call to run and its thread to end")
        self.assertEqual(ran, ["held", "queued", "late"])

    def test_closing_the_app_ends_its_pool(self) -> None:
        server = mcp_ref.MCPServer("closing")
        app = server.streamable_http_app()
        pool = app.workers()
        self.assertTrue(threads_of(pool))
        app.close()
        wait_for(lambda: not threads_of(pool), "the app's pool threads to end")


def threads_of(pool: Any) -> List[threading.Thread]:
    """The threads running a _Workers' loop (a thread's target while it runs)."""
    return [t for t in threading.enumerate() if getattr(getattr(t, "_target", None), "__self__", None) is pool]


if __name__ == "__main__":
    unittest.main()
