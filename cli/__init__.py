"""The ``repobot`` command: index, search, ask, check, eval, history, models and gui."""
