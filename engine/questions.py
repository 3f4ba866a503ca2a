"""Question sets: the JSONL files that ``repobot eval`` scores, read and checked line by line.

Each line of a question file is ``{"question", "answerable", "gold_sources",
"key_facts", "language", "split"}``. A key fact is a string, or a list of
alternatives (any one counts), looked for in the shown answer. ``split`` says
whether a question was used to calibrate RepoBot or is kept to report on. An
optional ``earlier`` lists the questions asked before it in the same conversation:
they are answered first, and the question is asked as their follow-up.
"""

from __future__ import annotations

import json
import stat
from pathlib import Path
from typing import NamedTuple, Sequence

from .errors import RepoBotError
from .languages import LANGUAGES, READ_ONLY_NAMES, detect_language
from .options import clean_question

LANGUAGE_CODES = frozenset(LANGUAGES) | frozenset(READ_ONLY_NAMES)  # every code detect_language gives

SPLITS = ("calibrate", "report")


class Question(NamedTuple):
    question: str
    answerable: bool
    gold_sources: list[str]
    key_facts: list  # each a string or a list of alternative strings
    language: str
    split: str
    earlier: tuple[str, ...] = ()  # the conversation's questions before this one


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
                        _language(row) or detect_language(text), _split(row), _earlier(row))
    except (ValueError, KeyError, TypeError, RecursionError) as err:
        reason = "nested too deeply" if isinstance(err, RecursionError) else err
        raise RepoBotError(
            f"{where} is not a question line ({reason}); each line needs "
            '{"question": "...", "answerable": true|false, "gold_sources": ["file.md", ...], "key_facts": [...]}, '
            'optionally "language": "en", "split": "calibrate"|"report" and "earlier": ["question asked before", ...].'
        ) from None


def _question_text(row: dict) -> str:
    """The question, a string that is not empty once control characters are dropped (as ``ask`` would refuse it)."""
    return _asked(_typed(row, "question", str), "'question'")


def _earlier(row: dict) -> tuple[str, ...]:
    """The questions asked before this one, each one ``ask`` would take: found wanting before any is answered.

    >>> _earlier({"earlier": ["Does httpx retry?", " "]})
    Traceback (most recent call last):
    ValueError: 'earlier' question 2 is empty
    """
    return tuple(_asked(text, f"'earlier' question {n}") for n, text in enumerate(_strings(row, "earlier"), 1))


def _asked(text: str, name: str) -> str:
    """``text``, if ``ask`` would take it as a question; else a ValueError that says why, under ``name``."""
    try:
        clean_question(text)
    except RepoBotError as err:  # "The question is empty: …", "The question has no words, only symbols: …"
        raise ValueError(f"{name} {str(err).split(':')[0].lower().removeprefix('the question ')}") from None
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


def absent_gold(questions: Sequence[Question], root: Path) -> list[str]:
    """The gold pages the questions name that are not files under ``root``: a question set meant for another folder
    scores 0 on every question whose pages are absent, which looks like bad retrieval.

    >>> import tempfile; q = Question("Q?", True, ["a.md", "docs/b.md"], [], "en", "report")
    >>> absent_gold([q], Path(tempfile.mkdtemp()))
    ['a.md', 'docs/b.md']
    """
    return sorted({g for q in questions for g in q.gold_sources if not (root / g).is_file()})
