"""A progress bar for the terminal: stage, done/total, rate and ETA, on one rewritten line."""

from __future__ import annotations

import sys
import time
from typing import Callable, TextIO

MIN_TIMED = 0.5  # seconds a stage runs before its rate and ETA are shown
MIN_SAMPLES = 3  # and the files or passages it has done in that time: one file's time says little of the others'


class ProgressBar:
    """Call with (stage, done, total); draws only on a terminal, and at most ten times a second.

    A stage is timed from the call before its first one: its first call comes after
    its first batch is done, so timing from that call would give an absurd rate.
    The bar's very first call is the exception: what came before it (reading the
    folder, loading the embedder) was not that stage's work, so its stage is timed
    from that call, and the work that call reports is left out of the rate.
    """

    def __init__(self, stream: TextIO | None = None, *, enabled: bool | None = None, width: int = 28,
                 clock: Callable[[], float] = time.perf_counter, embeds: bool = True):
        self.stream = sys.stderr if stream is None else stream  # stderr as it is now, not as it was at import
        self.embeds = embeds  # False: the work stops once the folder is searchable (BM25), the rest embedded later
        self.clock = clock
        self.enabled = self.stream.isatty() if enabled is None else enabled
        self.width = width
        self._stage = ""
        self._started = clock()  # when the stage's timed work began
        self._previous: float | None = None  # the last call, of any stage
        self._untimed = 0  # what the stage had done when its timing began (the bar's first call's work)
        self._last = 0.0  # the last time a line was drawn

    def __call__(self, stage: str, done: int, total: int) -> None:
        if stage == "wait" and stage != self._stage:  # said even off a terminal: a silent wait looks like a hang
            self._stage = stage
            self.stream.write("another RepoBot is embedding this folder: waiting to use its work (Ctrl-C stops)\n")
            self.stream.flush()
            return
        if not self.enabled:
            return
        now = self.clock()
        if stage != self._stage:
            first = self._previous is None
            self._stage, self._started, self._untimed = stage, now if first else self._previous, done if first else 0
        self._previous = now
        if stage == "wait":  # said once, above; the other RepoBot's embedding is taken up when it is done
            return
        if stage == "searchable":  # a milestone, not a bar: the folder answers (BM25) from here on
            left = total - done
            if not left:
                rest = "; every passage already embedded"
            elif self.embeds:
                rest = f"; embedding {left:,} passages for hybrid search"
            else:
                rest = f"; {left:,} passages not embedded yet (a hybrid search embeds them)"
            self.stream.write(f"searchable: {total:,} passages{rest}\n")
            self.stream.flush()
            return
        if done < total and now - self._last < 0.1:
            return
        self._last = now
        self.stream.write(self.line(stage, done, total, now - self._started, done - self._untimed))
        if done >= total:
            self.stream.write("\n")
        self.stream.flush()

    def line(self, stage: str, done: int, total: int, elapsed: float, timed: int | None = None) -> str:
        """One drawing of the bar; ``timed``: what was done in the ``elapsed`` seconds (all of ``done`` when None).
        The rate and ETA come once the stage has run MIN_TIMED seconds and done MIN_SAMPLES files or passages.

        >>> ProgressBar(enabled=False, width=4).line("embed", 50, 100, 2.0)
        '\\rembedding [##..] 50/100 passages  25/s  ETA 2s'
        >>> ProgressBar(enabled=False, width=4).line("embed", 50, 100, 0.01)
        '\\rembedding [##..] 50/100 passages'
        >>> ProgressBar(enabled=False, width=4).line("chunk", 2, 23, 9.0)  # one file's time is no rate
        '\\r  reading [....] 2/23 files'
        """
        filled = int(self.width * done / total) if total else self.width
        unit = "files" if stage == "chunk" else "passages"
        label = "embedding" if stage == "embed" else "reading"
        text = f"\r{label:>9} [{'#' * filled}{'.' * (self.width - filled)}] {done:,}/{total:,} {unit}"
        timed = done if timed is None else timed
        if elapsed >= MIN_TIMED and timed >= MIN_SAMPLES:
            rate = timed / elapsed
            text += f"  {rate:.0f}/s  ETA {(total - done) / rate:.0f}s"
        return text
