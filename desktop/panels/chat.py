"""The chat panel: settings row, the conversation (``answers.AnswerView``), the retrieved passages, the question box
and its buttons."""

from __future__ import annotations

from pathlib import Path
from repobot.engine.config import data_dir
from repobot.engine.languages import LANGUAGE_CHOICES
from repobot.engine.models import default_model_path, gguf_problem, list_models, missing_models
from repobot.engine.retrieve import MODES

from ..qt import (
    QComboBox, QEvent, QFileDialog, QHBoxLayout, QLabel, QListWidget, QListWidgetItem, QPlainTextEdit, QPushButton,
    QSpinBox, QVBoxLayout, QWidget, Qt, Signal,
)
from ..labels import passage_rows
from ..tasks import STOPPABLE, Busy
from .answers import AnswerView
from .layout import on_enter

ROLE = Qt.ItemDataRole.UserRole
BROWSE = "__browse__"


ERROR_STYLE = "color:#cf222e; background:#ffebe9; padding:4px"
NOTICE_STYLE = "color:#0a3069; background:#ddf4ff; padding:4px"
STOP_TEXT = {Busy.INDEXING: "Stop indexing", Busy.EMBEDDING: "Pause embedding"}
STOP_TIPS = {Busy.ANSWERING: "Stop the answer being written (Esc): what it wrote is checked, and quotes are shown",
             Busy.INDEXING: "Stop indexing this folder (Esc): nothing indexed before is lost; Re-index to finish",
             Busy.EMBEDDING: "Pause embedding this folder in the background, as Cancel in the left pane does: it stays "
                             "searchable by words and keeps what is embedded; Re-index to go on"}
STOPS = (*STOPPABLE, Busy.EMBEDDING)  # what the button stops: Esc's, and the long embedding after indexing
PASSAGES = "Retrieved passages"


class ChatPanel(QWidget):
    ask_requested = Signal(str)
    stop_requested = Signal()
    copy_requested = Signal()
    settings_changed = Signal(int, str, str)  # k, mode, language
    model_chosen = Signal(str)  # "" for the default model
    passage_clicked = Signal(object, object)  # root, Hit

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
        self.conversation = AnswerView()
        self.retrieved_label = QLabel(PASSAGES)
        self.retrieved_label.setToolTip("Best first; [n] is the number the answer cites. Click or Enter opens one.")
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

    def answer_focus(self) -> list[QWidget]:
        """The chat's widgets Tab goes through first: the question, its buttons, the conversation, its passages."""
        return [self.question, self.ask_button, self.stop_button, self.copy_button, self.conversation,
                self.retrieved_list]

    def settings_focus(self) -> list[QWidget]:
        """The settings row, which Tab reaches last (set once, seldom changed)."""
        return [self.model_combo, self.k_spin, self.mode_combo, self.lang_combo]

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
        self.stop_button.setEnabled(busy in STOPS)
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

    # -- the conversation and its passages --------------------------------------------------------------
    def begin(self, question: str) -> None:
        """A question asked: the passages of the last answer go, and the question is shown at once."""
        self.retrieved_list.clear()
        self.conversation.begin(question)

    def show_retrieved(self, root: Path, hits, of: str = "") -> None:
        """List the passages an answer was given; ``of``: the question of an earlier answer, when it is not the
        last one's."""
        self.retrieved_label.setText(f"{PASSAGES} for “{of}”" if of else PASSAGES)
        self.retrieved_list.clear()
        for row in passage_rows(hits):
            item = QListWidgetItem(row.label)
            item.setData(ROLE, (root, row.hit))
            item.setToolTip(row.tip)
            self.retrieved_list.addItem(item)

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


def browse_folder() -> Path:
    """Where Browse… starts: the data folder's ``models/`` (which the list reads too), else home; it started in the
    folder RepoBot happened to be run from."""
    models = data_dir() / "models"
    return models if models.is_dir() else Path.home()
