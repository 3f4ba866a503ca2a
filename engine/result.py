"""Result: one question's whole record (retrieved, prompted, generated, checked, shown) and its one JSON form.

``hit_json``, ``support_json`` and ``answer_json`` are the only places a
result becomes a dict: the CLI, the history and the evaluation all use them;
the desktop keeps the typed objects.

>>> hit = Hit(1, 0, Chunk("a.md", "A", 3, 9, "text"), 0.5)
>>> hit_json(hit)
{'id': 1, 'source': 'a.md', 'lines': [3, 9], 'heading': 'A', 'score': 0.5}
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field

from .check import FormCheck
from .chunk import Chunk
from .retrieve import Hit
from .support import Support
from .text import citations


@dataclass
class Timings:
    retrieve_ms: float = 0.0
    first_content_ms: float | None = None  # the first useful text on screen (the quoted preview)
    first_token_ms: float | None = None  # the model's first token
    total_ms: float = 0.0
    tokens_per_s: float = 0.0
    prompt_tokens: int = 0


@dataclass
class Answer:
    question: str
    language: str
    model: str
    prompt: list[dict[str, str]]
    retrieved: list[Hit]
    searched_for: str = ""  # the query retrieval used besides the question (its rewrite), else the question
    model_answer: str = ""
    check: FormCheck = FormCheck([], [], [])
    sentences: list[Support] = field(default_factory=list)  # the model's answer, checked
    final_sentences: list[Support] = field(default_factory=list)  # what the user is shown, with final citations
    verdict: str = "not_found"
    final_answer: str = ""
    missing_terms: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)  # trimming, stop reasons, index notes
    stop_reason: str = ""
    timings: Timings = field(default_factory=Timings)
    conversation: int | None = None  # the saved conversation it belongs to
    evidence: float = 0.0  # how well the passages' best sentence matches the question (answer.evidence)
    attempts: int = 1  # the drafts the model wrote: 2 when the first failed the check (pipeline.AskOptions.retry)

    @property
    def sources(self) -> list[Hit]:
        """The retrieved passages the final answer cites, in id order, with those whose code it shows (a code block
        carries no [n]: its passage is its ``suggested`` id, whether copied or shown in place of the model's).

        >>> hits = [Hit(n, 0, Chunk(f"{n}.md", "", 1, 2, "t"), 0.5) for n in (1, 2, 3)]
        >>> code = Support("get(u)", [], "supported", {3: 1.0}, 3, "", True, "checker", example="get(url)")
        >>> [h.rank for h in Answer("Q?", "en", "m", [], hits, final_answer="x [1].", final_sentences=[code]).sources]
        [1, 3]
        """
        ids = set(citations(self.final_answer)) | {s.suggested for s in self.final_sentences if s.is_code and s.suggested}
        return [h for h in self.retrieved if h.rank in ids]

    def to_json(self) -> dict:
        return answer_json(self)


def hit_json(hit: Hit, *, text: bool = False, id_key: str = "id", exact: bool = False) -> dict:
    out = {id_key: hit.rank, "source": hit.chunk.source, "lines": [hit.chunk.start, hit.chunk.end],
           "heading": hit.chunk.heading, "score": hit.score if exact else round(hit.score, 5)}
    return out | {"text": hit.chunk.text} if text else out


def support_json(s: Support) -> dict:
    return {
        "text": s.text, "cited": s.cited, "status": s.status, "support": {str(k): v for k, v in s.support.items()},
        "suggested": s.suggested, "reason": s.reason, "code": s.is_code, "cited_by": s.cited_by,
        "checked_as": s.checked_as, "example": s.example, "section": s.section,
    }


def answer_json(a: Answer, *, full: bool = False) -> dict:
    """The answer as JSON; ``full`` (for the history) adds each passage's text and keeps numbers unrounded."""
    return {
        "question": a.question,
        "language": a.language,
        "model": a.model,
        "prompt": a.prompt,
        "retrieved": [hit_json(h, text=full, exact=full) for h in a.retrieved],
        "searched_for": a.searched_for,
        "answer": a.model_answer,
        "check": a.check._asdict(),
        "sources": [{"id": h.rank, "source": h.chunk.source, "lines": [h.chunk.start, h.chunk.end]} for h in a.sources],
        "timings": {k: (round(v, 1) if isinstance(v, float) and not full else v) for k, v in asdict(a.timings).items()},
        "sentences": [support_json(s) for s in a.sentences],
        "final_sentences": [support_json(s) for s in a.final_sentences],
        "verdict": a.verdict,
        "final_answer": a.final_answer,
        "model_answer": a.model_answer,
        "missing_terms": a.missing_terms,
        "notes": a.notes,
        "stop_reason": a.stop_reason,
        "conversation": a.conversation,
        "evidence": round(a.evidence, 3),
        "attempts": a.attempts,
    }


def support_from_json(d: dict) -> Support:
    return Support(d["text"], list(d["cited"]), d["status"], {int(k): v for k, v in d["support"].items()},
                   d["suggested"], d["reason"], d.get("code", False), d.get("cited_by"), d.get("checked_as"),
                   d.get("example"), d.get("section"))


def answer_from_json(d: dict) -> Answer:
    """The answer ``answer_json(…, full=True)`` describes, as it was checked and shown
    (the chunk's place in an index that has moved on since is not kept: ``chunk_id`` is -1).

    >>> a = Answer("Q?", "en", "m", [], [Hit(1, 0, Chunk("a.md", "A", 3, 9, "text"), 0.5)], final_answer="x [1].")
    >>> back = answer_from_json(answer_json(a, full=True))
    >>> back.sources[0].chunk == a.sources[0].chunk, back.final_answer
    (True, 'x [1].')
    """
    hits = [Hit(h["id"], -1, Chunk(h["source"], h["heading"], h["lines"][0], h["lines"][1], h.get("text", "")), h["score"])
            for h in d["retrieved"]]
    return Answer(
        d["question"], d["language"], d["model"], d["prompt"], hits, d.get("searched_for", ""), d["model_answer"],
        FormCheck(**d["check"]), [support_from_json(s) for s in d["sentences"]],
        [support_from_json(s) for s in d["final_sentences"]], d["verdict"], d["final_answer"], d["missing_terms"],
        d["notes"], d["stop_reason"], Timings(**d["timings"]), d.get("conversation"), d.get("evidence", 0.0),
        d.get("attempts", 1),
    )
