"""The RepoBot desktop window (PySide6). Imports the engine; the engine never imports this."""
