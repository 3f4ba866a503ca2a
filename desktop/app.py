"""Start the window; optionally script it (ask, open a source, screenshot, quit) for tests and docs.

The script listens to the controller's signals: it asks once the models are
loaded and the folder is indexed, and finishes once the answer is shown, or
once the question, a load, an index or the screenshot failed; then the exit
code is 2.
"""

from __future__ import annotations

import sys

from .qt import QApplication, QFont, QTimer


def application() -> QApplication:
    app = QApplication.instance() or QApplication(sys.argv[:1])
    app.setApplicationName("RepoBot")
    font = QFont()
    font.setFamilies(["Noto Sans", "DejaVu Sans", "Noto Sans CJK SC", "WenQuanYi Micro Hei", "Sans Serif"])
    font.setPointSize(10)
    app.setFont(font)
    return app


def run(*, corpus=None, model=None, ask=None, screenshot=None, open_source=None, quit_after=False) -> int:
    from .window import MainWindow

    app = application()
    window = MainWindow(corpus=corpus, model=model)
    window.show()
    script = None
    if ask or screenshot or quit_after:
        script = Script(window, ask=ask, screenshot=screenshot, open_source=open_source, quit_after=quit_after)
    code = app.exec()
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
        if self.source:
            self.window.open_source(self.source)
        self._finish_soon()

    def _failed(self) -> None:
        self.failed = True
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
