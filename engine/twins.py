"""Twins: a question's own language's pages, searched by their words and counted as the originals they translate.

A translated tree (``en/…``, ``ja/…``, or ``docs/<lang>/…``) is indexed in the
languages the user reads: by default the app's and English. A question in
another language the tree has was found through the model's rewrite, and its
own words only matched the English pages through their identifiers. Yet its
page in its own language says what it asks in its words. ``twin_index`` reads
that language's pages, chunks them and fits BM25 on them (no embedding: under a
second for FastAPI's 125 Japanese pages); each hit counts as the chunk of the
indexed original at the same place in the page. The passages the model reads
stay the originals.

>>> from .load import Document
>>> from .chunk import chunk_markdown
>>> from pathlib import Path
>>> original = chunk_markdown("en/cors.md", "# CORS\\nUse CORSMiddleware.\\n\\n## Origins\\n" + "List them.\\n" * 40)
>>> twin = twin_index([Document("ja/cors.md", Path("ja/cors.md"),
...                             "# CORS\\nCORSMiddleware を使う。\\n\\n## オリジン\\n" + "列挙する。\\n" * 40, "ja")],
...                   {"en/cors.md": (0, original)})
>>> [i for i, _ in twin.search(tokenize("列挙する"), 5)]  # the original's second chunk
[1]
"""

from __future__ import annotations

from typing import Mapping, Sequence

from .bm25 import Bm25Index
from .chunk import Chunk, chunk_markdown
from .index import embedding_text
from .load import Document, language_folder
from .search import LexicalIndex
from .tokens import tokenize


def original_source(source: str, into: str) -> str | None:
    """The path of a translated page's counterpart in language ``into``: its language folder swapped.

    >>> original_source("ja/docs/tutorial/cors.md", "en"), original_source("docs/zh/index.md", "en")
    ('en/docs/tutorial/cors.md', 'docs/en/index.md')
    >>> original_source("api/client.md", "en") is None  # not in a language folder
    True
    """
    at = language_folder(source)
    if at is None:
        return None
    parts = source.split("/")
    return "/".join(parts[:at] + [into] + parts[at + 1:])


def middle(chunk: Chunk, lines: int) -> float:
    """Where a chunk sits in its page of ``lines`` lines, from 0 (top) to 1 (bottom).

    >>> middle(Chunk("a.md", "A", 1, 10, ""), 20)
    0.25
    """
    return (chunk.start - 1 + chunk.end) / 2 / max(lines, 1)


def counterparts(twin: Sequence[Chunk], original: Sequence[Chunk], first: int) -> list[int]:
    """For each chunk of a translated page, the id of the original's chunk at the nearest place in the page
    (``first``: the original's first chunk id). A translation keeps its original's sections and code blocks,
    so their places in the page match closely.

    >>> page = [Chunk("en/a.md", "A", 1, 10, ""), Chunk("en/a.md", "A > B", 11, 40, "")]
    >>> counterparts([Chunk("ja/a.md", "A", 1, 12, ""), Chunk("ja/a.md", "A > B", 13, 36, "")], page, 7)
    [7, 8]
    """
    if not original or not twin:
        return [-1] * len(twin)
    twin_lines, original_lines = twin[-1].end, original[-1].end
    places = [middle(c, original_lines) for c in original]
    return [first + min(range(len(places)), key=lambda i: abs(places[i] - middle(c, twin_lines))) for c in twin]


class TwinIndex(LexicalIndex):
    """BM25 over translated pages whose hits are the ids of their originals' chunks (best first, each once)."""

    def __init__(self, lexical: Bm25Index, targets: Sequence[int]):
        self.lexical = lexical
        self.targets = list(targets)

    def search(self, tokens: Sequence[str], k: int) -> list[tuple[int, float]]:
        found: dict[int, float] = {}
        for i, score in self.lexical.search(tokens, 4 * k):
            target = self.targets[i]
            if target >= 0 and target not in found:
                found[target] = score
        return list(found.items())[:k]

    def share(self, token: str) -> float:
        return self.lexical.share(token)


def twin_index(documents: Sequence[Document], originals: Mapping[str, tuple[int, Sequence[Chunk]]],
               into: str = "en") -> TwinIndex:
    """A ``TwinIndex`` over ``documents`` (pages in one language), whose originals in language ``into`` are
    ``originals`` (source -> (first chunk id, its chunks)); a page without an indexed original is left out."""
    chunks: list[Chunk] = []
    targets: list[int] = []
    for doc in documents:
        found = originals.get(original_source(doc.source, into) or "")
        if found is None:
            continue
        page = chunk_markdown(doc.source, doc.text)
        chunks += page
        targets += counterparts(page, found[1], found[0])
    return TwinIndex(Bm25Index([tokenize(embedding_text(c)) for c in chunks]), targets)
