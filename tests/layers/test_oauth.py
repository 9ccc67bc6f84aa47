"""Section 33, the client's OAuth 2.1: OAuthClientProvider against a small
authorization server and protected resource written here (http.server on
127.0.0.1, an ephemeral port), driven as the client drives it: ``unauthorized``
with the resource's challenge, then ``headers``.  Each request the provider
makes is recorded and asserted, in order; so are the refusals (state, iss,
issuer, resource, the retry limit).
"""

from tests._testing import HERE  # the repository's root

import base64
import hashlib
import http.server
import json
import os
import random
import subprocess
import sys
import threading
import time
import unittest
import urllib.error
import urllib.parse
import urllib.request
from typing import Any, Dict, List, Optional, Tuple
from unittest import mock

import mcp_ref  # noqa: E402
from mcp_ref import OAuthClientProvider, OAuthFlowError  # noqa: E402


sys.path.insert(0, HERE)


REDIRECT = "http://127.0.0.1:3000/callback"


class Fake:
    """One loopback server playing the MCP server's metadata (RFC 9728) and
    its authorization server (RFC 8414, RFC 7591, OAuth 2.1), as ``options``
    say.  ``log`` keeps (method, path, fields, Authorization header)."""

    DEFAULTS: Dict[str, Any] = {
        "prm": "path",  # where the protected resource metadata is: path, root, custom or None
        "prm_resource": None,  # overrides the resource it names
        "prm_scopes": None,
        "as_path": "",
        "metadata": "oauth",  # oauth, openid-inserted, openid-appended or None
        "issuer": None,  # overrides the metadata's issuer
        "methods": ["client_secret_basic", "client_secret_post", "none"],
        "as_scopes": None,
        "cimd": None,
        "registration": True,
        "iss_supported": True,
        "iss": "correct",  # correct, wrong, omit, normalized
        "state": "echo",  # echo, wrong
        "refresh": False,
        "expires_in": 3600,
        "register_answer": {},
        "pkce": ["S256"],  # code_challenge_methods_supported, None to omit it
        "metadata_extra": {},  # merged into the authorization server's metadata
        "token_answer": None,  # replaces the token endpoint's answer
        "raw": {},  # path -> (status, body bytes), sent as they are
    }

    def __init__(self, **options: Any) -> None:
        self.options = dict(self.DEFAULTS, **options)
        self.log: List[Tuple[str, str, Dict[str, Any], Optional[str]]] = []
        self.tokens = 0
        self.challenge: Optional[str] = None
        fake = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                fake.answer(self, "GET")

            def do_POST(self) -> None:
                fake.answer(self, "POST")

            def log_message(self, *args: Any) -> None:
                pass

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.handle_error = lambda request, address: None  # type: ignore[method-assign]  # a client's reset is the test's
        self.base = f"http://127.0.0.1:{self.server.server_address[1]}"
        self.url = self.base + "/mcp"
        self.issuer = self.base + self.options["as_path"]
        threading.Thread(target=self.server.serve_forever, args=(0.05,), daemon=True).start()

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()

    def paths(self) -> List[str]:
        return [f"{method} {path}" for method, path, _, _ in self.log]

    def fields(self, path: str) -> List[Dict[str, Any]]:
        return [fields for _, p, fields, _ in self.log if p == path]

    def answer(self, handler: http.server.BaseHTTPRequestHandler, method: str) -> None:
        path, _, query = handler.path.partition("?")
        body = handler.rfile.read(int(handler.headers.get("Content-Length") or 0))
        if handler.headers.get("Content-Type") == "application/json":
            fields: Dict[str, Any] = json.loads(body)
        else:
            fields = dict(urllib.parse.parse_qsl(query or body.decode()))
        self.log.append((method, path, fields, handler.headers.get("Authorization")))
        if path in self.options["raw"]:
            status, raw = self.options["raw"][path]
            handler.send_response(status)
            handler.send_header("Content-Length", str(len(raw)))
            handler.end_headers()
            handler.wfile.write(raw)
            return
        status, headers, answer = self.route(method, path, fields)
        handler.send_response(status)
        for name, value in headers.items():
            handler.send_header(name, value)
        data = json.dumps(answer).encode() if answer is not None else b""
        handler.send_header("Content-Length", str(len(data)))
        handler.end_headers()
        handler.wfile.write(data)

    def route(self, method: str, path: str, fields: Dict[str, Any]) -> Tuple[int, Dict[str, str], Any]:
        o, p = self.options, self.options["as_path"]
        prm_paths = {"path": "/.well-known/oauth-protected-resource/mcp",
                     "root": "/.well-known/oauth-protected-resource", "custom": "/custom/prm.json"}
        metadata_paths = {"oauth": "/.well-known/oauth-authorization-server" + p,
                          "openid-inserted": "/.well-known/openid-configuration" + p,
                          "openid-appended": p + "/.well-known/openid-configuration"}
        if method == "GET" and o["prm"] and path == prm_paths[o["prm"]]:
            prm = {"resource": o["prm_resource"] or (self.base if o["prm"] == "root" else self.url),
                   "authorization_servers": [self.issuer]}
            if o["prm_scopes"] is not None:
                prm["scopes_supported"] = o["prm_scopes"]
            return 200, {}, prm
        if method == "GET" and o["metadata"] and path == metadata_paths[o["metadata"]]:
            return 200, {}, self.metadata()
        if method == "GET" and path == p + "/authorize":
            return 302, {"Location": self.callback(fields)}, None
        if method == "POST" and path == p + "/token":
            return self.token(fields)
        if method == "POST" and path == p + "/register" and o["registration"]:
            return 201, {}, dict({"client_id": "dynamic-client", "client_secret": "dynamic-secret"},
                                 **o["register_answer"])
        return 404, {}, {"error": "not_found"}

    def metadata(self) -> Dict[str, Any]:
        o, p = self.options, self.issuer
        metadata = {"issuer": o["issuer"] or self.issuer, "authorization_endpoint": p + "/authorize",
                    "token_endpoint": p + "/token", "response_types_supported": ["code"],
                    "token_endpoint_auth_methods_supported": o["methods"]}
        if o["pkce"] is not None:
            metadata["code_challenge_methods_supported"] = o["pkce"]
        if o["registration"]:
            metadata["registration_endpoint"] = p + "/register"
        for key, option in (("scopes_supported", "as_scopes"), ("client_id_metadata_document_supported", "cimd"),
                            ("authorization_response_iss_parameter_supported", "iss_supported")):
            if o[option] is not None:
                metadata[key] = o[option]
        return dict(metadata, **o["metadata_extra"])

    def callback(self, query: Dict[str, Any]) -> str:
        o = self.options
        answer = {"code": "the-code", "state": query["state"] if o["state"] == "echo" else "forged"}
        answer["iss"] = {"correct": self.issuer, "wrong": "https://evil.example.com", "omit": None,
                         "normalized": self.issuer + "/"}[o["iss"]]
        self.challenge = query.get("code_challenge")
        return query["redirect_uri"] + "?" + urllib.parse.urlencode({k: v for k, v in answer.items() if v})

    def token(self, form: Dict[str, Any]) -> Tuple[int, Dict[str, str], Any]:
        if form["grant_type"] == "authorization_code":
            verifier = hashlib.sha256(form["code_verifier"].encode()).digest()
            if base64.urlsafe_b64encode(verifier).rstrip(b"=").decode() != self.challenge:
                return 400, {}, {"error": "invalid_grant"}
        if form["grant_type"] == "refresh_token" and form["refresh_token"] == "revoked":
            return 400, {}, {"error": "invalid_grant"}
        self.tokens += 1
        answer = {"access_token": f"token-{self.tokens}", "token_type": "Bearer",
                  "expires_in": self.options["expires_in"]}
        if self.options["refresh"] and form["grant_type"] != "refresh_token":
            answer["refresh_token"] = f"refresh-{self.tokens}"
        if self.options["token_answer"] is not None:
            answer = self.options["token_answer"]
        return 200, {"Cache-Control": "no-store"}, answer


class _NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args: Any, **kwargs: Any) -> None:
        return None


def follow(url: str) -> str:
    """The redirect hook of these tests: the authorization server's redirect,
    followed without a browser."""
    try:
        urllib.request.build_opener(_NoRedirect).open(url, timeout=30).close()
    except urllib.error.HTTPError as error:
        return str(error.headers["Location"])
    raise AssertionError("no redirect")


def bearer(fake: Fake, **params: str) -> str:
    params.setdefault("resource_metadata", fake.base + "/.well-known/oauth-protected-resource/mcp")
    return "Bearer " + ", ".join(f'{k}="{v}"' for k, v in params.items())


class OAuthTest(unittest.TestCase):
    def fake(self, **options: Any) -> Fake:
        fake = Fake(**options)
        self.addCleanup(fake.close)
        return fake

    def provider(self, fake: Fake, **options: Any) -> OAuthClientProvider:
        options.setdefault("redirect_uri", REDIRECT)
        options.setdefault("redirect_handler", follow)
        return OAuthClientProvider(fake.url, **options)


class DiscoveryTest(OAuthTest):
    """RFC 9728 then RFC 8414 (basic/authorization, "Authorization Server Discovery")."""

    def test_the_whole_flow_from_the_challenge(self) -> None:
        fake = self.fake(prm="custom")
        auth = self.provider(fake)
        self.assertEqual(auth.headers(fake.url), {})
        challenge = bearer(fake, resource_metadata=fake.base + "/custom/prm.json")
        self.assertTrue(auth.unauthorized(fake.url, 401, challenge))
        self.assertEqual(auth.headers(fake.url), {"Authorization": "Bearer token-1"})
        self.assertEqual(fake.paths(), ["GET /custom/prm.json", "GET /.well-known/oauth-authorization-server",
                                        "POST /register", "GET /authorize", "POST /token"])

    def test_well_known_uris_path_first_then_root(self) -> None:
        fake = self.fake(prm="root")
        auth = self.provider(fake)
        self.assertTrue(auth.unauthorized(fake.url, 401, 'Bearer error="invalid_token"'))
        self.assertEqual(fake.paths()[:3], ["GET /.well-known/oauth-protected-resource/mcp",
                                            "GET /.well-known/oauth-protected-resource",
                                            "GET /.well-known/oauth-authorization-server"])
        # The root's resource is the origin: it covers /mcp, and is the resource indicator (RFC 8707).
        self.assertEqual(fake.fields("/authorize")[0]["resource"], fake.base)

    def test_issuer_with_a_path_rfc_8414_then_openid_inserted_then_appended(self) -> None:
        for metadata, tried in (("openid-inserted", 2), ("openid-appended", 3)):
            with self.subTest(metadata):
                fake = self.fake(as_path="/tenant1", metadata=metadata)
                self.assertTrue(self.provider(fake).unauthorized(fake.url, 401, bearer(fake)))
                self.assertEqual(fake.paths()[1:1 + tried], [
                    "GET /.well-known/oauth-authorization-server/tenant1",
                    "GET /.well-known/openid-configuration/tenant1",
                    "GET /tenant1/.well-known/openid-configuration"][:tried])
                self.assertNotIn("GET /.well-known/oauth-authorization-server", fake.paths())

    def test_issuer_without_a_path_openid_after_rfc_8414(self) -> None:
        fake = self.fake(metadata="openid-inserted")
        self.assertTrue(self.provider(fake).unauthorized(fake.url, 401, bearer(fake)))
        self.assertEqual(fake.paths()[1:3], ["GET /.well-known/oauth-authorization-server",
                                             "GET /.well-known/openid-configuration"])

    def test_without_resource_metadata_the_server_is_its_own_authorization_server(self) -> None:
        # 2025-03-26: the metadata at the server's origin, else the default endpoints there.
        for metadata, tried in (("oauth", ["GET /.well-known/oauth-authorization-server"]),
                                (None, ["GET /.well-known/oauth-authorization-server",
                                        "GET /.well-known/openid-configuration"])):
            with self.subTest(metadata):
                fake = self.fake(prm=None, metadata=metadata)
                self.assertTrue(self.provider(fake).unauthorized(fake.url, 401, 'Bearer realm="mcp"'))
                self.assertEqual(fake.paths(), ["GET /.well-known/oauth-protected-resource/mcp",
                                                "GET /.well-known/oauth-protected-resource"] + tried
                                 + ["POST /register", "GET /authorize", "POST /token"])
                self.assertEqual(fake.fields("/authorize")[0]["resource"], fake.url)

    def test_no_metadata_with_resource_metadata_is_refused(self) -> None:
        fake = self.fake(as_path="/tenant1", metadata="oauth")
        fake.issuer = fake.base + "/elsewhere"
        with self.assertRaises(OAuthFlowError) as caught:
            self.provider(fake).unauthorized(fake.url, 401, bearer(fake))
        self.assertEqual(str(caught.exception), f"no authorization server metadata for {fake.base}/elsewhere "
                                                "(RFC 8414, OpenID Connect Discovery)")

    def test_metadata_naming_another_issuer_is_refused(self) -> None:
        fake = self.fake(issuer="https://attacker.example.com")
        with self.assertRaises(OAuthFlowError) as caught:
            self.provider(fake).unauthorized(fake.url, 401, bearer(fake))
        self.assertEqual(str(caught.exception), (
            f"the metadata at {fake.base}/.well-known/oauth-authorization-server names issuer "
            f"'https://attacker.example.com', not '{fake.base}' (RFC 8414 section 3.3)"))
        self.assertEqual(fake.paths(), ["GET /.well-known/oauth-protected-resource/mcp",
                                        "GET /.well-known/oauth-authorization-server"])

    def test_metadata_for_another_resource_is_refused(self) -> None:
        fake = self.fake(prm_resource="https://evil.example.com/mcp")
        with self.assertRaises(OAuthFlowError) as caught:
            self.provider(fake).unauthorized(fake.url, 401, bearer(fake))
        self.assertEqual(str(caught.exception), (
            f"protected resource metadata names resource 'https://evil.example.com/mcp', "
            f"not '{fake.url}' (RFC 9728 section 3.3)"))
        self.assertEqual(fake.paths(), ["GET /.well-known/oauth-protected-resource/mcp"])

    def test_a_sibling_path_is_another_resource(self) -> None:
        fake = self.fake(prm_resource="PLACEHOLDER")
        fake.options["prm_resource"] = fake.base + "/mc"
        with self.assertRaises(OAuthFlowError):
            self.provider(fake).unauthorized(fake.url, 401, bearer(fake))

    def test_tokens_go_to_their_server_only(self) -> None:
        fake = self.fake()
        auth = self.provider(fake)
        auth.unauthorized(fake.url, 401, bearer(fake))
        self.assertEqual(auth.headers("http://127.0.0.2:1/mcp"), {})
        self.assertEqual(auth.headers(fake.base + "/other"), {"Authorization": "Bearer token-1"})


class RegistrationTest(OAuthTest):
    """basic/authorization, "Client Registration Approaches": pre-registered,
    then Client ID Metadata Documents, then RFC 7591."""

    def test_dynamic_registration_sends_our_metadata(self) -> None:
        fake = self.fake()
        self.provider(fake, client_metadata={"client_name": "my agent"}).unauthorized(fake.url, 401, bearer(fake))
        self.assertEqual(fake.fields("/register"), [{
            "client_name": "my agent", "redirect_uris": [REDIRECT], "application_type": "native",
            "grant_types": ["authorization_code", "refresh_token"], "response_types": ["code"],
            "token_endpoint_auth_method": "client_secret_basic"}])

    def test_client_id_metadata_document_when_supported(self) -> None:
        cimd = "https://app.example.com/client.json"
        for supported, client_id in ((True, cimd), (None, "dynamic-client")):
            with self.subTest(supported=supported):
                fake = self.fake(cimd=supported)
                self.provider(fake, client_metadata_url=cimd).unauthorized(fake.url, 401, bearer(fake))
                self.assertEqual(fake.fields("/authorize")[0]["client_id"], client_id)
                self.assertEqual("POST /register" in fake.paths(), supported is None)

    def test_pre_registered_client_first(self) -> None:
        fake = self.fake(cimd=True)
        auth = self.provider(fake, client_id="pre", client_secret="s3cret", client_metadata_url="https://a.example/c")
        auth.unauthorized(fake.url, 401, bearer(fake))
        self.assertNotIn("POST /register", fake.paths())
        self.assertEqual(fake.fields("/authorize")[0]["client_id"], "pre")

    def test_no_way_to_register(self) -> None:
        fake = self.fake(registration=False)
        with self.assertRaises(OAuthFlowError) as caught:
            self.provider(fake).unauthorized(fake.url, 401, bearer(fake))
        self.assertEqual(str(caught.exception), (
            f"the authorization server {fake.base} supports neither dynamic registration nor Client ID "
            "Metadata Documents: pass client_id (and client_secret)"))

    def test_storage_keeps_the_registration_bound_to_its_issuer(self) -> None:
        fake = self.fake()
        storage = mock.Mock(**{"get_tokens.return_value": None, "get_client_info.return_value": None})
        self.provider(fake, storage=storage).unauthorized(fake.url, 401, bearer(fake))
        storage.set_client_info.assert_called_once_with(
            {"client_id": "dynamic-client", "client_secret": "dynamic-secret", "issuer": fake.base})
        tokens = storage.set_tokens.call_args[0][0]
        self.assertEqual((tokens["access_token"], tokens["expires_in"]), ("token-1", 3600))
        self.assertIsInstance(tokens["expires_at"], float)

    def test_a_new_authorization_server_means_a_new_registration(self) -> None:
        first, second = self.fake(), self.fake()
        auth = self.provider(first)
        auth.unauthorized(first.url, 401, bearer(first))
        # The resource now names another authorization server (SEP-2352).
        first.issuer = second.issuer
        self.assertTrue(auth.unauthorized(first.url, 401, bearer(first)))
        self.assertEqual(second.paths(), ["GET /.well-known/oauth-authorization-server", "POST /register",
                                          "GET /authorize", "POST /token"])
        self.assertEqual(auth.headers(first.url), {"Authorization": "Bearer token-1"})
        self.assertEqual(second.fields("/authorize")[0]["client_id"], "dynamic-client")
        self.assertEqual(auth.storage.get_client_info()["issuer"], second.issuer)


class AuthorizationCodeTest(OAuthTest):
    """OAuth 2.1 section 4.1 with PKCE S256, RFC 8707, RFC 9207."""

    def test_requests_carry_pkce_state_and_resource(self) -> None:
        fake = self.fake(prm_scopes=["mcp:read"])
        self.provider(fake).unauthorized(fake.url, 401, bearer(fake))
        query = fake.fields("/authorize")[0]
        self.assertEqual(sorted(query), ["client_id", "code_challenge", "code_challenge_method", "redirect_uri",
                                         "resource", "response_type", "scope", "state"])
        self.assertEqual((query["response_type"], query["code_challenge_method"], query["resource"], query["scope"]),
                         ("code", "S256", fake.url, "mcp:read"))
        self.assertEqual(len(query["state"]), 43)
        form = fake.fields("/token")[0]
        self.assertEqual({k: form[k] for k in ("grant_type", "code", "redirect_uri", "resource")},
                         {"grant_type": "authorization_code", "code": "the-code", "redirect_uri": REDIRECT,
                          "resource": fake.url})
        self.assertEqual(len(form["code_verifier"]), 43)

    def test_state_mismatch_is_refused(self) -> None:
        fake = self.fake(state="wrong")
        with self.assertRaises(OAuthFlowError) as caught:
            self.provider(fake).unauthorized(fake.url, 401, bearer(fake))
        self.assertEqual(str(caught.exception),
                         "the authorization response's state is not the one sent (OAuth 2.1 section 7.12)")
        self.assertNotIn("POST /token", fake.paths())

    def test_iss(self) -> None:
        wrong = "the authorization response's iss {!r} is not the issuer {!r} (RFC 9207 section 2.4)"
        missing = "the authorization response has no iss, which its server advertises (RFC 9207)"
        for supported, iss, refusal in ((True, "correct", None), (None, "omit", None), (False, "omit", None),
                                        (True, "omit", missing), (True, "wrong", wrong), (None, "wrong", wrong),
                                        (True, "normalized", wrong)):
            with self.subTest(supported=supported, iss=iss):
                fake = self.fake(iss_supported=supported, iss=iss)
                auth = self.provider(fake)
                if refusal is None:
                    self.assertTrue(auth.unauthorized(fake.url, 401, bearer(fake)))
                    self.assertIn("POST /token", fake.paths())
                    continue
                with self.assertRaises(OAuthFlowError) as caught:
                    auth.unauthorized(fake.url, 401, bearer(fake))
                sent = {"wrong": "https://evil.example.com", "normalized": fake.issuer + "/"}.get(iss)
                self.assertEqual(str(caught.exception), refusal.format(sent, fake.issuer))
                self.assertNotIn("POST /token", fake.paths())

    def test_an_error_answer_is_refused(self) -> None:
        fake = self.fake()
        auth = self.provider(fake, redirect_handler=lambda url: "?error=access_denied&error_description=no")
        with self.assertRaises(OAuthFlowError) as caught:
            auth.unauthorized(fake.url, 401, bearer(fake))
        self.assertEqual(str(caught.exception), "the authorization server answered access_denied: no")

    def test_the_hook_may_return_a_mapping_or_a_query(self) -> None:
        for shape in (lambda url: dict(urllib.parse.parse_qsl(urllib.parse.urlsplit(follow(url)).query)),
                      lambda url: urllib.parse.urlsplit(follow(url)).query):
            fake = self.fake()
            self.assertTrue(self.provider(fake, redirect_handler=shape).unauthorized(fake.url, 401, bearer(fake)))

    def test_default_redirect_a_loopback_server_and_the_browser(self) -> None:
        fake = self.fake()
        opened: List[str] = []

        def browser(url: str) -> bool:
            opened.append(url)
            # The browser follows the redirect to our callback server.
            threading.Thread(target=lambda: urllib.request.urlopen(url, timeout=30).read(), daemon=True).start()
            return True

        auth = OAuthClientProvider(fake.url)
        with mock.patch("webbrowser.open", browser):
            self.assertTrue(auth.unauthorized(fake.url, 401, bearer(fake)))
        redirect_uri = fake.fields("/authorize")[0]["redirect_uri"]
        self.assertRegex(redirect_uri, r"^http://127\.0\.0\.1:\d+/callback$")
        self.assertEqual(fake.fields("/register")[0]["redirect_uris"], [redirect_uri])
        self.assertEqual(len(opened), 1)
        self.assertEqual(auth.headers(fake.url), {"Authorization": "Bearer token-1"})

    def test_a_redirect_hook_needs_its_redirect_uri(self) -> None:
        with self.assertRaises(ValueError):
            OAuthClientProvider("http://127.0.0.1:1/mcp", redirect_handler=follow)


class TokenEndpointTest(OAuthTest):
    """Client authentication at the token endpoint (OAuth 2.1 section 2.4.1),
    refresh (section 4.3) and client credentials (section 4.2)."""

    def token_request(self, fake: Fake) -> Tuple[Dict[str, Any], Optional[str]]:
        return next((fields, authorization) for _, path, fields, authorization in fake.log if path == "/token")

    def test_methods_as_the_metadata_allows(self) -> None:
        basic = "Basic " + base64.b64encode(b"pre%3Aid:s%26cret").decode()
        for methods, authorization, body in (
                (["client_secret_basic"], basic, None),
                (["client_secret_post"], None, "s&cret"),
                (["none"], None, None),
                (None, basic, None)):  # RFC 8414: client_secret_basic by default
            with self.subTest(methods):
                fake = self.fake(methods=methods)
                self.provider(fake, client_id="pre:id", client_secret="s&cret").unauthorized(
                    fake.url, 401, bearer(fake))
                form, sent = self.token_request(fake)
                self.assertEqual((sent, form.get("client_secret")), (authorization, body))
                self.assertEqual(form.get("client_id"), None if authorization else "pre:id")

    def test_the_registered_method_wins(self) -> None:
        fake = self.fake(register_answer={"token_endpoint_auth_method": "client_secret_post"})
        self.provider(fake).unauthorized(fake.url, 401, bearer(fake))
        form, sent = self.token_request(fake)
        self.assertEqual((sent, form["client_id"], form["client_secret"]),
                         (None, "dynamic-client", "dynamic-secret"))

    def test_signed_methods_are_left_to_a_hook(self) -> None:
        fake = self.fake(methods=["private_key_jwt"])
        with self.assertRaises(OAuthFlowError) as caught:
            self.provider(fake, client_id="c", token_endpoint_auth_method="private_key_jwt").unauthorized(
                fake.url, 401, bearer(fake))
        self.assertEqual(str(caught.exception), "token endpoint authentication 'private_key_jwt' needs a signature: "
                                                "wrap OAuthClientProvider to add it (private_key_jwt, DPoP)")

    def test_an_expired_token_is_refreshed_before_the_request(self) -> None:
        fake = self.fake(refresh=True, expires_in=0)
        auth = self.provider(fake)
        auth.unauthorized(fake.url, 401, bearer(fake))
        self.assertEqual(auth.headers(fake.url), {"Authorization": "Bearer token-2"})
        form = fake.fields("/token")[1]
        self.assertEqual({k: form[k] for k in ("grant_type", "refresh_token", "resource")},
                         {"grant_type": "refresh_token", "refresh_token": "refresh-1", "resource": fake.url})
        # The answer had no refresh token: the old one is kept.
        self.assertEqual(auth.storage.get_tokens()["refresh_token"], "refresh-1")

    def test_a_refused_refresh_falls_back_to_authorizing(self) -> None:
        fake = self.fake(refresh=True, expires_in=0)
        auth = self.provider(fake)
        auth.unauthorized(fake.url, 401, bearer(fake))
        auth.storage.set_tokens(dict(auth.storage.get_tokens(), refresh_token="revoked"))
        # Before the request the tokens stay (the failure may be the network's): the server decides.
        self.assertEqual(auth.headers(fake.url), {"Authorization": "Bearer token-1"})
        self.assertEqual(auth.storage.get_tokens()["refresh_token"], "revoked")
        self.assertTrue(auth.unauthorized(fake.url, 401, bearer(fake)))
        self.assertEqual([f["grant_type"] for f in fake.fields("/token")],
                         ["authorization_code", "refresh_token", "refresh_token", "authorization_code"])
        self.assertEqual(auth.storage.get_tokens()["access_token"], "token-2")

    def test_client_credentials(self) -> None:
        fake = self.fake(prm_scopes=["mcp:basic"], methods=["client_secret_basic"])
        auth = OAuthClientProvider(fake.url, grant_type="client_credentials", client_id="svc", client_secret="pw")
        self.assertTrue(auth.unauthorized(fake.url, 401, bearer(fake)))
        self.assertNotIn("GET /authorize", fake.paths())
        form, sent = self.token_request(fake)
        self.assertEqual(form, {"grant_type": "client_credentials", "resource": fake.url, "scope": "mcp:basic"})
        self.assertEqual(sent, "Basic " + base64.b64encode(b"svc:pw").decode())
        self.assertEqual(auth.headers(fake.url), {"Authorization": "Bearer token-1"})

    def test_jwt_bearer_with_an_assertion_or_its_maker(self) -> None:
        seen: List[Tuple[str, str]] = []

        def maker(issuer: str, resource: str) -> str:
            seen.append((issuer, resource))
            return "made.jwt.assertion"

        for assertion, sent in (("given.jwt.assertion", "given.jwt.assertion"), (maker, "made.jwt.assertion")):
            fake = self.fake(methods=["none"])
            auth = OAuthClientProvider(fake.url, grant_type=OAuthClientProvider.JWT_BEARER, client_id="workload",
                                       assertion=assertion)
            self.assertTrue(auth.unauthorized(fake.url, 401, bearer(fake)))
            form, authorization = self.token_request(fake)
            self.assertEqual(form, {"grant_type": "urn:ietf:params:oauth:grant-type:jwt-bearer", "assertion": sent,
                                    "resource": fake.url, "client_id": "workload"})
            self.assertEqual(fake.paths(), ["GET /.well-known/oauth-protected-resource/mcp",
                                            "GET /.well-known/oauth-authorization-server", "POST /token"])
        self.assertEqual(seen, [(fake.issuer, fake.url)])
        with self.assertRaises(ValueError):
            OAuthClientProvider(fake.url, grant_type=OAuthClientProvider.JWT_BEARER)
        with self.assertRaises(ValueError):
            OAuthClientProvider(fake.url, assertion="a.b.c")


class ScopeTest(OAuthTest):
    """basic/authorization, "Scope Selection Strategy" and "Scope Challenge Handling"."""

    def scope_asked(self, fake: Fake, challenge: str, **options: Any) -> Optional[str]:
        self.provider(fake, **options).unauthorized(fake.url, 401, challenge)
        return fake.fields("/authorize")[0].get("scope")

    def test_the_challenge_then_scopes_supported_then_none(self) -> None:
        fake = self.fake(prm_scopes=["a", "b"])
        self.assertEqual(self.scope_asked(fake, bearer(fake, scope="c d")), "c d")
        fake = self.fake(prm_scopes=["a", "b"])
        self.assertEqual(self.scope_asked(fake, bearer(fake)), "a b")
        fake = self.fake()
        self.assertEqual(self.scope_asked(fake, bearer(fake)), None)

    def test_offline_access_when_the_server_lists_it(self) -> None:
        fake = self.fake(prm_scopes=["mcp:basic"], as_scopes=["mcp:basic", "offline_access"])
        self.assertEqual(self.scope_asked(fake, bearer(fake)), "mcp:basic offline_access")
        fake = self.fake(prm_scopes=["mcp:basic"], as_scopes=["mcp:basic"])
        self.assertEqual(self.scope_asked(fake, bearer(fake)), "mcp:basic")

    def test_step_up_asks_for_the_union(self) -> None:
        fake = self.fake()
        auth = self.provider(fake)
        auth.unauthorized(fake.url, 401, bearer(fake, scope="mcp:basic"))
        self.assertTrue(auth.unauthorized(fake.url, 403, bearer(fake, error="insufficient_scope", scope="mcp:write")))
        self.assertEqual([q.get("scope") for q in fake.fields("/authorize")], ["mcp:basic", "mcp:basic mcp:write"])
        # A step-up reuses the discovered metadata.
        self.assertEqual(fake.paths().count("GET /.well-known/oauth-protected-resource/mcp"), 1)

    def test_retry_limit(self) -> None:
        fake = self.fake()
        auth = self.provider(fake)
        challenge = bearer(fake, error="insufficient_scope", scope="mcp:admin")
        self.assertTrue(auth.unauthorized(fake.url, 401, bearer(fake, scope="mcp:admin")))
        self.assertEqual([auth.unauthorized(fake.url, 403, challenge) for _ in range(4)], [True, True, False, False])
        self.assertEqual(len(fake.fields("/authorize")), 3)

    def test_a_403_without_insufficient_scope_is_final(self) -> None:
        fake = self.fake()
        self.assertFalse(self.provider(fake).unauthorized(fake.url, 403, 'Bearer error="invalid_token"'))
        self.assertEqual(fake.log, [])


class HostileTest(OAuthTest):
    """What a hostile or broken server sends ends in an OAuthFlowError that
    names the rule: never another exception, a token or secret in the
    message, a request to a URL it should not reach, or a hang."""

    def refusal(self, fake: Fake, auth: Optional[OAuthClientProvider] = None, challenge: Optional[str] = None) -> str:
        with self.assertRaises(OAuthFlowError) as caught:
            (auth or self.provider(fake)).unauthorized(fake.url, 401, challenge or bearer(fake))
        return str(caught.exception)

    def test_a_state_with_other_characters_is_a_mismatch(self) -> None:
        fake = self.fake()
        auth = self.provider(fake, redirect_handler=lambda url: "?code=c&state=%C3%A9t%C3%A9")
        self.assertEqual(self.refusal(fake, auth),
                         "the authorization response's state is not the one sent (OAuth 2.1 section 7.12)")

    def test_repeated_parameters_are_refused(self) -> None:
        for extra, named in (("&code=injected", "code"), ("&state=x&code=y", "code, state")):
            with self.subTest(extra):
                fake = self.fake()
                auth = self.provider(fake, redirect_handler=lambda url, extra=extra: follow(url) + extra)
                self.assertEqual(self.refusal(fake, auth),
                                 f"the authorization response repeats {named} (OAuth 2.1 section 3.1)")
                self.assertNotIn("POST /token", fake.paths())

    def test_an_error_answer_is_shown_printable_and_short(self) -> None:
        fake = self.fake()
        auth = self.provider(fake, redirect_handler=lambda url: "?error=denied%0D%0A&error_description=" + "x" * 500)
        self.assertEqual(self.refusal(fake, auth), "the authorization server answered denied??: " + "x" * 200)

    def test_resource_metadata_is_fetched_over_http_only(self) -> None:
        fake = self.fake()
        document = json.dumps({"resource": fake.url, "authorization_servers": [fake.issuer]})
        path = os.path.join(self.tmp(), "prm.json")
        with open(path, "w") as file:
            file.write(document)
        for url in ("file://" + path, "data:application/json," + urllib.parse.quote(document)):
            with self.subTest(url[:5]):
                self.assertEqual(self.refusal(fake, challenge=f'Bearer resource_metadata="{url}"'),
                                 f"GET {url!r}: only http and https URLs are fetched")
        self.assertEqual(fake.log, [])

    def tmp(self) -> str:
        import tempfile

        directory = tempfile.TemporaryDirectory()
        self.addCleanup(directory.cleanup)
        return directory.name

    def test_an_https_server_s_resource_metadata_is_https(self) -> None:
        auth = OAuthClientProvider("https://mcp.example.com/mcp", redirect_uri=REDIRECT, redirect_handler=follow)
        with self.assertRaises(OAuthFlowError) as caught:
            auth.unauthorized("https://mcp.example.com/mcp", 401,
                              'Bearer resource_metadata="http://mcp.example.com/.well-known/oauth-protected-resource"')
        self.assertEqual(str(caught.exception), (
            "the challenge's resource_metadata 'http://mcp.example.com/.well-known/oauth-protected-resource' "
            "is not https, for an https server (RFC 9728 section 3)"))

    def test_authorization_server_endpoints_are_https(self) -> None:
        # Loopback http is a server under test; anything else in clear text is refused before it is used.
        for endpoint in ("http://auth.example.com/authorize", "javascript:alert(1)//", "file:///etc/passwd", 42):
            with self.subTest(endpoint):
                fake = self.fake(metadata_extra={"authorization_endpoint": endpoint})
                opened: List[str] = []
                auth = self.provider(fake, redirect_handler=lambda url, seen=opened: seen.append(url) or follow(url))
                self.assertEqual(self.refusal(fake, auth), (
                    f"the authorization server {fake.issuer}'s authorization_endpoint {endpoint!r} is not https "
                    "(basic/authorization, Communication Security)" if endpoint != 42 else
                    f"the authorization server {fake.issuer}'s authorization_endpoint is missing (RFC 8414 section 2)"))
                self.assertEqual(opened, [])
        endpoint = mcp_ref._endpoint
        self.assertEqual(endpoint("https://a.example", "x"), "https://a.example")
        for url in ("http://127.0.0.1:1/t", "http://[::1]:1/t", "http://localhost/t", "http://127.9.9.9/t"):
            self.assertEqual(endpoint(url, "x"), url)
        for url in ("http://a.example/t", "https:///t", "ftp://a.example/t", "http://[::1/t", "http://127.0.0.1.nip.io/"):
            with self.assertRaises(OAuthFlowError):
                endpoint(url, "x")

    def test_pkce_support_is_checked_in_the_metadata(self) -> None:
        for pkce in (None, ["plain"], "S256"):
            with self.subTest(pkce):
                fake = self.fake(pkce=pkce)
                self.assertEqual(self.refusal(fake), (
                    f"the authorization server {fake.issuer} does not list S256 in code_challenge_methods_supported: "
                    "it may not check PKCE (basic/authorization)"))
                self.assertNotIn("GET /authorize", fake.paths())

    def test_malformed_token_responses(self) -> None:
        failed = "the token request (authorization_code) failed: HTTP 200: "
        unprintable = "no access_token of printable ASCII (OAuth 2.1 section 3.2.3)"
        for answer, refusal in (
                ({"access_token": 5, "refresh_token": "secret-refresh"}, unprintable),
                ({"access_token": ""}, unprintable),
                ({"access_token": "a\r\nX-Injected: 1"}, unprintable),
                ({"access_token": "t", "token_type": "DPoP"}, "token_type 'DPoP' is not Bearer (RFC 6750)"),
                ({"access_token": "t", "token_type": None}, "token_type 'None' is not Bearer (RFC 6750)"),
                ({"access_token": "t", "expires_in": -5}, "expires_in '-5' is not a number of seconds "
                                                         "(OAuth 2.1 section 3.2.3)"),
                ({"access_token": "t", "expires_in": "soon"}, "expires_in 'soon' is not a number of seconds "
                                                              "(OAuth 2.1 section 3.2.3)"),
                ({"access_token": "t", "expires_in": True}, "expires_in 'True' is not a number of seconds "
                                                            "(OAuth 2.1 section 3.2.3)"),
                ({"access_token": "t", "expires_in": float("nan")}, "expires_in 'nan' is not a number of seconds "
                                                                    "(OAuth 2.1 section 3.2.3)"),
                ({"access_token": "t", "refresh_token": ["r"]}, "refresh_token is not a string "
                                                                "(OAuth 2.1 section 3.2.3)")):
            with self.subTest(answer):
                fake = self.fake(token_answer=answer)
                self.assertEqual(self.refusal(fake), failed + refusal)

    def test_token_responses_that_are_accepted(self) -> None:
        for answer in ({"access_token": "t", "token_type": "bearer", "expires_in": "3600"},
                       {"access_token": "t"}, {"access_token": "a.b-c_d~e+f/g=", "expires_in": 1.5}):
            with self.subTest(answer):
                fake = self.fake(token_answer=answer)
                auth = self.provider(fake)
                self.assertTrue(auth.unauthorized(fake.url, 401, bearer(fake)))
                self.assertEqual(auth.headers(fake.url), {"Authorization": "Bearer " + answer["access_token"]})
        self.assertEqual(auth.storage.get_tokens()["expires_in"], 1.5)

    def test_refusals_quote_the_error_not_the_body(self) -> None:
        body = json.dumps({"error": "invalid_grant", "refresh_token": "secret-refresh"}).encode()
        for raw, refusal in (((400, body), "HTTP 400 invalid_grant"), ((500, b"<html>"), "HTTP 500 (no error)"),
                             ((200, b"not json"), "HTTP 200 (no error)"),
                             ((200, b"[" * 100000), "HTTP 200 (no error)")):
            with self.subTest(raw[1][:10]):
                fake = self.fake(raw={"/token": raw})
                self.assertEqual(self.refusal(fake), "the token request (authorization_code) failed: " + refusal)

    def test_a_registration_refused_for_its_redirect_uri_says_why(self) -> None:
        # client-registration: clients "MUST be prepared to handle registration failures due to
        # redirect URI constraints" (an OIDC server refusing a loopback redirect_uri): RFC 7591
        # section 3.2.2's error is raised as OAuthFlowError with its code; nothing is sent after it.
        refused = json.dumps({"error": "invalid_redirect_uri", "error_description": "loopback not allowed"})
        fake = self.fake(raw={"/register": (400, refused.encode())})
        self.assertEqual(self.refusal(fake), f"dynamic registration at {fake.base}/register failed: HTTP 400 "
                                             "invalid_redirect_uri (RFC 7591 section 3.2)")
        self.assertEqual(fake.fields("/authorize"), [])

    def test_a_malformed_registration_is_refused_without_its_secret(self) -> None:
        refusal = "dynamic registration at {}/register failed: HTTP 201{} (RFC 7591 section 3.2)"
        for answer in ({"client_secret": 5}, {"client_id": 7, "client_secret": "leaked-secret"}, {"client_id": ""}):
            with self.subTest(answer):
                fake = self.fake(register_answer=answer)
                self.assertEqual(self.refusal(fake),
                                 refusal.format(fake.base, ": no client_id and client_secret strings"))

    def test_documents_too_deep_or_not_http_are_no_documents(self) -> None:
        fake = self.fake(raw={"/.well-known/oauth-protected-resource/mcp": (200, b"[" * 100000)})
        self.assertEqual(mcp_ref._http_json("GET", fake.base + "/.well-known/oauth-protected-resource/mcp", None, {},
                                            30), (200, None))
        url = one_answer(b"NOT HTTP\r\n\r\n")
        with self.assertRaises(OAuthFlowError) as caught:
            mcp_ref._http_json("GET", url, None, {}, 30)
        self.assertTrue(str(caught.exception).startswith(f"GET {url}: "), caught.exception)

    def test_a_dripping_answer_is_bounded_in_time(self) -> None:
        head = b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 100000\r\n\r\n"
        url = one_answer(head + b"[" * 100000, drip=0.05)
        outcome: List[str] = []

        def fetch() -> None:
            try:
                mcp_ref._http_json("GET", url, None, {}, 1)
            except OAuthFlowError as error:
                outcome.append(str(error))

        fetching = threading.Thread(target=fetch, daemon=True)
        fetching.start()
        fetching.join(120)
        self.assertEqual(outcome, [f"GET {url}: the answer took over 1 s"])

    def test_a_silent_connection_does_not_hold_the_callback_server(self) -> None:
        import socket

        callback = mcp_ref._LoopbackCallback(None, 30)
        self.addCleanup(callback.close)
        # A silent connection is dropped after the handler's timeout: 10 s, too
        # long to wait here; the same rule, a second.
        self.assertEqual(callback.server.RequestHandlerClass.timeout, 10)
        callback.server.RequestHandlerClass.timeout = 1
        silent = socket.create_connection(("127.0.0.1", callback.server.server_address[1]), timeout=30)
        self.addCleanup(silent.close)

        def browser(url: str) -> bool:
            threading.Thread(target=lambda: urllib.request.urlopen(callback.redirect_uri + "?code=c&state=s",
                                                                   timeout=60).read(), daemon=True).start()
            return True

        answers: List[str] = []
        with mock.patch("webbrowser.open", browser):
            waiter = threading.Thread(target=lambda: answers.append(callback.wait("https://as.example/authorize")),
                                      daemon=True)
            waiter.start()
            waiter.join(90)
        self.assertEqual(answers, ["code=c&state=s"])

    def test_a_taken_port_is_a_refusal(self) -> None:
        fake = self.fake()
        port = fake.server.server_address[1]
        with self.assertRaises(OAuthFlowError) as caught:
            mcp_ref._LoopbackCallback(f"http://127.0.0.1:{port}/callback", 30)
        self.assertTrue(str(caught.exception).startswith(
            f"the redirect's loopback server cannot listen at http://127.0.0.1:{port}/callback: "), caught.exception)


def one_answer(data: bytes, drip: float = 0.0) -> str:
    """A loopback URL whose one connection is answered with ``data``, as it
    is; after its first 100 bytes, a byte each ``drip`` seconds if given."""
    import socket

    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(1)
    listener.settimeout(60)

    def serve() -> None:
        with listener:
            try:
                connection, _ = listener.accept()
            except OSError:
                return
            with connection:
                connection.recv(65536)
                if not drip:
                    connection.sendall(data)
                    return
                connection.sendall(data[:100])
                for offset in range(100, min(len(data), 100 + int(60 / drip))):  # at most a minute
                    try:
                        connection.sendall(data[offset:offset + 1])
                    except OSError:
                        return  # the client gave up
                    time.sleep(drip)

    threading.Thread(target=serve, daemon=True).start()
    return f"http://127.0.0.1:{listener.getsockname()[1]}/"


class GeneratedInputTest(OAuthTest):
    """Seeded generated inputs: every outcome is a result or an
    OAuthFlowError, never another exception."""

    SEED = 25

    def hostile(self, rng: "random.Random", depth: int = 0) -> Any:
        strings = ["", "Bearer", '"', "\\", "http://[::1", "http://a.example", "file:///etc/passwd", "é\u2028",
                   "\r\nX: 1", "x" * 5000, "S256", "none", "offline_access", "https://", "http://127.0.0.1:1/"]
        kinds = [lambda: rng.choice(strings), lambda: rng.randint(-2**40, 2**40), lambda: rng.random() * 1e9,
                 lambda: rng.choice([None, True, False, float("inf")]),
                 lambda: "".join(chr(rng.randint(0, 0x2FF)) for _ in range(rng.randint(0, 20)))]
        if depth < 2:
            kinds += [lambda: [self.hostile(rng, depth + 1) for _ in range(rng.randint(0, 3))],
                      lambda: {rng.choice(strings[:5]): self.hostile(rng, depth + 1) for _ in range(rng.randint(0, 3))}]
        return rng.choice(kinds)()

    def test_challenges(self) -> None:
        import random

        rng = random.Random(self.SEED)
        pieces = ["Bearer", "bearer ", "Basic", ",", " ", "=", '"', "\\", "scope", "error", "resource_metadata",
                  "insufficient_scope", "a b", "é", "\t", "DPoP", "realm"]
        for _ in range(2000):
            header = "".join(rng.choice(pieces) for _ in range(rng.randint(0, 30)))
            params = mcp_ref._www_authenticate(header)
            self.assertTrue(all(isinstance(k, str) and isinstance(v, str) for k, v in params.items()), header)
        self.assertEqual(mcp_ref._www_authenticate("Bearer " + "a=b, " * 2000)["a"], "b")

    def test_callbacks_and_token_answers(self) -> None:
        import random

        rng = random.Random(self.SEED)
        auth = OAuthClientProvider("http://127.0.0.1:1/mcp")
        auth._metadata = {"issuer": "https://as.example", "authorization_response_iss_parameter_supported": True}
        names = ["code", "state", "iss", "error", "error_description", "x"]
        for _ in range(2000):
            query = "&".join(f"{rng.choice(names)}={urllib.parse.quote(str(self.hostile(rng)))}"
                             for _ in range(rng.randint(0, 5)))
            answer: Any = rng.choice([query, "?" + query, "http://127.0.0.1/cb?" + query,
                                      {rng.choice(names): self.hostile(rng) for _ in range(3)}])
            try:
                auth._check_response(mcp_ref._callback_query(answer), "the-state")
            except OAuthFlowError:
                pass
            document = {name: self.hostile(rng) for name in rng.sample(
                ["access_token", "token_type", "expires_in", "refresh_token", "scope", "error"], rng.randint(0, 6))}
            try:
                tokens = mcp_ref._token_answer(rng.choice([200, 200, 400]), document, "authorization_code")
            except OAuthFlowError as error:
                self.assertNotIn("x" * 300, str(error))
                continue
            self.assertTrue(all(" " <= c <= "~" for c in tokens["access_token"]))

    def test_metadata_documents(self) -> None:
        import random

        rng = random.Random(self.SEED)
        fake = self.fake()  # one server: each run's documents are its "raw" answers (150 servers took 5 s to stop)
        for _ in range(150):
            prm: Dict[str, Any] = {"resource": fake.url, "authorization_servers": [fake.issuer]}
            metadata = fake.metadata()
            for document in (prm, metadata):
                for name in sorted(document) + ["scopes_supported"]:
                    if rng.random() < 0.25:
                        document[name] = self.hostile(rng)
            fake.options["raw"] = {"/.well-known/oauth-protected-resource/mcp": (200, json.dumps(prm).encode()),
                                   "/.well-known/oauth-authorization-server": (200, json.dumps(metadata).encode())}
            try:
                self.provider(fake).unauthorized(fake.url, 401, bearer(fake, scope=str(self.hostile(rng))[:50]))
            except OAuthFlowError:
                pass


class ChallengeTest(unittest.TestCase):
    def test_parameters_of_the_bearer_challenge(self) -> None:
        parse = mcp_ref._www_authenticate
        self.assertEqual(parse('Basic realm="x", Bearer error="insufficient_scope", scope="a b", '
                               'error_description="say \\"please\\"", resource_metadata=https://r/x'),
                         {"error": "insufficient_scope", "scope": "a b", "error_description": 'say "please"',
                          "resource_metadata": "https://r/x"})
        self.assertEqual(parse('Bearer realm="a", DPoP algs="ES256"'), {"realm": "a"})
        self.assertEqual(parse("Bearer"), {})
        self.assertEqual(parse('Basic realm="x"'), {})


class CanonicalResourceTest(unittest.TestCase):
    """basic/authorization, "Canonical Server URI": lower-case scheme and host, and no fragment, are
    the canonical form, yet implementations "SHOULD accept uppercase scheme and host components",
    and a resource with a trailing slash or none covers the same server."""

    def test_case_and_trailing_slash(self) -> None:
        canonical, covers = mcp_ref._canonical_resource, mcp_ref._resource_covers
        self.assertEqual(canonical("HTTPS://MCP.Example.COM/Path?q=1#frag"), "https://mcp.example.com/Path?q=1")
        for server in ("https://mcp.example.com/mcp", "HTTPS://MCP.EXAMPLE.COM/mcp"):
            for resource in ("HTTPS://MCP.EXAMPLE.COM/mcp", "https://mcp.example.com/mcp/", "https://mcp.example.com/",
                             "https://Mcp.Example.Com"):
                with self.subTest(server=server, resource=resource):
                    self.assertTrue(covers(resource, canonical(server)))
            self.assertFalse(covers("https://mcp.example.com/other", canonical(server)))
            self.assertFalse(covers("https://mcp.example.com/mcpx", canonical(server)))
        self.assertTrue(covers("https://mcp.example.com", canonical("https://mcp.example.com/")))


class ResourceParameterTest(OAuthTest):
    """basic/authorization, "Canonical Server URI": implementations "SHOULD consistently use the form
    without the trailing slash": a server at its origin's root, named with a "/" by the metadata or
    by its URL, is sent as ``resource`` (authorization and token requests) without it, in lower case."""

    def test_the_resource_is_sent_without_the_root_s_trailing_slash(self) -> None:
        for prm, named in (("root", "{base}/"), ("root", "{upper}/"), (None, None)):
            with self.subTest(prm=prm, named=named):
                fake = self.fake(prm=prm)
                upper = fake.base.replace("http://", "HTTP://")
                fake.options["prm_resource"] = named and named.format(base=fake.base, upper=upper)
                auth = OAuthClientProvider(fake.base + "/", redirect_uri=REDIRECT, redirect_handler=follow)
                self.assertTrue(auth.unauthorized(fake.base + "/", 401, 'Bearer realm="mcp"'))
                self.assertEqual(fake.fields("/authorize")[0]["resource"], fake.base)
                self.assertEqual(fake.fields("/token")[0]["resource"], fake.base)

    def test_a_path_keeps_its_form(self) -> None:
        # "unless the trailing slash is semantically significant": on a path it may be; kept as named.
        self.assertEqual(mcp_ref._resource_indicator("HTTPS://MCP.Example.com/"), "https://mcp.example.com")
        self.assertEqual(mcp_ref._resource_indicator("https://mcp.example.com"), "https://mcp.example.com")
        self.assertEqual(mcp_ref._resource_indicator("https://mcp.example.com/mcp/"), "https://mcp.example.com/mcp/")
        self.assertEqual(mcp_ref._resource_indicator("https://mcp.example.com?q=a/"), "https://mcp.example.com?q=a/")


class ImportTest(unittest.TestCase):
    def test_importing_loads_none_of_it(self) -> None:
        code = (f"import sys; sys.path.insert(0, {HERE!r}); import mcp_ref; "
                "print(sorted(m for m in ('urllib.request', 'http.server', 'webbrowser', "
                "'secrets', 'hashlib', 'base64', 'threading') if m in sys.modules))")
        out = subprocess.run([sys.executable, "-I", "-S", "-c", code], cwd=HERE, capture_output=True, text=True,
                             timeout=60)
        self.assertEqual(out.stdout, "[]\n", out.stderr)


# A browser for the command line's sign-in: it opens the page in the
# background (webbrowser waits for a $BROWSER command to exit) and follows the
# authorization server's redirect to the command's loopback callback.
_BROWSER = """import subprocess, sys, urllib.request
if sys.argv[1] != "--now":
    subprocess.Popen([sys.executable, __file__, "--now", sys.argv[1]], start_new_session=True)
else:
    urllib.request.urlopen(sys.argv[2], timeout=30).read()
"""


class DemoTest(unittest.TestCase):
    """examples/oauth_demo.py: OAuth 2.1 end to end on one machine, with its
    authorization server, a protected server and a client (and the command
    line's --auth against the same servers)."""

    DEMO = os.path.join(HERE, "examples", "oauth_demo.py")

    def test_the_client_signs_in_and_calls(self) -> None:
        run = subprocess.run([sys.executable, self.DEMO], capture_output=True, text=True, timeout=60)
        self.assertEqual((run.returncode, run.stdout), (0, '{"result": ["signed in"]}\n'), run.stderr)

    def test_the_command_line_signs_in(self) -> None:
        import tempfile

        servers = subprocess.Popen([sys.executable, self.DEMO, "serve", "0", "0"], stdout=subprocess.PIPE,
                                   stderr=subprocess.DEVNULL, text=True)
        self.addCleanup(servers.stdout.close)  # type: ignore[union-attr]
        self.addCleanup(servers.wait, 10)
        self.addCleanup(servers.kill)
        url = servers.stdout.readline().split()[3]  # type: ignore[union-attr]  # "MCP server at URL, ..."
        self.assertRegex(url, r"^http://127\.0\.0\.1:\d+/mcp,$")
        unsigned = subprocess.run([sys.executable, "-m", "mcp_ref", "call", url[:-1], "add_note", "text=x"],
                                  capture_output=True, text=True, timeout=60, cwd=HERE)
        self.assertEqual(unsigned.returncode, 3, unsigned.stderr)  # (refused: no token)
        self.assertIn("HTTP 401 Unauthorized", unsigned.stderr)
        with tempfile.TemporaryDirectory() as folder:
            browser = os.path.join(folder, "browser.py")
            with open(browser, "w", encoding="utf-8") as f:
                f.write(_BROWSER)
            run = subprocess.run([sys.executable, "-m", "mcp_ref", "call", url[:-1], "add_note", "text=hello",
                                  "--auth"], capture_output=True, text=True, timeout=60, cwd=HERE,
                                 env=dict(os.environ, BROWSER=f"{sys.executable} {browser} %s"))
        self.assertEqual(run.returncode, 0, run.stderr)
        self.assertIn('"hello"', run.stdout)


if __name__ == "__main__":
    unittest.main()
