"""The window with the real default models: indexing progress and a real answer while the event loop keeps running.

How long the loop may stall is a speed figure, so it lives in benchmarks/responsiveness.py;
this test checks the behaviour: the window's timers keep firing and progress arrives in steps.
"""

import pytest

from repobot.desktop.qt import QTimer
from repobot.desktop.window import MainWindow
from repobot.engine.settings import SettingsStore

pytestmark = pytest.mark.integration


class Ticks:
    """Counts ticks of a 10 ms timer in the window's thread: they stop if the event loop is blocked."""

    def __init__(self):
        self.count = 0
        self.timer = QTimer()
        self.timer.timeout.connect(self._tick)
        self.timer.start(10)

    def _tick(self):
        self.count += 1


def test_real_index_and_answer_keep_the_event_loop_running(qtbot, httpx_docs, tmp_path, monkeypatch):
    monkeypatch.setenv("REPOBOT_HOME", str(tmp_path / "home"))  # a fresh home: the index is built for real
    win = MainWindow(corpus=str(httpx_docs), store=SettingsStore(tmp_path / "settings.json"))
    qtbot.addWidget(win)
    ticks = Ticks()
    seen = []  # (progress value, ticks so far): the loop ran between progress steps
    win.index_progress.valueChanged.connect(lambda v: seen.append((v, ticks.count)))
    win.show()
    qtbot.waitUntil(lambda: win.models_ok and not win.busy and win.active in win.indexed, timeout=300000)
    values = [v for v, _ in seen]
    assert values and values[-1] == 100 and len(set(values)) >= 3
    during = [t for v, t in seen if 0 < v < 100]
    assert during and max(during) > min(during), "the event loop did not run while indexing"
    assert win.indexed[win.active]["files"] == 23

    tokens = []
    win.worker.token.connect(lambda text: tokens.append((text, ticks.count)))
    assert win.ask("Does httpx follow redirects by default?")
    qtbot.waitUntil(lambda: bool(win.turns) and not win.busy, timeout=300000)
    turn = win.turns[-1]
    assert tokens and turn["verdict"] in ("verified", "extractive")
    assert tokens[-1][1] > tokens[0][1], "the event loop did not run while tokens streamed"
    assert {"compatibility.md", "quickstart.md"} & {h["source"] for h in turn["retrieved_hits"]}
    assert win.open_source(1)
    assert "background-color" in win.viewer.toHtml()
    ticks.timer.stop()
    win.close()
