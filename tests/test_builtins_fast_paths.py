"""The builtins' fast paths: the common case of each builtin the shipped games call most (lists,
whole numbers, hexes of a grid) is served in one Python call, and every case at the edge of a
fast path (a default, lists among the items, a truth value for a number, a budget that runs out)
gives the answer, the fault and the charge of the general path: the step budget runs out at the
same point.

The expected steps follow the governor's rules (:mod:`interpreter.runtime.governor`): a step an
item of each list a builtin walks, and where it compares or hashes lists, each value inside them.
"""
from __future__ import annotations

import pytest

from railrules.interpreter import load_ruleset
from railrules.interpreter.dsl import builtins
from railrules.interpreter.runtime.rationals import Fraction
from railrules.interpreter.runtime.values import BuiltinError, OverBudget
from railrules.tools.lab.bytecodes import tally


@pytest.fixture(scope="module")
def run():
    """A running game's machine on a board with a grid layout (step and ahead need one)."""
    return load_ruleset("stephensons_rocket").new_game(3, 1).machine


# A15's ways: 0 N off the board, 1 NE B15, 2 SE B16, 3 S A16, 4 SW and 5 NW off the board
COMMON = [
    ("flatten", ([["A1"], ["A2", "A3"]],)),
    ("without", (["A1", "A2", "A3"], ["A2"])),
    ("intersect", (["A1", "A2", "A3"], ["A2"])),
    ("meets", (["A1", "A2", "A3"], ["A2"])),
    ("unique", (["A1", "A2", "A1"],)),
    ("min", ([3, 1, 2],)),
    ("max", ([3, 1, 2], 0)),
    ("any", ([0, 1],)),
    ("reverse", ([1, 2],)),
    ("range", (0, 5)),
    ("first", ([4, 5],)),
    ("step", ("A15", 2)),
    ("ahead", ("A15", 2)),
    ("neighbours", ("A15",)),
    ("next_player", ("p3",)),
]


@pytest.mark.parametrize("name, args", COMMON, ids=[c[0] for c in COMMON])
def test_the_common_case_of_a_hot_builtin_is_one_python_call(run, name, args):
    fn = builtins.ALL[name].fn
    call = (lambda: fn(run, *args)) if name in builtins.CONTEXT else (lambda: fn(*args))
    counts = tally(call)
    assert counts["calls"] == 2   # the lambda here and the builtin: nothing it calls is Python


def _outcome(run, name: str, args: tuple, room: int):
    """What builtin ``name`` gives for ``args`` with ``room`` steps left in the budget, and the
    steps it charged."""
    run.steps, run.budget = 0, room
    fn = builtins.ALL[name].fn
    try:
        got = fn(run, *args) if name in builtins.CONTEXT else fn(*args)
    except (BuiltinError, OverBudget) as err:
        got = err.__class__.__name__ + (f": {err}" if str(err) else "")
    return got, run.steps


EDGES = [
    # name, arguments, answer or fault, steps charged
    ("flatten", ([["A1"], ["A2", "A3"]],), ["A1", "A2", "A3"], 5),
    ("flatten", ([["A1"], "A2"],), "BuiltinError: flatten() needs a list, got 'A2'", 0),
    ("flatten", ("A1",), "BuiltinError: flatten() needs a list, got 'A1'", 0),
    ("without", (["A1", "A2", "A3"], ["A2", "A9"]), ["A1", "A3"], 5),
    ("without", ([[1], 2, [3]], [[1]]), [2, [3]], 7),                 # 4 items, and inside [1] [3] [1]: 1 each
    ("intersect", ([[1], 2, [3]], [[1]]), [[1]], 7),
    ("meets", ([[1], 2, [3]], [[1]]), True, 7),                         # charged as intersect
    ("meets", ([[1], 2, [3]], [[2]]), False, 7),
    ("meets", (["A1", "A2", "A3"], ["A9", "A2"]), True, 5),
    ("meets", (["A1", "A2"], []), False, 2),
    ("meets", (["A1"], "A1"), "BuiltinError: meets() needs a list, got 'A1'", 0),
    ("without", (["A1"], "A1"), "BuiltinError: without() needs a list, got 'A1'", 0),
    ("unique", ([[1], [1], 2],), [[1], 2], 5),                          # 3 items, and inside [1] twice: 1 each
    ("duplicates", ([[1], [1], 2],), [[1]], 7),                         # the values inside walked twice
    ("duplicates", ([1, 1, 2, 2, 3],), [1, 2], 5),
    ("min", ([],), "BuiltinError: min() of an empty list (give a default: min(xs, 0))", 0),
    ("min", ([], 7), 7, 0),
    ("max", ([3, 1], 0), 3, 2),
    ("max", ([3, 1], 0, 0), "BuiltinError: max(list, default) takes a list and at most a default, got 3 arguments", 2),
    ("max", ([[1], [0, 1]],), [1], 5),                                  # 2 items, and the 3 values inside [1] and [0, 1]
    ("min", (["a", 1],), "BuiltinError: min() cannot order 'a' and a number together: compare numbers "
                         "with numbers and text with text", 2),
    ("max", (3,), "BuiltinError: max() needs a list, got a number", 0),
    ("max", (3, 5), 5, 0),
    ("any", ([0, 0],), False, 2),
    ("reverse", ("ab",), "BuiltinError: reverse() needs a list, got 'ab'", 0),
    ("range", (2, 5), [2, 3, 4], 3),
    ("range", (5, 2), [], 0),
    ("range", (0, True), "BuiltinError: range() needs a number, got a boolean", 0),
    ("first", ([],), "BuiltinError: first() of an empty list", 0),
    ("step", ("A15", 0), None, 0),
    ("step", ("A15", 8), "B16", 0),
    ("step", ("A15", True), "BuiltinError: step() needs a direction 0-5, got a boolean", 0),
    ("step", ("nowhere", 1), "BuiltinError: step() needs a hex, got 'nowhere'", 0),
    ("ahead", ("A15", 2), ["B15", "B16", "A16"], 0),
    ("ahead", ("A15", 0), ["B15"], 0),
    ("ahead", ("A15", True), ["B15", "B16"], 0),   # true - 1, true, true + 1: directions 0, 1, 2
    ("ahead", ("A15", Fraction(1, 2)), "BuiltinError: step() needs a direction 0-5, got a number", 0),
    ("sort", ([3, 1, 2], lambda x: -x), [3, 2, 1], 6),                  # 3 + 3 * 2 // 16, and 3 key calls
    ("sort", ([3, 1, 2], lambda x: x == 1), [3, 2, 1], 6),              # truth values: the general path
    ("sort", ([3, 1, 2], lambda x: Fraction(1, x)), [3, 2, 1], 6),
    ("sort", ([3, 1, 2], lambda x: [x]), [1, 2, 3], 13),                # and the 7 values the keys hold
    ("sort", ([3, 1], lambda x: "a" if x == 1 else 0), "BuiltinError: sort() cannot order 'a' and a "
                                                          "number together: compare numbers with numbers and text with text", 4),
    ("sort", ([], lambda x: x), [], 0),
    ("neighbours", ("A15",), ["A16", "B15", "B16"], 0),
    ("neighbours", (3,), "BuiltinError: neighbours() needs a hex, got a number", 0),
    ("next_player", ("p3",), "p1", 0),
    ("next_player", ("A15",), "BuiltinError: players_from() needs a player, got 'A15'", 0),
]


@pytest.mark.parametrize("name, args, expected, steps", EDGES, ids=[e[0] for e in EDGES])
def test_each_edge_of_a_fast_path_answers_refuses_and_charges_as_the_general_path(run, name, args, expected, steps):
    assert _outcome(run, name, args, 10 ** 6) == (expected, steps)
    if steps:   # one step less room: the budget runs out, in that very builtin
        assert _outcome(run, name, args, steps - 1)[0] == "OverBudget"
