"""Section 21, HTTP access control: the loopback bind however spelled (DNS
rebinding, basic/security_best_practices) and bearer tokens with the
protected-resource metadata (basic/authorization, "Token Handling").
"""

from tests._testing import HERE  # the repository's root

import http.client
import importlib.util
import io
import sys
import threading
import unittest
import unittest.mock
from typing import Any, Dict, List, Optional, Tuple

import mcp_ref  # noqa: E402

from tests.core.test_http import ACCEPT, InProcess, Token


sys.path.insert(0, HERE)


class LoopbackByAddressTest(unittest.TestCase):
    """basic/security_best_practices, DNS rebinding: every spelling of a loopback bind."""

    def status(self, app: Any, host: str, origin: Optional[str] = None) -> int:
        environ = {"REQUEST_METHOD": "PUT", "PATH_INFO": "/mcp", "HTTP_HOST": host}
        if origin is not None:
            environ["HTTP_ORIGIN"] = origin
        return int(app.respond(environ)[0][:3])

    def test_every_spelling_of_loopback_accepts_only_loopback_names(self) -> None:
        server = mcp_ref.MCPServer("t")
        for bind in ("127.0.0.1", "127.0.0.2", "127.1", "0:0:0:0:0:0:0:1", "::1", "[::1]", "localhost"):
            with self.subTest(bind=bind):
                app = server.streamable_http_app(host=bind)
                self.assertEqual(self.status(app, "evil.example"), 421)
                self.assertEqual(self.status(app, "evil.example:8000"), 421)
                self.assertEqual(self.status(app, "127.0.0.1:8000", "http://evil.example"), 403)
                for host in ("localhost:8000", "127.0.0.1", "[::1]:8000", "[0:0:0:0:0:0:0:1]:8000"):
                    self.assertEqual(self.status(app, host), 405, host)  # past the guard
                self.assertEqual(self.status(app, "localhost", "http://[0:0:0:0:0:0:0:1]:8000"), 405)
        own = server.streamable_http_app(host="127.0.0.2")
        self.assertEqual(self.status(own, "127.0.0.2:8000", "http://127.0.0.2:8000"), 405)
        for bind in ("0.0.0.0", "192.0.2.1"):  # not loopback: the deployment chooses (allowed_hosts)
            self.assertEqual(self.status(server.streamable_http_app(host=bind), "evil.example"), 405)

    def test_elsewhere_an_origin_must_be_the_servers_own(self) -> None:
        # basic/transports (2025-11-25; 2026-07-28 streamable-http, "Security &
        # Endpoint"): servers MUST validate the Origin header on all incoming
        # connections, and answer an invalid one 403, whatever address they serve on.
        server = mcp_ref.MCPServer("t")
        for bind in ("0.0.0.0", "192.0.2.1"):
            with self.subTest(bind=bind):
                app = server.streamable_http_app(host=bind)
                for origin in ("http://evil.example", "null", "http://192.0.2.1:9999", "https://192.0.2.1:8000x"):
                    self.assertEqual(self.status(app, "192.0.2.1:8000", origin), 403, origin)
                for host, origin in (("192.0.2.1:8000", "http://192.0.2.1:8000"), ("mcp.example.com",
                                                                                   "https://MCP.example.com")):
                    self.assertEqual(self.status(app, host, origin), 405, origin)  # its own: past the guard
                self.assertEqual(self.status(app, "192.0.2.1:8000"), 405)  # no Origin: not a browser
        listed = server.streamable_http_app(host="0.0.0.0", allowed_origins=["https://app.example"])
        self.assertEqual(self.status(listed, "192.0.2.1:8000", "https://app.example"), 405)
        self.assertEqual(self.status(listed, "192.0.2.1:8000", "http://evil.example"), 403)
        anything = server.streamable_http_app(host="0.0.0.0", allowed_hosts=["*"])  # said explicitly
        self.assertEqual(self.status(anything, "192.0.2.1:8000", "http://evil.example"), 405)

    def test_served_on_127_0_0_2(self) -> None:
        app = mcp_ref.MCPServer("t").streamable_http_app(host="127.0.0.2")
        httpd = mcp_ref._HttpServer(app, "127.0.0.2", 0)
        threading.Thread(target=httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True).start()
        try:
            for host, status in (("evil.example", 421), (f"127.0.0.2:{httpd.server_address[1]}", 200)):
                conn = http.client.HTTPConnection("127.0.0.2", httpd.server_address[1], timeout=10)
                conn.request("POST", "/mcp", body=b'{"jsonrpc":"2.0","id":1,"method":"ping"}',
                             headers={"Host": host, "Content-Type": "application/json", "Accept": ACCEPT})
                response = conn.getresponse()
                response.read()
                conn.close()
                self.assertEqual(response.status, status, host)
        finally:
            httpd.shutdown()
            app.close()
            httpd.server_close()


class Url:
    """A URL object, as pydantic's AnyHttpUrl: its str() is the URL."""

    def __init__(self, text: str) -> None:
        self.text = text

    def __str__(self) -> str:
        return self.text


class AuthSettings:
    """The SDK's AuthSettings, as far as the app reads them (its URLs may be objects)."""

    def __init__(self, resource: Any = "https://mcp.example.com/mcp", issuer: Any = "https://auth.example.com",
                 scopes: Optional[List[str]] = None, validate: Optional[bool] = None) -> None:
        self.resource_server_url, self.issuer_url, self.required_scopes = resource, issuer, scopes
        self.validate_token_resource = validate


class _BearerTokenTestShared:
    """What BearerTokenTest here and its part in tests/layers share."""

    def serve(self, tokens: Dict[str, Token], auth: AuthSettings, **options: Any) -> InProcess:
        verifier = type("Verifier", (), {"verify_token": staticmethod(tokens.get)})()
        server = mcp_ref.MCPServer("auth", token_verifier=verifier, auth=auth, **options)
        server.add_tool(lambda: "ok", name="hello")
        endpoint = InProcess(server)
        self.addCleanup(endpoint.stop)
        return endpoint

    def statuses(self, endpoint: InProcess, token: str) -> Tuple[int, int]:
        """(handshake era: initialize, 2026-07-28: tools/call) for one token."""
        bearer = {"Authorization": f"Bearer {token}"}
        init = endpoint.request("POST", {"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
            "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}},
            bearer)
        return init.status, endpoint.modern("tools/call", {"name": "hello"}, headers=bearer).status


class BearerTokenTest(_BearerTokenTestShared, unittest.TestCase):
    """basic/authorization (2025-11-25 and 2026-07-28), "Token Handling": servers
    MUST validate that access tokens were issued specifically for them as the
    intended audience (RFC 8707), the server's own resource identifier taken from
    its settings, never from a request's Host; 2026-07-28 "Step-Up Authorization
    Flow": servers MUST account for scope hierarchies; "Authorization Server
    Location": whenever tokens are verified, the metadata (RFC 9728) is served
    and every 401 names it."""

    def test_only_tokens_issued_for_this_server_are_accepted(self) -> None:
        ours = "https://mcp.example.com/mcp"
        endpoint = self.serve({
            "ours": Token([], ours), "spelled": Token([], "HTTPS://MCP.Example.COM:443/mcp/"),
            "aud": Token([], None, {"aud": ["https://other.example.com", ours]}), "aud-one": Token([], None, {
                "aud": ours}),
            "other": Token([], "https://other.example.com/mcp"), "path": Token([], "https://mcp.example.com/MCP"),
            "none": Token([]), "aud-other": Token([], None, {"aud": "https://other.example.com"}),
            "bad": Token([], "mcp.example.com/mcp"), "host": Token([]),
            "userinfo": Token([], "https://evil@mcp.example.com/mcp"),
            "spaced": Token([], " https://mcp.example.com/mcp\n"),
            "url": Token([], Url("https://mcp.example.com/mcp"))}, AuthSettings())
        # The request's own Host names this one: a check that read the Host would take it.
        endpoint.app.server.settings["token_verifier"].verify_token("host").resource = \
            f"http://127.0.0.1:{endpoint.port}/mcp"
        for name in ("ours", "spelled", "aud", "aud-one", "url"):
            with self.subTest(token=name):
                self.assertEqual(self.statuses(endpoint, name), (200, 200))
        for name in ("other", "path", "none", "aud-other", "bad", "host", "userinfo", "spaced"):
            with self.subTest(token=name):
                self.assertEqual(self.statuses(endpoint, name), (401, 401))
                refused = endpoint.modern("tools/list", headers={"Authorization": f"Bearer {name}"})
                self.assertEqual(refused.headers["www-authenticate"], 'Bearer error="invalid_token", '
                                 'error_description="Token not issued for this resource", resource_metadata='
                                 '"https://mcp.example.com/.well-known/oauth-protected-resource/mcp"')
                self.assertEqual(refused.json(), {"error": "invalid_token",
                                                  "error_description": "Token not issued for this resource"})

    def test_a_verifier_that_checks_the_audience_itself_says_so(self) -> None:
        # The SDK's AuthSettings(validate_token_resource=False): "set it to False
        # when your token verifier checks the token's audience itself".  Until
        # then a token without one is refused, and stderr says once what to set.
        checked = self.serve({"none": Token([])}, AuthSettings(validate=True))
        with unittest.mock.patch("sys.stderr", io.StringIO()) as stderr:
            self.assertEqual(self.statuses(checked, "none"), (401, 401))
        self.assertEqual(stderr.getvalue(), "mcp_ref: a token the verifier accepted names no resource (audience) and "
                                            "was refused; set its AccessToken.resource, or AuthSettings("
                                            "validate_token_resource=False) if the verifier checks the audience "
                                            "itself\n")
        endpoint = self.serve({"none": Token([])}, AuthSettings(Url("https://mcp.example.com/mcp"), Url(
            "https://auth.example.com"), validate=False))
        self.assertEqual(self.statuses(endpoint, "none"), (200, 200))
        self.assertEqual(self.statuses(endpoint, "unknown"), (401, 401))

    def test_a_broader_scope_satisfies_a_narrower_one(self) -> None:
        ours = "https://mcp.example.com/mcp"
        tokens = {name: Token(scopes, ours) for name, scopes in (
            ("read", ["files:read"]), ("files", ["files"]), ("admin", ["admin"]), ("write", ["files:write"]),
            ("none", []), ("both", ["mcp", "files:read"]))}
        hierarchy = {"admin": ["files", "mcp"], "files": ["files:read", "files:write"]}
        endpoint = self.serve(tokens, AuthSettings(scopes=["files:read"]), scope_hierarchy=hierarchy)
        for name, expected in (("read", 200), ("files", 200), ("admin", 200), ("both", 200), ("write", 403),
                               ("none", 403)):
            with self.subTest(token=name):
                self.assertEqual(self.statuses(endpoint, name), (expected, expected))
        weak = endpoint.modern("tools/list", headers={"Authorization": "Bearer write"})
        self.assertIn('scope="files:read"', weak.headers["www-authenticate"])
        # Scopes are opaque (RFC 6749 section 3.3): no hierarchy is read from their spelling.
        plain = self.serve(tokens, AuthSettings(scopes=["files:read"]))
        self.assertEqual(self.statuses(plain, "files"), (403, 403))
        self.assertEqual(self.statuses(plain, "read"), (200, 200))

    def test_the_metadata_and_the_challenge_whenever_tokens_are_verified(self) -> None:
        endpoint = self.serve({}, AuthSettings(resource="https://mcp.example.com"))
        document = endpoint.request("GET", path="/.well-known/oauth-protected-resource")
        self.assertEqual(document.json(), {"resource": "https://mcp.example.com", "authorization_servers": [
            "https://auth.example.com"], "bearer_methods_supported": ["header"]})
        for method in ("POST", "GET", "DELETE"):
            with self.subTest(method=method):
                denied = endpoint.request(method, {"jsonrpc": "2.0", "id": 1, "method": "ping"})
                self.assertEqual(denied.status, 401)
                self.assertEqual(denied.headers["www-authenticate"], 'Bearer error="invalid_token", '
                                 'error_description="Authentication required", resource_metadata='
                                 '"https://mcp.example.com/.well-known/oauth-protected-resource"')

    @unittest.skipUnless(importlib.util.find_spec("mcp") and importlib.util.find_spec("pydantic"),
                         "the official SDK (pip install 'mcp==2.3.*') is not installed; .ci/run installs it")
    def test_the_sdks_own_settings_and_access_token(self) -> None:
        import warnings

        from mcp.server.auth.provider import AccessToken
        from mcp.server.auth.settings import AuthSettings as SdkAuthSettings

        def token(resource: Optional[str]) -> Any:
            return AccessToken(token="t", client_id="app", scopes=["files"], resource=resource)

        tokens = {"ours": token("https://mcp.example.com/mcp"), "other": token("https://other.example.com/mcp"),
                  "none": token(None)}
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # validate_token_resource unset: the SDK warns that 3.0 will check
            unset = SdkAuthSettings(issuer_url="https://auth.example.com",
                                    resource_server_url="https://mcp.example.com/mcp", required_scopes=["files:read"])
        endpoint = self.serve(tokens, unset, scope_hierarchy={"files": ["files:read"]})
        self.assertEqual([self.statuses(endpoint, name) for name in ("ours", "other", "none")],
                         [(200, 200), (401, 401), (401, 401)])
        trusting = self.serve(tokens, SdkAuthSettings(
            issuer_url="https://auth.example.com", resource_server_url="https://mcp.example.com/mcp",
            validate_token_resource=False))
        self.assertEqual(self.statuses(trusting, "none"), (200, 200))


if __name__ == "__main__":
    unittest.main()
