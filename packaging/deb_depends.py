"""The .deb's ``Depends:``, read from the bundle rather than written from memory.

Every ELF file in the bundle (the executable, Python extensions, Qt and its
plugins, llama.cpp, onnxruntime ...) names the shared libraries it needs
(``DT_NEEDED``). Those the bundle does not carry itself must come from the
system: each is found on the build machine as the loader would find it, and
``dpkg -S`` names the Debian package that owns it. libc6 gets a version floor:
the newest ``GLIBC_x.y`` symbol version any file asks for.

    python packaging/deb_depends.py BUNDLE_DIR [--also PACKAGE ...]   # prints the Depends value; the mapping goes to stderr

``--also`` adds what no DT_NEEDED shows: data the bundled libraries read from
the system (the bundled libfontconfig needs /etc/fonts and a font).

Exits with 1, naming the libraries and the files that need them, when a
library is not on the build machine or no package owns it: a package must not
install cleanly and then fail to start.

>>> glibc_floor([Elf(64, 62, ("libc.so.6",), "", (), (), (("libc.so.6", "GLIBC_2.17"), ("libc.so.6", "GLIBC_2.34"),
...              ("libc.so.6", "GLIBC_PRIVATE"), ("libstdc++.so.6", "GLIBCXX_3.4.30")))])
'2.34'
>>> depends_line({"libx11-6", "libc6", "libxcb1", "libx11-6"}, "2.34")
'libc6 (>= 2.34), libx11-6, libxcb1'
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Iterable, Mapping

from repobot.desktop.elf import Elf, elf_kind, locate, read_elf, system_search
from repobot.desktop.preflight import PACKAGES

GLIBC_MINIMUM = "2.17"  # the floor when no file names a newer glibc symbol version


def bundle_elves(root: Path) -> dict[Path, Elf]:
    """Every ELF file under ``root`` (symbolic links skipped: their targets are in the bundle too)."""
    found = {}
    for folder, _dirs, files in os.walk(root):
        for name in files:
            path = Path(folder) / name
            if not path.is_symlink() and elf_kind(path) is not None:
                elf = read_elf(path)
                if elf is not None:
                    found[path] = elf
    return found


def carried(root: Path, elves: Mapping[Path, Elf]) -> set[str]:
    """The library names the bundle provides: every file name (links too) and every DT_SONAME."""
    names = {name for _folder, _dirs, files in os.walk(root) for name in files}
    return names | {elf.soname for elf in elves.values() if elf.soname}


def outside_needs(root: Path, elves: Mapping[Path, Elf], have: set[str]) -> dict[str, list[str]]:
    """soname -> the bundle's files (relative paths) that need it, for every needed library the bundle lacks.

    >>> outside_needs(Path("/b"), {Path("/b/a.so"): Elf(64, 62, ("libc.so.6", "libb.so"), "", (), (), ())}, {"libb.so"})
    {'libc.so.6': ['a.so']}
    """
    needs: dict[str, list[str]] = {}
    for path, elf in sorted(elves.items()):
        for name in elf.needed:
            if name not in have:
                needs.setdefault(name, []).append(str(path.relative_to(root)))
    return needs


def glibc_floor(elves: Iterable[Elf]) -> str:
    """The newest ``GLIBC_x.y[.z]`` version any file needs (not less than ``GLIBC_MINIMUM``)."""
    found = [tuple(int(n) for n in m.group(1).split("."))
             for elf in elves for _lib, version in elf.versions
             if (m := re.fullmatch(r"GLIBC_(\d+(?:\.\d+)+)", version))]
    floor = max(found + [tuple(int(n) for n in GLIBC_MINIMUM.split("."))])
    return ".".join(str(n) for n in floor)


def owner_candidates(path: str) -> list[str]:
    """The paths dpkg may have recorded for a library: as found, its real path, and their /usr-merged twins.

    >>> owner_candidates("/lib/x86_64-linux-gnu/libz.so.1")[:2]
    ['/lib/x86_64-linux-gnu/libz.so.1', '/usr/lib/x86_64-linux-gnu/libz.so.1']
    """
    out: list[str] = []
    for p in (path, os.path.realpath(path)):
        twin = p[4:] if p.startswith("/usr/lib") else "/usr" + p if p.startswith("/lib") else p
        out += [q for q in (p, twin) if q not in out]
    return out


def dpkg_owner(path: str) -> str | None:
    """The package that owns ``path`` according to ``dpkg -S`` (without its ``:arch``), or None."""
    for candidate in owner_candidates(path):
        result = subprocess.run(["dpkg", "-S", candidate], capture_output=True, text=True)
        for line in result.stdout.splitlines():
            if line.startswith("diversion by") or ": " not in line:
                continue
            return line.split(": ", 1)[0].split(",")[0].strip().split(":")[0]
    return None


def depends_line(packages: Iterable[str], floor: str) -> str:
    """The sorted, unique ``Depends`` value, libc6 first with its version floor."""
    rest = sorted(set(packages) - {"libc6"})
    return ", ".join([f"libc6 (>= {floor})"] + rest)


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="deb_depends.py", description="The .deb's Depends, read from the bundle.")
    parser.add_argument("bundle", type=Path, help="the PyInstaller one-folder bundle")
    parser.add_argument("--also", nargs="*", default=[], metavar="PACKAGE", help="packages no DT_NEEDED shows")
    args = parser.parse_args(argv)
    if not args.bundle.is_dir():
        parser.error(f"no such folder: {args.bundle}")
    root = args.bundle.resolve()
    elves = bundle_elves(root)
    needs = outside_needs(root, elves, carried(root, elves))
    kind = elf_kind(root / "repobot") or next(iter({(e.bits, e.machine) for e in elves.values()}), (64, 62))
    search = system_search({})
    packages, failures = set(), []
    for name, users in sorted(needs.items()):
        where = locate(name, [], search, kind)
        package = dpkg_owner(where) if where else None
        shown = ", ".join(users[:3]) + (f" and {len(users) - 3} more" if len(users) > 3 else "")
        if package is None:
            hint = f"`apt-get install {PACKAGES[name][0]}`" if name in PACKAGES else "the package that provides it"
            problem = "is not installed on this machine" if where is None else f"({where}) belongs to no package"
            failures.append(f"  {name} {problem}; needed by {shown}. Install {hint} on the build machine and "
                            "build again, or leave the files that need it out of the bundle.")
            continue
        packages.add(package)
        print(f"  {name:<28} {package:<22} {shown}", file=sys.stderr)
    if failures:
        print("deb_depends: the bundle needs libraries that no Debian package on this machine provides:",
              file=sys.stderr)
        print("\n".join(failures), file=sys.stderr)
        return 1
    print(depends_line(packages | set(args.also), glibc_floor(elves.values())))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
