"""Events: what ``Pipeline.ask_stream`` yields, in order, for a window or a terminal to show as it comes.

    Retrieved (the hits) -> Preview (quotes, at once) -> Drafting (the model starts, and in which language)
    -> Token ... (its text, unchecked) -> Checking (the draft is written) -> Done (the checked answer)

A failed first draft brings a second Drafting, Token ... and Checking before Done.
"""

from __future__ import annotations

from typing import NamedTuple, Union

from .languages import said
from .quote import Choice
from .result import Answer
from .retrieve import Hit

WRITING = said("en", "writing")


def joined(first: str, then: str) -> str:
    """Two sentences one after the other: a space between them, unless the first ends on a full-width stop.

    >>> joined("It failed.", "Again:"), joined("失败了。", "重写：")
    ('It failed. Again:', '失败了。重写：')
    """
    return first + ("" if first.endswith(("。", "！", "？", "：")) else " ") + then


class Retrieved(NamedTuple):
    hits: list[Hit]
    language: str = "en"  # the language the answer is shown in (the command line's labels are in it)


class Preview(NamedTuple):
    choice: Choice  # quotes shown at once, while the model writes


class Drafting(NamedTuple):
    """The model starts writing, in ``language``; ``shown_in``: the language its checked answer is shown in."""

    language: str
    shown_in: str
    attempt: int = 1  # 2: the first draft failed the check, and the model writes again (pipeline.AskOptions.retry)

    @property
    def label(self) -> str:
        """What is shown above the streamed text (in a window, in English).

        >>> Drafting("en", "zh").label
        "The model is writing in English, the documents' language (not checked yet; the checked answer is shown in Chinese):"
        >>> Drafting("en", "en", 2).label
        'Its first draft was not backed by the passages; it writes again, reading the question first. The model is writing (not checked yet):'
        """
        return self.said_in("en")

    def said_in(self, code: str) -> str:
        """``label`` in answer language ``code`` (a terminal says it in the answer's).

        >>> Drafting("en", "zh").said_in("zh")
        '模型正在用英文（文档的语言）写作（尚未核对；核对后的回答以中文显示）：'
        """
        if self.language == self.shown_in:
            writing = said(code, "writing")
        else:
            writing = said(code, "writing_in", written=self.language, shown=self.shown_in)
        return joined(said(code, "again"), writing) if self.attempt > 1 else writing


class Token(NamedTuple):
    text: str


class Checking(NamedTuple):
    """The model's draft, written in ``language``, is being checked against the passages (in ``checked_in``, the
    documents' language: a draft in another is translated first), and its checked sentences put into ``shown_in``,
    when that is another language: a second or so a sentence on two cores."""

    language: str
    shown_in: str
    checked_in: str

    @property
    def label(self) -> str:
        """What a window's status bar, or a terminal under the draft, says meanwhile.

        >>> Checking("en", "zh", "en").label
        'Checking the draft against the passages, then putting the checked answer into Chinese…'
        >>> Checking("en", "en", "en").label, Checking("zh", "zh", "en").label
        ('Checking the draft against the passages…', 'Putting the draft into English to check it against the passages…')
        """
        return self.said_in("en")

    def said_in(self, code: str) -> str:
        """``label`` in answer language ``code``.

        >>> Checking("en", "zh", "en").said_in("zh")
        '正在对照段落核对草稿，然后把核对后的回答译成中文…'
        """
        if self.language != self.checked_in:
            return said(code, "checking_after", checked=self.checked_in)
        return said(code, "checking_then", shown=self.shown_in) if self.translates else said(code, "checking")

    @property
    def translates(self) -> bool:
        """Whether the check or the answer shown takes a translation (which a terminal says is coming)."""
        return self.language != self.shown_in or self.language != self.checked_in


class Done(NamedTuple):
    answer: Answer


Event = Union[Retrieved, Preview, Drafting, Token, Checking, Done]
