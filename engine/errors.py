"""Errors meant for users: each message says what went wrong and how to fix it."""

from __future__ import annotations

import errno
import re
import sys
from typing import Callable


class RepoBotError(Exception):
    """A problem the user can fix; ``str(err)`` is one line that says how.

    >>> str(RepoBotError("No markdown files in /tmp/x: point --corpus at a folder with *.md files."))
    'No markdown files in /tmp/x: point --corpus at a folder with *.md files.'
    """


class CorpusError(RepoBotError):
    """The documentation folder is missing, empty or unreadable."""


class ModelError(RepoBotError):
    """A model file is missing, corrupt or unusable."""


class IndexStoreError(RepoBotError):
    """The persisted index cannot be used."""


def unwritable_data_folder(folder: object, err: OSError) -> RepoBotError:
    """The one line for a data folder RepoBot cannot write: read-only, full, or a file where a folder should be.

    >>> print(unwritable_data_folder("/x", PermissionError(13, "Permission denied")))
    RepoBot cannot write its data folder /x (Permission denied): make it a folder you can write, or set REPOBOT_HOME to one.

    A full disk says so, also when only a short write showed it (numpy's "requested and … written"):

    >>> print(unwritable_data_folder("/x", OSError("112512 requested and 25568 written")))
    RepoBot cannot write its data folder /x: the disk is full (112512 requested and 25568 written). Free some space, or set REPOBOT_HOME to a folder on another disk; what was saved before is kept.
    """
    said = err.strerror or str(err)
    if err.errno in DISK_FULL or _SHORT_WRITE.search(said):
        return RepoBotError(f"RepoBot cannot write its data folder {folder}: the disk is full ({said}). Free some "
                            "space, or set REPOBOT_HOME to a folder on another disk; what was saved before is kept.")
    return RepoBotError(f"RepoBot cannot write its data folder {folder} ({said}): make it a folder "
                        "you can write, or set REPOBOT_HOME to one.")


DISK_FULL = (errno.ENOSPC, getattr(errno, "EDQUOT", errno.ENOSPC))  # no space left, or over the user's quota
_SHORT_WRITE = re.compile(r"\d+ requested and \d+ written")


class Cancelled(Exception):
    """Raised inside long work when the user pressed Stop or Cancel."""


def run_tool(action: Callable[[], str]) -> int:
    """Run a set-up tool's action (``python -m repobot.engine.…``): print the line it returns, or its user
    error on stderr with exit code 2."""
    try:
        line = action()
    except RepoBotError as err:
        print(f"repobot: {err}", file=sys.stderr)
        return 2
    print(line)
    return 0
