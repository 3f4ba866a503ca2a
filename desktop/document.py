"""HTML for the document viewer: a local markdown file rendered, its cited lines highlighted, the docs site's own lines
read as what they mean. Remote links and images are never loaded: images become a link the user must click and
confirm. Pure functions: no widgets here.
"""

from __future__ import annotations

import html
import re
from bisect import bisect_left
from typing import NamedTuple

from markdown_it import MarkdownIt
from markdown_it.token import Token

from repobot.engine.check import is_include
from repobot.engine.markup import heading_title, without_attributes

HIGHLIGHT = "#fff1a8"

_MD = MarkdownIt("commonmark", {"html": False}).enable("table")
_BLOCK_OPEN = {
    "paragraph_open", "heading_open", "fence", "code_block", "blockquote_open",
    "bullet_list_open", "ordered_list_open", "list_item_open", "table_open", "hr",
}


# A file longer than this is shown in part, around the cited lines: Qt lays out a rendered page on the window's
# thread, which a 1.6 MB file held for 12 s (0.25 s for this much of it), and a 2 MB one with 19,000 headings for 27 s.
VIEW_CHARS, LINES_BEFORE = 150_000, 200


class Excerpt(NamedTuple):
    text: str
    first: int  # the 1-based number of its first line in the file
    last: int
    lines: int  # the file's

    @property
    def whole(self) -> bool:
        return self.first == 1 and self.last == self.lines


def excerpt(text: str, highlight: tuple[int, int] | None = None, most: int = VIEW_CHARS) -> Excerpt:
    """The part of a file the viewer shows: all of it, or about ``most`` characters from a little before the
    highlighted lines (from the top without them).

    >>> text = "".join(f"line {n}\\n" for n in range(1, 1001))
    >>> excerpt(text, (500, 502), most=500)[1:], excerpt(text, most=500)[1:], excerpt(text)[1:]
    ((486, 541, 1000), (1, 64, 1000), (1, 1000, 1000))
    """
    lines = [line + "\n" for line in text.split("\n")]  # numbered as the index and markdown-it number them
    if text.endswith("\n"):
        lines.pop()
    if len(text) <= most:
        return Excerpt(text, 1, len(lines), len(lines))
    start, size = (min(max(highlight[0], 1), len(lines)) - 1 if highlight else 0), 0
    while start > 0 and size < most // 4 and (highlight[0] - 1 - start) < LINES_BEFORE:  # a little context before
        start -= 1
        size += len(lines[start])
    stop, size = start, 0
    while stop < len(lines) and (size < most or (highlight and stop < highlight[1])):
        size += len(lines[stop])
        stop += 1
    return Excerpt("".join(lines[start:stop]), start + 1, stop, len(lines))


def document_html(text: str, highlight: tuple[int, int] | None = None, first_line: int = 1) -> str:
    """Render a markdown file (or the part of it from line ``first_line``); blocks overlapping the 1-based line span
    get a highlight.

    Every block gets an anchor ``L<line>`` (its first line), and the first
    highlighted block also gets ``hl``, so the viewer can scroll to them. Images
    are replaced by links: nothing remote is loaded.

    >>> out = document_html("# A\\n\\ntext\\n\\n![x](http://evil/x.png)", (3, 3))
    >>> '<a name="hl"></a>' in out and "background-color" in out and "<img" not in out
    True
    >>> document_html("## Environment Variables { #environment-variables }").count("{")  # mkdocs' anchor, not shown
    0
    """
    tokens = _MD.parse(text)
    first_marked = False
    for token in tokens:
        if token.type not in _BLOCK_OPEN or not token.map:
            continue
        start, end = token.map[0] + first_line, token.map[1] + first_line - 1
        anchors = f'<a name="L{start}"></a>'
        if highlight and start <= highlight[1] and end >= highlight[0] and token.type not in ("bullet_list_open", "ordered_list_open", "blockquote_open", "table_open"):
            token.attrSet("style", f"background-color:{HIGHLIGHT}")
            if not first_marked:
                anchors += '<a name="hl"></a>'
                first_marked = True
        token.meta = {**(token.meta or {}), "anchors": anchors}
    _replace_images(tokens)
    _drop_heading_attributes(tokens)
    _show_site_directives(tokens)
    body = _render_with_anchors(tokens)
    return f'<div style="font-size:11pt">{body}</div>'


def _replace_images(tokens) -> None:
    for token in tokens:
        for child in token.children or []:
            if child.type == "image":
                src = child.attrGet("src") or ""
                alt = child.content or "image"
                child.type = "html_inline"
                child.content = f'<a href="{html.escape(src)}">[image: {html.escape(alt)}]</a>'


# The docs site generator's own lines, which markdown leaves as text: an admonition's opening ("/// tip",
# '/// note | Technical Details', '!!! warning "Title"'), its closing "///", and an include of example code kept outside
# the docs folder ("{* ../../docs_src/first_steps/tutorial001.py hl[3] *}", ``check.is_include``).
_OPENING = re.compile(r'^(?:/{3,}|!!!|\?\?\?\+?)[ \t]*([A-Za-z]+)(?:[ \t]*\|[ \t]*(.+?)|[ \t]+"([^"]*)")?[ \t]*$')
_CLOSING = re.compile(r"^/{3,}[ \t]*$")  # "////" closes a block inside another
_KINDS = frozenset(  # mkdocs-material's admonitions and pymdownx's blocks: "/// comment" stays a line of text
    "note abstract summary tldr info todo tip hint important success check done question help faq warning caution "
    "attention failure fail missing danger error bug example quote cite details tab admonition define".split())


def site_directive(line: str) -> str | None:
    """How the viewer shows a line of the site generator's (None: an ordinary line; "" for a closing ``///``).

    >>> site_directive("/// note | Technical Details"), site_directive('!!! tip "Use a Client"'), site_directive("///")
    ('<b>Note: Technical Details</b>', '<b>Tip: Use a Client</b>', '')
    >>> site_directive("{* ../../docs_src/first_steps/tutorial001.py hl[3] *}")
    '<i>[example code from ../../docs_src/first_steps/tutorial001.py, which is kept outside this folder]</i>'
    >>> site_directive('--8<-- "docs/snippet.md"')
    '<i>[example code from docs/snippet.md, which is kept outside this folder]</i>'
    >>> site_directive("//// tab | Python 3.10+"), site_directive("////"), site_directive("/// comment")
    ('<b>Tab: Python 3.10+</b>', '', None)
    """
    if _CLOSING.match(line):
        return ""
    opening = _OPENING.match(line)
    if opening and opening.group(1).lower() in _KINDS:
        kind, title = opening.group(1), opening.group(2) or opening.group(3)
        return f"<b>{html.escape(kind.capitalize())}{': ' + html.escape(title) if title else ''}</b>"
    if is_include(line):  # "{* path hl[3] *}", or pymdownx's '--8<-- "path"'
        path = line.removeprefix("{*").split()[0] if line.startswith("{*") else line.split(None, 1)[-1].strip("\"' ")
        return f"<i>[example code from {html.escape(path)}, which is kept outside this folder]</i>"
    return None


def _show_site_directives(tokens) -> None:
    """A paragraph's first and last lines, when they are the site generator's, show as ``site_directive`` says (a
    compact admonition holds its opening, its text and its closing in one paragraph); the lines between are read as
    one piece of markdown, as before. A paragraph of closing lines alone is not shown; headings and table cells are
    left as they are."""
    for i, token in enumerate(tokens):
        if token.type != "inline" or not token.children or i == 0 or tokens[i - 1].type != "paragraph_open":
            continue
        lines = token.content.split("\n")
        first = site_directive(lines[0].strip())
        last = site_directive(lines[-1].strip()) if len(lines) > 1 else None
        if first is None and last is None:
            continue
        body = "\n".join(lines[int(first is not None) : len(lines) - int(last is not None)]).strip()
        if not body and not first and not last and i + 1 < len(tokens):  # closing lines alone
            tokens[i - 1].hidden = tokens[i + 1].hidden = True
        pieces = [[Token("html_inline", "", 0, content=first)] if first else [],
                  _MD.parseInline(body)[0].children if body else [],
                  [Token("html_inline", "", 0, content=last)] if last else []]
        children: list = []
        for piece in filter(None, pieces):
            if children:
                children.append(Token("html_inline", "", 0, content="<br>"))
            children += piece
        token.children = children


def _drop_heading_attributes(tokens) -> None:
    """mkdocs' ``## Title { #anchor }``: the attribute list is for the site generator, not for the reader."""
    for opening, inline in zip(tokens, tokens[1:]):
        if opening.type == "heading_open" and inline.children and inline.children[-1].type == "text":
            inline.children[-1].content = without_attributes(inline.children[-1].content)


def _render_with_anchors(tokens) -> str:
    out = []
    renderer = _MD.renderer
    for i, token in enumerate(tokens):
        anchors = (token.meta or {}).get("anchors")
        if anchors:
            out.append(anchors)
        out.append(renderer.render(tokens[i : i + 1], _MD.options, {}) if token.type != "inline" else renderer.renderInline(token.children, _MD.options, {}))
    return "".join(out)


def find_all(text: str, query: str) -> list[tuple[int, int]]:
    """Every match of ``query`` in the viewer's text, in any case and apart, as QTextDocument.find finds them one by
    one (0.12 s for the 24,800 "e"s of a 150,000-character page; this, 4 ms): (start, end) at the document's
    positions, which count a letter outside the BMP (🚀) as two.

    >>> find_all("A proxy, a PROXY.", "proxy"), find_all("🚀 proxy", "proxy"), find_all("aaa", "aa"), find_all("a", "")
    ([(2, 7), (11, 16)], [(3, 8)], [(0, 2)], [])
    """
    if not query:
        return []
    found = [m.span() for m in re.finditer(re.escape(query), text, re.IGNORECASE)]
    if len(text.encode("utf-16-le")) == 2 * len(text):  # nothing outside the BMP: the positions are the same
        return found
    wide = [m.start() for m in re.finditer("[\U00010000-\U0010FFFF]", text)]
    return [(start + bisect_left(wide, start), end + bisect_left(wide, end)) for start, end in found]


def matches_text(current: int | None, total: int, searching: bool) -> str:
    """The find box's count: where it is among the matches in the file shown.

    >>> matches_text(2, 12, True), matches_text(None, 12, True), matches_text(None, 0, True), matches_text(None, 0, False)
    ('3 of 12', '12 matches', 'No matches', '')
    >>> matches_text(None, 1, True)
    '1 match'
    """
    if not searching:
        return ""
    if not total:
        return "No matches"
    return f"{current + 1} of {total}" if current is not None else f"{total} match{'es' if total > 1 else ''}"


def heading_lines(text: str) -> list[tuple[int, int, str]]:
    """(level, line, title) of every heading, for the file tree.

    >>> heading_lines("# A\\n```\\n# not\\n```\\n## B { #b }")
    [(1, 1, 'A'), (2, 5, 'B')]
    """
    return [
        (int(t.tag[1]), t.map[0] + 1, heading_title(tokens[i + 1].content))
        for tokens in [_MD.parse(text)]
        for i, t in enumerate(tokens)
        if t.type == "heading_open"
    ]
