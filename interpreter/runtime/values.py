"""How rule values are read and written in the game state, and the faults a rule can make
(shared by compiler, generated code and engine)."""
from __future__ import annotations

from typing import NamedTuple

from .rationals import Fraction


MAX_STORED = 10 ** 18
MAX_LIST = 100_000   # the longest list or map a rule may build (see governor.py)


class OverBudget(Exception):
    """The step budget ran out (the machine turns it into RR303 with a position)."""


class RuleFault(Exception):
    """A rule did something impossible (no such field, wrong type); the VM adds the position."""


class BuiltinError(Exception):
    """A builtin was called with values it cannot use."""


def run_body(run, body, key, params):
    """Run a def's compiled body; defs may call each other at most 200 deep."""
    if run.depth >= 200:
        raise RuleFault(f"'{key}' calls itself more than 200 deep")
    run.depth += 1
    try:
        return body(run, params)
    except RecursionError:   # Python's limit first: a def calling itself through a function value
        if run.depth < 20:   # (not calls: values nested too deeply, which the machine words)
            raise
        raise RuleFault(f"'{key}' calls itself {run.depth} deep, deeper than Python can follow") from None
    finally:
        run.depth -= 1


def describe(x) -> str:
    if isinstance(x, bool):
        return "true" if x else "false"
    if x is None:
        return "none"
    if isinstance(x, Fraction):
        return f"the fraction {x}"
    if isinstance(x, list):
        return "a list"
    if isinstance(x, str):
        return f"'{x}'"
    return str(x)


def get_attr(run, obj, name):
    if isinstance(obj, str):
        record = run.ent.get(obj)
        if record is None:
            raise RuleFault(f"{describe(obj)} is not an entity, so it has no '.{name}'")
        try:
            return record[name]
        except KeyError:
            raise RuleFault(f"{obj} has no field '{name}'") from None
    if isinstance(obj, dict):
        try:
            return obj[name]
        except KeyError:
            raise RuleFault(f"no key '{name}'") from None
    raise RuleFault(f"{describe(obj)} has no field '{name}'")


def map_key(key):
    return key if isinstance(key, str) else str(key)


def sorted_keys(m: dict) -> list:
    """A map's keys in the one order that does not depend on how the map was made or whether
    the game was saved (a save writes keys sorted): whole numbers first, by value, then text."""
    return sorted(m, key=lambda k: (0, int(k), "") if k.isdigit() else (1, 0, k))


def get_index(obj, key):
    if isinstance(obj, dict):
        try:
            return obj[map_key(key)]
        except KeyError:
            raise RuleFault(f"no entry {describe(key)}") from None
    if isinstance(obj, list):
        if not isinstance(key, int) or isinstance(key, bool):
            raise RuleFault(f"a list index must be a number, not {describe(key)}")
        if not -len(obj) <= key < len(obj):
            raise RuleFault(f"index {key} is outside a list of {len(obj)} items")
        return obj[key]
    raise RuleFault(f"{describe(obj)} cannot be indexed")


def word(value) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return "none" if value is None else str(value)


class Secret(NamedTuple):
    """A logged value the rules read from a secret field without saying the line ``reveals``
    it (lint's RR116): the whole log shows ``value``, a seat's log shows it only to ``owner``
    (None: to no seat). Made by generated code only where lint finds such a leak."""
    value: object
    owner: str | None


class Action(NamedTuple):
    """One legal decision: an option's name and the values of its parameters (a named tuple:
    cheap to make, as legal actions are made by the thousand)."""
    name: str
    args: tuple = ()

    @property
    def label(self) -> str:
        return " ".join([self.name, *map(word, self.args)])

    def to_json(self) -> list:
        return [self.name, *self.args]

    @classmethod
    def from_json(cls, data) -> "Action":
        if not isinstance(data, list) or not data or not isinstance(data[0], str) \
                or not all(x is None or isinstance(x, (int, str, bool)) for x in data[1:]):
            raise ValueError(f"an action is a list [name, values...], got {data!r}")
        return cls(data[0], tuple(data[1:]))

    def __str__(self) -> str:
        return self.label
