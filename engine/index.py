"""Index: the chunks of a folder with their BM25 tokens and dense vectors, brought up to date incrementally.

``update_index`` re-embeds only files whose content changed; a renamed file
with the same content keeps its vectors. The searchers (FAISS, BM25) are built
on first use; ``engine/store.py`` saves and loads an index.

>>> file_sha("hello")[:12]
'2cf24dba5fb0'
"""

from __future__ import annotations

import hashlib
import time
from collections import Counter
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Callable, NamedTuple, Protocol

import numpy as np

from .bm25 import Bm25Index
from .chunk import Chunk, chunk_markdown, piece_budget
from .embed import Embedder
from .errors import Cancelled
from .languages import detect_language
from .load import Corpus
from .search import FaissIndex, LexicalIndex, VectorIndex
from .text import strip_code, word_in
from .tokens import tokenize

Progress = Callable[[str, int, int], None]
EMBED_GROUP = 256  # chunks embedded between two checkpoints


class Checkpoint(Protocol):
    """Vectors of files embedded by a run that has not finished (``store.DiskCheckpoint`` keeps them on disk)."""

    def get(self, sha: str, count: int, dim: int) -> np.ndarray | None: ...

    def put(self, sha: str, vectors: np.ndarray) -> None: ...


class FileEntry(NamedTuple):
    sha: str
    first: int  # index of the file's first chunk
    count: int
    language: str = "en"  # the page's language, from its prose


@dataclass
class Index:
    """Chunks with their tokens and vectors; the searchers are built on first use."""

    root: Path
    embedder: str
    chunks: list[Chunk]
    tokens: list[list[str]]
    vectors: np.ndarray
    files: dict[str, FileEntry]
    bm25: Bm25Index | None = field(default=None, repr=False)  # fitted postings, when loaded from disk

    @cached_property
    def dense(self) -> VectorIndex:
        return FaissIndex(self.vectors)

    @property
    def lexical(self) -> LexicalIndex:
        if self.bm25 is None:
            self.bm25 = Bm25Index(self.tokens)
        return self.bm25

    # -- what the gate asks of the whole corpus -----------------------------------------
    @cached_property
    def _text(self) -> str:
        return "\n".join(c.text for c in self.chunks).lower()

    def has(self, term: str) -> bool:
        """Whether ``term`` appears anywhere in the documents, as a whole word."""
        return word_in(term, self._text)

    def share(self, word: str) -> float:
        return self.lexical.share(word)

    @property
    def size(self) -> int:
        return len(self.chunks)

    # -- languages ------------------------------------------------------------------------------
    @cached_property
    def languages(self) -> Counter:
        """Pages per language."""
        return Counter(entry.language for entry in self.files.values())

    @property
    def primary_language(self) -> str:
        return primary_language(self.languages)


def primary_language(pages: Counter) -> str:
    """The documents' main language: English when a fifth of the pages are English, else the most common.

    A translated tree has as many pages in each language as in English, and
    Chinese and traditional Chinese together outnumber them; the original is
    still the English one.

    >>> primary_language(Counter({"zh": 250, "en": 155, "ja": 125})), primary_language(Counter({"zh": 9, "en": 1}))
    ('en', 'zh')
    """
    if not pages:
        return "en"
    if pages.get("en", 0) * 5 >= sum(pages.values()):
        return "en"
    return pages.most_common(1)[0][0]


def page_language(text: str) -> str:
    """The language of a page, from its prose (code blocks would make every page English)."""
    return detect_language(strip_code(text)[:4000])


class UpdateReport(NamedTuple):
    added: list[str]
    updated: list[str]
    removed: list[str]
    unchanged: list[str]
    embedded_chunks: int
    seconds: float

    @property
    def changed(self) -> bool:
        return bool(self.added or self.updated or self.removed)


def file_sha(text: str) -> str:
    """Content hash of a file's text."""
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


def embedding_text(chunk: Chunk) -> str:
    """What gets embedded: the heading path gives a short chunk its topic."""
    return f"{chunk.heading}\n{chunk.text}" if chunk.heading else chunk.text


def update_index(
    corpus: Corpus,
    embedder: Embedder,
    previous: Index | None = None,
    *,
    progress: Progress | None = None,
    cancelled: Callable[[], bool] = lambda: False,
    checkpoint: Checkpoint | None = None,
) -> tuple[Index, UpdateReport]:
    """Index ``corpus``, reusing vectors for every file whose content was embedded before.

    Vectors come from ``previous`` (same content, even under a new name) or from
    ``checkpoint`` (a run that was interrupted); only the rest is embedded.
    """
    started = time.perf_counter()
    old_by_sha: dict[str, tuple[list[Chunk], list[list[str]], np.ndarray, str]] = {}
    if previous is not None and previous.embedder == embedder.name:
        for entry in previous.files.values():
            span = slice(entry.first, entry.first + entry.count)
            old_by_sha[entry.sha] = (previous.chunks[span], previous.tokens[span], previous.vectors[span], entry.language)
    old_files = previous.files if previous is not None else {}

    budget = piece_budget(embedder.count_pieces, embedder.max_pieces)  # every chunk fits the embedder's window
    chunks: list[Chunk] = []
    tokens: list[list[str]] = []
    files: dict[str, FileEntry] = {}
    known: dict[str, np.ndarray] = {}  # sha -> vectors already available
    todo: list[str] = []  # sources whose chunks need embedding
    added, updated, unchanged = [], [], []
    for n, doc in enumerate(corpus.documents):
        if cancelled():
            raise Cancelled()
        sha = file_sha(doc.text)
        reused = old_by_sha.get(sha)
        first = len(chunks)
        if reused is not None:
            doc_chunks = [c._replace(source=doc.source) for c in reused[0]]
            tokens.extend(reused[1])
            known[sha] = reused[2]
            lang = reused[3]
        else:
            doc_chunks = chunk_markdown(doc.source, doc.text, budget)
            tokens.extend(tokenize(embedding_text(c)) for c in doc_chunks)
            lang = page_language(doc.text)
            saved = checkpoint.get(sha, len(doc_chunks), embedder.dim) if checkpoint else None
            if saved is not None:
                known[sha] = saved
            elif sha not in known:
                todo.append(doc.source)
        chunks.extend(doc_chunks)
        files[doc.source] = FileEntry(sha, first, len(doc_chunks), lang)
        old = old_files.get(doc.source)
        (unchanged if old and old.sha == sha else updated if old else added).append(doc.source)
        if progress:
            progress("chunk", n + 1, len(corpus.documents))

    done = _embed_files(todo, files, chunks, embedder, known, progress, cancelled, checkpoint)
    vectors = np.zeros((len(chunks), embedder.dim), dtype=np.float32)
    for entry in files.values():
        if entry.count:
            vectors[entry.first : entry.first + entry.count] = known[entry.sha]
    removed = sorted(set(old_files) - set(files))
    index = Index(corpus.root, embedder.name, chunks, tokens, vectors, files)
    return index, UpdateReport(added, updated, removed, unchanged, done, time.perf_counter() - started)


def _embed_files(todo, files, chunks, embedder, known, progress, cancelled, checkpoint) -> int:
    """Embed the chunks of the ``todo`` files group by group, checkpointing each group; returns the count."""
    total = sum(files[s].count for s in todo)
    done = 0
    for group in _groups(todo, files, EMBED_GROUP):
        spans = [(files[s].first, files[s].count) for s in group]
        texts = [embedding_text(chunks[i]) for first, count in spans for i in range(first, first + count)]
        offset = done
        vectors = embedder.embed_many(
            texts,
            progress=(lambda d, _t: progress("embed", offset + d, total)) if progress else None,
            cancelled=cancelled,
        )
        position = 0
        for source, (_, count) in zip(group, spans):
            part = vectors[position : position + count]
            position += count
            known[files[source].sha] = part
            if checkpoint:
                checkpoint.put(files[source].sha, part)
        done += len(texts)
    return done


def _groups(sources: list[str], files: dict[str, FileEntry], size: int) -> list[list[str]]:
    """Consecutive files bundled into groups of about ``size`` chunks.

    >>> f = {"a": FileEntry("x", 0, 200), "b": FileEntry("y", 200, 100), "c": FileEntry("z", 300, 5)}
    >>> _groups(["a", "b", "c"], f, 256)
    [['a', 'b'], ['c']]
    """
    groups, current, count = [], [], 0
    for source in sources:
        current.append(source)
        count += files[source].count
        if count >= size:
            groups.append(current)
            current, count = [], 0
    if current:
        groups.append(current)
    return groups
