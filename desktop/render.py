"""HTML for the chat view: questions, checked answers, the quotes shown while the model writes. Pure functions of
engine objects: no widgets here (the viewer's HTML is ``document.py``'s).

Links use private schemes the window handles itself: ``cite:T:N`` (a citation
or a source of turn T), ``sent:T:final:I`` and ``sent:T:model:I`` (sentence I
of the shown answer, or of the model's own answer, hovered for its reason).

>>> status_badge("supported")
'<span style="color:#1a7f37">✓ supported</span>'
"""

from __future__ import annotations

import html
import re

from repobot.engine.copied import shown_draft
from repobot.engine.support import ALSO
from repobot.engine.events import WRITING
from repobot.engine.quote import Choice
from repobot.engine.result import Answer
from repobot.engine.support import Support

from .labels import plain_text, reason_text, status_words

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
STOPPED_TEXT = {  # by what is shown instead of the model's answer, cut short by Stop
    "extractive": ("#9a6700", "❝ Stopped before the model's answer was complete: quoted from the documents."),
    "not_found": ("#57606a", "∅ Stopped before the model's answer was complete, and no passage was close enough to "
                             "quote."),
}
PREVIEW_TEXT = "❝ Quoted from the documents while the model writes its answer; it replaces these quotes once checked."
ADDED_BY_CHECKER = "cited by RepoBot"
STREAMING = "▍"  # after the text being written
STREAMED = '<span style="color:#57606a">'  # the text being written: grey, not checked yet
CODE_BACKGROUND = "#f6f8fa"
TURN = "turn:"  # the anchor on each question's "Q:", followed by its turn
_CITE = re.compile(r"\[(\d+)\]")


def status_badge(status: str) -> str:
    colour, icon = STATUS_STYLE[status]
    return f'<span style="color:{colour}">{icon} {status_words(status)}</span>'


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
        return f'<div>{link}{icon} code</a>{source}{code_html(s.text)}</div>'
    text = s.text[2:] if s.text.startswith("> ") else s.text  # quoted lines of an extractive answer
    section = (f'<span style="color:#57606a;font-size:small">{html.escape(plain_text(s.section))} ›</span> '
               if s.section else "")  # a quote's section heading
    added = (f' <span style="color:#8250df;font-size:small">({ADDED_BY_CHECKER})</span>'
             if part == "final" and s.cited_by == "checker" and not s.is_quote else "")
    checked = (f'<span style="color:#57606a;font-size:small">&nbsp;&nbsp;&nbsp;&nbsp;checked as: '
               f'{_inline(s.checked_as, turn)}</span><br>' if part == "final" and s.checked_as else "")
    hover = html.escape(reason_text(s.explained), quote=True)  # on the words too, not only on the mark
    return (f'{link}{icon}</a> {section}<span style="color:{colour}" title="{hover}">{_inline(text, turn)}</span>{added} '
            f'<span style="color:{colour};font-size:small">[{status_words(s.status)}]</span><br>{checked}')


def question_html(question: str, searched_for: str = "", turn: int = -1) -> str:
    """The question, and what was searched for when it was rewritten; "Q:" is named after its turn (-1: the one being
    answered), so that the panel knows which answer the reader is in.

    >>> question_html("重定向?", "Redirects?", 0)
    '<p style="margin-top:14px"><a name="turn:0"><b>Q:</b></a> 重定向?<br><span style="color:#57606a;font-size:small">searched for: Redirects?</span></p>'
    """
    searched = (f'<br><span style="color:#57606a;font-size:small">searched for: {html.escape(searched_for)}</span>'
                if searched_for and searched_for != question else "")
    return f'<p style="margin-top:14px"><a name="{TURN}{turn}"><b>Q:</b></a> {html.escape(question)}{searched}</p>'


def answer_html(turn: int, answer: Answer, missing_label: str = "", changed: set[int] = frozenset()) -> str:
    """One finished question and answer: verdict, final answer, sources, timings, checked model answer.

    ``changed`` holds the ids of sources whose file changed since the answer was given.
    """
    stopped = answer.stop_reason == "cancelled" and answer.verdict in STOPPED_TEXT  # nothing failed: it was stopped
    colour, verdict = STOPPED_TEXT[answer.verdict] if stopped else VERDICT_TEXT[answer.verdict]
    parts = [question_html(answer.question, answer.searched_for, turn), f'<p style="color:{colour}"><b>{verdict}</b></p>']
    if answer.final_sentences:
        parts.append("<p>" + "".join(sentence_html(turn, "final", i, s) for i, s in enumerate(answer.final_sentences)) + "</p>")
    else:
        parts.append("<p>" + "<br>".join(_inline(line, turn) for line in answer.final_answer.splitlines()) + "</p>")
    if answer.missing_terms and missing_label:
        parts.append(f'<p style="color:#57606a">{html.escape(missing_label.format(terms=", ".join(answer.missing_terms)))}</p>')
    if answer.sources:
        parts.append(sources_html(turn, answer.sources, changed))
    parts.append(f'<p style="color:#57606a;font-size:small">{timings_text(answer)}</p>')
    parts += [f'<p style="color:#9a6700;font-size:small">{html.escape(note)}</p>' for note in answer.notes]
    if answer.verdict != "verified" and answer.sentences:
        parts.append('<p style="color:#57606a"><b>The model\'s own answer, checked sentence by sentence:</b><br>')
        parts += [sentence_html(turn, "model", i, s) for i, s in enumerate(answer.sentences)]
        parts.append("</p>")
    return "\n".join(parts)


def sources_html(turn: int, sources, changed: set[int] = frozenset()) -> str:
    """The sources, one to a line with the section they come from (side by side, a path wrapped inside itself).

    >>> from repobot.engine.chunk import Chunk
    >>> from repobot.engine.retrieve import Hit
    >>> hit = Hit(2, 0, Chunk("guide/redirects.md", "Redirects > Enabling", 5, 9, "…"), 0.03)
    >>> print(sources_html(0, [hit], {2}))
    <p><b>Sources:</b><br><a href="cite:0:2">[2] guide/redirects.md</a> <span style="color:#57606a;font-size:small">Redirects &gt; Enabling</span> <span style="color:#9a6700;font-size:small">(changed since this answer)</span></p>
    """
    lines = []
    for h in sources:
        heading = f' <span style="color:#57606a;font-size:small">{html.escape(plain_text(h.chunk.heading))}</span>' if h.chunk.heading else ""
        flag = ' <span style="color:#9a6700;font-size:small">(changed since this answer)</span>' if h.rank in changed else ""
        lines.append(f'<a href="cite:{turn}:{h.rank}">[{h.rank}] {html.escape(h.chunk.source)}</a>{heading}{flag}')
    return "<p><b>Sources:</b><br>" + "<br>".join(lines) + "</p>"


def timings_text(answer: Answer) -> str:
    t = answer.timings
    first = f"{t.first_token_ms:.0f} ms" if t.first_token_ms is not None else "–"
    quotes = f"{t.first_content_ms:.0f} ms" if t.first_content_ms is not None else "–"
    return (f"retrieve {t.retrieve_ms:.0f} ms · quotes {quotes} · first token {first} · total {t.total_ms:.0f} ms · "
            f"{t.tokens_per_s:.0f} tokens/s · {html.escape(answer.model)}")


def pending_html(question: str, preview: Choice | None, writing: str = WRITING) -> str:
    """While the model writes: the quotes shown at once, then a grey line (``writing``: in which language the model
    writes, when it is not the answer's), and last a block with the cursor mark alone, which the chat panel replaces
    with ``streamed_html`` of the text so far (it redraws that block only, not the answers above)."""
    parts = [question_html(question)]
    if preview is not None:
        parts.append(f'<p style="color:#9a6700"><b>{PREVIEW_TEXT}</b></p>')
        parts.append("<p>" + "".join(sentence_html(-1, "preview", i, s) for i, s in enumerate(preview.sentences)) + "</p>")
    parts.append(f'<p style="color:#57606a"><i>{html.escape(writing)}</i></p>')
    parts.append(f'<div style="color:#57606a">{STREAMING}</div>')
    return "\n".join(parts)


def streamed_html(draft: str) -> str:
    """The model's text so far, grey (not checked yet), with the mark that more is coming; what it copied from the
    prompt (the worked example, the passages' tags), which the checked answer leaves out, is not shown.

    >>> streamed_html("Off by default [1].")
    '<span style="color:#57606a">Off by default <a href="cite:-1:1">[1]</a>.▍</span>'
    """
    return f'{STREAMED}{draft_html(shown_draft(draft))}{STREAMING}</span>'


def opens_with_code(streamed: str) -> bool:
    r"""Whether ``streamed_html``'s markup begins with a code block (which the chat panel gives its block's format).

    >>> opens_with_code(streamed_html("```python\nx = 1")), opens_with_code(streamed_html("Use `x`."))
    (True, False)
    """
    return streamed.startswith(STREAMED + "<pre")


def draft_html(text: str) -> str:
    r"""The model's text as far as it has come, shown as the checked answer will be: fenced code as a block (from its
    opening fence, before the closing one has come), `code`, **bold** and bullets; its citations open the passages
    being answered from (turn -1). In the line being written, a code span is code from its opening backtick and a
    bold span bold from its opening ``**``.

    >>> draft_html("Use `follow_redirects=True` [1].\n```python\nhttpx.get(u")
    'Use <code>follow_redirects=True</code> <a href="cite:-1:1">[1]</a>.<pre style="background:#f6f8fa">httpx.get(u</pre>'
    >>> draft_html("- one\n- **two")
    '• one<br>• <b>two</b>'
    """
    blocks, lines, code = [], [], None  # code: the fenced block's lines while inside one
    written = text.split("\n")
    for n, line in enumerate(written):
        if n == len(written) - 1 and code is None:  # the line being written
            line = close_open_bold(close_open_code(line))
        if line.lstrip().startswith("```"):
            if code is None:
                blocks.append("<br>".join(lines))
                lines, code = [], []
            else:
                blocks.append(code_html("\n".join(code)))
                code = None
        elif code is not None:
            code.append(line)
        else:
            bullet = re.match(r"\s*[-*] (.*)", line)
            lines.append("• " + _inline(bullet[1], -1) if bullet else _inline(line, -1))
    blocks.append("<br>".join(lines) if code is None else code_html("\n".join(code)))
    return "".join(b for b in blocks if b)


def close_open_code(line: str) -> str:
    """The line being written, its code span shown as code before its closing backtick comes (a lone "`" showed
    until then): closed at the line's end, or left out while nothing follows it; a fence being typed shows nothing.

    >>> close_open_code("Pass `follow_red"), close_open_code("Pass `"), close_open_code("``"), close_open_code("`a` b")
    ('Pass `follow_red`', 'Pass ', '', '`a` b')
    >>> close_open_code("```")  # a whole fence: the code block it opens (it showed as "``")
    '```'
    """
    if line.lstrip().startswith("```"):
        return line
    if line.strip() in ("`", "``"):
        return ""
    if line.count("`") % 2 == 0:
        return line
    return line[:-1] if line.endswith("`") else line + "`"


def close_open_bold(line: str) -> str:
    """The line being written (its code spans closed), its bold span bold before the closing ``**`` comes (the marks
    showed as typed until then): closed at the line's end; the marks left out while nothing follows them, or when
    the span holds code or a lone ``*`` (which ``_inline`` cannot make bold); ``2 ** 3`` is not an opening.

    >>> close_open_bold("It is **not"), close_open_bold("It is **"), close_open_bold("**a** and `**kw`")
    ('It is **not**', 'It is ', '**a** and `**kw`')
    >>> close_open_bold("x ** 2"), close_open_bold("**Use `x`"), close_open_bold("* item **bo")
    ('x ** 2', 'Use `x`', '* item **bo**')
    """
    pieces = re.split(r"(`[^`]+`)", line)  # code spans at odd places
    marks = [(i, m.start()) for i, piece in enumerate(pieces) if i % 2 == 0 for m in re.finditer(r"\*\*", piece)]
    if len(marks) % 2 == 0:
        return line
    i, at = marks[-1]
    before, after = "".join(pieces[:i]) + pieces[i][:at], pieces[i][at + 2:] + "".join(pieces[i + 1:])
    if after[:1].isspace():
        return line
    return before + after if not after or "`" in after or "*" in after else line + "**"


def code_html(code: str) -> str:
    """A code block, as the checked answer and the streamed text both show one.

    >>> code_html("a < b")
    '<pre style="background:#f6f8fa">a &lt; b</pre>'
    """
    return f'<pre style="background:{CODE_BACKGROUND}">{html.escape(code)}</pre>'
