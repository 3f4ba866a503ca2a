"""The ``repobot`` command's arguments, one sub-command at a time."""

from __future__ import annotations

import argparse
from pathlib import Path

from repobot import __version__
from repobot.engine.languages import LANGUAGE_CHOICES
from repobot.engine.questions import SPLITS
from repobot.engine.retrieve import MODES

from .report import one_line


def usage_error(prog: str, message: str) -> str:
    """argparse's complaint as RepoBot's one line: what is wrong, and where to read how to fix it. A folder given
    without ``--corpus`` (``repobot index ~/docs``) is told to use it.

    >>> usage_error("repobot ask", "the following arguments are required: question")
    'repobot ask: the following arguments are required: question. A question that starts with "-" goes after --: `repobot ask -- "-x?"`. See `repobot ask --help`.'
    >>> usage_error("repobot index", "unrecognized arguments: /")
    'repobot index: unrecognized arguments: /. Give a folder as --corpus /. See `repobot index --help`.'
    """
    hint = ""
    if message.startswith("unrecognized arguments: "):
        folders = [a for a in message.split(": ", 1)[1].split() if Path(a).expanduser().is_dir()]
        hint = f" Give a folder as --corpus {folders[0]}." if folders else ""
    elif message.endswith("required: question"):  # `repobot ask "--timeout?"`: argparse read it as an option
        hint = f' A question that starts with "-" goes after --: `{prog} -- "-x?"`.'
    return f"{prog}: {message}.{hint} See `{prog} --help`."


class Parser(argparse.ArgumentParser):
    """argparse whose usage errors are one line on stderr (``usage_error``) and exit 2, like RepoBot's other errors.
    Unrecognized arguments are blamed on the sub-command they were given to."""

    def error(self, message: str):
        self.exit(2, one_line(usage_error(self.prog, message)) + "\n")

    def parse_args(self, args=None, namespace=None):
        parsed, extra = self.parse_known_args(args, namespace)
        if extra:
            command = getattr(parsed, "command", None)
            prog = f"{self.prog} {command}" if command else self.prog
            self.exit(2, one_line(usage_error(prog, f"unrecognized arguments: {' '.join(extra)}")) + "\n")
        return parsed


def corpus_arg(p) -> None:
    p.add_argument("--corpus", type=folder_name, help="folder of markdown files (default: RepoBot's own user guide)")


def filled(option: str, give: str, default: str):
    """An argparse type for ``option``: any text but an empty one, which would quietly mean its default.

    >>> folder_name("~/docs")
    '~/docs'
    >>> folder_name(" ")
    Traceback (most recent call last):
    argparse.ArgumentTypeError: it is empty: give a folder of markdown files, or leave --corpus out for RepoBot's guide
    """
    def value(text: str) -> str:
        if not text.strip():
            raise argparse.ArgumentTypeError(f"it is empty: give {give}, or leave {option} out for {default}")
        return text

    return value


folder_name = filled("--corpus", "a folder of markdown files", "RepoBot's guide")


def language_codes(text: str) -> list[str]:
    """A ``--languages`` value: comma-separated codes, at least one (an empty one would quietly keep the last choice).

    >>> language_codes(" en, ZH ,")
    ['en', 'zh']
    >>> language_codes(" , ")
    Traceback (most recent call last):
    argparse.ArgumentTypeError: it names no language: give codes such as en,zh, or leave --languages out
    """
    codes = [code.strip().lower() for code in text.split(",") if code.strip()]
    if not codes:
        raise argparse.ArgumentTypeError("it names no language: give codes such as en,zh, or leave --languages out")
    return codes


def model_arg(p, help: str = "a .gguf chat model (path, or a file name in models/)") -> None:
    p.add_argument("--model", type=filled("--model", "a .gguf file", "the default model"), help=help)


def retrieval_args(p) -> None:
    p.add_argument("--k", type=int, default=5, help="passages to retrieve (default 5)")
    p.add_argument("--mode", default="hybrid", choices=MODES, help="retrieval mode")
    p.add_argument("--docs-version", type=filled("--docs-version", "a version of the documents", "every version"),
                   help="only use chunks of this documentation version")
    p.add_argument("--rewrite", action="store_const", const="always", default="auto",
                   help="always rewrite the query with the model first (by default only a question in another "
                        "language than the documents is rewritten, into theirs)")
    p.add_argument("--json", action="store_true", help="print JSON")


def index_args(p) -> None:
    corpus_arg(p)
    p.add_argument("--languages", type=language_codes,
                   help="in a translated tree, index only these languages (e.g. en,zh); remembered")
    p.add_argument("--measure-embedder", action="store_true",
                   help="time the embedding paths on this machine again and keep the fastest good one")
    p.add_argument("--json", action="store_true", help="print JSON, no progress bar")


def ask_args(p) -> None:
    p.add_argument("question")
    corpus_arg(p)
    retrieval_args(p)
    model_arg(p)
    p.add_argument("--language", default="auto", choices=LANGUAGE_CHOICES, help="answer language")
    p.add_argument("--max-tokens", type=int, default=400, help="cap on the answer's length in tokens")
    p.add_argument("--no-strict", action="store_true", help="drop the 'even if you know it' rule (experiments)")
    p.add_argument("--no-gate", action="store_true", help="generate even when passages miss the question's key terms")
    p.add_argument("--no-retry", action="store_true",
                   help="one draft only: no second one, question first, when the check fails the first (faster)")
    p.add_argument("--conversation", type=int, help="continue this saved conversation (see `repobot history`)")


def eval_args(p) -> None:
    p.add_argument("questions", help="JSONL file: question, answerable, gold_sources, key_facts (optional: language, split, earlier)")
    corpus_arg(p)
    p.add_argument("--modes", default="bm25,dense,hybrid", help="comma-separated retrieval modes")
    model_arg(p)
    p.add_argument("--no-answers", action="store_true", help="retrieval metrics only (no generation)")
    p.add_argument("--split", choices=SPLITS, help="only the questions of this split (calibrate or report)")
    p.add_argument("--json", action="store_true", help="print JSON")


def history_args(p) -> None:
    corpus_arg(p)
    p.add_argument("--search", default="", help="only conversations whose text contains this")
    p.add_argument("--export", type=int, metavar="ID", help="print conversation ID as markdown (with --json: as JSON)")
    p.add_argument("--json", action="store_true", help="print JSON")


def gui_args(p) -> None:
    corpus_arg(p)
    model_arg(p)
    p.add_argument("--ask", help="ask this question once the window is ready")
    p.add_argument("--screenshot", help="save a PNG of the window (after the answer, if --ask)")
    p.add_argument("--open-source", type=int, help="click source N of the answer")
    p.add_argument("--quit", action="store_true", help="quit after the steps above")


def search_args(p) -> None:
    p.add_argument("question")
    corpus_arg(p)
    retrieval_args(p)


def check_args(p) -> None:
    p.add_argument("--n-docs", type=int, required=True, help="number of passages the answer could cite")


def models_args(p) -> None:
    p.add_argument("--json", action="store_true")


SUBCOMMANDS = {
    "index": ("build or update the index of a folder", index_args),
    "search": ("retrieve passages for a question", search_args),
    "ask": ("answer a question with cited, checked sentences", ask_args),
    "check": ("the lesson's form check of an answer read from stdin", check_args),
    "eval": ("evaluate retrieval and answers on a question set", eval_args),
    "history": ("list, search or export the saved conversations of a folder", history_args),
    "models": ("list the GGUF models RepoBot can use", models_args),
    "gui": ("open the desktop window", gui_args),
}


def build_parser() -> argparse.ArgumentParser:
    parser = Parser(prog="repobot", description="Offline, cited answers about a folder of markdown docs.")
    parser.add_argument("--version", action="version", version=f"repobot {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name, (help_text, add) in SUBCOMMANDS.items():
        add(sub.add_parser(name, help=help_text))
    return parser
