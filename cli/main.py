"""``repobot``: the command line. Every error is one line on stderr and a non-zero exit.

    repobot index [--corpus DIR]
    repobot search "QUESTION" [--corpus DIR] [--k 5] [--mode hybrid|bm25|dense] [--json]
    repobot ask "QUESTION" [--corpus DIR] [--model GGUF] [--json]
    repobot check --n-docs N   < answer.txt
    repobot eval QUESTIONS.jsonl [--corpus DIR] [--modes bm25,dense,hybrid] [--json]
    repobot history [--corpus DIR] [--json] [--search TEXT] [--export ID]
    repobot models [--json]
    repobot gui [--corpus DIR] [--ask Q] [--screenshot PNG] [--open-source N] [--quit]
"""

from __future__ import annotations

import os
import signal
import sys

from .commands import COMMANDS, EXIT_USER_ERROR
from .parser import build_parser
from .report import one_line

EXIT_INTERRUPTED = 130
EXIT_PIPE = 141  # as a shell reports a command stopped by SIGPIPE


def run(argv: list[str] | None = None) -> int:
    """The ``repobot`` command: ``main`` with Ctrl-C handled as a command line should.

    The first Ctrl-C stops the work, which saves what it has, and exits 130. Later ones are
    ignored: left to Python, a second one would break into the saving, or into the wait
    for the embedder's threads at exit, and the process would abort inside onnxruntime.
    """
    signal.signal(signal.SIGINT, _interrupt_once)
    for stream, errors in ((sys.stdin, "replace"), (sys.stdout, "backslashreplace"), (sys.stderr, "backslashreplace")):
        if hasattr(stream, "reconfigure"):  # bytes that are not UTF-8, in a file name or piped in, never stop a command
            stream.reconfigure(errors=errors)
    return main(sys.argv[1:] if argv is None else argv)


def _interrupt_once(signum, frame):
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    raise KeyboardInterrupt


def main(argv: list[str] | None = None) -> int:
    """Run one command (``commands.COMMANDS``); its exit code, or the one for what went wrong, said in one line.

    >>> main([])  # no command: the help goes to stderr
    2
    """
    args = build_parser().parse_args(argv)
    if not args.command:
        build_parser().print_help(sys.stderr)
        return EXIT_USER_ERROR
    from repobot.engine.errors import DISK_FULL, RepoBotError

    if sys.stdout is None and args.command != "gui":  # started with its output closed (`>&-`): nothing could be said
        if sys.stderr is not None:
            print(f"repobot: its output is closed, so {args.command} could not say anything: run it without `>&-`, "
                  "or send its output to a file (> out.txt) or to /dev/null.", file=sys.stderr)
        return EXIT_USER_ERROR
    try:
        code = COMMANDS[args.command](args) or 0
        if sys.stdout is not None:  # a full disk or a closed pipe is found here, not after main() has returned
            sys.stdout.flush()
        return code
    except RepoBotError as err:
        print(one_line(f"repobot: {err}"), file=sys.stderr)
        return EXIT_USER_ERROR
    except KeyboardInterrupt:
        lead = "\n" if sys.stderr is not None and sys.stderr.isatty() else ""  # off the progress bar's line
        print(f"{lead}repobot: interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED
    except BrokenPipeError:  # `repobot history | head` closed the pipe: nothing more to say, to anyone
        _discard_output()
        return EXIT_PIPE
    except OSError as err:
        if err.errno not in DISK_FULL or os.environ.get("REPOBOT_DEBUG"):
            raise
        _discard_output()
        print(one_line(f"repobot: cannot write {err.filename or 'the output'}: {err.strerror}. Free some space "
                       "(or write the output elsewhere) and run it again."), file=sys.stderr)
        return EXIT_USER_ERROR
    except Exception as err:  # a bug: still one line, with how to see more
        if os.environ.get("REPOBOT_DEBUG"):
            raise
        print(one_line(f"repobot: unexpected error: {type(err).__name__}: {err} (set REPOBOT_DEBUG=1 for details)"),
              file=sys.stderr)
        return 1


def _discard_output() -> None:
    """What is left in stdout's buffer goes nowhere, so that Python's last flush at exit cannot fail again."""
    os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())


if __name__ == "__main__":
    sys.exit(main())
