"""Check (support): does the cited passage really support each sentence?

Three offline signals, each between 0 and 1, for a sentence and a passage:

- ``identifiers``: share of the sentence's code identifiers and numbers found in
  the passage (the lesson's exercise 3);
- ``overlap``: share of the sentence's content words found in the passage;
- ``similarity``: embedding cosine to the passage's best-matching sentence.

They combine into one support score (``combine``); a passage supports a
sentence when the score reaches ``SUPPORT_THRESHOLD``, calibrated on the
hand-labelled sentences in ``tests/data/support_labels.jsonl``.

>>> identifiers("Set `follow_redirects=True` on httpx.Client, or see HTTP/3.")
['follow_redirects=True', 'httpx.Client', 'HTTP/3']
"""

from __future__ import annotations

import re
from typing import NamedTuple, Sequence

import numpy as np

from repobot.engine.check import (
    CITATION,
    citations,
    introduces_code,
    is_escape,
    split_line,
    MIN_SENTENCE,
)
from repobot.engine.embed import Embedder
from repobot.engine.tokens import tokenize

SUPPORT_THRESHOLD = 0.7  # calibrated on tests/data/support_labels.jsonl (benchmarks/support_calibration.py)
CAP = 0.45  # the score of a sentence naming an identifier or number its passage lacks
STATUSES = ("supported", "miscited", "unsupported", "uncited", "exempt")

_BACKTICKED = re.compile(r"`([^`\n]+)`")
_IDENT = re.compile(
    r"[A-Za-z_][\w]*(?:[./][\w]+)+(?:\(\))?"  # httpx.Client, HTTP/3, response.next_request()
    r"|[A-Za-z]*_[\w]+(?:=\w+)?"  # follow_redirects, follow_redirects=True
    r"|[a-z]+[A-Z]\w*|[A-Z][a-z]+[A-Z]\w*"  # camelCase, CamelCase
    r"|\b\d{2,}\b"  # numbers like 503 or 2048
)
_FENCE_BLOCK = re.compile(r"(```|~~~)[^\n]*\n(.*?)(?:\1|\Z)", re.S)
_LINK = re.compile(r"!?\[([^\]]*)\]\([^)]*\)")
_EMPHASIS = re.compile(r"\*\*|__(?=\w)|(?<=\w)__|`")
_GENERIC = frozenset(tokenize("use using used can way also doc documentation default option set"))


POLARITY_PENALTY = 0.6
_NEGATION = re.compile(
    r"\b(not|no|never|none|cannot|without|neither|nor|pas|jamais|aucun|aucune|sans)\b|n't|不|没|无|非|未",
    re.I,
)


_ASSIGNMENT = re.compile(r"\w+\s*=\s*\w+")


def negated(text: str) -> bool:
    """Whether a sentence is negative ("does not", "n'est pas", "不会").

    >>> negated("HTTPX does not follow redirects."), negated("Pass timeout=None."), negated("默认不会跟随")
    (True, False, True)
    """
    prose = _ASSIGNMENT.sub(" ", _BACKTICKED.sub(" ", text))  # `timeout=None` is code, not a negation
    return bool(_NEGATION.search(prose))


def identifiers(sentence: str) -> list[str]:
    """Code identifiers and numbers named in a sentence, in order, without repeats."""
    text = CITATION.sub(" ", sentence)
    found = [m.strip() for m in _BACKTICKED.findall(text)]
    found += _IDENT.findall(_BACKTICKED.sub(" ", text))
    out: list[str] = []
    for item in found:
        item = item.strip(".,;:()")
        if item and item not in out:
            out.append(item)
    return out


def identifier_score(sentence: str, passage: str) -> float | None:
    """Share of the sentence's identifiers that the passage contains (up to case and spaces); None if it has none.

    >>> identifier_score("Pass `follow_redirects=True` [1].", "client.get(url, follow_redirects = True)")
    1.0
    >>> identifier_score("Use `timeout=0` [2].", "Use timeout=None, or 0 for nothing.")
    0.0
    """
    idents = identifiers(sentence)
    if not idents:
        return None
    squeezed = re.sub(r"\s+", "", passage).lower()
    return sum(1 for i in idents if re.sub(r"\s+", "", i).lower() in squeezed) / len(idents)


_NUMBER_WORDS = {
    w: str(n) for n, w in enumerate(
        "zero one two three four five six seven eight nine ten eleven twelve".split()
    )
} | {"hundred": "100", "thousand": "1000", "un": "1", "deux": "2", "trois": "3", "cinq": "5", "dix": "10"}
_NUMBER = re.compile(r"(?<![\w.])\d+(?:\.\d+)?(?![\w.])|\b(?:" + "|".join(_NUMBER_WORDS) + r")\b", re.I)


def numbers(text: str) -> set[str]:
    """Numbers in a text, written as digits or as words.

    >>> sorted(numbers("The default is five seconds, or 10 with `max_connections=10`; HTTP/2."))
    ['10', '5']
    """
    text = CITATION.sub(" ", text)
    return {_NUMBER_WORDS.get(m.lower(), m) for m in _NUMBER.findall(text)}


def content_words(text: str) -> set[str]:
    return {t for t in tokenize(CITATION.sub(" ", text)) if t not in _GENERIC and len(t) > 1}


def overlap_score(sentence: str, passage: str) -> float:
    """Share of the sentence's content words that appear in the passage.

    >>> overlap_score("Redirects are not followed by default [1].", "HTTPX does not follow redirects by default.")
    1.0
    """
    return _overlap(content_words(sentence), content_words(passage))


def _overlap(words: set[str], passage_words: set[str]) -> float:
    return len(words & passage_words) / len(words) if words else 0.0


def combine(similarity: float, overlap: float, ident: float | None, numbers_ok: bool = True) -> float:
    """One support score from the signals; a missing identifier or number caps it below the threshold.

    >>> round(combine(0.8, 1.0, 1.0), 3), round(combine(0.3, 0.2, None), 3), round(combine(0.9, 0.9, 0.5), 3)
    (0.916, 0.26, 0.45)
    """
    score = 0.6 * similarity + 0.4 * overlap
    if ident is not None:
        score = 0.7 * score + 0.3 * ident
    if (ident is not None and ident < 1.0) or not numbers_ok:  # names something the passage does not say
        score = min(score, CAP)
    return score


def passage_units(text: str) -> list[tuple[str, bool]]:
    """A passage's units in order, each ``(text, is_code)``: prose sentences (markup stripped) and whole code blocks.

    >>> passage_units("## Redirects\\nOff by default. Enable it:\\n```\\nclient.get(url)\\n```")
    [('Redirects', False), ('Off by default.', False), ('Enable it:', False), ('client.get(url)', True)]
    """
    out: list[tuple[str, bool]] = []
    position = 0
    for match in _FENCE_BLOCK.finditer(text):
        out.extend((u, False) for u in _prose_units(text[position : match.start()]))
        if match.group(2).strip():
            out.append((match.group(2).strip("\n"), True))
        position = match.end()
    out.extend((u, False) for u in _prose_units(text[position:]))
    return out or [(text.strip(), False)]


def paragraphs(text: str) -> list[str]:
    """Markdown prose as logical lines: wrapped lines re-joined; headings, list items and quotes kept apart.

    >>> paragraphs("## Title\\nA sentence that\\nwraps here.\\n- item one\\n- item two")
    ['## Title', 'A sentence that wraps here.', '- item one', '- item two']
    """
    out, current = [], []
    for line in text.splitlines() + [""]:
        stripped = line.strip()
        new_block = not stripped or stripped.startswith(("#", "-", "*", "|", ">", "+")) or re.match(r"\d+\.\s", stripped)
        if new_block and current:
            out.append(" ".join(current))
            current = []
        if stripped.startswith(":::"):  # a documentation-generator directive, not prose
            continue
        if stripped.startswith("#"):
            out.append(stripped)
        elif stripped:
            current.append(stripped)
    return out


def _prose_units(text: str) -> list[str]:
    """Sentences of markdown prose, markup stripped."""
    units = [u for p in paragraphs(text) for u in split_line(strip_markup(p))]
    return [u for u in units if len(u) > 3]


def strip_markup(text: str) -> str:
    """Markdown reduced to its words; identifiers keep their underscores.

    >>> strip_markup("## **Not** by `default`, see [the guide](quickstart.md#redirects) - follow_redirects")
    'Not by default, see the guide - follow_redirects'
    """
    text = _LINK.sub(r"\1", text)
    text = re.sub(r"^\s*(#+|>|[-*+]|\d+\.)\s+", "", text)
    return _EMPHASIS.sub("", text).strip()


def normalise_code(code: str) -> str:
    """Code compared up to whitespace.

    >>> normalise_code("client = httpx.Client(\\n    follow_redirects=True)")
    'client=httpx.Client(follow_redirects=True)'
    """
    return re.sub(r"\s+", "", code)


class Support(NamedTuple):
    text: str
    cited: list[int]
    status: str
    support: dict[int, float]  # passage id -> score
    suggested: int | None  # the passage that supports it, when it is not the cited one
    reason: str
    is_code: bool = False


class SupportChecker:
    """Scores answer sentences against the numbered passages (ids 1..N)."""

    def __init__(self, embedder: Embedder, passages: Sequence[str], *, threshold: float = SUPPORT_THRESHOLD):
        self.embedder = embedder
        self.passages = list(passages)
        self.threshold = threshold
        # every unit of every passage as (passage id, position, text, is_code), embedded once
        self.units = [
            (pid, pos, text, code)
            for pid, passage in enumerate(self.passages, 1)
            for pos, (text, code) in enumerate(passage_units(passage))
        ]
        texts = [u[2] for u in self.units]
        self.unit_vectors = embedder.embed_batch(texts) if texts else np.zeros((0, embedder.dim), np.float32)
        self._owner = np.array([u[0] for u in self.units], dtype=int)
        self._negated = [negated(t) for t in texts]
        self._words = [content_words(p) for p in self.passages]
        self._numbers = [numbers(p) for p in self.passages]

    def scores(self, sentence: str) -> dict[int, float]:
        """Support score of every passage for one sentence.

        Similarity is taken unit by unit (a sentence or code block of the
        passage); a unit of the opposite polarity ("does not …") counts less.
        """
        clean = CITATION.sub("", sentence).strip()
        vector = self.embedder.embed(clean)
        sims = self.unit_vectors @ vector if len(self.unit_vectors) else np.zeros(0)
        polarity = negated(clean)
        words, wanted = content_words(clean), numbers(clean)
        out = {}
        for pid, passage in enumerate(self.passages, 1):
            overlap = _overlap(words, self._words[pid - 1])
            ident = identifier_score(clean, passage)
            numbers_ok = wanted <= self._numbers[pid - 1]
            best = 0.0
            for unit_id in np.flatnonzero(self._owner == pid):
                score = combine(max(float(sims[unit_id]), 0.0), overlap, ident, numbers_ok)
                if self._negated[unit_id] != polarity:
                    score *= POLARITY_PENALTY  # "follows redirects" against "does not follow redirects"
                best = max(best, score)
            out[pid] = round(best, 3)
        return out

    def check_sentence(self, sentence: str) -> Support:
        cited = citations(sentence)
        if is_escape(sentence) or introduces_code(sentence):
            why = "the fixed 'not found' phrase" if is_escape(sentence) else "introduces the code that follows"
            return Support(sentence, cited, "exempt", {}, None, f"Exempt: {why}.")
        scores = self.scores(sentence)
        best = max(scores, key=scores.get) if scores else None
        backed = best is not None and scores[best] >= self.threshold
        valid = [c for c in cited if c in scores]
        if valid and max(scores[c] for c in valid) >= self.threshold:
            top = max(valid, key=scores.get)
            return Support(sentence, cited, "supported", scores, None, f"Passage [{top}] supports it (score {scores[top]:.2f}).")
        if cited and backed:
            return Support(
                sentence, cited, "miscited", scores, best,
                f"Cites {''.join(f'[{c}]' for c in cited)}, but passage [{best}] is the one that supports it.",
            )
        if cited:
            invalid = [c for c in cited if c not in scores]
            why = f"cites passages that do not exist: {invalid}" if invalid and not valid else "no passage supports it"
            return Support(sentence, cited, "unsupported", scores, None, f"Unsupported: {why}.")
        if backed:
            return Support(sentence, cited, "uncited", scores, best, f"No citation; passage [{best}] supports it.")
        return Support(sentence, cited, "unsupported", scores, None, "No citation, and no passage supports it.")

    def check_code(self, code: str) -> Support:
        """A code block is supported when it appears, up to whitespace, in a passage."""
        target = normalise_code(code)
        found = [pid for pid, p in enumerate(self.passages, 1) if target and target in normalise_code(p)]
        if found:
            return Support(code, [], "supported", {p: 1.0 for p in found}, found[0],
                           f"Copied from passage [{found[0]}].", True)
        return Support(code, [], "unsupported", {}, None, "This code does not appear in any passage.", True)

    def check_answer(self, answer: str) -> list[Support]:
        """Every sentence and code block of an answer, in order."""
        out: list[Support] = []
        position = 0
        for match in _FENCE_BLOCK.finditer(answer):
            out.extend(self._prose(answer[position : match.start()]))
            out.append(self.check_code(match.group(2).strip("\n")))
            position = match.end()
        out.extend(self._prose(answer[position:]))
        return out

    def _prose(self, text: str) -> list[Support]:
        return [
            self.check_sentence(s)
            for paragraph in paragraphs(text)
            for s in split_line(paragraph)
            if len(s) > MIN_SENTENCE
        ]
