"""Collection: one documentation folder and its index, loaded from disk, brought up to date and saved.

Only files whose content changed are embedded again; a run that is cancelled
or killed leaves the saved index as it was, and the next run resumes from its
checkpoint (``engine/store.py``). Nothing is read or loaded until it is used:

>>> Collection(None, ModelSet()).root.name  # no folder given: RepoBot's own user guide
'corpus'
"""

from __future__ import annotations

from pathlib import Path
from typing import Callable

from . import config
from .errors import IndexStoreError
from .history import History
from .index import Index, Progress, UpdateReport, update_index
from .load import Skipped, load_corpus
from .registry import ModelSet
from .store import DiskCheckpoint, load_index, save_index, store_dir


class Collection:
    def __init__(self, root: Path | str | None, models: ModelSet):
        self.root = Path(root).expanduser() if root else config.default_corpus()
        self.models = models
        self._index: Index | None = None
        self.problems: list[Skipped] = []  # files skipped or decoded with replacement, at the last update
        self.notes: list[str] = []  # e.g. a damaged saved index that was rebuilt
        self._history: History | None = None

    def update(self, *, progress: Progress | None = None, cancelled: Callable[[], bool] = lambda: False) -> UpdateReport:
        """Bring the index up to date with the folder and save it if anything changed."""
        corpus = load_corpus(self.root)
        self.problems, self.notes = corpus.problems, []
        previous = self._index
        if previous is None:
            try:
                previous = load_index(corpus.root)
            except IndexStoreError as err:
                self.notes.append(str(err))
        embedder = self.models.embedder
        checkpoint = DiskCheckpoint(store_dir(corpus.root) / "partial", embedder.name)
        index, report = update_index(corpus, embedder, previous, progress=progress, cancelled=cancelled,
                                     checkpoint=checkpoint)
        if report.changed or previous is None or previous.embedder != index.embedder:
            save_index(index)
        checkpoint.clear()
        self._index = index
        return report

    @property
    def index(self) -> Index:
        if self._index is None:
            self.update()
        return self._index

    @property
    def history(self) -> History:
        """The collection's saved conversations (opened on first use; a damaged file is set aside)."""
        if self._history is None:
            self._history = History(store_dir(self.root.resolve()) / "history.sqlite3")
        return self._history
