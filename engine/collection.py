"""Collection: one documentation folder and its index, loaded from disk, brought up to date and saved.

Only files whose content changed are embedded again. A run cancelled or killed
before the folder is searchable leaves the saved index as it was; once it is
searchable, the new index is saved with its files still to embed listed, and
the next run resumes their embedding from its checkpoint (``engine/store.py``). Nothing is read or loaded until it is used:

>>> Collection(None, ModelSet()).root.name  # no folder given: RepoBot's own user guide
'corpus'
"""

from __future__ import annotations

import json
import threading
import time
from pathlib import Path
from typing import Callable, Iterable, Iterator

from . import config
from .errors import Cancelled, CorpusError, IndexStoreError, RepoBotError, unwritable_data_folder
from .files import write_json_atomic
from .history import History
from .index import Index, Progress, UpdateReport, embed_pending, take_up, update_index
from .load import UNLISTED, Corpus, Skipped, folder_language, load_corpus, select_languages
from .registry import ModelSet
from .moved import adopt_store, adopting, forwarded_to, moved_from, nothing_saved
from .store import WAIT_POLL_S, DiskCheckpoint, embedding_turn, load_index, prepared_store_dir, save_index, store_dir
from .twins import TwinIndex, twin_index


def default_languages(corpus: Corpus) -> frozenset[str] | None:
    """In a translated tree, the user's language and English (those it has); otherwise every page.

    >>> from unittest import mock
    >>> from repobot.engine.load import Corpus
    >>> tree = Corpus(Path("."), [], [], {"en": 9, "zh": 9, "ja": 9})
    >>> with mock.patch.dict("os.environ", {"LC_ALL": "zh_CN.UTF-8"}): sorted(default_languages(tree))
    ['en', 'zh']
    >>> with mock.patch.dict("os.environ", {"LC_ALL": "fr_FR.UTF-8"}): sorted(default_languages(tree))
    ['en']
    >>> default_languages(Corpus(Path("."), [], [], {})) is None
    True
    """
    if len(corpus.languages) < 2:
        return None
    wanted = {config.app_language(), "en"} & set(corpus.languages)
    return frozenset(wanted) if wanted else None


def _unlisted_language_folder(corpus: Corpus, asked: frozenset[str]) -> Skipped | None:
    """The folder of an asked-for language the tree lacks because that folder could not be listed this time
    (``zh/``, ``docs/zh-TW/``): it is there, only unreadable for now."""
    absent = asked - set(corpus.languages)
    return next((p for p in corpus.problems if p.reason.startswith(UNLISTED)
                 and folder_language(p.source.rstrip("/") + "/page.md") in absent), None)


class Collection:
    def __init__(self, root: Path | str | None, models: ModelSet, *, languages: Iterable[str] | None = None):
        self.root = Path(root).expanduser() if root else config.default_corpus()
        self.models = models
        self._asked = frozenset(c.strip().lower() for c in languages if c.strip()) if languages is not None else None
        self.available: dict[str, int] = {}  # pages per language the folder has (a translated tree)
        self.selected: frozenset[str] | None = None  # the languages indexed (None: every page)
        self._index: Index | None = None
        self.problems: list[Skipped] = []  # files skipped or decoded with replacement, at the last update
        self.notes: list[str] = []  # e.g. a damaged saved index that was rebuilt
        self._history: History | None = None
        self.moved_from: Path | None = None  # where the folder was, when its store was adopted (``_adopt_moved``)
        self._adopting = threading.Lock()
        self._twins: dict[str, TwinIndex | None] = {}  # by language, for the index in memory

    def update(self, *, progress: Progress | None = None, cancelled: Callable[[], bool] = lambda: False,
               embed: bool = True) -> UpdateReport:
        """Bring the index up to date with the folder and save it: searchable (BM25) first, then embedded.

        ``embed=False`` stops once it is searchable; ``embed_steps`` then embeds the rest
        (the window runs it in the background). Progress goes (stage, done, total), stages
        "chunk", "searchable", "wait" (another RepoBot is embedding this folder) and "embed".
        """
        started = time.perf_counter()
        corpus = load_corpus(self.root)
        prepared_store_dir(corpus.root)  # a data folder that cannot be written is said now, not after the work
        if self._index is None:  # before the languages it remembers are read: they come along too
            self._adopt_moved(corpus.root)
        self.available = corpus.languages
        if self._asked and (unlisted := _unlisted_language_folder(corpus, self._asked)):
            raise CorpusError(f"{corpus.root / unlisted.source} cannot be listed now "
                              f"({unlisted.reason.removeprefix(UNLISTED).strip(' ()')}): check that you may open it, "
                              "or choose other languages.")
        if self._asked and not corpus.languages:  # (a choice remembered before the translations went is unused)
            raise CorpusError(f"{corpus.root} has no pages in other languages (no folders such as en/ and zh/): "
                              "--languages is for a translated tree; leave it out.")
        if self._asked and (absent := sorted(self._asked - set(corpus.languages))):
            raise CorpusError(f"{corpus.root} has no pages in {', '.join(absent)} (it has "
                              f"{', '.join(sorted(corpus.languages))}): choose other languages.")
        chosen = self._asked or self.chosen_languages()
        corpus = select_languages(corpus, chosen if chosen is not None else default_languages(corpus))
        if self._asked:  # remembered once it has worked
            self.choose_languages(self._asked)
        self.selected = corpus.selected
        self.problems, self.notes = corpus.problems, []
        previous = self._index
        if previous is None:
            try:
                previous = load_index(corpus.root)
            except IndexStoreError as err:
                self.notes.append(str(err))
        if self.moved_note:
            self.notes.append(self.moved_note)
        embedder = self.models.embedder
        index, report = update_index(corpus, embedder, previous, progress=progress, cancelled=cancelled,
                                     checkpoint=self._checkpoint())
        kept = sorted(set(report.unchanged) - {doc.source for doc in corpus.documents})
        if kept:  # (their problems above say why they were not read)
            more = f" and {len(kept) - 3} more" if len(kept) > 3 else ""
            self.notes.append(f"{', '.join(kept[:3])}{more} could not be read this time: what was indexed of them "
                              "before is kept until they can be read again.")
        if (report.changed or previous is None or previous.root != index.root or previous.embedder != index.embedder
                or index.pending != previous.pending):
            save_index(index)  # (a moved folder's index is saved with its new place)
        self._index, self._twins = index, {}
        if progress:
            progress("searchable", index.size - index.pending_chunks, index.size)
        embedded = 0
        if embed:
            for stage, done, total in self.embed_steps(cancelled=cancelled):
                embedded = done if stage == "embed" else embedded
                if progress:
                    progress(stage, done, total)
        return report._replace(embedded_chunks=embedded, seconds=time.perf_counter() - started)

    @property
    def moved_note(self) -> str:
        """What to tell the user when this folder's index and conversations came from where it was before, or went
        to a copy of it while it was missing."""
        if self.moved_from is not None:
            return f"This folder was at {self.moved_from}: its index and conversations came with it."
        went = forwarded_to(self.root.resolve())
        try:
            if went is None or self.history.conversations():  # news until the folder has conversations of its own
                return ""
        except RepoBotError:  # a history that cannot be opened is said where it is used
            return ""
        return (f"While this folder was missing, its index and conversations went to {went}, which has the same "
                f"pages and looked like this folder moved: open {went} to see them.")

    def _adopt_moved(self, root: Path) -> Path | None:
        """When ``root`` has nothing saved and is a folder RepoBot knew that moved (``moved_from``), take its index,
        conversations and settings along; returns where it was. A history opened here first and still empty goes."""
        if not nothing_saved(root):  # a folder indexed before (nearly always): no lock taken, no store read
            return None
        try:
            with self._adopting, adopting():  # the window lists conversations while its worker updates; two RepoBots
                return self._adopt(root)
        except (RepoBotError, OSError):  # a data folder that cannot be written: nothing moves, what can be read is
            return None

    def _adopt(self, root: Path) -> Path | None:
        """``_adopt_moved``'s work, under its locks."""
        moved = moved_from(root)
        if moved is None:
            return None
        history = self._history or History(store_dir(root) / "history.sqlite3")
        if history.conversations():
            return None  # this place has conversations of its own: nothing is merged or lost
        history.close()
        self._history = None
        if not adopt_store(moved.store, root, leave_word=not moved.back):
            return None
        self.moved_from = moved.root
        return moved.root

    def embed_steps(self, *, cancelled: Callable[[], bool] = lambda: False, wait: bool = True,
                    take_up_saved: bool = False) -> Iterator[tuple[str, int, int]]:
        """Embed what the index still lacks, a group of files at a time; saves at the end. Yields (stage, chunks
        done, total): "embed" after each group, "wait" while another RepoBot embeds this folder.

        ``wait=False`` says "wait" once and returns, for a caller that tries again later
        (the window, whose one worker other folders share), with ``take_up_saved``.

        Killed or cancelled half way, nothing is lost: each group's vectors are
        checkpointed, and the next update picks them up. After waiting for another
        RepoBot (``store.embedding_turn``), the vectors it saved for the same text are
        taken up (``index.take_up``, without reading the folder again) and only the
        rest is embedded. It yields while it waits, so the window answers meanwhile.
        """
        if not self.index.pending:
            return
        folder = prepared_store_dir(self.root.resolve())
        turn = embedding_turn(folder)
        waited = turn is None or take_up_saved
        while turn is None:
            if cancelled():
                raise Cancelled()
            yield "wait", 0, self.index.pending_chunks
            if not wait:
                return
            time.sleep(WAIT_POLL_S)
            turn = embedding_turn(folder)
        with turn:
            index, checkpoint = self.index, self._checkpoint()
            if waited:  # the other one saved its index, or checkpointed what it did before it stopped: take it up
                try:
                    saved = load_index(self.root.resolve())
                except IndexStoreError:  # damaged meanwhile: its checkpoint may still hold vectors
                    saved = None
                if take_up(index, saved, checkpoint) and not index.pending:
                    save_index(index)
                    checkpoint.clear()
                    return
            if not index.pending:
                return
            for done, total in embed_pending(index, self.models.embedder, cancelled=cancelled, checkpoint=checkpoint):
                yield "embed", done, total
            save_index(index)
            checkpoint.clear()

    def _checkpoint(self) -> DiskCheckpoint:
        return DiskCheckpoint(store_dir(self.root.resolve()) / "partial", self.models.embedder.name)

    @property
    def index(self) -> Index:
        if self._index is None:
            self.update()
        return self._index

    def twin(self, language: str) -> TwinIndex | None:
        """The pages in ``language`` of a translated tree whose index leaves that language out, searchable by
        their words as their indexed originals (``engine/twins.py``); None when the index has that language or
        the tree lacks it. Read on first use (under a second for FastAPI's 125 Japanese pages)."""
        index = self.index
        if not self.available.get(language) or self.selected is None or language in self.selected:
            return None
        if language not in self._twins:
            try:
                pages = [doc for doc in load_corpus(self.root).documents if doc.language == language]
            except (RepoBotError, OSError):  # the folder is gone: searched without the twin until updated
                pages = []
            originals = {source: (entry.first, index.chunks[entry.span]) for source, entry in index.files.items()}
            self._twins[language] = twin_index(pages, originals, index.primary_language) if pages else None
        return self._twins[language]

    @property
    def loaded(self) -> bool:
        """Whether the index is in memory (an update finished); until then, ``index`` builds it first."""
        return self._index is not None

    # -- the languages of a translated tree -------------------------------------------------------------
    @property
    def _settings(self) -> Path:
        return store_dir(self.root.resolve()) / "collection.json"

    def chosen_languages(self) -> frozenset[str] | None:
        """The languages the user chose for this folder; None until one is chosen (then the default applies)."""
        try:
            chosen = json.loads(self._settings.read_text(encoding="utf-8")).get("languages")
        except (OSError, ValueError, AttributeError):
            return None
        return frozenset(chosen) if isinstance(chosen, list) and chosen else None

    def choose_languages(self, languages: Iterable[str] | None) -> None:
        """Index only these languages from now on (None or empty: the default again); RepoBotError if the data
        folder cannot be written."""
        chosen = sorted({code.strip().lower() for code in languages or () if code.strip()})
        try:
            write_json_atomic(self._settings, {"languages": chosen or None})
        except OSError as err:
            raise unwritable_data_folder(config.data_dir(), err) from err

    @property
    def history(self) -> History:
        """The collection's saved conversations (opened on first use; a damaged file is set aside; a moved folder's
        come along, ``_adopt_moved``)."""
        if self._history is None:
            if self._index is None:  # `repobot history --corpus` where a folder moved: before any update
                self._adopt_moved(self.root.resolve())
            self._history = History(store_dir(self.root.resolve()) / "history.sqlite3")
        return self._history
