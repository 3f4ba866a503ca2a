"""The conversation on screen: its finished turns, the answer being written, and what each of its links opens.

Links are ``cite:T:N`` (passage N of turn T) and ``sent:T:part:I`` (sentence I
of the shown answer, the model's own answer, or the quoted preview); turn -1 is
the answer being written. No widgets here.
"""

from __future__ import annotations

from pathlib import Path
from typing import NamedTuple

from repobot.engine.answer import Choice
from repobot.engine.result import Answer
from repobot.engine.retrieve import Hit
from repobot.engine.support import Support


class Turn(NamedTuple):
    root: Path  # the folder the answer's sources live in
    answer: Answer


class Live(NamedTuple):
    """The answer being written: where it searched, what it found, the quotes shown meanwhile."""

    root: Path
    hits: list[Hit]
    preview: Choice | None


class Conversation:
    def __init__(self):
        self.turns: list[Turn] = []
        self.live = Live(Path(), [], None)

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

    def target(self, link: str) -> tuple[Path, Hit | None, int] | None:
        """(root, hit, id) a link opens; the hit is None when the id is not a retrieved passage."""
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
        return root, next((h for h in hits if h.rank == int(pid)), None), int(pid)

    def reason(self, link: str) -> str:
        """What hovering a sentence shows: its status and why."""
        if not link.startswith("sent:"):
            return ""
        try:
            s, _, _ = self.sentence(link)
        except (ValueError, IndexError):
            return ""
        return f"{s.status}: {s.reason}" if s else ""
