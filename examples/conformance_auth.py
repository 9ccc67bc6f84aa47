"""The auth object for the conformance suite's ``auth/*`` client scenarios.

``examples/conformance_client.py`` calls ``auth_for(scenario, context)`` for a
scenario whose name starts with ``auth/``; ``context`` is the JSON of
``MCP_CONFORMANCE_CONTEXT`` (client credentials, when the scenario has any).
The suite's test authorization server answers the authorization request with
a redirect at once, so the redirect hook follows it without a browser.

Run alone (``python conformance_auth.py URL``), it drives the scenario with a
few lines of urllib, as the client does: initialize (in the handshake era),
tools/list and tools/call, each retried once after ``unauthorized``.
"""

import json
import os
import sys
import urllib.error
import urllib.parse
import urllib.request

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

from mcp_ref import OAuthClientProvider  # noqa: E402

# The Client ID Metadata Document the suite expects (auth/basic-cimd).
CLIENT_METADATA_URL = "https://conformance-test.local/client-metadata.json"
REDIRECT_URI = "http://127.0.0.1:3000/callback"


class _NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args, **kwargs):
        return None


def follow_redirect(authorization_url):
    """What a browser would do with no one to ask: load the authorization URL
    and return where it redirects (the callback URL, with code and state)."""
    try:
        urllib.request.build_opener(_NoRedirect).open(authorization_url, timeout=30).close()
    except urllib.error.HTTPError as error:
        if error.code in (301, 302, 303, 307, 308):
            return error.headers["Location"]
        raise
    raise RuntimeError("the authorization server did not redirect")


def id_jag(context):
    """SEP-990's first step, at the enterprise's identity provider: its ID
    token exchanged (RFC 8693) for an Identity Assertion JWT Authorization
    Grant naming the authorization server and the MCP server."""

    def assertion(issuer, resource):
        form = {"grant_type": "urn:ietf:params:oauth:grant-type:token-exchange",
                "subject_token": context["idp_id_token"],
                "subject_token_type": "urn:ietf:params:oauth:token-type:id_token",
                "requested_token_type": "urn:ietf:params:oauth:token-type:id-jag",
                "audience": issuer, "resource": resource, "client_id": context["idp_client_id"]}
        request = urllib.request.Request(context["idp_token_endpoint"], urllib.parse.urlencode(form).encode(),
                                         {"Content-Type": "application/x-www-form-urlencoded"})
        with urllib.request.urlopen(request, timeout=30) as response:
            return json.load(response)["access_token"]

    return assertion


def auth_for(scenario, context):
    """The OAuthClientProvider a scenario needs."""
    name = scenario[len("auth/"):]
    if name == "client-credentials-basic":
        return OAuthClientProvider(grant_type="client_credentials", client_id=context["client_id"],
                                   client_secret=context["client_secret"])
    if name == "wif-jwt-bearer":  # the workload's identity token, as its platform gave it
        return OAuthClientProvider(grant_type=OAuthClientProvider.JWT_BEARER, client_id=context["client_id"],
                                   assertion=context["valid_jwt"])
    if name == "enterprise-managed-authorization":
        return OAuthClientProvider(grant_type=OAuthClientProvider.JWT_BEARER, client_id=context["client_id"],
                                   client_secret=context["client_secret"], assertion=id_jag(context))
    if name in ("client-credentials-jwt", "dpop", "dpop-nonce"):
        raise SystemExit(f"{scenario}: needs an asymmetric signature (private_key_jwt, DPoP), left to a wrapper")
    return OAuthClientProvider(client_id=context.get("client_id"), client_secret=context.get("client_secret"),
                               client_metadata_url=CLIENT_METADATA_URL, redirect_uri=REDIRECT_URI,
                               redirect_handler=follow_redirect)


def _post(url, body, auth, session):
    """One JSON-RPC message, retried once after ``auth.unauthorized``."""
    for attempt in (0, 1):
        headers = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream",
                   "MCP-Protocol-Version": session["version"], **auth.headers(url)}
        if session.get("id"):
            headers["Mcp-Session-Id"] = session["id"]
        request = urllib.request.Request(url, json.dumps(body).encode(), headers, method="POST")
        try:
            with urllib.request.urlopen(request, timeout=30) as response:
                session["id"] = response.headers.get("Mcp-Session-Id") or session.get("id")
                return response.read()
        except urllib.error.HTTPError as error:
            challenge = error.headers.get("WWW-Authenticate")
            if attempt or not (error.code == 401 or (error.code == 403 and "insufficient_scope" in (challenge or ""))):
                raise
            if not auth.unauthorized(url, error.code, challenge):
                raise


def main(url):
    scenario = os.environ["MCP_CONFORMANCE_SCENARIO"]
    auth = auth_for(scenario, json.loads(os.environ.get("MCP_CONFORMANCE_CONTEXT") or "{}"))
    version = os.environ.get("MCP_CONFORMANCE_PROTOCOL_VERSION") or "2025-11-25"
    session = {"version": version}
    meta = {"io.modelcontextprotocol/protocolVersion": version,
            "io.modelcontextprotocol/clientCapabilities": {},
            "io.modelcontextprotocol/clientInfo": {"name": "conformance_auth", "version": "1"}}
    calls = [("tools/list", {}), ("tools/call", {"name": "test-tool", "arguments": {}})]
    if version < "2026":
        meta = None
        info = {"name": "conformance_auth", "version": "1"}
        _post(url, {"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
            "protocolVersion": version, "capabilities": {}, "clientInfo": info}}, auth, session)
        _post(url, {"jsonrpc": "2.0", "method": "notifications/initialized"}, auth, session)
    for number, (method, params) in enumerate(calls, 1):
        if meta is not None:
            params = dict(params, _meta=meta)
        _post(url, {"jsonrpc": "2.0", "id": number, "method": method, "params": params}, auth, session)


if __name__ == "__main__":
    main(sys.argv[1])
