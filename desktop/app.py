"""Start the window; optionally script it (ask, open a source, screenshot, quit) for tests and docs.

The script listens to the controller's signals: it asks once the models are
loaded and the folder is indexed, and finishes once the answer is shown, or
once the question, a load, an index or the screenshot failed; then the exit
code is 2.
"""

from __future__ import annotations

import faulthandler
import os
import sys
from pathlib import Path

from .qt import QApplication, QFont, QTimer, qInstallMessageHandler

CRASH_LOG = "crash.log"
KEPT_CRASH_LOG = "crash-previous.log"


def application() -> QApplication:
    app = QApplication.instance() or QApplication(sys.argv[:1])
    app.setApplicationName("RepoBot")
    font = QFont()
    font.setFamilies(["Noto Sans", "DejaVu Sans", "Noto Sans CJK SC", "WenQuanYi Micro Hei", "Sans Serif"])
    font.setPointSize(10)
    app.setFont(font)
    return app


# What Qt's headless platform says about every window it cannot size as a desktop would: true, and of no use to
# someone scripting the window (``repobot gui --screenshot``); everything else Qt says is still printed.
OFFSCREEN_NOISE = ("does not support propagateSizeHints",)


def keep_qt_quiet_offscreen(app: QApplication) -> bool:
    """On the ``offscreen`` platform, leave out Qt's ``OFFSCREEN_NOISE`` and print the rest as Qt would."""
    if app.platformName() != "offscreen":
        return False

    def handler(_mode, _context, message: str) -> None:
        if not any(noise in message for noise in OFFSCREEN_NOISE):
            print(message, file=sys.stderr)

    qInstallMessageHandler(handler)
    return True


def record_crashes(folder: Path):
    """Have a crash in native code (llama.cpp, Qt) write the Python stacks to ``folder/crash.log``.

    Returns ``(log, message)``: the open log (close it on a clean exit; None when the folder cannot be
    written) and, when the previous run ended in a crash, a one-line message naming where it happened
    and the report, kept aside.

    >>> import tempfile; folder = Path(tempfile.mkdtemp())
    >>> _ = (folder / CRASH_LOG).write_text('Fatal Python error: Segmentation fault\\n  File "llama_cpp/llama.py"')
    >>> log, message = record_crashes(folder); log.close(); _ = faulthandler.disable()
    >>> message.startswith("RepoBot stopped unexpectedly last time, in the language model (llama.cpp)")
    True
    >>> log, message = record_crashes(folder); log.close(); _ = faulthandler.disable()
    >>> message is None  # that log stayed empty: a clean run
    True
    """
    log, message = folder / CRASH_LOG, None
    try:
        folder.mkdir(parents=True, exist_ok=True)
        report = log.read_text(encoding="utf-8", errors="replace") if log.exists() else ""
        if report.strip():
            kept = folder / KEPT_CRASH_LOG
            os.replace(log, kept)
            where = "in the language model (llama.cpp)" if "llama_cpp" in report else "in native code"
            message = (f"RepoBot stopped unexpectedly last time, {where}. The report is in {kept}; if it happens "
                       "again, choose another model in the Model list, or send that report with how it happened.")
        handle = open(log, "w", encoding="utf-8")
    except OSError:  # a data folder that cannot be written is reported where it is used; crashes go to stderr
        faulthandler.enable(all_threads=True)
        return None, message
    faulthandler.enable(handle, all_threads=True)
    return handle, message


def run(*, corpus=None, model=None, ask=None, screenshot=None, open_source=None, quit_after=False) -> int:
    from repobot.engine.config import data_dir

    from .window import MainWindow

    app = application()
    keep_qt_quiet_offscreen(app)
    crash_log, crashed_before = record_crashes(data_dir())
    window = MainWindow(corpus=corpus, model=model)
    window.show()
    script = None
    if ask or screenshot or quit_after:
        script = Script(window, ask=ask, screenshot=screenshot, open_source=open_source, quit_after=quit_after)
    if crashed_before:
        if script is None:  # a script prints every message the window shows
            print(f"repobot gui: {crashed_before}", file=sys.stderr)
        window.controller.error.emit(crashed_before)
    code = app.exec()
    faulthandler.disable()
    if crash_log is not None:
        crash_log.close()
    return code or (2 if script is not None and script.failed else 0)


class Script:
    """Ask once the models and the index are ready; then open a source, take a screenshot, quit."""

    def __init__(self, window, *, ask, screenshot, open_source, quit_after):
        self.window, self.question, self.screenshot = window, ask, screenshot
        self.source, self.quit_after = open_source, quit_after
        self.ready = {"models": False, "index": False}
        self.asked = self.failed = False
        c = window.controller
        c.models_ready.connect(lambda _name: self._ready("models"))
        c.indexed.connect(lambda root, _report: root == c.active and self._ready("index"))
        c.answered.connect(lambda _turn: self._after_answer())
        c.ask_failed.connect(self._failed)
        c.index_failed.connect(lambda _root: self._failed())
        c.error.connect(self._report)
        c.models_failed.connect(lambda _message: self._failed())
        if window.chat.banner.isVisibleTo(window):  # said while the window was built, before this script listened
            self._report(window.chat.banner.text())

    def _report(self, message: str) -> None:
        if message:
            print(f"repobot gui: {message}", file=sys.stderr)

    def _ready(self, what: str) -> None:
        self.ready[what] = True
        if all(self.ready.values()) and not self.asked:
            self.asked = True
            if self.question:
                if not self.window.ask(self.question):  # refused: the reason went to stderr
                    self._failed()
            else:
                self._finish_soon()

    def _after_answer(self) -> None:
        if self.window.controller.conversation.unsaved:  # shown, but not kept: the run did not do all it was asked
            self.failed = True
        if self.source:
            self.window.open_source(self.source)
        self._finish_soon()

    def _failed(self) -> None:
        self.failed = True
        if self.question and not self.asked:  # a model or an index that failed: the message above says why
            self.asked = True
            print("repobot gui: your question was not asked (see the message above)", file=sys.stderr)
        if self.question or self.quit_after:
            self._finish_soon()

    def _finish_soon(self) -> None:
        QTimer.singleShot(500, self._finish)

    def _finish(self) -> None:
        if self.screenshot:
            if self.window.grab().save(self.screenshot):
                print(f"screenshot saved to {self.screenshot}")
            else:
                self.failed = True
                print(f"repobot gui: the screenshot could not be written to {self.screenshot}: check that its "
                      "folder exists and is writable, and that the name ends in .png", file=sys.stderr)
        if self.quit_after:
            self.window.close()
            QApplication.instance().quit()
