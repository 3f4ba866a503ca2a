"""The "not found" gate: refuse before generating when the passages miss the question's key terms.

Key terms are the specific things a question names: code identifiers,
versioned names such as ``HTTP/3``, acronyms (``FTP``), names written with a
capital inside the sentence (``Kerberos``), and numbers. Every one must appear
in at least one retrieved passage. Plain content words must mostly appear too,
but only when the question is in the corpus's language (a French or Chinese
question over English docs is judged on its key terms alone).

>>> key_terms("Does httpx support HTTP/3?")
['HTTP/3']
>>> key_terms("Does HTTPX support Kerberos or NTLM over FTP?")
['HTTPX', 'Kerberos', 'NTLM', 'FTP']
>>> missing_terms("Does httpx support HTTP/3?", ["HTTP/2 support is optional.", "httpx is a client."])
['HTTP/3']
"""

from __future__ import annotations

import re
from typing import NamedTuple, Sequence

from repobot.engine.support import identifiers
from repobot.engine.tokens import tokenize

MIN_COVERAGE = 0.5
_QUESTION_WORDS = frozenset(
    tokenize(
        "support supports supported work works use using make get does way possible need want "
        "enable tell explain example feature built-in builtin automatically automatic "
        "comment faire peut-on existe-t-il utiliser fonctionne"
    )
)


class GateResult(NamedTuple):
    covered: bool
    missing: list[str]  # key terms or words absent from every passage
    coverage: float  # share of counted content words found in the passages


_NAME = re.compile(r"\b[A-Z]{2,}\d*\b|(?<=[\w,] )[A-Z][a-z]{2,}\b")


def key_terms(question: str) -> list[str]:
    """Identifier-like terms and names of a question (short bare numbers and plain words excluded)."""
    terms = [t for t in identifiers(question) if not t.isdigit() or len(t) >= 3]
    names = [n for n in _NAME.findall(question) if not any(n in t for t in terms)]
    return list(dict.fromkeys(terms + names))


def missing_terms(question: str, passages: Sequence[str]) -> list[str]:
    text = "\n".join(passages).lower()
    return [t for t in key_terms(question) if t.lower() not in text]


def gate(question: str, passages: Sequence[str], *, same_language: bool = True) -> GateResult:
    """Whether the retrieved passages cover the question well enough to try answering."""
    if not passages:
        return GateResult(False, key_terms(question) or ["(no passages retrieved)"], 0.0)
    missing = missing_terms(question, passages)
    passage_tokens = {t for p in passages for t in tokenize(p)}
    words = [t for t in dict.fromkeys(tokenize(question)) if t not in _QUESTION_WORDS and len(t) > 1]
    words = words if same_language else []
    absent = [w for w in words if w not in passage_tokens]
    coverage = 1.0 - len(absent) / len(words) if words else 1.0
    if coverage < MIN_COVERAGE:
        missing += [w for w in absent if w not in missing]
    return GateResult(not missing, missing, round(coverage, 3))
