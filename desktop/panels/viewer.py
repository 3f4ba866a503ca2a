"""The viewer panel: a local markdown file rendered, scrolled to the cited lines and highlighted, with a find box."""

from __future__ import annotations

from pathlib import Path
from typing import Callable

from repobot.engine.load import read_markdown

from ..qt import QDesktopServices, QLabel, QLineEdit, QMessageBox, QTextBrowser, QTextCursor, QUrl, QVBoxLayout, QWidget, Signal
from ..document import document_html, excerpt

REMOTE_SCHEMES = ("http", "https", "ftp", "mailto")


def inside(root: Path, path: Path) -> bool:
    """True when ``path`` (resolved) lies inside ``root``: a tampered index cannot open /etc/passwd."""
    root, path = root.resolve(), path.resolve()
    return path == root or root in path.parents


class DocViewer(QTextBrowser):
    """A markdown viewer that never loads anything remote and never follows links by itself.

    The anchor it was scrolled to stays in view when the viewer is resized (the text wraps anew, so the same
    scroll position would show other lines), until the user scrolls or searches.
    """

    def __init__(self):
        super().__init__()
        self.setOpenLinks(False)
        self.setOpenExternalLinks(False)
        self.pinned: str | None = None
        self.verticalScrollBar().actionTriggered.connect(self.unpin)  # wheel, keys, the bar: the user scrolled

    def pin(self, anchor: str | None) -> None:
        """Scroll to ``anchor`` and keep it in view; None: to the start, nothing kept."""
        self.pinned = anchor
        if anchor:
            self.scrollToAnchor(anchor)
        else:
            self.moveCursor(QTextCursor.MoveOperation.Start)

    def unpin(self, *_) -> None:
        self.pinned = None

    def resizeEvent(self, event):  # noqa: N802 (Qt name)
        super().resizeEvent(event)
        if self.pinned:
            self.scrollToAnchor(self.pinned)

    def loadResource(self, kind, url):  # noqa: N802 (Qt name)
        if url.scheme() in REMOTE_SCHEMES:
            return None
        return super().loadResource(kind, url)


class ViewerPanel(QWidget):
    error = Signal(str)
    status = Signal(str)

    def __init__(self):
        super().__init__()
        self.current: tuple[Path, str] | None = None  # (root, source) on show
        self.confirm_external: Callable[[QUrl], bool] = self._ask_before_leaving
        self.title = QLabel("No document open")
        self.find_box = QLineEdit(placeholderText="Find in document…")
        self.find_box.returnPressed.connect(self.find_next)
        self.view = DocViewer()
        self.view.anchorClicked.connect(self.follow_link)
        layout = QVBoxLayout(self)
        layout.addWidget(self.title)
        layout.addWidget(self.find_box)
        layout.addWidget(self.view, 1)

    def open_file(self, root: Path, source: str, *, lines: tuple[int, int] | None = None, anchor: str | None = None) -> bool:
        path = root / source
        if not inside(root, path):
            self.error.emit(f"Refused to open {source}: it lies outside the indexed folder {root}.")
            return False
        text, problem = read_markdown(path)  # as the index read it, so that line numbers agree
        if text is None:
            self.error.emit(f"Cannot open {source}: {problem.removeprefix('skipped: ')}. Re-index the folder if it changed.")
            return False
        self.current = (root, source)
        shown = excerpt(text, lines)
        self.view.setHtml(document_html(shown.text, lines, shown.first))
        span = f" — lines {lines[0]}–{lines[1]}" if lines else ""
        part = "" if shown.whole else (f" <i>(too long to show whole: lines {shown.first:,}–{shown.last:,} of "
                                       f"{shown.lines:,}; open it in an editor for the rest)</i>")
        self.title.setText(f"<b>{source}</b>{span}{part}")
        self.view.pin("hl" if lines else anchor)
        return True

    def follow_link(self, url: QUrl) -> None:
        """Links between markdown files open here; remote ones only in the browser, after asking."""
        if url.scheme() in REMOTE_SCHEMES:
            if self.confirm_external(url):
                QDesktopServices.openUrl(url)
            return
        if self.current is None:
            return
        root, source = self.current
        target = url.path()
        if not target:  # a link within the page
            self.view.pin(url.fragment() or None)
            return
        resolved = (root / source).parent / target
        try:
            relative = resolved.resolve().relative_to(root.resolve()).as_posix()
        except ValueError:
            self.error.emit(f"Refused to open {target}: it lies outside the indexed folder.")
            return
        if not resolved.suffix:
            relative += ".md" if not resolved.is_dir() else "/index.md"
        self.open_file(root, relative)

    def _ask_before_leaving(self, url: QUrl) -> bool:
        answer = QMessageBox.question(
            self, "Open in your browser?",
            f"This link leaves RepoBot and uses the network:\n{url.toString()}\n\nOpen it in your web browser?",
        )
        return answer == QMessageBox.StandardButton.Yes

    def find_next(self) -> None:
        text = self.find_box.text()
        if not text:
            return
        self.view.unpin()
        if not self.view.find(text):
            self.view.moveCursor(QTextCursor.MoveOperation.Start)
            if not self.view.find(text):
                self.status.emit(f"“{text}” is not in this document")
