"""Small file helpers shared by the index, the model catalogue and the settings.

Every write is atomic: a temporary file is written, flushed to disk, then
renamed over the target, so a crash leaves either the old file or the new one.

>>> import tempfile, pathlib
>>> p = pathlib.Path(tempfile.mkdtemp()) / "x.json"
>>> write_json_atomic(p, {"k": 5}); p.read_text()
'{\\n  "k": 5\\n}'
>>> sha256_file(p)[:8]
'b9e6784b'
"""

from __future__ import annotations

import hashlib
import json
import os
import time
from pathlib import Path
from typing import BinaryIO, Callable

try:
    import fcntl
except ImportError:  # Windows: no flock
    fcntl = None


def sha256_file(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def write_synced(path: Path, write: Callable[[BinaryIO], object]) -> None:
    """Open ``path`` for bytes, let ``write`` fill it, and flush it to disk before returning."""
    with open(path, "wb") as fh:
        write(fh)
        fh.flush()
        os.fsync(fh.fileno())


def write_text_atomic(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.tmp")
    write_synced(tmp, lambda fh: fh.write(text.encode("utf-8")))
    os.replace(tmp, path)


def write_json_atomic(path: Path, data) -> None:
    """``data`` as JSON, readable UTF-8; a path that is not UTF-8 (Python keeps its bytes as lone surrogates, which
    UTF-8 cannot hold) makes the whole file ASCII, with ``\\udcff`` escapes that read back as the same path."""
    text = json.dumps(data, ensure_ascii=False, indent=2)
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        text = json.dumps(data, indent=2)
    write_text_atomic(path, text)


def fsync_dir(path: Path) -> None:
    """Make a folder's new entries durable (best effort: some file systems refuse)."""
    try:
        fd = os.open(path, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


class Turn:
    """A lock file held by its caller (``take_turn``); ``close`` gives the turn up. Without a lock file (none could
    be made or locked here) it still works as a turn, so that work goes ahead unlocked rather than not at all."""

    def __init__(self, fh=None):
        self._fh = fh

    def close(self) -> None:
        if self._fh is not None:
            self._fh.close()

    def __enter__(self) -> "Turn":
        return self

    def __exit__(self, *exc) -> None:
        self.close()


def take_turn(path: Path) -> Turn | None:
    """Lock ``path`` without waiting: a ``Turn`` while this caller holds it, None while another holds it (another
    RepoBot, or another thread here: each open of the file is a holder of its own, as the doctest shows).

    The lock goes with the process, killed or not. Where a lock file cannot be made or locked (a read-only
    folder, a system without ``flock``), every caller has its turn at once: the work itself then says what is wrong.

    >>> import tempfile
    >>> lock = Path(tempfile.mkdtemp()) / "turn"
    >>> mine = take_turn(lock)
    >>> take_turn(lock) is None, mine is not None
    (True, True)
    >>> mine.close(); take_turn(lock) is not None
    True
    >>> take_turn(Path("/no/such/folder/turn")) is not None   # no lock to be had: go ahead
    True
    """
    try:
        fh = open(path, "a")
    except OSError:
        return Turn()
    if fcntl is None:
        return Turn(fh)
    try:
        fcntl.flock(fh, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        fh.close()
        return None
    except OSError:  # no locks on this file system (ENOLCK, EOPNOTSUPP)
        return Turn(fh)
    return Turn(fh)


def wait_turn(path: Path, poll_s: float = 0.2) -> Turn:
    """``take_turn``, waiting for it (Ctrl-C stops the wait)."""
    while (turn := take_turn(path)) is None:
        time.sleep(poll_s)
    return turn
