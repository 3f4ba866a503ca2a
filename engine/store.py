"""Store: an index on disk, written so that a crash or a cancel never leaves a half-written one in use.

Each save is a new generation folder, switched to with one atomic rename of
``CURRENT``; every file is checksummed, so a damaged store is detected on load
(and rebuilt, with a one-line note). ``DiskCheckpoint`` keeps the vectors of files
embedded during a run that has not finished, so a killed run resumes.

>>> import tempfile, numpy as np
>>> saved = DiskCheckpoint(Path(tempfile.mkdtemp()), "int8")
>>> saved.put("abc", np.ones((2, 3), np.float32)); saved.get("abc", 2, 3).shape, saved.get("abc", 5, 3)
((2, 3), None)
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import time
from contextlib import contextmanager
from pathlib import Path

import numpy as np

try:
    import fcntl
except ImportError:  # Windows: saves are not locked
    fcntl = None

from .bm25 import Bm25Index
from .chunk import Chunk
from .config import data_dir
from .errors import IndexStoreError
from .files import fsync_dir, sha256_file, write_synced, write_text_atomic
from .index import FileEntry, Index

STORE_FILES = ("vectors.npy", "chunks.jsonl", "bm25.npz")
FORMAT = 9  # bump when chunking, tokens or the store layout change: old stores are rebuilt


def store_dir(root: Path) -> Path:
    """The folder that holds the index of one corpus, keyed by its absolute path."""
    key = hashlib.sha1(str(Path(root).resolve()).encode()).hexdigest()[:16]
    return data_dir() / "indexes" / f"{Path(root).name or 'root'}-{key}"


def save_index(index: Index, folder: Path | None = None) -> Path:
    """Write a new generation (every file synced), then point CURRENT at it with an atomic rename.

    Two RepoBots saving the same folder's index take turns, so neither deletes the other's new generation.
    """
    folder = folder or store_dir(index.root)
    folder.mkdir(parents=True, exist_ok=True)
    with _locked(folder):
        generation = folder / f"g{time.time_ns()}"
        tmp = folder / f".tmp-{generation.name}"
        tmp.mkdir()
        write_synced(tmp / "vectors.npy", lambda fh: np.save(fh, index.vectors))
        write_synced(tmp / "chunks.jsonl", lambda fh: fh.writelines(
            (json.dumps([*chunk, toks], ensure_ascii=False) + "\n").encode("utf-8")
            for chunk, toks in zip(index.chunks, index.tokens)))
        write_synced(tmp / "bm25.npz", lambda fh: np.savez(fh, **index.lexical.state()))  # loading skips the fit
        meta = {
            "format": FORMAT,
            "root": str(index.root),
            "embedder": index.embedder,
            "dim": int(index.vectors.shape[1]) if index.vectors.ndim == 2 else 0,
            "chunks": len(index.chunks),
            "files": {k: list(v) for k, v in index.files.items()},
            "pending": index.pending,
            "sha256": {name: sha256_file(tmp / name) for name in STORE_FILES},
        }
        write_text_atomic(tmp / "meta.json", json.dumps(meta, ensure_ascii=False))
        fsync_dir(tmp)
        os.replace(tmp, generation)
        write_text_atomic(folder / "CURRENT", generation.name)
        fsync_dir(folder)
        for old in folder.iterdir():
            if old.is_dir() and old.name != generation.name and old.name.startswith(("g", ".tmp-")):
                shutil.rmtree(old, ignore_errors=True)
    return generation


@contextmanager
def _locked(folder: Path):
    """Hold ``folder/lock`` for one save (where the system has ``flock``; released if the process dies)."""
    with open(folder / "lock", "a") as fh:
        if fcntl:
            fcntl.flock(fh, fcntl.LOCK_EX)
        yield


def load_index(root: Path, folder: Path | None = None) -> Index | None:
    """The persisted index of ``root``; None if there is none (or an old format); IndexStoreError if damaged."""
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
    return Index(Path(meta["root"]), meta["embedder"], chunks, tokens, vectors, files, bm25,
                 [s for s in meta.get("pending", []) if s in files])


class DiskCheckpoint:
    """Vectors of files already embedded during an unfinished run, one ``<sha>.npy`` per file.

    Written atomically as each group of files is embedded, so a run killed with
    SIGKILL resumes from the files it had done. Cleared once the index is saved.
    """

    def __init__(self, folder: Path, embedder_name: str):
        self.folder = folder / hashlib.sha1(embedder_name.encode()).hexdigest()[:12]

    def get(self, sha: str, count: int, dim: int) -> np.ndarray | None:
        try:
            vectors = np.load(self.folder / f"{sha}.npy", allow_pickle=False)
        except (OSError, ValueError, EOFError):  # EOFError: a file left empty by a power cut
            return None
        return vectors if vectors.shape == (count, dim) else None

    def put(self, sha: str, vectors: np.ndarray) -> None:
        self.folder.mkdir(parents=True, exist_ok=True)
        tmp = self.folder / f".{sha}.tmp"
        write_synced(tmp, lambda fh: np.save(fh, vectors))
        os.replace(tmp, self.folder / f"{sha}.npy")

    def clear(self) -> None:
        shutil.rmtree(self.folder.parent, ignore_errors=True)
