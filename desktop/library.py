"""The library: the folders RepoBot answers about, the models that read them, and their indexes, kept current.

It holds the collections (the bundled user guide first) and the settings that
name them, the models, each folder's ``Pipeline``, the last index report of
each folder, the folder watcher, and the conversation on screen (a folder's
conversations are kept with its index, so switching folders switches it).
Loading the models, indexing, embedding and reading ahead all run on the
Controller's one ``TaskRunner``; the Library tells what happened through
signals, which the window reaches through the Controller. It knows nothing of
asking: ``ready`` and ``stopped`` tell the Controller when a question waiting
for the models or an index may go.
"""

from __future__ import annotations

from pathlib import Path

from repobot.engine.config import default_corpus
from repobot.engine.errors import RepoBotError
from repobot.engine.load import window_folder_problem
from repobot.engine.pipeline import Pipeline
from repobot.engine.registry import ModelSet
from repobot.engine.store import writable_data_dir

from .conversation import Conversation
from .embedding import Embeddings
from .qt import QObject, Signal
from .reports import IndexReport, folder_name, index_report, searchable_text
from .settings import Settings, SettingsStore
from .tasks import BACKGROUND, Busy, TaskRunner
from .watch import FolderWatcher


class Library(QObject):
    """The collections, settings, models and indexes, with the background work that keeps them current."""

    status = Signal(str)
    error = Signal(str)  # "" clears it
    notice = Signal(str)  # news in the error's place, not a problem
    models_loading = Signal()
    models_ready = Signal(str)
    models_failed = Signal(str)
    progress = Signal(str, str, int, int)  # root, stage, done, total
    indexed = Signal(str, object)  # root, IndexReport
    index_failed = Signal(str)
    indexing = Signal(str)  # root
    collections_changed = Signal()
    ready = Signal()  # the models loaded or a folder was indexed (and said so): a waiting question may go
    stopped = Signal()  # indexing failed or was cancelled (and said so): a waiting question goes, or is dropped
    embedding_paused = Signal()  # Cancel stopped a folder's embedding, or its wait for another RepoBot's

    def __init__(self, tasks: TaskRunner, *, corpus: str | None = None, model: str | None = None,
                 store: SettingsStore | None = None, embedder: str | None = None, parent: QObject | None = None):
        super().__init__(parent)
        self.tasks = tasks
        self.store = store or SettingsStore()
        self.settings: Settings = self.store.load()
        if model:
            self.settings = self.settings._replace(model=model)
        self.bundled = str(default_corpus().resolve())
        if corpus:
            self._add(str(Path(corpus).expanduser().resolve()))
        self.models = ModelSet(self.settings.model or None, embedder)
        self.models_ok = False
        self.conversation = Conversation(lambda root: self.pipeline(root).collection.history, lambda: self.active,
                                         parent=self)
        self.conversation.error.connect(self.error)
        self.conversation.status.connect(self.status)
        self.indexed_reports: dict[str, IndexReport] = {}
        self.index_message = ""  # the problems of the last index shown, cleared when an index is clean
        self._pipelines: dict[str, Pipeline] = {}
        self.embeddings = Embeddings(tasks, self.pipeline, lambda root: root in self.collections, self.name, self)
        self.embeddings.progress.connect(self.progress)
        self.embeddings.embedded.connect(self._embedded)
        self.embeddings.status.connect(self.status)
        self.embeddings.paused.connect(self.embedding_paused)
        self.watcher = FolderWatcher(self)
        self.watcher.changed.connect(self.reindex_changed)

    def start(self) -> None:
        """Load the models in the background, index the active folder and list its conversations."""
        if self.store.problem:
            self.error.emit(self.store.problem)
        self.load_models()
        self.index(self.active)
        self.conversation.list()

    # -- collections ---------------------------------------------------------------------------
    def name(self, root: str) -> str:
        """A folder as the window names it (``reports.folder_name``)."""
        return folder_name(root, self.bundled)

    def standing(self) -> str:
        """What stays true of the active folder once other news is over (an answer done): that it is still embedded
        in the background, or nothing (the status bar went blank while the left pane still showed the embedding)."""
        return searchable_text(self.name(self.active), None) if self.embeddings.embedding(self.active) else ""

    @property
    def collections(self) -> list[str]:
        """Every folder listed: the bundled user guide first, then the added ones in the order they came."""
        return [self.bundled] + [c for c in self.settings.collections if c != self.bundled]

    @property
    def active(self) -> str:
        """The folder on screen (the user guide when the one saved is no longer listed)."""
        return self.settings.active if self.settings.active in self.collections else self.bundled

    def _add(self, folder: str) -> None:
        """List a folder (once) and make it active, in the settings only."""
        if folder != self.bundled and folder not in self.settings.collections:
            self.settings = self.settings._replace(collections=self.settings.collections + (folder,))
        self.settings = self.settings._replace(active=folder)

    def add_collection(self, folder: str) -> None:
        """Add a folder, make it active and index it (an empty folder shows its error)."""
        problem = window_folder_problem(folder)
        if problem:
            self.error.emit(problem)
            return
        self._add(str(Path(folder).expanduser().resolve()))
        self.save_settings()
        self.collections_changed.emit()
        self.index(self.active)

    def remove_collection(self, root: str) -> bool:
        """Forget a folder: its index is no longer used, and its files are no longer watched."""
        if root == self.bundled:
            self.error.emit("The bundled user guide cannot be removed.")
            return False
        was_active = self.active == root
        self.settings = self.settings._replace(
            collections=tuple(c for c in self.settings.collections if c != root),
            active="" if was_active else self.settings.active,
        )
        self.indexed_reports.pop(root, None)
        self._pipelines.pop(root, None)
        self.watcher.forget(root)
        self.embeddings.stop(root)
        self.save_settings()
        self.collections_changed.emit()
        if was_active:  # the user guide comes on screen, with a conversation of its own
            self.conversation.new()
            self.index(self.active)
        return True

    def set_active(self, root: str) -> None:
        """Put another listed folder on screen, with a new conversation, and bring its index up to date."""
        if root != self.active:
            self.settings = self.settings._replace(active=root)
            self.save_settings()
            self.collections_changed.emit()
            self.conversation.new()
            self.index(root)

    def save_settings(self, **changes) -> None:
        """Change the settings and save them; a failure to save is shown, and the changes hold for this session."""
        self.settings = self.settings._replace(**changes)
        try:
            self.store.save(self.settings)
        except OSError as err:
            self.error.emit(f"Settings could not be saved ({err.strerror}); check that {self.store.path.parent} is writable.")

    def save_panes(self, panes: tuple[int, ...]) -> None:
        """Keep the window's pane widths, written into the settings as they are on disk: another RepoBot window may
        have added a folder since this one read them, and closing this one must not drop it."""
        try:
            self.store.merge(self.settings, panes=panes)
        except OSError:  # closing: the widths are simply not kept
            pass

    def pipeline(self, root: str) -> Pipeline:
        """The folder's one ``Pipeline`` (its collection and the shared models), made when first asked for."""
        key = str(Path(root).resolve())
        if key not in self._pipelines:
            self._pipelines[key] = Pipeline(key, models=self.models)
        return self._pipelines[key]

    # -- models ------------------------------------------------------------------------------------
    def load_models(self) -> None:
        """Load the embedder and the chosen model on the worker, after any answer being written (which holds it)."""
        models, chosen = self.models, self.settings.model or None

        def work(_context):
            if models.llm_name != chosen:
                models.use_llm(chosen)
            _ = models.embedder
            name = models.llm.name
            _ = models.side_llm  # the second context, for rewrites and translations (registry.side_context)
            return name

        self.models_ok = False
        self.status.emit("Loading the models…")
        self.models_loading.emit()
        self.tasks.submit(Busy.LOADING, work, on_done=self._models_loaded, on_failed=self._models_failed)

    def choose_model(self, model: str) -> None:
        """Remember the model chosen and load it."""
        self.save_settings(model=model)
        self.load_models()

    def _models_loaded(self, name: str) -> None:
        """The models are in: say so, let a waiting question go, and read the active folder's prompts ahead."""
        self.models_ok = True
        if not self.tasks.waiting(Busy.INDEXING) and not self.tasks.waiting(Busy.EMBEDDING):
            self.status.emit(f"Ready — {name}")  # else the indexing or embedding news stays; the corner names the model
        self.models_ready.emit(name)
        self.ready.emit()
        self.prepare(self.active)

    def prepare(self, root: str) -> None:
        """While the user types, have the model read ahead what the active folder's prompts begin with
        (``Pipeline.preparing``): the first answer's first token then comes 2.4 s sooner. In the background: a
        question goes first, between its steps; Stop stops it. A failure here is met again, and shown, when a
        question is asked."""
        pipe = self.pipeline(root)

        def work(context):
            if self.models_ok:  # not after a model switch that failed meanwhile: that model is not loaded again
                yield from pipe.preparing(cancel=context.cancel)

        if self.models_ok and root == self.active and pipe.collection.loaded:
            self.tasks.submit(Busy.PREPARING, work, on_failed=lambda _message: None)

    def _models_failed(self, message: str) -> None:
        """Show why the models could not be loaded."""
        self.error.emit(message)
        self.status.emit("Models not loaded — see the message above")
        self.models_failed.emit(message)

    # -- indexing ----------------------------------------------------------------------------------
    def index(self, root: str) -> None:
        """Make a folder searchable (BM25, in seconds), then embed it in the background."""
        collection = self.pipeline(root).collection

        def work(context):
            report = collection.update(progress=lambda stage, done, total: context.emit((stage, done, total)),
                                       cancelled=context.cancelled, embed=False)
            return index_report(collection, report)

        self.embeddings.stop(root)  # embedding the index this replaces would save a stale one; others go on
        try:  # an index saved before still answers, but nothing new could be kept: said now, not after an answer
            writable_data_dir()
        except RepoBotError as err:
            self.error.emit(f"{err} Until then, answers are shown but not saved.")
        self.status.emit(f"Indexing {self.name(root)}…")
        self.indexing.emit(root)
        self.tasks.submit(Busy.INDEXING, work, on_event=lambda p: self.progress.emit(root, *p),
                          on_done=lambda report: self._indexed(root, report),
                          on_failed=lambda message: self._index_failed(root, message))

    def choose_languages(self, root: str, languages: list[str]) -> None:
        """Index only these languages of a translated tree from now on (remembered for the folder), then re-index."""
        try:
            self.pipeline(root).collection.choose_languages(languages)
        except RepoBotError as err:  # the data folder cannot be written: the choice and the index stay as they were
            self.error.emit(str(err))
            return
        self.index(root)

    def _embedded(self, root: str) -> None:
        """Every passage of the folder is embedded: its report says so."""
        report = self.indexed_reports.get(root)
        if report is not None:
            self.indexed_reports[root] = report._replace(pending=0)
            self.indexed.emit(root, self.indexed_reports[root])
        self.status.emit(f"{self.name(root)}: every passage is embedded; hybrid search covers the whole folder.")

    def _indexed(self, root: str, report: IndexReport) -> None:
        """A folder's index is up to date: show its report, watch its files, let a waiting question go, read ahead,
        then embed what the index still lacks."""
        if root not in self.collections:  # removed while it was being indexed
            return
        moved = self._moved_here(root)
        report = report._replace(notes=tuple(n for n in report.notes if n != moved))  # news, not a problem
        self.indexed_reports[root] = report
        self.watcher.watch(root, report.sources)
        if report.problems or report.notes:
            problems = f"{len(report.problems)} file(s) had problems: " + "; ".join(report.problems[:3])
            self.index_message = " ".join(((moved,) if moved else ()) + report.notes
                                          + ((problems,) if report.problems else ()))
            self.error.emit(self.index_message)
        elif self.index_message:  # a later index of the folder is clean: its old message goes
            self.index_message = ""
            self.error.emit("")
        if moved and not self.index_message:
            self.notice.emit(moved)
        self.indexed.emit(root, report)
        self.status.emit(searchable_text(self.name(root), report.pending))  # it said "Indexing …" until embedded
        self.ready.emit()
        self.prepare(root)  # before embedding, which would hold it back for minutes
        if report.pending:
            self.embeddings.start(root)

    def _moved_here(self, root: str) -> str:
        """A folder that moved to ``root`` brought its index and conversations (``Collection._adopt_moved``): its old
        place leaves the list and its conversations are listed. Returns what to tell the user, "" when nothing moved."""
        collection = self.pipeline(root).collection
        was, said = collection.moved_from, collection.moved_note
        if was is None:  # nothing came here; the folder may be told where its conversations went (news too)
            return said
        self._pipelines.pop(str(was), None)
        self.watcher.forget(str(was))
        self.settings = self.settings._replace(collections=tuple(c for c in self.settings.collections if c != str(was)))
        self.save_settings()
        self.collections_changed.emit()
        self.conversation.list()
        collection.moved_from = None  # said once (by ``_indexed``)
        return said

    def _index_failed(self, root: str, message: str) -> None:
        """Indexing failed or was cancelled: say so (the previous index, if any, is kept)."""
        self.error.emit(message)
        self.index_failed.emit(root)
        self.status.emit(f"Indexing {self.name(root)} stopped: see the message above.")  # not "Indexing …" still
        self.stopped.emit()

    # -- watched folders ----------------------------------------------------------------------------
    def reindex_changed(self, root: str) -> None:
        """Files changed in a watched folder: index it now, or once the foreground work is done."""
        if self.tasks.busy not in (Busy.IDLE, *BACKGROUND):  # background work gives way to indexing
            self.watcher.pending.add(root)
            self.watcher.later()
            return
        self.status.emit(f"Files changed in {self.name(root)}; updating the index…")
        self.index(root)

    def cancel_indexing(self) -> None:
        """Stop indexing and background embedding; what was embedded is kept and resumed next time."""
        self.tasks.cancel(Busy.INDEXING)
        self.embeddings.pause_all()
