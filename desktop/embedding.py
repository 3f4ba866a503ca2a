"""Embedding: each folder's background embedding in the window, one job a folder, giving way to every question.

While another RepoBot (a command, another window) embeds a folder, its job says
"wait" once and ends, and is tried again every few seconds (``WAIT_RETRY_MS``),
taking up the other's vectors: the window's one worker stays free for other
folders meanwhile.
"""

from __future__ import annotations

from typing import Callable

from repobot.engine.pipeline import Pipeline

from .qt import QObject, QTimer, Signal
from .tasks import EMBEDDING_PAUSED, Busy, TaskRunner

WAIT_RETRY_MS = 3000  # how often a folder another RepoBot is embedding is tried again
class Embeddings(QObject):
    """The folders being embedded in the background, and those waiting for another RepoBot's embedding."""

    progress = Signal(str, str, int, int)  # root, stage ("embed" or "wait"), done, total
    embedded = Signal(str)  # root: every passage is embedded
    status = Signal(str)
    paused = Signal()  # Cancel stopped a folder's embedding, or its wait for another RepoBot

    def __init__(self, tasks: TaskRunner, pipeline: Callable[[str], Pipeline], listed: Callable[[str], bool],
                 name: Callable[[str], str], parent: QObject | None = None):
        super().__init__(parent)
        self.tasks, self._pipeline, self._listed, self._name = tasks, pipeline, listed, name
        self._jobs: dict[str, int] = {}  # folder -> its background embedding job
        self._waiting: set[str] = set()  # folders another RepoBot is embedding: tried again every few seconds

    def start(self, root: str) -> None:
        """Embed what the folder's index still lacks; dense search grows as it goes."""
        collection = self._pipeline(root).collection
        after_wait = root in self._waiting

        def work(context):  # ("embed", done, total), or ("wait", …) once while another RepoBot embeds the folder
            yield from collection.embed_steps(cancelled=context.cancelled, wait=False, take_up_saved=after_wait)

        def event(progress):
            if progress[0] == "wait":
                if root in self._waiting:  # said once, not every few seconds over another folder's report
                    return
                self._waiting.add(root)
                self.status.emit(f"{self._name(root)}: searchable by words; another RepoBot is embedding it: waiting to "
                                 "use its work…")  # not "embedding … in the background", which it is not
            self.progress.emit(root, *progress)

        def forget() -> None:  # this job's own entry only: a re-index may have registered a newer one
            if self._jobs.get(root) == job:
                del self._jobs[root]

        def finished(_result):
            forget()
            if not self._listed(root):
                return
            if collection.loaded and collection.index.pending:  # another RepoBot holds the turn: again later
                if root in self._waiting:
                    QTimer.singleShot(WAIT_RETRY_MS, self, lambda: self._again(root))  # gone with the window
                return
            self._waiting.discard(root)
            self.embedded.emit(root)

        def failed(message):
            cancelled_by_user = message == EMBEDDING_PAUSED and self._jobs.get(root) == job  # Cancel, not a re-index or removal
            forget()
            if message != EMBEDDING_PAUSED or cancelled_by_user:  # a re-index's own news stays (it said "paused")
                self.status.emit(message)
            if cancelled_by_user:
                self.paused.emit()  # the panel stops saying "embedding …", and Cancel is off

        job = self.tasks.submit(Busy.EMBEDDING, work, on_event=event, on_done=finished, on_failed=failed)
        self._jobs[root] = job

    def stop(self, root: str) -> None:
        """Stop the folder's embedding and its wait: it is re-indexed (the new index's embedding starts anew) or
        removed (embedding it would save an index no one uses, and hold the worker)."""
        if root in self._jobs:
            self.tasks.cancel_job(self._jobs.pop(root))
        self._waiting.discard(root)

    def embedding(self, root: str) -> bool:
        """Whether the folder is being embedded in the background (or waits for another RepoBot's embedding)."""
        return root in self._jobs or root in self._waiting

    def pause_all(self) -> None:
        """Cancel: stop every embedding (the worker says so for a running job) and every wait for another RepoBot."""
        self.tasks.cancel(Busy.EMBEDDING)
        if self._waiting:  # no job runs while a folder waits: the waiting itself stops, and is said to
            self._waiting.clear()
            self.paused.emit()
            self.status.emit(EMBEDDING_PAUSED)

    def _again(self, root: str) -> None:
        """Try a waiting folder's embedding again, unless it was cancelled, removed or re-indexed meanwhile."""
        if root in self._waiting and self._listed(root) and root not in self._jobs:
            self.start(root)
