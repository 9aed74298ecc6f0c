"""Fuzzing the resource governor with expressions over nested lists and function values.

Each example is a rule that evaluates one random expression a million times (``repeat``) under
a budget of 100,000 steps: lists of 20,000 items and lists of them, compared (``==``,
``<``, ``in``), copied (``+``), sorted, searched, hashed (``unique``, ``without``), nested, and
passed through function values (lambdas, defs as values, a def that applies its argument to
itself). The properties are the governor's, counted, not timed:

* every example ends, with a value or a RailrulesError with a code (RR303 when the budget is
  spent, RR302 or RR312), never a Python exception;
* the work done stays within a fixed multiple of the budget (:data:`RATE`). The work is counted:
  every call of a Python function while the rules run (``sys.setprofile``: compiled rules,
  function values, builtins, the engine), and every comparison or hash of an item of the long
  lists, which are made of whole numbers that count them (``range`` of 1,000 values or more,
  in this file only). Work that a step does not stand for ran for minutes before the list
  charges (a comparison of two long lists charged one step: ``xs == ys`` in this loop passed
  the bound, 4,000,000, on the engine before them); it is stopped as soon as it passes the
  bound, and the example fails. (A recursion that reaches Python's own limit inside the
  counting switches the counting off: RR302's depth limit bounds recursion first.)

Copies at C speed (``xs + ys``) leave no call to count; the governor charges them by their items.
Run with ``-s`` for the examples run, the codes met and the most work done for the budget.
"""
from __future__ import annotations

import sys
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from railrules.interpreter import RailrulesError, load_ruleset
from railrules.interpreter.compile import expressions
from railrules.interpreter.runtime import governor

BUDGET = 100_000
META = """\
name: fuzzed
title: Governor fuzz
players: {min: 1, max: 2}
rules: [main.rules]
components: components.yaml
limits: {steps: %d, decisions: 50}
""" % BUDGET
COMPONENTS = "constants: {base: 10}\nvariables: {kept: [1]}\nplayer: {cash: 0}\n"
RULES = """\
def twice(f, x) = f(f(x))
def w(g) = g(g)
def ap(f, n) = f(f, n + 1)
def wrap(x) = [x, x]
def swap(f, x, y) = f(y, x)
game:
    cite "Fuzz rulebook: it loops."
    let xs = range(0, 20000)
    let ys = range(0, 20000)
    let xss = [xs, ys, xs]
    repeat 1000000 times:
        let v = {expr}
        set kept = [1]
    end_game "done"

score p = p.cash
"""

LEAVES = st.sampled_from(["xs", "ys", "xss", "[1, 2]", "[]", "[xs, ys]", "range(0, 700)", "3", "kept",
                          "[[xs]]", "[xss, xss]"])
FUNCTIONS = st.sampled_from(["wrap", "(x => x)", "(x => [x, x])", "(x => x + x)", "(x => sort(x))",
                             "(x => unique(x))", "(x => [x] == [x])"])
UNARY = ["sort({a})", "max({a})", "min({a}, [])", "unique({a})", "count({a})", "flatten({a})", "[{a}]",
         "duplicates({a})", "reverse({a})", "sort({a}, k => k)", "max_by({a}, k => [k, k])"]
BINARY = ["({a} + {b})", "({a} == {b})", "({a} != {b})", "({a} < {b})", "({a} in {b})", "[{a}, {b}]",
          "count_of({a}, {b})", "without({a}, {b})", "intersect({a}, {b})", "meets({a}, {b})", "({a} if {a} == {b} else {b})"]


def _expressions(inner):
    return st.one_of(
        st.tuples(st.sampled_from(UNARY), inner).map(lambda t: t[0].format(a=t[1])),
        st.tuples(st.sampled_from(BINARY), inner, inner).map(lambda t: t[0].format(a=t[1], b=t[2])),
        st.tuples(FUNCTIONS, inner).map(lambda t: f"twice({t[0]}, {t[1]})"),
        st.just("w(w)"), st.just("ap(ap, 0)"), st.just("w(x => x(x))"))


EXPRESSIONS = st.recursive(LEAVES, _expressions, max_leaves=8)
CODES = {"RR302", "RR303", "RR312"}
RATE = 40   # calls and item comparisons a step may stand for (the most met in 400 examples: 3.3)
STATS = {"examples": 0, "codes": {}, "most": 0.0, "most_expr": ""}


class PastTheBound(BaseException):
    """The rules did more work than the budget stands for (not an Exception: nothing catches it)."""


class _Work:
    """The work counted while a rule runs, stopped once past ``RATE`` times the budget."""
    done = 0
    bound = RATE * BUDGET

    @classmethod
    def count(cls) -> None:
        cls.done += 1
        if cls.done > cls.bound:
            raise PastTheBound(f"more than {cls.bound} calls and comparisons")


class Counted(int):
    """A whole number that counts each comparison and hash of it."""
    __slots__ = ()

    def __eq__(self, other):
        _Work.count()
        return int.__eq__(self, other)

    def __ne__(self, other):
        _Work.count()
        return int.__ne__(self, other)

    def __lt__(self, other):
        _Work.count()
        return int.__lt__(self, other)

    def __gt__(self, other):
        _Work.count()
        return int.__gt__(self, other)

    def __le__(self, other):
        _Work.count()
        return int.__le__(self, other)

    def __ge__(self, other):
        _Work.count()
        return int.__ge__(self, other)

    def __hash__(self):
        _Work.count()
        return int.__hash__(self)


_NOT_COUNTED = (__file__, governor.__file__)   # (storing counting numbers walks them one by one)


def _profile(frame, event, arg):
    if event == "call" and frame.f_code.co_filename not in _NOT_COUNTED:
        _Work.count()


@pytest.fixture(scope="module", autouse=True)
def _counted_ranges():
    """Long ranges made of numbers that count their comparisons, while this file runs."""
    real = expressions._BASE["_b_range"]

    def counted(run, a, b):
        values = real(run, a, b)
        return [Counted(x) for x in values] if len(values) >= 1000 else values
    expressions._BASE["_b_range"] = counted
    yield
    expressions._BASE["_b_range"] = real


@pytest.fixture(scope="module", autouse=True)
def _summary():
    yield
    print(f"\ngovernor fuzz: {STATS['examples']} examples, outcomes {STATS['codes']}, most work "
          f"{STATS['most']:.2f} calls and comparisons a step ({STATS['most_expr']})")


def _ruleset(expr: str):
    """The ruleset of the loop over ``expr``, or the code with which it does not load."""
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        for name, text in (("ruleset.yaml", META), ("components.yaml", COMPONENTS),
                           ("main.rules", RULES.replace("{expr}", expr))):
            (root / name).write_text(text, encoding="utf-8")
        try:
            return load_ruleset(str(root))
        except RailrulesError as err:
            return "load " + err.diagnostics[0].code   # (a type the linter is sure of, say)


def _outcome(ruleset, expr: str) -> str:
    """How the game of ``ruleset`` starts: ended, or the code it stops with; the work counted."""
    _Work.done = 0
    sys.setprofile(_profile)
    try:
        ruleset.new_game(1, 1)
    except RailrulesError as err:
        diag = err.diagnostics[0]
        assert diag.code in CODES and diag.pos.line >= 1, (expr, str(err))
        assert "Error" not in diag.message or "RuleFault" in diag.message, (expr, diag.message)
        return diag.code
    finally:
        sys.setprofile(None)
    return "ended"


def _examples(n: int):
    return settings(max_examples=n, deadline=None, derandomize=False,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


@_examples(40)
@given(EXPRESSIONS)
def test_any_expression_over_lists_and_functions_ends_within_the_budget(expr):
    _check(expr)


@pytest.mark.slow
@_examples(400)
@given(EXPRESSIONS)
def test_many_expressions_over_lists_and_functions_end_within_the_budget(expr):
    _check(expr)


def _check(expr: str) -> None:
    ruleset = _ruleset(expr)
    code = ruleset if isinstance(ruleset, str) else _outcome(ruleset, expr)
    STATS["examples"] += 1
    STATS["codes"][code] = STATS["codes"].get(code, 0) + 1
    rate = _Work.done / BUDGET if not isinstance(ruleset, str) else 0.0
    if rate > STATS["most"]:
        STATS["most"], STATS["most_expr"] = rate, expr


@pytest.mark.parametrize("expr, least", [("xs == ys", 20_000), ("[xs] == [ys]", 20_000),
                                         ("without(xs, ys)", 20_000), ("w(w)", 150), ("ap(ap, 0)", 150)])
def test_the_work_is_counted(expr, least):
    """The count sees the work: the comparisons and hashes of long lists, and the calls of a
    recursion through function values, before RR303 or RR302 stops them."""
    ruleset = _ruleset(expr)
    assert not isinstance(ruleset, str)
    assert _outcome(ruleset, expr) in ("RR303", "RR302") and _Work.done >= least
