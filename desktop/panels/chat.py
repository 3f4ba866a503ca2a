"""The chat panel: settings row, the conversation, the retrieved passages, the question box and its buttons."""

from __future__ import annotations

from pathlib import Path
from typing import NamedTuple

from repobot.engine.config import data_dir
from repobot.engine.languages import LANGUAGE_CHOICES, language
from repobot.engine.models import default_model_path, gguf_problem, list_models, missing_models
from repobot.engine.quote import Choice
from repobot.engine.retrieve import MODES

from ..qt import (
    QColor, QComboBox, QEvent, QFileDialog, QGuiApplication, QHBoxLayout, QLabel, QListWidget, QListWidgetItem,
    QPlainTextEdit, QPushButton, QSpinBox, QTextBrowser, QTextCursor, QTimer, QToolTip, QUrl, QVBoxLayout, QWidget, Qt,
    Signal,
)
from ..render import CODE_BACKGROUND, TURN, WRITING, answer_html, pending_html, streamed_html
from ..tasks import STOPPABLE, Busy
from .layout import on_enter

ROLE = Qt.ItemDataRole.UserRole
BROWSE = "__browse__"


ERROR_STYLE = "color:#cf222e; background:#ffebe9; padding:4px"
NOTICE_STYLE = "color:#0a3069; background:#ddf4ff; padding:4px"
STOP_TEXT = {Busy.INDEXING: "Stop indexing"}
STOP_TIPS = {Busy.ANSWERING: "Stop the answer being written (Esc): what it wrote is checked, and quotes are shown",
             Busy.INDEXING: "Stop indexing this folder (Esc): nothing indexed before is lost; Re-index to finish"}
PASSAGES = "Retrieved passages"
REDRAW_MS = 120  # the streamed text is redrawn at most this often (40 tokens/s: about 5 tokens a time)


class Pending(NamedTuple):
    """The answer being written: its question, the quotes shown meanwhile, the line above the streamed text, and
    that text so far."""

    question: str
    preview: Choice | None
    writing: str
    draft: str = ""


class ChatPanel(QWidget):
    ask_requested = Signal(str)
    stop_requested = Signal()
    copy_requested = Signal()
    settings_changed = Signal(int, str, str)  # k, mode, language
    model_chosen = Signal(str)  # "" for the default model
    link_clicked = Signal(str)  # cite:… and sent:… links of the conversation
    passage_clicked = Signal(object, object)  # root, Hit
    turn_read = Signal(int)  # the answer the reader moved into (-1: the one being written), whose passages to list

    def __init__(self, settings):
        super().__init__()
        self.model_combo = QComboBox()
        self.model_combo.setToolTip("The GGUF chat model (files in models/ or your data folder's models/)")
        # sized by a short name, not its longest entry (which made the panel 958 px at least); the list shows them whole
        self.model_combo.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
        self.model_combo.setMinimumContentsLength(16)
        self.fill_models(settings.model)
        self.model_combo.activated.connect(self._model_activated)
        self.k_spin = QSpinBox(minimum=1, maximum=20, value=settings.k)
        self.k_spin.setToolTip("Passages retrieved (k)")
        self.mode_combo = QComboBox()
        self.mode_combo.addItems(list(MODES))
        self.mode_combo.setCurrentText(settings.mode)
        self.lang_combo = QComboBox()
        self.lang_combo.addItems(list(LANGUAGE_CHOICES))
        self.lang_combo.setCurrentText(settings.language)
        self.k_spin.valueChanged.connect(self._settings_edited)
        self.mode_combo.currentTextChanged.connect(self._settings_edited)
        self.lang_combo.currentTextChanged.connect(self._settings_edited)

        self.banner = QLabel("")
        self.banner.setWordWrap(True)
        self.banner.setStyleSheet(ERROR_STYLE)
        self.banner.hide()
        self.conversation = QTextBrowser()
        self.conversation.setOpenLinks(False)
        self.conversation.anchorClicked.connect(lambda url: self.link_clicked.emit(url.toString()))
        self.conversation.highlighted.connect(self._hovered)
        self.conversation.cursorPositionChanged.connect(self._cursor_moved)
        self.reading: int | None = None  # the turn whose passages the list shows, once the reader moved into one
        # one stop for Tab (it stopped on every link of every answer before reaching the question); the passages
        # are reached by keyboard in the list below it
        self.conversation.setTextInteractionFlags(
            Qt.TextInteractionFlag.TextSelectableByMouse | Qt.TextInteractionFlag.TextSelectableByKeyboard
            | Qt.TextInteractionFlag.LinksAccessibleByMouse)
        self.conversation.setPlaceholderText(
            "Ask a question about the documents. Citations and sources open beside the answer.")
        self.hover_text = lambda link: ""  # set by the window: the reason shown for a hovered sentence
        self.retrieved_label = QLabel(PASSAGES)
        self.retrieved_list = QListWidget()
        self.retrieved_list.setMaximumHeight(120)
        self.retrieved_list.itemClicked.connect(lambda item: self.passage_clicked.emit(*item.data(ROLE)))
        on_enter(self.retrieved_list, lambda item: self.passage_clicked.emit(*item.data(ROLE)))
        self.question = QPlainTextEdit()
        self.question.setPlaceholderText("Ask a question (Enter sends, Shift+Enter for a new line)")
        self.question.setMaximumHeight(80)
        self.question.setTabChangesFocus(True)  # Tab moves on, as in any form (it typed a tab character)
        self.question.installEventFilter(self)
        self.ask_button = QPushButton("Ask")
        self.ask_button.clicked.connect(self.ask_from_box)
        self.ask_button.setEnabled(False)
        self.stop_button = QPushButton("Stop")
        self.stop_button.clicked.connect(self.stop_requested)
        self.stop_button.setEnabled(False)
        self.copy_button = QPushButton("Copy as markdown")
        self.copy_button.clicked.connect(self.copy_requested)
        self._layout()
        self.history_html = ""  # the finished turns, rendered once each
        self.redraw = QTimer(self, singleShot=True, interval=REDRAW_MS)  # the streamed text, drawn in batches
        self.redraw.timeout.connect(self._redraw_draft)
        self.draft_at = 0  # where the streamed text's block begins in the conversation's document
        self.conversation.document().setUndoRedoEnabled(False)  # the redraws are edits: no undo history piling up
        self.pending: Pending | None = None  # the answer being written

    def _layout(self) -> None:
        row = QHBoxLayout()
        for label, widget in (("Model", self.model_combo), ("k", self.k_spin), ("Mode", self.mode_combo),
                              ("Language", self.lang_combo)):
            row.addWidget(QLabel(label))
            row.addWidget(widget, 3 if widget is self.model_combo else 0)
        ask = QHBoxLayout()
        ask.addWidget(self.question, 1)
        buttons = QVBoxLayout()
        for button in (self.ask_button, self.stop_button, self.copy_button):
            buttons.addWidget(button)
        ask.addLayout(buttons)
        layout = QVBoxLayout(self)
        layout.addLayout(row)
        layout.addWidget(self.banner)
        layout.addWidget(self.conversation, 1)
        layout.addWidget(self.retrieved_label)
        layout.addWidget(self.retrieved_list)
        layout.addLayout(ask)

    # -- models and settings ------------------------------------------------------------------------
    def fill_models(self, current: str) -> None:
        self.model_combo.clear()
        self.model_combo.addItem("Qwen2.5-Coder-0.5B (default)", "")
        default = default_model_path().resolve()
        if current and Path(current).expanduser().resolve() == default:  # its file, as picking it saved before
            current = ""
        for m in (m for m in list_models() if m.path.resolve() != default):  # that file is the entry above
            known = f"{m.known.role} model, sha256 known" if m.known else "your own, not in the catalogue"
            self.model_combo.addItem(f"{m.path.name} — {m.size / 1e6:.0f} MB, {known}", str(m.path))
        for entry in missing_models():
            self.model_combo.addItem(f"{entry.name} — not installed: run `{entry.install}`", None)
            self.model_combo.model().item(self.model_combo.count() - 1).setEnabled(False)
        self.model_combo.addItem("Browse for a .gguf file…", BROWSE)
        if current and self.model_combo.findData(current) < 0:  # chosen from elsewhere, or unusable: shown as it is
            problem = gguf_problem(Path(current))
            what = f"cannot be used: {problem}" if problem else "your own, from its folder"
            self.model_combo.insertItem(1, f"{Path(current).name} — {what}", current)
        self.model_combo.setCurrentIndex(max(self.model_combo.findData(current), 0))
        view = self.model_combo.view()
        view.setMinimumWidth(view.sizeHintForColumn(0) + 2 * view.frameWidth())

    def _model_activated(self, index: int) -> None:
        data = self.model_combo.itemData(index)
        if data == BROWSE:
            path, _ = QFileDialog.getOpenFileName(self, "Choose a GGUF chat model", str(browse_folder()),
                                                  "GGUF models (*.gguf)")
            if not path:
                self.model_combo.setCurrentIndex(0)
                return
            data = path
            self.model_combo.insertItem(index, Path(path).name, path)
            self.model_combo.setCurrentIndex(index)
        self.model_chosen.emit(data)

    def _settings_edited(self, *_args) -> None:
        self.settings_changed.emit(self.k_spin.value(), self.mode_combo.currentText(), self.lang_combo.currentText())

    # -- state ----------------------------------------------------------------------------------------
    def set_busy(self, busy: Busy, models_ok: bool) -> None:
        self.ask_button.setEnabled(models_ok and busy is not Busy.ANSWERING)
        self.stop_button.setEnabled(busy in STOPPABLE)
        # it stops whatever runs: say which (beside Ask, "Stop" read as stopping an answer while a folder indexed)
        self.stop_button.setText(STOP_TEXT.get(busy, "Stop"))
        self.stop_button.setToolTip(STOP_TIPS.get(busy, ""))

    def show_error(self, message: str) -> None:
        self._show_banner(message, ERROR_STYLE)

    def show_notice(self, message: str) -> None:
        """News the user should see, not a problem (a moved folder's conversations came with it): the same place,
        in blue, until the next message."""
        self._show_banner(message, NOTICE_STYLE)

    def _show_banner(self, message: str, style: str) -> None:
        self.banner.setStyleSheet(style)
        self.banner.setText(message)
        self.banner.setVisible(bool(message))

    # -- the conversation -------------------------------------------------------------------------------
    def show_turns(self, turns, keep_place: bool = False) -> None:
        """Render the finished turns (answer, ids of sources changed since), and nothing pending: at their end, unless
        ``keep_place`` (an answer came in) and the reader had scrolled up."""
        self.history_html = "".join(answer_html(i, a, language(a.language).missing_label, changed)
                                    for i, (a, changed) in enumerate(turns))
        self.pending = None
        self.reading = None
        self.redraw.stop()
        self._set_html(self.history_html, keep_place)

    def begin(self, question: str) -> None:
        self.retrieved_list.clear()
        self.pending = Pending(question, None, WRITING)
        self._render_pending()
        self._to_end()  # a new question is always shown

    def show_preview(self, choice: Choice) -> None:
        """The quotes, on screen at once, in the place the answer will take."""
        if self.pending is not None:
            self.pending = self.pending._replace(preview=choice)
            self._render_pending()

    def show_drafting(self, label: str) -> None:
        """Say, above the text about to stream in, which language the model writes in when it is not the answer's."""
        if self.pending is not None and label != self.pending.writing:  # a second draft replaces the first one's text
            self.pending = self.pending._replace(writing=label, draft="")
            self._render_pending()

    def add_token(self, text: str) -> None:
        """A piece of the model's text: shown rendered (code as code) at the next redraw, a few times a second."""
        if self.pending is not None:
            self.pending = self.pending._replace(draft=self.pending.draft + text)
            if not self.redraw.isActive():
                self.redraw.start()

    def _redraw_draft(self) -> None:
        """The timer's redraw of the streamed text; put off while a mouse button is down in the conversation (a
        selection being dragged there was dropped by the redraw)."""
        if QGuiApplication.mouseButtons() != Qt.MouseButton.NoButton and self.conversation.viewport().underMouse():
            self.redraw.start()
            return
        self._draw_draft()

    def _render_pending(self) -> None:
        """The whole conversation with the answer being written at its end: the answers above, the quotes, the line
        over the streamed text, and that text."""
        if self.pending is None:
            return
        question, preview, writing, _ = self.pending
        self._set_html(self.history_html + pending_html(question, preview, writing), keep_place=True)  # a reader
        self.draft_at = self.conversation.document().lastBlock().position()  # scrolled up stays; the text's place
        self._draw_draft()

    def _draw_draft(self) -> None:
        """Replace the streamed text's block, and nothing above it: redrawing every answer on screen each time
        (setHtml) slowed the model's decoding from 39 to 31 tokens/s under 30 answers here."""
        if self.pending is None:
            return
        following = self._at_end()
        selection = self._selection()
        cursor = QTextCursor(self.conversation.document())
        cursor.setPosition(self.draft_at)
        cursor.movePosition(QTextCursor.MoveOperation.End, QTextCursor.MoveMode.KeepAnchor)
        cursor.insertHtml(streamed_html(self.pending.draft))
        if self.pending.draft.lstrip().startswith("```"):
            # insertHtml merged the code's first line into the block it replaced, which is not a code block (the
            # line wrapped, without its background): make that block one
            cursor.setPosition(self.draft_at)
            code = cursor.blockFormat()
            code.setNonBreakableLines(True)
            code.setBackground(QColor(CODE_BACKGROUND))
            cursor.setBlockFormat(code)
        if selection and max(selection[:2]) >= self.draft_at:  # in the text just replaced: put back by its numbers
            self._select(selection)
        if following:
            self._to_end()

    def _set_html(self, markup: str, keep_place: bool) -> None:
        """Show ``markup``; at its end, unless ``keep_place`` and the reader had scrolled up, who then stays put. Text
        the reader selected stays selected (the answers above are drawn again the same, so it is where it was)."""
        bar = self.conversation.verticalScrollBar()
        reading, kept = keep_place and not self._at_end(), bar.value()
        selection = self._selection()
        self.conversation.setHtml(markup)
        if selection:
            self._select(selection)
        if reading:
            bar.setValue(kept)
        else:
            self._to_end()

    def _selection(self) -> tuple[int, int, str] | None:
        """The reader's selection as numbers (anchor, position) and its text: the cursor itself follows the text it
        was in, which a redraw replaces."""
        selected = self.conversation.textCursor()
        return (selected.anchor(), selected.position(), selected.selectedText()) if selected.hasSelection() else None

    def _select(self, selection: tuple[int, int, str]) -> None:
        """Select the same place again, if it still holds the same text (a citation clicked in the streamed text
        was selected, and the checked answer then put its place round other words)."""
        last = self.conversation.document().characterCount() - 1
        cursor = QTextCursor(self.conversation.document())
        cursor.setPosition(min(selection[0], last))
        cursor.setPosition(min(selection[1], last), QTextCursor.MoveMode.KeepAnchor)
        if cursor.selectedText() != selection[2]:  # gone: no selection, and the cursor stays where the redraw left it
            cursor = self.conversation.textCursor()
            cursor.clearSelection()
        self.conversation.setTextCursor(cursor)

    def _at_end(self) -> bool:
        """Whether the conversation is scrolled to its end (within a line), so new text should stay in view."""
        bar = self.conversation.verticalScrollBar()
        return bar.value() >= bar.maximum() - 20

    def _to_end(self) -> None:
        if self.conversation.textCursor().hasSelection():  # scrolled there without moving it, which would drop it
            bar = self.conversation.verticalScrollBar()
            bar.setValue(bar.maximum())
            return
        self.conversation.moveCursor(QTextCursor.MoveOperation.End)
        self.conversation.ensureCursorVisible()

    def show_retrieved(self, root: Path, hits, of: str = "") -> None:
        """List the passages an answer was given; ``of``: the question of an earlier answer, when it is not the
        last one's."""
        self.retrieved_label.setText(f"{PASSAGES} for “{of}”" if of else PASSAGES)
        self.retrieved_list.clear()
        for h in hits:
            item = QListWidgetItem(f"[{h.rank}] {h.chunk.source} — {h.chunk.heading or '(top)'}  · {h.score:.4f}")
            item.setData(ROLE, (root, h))
            item.setToolTip(f"lines {h.chunk.start}–{h.chunk.end}")
            self.retrieved_list.addItem(item)

    def _cursor_moved(self) -> None:
        """The reader moved (click, keys) into another answer: list the passages that one was given, so that an
        earlier answer's sources are at hand by keyboard too. Moves the panel makes itself (redraws, following the
        text) happen while the focus is elsewhere, or land in the answer already listed."""
        if not self.conversation.hasFocus():
            return
        turn = turn_at(self.conversation.document(), self.conversation.textCursor().position())
        if turn is not None and turn != self.reading:
            self.reading = turn
            self.turn_read.emit(turn)

    def _hovered(self, url: QUrl) -> None:
        text = self.hover_text(url.toString())
        if text:
            QToolTip.showText(self.cursor().pos(), text, self.conversation)

    # -- the question box ---------------------------------------------------------------------------------
    def eventFilter(self, obj, event):  # noqa: N802 (Qt name)
        if obj is self.question and event.type() == QEvent.Type.KeyPress:
            enter = event.key() in (Qt.Key.Key_Return, Qt.Key.Key_Enter)
            if enter and not event.modifiers() & Qt.KeyboardModifier.ShiftModifier:
                self.ask_from_box()
                return True
        return super().eventFilter(obj, event)

    def ask_from_box(self) -> None:
        self.ask_requested.emit(self.question.toPlainText())


def turn_at(document, position: int) -> int | None:
    """The turn of the answer at ``position``: the last "Q:" anchor (``render.TURN``) at or before it."""
    block = document.findBlock(position)
    while block.isValid():
        turn, piece = None, block.begin()
        while not piece.atEnd():
            for name in piece.fragment().charFormat().anchorNames():
                if name.startswith(TURN):
                    turn = int(name[len(TURN):])
            piece += 1
        if turn is not None:
            return turn
        block = block.previous()
    return None


def browse_folder() -> Path:
    """Where Browse… starts: the data folder's ``models/`` (which the list reads too), else home; it started in the
    folder RepoBot happened to be run from."""
    models = data_dir() / "models"
    return models if models.is_dir() else Path.home()
