"""Load: find and read every markdown file under a folder, safely.

Reading never raises for one bad file: binary files, files too large and
unreadable files are skipped and reported; text that is not UTF-8 is decoded
with replacement characters and reported.

>>> import tempfile, pathlib
>>> d = pathlib.Path(tempfile.mkdtemp()); _ = (d / "a.md").write_text("# A\\nhello\\n")
>>> corpus = load_corpus(d); [doc.source for doc in corpus.documents]
['a.md']
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import NamedTuple

from .errors import CorpusError

MARKDOWN_SUFFIXES = (".md", ".markdown")
MAX_FILE_BYTES = 20 * 1024 * 1024
MAX_LINE_CHARS = 100_000  # longer lines (minified or generated text) are cut


class Document(NamedTuple):
    source: str  # path relative to the corpus root, with forward slashes
    path: Path
    text: str


class Skipped(NamedTuple):
    source: str
    reason: str


class Corpus(NamedTuple):
    root: Path
    documents: list[Document]
    problems: list[Skipped]  # skipped files, and files decoded with replacement


def find_markdown(root: Path, *, follow_outside_links: bool = False) -> list[Path]:
    """Every markdown file under ``root``, sorted, never leaving ``root`` through a link.

    Hidden folders (``.git``) are skipped; symlink loops cannot recurse because a
    real directory is visited once.
    """
    root = root.resolve()
    seen: set[Path] = set()
    found: list[Path] = []
    for folder, dirs, files in os.walk(root, followlinks=True):
        real = Path(folder).resolve()
        if real in seen or (not follow_outside_links and not _inside(real, root)):
            dirs[:] = []
            continue
        seen.add(real)
        dirs[:] = sorted(d for d in dirs if not d.startswith("."))
        for name in sorted(files):
            if name.lower().endswith(MARKDOWN_SUFFIXES) and not name.startswith("."):
                path = Path(folder) / name
                if follow_outside_links or _inside(path.resolve(), root):
                    found.append(path)
    return found


def _inside(path: Path, root: Path) -> bool:
    return path == root or root in path.parents


def read_markdown(path: Path) -> tuple[str | None, str | None]:
    """Return ``(text, problem)``; text is None when the file is skipped.

    >>> import tempfile, pathlib
    >>> p = pathlib.Path(tempfile.mkdtemp()) / "x.md"; _ = p.write_bytes(b"caf\\xe9")
    >>> read_markdown(p)
    ('caf\\ufffd', 'not UTF-8; decoded with replacement characters')
    """
    try:
        size = path.stat().st_size
        if size > MAX_FILE_BYTES:
            return None, f"skipped: {size // (1024 * 1024)} MB is over the {MAX_FILE_BYTES // (1024 * 1024)} MB limit"
        data = path.read_bytes()
    except OSError as err:
        return None, f"skipped: cannot read ({err.strerror or err})"
    if b"\x00" in data[:8192]:
        return None, "skipped: binary file, not markdown"
    problems = []
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError:
        text = data.decode("utf-8", errors="replace")
        problems.append("not UTF-8; decoded with replacement characters")
    if len(data) > MAX_LINE_CHARS and any(len(line) > MAX_LINE_CHARS for line in text.splitlines()):
        text = "\n".join(line[:MAX_LINE_CHARS] for line in text.splitlines())
        problems.append(f"lines over {MAX_LINE_CHARS:,} characters were cut to that length")
    return text, "; ".join(problems) or None


def load_corpus(root: Path | str) -> Corpus:
    """Read every markdown file under ``root``; raise CorpusError with the fix if there is none."""
    root = Path(root).expanduser()
    if not root.exists():
        raise CorpusError(f"No such folder: {root}. Give --corpus an existing folder of markdown files.")
    if not root.is_dir():
        raise CorpusError(f"{root} is a file, not a folder. Give --corpus the folder that holds your *.md files.")
    root = root.resolve()
    documents: list[Document] = []
    problems: list[Skipped] = []
    try:
        paths = find_markdown(root)
    except OSError as err:
        raise CorpusError(f"Cannot list {root}: {err.strerror or err}. Check that the folder is readable.") from err
    for path in paths:
        source = path.relative_to(root).as_posix()
        text, problem = read_markdown(path)
        if problem:
            problems.append(Skipped(source, problem))
        if text is not None:
            documents.append(Document(source, path, text))
    if not documents:
        detail = f" ({len(problems)} file(s) skipped: {problems[0].source}: {problems[0].reason})" if problems else ""
        raise CorpusError(f"No readable markdown (*.md) files in {root}{detail}. Point --corpus at a documentation folder.")
    return Corpus(root, documents, problems)
