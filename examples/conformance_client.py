"""The MCP conformance suite's client scenarios, driven through mcp_ref.Client.

    npx @modelcontextprotocol/conformance client --command "python examples/conformance_client.py" ...

The suite starts a scenario's server, then runs this script with the server's
URL as its last argument; the scenario's name is in MCP_CONFORMANCE_SCENARIO,
the protocol version asked for (when the suite was given one) in
MCP_CONFORMANCE_PROTOCOL_VERSION, and what a scenario hands its client (tool
calls, credentials) as JSON in MCP_CONFORMANCE_CONTEXT.  Scenarios named
"auth/..." take their ``auth`` object from examples/conformance_auth.py
(``auth_for(scenario, context)``).  Exit 0 when the client did what the
scenario asks; the suite checks the rest on its side.
"""

import json
import os
import sys
from typing import Any, Callable, Dict

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # run from a checkout: find mcp_ref.py

from mcp_ref import Client  # noqa: E402


def accept(params: Dict[str, Any]) -> Dict[str, Any]:
    """Every elicitation accepted, with nothing filled in: the client applies
    the schema's defaults (SEP-1034); a boolean asked for is confirmed."""
    schema = params.get("requestedSchema") or {}
    content = {name: True for name, prop in (schema.get("properties") or {}).items()
               if isinstance(prop, dict) and prop.get("type") == "boolean" and "default" not in prop}
    return {"action": "accept", "content": content}


def basic(client: Client, context: Dict[str, Any]) -> None:
    """initialize: the handshake, then tools/list."""
    client.list_tools()


def tools_call(client: Client, context: Dict[str, Any]) -> None:
    client.list_tools()
    client.call_tool("add_numbers", {"a": 5, "b": 3})


def call_every_tool(client: Client, context: Dict[str, Any]) -> None:
    """Each listed tool called once, with no arguments (the ones the client
    kept: a tool with an invalid x-mcp-header is left out of the list)."""
    for tool in client.list_tools()["tools"]:
        client.call_tool(tool["name"], {})


def context_calls(client: Client, context: Dict[str, Any]) -> None:
    """The tool calls the scenario's context lists, as given."""
    client.list_tools()
    for call in context.get("toolCalls") or ():
        client.call_tool(call["name"], call.get("arguments") or {})


def standard_headers(client: Client, context: Dict[str, Any]) -> None:
    """A request of each kind, so that each carries its Mcp-Method and Mcp-Name."""
    tools = client.list_tools()["tools"]
    for tool in tools:
        client.call_tool(tool["name"], {})
    for resource in client.list_resources()["resources"]:
        client.read_resource(resource["uri"])
    for prompt in client.list_prompts()["prompts"]:
        client.get_prompt(prompt["name"])


def request_state(client: Client, context: Dict[str, Any]) -> None:
    """SEP-2322: an input round with requestState, one without, an unrelated
    call between them, and a result without resultType."""
    client.list_tools()
    for name in ("test_mrtr_echo_state", "test_mrtr_unrelated", "test_mrtr_no_state", "test_mrtr_no_result_type"):
        client.call_tool(name, {})


SCENARIOS: Dict[str, Callable[[Client, Dict[str, Any]], None]] = {
    "initialize": basic,
    "tools_call": tools_call,
    "tools-call": tools_call,
    "elicitation-sep1034-client-defaults": call_every_tool,
    "elicitation-defaults": call_every_tool,
    "sse-retry": call_every_tool,
    "request-metadata": call_every_tool,
    "sep-2322-client-request-state": request_state,
    "http-standard-headers": standard_headers,
    "http-custom-headers": context_calls,
    "http-invalid-tool-headers": call_every_tool,
    "json-schema-ref-no-deref": basic,
}


def main(argv: Any) -> int:
    scenario = os.environ.get("MCP_CONFORMANCE_SCENARIO", "")
    context = json.loads(os.environ.get("MCP_CONFORMANCE_CONTEXT") or "{}")
    version = os.environ.get("MCP_CONFORMANCE_PROTOCOL_VERSION") or None
    url = argv[-1]
    auth = None
    if scenario.startswith("auth/"):
        try:
            from conformance_auth import auth_for  # type: ignore[import-not-found]  # examples/, beside this file
        except ImportError:
            print(f"conformance_client: no examples/conformance_auth.py for {scenario}", file=sys.stderr)
            return 1
        auth = auth_for(scenario, context)
    run = SCENARIOS.get(scenario, call_every_tool if auth is not None else None)
    if run is None:
        print(f"conformance_client: unknown scenario {scenario!r}", file=sys.stderr)
        return 1
    with Client(url, protocol_version=version, elicitation_callback=accept, auth=auth) as client:
        run(client, context)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
