"""Fuzzing the resource governor with expressions over nested lists and function values.

Each example is a rule that evaluates one random expression a million times (``repeat``) under
a budget of 300,000 steps: lists of 50,000 items and lists of them, compared (``==``,
``<``, ``in``), copied (``+``), sorted, searched, hashed (``unique``, ``without``), nested, and
passed through function values (lambdas, defs as values, a def that applies its argument to
itself). The property is the governor's: every example ends, with a value or a RailrulesError
with a code (RR303 when the budget is spent, RR302 or RR312), never a Python exception, within
Hypothesis's per-example deadline: work that a step does not stand for (a copy or a comparison
charged one step) ran for minutes before. Run with ``-s`` for the examples run and the codes met.
"""
from __future__ import annotations

import tempfile
import time
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from railrules.interpreter import RailrulesError, load_ruleset

META = """\
name: fuzzed
title: Governor fuzz
players: {min: 1, max: 2}
rules: [main.rules]
components: components.yaml
limits: {steps: 300000, decisions: 50}
"""
COMPONENTS = "constants: {base: 10}\nvariables: {kept: [1]}\nplayer: {cash: 0}\n"
RULES = """\
def twice(f, x) = f(f(x))
def w(g) = g(g)
def ap(f, n) = f(f, n + 1)
def wrap(x) = [x, x]
def swap(f, x, y) = f(y, x)
game:
    cite "Fuzz rulebook: it loops."
    let xs = range(0, 50000)
    let ys = range(0, 50000)
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
          "count_of({a}, {b})", "without({a}, {b})", "intersect({a}, {b})", "({a} if {a} == {b} else {b})"]


def _expressions(inner):
    return st.one_of(
        st.tuples(st.sampled_from(UNARY), inner).map(lambda t: t[0].format(a=t[1])),
        st.tuples(st.sampled_from(BINARY), inner, inner).map(lambda t: t[0].format(a=t[1], b=t[2])),
        st.tuples(FUNCTIONS, inner).map(lambda t: f"twice({t[0]}, {t[1]})"),
        st.just("w(w)"), st.just("ap(ap, 0)"), st.just("w(x => x(x))"))


EXPRESSIONS = st.recursive(LEAVES, _expressions, max_leaves=8)
CODES = {"RR302", "RR303", "RR312"}
STATS = {"examples": 0, "codes": {}, "slowest": 0.0, "slowest_expr": ""}


@pytest.fixture(scope="module", autouse=True)
def _summary():
    yield
    print(f"\ngovernor fuzz: {STATS['examples']} examples, outcomes {STATS['codes']}, slowest "
          f"{STATS['slowest']:.2f} s ({STATS['slowest_expr']})")


def _outcome(expr: str) -> str:
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        for name, text in (("ruleset.yaml", META), ("components.yaml", COMPONENTS),
                           ("main.rules", RULES.replace("{expr}", expr))):
            (root / name).write_text(text, encoding="utf-8")
        try:
            ruleset = load_ruleset(str(root))
        except RailrulesError as err:
            return "load " + err.diagnostics[0].code   # (a type the linter is sure of, say)
        try:
            ruleset.new_game(1, 1)
        except RailrulesError as err:
            diag = err.diagnostics[0]
            assert diag.code in CODES and diag.pos.line >= 1, (expr, str(err))
            assert "Error" not in diag.message or "RuleFault" in diag.message, (expr, diag.message)
            return diag.code
    return "ended"


def _examples(n: int):
    return settings(max_examples=n, deadline=20_000, derandomize=False,
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
    start = time.process_time()
    code = _outcome(expr)
    spent = time.process_time() - start
    STATS["examples"] += 1
    STATS["codes"][code] = STATS["codes"].get(code, 0) + 1
    if spent > STATS["slowest"]:
        STATS["slowest"], STATS["slowest_expr"] = spent, expr
