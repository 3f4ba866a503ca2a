"""HTML for the chat view and the document viewer. Pure functions of engine objects: no widgets here.

Links use private schemes the window handles itself: ``cite:T:N`` (a citation
or a source of turn T), ``sent:T:final:I`` and ``sent:T:model:I`` (sentence I
of the shown answer, or of the model's own answer, hovered for its reason).
Remote links and images are never loaded: images become a
link the user must click and confirm.

>>> status_badge("supported")
'<span style="color:#1a7f37">✓ supported</span>'
"""

from __future__ import annotations

import html
import re
from typing import NamedTuple

from markdown_it import MarkdownIt
from markdown_it.token import Token

from repobot.engine.support import ALSO
from repobot.engine.events import WRITING
from repobot.engine.quote import Choice
from repobot.engine.result import Answer
from repobot.engine.support import Support
from repobot.engine.markup import heading_title, without_attributes

STATUS_STYLE = {
    "supported": ("#1a7f37", "✓"),
    "miscited": ("#9a6700", "↺"),
    "unsupported": ("#cf222e", "✗"),
    "uncited": ("#0969da", "?"),
    "exempt": ("#57606a", "·"),
}
VERDICT_TEXT = {
    "verified": ("#1a7f37", "✓ Verified: every sentence shown is supported by the passage it cites."),
    "extractive": ("#9a6700", "❝ Quoted from the documents: the model's own answer failed the checks (see below)."),
    "not_found": ("#57606a", "∅ Not found in the documents."),
    "unreadable": ("#cf222e", "⚠ This saved turn's details could not be read back: only its question and answer are shown."),
}
STOPPED_TEXT = ("#9a6700", "❝ Stopped before the model's answer was complete: quoted from the documents.")
PREVIEW_TEXT = "❝ Quoted from the documents while the model writes its answer; it replaces these quotes once checked."
ADDED_BY_CHECKER = "cited by RepoBot"
HIGHLIGHT = "#fff1a8"
_CITE = re.compile(r"\[(\d+)\]")


def status_badge(status: str) -> str:
    colour, icon = STATUS_STYLE[status]
    return f'<span style="color:{colour}">{icon} {status}</span>'


def link_citations(escaped: str, turn: int) -> str:
    """Turn [n] in already-escaped text into links to passage n of that turn.

    >>> link_citations("Off by default [1][3].", 0)
    'Off by default <a href="cite:0:1">[1]</a><a href="cite:0:3">[3]</a>.'
    """
    return _CITE.sub(rf'<a href="cite:{turn}:\1">[\1]</a>', escaped)


def _inline(text: str, turn: int) -> str:
    """Escape text, render `code` spans and **bold** outside them, link citations.

    >>> _inline("It is **not** `**kwargs` [2].", 0)
    'It is <b>not</b> <code>**kwargs</code> <a href="cite:0:2">[2]</a>.'
    """
    pieces = re.split(r"`([^`]+)`", html.escape(text, quote=False))  # the code spans' insides at odd places
    rendered = "".join(f"<code>{p}</code>" if i % 2 else re.sub(r"\*\*([^*\n]+)\*\*", r"<b>\1</b>", p)
                       for i, p in enumerate(pieces))
    return link_citations(rendered, turn)


def sentence_html(turn: int, part: str, index: int, s: Support) -> str:
    """One checked sentence (or code block) with its status in colour and icon; ``part`` is final or model.

    >>> s = Support("Off by default [1].", [1], "supported", {1: 0.9}, None, "", False, "checker")
    >>> print(sentence_html(0, "final", 0, s))
    <a href="sent:0:final:0" style="color:#1a7f37;text-decoration:none">✓</a> <span style="color:#1a7f37" title="supported: ">Off by default <a href="cite:0:1">[1]</a>.</span> <span style="color:#8250df;font-size:small">(cited by RepoBot)</span> <span style="color:#1a7f37;font-size:small">[supported]</span><br>
    >>> code = Support("get(url)", [], "supported", {2: 1.0}, 2, "", True, "checker", example="get(url)")
    >>> 'example, from <a href="cite:0:2">[2]</a>, in place of' in sentence_html(0, "final", 1, code)
    True
    >>> sentence_html(0, "final", 2, Support("Also in the documents:", [], "exempt", {}, None, ALSO))
    '<br><b>Also in the documents:</b><br>'
    >>> zh = Support("默认不跟随 [1]。", [1], "supported", {1: 0.9}, None, "", checked_as="It is **not** followed.")
    >>> sentence_html(0, "final", 3, zh).endswith("checked as: It is <b>not</b> followed.</span><br>")  # translated
    True
    """
    if s.reason == ALSO:  # the label over the quotes after a checked answer
        return f'<br><b>{html.escape(s.text)}</b><br>'
    colour, icon = STATUS_STYLE[s.status]
    link = f'<a href="sent:{turn}:{part}:{index}" style="color:{colour};text-decoration:none">'
    if s.is_code:
        source = (f' <span style="color:#8250df;font-size:small">(the documents\' example, from '
                  f'{link_citations(f"[{s.suggested}]", turn)}, in place of the model\'s)</span>'
                  if part == "final" and s.example and s.suggested else "")
        return f'<div>{link}{icon} code</a>{source}<pre style="background:#f6f8fa">{html.escape(s.text)}</pre></div>'
    text = s.text[2:] if s.text.startswith("> ") else s.text  # quoted lines of an extractive answer
    section = (f'<span style="color:#57606a;font-size:small">{html.escape(s.section)} ›</span> '
               if s.section else "")  # a quote's section heading
    added = (f' <span style="color:#8250df;font-size:small">({ADDED_BY_CHECKER})</span>'
             if part == "final" and s.cited_by == "checker" and not s.is_quote else "")
    checked = (f'<span style="color:#57606a;font-size:small">&nbsp;&nbsp;&nbsp;&nbsp;checked as: '
               f'{_inline(s.checked_as, turn)}</span><br>' if part == "final" and s.checked_as else "")
    hover = html.escape(s.explained, quote=True)  # on the words too, not only on the mark
    return (f'{link}{icon}</a> {section}<span style="color:{colour}" title="{hover}">{_inline(text, turn)}</span>{added} '
            f'<span style="color:{colour};font-size:small">[{s.status}]</span><br>{checked}')


def question_html(question: str, searched_for: str = "") -> str:
    """The question, and what was searched for when it was rewritten.

    >>> question_html("重定向?", "Redirects?")
    '<p style="margin-top:14px"><b>Q:</b> 重定向?<br><span style="color:#57606a;font-size:small">searched for: Redirects?</span></p>'
    """
    searched = (f'<br><span style="color:#57606a;font-size:small">searched for: {html.escape(searched_for)}</span>'
                if searched_for and searched_for != question else "")
    return f'<p style="margin-top:14px"><b>Q:</b> {html.escape(question)}{searched}</p>'


def answer_html(turn: int, answer: Answer, missing_label: str = "", changed: set[int] = frozenset()) -> str:
    """One finished question and answer: verdict, final answer, sources, timings, checked model answer.

    ``changed`` holds the ids of sources whose file changed since the answer was given.
    """
    stopped = answer.stop_reason == "cancelled" and answer.verdict == "extractive"  # nothing failed: it was stopped
    colour, verdict = STOPPED_TEXT if stopped else VERDICT_TEXT[answer.verdict]
    parts = [question_html(answer.question, answer.searched_for), f'<p style="color:{colour}"><b>{verdict}</b></p>']
    if answer.final_sentences:
        parts.append("<p>" + "".join(sentence_html(turn, "final", i, s) for i, s in enumerate(answer.final_sentences)) + "</p>")
    else:
        parts.append("<p>" + "<br>".join(_inline(line, turn) for line in answer.final_answer.splitlines()) + "</p>")
    if answer.missing_terms and missing_label:
        parts.append(f'<p style="color:#57606a">{html.escape(missing_label.format(terms=", ".join(answer.missing_terms)))}</p>')
    if answer.sources:
        links = "  ".join(
            f'<a href="cite:{turn}:{h.rank}">[{h.rank}] {html.escape(h.chunk.source)}</a>'
            + (' <span style="color:#9a6700;font-size:small">(changed since this answer)</span>' if h.rank in changed else "")
            for h in answer.sources)
        parts.append(f"<p><b>Sources:</b> {links}</p>")
    parts.append(f'<p style="color:#57606a;font-size:small">{timings_text(answer)}</p>')
    parts += [f'<p style="color:#9a6700;font-size:small">{html.escape(note)}</p>' for note in answer.notes]
    if answer.verdict != "verified" and answer.sentences:
        parts.append('<p style="color:#57606a"><b>The model\'s own answer, checked sentence by sentence:</b><br>')
        parts += [sentence_html(turn, "model", i, s) for i, s in enumerate(answer.sentences)]
        parts.append("</p>")
    return "\n".join(parts)


def timings_text(answer: Answer) -> str:
    t = answer.timings
    first = f"{t.first_token_ms:.0f} ms" if t.first_token_ms is not None else "–"
    quotes = f"{t.first_content_ms:.0f} ms" if t.first_content_ms is not None else "–"
    return (f"retrieve {t.retrieve_ms:.0f} ms · quotes {quotes} · first token {first} · total {t.total_ms:.0f} ms · "
            f"{t.tokens_per_s:.0f} tokens/s · {html.escape(answer.model)}")


def pending_html(question: str, preview: Choice | None, writing: str = WRITING) -> str:
    """While the model writes: the quotes shown at once, then a grey line (``writing``: in which language the model
    writes, when it is not the answer's) under which its text streams in (the chat panel adds each piece at the end),
    visibly not yet checked."""
    parts = [question_html(question)]
    if preview is not None:
        parts.append(f'<p style="color:#9a6700"><b>{PREVIEW_TEXT}</b></p>')
        parts.append("<p>" + "".join(sentence_html(-1, "preview", i, s) for i, s in enumerate(preview.sentences)) + "</p>")
    parts.append(f'<p style="color:#57606a"><i>{html.escape(writing)}</i><br>▍</p>')
    return "\n".join(parts)


# --- the document viewer -------------------------------------------------------------

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
# the docs folder ("{* ../../docs_src/first_steps/tutorial001.py hl[3] *}").
_OPENING = re.compile(r'^(?:/{3,}|!!!|\?\?\?\+?)[ \t]*([A-Za-z]+)(?:[ \t]*\|[ \t]*(.+?)|[ \t]+"([^"]*)")?[ \t]*$')
_CLOSING = re.compile(r"^/{3,}[ \t]*$")  # "////" closes a block inside another
_INCLUDE = re.compile(r"^\{\*[ \t]*(\S+).*\*\}[ \t]*$")
_KINDS = frozenset(  # mkdocs-material's admonitions and pymdownx's blocks: "/// comment" stays a line of text
    "note abstract summary tldr info todo tip hint important success check done question help faq warning caution "
    "attention failure fail missing danger error bug example quote cite details tab admonition define".split())


def site_directive(line: str) -> str | None:
    """How the viewer shows a line of the site generator's (None: an ordinary line; "" for a closing ``///``).

    >>> site_directive("/// note | Technical Details"), site_directive('!!! tip "Use a Client"'), site_directive("///")
    ('<b>Note: Technical Details</b>', '<b>Tip: Use a Client</b>', '')
    >>> site_directive("{* ../../docs_src/first_steps/tutorial001.py hl[3] *}")
    '<i>[example code from ../../docs_src/first_steps/tutorial001.py, which is kept outside this folder]</i>'
    >>> site_directive("//// tab | Python 3.10+"), site_directive("////"), site_directive("/// comment")
    ('<b>Tab: Python 3.10+</b>', '', None)
    """
    if _CLOSING.match(line):
        return ""
    opening = _OPENING.match(line)
    if opening and opening.group(1).lower() in _KINDS:
        kind, title = opening.group(1), opening.group(2) or opening.group(3)
        return f"<b>{html.escape(kind.capitalize())}{': ' + html.escape(title) if title else ''}</b>"
    if include := _INCLUDE.match(line):
        return f"<i>[example code from {html.escape(include.group(1))}, which is kept outside this folder]</i>"
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
