"""Evaluate: retrieval and answer quality of a question set, per retrieval mode.

Each line of the question file is ``{"question", "answerable", "gold_sources", "key_facts"}``.

>>> reciprocal_rank(["a.md", "b.md", "c.md"], ["c.md"]), reciprocal_rank(["a.md"], ["z.md"])
(0.333..., 0.0)
"""

from __future__ import annotations

import json
import statistics
from pathlib import Path
from typing import NamedTuple, Sequence

from repobot.engine.errors import RepoBotError
from repobot.engine.retrieve import check_mode


class Question(NamedTuple):
    question: str
    answerable: bool
    gold_sources: list[str]
    key_facts: list[str]


def load_questions(path: str | Path) -> list[Question]:
    """Read a JSONL question set; a bad line is an error that names the line and the fix."""
    path = Path(path)
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except OSError as err:
        raise RepoBotError(f"Cannot read {path}: {err.strerror or err}. Give eval a JSONL question file.") from err
    questions = []
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
            questions.append(Question(str(row["question"]), bool(row["answerable"]),
                                      list(row.get("gold_sources", [])), list(row.get("key_facts", []))))
        except (ValueError, KeyError, TypeError) as err:
            raise RepoBotError(
                f"{path}:{number} is not a question line ({err}); each line needs "
                '{"question": ..., "answerable": true|false, "gold_sources": [...], "key_facts": [...]}.'
            ) from err
    if not questions:
        raise RepoBotError(f"{path} holds no questions.")
    return questions


def reciprocal_rank(retrieved: Sequence[str], gold: Sequence[str]) -> float:
    for rank, source in enumerate(retrieved, 1):
        if source in gold:
            return 1.0 / rank
    return 0.0


def _rate(values: Sequence[bool | float]) -> float | None:
    return round(sum(values) / len(values), 3) if values else None


def _median(values: Sequence[float]) -> float | None:
    return round(statistics.median(values), 1) if values else None


def evaluate(pipe, questions: Sequence[Question], *, modes: Sequence[str] = ("bm25", "dense", "hybrid"),
             answers: bool = True, k: int = 5) -> dict:
    """Run every question in every mode; return the summary and per-question results."""
    from repobot.engine.pipeline import AskOptions

    for mode in modes:
        check_mode(mode)
    per_question = []
    summary = {}
    for mode in modes:
        rows = []
        for q in questions:
            hits = pipe.search(q.question, k=k, mode=mode)
            sources = [h.chunk.source for h in hits]
            row = {"mode": mode, "question": q.question, "answerable": q.answerable, "retrieved": sources}
            if q.gold_sources:
                rr = reciprocal_rank(sources, q.gold_sources)
                row.update(hit_at_5=rr > 0, rr=round(rr, 3))
            if answers:
                answer = pipe.ask(q.question, AskOptions(k=k, mode=mode))
                claims = [s for s in answer.sentences if s.status != "exempt"]
                final = answer.final_answer.lower()
                row.update(
                    verdict=answer.verdict,
                    generated=answer.stop_reason != "gate",
                    no_invalid=not answer.check.invalid,
                    supported=sum(s.status == "supported" for s in claims),
                    claims=len(claims),
                    key_facts=all(f.lower() in final for f in q.key_facts) if q.answerable else None,
                    final_answer=answer.final_answer,
                    model_answer=answer.model_answer,
                    ttft_ms=answer.timings.first_token_ms,
                    total_ms=round(answer.timings.total_ms, 1),
                )
            rows.append(row)
        per_question += rows
        summary[mode] = _summarise(rows, answers)
    return {"n_questions": len(questions), "modes": summary, "questions": per_question}


def _summarise(rows: list[dict], answers: bool) -> dict:
    gold = [r for r in rows if "rr" in r]
    out = {
        "hit_at_5": _rate([r["hit_at_5"] for r in gold]),
        "mrr": _rate([r["rr"] for r in gold]),
    }
    if not answers:
        return out
    generated = [r for r in rows if r["generated"]]
    answerable = [r for r in rows if r["answerable"]]
    unanswerable = [r for r in rows if not r["answerable"]]
    claims = sum(r["claims"] for r in generated)
    out.update(
        no_invalid_rate=_rate([r["no_invalid"] for r in generated]),
        supported_rate=round(sum(r["supported"] for r in generated) / claims, 3) if claims else None,
        key_facts_rate=_rate([r["key_facts"] for r in answerable]),
        not_found_accuracy=_rate([r["verdict"] == "not_found" for r in unanswerable]),
        false_refusal_rate=_rate([r["verdict"] == "not_found" for r in answerable]),
        ttft_ms_p50=_median([r["ttft_ms"] for r in generated if r["ttft_ms"] is not None]),
        total_ms_p50=_median([r["total_ms"] for r in rows]),
    )
    return out


COLUMNS = [
    ("hit_at_5", "hit@5"), ("mrr", "MRR"), ("no_invalid_rate", "no invalid"), ("supported_rate", "supported"),
    ("key_facts_rate", "key facts"), ("not_found_accuracy", "not-found acc"), ("false_refusal_rate", "false refusals"),
    ("ttft_ms_p50", "TTFT p50 ms"), ("total_ms_p50", "total p50 ms"),
]


def format_table(result: dict) -> str:
    """A readable table: one row per mode."""
    cols = [(key, label) for key, label in COLUMNS if any(key in m for m in result["modes"].values())]
    header = ["mode"] + [label for _, label in cols]
    rows = [[mode] + [_cell(metrics.get(key)) for key, _ in cols] for mode, metrics in result["modes"].items()]
    widths = [max(len(str(r[i])) for r in [header] + rows) for i in range(len(header))]
    lines = [f"{result['n_questions']} questions"]
    lines += ["  ".join(str(c).rjust(w) for c, w in zip(r, widths)) for r in [header] + rows]
    return "\n".join(lines)


def _cell(value) -> str:
    if value is None:
        return "-"
    return f"{value:.3f}" if isinstance(value, float) and value <= 1 else f"{value:.0f}"
