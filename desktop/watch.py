"""Watched folders: created, edited or deleted markdown files are reported once the folder has been quiet a second.

Editors save in several steps (a temporary file, a rename), so changes are
gathered and reported after a quiet second; a folder that is forgotten is no
longer watched at all.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Iterable

from .qt import QFileSystemWatcher, QObject, QTimer, Signal


def inside(path: str, root: str) -> bool:
    """Whether ``path`` is ``root`` or lies under it.

    >>> inside("/docs/a/b.md", "/docs"), inside("/docs2/b.md", "/docs")
    (True, False)
    """
    return path == root or path.startswith(root.rstrip("/") + "/")


NOT_ENTERED = ("node_modules", "__pycache__")  # with hidden folders (.git, .venv): thousands of folders, no docs


def subfolders(base: Path) -> list[str]:
    """Every folder under ``base`` a markdown file may be added to; hidden and vendor folders are not even walked.

    >>> import tempfile; b = Path(tempfile.mkdtemp())
    >>> for d in ("guide/api", ".git/objects", "node_modules/x"): (b / d).mkdir(parents=True)
    >>> sorted(Path(p).relative_to(b).as_posix() for p in subfolders(b))
    ['guide', 'guide/api']
    """
    found: list[str] = []
    for folder, dirs, _files in os.walk(base):
        dirs[:] = [d for d in dirs if not d.startswith(".") and d not in NOT_ENTERED]
        found += [os.path.join(folder, d) for d in dirs]
    return found


class FolderWatcher(QObject):
    changed = Signal(str)  # the root of a watched folder whose files changed

    def __init__(self, parent: QObject | None = None):
        super().__init__(parent)
        self._watcher = QFileSystemWatcher(self)
        self._watcher.directoryChanged.connect(self._seen)
        self._watcher.fileChanged.connect(self._seen)
        self.roots: set[str] = set()
        self.pending: set[str] = set()  # roots with changes not reported yet
        self._quiet = QTimer(self, singleShot=True, interval=1000)
        self._quiet.timeout.connect(self.report)

    @property
    def paths(self) -> list[str]:
        return self._watcher.directories() + self._watcher.files()

    def watch(self, root: str, sources: Iterable[str]) -> None:
        """Watch the folder, its subfolders and its markdown files."""
        self.roots.add(root)
        base = Path(root)
        paths = [str(base)] + [str(base / s) for s in sources] + subfolders(base)
        new = sorted(set(paths) - set(self.paths))
        if new:
            self._watcher.addPaths(new)

    def forget(self, root: str) -> None:
        """Stop watching a folder, but not what a folder inside it (or around it) that is still watched needs."""
        self.roots.discard(root)
        self.pending.discard(root)
        watched = [p for p in self.paths if inside(p, root) and not any(inside(p, other) for other in self.roots)]
        if watched:
            self._watcher.removePaths(watched)

    def _seen(self, path: str) -> None:
        self.pending |= {root for root in self.roots if inside(path, root)}
        if self.pending:
            self._quiet.start()

    def later(self) -> None:
        """Report again after another quiet second (the index is busy now)."""
        self._quiet.start()

    def report(self) -> None:
        if self.pending:
            self.changed.emit(self.pending.pop())
        if self.pending:
            self._quiet.start()
