"""Chunk: split markdown into heading-aware passages that keep their place in the file.

Rules: a chunk never straddles two headings' sections of level 1 or 2; small
neighbouring subsections are merged up to the size cap; long sections split on
blank lines; a fenced code block is never cut in half (unless it alone is longer
than the embedder's window: then it is sliced), and the paragraph just before
it goes with it (it says what the code is for); a paragraph of markup alone (a
closing ``///``) never starts a chunk. Each chunk keeps its source, heading
path and 1-based line span, so a viewer can highlight it.

>>> text = "# Guide\\nIntro.\\n\\n## Redirects\\nNot by default.\\n"
>>> [(c.heading, c.start, c.end) for c in chunk_markdown("g.md", text)]
[('Guide', 1, 2), ('Guide > Redirects', 4, 5)]
>>> [c.heading for c in chunk_markdown("g.md", "# Guide\\n\\n## Redirects\\nNot by default.")]
['Guide > Redirects']
"""

from __future__ import annotations

import re
from typing import Callable, NamedTuple

from .markup import front_matter, heading_title
from .text import FenceTracker, file_lines, is_fence_line

MAX_CHARS = 700  # ~200 word pieces of prose or code: fits all-MiniLM-L6-v2's 256-piece window
MIN_CHARS = 200  # smaller neighbouring subsections are merged
HARD_CHARS = 4 * MAX_CHARS  # a code fence longer than this is sliced (it cannot be embedded whole anyway)

_HEADING = re.compile(r"^(#{1,6})[ \t]+(.+?)[ \t#]*$")
_VERSION_PATH = re.compile(r"(?:^|/)(v?\d+(?:\.\d+|\.x)+|v\d+)(?:/|$)")
_VERSION_VALUE = re.compile(r"[\w.\-]+")  # front matter's "version: 2.0"
_TAG = re.compile(r"</?[A-Za-z][^>]*>")
_WORD = re.compile(r"[^\W_]")


class Chunk(NamedTuple):
    source: str  # file path relative to the corpus root
    heading: str  # heading path, "Page > Section > Subsection"
    start: int  # first line, 1-based
    end: int  # last line, inclusive
    text: str
    version: str | None = None


class _Block(NamedTuple):
    level: int  # level of the heading that opens it (0: text before any heading)
    heading: str
    lines: list[tuple[int, str]]  # (line number, text)


def find_version(source: str, text: str) -> str | None:
    """The documentation version a file belongs to, from front matter or its path.

    >>> find_version("v2/quickstart.md", ""), find_version("a.md", "---\\nversion: 1.4\\n---\\n")
    ('v2', '1.4')
    >>> find_version("api.md", "# API") is None
    True
    """
    match = _VERSION_VALUE.match(front_matter(text).fields.get("version", ""))
    if match:
        return match.group(0)
    match = _VERSION_PATH.search(source)
    return match.group(1) if match else None


def split_blocks(text: str, title: str = "") -> list[_Block]:
    """Cut a file at its headings (headings inside code fences do not count); ``title`` heads the text before the
    first heading."""
    blocks: list[_Block] = []
    path: list[tuple[int, str]] = []
    current = _Block(0, title, [])
    fences = FenceTracker()
    for number, line in enumerate(file_lines(text), 1):
        if not fences.inside_after(line):
            heading = _HEADING.match(line)
            if heading:
                level, title = len(heading.group(1)), heading_title(heading.group(2))
                path = [p for p in path if p[0] < level] + [(level, title)]
                if current.lines:
                    blocks.append(current)
                current = _Block(level, " > ".join(t for _, t in path), [])
        current.lines.append((number, line))
    if current.lines:
        blocks.append(current)
    return blocks


def split_paragraphs(lines: list[tuple[int, str]]) -> list[list[tuple[int, str]]]:
    """Group lines into paragraphs at blank lines, keeping each code fence whole."""
    paragraphs: list[list[tuple[int, str]]] = []
    current: list[tuple[int, str]] = []
    fences = FenceTracker()
    for number, line in lines:
        fences.inside_after(line)
        if not fences.open and not line.strip():
            if current:
                paragraphs.append(current)
            current = []
        else:
            current.append((number, line))
    if current:
        paragraphs.append(current)
    return paragraphs


class Budget(NamedTuple):
    """How chunks are sized: in ``measure`` units, at most ``limit`` per chunk, heading path included.

    Neighbouring subsections smaller than ``small`` merge; a code fence is only
    sliced past ``hard``. The default counts characters; the pipeline counts the
    embedder's own word pieces (``piece_budget``), so every chunk fits its window.
    """

    measure: Callable[[str], int] = len
    limit: int = MAX_CHARS
    small: int = MIN_CHARS
    hard: int = HARD_CHARS


CHARS = Budget()


def piece_budget(count: Callable[[str], int], window: int) -> Budget:
    """A budget in word pieces for an embedder that reads ``window`` pieces, two of them special.

    A section's first paragraph may join the next one even past ``limit`` while it
    is smaller than ``small``, so ``limit + small`` fits the window; a code fence
    is sliced only past four windows. (Capping chunks at 700 characters as well
    lowered hybrid MRR on the httpx questions from 0.897 to 0.853.)

    >>> b = piece_budget(lambda t: len(t.split()), 256)
    >>> b.limit + b.small, b.measure("one two three four")
    (254, 4)
    """
    small = window // 8
    limit = window - 2 - small
    return Budget(count, limit, small, 4 * limit)


def _cut(line: str, limit: int, measure: Callable[[str], int]) -> list[str]:
    """Cut one long line into parts of at most ``limit`` units, halving a part until it fits."""
    if measure(line) <= limit or len(line) <= 1:
        return [line]
    step = max(1, min(len(line) // 2, limit))
    parts = [line[i : i + step] for i in range(0, len(line), step)]
    if len(parts) == 1:
        parts = [line[: len(line) // 2], line[len(line) // 2 :]]
    return [piece for part in parts for piece in _cut(part, limit, measure)]


def _slice(paragraph: list[tuple[int, str]], limit: int, measure: Callable[[str], int]) -> list[list[tuple[int, str]]]:
    """Cut a paragraph into pieces of at most ``limit`` units (by lines, then inside a line)."""
    pieces: list[list[tuple[int, str]]] = []
    current: list[tuple[int, str]] = []
    size = 0
    for number, line in paragraph:
        for part in _cut(line, limit, measure) if line else [line]:
            cost = measure(part) + 1
            if current and size + cost > limit:
                pieces.append(current)
                current, size = [], 0
            current.append((number, part))
            size += cost
    if current:
        pieces.append(current)
    return pieces


def _pieces(paragraph: list[tuple[int, str]], limit: int, budget: Budget) -> list[tuple[list[tuple[int, str]], int]]:
    """A long prose paragraph (a list, a table) splits at lines; a code fence only past ``budget.hard``.

    Returns each piece with its size.
    """
    is_code = is_fence_line(paragraph[0][1])
    cap = max(budget.hard, limit) if is_code else limit
    size = _size(paragraph, budget.measure)
    if size <= cap:
        return [(paragraph, size)]
    return [(piece, _size(piece, budget.measure)) for piece in _slice(paragraph, cap, budget.measure)]


def _size(lines: list[tuple[int, str]], measure: Callable[[str], int]) -> int:
    return measure("\n".join(line for _, line in lines)) + 1


def _make(source: str, heading: str, lines: list[tuple[int, str]], version: str | None) -> Chunk:
    return Chunk(source, heading, lines[0][0], lines[-1][0], "\n".join(l for _, l in lines), version)


def _join(current: list[tuple[int, str]], piece: list[tuple[int, str]]) -> list[tuple[int, str]]:
    """Append a paragraph, keeping the blank lines between them so text matches the line span."""
    if not current:
        return list(piece)
    blanks = [(n, "") for n in range(current[-1][0] + 1, piece[0][0])]
    return current + blanks + piece


def _heading_cost(heading: str, budget: Budget) -> int:
    """What the heading path adds to a chunk's embedded text (the heading, a newline, the text)."""
    return budget.measure(heading) + 1 if heading else 0


def closes_only(paragraph: list[tuple[int, str]]) -> bool:
    """True for a paragraph of markup alone, which closes what came before it: a ``///`` admonition end, a
    ``</details>``, a rule.

    >>> closes_only([(66, "///")]), closes_only([(3, "</details>")]), closes_only([(9, "/// tip")])
    (True, True, False)
    """
    return not any(_WORD.search(_TAG.sub("", line)) for _, line in paragraph)


def chunk_block(source: str, block: _Block, version: str | None = None, budget: Budget = CHARS) -> list[Chunk]:
    """Pack one section's paragraphs into chunks within the budget (a long code fence may exceed it).

    A paragraph of markup alone (``closes_only``) joins the chunk it closes when it fits, and is left out when it
    would start a chunk of its own: that chunk would say nothing, yet be found by its heading and take a passage's
    place.

    >>> text = [(1, "/// tip"), (2, ""), (3, "x" * 690), (4, ""), (5, "///")]
    >>> [(c.start, c.end) for c in chunk_block("a.md", _Block(2, "", text))]
    [(1, 3)]
    >>> [(c.start, c.end) for c in chunk_block("a.md", _Block(2, "", [(1, "/// tip"), (2, "Short."), (3, ""), (4, "///")]))]
    [(1, 4)]
    """
    limit = max(budget.limit - _heading_cost(block.heading, budget), budget.limit // 2)
    chunks: list[Chunk] = []
    current: list[tuple[int, str]] = []
    size = 0
    lead = None  # (where it starts in current, its lines, its size): the last prose paragraph, which may lead into code
    for paragraph in split_paragraphs(block.lines):
        markup = not is_fence_line(paragraph[0][1]) and closes_only(paragraph)
        for piece, cost in _pieces(paragraph, limit, budget):
            code = is_fence_line(piece[0][1])
            overflows = size >= budget.small and size + cost > limit
            if markup and (overflows or not current):
                if current:  # the chunk ends before it, so that each chunk's text stays its lines as they are
                    chunks.append(_make(source, block.heading, current, version))
                current, size, lead = [], 0, None
                continue
            if overflows:
                carried = code and lead is not None and lead[0] > 0 and lead[2] + cost <= limit
                chunks.append(_make(source, block.heading, current[: lead[0]] if carried else current, version))
                current, size = (list(lead[1]), lead[2]) if carried else ([], 0)
            lead = None if code else (len(current), piece, cost)
            current = _join(current, piece)
            size += cost
    if current:
        chunks.append(_make(source, block.heading, current, version))
    return chunks


def chunk_markdown(source: str, text: str, budget: Budget = CHARS) -> list[Chunk]:
    """All chunks of one file, in file order.

    Small subsections (level 3 and deeper) merge into the preceding chunk of the
    same level-1/2 section while the result stays within the budget; a chunk
    that holds only a heading merges with the section that follows it.
    """
    version = find_version(source, text)
    meta = front_matter(text)  # about the page, not its text: its lines are left out, its title heads the page's top
    if meta.lines:
        text = "\n" * meta.lines + text.split("\n", meta.lines)[-1]
    chunks: list[Chunk] = []
    for block in split_blocks(text, meta.fields.get("title", "")):
        pieces = chunk_block(source, block, version, budget)
        if not pieces:
            continue
        if chunks and _mergeable(chunks[-1], pieces[0], block.level, budget):
            previous, first = chunks[-1], pieces[0]
            heading = first.heading if _only_headings(previous.text) else previous.heading
            gap = "\n" * (first.start - previous.end)
            chunks[-1] = previous._replace(heading=heading, end=first.end, text=previous.text + gap + first.text)
            pieces = pieces[1:]
        chunks.extend(pieces)
    return chunks


def _only_headings(text: str) -> bool:
    return all(_HEADING.match(line) for line in text.splitlines() if line.strip())


def _mergeable(previous: Chunk, first: Chunk, level: int, budget: Budget) -> bool:
    """A heading-only chunk takes the next section; small level-3+ subsections join their neighbour."""
    heading = first.heading if _only_headings(previous.text) else previous.heading
    sizes = budget.measure(previous.text), budget.measure(first.text)
    if sum(sizes) + 1 + _heading_cost(heading, budget) > budget.limit:
        return False
    if _only_headings(previous.text):
        return True
    return level >= 3 and min(sizes) < budget.small
