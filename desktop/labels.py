"""Labels: the window's words for what the engine names in its own (a sentence's status, a hover's reason, a
passage's section and the passage list's rows), as plain text; ``render`` puts them into HTML.
"""

from __future__ import annotations

import re
from typing import NamedTuple, Sequence

from repobot.engine.retrieve import Hit

_LINK = re.compile(r"!?\[([^\]]*)\]\([^)]*\)")  # [text](url), ![alt](src)
_EMPHASIS = re.compile(r"(?<![\w*])(\*\*|\*|__)(?=\S)|(?<=\S)(\*\*|\*|__)(?![\w*])")  # around words
_ATTRIBUTES = re.compile(r"\s*\{\s*[#.][^{}]*\}")  # mkdocs "## Title { #title }"


STATUS_WORDS = {"exempt": "not a claim"}  # what the window calls a status whose engine name is jargon
EXEMPT = re.compile(r"^exempt: (Exempt: )?")


def status_words(status: str) -> str:
    """A sentence's status as the window names it ("exempt" meant nothing to a user; the CLI's JSON keeps it).

    >>> status_words("exempt"), status_words("supported")
    ('not a claim', 'supported')
    """
    return STATUS_WORDS.get(status, status)


def reason_text(explained: str) -> str:
    """What hovering a sentence says (``Support.explained``), in the window's words.

    >>> reason_text("exempt: Exempt: introduces the code that follows.")
    'not a claim, so not checked: introduces the code that follows.'
    >>> reason_text("supported: Passage [1] supports it.")
    'supported: Passage [1] supports it.'
    """
    return EXEMPT.sub("not a claim, so not checked: ", explained)


def plain_text(markdown: str) -> str:
    """A heading (or a path of headings) as a user reads it: no backticks, emphasis marks, link targets or
    attribute lists (a passage's section showed "`Client` instances"); a code span's inside is kept as it is.

    >>> plain_text("`Client` instances > **Why** [AsyncIO](https://docs.python.org) { #aio }")
    'Client instances > Why AsyncIO'
    >>> plain_text('`"timeout"` and *not* 2 * 3, `__init__` or max_retries__x')
    '"timeout" and not 2 * 3, __init__ or max_retries__x'
    """
    pieces = re.split(r"`+([^`]+)`+", _ATTRIBUTES.sub("", _LINK.sub(r"\1", markdown)))  # code at odd places
    return "".join(p if i % 2 else _EMPHASIS.sub("", p) for i, p in enumerate(pieces)).replace("`", "").strip()


class PassageRow(NamedTuple):
    """A row of the passage list: what it says, what hovering it says, and the passage it opens."""

    label: str
    tip: str
    hit: Hit


def passage_rows(hits: Sequence[Hit]) -> list[PassageRow]:
    """The passage list's rows, in rank order (best first): one a section, its passages' ids together (two
    passages of one section read as one listed twice), its heading as plain text, and no score (an RRF or BM25
    figure, 0.03 or 16.8, meant nothing to a user). A row opens its section's first passage.

    >>> from repobot.engine.chunk import Chunk
    >>> page = [Hit(1, 0, Chunk("quickstart.md", "QuickStart > `raise_for_status`", 5, 9, ""), 0.03),
    ...         Hit(2, 7, Chunk("api.md", "", 1, 4, ""), 0.02), Hit(3, 1, Chunk("quickstart.md", "QuickStart > `raise_for_status`", 10, 14, ""), 0.01)]
    >>> [(r.label, r.tip, r.hit.rank) for r in passage_rows(page)]  # doctest: +NORMALIZE_WHITESPACE
    [('[1] [3] quickstart.md — QuickStart > raise_for_status', 'quickstart.md, lines 5–9 and 10–14', 1),
     ('[2] api.md — (top of the page)', 'api.md, lines 1–4', 2)]
    """
    sections: dict[tuple[str, str], list[Hit]] = {}
    for hit in sorted(hits, key=lambda h: h.rank):
        same = sections.setdefault((hit.chunk.source, plain_text(hit.chunk.heading)), [])
        if all(h.chunk_id != hit.chunk_id for h in same):  # the very passage twice: once
            same.append(hit)
    rows = []
    for (source, heading), group in sections.items():
        ids = " ".join(f"[{h.rank}]" for h in group)
        lines = " and ".join(f"{h.chunk.start}–{h.chunk.end}" for h in group)
        rows.append(PassageRow(f"{ids} {source} — {heading or '(top of the page)'}", f"{source}, lines {lines}", group[0]))
    return rows
