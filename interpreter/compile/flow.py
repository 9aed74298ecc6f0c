"""Which locals a code unit has set where: the facts :mod:`.units` needs to keep a rule's locals
as Python locals of its function while it runs.

Each instruction says where control goes from it and what each way sets or drops
(``flow(i) -> [(pc, sets, drops)]``: a ``let`` sets its name, a loop's step sets its variable,
a loop's exit drops its hidden state, a choice's option sets the option's parameters). From
that, once per unit, at each instruction:

- ``must``: the locals set on every way to it (definite assignment): read without a test;
- ``may``: those set on some way (the others are certainly not set);
- ``dirty``: those the function may have set since it was entered, when the instruction is
  reached without leaving the function, and ``surely_set`` those it has set on every way since:
  what a pause must write back to the frame;
- ``live``: those the function may read from there (``reads``: what each instruction reads,
  found while its lines are written) before setting them, without leaving the function: what
  an entry must load from the frame.

``leaves``: the instructions after which control goes on in another call of the function (a call
or an event that pushes a frame, a choice): nothing flows through them in Python, only through
the frame.
"""
from __future__ import annotations

_ALL = None   # the top of ``must``: not reached yet


def assignment(instrs: list, params) -> tuple[list, list]:
    """``(must, may)`` at each instruction, from the unit's entry with ``params`` set."""
    count = len(instrs)
    may: list = [None] * count   # None: not reached yet
    may[0] = frozenset(params)
    todo = [0]
    while todo:
        i = todo.pop()
        for j, sets, drops in instrs[i].flow(i):
            if j >= count:
                continue
            y = (may[i] | sets) - drops
            if may[j] is None or not y <= may[j]:
                may[j] = y if may[j] is None else may[j] | y
                todo.append(j)
    must = _on_every_way(instrs, {0: frozenset(params)}, set())
    return must, [y if y is not None else frozenset() for y in may]


def dirty(instrs: list, leaves: set) -> list:
    """At each instruction, the locals set since the function was entered (see the module)."""
    count = len(instrs)
    out: list = [frozenset()] * count
    todo = list(range(count))
    while todo:
        i = todo.pop()
        if i in leaves:
            continue
        for j, sets, drops in instrs[i].flow(i):
            if j < count and not (out[i] | sets) <= out[j]:
                out[j] = out[j] | out[i] | sets
                todo.append(j)
    return out


def surely_set(instrs: list, leaves: set, entries) -> list:
    """At each instruction, the locals the function has set on every way since it was entered
    (at any of ``entries``, where it starts with none)."""
    return _on_every_way(instrs, dict.fromkeys(entries, frozenset()), leaves)


def _on_every_way(instrs: list, start: dict, leaves: set) -> list:
    """At each instruction, the locals set on every way to it from ``start`` (instruction ->
    the locals set there), no way going on past ``leaves``; none where no way reaches."""
    count = len(instrs)
    out: list = [_ALL] * count
    for i, names in start.items():
        out[i] = names
    todo = list(start)
    while todo:
        i = todo.pop()
        if i in leaves:
            continue
        for j, sets, drops in instrs[i].flow(i):
            if j >= count:
                continue
            m = (out[i] | sets) - drops
            new = m if out[j] is _ALL else out[j] & m
            if new != out[j]:
                out[j] = new
                todo.append(j)
    return [m if m is not _ALL else frozenset() for m in out]


def live(instrs: list, leaves: set, reads: list) -> list:
    """At each instruction, the locals the function may read from there before setting them."""
    count = len(instrs)
    out: list = [frozenset(r) for r in reads]
    preds: dict = {}
    for i in range(count):
        if i not in leaves:
            for j, sets, _ in instrs[i].flow(i):
                if j < count:
                    preds.setdefault(j, []).append((i, sets))
    todo = list(range(count))
    while todo:
        j = todo.pop()
        for i, sets in preds.get(j, ()):
            more = out[j] - sets
            if not more <= out[i]:
                out[i] = out[i] | more
                todo.append(i)
    return out
