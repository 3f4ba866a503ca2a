"""Every engine module's worked examples (docstrings) hold."""

import doctest
import importlib
import pkgutil

import pytest

import repobot.engine as engine

MODULES = sorted(m.name for m in pkgutil.iter_modules(engine.__path__))


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name):
    module = importlib.import_module(f"repobot.engine.{name}")
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS)
    assert result.failed == 0
