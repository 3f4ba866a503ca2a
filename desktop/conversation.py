"""The conversation on screen: its turns, the answer being written, its saved copy, and what its links open.

Every answer joins the saved conversation it was asked in (a new one when
there is none), even when another conversation or folder is on screen by the
time it is done, so closing the window loses nothing but an answer still
being written; a reopened
conversation shows its answers exactly as they were checked. Links are
``cite:T:N`` (passage N of turn T) and ``sent:T:part:I`` (sentence I of the
shown answer, the model's own answer or the quoted preview); turn -1 is the
answer being written. No widgets here.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Callable, NamedTuple

from repobot.engine.chunk import closes_only
from repobot.engine.errors import RepoBotError
from repobot.engine.export import conversation_markdown
from repobot.engine.files import write_text_atomic
from repobot.engine.history import History
from repobot.engine.load import read_markdown
from repobot.engine.quote import Choice
from repobot.engine.result import Answer
from repobot.engine.retrieve import Hit
from repobot.engine.support import Support
from repobot.engine.text import file_lines

from .qt import QObject, Signal


class Turn(NamedTuple):
    root: Path  # the folder the answer's sources live in
    answer: Answer


class Ticket(NamedTuple):
    """Where an answer being written belongs: its folder, its saved conversation (None: not saved yet), and the
    view it was asked in (each conversation opened, new or reopened, is a new view)."""

    root: Path
    conversation: int | None
    view: int


class Live(NamedTuple):
    """The answer being written: where it searched, what it found, the quotes shown meanwhile."""

    root: Path
    hits: list[Hit]
    preview: Choice | None


def source_changed(root: Path, hit: Hit) -> bool:
    """Whether the lines a saved passage came from read differently now (or the file is gone).

    Each paragraph of the passage must be found in its lines, in order, with nothing else between them but whitespace
    or a paragraph of markup alone (an ``<img>`` line, a closing ``///``), which the chunker leaves out between joined
    chunks; nothing may come before the first or after the last, unless the passage begins or ends inside a line it
    holds only part of (a long line cut between two chunks), and the rest is that line's."""
    text, _problem = read_markdown(root / hit.chunk.source)
    if text is None:
        return True
    lines = file_lines(text)[hit.chunk.start - 1 : hit.chunk.end]
    now = _squeezed("\n".join(lines))
    paragraphs = [p for p in map(_squeezed, re.split(r"\n\s*\n", hit.chunk.text)) if p]
    if not paragraphs:
        return bool(now)
    held = [_squeezed(line) for line in hit.chunk.text.splitlines() if line.strip()]
    at = None
    for paragraph in paragraphs:
        found = now.find(paragraph, at or 0)
        if found < 0 or (at is not None and not closes_only([(0, now[at:found])])):
            return True
        if at is None and found and not _cut(lines[0], held[0], found, ends=False):
            return True  # words before the passage's first
        at = found + len(paragraph)
    return at < len(now) and not _cut(lines[-1], held[-1], len(now) - at, ends=True)


# The chunker cuts only a line longer than a chunk, measured in the embedder's word pieces, which a letter outside
# ASCII takes several of (a Korean line of 60 letters was cut): a line lighter than this, a letter outside ASCII
# weighing 6, was never cut, so words beside the passage on it are an edit. The lightest line cut in FastAPI's 13
# languages weighs 335.
CUT_WEIGHT = 200


def _cut(line: str, part: str, extra: int, *, ends: bool) -> bool:
    """Whether the ``extra`` characters beside a passage are the rest of a file ``line`` of which the passage holds
    only ``part``: the ``extra`` before it (the passage begins inside the line) or, ``ends``, after it."""
    whole = _squeezed(line)
    if sum(1 if ord(ch) < 128 else 6 for ch in whole) < CUT_WEIGHT or extra >= len(whole):
        return False
    return whole[: len(whole) - extra].endswith(part) if ends else whole[extra:].startswith(part)


def _squeezed(text: str) -> str:
    return "".join(text.split())


class Conversation(QObject):
    changed = Signal(object, object)  # [ConversationInfo] of the active folder, the current id (None: a new one)
    loaded = Signal()  # the turns on screen were replaced (reopened, new, or another folder)
    error = Signal(str)
    status = Signal(str)

    def __init__(self, history_for: Callable[[str], History], active: Callable[[], str], parent=None):
        super().__init__(parent)
        self.history_for, self.active = history_for, active
        self.turns: list[Turn] = []
        self.live = Live(Path(), [], None)
        self.id: int | None = None  # the saved conversation the next answer joins
        self.view = 0  # counts the conversations put on screen: an answer asked in an earlier one is not shown here
        self.search_text = ""
        self.unsaved = ""  # why the last answer could not be saved (add)

    def history(self, root: str | None = None) -> History:
        history = self.history_for(root or self.active())
        if history.note:  # a damaged file was set aside: say it once
            self.error.emit(history.note)
            history.note = ""
        return history

    # -- turns and their saved copy ------------------------------------------------------------------
    def ticket(self) -> Ticket:
        """Where an answer asked now belongs."""
        return Ticket(Path(self.active()), self.id, self.view)

    def showing(self, ticket: Ticket) -> bool:
        """Whether the conversation an answer was asked in is still the one on screen."""
        return ticket.view == self.view and str(ticket.root) == self.active()

    def add(self, turn: Turn, ticket: Ticket) -> None:
        """A new answer, saved in the conversation it was asked in; shown when that conversation is on screen."""
        shown = self.showing(ticket)
        if shown:
            self.turns.append(turn)
        self.unsaved = ""  # why the last answer could not be saved, if it could not
        try:
            history = self.history(str(ticket.root))
            if shown:
                self.id = history.record(self.id, turn.answer)
            else:  # another conversation or folder was opened meanwhile (or this one deleted: then a new one)
                known = ticket.conversation in {c.id for c in history.conversations()}
                history.record(ticket.conversation if known else None, turn.answer)
                self.status.emit(f"The answer to “{turn.answer.question[:60]}” was saved in the conversation it was "
                                 f"asked in ({ticket.root.name}).")
        except RepoBotError as err:
            self.unsaved = str(err)
            self.error.emit(self.unsaved)
        self.list()

    def list(self, search: str | None = None) -> None:
        if search is not None:
            self.search_text = search
        try:
            self.changed.emit(self.history().conversations(self.search_text), self.id)
        except RepoBotError as err:
            self.error.emit(str(err))

    def new(self) -> None:
        self.id, self.turns, self.view = None, [], self.view + 1
        self.loaded.emit()
        self.list()

    def open(self, conversation: int) -> bool:
        """Show a saved conversation exactly as it was checked; the next question continues it."""
        try:
            answers = self.history().turns(conversation)
        except RepoBotError as err:
            self.error.emit(str(err))
            return False
        self.id, self.view = conversation, self.view + 1
        self.turns = [Turn(Path(self.active()), a) for a in answers]
        self.loaded.emit()
        self.list()
        return True

    def rename(self, conversation: int, title: str) -> None:
        self._change(lambda h: h.rename(conversation, title))

    def delete(self, conversation: int) -> None:
        if self._change(lambda h: h.delete(conversation)) and conversation == self.id:
            self.new()

    def _change(self, change) -> bool:
        try:
            change(self.history())
        except RepoBotError as err:
            self.error.emit(str(err))
            return False
        self.list()
        return True

    def export(self, conversation: int, path: str) -> bool:
        """Write a conversation as markdown, with its sources and each sentence's status."""
        target = Path(path)
        problem = export_problem(target)
        if problem:
            self.error.emit(f"The conversation was not exported: {problem}")
            return False
        try:
            history = self.history()
            text = conversation_markdown(history.turns(conversation), title=history.title(conversation))
            write_text_atomic(target, text + "\n")
        except (RepoBotError, OSError) as err:
            self.error.emit(f"The conversation was not exported: {err}")
            return False
        self.status.emit(f"Conversation exported to {path}")
        return True

    def changed_sources(self, number: int) -> set[int]:
        """Ids of a turn's sources whose file changed since the answer (they open the current file)."""
        root, answer = self.turns[number]
        return {h.rank for h in answer.sources if source_changed(root, h)}

    # -- links ------------------------------------------------------------------------------------------
    def _turn(self, number: int) -> tuple[Path, list[Hit], dict[str, list[Support]]]:
        if number == -1:
            preview = self.live.preview.sentences if self.live.preview else []
            return self.live.root, self.live.hits, {"preview": preview}
        root, answer = self.turns[number]
        return root, answer.retrieved, {"final": answer.final_sentences, "model": answer.sentences}

    def sentence(self, link: str) -> tuple[Support | None, Path, list[Hit]]:
        """The sentence a ``sent:T:part:I`` link points at, with its turn's root and hits."""
        _, number, part, index = link.split(":")
        root, hits, parts = self._turn(int(number))
        items = parts.get(part, [])
        return (items[int(index)] if 0 <= int(index) < len(items) else None), root, hits

    def target(self, link: str) -> tuple[Path, Hit] | None:
        """(root, hit) a link opens; None when it points nowhere (with a message if it cites a made-up id)."""
        try:
            if link.startswith("cite:"):
                _, number, pid = link.split(":")
                root, hits, _ = self._turn(int(number))
            elif link.startswith("sent:"):
                s, root, hits = self.sentence(link)
                if s is None or not (s.cited or s.suggested):
                    return None
                pid = (s.cited or [s.suggested])[0]
            else:
                return None
        except (ValueError, IndexError):
            return None
        if not hits:  # a saved turn whose passages could not be read back (verdict "unreadable")
            self.error.emit("This turn's passages could not be read back; ask its question again to see its sources.")
            return None
        hit = next((h for h in hits if h.rank == int(pid)), None)
        if hit is None:
            self.error.emit(f"[{pid}] is not one of the passages given to the model (it cites a source that does not exist).")
            return None
        return root, hit

    def reason(self, link: str) -> str:
        """What hovering a sentence shows: its status and why, and the text it was checked as when translated."""
        if not link.startswith("sent:"):
            return ""
        try:
            s, _, _ = self.sentence(link)
        except (ValueError, IndexError):
            return ""
        return "" if s is None else s.explained

    def source_target(self, n: int) -> tuple[Path, Hit] | None:
        """(root, hit) of source n of the last answer."""
        if not self.turns:
            return None
        root, answer = self.turns[-1]
        if not 1 <= n <= len(answer.sources):
            self.error.emit(f"There is no source {n}: the answer lists {len(answer.sources)}.")
            return None
        return root, answer.sources[n - 1]


def export_problem(target: Path) -> str | None:
    """Why an export cannot be written to ``target`` (None if it can): the atomic write renames a new file over it,
    which would replace a device or a pipe, and it would create missing folders without asking.

    >>> export_problem(Path("/dev/null")), export_problem(Path("/no/such/dir/x.md")), export_problem(Path("a\\0.md"))
    ('/dev/null is not a regular file: choose a file name.', 'the folder /no/such/dir does not exist: choose one that does.', 'the file name has a NUL character: choose another.')
    """
    if "\0" in str(target):
        return "the file name has a NUL character: choose another."
    if target.exists() and not target.is_file():
        return f"{target} is not a regular file: choose a file name."
    if not target.parent.is_dir():
        return f"the folder {target.parent} does not exist: choose one that does."
    return None
