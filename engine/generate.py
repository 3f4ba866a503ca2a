"""Generate: stream an answer from a local chat model, cancellable, with thinking hidden.

``LLM.stream_chat`` is the one abstract method; ``llama.LlamaCppLLM`` implements
it with llama-cpp-python and the GGUF's own chat template. ``Generation`` wraps
any LLM: it checks the cancel flag at every token (and, through ``LLM.stopping_on``,
inside the prompt's evaluation where the model can), caps the length, stops when the
model starts repeating itself or writing its prompt out again (``echo``), and hides ``<think>…</think>``.
"""

from __future__ import annotations

import re
import threading
import time
from abc import ABC, abstractmethod
from collections import Counter
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Iterator, Sequence

Messages = Sequence[dict[str, str]]


class LLM(ABC):
    name: str = "llm"
    n_ctx: int = 4096
    finish_reason: str | None = None  # the last reply's, when the model reports one ("length": cut at max_tokens)

    @abstractmethod
    def stream_chat(self, messages: Messages, *, max_tokens: int) -> Iterator[str]:
        """Yield the assistant's reply piece by piece."""

    def count_tokens(self, text: str) -> int:
        """Tokens in ``text`` (a rough estimate unless the model overrides it)."""
        return len(text) // 3 + 1

    def prepare(self, messages: Messages) -> None:
        """Read ahead what every prompt shaped like ``messages`` begins with (its rules and worked example), so that
        the first reply to such a prompt comes as soon as the next ones. Here, nothing to read ahead."""

    @contextmanager
    def stopping_on(self, cancel: threading.Event) -> Iterator[None]:
        """While inside, ``cancel`` may also stop the work the model does before its first piece (reading the
        prompt): its stream then ends early. Here, nothing more than the check at every piece."""
        yield


# --- pure helpers ----------------------------------------------------------------

_THINK = re.compile(r"<think>.*?(</think>|\Z)", re.S)


def strip_thinking(text: str) -> str:
    """Remove reasoning blocks, closed or left open at the end.

    >>> strip_thinking("<think>hmm</think>Redirects are off [1].")
    'Redirects are off [1].'
    >>> strip_thinking("Answer.<think>still thinking")
    'Answer.'
    """
    return _THINK.sub("", text).lstrip() if "<think>" in text else text


def held_back(text: str, tags: Sequence[str] = ("<think>",)) -> str:
    """``text`` without a tail that may still become one of ``tags``: streamed, "<thi" is not shown before "nk>"
    arrives.

    >>> held_back("Off by default <thi"), held_back("<"), held_back("a < b")
    ('Off by default ', '', 'a < b')
    >>> held_back("Off by default [1]. </do", ("<think>", "</doc"))
    'Off by default [1]. '
    """
    for n in range(min(len(text), max(map(len, tags)) - 1), 0, -1):
        if any(tag.startswith(text[-n:]) for tag in tags):
            return text[:-n]
    return text


def echo_start(text: str, echo: re.Pattern | None) -> int | None:
    """Where a reply starts writing its prompt out again (``echo`` matches there, after some text), or None.

    A small model that has answered sometimes goes on printing the passages it
    read, tags and all (``</doc>``, then ``<doc id="2" …>`` and the next page):
    the reply ends where that begins.

    >>> tag = re.compile(r"</doc>|<doc id=\\S+>")
    >>> echo_start("Use `uds=` [1].\\n</doc>\\n<doc id=2>", tag), echo_start("<doc id=1> Off [1].", tag)
    (16, None)
    """
    if echo is None:
        return None
    for match in echo.finditer(text):
        if text[: match.start()].strip():
            return match.start()
    return None


def is_repeating(text: str, *, times: int = 3, min_len: int = 12, max_len: int = 200) -> bool:
    """True when the text ends with the same piece ``times`` times in a row.

    >>> is_repeating("Intro. " + "Use follow_redirects=True [1]. " * 3)
    True
    >>> is_repeating("Redirects are not followed by default [1].")
    False
    """
    tail = text[-max_len * times :]
    for size in range(min_len, min(max_len, len(tail) // times) + 1):
        piece = tail[-size:]
        if piece.strip() and tail.endswith(piece * times):
            return True
    return False


_NOISE = re.compile(r"[\W\d_]+")  # all but letters: numbers, [n], markup, punctuation, spaces


def line_key(line: str) -> str:
    """A line as a loop detector compares it: lower case, without numbers, citations, markup or punctuation.

    >>> line_key("3. **Use camelCase**: turn `create_item` into `createItem` [2].")
    'usecamelcaseturncreateitemintocreateitem'
    """
    return _NOISE.sub("", line.lower())


def repeats_line(text: str, *, times: int = 3, min_len: int = 16) -> bool:
    """True when a finished prose line says, numbers aside, what ``times - 1`` earlier ones said: a small model
    going round a numbered list ("4. Use camelCase…", "6. Use camelCase…") or round the same example ("Use
    `DigestAuth` like this:" before each of four code blocks), which ``is_repeating`` (the same text, back to back)
    misses. Lines inside code blocks are not compared. Every finished line counts, not only the last one: a
    streamed piece may end a line and open a code block at once (":\\n\\n```").

    >>> loop = "Steps:\\n1. Use the client's base_url [1].\\n2. Pass headers.\\n3. Use the client's base_url [1].\\n"
    >>> code = "```\\nclient = httpx.Client()\\n```\\n" * 3
    >>> repeats_line(loop + "4. Use the client's base_url.\\n"), repeats_line(loop), repeats_line(code)
    (True, False, False)
    >>> repeats_line(("Use `DigestAuth` like this:\\n\\n```\\nhttpx.DigestAuth(user, password)\\n```\\n\\n" * 3) + "```")
    True
    """
    prose: list[str] = []
    fenced = False
    for line in text.split("\n")[:-1]:  # finished lines
        if line.lstrip().startswith("```"):
            fenced = not fenced
        elif not fenced and len(key := line_key(line)) >= min_len:
            prose.append(key)
    return any(count >= times for count in Counter(prose).values())


@dataclass
class Generation:
    """One streamed answer. Iterate it for visible text; read the stats afterwards."""

    llm: LLM
    messages: Messages
    max_tokens: int = 400
    cancel: threading.Event = field(default_factory=threading.Event)
    echo: re.Pattern | None = None  # what the reply ends before: the prompt's own markup, written out again
    raw: str = ""
    tokens: int = 0
    stop_reason: str = ""
    started: float = 0.0
    first_token_s: float | None = None
    total_s: float = 0.0

    def __iter__(self) -> Iterator[str]:
        self.started = time.perf_counter()
        self.stop_reason = "end"
        stream = self.llm.stream_chat(self.messages, max_tokens=self.max_tokens)
        try:
            with self.llm.stopping_on(self.cancel):
                yield from self._visible(stream)
        finally:
            close = getattr(stream, "close", None)
            if close:
                close()
            self.total_s = time.perf_counter() - self.started

    def _visible(self, stream: Iterator[str]) -> Iterator[str]:
        """The stream's pieces as they may be shown; sets ``stop_reason`` when it stops before the model's end."""
        shown = ""
        for piece in stream:
            if self.cancel.is_set():
                self.stop_reason = "cancelled"
                return
            if self.first_token_s is None:
                self.first_token_s = time.perf_counter() - self.started
            self.tokens += 1
            self.raw += piece
            cut = echo_start(self.raw, self.echo) if "<" in self.raw else None  # no tag before a "<"
            if cut is not None:
                self.raw = self.raw[:cut]
                self.stop_reason = "echo"
                return
            visible = held_back(strip_thinking(self.raw).lstrip(), self._held)
            if visible.startswith(shown) and len(visible) > len(shown):
                yield visible[len(shown) :]
                shown = visible
            if is_repeating(self.raw) or ("\n" in piece and repeats_line(self.raw)):
                self.stop_reason = "repetition"
                return
        if self.cancel.is_set():  # stopped while the model read the prompt (``LLM.stopping_on``): no piece came
            self.stop_reason = "cancelled"
            return
        # a piece can hold several tokens (one CJK character), so the model's own reason comes first
        if self.llm.finish_reason == "length" or self.tokens >= self.max_tokens:
            self.stop_reason = "length"
        if self.text.startswith(shown) and len(self.text) > len(shown):
            yield self.text[len(shown) :]  # a tail held back in case it opened "<think>"

    @property
    def _held(self) -> tuple[str, ...]:
        """The tags whose beginnings are held back while streaming."""
        return ("<think>", "<doc", "</doc") if self.echo is not None else ("<think>",)

    @property
    def text(self) -> str:
        """The answer with thinking removed."""
        return strip_thinking(self.raw).strip()

    @property
    def tokens_per_s(self) -> float:
        gen_time = self.total_s - (self.first_token_s or 0.0)
        return (self.tokens - 1) / gen_time if self.tokens > 1 and gen_time > 0 else 0.0
