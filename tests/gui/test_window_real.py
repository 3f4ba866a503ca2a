"""The window with the real default models: indexing progress, quotes at once, a real answer, a running event loop.

How long the loop may stall is a speed figure, so it lives in benchmarks/responsiveness.py;
this test checks the behaviour: the window's timers keep firing and progress arrives in steps.
"""

import pytest

from repobot.desktop.qt import QTimer
from repobot.desktop.settings import SettingsStore
from repobot.desktop.tasks import Busy
from repobot.desktop.window import MainWindow

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
    c = win.controller
    qtbot.addWidget(win)
    ticks = Ticks()
    seen = []  # (progress value, ticks so far): the loop ran between progress steps
    win.collections.progress.valueChanged.connect(lambda v: seen.append((v, ticks.count)))
    win.show()
    qtbot.waitUntil(lambda: c.models_ok and c.busy is Busy.IDLE and c.active in c.indexed_reports, timeout=300000)
    values = [v for v, _ in seen]
    assert values and values[-1] == 100 and len(set(values)) >= 3
    during = [t for v, t in seen if 0 < v < 100]
    assert during and max(during) > min(during), "the event loop did not run while indexing"
    assert c.indexed_reports[c.active].files == 23

    events = []
    c.preview.connect(lambda choice: events.append(("preview", ticks.count)))
    c.token.connect(lambda text: events.append(("token", ticks.count)))
    assert win.ask("Does httpx follow redirects by default?")
    qtbot.waitUntil(lambda: bool(c.turns) and c.busy is Busy.IDLE, timeout=300000)
    answer = c.turns[-1].answer
    kinds = [k for k, _ in events]
    assert kinds and kinds[0] == "preview" and "token" in kinds  # the quotes came before the model's text
    assert answer.verdict in ("verified", "extractive")
    tokens = [t for k, t in events if k == "token"]
    assert tokens[-1] > tokens[0], "the event loop did not run while tokens streamed"
    assert {"compatibility.md", "quickstart.md"} & {h.chunk.source for h in answer.retrieved}
    assert win.open_source(1)
    assert "background-color" in win.viewer.view.toHtml()
    ticks.timer.stop()
    win.close()
