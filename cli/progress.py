"""A progress bar for the terminal: stage, done/total, rate and ETA, on one rewritten line."""

from __future__ import annotations

import sys
import time
from typing import TextIO


class ProgressBar:
    """Call with (stage, done, total); draws only on a terminal, and at most ten times a second."""

    def __init__(self, stream: TextIO = sys.stderr, *, enabled: bool | None = None, width: int = 28):
        self.stream = stream
        self.enabled = stream.isatty() if enabled is None else enabled
        self.width = width
        self._stage = ""
        self._started = time.perf_counter()
        self._last = 0.0

    def __call__(self, stage: str, done: int, total: int) -> None:
        if not self.enabled:
            return
        if stage == "searchable":  # a milestone, not a bar: the folder answers (BM25) from here on
            left = total - done
            rest = f"; embedding {left:,} passages for hybrid search" if left else "; every passage already embedded"
            self.stream.write(f"searchable: {total:,} passages{rest}\n")
            self.stream.flush()
            return
        now = time.perf_counter()
        if stage != self._stage:
            self._stage, self._started = stage, now
        if done < total and now - self._last < 0.1:
            return
        self._last = now
        elapsed = max(now - self._started, 1e-6)
        rate = done / elapsed
        eta = (total - done) / rate if rate > 0 else 0.0
        filled = int(self.width * done / total) if total else self.width
        unit = "files" if stage == "chunk" else "passages"
        label = "embedding" if stage == "embed" else "reading"
        line = f"\r{label:>9} [{'#' * filled}{'.' * (self.width - filled)}] {done:,}/{total:,} {unit}  {rate:.0f}/s  ETA {eta:.0f}s"
        self.stream.write(line)
        if done >= total:
            self.stream.write("\n")
        self.stream.flush()
