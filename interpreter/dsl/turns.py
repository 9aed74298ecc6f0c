"""Taking turns: what ``each p in turn ...`` does while it runs (the compiler writes the loop).

The loop keeps its state in one hidden local of the frame, a plain list, so that a game paused
inside a turn is saved and cloned like any other (DESIGN invariant 3)::

    [rotation, index, passed, last, current, mark, left]

``rotation``: the players still in turn, in turn order; ``index``: where ``current`` stands
in it (the next turn is the one after); ``passed``: who has passed since the last turn that
was not a pass; ``last``: whose turn that was (none before any); ``current``: whose turn it
is (none before the first); ``mark``: what the current turn did, ``none``, ``"pass"`` or
``"out"``; ``left``: how many turns are left when the loop goes once around (else none).

Stored values are never changed in place: every step makes a new list.
"""
from __future__ import annotations

from ..runtime.values import RuleFault, describe

ROUND, ALL, OTHERS, ONCE = None, "all", "others", "once"
SLOT = "$turn"   # the hidden local's name starts so (then the loop's number and line)
_NOBODY: list = []  # nobody has passed: one list shared by every loop (never changed in place)


def shown(key: str, value, show) -> str | None:
    """How a paused frame's hidden local reads (``railrules play``): a turn loop's players still
    in turn; None for any other hidden local."""
    if key.startswith(SLOT) and isinstance(value, list) and value and isinstance(value[0], list):
        return f"in turn {show(value[0])}"
    return None


def start(rotation, first, has_first: bool, end):
    """The state of a loop over ``rotation`` (a list of players) that starts at ``first``."""
    if not isinstance(rotation, list):
        raise RuleFault(f"'each ... in turn of' needs a list of players, got {describe(rotation)}")
    index = 0
    if has_first:
        if first not in rotation:
            shown = ", ".join(map(str, rotation[:8])) + (", ..." if len(rotation) > 8 else "")
            raise RuleFault(f"'each ... in turn from {first}': {describe(first)} is not in turn "
                            f"(the players in turn are: {shown or 'none'})")
        index = rotation.index(first)
    return [list(rotation), index, [], None, None, None, len(rotation) if end == ONCE else None]


def advance(state: list, end) -> list | None:
    """End the turn that ran (if any) and start the next: the loop's new state, its player
    ``current``; None when the loop is over: nobody is left in turn, or its ``until`` holds, or
    it went once around."""
    rotation, index, passed, last, current, mark, left = state
    if current is not None:
        if mark is None:          # a turn that was not a pass: the passes start again
            passed, last = _NOBODY, current
            index += 1
        elif mark != "out":       # a player who dropped out was taken out: index is the next
            index += 1
        if left is not None:
            left -= 1
    n = len(rotation)
    if not n or left == 0:
        return None
    # (the players in passed are distinct: all have passed only if there are as many of them)
    if passed:
        if end == ALL and len(passed) >= n and all(q in passed for q in rotation) or (
                end == OTHERS and len(passed) + 1 >= n and all(q in passed or q == last for q in rotation)):
            return None
    elif end == OTHERS and n == 1 and rotation[0] == last:   # (nobody passed: the one player was last)
        return None
    index %= n
    return [rotation, index, passed, last, rotation[index], None, left]


def pass_turn(state: list) -> list:
    """``pass turn``: the current turn is a pass (said twice, once)."""
    rotation, index, passed, last, current, mark, left = state
    if mark is not None:
        return state
    return [rotation, index, passed if current in passed else passed + [current], last, current, "pass", left]


def drop_out(state: list) -> list:
    """``drop out``: the current player leaves the rotation; the next in turn moves up."""
    rotation, index, passed, last, current, mark, left = state
    if mark == "out":
        return state
    return [rotation[:index] + rotation[index + 1:], index, passed, last, current, "out", left]
