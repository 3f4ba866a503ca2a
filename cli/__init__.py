"""The ``repobot`` command: index, search, ask, check, eval and gui."""
