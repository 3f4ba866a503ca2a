"""Answer: turn the checked model answer into what the user is shown.

- ``verified``: the model's answer passed; only sentences a passage supports are
  shown, miscited sentences get the passage that supports them.
- ``extractive``: the model's answer failed; 1-3 sentences or code blocks that
  best answer the question are quoted from the passages, each with its [n].
- ``not_found``: the passages do not cover the question; the fixed phrase.

>>> sources_line([(1, "compatibility.md"), (3, "quickstart.md")])
'Sources: [1] compatibility.md  [3] quickstart.md'
"""

from __future__ import annotations

import re
from typing import NamedTuple, Sequence

from repobot.engine.check import FormCheck, citations, is_escape
from repobot.engine.prompt import language
from repobot.engine.support import Support, SupportChecker, content_words

VERDICTS = ("verified", "extractive", "not_found")
QUOTED_LABEL = {
    "en": "Quoted from the documents:",
    "zh": "以下内容摘自文档：",
    "fr": "Extraits des documents :",
}
MISSING_LABEL = {
    "en": "Not in the retrieved passages: {terms}",
    "zh": "检索到的片段里没有：{terms}",
    "fr": "Absent des passages trouvés : {terms}",
}
MIN_EXTRACT_SCORE = 0.3


def sources_line(sources: Sequence[tuple[int, str]], label: str = "Sources") -> str:
    return f"{label}: " + "  ".join(f"[{i}] {s}" for i, s in sources)


def model_passes(check: FormCheck, sentences: Sequence[Support]) -> bool:
    """The model's answer is kept when it invents no id, cites something, and half its claims hold.

    >>> s = Support("x [1].", [1], "supported", {1: 0.9}, None, "")
    >>> model_passes(FormCheck([1], [], []), [s]), model_passes(FormCheck([1, 9], [9], []), [s])
    (True, False)
    """
    if check.invalid or not check.cited:
        return False
    claims = [s for s in sentences if s.status != "exempt"]
    supported = sum(s.status == "supported" for s in claims)
    return supported > 0 and supported * 2 >= len(claims)


def said_not_found(sentences: Sequence[Support]) -> bool:
    """True when the model's whole answer is the escape phrase."""
    return bool(sentences) and all(s.status == "exempt" for s in sentences) and any(is_escape(s.text) for s in sentences)


def verified_text(answer: str, sentences: Sequence[Support]) -> str:
    """The model's answer keeping only supported claims, with citations corrected.

    >>> a = "Off by default [2]. Made up claim [1]."
    >>> ok = Support("Off by default [2].", [2], "miscited", {1: 0.9}, 1, "")
    >>> bad = Support("Made up claim [1].", [1], "unsupported", {}, None, "")
    >>> verified_text(a, [ok, bad])
    'Off by default [1].'
    """
    out, position = [], 0
    for s in sentences:
        found = _locate(answer, s.text, position)
        if found is None:
            continue
        start, end = found
        out.append(answer[position:start])
        position = end
        if s.status in ("supported", "exempt"):
            out.append(s.text)
        elif s.status in ("miscited", "uncited") and s.suggested:
            out.append(_recite(s.text, s.suggested))
    out.append(answer[position:])
    text = re.sub(r"```[^\n]*\n\s*```", "", "".join(out))
    return re.sub(r"\n{3,}", "\n\n", re.sub(r"[ \t]+\n", "\n", text)).strip()


def _locate(text: str, piece: str, start: int) -> tuple[int, int] | None:
    """Where ``piece`` occurs in ``text`` from ``start``, allowing any whitespace between its words.

    >>> _locate("One [1].\\nTwo wraps\\nhere [2].", "Two wraps here [2].", 0)
    (9, 28)
    """
    pattern = r"\s+".join(re.escape(word) for word in piece.split())
    match = re.compile(pattern).search(text, start)
    return (match.start(), match.end()) if match else None


def _recite(sentence: str, pid: int) -> str:
    """Replace a sentence's citations with [pid] (placed before its final punctuation)."""
    bare = re.sub(r"\s*\[\d+\]", "", sentence).rstrip()
    match = re.search(r"[。！？.!?]$", bare)
    if match:
        return f"{bare[:-1]} [{pid}]{bare[-1]}"
    return f"{bare} [{pid}]"


class Extract(NamedTuple):
    pid: int
    position: int
    text: str
    score: float
    is_code: bool


def extractive_answer(
    question: str, checker: SupportChecker, *, lang: str = "en", most: int = 3
) -> tuple[str, list[Extract]]:
    """Quote the 1-3 passage units that best answer the question, in document order, each cited.

    Uses the units the support checker already split and embedded. A chosen
    sentence that introduces code (ends with ':') brings the code block after it.
    """
    if not checker.units:
        return "", []
    similarity = checker.unit_vectors @ checker.embedder.embed(question)
    words = content_words(question)
    scored = []
    for (pid, pos, unit, is_code), sim in zip(checker.units, similarity):
        overlap = len(words & content_words(unit)) / len(words) if words else 0.0
        scored.append(Extract(pid, pos, unit, round(0.6 * float(sim) + 0.4 * overlap, 3), is_code))
    ranked = sorted((e for e in scored if not e.is_code and len(e.text) > 20), key=lambda e: -e.score)
    chosen = [e for e in ranked[:most] if e.score >= MIN_EXTRACT_SCORE]
    if not chosen:
        return "", []
    by_place = {(e.pid, e.position): e for e in scored}
    for e in list(chosen):
        follow = by_place.get((e.pid, e.position + 1))
        if e.text.rstrip().endswith((":", "：", "...")) and follow and follow.is_code and follow not in chosen:
            chosen.append(follow)
    chosen.sort(key=lambda e: (e.pid, e.position))
    lines = [QUOTED_LABEL.get(lang, QUOTED_LABEL["en"]), ""]
    for e in chosen:
        if e.is_code:
            lines += ["```", e.text, "```"]
        else:
            lines.append(f"> {e.text} [{e.pid}]")
    return "\n".join(lines), chosen


def not_found_text(lang: str, missing: Sequence[str]) -> str:
    """The escape phrase, then (on its own line) the key terms no passage contained."""
    phrase = language(lang).escape
    if not missing:
        return phrase
    return f"{phrase}\n{MISSING_LABEL.get(lang, MISSING_LABEL['en']).format(terms=', '.join(missing))}"


def cited_ids(text: str) -> list[int]:
    return sorted(set(citations(text)))
