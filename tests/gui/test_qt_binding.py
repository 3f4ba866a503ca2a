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


def test_the_headless_platform_leaves_out_its_size_hint_noise_and_prints_the_rest():
    """``repobot gui --screenshot`` offscreen printed Qt's "does not support propagateSizeHints()" for each window;
    run in a child process, since the test runner keeps its own Qt message handler."""
    import os
    import subprocess

    script = (
        "from PySide6.QtCore import qWarning\n"
        "from repobot.desktop.app import application, keep_qt_quiet_offscreen\n"
        "from repobot.desktop.qt import QMainWindow, QTimer\n"
        "app = application(); print(keep_qt_quiet_offscreen(app))\n"
        "w = QMainWindow(); w.show(); w.setMinimumSize(200, 200)\n"  # the size hints change: Qt says it cannot pass them
        "qWarning('another warning, still said')\n"
        "QTimer.singleShot(200, app.quit); app.exec()\n"
    )
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen")
    run = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, env=env, timeout=60)
    assert run.returncode == 0 and run.stdout.strip() == "True", run.stderr
    unquiet = subprocess.run([sys.executable, "-c", script.replace("print(keep_qt_quiet_offscreen(app))", "print(True)")],
                             capture_output=True, text=True, env=env, timeout=60)
    assert "propagateSizeHints" in unquiet.stderr  # what the test would miss if Qt stopped saying it
    assert "propagateSizeHints" not in run.stderr
    assert "another warning, still said" in run.stderr
