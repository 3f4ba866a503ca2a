"""Errors meant for users: each message says what went wrong and how to fix it."""


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


class Cancelled(Exception):
    """Raised inside long work when the user pressed Stop or Cancel."""
