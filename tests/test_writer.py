"""The one writer of generated Python (interpreter/compile/writer.py): lines at the indentation
of their block, a position per line, parts written later in their place, long lines shown
broken inside their brackets into the same code; and which expressions it writes with no fallback
(Codegen.total): those that can raise nothing their checked code would word."""
from __future__ import annotations

import ast
import functools

import pytest

from railrules.interpreter import load_ruleset
from railrules.interpreter.compile import writer
from railrules.interpreter.compile.expressions import Codegen
from railrules.interpreter.compile.writer import Writer
from railrules.interpreter.dsl.parser import parse_expression
from railrules.interpreter.errors import Pos
from test_language import write_ruleset


def test_lines_are_indented_by_their_blocks_and_keep_their_positions():
    w = Writer(at=0)
    w.line("def f(x):")
    with w.indent():
        w.at = 1
        w.line("if x:")
        with w.indent():
            w.at = 2
            w.line("return 1")
        w.line("return 2")
    source, positions = w.source()
    assert source == "def f(x):\n    if x:\n        return 1\n    return 2\n"
    assert positions == [0, 1, 2, 2]


def test_a_part_written_later_takes_its_place_and_indentation():
    w = Writer(at=0)
    w.line("def f():")
    seen = []
    with w.indent():
        w.at = 5
        w.later(lambda inner: inner.lines([f"x = {len(seen)}", "y = x"]))
        w.at = 6
        w.line("return x")
    seen.append("written after")   # the part is written when the source is asked for
    source, positions = w.source()
    assert source == "def f():\n    x = 1\n    y = x\n    return x\n"
    assert positions == [0, 5, 5, 6]


def test_a_fallback_is_written_once_in_one_form():
    w = Writer()
    w.attempt("return a[0]", "return slow()", last="done()")
    assert w.source()[0].splitlines() == [
        "try:", "    return a[0]", "except _SAID:", "    raise", "except Exception:",
        "    return slow()", "finally:", "    done()"]


LONG = ("_v = (_t3 + _t4 if ((_t3 := (_E[_t1]['shares'] if (_t1 := L['c']).__class__ is str "
        "else _get_attr(run, _t1, 'shares'))).__class__ is int) & ((_t4 := (_E[_t2]['shares_left'] "
        "if (_t2 := L['c']).__class__ is str else _get_attr(run, _t2, 'shares_left'))).__class__ is int) "
        "else _sub(_t3, _t4))")


def _shown(text: str) -> str:
    """``text`` as ``railrules code`` shows it: each line broken when too long to read."""
    return "".join(piece + "\n" for line in text.split("\n")
                   for piece in writer.broken(line[:len(line) - len(line.lstrip())], line.lstrip()))


@pytest.mark.parametrize("text", [
    LONG,
    "x = f(" + ", ".join(f"'a, b if c else d {i}'" for i in range(12)) + ")",   # commas inside texts stay
    "if " + " and ".join(f"(v_{i} > {i})" for i in range(20)) + ":\n    pass",
    "y = " + "+".join(["1"] * 80),   # no place to break: as it is
])
def test_a_long_line_is_broken_into_the_same_code(text):
    source = _shown(text)
    assert ast.dump(ast.parse(source)) == ast.dump(ast.parse(text))
    lines = source.splitlines()
    if any(c in text for c in ",&"):
        assert len(lines) > len(text.split("\n")) and max(map(len, lines)) <= writer.WIDTH, source


def test_the_source_that_runs_keeps_a_line_for_each_line_written():
    w = Writer()
    w.line(LONG)
    assert w.source()[0] == LONG + "\n"   # (breaking it at every load cost half the load)


def test_a_long_line_breaks_at_its_outermost_places_first():
    lines = _shown(LONG).splitlines()
    assert lines[0] == "_v = (_t3 + _t4"
    assert lines[-1] == "    else _sub(_t3, _t4))"   # the outer else, one level in
    assert all(len(x) <= writer.WIDTH for x in lines)


# ------------------------------------------------------------------ no fallback where none is needed
RULES = """\
def twice(n) = n * 2

game:
    end_game "done"

score p = p.cash
"""


@functools.cache
def _names(root):
    return load_ruleset(str(write_ruleset(root, RULES))).names


# an expression (no rule locals; `x` a unit's local), and the unit locals that must be set for it
# to raise nothing its checked code would word; None: it may (its fast code keeps a fallback)
TOTAL = [
    ("1", set()),
    ('"a"', set()),
    ("none", set()),
    ("base", set()),
    ("counter", set()),
    ("1 + 2", set()),
    ("[1, counter, red]", set()),
    ("not counter", set()),
    ("counter == 1", set()),
    ("1 if counter else 2", set()),
    ("x", {"x"}),
    ("[x, 1]", {"x"}),
    ("x + 1", {"x"}),                   # tested: two whole numbers inline, else a helper that words
    ("twice(counter)", set()),          # a def: its own fallback
    ("count(x)", {"x"}),                # tested: a list's length inline, else the builtin
    ("counter + 1", None),              # proven a whole number, so untested: it may still be none
    ("count(trace)", None),             # proven a list, so untested: the same
    ("[t for t in tokens]", set()),
    ('"{counter}"', set()),
    ("red.value", None),                # a field read inline: a KeyError its checked code words
    ("[1, 2][5]", None),                # an index out of range
    ("table[\"zz\"]", None),
    ("1 < 2", None),                    # an order: Python's refusal, worded by the checked code
    ("[t.value for t in tokens]", None),
    ("x.value", None),
]


@pytest.mark.parametrize("text, needs", TOTAL, ids=[t for t, _ in TOTAL])
def test_an_expression_that_cannot_fail_has_no_fallback(tmp_path_factory, text, needs):
    names = _names(tmp_path_factory.getbasetemp() / "total")
    codegen = Codegen(names, False, {"_def_twice": None})
    e = parse_expression(text, Pos("<x>", 1, 1))
    assert codegen.source(e, {"x": "any"}, {"x": "v_x"}, unit=True) is not None
    total = codegen.total()
    assert (None if total is None else set(total)) == needs
