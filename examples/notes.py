"""A notes server: a resource, a resource template, a prompt and completion.

    python -m mcp_ref resources examples/notes.py
    python -m mcp_ref read examples/notes.py notes://shopping
    python -m mcp_ref prompt examples/notes.py summarize title=shopping
"""

import os
import sys
from typing import Any, Dict, List, Literal, Optional

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # run from a checkout: find mcp_ref.py

from mcp_ref import Completion, Field, MCPServer, ResourceNotFoundError, UserMessage  # noqa: E402

mcp = MCPServer("Notes", instructions="Notes to read, and a prompt to summarise one.")

NOTES = {
    "shopping": "Milk, eggs, bread.\nAnd coffee.",
    "ideas": "A server in one file.",
    "todo": "Write the README.",
}


@mcp.resource("notes://index", title="All notes", mime_type="application/json")
def index() -> Dict[str, int]:
    """The title of every note, with its length."""
    return {title: len(text) for title, text in NOTES.items()}


@mcp.resource("notes://{title}", mime_type="text/plain")
def note(title: str) -> str:
    """One note, by its title."""
    if title not in NOTES:
        raise ResourceNotFoundError(f"No note titled {title!r}")
    return NOTES[title]


@mcp.prompt(title="Summarise a note")
def summarize(title: str = Field(description="The note's title"),
              style: Literal["short", "detailed"] = "short") -> List[UserMessage]:
    """Ask for a summary of one note."""
    return [UserMessage(f"Summarise my note {title!r} ({style}):\n{NOTES.get(title, '(no such note)')}")]


@mcp.completion()
async def complete(ref: Any, argument: Any, context: Any) -> Optional[Completion]:
    """Note titles for the template and the prompt; styles for the prompt."""
    if argument.name == "title":
        return Completion(values=[t for t in NOTES if t.startswith(argument.value)])
    if argument.name == "style":
        return Completion(values=[s for s in ("short", "detailed") if s.startswith(argument.value)])
    return None


if __name__ == "__main__":
    mcp.run()
