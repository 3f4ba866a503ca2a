"""History: each collection's conversations, saved in SQLite in its data folder.

A turn keeps what was asked and shown: the question, the passages retrieved
(source, lines, heading, text), the checked answer with every sentence's
status, the verdict, the model and the timings, as the one JSON form of
``engine/result.py``. SQLite commits are atomic; a file that is not a sound
database is set aside (``history.damaged-<time>.sqlite3``) with a one-line
note, and a new one is started.

>>> import tempfile; from pathlib import Path
>>> h = History(Path(tempfile.mkdtemp()) / "store" / "history.sqlite3")
>>> h.conversations(), h.path.parent.exists()         # nothing is written until something is saved
([], False)
>>> c = h.new("Redirects"); h.rename(c, "Redirects in httpx"); [(x.title, x.turns) for x in h.conversations()]
[('Redirects in httpx', 0)]
"""

from __future__ import annotations

import json
import os
import sqlite3
import time
from pathlib import Path
from typing import NamedTuple

from .errors import RepoBotError, unwritable_data_folder
from .result import Answer, answer_from_json, answer_json

SCHEMA = """
CREATE TABLE IF NOT EXISTS conversations (
    id INTEGER PRIMARY KEY, title TEXT NOT NULL, created REAL NOT NULL, updated REAL NOT NULL
);
CREATE TABLE IF NOT EXISTS turns (
    id INTEGER PRIMARY KEY,
    conversation INTEGER NOT NULL REFERENCES conversations(id) ON DELETE CASCADE,
    position INTEGER NOT NULL, question TEXT NOT NULL, answer TEXT NOT NULL, data TEXT NOT NULL, created REAL NOT NULL
);
CREATE INDEX IF NOT EXISTS turns_by_conversation ON turns(conversation, position);
"""
TITLE_CHARS = 80


class ConversationInfo(NamedTuple):
    id: int
    title: str
    created: float
    updated: float
    turns: int


class History:
    """The conversations of one collection. Every change is one transaction."""

    def __init__(self, path: Path):
        self.path = Path(path)
        self.note = ""  # set when a damaged file was set aside
        self._db: sqlite3.Connection | None = None
        self._opened(create=False)

    def _opened(self, create: bool) -> sqlite3.Connection | None:
        """The open database; made on the first write (``create``), so that only reading it, as listing the
        conversations of a folder never asked about does, leaves no file or folder behind. None: none yet."""
        if self._db is None and (create or self._made()):
            self._connect()
        return self._db

    def _made(self) -> bool:
        """Whether the file is there; one that may not be looked at counts as there, so that opening it says why."""
        try:
            os.lstat(self.path)
        except (FileNotFoundError, NotADirectoryError):
            return False
        except OSError:
            return True
        return True

    def _connect(self) -> None:
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self._db = self._open()
        except OSError as err:
            raise unwritable_data_folder(self.path.parent, err) from err
        except sqlite3.OperationalError as err:  # locked, or not ours to open: the file is sound, so never set aside
            raise _unopened(self.path, err) from err
        except sqlite3.DatabaseError as err:
            aside = self.path.with_name(f"history.damaged-{time.strftime('%Y%m%d-%H%M%S')}.sqlite3")
            try:
                self.path.replace(aside)
            except OSError as moved:  # on Windows, a file another program holds open cannot be renamed
                raise RepoBotError(
                    f"The conversation history {self.path} is damaged ({err}) and could not be set aside ({moved}): "
                    "close other RepoBot windows or commands and any program that has it open, then start RepoBot "
                    "again, or move the file away yourself.") from moved
            self.note = f"The conversation history was damaged ({err}); it was set aside as {aside.name} and a new one started."
            self._db = self._open()

    def _open(self) -> sqlite3.Connection:
        db = sqlite3.connect(self.path, isolation_level=None, check_same_thread=False)
        try:
            if db.execute("PRAGMA quick_check").fetchone()[0] != "ok":
                raise sqlite3.DatabaseError("integrity check failed")
            db.execute("PRAGMA foreign_keys = ON")
            db.executescript(SCHEMA)
        except sqlite3.DatabaseError:
            db.close()
            raise
        return db

    def close(self) -> None:
        if self._db is not None:
            self._db.close()

    def _write(self, sql: str, args: tuple = ()) -> sqlite3.Cursor:
        db = self._opened(create=True)
        try:
            with db:
                db.execute("BEGIN")
                return db.execute(sql, args)
        except sqlite3.Error as err:
            raise self._unsaved(err) from err

    def _unsaved(self, err: sqlite3.Error) -> RepoBotError:
        return self._gone(", so this was not saved") or RepoBotError(
            f"The conversation could not be saved ({err}); check that {self.path.parent} is writable and that no "
            "other RepoBot is writing to it.")

    def _gone(self, unsaved: str = "") -> RepoBotError | None:
        """The message when the file was removed or damaged while it was open: only opening it again helps
        (a damaged file is then set aside, a removed one started anew)."""
        try:
            if not self.path.is_file():
                what = "was removed"
            elif self._db.execute("PRAGMA quick_check").fetchone()[0] != "ok":
                what = "was damaged"
            else:
                return None
        except sqlite3.OperationalError:  # locked by another RepoBot: the file itself is sound
            return None
        except sqlite3.DatabaseError:
            what = "was damaged"
        fix = "set it aside and start a new one" if what == "was damaged" else "start a new one"
        return RepoBotError(f"The conversation history {self.path} {what} while RepoBot had it open{unsaved}; "
                            f"restart RepoBot to {fix}.")

    def _read(self, sql: str, args: tuple = ()) -> list[tuple]:
        db = self._opened(create=False)
        if db is None:  # nothing saved yet
            return []
        try:
            return db.execute(sql, args).fetchall()
        except OverflowError:  # an id past SQLite's 64-bit integers (`--export 1e24`): no row can have it
            return []
        except sqlite3.Error as err:
            raise self._gone() or RepoBotError(f"The conversation history could not be read ({err}); try again, or "
                                               "close other RepoBot windows or commands using it.") from err

    # -- conversations -------------------------------------------------------------------------
    def new(self, title: str) -> int:
        now = time.time()
        return self._write("INSERT INTO conversations(title, created, updated) VALUES (?, ?, ?)",
                           (_title(title), now, now)).lastrowid

    def rename(self, conversation: int, title: str) -> None:
        self._need(conversation)
        self._write("UPDATE conversations SET title = ? WHERE id = ?", (_title(title), conversation))

    def delete(self, conversation: int) -> None:
        self._need(conversation)
        self._write("DELETE FROM conversations WHERE id = ?", (conversation,))

    def conversations(self, search: str = "") -> list[ConversationInfo]:
        """Newest first; ``search`` keeps those whose title, questions or answers contain it as plain text, of any
        length (SQLite ignores the case of ASCII letters only)."""
        text = searchable(search).strip().lower()
        rows = self._read(
            """SELECT c.id, c.title, c.created, c.updated, COUNT(t.id) FROM conversations c
               LEFT JOIN turns t ON t.conversation = c.id
               WHERE ? = '' OR instr(lower(c.title), ?) OR c.id IN (
                   SELECT conversation FROM turns WHERE instr(lower(question), ?) OR instr(lower(answer), ?))
               GROUP BY c.id ORDER BY c.updated DESC, c.id DESC""",
            (text, text, text, text),
        )  # instr, not LIKE: a LIKE pattern over 50,000 bytes is an error, and % and _ in it would be wildcards
        return [ConversationInfo(*row) for row in rows]

    def _need(self, conversation: int) -> None:
        if not self._read("SELECT 1 FROM conversations WHERE id = ?", (conversation,)):
            known = ", ".join(str(c.id) for c in self.conversations()[:10]) or "none yet"
            raise RepoBotError(f"No conversation {conversation} in this folder; known ids: {known}. "
                               "See `repobot history`.")

    # -- turns -----------------------------------------------------------------------------------
    def add(self, conversation: int, answer: Answer) -> None:
        """Save one answered question at the end of a conversation."""
        self._need(conversation)
        data = json.dumps(answer_json(answer, full=True), ensure_ascii=False)
        now = time.time()
        db = self._opened(create=True)
        try:
            with db:
                db.execute("BEGIN")
                db.execute(
                    """INSERT INTO turns(conversation, position, question, answer, data, created)
                       VALUES (?, (SELECT COUNT(*) FROM turns WHERE conversation = ?), ?, ?, ?, ?)""",
                    (conversation, conversation, answer.question, answer.final_answer, data, now))
                db.execute("UPDATE conversations SET updated = ? WHERE id = ?", (now, conversation))
        except sqlite3.Error as err:
            raise self._unsaved(err) from err

    def record(self, conversation: int | None, answer: Answer) -> int:
        """Save an answer in ``conversation``, or in a new one titled by its question; returns the id."""
        if conversation is None:
            conversation = self.new(answer.question.splitlines()[0])
        answer.conversation = conversation
        self.add(conversation, answer)
        return conversation

    def context(self, conversation: int) -> list[tuple[str, str]]:
        """The earlier turns as (question, shown answer), for rewriting a follow-up question."""
        rows = self._read("SELECT question, answer FROM turns WHERE conversation = ? ORDER BY position",
                          (conversation,))
        return [tuple(row) for row in rows]

    def turns(self, conversation: int) -> list[Answer]:
        """The conversation's answers, in order, exactly as they were checked and shown."""
        self._need(conversation)
        rows = self._read("SELECT question, answer, data FROM turns WHERE conversation = ? ORDER BY position",
                          (conversation,))
        return [saved_turn(*row) for row in rows]

    def title(self, conversation: int) -> str:
        self._need(conversation)
        return self._read("SELECT title FROM conversations WHERE id = ?", (conversation,))[0][0]


def _title(text: str) -> str:
    r"""A conversation's title: one line of printable text, at most TITLE_CHARS characters.

    >>> _title("  Redirects?\n\x1b[31mand proxies\x00 "), _title("\x07")
    ('Redirects? [31mand proxies', 'Conversation')
    """
    line = " ".join("".join(ch if ch.isprintable() else " " for ch in text).split())
    return line[:TITLE_CHARS] or "Conversation"


def _unopened(path: Path, err: sqlite3.OperationalError) -> RepoBotError:
    """Why the history file could not be opened, with the fix: a lock held by another RepoBot, or a file (or
    folder) this user may not open.

    >>> print(_unopened(Path("/d/history.sqlite3"), sqlite3.OperationalError("unable to open database file")))
    RepoBot cannot open its conversation history /d/history.sqlite3 (unable to open database file): make it and /d readable and writable by you, or set REPOBOT_HOME to a folder you can write.
    """
    if "locked" in str(err) or "busy" in str(err):
        return RepoBotError(f"The conversation history {path} cannot be opened now ({err}); close other RepoBot "
                            "windows or commands using it and try again.")
    return RepoBotError(f"RepoBot cannot open its conversation history {path} ({err}): make it and {path.parent} "
                        "readable and writable by you, or set REPOBOT_HOME to a folder you can write.")


def saved_turn(question: str, shown: str, data: str) -> Answer:
    """A saved turn as it was checked and shown; one whose details cannot be read back (edited or damaged by
    hand) keeps its question and the answer shown, with verdict ``unreadable`` and a note, so that the rest of
    the conversation still opens.

    >>> saved_turn("Q?", "Off [1].", "{not json").verdict, saved_turn("Q?", "Off [1].", "[]").final_answer
    ('unreadable', 'Off [1].')
    """
    try:
        return answer_from_json(json.loads(data))
    except (ValueError, TypeError, KeyError, IndexError, AttributeError) as err:
        note = f"This turn's saved details could not be read ({type(err).__name__}); only its question and answer are shown."
        return Answer(question, "en", "", [], [], final_answer=shown, verdict="unreadable", notes=[note])


def searchable(text: str) -> str:
    """``text`` with each lone surrogate (how Python keeps the undecodable bytes of a non-UTF-8 argument) made
    U+FFFD, which SQLite can take.

    >>> searchable("caf\\udce9"), searchable("café")
    ('caf\ufffd', 'café')
    """
    return text.encode("utf-16", "surrogatepass").decode("utf-16", "replace")
