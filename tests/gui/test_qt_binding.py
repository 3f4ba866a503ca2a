"""The Qt binding keeps Python's reference counts: the window emits a signal for every token and progress step.

PySide6 6.12.0 returned True from ``Signal.emit`` without a reference of its own, so every emit
took one reference from ``True``; without torch loaded, the window aborted after a few thousand
signals ("bool_dealloc: deallocating True or False"). RepoBot pins a version without that bug.
"""

import gc
import sys

from repobot.desktop.qt import QObject, Signal


class Emitter(QObject):
    text = Signal(str)
    payload = Signal(dict)


def test_emitting_signals_leaves_the_references_to_true_and_false_alone(qtbot):
    emitter = Emitter()
    received = []
    emitter.text.connect(received.append)
    emitter.payload.connect(received.append)
    gc.collect()  # earlier tests' garbage, freed during the count, moved it by 55 in one CI run
    gc.disable()
    try:
        before = [sys.getrefcount(v) for v in (True, False)]
        for _ in range(500):
            emitter.text.emit("token")
            emitter.payload.emit({"done": True, "verdict": None})
        assert len(received) == 1000
        received.clear()
        after = [sys.getrefcount(v) for v in (True, False)]
    finally:
        gc.enable()
    assert all(abs(a - b) < 200 for a, b in zip(after, before)), (before, after)  # 6.12.0: True lost 1,000
