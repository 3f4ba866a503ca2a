"""The main window: collections on the left, the chat in the middle, the viewer on the right, wired to the controller.

The window holds no state of its own: the controller has it, the panels draw it,
and every model call runs in the controller's one background task thread.
"""

from __future__ import annotations

from pathlib import Path

from repobot.engine.export import conversation_markdown

from .controller import Controller
from .panels.chat import ChatPanel
from .panels.collections import CollectionsPanel
from .panels.viewer import ViewerPanel
from .qt import QGuiApplication, QKeySequence, QLabel, QMainWindow, QShortcut, QSplitter
from .settings import SettingsStore


class MainWindow(QMainWindow):
    def __init__(self, *, corpus: str | None = None, model: str | None = None, store: SettingsStore | None = None,
                 embedder: str | None = None):
        super().__init__()
        self.setWindowTitle("RepoBot")
        self.resize(1500, 900)
        self.controller = c = Controller(corpus=corpus, model=model, store=store, embedder=embedder, parent=self)
        self.collections = CollectionsPanel(c.bundled)
        self.chat = ChatPanel(c.settings)
        self.viewer = ViewerPanel()
        self.splitter = QSplitter()
        for panel in (self.collections, self.chat, self.viewer):
            self.splitter.addWidget(panel)
        self.splitter.setSizes([300, 650, 550])
        self.setCentralWidget(self.splitter)
        self.status = QLabel("Starting…")
        self.statusBar().addWidget(self.status, 1)
        self._wire(c)
        self.show_collections()
        c.start()

    def _wire(self, c: Controller) -> None:
        c.status.connect(self.status.setText)
        for source in (c.error, self.collections.error, self.viewer.error):
            source.connect(self.chat.show_error)
        self.viewer.status.connect(self.status.setText)
        c.busy_changed.connect(lambda busy: self.chat.set_busy(busy, c.models_ok))
        c.models_ready.connect(lambda _name: self.chat.set_busy(c.busy, True))
        c.collections_changed.connect(self.show_collections)
        c.indexing.connect(self.collections.indexing)
        c.progress.connect(self.collections.show_progress)
        c.indexed.connect(lambda root, report: (self.collections.show_indexed(report), self.show_collections()))
        c.index_failed.connect(lambda _root: self.collections.show_stopped())
        c.asking.connect(self.chat.begin)
        c.retrieved.connect(self.chat.show_retrieved)
        c.preview.connect(self.chat.show_preview)
        c.token.connect(self.chat.add_token)
        c.answered.connect(lambda _turn: self.chat.show_turns([t.answer for t in c.turns]))
        c.ask_failed.connect(lambda: self.chat.show_turns([t.answer for t in c.turns]))
        self.collections.add_requested.connect(c.add_collection)
        self.collections.remove_requested.connect(c.remove_collection)
        self.collections.activate_requested.connect(c.set_active)
        self.collections.reindex_requested.connect(lambda: c.index(c.active))
        self.collections.cancel_requested.connect(c.cancel)
        self.collections.open_requested.connect(lambda root, source, anchor: self.viewer.open_file(root, source, anchor=anchor or None))
        self.chat.ask_requested.connect(self.ask)
        self.chat.stop_requested.connect(c.cancel)
        self.chat.copy_requested.connect(self.copy_conversation)
        self.chat.settings_changed.connect(lambda k, mode, lang: c.save_settings(k=k, mode=mode, language=lang))
        self.chat.model_chosen.connect(c.choose_model)
        self.chat.link_clicked.connect(self.open_link)
        self.chat.passage_clicked.connect(lambda root, hit: self.open_hit(root, hit))
        self.chat.hover_text = c.link_reason
        QShortcut(QKeySequence("Ctrl+Return"), self, activated=self.chat.ask_from_box)
        QShortcut(QKeySequence("Escape"), self, activated=c.cancel)
        QShortcut(QKeySequence("Ctrl+L"), self, activated=self.chat.question.setFocus)
        QShortcut(QKeySequence.StandardKey.Find, self, activated=self.viewer.find_box.setFocus)

    def show_collections(self) -> None:
        c = self.controller
        self.collections.show_collections(c.collections, c.active, {r: rep.sources for r, rep in c.indexed_reports.items()})

    def ask(self, question: str) -> bool:
        """Ask from the question box; it is cleared once the question is accepted."""
        accepted = self.controller.ask(question)
        if accepted:
            self.chat.question.clear()
        return accepted

    def open_link(self, link: str) -> bool:
        """A citation or a sentence of the conversation: open its passage beside the answer."""
        found = self.controller.link_target(link)
        if found is None:
            return False
        return self.open_hit(*found)

    def open_hit(self, root: Path, hit) -> bool:
        return self.viewer.open_file(root, hit.chunk.source, lines=(hit.chunk.start, hit.chunk.end))

    def open_source(self, n: int) -> bool:
        """Click source n of the last answer (scripting and tests)."""
        found = self.controller.source_target(n)
        return found is not None and self.open_hit(*found)

    def copy_conversation(self) -> None:
        QGuiApplication.clipboard().setText(conversation_markdown([t.answer for t in self.controller.turns]))
        self.status.setText("Conversation copied as markdown")

    def closeEvent(self, event):  # noqa: N802 (Qt name)
        self.controller.shutdown()
        super().closeEvent(event)

