"""The collections panel: folders, their markdown files and headings; add, remove, re-index, choose the languages
of a translated tree, with progress."""

from __future__ import annotations

from pathlib import Path
from typing import NamedTuple, Sequence

from repobot.engine.load import read_markdown

from ..qt import (
    QCheckBox, QDialog, QDialogButtonBox, QFileDialog, QHBoxLayout, QLabel, QLineEdit, QProgressBar,
    QPushButton, QSizePolicy, QTreeWidget, QTreeWidgetItem, QVBoxLayout, QWidget, Qt, Signal,
)
from ..document import heading_lines
from ..reports import folder_name
from .layout import PATH_ROLE, PathDelegate, ask_yes_no, button_grid

ROLE = Qt.ItemDataRole.UserRole
LANGUAGE_NAMES = {
    "en": "English", "zh": "Chinese", "ja": "Japanese", "fr": "French", "de": "German", "es": "Spanish",
    "pt": "Portuguese", "ru": "Russian", "ko": "Korean", "hi": "Hindi", "it": "Italian", "tr": "Turkish",
    "uk": "Ukrainian", "pl": "Polish", "vi": "Vietnamese", "id": "Indonesian", "fa": "Persian", "ar": "Arabic",
    "he": "Hebrew", "nl": "Dutch", "bn": "Bengali", "em": "Emoji",
}


# the second part of a regional code, as the loader knows them (engine/load.py)
VARIANTS = {"hans": "Simplified", "hant": "Traditional", "cn": "China", "tw": "Taiwan", "hk": "Hong Kong",
            "br": "Brazil", "pt": "Portugal", "mx": "Mexico", "us": "US", "gb": "UK", "ca": "Canada"}


def language_label(code: str, pages: int) -> str:
    """How a language of a translated tree is offered.

    >>> language_label("zh", 1234), language_label("xx", 1), language_label("zh-hant", 125)
    ('Chinese (zh) — 1,234 pages', 'xx — 1 page', 'Chinese, Traditional (zh-hant) — 125 pages')
    """
    base, _, variant = code.partition("-")
    name = LANGUAGE_NAMES.get(code) or (
        f"{LANGUAGE_NAMES[base]}, {VARIANTS[variant]}" if base in LANGUAGE_NAMES and variant in VARIANTS else None)
    return f"{f'{name} ({code})' if name else code} — {pages:,} page{'s' if pages != 1 else ''}"


def index_summary(report) -> str:
    """What indexing a folder did, in the window's words (it said "12 files, 56 chunks (+23 ~0 −0)").

    >>> from repobot.desktop.reports import IndexReport
    >>> report = IndexReport(23, 56, 1.23, 23, 0, 0, 0, [], [])
    >>> index_summary(report)
    '23 files, 56 passages; 23 files added, in 1.2 s'
    >>> index_summary(report._replace(added=0, updated=1, removed=2, languages=("en", "zh")))
    '23 files, 56 passages; 1 file changed, 2 removed, in 1.2 s · languages en, zh'
    >>> index_summary(report._replace(added=0, files=1))
    '1 file, 56 passages; nothing changed, in 1.2 s'
    """
    done = [(n, what) for n, what in ((report.added, "added"), (report.updated, "changed"), (report.removed, "removed"))
            if n]
    changes = ", ".join(f"{files(n) if i == 0 else f'{n:,}'} {what}" for i, (n, what) in enumerate(done))
    languages = f" · languages {', '.join(report.languages)}" if report.languages else ""
    return f"{files(report.files)}, {report.chunks:,} passages; {changes or 'nothing changed'}, in {report.seconds:.1f} s{languages}"


def files(n: int) -> str:
    """A count of files, in words.

    >>> files(1), files(1234)
    ('1 file', '1,234 files')
    """
    return f"{n:,} file{'s' if n != 1 else ''}"


class LanguagesDialog(QDialog):
    """Which languages of a translated tree to index: one box each, at least one ticked."""

    def __init__(self, parent: QWidget, available: dict[str, int], selected: Sequence[str]):
        super().__init__(parent)
        self.setWindowTitle("Languages to index")
        layout = QVBoxLayout(self)
        layout.addWidget(QLabel("This folder is a translated tree. Index the languages you read; a question in\n"
                                "another language still finds its page's English original."))
        self.boxes: dict[str, QCheckBox] = {}
        for code, pages in sorted(available.items(), key=lambda item: (item[0] != "en", item[0])):
            box = QCheckBox(language_label(code, pages))
            box.setChecked(code in selected)
            box.toggled.connect(self._update)
            layout.addWidget(box)
            self.boxes[code] = box
        self.buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel)
        self.buttons.accepted.connect(self.accept)
        self.buttons.rejected.connect(self.reject)
        layout.addWidget(self.buttons)
        self._update()

    def chosen(self) -> list[str]:
        return [code for code, box in self.boxes.items() if box.isChecked()]

    def _update(self) -> None:
        self.buttons.button(QDialogButtonBox.StandardButton.Ok).setEnabled(bool(self.chosen()))


class Entry(NamedTuple):
    """What a row of the tree stands for."""

    kind: str  # collection, file or heading
    root: str
    source: str = ""
    line: int = 0


class CollectionsPanel(QWidget):
    add_requested = Signal(str)  # folder
    remove_requested = Signal(str)  # root
    activate_requested = Signal(str)  # root
    reindex_requested = Signal()
    languages_chosen = Signal(list)  # the language codes to index in the active folder
    cancel_requested = Signal()
    open_requested = Signal(object, str, str)  # root Path, source, anchor ("" for the top)
    error = Signal(str)

    def __init__(self, bundled: str):
        super().__init__()
        self.bundled = bundled
        self.tree = QTreeWidget()
        self.tree.setHeaderHidden(True)
        # a long path (FastAPI's en/docs/tutorial/security/…) keeps its file name in view; whole on hover
        self.tree.setItemDelegate(PathDelegate(self.tree))
        self.tree.itemClicked.connect(self._clicked)
        self.tree.itemExpanded.connect(self._expanded)
        self.filter_box = QLineEdit(placeholderText="Filter files…")
        self.filter_box.textChanged.connect(self.apply_filter)
        self.add_button = QPushButton("Add folder…")
        self.add_button.clicked.connect(self.choose_folder)
        self.remove_button = QPushButton("Remove")
        self.remove_button.clicked.connect(self._remove_selected)
        self.reindex_button = QPushButton("Re-index")
        self.reindex_button.clicked.connect(self.reindex_requested)
        self.languages_button = QPushButton("Languages…")
        self.languages_button.setToolTip("Only for a translated tree: choose the languages to index")
        self.languages_button.clicked.connect(self.choose_languages)
        self.languages_button.setEnabled(False)
        self._available: dict[str, int] = {}
        self._indexing: set[str] = set()  # the folders being indexed, whose files are not listed yet
        self._selected: tuple[str, ...] = ()
        self.progress = QProgressBar()
        self.progress.setFormat("%p%")
        self.label = QLabel("")
        self.label.setWordWrap(True)  # long news ("Searchable now (by words); embedding 3,731 passages…") wraps
        self.label.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)  # and never widens the panel
        self.cancel_button = QPushButton("Cancel")
        self.cancel_button.clicked.connect(self.cancel_requested)
        self.cancel_button.setEnabled(False)
        layout = QVBoxLayout(self)
        layout.addWidget(QLabel("<b>Collections</b>"))
        layout.addWidget(self.filter_box)
        layout.addWidget(self.tree, 1)
        layout.addLayout(button_grid(self.add_button, self.remove_button, self.reindex_button, self.languages_button))
        layout.addWidget(self.label)
        bar = QHBoxLayout()
        bar.addWidget(self.progress, 1)
        bar.addWidget(self.cancel_button)
        layout.addLayout(bar)

    def focus_order(self) -> list[QWidget]:
        """Tab's way through the panel, top to bottom."""
        return [self.filter_box, self.tree, self.add_button, self.remove_button, self.reindex_button,
                self.languages_button, self.cancel_button]

    # -- showing ---------------------------------------------------------------------------------
    def show_collections(self, collections: list[str], active: str, sources: dict[str, list[str]]) -> None:
        self.tree.clear()
        for root in collections:
            name = self.name(root)
            item = QTreeWidgetItem([("● " if root == active else "") + name])
            item.setToolTip(0, root)
            item.setData(0, ROLE, Entry("collection", root))
            self.tree.addTopLevelItem(item)
            if root not in sources:  # listing a folder is the indexer's work, off this thread
                hint = QTreeWidgetItem([self._hint(root)])
                hint.setData(0, ROLE, Entry("collection", root))
                item.addChild(hint)
            for source in sources.get(root, []):
                child = QTreeWidgetItem([source])
                child.setToolTip(0, str(Path(root) / source))
                child.setData(0, PATH_ROLE, True)
                child.setData(0, ROLE, Entry("file", root, source))
                child.setChildIndicatorPolicy(QTreeWidgetItem.ChildIndicatorPolicy.ShowIndicator)
                item.addChild(child)
            item.setExpanded(root == active)
        self.apply_filter(self.filter_box.text())

    def name(self, root: str) -> str:
        """A folder as the tree and the progress line name it: the guide by its title, others by their last two parts."""
        return folder_name(root, self.bundled)

    def _hint(self, root: str) -> str:
        """What a folder whose files are not listed yet shows in their place."""
        if root in self._indexing:
            return "Indexing: its files are listed here once it is searchable"
        return "Not opened yet: click to index and list its files"

    def indexing(self, root: str) -> None:
        self.progress.setValue(0)
        self.label.setText(f"Indexing {self.name(root)}…")
        self.cancel_button.setEnabled(True)
        self._indexing.add(root)
        self._show_hints()

    def _show_hints(self) -> None:
        for i in range(self.tree.topLevelItemCount()):
            top = self.tree.topLevelItem(i)
            first = top.child(0) if top.childCount() == 1 else None
            if first is not None and first.data(0, ROLE) == Entry("collection", top.data(0, ROLE).root):  # a hint
                first.setText(0, self._hint(top.data(0, ROLE).root))

    def show_progress(self, root: str, stage: str, done: int, total: int) -> None:
        name = self.name(root)
        if stage == "chunk":
            self.label.setText(f"Reading {done:,}/{total:,} files — {name}")
        elif stage == "searchable":
            self.label.setText(f"Searchable — {name}; embedding {done:,} / {total:,}")
        elif stage == "wait":  # searchable by words meanwhile; its embeddings come from the other RepoBot
            self.label.setText(f"Searchable — {name}; another RepoBot is embedding it: waiting to use its work")
            self.cancel_button.setEnabled(True)
            return
        else:
            self.label.setText(f"Searchable — {name}; embedding {done:,} / {total:,} passages")
            self.cancel_button.setEnabled(True)
        share = done / total if total else 1.0  # reading files is the first 10%, embedding the other 90%
        self.progress.setValue(int(10 * share) if stage == "chunk" else 10 + int(90 * share))

    def show_indexed(self, report, root: str = "") -> None:
        self._indexing.discard(root)
        text = index_summary(report)
        if report.pending:
            self.label.setText(f"Searchable now (by words); embedding {report.pending:,} passages in the background — {text}")
            return
        self.progress.setValue(100)
        self.cancel_button.setEnabled(False)
        self.label.setText(text)

    def show_stopped(self, root: str = "") -> None:
        self.cancel_button.setEnabled(False)
        self.label.setText("Indexing stopped")
        self._indexing.discard(root)  # another folder queued meanwhile is still to be indexed
        self._show_hints()

    def show_paused(self) -> None:
        self.cancel_button.setEnabled(False)
        self.label.setText("Embedding paused: searchable by words; Re-index to embed")

    def apply_filter(self, text: str) -> None:
        text = text.lower().strip()
        for i in range(self.tree.topLevelItemCount()):
            top = self.tree.topLevelItem(i)
            for j in range(top.childCount()):
                child = top.child(j)
                child.setHidden(bool(text) and text not in child.text(0).lower())
            if text:
                top.setExpanded(True)

    def show_languages(self, available: dict[str, int], selected: Sequence[str]) -> None:
        """The active folder's languages: the button is there only when it is a translated tree."""
        self._available, self._selected = dict(available), tuple(selected)
        self.languages_button.setEnabled(len(self._available) > 1)
        indexed = ", ".join(selected) if selected else "all"
        self.languages_button.setToolTip(f"Languages indexed: {indexed}. Choose which to index"
                                         if len(self._available) > 1 else "Only for a translated tree")

    # -- user actions ------------------------------------------------------------------------------
    def choose_languages(self) -> None:
        dialog = LanguagesDialog(self, self._available, self._selected)
        if dialog.exec() == QDialog.DialogCode.Accepted and dialog.chosen():
            if sorted(dialog.chosen()) != sorted(self._selected):
                self.languages_chosen.emit(dialog.chosen())

    def choose_folder(self) -> None:
        folder = QFileDialog.getExistingDirectory(self, "Add a documentation folder")
        if folder:
            self.add_requested.emit(folder)

    def _remove_selected(self) -> None:
        item = self.tree.currentItem()
        while item is not None and item.parent() is not None:
            item = item.parent()
        if item is None:
            self.error.emit("Select a collection to remove.")
            return
        root = item.data(0, ROLE).root
        if root != self.bundled and not self.confirm_removal(root):
            return
        self.remove_requested.emit(root)

    def confirm_removal(self, root: str) -> bool:
        """Ask before a folder leaves the list (it was removed at once, conversations and all, off the screen)."""
        return ask_yes_no(self, "Remove folder", f"Remove {self.name(root)} from RepoBot?\n\nNothing on disk is "
                          "deleted: add the folder again to have its index and conversations back.")

    def _clicked(self, item: QTreeWidgetItem) -> None:
        entry: Entry = item.data(0, ROLE)
        if entry.kind == "collection":
            self.activate_requested.emit(entry.root)
        else:
            self.open_requested.emit(Path(entry.root), entry.source, f"L{entry.line}" if entry.line else "")

    def _expanded(self, item: QTreeWidgetItem) -> None:
        entry: Entry = item.data(0, ROLE)
        if entry.kind != "file" or item.childCount():
            return
        text, problem = read_markdown(Path(entry.root) / entry.source)
        if text is None:
            self.error.emit(f"Cannot read {entry.source}: {problem.removeprefix('skipped: ')}.")
            return
        for level, line, title in heading_lines(text):
            child = QTreeWidgetItem(["  " * (level - 1) + title])
            child.setToolTip(0, title)
            child.setData(0, ROLE, Entry("heading", entry.root, entry.source, line))
            item.addChild(child)
        item.setChildIndicatorPolicy(QTreeWidgetItem.ChildIndicatorPolicy.DontShowIndicatorWhenChildless)

