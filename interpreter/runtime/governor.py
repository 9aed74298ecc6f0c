"""The resource governor (DESIGN invariant 9): the limits on what rules may build, and the work
they are charged for, wherever rules run (lint, load and constants, play, simulate, the
language server).

Work is charged to the run's step budget (``run.steps`` against ``run.budget``, RR303 when it
runs out): a block of instructions, a def call, each item a comprehension or an ``exists``
walks, each value a builtin builds, hashes or searches (a sort n + n·log2(n)/16, each call of
its key or cost function), each value a message shows (:mod:`interpreter.dsl.builtins`), each
item a list copy makes (``xs + ys``, ``add``, ``remove``) and each value a comparison of lists
or maps may walk (``==``, ``<``, ``in``, and the builtins that compare or hash items:
:func:`walked`, charged in bulk before the work, at C speed for a list of numbers or texts). What rules build is bounded by size, each limit an :class:`OverLimit`
(RR312 with the rule's position):

* :data:`MAX_LIST` items in a list, keys in a map, values of a ``range``;
* :data:`MAX_TEXT` characters in a text (``+``; ``"{...}"`` stored, or showing a text, list or
  map; a log line's list or map);
* :data:`MAX_DEPTH` lists and maps inside one another in a stored value;
* :data:`MAX_NODES` values in a stored value, a list counted each time it appears (what a save
  writes out: ``[xs, xs]`` is twice ``xs``).

``repeat N times`` walks its numbers one by one (the loop keeps N and where it is, plain data):
only the step budget bounds it.

A stored value is checked once (:func:`check_storable`): one of more than 64 values is
remembered with its depth and size, so a value built from checked ones (``[xs, xs]``,
``xs + ys``: :func:`joined`) is checked for what is new in it; values are never changed in
place, so a checked list stays checked.
"""
from __future__ import annotations

from .rationals import Fraction
from .values import MAX_LIST, MAX_STORED, RuleFault

__all__ = ["MAX_LIST", "MAX_TEXT", "MAX_DEPTH", "MAX_NODES", "OverLimit", "check_storable",
           "text_size", "charge", "check_text", "joined", "walked", "compared",
           "charge_walk", "charge_inside"]

MAX_TEXT = 100_000      # characters of a text a rule makes
MAX_DEPTH = 32          # lists and maps inside one another (a save allows 64, with the state's own)
MAX_NODES = 1_000_000   # values in a stored value, a shared list counted where it appears
_KEEP = 64              # a value of more values than this is remembered once checked
_HELD = 200_000         # at most this many items are held by the remembered lists (few: the collector walks them)


class OverLimit(RuleFault):
    """A value past a limit of the governor: RR312 with the rule's position."""


def charge(run, n: int) -> None:
    """Count ``n`` steps of work against the run's budget (``run.tick``, written out)."""
    run.steps += n
    if run.steps > run.budget:
        run.tick(0)  # the run says what going over means (RR303, or a constant's fault)


_FLAT = frozenset({int, str, bool, type(None), Fraction})   # values a walk does not enter


def walked(value, cap: int) -> int:
    """How many values comparing, hashing or searching ``value`` may walk: 1 for a number or a
    text, and for a list or map its items and, in each list or map among them, theirs (a list
    counted each time it appears: two equal copies of a shared list compare item by item). A
    stored value's count is known (:func:`check_storable` remembered it). It counts no further
    once past ``cap`` (what is left of the budget), so the count costs no more than the work it
    stands for."""
    if value.__class__ is not list and value.__class__ is not dict:
        return 1
    total, todo = 0, [value]
    while todo and total <= cap:
        items = todo.pop()
        kept = _CHECKED.get(id(items))
        if kept is not None and kept[0] is items:
            total += kept[2]
            continue
        if items.__class__ is dict:
            items = list(items.values())
        total += 1 + len(items)
        if not _FLAT.issuperset(map(type, items)):   # (at C speed, for a list of numbers or texts)
            todo.extend(x for x in items if x.__class__ is list or x.__class__ is dict)
    return total


def compared(x, y, cap: int) -> int:
    """What comparing ``x`` and ``y`` may walk: the smaller walk (known at once for a stored
    value, which is then the only one walked)."""
    known = [kept[2] for v in (x, y) if (kept := _CHECKED.get(id(v))) is not None and kept[0] is v]
    if known:
        return min(known)
    return min(walked(x, cap), walked(y, cap))


def charge_walk(run, value, times: int = 1) -> None:
    """Charge ``times`` the walk of ``value`` (:func:`walked`) before it is made: RR303 comes
    before the work it would cost."""
    charge(run, times * walked(value, (run.budget - run.steps) // max(times, 1) + 1))


def charge_inside(run, xs: list) -> None:
    """Charge the values inside the items of ``xs`` that are lists or maps (a builtin that
    compares or hashes its items; the items themselves are charged already)."""
    if not _FLAT.issuperset(map(type, xs)):
        charge(run, walked(xs, run.budget - run.steps + 1) - 1 - len(xs))


def check_text(text: str) -> str:
    if len(text) > MAX_TEXT:
        raise OverLimit(f"a text longer than {MAX_TEXT} characters")
    return text


# ------------------------------------------------------------------ storing
_CHECKED: dict = {}  # id(list or map) -> (it, its depth, its values): kept alive with its entry
_held = 0


def _remember(value, depth: int, nodes: int) -> None:
    global _held
    if _held + len(value) > _HELD or len(_CHECKED) >= 256:
        _CHECKED.clear()
        _held = 0
    _CHECKED[id(value)] = (value, depth, nodes)
    _held += len(value)


def check_storable(value):
    """Only plain JSON data may enter the game state, within the limits. Stored values are never
    changed in place (a change stores a new value), so a value is stored as it is, shared: a copy
    is made only where a whole-number fraction must become an integer."""
    t = value.__class__
    if t is str:
        return value if len(value) <= MAX_TEXT else check_text(value)
    if t is int and -MAX_STORED <= value <= MAX_STORED:
        return value
    if t is list or t is dict:
        return _container(value, 1)[0]
    return _scalar(value)


def _scalar(value):
    t = value.__class__
    if t is bool or value is None:
        return value
    if t is int:
        if -MAX_STORED <= value <= MAX_STORED:
            return value
        raise RuleFault(f"a number beyond {MAX_STORED} cannot be stored (a runaway multiplication?)")
    if t is str:
        return check_text(value)
    if isinstance(value, Fraction):
        if value.denominator == 1:
            return int(value)
        raise RuleFault(f"{value} is not a whole number: use ceil(a / b) or floor(a / b)")
    if callable(value):
        raise RuleFault("a function (x => ...) cannot be stored")
    return value


_PLAIN = frozenset({str, bool, type(None)})   # (a text is measured where it is made: + and "{...}")
_WHOLE = {int}


def _too_deep():
    return OverLimit(f"lists or maps nested more than {MAX_DEPTH} deep")


def _container(value, level: int) -> tuple:
    """``value`` (a list or map at nesting ``level``) as stored, its depth and its values."""
    kept = _CHECKED.get(id(value))
    if kept is not None and kept[0] is value:
        if level + kept[1] - 1 > MAX_DEPTH:
            raise _too_deep()
        return kept
    if level > MAX_DEPTH:
        raise _too_deep()
    items = value if value.__class__ is list else value.values()
    depth, nodes = 1, 1 + len(items)
    kinds = set(map(type, items))   # (at C speed) only texts, truth values and none, or whole
    if kinds <= _PLAIN or kinds == _WHOLE and -MAX_STORED <= min(items) and max(items) <= MAX_STORED:
        if nodes > _KEEP:           # numbers that may be stored: stored as they are
            _remember(value, 1, nodes)
        return value, 1, nodes
    for v in items:
        c = v.__class__
        if c is str:  # (not measured: a text is measured where it is made, + and "{...}")
            pass
        elif c is int and -MAX_STORED <= v <= MAX_STORED:
            pass
        elif c is list or c is dict:
            w, d, k = _container(v, level + 1)
            if w is not v:
                return _copied(value, level)
            if d >= depth:
                depth = d + 1
            nodes += k - 1
            if nodes > MAX_NODES:
                raise _too_big()
        elif _scalar(v) is not v:
            return _copied(value, level)
    if nodes > _KEEP:  # worth remembering: a long list, or one that holds many
        _remember(value, depth, nodes)
    return value, depth, nodes


def _copied(value, level: int) -> tuple:
    """:func:`_container` of a value that holds a whole-number fraction: a copy with integers."""
    depth, nodes, out = 1, 1 + len(value), []
    for k, v in (value.items() if value.__class__ is dict else enumerate(value)):
        if v.__class__ is list or v.__class__ is dict:
            v, d, m = _container(v, level + 1)
            depth, nodes = max(depth, d + 1), nodes + m - 1
        else:
            v = _scalar(v)
        out.append((k, v))
    if nodes > MAX_NODES:
        raise _too_big()
    return ([v for _, v in out] if value.__class__ is list else dict(out)), depth, nodes


def _too_big():
    return OverLimit(f"a value of more than {MAX_NODES} items, counting a list again each time "
                     "it appears in it (what a save writes)")


def joined(x: list, y: list) -> list:
    """``x + y`` (a list within :data:`MAX_LIST`), remembered as checked when both are: the one
    list a rule builds without a charge (a copy at C speed) is stored without a walk."""
    if len(x) + len(y) > MAX_LIST:
        raise OverLimit(f"a list longer than {MAX_LIST} items")
    out = x + y
    if len(out) >= _KEEP:
        a, b = _known(x), _known(y)
        if a is not None and b is not None:
            _remember(out, max(a[1], b[1]), a[2] + b[2] - 1)
    return out


def _known(x: list):
    """What storing ``x`` found (it, its depth, its values), if it was stored, or it is short
    and flat (``[h]`` added to a list); else None."""
    kept = _CHECKED.get(id(x))
    if kept is not None and kept[0] is x:
        return kept
    if len(x) >= _KEEP:
        return None
    for v in x:
        c = v.__class__
        if not (c is str and len(v) <= MAX_TEXT or c is int and -MAX_STORED <= v <= MAX_STORED
                or c is bool or v is None):
            return None
    return x, 1, 1 + len(x)


# ------------------------------------------------------------------ showing
def text_size(ent: dict, value) -> int:
    """How many values showing ``value`` (a list or map) walks, to be charged; OverLimit when its
    text would be longer than :data:`MAX_TEXT` or it is nested deeper than :data:`MAX_DEPTH`.
    A list that appears many times in it is measured once."""
    if value.__class__ is list and len(value) <= _KEEP:  # the common case: a few names or numbers
        chars = 2 * len(value)
        for x in value:
            c = x.__class__
            if c is str:
                rec = ent.get(x)
                chars += len(str(rec.get("name", x))) if rec else len(x)
            elif c is int and -MAX_STORED <= x <= MAX_STORED:
                chars += 20
            else:
                break
        else:
            if chars <= MAX_TEXT:
                return 1 + len(value)
    sizes: dict = {}

    def size(x, level: int) -> tuple:  # (characters, values)
        c = x.__class__
        if c is str:
            rec = ent.get(x)
            return (len(str(rec.get("name", x))) if rec else len(x)), 1
        if c is not list and c is not dict:
            return (4 if x is None or c is bool else len(str(x))), 1
        got = sizes.get(id(x))
        if got is not None:
            return got
        if level > MAX_DEPTH:
            raise _too_deep()
        chars, count = max(0, 2 * (len(x) - 1)), 1   # the ", " between items
        pairs = ((k, x[k]) for k in x) if c is dict else ((None, v) for v in x)
        for k, v in pairs:
            if k is not None:
                chars += size(k, level + 1)[0] + 1
            n, m = size(v, level + 1)
            chars += n
            count += m
            if chars > MAX_TEXT:
                raise OverLimit(f"a text longer than {MAX_TEXT} characters (showing a list "
                                f"or map of {len(x)} items)")
        sizes[id(x)] = got = (chars, count)
        return got

    return size(value, 1)[1]
