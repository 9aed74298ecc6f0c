"""``each p in turn``: the loop's next state (dsl/turns.py) against its rule written out whole."""
from __future__ import annotations

import itertools

import pytest

from railrules.interpreter.dsl.turns import ALL, ONCE, OTHERS, ROUND, advance


def _rule(state: list, end):
    """The next state of a turn loop, every condition tested every time: the turn that ran ends
    (a turn that was not a pass starts the passes again, one that did not drop out moves on, a
    loop once around counts it); the loop is over when nobody is left, it went once around, or
    all (or all but the last to act) have passed since the last turn that was not a pass."""
    rotation, index, passed, last, current, mark, left = state
    if current is not None:
        if mark is None:
            passed, last = [], current
        if mark != "out":
            index += 1
        if left is not None:
            left -= 1
    if not rotation or left == 0 or (
            end == ALL and len(passed) >= len(rotation) and all(q in passed for q in rotation)) or (
            end == OTHERS and len(passed) + 1 >= len(rotation) and all(q in passed or q == last for q in rotation)):
        return None
    index %= len(rotation)
    return [rotation, index, passed, last, rotation[index], None, left]


def _states():
    players = ["a", "b", "c"]
    for n in range(4):
        rotation = players[:n]
        for index in range(n + 1):
            for k in range(n + 1):
                for passed in itertools.permutations(rotation, k):
                    for last in [None, *players]:
                        for current in [None, *rotation]:
                            for mark in (None, "pass", "out"):
                                for left in (None, 0, 1, 2):
                                    yield [rotation, index, list(passed), last, current, mark, left]


@pytest.mark.parametrize("end", [ROUND, ALL, OTHERS, ONCE])
def test_the_next_turn_is_the_rules(end):
    states = list(_states())
    assert len(states) > 1000
    for state in states:
        assert advance(list(state), end) == _rule(list(state), end), (state, end)
