"""What the ``repobot`` command prints for an answer and for an index, in plain text."""

from __future__ import annotations

import json
import re
import unicodedata
from typing import Sequence, TextIO

from repobot.engine.answer import claims
from repobot.engine.events import Checking, Drafting, Preview, Retrieved, Token
from repobot.engine.export import MARK
from repobot.engine.languages import answer_language, command_line_note, language, note_in, said
from repobot.engine.result import Answer


def one_line(text: str) -> str:
    r"""``text`` as one printable line: a newline, a terminal escape or an undecodable byte kept from a
    file name or an argument is shown escaped, not sent to the terminal.

    >>> print(one_line("cannot read a\nb.md \x1b[31m café \udcff"))
    cannot read a\nb.md \x1b[31m café \udcff
    """
    return "".join(ch if ch.isprintable() else ascii(ch)[1:-1] for ch in text)


def terminal_text(text: str) -> str:
    r"""``text`` as the terminal should show it, lines kept: a control character from a page or a file name (a
    terminal escape that would clear the screen, retitle the window or hide words) is shown escaped, not obeyed.

    >>> print(terminal_text("set \x1b[8mhidden\x1b[0m wombat_timeout=5\nnext line\r \u202egnp.exe"))
    set \x1b[8mhidden\x1b[0m wombat_timeout=5
    next line\r \u202egnp.exe

    Spaces of every script stay (a no-break space, the ideographic space of Chinese text):

    >>> terminal_text("默认\u3000不跟随\xa0[1]") == "默认\u3000不跟随\xa0[1]"
    True
    """
    return "".join(ascii(ch)[1:-1] if ch not in "\n\t" and unicodedata.category(ch) in _HIDDEN else ch for ch in text)


_HIDDEN = {"Cc", "Cf", "Zl", "Zp", "Cs"}  # controls, format marks (U+202E reverses a line), line breaks of their own


class Terminal:
    """A text stream whose writes go through ``terminal_text``: what the documents say is printed, never obeyed."""

    def __init__(self, stream: TextIO):
        self.stream = stream

    def write(self, text: str) -> int:
        return self.stream.write(terminal_text(text))

    def __getattr__(self, name: str):
        return getattr(self.stream, name)


def json_text(data, indent: int | None = 2) -> str:
    r"""``data`` as JSON that strict tools accept: a byte of a name that is not UTF-8 (kept by Python as a lone
    surrogate, which is not valid Unicode) is written ``\xff``, as the warnings name such files.

    >>> print(json_text({"source": "caf\udce9.md", "title": "重定向"}, indent=None))
    {"source": "caf\\xe9.md", "title": "重定向"}
    """
    text = json.dumps(data, ensure_ascii=False, indent=indent)
    return _SURROGATE.sub(lambda m: f"\\\\x{ord(m[0]) - 0xDC00:02x}" if m[0] >= "\udc80" else "\ufffd", text)


_SURROGATE = re.compile("[\ud800-\udfff]")


def said_in(code: str) -> dict[str, str]:
    """The command line's labels in an answer's language (``languages.json``), English for any other.

    >>> said_in("zh")["verdict"].format(verdict=said_in("zh")["extractive"]), said_in("ko")["sources"]
    ('结论：摘自文档', 'Sources:')
    """
    return answer_language(code).command_line


def labelled(label: str, text: str) -> str:
    """``text`` after its label, a space between them unless the label ends on a full-width colon.

    >>> labelled("Sources:", "[1] a.md"), labelled("来源：", "[1] a.md")
    ('Sources: [1] a.md', '来源：[1] a.md')
    """
    return label + ("" if label.endswith("：") else " ") + text


def status_column(status: str, words: dict[str, str]) -> str:
    """A sentence's status in ``words``' language, padded to the widest of them as a terminal shows it (an
    ideograph takes two columns).

    >>> status_column("uncited", said_in("en")), status_column("exempt", said_in("zh")), status_column("miscited", said_in("zh"))
    ('uncited    ', '不计入  ', '引用有误')
    """
    width = max(columns(words[name]) for name in MARK)
    return words[status] + " " * (width - columns(words[status]))


def columns(text: str) -> int:
    return sum(2 if unicodedata.east_asian_width(ch) in "WF" else 1 for ch in text)


def print_event(event, out: TextIO, open_line: bool = False) -> bool:
    """One streamed step of ``repobot ask`` as it comes: the passages retrieved, the quotes, the line over the model's
    draft, its tokens, and, when a translation makes the check last (a few seconds to half a minute), what is being
    done meanwhile (the checked answer comes with ``print_answer``). Returns whether the text now ends mid-line
    (``open_line``: whether it did before).

    >>> import io; out = io.StringIO()
    >>> print_event(Token("Use a proxy"), out), print_event(Checking("en", "en", "en"), out, open_line=True)
    (True, True)
    >>> print_event(Checking("en", "fr", "en"), out, open_line=True); print(out.getvalue().splitlines()[-1])
    False
    Vérification du jet d'après les passages, puis traduction de la réponse vérifiée en français…
    """
    above = "\n\n" if open_line else "\n"  # a line of its own, a blank line above it
    if isinstance(event, Retrieved):
        hits = "  ".join(f"[{h.rank}] {h.chunk.source}" for h in event.hits)
        print(one_line(labelled(said_in(event.language)["retrieved"], hits)), file=out)
    elif isinstance(event, Preview):
        print(event.choice.text, file=out)
    elif isinstance(event, Drafting):
        print(f"{above}{event.said_in(event.shown_in)}", file=out)
    elif isinstance(event, Token):
        out.write(event.text)
        out.flush()
        return not event.text.endswith("\n")
    elif isinstance(event, Checking) and event.translates:
        print(f"{above}{event.said_in(event.shown_in)}", file=out, flush=True)
    else:
        return open_line
    return False


def first_line(text: str) -> str:
    """The line that stands for a sentence or a code block in a list: its first line, or for code the first that is
    not a comment (two of a page's blocks often open on the same one).

    >>> first_line("# Using the top-level API:\\nhttpx.get(url, timeout=None)\\n# Using a client:")
    'httpx.get(url, timeout=None)'
    >>> first_line("Off by default [1]."), first_line("# only a comment")
    ('Off by default [1].', '# only a comment')
    """
    lines = [line.strip() for line in text.strip().splitlines() if line.strip()] or [""]
    return next((line for line in lines if not line.startswith(("#", "//"))), lines[0])


def print_answer(answer: Answer, out: TextIO, said_before: Sequence[str] = ()) -> None:
    """The check of the model's answer, the verdict, the answer shown, its sources, notes (but those
    ``said_before`` it began) and timings, in the answer's language (``said_in``; a note ``languages.json`` lacks
    in English)."""
    words = said_in(answer.language)
    print(file=out)
    if answer.searched_for != answer.question:
        print(words["searched_for"].format(query=answer.searched_for), file=out)
    check = answer.check
    if answer.stop_reason == "gate":
        print(words["not_generated"].format(terms=", ".join(answer.missing_terms)), file=out)
    else:
        # uncited: of the sentences listed under it, the claims that cite nothing (the form check's ``uncited``, in
        # the JSON, also counts what the list shows as exempt: headings, HTML fragments, the fixed phrase)
        uncited = [s for s in claims(answer.sentences) if not s.cited and not s.is_code]
        print(words["check"].format(cited=check.cited, invalid=check.invalid or words["none"], uncited=len(uncited)),
              file=out)
        for s in answer.sentences:
            line = first_line(s.text)
            label = line[:90] + (" …" if len(line) > 90 or line != s.text.strip() else "")
            print(f"  {MARK[s.status]} {status_column(s.status, words)} {label}", file=out)
    print("\n" + words["verdict"].format(verdict=words.get(answer.verdict, answer.verdict)) + "\n", file=out)
    print(with_checked_as(answer, words["checked_as"]), file=out)
    if answer.missing_terms:
        print(language(answer.language).missing_label.format(terms=", ".join(answer.missing_terms)), file=out)
    print_added(answer, words, out)
    if answer.sources:
        spans = "  ".join(f"[{h.rank}] {h.chunk.source}:{h.chunk.start}-{h.chunk.end}" for h in answer.sources)
        print("\n" + one_line(labelled(words["sources"], spans)), file=out)
    code = answer.language
    for note in answer.notes:
        if note not in said_before:
            note = command_line_note(note)
            shown = note_in(note, code)  # in English when the languages file lacks it, "note:" included
            print(said(code if shown != note else "en", "note", note=shown), file=out)
    t = answer.timings
    first = f"{t.first_token_ms:.0f} ms" if t.first_token_ms is not None else "-"
    quotes = f"{t.first_content_ms:.0f} ms" if t.first_content_ms is not None else "-"
    times = {"retrieve": f"{t.retrieve_ms:.0f}", "quotes": quotes, "total": f"{t.total_ms:.0f}"}
    if answer.stop_reason == "gate":  # refused before the model ran: it has no timings
        print(said(code, "timings_gate", **times), file=out)
    else:
        print(said(code, "timings", first=first, prompt=t.prompt_tokens, speed=f"{t.tokens_per_s:.1f}", **times),
              file=out)
    if answer.conversation is not None:  # None: it could not be saved, and a warning said why
        print(words["saved"].format(id=answer.conversation), file=out)


def print_added(answer: Answer, words: dict[str, str], out: TextIO) -> None:
    """Under a verified answer, the citations RepoBot gave the model's sentences: listed one by one when the model
    kept some of its own; when every citation is RepoBot's, one line says so and only code (which carries no [n])
    is listed, with the passage it was found in, so that the answer is not printed twice.

    >>> import io; from repobot.engine.support import Support; out = io.StringIO()
    >>> added = [Support("Off by default [1].", [1], "supported", {}, None, "", cited_by="checker"),
    ...          Support("client.get(url)", [], "supported", {}, 2, "", True, "checker")]
    >>> print_added(Answer("Q?", "en", "m", [], [], final_sentences=added, verdict="verified"), said_in("en"), out)
    >>> print(out.getvalue().strip())
    Every citation in the model's answer was added or corrected by RepoBot.
      [2] client.get(url)
    >>> own = Support("Use a client [3].", [3], "supported", {}, None, "", cited_by="model"); out = io.StringIO()
    >>> print_added(Answer("Q?", "en", "m", [], [], final_sentences=[own] + added, verdict="verified"), said_in("en"), out)
    >>> print(out.getvalue().strip())
    Citations added or corrected by RepoBot (the model did not give them):
      [1] Off by default [1].
      [2] client.get(url)
    """
    if answer.verdict != "verified":
        return
    model = [s for s in answer.final_sentences if not s.is_quote and s.cited_by]
    added = [s for s in model if s.cited_by == "checker"]
    if not added:
        return
    every = len(added) == len(model)
    print("\n" + words["added_all" if every else "added"], file=out)
    for s in added:  # a code block names its passage in ``suggested`` (code carries no [n])
        if every and not s.is_code:
            continue
        ids = s.cited or ([s.suggested] if s.suggested else [])
        code = first_line(s.text)[:90]
        print(f"  {''.join(f'[{i}]' for i in ids)} {labelled(words['example'], code) if s.example else code}", file=out)


def with_checked_as(answer: Answer, label: str = "checked as:") -> str:
    """The final answer, with the text each translated sentence was checked as on an indented line under the line
    that holds it, as the window shows it.

    >>> from repobot.engine.support import Support
    >>> zh = [Support("默认不跟随 [1]。", [1], "supported", {}, None, "", checked_as="Not followed by default."),
    ...       Support("传入 `follow_redirects=True` [2]：", [2], "exempt", {}, None, "", checked_as="Pass it:"),
    ...       Support("client.get(url, follow_redirects=True)", [], "supported", {}, 2, "", True)]
    >>> print(with_checked_as(Answer("Q?", "zh", "m", [], [], final_sentences=zh, final_answer=(
    ...     "默认不跟随 [1]。传入 `follow_redirects=True` [2]：\\n\\n```python\\nclient.get(url, follow_redirects=True)\\n```"))))
    默认不跟随 [1]。传入 `follow_redirects=True` [2]：
        checked as: Not followed by default.
        checked as: Pass it:
    <BLANKLINE>
    ```python
    client.get(url, follow_redirects=True)
    ```
    """
    text, position, under = answer.final_answer, 0, {}
    for s in answer.final_sentences:
        found = text.find(s.text, position) if s.checked_as and not s.is_code else -1
        if found < 0:
            continue
        position = found + len(s.text.rstrip("\n"))
        under.setdefault(text.count("\n", 0, position), []).append(" ".join(s.checked_as.split()))
    lines = []
    for n, line in enumerate(text.split("\n")):
        lines += [line] + [f"    {labelled(label, english)}" for english in under.get(n, [])]
    return "\n".join(lines)


def print_index(pipe, report, problems: list[dict], out: TextIO, err: TextIO) -> None:
    collection = pipe.collection
    for note in collection.notes:
        print(one_line(f"note: {note}"), file=err)
    for p in problems:
        print(one_line(f"warning: {p['source']}: {p['problem']}"), file=err)
    if collection.available:
        chosen = ", ".join(sorted(collection.selected)) if collection.selected else "all"
        have = ", ".join(f"{k} {v}" for k, v in sorted(collection.available.items()))
        print(f"languages: {chosen} (the folder has {have}; choose with --languages en,zh)", file=out)
    print(
        f"{len(pipe.index.files)} files, {len(pipe.index.chunks)} chunks, {report.seconds:.1f} s "
        f"(added {len(report.added)}, updated {len(report.updated)}, removed {len(report.removed)}, "
        f"unchanged {len(report.unchanged)}; embedded {report.embedded_chunks} chunks with {pipe.index.embedder})",
        file=out,
    )
