"""Built-in functions of the rules language.

``PURE`` functions see only their arguments; ``CONTEXT`` functions also receive the
running game (:class:`interpreter.engine.machine.Run`) as first argument: those whose work
grows with their lists are context builtins, to charge it to the run's step budget (one step
an item built, hashed or searched, a sort n + n·log2(n)/16, one step a call of a key or cost
function; :mod:`interpreter.runtime.governor`). ``count`` and ``len`` read a list's length (the
list was charged when it was built) and are pure. The common case of each builtin the games call
most (lists, whole numbers, hexes of a grid) is served in one Python call, its charge written
out; what else may come (a fault, lists among the items) takes the general path, which answers,
refuses and charges the same. Each entry is a :class:`Builtin`, the one place a builtin is
declared: the compiler checks arity from it, the type checker its arguments and result,
`railrules doc` and LANGUAGE.md's test its help.
"""
from __future__ import annotations

import heapq
import math
from collections import Counter, deque
from functools import reduce
from itertools import chain, compress, filterfalse, repeat
from operator import itemgetter, or_
from typing import Callable, NamedTuple


from ..runtime.governor import MAX_LIST, OverLimit, charge, charge_inside, charge_walk, walked
from ..runtime.rationals import Fraction
from ..runtime.values import BuiltinError, sorted_keys
from ..runtime.memo import keep


class Builtin(NamedTuple):
    """A builtin function, declared once: its implementation (a context builtin's takes the
    machine first), how many arguments it takes, its doc, and for the type checker (RR110) the
    kind of each argument ("list", "num", "hex" or "any") and its result type (None: the type
    of its first argument; "elem": an item of its first argument; "any": not known)."""
    fn: Callable
    lo: int
    hi: int
    doc: str
    args: tuple = ()
    result: str | None = "any"


def _as_list(x, fname):
    if isinstance(x, list):
        return x
    raise BuiltinError(f"{fname}() needs a list, got {_kind(x)}")


def _kind(x) -> str:
    if isinstance(x, bool):
        return "a boolean"
    if isinstance(x, (int, Fraction)):
        return "a number"
    if isinstance(x, str):
        return f"'{x}'"
    if isinstance(x, list):
        return "a list"
    if x is None:
        return "none"
    return type(x).__name__


def _number(x, fname):
    if isinstance(x, (int, Fraction)) and not isinstance(x, bool):
        return x
    raise BuiltinError(f"{fname}() needs a number, got {_kind(x)}")


def _ordered(fname, fn, items, keys=None):
    """``fn(items)`` (or ``fn`` over the items by their ``keys``) for a builtin that compares:
    values of kinds that do not order are a clear fault, not Python's."""
    try:
        return fn(items) if keys is None else fn(range(len(items)), key=keys.__getitem__)
    except TypeError:
        items = items if keys is None else keys
        kinds = sorted({_kind(x) for x in items})
        raise BuiltinError(f"{fname}() cannot order {' and '.join(kinds)} together: compare "
                           "numbers with numbers and text with text") from None


def _agg(fname, fn):
    def agg(run, xs, *rest):
        """min/max of a list (``fname(xs)``; ``fname(xs, d)``: ``d`` when ``xs`` is empty), or
        of the arguments (``fname(a, b, ...)``, when the first is not a list); a list charged a
        step an item, and each value inside its items when they are lists (lists order only
        with lists: the first item tells)."""
        if xs.__class__ is list:
            run.steps += len(xs)   # (charge, written out)
            if run.steps > run.budget:
                run.tick(0)
            if not xs:
                if len(rest) == 1:
                    return rest[0]
            elif xs[0].__class__ is list or xs[0].__class__ is dict:
                charge_inside(run, xs)
            elif len(rest) < 2:   # the common case: numbers or texts (and a default)
                try:
                    return fn(xs)
                except TypeError:
                    pass   # worded below
        if isinstance(xs, list):
            if rest[1:]:
                raise BuiltinError(f"{fname}(list, default) takes a list and at most a default, got {1 + len(rest)} arguments")
            if not xs:
                if rest:
                    return rest[0]
                raise BuiltinError(f"{fname}() of an empty list (give a default: {fname}(xs, 0))")
            return _ordered(fname, fn, xs)
        if not rest:
            _as_list(xs, fname)   # one argument that is not a list: the fault says so
        return _ordered(fname, fn, [xs, *rest])
    return agg


def _keys(run, m):
    if not isinstance(m, dict):
        raise BuiltinError(f"keys() needs a map, got {_kind(m)}")
    _sorting(run, len(m))
    return sorted_keys(m)


def _sorting(run, n: int, calls: int = 0, keys=None) -> None:
    """Charge a sort of ``n`` items that calls a key or cost function ``calls`` times; when the
    items compared (``keys``) hold lists or maps, for each value in them (:func:`walked`)."""
    if keys and (keys[0].__class__ is list or keys[0].__class__ is dict):   # (lists order only with lists)
        n = max(n, walked(keys, run.budget - run.steps + 1) - 1)
    charge(run, _sort_work(n, calls))


def _sort_work(n: int, calls: int = 0) -> int:
    """The steps a sort of ``n`` items that calls a key or cost function ``calls`` times takes."""
    return n + n * n.bit_length() // 16 + calls


def _listed(fname, fn):
    """``fn(xs)`` of a list, charged a step an item (``charge`` written out: they are common)."""
    def one(run, xs):
        if xs.__class__ is list:
            run.steps += len(xs)
            if run.steps > run.budget:
                run.tick(0)
            return fn(xs)
        return fn(_as_list(xs, fname))
    return one


def _sum(xs):
    for x in _as_list(xs, "sum"):
        if x.__class__ is not int and x.__class__ is not Fraction:
            break
    else:
        return sum(xs)   # numbers only (no truth values): Python's sum, the same additions
    total = 0
    for x in xs:
        total += _number(x, "sum")
    return total


_NUMBERS = frozenset({int, Fraction})   # (not bool: a truth value is no number)


def _charged_sum(run, xs):
    """``sum`` charged a step an item: the common case (a list of numbers) in one function."""
    if xs.__class__ is list:
        run.steps += len(xs)
        if run.steps > run.budget:
            run.tick(0)
        if _NUMBERS.issuperset(map(type, xs)):   # (at C speed)
            return sum(xs)
    return _sum(xs)   # the fault, in its words


def _charged_count_of(run, xs, x):
    """``count_of`` charged a step an item (a list's count, at C speed)."""
    if xs.__class__ is list:
        run.steps += len(xs)
        if run.steps > run.budget:
            run.tick(0)
        if x.__class__ is list or x.__class__ is dict:   # compared with each item, by value
            charge_walk(run, x, len(xs))
        return xs.count(x)
    return _count_of(xs, x)   # the fault, in its words


def _ceil(x):
    return math.ceil(_number(x, "ceil"))


def _floor(x):
    return math.floor(_number(x, "floor"))


def _range(run, a, b):
    if a.__class__ is int and b.__class__ is int and b - a <= MAX_LIST:   # whole numbers
        run.steps += b - a if b > a else 0   # (charge, written out)
        if run.steps > run.budget:
            run.tick(0)
        return list(range(a, b))
    a, b = _number(a, "range"), _number(b, "range")
    if b - a > MAX_LIST:
        raise OverLimit(f"range() of more than {MAX_LIST} values")
    charge(run, max(b - a, 0))
    return list(range(a, b))


_INT = frozenset({int})


def _sort(run, xs, key=None):
    if xs.__class__ is not list:
        xs = _as_list(xs, "sort")
    if not key:
        _sorting(run, len(xs), 0, xs)
        return _ordered("sort", sorted, xs)
    n = len(xs)
    run.steps += _sort_work(n, n)   # (charge, written out)
    if run.steps > run.budget:
        run.tick(0)
    keys = list(map(key, xs))
    if _INT.issuperset(map(type, keys)):   # the common case, whole numbers: they order, no list
        if run.steps > run.budget:   # (as _sorting's charge of nothing, after the key's calls)
            run.tick(0)
        return list(map(xs.__getitem__, sorted(range(n), key=keys.__getitem__)))
    _sorting(run, 0, 0, keys)   # keys that are lists: each value compared
    return list(map(xs.__getitem__, _ordered("sort", sorted, xs, keys)))


def _by(fname, pick):
    def by(run, xs, key):
        xs = _as_list(xs, fname)
        charge(run, 2 * len(xs))   # a key call and a comparison an item
        if not xs:
            raise BuiltinError(f"{fname}() of an empty list")
        keys = [key(x) for x in xs]
        if keys[0].__class__ is list or keys[0].__class__ is dict:   # (lists order only with lists)
            charge_inside(run, keys)
        return xs[_ordered(fname, pick, xs, keys)]
    return by


def _key(x):
    """A value as a set member: a list (or map) as a tuple of its members' keys, so that lists
    of lists can be compared by value like everything else."""
    if isinstance(x, list):
        return tuple(map(_key, x))
    if isinstance(x, dict):
        return tuple(sorted((k, _key(v)) for k, v in x.items()))
    return x


def _unique(run, xs):
    """The list without repeats, first occurrences kept: charged a step an item, and each value
    inside items that are lists (found when hashing them fails)."""
    if xs.__class__ is list:
        run.steps += len(xs)   # (charge, written out)
        if run.steps > run.budget:
            run.tick(0)
    else:
        xs = _as_list(xs, "unique")
    try:  # items that hash (entities, numbers, text): their own keys
        return list(dict.fromkeys(xs))
    except TypeError:  # lists among the items: compared by value, each value charged
        charge_inside(run, xs)
    return _once_by_value(xs)


def _once_by_value(xs: list) -> list:
    """The items of ``xs`` without repeats, compared by value (:func:`_key`)."""
    seen, out = set(), []
    for x in xs:
        k = _key(x)
        if k not in seen:
            seen.add(k)
            out.append(x)
    return out


def _sieve(fname, keep):
    """``fname(xs, ys)``, the items of ``xs`` that are (``keep`` is ``filter``) or are not
    (``filterfalse``) in ``ys``, in order: charged a step an item of both lists, and each value
    inside those of their items that are lists (hashed, and found to be lists when that fails)."""
    def sieve(run, xs, ys):
        if xs.__class__ is list and ys.__class__ is list:
            run.steps += len(xs) + len(ys)   # (charge, written out)
            if run.steps > run.budget:
                run.tick(0)
        else:
            xs, ys = _as_list(xs, fname), _as_list(ys, fname)
        try:
            return list(keep(set(ys).__contains__, xs))   # (at C speed)
        except TypeError:  # lists among the items: compared by value, each value charged
            return _sieved_by_value(run, xs, ys, keep)
    return sieve


def _sieved_by_value(run, xs: list, ys: list, keep) -> list:
    """:func:`_sieve`'s answer where lists are among the items: each value inside them charged,
    the items compared by value (:func:`_key`)."""
    charge_inside(run, xs)
    charge_inside(run, ys)
    found = set(map(_key, ys))
    return list(keep(lambda x: _key(x) in found, xs))


def _meets(run, xs, ys):
    """``meets(xs, ys)``: whether some item of ``xs`` is in ``ys``, the question
    ``count(intersect(xs, ys)) > 0`` asks, answered without the list of them: charged as
    ``intersect`` (a step an item of both lists, and each value inside their items that are
    lists, then compared by value)."""
    if xs.__class__ is list and ys.__class__ is list:
        run.steps += len(xs) + len(ys)   # (charge, written out)
        if run.steps > run.budget:
            run.tick(0)
    else:
        xs, ys = _as_list(xs, "meets"), _as_list(ys, "meets")
    try:
        return not set(ys).isdisjoint(xs)   # (at C speed)
    except TypeError:  # lists among the items
        return bool(_sieved_by_value(run, xs, ys, filter))


def _first(xs):
    if xs.__class__ is list and xs:
        return xs[0]
    xs = _as_list(xs, "first")
    if not xs:
        raise BuiltinError("first() of an empty list")
    return xs[0]


def _count_of(xs, x):
    return _as_list(xs, "count_of").count(x)


_LIST = frozenset({list})


def _charged_flatten(run, xss):
    if xss.__class__ is list and _LIST.issuperset(map(type, xss)):
        n = sum(map(len, xss))
        if n <= MAX_LIST:   # a list of lists, within the limit: at C speed
            run.steps += n + len(xss)   # (charge, written out)
            if run.steps > run.budget:
                run.tick(0)
            return list(chain.from_iterable(xss))
    out = []
    for xs in _as_list(xss, "flatten"):
        if xs.__class__ is not list:
            _as_list(xs, "flatten")   # the fault, in its words
        out += xs
        if len(out) > MAX_LIST:
            raise OverLimit(f"flatten() of more than {MAX_LIST} items")
    charge(run, len(out) + len(xss))
    return out


def _duplicates(run, xs):
    """The values that occur more than once in a list, each once: charged as unique."""
    if xs.__class__ is list:
        run.steps += len(xs)   # (charge, written out)
        if run.steps > run.budget:
            run.tick(0)
    else:
        xs = _as_list(xs, "duplicates")
    try:
        counts = Counter(xs)
        return list(compress(counts, map((1).__lt__, counts.values())))   # (at C speed)
    except TypeError:  # lists among the items: compared by value, each value charged
        charge_inside(run, xs)
    seen, twice = set(), set()
    for x in xs:
        k = _key(x)
        (twice if k in seen else seen).add(k)
    charge_inside(run, xs)   # (walked again: the first occurrences, found by value)
    return [x for x in _once_by_value(xs) if _key(x) in twice]


_LISTS = {  # pure, or charged (_CHARGED: made context builtins below)
    "keys": Builtin(_keys, 1, 1, "the keys of a map, sorted (to loop over a map: for k in keys(m))", ("any",), "list"),
    "count": Builtin(lambda xs: len(_as_list(xs, "count")), 1, 1, "number of items in a list", ("list",), "int"),
    "len": Builtin(lambda xs: len(_as_list(xs, "len")), 1, 1, "number of items in a list", ("list",), "int"),
    "sum": Builtin(_charged_sum, 1, 1, "sum of a list of numbers", ("list",), "int"),
    "min": Builtin(_agg("min", min), 1, 9, "smallest of a list (min(xs, d): d when xs is empty), or of the arguments"),
    "max": Builtin(_agg("max", max), 1, 9, "largest of a list (max(xs, d): d when xs is empty), or of the arguments"),
    "abs": Builtin(lambda x: abs(_number(x, "abs")), 1, 1, "absolute value", ("num",), "int"),
    "ceil": Builtin(_ceil, 1, 1, "round a fraction up: ceil(22 / 3) = 8", ("num",), "int"),
    "floor": Builtin(_floor, 1, 1, "round a fraction down: floor(22 / 3) = 7", ("num",), "int"),
    "range": Builtin(_range, 2, 2, "the whole numbers a, a+1, ..., b-1", ("num", "num"), "list:int"),
    "any": Builtin(_listed("any", any), 1, 1, "true if any item is true", ("list",), "bool"),
    "all": Builtin(_listed("all", all), 1, 1, "true if every item is true", ("list",), "bool"),
    "sort": Builtin(_sort, 1, 2, "sorted copy of a list, optionally by a key: sort(cs, c => c.income)", ("list", "any"), None),
    "reverse": Builtin(_listed("reverse", itemgetter(slice(None, None, -1))), 1, 1, "reversed copy", ("list",), None),
    "first": Builtin(_first, 1, 1, "first item of a non-empty list", ("list",), "elem"),
    "max_by": Builtin(_by("max_by", max), 2, 2, "the first item with the largest key", ("list", "any"), "elem"),
    "min_by": Builtin(_by("min_by", min), 2, 2, "the first item with the smallest key", ("list", "any"), "elem"),
    "unique": Builtin(_unique, 1, 1, "the list without repeats, first occurrences kept", ("list",), None),
    "without": Builtin(_sieve("without", filterfalse), 2, 2, "items of the first list not in the second", ("list", "list"), None),
    "count_of": Builtin(_charged_count_of, 2, 2, "how many times a value occurs in a list", ("list", "any"), "int"),
    "flatten": Builtin(_charged_flatten, 1, 1, "the items of a list of lists, one list: flatten([[a], [b, c]]) = [a, b, c]", ("list",), "any"),
    "intersect": Builtin(_sieve("intersect", filter), 2, 2, "items of the first list that are also in the second, in order", ("list", "list"), None),
    "meets": Builtin(_meets, 2, 2, "true if some item of the first list is in the second: count(intersect(xs, ys)) > 0 without the list", ("list", "list"), "bool"),
    "duplicates": Builtin(_duplicates, 1, 1, "the values that occur more than once in a list, each once", ("list",), None),
}


# ---------------------------------------------------------------- context builtins
def _seat_list(run):
    return run.state["kinds"]["players"]


def _players_from(run, p):
    seats = _seat_list(run)
    if p not in seats:
        raise BuiltinError(f"players_from() needs a player, got {_kind(p)}")
    i = seats.index(p)
    return seats[i:] + seats[:i]


def _next_player(run, p):
    seats = run.state["kinds"]["players"]
    if p in seats:
        return seats[(seats.index(p) + 1) % len(seats)]
    return _players_from(run, p)   # the fault, in its words


def _hex(run, h, fname):
    if h not in run.board.adj:
        raise BuiltinError(f"{fname}() needs a hex, got {_kind(h)}")
    return h


def _neighbours(run, h):
    near = run.board.adj.get(h)
    return list(near if near is not None else run.board.adj[_hex(run, h, "neighbours")])


_KEPT = 4096   # the frontiers and the distances a board keeps (the last few thousand)


def _frontier(run, hexes):
    """Hexes adjacent to the group ``hexes`` and not in it, in board order. The same groups come
    back again and again (a line's places, the stations on the map): the board keeps the
    frontiers of the last few thousand."""
    board = run.board
    key = tuple(hexes if hexes.__class__ is list else _as_list(hexes, "frontier"))
    found = board.frontiers.get(key)  # (lists among the items: refused here, as by set())
    if found is not None:
        return list(found)
    near_bits, bits = board.near_bits, board.bits
    inside = out = 0
    for h in key:
        near = near_bits.get(h)
        if near is None:
            near = near_bits[_hex(run, h, "frontier")]
        out |= near
        inside |= bits[h]
    found = board.hexes_in(out & ~inside)
    return list(keep(board.frontiers, key, found, _KEPT))


def without_frontier(run, xs, parts, group):
    """``without(xs, flatten(parts + [frontier(group)]))`` in one step, as the compiler writes
    that expression (the frontier last): the same list, charged the same, with the frontier a set
    of the group's neighbours, never listed in board order. Anything but lists of hexes takes
    the three builtins' own way, and their words for a fault."""
    if xs.__class__ is list and group.__class__ is list and _LIST.issuperset(map(type, parts)):
        try:
            away = set(chain.from_iterable(map(run.board.adj.__getitem__, group)))
            away.difference_update(group)
            n = len(away) + sum(map(len, parts))
            if n <= MAX_LIST:
                away.update(chain.from_iterable(parts))
                kept = list(filterfalse(away.__contains__, xs))   # (at C speed)
                charge(run, n + len(parts) + 1)   # flatten's charge, then without's
                charge(run, len(xs) + n)
                return kept
        except (KeyError, TypeError):   # an item that is no hex, or a list among the items
            pass
    return ALL["without"].fn(run, xs, _charged_flatten(run, [*parts, _frontier(run, group)]))


def _adjacent(run, a, b):
    return b in run.board.adj[_hex(run, a, "adjacent")]


def _touches(run, xs, ys):
    """True when the two groups of hexes share a hex or are adjacent."""
    ys = set(_as_list(ys, "touches"))
    charge(run, len(ys) + len(_as_list(xs, "touches")))
    adj = run.board.adj
    for h in _as_list(xs, "touches"):
        if h in ys or ys.intersection(adj[h]):
            return True
    return False


def _components(run, hexes):
    charge(run, 2 * len(_as_list(hexes, "components")))  # a sort, a search
    board = run.board
    left = _bits_of(board, hexes)   # (items that are no hex: in no group)
    parts = []
    while left:   # the group of the first hex left, in board order: groups by their first hex
        part = board.spread(left & -left, left)
        parts.append(board.hexes_in(part))
        left &= ~part
    return parts


def _connected(run, hexes, a, b):
    charge(run, len(_as_list(hexes, "connected")))
    board = run.board
    within = _bits_of(board, hexes)
    try:
        start, end = board.bits.get(a, 0) & within, board.bits.get(b, 0) & within
    except TypeError:   # a list or a map: no hex of the group
        return False
    return bool(start and end and board.spread(start, within) & end)


def _distance(run, group, h):
    """Fewest steps from the nearest hex of ``group`` (a hex or a list of hexes) to hex ``h``,
    every hex of the board enterable; none when the group is empty or has no way there. The
    same groups come back again and again (a company's network): the board keeps the answers
    for the last few thousand (group, hex), as it keeps frontiers, and the very lists asked
    about last are known by identity (lists never change in place: no tuple made to look one up)."""
    board = run.board
    if group.__class__ is list and h.__class__ is str:  # the very list asked about before
        seen = _SEEN.get((id(group), h))
        if seen is not None and seen[0] is group and seen[1] is board:
            return seen[2]
    try:
        key = (tuple(group) if group.__class__ is list else group, h)
        found = board.distances.get(key, board)
    except TypeError:  # a list among the items: refused below, as a hex that is not one
        key, found = None, board
    if found is not board:
        return _seen(group, h, board, found)
    table = board.distances_to(_hex(run, h, "distance"))
    steps = [table.get(_hex(run, x, "distance")) for x in (group if isinstance(group, list) else [group])]
    steps = [d for d in steps if d is not None]
    found = min(steps) if steps else None
    if key is not None:
        keep(board.distances, key, found, _KEPT)
        _seen(group, h, board, found)
    return found


_SEEN: dict = {}  # (id(list), hex) -> (the list, the board, its distance): the lists asked last


def _seen(group, h, board, found):
    if group.__class__ is list:
        keep(_SEEN, (id(group), h), (group, board, found), 256)
    return found


_BITS: dict = {}  # id(list) -> (the list, its hexes as Board.bits): lists never change in place


def _bits_of(board, hexes) -> int:
    """The hexes of ``hexes`` (a list or a set) as one whole number, a bit per hex of the
    board (items that are no hex: none); a list's bits are kept while it is among the last few."""
    if hexes.__class__ is list:
        entry = _BITS.get(id(hexes))
        if entry is not None and entry[0] is hexes:
            return entry[1]
    found = reduce(or_, map(board.bits.get, hexes, repeat(0)), 0)
    if hexes.__class__ is list:
        _knowing_bits(hexes, found)
    return found


_REACHED = 1024   # the reach answers a board keeps (the last thousand or so)
_WHOLE = frozenset({int, type(None)})


def _reach_key(board, group: list, limit, cost) -> tuple:
    """What a reach answer depends on besides the board, as a key of ``Board.reaches``, and the
    cost as the search reads it: the group, the limit and the cost, each by value (a number with
    its kind: ``1`` and ``true``, or ``2`` and a fraction 2, are equal but not alike), a list of
    enterable hexes as their bits (the search's own reading of it: items that are no hex enter
    nothing); the key None when the cost is a function, or a map with a price that is not a
    whole number or none (then its prices are checked, or asked, each time)."""
    if cost is None:
        priced: tuple = ()
        enterable = -1
    elif cost.__class__ is list:
        enterable = _bits_of(board, cost)
        priced = (1, enterable)
    elif cost.__class__ is dict and _WHOLE.issuperset(map(type, cost.values())):
        priced = (2, tuple(cost), tuple(cost.values()))   # (no pair made or hashed)
        enterable = None
    else:
        return None, None
    return ((limit.__class__, limit, *group), priced), enterable


def _reach(run, group, limit, cost=None):
    """Hexes reachable from a group of hexes spending at most ``limit``. Entering hex h costs
    ``cost[h]`` when cost is a map of prices (a hex not in it, or priced none, cannot be
    entered; every price in it is checked), ``cost(h)`` when cost is a function (none: h
    cannot be entered), 1 when cost is a list of the hexes that may be entered (others cannot),
    1 everywhere without cost. The group is included, at no cost. Board order.

    The answer depends on the board, which never changes, and on the arguments alone: the board
    keeps the answers of the last thousand or so by their arguments' values (the same company's
    network, trains and prices come back decision after decision), each with the work it was
    charged, charged again when it is read (the budget runs out where it would without them).
    The list given back knows its bits (:func:`_bits_of`): a later search through it reads them
    at once."""
    if group.__class__ is not list:
        group = _as_list(group, "reach")
    board = run.board
    try:   # (a kept answer's arguments were checked when it was found)
        key, enterable = _reach_key(board, group, limit, cost)
        kept = board.reaches.get(key) if key is not None else None
    except TypeError:   # lists among the items: refused below, in their words
        key = kept = enterable = None
    if kept is not None:
        charge(run, kept[1])
        return _knowing_bits(list(kept[0]), kept[2])
    sources = {_hex(run, h, "reach") for h in group}
    limit = _number(limit, "reach")
    if not sources or limit < 0:
        return []
    reached, seen, searched, read = _reached(run, board, sources, limit, cost, enterable)
    work = _sort_work(searched, read)
    if key is not None:
        keep(board.reaches, key, (reached, work, seen), _REACHED)
    charge(run, work)
    return _knowing_bits(list(reached), seen)


def _knowing_bits(hexes: list, bits) -> list:
    """``hexes``, its bits (None: not known) kept for :func:`_bits_of`."""
    if bits is not None:
        keep(_BITS, id(hexes), (hexes, bits), 256)
    return hexes


def _reached(run, board, sources: set, limit, cost, enterable=None) -> tuple:
    """reach's search: the hexes reached in board order, as bits (None from a search on a heap),
    how many were searched and how many prices were read or asked (what it is charged).
    ``enterable``: a list cost's bits, when known."""
    if cost is None or cost.__class__ is list:
        # every step costs 1: breadth-first, on whole numbers with a bit per hex (Board.bits)
        if enterable is None:
            enterable = -1 if cost is None else _bits_of(board, cost)
        allowed = enterable
        start = _bits_of(board, sources)
        last = _SEARCHED.get((start, limit))
        layers: list = [start]
        stands: int | None = 0
        if last is not None and last[0] is board:
            _, was, layers, seen, reached = last
            stands = _layers_kept(board, layers, was ^ allowed)
        if stands is not None:   # on from the last layer that stands (None: the whole last search)
            layers = layers[:stands + 1]
            seen, ring, steps = reduce(or_, layers), layers[-1], len(layers) - 1
            around = board.around
            while ring and steps < limit:
                steps += 1
                ring = around(ring) & allowed & ~seen
                if ring:
                    seen |= ring
                    layers.append(ring)
            reached = board.hexes_in(seen)
        keep(_SEARCHED, (start, limit), (board, allowed, layers, seen, reached), _REACHED)
        return reached, seen, len(reached), 0   # each hex reached was searched from once
    if cost.__class__ is dict:   # a map of prices, charged when it was made
        start = _bits_of(board, sources)
        levels = _levels_of(board, start, cost, limit)
        if levels is not None:
            seen = _reach_by_levels(board, start, limit, levels)
            reached = board.hexes_in(seen)
            return reached, seen, len(reached), len(cost)   # each hex reached, each price read
        found, searched, read = _cheapest(run, sources, limit, cost, None)
        return found, None, searched, read
    if callable(cost):
        found, searched, read = _cheapest(run, sources, limit, {}, cost)
        return found, None, searched, read
    raise BuiltinError(f"reach() needs a list of hexes, a map of prices or a function (h => ...) "
                       f"as its cost, got {_kind(cost)}")


_SEARCHED: dict = {}   # (group's bits, limit) -> (board, enterable bits, layers, bits reached, hexes reached): the last search


def _layers_kept(board, layers: list, changed: int) -> int | None:
    """How much of a step-by-step search stands when the hexes of ``changed`` become enterable
    or stop being (from the same group, within the same limit): its ``layers``, the group and
    then the hexes first reached at each step, stand up to the first one next to a changed hex
    (the next layer is made of hexes next to it), and the whole search when none is. The index
    of that layer, or None. (A changed hex in a layer is next to the layer before it.)"""
    if not changed:
        return None
    if changed < 0:   # (every hex enterable on one side only)
        return 0
    near = board.around(changed)
    for i, layer in enumerate(layers):
        if near & layer:
            return i
    return None


def _price(x, w):
    """Price ``w`` of hex ``x``, refused unless a number >= 0 or none."""
    if w is not None and (isinstance(w, bool) or not isinstance(w, (int, Fraction)) or w < 0):
        raise BuiltinError(f"reach(): the cost of {x} must be a number >= 0 or none, got {_kind(w)}")
    return w


def _price_levels(bits: dict, prices: dict, limit) -> dict | None:
    """The hexes of a map of prices by their price (whole numbers up to ``limit``; none and
    dearer ones left out) as ``{price: their bits}``, every price checked; None when a price
    is a fraction (then the prices are not levels)."""
    levels: dict = {}
    whole = True
    for x, w in prices.items():
        if w.__class__ is not int or w < 0:
            if _price(x, w) is not None:
                whole = False
            continue
        if w <= limit:
            levels[w] = levels.get(w, 0) | bits.get(x, 0)
    return levels if whole else None


def _levels_of(board, group: int, prices: dict, limit) -> dict | None:
    """:func:`_price_levels` of a map of prices searched from ``group`` (its bits), worked out
    from the last whole map searched from the same group where they differ little: the levels of
    every price it had, with the hexes whose price changed (given, taken away or priced anew)
    moved, each new price checked (the others were when they were first given). Kept for the
    next map: the same group's prices change little from one decision to the next."""
    if not _WHOLE.issuperset(map(type, prices.values())):
        return _price_levels(board.bits, prices, limit)
    last = _LEVELS.get(group)
    every = None
    if last is not None and last[0] is board:
        changed = prices.items() ^ last[1].items()   # (hex, price) pairs given or taken away
        if len(changed) < len(prices):
            every, bits, now = dict(last[2]), board.bits, prices.items()
            for x, w in changed:
                if w is None:
                    continue
                if (x, w) not in now:
                    every[w] &= ~bits.get(x, 0)
                elif w >= 0:
                    every[w] = every.get(w, 0) | bits.get(x, 0)
                else:   # (refused below, in the words of a fresh search)
                    every = None
                    break
    if every is None:
        every = _price_levels(board.bits, prices, math.inf) or {}   # (whole prices: levels)
    keep(_LEVELS, group, (board, prices, every), _REACHED)
    return {w: hexes for w, hexes in every.items() if w <= limit}


_LEVELS: dict = {}   # group's bits -> (board, map of whole prices, its levels of every price): the last map searched from it


def _reach_by_levels(board, seen: int, limit, levels: dict) -> int:
    """Dijkstra by whole prices (Dial's buckets, each a set of bits): ``rings[d]``, the hexes
    next to ``news[d]``, those first reached for exactly d, gives the hexes of price w first
    reached for d + w; a hex of price 0 is reached for what its neighbour was. ``seen``: the
    group. (A ring that no price within the limit reaches past is not worked out.) Where no
    hex is free, the last search from the same group stands up to the first cost at which a
    hex whose price changed since could be reached (:func:`_costs_kept`), and goes on from there."""
    free = levels.get(0, 0)
    priced = sorted(item for item in levels.items() if item[0])
    top = priced[-1][0] if priced else 0
    limit = int(limit // 1)
    last_ring = limit - priced[0][0] if priced and not free else limit
    around = board.around

    def with_free(new: int) -> int:
        """The hexes next to ``new``, just reached, once the free hexes it leads to are in."""
        nonlocal seen
        near = around(new)
        ring = near & free & ~seen
        while ring:
            seen |= ring
            more = around(ring)
            near |= more
            ring = more & free & ~seen
        return near
    ring_of = with_free if free else around
    group = seen
    kept = None if free else _PRICED.get(group)
    if kept is not None and kept[0] is board:
        stands = min(_costs_kept(board, kept[1], levels, kept[2]), kept[4] + 1, limit + 1)
        news, rings = kept[2][:stands], kept[3][:stands]
        seen = reduce(or_, news)
        last = max(d for d, new in enumerate(news) if new)
    else:
        news, rings = [seen], [ring_of(seen)]
        last = 0
    d = len(news) - 1
    while d < limit and d - last < top:
        d += 1
        new = 0
        for w, hexes in priced:
            if w > d:
                break
            new |= rings[d - w] & hexes
        new &= ~seen
        news.append(new)
        if new:
            seen |= new
            rings.append(ring_of(new) if d <= last_ring else 0)
            last = d
        else:
            rings.append(0)
    if not free:
        keep(_PRICED, group, (board, levels, news, rings, last_ring), _REACHED)
    return seen


_PRICED: dict = {}   # group's bits -> (board, levels, news, rings, last ring worked out): the last search by prices (no hex free)


def _costs_kept(board, was: dict, now: dict, news: list) -> int:
    """How many of a search by prices' first costs stand (``news[d]``: the hexes first reached
    for d, from 0) when its prices change from ``was`` to ``now`` (price levels, none free): the
    costs below the first at which a hex whose price changed could be reached, that of a hex
    next to it and the lower of its prices (a hex whose price did not change is a candidate
    for the same cost as before until then)."""
    changed = 0
    for w in was.keys() | now.keys():
        changed |= was.get(w, 0) ^ now.get(w, 0)
    if not changed:
        return len(news)
    near = board.around(changed)
    cheapest = min(w for w in was.keys() | now.keys() if (was.get(w, 0) | now.get(w, 0)) & changed)
    for d, new in enumerate(news):
        if near & new:
            return min(d + cheapest, len(news))
    return len(news)


def _cheapest(run, sources: set, limit, price: dict, ask) -> tuple:
    """Dijkstra from every hex of the group at once, on a heap: the prices of map ``price``,
    or (``ask``, a function) each hex's price asked once, when first met: the hexes reached
    in board order, how many were searched and how many prices were read or asked."""
    adj, order = run.board.adj, run.board.order
    best = dict.fromkeys(sources, 0)
    heap = [(0, order[h], h) for h in sources]
    heapq.heapify(heap)
    push, pop = heapq.heappush, heapq.heappop
    done = set()
    while heap:
        spent, _, h = pop(heap)
        if h in done:
            continue
        done.add(h)
        for x in adj[h]:
            if x in done:
                continue
            w = price.get(x, price)
            if w is price:   # not in the map, or not asked yet
                if ask is None:
                    continue
                w = price[x] = ask(x)
            if w is None:
                continue
            if not (w.__class__ is int and w >= 0):
                _price(x, w)
            w += spent
            if w > limit or w >= best.get(x, w + 1):
                continue
            best[x] = w
            push(heap, (w, order[x], x))
    # a step a hex searched, a price read or a call of the cost function
    return sorted(done, key=order.__getitem__), len(done), len(price)


def _step(run, h, d):
    """The hex one step from h in direction d (0 N, 1 NE, 2 SE, 3 S, 4 SW, 5 NW), or none."""
    if d.__class__ is int:
        ways = run.board.ways.get(h)   # (a board with a grid layout: it knows each hex's ways)
        if ways is not None:
            return ways[d % 6]
    _hex(run, h, "step")
    if not isinstance(d, int) or isinstance(d, bool):
        raise BuiltinError(f"step() needs a direction 0-5, got {_kind(d)}")
    if not run.board.offset:
        raise BuiltinError("step() needs a board with a grid layout")
    return run.board.ways[h][d % 6]  # none: off the board, or across a blocked edge


def _direction(run, a, b):
    """The direction (0-5) from hex a to the adjacent hex b, or none when not adjacent."""
    _step(run, a, 0)   # a hex of a board with a grid, or step's fault
    ways = run.board.ways[a]
    return ways.index(b) if b in ways else None


def _ahead(run, h, d):
    """The (up to) three hexes in front of h facing d: slightly left, straight, slightly right."""
    if d.__class__ is int:
        ways = run.board.ways.get(h)   # (as in step)
        if ways is not None:   # the hexes there (ids are never empty), at C speed
            return list(filter(None, (ways[(d - 1) % 6], ways[d % 6], ways[(d + 1) % 6])))
    out = [_step(run, h, (d + k) % 6) for k in (-1, 0, 1)]
    return [x for x in out if x is not None]


def _route_ahead(run, h, d, open_hexes, goals):
    """Like reach_ahead, but the whole way: the hexes from the first step to the goal, or []."""
    path = _search_ahead(run, h, d, open_hexes, goals, "route_ahead")
    return path or []


def _reach_ahead(run, h, d, open_hexes, goals):
    """The nearest goal a piece on h facing d can reach (see _search_ahead), or None."""
    path = _search_ahead(run, h, d, open_hexes, goals, "reach_ahead")
    return path[-1] if path else None


def _search_ahead(run, h, d, open_hexes, goals, fname):
    """The way to the nearest goal a piece on h facing d can reach, moving each step to one of
    the three hexes ahead (slightly left, straight, slightly right) and facing the way it moved,
    through open hexes only, never entering a hex twice (a line cannot cross itself); d none
    means any first direction. Breadth-first over (hex, facing) states, so at most 6 per open
    hex, each reached by its first way; ties go to the lower direction. None when no goal is
    reachable. ``open_hexes`` and ``goals`` are lists of hexes, or functions asked once a hex
    met (a search meets few hexes: no list of every open hex or goal is made)."""
    _hex(run, h, fname)
    if d is not None and (not isinstance(d, int) or isinstance(d, bool) or not 0 <= d < 6):
        raise BuiltinError(f"{fname}() needs a direction 0-5 or none, got {_kind(d)}")
    if not run.board.offset:
        raise BuiltinError(f"{fname}() needs a board with a grid layout")
    asked = [0]   # the calls of the functions given (a step each)
    passable = _hexes_test(open_hexes, fname, "open", asked)
    targets = _hexes_test(goals, fname, "goals", asked)
    ways, bits = run.board.ways, run.board.bits
    start = (h, d)
    queue = deque([start])
    came_from = {start: None}
    on = {start: bits[h]}   # the hexes on the way to each state, its own included, as bits
    while queue:
        state = queue.popleft()
        near, past = ways[state[0]], on[state]
        facing = state[1]
        for turn in _TURNS[facing] if facing is not None else _ANY_TURN:
            there = near[turn]
            if there is None or past & bits[there]:  # off the board, blocked, or on the way here
                continue
            if targets(there):
                charge(run, len(came_from) + asked[0])   # a step a state searched, a call
                out = [there]
                while state is not start:  # back to the starting state
                    out.append(state[0])
                    state = came_from[state]
                return out[::-1]
            step = (there, turn)
            if step not in came_from and passable(there):
                came_from[step] = state
                on[step] = past | bits[there]
                queue.append(step)
    charge(run, len(came_from) + asked[0])
    return None


_TURNS = tuple(((f - 1) % 6, f, (f + 1) % 6) for f in range(6))   # slightly left, straight, right
_ANY_TURN = tuple(range(6))


def _hexes_test(xs, fname: str, what: str, asked: list) -> Callable:
    """Whether a hex is among ``xs`` (a list), or (``xs`` a function) what ``xs`` says of it,
    asked once a hex and counted in ``asked[0]``: true or false, else a fault."""
    if not callable(xs):
        return set(_as_list(xs, fname)).__contains__
    said: dict = {}

    def test(x):
        found = said.get(x)
        if found is None:
            found = xs(x)
            if found.__class__ is not bool:
                raise BuiltinError(f"{fname}(): {what}({x}) must be true or false, got {_kind(found)}")
            said[x] = found
            asked[0] += 1
        return found
    return test


CONTEXT = {
    "step": Builtin(_step, 2, 2, "the hex one step from h in direction d (0 N .. 5 NW), or none", ("hex", "num"), "entity:hexes"),
    "direction": Builtin(_direction, 2, 2, "direction 0-5 from a hex to an adjacent hex, or none", ("hex", "hex"), "int"),
    "ahead": Builtin(_ahead, 2, 2, "the hexes slightly left, straight and slightly right of h facing d", ("hex", "num"), "list:entity:hexes"),
    "reach_ahead": Builtin(_reach_ahead, 4, 4, "nearest goal reachable from h facing d (none: any) stepping only ahead through open hexes, or none; open and goals: lists of hexes or functions (h => true or false)", ("hex", "any", "any", "any"), "any"),
    "route_ahead": Builtin(_route_ahead, 4, 4, "the hexes of the way reach_ahead finds, first step to goal, or [] when there is none", ("hex", "any", "any", "any"), "list:entity:hexes"),
    "players_from": Builtin(_players_from, 1, 1, "all players in seat order, starting with p", ("any",), "list:entity:players"),
    "next_player": Builtin(_next_player, 1, 1, "the player to the left of p", ("any",), "entity:players"),
    "neighbours": Builtin(_neighbours, 1, 1, "the hexes next to a hex", ("hex",), "list:entity:hexes"),
    "frontier": Builtin(_frontier, 1, 1, "hexes next to a group of hexes, not in it", ("list",), "list:entity:hexes"),
    "adjacent": Builtin(_adjacent, 2, 2, "true if two hexes are next to each other", ("hex", "hex"), "bool"),
    "touches": Builtin(_touches, 2, 2, "true if two groups of hexes share or border a hex", ("list", "list"), "bool"),
    "components": Builtin(_components, 1, 1, "the connected groups of a set of hexes", ("list",), "list:list:entity:hexes"),
    "connected": Builtin(_connected, 3, 3, "true if a and b are joined through the given hexes", ("list", "hex", "hex"), "bool"),
    "distance": Builtin(_distance, 2, 2, "fewest steps from a hex or the nearest hex of a group to hex h, or none: distance(c.network, h)", ("any", "hex"), "any"),
    "reach": Builtin(_reach, 2, 3, "hexes reachable from a group within a limit, entering a hex costing cost[h] (a map), cost(h) (a function) or 1 if in a list: reach(c.network, 3, {h: h.cost for h in hexes})", ("list", "num"), "list:entity:hexes"),
}

# the builtins whose work grows with their lists: charged to the run (they take it first)
_CHARGED = ("keys", "sum", "min", "max", "range", "any", "all", "sort", "reverse", "max_by", "min_by",
            "unique", "without", "count_of", "flatten", "intersect", "meets", "duplicates")
PURE = {k: b for k, b in _LISTS.items() if k not in _CHARGED}
ALL = {**_LISTS, **CONTEXT}
CONTEXT.update((k, _LISTS[k]) for k in _CHARGED)
