"""Index: dense vectors in FAISS and BM25 over tokens, persisted with a manifest of file hashes.

The two searchable parts sit behind small seams (``VectorIndex``, ``LexicalIndex``).
``update_index`` re-embeds only files whose content changed; a renamed file
with the same content keeps its vectors. The store on disk is written as a new
generation folder and switched to with one atomic rename, so a crash or a
cancel never leaves a half-written index in use.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import time
from abc import ABC, abstractmethod
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Callable, NamedTuple, Sequence

import numpy as np

from repobot.engine.chunk import Chunk, chunk_markdown, piece_budget
from repobot.engine.config import data_dir
from repobot.engine.embed import Embedder
from repobot.engine.errors import Cancelled, IndexStoreError
from repobot.engine.files import fsync_dir, sha256_file, write_text_atomic
from repobot.engine.load import Corpus
from repobot.engine.tokens import tokenize

STORE_FILES = ("vectors.npy", "chunks.jsonl", "bm25.npz")
FORMAT = 3  # bump when chunking, tokens or the store layout change: old stores are rebuilt
Progress = Callable[[str, int, int], None]


class VectorIndex(ABC):
    @abstractmethod
    def search(self, query: np.ndarray, k: int) -> list[tuple[int, float]]:
        """Ids and scores of the k nearest rows, best first."""


class FaissIndex(VectorIndex):
    """Exact inner-product search over unit vectors (cosine similarity)."""

    def __init__(self, vectors: np.ndarray):
        import faiss

        self._index = faiss.IndexFlatIP(vectors.shape[1])
        if len(vectors):
            self._index.add(np.ascontiguousarray(vectors, dtype=np.float32))

    def search(self, query: np.ndarray, k: int) -> list[tuple[int, float]]:
        k = min(k, self._index.ntotal)
        if k <= 0:
            return []
        scores, ids = self._index.search(np.asarray(query, dtype=np.float32).reshape(1, -1), k)
        return [(int(i), float(s)) for i, s in zip(ids[0], scores[0]) if i >= 0]


class LexicalIndex(ABC):
    @abstractmethod
    def search(self, tokens: Sequence[str], k: int) -> list[tuple[int, float]]:
        """Ids and scores of the k best-matching documents, best first (score > 0 only)."""


class Bm25Index(LexicalIndex):
    """Okapi BM25 with rank-bm25's statistics, scored through posting lists.

    rank-bm25 fits the model (IDF with its epsilon floor, document lengths,
    k1 = 1.5, b = 0.75). Its ``get_scores`` walks every document for every
    query term in Python, which took 48 ms per query at 20k chunks; here each
    term's precomputed postings are added with numpy instead, giving the same
    scores (``tests/unit/test_bm25.py`` compares the two). The postings are
    saved with the index (``state``/``from_state``), so loading skips the fit.
    """

    def __init__(self, corpus_tokens: Sequence[Sequence[str]]):
        from rank_bm25 import BM25Okapi

        self._size = len(corpus_tokens)
        # rank-bm25 divides by the corpus size; an empty corpus gets one empty document.
        self.reference = BM25Okapi([list(t) or [""] for t in corpus_tokens] or [[""]])
        bm = self.reference
        self._n_docs = len(bm.doc_len)
        doc_len = np.asarray(bm.doc_len, dtype=np.float64)
        norm = bm.k1 * (1 - bm.b + bm.b * doc_len / bm.avgdl)
        # postings in one sorted array (CSR layout): term id -> slice of (doc, weight)
        self._vocab = {term: i for i, term in enumerate(bm.idf)}
        self._idf = np.fromiter(bm.idf.values(), dtype=np.float64, count=len(bm.idf))
        counts = [len(f) for f in bm.doc_freqs]
        docs = np.repeat(np.arange(len(counts)), counts)
        term_ids = np.fromiter((self._vocab[t] for f in bm.doc_freqs for t in f), dtype=np.int64, count=len(docs))
        tf = np.fromiter((v for f in bm.doc_freqs for v in f.values()), dtype=np.float64, count=len(docs))
        order = np.argsort(term_ids, kind="stable")
        self._docs = docs[order].astype(np.int32)
        self._weights = (tf * (bm.k1 + 1) / (tf + norm[docs]))[order]
        self._start = np.searchsorted(term_ids[order], np.arange(len(self._vocab) + 1))

    def state(self) -> dict[str, np.ndarray]:
        """The fitted postings as plain arrays (the vocabulary as NUL-separated UTF-8), for np.savez."""
        vocab = "\0".join(self._vocab).encode("utf-8")
        return {
            "vocab": np.frombuffer(vocab, dtype=np.uint8), "idf": self._idf, "docs": self._docs,
            "weights": self._weights, "start": self._start, "sizes": np.array([self._size, self._n_docs]),
        }

    @classmethod
    def from_state(cls, state) -> "Bm25Index":
        """The index ``state`` describes, without fitting again (``reference`` is then None).

        >>> saved = Bm25Index([["follow", "redirects"], ["timeout"]])
        >>> loaded = Bm25Index.from_state(saved.state())
        >>> loaded.search(["timeout"], 2) == saved.search(["timeout"], 2)
        True
        """
        self = cls.__new__(cls)
        self.reference = None
        words = bytes(state["vocab"]).decode("utf-8")
        idf = np.asarray(state["idf"])
        self._vocab = {term: i for i, term in enumerate(words.split("\0"))} if len(idf) else {}
        if len(self._vocab) != len(idf):
            raise ValueError("the BM25 vocabulary does not match its IDF table")
        self._idf, self._docs, self._weights = idf, np.asarray(state["docs"]), np.asarray(state["weights"])
        self._start = np.asarray(state["start"])
        self._size, self._n_docs = (int(v) for v in state["sizes"])
        return self

    def __len__(self) -> int:
        return self._size

    def _posting(self, term: str) -> tuple[np.ndarray, np.ndarray, float] | None:
        i = self._vocab.get(term)
        if i is None:
            return None
        span = slice(self._start[i], self._start[i + 1])
        return self._docs[span], self._weights[span], self._idf[i]

    def scores(self, tokens: Sequence[str]) -> np.ndarray:
        """BM25 score of every document (as rank-bm25's ``get_scores``)."""
        out = np.zeros(self._n_docs)
        for term in tokens:
            posting = self._posting(term)
            if posting is not None:
                out[posting[0]] += posting[2] * posting[1]
        return out

    def search(self, tokens: Sequence[str], k: int) -> list[tuple[int, float]]:
        if not tokens or not self._size:
            return []
        query = list(tokens)
        scores = self.scores(query)[: self._size]
        matched = np.zeros(len(scores), dtype=bool)
        for term in set(query):
            posting = self._posting(term)
            if posting is not None:
                matched[posting[0][posting[0] < self._size]] = True
        # A term found in half the chunks of a small corpus has an Okapi IDF of 0;
        # such chunks still match, so rank every chunk that contains a query term.
        candidates = np.flatnonzero(matched)
        top = candidates[np.argsort(-scores[candidates], kind="stable")][:k]
        return [(int(i), float(scores[i])) for i in top]


class FileEntry(NamedTuple):
    sha: str
    first: int  # index of the file's first chunk
    count: int


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
    """Content hash of a file's text.

    >>> file_sha("hello")[:12]
    '2cf24dba5fb0'
    """
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


def embedding_text(chunk: Chunk) -> str:
    """What gets embedded: the heading path gives a short chunk its topic."""
    return f"{chunk.heading}\n{chunk.text}" if chunk.heading else chunk.text


class Checkpoint:
    """Vectors of files already embedded during an unfinished run, one ``<sha>.npy`` per file.

    Written atomically as each group of files is embedded, so a run killed with
    SIGKILL resumes from the files it had done. Cleared once the index is saved.
    """

    def __init__(self, folder: Path, embedder_name: str):
        self.folder = folder / hashlib.sha1(embedder_name.encode()).hexdigest()[:12]

    def get(self, sha: str, count: int, dim: int) -> np.ndarray | None:
        try:
            vectors = np.load(self.folder / f"{sha}.npy", allow_pickle=False)
        except (OSError, ValueError):
            return None
        return vectors if vectors.shape == (count, dim) else None

    def put(self, sha: str, vectors: np.ndarray) -> None:
        self.folder.mkdir(parents=True, exist_ok=True)
        tmp = self.folder / f".{sha}.tmp"
        with open(tmp, "wb") as fh:
            np.save(fh, vectors)
        os.replace(tmp, self.folder / f"{sha}.npy")

    def clear(self) -> None:
        shutil.rmtree(self.folder.parent, ignore_errors=True)


EMBED_GROUP = 256  # chunks embedded between two checkpoints


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
    old_by_sha: dict[str, tuple[list[Chunk], list[list[str]], np.ndarray]] = {}
    if previous is not None and previous.embedder == embedder.name:
        for entry in previous.files.values():
            span = slice(entry.first, entry.first + entry.count)
            old_by_sha[entry.sha] = (previous.chunks[span], previous.tokens[span], previous.vectors[span])
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
        else:
            doc_chunks = chunk_markdown(doc.source, doc.text, budget)
            tokens.extend(tokenize(embedding_text(c)) for c in doc_chunks)
            saved = checkpoint.get(sha, len(doc_chunks), embedder.dim) if checkpoint else None
            if saved is not None:
                known[sha] = saved
            elif sha not in known:
                todo.append(doc.source)
        chunks.extend(doc_chunks)
        files[doc.source] = FileEntry(sha, first, len(doc_chunks))
        old = old_files.get(doc.source)
        (unchanged if old and old.sha == sha else updated if old else added).append(doc.source)
        if progress:
            progress("chunk", n + 1, len(corpus.documents))

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

    vectors = np.zeros((len(chunks), embedder.dim), dtype=np.float32)
    for entry in files.values():
        if entry.count:
            vectors[entry.first : entry.first + entry.count] = known[entry.sha]
    removed = sorted(set(old_files) - set(files))
    index = Index(corpus.root, embedder.name, chunks, tokens, vectors, files)
    return index, UpdateReport(added, updated, removed, unchanged, done, time.perf_counter() - started)


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


# --- persistence -----------------------------------------------------------------


def store_dir(root: Path) -> Path:
    """The folder that holds the index of one corpus, keyed by its absolute path."""
    key = hashlib.sha1(str(Path(root).resolve()).encode()).hexdigest()[:16]
    return data_dir() / "indexes" / f"{Path(root).name or 'root'}-{key}"


def save_index(index: Index, folder: Path | None = None) -> Path:
    """Write a new generation, then point CURRENT at it with an atomic rename."""
    folder = folder or store_dir(index.root)
    folder.mkdir(parents=True, exist_ok=True)
    generation = folder / f"g{time.time_ns()}"
    tmp = folder / f".tmp-{generation.name}"
    tmp.mkdir()
    with open(tmp / "vectors.npy", "wb") as fh:
        np.save(fh, index.vectors)
    with open(tmp / "chunks.jsonl", "w", encoding="utf-8") as fh:
        for chunk, toks in zip(index.chunks, index.tokens):
            fh.write(json.dumps([*chunk, toks], ensure_ascii=False) + "\n")
    with open(tmp / "bm25.npz", "wb") as fh:  # the fitted postings: loading skips the BM25 fit
        np.savez(fh, **index.lexical.state())
    meta = {
        "format": FORMAT,
        "root": str(index.root),
        "embedder": index.embedder,
        "dim": int(index.vectors.shape[1]) if index.vectors.ndim == 2 else 0,
        "chunks": len(index.chunks),
        "files": {k: list(v) for k, v in index.files.items()},
        "sha256": {name: sha256_file(tmp / name) for name in STORE_FILES},
    }
    write_text_atomic(tmp / "meta.json", json.dumps(meta, ensure_ascii=False))
    fsync_dir(tmp)
    os.replace(tmp, generation)
    write_text_atomic(folder / "CURRENT", generation.name)
    for old in folder.iterdir():
        if old.is_dir() and old.name != generation.name and old.name.startswith(("g", ".tmp-")):
            shutil.rmtree(old, ignore_errors=True)
    return generation


def load_index(root: Path, folder: Path | None = None) -> Index | None:
    """The persisted index of ``root``; None if there is none; IndexStoreError if it is damaged."""
    folder = folder or store_dir(root)
    try:
        current = (folder / "CURRENT").read_text().strip()
    except FileNotFoundError:
        return None
    generation = folder / current
    try:
        meta = json.loads((generation / "meta.json").read_text(encoding="utf-8"))
        if meta.get("format") != FORMAT:
            return None
        for name, digest in meta["sha256"].items():
            if sha256_file(generation / name) != digest:
                raise ValueError(f"{name} does not match its checksum")
        vectors = np.load(generation / "vectors.npy", allow_pickle=False)
        chunks, tokens = [], []
        with open(generation / "chunks.jsonl", encoding="utf-8") as fh:
            for line in fh:
                *fields, toks = json.loads(line)
                chunks.append(Chunk(*fields))
                tokens.append(toks)
        files = {k: FileEntry(*v) for k, v in meta["files"].items()}
        if len(chunks) != meta["chunks"] or vectors.shape[0] != len(chunks):
            raise ValueError("chunk count does not match the vectors")
        with np.load(generation / "bm25.npz", allow_pickle=False) as saved:
            bm25 = Bm25Index.from_state(saved)
        if len(bm25) != len(chunks):
            raise ValueError("the BM25 postings do not match the chunks")
    except (OSError, ValueError, KeyError, TypeError) as err:
        raise IndexStoreError(f"The saved index in {generation} is damaged ({err}); it will be rebuilt.") from err
    return Index(Path(meta["root"]), meta["embedder"], chunks, tokens, vectors, files, bm25)
