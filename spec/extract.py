"""Extract the specification's normative sentences into the requirements matrix.

    python spec/extract.py MCP_SPEC_REPO EXT_TASKS_REPO [--out spec]

Each argument is a checkout or a bare git directory (read at HEAD) of
modelcontextprotocol/modelcontextprotocol and of modelcontextprotocol/ext-tasks.
The script reads the pages of the revisions in REVISIONS (their `schema.mdx`
too, whose descriptions are normative; not the changelogs, which restate the
pages) and the tasks extension's `specification/draft/tasks.md`, keeps every
sentence holding an RFC 2119 keyword in capitals (MUST, MUST NOT, REQUIRED,
SHALL, SHALL NOT, SHOULD, SHOULD NOT, RECOMMENDED, NOT RECOMMENDED), and
writes `server.tsv`, `client.tsv`, `other.tsv` and `pages.tsv` (see
spec/README.md). A row's id is its revision, page and a hash of the
normalised sentence, so a re-run keeps ids; the `test` and `binds` columns of
rows already in the files are kept (merge), so mappings and corrections
survive. Rows whose sentence is gone are printed with their test, to carry by
hand. Standard library only; CI never runs it (it cannot fetch): the
committed files are its output and tests/test_requirements.py checks them.
"""

import argparse
import hashlib
import html
import html.parser
import os
import re
import subprocess
import sys
from typing import Dict, List, Optional, Tuple

REVISIONS = ("2025-11-25", "2026-07-28")
TASKS_PAGE = "specification/draft/tasks.md"  # ext-tasks: the extension's only page
SKIPPED_PAGES = ("changelog",)  # restates the other pages' rules
COLUMNS = ("id", "revision", "page", "section", "keyword", "binds", "quote", "test")
FILES = {"server": ("server", "both"), "client": ("client", "both"),
         "other": ("authorization-server", "host", "user", "other")}
QUOTE_MAX = 260

_KEYWORD = re.compile(r"\b(MUST NOT|MUST|SHALL NOT|SHALL|REQUIRED|SHOULD NOT|SHOULD"
                      r"|NOT RECOMMENDED|RECOMMENDED)\b")
_STRENGTH = ("MUST NOT", "MUST", "SHALL NOT", "SHALL", "REQUIRED", "SHOULD NOT", "SHOULD",
             "NOT RECOMMENDED", "RECOMMENDED")
_BOILERPLATE = re.compile(r"The key words .MUST., .MUST NOT.")
# A sentence ends at . ! ? followed by space and a capital, a quote or markup;
# not after the abbreviations below.
_SPLIT = re.compile(r"(?<=[.!?])\s+(?=[A-Z`\"'(\[*_])")
_ABBREVIATIONS = ("e.g.", "i.e.", "etc.", "vs.", "cf.", "Sec.", "No.")
# Who a sentence binds: the first actor named in the keyword's clause.
_ACTORS = (
    (re.compile(r"\bauthori[sz]ation servers?\b|\bAS\b|\bidentity providers?\b", re.I),
     "authorization-server"),
    (re.compile(r"\b(mcp |resource |protected resource )?servers?\b|\bresource servers?\b",
                re.I), "server"),
    (re.compile(r"\b(mcp |oauth )?clients?\b", re.I), "client"),
    (re.compile(r"\bhosts?\b|\bapplications?\b|\bui\b|\buser interfaces?\b", re.I), "host"),
    (re.compile(r"\busers?\b|\bend-users?\b", re.I), "user"),
    (re.compile(r"\b(requestors?|receivers?|senders?|recipients?|implementations?|"
                r"implementors?|parties|party|peers?|both sides|either side|callers?)\b",
                re.I), "both"),
)
_BOTH = re.compile(r"\b(mcp )?(clients?|servers?) (and|or) (mcp )?(clients?|servers?)\b", re.I)
_OTHER_REASON = {
    "authorization-server": "n/a: binds the authorization server (mcp_ref is a resource server)",
    "host": "n/a: binds the host application or its UI, not the protocol",
    "user": "n/a: binds the user",
    "other": "n/a: binds neither client nor server",
}


class Source:
    """A checkout or a bare git directory, read at HEAD."""

    def __init__(self, path: str) -> None:
        self.path = path
        self.bare = not os.path.exists(os.path.join(path, ".git")) and os.path.exists(
            os.path.join(path, "HEAD"))
        self.commit = self._git("rev-parse", "HEAD").strip()

    def _git(self, *args: str) -> str:
        flag = ["--git-dir", self.path] if self.bare else ["-C", self.path]
        return subprocess.run(["git", *flag, *args], check=True, capture_output=True,
                              text=True, encoding="utf-8").stdout

    def files(self, folder: str) -> List[str]:
        if self.bare:
            return sorted(self._git("ls-tree", "-r", "--name-only", "HEAD", folder).split())
        out = []
        for root, _dirs, names in os.walk(os.path.join(self.path, folder)):
            out += [os.path.relpath(os.path.join(root, n), self.path) for n in names]
        return sorted(p.replace(os.sep, "/") for p in out)

    def read(self, path: str) -> str:
        if self.bare:
            return self._git("show", "HEAD:" + path)
        with open(os.path.join(self.path, path), encoding="utf-8") as f:
            return f.read()


# ---- blocks: (section, text, lead-in) from a page

def markdown_blocks(text: str) -> List[Tuple[str, str, str]]:
    """Paragraphs, list items, table rows and code comments, with heading path and lead-in."""
    return with_leads(raw_blocks(text))


def raw_blocks(text: str) -> List[Tuple[str, str, bool]]:
    """(heading path, text, is a list item) for each block of a Markdown page."""
    lines = text.split("\n")
    if lines and lines[0].strip() == "---" and "---" in lines[1:]:  # front matter
        lines = lines[lines.index("---", 1) + 1:]
    heads: List[str] = []
    blocks: List[Tuple[str, str, bool]] = []
    cur: List[str] = []
    fence = ""

    def flush() -> None:
        if cur:
            item = bool(re.match(r"([-*+]|\d+\.)\s", cur[0]))
            blocks.append((" > ".join(heads), " ".join(cur), item))
            cur.clear()

    for line in lines:
        stripped = line.strip()
        if fence:  # inside code: only comments hold sentences (the extension's interfaces)
            if stripped.startswith(fence):
                fence = ""
            if re.match(r"(/\*\*?|\*(?!/)|//)", stripped):
                cur.append(re.sub(r"^(/\*\*?|\*|//)\s?", "", stripped).rstrip("*/ "))
            else:
                flush()
            continue
        m = re.match(r"(```+|~~~+)", stripped)
        if m:
            flush()
            fence = m.group(1)
            continue
        m = re.match(r"(#{1,6})\s+(.*)", stripped)
        if m:
            flush()
            level = len(m.group(1))
            heads[:] = heads[:max(0, level - 2)] + [clean(m.group(2))] if level > 1 else []
            continue
        stripped = re.sub(r"^(>\s*)+", "", stripped)
        if not stripped or re.fullmatch(r"</?[A-Za-z][^>]*>|:::.*|\|[-:| ]+\|", stripped):
            flush()
            continue
        if re.match(r"([-*+]|\d+\.)\s", stripped) or stripped.startswith("|"):
            flush()
        cur.append(stripped)
        if stripped.startswith("|"):
            flush()
    flush()
    return blocks


def with_leads(blocks: List[Tuple[str, str, bool]]) -> List[Tuple[str, str, str]]:
    """Give list items their lead-in ("Servers MUST:"); items with no keyword of their own
    join the lead-in's row, so that "Both parties MUST:" carries what they must do."""
    out: List[Tuple[str, str, str]] = []
    lead = ""
    lead_row: Optional[int] = None
    for section, text, item in blocks:
        if item and lead_row is not None and not _KEYWORD.search(text):
            sec, head, its_lead = out[lead_row]
            out[lead_row] = (sec, head + (" " if head.endswith(":") else "; ") + clean(text),
                             its_lead)
            continue
        out.append((section, text, lead if item else ""))
        if text.rstrip().endswith(":"):
            lead = text
            lead_row = len(out) - 1 if _KEYWORD.search(text) else None
        elif not item:
            lead, lead_row = "", None
    return out


class _SchemaParser(html.parser.HTMLParser):
    """schema.mdx: TypeDoc HTML; a block per <p> or <li>, its section the type and member."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.blocks: List[Tuple[str, str, str]] = []
        self.heading = ""
        self.member = ""
        self.text: List[str] = []
        self.in_member = 0  # inside the member's anchor <span>
        self.in_pre = 0

    def section(self) -> str:
        return self.heading + (" > " + self.member if self.member else "")

    def flush(self) -> None:
        block = " ".join("".join(self.text).split())
        if block:
            self.blocks.append((self.section(), block, ""))
        self.text = []

    def handle_starttag(self, tag: str, attrs: List[Tuple[str, Optional[str]]]) -> None:
        a = dict(attrs)
        if tag in ("p", "li", "ul", "ol", "div", "section"):
            self.flush()
        if tag == "pre":
            self.in_pre += 1
        if tag == "div" and "tsd-anchor-link" in (a.get("class") or "") and a.get(
                "data-typedoc-h") == "3":
            self.member = ""
            self.in_member = 1
        if tag == "br":
            self.text.append(" ")

    def handle_endtag(self, tag: str) -> None:
        if tag in ("p", "li", "ul", "ol", "div", "section"):
            self.flush()
        if tag == "pre":
            self.in_pre -= 1
        if tag == "span" and self.in_member:
            self.in_member = 0
            self.member = self.member.split(":")[0].strip().strip('"?')

    def handle_data(self, data: str) -> None:
        if self.in_member:
            self.member += data
        elif not self.in_pre:
            self.text.append(data)

    def heading_line(self, line: str) -> None:
        self.flush()
        self.heading = clean(line.lstrip("#"))
        self.member = ""


def schema_blocks(text: str) -> List[Tuple[str, str, str]]:
    parser = _SchemaParser()
    for line in text.split("\n"):
        if re.match(r"#{2,6}\s", line):
            parser.heading_line(line)
        else:
            parser.feed(line + "\n")
    parser.close()
    parser.flush()
    return parser.blocks


def clean(text: str) -> str:
    """Markdown and HTML to plain text: links to their text, no emphasis, one space."""
    text = re.sub(r"!?\[([^\]]*)\]\([^)]*\)", r"\1", text)
    text = re.sub(r"\[([^\]]*)\]\[[^\]]*\]", r"\1", text)
    text = re.sub(r"<[^>]+>", "", text)
    text = html.unescape(text)
    text = re.sub(r"\*\*|__|(?<![\w*])\*(?=\S)|(?<=\S)\*(?![\w*])", "", text)
    text = re.sub(r"^([-+*]|\d+\.)\s+", "", text.strip())
    text = text.strip("| ").replace("|", " | ") if text.startswith("|") else text
    return " ".join(text.replace("\t", " ").split())


def sentences(block: str) -> List[str]:
    parts = _SPLIT.split(clean(block))
    out: List[str] = []
    for part in parts:
        if out and out[-1].endswith(_ABBREVIATIONS):
            out[-1] += " " + part
        else:
            out.append(part)
    return out


def normalise(sentence: str) -> str:
    return " ".join(re.sub(r"[`*_\"']", "", sentence).lower().split())


def keyword(sentence: str) -> Optional[str]:
    found = set(_KEYWORD.findall(sentence))
    return next((k for k in _STRENGTH if k in found), None)


def actor(text: str) -> Optional[str]:
    best: Optional[Tuple[int, str]] = None
    for pattern, who in _ACTORS:
        m = pattern.search(text)
        if m and (best is None or m.start() < best[0]):
            best = (m.start(), who)
    return best[1] if best else None


def binds(sentence: str, lead: str, page: str) -> str:
    """Who each keyword binds: the actor of its clause, else the lead-in's, else the page's."""
    found = set()
    for m in _KEYWORD.finditer(sentence):
        before = sentence[:m.start()]
        clause = re.split(r"[,;:|]\s", before)[-1]
        who = ("both" if _BOTH.search(clause) else None) or actor(clause) or actor(before) or \
            actor(clean(lead)) or page_actor(page)
        found.add(who)
    if {"server", "client"} <= found or "both" in found and len(found) > 1:
        return "both"
    for who in ("server", "client", "both", "authorization-server", "host", "user"):
        if who in found:
            return who
    return "other"


def page_actor(page: str) -> str:
    if page.startswith("server/"):
        return "server"
    if page.startswith("client/"):
        return "client"
    return "both"


def quote(sentence: str, lead: str) -> str:
    text = sentence
    if lead and _KEYWORD.match(sentence):  # a list item "MUST ...": say of what
        head = clean(lead)
        text = (head if len(head) <= 100 else "..." + head[-97:]) + " " + sentence
    if len(text) > QUOTE_MAX:
        text = text[:QUOTE_MAX - 3].rsplit(" ", 1)[0] + "..."
    return text


# ---- rows

def page_rows(revision: str, page: str, blocks: List[Tuple[str, str, str]]) -> List[Dict[str, str]]:
    rows: List[Dict[str, str]] = []
    seen: Dict[str, int] = {}
    for section, block, lead in blocks:
        for sentence in sentences(block):
            kw = keyword(sentence)
            if not kw or _BOILERPLATE.search(sentence):
                continue
            digest = hashlib.sha1(normalise(sentence).encode()).hexdigest()[:8]
            if page == "schema" and digest in seen:
                continue  # an inherited member repeats its parent's description
            seen[digest] = seen.get(digest, 0) + 1
            suffix = "" if seen[digest] == 1 else "-%d" % seen[digest]
            rows.append({
                "id": "%s/%s#%s%s" % (revision, page, digest, suffix), "revision": revision,
                "page": page, "section": section or "-", "keyword": kw,
                "binds": binds(sentence, lead, page), "quote": quote(sentence, lead),
                "test": ""})
    return rows


def extract(mcp: Source, tasks: Source) -> Tuple[List[Dict[str, str]], List[List[str]]]:
    rows: List[Dict[str, str]] = []
    pages: List[List[str]] = []
    for revision in REVISIONS:
        folder = "docs/specification/%s/" % revision
        for path in mcp.files(folder):
            page = path[len(folder):].rsplit(".", 1)[0]
            if not path.endswith((".md", ".mdx")) or page in SKIPPED_PAGES:
                continue
            text = mcp.read(path)
            found = page_rows(revision, page, schema_blocks(text) if page == "schema"
                              else markdown_blocks(text))
            rows += found
            pages.append([revision, page, "modelcontextprotocol/modelcontextprotocol@%s:%s"
                          % (mcp.commit[:12], path), str(len(found))])
    found = page_rows("ext-tasks", "draft/tasks", markdown_blocks(tasks.read(TASKS_PAGE)))
    rows += found
    pages.append(["ext-tasks", "draft/tasks", "modelcontextprotocol/ext-tasks@%s:%s"
                  % (tasks.commit[:12], TASKS_PAGE), str(len(found))])
    return rows, pages


def read_tsv(path: str) -> List[Dict[str, str]]:
    if not os.path.exists(path):
        return []
    with open(path, encoding="utf-8") as f:
        lines = f.read().split("\n")
    head = lines[0].split("\t")
    return [dict(zip(head, line.split("\t"))) for line in lines[1:] if line]


def write_tsv(path: str, head: Tuple[str, ...], rows: List[List[str]]) -> None:
    with open(path, "w", encoding="utf-8", newline="\n") as f:
        for row in [list(head)] + rows:
            f.write("\t".join(" ".join(c.split()) for c in row) + "\n")


def merge(rows: List[Dict[str, str]], out: str) -> Dict[str, List[List[str]]]:
    """Place each row by whom it binds; keep the binds and tests of rows already filed."""
    old: Dict[str, Dict[str, Dict[str, str]]] = {
        name: {r["id"]: r for r in read_tsv(os.path.join(out, name + ".tsv"))} for name in FILES}
    new_ids = {r["id"] for r in rows}
    for name, filed in old.items():
        for rid, r in filed.items():
            if rid not in new_ids:
                print("gone from the spec (%s.tsv): %s  test: %s" % (name, rid, r.get("test")),
                      file=sys.stderr)
    files: Dict[str, List[List[str]]] = {name: [] for name in FILES}
    for row in rows:
        kept = next((old[n][row["id"]] for n in FILES if row["id"] in old[n]), None)
        if kept and kept.get("binds"):
            row["binds"] = kept["binds"]
        for name, accepts in FILES.items():
            if row["binds"] in accepts:
                test = old[name].get(row["id"], {}).get("test", "")
                if not test and name == "other":
                    test = _OTHER_REASON[row["binds"]]
                files[name].append([row[c] for c in COLUMNS[:-1]] + [test])
    return files


def main(argv: Optional[List[str]] = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("mcp", help="modelcontextprotocol/modelcontextprotocol: checkout or git dir")
    parser.add_argument("tasks", help="modelcontextprotocol/ext-tasks: checkout or git dir")
    parser.add_argument("--out", default=os.path.dirname(os.path.abspath(__file__)))
    args = parser.parse_args(argv)
    rows, pages = extract(Source(args.mcp), Source(args.tasks))
    files = merge(rows, args.out)
    for name, filed in files.items():
        write_tsv(os.path.join(args.out, name + ".tsv"), COLUMNS, filed)
        print("%s.tsv: %d rows" % (name, len(filed)))
    write_tsv(os.path.join(args.out, "pages.tsv"), ("revision", "page", "source", "rows"), pages)
    return 0


if __name__ == "__main__":
    sys.exit(main())
