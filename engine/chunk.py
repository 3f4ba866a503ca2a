"""Chunk: split markdown into heading-aware passages that keep their place in the file.

Rules: a chunk never straddles two headings' sections of level 1 or 2; small
neighbouring subsections are merged up to the size cap; long sections split on
blank lines; a fenced code block is never cut in half. Each chunk keeps its
source, heading path and 1-based line span, so a viewer can highlight it.

>>> text = "# Guide\\nIntro.\\n\\n## Redirects\\nNot by default.\\n"
>>> [(c.heading, c.start, c.end) for c in chunk_markdown("g.md", text)]
[('Guide', 1, 2), ('Guide > Redirects', 4, 5)]
>>> [c.heading for c in chunk_markdown("g.md", "# Guide\\n\\n## Redirects\\nNot by default.")]
['Guide > Redirects']
"""

from __future__ import annotations

import re
from typing import NamedTuple

MAX_CHARS = 700  # ~200 word pieces of prose or code: fits all-MiniLM-L6-v2's 256-piece window
MIN_CHARS = 200  # smaller neighbouring subsections are merged
HARD_CHARS = 4 * MAX_CHARS  # a code fence longer than this is sliced (it cannot be embedded whole anyway)

_HEADING = re.compile(r"^(#{1,6})[ \t]+(.+?)[ \t#]*$")
_FENCE = re.compile(r"^[ \t]{0,3}(`{3,}|~{3,})")
_VERSION_PATH = re.compile(r"(?:^|/)(v?\d+(?:\.\d+|\.x)+|v\d+)(?:/|$)")
_VERSION_META = re.compile(r"^version:\s*[\"']?([\w.\-]+)", re.M)


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
    if text.startswith("---"):
        end = text.find("\n---", 3)
        if end > 0:
            match = _VERSION_META.search(text[3:end])
            if match:
                return match.group(1)
    match = _VERSION_PATH.search(source)
    return match.group(1) if match else None


def split_blocks(text: str) -> list[_Block]:
    """Cut a file at its headings (headings inside code fences do not count)."""
    blocks: list[_Block] = []
    path: list[tuple[int, str]] = []
    current = _Block(0, "", [])
    fence: str | None = None
    for number, line in enumerate(text.splitlines(), 1):
        opener = _FENCE.match(line)
        if fence is None and opener:
            fence = opener.group(1)[0] * 3
        elif fence is not None and line.strip().startswith(fence):
            fence = None
        elif fence is None:
            heading = _HEADING.match(line)
            if heading:
                level, title = len(heading.group(1)), heading.group(2).strip()
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
    fence: str | None = None
    for number, line in lines:
        opener = _FENCE.match(line)
        if fence is None and opener:
            fence = opener.group(1)[0] * 3
        elif fence is not None and line.strip().startswith(fence):
            fence = None
        if fence is None and not line.strip():
            if current:
                paragraphs.append(current)
            current = []
        else:
            current.append((number, line))
    if current:
        paragraphs.append(current)
    return paragraphs


def _slice(paragraph: list[tuple[int, str]], limit: int) -> list[list[tuple[int, str]]]:
    """Cut a paragraph into pieces of at most ``limit`` characters (by lines, then by characters)."""
    pieces: list[list[tuple[int, str]]] = []
    current: list[tuple[int, str]] = []
    size = 0
    for number, line in paragraph:
        for start in range(0, max(len(line), 1), limit):
            part = line[start : start + limit]
            if current and size + len(part) > limit:
                pieces.append(current)
                current, size = [], 0
            current.append((number, part))
            size += len(part) + 1
    if current:
        pieces.append(current)
    return pieces


def _pieces(paragraph: list[tuple[int, str]]) -> list[list[tuple[int, str]]]:
    """A long prose paragraph (a list, a table) splits at lines; a code fence only past HARD_CHARS."""
    is_code = bool(_FENCE.match(paragraph[0][1]))
    limit = HARD_CHARS if is_code else MAX_CHARS
    return _slice(paragraph, limit) if _size(paragraph) > limit else [paragraph]


def _size(lines: list[tuple[int, str]]) -> int:
    return sum(len(line) + 1 for _, line in lines)


def _make(source: str, heading: str, lines: list[tuple[int, str]], version: str | None) -> Chunk:
    return Chunk(source, heading, lines[0][0], lines[-1][0], "\n".join(l for _, l in lines), version)


def _join(current: list[tuple[int, str]], piece: list[tuple[int, str]]) -> list[tuple[int, str]]:
    """Append a paragraph, keeping the blank lines between them so text matches the line span."""
    if not current:
        return list(piece)
    blanks = [(n, "") for n in range(current[-1][0] + 1, piece[0][0])]
    return current + blanks + piece


def chunk_block(source: str, block: _Block, version: str | None = None) -> list[Chunk]:
    """Pack one section's paragraphs into chunks of at most MAX_CHARS (a code fence may exceed it)."""
    chunks: list[Chunk] = []
    current: list[tuple[int, str]] = []
    for paragraph in split_paragraphs(block.lines):
        for piece in _pieces(paragraph):
            if _size(current) >= MIN_CHARS and _size(current) + _size(piece) > MAX_CHARS:
                chunks.append(_make(source, block.heading, current, version))
                current = []
            current = _join(current, piece)
    if current:
        chunks.append(_make(source, block.heading, current, version))
    return chunks


def chunk_markdown(source: str, text: str) -> list[Chunk]:
    """All chunks of one file, in file order.

    Small subsections (level 3 and deeper) merge into the preceding chunk of the
    same level-1/2 section while the result stays under MAX_CHARS; a chunk that
    holds only a heading merges with the section that follows it.
    """
    version = find_version(source, text)
    chunks: list[Chunk] = []
    for block in split_blocks(text):
        pieces = chunk_block(source, block, version)
        if not pieces:
            continue
        if chunks and _mergeable(chunks[-1], pieces[0], block.level):
            previous, first = chunks[-1], pieces[0]
            heading = first.heading if _only_headings(previous.text) else previous.heading
            gap = "\n" * (first.start - previous.end)
            chunks[-1] = previous._replace(heading=heading, end=first.end, text=previous.text + gap + first.text)
            pieces = pieces[1:]
        chunks.extend(pieces)
    return chunks


def _only_headings(text: str) -> bool:
    return all(_HEADING.match(line) for line in text.splitlines() if line.strip())


def _mergeable(previous: Chunk, first: Chunk, level: int) -> bool:
    """A heading-only chunk takes the next section; small level-3+ subsections join their neighbour."""
    if len(previous.text) + len(first.text) > MAX_CHARS:
        return False
    if _only_headings(previous.text):
        return True
    return level >= 3 and min(len(previous.text), len(first.text)) < MIN_CHARS
