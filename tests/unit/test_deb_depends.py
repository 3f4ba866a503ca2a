"""packaging/deb_depends.py: the .deb's Depends come from what the bundle's ELF files need and do not carry."""

import doctest
import importlib.util
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

SCRIPT = Path(__file__).resolve().parents[2] / "packaging" / "deb_depends.py"
spec = importlib.util.spec_from_file_location("deb_depends", SCRIPT)
deb_depends = importlib.util.module_from_spec(spec)
spec.loader.exec_module(deb_depends)

needs_tools = pytest.mark.skipif(not (sys.platform.startswith("linux") and shutil.which("gcc") and shutil.which("dpkg")
                                      and deb_depends.locate("libz.so.1", [], deb_depends.system_search({}), (64, 62))),
                                 reason="needs gcc, dpkg and zlib (x86-64 Debian or Ubuntu)")


def test_docstring_examples():
    result = doctest.testmod(deb_depends, optionflags=doctest.ELLIPSIS)
    assert result.failed == 0 and result.attempted > 0


def library(folder: Path, name: str, *links: str) -> Path:
    """A tiny shared library ``name`` (its soname too) linked against ``links`` (paths or -l options)."""
    source = folder / "empty.c"
    source.write_text("int repobot_test(void) { return 0; }\n")
    path = folder / name
    subprocess.run(["gcc", "-shared", "-fPIC", f"-Wl,-soname,{name}", "-o", str(path), str(source),
                    "-Wl,--no-as-needed", *links], check=True)
    source.unlink()
    return path


def run(bundle: Path, *options: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, str(SCRIPT), str(bundle), *options], capture_output=True, text=True,
                          timeout=120)


@needs_tools
def test_a_system_library_becomes_its_package_and_a_carried_one_does_not(tmp_path):
    bundle = tmp_path / "bundle"
    (bundle / "lib").mkdir(parents=True)
    carried = library(bundle / "lib", "libcarried.so.1")
    library(bundle, "libapp.so", str(carried), "-lz")
    result = run(bundle, "--also", "fontconfig-config")
    assert result.returncode == 0, result.stderr
    depends = result.stdout.strip().split(", ")
    assert depends[0].startswith("libc6 (>= 2.") and "zlib1g" in depends and "fontconfig-config" in depends
    assert depends[1:] == sorted(depends[1:])
    assert not any("carried" in d for d in depends)


@needs_tools
def test_a_library_no_package_provides_stops_the_build(tmp_path):
    bundle, elsewhere = tmp_path / "bundle", tmp_path / "elsewhere"
    bundle.mkdir()
    elsewhere.mkdir()
    stub = library(elsewhere, "libdoesnotexist.so.9")
    library(bundle, "libapp.so", str(stub))
    result = run(bundle)
    assert result.returncode == 1 and result.stdout == ""
    assert "libdoesnotexist.so.9 is not installed on this machine; needed by libapp.so" in result.stderr
    assert "Traceback" not in result.stderr
