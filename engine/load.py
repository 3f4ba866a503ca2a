"""Load: find and read every markdown file under a folder, safely.

Reading never raises for one bad file: binary files, files too large and
unreadable files are skipped and reported; text that is not UTF-8 is decoded
with replacement characters and reported.

>>> import tempfile, pathlib
>>> d = pathlib.Path(tempfile.mkdtemp()); _ = (d / "a.md").write_text("# A\\nhello\\n")
>>> corpus = load_corpus(d); [doc.source for doc in corpus.documents]
['a.md']

A documentation tree translated into several languages (``en/``, ``zh/`` …,
or mkdocs's ``docs/<lang>/``; or pages whose front matter says ``lang: xx``)
is read in the languages asked for only; pages of no language are always read.
"""

from __future__ import annotations

import codecs
import os
import re
import stat
from pathlib import Path
from typing import NamedTuple

from .errors import CorpusError
from .markup import front_matter
from .text import file_lines

MARKDOWN_SUFFIXES = (".md", ".markdown")
PACKAGE_FOLDERS = frozenset({"node_modules", "bower_components", "site-packages", "__pycache__"})  # never docs
MAX_FILE_BYTES = 20 * 1024 * 1024
MAX_LINE_CHARS = 100_000  # longer lines (minified or generated text) are cut


class Document(NamedTuple):
    source: str  # path relative to the corpus root, with forward slashes
    path: Path
    text: str
    language: str | None = None  # from its language folder or front matter; None when the tree says nothing


class Skipped(NamedTuple):
    source: str
    reason: str


class Corpus(NamedTuple):
    root: Path
    documents: list[Document]
    problems: list[Skipped]  # skipped files, and files decoded with replacement
    languages: dict[str, int] = {}  # pages per language the tree has (folders or front matter), read or not
    selected: frozenset[str] | None = None  # the languages read (None: all)


# ISO 639-1 codes and the regional or script variants documentation trees use as folder names.
LANGUAGE_CODES = frozenset(
    """af am ar az be bg bn bs ca cs cy da de el en eo es et eu fa fi fr ga gl gu he hi hr hu hy id is it ja ka kk
    km kn ko ku ky lo lt lv mk ml mn mr ms my nb ne nl nn no pa pl ps pt ro ru si sk sl sq sr sv sw ta te tg th tl tr
    uk ur uz vi yo zh zu zh-hans zh-hant zh-cn zh-tw zh-hk pt-br pt-pt es-mx en-us en-gb fr-ca""".split()
)
_FRONT_LANGUAGE = re.compile(r"[A-Za-z]{2}(?:[-_][A-Za-z]{2,4})?\b")  # fr, pt-BR, zh_Hant


def language_folder(source: str) -> int | None:
    """Where a page's language folder is among its path's parts: its first folder, or the one after a leading
    ``docs/``; None when it is in none.

    >>> language_folder("zh/docs/tutorial/cors.md"), language_folder("docs/ja/index.md"), language_folder("docs/ja.md")
    (0, 1, None)
    """
    folders = source.lower().split("/")[:-1]
    at = 1 if folders[:1] == ["docs"] else 0
    return at if len(folders) > at and folders[at] in LANGUAGE_CODES else None


def folder_language(source: str) -> str | None:
    """The language folder a page is in (``language_folder``).

    >>> folder_language("zh/docs/tutorial/cors.md"), folder_language("docs/ja/index.md"), folder_language("api/x.md")
    ('zh', 'ja', None)
    """
    at = language_folder(source)
    return None if at is None else source.lower().split("/")[at]


def page_marker(text: str) -> str | None:
    """The ``lang:`` of a page's front matter, if it has one.

    >>> page_marker("---\\ntitle: X\\nlang: fr\\n---\\n# X"), page_marker("# X")
    ('fr', None)
    """
    fields = front_matter(text).fields
    match = next(filter(None, (_FRONT_LANGUAGE.match(fields.get(key, "")) for key in ("lang", "language", "locale"))),
                 None)
    return match.group(0).lower().replace("_", "-") if match else None


def find_markdown(root: Path, *, unlisted: list[OSError] | None = None) -> list[Path]:
    """Every markdown file under ``root``, sorted; hidden folders (``.git``), installed packages' folders
    (``node_modules``, ``site-packages``: their READMEs are not the documentation) and links are skipped.

    A link is never followed: one inside the folder leads to a file or folder
    indexed under its own path (``latest -> v2`` would index v2's pages a second
    time, as ``latest``, without their version), one leading outside could expose
    files the user did not choose, and one that loops would never end. A folder
    that cannot be listed is added to ``unlisted``; ``root`` itself raises.
    """
    root = root.resolve()
    found: list[Path] = []
    errors: list[OSError] = []
    for folder, dirs, files in os.walk(root, onerror=errors.append):
        dirs[:] = sorted(d for d in dirs if not d.startswith(".") and d not in PACKAGE_FOLDERS)
        names = [n for n in sorted(files) if n.lower().endswith(MARKDOWN_SUFFIXES) and not n.startswith(".")]
        try:  # a folder that may be read but not searched lists its names, yet none of them can be looked at
            found += [path for name in names if not (path := Path(folder) / name).is_symlink()]
        except OSError as err:
            errors.append(OSError(err.errno, err.strerror, folder))
    for err in errors:
        if Path(err.filename or "") == root:
            raise err
        if unlisted is not None:
            unlisted.append(err)
    return found


def _inside(path: Path, root: Path) -> bool:
    return path == root or root in path.parents


def read_markdown(path: Path) -> tuple[str | None, str | None]:
    """Return ``(text, problem)``; text is None when the file is skipped.

    >>> import tempfile, pathlib
    >>> p = pathlib.Path(tempfile.mkdtemp()) / "x.md"; _ = p.write_bytes(b"caf\\xe9")
    >>> read_markdown(p)
    ('caf\\ufffd', 'not UTF-8; decoded with replacement characters')
    >>> _ = p.write_bytes("# Café".encode("utf-16")); read_markdown(p)  # as Windows Notepad saves "Unicode"
    ('# Café', None)
    """
    try:
        info = path.stat()
        if not stat.S_ISREG(info.st_mode):  # a pipe or a device named *.md would block the read or never end
            return None, "skipped: not a regular file"
        size = info.st_size
        if size > MAX_FILE_BYTES:
            return None, f"skipped: {size // (1024 * 1024)} MB is over the {MAX_FILE_BYTES // (1024 * 1024)} MB limit"
        data = path.read_bytes()
    except OSError as err:
        return None, f"{UNREAD} ({err.strerror or err})"
    problems = []
    if data.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):  # its NUL bytes are not binary
        text = data.decode("utf-16", errors="replace")
        if "\ufffd" in text:
            problems.append("not valid UTF-16; decoded with replacement characters")
    elif b"\x00" in data[:8192]:
        return None, "skipped: binary file, not markdown"
    else:
        try:
            text = data.decode("utf-8-sig")
        except UnicodeDecodeError:
            text = data.decode("utf-8", errors="replace")
            problems.append("not UTF-8; decoded with replacement characters")
    if len(data) > MAX_LINE_CHARS and any(len(line) > MAX_LINE_CHARS for line in file_lines(text)):
        text = "\n".join(line[:MAX_LINE_CHARS] for line in file_lines(text))
        problems.append(f"lines over {MAX_LINE_CHARS:,} characters were cut to that length")
    return text, "; ".join(problems) or None


UNREAD, UNLISTED = "skipped: cannot read", "skipped: cannot list this folder"


def not_read(problems: list[Skipped], source: str) -> bool:
    """Whether the page ``source`` could not be read this time (it, or a folder above it, refused): a permission
    changed for a moment must not drop what the index has of it, so its last indexed text stands.

    >>> problems = [Skipped("api.md", UNREAD + " (Permission denied)"), Skipped("advanced/", UNLISTED + " (…)"),
    ...             Skipped("logo.md", "skipped: binary file, not markdown")]
    >>> [not_read(problems, s) for s in ("api.md", "advanced/proxies.md", "logo.md", "advanced.md")]
    [True, True, False, False]
    """
    return any(p.reason.startswith(UNREAD) and p.source == source
               or p.reason.startswith(UNLISTED) and source.startswith(p.source) for p in problems)


NAME_NOT_UTF8 = "skipped: its name is not UTF-8 text; rename it (e.g. with convmv) to have it indexed"


def undecodable_name(source: str) -> str | None:
    """None for a file name that is text; for one with bytes that are not UTF-8 (which Python keeps as lone
    surrogates, that cannot be saved, shown or searched as text), the name with those bytes written as ``\\xff``.

    >>> undecodable_name("guide/caf\\udce9.md"), undecodable_name("guide/café.md")
    ('guide/caf\\\\xe9.md', None)
    """
    try:
        source.encode("utf-8")
    except UnicodeEncodeError:
        return os.fsencode(source).decode("utf-8", "backslashreplace")
    return None


def window_folder_problem(folder: str) -> str | None:
    """Why the window cannot keep a folder, or None: Qt's text cannot hold the bytes of a path that is not UTF-8,
    so the folder would be saved and shown under another name.

    >>> print(window_folder_problem("/docs/caf\\udce9"))
    The window cannot open /docs/caf\\xe9: its path is not UTF-8 text. Rename it (e.g. with convmv), or ask about it with `repobot ask --corpus`, which can.
    >>> window_folder_problem("/docs/café") is None
    True
    """
    shown = undecodable_name(folder)
    if shown is None:
        return None
    return (f"The window cannot open {shown}: its path is not UTF-8 text. Rename it (e.g. with convmv), or ask about "
            "it with `repobot ask --corpus`, which can.")


def corpus_folder(root: Path | str) -> Path:
    """``root`` as an absolute folder path, or a CorpusError that says how to fix it.

    >>> corpus_folder("/no/such/folder")
    Traceback (most recent call last):
    repobot.engine.errors.CorpusError: No such folder: /no/such/folder. Choose an existing folder of markdown files (if it moved, add it where it is now: its conversations come along).
    >>> corpus_folder("/")
    Traceback (most recent call last):
    repobot.engine.errors.CorpusError: / is the whole disk, not a documentation folder. Choose the folder that holds your *.md files.
    """
    root = Path(root).expanduser()
    try:
        if not root.exists():
            raise CorpusError(f"No such folder: {root}. Choose an existing folder of markdown files (if it moved, add "
                              "it where it is now: its conversations come along).")
        if not root.is_dir():
            raise CorpusError(f"{root} is a file, not a folder. Choose the folder that holds your *.md files.")
    except OSError as err:  # a folder on the way that may not be searched
        raise CorpusError(f"Cannot reach {root}: {err.strerror or err}. Check that you may open every folder "
                          "on its path, or copy the documentation somewhere you can.") from err
    root = root.resolve()
    if root.parent == root:  # "/" or "C:\\": every file on the disk, read for an hour before anything is searchable
        raise CorpusError(f"{root} is the whole disk, not a documentation folder. Choose the folder that holds your "
                          "*.md files.")
    return root


def load_corpus(root: Path | str) -> Corpus:
    """Read every markdown file under ``root``; raise CorpusError with the fix if there is none."""
    root = corpus_folder(root)
    documents: list[Document] = []
    problems: list[Skipped] = []
    unlisted: list[OSError] = []
    try:
        paths = find_markdown(root, unlisted=unlisted)
    except OSError as err:
        raise CorpusError(f"Cannot list {root}: {err.strerror or err}. Check that the folder is readable.") from err
    for err in unlisted:
        folder = Path(err.filename or root)
        where = folder.relative_to(root).as_posix() if _inside(folder, root) else str(folder)
        problems.append(Skipped(where + "/", f"{UNLISTED} ({err.strerror or err})"))
    sources = [p.relative_to(root).as_posix() for p in paths]
    folders = {folder_language(s) for s in sources} - {None}
    found: dict[str, int] = {}
    for path, source in zip(paths, sources):
        shown = undecodable_name(source)
        if shown:
            problems.append(Skipped(shown, NAME_NOT_UTF8))
            continue
        text, problem = read_markdown(path)
        if problem:
            problems.append(Skipped(source, problem))
        if text is None:
            continue
        language = (folder_language(source) if len(folders) >= 2 else None) or page_marker(text)
        if language:
            found[language] = found.get(language, 0) + 1
        documents.append(Document(source, path, text, language))
    if not documents:
        detail = f" ({len(problems)} file(s) skipped: {problems[0].source}: {problems[0].reason})" if problems else ""
        raise CorpusError(f"No readable markdown (*.md) files in {root}{detail}. Point --corpus at a documentation folder.")
    return Corpus(root, documents, problems, found)


def select_languages(corpus: Corpus, languages: frozenset[str] | None) -> Corpus:
    """Only the pages in ``languages`` (and the pages of no language); all of them for None.

    >>> import tempfile, pathlib
    >>> d = pathlib.Path(tempfile.mkdtemp())
    >>> for lang in ("en", "zh", "ja"): (d / lang).mkdir(); _ = (d / lang / "a.md").write_text("# A")
    >>> _ = (d / "README.md").write_text("# Shared")
    >>> [doc.source for doc in select_languages(load_corpus(d), frozenset({"en", "zh"})).documents]
    ['README.md', 'en/a.md', 'zh/a.md']
    """
    if languages is None:
        return corpus
    kept = [d for d in corpus.documents if d.language is None or d.language in languages]
    if not kept or (corpus.languages and not set(languages) & set(corpus.languages)):
        raise CorpusError(f"No pages in the languages {', '.join(sorted(languages))} in {corpus.root} (it has "
                          f"{', '.join(sorted(corpus.languages))}): choose other languages.")
    return corpus._replace(documents=kept, selected=languages)
