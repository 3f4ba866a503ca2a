"""Saved state: what a model read of a prompt's constant part, kept on disk for the next process.

Every answer prompt begins with the same rules and worked example (307
tokens in English), which llama.cpp reads in 2.4 s on 2 cores. A process that
answers one question (``repobot ask``), or the window's first question, paid
for them each time. Their evaluated state (3.8 MB of attention cache) is saved
once and read back in milliseconds. A saved state is used only where
evaluating would give the very same numbers: its name is a hash of everything
that shapes them (the model file, llama.cpp's version and settings, the CPU,
the tokens), and its contents carry their own sha256, so a truncated or damaged
file is evaluated again, never trusted.

>>> import tempfile
>>> folder = Path(tempfile.mkdtemp())
>>> path = folder / f"{state_key(['model.gguf', 'n_ctx=4096'], [1, 2, 3])}.state"
>>> write_state(path, b"attention cache")
>>> read_state(path)
b'attention cache'
>>> _ = path.write_bytes(path.read_bytes()[:-1])  # truncated
>>> read_state(path) is None
True
>>> _ = (folder / "a-file").write_text("")
>>> write_state(folder / "a-file" / "x.state", b"")  # a folder that cannot be made: nothing saved, nothing raised
>>> sorted(p.name for p in folder.iterdir()) == ["a-file", path.name]
True
"""

from __future__ import annotations

import hashlib
import os
import platform
import time
from pathlib import Path
from typing import Sequence

MAGIC = b"repobot-state-1\n"
KEEP_BYTES = 64 << 20  # the newest states kept, in all (3.8 MB each for the 0.5B, 8.8 MB for the 1.5B)
STALE_S = 3600  # a partial file this old was left by a process that died while writing it


def state_key(settings: Sequence[str], tokens: Sequence[int]) -> str:
    """A name for the state of ``tokens`` evaluated under ``settings``: any difference gives another name.

    >>> state_key(["a"], [1, 2]) == state_key(["a"], [1, 2]), state_key(["a"], [1, 2]) == state_key(["b"], [1, 2])
    (True, False)
    """
    digest = hashlib.sha256()
    for part in settings:
        digest.update(part.encode("utf-8") + b"\0")
    digest.update(",".join(map(str, tokens)).encode("ascii"))
    return digest.hexdigest()[:32]


def cpu_identity() -> str:
    """The CPU model and its instruction-set flags: llama.cpp picks its kernels by them, and other kernels round
    differently, so a state evaluated on another CPU is not reused."""
    try:
        with open("/proc/cpuinfo", encoding="utf-8", errors="replace") as info:
            lines = [line for line in info if line.startswith(("model name", "flags"))][:2]
        if lines:
            return hashlib.sha256("".join(lines).encode("utf-8")).hexdigest()[:16]
    except OSError:
        pass
    return f"{platform.machine()} {platform.processor()}"


def model_identity(path: Path) -> str:
    """The model file as it is on disk: its name, size and modification time (hashing 491 MB would take seconds)."""
    stat = path.stat()
    return f"{path.name} {stat.st_size} {stat.st_mtime_ns}"


def write_state(path: Path, payload: bytes) -> None:
    """Save ``payload`` under ``path`` whole or not at all, with its sha256; the oldest states beyond ``KEEP_BYTES`` go.
    A folder that cannot be written only means the next process evaluates again."""
    partial = path.with_suffix(f".{os.getpid()}.partial")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        partial.write_bytes(MAGIC + hashlib.sha256(payload).digest() + payload)
        os.replace(partial, path)
        _prune(path.parent)
    except OSError:  # a full disk leaves no partial file behind
        try:
            partial.unlink(missing_ok=True)
        except OSError:
            pass


def read_state(path: Path) -> bytes | None:
    """The payload saved under ``path``, or None when there is none or it is not whole."""
    try:
        data = path.read_bytes()
    except OSError:
        return None
    head, digest, payload = data[: len(MAGIC)], data[len(MAGIC): len(MAGIC) + 32], data[len(MAGIC) + 32:]
    if head != MAGIC or hashlib.sha256(payload).digest() != digest:
        return None
    try:
        os.utime(path)  # used: kept before the states not used for longest
    except OSError:
        pass
    return payload


def _prune(folder: Path, now: float | None = None, keep_bytes: int = KEEP_BYTES) -> None:
    """Keep the newest states within ``keep_bytes`` (the newest always), and no partial file a process left.

    >>> import tempfile, time
    >>> folder = Path(tempfile.mkdtemp())
    >>> for n, size in enumerate([40, 30, 1]):  # oldest first
    ...     _ = (folder / f"{n}.state").write_bytes(b"x" * size)
    ...     os.utime(folder / f"{n}.state", (n, n))
    >>> _ = (folder / "9.123.partial").write_bytes(b"")
    >>> _prune(folder, now=time.time() + STALE_S + 1, keep_bytes=64)
    >>> sorted(p.name for p in folder.iterdir())
    ['1.state', '2.state']
    """
    now = time.time() if now is None else now
    for partial in folder.glob("*.partial"):
        if now - partial.stat().st_mtime > STALE_S:
            partial.unlink(missing_ok=True)
    kept = 0
    for n, state in enumerate(sorted(folder.glob("*.state"), key=lambda p: p.stat().st_mtime, reverse=True)):
        kept += state.stat().st_size
        if kept > keep_bytes and n > 0:
            state.unlink(missing_ok=True)
