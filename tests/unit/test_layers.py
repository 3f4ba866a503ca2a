"""The layer contracts (pyproject.toml, checked by import-linter in `make test`) hold, and catch a violation."""

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
LINT = Path(sys.executable).with_name("lint-imports")


def lint(tree: Path) -> subprocess.CompletedProcess:
    return subprocess.run([str(LINT), "--no-cache"], cwd=tree, capture_output=True, text=True, timeout=300,
                          env={"PYTHONPATH": str(tree), "PATH": "/usr/bin:/bin"})


@pytest.fixture
def tree(tmp_path):
    for name in ("engine", "desktop", "cli"):
        shutil.copytree(ROOT / name, tmp_path / name, ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy(ROOT / "pyproject.toml", tmp_path)
    return tmp_path


def test_the_real_tree_keeps_every_contract():
    result = lint(ROOT)
    assert result.returncode == 0, result.stdout
    assert "4 kept, 0 broken" in result.stdout


def test_the_engine_importing_qt_is_caught(tree):
    with open(tree / "engine" / "text.py", "a") as fh:
        fh.write("\nfrom PySide6.QtCore import QObject  # a violation on purpose\n")
    result = lint(tree)
    assert result.returncode != 0 and "engine.text -> PySide6" in result.stdout


def test_a_lower_layer_importing_a_higher_one_is_caught(tree):
    with open(tree / "engine" / "chunk.py", "a") as fh:
        fh.write("\nfrom .pipeline import Pipeline  # a violation on purpose\n")
    result = lint(tree)
    assert result.returncode != 0 and "engine.chunk is not allowed to import engine.pipeline" in result.stdout


def test_the_preflight_check_importing_qt_is_caught(tree):
    with open(tree / "desktop" / "preflight.py", "a") as fh:
        fh.write("\nfrom PySide6.QtGui import QGuiApplication  # a violation on purpose\n")
    result = lint(tree)
    assert result.returncode != 0 and "desktop.preflight -> PySide6" in result.stdout
