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

SUPPORT_THRESHOLD = 0.5
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


def negated(text: str) -> bool:
    """Whether a sentence is negative ("does not", "n'est pas", "不会").

    >>> negated("HTTPX does not follow redirects."), negated("HTTPX follows redirects."), negated("默认不会跟随")
    (True, False, True)
    """
    return bool(_NEGATION.search(text))


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
    """Share of the sentence's identifiers that the passage contains; None when it has none.

    >>> identifier_score("Pass `follow_redirects=True` [1].", "client.get(url, follow_redirects=True)")
    1.0
    >>> identifier_score("Use `httpx.Timeout` [2].", "HTTP/2 support is optional.")
    0.0
    """
    idents = identifiers(sentence)
    if not idents:
        return None
    low = passage.lower()
    hits = sum(1 for i in idents if i.lower() in low or all(p.lower() in low for p in re.split(r"[=(]", i) if p))
    return hits / len(idents)


def content_words(text: str) -> set[str]:
    return {t for t in tokenize(CITATION.sub(" ", text)) if t not in _GENERIC and len(t) > 1}


def overlap_score(sentence: str, passage: str) -> float:
    """Share of the sentence's content words that appear in the passage.

    >>> overlap_score("Redirects are not followed by default [1].", "HTTPX does not follow redirects by default.")
    1.0
    """
    words = content_words(sentence)
    if not words:
        return 0.0
    return len(words & content_words(passage)) / len(words)


def combine(similarity: float, overlap: float, ident: float | None) -> float:
    """One support score from the three signals.

    >>> round(combine(0.8, 1.0, 1.0), 3), round(combine(0.3, 0.2, None), 3), round(combine(0.9, 0.9, 0.0), 3)
    (0.916, 0.26, 0.45)
    """
    score = 0.6 * similarity + 0.4 * overlap
    if ident is not None:
        score = 0.7 * score + 0.3 * ident
        if ident == 0.0:  # names a thing the passage never mentions
            score = min(score, 0.45)
    return score


def passage_sentences(text: str) -> list[str]:
    """A passage's units in order: prose sentences (markup stripped) and whole code blocks.

    >>> passage_sentences("## Redirects\\nOff by default. Enable it:\\n```\\nclient.get(url)\\n```")
    ['Redirects', 'Off by default.', 'Enable it:', 'client.get(url)']
    """
    out: list[str] = []
    position = 0
    for match in _FENCE_BLOCK.finditer(text):
        out.extend(_prose_units(text[position : match.start()]))
        if match.group(2).strip():
            out.append(match.group(2).strip("\n"))
        position = match.end()
    out.extend(_prose_units(text[position:]))
    return out or [text.strip()]


def _prose_units(text: str) -> list[str]:
    """Sentences of markdown prose: wrapped lines re-joined, headings and list items kept apart."""
    units, paragraph = [], []
    for line in text.splitlines() + [""]:
        stripped = line.strip()
        starts_block = not stripped or stripped.startswith(("#", "-", "*", "|", ">")) or re.match(r"\d+\.\s", stripped)
        if starts_block and paragraph:
            units.extend(split_line(strip_markup(" ".join(paragraph))))
            paragraph = []
        if stripped.startswith("#"):
            units.append(strip_markup(stripped))
        elif stripped:
            paragraph.append(stripped)
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
        self._units = [passage_sentences(p) for p in self.passages]
        flat = [u for units in self._units for u in units]
        self._unit_vectors = embedder.embed_batch(flat) if flat else np.zeros((0, embedder.dim), np.float32)
        self._owner = np.array([i for i, units in enumerate(self._units) for _ in units], dtype=int)

    def scores(self, sentence: str) -> dict[int, float]:
        """Support score of every passage for one sentence."""
        clean = CITATION.sub("", sentence).strip()
        vector = self.embedder.embed(clean)
        sims = self._unit_vectors @ vector if len(self._unit_vectors) else np.zeros(0)
        units = [u for group in self._units for u in group]
        out = {}
        for pid, passage in enumerate(self.passages, 1):
            where = np.flatnonzero(self._owner == pid - 1)
            best = int(where[np.argmax(sims[where])]) if len(where) else -1
            sim = float(sims[best]) if best >= 0 else 0.0
            score = combine(max(sim, 0.0), overlap_score(clean, passage), identifier_score(clean, passage))
            if best >= 0 and negated(clean) != negated(units[best]):
                score *= POLARITY_PENALTY  # "follows redirects" against "does not follow redirects"
            out[pid] = round(score, 3)
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
            for line in text.splitlines()
            for s in split_line(line)
            if len(s) > MIN_SENTENCE
        ]
