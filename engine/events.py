"""Events: what ``Pipeline.ask_stream`` yields, in order, for a window or a terminal to show as it comes.

    Retrieved (the hits) -> Preview (quotes, at once) -> Drafting (the model starts, and in which language)
    -> Token ... (its text, unchecked) -> Done (the checked answer)
"""

from __future__ import annotations

from typing import NamedTuple, Union

from .languages import language
from .quote import Choice
from .result import Answer
from .retrieve import Hit

WRITING = "The model is writing (not checked yet):"
AGAIN = "Its first draft was not backed by the passages; it writes again, reading the question first. "


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
        """What is shown above the streamed text.

        >>> Drafting("en", "zh").label
        "The model is writing in English, the documents' language (not checked yet; the checked answer is shown in Chinese):"
        >>> Drafting("en", "en", 2).label
        'Its first draft was not backed by the passages; it writes again, reading the question first. The model is writing (not checked yet):'
        """
        again = AGAIN if self.attempt > 1 else ""
        if self.language == self.shown_in:
            return again + WRITING
        return again + (f"The model is writing in {language(self.language).name}, the documents' language (not checked "
                        f"yet; the checked answer is shown in {language(self.shown_in).name}):")


class Token(NamedTuple):
    text: str


class Done(NamedTuple):
    answer: Answer


Event = Union[Retrieved, Preview, Drafting, Token, Done]
