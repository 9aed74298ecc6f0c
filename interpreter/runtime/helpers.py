"""The helpers generated rule code calls (the names of :data:`HELPERS` in every ruleset's
namespace), with the exact words of the faults they raise. They read and write the game only
through the documented run interface (``run.ent``, ``run.glob``, ``run.record``, ``run.tick``...).
"""
from __future__ import annotations

import math
import operator

from ..errors import RailrulesError
from .rationals import Fraction
from .governor import MAX_LIST, WHOLE_NUMBERS, OverLimit, charge, charge_walk, check_storable, check_text, compared, extended, joined
from .values import (Action, BuiltinError, OverBudget, RuleFault, describe, get_attr, get_index, map_key,
                     run_body)
from .memo import keep


def numbers(a, b, sym):
    if (a.__class__ is int or a.__class__ is Fraction) and (b.__class__ is int or b.__class__ is Fraction):
        return   # the common case (a fraction and a number), without a loop or isinstance
    for x in (a, b):
        if isinstance(x, bool) or not isinstance(x, (int, Fraction)):
            raise RuleFault(f"cannot compute {describe(a)} {sym} {describe(b)}")


_NUMBERS = frozenset({int, Fraction})   # (not bool: a truth value is no number)


def _add(run, x, y):
    if x.__class__ in _NUMBERS and y.__class__ in _NUMBERS:   # (a fraction: its sum with a number)
        return x + y
    if x.__class__ is list and y.__class__ is list:
        run.steps += len(x) + len(y)   # the copy, an item a step (charge, written out)
        if run.steps > run.budget:
            run.tick(0)
        return joined(x, y)
    if x.__class__ is str and y.__class__ is str:
        return check_text(x + y)   # each within MAX_TEXT: the sum made is at most twice that
    numbers(x, y, "+")
    return x + y


def _arith(op, sym):
    def checked(x, y):
        if x.__class__ not in _NUMBERS or y.__class__ not in _NUMBERS:
            numbers(x, y, sym)   # the fault, in its words
        return op(x, y)
    return checked


def _order(op, sym):
    def checked(run, x, y):
        if isinstance(x, bool) or isinstance(y, bool):
            raise RuleFault(f"cannot compare {describe(x)} {sym} {describe(y)}")
        if x.__class__ is list and y.__class__ is list:
            _compared(run, x, y)
        return op(x, y)
    return checked


def _compared(run, x, y) -> None:
    """Charge a comparison of two lists or maps: each value of the smaller walk."""
    charge(run, compared(x, y, run.budget - run.steps + 1))


def _equal(run, x, y) -> bool:
    """``x == y`` where both may be lists or maps (else it is written inline): charged."""
    if (x.__class__ is list or x.__class__ is dict) and (y.__class__ is list or y.__class__ is dict):
        _compared(run, x, y)
    return x == y


_SETS: dict = {}  # id(list) -> (the list, its items as a set, or None if they cannot be)


def _set_of(xs: list) -> frozenset | None:
    try:
        return frozenset(xs)
    except TypeError:  # lists among the items
        return None


def _member(run, x, xs):
    if xs.__class__ is list:
        if x.__class__ is not str and (x.__class__ is list or x.__class__ is dict):   # compared with each item, by value
            charge_walk(run, x, len(xs))
            return x in xs
        if len(xs) < 16:
            return x in xs
        # A long list is searched again and again (``h in near`` inside a search): its set is
        # kept. Lists are never changed in place, and the list itself is kept with its set, so
        # its id cannot be another list's while the entry lives.
        entry = _SETS.get(id(xs))
        if entry is None:
            entry = keep(_SETS, id(xs), (xs, _set_of(xs)), 256)
        try:
            return x in entry[1]
        except TypeError:  # x is a list, or the items are
            return x in xs
    if isinstance(xs, dict):
        return map_key(x) in xs
    raise RuleFault(f"'in' needs a list, got {describe(xs)}")


def map_of(pairs: list) -> dict:
    """The map of [key, value] pairs: a key is a name, an entity or a number (kept as text)."""
    return sized_map({checked_key(key): value for key, value in pairs})


def checked_key(key):
    """``key`` as a map keeps it, or the fault of a value that cannot be a key."""
    if isinstance(key, bool) or not isinstance(key, (str, int)):
        raise RuleFault(f"a map's key is a name, an entity or a whole number, not {describe(key)}")
    return map_key(key)


def sized_map(out: dict) -> dict:
    """A map just made, refused when it has more keys than a list may have items."""
    if len(out) > MAX_LIST:
        raise OverLimit(f"a map with more than {MAX_LIST} keys")
    return out


def unpack(value, count: int):
    """``let (a, b) = value``: a list of exactly ``count`` items."""
    if value.__class__ is not list and not isinstance(value, list) or len(value) != count:
        raise RuleFault(f"cannot take {count} names from {describe(value)}: it needs a list of {count} items")
    return value


def _items(run, xs, var, word="for"):
    """A comprehension's (or an ``exists``') list, counted against the step budget."""
    if xs.__class__ is not list and not isinstance(xs, list):
        raise RuleFault(f"'{word} {var} in' needs a list, got {describe(xs)}")
    run.steps += len(xs)  # run.tick, written out: the run says what going over means
    if run.steps > run.budget:
        run.tick(0)
    return xs


def call_def(run, functions, key, params):
    """A ``def`` called (``functions``: the run's plain or tracking bodies): one step."""
    body = functions[key]  # a constant's run refuses here, with the reason
    run.tick(1)
    return run_body(run, body, key, params)


def _derived(run, key, args, typed=None):
    """``derived key(args)``; ``typed``: its def's function for these arguments' proven types,
    which works a value out faster where nothing need be noted (run.derived)."""
    run.tick(1)
    return run.derived(key, args, typed)


def tracked_attr(run, o, name):
    """An entity field read inside a derived value: noted with the object read."""
    try:
        v = run.ent[o][name]
    except (KeyError, TypeError):
        return get_attr(run, o, name)
    run.deps.append((o, name, v))
    return v


def tracked_variable(run, name):
    """A variable read inside a derived value: noted with the object read."""
    v = run.glob[name]
    run.gdeps.append((name, v))
    return v


def fraction_div(a, b):
    if (a.__class__ is int or a.__class__ is Fraction) and (b.__class__ is int or b.__class__ is Fraction) and b:
        return Fraction(a, b)   # the common case, before the tests of every other
    if isinstance(a, bool) or isinstance(b, bool) or not isinstance(a, (int, Fraction)) \
            or not isinstance(b, (int, Fraction)):
        raise RuleFault(f"cannot divide {describe(a)} by {describe(b)}")
    if b == 0:
        raise RuleFault("division by zero")
    return Fraction(a, b)


def _ceil_of_div(a, b):
    """``ceil(a / b)`` when a and b are not two whole numbers (those are inline)."""
    return math.ceil(fraction_div(a, b))


def _floor_of_div(a, b):
    return math.floor(fraction_div(a, b))


def floor_div(a, b):
    numbers(a, b, "//")
    if b == 0:
        raise RuleFault("division by zero")
    return a // b


def modulo(a, b):
    numbers(a, b, "%")
    if b == 0:
        raise RuleFault("modulo by zero")
    return a % b


def _neg(x):
    if isinstance(x, bool) or not isinstance(x, (int, Fraction)):
        raise RuleFault(f"cannot negate {describe(x)}")
    return -x


# ------------------------------------------------------------------ helpers statements call
def _augment(run, old, value, op):
    """``set x += value`` / ``-=`` when they are not two whole numbers (those are inline): the
    new value as stored (the items added checked)."""
    if isinstance(old, list) and isinstance(value, list) and op == "+=":
        charge(run, len(old) + len(value))   # the copy
        return extended(old, value)
    if isinstance(old, int) and isinstance(value, int) and not isinstance(value, bool):
        return check_storable(old + value if op == "+=" else old - value)
    raise RuleFault(f"cannot apply {op} to {describe(old)} and {describe(value)}")


def _pay(run, x, a, b):
    if x.__class__ is not int and (not isinstance(x, int) or isinstance(x, bool)) or x < 0:
        raise RuleFault(f"cannot pay {describe(x)}: an amount is a whole number >= 0")
    ent = run.ent
    try:
        ra = ent[a]
        has = ra["cash"]
        ent[b]["cash"]
    except KeyError:   # (no such entity, or one without cash)
        raise RuleFault(f"pay needs two entities with cash, got {describe(a)} and {describe(b)}") from None
    if has < x and not ra.get("unlimited"):
        raise RuleFault(f"{a} cannot pay {x}: it has {has}")
    if (cash := has - x) not in WHOLE_NUMBERS:   # (an unlimited payer goes below 0)
        check_storable(cash)
    record = run.record
    record(a)["cash"] = cash
    r = record(b)
    if (cash := r["cash"] + x) not in WHOLE_NUMBERS:
        check_storable(cash)
    r["cash"] = cash


def _edit(run, container, key, value, add, check=True):
    """``add value to ...`` / ``remove value from ...``: the list is replaced, never changed
    (a copy charged a step an item; a removal also each value of ``value`` compared). ``check``
    False: ``value`` is proven to be stored as it is (compile/statements.py)."""
    xs = container[key]
    if check:
        value = check_storable(value)
    if xs.__class__ is not list and not isinstance(xs, list):
        raise RuleFault(f"{'add to' if add else 'remove from'} needs a list, got {describe(xs)}")
    run.steps += len(xs)   # (charge, written out: add and remove are common)
    if run.steps > run.budget:
        run.tick(0)
    if add:
        container[key] = joined(xs, [value])   # refused past MAX_LIST
        return
    if value.__class__ is list or value.__class__ is dict:
        charge_walk(run, value, len(xs))
    try:
        i = xs.index(value)
    except ValueError:
        raise RuleFault(f"cannot remove {describe(value)}: it is not in the list") from None
    container[key] = xs[:i] + xs[i + 1:]


def _draw(run, items):
    if not isinstance(items, list) or not items:
        raise RuleFault(f"draw needs a non-empty list, got {describe(items)}")
    return items[run.random_below(len(items))]


def _loop_items(items):
    """What a loop walks, kept in its hidden local as it is: a list (never changed in place), or
    for ``repeat N`` the count N, its numbers 0..N-1 made one at a time (IterNext)."""
    if items.__class__ is list:
        return items
    if isinstance(items, int) and not isinstance(items, bool):
        return max(items, 0)
    if not isinstance(items, list):
        raise RuleFault(f"a loop needs a list, got {describe(items)}")
    return items


def _too_deep(key):
    raise RuleFault(f"'{key}' calls itself more than 200 deep")


def _required(reason):
    raise RuleFault(f"requirement failed: {reason}")


def _local(L, name):
    """A rule local read by checked code: a name not set yet is the rule's fault, worded."""
    try:
        return L[name]
    except KeyError:
        raise RuleFault(f"'{name}' is used before it is set") from None


def _live(names: dict) -> dict:
    """A code unit's rule locals by name, from its Python locals (``locals()``: ``v_NAME``, those
    set now): what its checked code and its targets' resolvers read."""
    return {k[2:]: v for k, v in names.items() if k[:2] == "v_"}


def _compare(op, sym):
    """``x < y`` (``op``, written ``sym``) in checked code: true and false, and values Python
    cannot order, are the rule's fault, worded."""
    def checked(run, x, y):
        try:
            if isinstance(x, bool) or isinstance(y, bool):
                raise TypeError
            if x.__class__ is list and y.__class__ is list:
                _compared(run, x, y)
            return op(x, y)
        except TypeError:
            raise RuleFault(f"cannot compare {describe(x)} {sym} {describe(y)}") from None
    return checked


def ended(run, name):
    """An end condition's name read as a value: whether the game ended for it (false while it
    goes on). Put in a namespace by the rules that read one, not among the HELPERS."""
    result = run.state.get("result")
    return result is not None and name in result["reasons"]


def _times(k):
    """``repeat k``: a whole number of times."""
    if not isinstance(k, int) or isinstance(k, bool) or k < 0:
        raise RuleFault(f"repeat needs a whole number of times, got {describe(k)}")
    return k


_ORDERS = [("<", operator.lt), ("<=", operator.le), (">", operator.gt), (">=", operator.ge)]


HELPERS = {
    "_store": check_storable, "_augment": _augment, "_pay": _pay, "_edit": _edit, "_draw": _draw,
    "_loop_items": _loop_items, "_required": _required, "_too_deep": _too_deep,
    "_new": tuple.__new__, "_Action": Action, "_OverBudget": OverBudget,
    "_get_attr": get_attr, "_get_index": get_index, "_member": _member, "_items": _items, "_unpack": unpack,
    "_map_of": map_of, "_map_key": checked_key, "_sized_map": sized_map, "_call": call_def, "_derived": _derived,
    "_tracked_attr": tracked_attr, "_tracked_variable": tracked_variable, "_add": _add, "_equal": _equal,
    "_sub": _arith(operator.sub, "-"), "_mul": _arith(operator.mul, "*"),
    "_mod": modulo, "_floordiv": floor_div, "_div": fraction_div, "_neg": _neg, "_Fraction": Fraction,
    "_NUMBERS": _NUMBERS,
    "_ceil_of_div": _ceil_of_div, "_floor_of_div": _floor_of_div,
    **{f"_o_{i}": _order(op, sym) for i, (sym, op) in enumerate(_ORDERS)},
    # checked code (codegen's checked mode): every read and comparison worded
    "_local": _local, "_live": _live, "_times": _times, **{f"_cmp_{i}": _compare(op, sym) for i, (sym, op) in enumerate(_ORDERS)},
    # the faults that already have their words (a rule's, a builtin's, the budget's), and
    # Python's depth limit, which checked code would only reach again at every level below
    "_SAID": (RuleFault, BuiltinError, OverBudget, RailrulesError, RecursionError),
    "_EMPTY": {},  # a record to look into when there is none (never changed)
}
