"""The conversations panel: the active collection's saved conversations; reopen, rename, delete, search, export."""

from __future__ import annotations

import re
import time
from pathlib import Path

from ..qt import (
    QFileDialog, QFontMetrics, QInputDialog, QLabel, QLineEdit, QListWidget, QListWidgetItem, QPushButton,
    QKeySequence, QShortcut, QSize, QVBoxLayout, QWidget, Qt, Signal,
)
from .layout import ask_yes_no, button_grid, on_enter

ROLE = Qt.ItemDataRole.UserRole


class HistoryPanel(QWidget):
    open_requested = Signal(int)
    new_requested = Signal()
    rename_requested = Signal(int, str)
    delete_requested = Signal(int)
    export_requested = Signal(int, str)  # id, file to write
    search_changed = Signal(str)

    def __init__(self):
        super().__init__()
        self.search_box = QLineEdit(placeholderText="Search conversations…")
        self.search_box.textChanged.connect(self.search_changed)
        self.last_export_folder: Path | None = None
        self.list = QListWidget()
        # a long title ends in "…" at the list's width (the whole title on hover), not under a sideways scroll bar
        self.list.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.list.setTextElideMode(Qt.TextElideMode.ElideRight)
        self.list.itemClicked.connect(lambda item: self.open_requested.emit(item.data(ROLE)))
        on_enter(self.list, lambda item: self.open_requested.emit(item.data(ROLE)))
        QShortcut(QKeySequence(QKeySequence.StandardKey.Delete), self.list, context=Qt.ShortcutContext.WidgetShortcut,
                  activated=self._delete)  # the Delete key, as the button (it asks first)
        self.buttons = buttons = []
        for text, slot in (("New", self.new_requested.emit), ("Rename", self._rename), ("Delete", self._delete),
                           ("Export…", self._export)):
            buttons.append(QPushButton(text))
            buttons[-1].clicked.connect(slot)
        buttons[0].setToolTip("A new conversation (Ctrl+N)")
        layout = QVBoxLayout(self)
        layout.addWidget(QLabel("<b>Conversations</b>"))
        layout.addWidget(self.search_box)
        layout.addWidget(self.list, 1)
        layout.addLayout(button_grid(*buttons))

    def focus_order(self) -> list[QWidget]:
        """Tab's way through the panel, top to bottom."""
        return [self.search_box, self.list, *self.buttons]

    def show_conversations(self, conversations, current: int | None) -> None:
        self.list.clear()
        for c in conversations:
            when = time.strftime("%d %b %H:%M", time.localtime(c.updated))
            item = QListWidgetItem(f"{c.title}\n{c.turns} question{'' if c.turns == 1 else 's'} · {when}")
            item.setSizeHint(self._fitted(item.text()))
            item.setData(ROLE, c.id)
            item.setToolTip(c.title)
            self.list.addItem(item)
            if c.id == current:
                self.list.setCurrentItem(item)

    def _fitted(self, text: str) -> QSize:
        """Room for every line of an item. Qt sizes it by the list's font, and a Chinese title drawn in a taller
        fallback font then did not fit: its first line ended in "…" and the second was not shown. No width of its own:
        the item is as wide as the list, and a longer line ends in "…"."""
        metrics = QFontMetrics(self.list.font())
        lines = text.split("\n")
        height = sum(max(metrics.lineSpacing(), metrics.boundingRect(line).height()) for line in lines)
        return QSize(0, height + metrics.lineSpacing() // 2)

    def selected(self) -> int | None:
        item = self.list.currentItem()
        return item.data(ROLE) if item else None

    def _rename(self) -> None:
        current = self.selected()
        if current is None:
            return
        title, ok = QInputDialog.getText(self, "Rename conversation", "Title:", text=self.list.currentItem().toolTip())
        if ok and title.strip():
            self.rename_requested.emit(current, title)

    def _delete(self) -> None:
        current = self.selected()
        if current is not None and self.confirm_delete(self.list.currentItem().toolTip()):
            self.delete_requested.emit(current)

    def confirm_delete(self, title: str) -> bool:
        """Ask before a conversation is deleted: it is gone from disk (it went at one click, without a word)."""
        return ask_yes_no(self, "Delete conversation", f"Delete “{title}” and its answers?\n\nThis cannot be "
                          "undone: Export… keeps a copy as markdown first.")

    def _export(self) -> None:
        current = self.selected()
        if current is None:
            return
        suggested = str(self.export_folder() / export_name(self.list.currentItem().toolTip()))
        path, _ = QFileDialog.getSaveFileName(self, "Export conversation as markdown", suggested, "Markdown (*.md)")
        if path:
            self.last_export_folder = Path(path).parent
            self.export_requested.emit(current, path)

    def export_folder(self) -> Path:
        """Where an export is offered: the folder of the last one, else Documents, else home (it was the folder
        RepoBot happened to be started from)."""
        documents = Path.home() / "Documents"
        return self.last_export_folder or (documents if documents.is_dir() else Path.home())


def export_name(title: str) -> str:
    """A file name for a conversation's export, from its title: its words joined by "-", at most 60 characters.

    >>> export_name("Does HTTPX follow redirects? (by default)"), export_name("httpx 支持 HTTP/3 吗？"), export_name("?!")
    ('Does-HTTPX-follow-redirects-by-default.md', 'httpx-支持-HTTP-3-吗.md', 'conversation.md')
    """
    words = re.findall(r"\w+", title)
    return "-".join(words)[:60].rstrip("-") + ".md" if words else "conversation.md"
