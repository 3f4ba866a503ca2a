"""Check (support): does a passage really support each sentence of the answer?

For every sentence and passage, the checker measures offline signals (embedding
similarity, shared words, identifiers and numbers, polarity) and turns them into
one support score (``support_score``: signals and score live there); a passage
supports a sentence when its score reaches ``SUPPORT_THRESHOLD``, calibrated on
the "calibrate" half of ``tests/data/support_labels.jsonl.gz``. Each sentence
gets a verdict: supported, miscited, uncited (with the passage that backs it),
unsupported, or exempt (it claims nothing: a heading, a line leading into code).

A sentence in another language than the passages (a Chinese answer over
English docs) is judged through its translation into the passages' language,
which the pipeline asks the model for: similarity, words and polarity come from
the translation, identifiers and numbers from the sentence as written.

>>> shown_citations(Support("Off by default [2].", [2], "supported", {1: 0.1, 2: 0.9}, None, ""))
([2], 'model')
"""

from __future__ import annotations

import re
from typing import NamedTuple, Sequence

import numpy as np

from .check import is_escape, is_heading, is_include, repeats_question
from .embed import Embedder
from .examples import adapted_from, copied_from
from .languages import negated
from .names import comparisons, identifiers, named_in, opposed, plain_words, values
from .support_score import SUPPORT_THRESHOLD, Signals, contradicted, identifier_score, overlap, support_score
from .markup import drop_link_definitions, paragraphs, prose_sentences, strip_markup, strip_tags
from .text import MIN_SENTENCE, citations, introduces_code, segments, split_line, strip_citations
from .tokens import content_words

REPEATS = "Exempt: it only repeats the question (not shown)."
INCLUDE = "Exempt: a docs-build directive that pulls in a file from outside the folder (not shown)."
LEAD = "Exempt: introduces the code that follows."
UNBACKED_LEAD = "Exempt: it leads into code, but names something no passage supports (not shown)."
HEADING = "Exempt: a heading a passage backs; shown in bold without ids, not counted as a claim."
ALSO = "Heads the quotes shown after a checked answer: what the documents say that it does not."
UNBACKED_HEADING = "Exempt: a heading no passage backs (not shown)."
MARKUP = "Exempt: markup alone, such as an HTML image tag copied from a passage (not shown)."
NOT_SHOWN = (REPEATS, INCLUDE, UNBACKED_LEAD, UNBACKED_HEADING, MARKUP)
QUOTED = "Quoted from passage [{pid}]."  # the reason of a line RepoBot quotes from a passage (``Support.is_quote``)


class Unit(NamedTuple):
    """One sentence or code block of a passage."""

    pid: int  # the passage's id, 1..N
    position: int  # its place in the passage
    text: str
    is_code: bool
    paragraph: int = 0  # which paragraph (or code block) of the passage it belongs to
    section: str = ""  # the heading of the section it is in


def passage_units(text: str, section: str = "") -> list[tuple[str, bool, int, str]]:
    """A passage's units in order, each ``(text, is_code, paragraph, section)``: prose sentences (markup stripped;
    HTML tags before the cut) and whole code blocks, numbered by the paragraph (or block) they belong to, under the
    last heading above them (``section`` before the passage's first heading).

    >>> passage_units("Intro here.\\n## Redirects { #r }\\nOff by default.", "Guide")[2]
    ('Off by default.', False, 3, 'Redirects')
    >>> [section for *_, section in passage_units("Intro here.\\n## Redirects\\nOff by default.", "Guide")]
    ['Guide', 'Redirects', 'Redirects']
    """
    out: list[tuple[str, bool, int, str]] = []
    paragraph = 0
    for segment in segments(text):
        if segment.is_code:
            if segment.text.strip():
                paragraph += 1
                out.append((segment.text.strip("\n"), True, paragraph, section))
            continue
        for block in paragraphs(drop_link_definitions(segment.text)):
            paragraph += 1
            if is_heading(block.strip()):
                section = strip_markup(block)
            sentences = (strip_markup(p) for p in split_line(strip_tags(block)))
            out.extend((s, False, paragraph, section) for s in sentences if len(s) > 3)
    return out or [(text.strip(), False, 0, section)]


class Support(NamedTuple):
    text: str
    cited: list[int]
    status: str
    support: dict[int, float]  # passage id -> score
    suggested: int | None  # the passage that supports it, when it is not the cited one
    reason: str
    is_code: bool = False
    cited_by: str | None = None  # on shown sentences: "model" (its own [n]) or "checker" (added or corrected)
    checked_as: str | None = None  # the translation it was judged through, when it is in another language
    example: str | None = None  # code the model adapted: the passage's own block, which is shown in its place
    section: str | None = None  # a quote's section heading

    @property
    def explained(self) -> str:
        """Its status and why, and the text it was checked as when it is a translation: what hovering it shows.

        >>> Support("Off by default [1].", [1], "supported", {1: 0.9}, None, "Passage [1] supports it.").explained
        'supported: Passage [1] supports it.'
        """
        return f"{self.status}: {self.reason}" + (f" Checked as: {self.checked_as}" if self.checked_as else "")

    @property
    def is_quote(self) -> bool:
        """Whether RepoBot quoted this line (or code block) from a passage, under an answer or in its place, rather
        than the model writing it: its id is RepoBot's, but no citation was added to the model's words.

        >>> quoted = Support("> Off by default. [2]", [2], "supported", {2: 1.0}, None, QUOTED.format(pid=2))
        >>> quoted.is_quote, Support("Off by default [2].", [2], "supported", {2: 0.8}, None, "").is_quote
        (True, False)
        """
        return bool(self.cited) and self.reason == QUOTED.format(pid=self.cited[0])


class SupportChecker:
    """Scores answer sentences against the numbered passages (ids 1..N); each passage unit is embedded once."""

    def __init__(self, embedder: Embedder, passages: Sequence[str], *, question: str = "",
                 sections: Sequence[str] = ()):
        """``sections``: the heading each passage starts under, for its units before its first heading line."""
        self.embedder = embedder
        self.passages = list(passages)
        self.question = question  # a sentence that only repeats it is exempt (REPEATS)
        opening = list(sections) + [""] * (len(self.passages) - len(sections))
        self.units = [
            Unit(pid, pos, *unit)
            for pid, passage in enumerate(self.passages, 1)
            for pos, unit in enumerate(passage_units(passage, opening[pid - 1]))
        ]
        texts = [u.text for u in self.units]
        self._vectors = embedder.embed_batch(texts) if texts else np.zeros((0, embedder.dim), np.float32)
        self._owner = np.array([u.pid for u in self.units], dtype=int)
        self._negated = [negated(t) for t in texts]
        self._unit_words = [content_words(t) for t in texts]
        self._unit_plain = [plain_words(t) for t in texts]
        self._words = [content_words(p) for p in self.passages]
        self._values = [values(p) for p in self.passages]
        self._comparisons = [comparisons(p) for p in self.passages]
        self._asked = content_words(question)

    # -- ranking units (the extractive answer and passage trimming use this) --------------------
    def rank_units(self, queries: Sequence[str]) -> list[tuple[Unit, float]]:
        """Every unit with its relevance to the best of ``queries`` (0.6 cosine + 0.4 word overlap), best first."""
        best = self._relevance(self._vectors, self._unit_words, queries)
        order = np.argsort(-best, kind="stable")
        return [(self.units[i], round(float(best[i]), 3)) for i in order]

    def _relevance(self, vectors: np.ndarray, words: Sequence[set[str]], queries: Sequence[str]) -> np.ndarray:
        best = np.zeros(len(words))
        for query in (q for q in queries if q.strip()):
            sims = vectors @ self.embedder.embed(query) if len(words) else np.zeros(0)
            asked = content_words(query)
            best = np.maximum(best, [0.6 * float(s) + 0.4 * overlap(asked, w) for s, w in zip(sims, words)])
        return best

    # -- scoring sentences ---------------------------------------------------------------------------
    def scores(self, sentence: str, translation: str | None = None) -> dict[int, float]:
        """Support score of every passage for one sentence (the better of the sentence and its translation)."""
        out = self._scores(without_answer_word(strip_citations(sentence)), identifiers_of=sentence)
        if translation:
            other = self._scores(without_answer_word(strip_citations(translation)), identifiers_of=sentence)
            out = {pid: max(out[pid], other[pid]) for pid in out}
        return out

    def _scores(self, clean: str, *, identifiers_of: str) -> dict[int, float]:
        return {pid: support_score(signals) for pid, signals in self.signals(clean, identifiers_of).items()}

    def signals(self, clean: str, identifiers_of: str) -> dict[int, Signals]:
        """Every passage's ``Signals`` for one sentence (citations stripped); identifiers and values are those of
        ``identifiers_of``, the sentence as written (a translation keeps the names of its original)."""
        sims = self._vectors @ self.embedder.embed(clean) if self.units else np.zeros(0)
        polarity = negated(strip_markup(clean))  # read as the units are, so a copy never contradicts its source
        words, wanted, ranks = content_words(clean), values(identifiers_of), comparisons(clean)
        plain = set() if polarity else plain_words(clean)  # "is optional", against a passage's "is required"
        out = {}
        for pid, passage in enumerate(self.passages, 1):
            own = np.flatnonzero(self._owner == pid)
            unit_sims, unit_negated = [float(sims[i]) for i in own], [self._negated[i] for i in own]
            same = max((s for s, n in zip(unit_sims, unit_negated) if n == polarity), default=0.0)
            out[pid] = Signals(same, overlap(words, self._words[pid - 1], self._asked),
                               overlap(words, self._words[pid - 1]), identifier_score(identifiers_of, passage),
                               wanted <= self._values[pid - 1],
                               contradicted(unit_sims, unit_negated, polarity)
                               or bool(opposed(plain, [self._unit_plain[i] for i in own], unit_negated)),
                               len(words), ranks <= self._comparisons[pid - 1])
        return out

    def check_sentence(self, sentence: str, translation: str | None = None, absent: Sequence[str] = (),
                       unseen: Sequence[str] = ()) -> Support:
        """One sentence's verdict; ``absent``: names the whole documentation lacks (the gate's ``bystanders``), so
        no sentence naming one is supported ("FastAPI logs users in with LDAP through OAuth2" reads close to a
        passage on OAuth2); ``unseen``: names the question gives that no passage has (the gate's ``unseen``)."""
        cited = citations(sentence)
        if repeats_question(sentence, self.question):
            return Support(sentence, cited, "exempt", {}, None, REPEATS)
        if is_include(sentence):
            return Support(sentence, cited, "exempt", {}, None, INCLUDE)
        if is_escape(sentence):
            return Support(sentence, cited, "exempt", {}, None, "Exempt: the fixed 'not found' phrase.")
        if not strip_markup(strip_citations(sentence)):  # '<img src="/img/tutorial/debugging/image01.png"> [1]'
            return Support(sentence, cited, "exempt", {}, None, MARKUP)
        if is_heading(sentence):  # "## Sharing configuration across requests", copied with its passage
            backed = max(self.scores(sentence, translation).values(), default=0.0) >= SUPPORT_THRESHOLD
            return Support(sentence, cited, "exempt", {}, None, HEADING if backed else UNBACKED_HEADING,
                           checked_as=translation)
        if introduces_code(sentence):
            if not identifiers(strip_citations(sentence)):
                return Support(sentence, cited, "exempt", {}, None, LEAD)
            # "Turn checks off with `verify=False`:" names something: shown only when a passage backs it, and (as any
            # line that leads into code) never counted for or against the answer; the code after it is checked.
            scores = self.scores(sentence, translation)
            backed = max(scores.values(), default=0.0) >= SUPPORT_THRESHOLD
            return Support(sentence, cited, "exempt", scores, None, LEAD if backed else UNBACKED_LEAD,
                           checked_as=translation)
        named = named_in(absent, strip_citations(sentence))
        if named:
            return Support(sentence, cited, "unsupported", {}, None,
                           f"Unsupported: it names {', '.join(named)}, which the documents never mention.")
        if named := named_in(unseen, strip_citations(f"{sentence} {translation or ''}")):
            return Support(sentence, cited, "unsupported", {}, None,
                           f"Unsupported: it names {', '.join(named)}, which none of the passages mentions.")
        scores = self.scores(sentence, translation)
        result = _verdict(sentence, cited, scores, SUPPORT_THRESHOLD)
        return result._replace(checked_as=translation) if translation else result

    def check_code(self, code: str) -> Support:
        """A code block is supported when a passage has it (``copied_from``), or adapts one of the passages' blocks
        (``adapted_from``): that block is then shown in its place."""
        found = [pid for pid, p in enumerate(self.passages, 1) if copied_from(code, p)]
        if found:
            return Support(code, [], "supported", {p: 1.0 for p in found}, found[0],
                           f"Copied from passage [{found[0]}].", True)
        blocks = [u for u in self.units if u.is_code]
        n = adapted_from(code, [u.text for u in blocks], self.question)
        if n is not None:
            pid = blocks[n].pid
            return Support(code, [], "supported", {pid: 1.0}, pid, f"Adapts the example in passage [{pid}], which is "
                           "shown instead.", True, example=blocks[n].text)
        return Support(code, [], "unsupported", {}, None, "This code does not appear in any passage.", True)

    def check_answer(self, answer: str, translations: dict[str, str] | None = None,
                     absent: Sequence[str] = (), unseen: Sequence[str] = ()) -> list[Support]:
        """Every sentence and code block of an answer, in order; ``translations`` maps a sentence to its translation,
        ``absent`` and ``unseen`` list names the documentation, or the passages, lack (``check_sentence``)."""
        translations = translations or {}
        out: list[Support] = []
        for segment in segments(answer):
            if segment.is_code:
                if segment.text.strip():  # an empty block (a fence left open at the end) claims nothing
                    out.append(self.check_code(segment.text.strip("\n")))
            else:
                out += [self.check_sentence(s, translations.get(s), absent, unseen)
                        for s in answer_sentences(segment.text)]
        return out


_ANSWER_WORD = re.compile(r"(?i)^\s*(?:no|non)\s*[,.!:;]\s*(?=\S)")


def without_answer_word(sentence: str) -> str:
    """A sentence without the "No," that answers the question before its claim, which says the "not" itself: the
    passage that says "HTTPX does not follow redirects" has no "no" in it, and one that says "there is no notion of
    …" did, so the sentence was attributed to that one. A "Yes," stays: it is often the whole of a small model's
    wrong claim ("Yes, HTTPX can connect to WebSocket"), and the word missing from every passage counts against it.

    >>> without_answer_word("No, HTTPX does not follow redirects by default."), without_answer_word("No.")
    ('HTTPX does not follow redirects by default.', 'No.')
    """
    return _ANSWER_WORD.sub("", sentence, count=1)


def answer_sentences(prose: str) -> list[str]:
    """The sentences of an answer's prose that are checked: longer than 8 characters, or leading into code, so that
    a line such as "例如：" goes with code the check leaves out (``answer.verified``) instead of hanging over nothing.

    >>> answer_sentences("它提供了 `timeout` 参数 [1]。\\n\\n例如：\\n\\n好的。")
    ['它提供了 `timeout` 参数 [1]。', '例如：']
    """
    return [s for s in prose_sentences(prose) if len(s) > MIN_SENTENCE or introduces_code(s)]


def _verdict(sentence: str, cited: list[int], scores: dict[int, float], threshold: float) -> Support:
    """Supported, miscited, uncited (with the passage that supports it) or unsupported."""
    best = max(scores, key=scores.get) if scores else None
    backed = best is not None and scores[best] >= threshold
    valid = [c for c in cited if c in scores]
    if valid and max(scores[c] for c in valid) >= threshold:
        top = max(valid, key=scores.get)
        return Support(sentence, cited, "supported", scores, None, f"Passage [{top}] supports it (score {scores[top]:.2f}).")
    if cited and backed:
        marks = "".join(f"[{c}]" for c in cited)
        return Support(sentence, cited, "miscited", scores, best, f"Cites {marks}, but passage [{best}] is the one that supports it.")
    if backed:
        return Support(sentence, cited, "uncited", scores, best, f"No citation; passage [{best}] supports it.")
    if cited:
        invalid = [c for c in cited if c not in scores]
        why = f"cites passages that do not exist: {invalid}" if invalid and not valid else "no passage supports it"
        return Support(sentence, cited, "unsupported", scores, None, f"Unsupported: {why}.")
    return Support(sentence, cited, "unsupported", scores, None, "No citation, and no passage supports it.")


def shown_citations(s: Support, threshold: float = SUPPORT_THRESHOLD) -> tuple[list[int], str]:
    """The ids a supported sentence is shown with, and who chose them ("model" or "checker").

    The model's own valid ids that reach the threshold are kept; otherwise the
    checker's best passage replaces them (an uncited or miscited sentence).

    >>> shown_citations(Support("x [1][7].", [1, 7], "supported", {1: 0.9, 2: 0.2}, None, ""))
    ([1], 'model')
    >>> shown_citations(Support("x.", [], "uncited", {1: 0.2, 2: 0.8}, 2, ""))
    ([2], 'checker')
    """
    own = [c for c in dict.fromkeys(s.cited) if s.support.get(c, 0.0) >= threshold]
    if own:
        return own, "model"
    return ([s.suggested] if s.suggested else []), "checker"
