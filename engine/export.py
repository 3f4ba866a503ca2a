"""Export: a conversation as markdown, each answer with its sources (file and line span) and sentence statuses.

>>> from repobot.engine.result import Answer
>>> print(conversation_markdown([Answer("Q?", "en", "m", [], [], verdict="not_found",
...                                     final_answer="The documents do not cover this.")], title="Demo"))
# Demo
<BLANKLINE>
## Q?
<BLANKLINE>
The documents do not cover this.
<BLANKLINE>
*Verdict: not_found.*
"""

from __future__ import annotations

from typing import Sequence

from .result import Answer

MARK = {"supported": "✓", "miscited": "↺", "unsupported": "✗", "uncited": "?", "exempt": "·"}


def answer_markdown(answer: Answer) -> str:
    out = [f"## {answer.question}", ""]
    if answer.searched_for and answer.searched_for != answer.question:
        out += [f"*Searched for: {answer.searched_for}*", ""]
    out += [answer.final_answer, ""]
    if answer.sources:
        out += ["Sources: " + "  ".join(f"[{h.rank}] {h.chunk.source}:{h.chunk.start}-{h.chunk.end}"
                                       for h in answer.sources), ""]
    shown = [s for s in answer.final_sentences if not s.is_code]
    if shown:
        out += ["Checked sentences:", ""]
        for s in shown:
            added = s.cited_by == "checker" and not s.is_quote and answer.verdict == "verified"
            by = " (citation added by RepoBot)" if added else ""
            out.append(f"- {MARK[s.status]} {s.status}{by}: {s.text.splitlines()[0]}")
            if s.checked_as:  # a translated sentence: what was checked is the text it was translated from
                out.append(f"  - checked as: {' '.join(s.checked_as.split())}")
        out.append("")
    out.append(f"*Verdict: {answer.verdict}.*")
    out += [f"*Note: {note}*" for note in answer.notes]  # a translation, a language not answered in, a second draft
    return "\n".join(out)


def conversation_markdown(answers: Sequence[Answer], *, title: str = "") -> str:
    """The whole conversation; the title heads it when given, and each answer's notes follow its verdict.

    >>> a = Answer("¿Qué?", "en", "m", [], [], verdict="not_found", final_answer="x", notes=["Asked in Spanish."])
    >>> conversation_markdown([a]).splitlines()[-1]
    '*Note: Asked in Spanish.*'
    """
    parts = ([f"# {title}"] if title else []) + [answer_markdown(a) for a in answers]
    return "\n\n".join(parts)
