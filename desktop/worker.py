"""The one background worker: every model call runs here, one at a time, never on the GUI thread.

The window sends requests through signals (queued into this thread); the
worker answers through signals. Cancelling sets a threading.Event the engine
checks at every token or batch, so Stop works while a job is running.
"""

from __future__ import annotations

import os
import threading
import traceback
from pathlib import Path

from repobot.desktop.qt import QObject, Signal, Slot
from repobot.engine.errors import Cancelled, RepoBotError
from repobot.engine.pipeline import AskOptions, Done, Pipeline, Retrieved, Token


class EngineWorker(QObject):
    status = Signal(str)
    models_ready = Signal(str)  # model name
    failed = Signal(str, str)  # job, one-line message with the fix
    progress = Signal(str, str, int, int)  # corpus, stage, done, total
    indexed = Signal(str, dict)  # corpus, report
    retrieved = Signal(list)  # [{"id", "source", "lines", "heading", "score", "root"}]
    token = Signal(str)
    answered = Signal(dict)  # Answer.to_json() plus "root"

    def __init__(self, model: str | None = None, *, embedder=None, llm=None):
        """``embedder`` and ``llm`` replace the real models (tests pass deterministic fakes)."""
        super().__init__()
        self.model = model or None
        self.cancel_event = threading.Event()
        self._pipelines: dict[str, Pipeline] = {}
        self._embedder = embedder
        self._llm = llm
        self._given_llm = llm

    # -- shared, expensive parts ---------------------------------------------------
    def _pipeline(self, corpus: str) -> Pipeline:
        key = str(Path(corpus).resolve())
        if key not in self._pipelines:
            self._pipelines[key] = Pipeline(key, model=self.model, embedder=self._embedder, llm=self._llm)
        return self._pipelines[key]

    @Slot()
    def load_models(self) -> None:
        self._yield_to_the_window()
        from repobot.engine.embed import load_embedder
        from repobot.engine.generate import LlamaCppLLM
        from repobot.engine.models import resolve_model

        try:
            self.status.emit("Loading the embedding model…")
            if self._embedder is None:
                self._embedder = load_embedder()
            self.status.emit("Loading the language model…")
            self._llm = self._given_llm or LlamaCppLLM(resolve_model(self.model))
            self._pipelines.clear()  # rebuilt on demand around the new models (indexes reload from disk)
            self.models_ready.emit(self._llm.name)
        except RepoBotError as err:
            self.failed.emit("models", str(err))
        except Exception as err:  # noqa: BLE001 - shown in the window, never a crash
            self.failed.emit("models", f"Could not load the models: {err}")

    @Slot(str)
    def set_model(self, model: str) -> None:
        self.model = model or None
        self._llm = None
        self.load_models()

    @staticmethod
    def _yield_to_the_window() -> None:
        """Run model work at a lower CPU priority than the window (Linux: per thread, inherited by the
        torch and llama.cpp threads started from here), so the event loop is served first on a busy machine."""
        try:
            os.setpriority(os.PRIO_PROCESS, threading.get_native_id(), 10)
        except (AttributeError, OSError):
            pass  # not Linux, or not allowed: the window still works, only less smoothly under load

    # -- jobs ------------------------------------------------------------------------
    @Slot(str)
    def index(self, corpus: str) -> None:
        self.cancel_event.clear()
        try:
            pipe = self._pipeline(corpus)
            report = pipe.build_index(
                progress=lambda stage, done, total: self.progress.emit(corpus, stage, done, total),
                cancelled=self.cancel_event.is_set,
            )
            self.indexed.emit(corpus, {
                "files": len(pipe.index.files), "chunks": len(pipe.index.chunks), "seconds": report.seconds,
                "added": len(report.added), "updated": len(report.updated), "removed": len(report.removed),
                "unchanged": len(report.unchanged), "problems": [f"{p.source}: {p.reason}" for p in pipe.problems],
                "notes": pipe.index_notes, "sources": sorted(pipe.index.files),
            })
        except Cancelled:
            self.failed.emit("index", "Indexing cancelled; the previous index is kept.")
        except RepoBotError as err:
            self.failed.emit("index", str(err))
        except Exception as err:  # noqa: BLE001
            traceback.print_exc()
            self.failed.emit("index", f"Indexing failed: {err}")

    @Slot(str, str, dict)
    def ask(self, corpus: str, question: str, options: dict) -> None:
        self.cancel_event.clear()
        try:
            pipe = self._pipeline(corpus)
            root = str(pipe.corpus.resolve())
            for event in pipe.ask_stream(question, AskOptions(**options), cancel=self.cancel_event):
                if isinstance(event, Retrieved):
                    self.retrieved.emit([
                        {"id": h.rank, "source": h.chunk.source, "lines": [h.chunk.start, h.chunk.end],
                         "heading": h.chunk.heading, "score": h.score, "root": root}
                        for h in event.hits
                    ])
                elif isinstance(event, Token):
                    self.token.emit(event.text)
                elif isinstance(event, Done):
                    data = event.answer.to_json()
                    data["root"] = root
                    self.answered.emit(data)
        except RepoBotError as err:
            self.failed.emit("ask", str(err))
        except Exception as err:  # noqa: BLE001
            traceback.print_exc()
            self.failed.emit("ask", f"Answering failed: {err}")

    def cancel(self) -> None:
        """Called from the GUI thread: the running job stops at its next step."""
        self.cancel_event.set()
