"""Start the window; optionally script it (ask, open a source, screenshot, quit) for tests and docs."""

from __future__ import annotations

import sys

from repobot.desktop.qt import QApplication, QFont, QTimer


def _app() -> QApplication:
    app = QApplication.instance() or QApplication(sys.argv[:1])
    app.setApplicationName("RepoBot")
    font = QFont()
    font.setFamilies(["Noto Sans", "DejaVu Sans", "Noto Sans CJK SC", "WenQuanYi Micro Hei", "Sans Serif"])
    font.setPointSize(10)
    app.setFont(font)
    return app


def run(*, corpus=None, model=None, ask=None, screenshot=None, open_source=None, quit_after=False) -> int:
    from repobot.desktop.window import MainWindow

    app = _app()
    window = MainWindow(corpus=corpus, model=model)
    window.show()
    steps = Script(window, ask=ask, screenshot=screenshot, open_source=open_source, quit_after=quit_after)
    steps.start()
    return app.exec()


class Script:
    """Wait until the models and the index are ready, then ask, open a source, screenshot, quit."""

    def __init__(self, window, *, ask, screenshot, open_source, quit_after):
        self.window, self.question, self.screenshot = window, ask, screenshot
        self.source, self.quit_after = open_source, quit_after
        self.asked = False

    def start(self) -> None:
        if not (self.question or self.screenshot or self.quit_after):
            return
        self.window.worker.failed.connect(self._failed)
        self.timer = QTimer(self.window)
        self.timer.timeout.connect(self._tick)
        self.timer.start(200)

    def _tick(self) -> None:
        w = self.window
        ready = w.models_ok and not w.busy and w.active in w.indexed
        if not ready:
            return
        if self.question and not self.asked:
            self.asked = w.ask(self.question)
            return
        self.timer.stop()
        if self.source:
            w.open_source(self.source)
        QTimer.singleShot(500, self._finish)

    def _failed(self, job: str, message: str) -> None:
        print(f"repobot gui: {message}", file=sys.stderr)
        if job in ("models", "index") and (self.question or self.quit_after):
            self.timer.stop()
            QTimer.singleShot(300, self._finish)

    def _finish(self) -> None:
        if self.screenshot:
            self.window.grab().save(self.screenshot)
            print(f"screenshot saved to {self.screenshot}")
        if self.quit_after:
            self.window.close()
            QApplication.instance().quit()
