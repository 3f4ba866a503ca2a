"""Check (form): which ids an answer cites, which are invented, which sentences cite nothing.

This is the lesson's ``check_citations``, kept exactly: fenced code is removed
first; sentences end after 。！？ and at line breaks; fragments of 8 characters
or fewer are ignored; a sentence ending in ： or : introduces code and is not
counted. RepoBot adds English and French sentence ends (. ! ? then a space),
without splitting ``httpx.Client``, ``e.g.``, version numbers or URLs, and
keeps citations written just after the full stop with their sentence
(``engine/text.py``).

>>> check_citations("Redirects are off by default [1]. Enable them per request [3].", 5)
FormCheck(cited=[1, 3], invalid=[], uncited=[])
>>> check_citations("See [7]. This sentence cites nothing.", 5)
FormCheck(cited=[7], invalid=[7], uncited=['This sentence cites nothing.'])
"""

from __future__ import annotations

import re
from typing import NamedTuple

from .languages import ESCAPE_PHRASES
from .text import citations, introduces_code, split_sentences, strip_citations, strip_code


class FormCheck(NamedTuple):
    cited: list[int]  # sorted, de-duplicated ids cited
    invalid: list[int]  # cited ids outside 1..N: invented sources
    uncited: list[str]  # sentences with no [n]


def is_escape(sentence: str) -> bool:
    """True for the fixed "not found" phrase in any answer language.

    >>> is_escape("文档里没有找到相关说明。"), is_escape("The documents do not cover this."), is_escape("No.")
    (True, True, False)
    """
    core = sentence.strip().strip("。.!！\"'“”「」")
    return any(core == phrase.strip("。.") or core.endswith(phrase.strip("。.")) for phrase in ESCAPE_PHRASES)


_HEADING = re.compile(r"^[ \t]{0,3}#{1,6}[ \t]+\S")


def is_heading(sentence: str) -> bool:
    """True for a markdown heading line, which a small model copies from its passages: a title, not a claim.

    >>> is_heading("## Sharing configuration across requests"), is_heading("Use #3 of the list [1].")
    (True, False)
    """
    return bool(_HEADING.match(sentence))


def _bare(text: str) -> str:
    return re.sub(r"\s+", "", strip_citations(text)).strip("。.!！?？:：,，;；").casefold()


def repeats_question(sentence: str, question: str) -> bool:
    """True when a sentence only copies one of the user's own sentences back, which a small model often opens
    with: it says nothing about the documents, so it is neither a claim nor shown. A yes/no question's
    plain answer ("有" to "有…吗？") is not a copy.

    >>> q = "The box has two NICs. How do I make httpx bind to one address?"
    >>> repeats_question("The box has two NICs [1].", q), repeats_question("Use local_address [1].", q)
    (True, False)
    >>> repeats_question("httpx 有命令行工具 [1]。", "httpx 有命令行工具吗？想像 curl 一样测接口")
    False
    """
    core = _bare(sentence)
    return len(core) > 8 and core in {_bare(s) for s in [question, *split_sentences(question)]}


def check_citations(text: str, n_docs: int) -> FormCheck:
    """The lesson's form check of an answer against N numbered passages."""
    prose = strip_code(text)
    cited = citations(prose)
    invalid = sorted({c for c in cited if not 1 <= c <= n_docs})
    uncited = [s for s in split_sentences(prose) if not citations(s) and not introduces_code(s)]
    return FormCheck(sorted(set(cited)), invalid, uncited)


_INCLUDE = re.compile(r"^\{\*\s.*\*\}$|^-{2,}8<-{2,}\s")  # FastAPI's {* file *}, pymdownx's --8<-- "file"


def is_include(sentence: str) -> bool:
    """Whether a line only pulls a file into the page at docs-build time (the model copies these; nobody can use one).

    >>> is_include("{* ../../docs_src/app/tutorial001_py310.py hl[9:13] *} [1]"), is_include("Use {* a *} here.")
    (True, False)
    """
    return bool(_INCLUDE.match(strip_citations(sentence).strip()))
