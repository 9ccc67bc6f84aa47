"""Sentences of the specification that no topic's test showed, one small test each.

Each test names the page it checks; spec/server.tsv maps the sentence to it
(test_requirements.py checks the mapping). Larger behaviours live in the module
of their topic.
"""

import json
import re
import threading
import unittest
from typing import Any, Dict, List, Optional

import mcp_ref
from test_tasks import Case, SessionClient, opened, task_server
from test_tasks import Client as TaskClient
from test_wire import META, WireTestCase

WAIT = 10.0


class Connection:
    """A connection without a transport that keeps every frame the server writes."""

    def __init__(self, server: mcp_ref.MCPServer) -> None:
        frames = self.frames = []  # type: List[Dict[str, Any]]

        class Conn(mcp_ref._Connection):  # type: ignore[misc, name-defined]
            def write(self, message: Any) -> None:
                frames.append(json.loads(message))

        self.conn = opened(Conn(server))
        self.ids = 0

    def request(self, method: str, params: Optional[Dict[str, Any]] = None) -> Dict[str, Any]:
        self.ids += 1
        replies: List[bytes] = []
        done = threading.Event()

        def reply(data: Optional[bytes]) -> None:
            replies.append(data or b"null")
            done.set()

        message = {"jsonrpc": "2.0", "id": self.ids, "method": method, "params": params or {}}
        frame = self.conn.handle_message(message, reply)
        if frame is mcp_ref._STARTED:
            assert done.wait(WAIT), f"{method} was not answered"
            frame = json.loads(replies[0])
        self.frames.append(frame)
        return frame  # type: ignore[no-any-return]


class JsonRpcTest(WireTestCase):
    """basic/index "Requests" and basic/transports: the message rules over stdio."""

    def test_a_null_id_is_an_invalid_request(self) -> None:
        # "Unlike base JSON-RPC, the ID MUST NOT be null."
        self.assertEqual(self.server.request(None, "ping"), {"jsonrpc": "2.0", "id": None, "error": {
            "code": -32600, "message": 'Invalid Request: "id" must be a string or an integer'}})
        self.assertEqual(self.server.request(1, "ping"), {"jsonrpc": "2.0", "id": 1, "result": {}})

    def test_a_line_that_is_not_utf_8_is_a_parse_error(self) -> None:
        # "JSON-RPC messages MUST be UTF-8 encoded": Latin-1 bytes are no message.
        for line in (b'{"jsonrpc": "2.0", "id": 1, "method": "ping", "params": {"x": "\xff\xfe"}}\n',
                     '{"jsonrpc": "2.0", "id": 2, "method": "ping", "params": {"x": "é"}}\n'.encode("latin-1")):
            self.server.send(line)
            self.assertEqual(self.server.recv(), {"jsonrpc": "2.0", "id": None, "error": {
                "code": -32700, "message": "Parse error: invalid UTF-8"}})
        self.assertEqual(self.server.request(3, "ping"), {"jsonrpc": "2.0", "id": 3, "result": {}})

    def test_tool_names_are_case_sensitive(self) -> None:
        # server/tools "Tool Names": "Tool names SHOULD be considered case-sensitive."
        self.server.initialize()
        self.assertEqual(self.server.request(1, "tools/call", {"name": "ADD", "arguments": {"a": 1}}), {
            "jsonrpc": "2.0", "id": 1, "error": {"code": -32602, "message": "Unknown tool: ADD"}})
        self.assertIn("result", self.server.request(2, "tools/call", {"name": "add", "arguments": {"a": 1}}))


# basic/index "_meta": an optional prefix of dot-separated labels (each starting with
# a letter, ending with a letter or digit) and a slash, then a name that, unless empty,
# begins and ends with an alphanumeric character.
_LABEL = r"[A-Za-z](?:[A-Za-z0-9-]*[A-Za-z0-9])?"
META_KEY = re.compile(rf"(?:{_LABEL}(?:\.{_LABEL})*/)?(?:[A-Za-z0-9](?:[A-Za-z0-9._-]*[A-Za-z0-9])?)?")


def meta_keys(value: Any) -> List[str]:
    """Every key of every ``_meta`` object inside a frame."""
    keys: List[str] = []
    if isinstance(value, dict):
        for key, item in value.items():
            if key == "_meta" and isinstance(item, dict):
                keys += list(item)
            keys += meta_keys(item)
    elif isinstance(value, list):
        for item in value:
            keys += meta_keys(item)
    return keys


class MetaKeysTest(Case):
    """basic/index "_meta": the keys the server writes follow the naming rules, and
    its own are under a reverse-DNS prefix (io.modelcontextprotocol/)."""

    def test_the_keys_the_server_writes_follow_the_grammar(self) -> None:
        server = task_server()
        frames: List[Any] = []
        modern = TaskClient(server)
        task_id = modern.call("quick", {"n": 1})["taskId"]
        modern.settled(task_id)
        session = SessionClient(server)
        created = session.ask("tools/call", {"name": "quick", "arguments": {"n": 2}, "task": {}})
        frames.append(session.ask("tasks/result", {"taskId": created["task"]["taskId"]}))
        conn = Connection(server)
        for method, params in (("server/discover", {}), ("tools/list", {}),
                               ("tools/call", {"name": "quick", "arguments": {"n": 3}})):
            conn.request(method, dict(params, _meta=META))
        frames += conn.frames + modern.written + session.written
        keys = set(meta_keys(frames))
        self.assertIn("io.modelcontextprotocol/serverInfo", keys)
        self.assertIn("io.modelcontextprotocol/related-task", keys)
        for key in keys:
            self.assertRegex(key, META_KEY)
            self.assertTrue(META_KEY.fullmatch(key), key)
            self.assertTrue(key.startswith("io.modelcontextprotocol/"), key)
        self.assertFalse(META_KEY.fullmatch("1bad/x") or META_KEY.fullmatch("a./x") or META_KEY.fullmatch("-x"))


if __name__ == "__main__":
    unittest.main()
