"""The main window: collections and files on the left, the conversation in the middle, the viewer on the right.

The window only draws and forwards: every model call goes to the EngineWorker
in its own thread, and its answers come back as signals.
"""

from __future__ import annotations

from pathlib import Path

from repobot.desktop.qt import (
    QComboBox, QDesktopServices, QEvent, QFileDialog, QFileSystemWatcher, QTimer, QGuiApplication, QHBoxLayout, QKeySequence,
    QLabel, QLineEdit, QListWidget, QListWidgetItem, QMainWindow, QMessageBox, QPlainTextEdit, QProgressBar,
    QPushButton, QShortcut, QSpinBox, QSplitter, QTextBrowser, QTextCursor, QThread, QToolTip,
    QTreeWidget, QTreeWidgetItem, QUrl, QVBoxLayout, QWidget, Qt, Signal,
)
from repobot.desktop.render import answer_html, conversation_markdown, document_html, heading_lines, streaming_html
from repobot.desktop.worker import EngineWorker
from repobot.engine.config import default_corpus
from repobot.engine.load import find_markdown
from repobot.engine.models import list_models
from repobot.engine.settings import Settings, SettingsStore

ROLE = Qt.ItemDataRole.UserRole
REMOTE_SCHEMES = ("http", "https", "ftp", "mailto")


def inside(root: Path, path: Path) -> bool:
    """True when ``path`` (resolved) lies inside ``root``: a tampered index cannot open /etc/passwd."""
    root, path = root.resolve(), path.resolve()
    return path == root or root in path.parents


class DocViewer(QTextBrowser):
    """A markdown viewer that never loads anything remote and never follows links by itself."""

    def __init__(self):
        super().__init__()
        self.setOpenLinks(False)
        self.setOpenExternalLinks(False)

    def loadResource(self, kind, url):  # noqa: N802 (Qt name)
        if url.scheme() in REMOTE_SCHEMES:
            return None
        return super().loadResource(kind, url)


class MainWindow(QMainWindow):
    request_load = Signal()
    request_model = Signal(str)
    request_index = Signal(str)
    request_ask = Signal(str, str, dict)

    def __init__(self, *, corpus: str | None = None, model: str | None = None, store: SettingsStore | None = None,
                 embedder=None, llm=None):
        super().__init__()
        self.setWindowTitle("RepoBot")
        self.resize(1500, 900)
        self.store = store or SettingsStore()
        self.settings: Settings = self.store.load()
        if model:
            self.settings = self.settings._replace(model=model)
        self.bundled = str(default_corpus().resolve())
        if corpus:
            corpus = str(Path(corpus).expanduser().resolve())
            if corpus != self.bundled and corpus not in self.settings.collections:
                self.settings = self.settings._replace(collections=self.settings.collections + (corpus,))
            self.settings = self.settings._replace(active=corpus)
        self.turns: list[dict] = []
        self.pending_question = ""  # asked while indexing: sent once the index is complete
        self.retrieved: list[dict] = []
        self.busy = ""  # "", "index", "ask"
        self.models_ok = False
        self.current_file: tuple[Path, str] | None = None  # (root, source) in the viewer
        self.indexed: dict[str, dict] = {}
        self.confirm_external = self._confirm_external
        self.watcher = QFileSystemWatcher(self)
        self.watcher.directoryChanged.connect(self._folder_changed)
        self.watcher.fileChanged.connect(self._folder_changed)
        self.changed_roots: set[str] = set()
        self.rescan = QTimer(self, singleShot=True, interval=1000)
        self.rescan.timeout.connect(self._reindex_changed)
        self._build()
        self._start_worker(self.settings.model, embedder=embedder, llm=llm)
        if self.store.problem:
            self.show_error(self.store.problem)

    # -- construction ------------------------------------------------------------------
    def _build(self) -> None:
        # left: collections, files, headings
        self.tree = QTreeWidget()
        self.tree.setHeaderHidden(True)
        self.tree.itemClicked.connect(self._tree_clicked)
        self.tree.itemExpanded.connect(self._tree_expanded)
        self.filter_box = QLineEdit(placeholderText="Filter files…")
        self.filter_box.textChanged.connect(self._apply_filter)
        self.add_button = QPushButton("Add folder…")
        self.add_button.clicked.connect(self._choose_folder)
        self.remove_button = QPushButton("Remove")
        self.remove_button.clicked.connect(self._remove_selected)
        self.reindex_button = QPushButton("Re-index")
        self.reindex_button.clicked.connect(lambda: self.index(self.active))
        self.index_progress = QProgressBar()
        self.index_progress.setFormat("%p%")
        self.index_label = QLabel("")
        self.index_cancel = QPushButton("Cancel")
        self.index_cancel.clicked.connect(self.cancel)
        self.index_cancel.setEnabled(False)
        left = QWidget()
        lay = QVBoxLayout(left)
        lay.addWidget(QLabel("<b>Collections</b>"))
        lay.addWidget(self.filter_box)
        lay.addWidget(self.tree, 1)
        row = QHBoxLayout()
        for b in (self.add_button, self.remove_button, self.reindex_button):
            row.addWidget(b)
        lay.addLayout(row)
        lay.addWidget(self.index_label)
        prow = QHBoxLayout()
        prow.addWidget(self.index_progress, 1)
        prow.addWidget(self.index_cancel)
        lay.addLayout(prow)

        # middle: settings, conversation, retrieved, question
        self.model_combo = QComboBox()
        self.model_combo.setToolTip("The GGUF chat model (files in models/ or your data folder's models/)")
        self._fill_models()
        self.model_combo.activated.connect(self._model_chosen)
        self.k_spin = QSpinBox(minimum=1, maximum=20, value=self.settings.k)
        self.k_spin.setToolTip("Passages retrieved (k)")
        self.mode_combo = QComboBox()
        self.mode_combo.addItems(["hybrid", "bm25", "dense"])
        self.mode_combo.setCurrentText(self.settings.mode)
        self.lang_combo = QComboBox()
        self.lang_combo.addItems(["auto", "en", "zh", "fr"])
        self.lang_combo.setCurrentText(self.settings.language)
        for w in (self.k_spin,):
            w.valueChanged.connect(self._save_settings)
        for w in (self.mode_combo, self.lang_combo):
            w.currentTextChanged.connect(self._save_settings)
        settings_row = QHBoxLayout()
        for label, widget in (("Model", self.model_combo), ("k", self.k_spin), ("Mode", self.mode_combo), ("Language", self.lang_combo)):
            settings_row.addWidget(QLabel(label))
            settings_row.addWidget(widget, 3 if widget is self.model_combo else 0)

        self.banner = QLabel("")
        self.banner.setWordWrap(True)
        self.banner.setStyleSheet("color:#cf222e; background:#ffebe9; padding:4px")
        self.banner.hide()
        self.chat = QTextBrowser()
        self.chat.setOpenLinks(False)
        self.chat.anchorClicked.connect(self._chat_link)
        self.chat.highlighted.connect(self._chat_hover)
        self.chat.setPlaceholderText("Ask a question about the documents. Citations and sources open beside the answer.")
        self.retrieved_list = QListWidget()
        self.retrieved_list.setMaximumHeight(120)
        self.retrieved_list.itemClicked.connect(lambda item: self.open_passage(item.data(ROLE)))
        self.question = QPlainTextEdit()
        self.question.setPlaceholderText("Ask a question (Enter sends, Shift+Enter for a new line)")
        self.question.setMaximumHeight(80)
        self.question.installEventFilter(self)
        self.ask_button = QPushButton("Ask")
        self.ask_button.clicked.connect(self.ask_from_box)
        self.ask_button.setEnabled(False)
        self.stop_button = QPushButton("Stop")
        self.stop_button.clicked.connect(self.cancel)
        self.stop_button.setEnabled(False)
        self.copy_button = QPushButton("Copy as markdown")
        self.copy_button.clicked.connect(self.copy_conversation)
        middle = QWidget()
        mlay = QVBoxLayout(middle)
        mlay.addLayout(settings_row)
        mlay.addWidget(self.banner)
        mlay.addWidget(self.chat, 1)
        mlay.addWidget(QLabel("Retrieved passages"))
        mlay.addWidget(self.retrieved_list)
        qrow = QHBoxLayout()
        qrow.addWidget(self.question, 1)
        brow = QVBoxLayout()
        for b in (self.ask_button, self.stop_button, self.copy_button):
            brow.addWidget(b)
        qrow.addLayout(brow)
        mlay.addLayout(qrow)

        # right: the document viewer
        self.viewer_title = QLabel("No document open")
        self.find_box = QLineEdit(placeholderText="Find in document…")
        self.find_box.returnPressed.connect(self.find_next)
        self.viewer = DocViewer()
        self.viewer.anchorClicked.connect(self._viewer_link)
        right = QWidget()
        rlay = QVBoxLayout(right)
        rlay.addWidget(self.viewer_title)
        rlay.addWidget(self.find_box)
        rlay.addWidget(self.viewer, 1)

        self.splitter = QSplitter()
        for w in (left, middle, right):
            self.splitter.addWidget(w)
        self.splitter.setSizes([300, 650, 550])
        self.setCentralWidget(self.splitter)
        self.status = QLabel("Starting…")
        self.statusBar().addWidget(self.status, 1)
        self.setTabOrder(self.question, self.ask_button)
        self.setTabOrder(self.ask_button, self.stop_button)
        QShortcut(QKeySequence("Ctrl+Return"), self, activated=self.ask_from_box)
        QShortcut(QKeySequence("Escape"), self, activated=self.cancel)
        QShortcut(QKeySequence("Ctrl+L"), self, activated=self.question.setFocus)
        QShortcut(QKeySequence.StandardKey.Find, self, activated=self.find_box.setFocus)
        self._fill_tree()

    def _start_worker(self, model: str, **fakes) -> None:
        self.thread = QThread(self)
        self.worker = EngineWorker(model or None, **fakes)
        self.worker.moveToThread(self.thread)
        self.request_load.connect(self.worker.load_models)
        self.request_model.connect(self.worker.set_model)
        self.request_index.connect(self.worker.index)
        self.request_ask.connect(self.worker.ask)
        self.worker.status.connect(self.status.setText)
        self.worker.models_ready.connect(self._models_ready)
        self.worker.failed.connect(self._failed)
        self.worker.progress.connect(self._progress)
        self.worker.indexed.connect(self._indexed)
        self.worker.retrieved.connect(self._retrieved)
        self.worker.token.connect(self._token)
        self.worker.answered.connect(self._answered)
        self.thread.start()
        self.request_load.emit()
        self.index(self.active)

    def closeEvent(self, event):  # noqa: N802
        self.worker.cancel()
        self.thread.quit()
        self.thread.wait(5000)
        super().closeEvent(event)

    # -- collections ---------------------------------------------------------------------
    @property
    def collections(self) -> list[str]:
        return [self.bundled] + [c for c in self.settings.collections if c != self.bundled]

    @property
    def active(self) -> str:
        return self.settings.active if self.settings.active in self.collections else self.bundled

    def _fill_tree(self) -> None:
        self.tree.clear()
        for root in self.collections:
            name = "RepoBot user guide" if root == self.bundled else "/".join(Path(root).parts[-2:])
            item = QTreeWidgetItem([("● " if root == self.active else "") + name])
            item.setToolTip(0, root)
            item.setData(0, ROLE, ("collection", root))
            self.tree.addTopLevelItem(item)
            self._fill_files(item, root)
            if root == self.active:
                item.setExpanded(True)

    def _fill_files(self, item: QTreeWidgetItem, root: str) -> None:
        item.takeChildren()
        report = self.indexed.get(root)
        sources = report["sources"] if report else self._list_sources(root)
        for source in sources:
            child = QTreeWidgetItem([source])
            child.setData(0, ROLE, ("file", root, source))
            child.setChildIndicatorPolicy(QTreeWidgetItem.ChildIndicatorPolicy.ShowIndicator)
            item.addChild(child)

    @staticmethod
    def _list_sources(root: str) -> list[str]:
        try:
            return [p.relative_to(Path(root).resolve()).as_posix() for p in find_markdown(Path(root))]
        except (OSError, ValueError):
            return []

    def _tree_expanded(self, item: QTreeWidgetItem) -> None:
        data = item.data(0, ROLE)
        if data[0] != "file" or item.childCount():
            return
        path = Path(data[1]) / data[2]
        try:
            text = path.read_text(encoding="utf-8", errors="replace")
        except OSError as err:
            self.show_error(f"Cannot read {data[2]}: {err.strerror}.")
            return
        for level, line, title in heading_lines(text):
            child = QTreeWidgetItem(["  " * (level - 1) + title])
            child.setData(0, ROLE, ("heading", data[1], data[2], line))
            item.addChild(child)
        item.setChildIndicatorPolicy(QTreeWidgetItem.ChildIndicatorPolicy.DontShowIndicatorWhenChildless)

    def _tree_clicked(self, item: QTreeWidgetItem) -> None:
        data = item.data(0, ROLE)
        if data[0] == "collection":
            if data[1] != self.active:
                self.settings = self.settings._replace(active=data[1])
                self._save_settings()
                self._fill_tree()
                self.index(data[1])
        elif data[0] == "file":
            self.open_file(Path(data[1]), data[2])
        elif data[0] == "heading":
            self.open_file(Path(data[1]), data[2], anchor=f"L{data[3]}")

    def _apply_filter(self, text: str) -> None:
        text = text.lower().strip()
        for i in range(self.tree.topLevelItemCount()):
            top = self.tree.topLevelItem(i)
            for j in range(top.childCount()):
                child = top.child(j)
                child.setHidden(bool(text) and text not in child.text(0).lower())
            if text:
                top.setExpanded(True)

    def _choose_folder(self) -> None:
        folder = QFileDialog.getExistingDirectory(self, "Add a documentation folder")
        if folder:
            self.add_collection(folder)

    def add_collection(self, folder: str) -> None:
        """Add a folder, make it active and index it (an empty folder shows its error)."""
        folder = str(Path(folder).expanduser().resolve())
        if folder not in self.collections:
            self.settings = self.settings._replace(collections=self.settings.collections + (folder,))
        self.settings = self.settings._replace(active=folder)
        self._save_settings()
        self._fill_tree()
        self.index(folder)

    def _remove_selected(self) -> None:
        item = self.tree.currentItem()
        while item is not None and item.parent() is not None:
            item = item.parent()
        if item is None:
            return
        root = item.data(0, ROLE)[1]
        if root == self.bundled:
            self.show_error("The bundled user guide cannot be removed.")
            return
        self.settings = self.settings._replace(
            collections=tuple(c for c in self.settings.collections if c != root),
            active="" if self.active == root else self.settings.active,
        )
        self._save_settings()
        self._fill_tree()

    # -- indexing ----------------------------------------------------------------------------
    def index(self, root: str) -> None:
        self.busy = "index"
        self.index_progress.setValue(0)
        self.index_label.setText(f"Indexing {Path(root).name}…")
        self.index_cancel.setEnabled(True)
        self.ask_button.setEnabled(False)
        self.request_index.emit(root)

    def _progress(self, root: str, stage: str, done: int, total: int) -> None:
        verb = "Reading" if stage == "chunk" else "Embedding"
        unit = "files" if stage == "chunk" else "chunks"
        self.index_label.setText(f"{verb} {done}/{total} {unit} — {Path(root).name}")
        # reading files is the first 10%, embedding the other 90%
        share = done / total if total else 1.0
        self.index_progress.setValue(int(10 * share) if stage == "chunk" else 10 + int(90 * share))

    def _indexed(self, root: str, report: dict) -> None:
        self.indexed[root] = report
        self.busy = ""
        self.index_progress.setValue(100)
        self.index_cancel.setEnabled(False)
        changed = f"+{report['added']} ~{report['updated']} −{report['removed']}"
        self.index_label.setText(f"{report['files']} files, {report['chunks']} chunks ({changed}) in {report['seconds']:.1f} s")
        problems = report["problems"] + report["notes"]
        if problems:
            self.show_error(f"{len(problems)} file(s) had problems: " + "; ".join(problems[:3]))
        else:
            self.clear_error()
        self._fill_tree()
        self._update_ask_button()
        self._watch(root)
        if self.changed_roots:
            self.rescan.start()
        if self.pending_question and self.models_ok:
            question, self.pending_question = self.pending_question, ""
            self.ask(question)

    # -- watched folders ---------------------------------------------------------------------
    def _watch(self, root: str) -> None:
        """Watch the folder, its subfolders and its markdown files, so edits are picked up."""
        base = Path(root)
        paths = [str(base)] + [str(base / s) for s in self.indexed[root]["sources"]]
        paths += [str(p) for p in base.rglob("*") if p.is_dir() and not any(part.startswith(".") for part in p.relative_to(base).parts)]
        new = sorted(set(paths) - set(self.watcher.directories()) - set(self.watcher.files()))
        if new:
            self.watcher.addPaths(new)

    def _folder_changed(self, path: str) -> None:
        for root in self.indexed:
            if path == root or path.startswith(root.rstrip("/") + "/"):
                self.changed_roots.add(root)
        if self.changed_roots:
            self.rescan.start()  # wait for a quiet second: editors save in several steps

    def _reindex_changed(self) -> None:
        if self.busy:
            self.rescan.start()
            return
        root = self.changed_roots.pop()
        self.status.setText(f"Files changed in {Path(root).name}; updating the index…")
        self.index(root)

    # -- models and settings ------------------------------------------------------------------
    def _fill_models(self) -> None:
        self.model_combo.clear()
        self.model_combo.addItem("Default model (SmolLM2-135M-Instruct)", "")
        for m in list_models():
            known = "sha256 known" if m.known else "sha256 not in catalogue"
            self.model_combo.addItem(f"{m.path.name} — {m.size / 1e6:.0f} MB, {known}", str(m.path))
        self.model_combo.addItem("Browse for a .gguf file…", "__browse__")
        index = self.model_combo.findData(self.settings.model)
        self.model_combo.setCurrentIndex(max(index, 0))

    def _model_chosen(self, index: int) -> None:
        data = self.model_combo.itemData(index)
        if data == "__browse__":
            path, _ = QFileDialog.getOpenFileName(self, "Choose a GGUF chat model", "", "GGUF models (*.gguf)")
            if not path:
                self.model_combo.setCurrentIndex(max(self.model_combo.findData(self.settings.model), 0))
                return
            data = path
            self.model_combo.insertItem(index, Path(path).name, path)
            self.model_combo.setCurrentIndex(index)
        self.choose_model(data)

    def choose_model(self, model: str) -> None:
        self.settings = self.settings._replace(model=model)
        self._save_settings()
        self.models_ok = False
        self._update_ask_button()
        self.request_model.emit(model)

    def _models_ready(self, name: str) -> None:
        self.models_ok = True
        self.status.setText(f"Ready — {name}")
        self._update_ask_button()
        if self.pending_question and not self.busy:
            question, self.pending_question = self.pending_question, ""
            self.ask(question)

    def _save_settings(self, *_args) -> None:
        self.settings = self.settings._replace(
            k=self.k_spin.value() if hasattr(self, "k_spin") else self.settings.k,
            mode=self.mode_combo.currentText() if hasattr(self, "mode_combo") else self.settings.mode,
            language=self.lang_combo.currentText() if hasattr(self, "lang_combo") else self.settings.language,
        )
        try:
            self.store.save(self.settings)
        except OSError as err:
            self.show_error(f"Settings could not be saved ({err.strerror}); check that {self.store.path.parent} is writable.")

    def _update_ask_button(self) -> None:
        self.ask_button.setEnabled(self.models_ok and not self.busy)

    # -- asking ---------------------------------------------------------------------------------
    def eventFilter(self, obj, event):  # noqa: N802
        if obj is self.question and event.type() == QEvent.Type.KeyPress:
            if event.key() in (Qt.Key.Key_Return, Qt.Key.Key_Enter) and not event.modifiers() & Qt.KeyboardModifier.ShiftModifier:
                self.ask_from_box()
                return True
        return super().eventFilter(obj, event)

    def ask_from_box(self) -> None:
        text = self.question.toPlainText()
        if self.ask(text):
            self.question.clear()

    def ask(self, question: str) -> bool:
        """Send a question to the worker; False (with a message) when it cannot be asked now."""
        if not question.strip():
            self.show_error("Type a question first.")
            return False
        if self.busy == "index":
            self.pending_question = question
            self.status.setText("Indexing is in progress: your question will be asked on the updated index when it ends.")
            return True
        if self.busy:
            self.show_error("Please wait: RepoBot is still answering the previous question (Esc stops it).")
            return False
        if not self.models_ok:
            self.pending_question = question
            self.status.setText("The models are still loading: your question will be asked as soon as they are ready.")
            return True
        self.clear_error()
        self.busy = "ask"
        self._update_ask_button()
        self.stop_button.setEnabled(True)
        self.retrieved_list.clear()
        self.chat.setHtml(self._turns_html() + streaming_html(question))
        self.chat.moveCursor(QTextCursor.MoveOperation.End)
        options = {"k": self.k_spin.value(), "mode": self.mode_combo.currentText(), "language": self.lang_combo.currentText()}
        self.request_ask.emit(self.active, question, options)
        return True

    def _turns_html(self) -> str:
        return "".join(answer_html(i, t) for i, t in enumerate(self.turns))

    def _retrieved(self, hits: list) -> None:
        self.retrieved = hits
        self.retrieved_list.clear()
        for h in hits:
            item = QListWidgetItem(f"[{h['id']}] {h['source']} — {h['heading'] or '(top)'}  · {h['score']:.4f}")
            item.setData(ROLE, h)
            item.setToolTip(f"lines {h['lines'][0]}–{h['lines'][1]}")
            self.retrieved_list.addItem(item)

    def _token(self, text: str) -> None:
        cursor = self.chat.textCursor()
        cursor.movePosition(QTextCursor.MoveOperation.End)
        cursor.insertText(text)
        self.chat.setTextCursor(cursor)
        self.chat.ensureCursorVisible()

    def _answered(self, data: dict) -> None:
        data["retrieved_hits"] = self.retrieved
        self.turns.append(data)
        self.busy = ""
        self.stop_button.setEnabled(False)
        self._update_ask_button()
        self.chat.setHtml(self._turns_html())
        self.chat.moveCursor(QTextCursor.MoveOperation.End)
        self.chat.ensureCursorVisible()

    def cancel(self) -> None:
        """Stop the running job (generation or indexing) at its next step."""
        if self.busy:
            self.worker.cancel()
            self.status.setText("Stopping…")

    def _failed(self, job: str, message: str) -> None:
        self.show_error(message)
        if job == "models":
            self.status.setText("Models not loaded — see the message above")
        if job == "index":
            self.index_cancel.setEnabled(False)
            self.index_label.setText("Indexing stopped")
        if job in ("index", "ask"):
            self.busy = ""
            self.stop_button.setEnabled(False)
            self.chat.setHtml(self._turns_html())
        self._update_ask_button()

    def show_error(self, message: str) -> None:
        self.banner.setText(message)
        self.banner.show()

    def clear_error(self) -> None:
        self.banner.clear()
        self.banner.hide()

    def copy_conversation(self) -> None:
        QGuiApplication.clipboard().setText(conversation_markdown(self.turns))
        self.status.setText("Conversation copied as markdown")

    # -- links and the viewer -----------------------------------------------------------------
    def _chat_link(self, url: QUrl) -> None:
        text = url.toString()
        if text.startswith("cite:"):
            _, turn, pid = text.split(":")
            self.open_citation(int(turn), int(pid))
        elif text.startswith("sent:"):
            _, turn, index = text.split(":")
            sentence = self._sentence(int(turn), int(index))
            if sentence and (sentence["cited"] or sentence["suggested"]):
                self.open_citation(int(turn), (sentence["cited"] or [sentence["suggested"]])[0])

    def _sentence(self, turn: int, index: int) -> dict | None:
        data = self.turns[turn]
        items = data["final_sentences"] if index >= 1000 else data["sentences"]
        index = index - 1000 if index >= 1000 else index
        return items[index] if 0 <= index < len(items) else None

    def _chat_hover(self, url: QUrl) -> None:
        text = url.toString()
        if text.startswith("sent:"):
            _, turn, index = text.split(":")
            sentence = self._sentence(int(turn), int(index))
            if sentence:
                QToolTip.showText(self.cursor().pos(), f"{sentence['status']}: {sentence['reason']}", self.chat)

    def open_citation(self, turn: int, pid: int) -> bool:
        hits = self.turns[turn].get("retrieved_hits") or []
        hit = next((h for h in hits if h["id"] == pid), None)
        if hit is None:
            self.show_error(f"[{pid}] is not one of the passages given to the model (it cites a source that does not exist).")
            return False
        return self.open_passage(hit)

    def open_source(self, n: int) -> bool:
        """Click source n of the last answer (scripting and tests)."""
        if not self.turns:
            return False
        sources = self.turns[-1]["sources"]
        if not 1 <= n <= len(sources):
            self.show_error(f"There is no source {n}: the answer lists {len(sources)}.")
            return False
        return self.open_citation(len(self.turns) - 1, sources[n - 1]["id"])

    def open_passage(self, hit: dict) -> bool:
        return self.open_file(Path(hit["root"]), hit["source"], lines=tuple(hit["lines"]))

    def open_file(self, root: Path, source: str, *, lines: tuple[int, int] | None = None, anchor: str | None = None) -> bool:
        path = root / source
        if not inside(root, path):
            self.show_error(f"Refused to open {source}: it lies outside the indexed folder {root}.")
            return False
        try:
            text = path.read_text(encoding="utf-8", errors="replace")
        except OSError as err:
            self.show_error(f"Cannot open {source}: {err.strerror or err}. Re-index the folder if it changed.")
            return False
        self.current_file = (root, source)
        self.viewer.setHtml(document_html(text, lines))
        span = f" — lines {lines[0]}–{lines[1]}" if lines else ""
        self.viewer_title.setText(f"<b>{source}</b>{span}")
        target = "hl" if lines else anchor
        if target:
            self.viewer.scrollToAnchor(target)
        else:
            self.viewer.moveCursor(QTextCursor.MoveOperation.Start)
        return True

    def _viewer_link(self, url: QUrl) -> None:
        if url.scheme() in REMOTE_SCHEMES:
            if self.confirm_external(url):
                QDesktopServices.openUrl(url)
            return
        if self.current_file is None:
            return
        root, source = self.current_file
        target = url.path()
        if not target:  # a link within the page
            self.viewer.scrollToAnchor(url.fragment())
            return
        resolved = (root / source).parent / target
        try:
            relative = resolved.resolve().relative_to(root.resolve()).as_posix()
        except ValueError:
            self.show_error(f"Refused to open {target}: it lies outside the indexed folder.")
            return
        if not resolved.suffix:
            relative += ".md" if not resolved.is_dir() else "/index.md"
        self.open_file(root, relative)

    def _confirm_external(self, url: QUrl) -> bool:
        answer = QMessageBox.question(
            self, "Open in your browser?",
            f"This link leaves RepoBot and uses the network:\n{url.toString()}\n\nOpen it in your web browser?",
        )
        return answer == QMessageBox.StandardButton.Yes

    def find_next(self) -> None:
        text = self.find_box.text()
        if not text:
            return
        if not self.viewer.find(text):
            self.viewer.moveCursor(QTextCursor.MoveOperation.Start)
            if not self.viewer.find(text):
                self.status.setText(f"“{text}” is not in this document")
