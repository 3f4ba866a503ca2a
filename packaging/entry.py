"""Entry point of the packaged app: `repobot` with no command opens the window."""

import sys

from repobot.cli.main import run

if __name__ == "__main__":
    sys.exit(run(sys.argv[1:] or ["gui"]))
