"""The controller: the one object the window talks to, and no widgets.

It asks the questions: it sends them to the folder's pipeline on the one
``TaskRunner`` (a question asked while the folder is indexed or the models
load waits for them), streams the answer's progress to the panels and keeps
the answer in the conversation it was asked in. The collections, the
settings, the models and the indexes are the ``Library``'s (library.py): the
Controller owns it and lends the window its signals and names.
Everything it does can be driven from a test without a window.
"""

from __future__ import annotations

from repobot.engine.pipeline import AskOptions, Checking, Done, Drafting, Preview, Retrieved, Token

from .conversation import Live, Ticket, Turn
from .library import Library
from .qt import QObject, Signal
from .settings import SettingsStore
from .tasks import Busy, TaskRunner


def _library(name: str) -> property:
    """A name of the Library's, read through the Controller: the window, the app and the tests use it here."""
    return property(lambda self: getattr(self.library, name), doc=f"``Library.{name}``, read through the Controller.")


ANSWERING = "Answering…"  # the status while an answer is written; the window clears it once the answer is in
STOPPING = "Stopping…"  # the same after Stop, until the answer is in (a stopped answer says "Stopped: …")


class Controller(QObject):
    """Asks the questions, and is the window's way to the Library's collections, models and indexes."""

    asking = Signal(str)  # the question, as it is sent to the model
    retrieved = Signal(object, object)  # root, [Hit]
    preview = Signal(object)  # Choice
    drafting = Signal(str)  # the line above the streamed text: the language the model writes in
    token = Signal(str)
    checking = Signal(str)  # the draft is in: what is done with it until the answer is (the status bar says it)
    answered = Signal(object)  # Turn
    ask_failed = Signal()
    busy_changed = Signal(object)  # Busy

    def __init__(self, *, corpus: str | None = None, model: str | None = None, store: SettingsStore | None = None,
                 embedder: str | None = None, parent: QObject | None = None):
        super().__init__(parent)
        self.tasks = TaskRunner(self)
        self.tasks.busy_changed.connect(self.busy_changed)
        self.library = Library(self.tasks, corpus=corpus, model=model, store=store, embedder=embedder, parent=self)
        self.library.ready.connect(self.ask_pending)
        self.library.stopped.connect(self._index_stopped)
        self.conversation = self.library.conversation
        self.pending_question = ""  # asked while indexing or loading: sent once both are done
        self.answering = ANSWERING  # what the status bar says of the answer being written, cleared when it is in

    def start(self) -> None:
        """Load the models in the background, index the active folder and list its conversations."""
        self.library.start()

    def shutdown(self) -> None:
        """Stop every job and the worker thread."""
        self.tasks.shutdown()

    @property
    def busy(self) -> Busy:
        """The foreground work going on (``TaskRunner.busy``)."""
        return self.tasks.busy

    # -- the library's, as the window, the app and the tests use them: its signals, state and methods --------
    status = _library("status")  # the Controller says what it does in them too
    error = _library("error")
    notice = _library("notice")
    models_loading = _library("models_loading")
    models_ready = _library("models_ready")
    models_failed = _library("models_failed")
    progress = _library("progress")
    indexed = _library("indexed")
    index_failed = _library("index_failed")
    embedding_paused = _library("embedding_paused")
    indexing = _library("indexing")
    collections_changed = _library("collections_changed")
    bundled = _library("bundled")
    settings = _library("settings")
    collections = _library("collections")
    active = _library("active")
    standing = _library("standing")
    models = _library("models")
    models_ok = _library("models_ok")
    indexed_reports = _library("indexed_reports")
    index_message = _library("index_message")
    watcher = _library("watcher")
    add_collection = _library("add_collection")
    remove_collection = _library("remove_collection")
    set_active = _library("set_active")
    save_settings = _library("save_settings")
    save_panes = _library("save_panes")
    choose_model = _library("choose_model")
    choose_languages = _library("choose_languages")
    pipeline = _library("pipeline")
    prepare = _library("prepare")
    index = _library("index")
    cancel_indexing = _library("cancel_indexing")

    # -- asking --------------------------------------------------------------------------------------
    def ask(self, question: str, options: AskOptions | None = None) -> bool:
        """Send a question; False (with a message) when it cannot be asked now."""
        if not question.strip():
            self.error.emit("Type a question first.")
            return False
        if self.tasks.waiting(Busy.ANSWERING):
            self.error.emit("Please wait: RepoBot is still answering the previous question (Esc stops it).")
            return False
        if not self.models_ok and not self.tasks.waiting(Busy.LOADING):
            self.error.emit("The model is not loaded (the message above says why): choose another model in the "
                            "Model list, then ask again.")
            return False
        if not self.pipeline(self.active).collection.loaded and not self.tasks.waiting(Busy.INDEXING):
            self.index(self.active)  # indexing was stopped or failed: the question waits for it, with Cancel
        if self.tasks.waiting(Busy.INDEXING) or not self.models_ok:
            self.pending_question = question
            waiting = "Indexing is in progress" if self.tasks.waiting(Busy.INDEXING) else "The models are still loading"
            self.status.emit(f"{waiting}: your question will be asked as soon as the folder can be searched.")
            return True
        self.error.emit("")
        self.answering = ANSWERING
        self.status.emit(ANSWERING)  # in place of older news ("Stopped: …", "Embedding paused …")
        ticket = self.conversation.ticket()
        pipe = self.pipeline(str(ticket.root))
        self.conversation.live = Live(ticket.root, [], None)
        self.asking.emit(question)
        options = options or AskOptions(k=self.settings.k, mode=self.settings.mode, language=self.settings.language)
        earlier = [(t.answer.question, t.answer.final_answer) for t in self.turns]
        self.tasks.submit(Busy.ANSWERING,
                          lambda context: pipe.ask_stream(question, options, cancel=context.cancel, earlier=earlier),
                          on_event=lambda event: self._answer_event(ticket, event),
                          on_failed=self._ask_failed)
        return True

    def ask_pending(self) -> None:
        """Send the waiting question once the models are loaded and no index is being built."""
        if self.pending_question and self.models_ok and not self.tasks.waiting(Busy.INDEXING):
            question, self.pending_question = self.pending_question, ""
            self.ask(question)

    def _index_stopped(self) -> None:
        """Indexing stopped: the waiting question goes, unless the active folder cannot be searched at all yet."""
        if self.pending_question and not self.pipeline(self.active).collection.loaded:
            self.pending_question = ""  # asking now would build the whole index inside the answer, past Cancel
            self.status.emit("Indexing stopped before the folder could be searched, so your question was not asked: "
                             "press Re-index, then ask again.")
            return
        self.ask_pending()

    def _answer_event(self, ticket: Ticket, event) -> None:
        """An answer's progress is drawn only while its conversation is on screen; when done, it is saved in it."""
        if isinstance(event, Done):
            turn = Turn(ticket.root, event.answer)
            if event.answer.stop_reason == "cancelled":  # "Stopping…" is over
                self.status.emit("Stopped: what was written before Stop is shown, checked like any answer.")
            self.conversation.add(turn, ticket)  # which may say where the answer was saved
            self.answered.emit(turn)
        elif not self.conversation.showing(ticket):
            return
        elif isinstance(event, Retrieved):
            self.conversation.live = Live(ticket.root, event.hits, None)
            self.retrieved.emit(ticket.root, event.hits)
        elif isinstance(event, Preview):
            self.conversation.live = self.conversation.live._replace(preview=event.choice)
            self.preview.emit(event.choice)
        elif isinstance(event, Drafting):
            self.drafting.emit(event.label)
        elif isinstance(event, Token):
            self.token.emit(event.text)
        elif isinstance(event, Checking):  # the draft is in; its check (and translation) takes a few seconds more
            self.answering = event.label
            self.checking.emit(event.label)

    def _ask_failed(self, message: str) -> None:
        """Show why the answer could not be written."""
        self.error.emit(message)
        self.ask_failed.emit()

    @property
    def turns(self) -> list[Turn]:
        """The turns of the conversation on screen."""
        return self.conversation.turns

    def cancel(self) -> None:
        """Stop the running job (generation or indexing) at its next step, and any reading ahead. Embedding in the
        background goes on (Esc then said "Stopping…" for good): its own Cancel pauses it."""
        if self.busy not in (Busy.IDLE, Busy.EMBEDDING):
            self.tasks.cancel()
            self.tasks.cancel(Busy.PREPARING)
            self.status.emit(STOPPING)

    def stop(self) -> None:
        """The Stop button: what Esc stops (an answer, indexing); while a folder is only embedded in the background,
        what the left pane's Cancel does then: pause the embedding, keeping what is embedded."""
        if self.busy is Busy.EMBEDDING:
            self.cancel_indexing()
        else:
            self.cancel()
