"""Tasks: the one helper that runs engine work off the GUI thread.

Every job (loading the models, indexing a folder, answering) runs on a single
background thread, one at a time, so the one ``Llama`` is never shared between
threads and the event loop never blocks. A job is a function of a ``Context``;
if it is a generator, each value it yields is an event delivered to the GUI
thread as it comes (tokens, progress). Its result or its failure comes back the
same way, through ``Signal(object)``: typed objects, no JSON round trip.

Failures are turned into one-line messages in one place (``message_for``), as
Anki's ``QueryOp`` keeps them; cancelling sets an event the engine checks at
every token and every batch.
"""

from __future__ import annotations

import enum
import inspect
import os
import threading
import traceback
from typing import Any, Callable, NamedTuple

from repobot.engine.errors import Cancelled, RepoBotError

from .qt import QObject, QThread, Signal, Slot


class Busy(enum.Enum):
    IDLE = "idle"
    LOADING = "loading the models"
    INDEXING = "indexing"
    ANSWERING = "answering"


class Context(NamedTuple):
    """What a running job can use: the cancel flag, and a way to send an event without yielding."""

    cancel: threading.Event
    emit: Callable[[Any], None]

    def cancelled(self) -> bool:
        return self.cancel.is_set()


class Job(NamedTuple):
    id: int
    kind: Busy
    work: Callable[[Context], Any]
    on_event: Callable[[Any], None] | None
    on_done: Callable[[Any], None] | None
    on_failed: Callable[[str], None] | None


def message_for(kind: Busy, err: BaseException) -> str:
    """The one place an exception becomes the line the user reads.

    >>> message_for(Busy.INDEXING, Cancelled())
    'Indexing cancelled; the previous index is kept.'
    >>> message_for(Busy.ANSWERING, RepoBotError("The question is empty: type a question."))
    'The question is empty: type a question.'
    """
    if isinstance(err, Cancelled):
        return {Busy.INDEXING: "Indexing cancelled; the previous index is kept."}.get(kind, "Stopped.")
    if isinstance(err, RepoBotError):
        return str(err)
    return f"{kind.value.capitalize()} failed: {type(err).__name__}: {err} (run from a terminal to see the details)."


class _Worker(QObject):
    """Lives in the background thread; runs each job it is sent, in order."""

    event = Signal(int, object)
    done = Signal(int, object)
    failed = Signal(int, str)

    def __init__(self, cancel: threading.Event):
        super().__init__()
        self.cancel = cancel

    @Slot()
    def lower_priority(self) -> None:
        """Run model work at a lower CPU priority than the window (Linux: per thread, inherited by the
        onnxruntime and llama.cpp threads started from here), so the event loop is served first."""
        try:
            os.setpriority(os.PRIO_PROCESS, threading.get_native_id(), 10)
        except (AttributeError, OSError):
            pass  # not Linux, or not allowed: the window still works, only less smoothly under load

    @Slot(object)
    def run(self, job: Job) -> None:
        self.cancel.clear()
        context = Context(self.cancel, lambda item: self.event.emit(job.id, item))
        try:
            result = job.work(context)
            if inspect.isgenerator(result):
                for item in result:
                    self.event.emit(job.id, item)
                result = None
            self.done.emit(job.id, result)
        except Exception as err:  # noqa: BLE001 - every failure becomes a message in the window
            if not isinstance(err, (RepoBotError, Cancelled)):
                traceback.print_exc()
            self.failed.emit(job.id, message_for(job.kind, err))


class TaskRunner(QObject):
    """Submit jobs; their events, results and failures come back to callbacks in the GUI thread."""

    busy_changed = Signal(object)  # Busy
    _send = Signal(object)
    _start = Signal()

    def __init__(self, parent: QObject | None = None):
        super().__init__(parent)
        self._cancel = threading.Event()
        self._thread = QThread(self)
        self._worker = _Worker(self._cancel)
        self._worker.moveToThread(self._thread)
        self._send.connect(self._worker.run)
        self._start.connect(self._worker.lower_priority)
        self._worker.event.connect(self._on_event)
        self._worker.done.connect(self._on_done)
        self._worker.failed.connect(self._on_failed)
        self._jobs: dict[int, Job] = {}  # submitted and not finished, in order
        self._next = 0
        self._thread.start()
        self._start.emit()

    @property
    def busy(self) -> Busy:
        """What the background thread is doing now."""
        return next(iter(self._jobs.values())).kind if self._jobs else Busy.IDLE

    def waiting(self, kind: Busy) -> bool:
        """Whether a job of this kind is running or queued."""
        return any(job.kind == kind for job in self._jobs.values())

    def submit(self, kind: Busy, work: Callable[[Context], Any], *, on_event=None, on_done=None, on_failed=None) -> int:
        self._next += 1
        job = Job(self._next, kind, work, on_event, on_done, on_failed)
        before = self.busy
        self._jobs[job.id] = job
        self._send.emit(job)
        if self.busy != before:
            self.busy_changed.emit(self.busy)
        return job.id

    def cancel(self) -> None:
        """The running job stops at its next step (a token, a batch)."""
        if self._jobs:
            self._cancel.set()

    def shutdown(self, timeout_ms: int = 5000) -> None:
        self._cancel.set()
        self._thread.quit()
        self._thread.wait(timeout_ms)

    # -- back in the GUI thread -----------------------------------------------------------------------
    def _on_event(self, job_id: int, item: Any) -> None:
        job = self._jobs.get(job_id)
        if job and job.on_event:
            job.on_event(item)

    def _finish(self, job_id: int) -> Job | None:
        before = self.busy
        job = self._jobs.pop(job_id, None)
        if self.busy != before:
            self.busy_changed.emit(self.busy)
        return job

    def _on_done(self, job_id: int, result: Any) -> None:
        job = self._finish(job_id)
        if job and job.on_done:
            job.on_done(result)

    def _on_failed(self, job_id: int, message: str) -> None:
        job = self._finish(job_id)
        if job and job.on_failed:
            job.on_failed(message)
