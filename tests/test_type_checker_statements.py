"""The type checker types every statement: its methods are found by a table built from
nodes.STATEMENTS (as the compiler's are), so a new statement without one fails here rather than
being skipped silently."""
from __future__ import annotations

import pytest

from railrules.interpreter.checks import check_types
from railrules.interpreter.checks.check_types import _Types
from railrules.interpreter.dsl import nodes as n
from railrules.interpreter.errors import Pos


def test_every_statement_has_a_method_and_no_method_is_a_stray():
    assert set(check_types._STMT) == set(n.STATEMENTS)
    strays = [m for m in vars(_Types) if m.startswith("s_") and getattr(n, m[2:], None) not in n.STATEMENTS]
    assert strays == []


def test_a_statement_without_a_method_is_an_error_not_skipped():
    class Unknown(n.Node):
        pass
    with pytest.raises(KeyError):
        _Types.stmt(None, Unknown(Pos("x", 1, 1)), {})   # the lookup fails before self is used
