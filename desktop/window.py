"""The main window: collections on the left, the chat in the middle, the viewer on the right, wired to the controller.

The window holds no state of its own: the controller has it, the panels draw it,
and every model call runs in the controller's one background task thread.
"""

from __future__ import annotations

from pathlib import Path

from repobot.engine.export import conversation_markdown

from .controller import ANSWERING, STOPPING, Controller
from .conversation import source_changed
from .panels.chat import ChatPanel
from .panels.collections import CollectionsPanel
from .panels.history import HistoryPanel
from .panels.layout import tab_order
from .panels.viewer import ViewerPanel
from .labels import reason_text
from .qt import QGuiApplication, QKeySequence, QLabel, QMainWindow, QShortcut, QSize, QSplitter, Qt, offscreen
from .settings import SettingsStore


class MainWindow(QMainWindow):
    def __init__(self, *, corpus: str | None = None, model: str | None = None, store: SettingsStore | None = None,
                 embedder: str | None = None):
        super().__init__()
        self.setWindowTitle("RepoBot")
        self.controller = c = Controller(corpus=corpus, model=model, store=store, embedder=embedder, parent=self)
        self.collections = CollectionsPanel(c.bundled)
        self.history = HistoryPanel()
        self.chat = ChatPanel(c.settings)
        self.viewer = ViewerPanel()
        left = QSplitter(Qt.Orientation.Vertical)
        left.addWidget(self.collections)
        left.addWidget(self.history)
        self.splitter = QSplitter()
        for panel in (left, self.chat, self.viewer):
            self.splitter.addWidget(panel)
        self.setCentralWidget(self.splitter)
        self.fit_screen(panes=c.settings.panes)
        self.status = QLabel("Starting…")  # news, replaced by the next
        self.statusBar().addWidget(self.status, 1)
        self.model_state = QLabel()  # the model's state, which stays in view whatever news comes after
        self.statusBar().addPermanentWidget(self.model_state)
        self._wire(c)
        self._tab_order()
        self.show_collections()
        self.chat.question.setFocus()  # a new window is for asking (it opened in the file filter)
        c.start()

    def _wire(self, c: Controller) -> None:
        c.status.connect(self.status.setText)
        for source in (c.error, self.collections.error, self.viewer.error):
            source.connect(self.chat.show_error)
        c.notice.connect(self.chat.show_notice)
        self.viewer.status.connect(self.status.setText)
        c.busy_changed.connect(lambda busy: self.chat.set_busy(busy, c.models_ok))
        c.models_ready.connect(lambda _name: self.chat.set_busy(c.busy, True))
        c.models_loading.connect(lambda: self.show_model_state("Model: loading…"))
        c.models_ready.connect(lambda name: self.show_model_state(f"Model: {name}"))
        c.models_failed.connect(lambda message: self.show_model_state("Model not loaded", message))
        c.collections_changed.connect(self.show_collections)
        c.indexing.connect(self.collections.indexing)
        c.progress.connect(self.collections.show_progress)
        c.indexed.connect(lambda root, report: (self.collections.show_indexed(report, root), self.show_collections()))
        c.index_failed.connect(self.collections.show_stopped)
        c.embedding_paused.connect(self.collections.show_paused)
        c.asking.connect(self.chat.begin)
        c.retrieved.connect(self.chat.show_retrieved)
        c.preview.connect(self.chat.conversation.show_preview)
        c.drafting.connect(self.chat.conversation.show_drafting)
        c.token.connect(self.chat.conversation.add_token)
        # "Answering…" becomes what is done with the draft; news from meanwhile, or "Stopping…", stays
        c.checking.connect(lambda label: self.status.text() in (ANSWERING, label) and self.status.setText(label))
        c.answered.connect(lambda _turn: self.show_turns(keep_place=True))
        c.ask_failed.connect(lambda: self.show_turns(keep_place=True))
        for done in (c.answered, c.ask_failed):  # "Answering…", "Checking…" or "Stopping…" is over (news stays)
            done.connect(lambda *_: self.status.text() in (ANSWERING, STOPPING, c.answering)
                         and self.status.setText(c.standing()))
        c.conversation.loaded.connect(self.show_turns)
        c.conversation.changed.connect(self.history.show_conversations)
        self.history.open_requested.connect(c.conversation.open)
        self.history.new_requested.connect(c.conversation.new)
        self.history.rename_requested.connect(c.conversation.rename)
        self.history.delete_requested.connect(c.conversation.delete)
        self.history.export_requested.connect(c.conversation.export)
        self.history.search_changed.connect(c.conversation.list)
        self.collections.add_requested.connect(c.add_collection)
        self.collections.remove_requested.connect(c.remove_collection)
        self.collections.activate_requested.connect(c.set_active)
        self.collections.reindex_requested.connect(lambda: c.index(c.active))
        self.collections.languages_chosen.connect(lambda codes: c.choose_languages(c.active, codes))
        self.collections.cancel_requested.connect(c.cancel_indexing)
        self.collections.open_requested.connect(lambda root, source, anchor: self.viewer.open_file(root, source, anchor=anchor or None))
        self.chat.ask_requested.connect(self.ask)
        self.chat.stop_requested.connect(c.stop)
        self.chat.copy_requested.connect(self.copy_conversation)
        self.chat.settings_changed.connect(lambda k, mode, lang: c.save_settings(k=k, mode=mode, language=lang))
        self.chat.model_chosen.connect(c.choose_model)
        self.chat.conversation.link_clicked.connect(self.open_link)
        self.chat.passage_clicked.connect(lambda root, hit: self.open_hit(root, hit))
        self.chat.conversation.turn_read.connect(self.show_passages_of)
        self.chat.conversation.hover_text = lambda link: reason_text(c.conversation.reason(link))
        QShortcut(QKeySequence("Ctrl+Return"), self, activated=self.chat.ask_from_box)
        QShortcut(QKeySequence("Escape"), self, activated=c.cancel)
        QShortcut(QKeySequence("Ctrl+L"), self, activated=self.chat.question.setFocus)
        QShortcut(QKeySequence.StandardKey.Find, self, activated=self.viewer.focus_find)
        QShortcut(QKeySequence.StandardKey.New, self, activated=self.new_conversation)

    def _tab_order(self) -> None:
        """Tab from the question: its buttons, the conversation, its passages, the viewer, the left pane, and the
        settings row last, then the question again (it went through the viewer and the left pane before the settings
        row, in the order the widgets were made)."""
        tab_order(*self.chat.answer_focus(), *self.viewer.focus_order(), *self.collections.focus_order(),
                  *self.history.focus_order(), *self.chat.settings_focus(), self.chat.question)

    def fit_screen(self, wanted: QSize = QSize(1500, 900), panes: tuple[int, ...] = ()) -> None:
        """Open at ``wanted``, or at the screen's free area when that is smaller (a 1366 x 768 laptop), so that the
        viewer is never off the screen's edge; the three panes share it as they did when the window was last closed
        (``panes``), else 1 : 2.2 : 1.8."""
        screen = self.screen()
        area = screen.availableGeometry().size() if screen is not None and not offscreen() else wanted
        size = wanted.boundedTo(area).expandedTo(self.minimumSizeHint())
        self.resize(size)
        shares = panes if len(panes) == 3 and sum(panes) > 0 else (1, 2.2, 1.8)
        self.splitter.setSizes([round(size.width() * share / sum(shares)) for share in shares])

    def show_model_state(self, text: str, problem: str = "") -> None:
        """The status bar's lasting corner: which model answers, or that none can (in red, the reason on hover)."""
        self.model_state.setText(text)
        self.model_state.setStyleSheet("color: #b00020; font-weight: bold;" if problem else "")
        self.model_state.setToolTip(problem)

    def show_collections(self) -> None:
        c = self.controller
        self.collections.show_collections(c.collections, c.active, {r: rep.sources for r, rep in c.indexed_reports.items()})
        report = c.indexed_reports.get(c.active)
        self.collections.show_languages(dict(report.available) if report else {}, report.languages if report else ())

    def show_turns(self, keep_place: bool = False) -> None:
        """The conversation's answers, and under them the passages the last one was given (none in a new one);
        ``keep_place``: an answer came in, and a reader scrolled up stays where they are."""
        conversation = self.controller.conversation
        turns = conversation.turns
        self.chat.conversation.show_turns([(t.answer, conversation.changed_sources(i)) for i, t in enumerate(turns)],
                                          keep_place)
        last = turns[-1] if turns else None
        self.chat.show_retrieved(last.root if last else Path(), last.answer.retrieved if last else [])

    def show_passages_of(self, turn: int) -> None:
        """The passages of the answer the reader moved into (-1: the one being written), under the conversation."""
        conversation = self.controller.conversation
        if turn == -1:
            self.chat.show_retrieved(conversation.live.root, conversation.live.hits)
        elif 0 <= turn < len(conversation.turns):
            shown = conversation.turns[turn]
            last = turn == len(conversation.turns) - 1 and self.chat.conversation.pending is None
            self.chat.show_retrieved(shown.root, shown.answer.retrieved, "" if last else shown.answer.question)

    def new_conversation(self) -> None:
        """Ctrl+N: a new conversation, and the question box ready for its first question."""
        self.controller.conversation.new()
        self.chat.question.setFocus()

    def ask(self, question: str) -> bool:
        """Ask from the question box; it is cleared once the question is accepted."""
        accepted = self.controller.ask(question)
        if accepted:
            self.chat.question.clear()
        return accepted

    def open_link(self, link: str) -> bool:
        """A citation or a sentence of the conversation: open its passage beside the answer."""
        found = self.controller.conversation.target(link)
        return found is not None and self.open_hit(*found)

    def open_hit(self, root: Path, hit) -> bool:
        """The passage's file beside the answer, at its lines; a file changed since the answer opens as it is now."""
        changed = source_changed(root, hit)
        opened = self.viewer.open_file(root, hit.chunk.source, lines=(hit.chunk.start, hit.chunk.end))
        sizes = self.splitter.sizes()
        if opened and sizes[2] == 0:  # dragged shut: the file would open out of sight
            self.splitter.setSizes([sizes[0], round(sizes[1] * 0.55), sizes[1] - round(sizes[1] * 0.55)])
        if opened and changed:
            self.viewer.title.setText(self.viewer.title.text() + " — <i>changed since this answer</i>")
        return opened

    def open_source(self, n: int) -> bool:
        """Click source n of the last answer (scripting and tests)."""
        found = self.controller.conversation.source_target(n)
        return found is not None and self.open_hit(*found)

    def copy_conversation(self) -> None:
        QGuiApplication.clipboard().setText(conversation_markdown([t.answer for t in self.controller.turns]))
        self.status.setText("Conversation copied as markdown")

    def closeEvent(self, event):  # noqa: N802 (Qt name)
        if self.isVisible():  # the panes as the user left them, for the next start
            self.controller.save_panes(tuple(self.splitter.sizes()))
        self.hide()  # gone at once, even while the worker finishes a step it cannot cut (a model loading)
        self.controller.shutdown()
        super().closeEvent(event)

