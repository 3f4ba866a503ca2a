"""Text: the small pieces of text analysis every later step shares, written once.

Code fences, inline code, ``[n]`` citations and sentences (the lesson's rules
plus English and French sentence ends). Pure functions of strings; nothing here
knows about passages or models (``markup`` reduces markdown and HTML to words;
``names`` finds the identifiers and numbers a sentence names).

>>> split_sentences("Off by default [1]. Enable it:\\n```\\nget(url, follow_redirects=True)\\n```\\n默认不会 [2]。")
['Off by default [1].', 'Enable it:', '默认不会 [2]。']
"""

from __future__ import annotations

import re
from typing import Callable, NamedTuple

# --- scripts ----------------------------------------------------------------------
KANA = "\u3040-\u30ff"
HANGUL = "\uac00-\ud7af"
CJK_IDEOGRAPHS = "\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff"
CJK = KANA + CJK_IDEOGRAPHS + HANGUL  # the one CJK range: text written without spaces between words
CJK_CHAR = re.compile(f"[{CJK}]")
LETTER = re.compile(r"[^\W\d_]")  # a letter of any script: no digit, no underscore


def has_cjk(text: str) -> bool:
    """Whether the text has kana, ideographs or hangul.

    >>> has_cjk("httpx 支持"), has_cjk("httpx")
    (True, False)
    """
    return bool(CJK_CHAR.search(text))


# --- code fences and inline code ----------------------------------------------------------
_FENCE_BLOCK = re.compile(r"(`{3,}|~{3,})[^\n]*\n?(.*?)(?:\1|\Z)", re.S)
_FENCE_LINE = re.compile(r"^[ \t]{0,3}(`{3,}|~{3,})")
_INLINE_CODE = re.compile(r"`([^`\n]+)`")


class Segment(NamedTuple):
    text: str
    is_code: bool  # the body of a fenced code block (fence lines and info string removed)


def segments(text: str) -> list[Segment]:
    """Prose and fenced code in order; a fence left open runs to the end (as the lesson's check reads it).

    >>> segments("Use it:\\n```python\\nx = a[1]\\n```\\nDone [2].")
    [Segment(text='Use it:\\n', is_code=False), Segment(text='x = a[1]\\n', is_code=True), Segment(text='\\nDone [2].', is_code=False)]
    """
    out: list[Segment] = []
    position = 0
    for match in _FENCE_BLOCK.finditer(text):
        if match.start() > position:
            out.append(Segment(text[position : match.start()], False))
        out.append(Segment(match.group(2), True))
        position = match.end()
    if position < len(text):
        out.append(Segment(text[position:], False))
    return out


def outside_code(text: str, change) -> str:
    """``text`` with ``change`` applied to its prose; fenced code blocks (as ``segments`` reads them) stay as they are.

    >>> outside_code("a\\n```\\na\\n```\\na", str.upper)
    'A\\n```\\na\\n```\\nA'
    """
    out, position = [], 0
    for match in _FENCE_BLOCK.finditer(text):
        out += [change(text[position : match.start()]), match.group(0)]
        position = match.end()
    return "".join(out + [change(text[position:])])


_FENCE_LINE = re.compile(r"^[ \t]*(`{3,}|~{3,})", re.M)


def close_open_fence(text: str) -> str:
    """``text`` with a fenced code block left open at its end closed (an answer cut off at its length cap), so that
    what is shown after it is not read as code.

    >>> close_open_fence("Set it:\\n```python\\nclient = httpx.Client(timeout=")
    'Set it:\\n```python\\nclient = httpx.Client(timeout=\\n```'
    >>> close_open_fence("A:\\n````\\n```\\nx\\n````\\nB.")  # a longer fence is closed only by its own kind
    'A:\\n````\\n```\\nx\\n````\\nB.'
    """
    opened = None
    for match in _FENCE_LINE.finditer(text):
        fence = match.group(1)
        if opened is None:
            opened = fence
        elif fence[0] == opened[0] and len(fence) >= len(opened):
            opened = None
    return text if opened is None else text.rstrip("\n") + "\n" + opened


_FENCED_BLOCK = re.compile(r"(`{3,}|~{3,})[^\n]*(?:\n(.*?)(?:^[ \t]*\1[ \t]*$)|(\s*)\Z)", re.S | re.M)


def drop_empty_code_blocks(text: str) -> str:
    """Remove fenced blocks with nothing inside (their code was dropped), a fence left open at the end too;
    blocks side by side stay apart.

    >>> drop_empty_code_blocks("A:\\n```py\\nx = 1\\n```\\n```\\n\\n```\\nB.\\n```python\\n")
    'A:\\n```py\\nx = 1\\n```\\n\\nB.\\n'
    """
    return _FENCED_BLOCK.sub(lambda m: m.group(0) if (m.group(2) or "").strip() else "", text)


def strip_code(text: str) -> str:
    """Remove fenced code blocks (and a fence left open at the end).

    >>> strip_code("Use it:\\n```python\\nx = a[1]\\n```\\nDone [2].")
    'Use it:\\n\\nDone [2].'
    """
    return "".join(s.text for s in segments(text) if not s.is_code)


class FenceTracker:
    """Line by line, whether a markdown line is inside a code fence (headings there do not count).

    As CommonMark has it, a fence closes only on a line of the same character, at
    least as long, with nothing after it: a four-backtick block that shows a
    three-backtick example stays open.

    >>> t = FenceTracker(); [t.inside_after(l) for l in ["# A", "```py", "# not", "```", "b"]]
    [False, True, True, True, False]
    >>> t = FenceTracker(); [t.inside_after(l) for l in ["````md", "```bash", "# not", "```", "````", "# A"]]
    [True, True, True, True, True, False]
    """

    def __init__(self):
        self.fence: str | None = None

    def inside_after(self, line: str) -> bool:
        """Feed one line; True when the line opens, closes or lies inside a fence."""
        opener = _FENCE_LINE.match(line)
        if self.fence is None:
            if opener:
                self.fence = opener.group(1)
                return True
            return False
        if opener and opener.group(1)[0] == self.fence[0] and len(opener.group(1)) >= len(self.fence) \
                and not line[opener.end():].strip():
            self.fence = None
        return True

    @property
    def open(self) -> bool:
        return self.fence is not None


_LINE_BREAK = re.compile(r"\r\n|\r|\n")


def file_lines(text: str) -> list[str]:
    """A file's lines as editors and the viewer number them: broken at a newline only, never at a form feed or
    U+2028 inside a line, as ``str.splitlines`` would (then every cited line after it would be off by one).

    >>> file_lines("a\\x0cb\\r\\nc\\u2028d\\n"), "a\\x0cb\\r\\nc\\u2028d\\n".splitlines()
    (['a\\x0cb', 'c\\u2028d'], ['a', 'b', 'c', 'd'])
    """
    lines = _LINE_BREAK.split(text)
    return lines[:-1] if lines and lines[-1] == "" else lines


def is_fence_line(line: str) -> bool:
    return bool(_FENCE_LINE.match(line))


def strip_inline_code(text: str) -> str:
    """Inline code spans replaced by a space.

    >>> strip_inline_code("Use `a[1]` here")
    'Use   here'
    """
    return _INLINE_CODE.sub(" ", text)


def inline_code(text: str) -> list[str]:
    return _INLINE_CODE.findall(text)


def normalise_code(code: str) -> str:
    """Code compared up to whitespace.

    >>> normalise_code("client = httpx.Client(\\n    follow_redirects=True)")
    'client=httpx.Client(follow_redirects=True)'
    """
    return re.sub(r"\s+", "", code)


# --- citations ---------------------------------------------------------------------
CITATION = re.compile(r"\[(\d+)\]")
_CITATION_RUN = re.compile(r"\s*(?:\[\d+\])+")


_INCLUDE_SPAN = re.compile(r"\{\*(?:[^*{\n]|\*(?!\}))*\*\}")  # a docs-build include, {* f hl[9] *}: [9] marks lines


def citations(text: str) -> list[int]:
    """Ids cited in ``text``, in order, ignoring brackets inside inline code (``a[1]``) and inside a docs-build
    include's line marks (``{* app.py hl[9] *}``).

    >>> citations("Off [1][3]. Index `a[2]`.")
    [1, 3]
    >>> citations("{* ../../docs_src/app/tutorial012_py310.py hl[9] *} [2]")
    [2]
    """
    return [int(x) for x in CITATION.findall(strip_inline_code(_INCLUDE_SPAN.sub(" ", text)))]


def strip_citations(text: str) -> str:
    """The text without its [n] marks; brackets inside inline code (``r.history[0]``) are code and stay.

    >>> strip_citations("Off by default [1][3].")
    'Off by default.'
    >>> strip_citations("Read `r.history[0]` first [1].")
    'Read `r.history[0]` first.'
    """
    return outside_inline_code(text, lambda prose: _CITATION_RUN.sub("", prose)).strip()


def outside_inline_code(text: str, change: Callable[[str], str]) -> str:
    """``change`` applied to the text between inline code spans, which stay as they are.

    >>> outside_inline_code("a `b` c", str.upper)
    'A `b` C'
    """
    pieces = _INLINE_CODE.split(text)  # prose, code, prose, code, …: the group keeps each span's inside
    return "".join(change(p) if n % 2 == 0 else f"`{p}`" for n, p in enumerate(pieces))


def cite(sentence: str, ids: list[int]) -> str:
    """The sentence with exactly these citations, placed before its final punctuation or colon (after an ellipsis).

    >>> cite("Off by default [2].", [1]), cite("默认不会。", [1, 3]), cite("No mark", [2])
    ('Off by default [1].', '默认不会 [1][3]。', 'No mark [2]')
    >>> cite("You need to do so explicitly...", [1]), cite("Invalid SSL cases... [1].", [1])
    ('You need to do so explicitly... [1]', 'Invalid SSL cases... [1]')
    """
    bare = re.sub(r"(\.\.\.|…)\s*\.$", r"\1", strip_citations(sentence).rstrip())
    marks = "".join(f"[{i}]" for i in ids)
    if not marks:
        return bare
    if bare.endswith(("...", "…")):
        return f"{bare} {marks}"
    if bare and bare[-1] in "。！？.!?:：":
        return f"{bare[:-1]} {marks}{bare[-1]}"
    return f"{bare} {marks}"


# --- sentences -----------------------------------------------------------------------
MIN_SENTENCE = 8  # fragments of this many characters or fewer are ignored (the lesson's rule)
_ABBREVIATIONS = frozenset(("e.g.", "i.e.", "eg.", "ie.", "etc.", "vs.", "cf.", "approx.", "no.", "fig.", "mr.", "mrs.", "dr.",
                            "p.ex."))  # whole words: "config." and "piano." end sentences
# A sentence end: the mark, any citations written right after it, then space or end of line.
_END = re.compile(r"([。！？]|[.!?](?=[\s\[]|$))((?:\s*\[\d+\])*)")


_LIST_NUMBER = re.compile(r"\s*\d+\.")  # a line that starts "1." so far: a list item's number, not an end
_WORD_WINDOW = 32  # longer than any abbreviation with its brackets; a word this long is none of them


def _is_sentence_end(line: str, match: re.Match) -> bool:
    """Whether a full stop ends a sentence. It looks only at the word before it, so a
    one-megabyte line is split in linear time.

    >>> [_is_sentence_end(t, _END.search(t)) for t in ("See it e.g. there", "1. First", "Done. Next")]
    [False, False, True]
    """
    if match.group(1) in "。！？!?":
        return True
    end = match.start() + 1
    tail = line[max(0, end - _WORD_WINDOW) : end].lower().split()
    if tail and tail[-1].lstrip("([\"'“‘") in _ABBREVIATIONS:
        return False
    return not _LIST_NUMBER.fullmatch(line, 0, end)  # "1. " starts a list item


def split_line(line: str) -> list[str]:
    """Split one line into sentences, keeping trailing citations with their sentence.

    >>> split_line("Use httpx.Client, e.g. in v0.28.1. See https://x.org/a.b [2]. Done!")
    ['Use httpx.Client, e.g. in v0.28.1.', 'See https://x.org/a.b [2].', 'Done!']
    >>> split_line("Set it in the config. It is read (ie. loaded) once [1].")
    ['Set it in the config.', 'It is read (ie. loaded) once [1].']
    >>> split_line("默认不会 [1]。开启后可以查看 [3]。")
    ['默认不会 [1]。', '开启后可以查看 [3]。']
    """
    sentences, start = [], 0
    for match in _END.finditer(line):
        if _is_sentence_end(line, match):
            sentences.append(line[start : match.end()].strip())
            start = match.end()
    sentences.append(line[start:].strip())
    return [s for s in sentences if s]


def split_sentences(text: str) -> list[str]:
    """Sentences of prose (fenced code removed), longer than 8 characters: the lesson's split."""
    return [s for line in strip_code(text).splitlines() for s in split_line(line) if len(s) > MIN_SENTENCE]


def introduces_code(sentence: str) -> bool:
    """A sentence ending in ':' introduces the code that follows and is not counted."""
    return strip_citations(sentence).rstrip().endswith(("：", ":"))
