"""Index: the chunks of a folder with their BM25 tokens and dense vectors, brought up to date incrementally.

Two steps. ``update_index`` reads, chunks and tokenizes (seconds): the index is
then searchable with BM25, and every file whose content was embedded before
keeps its vectors (a renamed file too). ``embed_pending`` embeds the rest, a
group of files at a time, so that dense search covers more of the folder after
each step; until then those chunks are found by BM25 alone. The searchers
(FAISS, BM25) are built on first use; ``engine/store.py`` saves and loads an index.

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
from typing import Callable, Iterator, NamedTuple, Protocol

import numpy as np

from .bm25 import Bm25Index
from .chunk import Chunk, chunk_markdown, find_version, piece_budget
from .embed import Embedder
from .errors import Cancelled
from .languages import detect_language
from .load import Corpus, not_read
from .names import word_in
from .search import FaissIndex, LexicalIndex, VectorIndex
from .text import strip_code
from .tokens import tokenize

Progress = Callable[[str, int, int], None]
EMBED_GROUP = 64  # chunks embedded between two checkpoints (and between two questions, in the window)


class Checkpoint(Protocol):
    """Vectors of files embedded by a run that has not finished (``store.DiskCheckpoint`` keeps them on disk)."""

    def get(self, sha: str, count: int, dim: int) -> np.ndarray | None: ...

    def put(self, sha: str, vectors: np.ndarray) -> None: ...


class FileEntry(NamedTuple):
    sha: str
    first: int  # index of the file's first chunk
    count: int
    language: str = "en"  # the page's language, from its prose

    @property
    def span(self) -> slice:
        """The file's chunks (and their rows of vectors) in the index."""
        return slice(self.first, self.first + self.count)


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
    pending: list[str] = field(default_factory=list)  # files whose chunks are not embedded yet
    _dense: VectorIndex | None = field(default=None, repr=False)

    @property
    def dense(self) -> VectorIndex:
        """Dense search over the chunks embedded so far."""
        if self._dense is None:
            rows = np.flatnonzero(self.embedded) if self.pending else None
            self._dense = FaissIndex(self.vectors if rows is None else self.vectors[rows], rows)
        return self._dense

    @property
    def embedded(self) -> np.ndarray:
        """Which chunks have their vector (the others are found by BM25 alone for now)."""
        mask = np.ones(len(self.chunks), dtype=bool)
        for source in self.pending:
            entry = self.files[source]
            mask[entry.span] = False
        return mask

    @property
    def pending_chunks(self) -> int:
        return sum(self.files[s].count for s in self.pending)

    def add_vectors(self, sources: list[str], vectors: np.ndarray) -> None:
        """The vectors of some pending files, in the order given: they are searched densely from now on."""
        position, added = 0, set(sources)
        for source in sources:
            entry = self.files[source]
            self.vectors[entry.span] = vectors[position : position + entry.count]
            position += entry.count
        self.pending = [s for s in self.pending if s not in added]
        self._dense = None

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
    """The language of a page, from its prose (code blocks would make every page English); a script counts where it
    writes a tenth of the letters at least (an English page may quote a phrase in Japanese)."""
    return detect_language(strip_code(text)[:4000], share=0.1)


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
    """Chunk and tokenize ``corpus``: the index this returns is searchable (BM25) at once.

    Vectors come from ``previous`` (same content, even under a new name) or from
    ``checkpoint`` (a run that was interrupted); the files still without them are
    listed in ``index.pending``, for ``embed_pending``.
    """
    started = time.perf_counter()
    old_by_sha: dict[str, tuple[list[Chunk], list[list[str]], np.ndarray | None]] = {}
    if previous is not None and previous.embedder == embedder.name:
        done = previous.embedded
        for entry in previous.files.values():
            span = entry.span
            vectors = previous.vectors[span] if done[span].all() else None
            old_by_sha[entry.sha] = (previous.chunks[span], previous.tokens[span], vectors)
    old_files = previous.files if previous is not None else {}

    budget = piece_budget(embedder.count_pieces, embedder.max_pieces)  # every chunk fits the embedder's window
    chunks: list[Chunk] = []
    tokens: list[list[str]] = []
    files: dict[str, FileEntry] = {}
    known: dict[str, np.ndarray] = {}  # sha -> vectors already available
    added, updated, unchanged = [], [], []
    for n, doc in enumerate(corpus.documents):
        if cancelled():
            raise Cancelled()
        sha = file_sha(doc.text)
        reused = old_by_sha.get(sha)
        if reused is not None:  # the same text, maybe under another path: its version and language are the path's
            version = find_version(doc.source, doc.text)
            doc_chunks = [c._replace(source=doc.source, version=version) for c in reused[0]]
            tokens.extend(reused[1])
            if reused[2] is not None:
                known[sha] = reused[2]
        else:
            doc_chunks = chunk_markdown(doc.source, doc.text, budget)
            tokens.extend(tokenize(embedding_text(c)) for c in doc_chunks)
        lang = doc.language or page_language(doc.text)
        if sha not in known and checkpoint is not None:
            saved = checkpoint.get(sha, len(doc_chunks), embedder.dim)
            if saved is not None:
                known[sha] = saved
        files[doc.source] = FileEntry(sha, len(chunks), len(doc_chunks), lang)
        chunks.extend(doc_chunks)
        old = old_files.get(doc.source)
        (unchanged if old and old.sha == sha else updated if old else added).append(doc.source)
        if progress:
            progress("chunk", n + 1, len(corpus.documents))

    for source, entry in old_files.items():  # a page that could not be read this time keeps its last indexed text
        if source not in files and not_read(corpus.problems, source):
            span = entry.span  # its own rows (not another page's of the same text: their source and version differ)
            files[source] = entry._replace(first=len(chunks))
            chunks.extend(previous.chunks[span])
            tokens.extend(previous.tokens[span])
            if previous.embedder == embedder.name and previous.embedded[span].all():
                known[entry.sha] = previous.vectors[span]
            unchanged.append(source)

    vectors = np.zeros((len(chunks), embedder.dim), dtype=np.float32)
    pending = []
    for source, entry in files.items():
        if not entry.count:
            continue
        if entry.sha in known:
            vectors[entry.span] = known[entry.sha]
        else:
            pending.append(source)
    removed = sorted(set(old_files) - set(files))
    index = Index(corpus.root, embedder.name, chunks, tokens, vectors, files, pending=pending)
    if previous is not None and previous.bm25 is not None and tokens == previous.tokens:
        index.bm25 = previous.bm25  # nothing changed: the postings loaded from disk stand, not fitted again
    return index, UpdateReport(added, updated, removed, unchanged, 0, time.perf_counter() - started)


def embed_pending(
    index: Index,
    embedder: Embedder,
    *,
    cancelled: Callable[[], bool] = lambda: False,
    checkpoint: Checkpoint | None = None,
    group: int = EMBED_GROUP,
) -> Iterator[tuple[int, int]]:
    """Embed the pending files a group at a time, checkpointing each group; yields (chunks done, total).

    A file's vectors are added to the index (and searched) as soon as its group is done.
    """
    total, done = index.pending_chunks, 0
    for sources in _groups(list(index.pending), index.files, group):
        texts = [embedding_text(chunk) for s in sources for chunk in index.chunks[index.files[s].span]]
        vectors = embedder.embed_many(texts, cancelled=cancelled)
        position = 0
        for source in sources:
            count = index.files[source].count
            if checkpoint is not None:
                checkpoint.put(index.files[source].sha, vectors[position : position + count])
            position += count
        index.add_vectors(sources, vectors)
        done += len(texts)
        yield done, total


def take_up(index: Index, saved: Index | None, checkpoint: Checkpoint | None = None) -> list[str]:
    """Give the pending files of ``index`` the vectors another run made for the same text: from the index it saved
    (with the same embedder), else from its checkpoint. Returns the files taken up; the folder is not read again.

    >>> f = {"a.md": FileEntry("sa", 0, 1), "b.md": FileEntry("sb", 1, 1)}
    >>> mine = Index(Path("/d"), "e", [None, None], [[], []], np.zeros((2, 2), np.float32), f, pending=["a.md", "b.md"])
    >>> theirs = Index(Path("/d"), "e", [None], [[]], np.ones((1, 2), np.float32), {"a.md": FileEntry("sa", 0, 1)})
    >>> take_up(mine, theirs), mine.pending, mine.vectors[0].tolist()
    (['a.md'], ['b.md'], [1.0, 1.0])
    """
    made: dict[str, np.ndarray] = {}
    if saved is not None and saved.embedder == index.embedder:
        done = saved.embedded
        made = {e.sha: saved.vectors[e.span] for e in saved.files.values() if done[e.span].all()}
    taken = []
    for source in list(index.pending):
        entry = index.files[source]
        vectors = made.get(entry.sha)
        if vectors is None and checkpoint is not None:
            vectors = checkpoint.get(entry.sha, entry.count, index.vectors.shape[1])
        if vectors is not None and len(vectors) == entry.count:
            index.add_vectors([source], vectors)
            taken.append(source)
    return taken


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
