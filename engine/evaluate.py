"""Evaluate: retrieval and answer quality of a question set, per retrieval mode and per language.

Each line of a question file is ``{"question", "answerable", "gold_sources",
"key_facts", "language", "split"}``. A key fact is a string, or a list of
alternatives (any one counts), looked for in the shown answer. ``split`` says
whether a question was used to calibrate RepoBot or is kept to report on.

>>> reciprocal_rank(["a.md", "b.md", "c.md"], ["c.md"]), reciprocal_rank(["a.md"], ["z.md"])
(0.333..., 0.0)
>>> has_facts("Pass follow_redirects=True [1].", ["follow_redirects", ["5 秒", "five seconds"]])
False
"""

from __future__ import annotations

import json
import stat
import statistics
from dataclasses import replace
from pathlib import Path
from typing import NamedTuple, Sequence

from .answer import claims, is_backed
from .errors import RepoBotError
from .languages import LANGUAGES, READ_ONLY_NAMES, detect_language
from .options import clean_question
from .retrieve import check_mode
from .text import citations

LANGUAGE_CODES = frozenset(LANGUAGES) | frozenset(READ_ONLY_NAMES)  # every code detect_language gives

SPLITS = ("calibrate", "report")


class Question(NamedTuple):
    question: str
    answerable: bool
    gold_sources: list[str]
    key_facts: list  # each a string or a list of alternative strings
    language: str
    split: str


def load_questions(path: str | Path, split: str | None = None) -> list[Question]:
    """Read a JSONL question set (one split of it); a bad line is an error that names the line and the fix.

    >>> import tempfile; f = Path(tempfile.mkdtemp()) / "q.jsonl"
    >>> _ = f.write_bytes(b'\\xef\\xbb\\xbf{"question": "Redirects?", "answerable": true}\\n{"question": null}\\n')
    >>> load_questions(f)
    Traceback (most recent call last):
    repobot.engine.errors.RepoBotError: .../q.jsonl:2 is not a question line ('question' must be a JSON string, not null); ...
    """
    path = Path(path)
    questions = [_question(line, f"{path}:{number}") for number, line in enumerate(_lines(path), 1) if line.strip()]
    if split:
        if split not in SPLITS:
            raise RepoBotError(f"Unknown split {split!r}: choose one of {', '.join(SPLITS)}.")
        questions = [q for q in questions if q.split == split]
    if not questions:
        raise RepoBotError(f"{path} holds no questions{f' in the {split} split' if split else ''}.")
    return questions


def _lines(path: Path) -> list[str]:
    """The lines of a regular file of UTF-8 text (a byte-order mark at its start is allowed)."""
    try:
        if not stat.S_ISREG(path.stat().st_mode):  # a pipe would wait for a writer forever, a device never end
            raise RepoBotError(f"{path} is not a regular file (a folder, pipe or device); give eval a JSONL question file.")
        data = path.read_bytes()
    except OSError as err:
        raise RepoBotError(f"Cannot read {path}: {err.strerror or err}. Give eval a JSONL question file.") from err
    try:
        return data.decode("utf-8-sig").split("\n")  # not splitlines(): JSON strings may hold U+2028 or U+0085
    except UnicodeDecodeError as err:
        line = err.object.count(b"\n", 0, err.start) + 1
        raise RepoBotError(f"{path}:{line} is not UTF-8 text (byte 0x{err.object[err.start]:02x}); "
                           "save the file as UTF-8 and run eval again.") from None


def _question(line: str, where: str) -> Question:
    """One line of a question file; ``where`` (FILE:LINE) and the field at fault are named when it is not one."""
    try:
        row = json.loads(line)
        if not isinstance(row, dict):
            raise TypeError(f"a line must be a JSON object, not {_short(row)}")
        text = _question_text(row)
        return Question(text, _typed(row, "answerable", bool), _strings(row, "gold_sources"),
                        _facts(_typed(row, "key_facts", list, [])),
                        _language(row) or detect_language(text), _split(row))
    except (ValueError, KeyError, TypeError, RecursionError) as err:
        reason = "nested too deeply" if isinstance(err, RecursionError) else err
        raise RepoBotError(
            f"{where} is not a question line ({reason}); each line needs "
            '{"question": "...", "answerable": true|false, "gold_sources": ["file.md", ...], "key_facts": [...]}, '
            'optionally "language": "en" and "split": "calibrate"|"report".'
        ) from None


def _question_text(row: dict) -> str:
    """The question, a string that is not empty once control characters are dropped (as ``ask`` would refuse it)."""
    text = _typed(row, "question", str)
    try:
        clean_question(text)
    except RepoBotError as err:  # "The question is empty: …", "The question has no words, only symbols: …"
        raise ValueError(f"'question' {str(err).split(':')[0].lower().removeprefix('the question ')}") from None
    return text


KINDS = {bool: "true or false", list: "list", str: "string"}


def _typed(row: dict, key: str, kind: type, default=None):
    """``row[key]``, which must be of ``kind`` ("a.md" is not a list of sources); ``default`` when absent."""
    if key not in row and default is None:
        raise ValueError(f"{key!r} is missing")
    value = row.get(key, default)
    if not isinstance(value, kind):
        raise TypeError(f"{key!r} must be a JSON {KINDS[kind]}, not {_short(value)}")
    return value


def _strings(row: dict, key: str) -> list[str]:
    """``row[key]``, a list of strings (an empty one when absent)."""
    values = _typed(row, key, list, [])
    if not all(isinstance(v, str) for v in values):
        raise TypeError(f"{key!r} must be a JSON list of strings, not {_short(values)}")
    return values


def _split(row: dict) -> str:
    """The question's split, one of SPLITS ("report" when absent)."""
    split = _typed(row, "split", str, "report")
    if split not in SPLITS:
        raise ValueError(f"'split' must be one of {', '.join(SPLITS)}, not {_short(split)}")
    return split


def _language(row: dict) -> str:
    """The question's language code as given ("" when absent), one ``detect_language`` can tell: a label it never
    gives ("English", "xx") would make a group of its own in ``by_language``.

    >>> _language({"language": "zh"}), _language({})
    ('zh', '')
    >>> _language({"language": "English"})
    Traceback (most recent call last):
    ValueError: 'language' must be a language code RepoBot reads (de, en, es, fr, hi, it, ja, ko, pt, ru, tr, uk, zh), not "English"
    """
    code = _typed(row, "language", str, "")
    if code and code not in LANGUAGE_CODES:
        raise ValueError(f"'language' must be a language code RepoBot reads ({', '.join(sorted(LANGUAGE_CODES))}), "
                         f"not {_short(code)}")
    return code


def _facts(facts: list) -> list:
    """Key facts: each a string, or a list of alternative strings."""
    if not all(isinstance(f, str) or (isinstance(f, list) and all(isinstance(a, str) for a in f)) for f in facts):
        raise TypeError(f"each key fact must be a string or a list of strings, not {_short(facts)}")
    return facts


def _short(value, chars: int = 60) -> str:
    """``value`` as JSON writes it (``null``, ``"a.md"``), cut to ``chars`` characters so that a message stays short.

    >>> _short("x" * 100, 10), _short(None)
    ('"xxxxxxxx…', 'null')
    """
    text = json.dumps(value, ensure_ascii=False)
    return text if len(text) <= chars else text[:chars - 1] + "…"


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


def absent_gold(questions: Sequence[Question], root: Path) -> list[str]:
    """The gold pages the questions name that are not files under ``root``: a question set meant for another folder
    scores 0 on every question whose pages are absent, which looks like bad retrieval.

    >>> import tempfile; q = Question("Q?", True, ["a.md", "docs/b.md"], [], "en", "report")
    >>> absent_gold([q], Path(tempfile.mkdtemp()))
    ['a.md', 'docs/b.md']
    """
    return sorted({g for q in questions for g in q.gold_sources if not (root / g).is_file()})


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
        for n, q in enumerate(questions, 1):
            row = {"mode": mode, "question": q.question, "answerable": q.answerable, "language": q.language,
                   "split": q.split}
            if answers:
                answer = pipe.ask(q.question, opts)
                hits = answer.retrieved
                row.update(answer_row(q, answer))
            else:
                hits = pipe.search(q.question, opts).hits
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
