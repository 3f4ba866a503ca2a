"""Every engine module's worked examples (docstrings) hold, and the desktop's and the CLI's pure ones (render, tasks, settings, watch, preflight, reports, progress, parser, report)."""

import doctest
import importlib
import pkgutil

import pytest

import repobot.engine as engine

MODULES = [f"repobot.engine.{m.name}" for m in pkgutil.iter_modules(engine.__path__)]
MODULES += ["repobot.desktop.render", "repobot.desktop.labels", "repobot.desktop.document", "repobot.desktop.tasks", "repobot.desktop.settings", "repobot.desktop.watch",
            "repobot.desktop.preflight", "repobot.desktop.elf", "repobot.cli.progress", "repobot.cli.main", "repobot.cli.commands", "repobot.cli.worker",
            "repobot.cli.parser", "repobot.cli.report", "repobot.desktop.app", "repobot.desktop.conversation",
            "repobot.desktop.panels.collections", "repobot.desktop.panels.history", "repobot.desktop.reports"]


@pytest.mark.parametrize("name", sorted(MODULES))
def test_docstring_examples(name):
    module = importlib.import_module(name)
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS)
    assert result.failed == 0
    assert result.attempted > 0 or name.endswith(("__main__", "errors"))
