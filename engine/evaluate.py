"""Evaluate: retrieval and answer quality of a question set (``questions.py``), per retrieval mode and per language.

A key fact is looked for in the shown answer. A follow-up question (one with
``earlier`` questions) is asked after its conversation's earlier turns are answered.

>>> reciprocal_rank(["a.md", "b.md", "c.md"], ["c.md"]), reciprocal_rank(["a.md"], ["z.md"])
(0.333..., 0.0)
>>> has_facts("Pass follow_redirects=True [1].", ["follow_redirects", ["5 秒", "five seconds"]])
False
"""

from __future__ import annotations

import statistics
from dataclasses import replace
from typing import Sequence

from .answer import claims, is_backed
from .questions import Question
from .retrieve import check_mode
from .text import citations

def reciprocal_rank(retrieved: Sequence[str], gold: Sequence[str]) -> float:
    for rank, source in enumerate(retrieved, 1):
        if source in gold:
            return 1.0 / rank
    return 0.0


def has_facts(answer: str, facts: Sequence) -> bool:
    """Every key fact (or one of its alternatives) appears in the answer, ignoring case."""
    text = answer.lower()
    return all(any(alt.lower() in text for alt in ([f] if isinstance(f, str) else f)) for f in facts)


def _rate(values: Sequence[bool | float]) -> float | None:
    return round(sum(values) / len(values), 3) if values else None


def _median(values: Sequence[float]) -> float | None:
    return round(statistics.median(values), 1) if values else None


def answer_row(q: Question, answer) -> dict:
    """What one answered question contributes to the figures."""
    made = claims(answer.sentences)
    prose = [s for s in made if not s.is_code]
    verified = answer.verdict == "verified"  # the model's sentences shown, not the quotes under them
    shown = [s for s in answer.final_sentences if verified and s.status != "exempt" and not (s.is_code or s.is_quote)]
    n = len(answer.retrieved)
    return dict(
        verdict=answer.verdict,
        generated=answer.stop_reason != "gate",
        no_invalid=not answer.check.invalid,
        shown_invalid=any(not 1 <= c <= n for c in citations(answer.final_answer)),
        claims=len(made),
        supported=sum(is_backed(s) for s in made),
        sentences=len(prose),
        cited=sum(bool(s.cited) and all(1 <= c <= n for c in s.cited) for s in prose),
        shown=len(shown),
        attributed=sum(s.cited_by == "checker" for s in shown),
        key_facts=has_facts(answer.final_answer, q.key_facts) if q.answerable else None,
        final_answer=answer.final_answer,
        model_answer=answer.model_answer,
        searched_for=answer.searched_for,
        first_content_ms=answer.timings.first_content_ms,
        ttft_ms=answer.timings.first_token_ms,
        total_ms=round(answer.timings.total_ms, 1),
        prompt_tokens=answer.timings.prompt_tokens,
        evidence=answer.evidence,
        stop_reason=answer.stop_reason,
        attempts=answer.attempts,
        checked=[(s.text, s.status, s.cited_by, max(s.support.values(), default=0.0)) for s in answer.sentences],
    )


def evaluate(pipe, questions: Sequence[Question], *, modes: Sequence[str] = ("bm25", "dense", "hybrid"),
             answers: bool = True, k: int = 5, options=None, progress=None) -> dict:
    """Run every question in every mode; return the summary, per language too, and per-question rows."""
    from .pipeline import AskOptions

    for mode in modes:
        check_mode(mode)
    base = options or AskOptions()
    per_question, summary = [], {}
    for mode in modes:
        rows = []
        opts = replace(base, k=k, mode=mode)
        turns = Conversations(pipe, opts)
        for n, q in enumerate(questions, 1):
            row = {"mode": mode, "question": q.question, "answerable": q.answerable, "language": q.language,
                   "split": q.split}
            earlier = turns.before(q.earlier)
            if q.earlier:
                row["earlier"] = earlier
            if answers:
                answer = pipe.ask(q.question, opts, earlier=earlier)
                hits = answer.retrieved
                row.update(answer_row(q, answer))
            else:
                hits = pipe.search(q.question, opts, earlier).hits
            row["retrieved"] = [h.chunk.source for h in hits]
            if q.gold_sources:
                rr = reciprocal_rank(row["retrieved"], q.gold_sources)
                row.update(hit_at_5=rr > 0, rr=round(rr, 3))
            rows.append(row)
            if progress:
                progress(mode, n, len(questions))
        per_question += rows
        summary[mode] = summarise(rows, answers)
        summary[mode]["by_language"] = {
            lang: {key: value for key, value in summarise([r for r in rows if r["language"] == lang], answers).items()
                   if key in ("hit_at_5", "key_facts_rate", "not_found_accuracy", "false_refusal_rate", "verified_rate")}
            for lang in sorted({r["language"] for r in rows})
        }
    return {"n_questions": len(questions), "modes": summary, "questions": per_question}


class Conversations:
    """The earlier turns of the set's follow-up questions, each conversation answered once (several follow-ups may
    share their earlier questions).

    >>> class Echo:
    ...     def ask(self, question, options, earlier=()):
    ...         return type("A", (), {"final_answer": f"{len(earlier)} before"})()
    >>> Conversations(Echo(), None).before(("One?", "Two?"))
    [('One?', '0 before'), ('Two?', '1 before')]
    """

    def __init__(self, pipe, options):
        self.pipe, self.options, self.turns = pipe, options, {}

    def before(self, asked: Sequence[str]) -> list[tuple[str, str]]:
        """(question, shown answer) for each of ``asked``, in order, each asked after the ones before it."""
        earlier: list[tuple[str, str]] = []
        for n, question in enumerate(asked):
            key = tuple(asked[:n + 1])
            if key not in self.turns:
                self.turns[key] = self.pipe.ask(question, self.options, earlier=list(earlier)).final_answer
            earlier.append((question, self.turns[key]))
        return earlier


def summarise(rows: list[dict], answers: bool = True) -> dict:
    gold = [r for r in rows if "rr" in r]
    out = {"hit_at_5": _rate([r["hit_at_5"] for r in gold]), "mrr": _rate([r["rr"] for r in gold])}
    if not answers:
        return out
    generated = [r for r in rows if r["generated"]]
    answerable = [r for r in rows if r["answerable"]]
    unanswerable = [r for r in rows if not r["answerable"]]

    def share(part: str, whole: str) -> float | None:
        total = sum(r[whole] for r in generated)
        return round(sum(r[part] for r in generated) / total, 3) if total else None

    out.update(
        no_invalid_rate=_rate([r["no_invalid"] for r in generated]),
        shown_invalid=sum(r["shown_invalid"] for r in rows),
        cited_rate=share("cited", "sentences"),
        supported_rate=share("supported", "claims"),
        attributed_rate=share("attributed", "shown"),
        key_facts_rate=_rate([r["key_facts"] for r in answerable]),
        verified_rate=_rate([r["verdict"] == "verified" for r in answerable]),
        not_found_accuracy=_rate([r["verdict"] == "not_found" for r in unanswerable]),
        false_refusal_rate=_rate([r["verdict"] == "not_found" for r in answerable]),
        first_content_ms_p50=_median([r["first_content_ms"] for r in rows if r["first_content_ms"] is not None]),
        ttft_ms_p50=_median([r["ttft_ms"] for r in generated if r["ttft_ms"] is not None]),
        total_ms_p50=_median([r["total_ms"] for r in rows]),
        second_drafts=sum(r.get("attempts", 1) > 1 for r in generated),
    )
    return out


COLUMNS = [
    ("hit_at_5", "hit@5"), ("mrr", "MRR"), ("no_invalid_rate", "no invalid"), ("cited_rate", "cited"),
    ("supported_rate", "supported"), ("attributed_rate", "attributed"), ("key_facts_rate", "key facts"),
    ("verified_rate", "verified"), ("not_found_accuracy", "not-found acc"), ("false_refusal_rate", "false refusals"),
    ("ttft_ms_p50", "TTFT p50 ms"), ("total_ms_p50", "total p50 ms"),
]
LANGUAGE_COLUMNS = [c for c in COLUMNS if c[0] in ("hit_at_5", "key_facts_rate", "verified_rate", "not_found_accuracy",
                                                    "false_refusal_rate")]


def format_table(result: dict) -> str:
    """Readable tables: one row per mode, then one row per language of each mode."""
    lines = [f"{result['n_questions']} questions"]
    rows = [(mode, m) for mode, m in result["modes"].items()]
    lines += _table("mode", rows, COLUMNS)
    for mode, metrics in result["modes"].items():
        lines += [""] + _table(f"{mode}: language", list(metrics.get("by_language", {}).items()), LANGUAGE_COLUMNS)
    return "\n".join(lines)


def _table(first: str, rows: list[tuple[str, dict]], columns) -> list[str]:
    cols = [(key, label) for key, label in columns if any(key in m for _, m in rows)]
    header = [first] + [label for _, label in cols]
    cells = [[name] + [_cell(metrics.get(key)) for key, _ in cols] for name, metrics in rows]
    widths = [max(len(str(r[i])) for r in [header] + cells) for i in range(len(header))]
    return ["  ".join(str(c).rjust(w) for c, w in zip(r, widths)) for r in [header] + cells]


def _cell(value) -> str:
    if value is None:
        return "-"
    return f"{value:.3f}" if isinstance(value, float) and value <= 1 else f"{value:.0f}"
