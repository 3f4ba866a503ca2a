"""Tasks: the one helper that runs engine work off the GUI thread.

Every job (loading the models, indexing a folder, answering, embedding in the
background) runs on a single worker thread, so the one ``Llama`` is never
shared between threads and the event loop never blocks. A job is a function of
a ``Context``; if it is a generator, each value it yields is an event delivered
to the GUI thread as it comes (tokens, progress). Its result or failure comes
back the same way, through ``Signal(object)``: typed objects, no JSON.

Background jobs (embedding a folder) give way: between two of their steps, any
waiting foreground job (a question) runs first, then they resume where they
were. Failures become one-line messages in one place (``message_for``), as
Anki's ``QueryOp`` keeps them; cancelling sets the running job's own event,
which the engine checks at every token and every batch.
"""

from __future__ import annotations

import enum
import inspect
import os
import threading
import traceback
from collections import deque
from typing import Any, Callable, Iterator

from repobot.engine.errors import Cancelled, RepoBotError

from .qt import QObject, Signal


class Busy(enum.Enum):
    IDLE = "idle"
    LOADING = "loading the models"
    INDEXING = "indexing"
    ANSWERING = "answering"
    EMBEDDING = "embedding in the background"
    PREPARING = "reading the prompt's rules ahead"


BACKGROUND = (Busy.EMBEDDING, Busy.PREPARING)


class Context:
    """What a running job can use: its cancel flag, and a way to send an event without yielding."""

    def __init__(self, emit: Callable[[Any], None]):
        self.cancel = threading.Event()
        self.emit = emit

    def cancelled(self) -> bool:
        return self.cancel.is_set()


class Job:
    def __init__(self, number: int, kind: Busy, work, on_event, on_done, on_failed, emit):
        self.id, self.kind, self.work = number, kind, work
        self.on_event, self.on_done, self.on_failed = on_event, on_done, on_failed
        self.context = Context(lambda item: emit(number, item))
        self.steps: Iterator | None = None  # a background generator, parked between steps

    @property
    def background(self) -> bool:
        return self.kind in BACKGROUND


EMBEDDING_PAUSED = "Embedding paused; the folder stays searchable by words, and resumes from here."


STOPPABLE = (Busy.ANSWERING, Busy.INDEXING)  # what Esc stops; the Stop button also pauses embedding, as Cancel does


def message_for(kind: Busy, err: BaseException) -> str:
    """The one place an exception becomes the line the user reads.

    >>> message_for(Busy.INDEXING, Cancelled())
    'Indexing cancelled; what was indexed before is kept.'
    >>> message_for(Busy.ANSWERING, RepoBotError("The question is empty: type a question."))
    'The question is empty: type a question.'
    """
    if isinstance(err, Cancelled):
        return {Busy.INDEXING: "Indexing cancelled; what was indexed before is kept.",
                Busy.EMBEDDING: EMBEDDING_PAUSED}.get(kind, "Stopped.")
    if isinstance(err, RepoBotError):
        return str(err)
    return f"{kind.value.capitalize()} failed: {type(err).__name__}: {err} (run from a terminal to see the details)."


class TaskRunner(QObject):
    """Submit jobs; their events, results and failures come back to callbacks in the GUI thread."""

    busy_changed = Signal(object)  # Busy
    _event = Signal(int, object)
    _done = Signal(int, object)
    _failed = Signal(int, str)

    def __init__(self, parent: QObject | None = None):
        super().__init__(parent)
        self._event.connect(self._on_event)
        self._done.connect(self._on_done)
        self._failed.connect(self._on_failed)
        self._jobs: dict[int, Job] = {}  # submitted and not finished (the GUI thread's view)
        self._queue: deque[Job] = deque()  # waiting, in order (the worker's view, under the lock)
        self._lock = threading.Condition()
        self._running: Job | None = None
        self._stopping = False
        self._next = 0
        self._thread = threading.Thread(target=self._work, name="repobot-tasks", daemon=True)
        self._thread.start()

    # -- the GUI thread's side --------------------------------------------------------------------------
    @property
    def busy(self) -> Busy:
        """The foreground work going on; a background job only when nothing else is, embedding before reading ahead
        (seconds, where embedding takes minutes and Stop can pause it)."""
        kinds = [job.kind for job in self._jobs.values()]
        background = Busy.EMBEDDING if Busy.EMBEDDING in kinds else (kinds[0] if kinds else Busy.IDLE)
        return next((k for k in kinds if k not in BACKGROUND), background)

    def waiting(self, kind: Busy) -> bool:
        """Whether a job of this kind is running or queued."""
        return any(job.kind == kind for job in self._jobs.values())

    def submit(self, kind: Busy, work: Callable[[Context], Any], *, on_event=None, on_done=None, on_failed=None) -> int:
        self._next += 1
        job = Job(self._next, kind, work, on_event, on_done, on_failed, self._event.emit)
        before = self.busy
        self._jobs[job.id] = job
        with self._lock:
            self._queue.append(job)
            self._lock.notify()
        if self.busy != before:
            self.busy_changed.emit(self.busy)
        return job.id

    def cancel(self, kind: Busy | None = None) -> None:
        """Stop the running or waiting jobs (of one kind, or the foreground ones) at their next step."""
        for job in list(self._jobs.values()):
            if (kind is None and not job.background) or job.kind == kind:
                job.context.cancel.set()

    def cancel_job(self, job_id: int) -> None:
        """Stop one job at its next step (nothing when it has finished)."""
        job = self._jobs.get(job_id)
        if job is not None:
            job.context.cancel.set()

    def shutdown(self, timeout_s: float = 5.0) -> None:
        for job in list(self._jobs.values()):
            job.context.cancel.set()
        with self._lock:
            self._stopping = True
            self._lock.notify()
        self._thread.join(timeout_s)

    def _finish(self, job_id: int) -> Job | None:
        before = self.busy
        job = self._jobs.pop(job_id, None)
        if self.busy != before:
            self.busy_changed.emit(self.busy)
        return job

    def _on_event(self, job_id: int, item: Any) -> None:
        job = self._jobs.get(job_id)
        if job and job.on_event:
            job.on_event(item)

    def _on_done(self, job_id: int, result: Any) -> None:
        job = self._finish(job_id)
        if job and job.on_done:
            job.on_done(result)

    def _on_failed(self, job_id: int, message: str) -> None:
        job = self._finish(job_id)
        if job and job.on_failed:
            job.on_failed(message)

    # -- the worker thread ---------------------------------------------------------------------------------
    def _work(self) -> None:
        """Run model work at a lower CPU priority than the window (Linux: per thread, inherited by the
        onnxruntime and llama.cpp threads started here), so the event loop is served first."""
        try:
            os.setpriority(os.PRIO_PROCESS, threading.get_native_id(), 10)
        except (AttributeError, OSError):
            pass  # not Linux, or not allowed: the window still works, only less smoothly under load
        while True:
            with self._lock:
                while not self._queue and not self._stopping:
                    self._lock.wait()
                if self._stopping:
                    return
                job = self._take()
            self._step(job)

    def _take(self) -> Job:
        """The first waiting foreground job, else the first background one (called under the lock)."""
        job = next((j for j in self._queue if not j.background), self._queue[0])
        self._queue.remove(job)
        return job

    def _foreground_waiting(self) -> bool:
        with self._lock:
            return self._stopping or any(not j.background for j in self._queue)

    def _step(self, job: Job) -> None:
        """Run a job; a background job runs until a foreground one is waiting, then is parked again."""
        try:
            if job.steps is None:
                result = job.work(job.context)
                if not inspect.isgenerator(result):
                    self._done.emit(job.id, result)
                    return
                job.steps = result
            for item in job.steps:
                self._event.emit(job.id, item)
                if job.background and self._foreground_waiting():
                    with self._lock:
                        self._queue.appendleft(job)  # resumed first among background jobs
                    return
            self._done.emit(job.id, None)
        except Exception as err:  # noqa: BLE001 - every failure becomes a message in the window
            if not isinstance(err, (RepoBotError, Cancelled)):
                traceback.print_exc()
            self._failed.emit(job.id, message_for(job.kind, err))
