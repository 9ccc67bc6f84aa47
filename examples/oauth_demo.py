"""OAuth 2.1 on one machine: an authorization server, a protected MCP server
and a client that signs in, all standard library.

    python examples/oauth_demo.py          # all three: the client signs in, calls a tool, prints it
    python examples/oauth_demo.py serve    # the two servers only (ports 8000 and 9000), for another client:
    python -m mcp_ref call http://127.0.0.1:8000/mcp add_note text=hello --auth

The MCP server answers 401 without a token and names its authorization server
in its Protected Resource Metadata (RFC 9728); the client discovers it (RFC
8414), registers (RFC 7591), and takes the authorization code flow with PKCE
and a resource indicator (RFC 8707); the server checks each token by asking
the authorization server about it (introspection, RFC 7662) and accepts it
only if it was issued for this server and holds the scope ``notes``.

The authorization server here is a demo: it approves every request at once
(a real one asks the user to sign in and consent), keeps everything in
memory, and its introspection endpoint asks no credentials.
"""

import base64
import hashlib
import http.server
import json
import os
import secrets
import socket
import sys
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
from typing import Any, Dict, List, Optional

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # run from a checkout: find mcp_ref.py

from mcp_ref import Client, MCPServer, OAuthClientProvider  # noqa: E402

HOST = "127.0.0.1"


class AuthorizationServer:
    """Metadata, registration, authorization, tokens and introspection."""

    def __init__(self, port: int = 0) -> None:
        self.clients: Dict[str, Dict[str, Any]] = {}
        self.codes: Dict[str, Dict[str, Any]] = {}
        self.tokens: Dict[str, Dict[str, Any]] = {}  # access and refresh tokens -> what they grant
        self.httpd = http.server.ThreadingHTTPServer((HOST, port), self.handler())
        self.issuer = f"http://{HOST}:{self.httpd.server_address[1]}"
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()

    def metadata(self) -> Dict[str, Any]:  # RFC 8414
        return {"issuer": self.issuer, "authorization_endpoint": self.issuer + "/authorize",
                "token_endpoint": self.issuer + "/token", "registration_endpoint": self.issuer + "/register",
                "introspection_endpoint": self.issuer + "/introspect", "response_types_supported": ["code"],
                "grant_types_supported": ["authorization_code", "refresh_token"], "scopes_supported": ["notes"],
                "code_challenge_methods_supported": ["S256"], "token_endpoint_auth_methods_supported": ["none"]}

    def register(self, metadata: Dict[str, Any]) -> Dict[str, Any]:  # RFC 7591
        client = dict(metadata, client_id=secrets.token_urlsafe(12), token_endpoint_auth_method="none")
        self.clients[client["client_id"]] = client
        return client

    def authorize(self, query: Dict[str, str]) -> str:
        """The redirect back to the client: approved at once (a real server asks the user first)."""
        client = self.clients.get(query.get("client_id", ""))
        if client is None or query.get("redirect_uri") not in client.get("redirect_uris", []):
            raise ValueError("unknown client or redirect_uri")  # never redirect to an unregistered address
        if query.get("response_type") != "code" or query.get("code_challenge_method") != "S256":
            raise ValueError("the code flow with PKCE S256 only")
        code = secrets.token_urlsafe(16)
        self.codes[code] = {"client_id": client["client_id"], "redirect_uri": query["redirect_uri"],
                            "challenge": query.get("code_challenge"), "scope": query.get("scope") or "notes",
                            "resource": query.get("resource"), "expires": time.time() + 60}
        back = {"code": code, "state": query.get("state", ""), "iss": self.issuer}  # iss: RFC 9207
        return query["redirect_uri"] + "?" + urllib.parse.urlencode(back)

    def token(self, form: Dict[str, str]) -> Dict[str, Any]:
        if form.get("grant_type") == "authorization_code":
            grant = self.codes.pop(form.get("code", ""), None)  # a code is used once
            verifier = form.get("code_verifier", "").encode()
            challenge = base64.urlsafe_b64encode(hashlib.sha256(verifier).digest()).rstrip(b"=").decode()
            if grant is None or grant["expires"] < time.time() or grant["challenge"] != challenge or \
                    grant["client_id"] != form.get("client_id") or grant["redirect_uri"] != form.get("redirect_uri"):
                raise ValueError("invalid_grant")
        elif form.get("grant_type") == "refresh_token":
            grant = self.tokens.get(form.get("refresh_token", ""))
            if grant is None or not grant.get("refresh"):
                raise ValueError("invalid_grant")
        else:
            raise ValueError("unsupported_grant_type")
        access, refresh = secrets.token_urlsafe(24), secrets.token_urlsafe(24)
        granted = {"client_id": grant["client_id"], "scope": grant["scope"], "resource": grant["resource"],
                   "sub": "demo-user", "exp": int(time.time()) + 3600}
        self.tokens[access], self.tokens[refresh] = granted, dict(granted, refresh=True)
        return {"access_token": access, "token_type": "Bearer", "expires_in": 3600, "refresh_token": refresh,
                "scope": grant["scope"]}

    def introspect(self, token: str) -> Dict[str, Any]:  # RFC 7662
        granted = self.tokens.get(token)
        if granted is None or granted.get("refresh") or granted["exp"] < time.time():
            return {"active": False}
        return dict(granted, active=True, aud=granted["resource"])

    def handler(self) -> Any:
        server = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def reply(self, status: int, body: Any = None, location: Optional[str] = None) -> None:
                data = json.dumps(body).encode() if body is not None else b""
                self.send_response(status)
                if location:
                    self.send_header("Location", location)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def do_GET(self) -> None:  # noqa: N802
                path, _, query = self.path.partition("?")
                if path == "/.well-known/oauth-authorization-server":
                    return self.reply(200, server.metadata())
                if path == "/authorize":
                    try:
                        return self.reply(302, location=server.authorize(dict(urllib.parse.parse_qsl(query))))
                    except ValueError as error:
                        return self.reply(400, {"error": "invalid_request", "error_description": str(error)})
                self.reply(404, {"error": "not_found"})

            def do_POST(self) -> None:  # noqa: N802
                body = self.rfile.read(int(self.headers.get("Content-Length") or 0)).decode()
                try:
                    if self.path == "/register":
                        return self.reply(201, server.register(json.loads(body)))
                    form = dict(urllib.parse.parse_qsl(body))
                    if self.path == "/token":
                        return self.reply(200, server.token(form))
                    if self.path == "/introspect":
                        return self.reply(200, server.introspect(form.get("token", "")))
                except ValueError as error:
                    return self.reply(400, {"error": str(error)})
                self.reply(404, {"error": "not_found"})

            def log_message(self, *args: Any) -> None:
                pass

        return Handler


class Settings:
    """The SDK's AuthSettings, as far as the MCP server reads them."""

    def __init__(self, issuer_url: str, resource_server_url: str) -> None:
        self.issuer_url, self.resource_server_url, self.required_scopes = issuer_url, resource_server_url, ["notes"]


class Introspected:
    """The SDK's AccessToken, as far as the MCP server reads it."""

    def __init__(self, answer: Dict[str, Any]) -> None:
        self.client_id, self.subject, self.scopes = answer["client_id"], answer["sub"], answer["scope"].split()
        self.expires_at, self.resource, self.claims = answer["exp"], answer["aud"], answer


class IntrospectingVerifier:
    """A token is what the authorization server says it is (RFC 7662)."""

    def __init__(self, introspection_endpoint: str) -> None:
        self.endpoint = introspection_endpoint

    def verify_token(self, token: str) -> Optional[Introspected]:
        form = urllib.parse.urlencode({"token": token}).encode()
        with urllib.request.urlopen(self.endpoint, form, timeout=10) as response:
            answer = json.load(response)
        return Introspected(answer) if answer.get("active") else None


def protected_server(issuer: str, url: str) -> MCPServer:
    mcp = MCPServer("notes", auth=Settings(issuer, url), token_verifier=IntrospectingVerifier(issuer + "/introspect"))
    notes: List[str] = []

    @mcp.tool()
    def add_note(text: str) -> List[str]:
        """Keep a note; the notes so far."""
        notes.append(text)
        return notes

    return mcp


class _NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args: Any, **kwargs: Any) -> None:
        return None


def approve(authorization_url: str) -> str:
    """What the user's browser does here: open the authorization page and come
    back with the redirect (the callback URL, with the code and the state)."""
    try:
        urllib.request.build_opener(_NoRedirect).open(authorization_url, timeout=10).close()
    except urllib.error.HTTPError as error:
        if error.code == 302:
            return str(error.headers["Location"])
        raise
    raise RuntimeError("the authorization server did not redirect")


def serve(mcp_port: int = 0, as_port: int = 0) -> Any:
    """Both servers, on threads; the MCP endpoint's URL and the two servers."""
    auth = AuthorizationServer(as_port)
    probe = socket.socket()
    probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # as the server's own socket: free again at once
    probe.bind((HOST, mcp_port))
    port = probe.getsockname()[1]
    probe.close()
    url = f"http://{HOST}:{port}/mcp"
    mcp = protected_server(auth.issuer, url)
    threading.Thread(target=mcp.run, kwargs={"transport": "streamable-http", "host": HOST, "port": port},
                     daemon=True).start()
    for _ in range(200):  # until it listens (off the main thread, run() serves until the process ends)
        try:
            urllib.request.urlopen(url, timeout=1)
        except urllib.error.HTTPError:  # (401: it is there)
            break
        except OSError:
            time.sleep(0.05)
    return url, auth


def main() -> int:
    if sys.argv[1:2] == ["serve"]:  # (serve MCP_PORT AS_PORT: other ports; 0: any free one)
        url, auth = serve(*(int(port) for port in sys.argv[2:4] or (8000, 9000)))
        print(f"MCP server at {url}, its authorization server at {auth.issuer} (Ctrl-C ends both)", flush=True)
        threading.Event().wait()
    url, _ = serve()
    provider = OAuthClientProvider(redirect_uri="http://127.0.0.1:3000/callback", redirect_handler=approve)
    with Client(url, auth=provider) as client:
        result = client.call_tool("add_note", {"text": "signed in"})
    print(json.dumps(result["structuredContent"]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
