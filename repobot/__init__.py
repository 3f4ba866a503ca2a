"""RepoBot: offline, cited answers about a folder of markdown documentation.

The code lives in three folders that install under this namespace:
``engine/`` (repobot.engine, no Qt), ``desktop/`` (repobot.desktop, the Qt
window) and ``cli/`` (repobot.cli, the ``repobot`` command).
"""

__version__ = "0.1.0"
