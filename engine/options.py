"""Options: what a question is asked with (AskOptions), and the question and options checked before anything runs.

>>> AskOptions().mode, AskOptions().retry, check_options(AskOptions(k=3)).k
('hybrid', True, 3)
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass, field

from .errors import RepoBotError
from .languages import language
from .prompt import PromptStyle
from .retrieve import READ_CHARS, check_mode

MAX_QUESTION_CHARS = 2000
REWRITES = ("auto", "always", "never")
_WORD_CHARACTER = re.compile(r"[^\W_]")  # a letter or digit, in any script
DEFAULT_STYLE = PromptStyle(example=True)  # chosen with benchmarks/prompt_variants.py (ask_first: the second draft's)


@dataclass(frozen=True)
class AskOptions:
    k: int = 5
    mode: str = "hybrid"
    language: str = "auto"  # the answer language: auto (the question's), or one of languages.ANSWER_LANGUAGES
    strict: bool = True  # the "even if you know it" rule; off only for experiments
    rewrite: str = "auto"  # auto: translate a question in another language than the documents'; always; never
    version: str | None = None  # restrict retrieval to one docs version
    max_tokens: int = 400
    gate: bool = True  # refuse before generating when the documents lack what the question is about
    style: PromptStyle = field(default=DEFAULT_STYLE)
    # Sentences each passage keeps in the prompt (with the code they introduce); 0: whole passages. Whole, because on
    # the calibrate halves trimming to 3 lost key facts (key facts whole / trimmed: httpx 0.580 / 0.536, FastAPI
    # 0.190 / 0.119): the sentences most like a question that tells a story are the page's own statement of the
    # problem, not the fix after it. Trimming saves 0.6-1.1 s to the first token.
    trim: int = 0
    read: int = READ_CHARS  # the hits grow with their neighbouring chunks up to this many characters (0: not)
    # A draft the check fails (only quotes would be shown) is written once more with the question read first
    # (PromptStyle.ask_first), and shown if that one holds. Chosen on the calibrate halves from the recorded drafts of
    # both prompts, then run live there: verified 89 -> 118 of 189 answerable questions, key facts 103 -> 107, false
    # refusals (24) and not-found (36 of 57) unchanged, 4 more unanswerable questions shown a checked answer beside
    # the point instead of quotes. The report sets agreed (README); it costs one more prompt when the first fails.
    retry: bool = True

    @property
    def prompt_style(self) -> PromptStyle:
        """The prompt's style, with the "even if you know it" rule as ``strict`` says.

        >>> AskOptions(strict=False).prompt_style.strict
        False
        """
        return self.style._replace(strict=self.strict)


def clean_question(question: str) -> tuple[str, list[str]]:
    """Strip control characters and cap the length; refuse a question with no words.

    >>> clean_question("  Does\\x00 httpx retry?\\n"), clean_question("重定向？")[0]
    (('Does httpx retry?', []), '重定向？')
    """
    text = "".join(ch for ch in question if ch in "\n\t" or unicodedata.category(ch)[0] != "C").strip()
    if not text:
        raise RepoBotError("The question is empty: type a question about the documents.")
    if not _WORD_CHARACTER.search(text):  # "🚀🔥💯", "?!": nothing to search for or to answer
        raise RepoBotError("The question has no words, only symbols: type a question about the documents in words.")
    notes = []
    if len(text) > MAX_QUESTION_CHARS:
        notes.append(f"The question was shortened from {len(text)} to {MAX_QUESTION_CHARS} characters.")
        text = text[:MAX_QUESTION_CHARS]
    return text, notes


def check_options(options: AskOptions) -> AskOptions:
    """The options, unchanged, or a RepoBotError that says which one is wrong and how to fix it."""
    check_mode(options.mode)
    for flag, value, what in (("--k", options.k, "passages to retrieve"),
                              ("--max-tokens", options.max_tokens, "the answer's length cap")):
        if value < 1:
            raise RepoBotError(f"{flag} must be at least 1 ({what}), not {value}: leave it out for the default.")
    if options.rewrite not in REWRITES:
        raise RepoBotError(f"Unknown rewrite setting {options.rewrite!r}: choose one of {', '.join(REWRITES)}.")
    if options.language != "auto":
        try:
            language(options.language)
        except ValueError as err:
            raise RepoBotError(str(err)) from None
    return options
