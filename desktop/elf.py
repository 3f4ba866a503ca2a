"""Shared libraries as the dynamic loader sees them: read an ELF file's needs and find each one, in plain Python.

``missing_libraries`` walks ``DT_NEEDED`` entries the way ld.so does
(``RPATH``/``RUNPATH`` with ``$ORIGIN``, ``LD_LIBRARY_PATH``, ``/etc/ld.so.cache``,
the default folders) and reports what it cannot find; ``ldd_missing`` asks
the loader itself when ``ldd`` exists. No Qt here: the pre-flight check uses
it before Qt loads.
"""

from __future__ import annotations

import mmap
import os
import re
import shutil
import struct
import subprocess
from pathlib import Path
from typing import Iterable, Mapping, NamedTuple


# ---- a small ELF reader: what a shared library needs, and where it says to look


class Elf(NamedTuple):
    bits: int  # 32 or 64
    machine: int  # e_machine: 62 is x86-64, 183 is AArch64
    needed: tuple[str, ...]  # DT_NEEDED, in order
    soname: str  # DT_SONAME, or ""
    rpath: tuple[str, ...]  # DT_RPATH entries (used only when there is no DT_RUNPATH)
    runpath: tuple[str, ...]  # DT_RUNPATH entries
    versions: tuple[tuple[str, str], ...]  # (library, version) pairs from DT_VERNEED, e.g. ("libc.so.6", "GLIBC_2.34")


DT_NEEDED, DT_STRTAB, DT_SONAME, DT_RPATH, DT_RUNPATH = 1, 5, 14, 15, 29
DT_VERNEED, DT_VERNEEDNUM = 0x6FFFFFFE, 0x6FFFFFFF
PT_LOAD, PT_DYNAMIC = 1, 2


def parse_elf(data: bytes | mmap.mmap) -> Elf | None:
    """The dynamic-linking facts of an ELF file's bytes; None if it is not ELF (or too damaged to read).

    Reads program headers only (section headers may be stripped), as the loader does.

    >>> parse_elf(b"#!/bin/sh\\n") is None
    True
    >>> import sys; elf = parse_elf(Path(sys.executable).resolve().read_bytes())
    >>> elf.bits, "libc.so.6" in elf.needed or not elf.needed
    (64, True)
    """
    if len(data) < 64 or data[:4] != b"\x7fELF" or data[4] not in (1, 2) or data[5] not in (1, 2):
        return None
    bits = 64 if data[4] == 2 else 32
    end = "<" if data[5] == 1 else ">"
    try:
        machine = struct.unpack_from(end + "H", data, 18)[0]
        if bits == 64:
            phoff, = struct.unpack_from(end + "Q", data, 32)
            phentsize, phnum = struct.unpack_from(end + "HH", data, 54)
        else:
            phoff, = struct.unpack_from(end + "I", data, 28)
            phentsize, phnum = struct.unpack_from(end + "HH", data, 42)
        loads, dynamic = [], None
        for i in range(phnum):
            at = phoff + i * phentsize
            if bits == 64:
                p_type, _flags, offset, vaddr, _paddr, filesz = struct.unpack_from(end + "IIQQQQ", data, at)
            else:
                p_type, offset, vaddr, _paddr, filesz = struct.unpack_from(end + "IIIII", data, at)
            if p_type == PT_LOAD:
                loads.append((vaddr, offset, filesz))
            elif p_type == PT_DYNAMIC:
                dynamic = (offset, filesz)
        if dynamic is None:
            return Elf(bits, machine, (), "", (), (), ())
        entry = end + ("qQ" if bits == 64 else "iI")
        size = struct.calcsize(entry)
        tags: list[tuple[int, int]] = []
        for at in range(dynamic[0], dynamic[0] + dynamic[1] - size + 1, size):
            tag, value = struct.unpack_from(entry, data, at)
            if tag == 0:
                break
            tags.append((tag, value))

        def file_offset(address: int) -> int:
            for vaddr, offset, filesz in loads:
                if vaddr <= address < vaddr + filesz:
                    return address - vaddr + offset
            raise ValueError(f"address {address:#x} is in no loaded segment")

        strtab = file_offset(next(v for t, v in tags if t == DT_STRTAB))

        def string(index: int) -> str:
            start = strtab + index
            stop = data.find(b"\0", start)
            if stop < 0:
                raise ValueError("unterminated string")
            return bytes(data[start:stop]).decode("utf-8", "replace")

        def paths(tag: int) -> tuple[str, ...]:
            return tuple(p for t, v in tags if t == tag for p in string(v).split(":") if p)

        versions = []
        verneed = [v for t, v in tags if t == DT_VERNEED]
        count = next((v for t, v in tags if t == DT_VERNEEDNUM), 0)
        at = file_offset(verneed[0]) if verneed else 0
        for _ in range(count if verneed else 0):  # Elf_Verneed, then its chain of Elf_Vernaux
            _version, aux_count, file, aux, following = struct.unpack_from(end + "HHIII", data, at)
            aux_at = at + aux
            for _ in range(aux_count):
                _hash, _flags, _other, name, aux_next = struct.unpack_from(end + "IHHII", data, aux_at)
                versions.append((string(file), string(name)))
                aux_at += aux_next
            if not following:
                break
            at += following
        needed = tuple(string(v) for t, v in tags if t == DT_NEEDED)
        soname = next((string(v) for t, v in tags if t == DT_SONAME), "")
        return Elf(bits, machine, needed, soname, paths(DT_RPATH), paths(DT_RUNPATH), tuple(versions))
    except (struct.error, ValueError, StopIteration, IndexError):
        return None


def read_elf(path: str | os.PathLike) -> Elf | None:
    """``parse_elf`` of a file (mapped, not read: Qt's libraries are large); None when unreadable or not ELF.

    >>> read_elf("/no/such/file") is None
    True
    """
    try:
        with open(path, "rb") as fh, mmap.mmap(fh.fileno(), 0, access=mmap.ACCESS_READ) as data:
            return parse_elf(data)
    except (OSError, ValueError):  # ValueError: an empty file cannot be mapped
        return None


def elf_kind(path: str | os.PathLike) -> tuple[int, int] | None:
    """(bits, machine) from the first 20 bytes of an ELF file, to skip other architectures' libraries.

    >>> elf_kind("/no/such/file") is None
    True
    """
    try:
        with open(path, "rb") as fh:
            head = fh.read(20)
    except OSError:
        return None
    if len(head) < 20 or head[:4] != b"\x7fELF" or head[4] not in (1, 2) or head[5] not in (1, 2):
        return None
    return (64 if head[4] == 2 else 32), struct.unpack_from("<H" if head[5] == 1 else ">H", head, 18)[0]


# ---- where the loader looks


def parse_ld_cache(data: bytes) -> dict[str, list[str]]:
    """soname -> paths from the bytes of ``/etc/ld.so.cache`` (glibc's "new" format, the one in use since 2.32).

    >>> parse_ld_cache(b"not a cache")
    {}
    """
    magic = b"glibc-ld.so.cache1.1"
    start = data.find(magic)
    if start < 0 or len(data) < start + 48:
        return {}
    count, = struct.unpack_from("=I", data, start + 20)
    cache: dict[str, list[str]] = {}

    def text(offset: int) -> str:
        at = start + offset
        return data[at:data.index(b"\0", at)].decode("utf-8", "replace")

    try:
        for i in range(count):
            _flags, key, value = struct.unpack_from("=iII", data, start + 48 + 24 * i)
            cache.setdefault(text(key), []).append(text(value))
    except (struct.error, ValueError):
        return {}
    return cache


class Search(NamedTuple):
    """Where libraries are looked for besides a library's own RPATH/RUNPATH, in the loader's order."""

    library_path: tuple[str, ...]  # LD_LIBRARY_PATH, then the bundle's own folders
    cache: Mapping[str, list[str]]  # /etc/ld.so.cache
    system: tuple[str, ...]  # the default folders


def system_search(env: Mapping[str, str] | None = None, extra: Iterable[str] = ()) -> Search:
    """The search of this machine: ``LD_LIBRARY_PATH`` (and ``extra`` folders), the ld.so cache, the default folders."""
    env = os.environ if env is None else env
    try:
        cache = parse_ld_cache(Path("/etc/ld.so.cache").read_bytes())
    except OSError:
        cache = {}
    arch = os.uname().machine
    triplets = [f"{arch}-linux-gnu"] + (["x86_64-linux-gnux32"] if arch == "x86_64" else [])
    system = [f"{top}/{t}" for t in triplets for top in ("/lib", "/usr/lib")] + ["/lib64", "/usr/lib64", "/lib", "/usr/lib"]
    library_path = [p for p in env.get("LD_LIBRARY_PATH", "").split(":") if p] + list(extra)
    return Search(tuple(library_path), cache, tuple(system))


def expand_origin(paths: Iterable[str], origin: str) -> list[str]:
    """RPATH/RUNPATH entries with ``$ORIGIN`` (the library's own folder) filled in.

    >>> expand_origin(["$ORIGIN/../../lib", "${ORIGIN}", "/opt/x"], "/q/plugins/platforms")
    ['/q/plugins/platforms/../../lib', '/q/plugins/platforms', '/opt/x']
    """
    return [p.replace("${ORIGIN}", origin).replace("$ORIGIN", origin) for p in paths]


def missing_libraries(roots: Iterable[str | os.PathLike], search: Search) -> dict[str, list[str]]:
    """Every library the loader would not find when loading ``roots``: soname -> the files that need it.

    A breadth-first walk over DT_NEEDED, as ``ldd`` lists them: each soname is
    resolved once (the loader reuses a loaded library of the same name), and a
    candidate of another architecture is skipped. A root that is missing or not
    ELF is skipped (there is nothing to load).

    >>> missing_libraries(["/no/such/plugin.so"], system_search({}))
    {}
    """
    missing: dict[str, list[str]] = {}
    found: dict[str, str] = {}
    queue: list[tuple[str, tuple[str, ...]]] = []
    kind = None
    for root in roots:
        root = os.path.abspath(root)
        kind = kind or elf_kind(root)
        if elf_kind(root) is not None:
            queue.append((root, ()))
    seen: set[str] = set()
    while queue:
        path, inherited_rpath = queue.pop(0)
        if path in seen:
            continue
        seen.add(path)
        elf = read_elf(path)
        if elf is None:
            continue
        origin = os.path.dirname(path)
        rpath = () if elf.runpath else tuple(expand_origin(elf.rpath, origin)) + inherited_rpath
        dirs = list(rpath) + list(search.library_path) + expand_origin(elf.runpath, origin)
        for name in elf.needed:
            if name in found:
                continue
            if name in missing:
                missing[name].append(os.path.basename(path))
                continue
            where = locate(name, dirs, search, kind or (elf.bits, elf.machine))
            if where is None:
                missing[name] = [os.path.basename(path)]
            else:
                found[name] = where
                queue.append((where, rpath))
    return missing


def locate(name: str, dirs: list[str], search: Search, kind: tuple[int, int]) -> str | None:
    """Where the loader finds library ``name`` of this (bits, machine) kind: ``dirs`` first, then ``search``; or None.

    >>> locate("libdoesnotexist.so.9", [], Search((), {}, ("/usr/lib",)), (64, 62)) is None
    True
    """
    if "/" in name:
        return name if elf_kind(name) == kind else None
    candidates = [os.path.join(d, name) for d in dirs]
    candidates += search.cache.get(name, [])
    candidates += [os.path.join(d, name) for d in search.system]
    return next((c for c in candidates if elf_kind(c) == kind), None)


def ldd_missing(paths: Iterable[str | os.PathLike], extra_dirs: Iterable[str] = ()) -> set[str] | None:
    """What ``ldd`` (the dynamic loader) reports "not found" for ``paths``; None when ``ldd`` cannot tell.

    >>> ldd_missing([])
    set()
    """
    ldd = shutil.which("ldd")
    paths = [str(p) for p in paths]
    if not paths:
        return set()
    if not ldd:
        return None
    env = dict(os.environ)
    env["LD_LIBRARY_PATH"] = ":".join([p for p in env.get("LD_LIBRARY_PATH", "").split(":") if p] + list(extra_dirs))
    missing: set[str] = set()
    for path in paths:
        try:
            result = subprocess.run([ldd, path], capture_output=True, text=True, timeout=20, env=env)
        except (OSError, subprocess.SubprocessError):
            return None
        if result.returncode != 0 and "=>" not in result.stdout:
            return None
        missing.update(m.group(1) for m in re.finditer(r"^\s*(\S+) => not found", result.stdout, re.M))
    return missing


# ---- what to tell the user
