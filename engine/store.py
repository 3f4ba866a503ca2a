"""Store: an index on disk, written so that a crash or a cancel never leaves a half-written one in use.

Each save is a new generation folder, switched to with one atomic rename of
``CURRENT``; every file is checksummed and the shape of ``meta.json`` checked,
so a damaged store is detected on load (and rebuilt, with a one-line note).
``DiskCheckpoint`` keeps the vectors of files embedded during a run that has
not finished, so a killed run resumes.

>>> import tempfile, numpy as np
>>> saved = DiskCheckpoint(Path(tempfile.mkdtemp()), "int8")
>>> saved.put("abc", np.ones((2, 3), np.float32)); saved.get("abc", 2, 3).shape, saved.get("abc", 5, 3)
((2, 3), None)
"""

from __future__ import annotations

import hashlib
import json
import os
import re
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
from .errors import IndexStoreError, unwritable_data_folder
from .files import Turn, fsync_dir, sha256_file, take_turn, write_synced, write_text_atomic
from .index import FileEntry, Index

STORE_FILES = ("vectors.npy", "chunks.jsonl", "bm25.npz")
FORMAT = 10  # bump when chunking, tokens or the store layout change: old stores are rebuilt
NAME_BYTES = 255  # the longest file name most file systems take
SHORT_NAME_BYTES = 96  # what is kept of a corpus folder's name too long for a store folder's name
GENERATION = re.compile(r"g[0-9]+")
META_SHAPE = {"format": int, "root": str, "embedder": str, "dim": int, "chunks": int, "files": dict,
              "pending": list, "sha256": dict}


def store_dir(root: Path) -> Path:
    """The folder that holds the index of one corpus, keyed by its absolute path."""
    key = hashlib.sha1(os.fsencode(str(Path(root).resolve()))).hexdigest()[:16]  # fsencode: any name the system has
    return data_dir() / "indexes" / store_name(Path(root).name or "root", key)


def prepared_store_dir(root: Path) -> Path:
    """``store_dir(root)``, made if need be: a data folder that cannot be written is said before any work.

    >>> import tempfile; from unittest import mock
    >>> home = Path(tempfile.mkdtemp()) / "a-file"; _ = home.write_text("")
    >>> with mock.patch.dict("os.environ", {"REPOBOT_HOME": str(home)}): prepared_store_dir(Path("/docs"))
    Traceback (most recent call last):
    repobot.engine.errors.RepoBotError: RepoBot cannot write its data folder .../a-file (Not a directory): make it ...
    """
    folder = store_dir(root)
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as err:
        raise unwritable_data_folder(data_dir(), err) from err
    return folder


def writable_data_dir() -> None:
    """Raise the data folder's one-line fix when it cannot be written now, even though an index saved before can
    still be read: else the window answers, and only then fails to save the conversation.

    >>> import tempfile; from unittest import mock
    >>> with mock.patch.dict("os.environ", {"REPOBOT_HOME": tempfile.mkdtemp()}): writable_data_dir()
    """
    folder = data_dir()
    try:
        folder.mkdir(parents=True, exist_ok=True)
        probe = folder / f".write-test-{os.getpid()}"
        probe.write_bytes(b"")
        probe.unlink()
    except OSError as err:
        raise unwritable_data_folder(folder, err) from err


def store_name(name: str, key: str) -> str:
    """``<name>-<key>``; a name too long for that to be a file name is cut short (the key keeps it unique).

    >>> store_name("docs", "0123456789abcdef")
    'docs-0123456789abcdef'
    >>> cut = store_name("x" + "文档" * 50, "0123456789abcdef"); cut[:5], cut[-18:], len(os.fsencode(cut))
    ('x文档文档', '文-0123456789abcdef', 111)
    """
    whole = f"{name}-{key}"
    if len(os.fsencode(whole)) <= NAME_BYTES:
        return whole  # where every store was kept so far
    short = os.fsencode(name)[:SHORT_NAME_BYTES].decode("utf-8", "ignore")  # no character is cut in half
    return f"{short}-{key}"


def save_index(index: Index, folder: Path | None = None) -> Path:
    """Write a new generation (every file synced), then point CURRENT at it with an atomic rename.

    Two RepoBots saving the same folder's index take turns, so neither deletes the other's new generation.
    A data folder that cannot be written is a RepoBotError that says so; the saved index is then left as it was.
    """
    shown = folder or data_dir()
    folder = folder or store_dir(index.root)
    try:
        folder.mkdir(parents=True, exist_ok=True)
        with locked(folder):
            generation = folder / f"g{time.time_ns()}"
            _write_generation(index, generation)
            _make_current(folder, generation)
    except OSError as err:
        raise unwritable_data_folder(shown, err) from err
    return generation


def _write_generation(index: Index, generation: Path) -> None:
    """Write every file of ``index`` into ``.tmp-<generation>``, synced, then rename it; a failed write leaves
    nothing behind."""
    tmp = generation.with_name(f".tmp-{generation.name}")
    tmp.mkdir()
    try:
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
        write_text_atomic(tmp / "meta.json", json.dumps(meta))  # ASCII: any folder path Python can name is kept
        fsync_dir(tmp)
        os.replace(tmp, generation)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise


def _make_current(folder: Path, generation: Path) -> None:
    """Point ``CURRENT`` at ``generation`` (the one step that switches), then remove the older generations.
    If the switch fails, the new generation is removed and the old one stays in use."""
    current = folder / "CURRENT"
    try:
        if current.is_dir() and not current.is_symlink():  # a damaged store, being rebuilt
            shutil.rmtree(current)
        write_text_atomic(current, generation.name)
    except BaseException:
        shutil.rmtree(generation, ignore_errors=True)
        raise
    fsync_dir(folder)
    for old in folder.iterdir():
        if old.is_dir() and old.name != generation.name and old.name.startswith(("g", ".tmp-")):
            shutil.rmtree(old, ignore_errors=True)


@contextmanager
def locked(folder: Path):
    """Hold ``folder/lock`` for one save (where the system has ``flock``; released if the process dies)."""
    with open(folder / "lock", "a") as fh:
        if fcntl:
            fcntl.flock(fh, fcntl.LOCK_EX)
        yield


WAIT_POLL_S = 0.2  # how often a RepoBot waiting for another's embedding looks again (and at its Stop)


def embedding_turn(folder: Path) -> Turn | None:
    """The turn to embed the folder whose store is ``folder`` (``files.take_turn`` on ``folder/embedding``): a
    ``Turn`` while this caller has it, None while another RepoBot (or another thread here) embeds.

    Two RepoBots asked about one folder at once (the window and a command, say) so embed it once: the second
    waits, then takes up what the first saved (``Collection.embed_steps``). Where no lock can be had (a read-only
    store), each has its turn, and saving says what is wrong.
    """
    return take_turn(folder / "embedding")


def load_index(root: Path, folder: Path | None = None) -> Index | None:
    """The persisted index of ``root``; None if there is none (or an old format); IndexStoreError if damaged."""
    shown = folder or data_dir()
    folder = folder or store_dir(root)
    try:
        generation = current_generation(folder)
    except (NotADirectoryError, PermissionError) as err:  # the data folder is a file, or may not be read
        raise unwritable_data_folder(shown, err) from err
    except (OSError, ValueError) as err:
        raise _damaged(folder, err) from err
    if generation is None:
        return None
    try:
        meta = json.loads((generation / "meta.json").read_text(encoding="utf-8"))
        if isinstance(meta, dict) and meta.get("format") != FORMAT:
            return None  # an older layout: rebuilt without a note
        checked_meta(meta)
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
    except (OSError, ValueError, KeyError, TypeError, RecursionError) as err:
        raise _damaged(generation, err) from err
    return Index(Path(meta["root"]), meta["embedder"], chunks, tokens, vectors, files, bm25,
                 [s for s in meta["pending"] if s in files])


def current_generation(folder: Path) -> Path | None:
    """The generation ``CURRENT`` names; None before the first save; ValueError if it names none."""
    try:
        name = (folder / "CURRENT").read_bytes().decode("ascii", "replace").strip()
    except FileNotFoundError:
        return None
    except IsADirectoryError:
        raise ValueError("CURRENT is a folder") from None
    if not GENERATION.fullmatch(name):
        raise ValueError(f"CURRENT names no generation: {name[:40]!r}")
    return folder / name


def checked_meta(meta: object) -> dict:
    """``meta.json`` as read, if it has the shape ``save_index`` writes; else ValueError saying what is wrong.

    >>> checked_meta(["format", FORMAT])
    Traceback (most recent call last):
    ValueError: meta.json holds a list, not an object
    >>> checked_meta({"format": FORMAT, "root": "/docs", "embedder": "e", "dim": 3, "chunks": 0, "files": {},
    ...               "pending": [], "sha256": None})
    Traceback (most recent call last):
    ValueError: meta.json's "sha256" is a NoneType, not a dict
    """
    if not isinstance(meta, dict):
        raise ValueError(f"meta.json holds a {type(meta).__name__}, not an object")
    for key, kind in META_SHAPE.items():
        if key not in meta:
            raise ValueError(f'meta.json has no "{key}"')
        if not isinstance(meta[key], kind):
            raise ValueError(f'meta.json\'s "{key}" is a {type(meta[key]).__name__}, not a {kind.__name__}')
    if not all(isinstance(s, str) for s in meta["pending"]):
        raise ValueError('meta.json\'s "pending" lists something else than file names')
    if not all(isinstance(e, list) and [type(v) for v in e] == [str, int, int, str] for e in meta["files"].values()):
        raise ValueError('meta.json\'s "files" has an entry that is not [sha, first, count, language]')
    if sorted(meta["sha256"]) != sorted(STORE_FILES) or not all(isinstance(d, str) for d in meta["sha256"].values()):
        raise ValueError(f'meta.json\'s "sha256" does not give one checksum for each of {", ".join(STORE_FILES)}')
    return meta


def _damaged(where: Path, err: Exception) -> IndexStoreError:
    return IndexStoreError(f"The saved index in {where} is damaged ({err}); it will be rebuilt.")


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
        try:
            self.folder.mkdir(parents=True, exist_ok=True)
            tmp = self.folder / f".{sha}.tmp"
            write_synced(tmp, lambda fh: np.save(fh, vectors))
            os.replace(tmp, self.folder / f"{sha}.npy")
        except OSError as err:
            raise unwritable_data_folder(data_dir(), err) from err

    def clear(self) -> None:
        shutil.rmtree(self.folder.parent, ignore_errors=True)
