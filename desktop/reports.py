"""What the window shows of a folder's index after an update: counts, problems, files and languages."""

from __future__ import annotations

from pathlib import Path
from typing import NamedTuple


class IndexReport(NamedTuple):
    files: int
    chunks: int
    seconds: float
    added: int
    updated: int
    removed: int
    unchanged: int
    problems: list[str]  # "source: reason" of skipped or damaged files
    sources: list[str]
    pending: int = 0  # chunks still to embed: until then they are found by BM25 alone
    languages: tuple[str, ...] = ()  # the languages indexed, in a translated tree
    available: tuple[tuple[str, int], ...] = ()  # a translated tree's languages and their pages, indexed or not
    notes: tuple[str, ...] = ()  # about the index itself: a damaged one rebuilt, a moved folder's taken along


def index_report(collection, report) -> IndexReport:
    """What the window shows of a collection after an update (``report``: the engine's UpdateReport)."""
    index = collection.index
    return IndexReport(
        len(index.files), len(index.chunks), report.seconds, len(report.added), len(report.updated), len(report.removed),
        len(report.unchanged), [f"{p.source}: {p.reason}" for p in collection.problems],
        sorted(index.files), index.pending_chunks, tuple(sorted(collection.selected or ())),
        tuple(sorted((collection.available or {}).items())), tuple(collection.notes),
    )


def searchable_text(name: str, pending: int | None) -> str:
    """The status bar's news of an indexed folder: searchable now, and what is still embedded behind it (None: some
    passages, how many not known here).

    >>> searchable_text("docs", 3731)
    'docs: searchable by words; embedding 3,731 passages in the background…'
    >>> searchable_text("docs", None), searchable_text("docs", 0)
    ('docs: searchable by words; embedding in the background…', 'docs: searchable; every passage is embedded.')
    """
    if pending is None:
        return f"{name}: searchable by words; embedding in the background…"
    if pending:
        return f"{name}: searchable by words; embedding {pending:,} passages in the background…"
    return f"{name}: searchable; every passage is embedded."


def folder_name(root: str, bundled: str) -> str:
    """A folder as the window names it everywhere (the tree, the progress line, the status bar): the bundled guide by
    its title, others by their last two parts (the status bar said "docs" where the tree said "httpx/docs").

    >>> folder_name("/home/me/httpx/docs", "/opt/guide"), folder_name("/opt/guide", "/opt/guide")
    ('httpx/docs', 'RepoBot user guide')
    """
    return "RepoBot user guide" if root == bundled else "/".join(Path(root).parts[-2:])
