"""A server that declares and serves an extension of its own (SEP-2133): the
identifier and settings under capabilities.extensions, and a request method."""

from mcp_ref import Extension, MCPServer, MethodBinding, RequestParams


class CountParams(RequestParams):
    text: str
    letter: str = "a"


class Letters(Extension):
    identifier = "com.example/letters"

    def settings(self) -> dict:
        return {"alphabet": "latin"}

    def methods(self) -> list:
        return [MethodBinding("letters/count", CountParams, lambda ctx, p: {"count": p.text.count(p.letter)})]


server = MCPServer("letters", extensions=[Letters()])

if __name__ == "__main__":
    server.run()
