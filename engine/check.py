"""Check (form): which ids an answer cites, which are invented, which sentences cite nothing.

This is the lesson's ``check_citations``, kept exactly: fenced code is removed
first; sentences end after 。！？ and at line breaks; fragments of 8 characters
or fewer are ignored; a sentence ending in ： or : introduces code and is not
counted. RepoBot adds English and French sentence ends (. ! ? then a space),
without splitting ``httpx.Client``, ``e.g.``, version numbers or URLs, and
keeps citations written just after the full stop with their sentence.

>>> check_citations("Redirects are off by default [1]. Enable them per request [3].", 5)
FormCheck(cited=[1, 3], invalid=[], uncited=[])
>>> check_citations("See [7]. This sentence cites nothing.", 5)
FormCheck(cited=[7], invalid=[7], uncited=['This sentence cites nothing.'])
"""

from __future__ import annotations

import re
from typing import NamedTuple

from repobot.engine.prompt import ESCAPE_PHRASES

_FENCED = re.compile(r"```.*?```|~~~.*?~~~", re.S)
_UNCLOSED_FENCE = re.compile(r"```.*\Z", re.S)
_INLINE_CODE = re.compile(r"`[^`\n]*`")
CITATION = re.compile(r"\[(\d+)\]")
_ABBREVIATIONS = ("e.g.", "i.e.", "etc.", "vs.", "cf.", "approx.", "no.", "fig.", "mr.", "mrs.", "dr.", "p.ex.")
# A sentence end: the mark, any citations written right after it, then space or end of line.
_END = re.compile(r"([。！？]|[.!?](?=[\s\[]|$))((?:\s*\[\d+\])*)")
MIN_SENTENCE = 8  # fragments of this many characters or fewer are ignored


class FormCheck(NamedTuple):
    cited: list[int]  # sorted, de-duplicated ids cited
    invalid: list[int]  # cited ids outside 1..N: invented sources
    uncited: list[str]  # sentences with no [n]


def strip_code(text: str) -> str:
    """Remove fenced code blocks (and a fence left open at the end).

    >>> strip_code("Use it:\\n```python\\nx = a[1]\\n```\\nDone [2].")
    'Use it:\\n\\nDone [2].'
    """
    return _UNCLOSED_FENCE.sub("", _FENCED.sub("", text))


def _is_sentence_end(line: str, match: re.Match) -> bool:
    mark = match.group(1)
    if mark in "。！？!?":
        return True
    before = line[: match.start() + 1].lower()
    if before.endswith(_ABBREVIATIONS):
        return False
    word = before.split()[-1] if before.split() else ""
    if re.fullmatch(r"\d+\.", word) and before.strip() == word:  # "1. " starts a numbered list item
        return False
    return True


def split_line(line: str) -> list[str]:
    """Split one line into sentences, keeping trailing citations with their sentence.

    >>> split_line("Use httpx.Client, e.g. in v0.28.1. See https://x.org/a.b [2]. Done!")
    ['Use httpx.Client, e.g. in v0.28.1.', 'See https://x.org/a.b [2].', 'Done!']
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
    """Sentences of an answer's prose (code removed), longer than 8 characters."""
    out = []
    for line in strip_code(text).splitlines():
        out.extend(s for s in split_line(line) if len(s) > MIN_SENTENCE)
    return out


def citations(text: str) -> list[int]:
    """Ids cited in ``text``, in order, ignoring brackets inside inline code (``a[1]``)."""
    return [int(x) for x in CITATION.findall(_INLINE_CODE.sub("", text))]


def introduces_code(sentence: str) -> bool:
    return sentence.rstrip().endswith(("：", ":"))


def is_escape(sentence: str) -> bool:
    """True for the fixed "not found" phrase in any supported language."""
    core = sentence.strip().strip("。.!！\"'“”「」")
    return any(core == phrase.strip("。.") or core.endswith(phrase.strip("。.")) for phrase in ESCAPE_PHRASES)


def check_citations(text: str, n_docs: int) -> FormCheck:
    """The lesson's form check of an answer against N numbered passages."""
    prose = strip_code(text)
    cited = citations(prose)
    invalid = sorted({c for c in cited if not 1 <= c <= n_docs})
    uncited = [s for s in split_sentences(prose) if not citations(s) and not introduces_code(s)]
    return FormCheck(sorted(set(cited)), invalid, uncited)
