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
``xs + ys``: :func:`joined`, ``set xs += ys``: :func:`extended`) is checked for what is new in
it; values are never changed in place, so a checked list stays checked. What is remembered only
saves work: a walk counts the same values either way. A store site whose value the generator
proved to be of some shape checks only what the proof leaves open (:func:`shaped`,
compile/storing.py), or nothing.
"""
from __future__ import annotations

from itertools import chain, compress
from operator import itemgetter

from .rationals import Fraction
from .values import MAX_LIST, MAX_STORED, RuleFault

__all__ = ["MAX_LIST", "MAX_TEXT", "MAX_DEPTH", "MAX_NODES", "OverLimit", "check_storable",
           "text_size", "charge", "check_text", "joined", "walked", "compared",
           "charge_walk", "charge_inside", "extended", "shaped"]

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
    counted each time it appears: two equal copies of a shared list compare item by item): the
    values :func:`check_storable` counts, known at once for a value it remembered, so that what
    is charged never depends on what the governor remembers. It counts no further once past
    ``cap`` (what is left of the budget), so the count costs no more than the work it stands
    for."""
    if value.__class__ is not list and value.__class__ is not dict:
        return 1
    total, todo = 1, [value]   # (each list or map counted once, as an item or as the value)
    while todo and total <= cap:
        items = todo.pop()
        kept = _CHECKED.get(id(items))
        if kept is not None and kept[0] is items:
            total += kept[2] - 1
            continue
        if items.__class__ is dict:
            items = list(items.values())
        total += len(items)
        if not _FLAT.issuperset(map(type, items)):   # (at C speed, for a list of numbers or texts)
            todo.extend(x for x in items if x.__class__ is list or x.__class__ is dict)
    return total


def compared(x, y, cap: int) -> int:
    """What comparing ``x`` and ``y`` may walk: the smaller walk (known at once for a stored
    value, and the other walked no further than it)."""
    kept = _CHECKED.get(id(y))
    if kept is not None and kept[0] is y:
        x, y = y, x
    a = walked(x, cap)
    return min(a, walked(y, a))


def charge_walk(run, value, times: int = 1) -> None:
    """Charge ``times`` the walk of ``value`` (:func:`walked`) before it is made: RR303 comes
    before the work it would cost."""
    charge(run, times * walked(value, (run.budget - run.steps) // max(times, 1) + 1))


def charge_inside(run, xs: list) -> None:
    """Charge the values inside the items of ``xs`` that are lists or maps (a builtin that
    compares or hashes its items; the items themselves are charged already)."""
    if not _FLAT.issuperset(map(type, xs)):
        # (walked no further than a count that runs the budget out: past what is left of it, the
        # list itself and its items, charged already)
        charge(run, walked(xs, run.budget - run.steps + 1 + len(xs)) - 1 - len(xs))


def check_text(text: str) -> str:
    if len(text) > MAX_TEXT:
        raise OverLimit(f"a text longer than {MAX_TEXT} characters")
    return text


# ------------------------------------------------------------------ storing
WHOLE_NUMBERS = range(-MAX_STORED, MAX_STORED + 1)   # the whole numbers a rule may store (tested at C speed)
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
    if t is int:
        return value if value in WHOLE_NUMBERS else _scalar(value)
    if t is str:
        return value if len(value) <= MAX_TEXT else check_text(value)
    if t is bool or value is None:
        return value
    if t is list and len(value) < _KEEP and _bounded(value):   # (short and flat: never remembered)
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


def _too_deep():
    return OverLimit(f"lists or maps nested more than {MAX_DEPTH} deep")


_PLAIN = frozenset({str, int, bool, type(None)})    # stored as they are, a whole number within bounds
_NESTED = frozenset({list, dict})
_STORABLE = _PLAIN | _NESTED
_IS_INT = int.__instancecheck__


def _container(value, level: int) -> tuple:
    """``value`` (a list or map at nesting ``level``) as stored, its depth and its values. Its
    items are read at C speed (their kinds, the largest whole number), and only the lists and
    maps among them are entered; anything else (a fraction, a number out of bounds, a function)
    is looked at one item at a time (:func:`_each`), which words the fault."""
    kept = _CHECKED.get(id(value))
    if kept is not None and kept[0] is value:
        if level + kept[1] - 1 > MAX_DEPTH:
            raise _too_deep()
        return kept
    if level > MAX_DEPTH:
        raise _too_deep()
    items = value if value.__class__ is list else value.values()
    kinds = set(map(type, items))
    if not kinds <= _STORABLE or int in kinds and max(map(abs, filter(_IS_INT, items))) > MAX_STORED:
        return _each(value, level, items)
    depth, nodes = 1, 1 + len(items)
    if not kinds.isdisjoint(_NESTED):
        for v in compress(items, map(_NESTED.__contains__, map(type, items))):
            counted = _inside(v, level, depth, nodes)
            if counted is None:
                return _copied(value, level)
            depth, nodes = counted
    if nodes > _KEEP:  # worth remembering: a long list, or one that holds many
        _remember(value, depth, nodes)
    return value, depth, nodes


def _each(value, level: int, items) -> tuple:
    """:func:`_container`, one item at a time."""
    depth, nodes = 1, 1 + len(items)
    for v in items:
        c = v.__class__
        if c is str:  # (not measured: a text is measured where it is made, + and "{...}")
            pass
        elif c is int and -MAX_STORED <= v <= MAX_STORED:
            pass
        elif c is list or c is dict:
            counted = _inside(v, level, depth, nodes)
            if counted is None:
                return _copied(value, level)
            depth, nodes = counted
        elif _scalar(v) is not v:
            return _copied(value, level)
    if nodes > _KEEP:
        _remember(value, depth, nodes)
    return value, depth, nodes


def _inside(v, level: int, depth: int, nodes: int) -> tuple | None:
    """A list or map ``v`` inside a container at ``level`` that has ``depth`` and ``nodes`` so
    far: both with ``v`` counted, or None when ``v`` has to be copied (so the container too)."""
    w, d, k = _container(v, level + 1)
    if w is not v:
        return None
    nodes += k - 1
    if nodes > MAX_NODES:
        raise _too_big()
    return max(depth, d + 1), nodes


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


def extended(x: list, y: list) -> list:
    """``set xs += ys``: ``x + y`` as stored, ``x`` a stored list (checked again only where the
    governor does not remember it) and ``y`` checked as what it adds; the two counted together."""
    if len(x) + len(y) > MAX_LIST:
        raise OverLimit(f"a list longer than {MAX_LIST} items")
    if _bounded(x) and _bounded(y):   # (the common case, read at C speed: two flat lists)
        out = x + y
        if len(out) >= _KEEP:
            _remember(out, 1, 1 + len(out))
        return out
    x, a, m = _container(x, 1)
    y, b, k = _container(y, 1)
    nodes = m + k - 1
    if nodes > MAX_NODES:
        raise _too_big()
    out = x + y
    if nodes > _KEEP:
        _remember(out, max(a, b), nodes)
    return out


# ------------------------------------------------------------------ proven shapes
class _Misfit(Exception):
    """A value not of the shape its store site proved."""


def shaped(shape):
    """:func:`check_storable` for a store site whose value the generator proved to be of
    ``shape`` (compile/statements.py): the check reads only what the proof leaves open (a whole
    number's bounds, a list's length, a part of no proven shape). A shape is ``"int"`` (a whole
    number), ``"flat"`` (a list or map of none, truths, texts and entities), ``"ints"`` (one of
    whole numbers), ``("list", shape)``, ``("items", (shape, ...))`` (a list literal's items,
    ``"safe"``: a value stored as it is) or ``"any"`` (anything: checked as any value); each may
    also be none. A value that does not fit its shape, or one past a limit, is checked as any
    value is, which words the fault."""
    measure = _measure(shape)

    def check(value):
        try:
            depth, nodes = measure(value)
        except (_Misfit, TypeError, RuleFault):
            return check_storable(value)
        if depth > MAX_DEPTH or nodes > MAX_NODES:
            return check_storable(value)
        if nodes > _KEEP:
            _remember(value, depth, nodes)
        return value
    return check


def _bounded(xs) -> bool:
    """Whether ``xs`` (a list) holds only values stored as they are in a list: whole numbers
    within the bounds, texts, truths, none (read at C speed)."""
    return _PLAIN.issuperset(map(type, xs)) and max(map(abs, filter(_IS_INT, xs)), default=0) <= MAX_STORED


def _flat(value) -> tuple:
    if value is None:
        return 0, 1
    if value.__class__ is not list and value.__class__ is not dict:
        raise _Misfit
    return 1, 1 + len(value)


def _ints(value) -> tuple:
    if value is None:
        return 0, 1
    c = value.__class__
    if not (c is list and _bounded(value) or c is dict and _bounded(list(value.values()))):
        raise _Misfit
    return 1, 1 + len(value)


def _int(value) -> tuple:
    if value is not None and not (value.__class__ is int and -MAX_STORED <= value <= MAX_STORED):
        raise _Misfit
    return 0, 1


def _anything(value) -> tuple:
    if value.__class__ is list or value.__class__ is dict:
        w, depth, nodes = _container(value, 1)
        if w is not value:
            raise _Misfit
        return depth, nodes
    if value.__class__ is not str and _scalar(value) is not value:
        raise _Misfit
    return 0, 1


def _measure(shape):
    """``fn(value) -> (its depth, its values)`` for a value of ``shape`` (:func:`shaped`)."""
    if shape in _LEAVES:
        return _LEAVES[shape]
    head, inner = shape
    if head == "items":
        return _items(inner)
    if inner.__class__ is tuple and inner[0] == "items":
        return _rows(inner[1])
    if inner == "safe":
        return _flat
    if inner == "int":
        return _ints
    if inner in ("flat", "ints"):   # a list of flat lists or maps: counted at C speed

        def lists(value):
            if value is None:
                return 0, 1
            if value.__class__ is not list or not _NESTED.issuperset(map(type, value)):
                raise _Misfit
            if inner == "ints" and value:   # (their numbers read together)
                kinds = set(map(type, value))
                if kinds != _LISTS and kinds != _MAPS or not _bounded(
                        list(chain.from_iterable(value if kinds == _LISTS else map(dict.values, value)))):
                    raise _Misfit
            return (2 if value else 1), 1 + len(value) + sum(map(len, value))
        return lists
    item = _measure(inner)

    def listed(value):
        if value is None:
            return 0, 1
        if value.__class__ is not list:
            raise _Misfit
        depth, nodes = 1, 1 + len(value)
        for x in value:
            d, k = item(x)
            if d >= depth:
                depth = d + 1
            nodes += k - 1
        return depth, nodes
    return listed


def _rows(shapes: tuple):
    """The measure of a list of list literals of ``shapes`` (a comprehension's), its rows read
    together at C speed: their lengths, their whole numbers and parts of no proven shape (one
    that is not a plain value: a misfit), the lengths of their flat lists; any other part
    measured row by row."""
    size = len(shapes)
    loose = _column([i for i, s in enumerate(shapes) if s in ("int", "any")])
    flat = _column([i for i, s in enumerate(shapes) if s == "flat"])   # (none there: a misfit)
    parts = [(i, _measure(s)) for i, s in enumerate(shapes) if s not in ("safe", "int", "any", "flat")]

    def rows(value):
        if value is None:
            return 0, 1
        if value.__class__ is not list:
            raise _Misfit
        if not value:
            return 1, 1
        if not _LISTS.issuperset(map(type, value)) or min(map(len, value)) != size or max(map(len, value)) != size:
            raise _Misfit
        depth, nodes = 2, 1 + len(value) * (1 + size)
        if loose and not _bounded(list(loose(value))):
            raise _Misfit
        if flat:
            lists = list(flat(value))
            if not _NESTED.issuperset(map(type, lists)):
                raise _Misfit
            depth, nodes = 3, nodes + sum(map(len, lists))
        for row in value if parts else ():
            for i, m in parts:
                d, k = m(row[i])
                if d + 2 > depth:
                    depth = d + 2
                nodes += k - 1
        return depth, nodes
    return rows


def _items(shapes: tuple):
    """A list literal's measure: the one row of :func:`_rows`."""
    rows = _rows(shapes)

    def items(value):
        depth, nodes = rows([value])
        return depth - 1, nodes - 1
    return items


def _column(at: list):
    """``fn(rows)``: the items at places ``at`` of each row, one after another; None if none."""
    if not at:
        return None
    if len(at) == 1:
        one = itemgetter(at[0])
        return lambda rows: map(one, rows)
    some = itemgetter(*at)
    return lambda rows: chain.from_iterable(map(some, rows))


_LISTS, _MAPS = frozenset({list}), frozenset({dict})

_LEAVES = {"int": _int, "flat": _flat, "ints": _ints, "any": _anything}


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
