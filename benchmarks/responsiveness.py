"""Window responsiveness: the longest event-loop stall while the real models index and answer.

    QT_QPA_PLATFORM=offscreen python benchmarks/responsiveness.py --json

A 10 ms timer ticks in the window's thread; the longest gap between two ticks is
how long the window could not repaint or take input. Measured from the moment
the models are loaded (the torch import before that is reported separately).
``answer_tokens_per_s_drawn`` / ``_not_drawn``: the model's decoding speed on one question asked four times,
alternately with its text drawn as it comes and drawn only once done, under 30 answers on screen (what
redrawing costs). Then Stop, pressed
1.5 s after the model began reading an answer's prompt:
``stop_ms`` is how long until the window was free to take the next question.
"""

from __future__ import annotations

import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

from common import machine, parse_args, show


class LoopWatch:
    """The longest gap between ticks of a 10 ms timer, and how many ticks there were."""

    def __init__(self, QTimer):
        self.longest, self.ticks = 0.0, 0
        self._last = time.perf_counter()
        self.timer = QTimer()
        self.timer.timeout.connect(self._tick)
        self.timer.start(10)

    def _tick(self):
        now = time.perf_counter()
        self.longest, self.ticks, self._last = max(self.longest, now - self._last), self.ticks + 1, now

    def reset(self) -> float:
        longest, self.longest = self.longest, 0.0
        return longest


def main() -> int:
    args = parse_args("httpx", __doc__)
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    home = tempfile.mkdtemp(prefix="repobot-resp-")
    os.environ["REPOBOT_HOME"] = home

    from PySide6.QtCore import QEventLoop

    from repobot.desktop.panels.answers import REDRAW_MS
    from repobot.desktop.qt import QApplication, QTimer
    from repobot.desktop.window import MainWindow
    from repobot.desktop.settings import SettingsStore
    from repobot.desktop.tasks import Busy

    app = QApplication.instance() or QApplication(sys.argv)
    watch = LoopWatch(QTimer)
    win = MainWindow(corpus=args.corpus, store=SettingsStore(Path(home) / "settings.json"))
    result = {"machine": machine()}

    def wait(done):
        """Run the event loop (as the app does) until done() holds."""
        loop, poll = QEventLoop(), QTimer()
        poll.timeout.connect(lambda: done() and loop.quit())
        poll.start(20)
        loop.exec()
        poll.stop()

    c = win.controller
    win.show()
    wait(lambda: c.models_ok)
    result["startup_stall_ms"] = round(watch.reset() * 1000)
    wait(lambda: c.busy is Busy.IDLE and c.active in c.indexed_reports)
    result["indexing_stall_ms"] = round(watch.reset() * 1000)
    win.ask("Does httpx follow redirects by default?")
    wait(lambda: bool(c.turns) and c.busy is Busy.IDLE)
    result["answering_stall_ms"] = round(watch.reset() * 1000)
    # decoding while the window draws the streamed text as it comes (rendered, every REDRAW_MS, under 30 answers
    # on screen), against the same answer with the text drawn only once it is done; alternating, each in a new
    # conversation (the model reads the same prompt) with those 30 answers put on screen above it
    view = win.chat.conversation
    long_history = view.history_html * 30
    speeds: dict[str, list[float]] = {"drawn": [], "not drawn": []}
    for n in range(4):
        drawn = n % 2 == 0
        view.redraw.setInterval(REDRAW_MS if drawn else 10**8)
        c.conversation.new()
        view.history_html = long_history
        win.ask("How do I stream a large download without loading it into memory?")
        wait(lambda: bool(c.turns) and c.busy is Busy.IDLE)
        speeds["drawn" if drawn else "not drawn"].append(c.turns[-1].answer.timings.tokens_per_s)
    view.redraw.setInterval(REDRAW_MS)
    result["answer_tokens_per_s_drawn"] = round(statistics.median(speeds["drawn"]), 1)
    result["answer_tokens_per_s_not_drawn"] = round(statistics.median(speeds["not drawn"]), 1)
    watch.reset()
    result["ticks"] = watch.ticks
    drafting = []
    c.drafting.connect(lambda *_: drafting.append(time.perf_counter()))
    win.ask("How do I send my requests through a proxy that needs a username and a password?")
    wait(lambda: bool(drafting) and time.perf_counter() - drafting[0] >= 1.5)
    pressed = time.perf_counter()
    c.cancel()
    wait(lambda: c.busy is Busy.IDLE)
    result["stop_ms"] = round((time.perf_counter() - pressed) * 1000)
    win.close()
    show(result, args.json)
    return 0


if __name__ == "__main__":
    sys.exit(main())
