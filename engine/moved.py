"""Moved: a documentation folder that was moved or renamed keeps its index, conversations and settings.

They are kept in a store named for the folder's path (``store.store_dir``). When
a folder has nothing saved yet, the store of a folder that is gone and whose
pages are here, at the same paths with the same text, is its own: it is taken
along with one rename (``moved_from``, ``adopt_store``, under ``adopting``).
Never taken: by a copy (the folder is still where it was), by a folder made
anew with a page of the same name, by a place with conversations of its own
(the caller checks), nor while the folder may only be on a drive not mounted.
A folder that only looked moved (a copy made beside it while it was away)
finds word of where its store went when it is back (``forwarded_to``); one moved
away and back before anything was saved at the other place takes its store back
by the same word.
"""

from __future__ import annotations

import json
import os
import shutil
import time
from contextlib import contextmanager
from pathlib import Path
from typing import NamedTuple

from .config import data_dir
from .errors import unwritable_data_folder
from .files import fsync_dir, write_json_atomic
from .index import file_sha
from .load import read_markdown
from .store import current_generation, locked, store_dir

# what a store holds before its first save (a history opened to list no conversation, the languages chosen, word of
# where the store that was here went, lock files); anything else is never replaced
UNSAVED = {"history.sqlite3", "history.sqlite3-journal", "lock", "embedding", "collection.json", "moved.json"}
MOUNT_BASES = frozenset(map(Path, ("/media", "/mnt", "/run/media", "/Volumes")))  # where removable drives appear


class Moved(NamedTuple):
    store: Path  # its store folder
    root: Path  # where the folder was
    back: bool = False  # the store is taken back from a place that took it: no word is left there


def nothing_saved(root: Path) -> bool:
    """Whether ``root``'s store holds nothing but what it has before its first save (``UNSAVED``): only then may a
    moved folder's store replace it. Cheap: one listing.

    >>> import tempfile; from unittest import mock
    >>> with mock.patch.dict("os.environ", {"REPOBOT_HOME": tempfile.mkdtemp()}): nothing_saved(Path("/docs"))
    True
    """
    own = store_dir(Path(root).resolve())
    try:
        return set(os.listdir(own) if own.is_dir() else ()) <= UNSAVED
    except OSError:
        return False


def moved_from(root: Path, *, least: float = 0.5) -> Moved | None:
    """The store of a folder that moved to ``root``: one whose folder no longer exists and whose pages are here,
    at the same paths with the same text (at least ``least`` of them). None when there is none, or when ``root``
    has anything saved (``nothing_saved``): a folder deleted, and another made with a page of the same name, is no move.

    Reads each store's ``meta.json`` only (no checksum): a damaged one is skipped.

    >>> import tempfile; from unittest import mock
    >>> base = Path(tempfile.mkdtemp())
    >>> old, new = base / "old-docs", base / "new-docs"; _ = new.mkdir(); _ = (new / "a.md").write_text("# A")
    >>> store = base / "home" / "indexes" / store_dir(old).name; _ = (store / "g1").mkdir(parents=True)
    >>> _ = (store / "CURRENT").write_text("g1")
    >>> files = {"a.md": [file_sha("# A"), 0, 1], "b.md": [file_sha("# B"), 1, 1]}
    >>> _ = (store / "g1" / "meta.json").write_text(json.dumps({"root": str(old), "files": files}))
    >>> with mock.patch.dict("os.environ", {"REPOBOT_HOME": str(base / "home")}): moved = moved_from(new)
    >>> moved.store == store, moved.root == old
    (True, True)
    >>> with mock.patch.dict("os.environ", {"REPOBOT_HOME": str(base / "home")}): moved_from(new, least=0.6) is None
    True
    """
    root = Path(root).resolve()
    own = store_dir(root)
    if not nothing_saved(root):
        return None
    if (back := _taken_by_a_place_gone_since(root)) is not None:
        return back
    try:
        folders = sorted((data_dir() / "indexes").iterdir())  # a store per folder RepoBot has indexed: a few
    except OSError:
        return None
    best, most = None, 0.0
    for folder in folders:
        try:
            generation = current_generation(folder) if folder != own else None
            meta = json.loads((generation / "meta.json").read_text(encoding="utf-8")) if generation else None
            if not isinstance(meta, dict) or not isinstance(meta.get("files"), dict) or not meta["files"]:
                continue
            was = Path(meta["root"])
            if folder.name != store_dir(was).name and not _taker_gone(was, folder):
                continue  # adopted already, and not saved since: it is another folder's now, not this one's to take
            if was.exists() or maybe_unmounted(was):
                continue  # a folder still where it was, or copied, or on a drive not plugged in: not this one moved
            share = _share(root, meta["files"])
        except (OSError, ValueError, TypeError, KeyError, RecursionError):
            continue
        if share >= least and share > most:
            best, most = Moved(folder, was), share
    return best


def _taken_by_a_place_gone_since(root: Path, *, least: float = 0.5) -> Moved | None:
    """``root``'s own store, when ``root`` was moved away and back before anything was saved at the other place:
    that place took the store (word of it was left here, ``_leave_forward``) and no longer holds these pages (gone,
    or another folder now), while the store still says it is ``root``'s. Nothing else finds it: it lives under the
    other place's name. A copy that still holds the pages keeps it (``forwarded_to`` says where it went)."""
    went = _forward_target(root)
    if went is None:
        return None
    try:
        store = store_dir(went)
        generation = current_generation(store)
        meta = json.loads((generation / "meta.json").read_text(encoding="utf-8")) if generation else None
        if not isinstance(meta, dict) or Path(meta["root"]) != root:
            return None
        if went.exists() and _share(went, meta["files"]) >= least:
            return None
    except (OSError, ValueError, TypeError, KeyError, AttributeError, RecursionError):
        return None
    return Moved(store, went, back=True)


def _taker_gone(was: Path, store: Path) -> bool:
    """Whether ``store``, found under another folder's name than ``was``'s, was taken by a folder that has moved on
    since without saving it there (A → B, listed at B, B → C): word left at ``was`` names it, and it is gone."""
    took = _forward_target(was)
    try:
        return took is not None and store_dir(took).name == store.name and not took.exists()
    except OSError:
        return False


def _share(root: Path, files: dict) -> float:
    """The share of an index's pages (``meta["files"]``) that are at ``root`` with the same text."""
    return sum(_same_text(root / source, entry[0]) for source, entry in files.items()) / len(files) if files else 0.0


def _forward_target(root: Path) -> Path | None:
    """The place ``root``'s word (``moved.json``) names, if the word can be read and names another folder; whether
    that place exists is left to the caller. A damaged word is no word."""
    try:
        went = json.loads((store_dir(root) / FORWARD).read_text(encoding="utf-8"))["to"]
    except (OSError, ValueError, TypeError, KeyError, RecursionError):
        return None
    if not isinstance(went, str) or not os.path.isabs(went) or "\0" in went:
        return None
    there = Path(went)
    return None if there == root or there.parent == there else there


def maybe_unmounted(gone: Path) -> bool:
    """Whether a folder that is gone may only be on a drive that is not mounted now (its nearest existing parent
    is where drives appear, or the disk itself): a copy elsewhere must not take its conversations meanwhile.

    >>> maybe_unmounted(Path("/media/nobody/USB-STICK/docs")), maybe_unmounted(Path("/tmp/moved-away/docs"))
    (True, False)
    """
    there = next((p for p in gone.parents if p.exists()), None)
    return there is None or there.parent == there or there in MOUNT_BASES or there.parent in MOUNT_BASES


def _same_text(path: Path, sha: str) -> bool:
    """Whether ``path`` is a page whose text has the content hash ``sha`` (as the index keeps it)."""
    text, _ = read_markdown(path) if path.is_file() else (None, None)
    return text is not None and file_sha(text) == sha


@contextmanager
def adopting():
    """Held while a moved folder's store is looked for and taken (``moved_from``, ``adopt_store``): two RepoBots
    never take the same store, nor delete the one the other has just taken (threads of one RepoBot: the caller's lock).
    """
    home = data_dir()  # its lock file: not among the stores in indexes/
    try:
        home.mkdir(parents=True, exist_ok=True)
    except OSError as err:
        raise unwritable_data_folder(home, err) from err
    with locked(home):
        yield


FORWARD = "moved.json"  # left where an adopted store was: where it went, for the folder if it comes back


def forwarded_to(root: Path) -> Path | None:
    """Where ``root``'s index and conversations went while it was missing (``adopt_store`` left word of it), if that
    folder still exists: a copy made beside it looked like it moved, so it comes back without them.

    >>> import tempfile; from unittest import mock
    >>> base = Path(tempfile.mkdtemp()); old, new = base / "docs", base / "docs-copy"; _ = new.mkdir()
    >>> with mock.patch.dict("os.environ", {"REPOBOT_HOME": str(base / "home")}):
    ...     _leave_forward(store_dir(old), new); forwarded_to(old) == new.resolve()
    True
    """
    there = _forward_target(Path(root).resolve())
    try:
        return there if there is not None and there.is_dir() else None
    except OSError:  # a name too long for this system, say
        return None


def _leave_forward(store: Path, root: Path) -> None:
    """Leave word in ``store``'s old place that it is ``root``'s now (best effort: the move itself is done)."""
    try:
        store.mkdir(parents=True, exist_ok=True)
        write_json_atomic(store / FORWARD, {"to": str(Path(root).resolve()), "when": time.time()})
    except OSError:
        pass


def adopt_store(store: Path, root: Path, *, leave_word: bool = True) -> bool:
    """Make ``store`` (``moved_from``'s answer) the store of ``root``, with its conversations and settings: the
    folder ``root`` had (``UNSAVED`` files only; its history checked empty by the caller) goes first, then one rename.
    Killed in between, the old store is still whole, and the next start adopts it again. False when ``root``'s
    folder now holds more (a damaged history set aside) or another RepoBot took the store first: nothing is moved.
    """
    target = store_dir(Path(root).resolve())
    if not nothing_saved(root):
        return False
    try:
        if target.exists():
            shutil.rmtree(target)
        os.replace(store, target)
        (target / FORWARD).unlink(missing_ok=True)  # word left when a copy once took this store: not true here
        fsync_dir(target.parent)
    except FileNotFoundError:  # the store is gone: another RepoBot adopted it
        return False
    except OSError as err:
        raise unwritable_data_folder(data_dir(), err) from err
    if leave_word:  # (taken back, the other place is another folder now, or gone: word there would mislead)
        _leave_forward(store, root)
    return True
