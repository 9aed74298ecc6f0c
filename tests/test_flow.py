"""Which locals a code unit has set where (interpreter/compile/flow.py), as a table: a unit's
control flow (each instruction's ways on: where to, what it sets, what it drops), and the facts
worked out at each instruction. The units below are written in the instructions' own terms
(``flow(i) -> [(pc, sets, drops)]``), so each case says exactly the graph it is about."""
from __future__ import annotations

import pytest

from railrules.interpreter.compile import flow


class _Step:
    """An instruction that goes on by ``ways``: (pc, sets, drops), pc None for the next one."""

    def __init__(self, *ways):
        self.ways = ways

    def flow(self, i):
        return [(i + 1 if pc is None else pc, frozenset(sets), frozenset(drops)) for pc, sets, drops in self.ways]


def on(sets="", drops=""):
    """On to the next instruction, setting and dropping the locals named (one letter each)."""
    return (None, set(sets), set(drops))


def to(pc, sets=""):
    return (pc, set(sets), set())


END = _Step()   # a return: no way on


def _sets(facts: list) -> list:
    return ["".join(sorted(x)) for x in facts]


# name, instructions, parameters, expected (must, may): the locals set on every way to each
# instruction, and on some way, as strings of one-letter names
ASSIGNMENT = [
    ("straight", [_Step(on("x")), _Step(on("y")), END], "", ["", "x", "xy"], ["", "x", "xy"]),
    ("parameters are set at the entry", [_Step(on("x")), END], "p", ["p", "px"], ["p", "px"]),
    # if c: let x   (0 tests, 1 sets x, 2 joins)
    ("one branch sets it", [_Step(on(), to(2)), _Step(on("x")), END], "", ["", "", ""], ["", "", "x"]),
    ("both branches set it", [_Step(on(), to(3)), _Step(on("x")), _Step(to(4)), _Step(on("x")), END], "",
     ["", "", "x", "", "x"], ["", "", "x", "", "x"]),
    # a loop: 0 starts it (its state h), 1 steps (sets v) or leaves to 3, 2 jumps back, 3 drops h
    # (around the loop, its variable may be set at its head: it is on the way back)
    ("a loop's variable is set in its body only", [_Step(on("h")), _Step(on("hv"), to(3)), _Step(to(1)),
                                                   _Step(on(drops="h")), END], "",
     ["", "h", "hv", "h", ""], ["", "hv", "hv", "hv", "v"]),
    ("an instruction no way reaches has none", [_Step(to(2)), _Step(on("x")), END], "", ["", "", ""], ["", "", ""]),
    ("a way past the end is no way", [_Step(on("x"), to(9, "y")), END], "", ["", "x"], ["", "x"]),
    ("a cycle back to the entry converges", [_Step(on("x")), _Step(on("y"), to(0, "z")), END], "",
     ["", "x", "xy"], ["xz", "xz", "xyz"]),
]


@pytest.mark.parametrize("name, instrs, params, must, may", ASSIGNMENT, ids=[c[0] for c in ASSIGNMENT])
def test_what_is_set_on_every_way_and_on_some_way(name, instrs, params, must, may):
    got_must, got_may = flow.assignment(instrs, list(params))
    assert (_sets(got_must), _sets(got_may)) == (must, may)


# name, instructions, leaves (control goes on in another call after them), entries, expected
# dirty (set since the function was entered, on some way) and surely set (on every way)
SINCE_ENTRY = [
    ("straight", [_Step(on("x")), _Step(on("y")), END], set(), [0], ["", "x", "xy"], ["", "x", "xy"]),
    # 1 is a call: the function is entered again at 2, with nothing set since
    ("a call starts afresh", [_Step(on("x")), _Step(on()), _Step(on("y")), END], {1}, [0, 2],
     ["", "x", "", "y"], ["", "x", "", "y"]),
    ("set on one way only", [_Step(on(), to(2)), _Step(on("x")), END], set(), [0],
     ["", "", "x"], ["", "", ""]),
    # a pause inside a loop (2), entered again after it (3): from there, this call of the
    # function has set nothing, so at the loop's head the state is not surely set by it
    ("a pause inside a loop", [_Step(on("h")), _Step(on("v"), to(4)), _Step(on()), _Step(to(1)), END], {2}, [0, 3],
     ["", "h", "hv", "", "h"], ["", "", "v", "", ""]),
]


@pytest.mark.parametrize("name, instrs, leaves, entries, dirty, surely", SINCE_ENTRY, ids=[c[0] for c in SINCE_ENTRY])
def test_what_the_function_has_set_since_it_was_entered(name, instrs, leaves, entries, dirty, surely):
    assert _sets(flow.dirty(instrs, leaves)) == dirty
    assert _sets(flow.surely_set(instrs, leaves, entries)) == surely


# name, instructions, leaves, what each instruction reads, expected live: what the function may
# read from each instruction on before setting it
LIVE = [
    ("read after set is not live before", [_Step(on("x")), _Step(on()), END], set(), ["", "x", ""], ["", "x", ""]),
    ("read before set is live from the start", [_Step(on()), _Step(on("x")), END], set(), ["x", "", ""], ["x", "", ""]),
    ("read on a later way", [_Step(on(), to(2)), _Step(on("x")), _Step(on()), END], set(), ["", "", "x", ""],
     ["x", "", "x", ""]),
    # a call at 1: what is read after it is read by another call of the function (from the frame)
    ("not through a call", [_Step(on()), _Step(on()), _Step(on()), END], {1}, ["", "", "y", ""], ["", "", "y", ""]),
    ("around a loop", [_Step(on()), _Step(on("v"), to(3)), _Step(to(1)), END], set(), ["", "w", "v", ""],
     ["w", "w", "vw", ""]),
]


@pytest.mark.parametrize("name, instrs, leaves, reads, live", LIVE, ids=[c[0] for c in LIVE])
def test_what_may_be_read_from_each_instruction_on(name, instrs, leaves, reads, live):
    assert _sets(flow.live(instrs, leaves, [set(r) for r in reads])) == live
