"""The viewer panel: a local markdown file rendered, scrolled to the cited lines and highlighted, with a find box."""

from __future__ import annotations

from pathlib import Path
from typing import Callable

from repobot.engine.load import read_markdown

from ..qt import (
    QColor, QDesktopServices, QEvent, QHBoxLayout, QLabel, QLineEdit, QMessageBox, QTextBrowser, QTextCursor,
    QTextEdit, QUrl, QVBoxLayout, QWidget, Qt, Signal,
)
from ..document import document_html, excerpt, matches_text

REMOTE_SCHEMES = ("http", "https", "ftp", "mailto")
MATCH, CURRENT = QColor("#b6e3ff"), QColor("#ff9632")  # every match of the find box (blue: the cited lines are
# yellow), and the one it is at
MAX_MARKED = 2000  # matches marked at most (a one-letter query in a long file): the count still says how many


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
        self.found: list[QTextCursor] = []  # the matches of the find box's text in the file shown, in order
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
        """Find every match of the box's text in the file shown and mark them; the count says how many."""
        text = self.find_box.text()
        self.found = []
        if text:
            cursor = self.view.document().find(text, 0)
            while not cursor.isNull():
                self.found.append(cursor)
                cursor = self.view.document().find(text, cursor)
        self._paint(None)

    def _paint(self, current: int | None) -> None:
        marked = list(range(min(len(self.found), MAX_MARKED)))
        if current is not None and current >= MAX_MARKED:  # past the cap, the one it is at is still shown
            marked.append(current)
        marks = []
        for i in marked:
            mark = QTextEdit.ExtraSelection()
            mark.cursor = self.found[i]
            mark.format.setBackground(CURRENT if i == current else MATCH)
            marks.append(mark)
        self.view.setExtraSelections(marks)
        searching = bool(self.find_box.text()) and self.current is not None  # no file open: nothing to count
        self.find_count.setText(matches_text(current, len(self.found), searching))

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
        at = next((c for c in self.found if c.selectionStart() == here.position()), None) \
            if here.position() == self.placed and not here.hasSelection() else None
        if here.hasSelection():  # text the reader selected
            start, end = here.selectionStart(), here.selectionEnd()
        elif at is not None:  # the match it left the cursor at
            start, end = at.selectionStart(), at.selectionEnd()
        else:  # where the reader is looking, not where the text cursor was left (the file's start)
            start = end = self.view.cursorForPosition(self.view.viewport().rect().topLeft()).position()
            stay = True
        if backward:
            before = [i for i, c in enumerate(self.found)
                      if c.selectionEnd() < end or (stay and c.selectionEnd() == end)]
            index = before[-1] if before else len(self.found) - 1
        else:
            after = [i for i, c in enumerate(self.found)
                     if c.selectionStart() > start or (stay and c.selectionStart() == start)]
            index = after[0] if after else 0
        self.view.unpin()
        # the cursor at the match's start, not round it: a selection would hide the orange mark under its own colour
        cursor = QTextCursor(self.view.document())
        cursor.setPosition(self.found[index].selectionStart())
        self.view.setTextCursor(cursor)
        self.placed = cursor.position()
        self.view.horizontalScrollBar().setValue(0)  # a match at the end of a long code line scrolled the view
        self.view.ensureCursorVisible()  # sideways, and every later one stayed cut off on the left
        self._paint(index)
