"""The examples in the library's docstrings run and give what they show."""
import doctest
import importlib

import pytest

MODULES = ["railrules", "railrules.interpreter", "railrules.interpreter.engine.game"]


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name):
    result = doctest.testmod(importlib.import_module(name))
    assert result.attempted > 0 and result.failed == 0
