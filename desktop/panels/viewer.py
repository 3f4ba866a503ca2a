"""The viewer panel: a local markdown file rendered, scrolled to the cited lines and highlighted, with a find box."""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from pathlib import Path
from typing import Callable

from repobot.engine.load import read_markdown

from ..qt import (
    QColor, QDesktopServices, QEvent, QHBoxLayout, QLabel, QLineEdit, QMessageBox, QTextBrowser, QTextCursor,
    QTextEdit, QUrl, QVBoxLayout, QWidget, Qt, Signal,
)
from ..document import document_html, excerpt, find_all, matches_text

REMOTE_SCHEMES = ("http", "https", "ftp", "mailto")
MATCH, CURRENT = QColor("#b6e3ff"), QColor("#ff9632")  # every match of the find box (blue: the cited lines are
# yellow), and the one it is at
MAX_MARKED = 2000  # matches marked at most about the view (a long line of code): the count still says how many


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
        # one stop for Tab, as the conversation (Tab stopped on each link of the file before it reached the left
        # pane); a click still follows a link
        self.setTextInteractionFlags(
            Qt.TextInteractionFlag.TextSelectableByMouse | Qt.TextInteractionFlag.TextSelectableByKeyboard
            | Qt.TextInteractionFlag.LinksAccessibleByMouse)
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
        self.find_box = QLineEdit(placeholderText="Find in document (Enter: next, Shift+Enter: previous)")
        self.find_box.setClearButtonEnabled(True)
        self.find_box.textEdited.connect(self._find_typed)
        self.find_box.installEventFilter(self)
        self.find_count = QLabel("")  # "3 of 12", "No matches"
        self.find_count.setStyleSheet("color:#57606a")
        self.view = DocViewer()
        self.view.anchorClicked.connect(self.follow_link)
        self.found: list[tuple[int, int]] = []  # the matches of the find box's text in the file shown: (start, end)
        self.at: int | None = None  # the match the find box is at, among them
        self.marked_span = (0, 0)  # the positions whose matches are marked (about the view)
        self.view.verticalScrollBar().valueChanged.connect(self._scrolled)
        self.placed: int | None = None  # where the find box last put the view's cursor (a match's start)
        layout = QVBoxLayout(self)
        layout.addWidget(self.title)
        find = QHBoxLayout()
        find.addWidget(self.find_box, 1)
        find.addWidget(self.find_count)
        layout.addLayout(find)
        layout.addWidget(self.view, 1)

    def focus_order(self) -> list[QWidget]:
        """Tab's way through the viewer: its find box, then the file."""
        return [self.find_box, self.view]

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
        self.found = []  # the last file's: not to be marked again in this one as it scrolls into place
        self.view.setHtml(document_html(shown.text, lines, shown.first))
        span = f" — lines {lines[0]}–{lines[1]}" if lines else ""
        part = "" if shown.whole else (f" <i>(too long to show whole: lines {shown.first:,}–{shown.last:,} of "
                                       f"{shown.lines:,}; open it in an editor for the rest)</i>")
        self.title.setText(f"<b>{source}</b>{span}{part}")
        self.view.pin("hl" if lines else anchor)
        self._mark_all()  # the query is kept, as a browser's find bar keeps it: its matches in this file are counted
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

    # -- the find box --------------------------------------------------------------------------------
    def eventFilter(self, obj, event):  # noqa: N802 (Qt name)
        if obj is self.find_box:
            key = event.type() in (QEvent.Type.ShortcutOverride, QEvent.Type.KeyPress)
            escape = key and event.key() == Qt.Key.Key_Escape
            if escape and self.find_box.text():
                # Esc clears the box; only a second Esc reaches the window's, which stops an answer or indexing. Qt
                # offers a key to the shortcuts first: claiming the override keeps it here.
                event.accept()
                if event.type() == QEvent.Type.KeyPress:
                    self.find_box.clear()
                    self._find_typed("")
                return True
            if event.type() == QEvent.Type.KeyPress and event.key() in (Qt.Key.Key_Return, Qt.Key.Key_Enter):
                self.find_next(backward=bool(event.modifiers() & Qt.KeyboardModifier.ShiftModifier))
                return True
        return super().eventFilter(obj, event)

    def focus_find(self) -> None:
        """Ctrl+F: to the find box, its query selected, so that typing replaces it and Enter finds it again."""
        self.find_box.setFocus()
        self.find_box.selectAll()

    def _find_typed(self, _text: str) -> None:
        """Search as the user types: every match marked, the view at the first one from where it was."""
        self._mark_all()
        if self.found:
            self.find_next(stay=True)

    def _mark_all(self) -> None:
        """Find every match of the box's text in the file shown and mark those about the view; the count says how many
        there are in all."""
        self.found = find_all(self.view.document().toPlainText(), self.find_box.text())
        self._paint(None)

    def _paint(self, current: int | None) -> None:
        """Mark the matches from a screen above the view to a screen below it (``MAX_MARKED`` at most) and the one it
        is at, in orange; scrolling out of that span marks again (``_scrolled``). Marking the first 2,000 took a
        one-letter search 30 ms a keystroke, and none past them was marked."""
        self.at = current
        self.marked_span = self._near_view(screens=1)
        first = bisect_left(self.found, self.marked_span[0], key=lambda match: match[0])
        last = min(bisect_right(self.found, self.marked_span[1], key=lambda match: match[0]), first + MAX_MARKED)
        marked = list(range(first, last)) + ([current] if current is not None and not first <= current < last else [])
        marks = []
        for i in marked:
            mark = QTextEdit.ExtraSelection()
            mark.cursor = QTextCursor(self.view.document())
            mark.cursor.setPosition(self.found[i][0])
            mark.cursor.setPosition(self.found[i][1], QTextCursor.MoveMode.KeepAnchor)
            mark.format.setBackground(CURRENT if i == current else MATCH)
            marks.append(mark)
        self.view.setExtraSelections(marks)
        searching = bool(self.find_box.text()) and self.current is not None  # no file open: nothing to count
        self.find_count.setText(matches_text(current, len(self.found), searching))

    def _near_view(self, screens: int) -> tuple[int, int]:
        """The document's positions from ``screens`` screens above what the reader sees to as many below, in whole
        lines (paragraphs)."""
        rect = self.view.viewport().rect()
        top = self.view.cursorForPosition(rect.topLeft()).block().position()
        bottom = self.view.cursorForPosition(rect.bottomRight()).block()
        end = bottom.position() + bottom.length()
        return max(0, top - screens * (end - top)), end + screens * (end - top)

    def _scrolled(self, *_) -> None:
        """The reader scrolled: once the view leaves the span whose matches are marked, mark about it again."""
        if self.found:
            top, bottom = self._near_view(screens=0)
            if top < self.marked_span[0] or bottom > self.marked_span[1]:
                self._paint(self.at)

    def find_next(self, backward: bool = False, stay: bool = False) -> None:
        """Go to the next match after the one it is at (or before it), wrapping round at the file's end. At none yet
        (a file just opened at its cited lines), from the top of what the reader sees, a match there included.
        ``stay``: the match it is at will do (the query grew by a letter and still matches there)."""
        if not self.found:
            self._mark_all()
            if not self.found:
                if self.find_box.text() and self.current is not None:
                    self.status.emit(f"“{self.find_box.text()}” is not in this document")
                return
        here = self.view.textCursor()
        near = bisect_left(self.found, here.position(), key=lambda match: match[0])
        at = self.found[near] if (here.position() == self.placed and not here.hasSelection() and near < len(self.found)
                                  and self.found[near][0] == here.position()) else None
        if here.hasSelection():  # text the reader selected
            start, end = here.selectionStart(), here.selectionEnd()
        elif at is not None:  # the match it left the cursor at
            start, end = at
        else:  # where the reader is looking, not where the text cursor was left (the file's start)
            start = end = self.view.cursorForPosition(self.view.viewport().rect().topLeft()).position()
            stay = True
        if backward:  # the last match ending before (or, staying, at) ``end``; before the first: round to the last
            index = (bisect_right if stay else bisect_left)(self.found, end, key=lambda match: match[1]) - 1
            index = index if index >= 0 else len(self.found) - 1
        else:  # the first starting after (or at) ``start``; after the last: round to the first
            index = (bisect_left if stay else bisect_right)(self.found, start, key=lambda match: match[0])
            index = index if index < len(self.found) else 0
        self.view.unpin()
        # the cursor at the match's start, not round it: a selection would hide the orange mark under its own colour
        cursor = QTextCursor(self.view.document())
        cursor.setPosition(self.found[index][0])
        self.view.setTextCursor(cursor)
        self.placed = cursor.position()
        self.view.horizontalScrollBar().setValue(0)  # a match at the end of a long code line scrolled the view
        self.view.ensureCursorVisible()  # sideways, and every later one stayed cut off on the left
        self._paint(index)
