"""Entry point of the packaged app: `repobot` with no command opens the window."""

import sys

from repobot.cli.main import main

if __name__ == "__main__":
    sys.exit(main(sys.argv[1:] or ["gui"]))
