"""Check (support score): how strongly one passage backs one sentence, from offline signals.

The signals, for a sentence and a passage (``Signals``):

- ``similarity``: embedding cosine of the sentence to the passage's closest unit
  (a sentence or a code block) of the same polarity ("does not …" against "does …");
- ``overlap``: share of the sentence's content words found in the passage, a word
  the question already has counting half when the passage has it (the passage was retrieved for it);
- ``overlap_all``: the same share, every word counting fully;
- ``identifiers``: share of the sentence's code identifiers the passage contains
  (the lesson's exercise 3), None when it names none;
- ``numbers_ok``: every value the sentence gives (a number, the empty string) is in the passage;
- ``comparisons_ok``: every judging comparison the sentence makes ("faster") is in the passage;
- ``contradicted``: the passage's unit closest to the sentence says the opposite, or the passage says only the
  opposite word ("required" for the sentence's "optional": ``names.opposed``);
- ``length``: the sentence's content words.

A logistic model weighs the similarity, the two overlaps, the identifiers and the
length (``features``; ``WEIGHTS``, fitted on the "calibrate" labels of
``tests/data/support_labels.jsonl.gz`` by ``benchmarks/support_fit.py``),
and two rules sit on top of it: a sentence naming an identifier or a number the
passage lacks, or ranking things in words the passage does not use ("faster
than requests"), scores at most ``CAP``, under the threshold whatever the words say;
a passage that contradicts it counts ``POLARITY_PENALTY`` as much.

>>> good = Signals(0.85, 0.9, 0.9, 1.0, True, False, 8)
>>> support_score(good) >= SUPPORT_THRESHOLD, support_score(good._replace(identifiers=0.5)) == CAP
(True, True)
"""

from __future__ import annotations

import math
from typing import Collection, NamedTuple, Sequence

from .names import identifiers, normalise_name

# Fitted by benchmarks/support_fit.py (L2 logistic regression, C=0.1) on the calibrate labels (again on 2026-12-07,
# when a question's word the passage lacks began to count fully in ``overlap``); the order is that of
# ``features``: similarity, overlap, overlap_all, identifiers, names any identifier, length (content words / 30).
WEIGHTS = (1.08, 1.33, 1.23, 0.87, 0.14, 0.07)
INTERCEPT = -3.26
SUPPORT_THRESHOLD = 0.5  # chosen on the calibrate labels by the same script (best F1)
CAP = 0.45  # the score of a sentence naming an identifier or value (number, empty string) its passage lacks
POLARITY_PENALTY = 0.6  # a passage that contradicts the sentence counts this much
# A passage whose unit closest to a sentence says the opposite, by this much cosine over its closest unit of the
# same polarity, contradicts it (``contradicted``); calibrated on the "calibrate" labels (0.05-0.2 swept).
CONTRADICTION_MARGIN = 0.1


class Signals(NamedTuple):
    """What the checker measures between one sentence and one passage (the module docstring says each)."""

    similarity: float
    overlap: float
    overlap_all: float
    identifiers: float | None
    numbers_ok: bool
    contradicted: bool
    length: int
    comparisons_ok: bool = True


def features(s: Signals) -> list[float]:
    """The logistic model's inputs, in the order of ``WEIGHTS``.

    >>> features(Signals(0.8, 0.5, 0.75, None, True, False, 45))
    [0.8, 0.5, 0.75, 1.0, 0.0, 1.0]
    """
    named = s.identifiers is not None
    return [max(s.similarity, 0.0), s.overlap, s.overlap_all, s.identifiers if named else 1.0, float(named),
            min(s.length, 30) / 30]


def probability(x: Sequence[float], weights: Sequence[float] = WEIGHTS, intercept: float = INTERCEPT) -> float:
    """The logistic model's probability that a passage supports a sentence, from its ``features``.

    >>> probability([0.0] * 6, intercept=0.0)
    0.5
    """
    return 1.0 / (1.0 + math.exp(-(intercept + sum(w * v for w, v in zip(weights, x)))))


def support_score(s: Signals, weights: Sequence[float] = WEIGHTS, intercept: float = INTERCEPT) -> float:
    """A passage's support score for a sentence: the model's probability, under the two rules.

    >>> weak = Signals(0.3, 0.2, 0.2, None, True, False, 6)
    >>> support_score(weak) < SUPPORT_THRESHOLD
    True
    >>> strong = Signals(0.9, 1.0, 1.0, None, True, False, 6)
    >>> support_score(strong._replace(contradicted=True)) < SUPPORT_THRESHOLD <= support_score(strong)
    True
    >>> support_score(strong._replace(comparisons_ok=False)) == CAP  # "faster than requests", said by no passage
    True
    """
    score = probability(features(s), weights, intercept)
    if (s.identifiers is not None and s.identifiers < 1.0) or not s.numbers_ok or not s.comparisons_ok:  # lacks it
        score = min(score, CAP)
    if s.contradicted:  # "follows redirects" against "does not follow redirects"
        score *= POLARITY_PENALTY
    return round(score, 3)


def identifier_score(sentence: str, passage: str) -> float | None:
    """Share of the sentence's identifiers that the passage contains (``normalise_name``); None if it has none.

    A name must be in the passage as a name: "a custom certificate store" does not back ``CertificateStore``.

    >>> identifier_score("Pass `follow_redirects=True` [1].", "client.get(url, follow_redirects = True)")
    1.0
    >>> identifier_score("Use `timeout=0` [2].", "Use timeout=None, or 0 for nothing.")
    0.0
    >>> identifier_score("Create a `CertificateStore` [2].", "Use a custom certificate store.")
    0.0
    """
    idents = identifiers(sentence)
    if not idents:
        return None
    text = normalise_name(passage)
    return sum(1 for i in idents if normalise_name(i) in text) / len(idents)


def overlap(words: Collection[str], passage_words: set[str], asked: Collection[str] = ()) -> float:
    """Share of ``words`` found in ``passage_words``; a word the question (``asked``) already has counts half when the
    passage has it, and fully when it does not.

    Retrieval chose the passages for the question's words, so a sentence that only
    says them back ("Yes, you can mount a Flask app") finds them there whether or
    not the passages say what it claims. A question's word the passage lacks is part
    of what the sentence claims the passage does without saying it ("To disable
    certificate verification, modify the truststore package" over a page on
    certificate stores that never says "disable"): it counts fully. On the report half
    of the labelled sentences this took the check's precision from 0.842 to 0.856, its
    recall unchanged; that sentence still passes (0.539 then, 0.528 now).

    >>> overlap({"follow", "redirect", "not"}, {"follow", "redirect", "not", "httpx"})
    1.0
    >>> round(overlap({"mount", "flask"}, {"mount", "app"}, asked={"mount"}), 3)  # 0.5 of 1.5
    0.333
    >>> overlap({"disable", "store"}, {"store", "truststore"}, asked={"disable"})  # 1 of 2, not 1 of 1.5
    0.5
    """
    weight = {w: 0.5 if w in asked and w in passage_words else 1.0 for w in words}
    total = sum(weight.values())
    return sum(v for w, v in weight.items() if w in passage_words) / total if total else 0.0


def contradicted(similarities: Sequence[float], negations: Sequence[bool], negative: bool,
                 margin: float = CONTRADICTION_MARGIN) -> bool:
    """Whether a passage says the opposite of a sentence: its unit closest to the sentence has the other polarity,
    by ``margin`` over its closest unit of the same polarity.

    Then no unit of that passage backs the sentence at full score: "HTTPX follows
    redirects by default" is closest to "HTTPX does not follow redirects by
    default", and the code example ``httpx.Client(follow_redirects=True)`` in the
    same passage must not back it.

    >>> contradicted([0.91, 0.65], [True, False], negative=False)  # the negated sentence, then the code
    True
    >>> contradicted([0.80, 0.76], [True, False], negative=False)  # a near tie: both readings are there
    False
    """
    opposite = max((s for s, n in zip(similarities, negations) if n != negative), default=None)
    same = max((s for s, n in zip(similarities, negations) if n == negative), default=0.0)
    return opposite is not None and opposite - same >= margin
